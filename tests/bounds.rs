//! Every run is bounded (issue 32): evaluation cost, requests per run, bytes per file, the size of
//! each finding, reports that hold only characters their format allows, requests that HTTP would
//! refuse, the `--out-dir` lock, and `watch` after its root is removed or its folder tampered with.

use crate::common;
use std::io::{BufRead, Write};
use std::path::Path;
use std::time::{Duration, Instant};

/// The guide-shaped estate of `simulate` (POST /toys limited) with its RateLimitPolicy's predicate
/// replaced by `predicate`, in a new folder.
fn estate_with_predicate(dir: &Path, predicate: &str) -> std::path::PathBuf {
    let text = std::fs::read_to_string("testdata/guides/simple-rl-simulate/estate.yaml").unwrap();
    let was = "predicate: \"request.method == 'POST'\"";
    assert!(text.contains(was));
    let path = dir.join("estate.yaml");
    std::fs::write(
        &path,
        text.replace(
            was,
            &format!("predicate: {}", serde_json::to_string(predicate).unwrap()),
        ),
    )
    .unwrap();
    path
}

/// `simulate` of one POST /toys against `estate`, with `extra` flags.
fn post_toys(estate: &Path, extra: &[&str]) -> assert_cmd::assert::Assert {
    common::policyctl()
        .args(["simulate", "--kuadrant-version", "1.5", "-X", "POST"])
        .args(["-H", "Host: api.toystore.com"])
        .arg("-f")
        .arg(estate)
        .args(extra)
        .arg("http://10.0.0.1/toys")
        .timeout(Duration::from_secs(60))
        .assert()
}

fn stderr(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stderr).into_owned()
}

fn stdout(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stdout).into_owned()
}

/// The issue's two hostile predicates: seven nested `all` over 20 items (20^7 steps) and nine
/// nested `replace`s each multiplying the length by ten (a 10^9-byte string). Both stop at the
/// default budget of one expression with PCTL5013 naming the flag that raises it, at once.
#[test]
fn costly_predicates_stop_at_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let items = (1..=20)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let mut loops = "true".to_string();
    for v in ["a", "b", "c", "d", "e", "f", "g"] {
        loops = format!("[{items}].all({v}, {loops})");
    }
    let mut grow = "'a'".to_string();
    for _ in 0..9 {
        grow = format!("{grow}.replace('a', 'aaaaaaaaaa')");
    }
    let grow = format!("size({grow}) > 0");
    for predicate in [loops, grow] {
        let estate = estate_with_predicate(dir.path(), &predicate);
        let start = Instant::now();
        let a = post_toys(&estate, &[]).code(2);
        let err = stderr(&a);
        assert!(err.contains("PCTL5013"), "{err}");
        assert!(err.contains("--cel-cost-limit"), "{err}");
        assert!(err.contains("1000000 units"), "{err}");
        assert!(start.elapsed() < Duration::from_secs(40), "{predicate}");
    }
}

/// A predicate of 20 × 20 steps passes under the default budget and stops under a budget of 100
/// (each step costs at least 1, cel-go's per-iteration charge): the flag is the budget.
#[test]
fn the_budget_is_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let items = (1..=20)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let estate = estate_with_predicate(
        dir.path(),
        &format!("[{items}].all(a, [{items}].all(b, a > 0)) && request.method == 'POST'"),
    );
    let ok = post_toys(&estate, &["-o", "json"]).code(0);
    assert!(stdout(&ok).contains("\"allowed\": true"), "{}", stdout(&ok));
    let over = post_toys(&estate, &["--cel-cost-limit", "100"]).code(2);
    assert!(stderr(&over).contains("PCTL5013"), "{}", stderr(&over));
    let request = post_toys(&estate, &["--request-cost-limit", "100"]).code(2);
    assert!(
        stderr(&request).contains("--request-cost-limit"),
        "{}",
        stderr(&request)
    );
}

