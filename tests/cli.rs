//! The binary's contract: exit codes, stdin, output formats.

use assert_cmd::Command;
use predicates::prelude::*;

fn policyctl() -> Command {
    let mut c = Command::cargo_bin("policyctl").unwrap();
    c.env_remove("NO_COLOR").env("COLUMNS", "100");
    c
}

#[test]
fn lint_clean_example_exits_0() {
    policyctl()
        .args(["lint", "-f", "testdata/examples/"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("0 errors"));
}

#[test]
fn lint_error_exits_1_and_points_at_the_field() {
    policyctl()
        .args([
            "lint",
            "-f",
            "testdata/invalid/schema/window-pattern.yaml",
            "-q",
        ])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "testdata/invalid/schema/window-pattern.yaml:16:17: error[PCTL1009]",
        ));
}

#[test]
fn unparseable_and_unreadable_exit_2() {
    policyctl()
        .args(["lint", "-f", "testdata/invalid/schema/yaml-syntax.yaml"])
        .assert()
        .code(2);
    policyctl()
        .args(["lint", "-f", "does/not/exist"])
        .assert()
        .code(2);
}

#[test]
fn usage_error_exits_2() {
    policyctl().args(["lint"]).assert().code(2);
    policyctl().args(["no-such-command"]).assert().code(2);
}

#[test]
fn stdin_is_named_in_github_annotations() {
    policyctl()
        .args([
            "lint",
            "-f",
            "-",
            "--stdin-name",
            "overlays/prod",
            "-o",
            "github",
        ])
        .write_stdin(
            "apiVersion: kuadrant.io/v1beta2\nkind: RateLimitPolicy\nmetadata: {name: x}\n",
        )
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "::error file=overlays/prod,line=1,col=13,title=PCTL1004::",
        ));
}

#[test]
fn json_output_has_positions_and_summary() {
    let out = policyctl()
        .args([
            "lint",
            "-f",
            "testdata/invalid/schema/target-kind-not-allowed.yaml",
            "-o",
            "json",
        ])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let d = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "PCTL1010")
        .expect("PCTL1010 reported");
    assert_eq!(d["line"], 10);
    assert_eq!(d["column"], 11);
    assert_eq!(v["summary"]["errors"], 1);
}

#[test]
fn fail_on_changes_only_the_exit_code() {
    policyctl()
        .args([
            "lint",
            "-f",
            "testdata/invalid/schema/window-pattern.yaml",
            "--fail-on",
            "never",
        ])
        .assert()
        .code(0);
}

#[test]
fn verbose_lists_skipped_kinds() {
    policyctl()
        .args(["lint", "-f", "-", "-v"])
        .write_stdin("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("skipped: v1 ConfigMap default/c"));
}
