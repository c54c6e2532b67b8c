//! What a new user meets first, in a terminal and in CI: the first command is quiet, text wraps
//! only where it can be copied back, suppressions are counted the same in every format, and the
//! reports are ones code scanning and test-report viewers take as they are.

use crate::common::{policyctl, policyctl_std};

/// The README's first command (`## Set up`) prints the objects and nothing on stderr.
#[test]
fn the_first_command_is_quiet() {
    let out = policyctl()
        .args(["compute", "-f", "testdata/examples/"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("kind: EnvoyFilter"));
}

/// The finding and its help, as `compute --out-dir` prints them on stderr.
fn sha256_warning(columns: Option<&str>) -> String {
    let dir = tempfile::tempdir().unwrap();
    let mut c = policyctl_std();
    c.args(["compute", "-f", "testdata/examples/", "--out-dir"])
        .arg(dir.path().join("generated"));
    if let Some(w) = columns {
        c.env("COLUMNS", w);
    }
    let out = c.output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    String::from_utf8(out.stderr).unwrap()
}

/// Not a terminal and no `COLUMNS`: nothing is wrapped, as rustc, cargo and ripgrep print to a
/// pipe; the kubectl command of the help is on one line, whole.
#[test]
fn diagnostics_to_a_pipe_are_not_wrapped() {
    let err = sha256_warning(None);
    let command = "kubectl get envoyfilter -n gateway-system kuadrant-prod-web -o jsonpath='{.spec.configPatches[0].patch.value.typed_config.value.config.vm_config.code.remote.sha256}'";
    assert!(
        err.lines().any(|l| l.trim() == command),
        "the command is not on a line of its own:\n{err}"
    );
    assert!(
        err.lines().any(|l| l.contains(
            "the wasm EnvoyFilter gateway-system/kuadrant-prod-web carries an empty sha256: only the running operator knows the wasm module's hash"
        )),
        "{err}"
    );
}

/// A narrow width (an exported `COLUMNS`) wraps between words only: no name, path or command is
/// split, not even at its hyphens.
#[test]
fn wrapping_never_splits_a_token() {
    for width in ["40", "60", "100"] {
        let err = sha256_warning(Some(width));
        let words: Vec<&str> = err
            .split_whitespace()
            .filter(|w| !matches!(*w, "│" | "⚠" | "help:"))
            .collect();
        for token in [
            "gateway-system/kuadrant-prod-web",
            "jsonpath='{.spec.configPatches[0].patch.value.typed_config.value.config.vm_config.code.remote.sha256}'",
            "kuadrant-prod-web",
            "--wasm-sha256",
        ] {
            assert!(
                words.contains(&token),
                "COLUMNS={width}: {token} split:\n{err}"
            );
        }
    }
}

/// `lint` with a settings file of `text`, on `manifests`, in `format`: (exit code, stdout).
fn lint_with_settings(text: &str, manifests: &str, format: &str) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    let settings = dir.path().join("settings.yaml");
    std::fs::write(&settings, text).unwrap();
    let out = policyctl()
        .arg("--config")
        .arg(&settings)
        .args([
            "lint",
            "-f",
            manifests,
            "--fail-on",
            "warning",
            "-o",
            format,
        ])
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
    )
}

/// An `ignore:` entry naming an error is a warning (`PCTL4010`) like any other: it fails
/// `--fail-on warning`, and every format shows it and counts it.
#[test]
fn a_settings_finding_is_in_every_format_and_counted() {
    let settings = "ignore:\n  - code: PCTL2001\n    reason: we know\n";
    let manifests = "testdata/guides/simple-rl/";
    let (code, json) = lint_with_settings(settings, manifests, "json");
    assert_eq!(code, 1, "{json}");
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["summary"]["warnings"], 1, "{json}");
    let d = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["severity"] == "warning")
        .unwrap();
    assert_eq!(d["code"], "PCTL4010");
    assert_eq!(
        d["file"].as_str().map(|f| f.ends_with("settings.yaml")),
        Some(true)
    );
    assert_eq!(d["line"], 2);
    let (code, sarif) = lint_with_settings(settings, manifests, "sarif");
    assert_eq!(code, 1);
    let sarif: serde_json::Value = serde_json::from_str(&sarif).unwrap();
    let warnings: Vec<&serde_json::Value> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["level"] == "warning")
        .collect();
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0]["ruleId"], "PCTL4010");
    let (code, github) = lint_with_settings(settings, manifests, "github");
    assert_eq!(code, 1);
    assert_eq!(github.matches("::warning ").count(), 1, "{github}");
    assert!(github.contains("title=PCTL4010"), "{github}");
    let (code, junit) = lint_with_settings(settings, manifests, "junit");
    assert_eq!(code, 1);
    assert!(junit.contains("PCTL4010"), "{junit}");
    let (code, text) = lint_with_settings(settings, manifests, "text");
    assert_eq!(code, 1);
    assert!(
        text.contains("PCTL4010") && text.contains("1 warnings"),
        "{text}"
    );
}