/// Requests per run: `--count` above `--max-requests` is PCTL5014, before anything runs; so is a
/// test run whose cases ask for more together (each under the bound).
#[test]
fn requests_per_run_are_bounded() {
    let a = common::policyctl()
        .args(["simulate", "-f", "testdata/guides/simple-rl-simulate"])
        .args([
            "--count",
            "11",
            "--max-requests",
            "10",
            "http://10.0.0.1/toys",
        ])
        .assert()
        .code(2);
    assert!(stderr(&a).contains("PCTL5014"), "{}", stderr(&a));
    assert!(stderr(&a).contains("--max-requests"), "{}", stderr(&a));
    // The README's maximum of one run is accepted (and not held: see tests/benches/bounds.sh).
    common::policyctl()
        .args(["simulate", "-f", "testdata/guides/simple-rl-simulate"])
        .args(["--count", "10000001", "http://10.0.0.1/toys"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("PCTL5014"));
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("cases.yaml");
    std::fs::write(
        &cases,
        "cases:\n- name: a\n  url: http://10.0.0.1/toys\n  count: 6\n  expect: {allowed: true}\n- name: b\n  url: http://10.0.0.1/toys\n  count: 6\n  expect: {allowed: true}\n",
    )
    .unwrap();
    let a = common::policyctl()
        .args([
            "test",
            "-f",
            "testdata/guides/simple-rl-simulate",
            "--max-requests",
            "10",
        ])
        .arg(&cases)
        .assert()
        .code(2);
    assert!(stderr(&a).contains("PCTL5014"), "{}", stderr(&a));
}

/// `count: 5, interval: 5124095576h` would end past the simulated clock (2^63 µs, about 292,000
/// years): refused with a finding, from the flags, a request file and a test case, instead of a
/// saturated time that admits requests over the limit.
#[test]
fn times_beyond_the_simulated_clock_are_refused() {
    let a = common::policyctl()
        .args(["simulate", "-f", "testdata/guides/simple-rl-simulate"])
        .args([
            "--count",
            "5",
            "--interval",
            "5124095576h",
            "http://10.0.0.1/toys",
        ])
        .assert()
        .code(2);
    assert!(stderr(&a).contains("PCTL5001"), "{}", stderr(&a));
    assert!(stderr(&a).contains("simulated clock"), "{}", stderr(&a));
    let dir = tempfile::tempdir().unwrap();
    let requests = dir.path().join("r.yaml");
    std::fs::write(
        &requests,
        "- url: http://10.0.0.1/toys\n  count: 5\n  interval: 5124095576h\n",
    )
    .unwrap();
    let a = common::policyctl()
        .args([
            "simulate",
            "-f",
            "testdata/guides/simple-rl-simulate",
            "--requests",
        ])
        .arg(&requests)
        .assert()
        .code(2);
    assert!(stderr(&a).contains("PCTL5005"), "{}", stderr(&a));
    assert!(stderr(&a).contains("simulated clock"), "{}", stderr(&a));
    let cases = dir.path().join("cases.yaml");
    std::fs::write(
        &cases,
        "cases:\n- name: far\n  url: http://10.0.0.1/toys\n  count: 5\n  interval: 5124095576h\n  expect: {allowed: true}\n",
    )
    .unwrap();
    let a = common::policyctl()
        .args(["test", "-f", "testdata/guides/simple-rl-simulate"])
        .arg(&cases)
        .assert()
        .code(2);
    assert!(stderr(&a).contains("simulated clock"), "{}", stderr(&a));
}

/// Devices that never end are refused at once: `--identity @/dev/zero`, a case file `/dev/zero`,
/// `--requests /dev/zero`.
#[cfg(unix)]
#[test]
fn endless_devices_are_refused() {
    let start = Instant::now();
    let a = common::policyctl()
        .args([
            "simulate",
            "-f",
            "testdata/examples/",
            "--identity",
            "@/dev/zero",
        ])
        .arg("http://x/")
        .timeout(Duration::from_secs(30))
        .assert()
        .code(2);
    assert!(stderr(&a).contains("PCTL5001"), "{}", stderr(&a));
    assert!(stderr(&a).contains("a device"), "{}", stderr(&a));
    let a = common::policyctl()
        .args(["test", "-f", "testdata/examples/", "/dev/zero"])
        .timeout(Duration::from_secs(30))
        .assert()
        .code(2);
    assert!(stderr(&a).contains("a device"), "{}", stderr(&a));
    let a = common::policyctl()
        .args([
            "simulate",
            "-f",
            "testdata/examples/",
            "--requests",
            "/dev/zero",
        ])
        .timeout(Duration::from_secs(30))
        .assert()
        .code(2);
    assert!(stderr(&a).contains("PCTL5004"), "{}", stderr(&a));
    assert!(start.elapsed() < Duration::from_secs(40));
}

/// A regular file over the bound of one file (256 MiB) is refused on its size, without being read
/// (the file here is sparse: it takes no disk), by `lint` and by `watch`, which keeps running.
#[test]
fn regular_files_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("in");
    std::fs::create_dir(&root).unwrap();
    std::fs::copy(
        "testdata/guides/simple-rl-simulate/estate.yaml",
        root.join("estate.yaml"),
    )
    .unwrap();
    let big = root.join("big.yaml");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(policyctl::MAX_FILE_BYTES + 1)
        .unwrap();
    let a = common::policyctl()
        .args(["lint", "-f"])
        .arg(&root)
        .timeout(Duration::from_secs(30))
        .assert()
        .code(2);
    assert!(
        stdout(&a).contains("holds more than 256 MiB")
            || stderr(&a).contains("holds more than 256 MiB"),
        "{}{}",
        stdout(&a),
        stderr(&a)
    );
    let a = common::policyctl()
        .args(["watch", "--cycles", "1", "-f"])
        .arg(&root)
        .arg("lint")
        .write_stdin("")
        .timeout(Duration::from_secs(60))
        .assert()
        .code(0);
    assert!(
        stdout(&a).contains("holds more than 256 MiB"),
        "{}",
        stdout(&a)
    );
}

