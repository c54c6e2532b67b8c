//! The binary's contract: exit codes, stdin, output formats.

use crate::common;
use assert_cmd::Command;
use predicates::prelude::*;

fn policyctl() -> Command {
    let mut c = common::policyctl();
    c.env("COLUMNS", "100");
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
    // `--kind` names a kind inherited along paths, for `explain` and `watch explain` alike.
    for args in [
        &[
            "explain",
            "-f",
            "testdata/examples",
            "gateway/gateway-system/prod-web",
        ][..],
        &[
            "watch",
            "-f",
            "testdata/examples",
            "explain",
            "gateway/gateway-system/prod-web",
        ],
    ] {
        policyctl()
            .args(args)
            .args(["--kind", "DNSPolicy"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "--kind DNSPolicy: expected RateLimitPolicy, AuthPolicy or TokenRateLimitPolicy",
            ));
    }
    // A quiet period past an hour is refused, not added to a deadline that overflows.
    policyctl()
        .args([
            "watch",
            "-f",
            "testdata/examples",
            "--debounce",
            "18446744073709551615",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--debounce"));
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
    // The rule is the targetRef's (the API server's path is spec.targetRef): its key.
    assert_eq!(d["line"], 8);
    assert_eq!(d["column"], 3);
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

/// The binary copied under the kubectl plugin name `kubectl-kuadrant_policy` in a temporary folder.
fn as_kubectl_plugin() -> (tempfile::TempDir, std::path::PathBuf) {
    // A hard link, not a copy: a copy is written through a file descriptor that a test running
    // in another thread can inherit across fork, and executing the copy then fails with "Text
    // file busy" (ETXTBSY). Cargo's target tmp dir is on the binary's file system.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let plugin = dir.path().join(format!(
        "kubectl-kuadrant_policy{}",
        std::env::consts::EXE_SUFFIX
    ));
    let bin = env!("CARGO_BIN_EXE_policyctl");
    if std::fs::hard_link(bin, &plugin).is_err() {
        std::fs::copy(bin, &plugin).unwrap();
    }
    (dir, plugin)
}

#[test]
fn kubectl_plugin_name_computes_the_same_objects() {
    let (_dir, plugin) = as_kubectl_plugin();
    let direct = policyctl()
        .args(["compute", "-f", "testdata/examples/"])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let out = common::scrub(&mut std::process::Command::new(&plugin))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["compute", "-f", "testdata/examples/"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(!direct.is_empty());
    assert_eq!(
        out.stdout, direct,
        "the plugin prints what policyctl prints"
    );
}

#[test]
fn kubectl_plugin_help_says_kubectl_kuadrant_policy() {
    let (_dir, plugin) = as_kubectl_plugin();
    let out = common::scrub(&mut std::process::Command::new(&plugin))
        .args(["compute", "--help"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8(out.stdout).unwrap();
    assert!(
        help.contains("Usage: kubectl kuadrant-policy compute"),
        "{help}"
    );
    assert!(help.contains("  kubectl kuadrant-policy compute -f manifests/"));
    assert!(!help.contains("  policyctl "), "{help}");
    // Usage errors name the plugin too, and still exit 2.
    let out = common::scrub(&mut std::process::Command::new(&plugin))
        .arg("no-such-command")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("kubectl kuadrant-policy"));
}

#[test]
fn every_command_help_shows_an_example() {
    for cmd in [
        vec!["--help"],
        vec!["compute", "--help"],
        vec!["diff", "--help"],
        vec!["graph", "--help"],
        vec!["status", "--help"],
        vec!["explain", "--help"],
        vec!["lint", "--help"],
        vec!["completions", "--help"],
    ] {
        let out = policyctl()
            .args(&cmd)
            .assert()
            .code(0)
            .get_output()
            .stdout
            .clone();
        let help = String::from_utf8(out).unwrap();
        assert!(
            help.contains("Example") && help.contains("  policyctl "),
            "policyctl {} shows no example",
            cmd.join(" ")
        );
    }
}

#[test]
fn unknown_wasm_sha256_on_1_5_is_a_warning_not_a_guess() {
    let out = tempfile::tempdir().unwrap();
    policyctl()
        .args([
            "compute",
            "-f",
            "testdata/examples/",
            "--kuadrant-version",
            "1.5",
            "--fail-on",
            "warning",
            "--out-dir",
        ])
        .arg(out.path().join("generated"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("PCTL4004"));
    let sha = "ab".repeat(32);
    policyctl()
        .args([
            "compute",
            "-f",
            "testdata/examples/",
            "--kuadrant-version",
            "1.5",
            "--wasm-sha256",
            &sha,
            "--fail-on",
            "warning",
        ])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(format!("sha256: {sha}")));
}

#[test]
fn helm_source_comments_name_the_template_in_diagnostics() {
    let rendered = [
        "---",
        "# Source: toystore/templates/gateway.yaml",
        "apiVersion: gateway.networking.k8s.io/v1",
        "kind: GatewayClass",
        "metadata: {name: istio}",
        "spec: {controllerName: istio.io/gateway-controller}",
        "---",
        "# Source: toystore/templates/rlp.yaml",
        "apiVersion: kuadrant.io/v1",
        "kind: RateLimitPolicy",
        "metadata:",
        "  name: rlp",
        "spec:",
        "  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}",
        "  limits:",
        "    l: {rates: [{limit: 1, window: 1d}]}",
        "",
    ]
    .join("\n");
    policyctl()
        .args(["lint", "-f", "-", "-q"])
        .write_stdin(rendered)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "toystore/templates/rlp.yaml:8:36: error[PCTL1009]",
        ));
}

/// `compute` into a pipe widens the pipe's buffer to 1 MiB before it streams (a large estate's
/// text then reaches the reader in far fewer hand-overs), and the text read through it is the
/// text written into a file.
#[cfg(target_os = "linux")]
#[test]
fn compute_into_a_pipe_widens_it() {
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("out.yaml");
    let status = common::policyctl_std()
        .args(["compute", "-f", "testdata/examples/toystore"])
        .stdout(std::fs::File::create(&file).unwrap())
        .status()
        .unwrap();
    assert!(status.success());
    let (mut pipe, writer) = std::io::pipe().unwrap();
    let before = rustix::pipe::fcntl_getpipe_size(&pipe).unwrap();
    assert!(before < 1 << 20, "{before}");
    let mut child = common::policyctl_std()
        .args(["compute", "-f", "testdata/examples/toystore"])
        .stdout(writer)
        .spawn()
        .unwrap();
    let mut text = String::new();
    pipe.read_to_string(&mut text).unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(rustix::pipe::fcntl_getpipe_size(&pipe).ok(), Some(1 << 20));
    assert!(!text.is_empty());
    assert_eq!(text, std::fs::read_to_string(&file).unwrap());
}
