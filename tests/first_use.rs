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