/// A character not allowed in XML 1.0 (`Char`: tab, line feed, carriage return, U+0020–U+D7FF,
/// U+E000–U+FFFD, U+10000–U+10FFFF).
fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// A case named with U+FFFF in a file named with U+FFFE: the JUnit report of `test` holds only
/// characters XML allows (and still parses), and so do `lint -o junit`, `-o sarif` and `-o json`
/// about a manifest file with U+FFFE in its name.
#[test]
fn reports_hold_only_characters_their_format_allows() {
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("cases\u{fffe}.yaml");
    std::fs::write(
        &cases,
        "cases:\n- name: \"odd \\uFFFF name \\x01\"\n  url: http://10.0.0.1/toys\n  headers: ['Host: api.toystore.com']\n  expect: {allowed: true}\n",
    )
    .unwrap();
    let a = common::policyctl()
        .args([
            "test",
            "-f",
            "testdata/guides/simple-rl-simulate",
            "-o",
            "junit",
        ])
        .arg(&cases)
        .assert()
        .code(0);
    let xml = stdout(&a);
    assert!(xml.chars().all(xml_char), "{xml:?}");
    assert!(xml.contains("odd \\u{ffff} name \\u{1}"), "{xml}");
    assert!(xml.contains("cases\\u{fffe}.yaml"), "{xml}");
    let mut reader = quick_xml::Reader::from_str(&xml);
    loop {
        match reader.read_event() {
            Ok(quick_xml::events::Event::Eof) => break,
            Ok(_) => {}
            Err(e) => panic!("{e}: {xml}"),
        }
    }
    // A manifest with a finding, in a file whose name holds U+FFFE.
    let manifest = dir.path().join("bad\u{fffe}.yaml");
    std::fs::write(
        &manifest,
        "apiVersion: kuadrant.io/v1\nkind: RateLimitPolicy\nmetadata: {name: p, namespace: n}\nspec:\n  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: missing}\n  limits: {l: {rates: [{limit: 1, window: 10s}]}}\n",
    )
    .unwrap();
    for format in ["junit", "sarif", "json", "github"] {
        let a = common::policyctl()
            .args(["lint", "-o", format, "-f"])
            .arg(&manifest)
            .assert();
        let out = stdout(&a);
        assert!(out.contains("fffe"), "{format}: {out}");
        assert!(!out.contains('\u{fffe}'), "{format}: {out:?}");
        if format != "github" {
            assert!(out.chars().all(xml_char), "{format}: {out:?}");
        }
    }
}

