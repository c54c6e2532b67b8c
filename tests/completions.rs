//! The committed shell completions in completions/ are exactly what `policyctl completions SHELL`
//! prints, so a CLI change that does not refresh them fails `cargo test`.
//!
//! Stale? Run `UPDATE_EXPECT=1 cargo test --test tests completions::` to rewrite the files, then review the
//! git diff. The rewrite is refused when `CI` is set, so CI always compares.

use crate::common;
use std::path::PathBuf;

/// (shell argument, committed file)
const SHELLS: &[(&str, &str)] = &[
    ("bash", "policyctl.bash"),
    ("zsh", "_policyctl"),
    ("fish", "policyctl.fish"),
    ("powershell", "_policyctl.ps1"),
    ("elvish", "policyctl.elv"),
];

fn script(shell: &str) -> Vec<u8> {
    let out = common::policyctl_std()
        .args(["completions", shell])
        .output()
        .expect("run policyctl");
    assert!(
        out.status.success(),
        "policyctl completions {shell} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!out.stdout.is_empty(), "no {shell} completions printed");
    out.stdout
}

fn committed(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("completions")
        .join(file)
}

fn update_requested() -> bool {
    std::env::var_os("UPDATE_EXPECT").is_some() && std::env::var_os("CI").is_none()
}

#[test]
fn committed_completions_match_the_binary() {
    let mut stale = Vec::new();
    for (shell, file) in SHELLS {
        let printed = script(shell);
        let path = committed(file);
        if update_requested() {
            std::fs::write(&path, &printed).expect("write completions");
            continue;
        }
        let on_disk = std::fs::read(&path).unwrap_or_default();
        if on_disk != printed {
            stale.push(format!("completions/{file} ({shell})"));
        }
    }
    assert!(
        stale.is_empty(),
        "stale completions: {}; run UPDATE_EXPECT=1 cargo test --test tests completions::",
        stale.join(", ")
    );
}

#[test]
fn completions_know_every_command_and_the_config_flag() {
    let bash = String::from_utf8(script("bash")).unwrap();
    for word in [
        "compute",
        "diff",
        "graph",
        "status",
        "explain",
        "lint",
        "--config",
        "--kuadrant-version",
        "--out-dir",
    ] {
        assert!(bash.contains(word), "bash completions lack {word}");
    }
}

#[test]
fn unknown_shell_is_a_usage_error() {
    let out = common::policyctl_std()
        .args(["completions", "tcsh"])
        .output()
        .expect("run policyctl");
    assert_eq!(out.status.code(), Some(2));
}
