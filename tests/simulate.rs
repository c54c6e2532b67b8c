//! `policyctl simulate` against guide-shaped estates: each expectation is what the Kuadrant
//! operator v1.5.2 user guides say `curl` returns (doc/user-guides/ratelimiting/*.md).

use crate::common;
use serde_json::Value;

fn simulate(args: &[&str]) -> Value {
    let out = common::policyctl()
        .arg("simulate")
        .args(args)
        .args(["-o", "json"])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).unwrap()
}

fn verdicts(v: &Value) -> Vec<(bool, Option<String>)> {
    v["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["allowed"].as_bool().unwrap(),
                r["limit"].as_str().map(str::to_owned),
            )
        })
        .collect()
}

fn allowed_then_limited(
    allowed: usize,
    limited: usize,
    limit: &str,
) -> Vec<(bool, Option<String>)> {
    let mut v = vec![(true, None); allowed];
    v.extend(vec![(false, Some(limit.to_string())); limited]);
    v
}

/// simple-rl-for-app-developers.md: "Up to 5 successful (200 OK) requests every 10 seconds to
/// POST /toys, then 429", one request a second; and unlimited GET /toys.
/// The simple rate limiting guide's estate, on 1.5, with the guide's `Host` header.
const TOYSTORE: [&str; 6] = [
    "-f",
    "testdata/guides/simple-rl-simulate",
    "--kuadrant-version",
    "1.5",
    "-H",
    "Host: api.toystore.com",
];

#[test]
fn create_toy_five_per_ten_seconds() {
    let base = TOYSTORE;
    let v = simulate(
        &[
            &base[..],
            &[
                "-X",
                "POST",
                "--count",
                "6",
                "--interval",
                "1s",
                "http://10.0.0.1/toys",
            ],
        ]
        .concat(),
    );
    assert_eq!(verdicts(&v), allowed_then_limited(5, 1, "create-toy"));
    let sixth = &v["requests"][5];
    assert_eq!(sixth["status"], 429);
    assert_eq!(sixth["routing"]["rule"], "create-toy");
    // The window began with the first request: 10 s later the limit admits again.
    let v = simulate(
        &[
            &base[..],
            &[
                "-X",
                "POST",
                "--count",
                "11",
                "--interval",
                "1s",
                "http://10.0.0.1/toys",
            ],
        ]
        .concat(),
    );
    let mut want = allowed_then_limited(5, 5, "create-toy");
    want.push((true, None));
    assert_eq!(verdicts(&v), want);
    let v = simulate(&[&base[..], &["--count", "20", "http://10.0.0.1/toys"]].concat());
    assert_eq!(verdicts(&v), vec![(true, None); 20]);
}

/// authenticated-rl-for-app-developers.md: alice 5 and bob 2 requests every 10 seconds, one
/// request a second, each with the API key of the guide's Secret (`Authorization: APIKEY IAMALICE`,
/// the guide's own curl); without an API key the AuthPolicy refuses the request: "HTTP/1.1 401
/// Unauthorized", `www-authenticate: APIKEY realm="api-key-users"`, `x-ext-auth-reason: credential
/// not found` (the guide, "Try the API missing authentication").
#[test]
fn alice_five_bob_two() {
    let f = [
        "-f",
        "testdata/guides/authenticated-rl",
        "--count",
        "7",
        "--interval",
        "1s",
    ];
    let alice = simulate(
        &[
            &f[..],
            &[
                "-H",
                "Authorization: APIKEY IAMALICE",
                "http://api.toystore.com/toy",
            ],
        ]
        .concat(),
    );
    assert_eq!(verdicts(&alice), allowed_then_limited(5, 2, "alice-limit"));
    let bob = simulate(
        &[
            &f[..],
            &[
                "-H",
                "Authorization: APIKEY IAMBOB",
                "http://api.toystore.com/toy",
            ],
        ]
        .concat(),
    );
    assert_eq!(verdicts(&bob), allowed_then_limited(2, 5, "bob-limit"));
    let c = &bob["requests"][2]["actions"][1]["limitador"]["counters"][0];
    assert_eq!(c["limit"], "bob-limit");
    assert_eq!(c["remaining"], 0);
    assert_eq!(c["resetsInMs"], 8000);
    let anonymous = simulate(&[
        "-f",
        "testdata/guides/authenticated-rl",
        "http://api.toystore.com/toy",
    ]);
    let r = &anonymous["requests"][0];
    assert_eq!(
        (r["allowed"].as_bool(), r["status"].as_u64()),
        (Some(false), Some(401))
    );
    assert_eq!(r["actions"][0]["auth"]["rules"][0], "api-key-users");
    let denied = &r["actions"][0]["auth"]["outcome"];
    assert_eq!(denied["verdict"], "denied");
    assert_eq!(
        denied["headers"],
        serde_json::json!([
            ["WWW-Authenticate", "APIKEY realm=\"api-key-users\""],
            ["X-Ext-Auth-Reason", "credential not found"]
        ])
    );
    // What bob's Secret publishes through the guide's success filter is what the limits read.
    let stored = &bob["requests"][0]["actions"][0]["auth"]["outcome"]["metadata"];
    assert_eq!(stored, &serde_json::json!({"identity": {"userid": "bob"}}));
}

/// The bundled example: routing, listener choice and a 404 outside every rule.
#[test]
fn example_estate_routes_like_gateway_api() {
    let v = simulate(&[
        "-f",
        "testdata/examples/",
        "http://www.toystore.example.com/",
    ]);
    let r = &v["requests"][0];
    assert_eq!(
        r["routing"]["listener"], "web",
        "the exact hostname beats the wildcard listener"
    );
    assert_eq!(r["routing"]["route"], "storefront/storefront");
    let v = simulate(&[
        "-f",
        "testdata/examples/",
        "--identity",
        r#"{"username":"alice"}"#,
        "-X",
        "DELETE",
        "http://api.toystore.example.com/toys",
    ]);
    let r = &v["requests"][0];
    assert_eq!(r["status"], 404);
    assert!(r.get("actionSet").is_none());
}