/// URLs and header values with CR, LF or NUL are refused as curl and Envoy refuse them (RFC 9110
/// §5.5), from the flags (PCTL5001), a request file (PCTL5005) and a test case (PCTL5002), instead
/// of reaching the predicates raw.
#[test]
fn line_breaks_in_urls_and_headers_are_refused() {
    for args in [
        vec!["-H", "X-A: a\r\nX-B: b", "http://10.0.0.1/toys"],
        vec!["-H", "X-A: a\nb", "http://10.0.0.1/toys"],
        vec!["http://10.0.0.1/toys\r\nX-B: b"],
        vec!["http://10.0.0.1/to ys"],
    ] {
        let a = common::policyctl()
            .args(["simulate", "-f", "testdata/guides/simple-rl-simulate"])
            .args(&args)
            .assert()
            .code(2);
        assert!(stderr(&a).contains("PCTL5001"), "{args:?}: {}", stderr(&a));
        assert!(
            stderr(&a).contains("not allowed"),
            "{args:?}: {}",
            stderr(&a)
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let requests = dir.path().join("r.jsonl");
    std::fs::write(
        &requests,
        "{\"url\": \"http://10.0.0.1/toys\"}\n{\"url\": \"http://10.0.0.1/toys\", \"headers\": [\"X-A: a\\r\\nX-B: b\"]}\n",
    )
    .unwrap();
    let a = common::policyctl()
        .args([
            "simulate",
            "-q",
            "-f",
            "testdata/guides/simple-rl-simulate",
            "--requests",
        ])
        .arg(&requests)
        .assert()
        .code(2);
    assert!(stderr(&a).contains("PCTL5005"), "{}", stderr(&a));
    assert!(stderr(&a).contains("r.jsonl:2:"), "{}", stderr(&a));
    let cases = dir.path().join("cases.yaml");
    std::fs::write(
        &cases,
        "cases:\n- name: split\n  url: \"http://10.0.0.1/toys\\nX: y\"\n  expect: {allowed: true}\n",
    )
    .unwrap();
    let a = common::policyctl()
        .args(["test", "-f", "testdata/guides/simple-rl-simulate"])
        .arg(&cases)
        .assert()
        .code(2);
    assert!(
        stderr(&a).contains("not allowed in a URL"),
        "{}",
        stderr(&a)
    );
}

/// Files whose lines end with a lone carriage return (classic Mac OS) read as their lines, as YAML
/// 1.2 reads them (a CR is a line break, spec §5.4) and kubectl with it: a request file, a test
/// case file and the settings file.
#[test]
fn carriage_return_only_files_read_as_their_lines() {
    let dir = tempfile::tempdir().unwrap();
    let requests = dir.path().join("r.yaml");
    std::fs::write(
        &requests,
        "- url: http://10.0.0.1/toys\r  method: POST\r  headers: ['Host: api.toystore.com']\r  count: 6\r",
    )
    .unwrap();
    let a = common::policyctl()
        .args([
            "simulate",
            "-f",
            "testdata/guides/simple-rl-simulate",
            "--kuadrant-version",
            "1.5",
            "--requests",
        ])
        .arg(&requests)
        .assert()
        .code(0);
    // The guide's limit: 5 POSTs, the sixth is limited.
    assert_eq!(stdout(&a).matches("429").count(), 1, "{}", stdout(&a));
    let cases = dir.path().join("cases.yaml");
    std::fs::write(
        &cases,
        "cases:\r- name: six posts\r  method: POST\r  url: http://10.0.0.1/toys\r  headers: ['Host: api.toystore.com']\r  count: 6\r  expect: {limitedAfter: 5}\r",
    )
    .unwrap();
    let a = common::policyctl()
        .args([
            "test",
            "-f",
            "testdata/guides/simple-rl-simulate",
            "--kuadrant-version",
            "1.5",
        ])
        .arg(&cases)
        .assert()
        .code(0);
    assert!(stdout(&a).contains("1 passed, 0 failed"), "{}", stdout(&a));
    // JSON Lines whose lines end with CR: two requests (not one line of trailing characters).
    let jsonl = dir.path().join("r.jsonl");
    std::fs::write(
        &jsonl,
        "{\"url\": \"http://10.0.0.1/toys\"}\r{\"url\": \"http://10.0.0.1/toys\"}\r",
    )
    .unwrap();
    let a = common::policyctl()
        .args([
            "simulate",
            "-f",
            "testdata/guides/simple-rl-simulate",
            "--requests",
        ])
        .arg(&jsonl)
        .assert()
        .code(0);
    assert!(stdout(&a).contains("\n  2 "), "{}", stdout(&a));
    // The settings file: a finding on its third line is on line 3.
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::write(
        repo.join(".policyctl.yaml"),
        "kuadrantVersion: \"1.5\"\rfailOn: error\rbogus: 1\r",
    )
    .unwrap();
    std::fs::copy(
        "testdata/guides/simple-rl-simulate/estate.yaml",
        repo.join("estate.yaml"),
    )
    .unwrap();
    let a = common::policyctl()
        .current_dir(&repo)
        .args(["lint", "-q", "-f", "estate.yaml"])
        .assert();
    let all = stdout(&a) + &stderr(&a);
    assert!(
        all.contains(".policyctl.yaml:3:1: warning[PCTL4001]"),
        "{all}"
    );
}

/// An ignore annotation listing thousands of items that are no codes gives a bounded report: the
/// first ten get a finding each (quoted shortened), the rest one finding that counts them.
#[test]
fn a_huge_ignore_annotation_gives_a_bounded_report() {
    let dir = tempfile::tempdir().unwrap();
    let items: Vec<String> = (0..20_000).map(|i| format!("x{i}")).collect();
    let long = "y".repeat(1000);
    let manifest = dir.path().join("m.yaml");
    std::fs::write(
        &manifest,
        format!(
            "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  name: gw\n  namespace: ns\n  annotations:\n    policyctl.kuadrant.io/ignore: \"{long},{}\"\nspec:\n  gatewayClassName: istio\n  listeners:\n  - {{name: http, port: 80, protocol: HTTP}}\n",
            items.join(",")
        ),
    )
    .unwrap();
    let a = common::policyctl()
        .args(["lint", "-q", "-o", "json", "-f"])
        .arg(&manifest)
        .assert();
    let out = stdout(&a);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let msgs: Vec<&str> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "PCTL4011")
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert_eq!(msgs.len(), 11, "{msgs:?}");
    assert!(
        msgs.iter()
            .any(|m| m.contains(&format!("{}…", "y".repeat(64)))),
        "{msgs:?}"
    );
    assert!(
        msgs.iter().any(|m| m.contains("19991 more items")),
        "{msgs:?}"
    );
    assert!(out.len() < 20_000, "{}", out.len());
}

/// Text `lint` on 300 policies tied on one Gateway: each PCTL3004 draws its two policies (with
/// their context), never the lines between them, so the report grows with the findings only.
#[test]
fn each_tie_finding_has_a_bounded_size() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from(
        "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec:\n  gatewayClassName: istio\n  listeners:\n  - {name: http, port: 80, protocol: HTTP}\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: infra}\nspec:\n  parentRefs: [{name: gw}]\n  rules:\n  - backendRefs: [{name: s, port: 80}]\n",
    );
    for i in 0..300 {
        text.push_str(&format!(
            "---\napiVersion: kuadrant.io/v1\nkind: RateLimitPolicy\nmetadata: {{name: p{i:03}, namespace: infra}}\nspec:\n  targetRef: {{group: gateway.networking.k8s.io, kind: Gateway, name: gw}}\n  defaults:\n    limits:\n      l:\n        rates: [{{limit: {}, window: 10s}}]\n",
            i + 1
        ));
    }
    let manifest = dir.path().join("tied.yaml");
    std::fs::write(&manifest, text).unwrap();
    let a = common::policyctl()
        .args(["lint", "--color", "never", "-f"])
        .arg(&manifest)
        .env("COLUMNS", "100")
        .assert();
    let out = stdout(&a);
    let findings: Vec<&str> = out.split("PCTL3004").skip(1).collect();
    assert!(!findings.is_empty(), "{out}");
    for f in &findings {
        assert!(f.lines().count() < 40, "{f}");
    }
}

/// Hold an exclusive lock on `dir` as another run would (flock on the folder).
fn hold_lock(dir: &Path) -> std::fs::File {
    let f = std::fs::File::open(dir).unwrap();
    f.lock().unwrap();
    f
}

