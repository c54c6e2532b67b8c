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
#[test]
fn create_toy_five_per_ten_seconds() {
    let base = [
        "-f",
        "testdata/guides/simple-rl-simulate",
        "--kuadrant-version",
        "1.5",
        "-H",
        "Host: api.toystore.com",
    ];
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
/// request a second; without an API key the AuthPolicy refuses the request.
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
                "--identity",
                r#"{"userid":"alice"}"#,
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
                "--identity",
                r#"{"userid":"bob"}"#,
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
        "cases:\n- name: too generous\n  url: http://api.toystore.example.com/toys\n  identity: {username: alice}\n  count: 7\n  expect: {limitedAfter: 6}\n",
    )
    .unwrap();
    let out = common::policyctl()
        .args(["test", "-f", "testdata/examples/"])
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
        .args(["test", "-f", "testdata/examples/", "-o", "junit"])
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