#[test]
fn bad_requests_exit_2_with_a_code() {
    for args in [
        vec!["ftp://x/"],
        vec!["-H", "nocolon", "http://x/"],
        vec!["--identity", "{not json", "http://x/"],
        vec!["--interval", "soon", "http://x/"],
    ] {
        common::policyctl()
            .args(["simulate", "-f", "testdata/examples/"])
            .args(&args)
            .assert()
            .code(2)
            .stderr(predicates::str::contains("PCTL5001"));
    }
}

/// The shipped test cases pass: those of the bundled example and of the guide-shaped estates.
#[test]
fn shipped_test_cases_pass() {
    common::policyctl()
        .args([
            "test",
            "-f",
            "testdata/examples/",
            "testdata/tests/toystore/",
        ])
        .assert()
        .code(0)
        .stdout(predicates::str::contains("5 passed, 0 failed"));
    common::policyctl()
        .args([
            "test",
            "-f",
            "testdata/guides/simple-rl-simulate",
            "--kuadrant-version",
            "1.5",
        ])
        .args(["testdata/tests/guides/simple-rl.yaml"])
        .assert()
        .code(0)
        .stdout(predicates::str::contains("2 passed, 0 failed"));
}

/// A wrong expectation fails the run (exit 1) and says what the request got; a malformed file is
/// trouble (exit 2, PCTL5002).
#[test]
fn failing_and_malformed_cases() {
    let dir = tempfile::tempdir().unwrap();
    let wrong = dir.path().join("wrong.yaml");
    std::fs::write(
        &wrong,
        "cases:\n- name: too generous\n  url: http://api.toystore.com/toy\n  headers: ['Authorization: APIKEY IAMALICE']\n  count: 7\n  expect: {limitedAfter: 6}\n",
    )
    .unwrap();
    let out = common::policyctl()
        .args(["test", "-f", "testdata/guides/authenticated-rl"])
        .arg(&wrong)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("FAIL"), "{text}");
    assert!(text.contains("request 6"), "{text}");
    assert!(text.contains("0 passed, 1 failed"), "{text}");
    let junit = common::policyctl()
        .args([
            "test",
            "-f",
            "testdata/guides/authenticated-rl",
            "-o",
            "junit",
        ])
        .arg(&wrong)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    assert!(
        String::from_utf8(junit)
            .unwrap()
            .contains("<failure message=\"expected allowed (limited after 6), request 6")
    );
    let bad = dir.path().join("bad.yaml");
    std::fs::write(&bad, "cases:\n- url: http://x/\n  expect: {alowed: true}\n").unwrap();
    common::policyctl()
        .args(["test", "-f", "testdata/examples/"])
        .arg(&bad)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("PCTL5002"));
}

fn simulate_file(estate: &str, file: &std::path::Path, extra: &[&str]) -> Value {
    let mut args = vec!["-f", estate, "--requests", file.to_str().unwrap()];
    args.extend_from_slice(extra);
    simulate(&args)
}

/// The counter of the rate-limit action of request `i`.
fn counter(v: &Value, i: usize) -> &Value {
    &v["requests"][i]["actions"][1]["limitador"]["counters"][0]
}

/// A request file (`--requests`) plays a timed sequence, here across a window reset: bob may send
/// 2 requests every 10 seconds (authenticated-rl-for-app-developers.md), and Limitador's window
/// begins with his first admitted request, so his request at 10 s is admitted again.
#[test]
fn request_file_crosses_a_window_reset() {
    let file = std::path::Path::new("testdata/requests/authenticated-rl.yaml");
    let v = simulate_file("testdata/guides/authenticated-rl", file, &[]);
    let at: Vec<u64> = v["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["atMs"].as_u64().unwrap())
        .collect();
    assert_eq!(at, [0, 1000, 2000, 2500, 10_000, 11_000]);
    assert_eq!(
        verdicts(&v),
        [
            (true, None),
            (true, None),
            (false, Some("bob-limit".into())),
            (true, None),
            (true, None),
            (false, None),
        ]
    );
    // After the third request bob's window has 8 s left; alice's own counter starts at 2.5 s.
    assert_eq!(counter(&v, 2)["resetsInMs"], 8000);
    assert_eq!(counter(&v, 3)["limit"], "alice-limit");
    assert_eq!(counter(&v, 3)["remaining"], 4);
    // At 10 s bob's counter is fresh: one hit of 2, a whole window left.
    assert_eq!(counter(&v, 4)["remaining"], 1);
    assert_eq!(counter(&v, 4)["resetsInMs"], 10_000);
    assert_eq!(v["requests"][5]["status"], 401);
}

/// The same traffic as JSON Lines, from stdin, with the flags as every entry's defaults, gives the
/// same verdicts; and a sequence reproduces `--count` with `--interval`.
#[test]
fn request_file_as_json_lines_and_flags_as_defaults() {
    let lines = concat!(
        "{\"url\": \"http://10.0.0.1/toys\", \"count\": 6, \"interval\": \"1s\"}\n",
        "{\"url\": \"http://10.0.0.1/toys\", \"at\": 10}\n",
        "{\"url\": \"http://10.0.0.1/toys\", \"method\": \"GET\", \"after\": \"0.5s\"}\n",
    );
    let out = common::policyctl()
        .args([
            "simulate",
            "-f",
            "testdata/guides/simple-rl-simulate",
            "-X",
            "POST",
            "-H",
            "Host: api.toystore.com",
            "--requests",
            "-",
            "-o",
            "json",
        ])
        .write_stdin(lines)
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    let mut want = allowed_then_limited(5, 1, "create-toy");
    want.extend([(true, None), (true, None)]);
    assert_eq!(verdicts(&v), want);
    assert_eq!(v["requests"][6]["method"], "POST");
    assert_eq!(v["requests"][7]["method"], "GET");
    assert_eq!(v["requests"][7]["atMs"], 10_500);
    // The first six are what --count 6 --interval 1s gives, byte for byte.
    let counted = simulate(&[
        "-f",
        "testdata/guides/simple-rl-simulate",
        "-X",
        "POST",
        "-H",
        "Host: api.toystore.com",
        "--count",
        "6",
        "--interval",
        "1s",
        "http://10.0.0.1/toys",
    ]);
    assert_eq!(
        v["requests"].as_array().unwrap()[..6],
        counted["requests"].as_array().unwrap()[..]
    );
}

/// A malformed request file is trouble (exit 2) with a code and the file:line of the entry.
#[test]
fn bad_request_files_say_where() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "order.yaml",
            "- url: http://api.toystore.com/toy\n  at: 5s\n- url: http://api.toystore.com/toy\n  at: 2s\n",
            "PCTL5005",
            ":4:",
        ),
        (
            "key.yaml",
            "- url: http://api.toystore.com/toy\n  delay: 1s\n",
            "PCTL5005",
            ":2:",
        ),
        (
            "url.jsonl",
            "{\"url\": \"http://api.toystore.com/toy\"}\n{\"url\": \"ftp://x/\"}\n",
            "PCTL5005",
            ":2:",
        ),
        (
            "syntax.jsonl",
            "{\"url\": \"http://api.toystore.com/toy\"}\n\n{\"url\": }\n",
            "PCTL5004",
            ":3:",
        ),
        ("list.yaml", "url: http://x/\n", "PCTL5004", ":1:"),
    ];
    for (name, text, code, line) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let out = common::policyctl()
            .args(["simulate", "-q", "-f", "testdata/guides/authenticated-rl"])
            .arg("--requests")
            .arg(&path)
            .assert()
            .code(2)
            .get_output()
            .stderr
            .clone();
        let err = String::from_utf8(out).unwrap();
        assert!(err.contains(code), "{name}: {err}");
        assert!(err.contains(&format!("{name}{line}")), "{name}: {err}");
    }
    // Unreadable, and exclusive with a URL or --count.
    common::policyctl()
        .args(["simulate", "-f", "testdata/guides/authenticated-rl"])
        .args(["--requests", "/nonexistent/traffic.yaml"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("PCTL5004"));
    for extra in [&["http://x/"][..], &["--count", "2"][..]] {
        common::policyctl()
            .args(["simulate", "-f", "testdata/guides/authenticated-rl"])
            .args(["--requests", "testdata/requests/authenticated-rl.yaml"])
            .args(extra)
            .assert()
            .code(2);
    }
}