/// A second `compute --out-dir` on a folder another run holds waits for it, says so once, and
/// goes on when the lock is released; with `--lock-timeout` it gives up after that long.
#[cfg(unix)]
#[test]
fn the_out_dir_lock_waits() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let held = hold_lock(&out);
    let start = Instant::now();
    let a = common::policyctl()
        .args([
            "compute",
            "-f",
            "testdata/examples/toystore",
            "--lock-timeout",
            "1",
            "--out-dir",
        ])
        .arg(&out)
        .timeout(Duration::from_secs(30))
        .assert()
        .code(2);
    assert!(start.elapsed() >= Duration::from_secs(1));
    let err = stderr(&a);
    assert!(err.contains("Blocking waiting for the lock on"), "{err}");
    assert!(err.contains("after waiting 1 s"), "{err}");
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 0);
    // Released once the run says it waits: the run goes on and writes.
    let mut child = common::policyctl_std()
        .args(["compute", "-f", "testdata/examples/toystore", "--out-dir"])
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while !line.contains("Blocking waiting") {
        line.clear();
        assert!(err.read_line(&mut line).unwrap() > 0, "no wait message");
    }
    drop(held);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut err, &mut rest).unwrap();
    assert!(child.wait().unwrap().success(), "{rest}");
    assert!(std::fs::read_dir(&out).unwrap().count() > 3);
    // Zero: no wait.
    let _held = hold_lock(&out);
    let a = common::policyctl()
        .args([
            "compute",
            "-f",
            "testdata/examples/toystore",
            "--lock-timeout",
            "0",
            "--out-dir",
        ])
        .arg(&out)
        .assert()
        .code(2);
    assert!(!stderr(&a).contains("Blocking"), "{}", stderr(&a));
}

/// A running `watch` with its stdout read line by line.
struct Watching {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Watching {
    fn start(args: &[&str], input: &Path, out: &Path) -> Self {
        let mut child = common::policyctl_std()
            .args(["watch", "--debounce", "50", "--out-dir"])
            .arg(out)
            .args(args)
            .arg("-f")
            .arg(input)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                if tx.send(line.unwrap()).is_err() {
                    break;
                }
            }
        });
        Watching { child, lines }
    }

    /// The lines up to and including the next one starting with `prefix`.
    fn until(&self, prefix: &str) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            match self.lines.recv_timeout(Duration::from_secs(60)) {
                Ok(l) => {
                    let done = l.starts_with(prefix);
                    seen.push(l);
                    if done {
                        return seen;
                    }
                }
                Err(e) => panic!("no {prefix:?} line ({e}); saw {seen:?}"),
            }
        }
    }

    /// Ask for a resync (Enter).
    fn enter(&mut self) {
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn finish(mut self) {
        drop(self.child.stdin.take());
        let status = self.child.wait().unwrap();
        assert!(status.success());
    }
}

/// The files of `out` and their texts.
fn folder(out: &Path) -> std::collections::BTreeMap<String, String> {
    std::fs::read_dir(out)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().into_string().unwrap(),
                std::fs::read_to_string(e.path()).unwrap(),
            )
        })
        .collect()
}

/// What `compute --out-dir` writes for `input`.
fn computed(input: &Path) -> std::collections::BTreeMap<String, String> {
    let dir = tempfile::tempdir().unwrap();
    common::policyctl()
        .args(["compute", "--out-dir"])
        .arg(dir.path())
        .arg("-f")
        .arg(input)
        .assert()
        .code(0);
    folder(dir.path())
}

/// `--resync` (here: Enter) brings the folder back to what `compute --out-dir` writes: a generated
/// file edited by hand is written again, a file planted with the marker line is pruned, a file
/// without the marker is left alone; the cycle lists what it repaired.
#[test]
fn resync_repairs_the_out_dir() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    std::fs::copy(
        "testdata/guides/simple-rl-simulate/estate.yaml",
        input.join("estate.yaml"),
    )
    .unwrap();
    let out = dir.path().join("out");
    let mut w = Watching::start(&["--cycles", "2"], &input, &out);
    w.until("cycle 1:");
    let want = computed(&input);
    assert_eq!(folder(&out), want);
    let (edited, text) = want.iter().find(|(f, _)| f.contains("Limitador")).unwrap();
    std::fs::write(
        out.join(edited),
        text.replace("max_value: 5", "max_value: 500"),
    )
    .unwrap();
    let marker = text.lines().next().unwrap();
    std::fs::write(
        out.join("planted.yaml"),
        format!("{marker}\nkind: Secret\n"),
    )
    .unwrap();
    std::fs::write(out.join("mine.yaml"), "kind: ConfigMap\n").unwrap();
    w.enter();
    let cycle = w.until("cycle 2:");
    w.finish();
    let mut now = folder(&out);
    assert_eq!(
        now.remove("mine.yaml").as_deref(),
        Some("kind: ConfigMap\n")
    );
    assert_eq!(now, want);
    assert!(
        cycle
            .iter()
            .any(|l| l.starts_with("updated") && l.contains(edited.as_str())),
        "{cycle:?}"
    );
    assert!(
        cycle
            .iter()
            .any(|l| l.starts_with("deleted") && l.contains("planted.yaml")),
        "{cycle:?}"
    );
    assert!(
        cycle
            .last()
            .unwrap()
            .contains("0 created, 1 updated, 1 deleted"),
        "{cycle:?}"
    );
}

