//! `policyctl diff` and `compute --out-dir/--check`: the CI gate for GitOps repositories.

use crate::common;
use assert_cmd::Command;
use predicates::prelude::*;
use std::path::Path;

fn policyctl() -> Command {
    let mut c = common::policyctl();
    c.env("NO_COLOR", "1");
    c
}

fn stdout(c: &mut Command) -> String {
    String::from_utf8(c.output().unwrap().stdout).unwrap()
}

#[test]
fn identical_output_has_no_differences() {
    let out = stdout(policyctl().args(["compute", "-f", "testdata/examples/"]));
    policyctl()
        .args(["diff", "-f", "testdata/examples/", "--against", "-"])
        .write_stdin(out)
        .assert()
        .code(0)
        .stdout("");
}

#[test]
fn live_dump_shows_drift_and_deletions_but_not_server_fields_or_reordered_limits() {
    let out = policyctl()
        .args([
            "diff",
            "-f",
            "testdata/examples/",
            "--against",
            "testdata/diff/live-dump.yaml",
            // The dump is of an operator 1.4 cluster (a WasmPlugin).
            "--kuadrant-version",
            "1.4",
            "-o",
            "stat",
        ])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert_eq!(
        out,
        "deleted   EnvoyFilter gateway-system/kuadrant-auth-old-gateway (+0 -9)\n\
         updated   EnvoyFilter gateway-system/kuadrant-ratelimiting-prod-web (+1 -1)\n\
         0 created, 1 updated, 1 deleted, 5 unchanged\n"
    );
    // The drifted field is shown with the desired value.
    policyctl()
        .args([
            "diff",
            "-f",
            "testdata/examples/",
            "--against",
            "testdata/diff/live-dump.yaml",
            // The dump is of an operator 1.4 cluster (a WasmPlugin).
            "--kuadrant-version",
            "1.4",
        ])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "-        connect_timeout: 5s\n+        connect_timeout: 1s",
        ))
        .stdout(predicate::str::contains("team-lua-filter").not());
}

#[test]
fn created_objects_against_an_empty_current_state() {
    policyctl()
        .args([
            "diff",
            "-f",
            "testdata/examples/",
            "--against",
            "-",
            "-o",
            "json",
        ])
        .write_stdin("")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("\"change\": \"created\""));
}

#[test]
fn json_in_strings_compares_as_json() {
    let args = [
        "compute",
        "-f",
        "testdata/examples/",
        "--kuadrant-version",
        "1.5",
        "-o",
        "json",
    ];
    let out = stdout(policyctl().args(args));
    let mut list: serde_json::Value = serde_json::from_str(&out).unwrap();
    let mut changed = 0;
    for item in list["items"].as_array_mut().unwrap() {
        let Some(patches) = item.pointer_mut("/spec/configPatches") else {
            continue;
        };
        for p in patches.as_array_mut().unwrap() {
            let Some(cfg) =
                p.pointer_mut("/patch/value/typed_config/value/config/configuration/value")
            else {
                continue;
            };
            // Same JSON, other spacing and key order: what another protojson build would print.
            let v: serde_json::Value = serde_json::from_str(cfg.as_str().unwrap()).unwrap();
            let reordered = reorder(&v);
            *cfg = serde_json::Value::String(serde_json::to_string_pretty(&reordered).unwrap());
            changed += 1;
        }
    }
    assert!(
        changed > 0,
        "the 1.5 output carries the wasm configuration as a JSON string"
    );
    policyctl()
        .args([
            "diff",
            "-f",
            "testdata/examples/",
            "--kuadrant-version",
            "1.5",
            "--against",
            "-",
        ])
        .write_stdin(serde_json::to_string(&list).unwrap())
        .assert()
        .code(0);
}

/// Reverse the key order of every object.
fn reorder(v: &serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::Object(m) => {
            let mut out = serde_json::Map::new();
            for (k, x) in m.iter().rev() {
                out.insert(k.clone(), reorder(x));
            }
            serde_json::Value::Object(out)
        }
        serde_json::Value::Array(a) => serde_json::Value::Array(a.iter().map(reorder).collect()),
        x => x.clone(),
    }
}