/// A copy of the example estate whose gateway RateLimitPolicy carries `annotations`.
fn examples_with_annotations(annotations: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let src = std::path::Path::new("testdata/examples/toystore");
    for entry in std::fs::read_dir(src).unwrap() {
        let path = entry.unwrap().path();
        let mut text = std::fs::read_to_string(&path).unwrap();
        if path.file_name().unwrap() == "10-gateway-policies.yaml" {
            let at = text.find("  namespace: gateway-system\n").unwrap();
            text.insert_str(at, &format!("  annotations:\n{annotations}"));
        }
        std::fs::write(dir.path().join(path.file_name().unwrap()), text).unwrap();
    }
    dir
}

/// The same code twice in the annotation silences its finding once, and is not also an unused
/// suppression (`PCTL4009`).
#[test]
fn a_code_listed_twice_in_an_annotation_is_one_suppression() {
    let dir = examples_with_annotations(
        "    policyctl.kuadrant.io/ignore: \"PCTL3002, pctl3002\"\n    policyctl.kuadrant.io/ignore-reason: partial on purpose\n",
    );
    let out = policyctl()
        .args(["lint", "-o", "json", "--fail-on", "warning", "-f"])
        .arg(dir.path())
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{json}");
    assert_eq!(json["diagnostics"], serde_json::json!([]));
    assert_eq!(json["summary"]["suppressed"], 1);
}

/// `object: "*"` matches every finding, those about no object included (`PCTL3007`, about the
/// input as a whole); `object: "Gateway *"` does not match those.
#[test]
fn a_star_object_pattern_matches_findings_without_an_object() {
    let manifests = "testdata/guides/simple-rl/";
    let all = "ignore:\n  - code: PCTL3007\n    object: \"*\"\n    reason: the cluster has one\n";
    let (code, json) = lint_with_settings(all, manifests, "json");
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(code, 0, "{json}");
    assert_eq!(json["summary"]["suppressed"], 1, "{json}");
    let codes: Vec<&str> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert!(
        !codes.contains(&"PCTL3007") && !codes.contains(&"PCTL4009"),
        "{codes:?}"
    );
    let gateways = "ignore:\n  - code: PCTL3007\n    object: \"Gateway *\"\n    reason: r\n";
    let (code, json) = lint_with_settings(gateways, manifests, "json");
    assert_eq!(code, 1, "the entry matches nothing: PCTL4009\n{json}");
    assert!(
        json.contains("PCTL3007") && json.contains("PCTL4009"),
        "{json}"
    );
}

/// `test` against manifests with errors fails (exit 1) even when every case passes: the cases ran
/// against an estate without the rejected objects.
#[test]
fn test_fails_when_the_manifests_have_errors() {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir("testdata/examples/toystore").unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
    }
    let ok = policyctl()
        .args(["test", "-f"])
        .arg(dir.path())
        .arg("testdata/tests/toystore/")
        .output()
        .unwrap();
    assert_eq!(
        ok.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    // A policy whose target does not exist: PCTL2001, an error.
    std::fs::write(
        dir.path().join("90-stray.yaml"),
        "apiVersion: kuadrant.io/v1\nkind: RateLimitPolicy\nmetadata:\n  name: stray\n  namespace: toystore\nspec:\n  targetRef:\n    group: gateway.networking.k8s.io\n    kind: HTTPRoute\n    name: missing\n  limits:\n    l:\n      rates:\n      - limit: 1\n        window: 1m\n",
    )
    .unwrap();
    let out = policyctl()
        .args(["test", "-f"])
        .arg(dir.path())
        .arg("testdata/tests/toystore/")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("PCTL2001") && stderr.contains("the manifests have 1 error(s)"),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("5 passed, 0 failed"));
}