/// A cycle whose write is refused (a file without the marker where an object's file goes:
/// PCTL4013) counts nothing as written; the next cycle writes the whole folder.
#[test]
fn a_refused_write_is_not_counted() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    let estate = input.join("estate.yaml");
    std::fs::copy("testdata/guides/simple-rl-simulate/estate.yaml", &estate).unwrap();
    let out = dir.path().join("out");
    let mut w = Watching::start(&["--cycles", "3"], &input, &out);
    w.until("cycle 1:");
    let limitador = folder(&out)
        .into_keys()
        .find(|f| f.contains("Limitador"))
        .unwrap();
    std::fs::write(out.join(&limitador), "hand-written\n").unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let text = std::fs::read_to_string(&estate).unwrap();
    std::fs::write(&estate, text.replace("limit: 5", "limit: 7")).unwrap();
    let cycle = w.until("cycle 2:");
    assert!(cycle.iter().any(|l| l.contains("PCTL4013")), "{cycle:?}");
    assert!(!cycle.iter().any(|l| l.starts_with("updated")), "{cycle:?}");
    assert!(
        cycle
            .last()
            .unwrap()
            .contains("0 created, 0 updated, 0 deleted"),
        "{cycle:?}"
    );
    assert_eq!(
        std::fs::read_to_string(out.join(&limitador)).unwrap(),
        "hand-written\n"
    );
    std::fs::remove_file(out.join(&limitador)).unwrap();
    w.enter();
    w.until("cycle 3:");
    w.finish();
    assert_eq!(folder(&out), computed(&input));
}

/// The watched folder removed: its last state is kept (PCTL4012) and the output folder left as
/// it was (`compute` would not run without it); created again with other files: read, and the
/// output folder is what `compute --out-dir` writes for them.
#[test]
fn a_removed_and_recreated_root_is_read_again() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    let text = std::fs::read_to_string("testdata/guides/simple-rl-simulate/estate.yaml").unwrap();
    std::fs::write(input.join("estate.yaml"), &text).unwrap();
    let out = dir.path().join("out");
    let w = Watching::start(&["--cycles", "6"], &input, &out);
    w.until("cycle 1:");
    let before = folder(&out);
    std::thread::sleep(Duration::from_millis(200));
    std::fs::remove_dir_all(&input).unwrap();
    let gone = w.until("cycle 2:");
    assert!(
        gone.iter()
            .any(|l| l.contains("PCTL4012") && l.contains("is gone")),
        "{gone:?}"
    );
    assert_eq!(folder(&out), before);
    std::thread::sleep(Duration::from_millis(200));
    let staging = dir.path().join("staging");
    std::fs::create_dir(&staging).unwrap();
    std::fs::write(
        staging.join("estate.yaml"),
        text.replace("limit: 5", "limit: 7"),
    )
    .unwrap();
    std::fs::rename(&staging, &input).unwrap();
    let back = w.until("cycle 3:");
    assert!(
        back.iter()
            .any(|l| l.starts_with("resolved") && l.contains("is gone")),
        "{back:?}"
    );
    let now = folder(&out);
    assert_ne!(now, before);
    assert_eq!(now, computed(&input));
    // The folder created again is watched: an edit in it is a cycle.
    std::thread::sleep(Duration::from_millis(200));
    std::fs::write(
        input.join("estate.yaml"),
        text.replace("limit: 5", "limit: 8"),
    )
    .unwrap();
    w.until("cycle 4:");
    assert_eq!(folder(&out), computed(&input));
    // Removed and created again within one batch of events (a checkout): read again, and
    // watched again.
    std::thread::sleep(Duration::from_millis(200));
    std::fs::create_dir(&staging).unwrap();
    std::fs::write(
        staging.join("estate.yaml"),
        text.replace("limit: 5", "limit: 9"),
    )
    .unwrap();
    std::fs::remove_dir_all(&input).unwrap();
    std::fs::rename(&staging, &input).unwrap();
    w.until("cycle 5:");
    assert_eq!(folder(&out), computed(&input));
    std::thread::sleep(Duration::from_millis(200));
    std::fs::write(
        input.join("estate.yaml"),
        text.replace("limit: 5", "limit: 4"),
    )
    .unwrap();
    w.until("cycle 6:");
    w.finish();
    assert_eq!(folder(&out), computed(&input));
}

/// Property harness for the request-file and test-case-file parsers (not a coverage-guided fuzzer;
/// ignored by default: `cargo test --test tests -- --ignored bounds::random_`, `PROPTEST_CASES=N`
/// for more). Texts are built from the formats' own pieces (keys, durations, URLs, headers, counts,
/// YAML and JSON punctuation, line breaks of every kind, control characters) mutated at random.
/// Every text parses or gives a finding whose span lies inside the text; never a panic; a plan
/// never holds more requests than its budget, nor a request past the simulated clock.
fn piece() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    prop_oneof![
        Just("- ".to_string()),
        Just("url: ".to_string()),
        Just("http://10.0.0.1/toys".to_string()),
        Just("http://x/\r\n".to_string()),
        Just("at: ".to_string()),
        Just("after: ".to_string()),
        Just("count: ".to_string()),
        Just("interval: ".to_string()),
        Just("headers: ['Host: a', 'X: \u{1b}']".to_string()),
        Just("identity: {a: 1}".to_string()),
        Just("method: POST".to_string()),
        Just("expect: {allowed: true, limitedAfter: 3}".to_string()),
        Just("cases:".to_string()),
        Just("name: ".to_string()),
        Just("{\"url\": \"http://x/\", \"count\": 18446744073709551615}".to_string()),
        Just("5124095576h".to_string()),
        Just("1e400s".to_string()),
        Just("-1s".to_string()),
        Just("&a [*a, *a]".to_string()),
        "[0-9]{1,20}".prop_map(|s| s),
        "[0-9]{1,4}(ms|s|m|h)".prop_map(|s| s),
        prop_oneof![
            Just("\n"),
            Just("\r"),
            Just("\r\n"),
            Just("  "),
            Just("\t"),
            Just("\0"),
            Just("\u{ffff}"),
            Just("---\n"),
        ]
        .prop_map(str::to_string),
        any::<String>(),
    ]
}

