//! Helpers shared by the integration test modules (declared once in tests/tests.rs).
#![allow(dead_code)]

use policyctl::KuadrantVersion;
use policyctl::{Input, LoadOptions, Loaded, load};
use std::path::{Path, PathBuf};

/// The scenario folders under testdata/cases (each has an `input.yaml`), sorted.
pub fn cases() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/cases");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("input.yaml").exists())
        .collect();
    v.sort();
    v
}

/// The operator version a case asks for in its optional `version` file (1.4 without one: the
/// cases were derived from operator v1.4.6, whatever policyctl's default).
pub fn version_of(case: &Path) -> KuadrantVersion {
    std::fs::read_to_string(case.join("version"))
        .ok()
        .and_then(|s| KuadrantVersion::parse(s.trim()))
        .unwrap_or(KuadrantVersion::V1_4)
}

/// `CODE line:col` for every diagnostic, sorted.
pub fn found(l: &Loaded) -> Vec<String> {
    let mut v: Vec<String> = l
        .diagnostics
        .iter()
        .map(|d| {
            let pos = d
                .primary_span()
                .and_then(|s| l.sources.position(s))
                .map(|p| format!(" {}:{}", p.line, p.column))
                .unwrap_or_default();
            format!("{}{pos}", d.code.as_str())
        })
        .collect();
    v.sort();
    v
}

/// Load documents as separate stdin-like inputs `doc-<i>.yaml` (namespace `default`).
pub fn load_docs(docs: &[String], version: KuadrantVersion) -> Loaded {
    let inputs: Vec<Input> = docs
        .iter()
        .enumerate()
        .map(|(i, d)| Input::Text {
            name: format!("doc-{i}.yaml"),
            bytes: d.as_bytes().to_vec(),
        })
        .collect();
    load(
        &inputs,
        &LoadOptions {
            default_namespace: "default".into(),
            version,
            ..LoadOptions::default()
        },
    )
}

/// Variables of the developer's shell that would change what policyctl prints: every `POLICYCTL_*`
/// setting, the colour switches, the terminal width and `GITHUB_WORKSPACE` (a SARIF log's
/// repository root when no `.git` is found; set when the suite itself runs in GitHub Actions).
/// Tests set what they need explicitly.
fn inherited_settings() -> Vec<std::ffi::OsString> {
    std::env::vars_os()
        .map(|(k, _)| k)
        .filter(|k| {
            k.to_str().is_some_and(|k| {
                k.starts_with("POLICYCTL_")
                    || matches!(
                        k,
                        "NO_COLOR" | "CLICOLOR" | "CLICOLOR_FORCE" | "COLUMNS" | "GITHUB_WORKSPACE"
                    )
            })
        })
        .collect()
}

/// Remove [`inherited_settings`] from a command about to run policyctl (directly or through a shell).
pub fn scrub(c: &mut std::process::Command) -> &mut std::process::Command {
    for k in inherited_settings() {
        c.env_remove(k);
    }
    c
}

/// The binary under test, with a clean environment.
pub fn policyctl_std() -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_policyctl"));
    scrub(&mut c);
    c
}

/// The binary under test, with a clean environment, as an `assert_cmd` command.
pub fn policyctl() -> assert_cmd::Command {
    assert_cmd::Command::from_std(policyctl_std())
}

/// [`scrub`] for a command built by value (a shell that runs policyctl).
pub fn scrub_std(mut c: std::process::Command) -> std::process::Command {
    scrub(&mut c);
    c
}

/// Compare `text` with the insta snapshot `<name>.snap` kept beside a scenario's `input.yaml`, so a
/// case's expectations live with it. `cargo insta review` (or `INSTA_UPDATE=always`) updates them; CI
/// only compares.
pub fn assert_case_snapshot(case: &Path, name: &str, text: &str) {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(case);
    s.set_prepend_module_to_snapshot(false);
    s.remove_snapshot_suffix();
    s.set_omit_expression(true);
    s.bind(|| insta::assert_snapshot!(name, text));
}

/// Run `check` on every scenario folder of [`cases`] and fail once at the end, naming every case that
/// failed, so the first failure does not hide the rest. (insta's `glob!` does this too, but its failure
/// count is process-global and tests share the process: a failure could be counted by another test.)
pub fn for_each_case(check: impl Fn(&Path)) {
    let failed: Vec<String> = cases()
        .iter()
        .filter(|case| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(case))).is_err()
        })
        .map(|case| case.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(
        failed.is_empty(),
        "{} case(s) failed (each printed above): {}",
        failed.len(),
        failed.join(", ")
    );
}