/// `lint -o sarif` run from `cwd` on `files`, with extra environment: the log as JSON.
fn sarif_from(
    cwd: &std::path::Path,
    files: &[&str],
    env: &[(&str, &std::path::Path)],
) -> serde_json::Value {
    let mut c = policyctl();
    c.current_dir(cwd)
        .args(["lint", "-o", "sarif", "--fail-on", "never"]);
    for f in files {
        c.args(["-f", f]);
    }
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    crate::formats::assert_code_scanning_accepts(&text, "sub-folder run");
    serde_json::from_str(&text).unwrap()
}

/// Every result's (uri, uriBaseId).
fn locations(log: &serde_json::Value) -> std::collections::BTreeSet<(String, Option<String>)> {
    log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let a = &r["locations"][0]["physicalLocation"]["artifactLocation"];
            (
                a["uri"].as_str().unwrap().to_string(),
                a["uriBaseId"].as_str().map(str::to_string),
            )
        })
        .collect()
}

/// SARIF from a sub-folder of a repository names files from the repository root, relative to
/// `%SRCROOT%`, however they were named on the command line (relative, `..`, absolute), which is
/// how GitHub code scanning matches results to files ("relative paths are interpreted relative to
/// the root of the repository"); a file outside the repository is an absolute `file://` URI.
#[test]
fn sarif_paths_are_relative_to_the_repository_root() {
    let repo = tempfile::tempdir().unwrap();
    let root = repo.path().canonicalize().unwrap();
    std::fs::create_dir(root.join(".git")).unwrap();
    let manifests = root.join("deploy/kuadrant");
    std::fs::create_dir_all(&manifests).unwrap();
    std::fs::copy(
        "testdata/invalid/target-not-found.yaml",
        manifests.join("rlp.yaml"),
    )
    .unwrap();
    let want: std::collections::BTreeSet<_> = [(
        "deploy/kuadrant/rlp.yaml".to_string(),
        Some("%SRCROOT%".to_string()),
    )]
    .into();
    let absolute = manifests.join("rlp.yaml");
    for (cwd, file) in [
        (root.join("deploy"), "kuadrant/rlp.yaml"),
        (root.join("deploy/kuadrant"), "rlp.yaml"),
        (root.join("deploy/kuadrant"), "../kuadrant/./rlp.yaml"),
        (root.clone(), absolute.to_str().unwrap()),
    ] {
        let log = sarif_from(&cwd, &[file], &[]);
        assert_eq!(locations(&log), want, "{file} from {}", cwd.display());
    }
    // Outside the repository: an absolute file URI, no base id.
    let outside = tempfile::tempdir().unwrap();
    let elsewhere = outside.path().canonicalize().unwrap().join("rlp.yaml");
    std::fs::copy("testdata/invalid/target-not-found.yaml", &elsewhere).unwrap();
    let log = sarif_from(&root, &[elsewhere.to_str().unwrap()], &[]);
    let (uri, base) = locations(&log).into_iter().next().unwrap();
    assert_eq!(uri, format!("file://{}", elsewhere.display()));
    assert_eq!(base, None);
    // POLICYCTL_SOURCE_ROOT names the root; GITHUB_WORKSPACE does when there is no .git.
    let log = sarif_from(
        &root,
        &["deploy/"],
        &[("POLICYCTL_SOURCE_ROOT", &root.join("deploy"))],
    );
    assert_eq!(
        locations(&log).into_iter().next().unwrap().0,
        "kuadrant/rlp.yaml"
    );
    std::fs::remove_dir(root.join(".git")).unwrap();
    let log = sarif_from(&manifests, &["rlp.yaml"], &[("GITHUB_WORKSPACE", &root)]);
    assert_eq!(
        locations(&log).into_iter().next().unwrap().0,
        "deploy/kuadrant/rlp.yaml"
    );
}

/// A JUnit report's elements: (element path, attribute names), and every test case's attributes.
type Shape = (
    std::collections::BTreeSet<(String, Vec<String>)>,
    Vec<std::collections::BTreeMap<String, String>>,
);