#[test]
#[ignore]
fn random_request_and_case_files_are_parsed_or_refused() {
    use policyctl::simulate::{cases, schedule};
    use proptest::prelude::*;
    let text = proptest::collection::vec(piece(), 0..40).prop_map(|v| v.concat());
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(5_000),
        ..ProptestConfig::default()
    });
    runner
        .run(&(text, any::<bool>()), |(text, jsonl)| {
            let text = policyctl::line_feeds(&text);
            let name = if jsonl { "r.jsonl" } else { "r.yaml" };
            let mut sources = policyctl::SourceMap::default();
            let id = sources.add(name, text.as_str());
            const BUDGET: u64 = 1_000;
            match schedule::parse(id, name, &text, &schedule::Defaults::default(), BUDGET) {
                Ok(plan) => {
                    prop_assert!(plan.len() <= BUDGET, "{text:?}: {}", plan.len());
                    for e in &plan.entries {
                        prop_assert!(e.last().is_some(), "{text:?}");
                    }
                }
                Err(d) => {
                    if let Some(span) = d.primary_span() {
                        prop_assert!(sources.position(span).is_some(), "{text:?}: {d:?}");
                    }
                }
            }
            if let Ok(cs) = cases::parse(&text) {
                for c in &cs {
                    prop_assert!(c.plan.last().is_some(), "{text:?}");
                }
            }
            Ok(())
        })
        .unwrap();
}

/// The estate of `tests/hostile/multiplying.sh` (shared with `limits.sh` and
/// `tests/benches/budget.sh`): `routes` HTTPRoutes, each attached whole to 32 Gateways of 64
/// listeners, with `hostnames` hostnames and 16 rules of `matches` matches, and a RateLimitPolicy.
/// A route gives 32,768 paths and 2,048 × hostnames × 16 × matches action sets.
fn multiplying_estate(routes: usize, hostnames: usize, matches: usize) -> String {
    let out = std::process::Command::new("tests/hostile/multiplying.sh")
        .args([routes, hostnames, matches, 0].map(|n| n.to_string()))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// Paths and action sets multiply within the schemas' caps; a run computes at most its budget of
/// each (`--max-paths`, `--max-action-sets`): the routes from the first that would go over are
/// left out with one PCTL1019 naming the budget and its flag, exit 2, at once. Routes within the
/// budget are computed: their objects are in the output.
#[test]
fn multiplying_routes_stop_at_the_estate_budget() {
    let dir = tempfile::tempdir().unwrap();
    // Two routes of 4,194,304 action sets each (16 hostnames, 128 matches), the most one route
    // can ask for: the default budget of action sets (2,097,152) takes neither.
    let path = dir.path().join("sets.yaml");
    std::fs::write(&path, multiplying_estate(2, 16, 8)).unwrap();
    let a = common::policyctl()
        .args(["compute", "-f"])
        .arg(&path)
        .timeout(Duration::from_secs(60))
        .assert()
        .code(2);
    let err = stderr(&a);
    assert!(
        err.contains("PCTL1019")
            && err.contains("with HTTPRoute ns/r0, its routes could give more than 2,097,152 wasm action sets; HTTPRoute ns/r0 and the route after it (in kind, namespace and name order) are left out")
            && err.contains("--max-action-sets N"),
        "{err}"
    );
    assert!(!stdout(&a).contains("actionSets"), "{}", stdout(&a));

    // Routes of 32,768 paths and as many action sets: a budget of 40,000 paths takes the first
    // of three; its gateways' wasm configurations are written, with its action sets only.
    let path = dir.path().join("paths.yaml");
    std::fs::write(&path, multiplying_estate(3, 0, 1)).unwrap();
    let a = common::policyctl()
        .args(["compute", "-q", "--max-paths", "40000", "-f"])
        .arg(&path)
        .timeout(Duration::from_secs(60))
        .assert()
        .code(2);
    let (out, err) = (stdout(&a), stderr(&a));
    assert!(
        err.contains("error[PCTL1019]")
            && err.contains("more than 40,000 paths; HTTPRoute ns/r1 and the route after it"),
        "{err}"
    );
    assert!(out.contains("/r0/15/0") && !out.contains("/r1/"), "{err}");
    // The policies of the routes left out say so, beside the operator's TargetNotFound text.
    let a = common::policyctl()
        .args(["lint", "--max-paths", "40000", "-f"])
        .arg(&path)
        .timeout(Duration::from_secs(60))
        .assert()
        .code(2);
    let all = stdout(&a) + &stderr(&a);
    assert!(
        all.contains("RateLimitPolicy target r1 was not found")
            && all.contains("HTTPRoute ns/r1 is in the input, but left out of this run (PCTL1019)"),
        "{all}"
    );
    let a = common::policyctl()
        .args(["lint", "-q", "--max-action-sets", "50000", "-f"])
        .arg(&path)
        .timeout(Duration::from_secs(60))
        .assert()
        .code(2);
    // `lint` reports its findings on stdout.
    assert!(
        stdout(&a)
            .contains("more than 50,000 wasm action sets; HTTPRoute ns/r1 and the route after it"),
        "{}",
        stdout(&a)
    );
    // Within the budget, the same estate runs whole.
    let a = common::policyctl()
        .args(["compute", "-q", "-f"])
        .arg(&path)
        .timeout(Duration::from_secs(120))
        .assert()
        .code(0);
    assert!(!stderr(&a).contains("PCTL1019"), "{}", stderr(&a));
    assert!(stdout(&a).contains("/r2/15/0"));
}

/// Tiny documents cost memory whatever their size (seven bytes each here, a finding of about a
/// kilobyte each): the run reads as many as its budget, leaves out the rest with one PCTL1019, and
/// stops (exit 2). `watch` holds its files to the same budget (`watch::` property test).
#[test]
fn documents_stop_at_the_run_budget() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tiny.yaml");
    std::fs::write(&path, "---\n{}\n".repeat(300_000)).unwrap();
    let a = common::policyctl()
        .args(["lint", "-f"])
        .arg(&path)
        .timeout(Duration::from_secs(60))
        .assert()
        .code(2);
    let (out, err) = (stdout(&a), stderr(&a));
    let whole = format!("{out}{err}");
    assert!(
        whole.contains("PCTL1019")
            && whole.contains("the run's budget of 262,144 documents")
            && whole.contains("this document and every one after it are left out")
            && whole.contains(":524290:1]")
            && whole.contains("--max-documents N"),
        "{}",
        &whole[whole.len().saturating_sub(3000)..]
    );
    assert!(
        whole.contains("Summary: 1 files, 262144 documents, 0 objects"),
        "{}",
        &whole[whole.len().saturating_sub(600)..]
    );

    // The flag sets the budget; a List's items each count; a JSON stream's objects too.
    let svc = |n: usize| {
        format!(
            r#"{{"apiVersion": "v1", "kind": "Service", "metadata": {{"name": "s{n}", "namespace": "ns"}}, "spec": {{"ports": [{{"port": 80}}]}}}}"#
        )
    };
    let list = dir.path().join("list.yaml");
    std::fs::write(
        &list,
        format!(
            "apiVersion: v1\nkind: List\nitems:\n- {}\n- {}\n",
            svc(0),
            svc(1)
        ),
    )
    .unwrap();
    let json = dir.path().join("more.json");
    std::fs::write(&json, format!("{}\n{}\n", svc(2), svc(3))).unwrap();
    let run = |max: &str| {
        common::policyctl()
            .args(["lint", "-q", "-o", "json", "--max-documents", max, "-f"])
            .arg(&list)
            .arg("-f")
            .arg(&json)
            .assert()
    };
    let a = run("3").code(2);
    let out = stdout(&a);
    assert!(
        out.contains("PCTL1019")
            && out.contains("the run's budget of 3 documents")
            && out.contains("more.json"),
        "{out}"
    );
    run("4").code(0);
    let a = run("1").code(2);
    assert!(
        stdout(&a).contains("this List of 2 items and every document after it are left out"),
        "{}",
        stdout(&a)
    );
}