#[test]
fn base_and_head_name_the_impact() {
    policyctl()
        .args([
            "diff",
            "-f",
            "testdata/diff/pr-head",
            "--base",
            "testdata/examples",
            "-o",
            "stat",
        ])
        .assert()
        .code(1)
        .stdout(
            "updated   Limitador kuadrant-system/limitador (+1 -1)\n\
             0 created, 1 updated, 0 deleted, 5 unchanged\n\
             routes with changed enforcement:\n  toystore/toystore\n\
             limits added:\n  RateLimitPolicy toystore/toystore limits.per-route: 20 per 10s\n\
             limits removed:\n  RateLimitPolicy toystore/toystore limits.per-route: 10 per 10s\n",
        );
    policyctl()
        .args([
            "diff",
            "-f",
            "testdata/diff/pr-head",
            "--base",
            "testdata/examples",
            "-o",
            "markdown",
        ])
        .assert()
        .code(1)
        .stdout(predicate::str::starts_with(
            "### policyctl diff\n\n| change | object | lines |",
        ))
        .stdout(predicate::str::contains("```diff\n"));
}

#[test]
fn trouble_exits_2() {
    policyctl()
        .args([
            "diff",
            "-f",
            "testdata/examples/",
            "--against",
            "does/not/exist",
        ])
        .assert()
        .code(2);
    policyctl()
        .args(["diff", "-f", "testdata/examples/"])
        .assert()
        .code(2);
}

#[test]
fn out_dir_creates_updates_prunes_and_keeps_foreign_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("generated");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("kustomization.yaml"), "resources: []\n").unwrap();
    let o = out.to_str().unwrap();

    let first = stdout(policyctl().args(["compute", "-f", "testdata/examples/", "--out-dir", o]));
    assert_eq!(
        first.lines().filter(|l| l.starts_with("created")).count(),
        6,
        "{first}"
    );
    policyctl()
        .args([
            "compute",
            "-f",
            "testdata/examples/",
            "--out-dir",
            o,
            "--check",
        ])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("is up to date (6 files)"));

    // The pull request changes a limit and removes the AuthPolicy: the check fails and names the files.
    let head = dir.path().join("head");
    std::fs::create_dir(&head).unwrap();
    for f in [
        "00-gateway.yaml",
        "10-gateway-policies.yaml",
        "30-storefront.yaml",
    ] {
        std::fs::copy(Path::new("testdata/diff/pr-head").join(f), head.join(f)).unwrap();
    }
    let toystore = std::fs::read_to_string("testdata/diff/pr-head/20-toystore.yaml").unwrap();
    let without_auth = toystore
        .split("\n---\napiVersion: kuadrant.io/v1\nkind: AuthPolicy")
        .next()
        .unwrap();
    std::fs::write(head.join("20-toystore.yaml"), without_auth).unwrap();
    let h = head.to_str().unwrap();
    let check = policyctl()
        .args(["compute", "-f", h, "--out-dir", o, "--check"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let check = String::from_utf8(check).unwrap();
    assert!(check.contains("stale (updated)"), "{check}");
    assert!(check.contains("stale (pruned)"), "{check}");
    assert_eq!(
        std::fs::read_dir(&out).unwrap().count(),
        7,
        "--check writes nothing"
    );

    let sync = stdout(policyctl().args(["compute", "-f", h, "--out-dir", o]));
    assert!(
        sync.lines()
            .any(|l| l.starts_with("pruned") && l.contains("AuthConfig")),
        "{sync}"
    );
    assert!(
        sync.lines()
            .any(|l| l.starts_with("updated") && l.contains("Limitador")),
        "{sync}"
    );
    assert!(sync.lines().any(|l| l.starts_with("unchanged")), "{sync}");
    assert_eq!(
        std::fs::read_to_string(out.join("kustomization.yaml")).unwrap(),
        "resources: []\n"
    );
    policyctl()
        .args(["compute", "-f", h, "--out-dir", o, "--check"])
        .assert()
        .code(0);
    // The folder is also a valid `--against` for diff.
    policyctl()
        .args(["diff", "-f", h, "--against", o])
        .assert()
        .code(0);
}