fn junit_shape(xml: &str) -> Shape {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut path: Vec<String> = Vec::new();
    let mut shape = std::collections::BTreeSet::new();
    let mut cases = Vec::new();
    loop {
        let event = reader.read_event().unwrap();
        let (start, empty) = match &event {
            Event::Start(e) => (Some(e.clone()), false),
            Event::Empty(e) => (Some(e.clone()), true),
            Event::End(_) => {
                path.pop();
                (None, false)
            }
            Event::Eof => break,
            _ => (None, false),
        };
        if let Some(e) = start {
            let name = String::from_utf8(e.name().as_ref().to_vec()).unwrap();
            path.push(name.clone());
            let attrs: std::collections::BTreeMap<String, String> = e
                .attributes()
                .map(|a| {
                    let a = a.unwrap();
                    (
                        String::from_utf8(a.key.as_ref().to_vec()).unwrap(),
                        a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                            .unwrap()
                            .into_owned(),
                    )
                })
                .collect();
            shape.insert((path.join("/"), attrs.keys().cloned().collect()));
            if name == "testcase" {
                cases.push(attrs);
            }
            if empty {
                path.pop();
            }
        }
    }
    (shape, cases)
}

/// `lint -o junit` and `test -o junit` write one dialect: the same elements with the same
/// attributes (quick-junit's, which Jenkins, GitLab and GitHub test reporters read), and a
/// classname that is a dotted logical name, never a file path; the file is in `file`.
#[test]
fn both_junit_reports_are_one_dialect_with_dotted_classnames() {
    let lint = policyctl()
        .args([
            "lint",
            "-o",
            "junit",
            "-f",
            "testdata/invalid/target-not-found.yaml",
        ])
        .output()
        .unwrap();
    assert_eq!(lint.status.code(), Some(1));
    let dir = tempfile::tempdir().unwrap();
    let failing = dir.path().join("failing.yaml");
    std::fs::write(
        &failing,
        "cases:\n- name: a passing case\n  url: http://api.toystore.example.com/toys\n  expect: {deniedByAuth: true}\n- name: a failing case\n  url: http://api.toystore.example.com/toys\n  expect: {allowed: true}\n",
    )
    .unwrap();
    let test = policyctl()
        .args(["test", "-o", "junit", "-f", "testdata/examples/"])
        .arg(&failing)
        .output()
        .unwrap();
    assert_eq!(test.status.code(), Some(1));
    let (lint_shape, lint_cases) = junit_shape(&String::from_utf8(lint.stdout).unwrap());
    let (test_shape, test_cases) = junit_shape(&String::from_utf8(test.stdout).unwrap());
    // Every element the test report has (a passing and a failing case), the lint report has too,
    // with the same attributes.
    for element in &test_shape {
        assert!(
            lint_shape.contains(element),
            "{element:?} not in {lint_shape:?}"
        );
    }
    let root = |s: &std::collections::BTreeSet<(String, Vec<String>)>| {
        s.iter().find(|(p, _)| p == "testsuites").cloned()
    };
    assert_eq!(root(&lint_shape), root(&test_shape));
    for case in lint_cases.iter().chain(&test_cases) {
        let class = &case["classname"];
        assert!(
            class.starts_with("policyctl.")
                && class
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)),
            "{case:?}"
        );
    }
    assert!(
        lint_cases
            .iter()
            .any(|c| c["classname"] == "policyctl.lint.RateLimitPolicy"
                && c["name"] == "gateway-system/rlp"
                && c["file"] == "testdata/invalid/target-not-found.yaml")
    );
    let file = failing.to_str().unwrap();
    assert!(
        test_cases
            .iter()
            .all(|c| c["file"] == file && c["classname"].ends_with(".failing"))
    );
}

/// `PCTL2003` says where a Gateway of that name is when it is in another namespace (the usual
/// mistake: a parentRef without `namespace` means the route's own).
#[test]
fn a_missing_parent_gateway_hint_names_the_namespace_it_is_in() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string("testdata/examples/toystore/20-toystore.yaml").unwrap();
    let route = text
        .split("\n---\n")
        .find(|d| d.contains("kind: HTTPRoute"))
        .unwrap();
    let wrong = route.replace("    namespace: gateway-system\n", "");
    assert_ne!(wrong, route, "the fixture's parentRef names its namespace");
    std::fs::copy(
        "testdata/examples/toystore/00-gateway.yaml",
        dir.path().join("00-gateway.yaml"),
    )
    .unwrap();
    std::fs::write(dir.path().join("route.yaml"), wrong).unwrap();
    let out = policyctl()
        .args(["lint", "-o", "json", "-f"])
        .arg(dir.path())
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "PCTL2003")
        .unwrap_or_else(|| panic!("{json}"));
    assert_eq!(
        d["help"],
        "a Gateway prod-web exists in namespace gateway-system: set the parentRef's `namespace: gateway-system` (a parentRef without `namespace` means the route's own, toystore)"
    );
}