/// The bytes of one run are bounded, files and streams together: a repository of many files at the
/// bound of one would be read whole otherwise. The input that would go over it and every one after
/// it are left out (PCTL1019, exit 2), without being read.
#[test]
fn input_bytes_stop_at_the_run_budget() {
    let dir = tempfile::tempdir().unwrap();
    let doc = |n: usize| format!("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns-{n}\n");
    for n in 0..3 {
        std::fs::write(dir.path().join(format!("{n}.yaml")), doc(n)).unwrap();
    }
    let each = doc(0).len();
    let run = |max: usize| {
        common::policyctl()
            .args(["lint", "--max-input-bytes", &max.to_string(), "-f"])
            .arg(dir.path())
            .assert()
    };
    let a = run(2 * each + 1).code(2);
    let whole = format!("{}{}", stdout(&a), stderr(&a));
    assert!(
        whole.contains("PCTL1019")
            && whole.contains(&format!(
                "the input is larger than the run's budget of {} bytes (files and streams together):",
                2 * each + 1
            ))
            && whole.contains("2.yaml and every input after it are left out")
            && whole.contains("--max-input-bytes N")
            && whole.contains("Summary: 2 files"),
        "{whole}"
    );
    run(3 * each).code(0);
    // Standard input counts too.
    let a = common::policyctl()
        .args(["lint", "--max-input-bytes", "10", "-f", "-"])
        .write_stdin(doc(0))
        .assert()
        .code(2);
    let whole = format!("{}{}", stdout(&a), stderr(&a));
    assert!(
        whole.contains("PCTL1019") && whole.contains("Summary: 0 files"),
        "{whole}"
    );
}

/// A finding on a line of megabytes (a stream of JSON objects on one line) names its position
/// instead of drawing the line: the report stays the size of its findings, not of the line times
/// the findings drawn.
#[test]
fn findings_on_long_lines_are_named_not_drawn() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("one-line.json");
    std::fs::write(&path, "{}".repeat(100_000)).unwrap();
    let a = common::policyctl()
        .args(["lint", "-f"])
        .arg(&path)
        .assert()
        .code(1);
    let (out, err) = (stdout(&a), stderr(&a));
    assert!(
        out.contains("this document: ") && out.contains("one-line.json:1:3"),
        "{}",
        &out[..out.len().min(3000)]
    );
    assert!(
        out.len() + err.len() < 20_000,
        "{} bytes",
        out.len() + err.len()
    );
    // A short line is still drawn.
    std::fs::write(&path, "{}".repeat(10)).unwrap();
    let a = common::policyctl()
        .args(["lint", "-f"])
        .arg(&path)
        .assert()
        .code(1);
    assert!(stdout(&a).contains("1 │ {}{}"), "{}", stdout(&a));
}