/// URLs, header values and case names with escape sequences reach the terminal escaped, in
/// `simulate`'s tree and lines and in `test`'s text and JUnit reports.
#[test]
fn escape_sequences_from_requests_and_cases_are_escaped() {
    let raw = |s: &str| {
        s.chars()
            .any(|c| matches!(c, '\u{1b}' | '\u{7}' | '\u{9b}'))
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("traffic.jsonl");
    std::fs::write(
        &file,
        "{\"url\": \"http://api.toystore.com/\", \"identity\": {\"userid\": \"bob\\u001b[2J\\u0007\"}}\n{\"url\": \"http://api.toystore.com/toy\", \"headers\": {\"X-A\": \"\\u009b31m\"}}\n",
    )
    .unwrap();
    // A URL with a control character is refused (curl refuses it as malformed), and the message
    // quotes it escaped, from the flags and from a request file.
    let bad_url = dir.path().join("url.jsonl");
    std::fs::write(
        &bad_url,
        "{\"url\": \"http://api.toystore.com/\\u001b[2J\"}\n",
    )
    .unwrap();
    for (args, code) in [
        (vec!["--requests", file.to_str().unwrap()], 0),
        (
            vec![
                "--identity",
                "{\"userid\": \"bob\\u001b]0;t\\u0007\"}",
                "-H",
                "X-A: \u{1b}[31m",
                "http://api.toystore.com/toy",
            ],
            0,
        ),
        (vec!["http://api.toystore.com/toy\u{1b}[31m"], 2),
        (vec!["--requests", bad_url.to_str().unwrap()], 2),
    ] {
        let out = common::policyctl()
            .args(["simulate", "-f", "testdata/guides/authenticated-rl"])
            .args(&args)
            .output()
            .unwrap();
        let all = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{all}");
        assert!(!raw(&all), "{all:?}");
        if code == 2 {
            assert!(all.contains("\\u{1b}["), "{all}");
            assert!(all.contains("%1B"), "{all}");
        }
    }
    let cases = dir.path().join("cases.yaml");
    std::fs::write(
        &cases,
        "cases:\n- name: \"evil \\e]0;title\\a case\"\n  url: \"http://api.toystore.com/toy\"\n  headers: [\"X-A: \\e[2J\"]\n  expect: {allowed: true}\n",
    )
    .unwrap();
    for format in ["text", "junit"] {
        let out = common::policyctl()
            .args([
                "test",
                "-f",
                "testdata/guides/authenticated-rl",
                "-o",
                format,
            ])
            .arg(&cases)
            .output()
            .unwrap();
        let all = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{all}");
        assert!(!raw(&all), "{format}: {all:?}");
        assert!(all.contains("evil \\e]0;title"), "{format}: {all}");
    }
}

/// Every guide estate's test cases (testdata/tests/guides/, each expectation citing its guide's
/// file and line) pass at the release each guide is written for.
#[test]
fn guide_cases_pass() {
    for (estate, version, cases) in [
        ("simple-rl-simulate", "1.5", "simple-rl"),
        ("app-id-app-key", "1.5", "app-id-app-key"),
        ("anonymous-access", "1.5", "anonymous-access"),
        ("auth-for-app-devs", "1.5", "auth-for-app-devs"),
        ("grpc", "1.5", "grpc"),
        ("jwt-k8s-authnz", "1.5", "jwt-k8s-authnz"),
        ("planpolicy", "1.5", "planpolicy"),
        ("secure-protect-connect", "1.5", "secure-protect-connect"),
        ("token-rate-limiting", "1.5", "token-rate-limiting"),
        ("secure-protect-connect", "1.4", "secure-protect-connect"),
        ("token-rate-limiting", "1.4", "token-rate-limiting"),
    ] {
        let out = common::policyctl()
            .args(["test", "--kuadrant-version", version, "-f"])
            .arg(format!("testdata/guides/{estate}"))
            .arg(format!("testdata/tests/guides/{cases}.yaml"))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{estate} at {version}:\n{text}");
        assert!(text.contains(" passed, 0 failed\n"), "{text}");
    }
}

/// A request that needs a live server is undecided, with what would decide it: `simulate` says so
/// (no status), and `test` neither passes nor fails the case, exits 1 unless `--accept-undecided`,
/// and JUnit skips it with the reason.
#[test]
fn undecided_requests() {
    let token = "Authorization: Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJqb2huIiwiZXhwIjo0MTAyNDQ0ODAwfQ.c2ln";
    let v = simulate(&[
        "-f",
        "testdata/guides/jwt-k8s-authnz",
        "-H",
        "Host: api.toystore.com",
        "-H",
        token,
        "http://10.0.0.1/toy",
    ]);
    let r = &v["requests"][0];
    assert_eq!(r["verdict"], "undecided");
    assert!(r["status"].is_null());
    assert!(
        r["undecided"]
            .as_str()
            .unwrap()
            .contains("kubernetesTokenReview needs a live server"),
        "{r}"
    );
    // Stated outcomes decide it.
    let v = simulate(&[
        "-f",
        "testdata/guides/jwt-k8s-authnz",
        "-H",
        "Host: api.toystore.com",
        "-H",
        token,
        "--assume",
        "authentication/k8s-service-accounts=false",
        "--assume",
        "authorization/k8s-rbac=false",
        "http://10.0.0.1/toy",
    ]);
    assert_eq!(v["requests"][0]["status"], 403);
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("cases.yaml");
    std::fs::write(
        &cases,
        format!(
            "cases:\n- name: live\n  url: http://10.0.0.1/toy\n  headers: ['Host: api.toystore.com', '{token}']\n  expect: {{status: 200}}\n"
        ),
    )
    .unwrap();
    let run = |extra: &[&str]| {
        common::policyctl()
            .args(["test", "-f", "testdata/guides/jwt-k8s-authnz"])
            .args(extra)
            .arg(&cases)
            .output()
            .unwrap()
    };
    let out = run(&[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.starts_with("UNDECIDED "), "{text}");
    assert!(text.contains("0 passed, 0 failed, 1 undecided"), "{text}");
    assert_eq!(run(&["--accept-undecided"]).status.code(), Some(0));
    let junit = String::from_utf8(run(&["-o", "junit"]).stdout).unwrap();
    assert!(junit.contains("skipped=\"1\""), "{junit}");
    assert!(
        junit.contains("<skipped message=\"undecided: request 1 (GET http://api.toystore.com/toy)"),
        "{junit}"
    );
}

/// After an undecided request, the counters it may have hit are unknown: a later request that
/// they decide is undecided too; one they do not decide is not. Here the token usage of the
/// first completion is unknown (no --tokens).
#[test]
fn undecided_counters_taint_later_requests() {
    let v = simulate(&[
        "-f",
        "testdata/guides/token-rate-limiting",
        "-X",
        "POST",
        "-H",
        "Host: trlp-tutorial.example.com",
        "-H",
        "Authorization: APIKEY iamafreeuser",
        "--count",
        "2",
        "http://10.0.0.1/v1/chat/completions",
    ]);
    assert_eq!(v["requests"][0]["verdict"], "allowed");
    assert_eq!(v["requests"][1]["verdict"], "undecided");
    assert!(
        v["requests"][1]["undecided"]
            .as_str()
            .unwrap()
            .starts_with("the token usage of request 1 is unknown"),
        "{}",
        v["requests"][1]
    );
}

/// A port-forward URL with curl's `--connect-to` reaches the listener of the gateway's port, and
/// keeps the Host header as `:authority`; a gRPC call refused by a limit is UNAVAILABLE.
#[test]
fn port_forward_and_grpc_status() {
    let v = simulate(&[
        "-f",
        "testdata/guides/grpc",
        "--connect-to",
        "localhost:9080::80",
        "-X",
        "POST",
        "-H",
        "Host: grpcbin.local",
        "-H",
        "content-type: application/grpc",
        "--count",
        "11",
        "http://localhost:9080/grpcbin.GRPCBin/HeadersUnary",
    ]);
    let last = &v["requests"][10];
    assert_eq!(last["routing"]["listenerPort"], 80);
    assert_eq!(last["routing"]["rule"], "header-methods");
    assert_eq!(last["status"], 429);
    // Envoy source/common/grpc/status.cc httpToGrpcStatus: 429 is UNAVAILABLE; the guide's
    // "Code: Unavailable".
    assert_eq!(last["grpcStatus"], "UNAVAILABLE (14)");
    // Without --connect-to, port 9080 has no listener.
    let v = simulate(&[
        "-f",
        "testdata/guides/grpc",
        "-H",
        "Host: grpcbin.local",
        "http://localhost:9080/",
    ]);
    assert!(v["requests"][0]["routing"].is_null());
    for bad in [
        vec!["--connect-to", "localhost:9080", "http://x/"],
        vec!["--assume", "nosuch/x=true", "http://x/"],
        vec!["--assume", "authorization/x=maybe", "http://x/"],
        vec!["--response-body", "{not json", "http://x/"],
        vec!["--tokens", "1", "--response-body", "{}", "http://x/"],
    ] {
        common::policyctl()
            .args(["simulate", "-f", "testdata/guides/grpc"])
            .args(&bad)
            .assert()
            .code(2);
    }
}

/// With `--jwks`, a JWT's signature is verified (testdata/tests/guides/keycloak-jwks.json holds a
/// test RSA key; the first token is signed with it, the second with another key): a forged token is
/// refused as Authorino's go-oidc verifier refuses it, a 401.
#[test]
fn jwt_signatures_verified_with_jwks() {
    const SIGNED: &str = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6InBvbGljeWN0bC10ZXN0In0.eyJpc3MiOiJodHRwOi8va2V5Y2xvYWsua2V5Y2xvYWsuc3ZjLmNsdXN0ZXIubG9jYWw6ODA4MC9yZWFsbXMva3VhZHJhbnQiLCJzdWIiOiJqb2huIiwiZXhwIjo0MTAyNDQ0ODAwfQ.pIqKMmKiHGQVqB5KgpjtY6FjL69a3su2_z7mg-mDVNoSCAE1-4MlOtb_d98IJ7ogm09-5_RcZZfhlF_IQ9szM4j91a3Dn0TkhI__9Yw2eFsCCNhe6HmqnYyy2omxQscQKMsDeRVq3E5oI_Ov6WJ7N3VTw6gtEfJBFITAAPldO8EG1vOc_vT_VxQH-bw1SOqhYy9CBAy44PVHSkkB8alif8zWkjYaG4pFw7WMXTcZvMbtGxsCcRIsD1Jg2UimWpn1toJo7orByDbFxBFg7uAZ-qGUdPraOfsWfkNdaxL2GqxYER7OM8niaRUzz_cbawMmaOJnnJgGo1YhYIM86rFf1A";
    const FORGED: &str = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6InBvbGljeWN0bC10ZXN0In0.eyJpc3MiOiJodHRwOi8va2V5Y2xvYWsua2V5Y2xvYWsuc3ZjLmNsdXN0ZXIubG9jYWw6ODA4MC9yZWFsbXMva3VhZHJhbnQiLCJzdWIiOiJqb2huIiwiZXhwIjo0MTAyNDQ0ODAwfQ.WM4noTb7gpc5tzLXCIBnpMyxsDYZHfXYNObzAR72zjW775Z8NQ-6uY4WwAwLv4fniMv3cKc9J05x-FmBR_vU2IVE8wdpazSv0_Zx3jZW2V7DXH7Kz5elL76GeCt8tb9jmwZf1G7bQYT7QEtGVJVHT_ibpHrylxpkmUgfFi6dNSh5XPlAmSVS8sdBx-2e4jp4Bx2bb4lIYzW5vJVqpDa5PKFPlM6oMmuNlssXcB1LBtEKUtPaw_pgTIqDdw0xq7ZEEYroVWIJ0c64Fu8QGrLcK-HIubLFsJ_6H4w_hWfyf2Ey-WNOuQ7KjJ5TAQ78kKIG6hcjj5HbZQ44VCdlQB3-_Q";
    let status = |token: &str, jwks: bool| {
        let auth = format!("Authorization: Bearer {token}");
        let mut args = vec![
            "-f",
            "testdata/guides/jwt-k8s-authnz",
            "--assume",
            "authentication/k8s-service-accounts=false",
            "--assume",
            "authorization/k8s-rbac=true",
            "-H",
            "Host: api.toystore.com",
            "-H",
            &auth,
        ];
        if jwks {
            args.extend(["--jwks", "testdata/tests/guides/keycloak-jwks.json"]);
        }
        args.push("http://10.0.0.1/toy");
        simulate(&args)["requests"][0]["status"].clone()
    };
    assert_eq!(status(SIGNED, true), 200);
    assert_eq!(status(FORGED, true), 401);
    // Without a JWKS the claims are decoded, and the trace says the signature was not verified.
    assert_eq!(status(FORGED, false), 200);
    common::policyctl()
        .args([
            "simulate",
            "-f",
            "testdata/guides/jwt-k8s-authnz",
            "--jwks",
            "Cargo.toml",
            "http://x/",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("PCTL5001"));
}

/// The gateways normalize a request's path (RFC 3986) before they route it and before the
/// wasm-shim reads `request.url_path`: `POST /cars/../toys` is `POST /toys`, limited by the
/// guide's `create-toy` limit, and the trace says which path was sent. What Istio and Envoy
/// Gateway normalize differently by default (adjacent slashes) is refused with a diagnostic rather
/// than routed on a path neither gateway would route.
#[test]
fn dot_segments_are_resolved_before_routing() {
    let post = ["-X", "POST", "--count", "6", "--interval", "1s"];
    let v = simulate(&[&TOYSTORE[..], &post, &["http://10.0.0.1/cars/../toys"]].concat());
    assert_eq!(verdicts(&v), allowed_then_limited(5, 1, "create-toy"));
    let first = &v["requests"][0];
    assert_eq!(first["url"], "http://api.toystore.com/toys");
    assert_eq!(first["pathAsSent"], "/cars/../toys");
    assert_eq!(first["routing"]["rule"], "create-toy");
    let out = common::policyctl()
        .args(["simulate", "-f", "testdata/guides/simple-rl-simulate"])
        .arg("http://api.toystore.com//toys")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("PCTL5001") && err.contains("adjacent slashes"),
        "{err}"
    );
}

/// A rule with a `queryParams` match: the operator writes `queryMap(request.query)` into the route
/// predicates (kuadrant-operator v1.5.2 internal/wasm/utils.go `predicateFromQueryParam`), which
/// the shim registers only in its test builds (wasm-shim v0.12.3 / v0.14.1 src/data/cel.rs:
/// `Predicate::route_rule` is `#[cfg(test)]`; route predicates are `Predicate::new`). The shim
/// cannot build the request's pipeline and answers 500 (v0.14.1 src/filter/kuadrant_filter.rs).
/// A `when` that reads the request body is undecided: a simulated request has no body.
#[test]
fn query_param_rules_and_request_body_predicates() {
    let estate = ONE_ROUTE.replace(
        "  - backendRefs:",
        "  - matches:\n    - queryParams: [{name: v, value: \"1\"}]\n    backendRefs:",
    ) + r#"apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: p, namespace: app}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}
  limits:
    l: {rates: [{limit: 1, window: 10s}]}
"#;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("estate.yaml");
    std::fs::write(&file, &estate).unwrap();
    let f = file.to_str().unwrap();
    for release in ["1.4", "1.5"] {
        let v = simulate(&["-f", f, "--kuadrant-version", release, "http://x/a?v=1"]);
        let first = &v["requests"][0];
        assert_eq!(first["routing"]["route"], "app/r", "{first}");
        assert_eq!(first["status"], 500, "{first}");
        let why = first["decidedBy"].as_str().unwrap();
        assert!(
            why.contains("Undeclared reference to 'queryMap'"),
            "{release}: {why}"
        );
    }
    // `lint` says so before anyone sends the request (PCTL3029), naming the shim release.
    for (release, shim) in [("1.4", "wasm-shim v0.12.3"), ("1.5", "wasm-shim v0.14.1")] {
        let out = common::policyctl_std()
            .args(["lint", "-f", f, "--kuadrant-version", release, "-o", "json"])
            .output()
            .unwrap();
        let lint: Value = serde_json::from_slice(&out.stdout).unwrap();
        let found: Vec<&Value> = lint["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["code"] == "PCTL3029")
            .collect();
        assert_eq!(found.len(), 1, "{release}: {lint}");
        let message = found[0]["message"].as_str().unwrap();
        for part in [
            "query parameter `v` value `1`",
            shim,
            "Gateway gateway-system/gw",
            "answers 500",
        ] {
            assert!(message.contains(part), "{release}: {part} not in {message}");
        }
    }
    // Without a policy the rule has no action set, and nothing evaluates the predicate.
    let without = dir.path().join("without.yaml");
    let routes_only = &estate[..estate.find("---\napiVersion: kuadrant.io/v1").unwrap()];
    std::fs::write(&without, routes_only).unwrap();
    let out = common::policyctl_std()
        .args(["lint", "-f", without.to_str().unwrap(), "-o", "json"])
        .output()
        .unwrap();
    let lint: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        !lint["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["code"] == "PCTL3029"),
        "{lint}"
    );
    let body = estate
        .replace(
            "    - queryParams: [{name: v, value: \"1\"}]",
            "    - path: {type: PathPrefix, value: /a}",
        )
        .replace(
            "    l: {rates: [{limit: 1, window: 10s}]}",
            "    l:\n      rates: [{limit: 1, window: 10s}]\n      when: [{predicate: \"requestBodyJSON('/model') == 'gpt'\"}]",
        );
    std::fs::write(&file, body).unwrap();
    let v = simulate(&["-f", f, "--kuadrant-version", "1.5", "http://x/a?v=1"]);
    let first = &v["requests"][0];
    assert_eq!(first["verdict"], "undecided");
    assert!(
        first["undecided"]
            .as_str()
            .unwrap()
            .contains("reads the request body"),
        "{first}"
    );
    // The 1.4 shim (v0.12.3) has no `requestBodyJSON`: the evaluation fails, and the rate-limit
    // service's failure mode (`allow`) lets the request through.
    let v = simulate(&["-f", f, "--kuadrant-version", "1.4", "http://x/a?v=1"]);
    let first = &v["requests"][0];
    assert_eq!(first["verdict"], "allowed", "{first}");
    assert!(
        first["actions"][0]["error"]
            .as_str()
            .unwrap()
            .contains("requestBodyJSON"),
        "{first}"
    );
}

/// A Gateway with one listener and an HTTPRoute of one rule under it, for a policy to follow.
/// `estate` written to `estate.yaml` in a new temporary folder (kept while the folder lives), and
/// that file's path.
fn written(estate: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("estate.yaml");
    std::fs::write(&file, estate).unwrap();
    let path = file.to_str().unwrap().to_string();
    (dir, path)
}

const ONE_ROUTE: &str = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: gateway-system}
spec:
  gatewayClassName: istio
  listeners:
  - {name: a, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: app}
spec:
  parentRefs: [{name: gw, namespace: gateway-system}]
  rules:
  - backendRefs: [{name: svc, port: 9000}]
---
"#;

/// An AuthPolicy on [`ONE_ROUTE`]'s route that lets anyone in, for tests to add to.
const ANONYMOUS_AUTH: &str = "apiVersion: kuadrant.io/v1
kind: AuthPolicy
metadata: {name: p, namespace: app}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}
  rules:
    authentication:
      anon: {anonymous: {}}
";

/// A RateLimitPolicy of one limit `l`, one a 10 s window, on [`ONE_ROUTE`]'s route, for tests to
/// add its `when` to.
const ONE_LIMIT: &str = "apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: p, namespace: app}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}
  limits:
    l:
      rates: [{limit: 1, window: 10s}]
";

/// A `when` predicate on what Envoy gives the shim and a simulated request lacks: undecided, and
/// the limit's counters with it, until the request says where it comes from (wasm-shim v0.14.1
/// src/data/cel.rs binds `source.address` from the host's properties).
#[test]
fn predicates_on_attributes_the_request_lacks_are_undecided() {
    let estate = ONE_ROUTE.to_string()
        + ONE_LIMIT
        + r#"      when: [{predicate: "source.address == '10.0.0.7'"}]
"#;
    let (_dir, f) = written(&estate);
    let f = f.as_str();
    for release in ["1.4", "1.5"] {
        let v = simulate(&["-f", f, "--kuadrant-version", release, "http://x/"]);
        let first = &v["requests"][0];
        assert_eq!(first["verdict"], "undecided", "{release}: {first}");
        assert!(
            first["undecided"].as_str().unwrap().contains("--source"),
            "{release}: {first}"
        );
        let v = simulate(&[
            "-f",
            f,
            "--kuadrant-version",
            release,
            "--source",
            "10.0.0.7:5000",
            "--count",
            "2",
            "http://x/",
        ]);
        assert_eq!(verdicts(&v), allowed_then_limited(1, 1, "l"), "{release}");
    }
}

/// The same for Authorino (authorino v0.26.2 pkg/service/well_known_attributes.go): a pattern on
/// `source.address` selects "" without a source, and a CEL predicate on it fails; both undecided.
#[test]
fn authorino_rules_on_attributes_the_request_lacks_are_undecided() {
    let estate = ONE_ROUTE.to_string()
        + ANONYMOUS_AUTH
        + r#"    authorization:
      src:
        patternMatching:
          patterns:
          - RULE
"#;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("estate.yaml");
    for rule in [
        "{selector: source.address, operator: eq, value: 10.0.0.7}",
        "{predicate: \"source.address == '10.0.0.7'\"}",
    ] {
        std::fs::write(&file, estate.replace("RULE", rule)).unwrap();
        let f = file.to_str().unwrap();
        let v = simulate(&["-f", f, "http://x/"]);
        let first = &v["requests"][0];
        assert_eq!(first["verdict"], "undecided", "{rule}: {first}");
        assert!(
            first["undecided"].as_str().unwrap().contains("--source"),
            "{rule}: {first}"
        );
        for (source, verdict) in [("10.0.0.7:5000", "allowed"), ("10.0.0.8:5000", "refused")] {
            let v = simulate(&["-f", f, "--source", source, "http://x/"]);
            assert_eq!(v["requests"][0]["verdict"], verdict, "{rule} {source}: {v}");
        }
    }
}

/// On 1.5 an action's predicates are one CEL expression (wasm-shim v0.14.1
/// src/configuration/legacy_translation.rs `build_action_predicate`: `(p1) && (p2)`), and cel 0.14.0's
/// `&&` gives false when one side is false and the other fails (src/objects.rs `LOGICAL_AND`): a
/// missing header is absorbed by a path that does not match, and the AuthPolicy does not run. The
/// 1.4 shim (v0.12.3 src/data/cel.rs `PredicateVec::apply`) tests them in order and fails on the
/// first: its auth service's failure mode, deny, answers 500.
#[test]
fn the_1_5_shim_joins_an_actions_predicates_into_one_expression() {
    let estate = ONE_ROUTE.to_string()
        + ANONYMOUS_AUTH
        + r#"  when:
  - predicate: request.headers["x-tier"] == "gold"
  - predicate: request.path == "/admin"
"#;
    let (_dir, f) = written(&estate);
    let f = f.as_str();
    let at = |release: &str, path: &str| {
        let v = simulate(&["-f", f, "--kuadrant-version", release, path]);
        v["requests"][0].clone()
    };
    let r = at("1.5", "http://x/toys");
    assert_eq!(r["status"], 200, "{r}");
    assert_eq!(
        r["actions"][0]["skippedBy"], "request.path == \"/admin\"",
        "{r}"
    );
    let r = at("1.4", "http://x/toys");
    assert_eq!(r["status"], 500, "{r}");
    assert!(
        r["actions"][0]["error"]
            .as_str()
            .unwrap()
            .contains("x-tier"),
        "{r}"
    );
    // Where the other side does not decide, the error stands at both releases.
    for release in ["1.4", "1.5"] {
        assert_eq!(at(release, "http://x/admin")["status"], 500, "{release}");
    }
}

/// A rate-limit action's data block on 1.5: its predicates joined with `&&` in one condition
/// (`build_ratelimit_predicate`, `build_ratelimit_entry_list_cel`), so an error beside a false
/// predicate skips the limit, where 1.4 fails the action (failure mode allow: no limit either,
/// but the trace says why).
#[test]
fn the_1_5_shim_joins_a_limits_predicates_into_one_expression() {
    let estate = ONE_ROUTE.to_string()
        + ONE_LIMIT
        + r#"      when:
      - predicate: request.headers["x-tier"] == "gold"
      - predicate: request.path == "/admin"
"#;
    let (_dir, f) = written(&estate);
    let f = f.as_str();
    let v = simulate(&["-f", f, "--kuadrant-version", "1.5", "http://x/toys"]);
    let a = &v["requests"][0]["actions"][0];
    assert_eq!(a["skippedBy"], "request.path == \"/admin\"", "{a}");
    assert!(a["error"].is_null(), "{a}");
    let v = simulate(&["-f", f, "--kuadrant-version", "1.4", "http://x/toys"]);
    let a = &v["requests"][0]["actions"][0];
    assert!(a["error"].as_str().unwrap().contains("x-tier"), "{a}");
    // With the header, both count the request on /admin and refuse the second.
    for release in ["1.4", "1.5"] {
        let v = simulate(&[
            "-f",
            f,
            "--kuadrant-version",
            release,
            "-H",
            "x-tier: gold",
            "--count",
            "2",
            "http://x/admin",
        ]);
        assert_eq!(verdicts(&v), allowed_then_limited(1, 1, "l"), "{release}");
    }
}

/// A TelemetryPolicy's labels are the gateway's `requestData`. The 1.5 shim puts each in the
/// rate-limit request as `string(expression)` (wasm-shim v0.14.1 legacy_translation.rs
/// `build_ratelimit_message_builder`): `auth.identity.userid` without an AuthPolicy fails, so the
/// message fails, the action fails and its failure mode, allow, lets every request through: the
/// RateLimitPolicy's 100 a minute never refuses one. The 1.4 shim sends the labels whose value is a
/// string as a second descriptor and leaves the others out (v0.12.3 src/services/rate_limit.rs
/// `build_request`): the limit holds. Without the `user` label, 1.5 limits too.
#[test]
fn telemetry_labels_that_fail_disable_the_1_5_rate_limit() {
    let base = [
        "-H",
        "Host: api.toystore.com",
        "-H",
        "x-model: m1",
        "--count",
        "101",
        "--interval",
        "10ms",
        "http://10.0.0.1/toys",
    ];
    let run = |estate: &str, release: &str| {
        let mut args = vec!["-f", estate, "--kuadrant-version", release];
        args.extend(base);
        simulate(&args)
    };
    let fixture = "testdata/extensions/telemetry/input.yaml";
    let v = run(fixture, "1.4");
    assert_eq!(verdicts(&v), allowed_then_limited(100, 1, "global"));
    let first = &v["requests"][0]["actions"][0];
    assert_eq!(
        first["requestData"],
        serde_json::json!([{"key": "model", "value": "m1"}]),
        "{first}"
    );
    let v = run(fixture, "1.5");
    assert_eq!(verdicts(&v), allowed_then_limited(101, 0, "global"));
    let first = &v["requests"][0]["actions"][0];
    assert!(
        first["error"]
            .as_str()
            .unwrap()
            .starts_with("requestData metrics.labels.user = string(auth.identity.userid): "),
        "{first}"
    );
    assert!(first["limitador"].is_null(), "{first}");

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("estate.yaml");
    let text = std::fs::read_to_string(fixture).unwrap();
    std::fs::write(
        &file,
        text.replace("        user: auth.identity.userid\n", ""),
    )
    .unwrap();
    let v = run(file.to_str().unwrap(), "1.5");
    assert_eq!(verdicts(&v), allowed_then_limited(100, 1, "global"));
    let first = &v["requests"][0]["actions"][0];
    assert_eq!(
        first["requestData"],
        serde_json::json!([{"key": "model", "value": "m1"}]),
        "{first}"
    );
    // A token report builds its request with the same labels: it fails whatever the response,
    // so nothing is reported, where an unknown usage would leave the counters unknown.
    let v = simulate(&[
        "-f",
        "testdata/dumps/estate.yaml",
        "--kuadrant-version",
        "1.5",
        "https://api.toystore.example.com/toys",
    ]);
    let report = &v["requests"][0]["actions"][1];
    assert_eq!(report["service"], "ratelimit-report-service", "{report}");
    assert!(
        report["error"]
            .as_str()
            .unwrap()
            .starts_with("requestData metrics.labels.user = string(auth.identity.username): "),
        "{report}"
    );
}

/// The 1.5 auth request carries the labels that do not name `auth.`, each
/// `google.protobuf.Value{string_value: string(expression)}` (wasm-shim v0.14.1
/// legacy_translation.rs `build_request_data_value_cel`): `request.headers["x-model"]` fails
/// without the header, the auth action fails, and its failure mode, deny, answers 500. The 1.4
/// shim sends the expression's text instead (v0.12.3 src/services/auth.rs `build_metadata`).
#[test]
fn a_telemetry_label_that_fails_fails_the_1_5_auth_request() {
    let text = std::fs::read_to_string("testdata/extensions/telemetry/input.yaml").unwrap()
        + "---\napiVersion: kuadrant.io/v1\nkind: AuthPolicy\nmetadata: {name: auth, namespace: toystore}\nspec:\n  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: toystore}\n  rules:\n    authentication:\n      anon: {anonymous: {}}\n";
    let (_dir, f) = written(&text);
    let f = f.as_str();
    let status = |release: &str, headers: &[&str]| {
        let mut args = vec![
            "-f",
            f,
            "--kuadrant-version",
            release,
            "-H",
            "Host: api.toystore.com",
        ];
        for h in headers {
            args.extend(["-H", h]);
        }
        args.push("http://10.0.0.1/toys");
        simulate(&args)["requests"][0].clone()
    };
    let r = status("1.5", &[]);
    assert_eq!(r["status"], 500, "{r}");
    // The rate limit, which does not read `auth`, runs first and fails open on the same label.
    let auth = (r["actions"].as_array().unwrap().iter())
        .find(|a| a["service"] == "auth-service")
        .unwrap();
    assert!(
        auth["error"].as_str().unwrap().starts_with(
            "requestData metrics.labels.model = string(request.headers[\"x-model\"]): "
        ),
        "{auth}"
    );
    assert_eq!(status("1.5", &["x-model: m1"])["status"], 200);
    assert_eq!(status("1.4", &[])["status"], 200);
}

/// A counter on `auth.identity.userid` on a route no AuthPolicy protects (`audit`'s PCTL6005): the
/// 1.4 shim reads the field from what the auth action stored, nothing, and gets null (wasm-shim
/// v0.12.3 src/kuadrant/context.rs `fetch_attribute`, src/data/cel.rs `Attribute::get`), which it
/// sends as the text `null` (src/kuadrant/pipeline/tasks/ratelimit.rs): every request shares one
/// counter and the second is refused. The 1.5 shim binds `auth` to null and `string(auth.identity
/// .userid)` fails (v0.14.1 src/data/cel.rs `eval`): the action fails, its failure mode lets every
/// request through.
#[test]
fn a_counter_on_auth_without_an_auth_policy() {
    let estate = ONE_ROUTE.to_string()
        + ONE_LIMIT
        + "      counters: [{expression: auth.identity.userid}]\n";
    let (_dir, f) = written(&estate);
    let run = |release: &str| {
        simulate(&[
            "-f",
            &f,
            "--kuadrant-version",
            release,
            "--count",
            "2",
            "http://x/",
        ])
    };
    let v = run("1.4");
    assert_eq!(verdicts(&v), allowed_then_limited(1, 1, "l"));
    let first = &v["requests"][0]["actions"][0];
    assert_eq!(
        first["descriptor"][1],
        serde_json::json!({"key": "auth.identity.userid", "value": "null"}),
        "{first}"
    );
    let v = run("1.5");
    assert_eq!(verdicts(&v), allowed_then_limited(2, 0, "l"));
    assert!(
        v["requests"][0]["actions"][0]["error"]
            .as_str()
            .unwrap()
            .contains("No such overload"),
        "{v}"
    );
}