/// A 429 names the limit and the policy it is written in, not the Limitador namespace (the route,
/// `toystore/toystore`, which read like a policy): the route's own policy, or the Gateway's
/// default that reaches a route without a policy of its own.
#[test]
fn a_limited_request_names_the_policy_of_its_limit() {
    for version in ["1.4", "1.5"] {
        let out = policyctl()
            .args(["simulate", "--kuadrant-version", version])
            .args([
                "-f",
                "testdata/guides/authenticated-rl",
                "-H",
                "Authorization: APIKEY IAMBOB",
            ])
            .args([
                "--count",
                "3",
                "--interval",
                "1s",
                "http://api.toystore.com/toy",
            ])
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains(r#"429 limited by "bob-limit"  (Limitador: limit "bob-limit" of RateLimitPolicy toystore/toystore)"#),
            "{version}: {text}"
        );
        let out = policyctl()
            .args([
                "simulate",
                "--kuadrant-version",
                version,
                "-f",
                "testdata/examples/",
            ])
            .args(["--count", "101", "http://www.toystore.example.com/"])
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains(
                r#"(Limitador: limit "per-route" of RateLimitPolicy gateway-system/gw-defaults)"#
            ),
            "{version}: {text}"
        );
    }
}

/// `--only` completes object families, not file names, in every shell's script.
#[test]
fn only_completes_families() {
    let families = policyctl::Family::ALL.map(policyctl::Family::name);
    let script = |shell: &str| {
        let out = policyctl().args(["completions", shell]).output().unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let bash = script("bash");
    let block = &bash[bash.find("--only)").unwrap()..];
    let block = &block[..block.find(";;").unwrap()];
    assert!(
        block.contains(&format!("compgen -W \"{}\"", families.join(" "))),
        "{block}"
    );
    assert!(!block.contains("compgen -f"), "{block}");
    let zsh = script("zsh");
    let line = zsh.lines().find(|l| l.contains("--only=")).unwrap();
    assert!(
        line.contains(&format!("({})", families.join(" "))),
        "{line}"
    );
    // fish: `-f` (no file names), then the families as arguments.
    let fish = script("fish");
    let only = &fish[fish.find("-l only").unwrap()..];
    assert!(only.contains("-r -f -a \"wasm\\t"), "{only}");
    for f in families {
        assert!(
            only[..only.find("\ncomplete ").unwrap()].contains(&format!("{f}\\t")),
            "{f}"
        );
    }
}

/// A folder with nothing to read is trouble (`PCTL4014`, exit 2), as `kubectl apply -f` refuses
/// "no objects passed": a CI job pointed at a mistyped or emptied folder must not pass quietly. A
/// folder of other files is the same; `--base` of `diff` may be empty (a new estate).
#[test]
fn a_folder_with_nothing_to_read_says_so_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("README.md"), "not a manifest\n").unwrap();
    for args in [
        &["lint"][..],
        &["lint", "-o", "json"],
        &["compute"],
        &["status"],
    ] {
        let out = policyctl()
            .args(args)
            .arg("-f")
            .arg(dir.path())
            .output()
            .unwrap();
        let all = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {all}");
        assert!(
            all.contains("PCTL4014") && all.contains("nothing to read"),
            "{args:?}: {all}"
        );
    }
    let out = policyctl()
        .args(["diff", "-f", "testdata/examples/", "-o", "stat", "--base"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("PCTL4014"));
}

/// `--help` to a pipe is not wrapped either (with an exported `COLUMNS` it wraps there).
#[test]
fn help_to_a_pipe_is_not_wrapped() {
    let help = |columns: Option<&str>| {
        let mut c = policyctl_std();
        c.args(["compute", "--help"]);
        if let Some(w) = columns {
            c.env("COLUMNS", w);
        }
        String::from_utf8(c.output().unwrap().stdout).unwrap()
    };
    let whole = "Only these object families (comma-separated): wasm, envoyfilter, limitador, authconfig, envoygateway, certificate, dnsrecord, extension";
    assert!(help(None).contains(whole), "{}", help(None));
    let narrow = help(Some("60"));
    assert!(!narrow.contains(whole), "{narrow}");
    assert!(
        narrow.contains("Only these object families (comma-separated):"),
        "{narrow}"
    );
}
