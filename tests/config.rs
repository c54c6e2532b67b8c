//! The `.policyctl.yaml` settings file: found upward from the current directory (up to the
//! repository root, never above it) or named by
//! `--config`; flags and POLICYCTL_* variables override it; unknown keys are PCTL4001 warnings at
//! the key; invalid files are PCTL4002 and exit 2.

use crate::common;
use assert_cmd::Command;
use policyctl::KuadrantVersion;
use policyctl::config::{self, FailOn};
use policyctl::diag::Code;
use predicates::prelude::*;
use std::path::{Path, PathBuf};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/examples/")
}

/// policyctl run from `dir`, with no inherited settings from the environment.
fn policyctl(dir: &Path) -> Command {
    let mut c = common::policyctl();
    c.current_dir(dir)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100");
    c
}

fn settings_dir(text: &str) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join(".policyctl.yaml"), text).unwrap();
    d
}

fn compute_kinds(dir: &Path, extra: &[&str]) -> String {
    let ex = examples();
    let mut args = vec!["compute", "-f", ex.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = policyctl(dir).args(&args).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The example estate with the Kuadrant object removed (so the namespace comes from settings)
/// and, optionally, the GatewayClass controller renamed.
fn estate_without_kuadrant(dir: &Path, controller: Option<&str>) -> PathBuf {
    let out = dir.join("manifests");
    std::fs::create_dir_all(&out).unwrap();
    for entry in std::fs::read_dir(examples().join("toystore")).unwrap() {
        let entry = entry.unwrap();
        let text = std::fs::read_to_string(entry.path()).unwrap();
        let kept: Vec<&str> = text
            .split("\n---\n")
            .filter(|doc| !doc.contains("kind: Kuadrant\n"))
            .collect();
        let mut text = kept.join("\n---\n");
        if let Some(c) = controller {
            text = text.replace("istio.io/gateway-controller", c);
        }
        std::fs::write(out.join(entry.file_name()), text).unwrap();
    }
    out
}

#[test]
fn settings_file_in_the_current_directory_sets_the_version() {
    let d = settings_dir("kuadrantVersion: \"1.4\"\n");
    let out = compute_kinds(d.path(), &[]);
    assert!(out.contains("kind: WasmPlugin"), "1.4 has a WasmPlugin");
    assert!(out.contains("name: kuadrant-prod-web"));
    // Without the file, the default 1.5 (no WasmPlugin).
    let plain = tempfile::tempdir().unwrap();
    assert!(!compute_kinds(plain.path(), &[]).contains("kind: WasmPlugin"));
}

#[test]
fn settings_file_is_found_in_a_parent_directory() {
    let d = settings_dir("kuadrantVersion: 1.5\n");
    // Searched upward only inside a repository, up to its root.
    std::fs::create_dir(d.path().join(".git")).unwrap();
    let deep = d.path().join("a/b/c");
    std::fs::create_dir_all(&deep).unwrap();
    assert!(!compute_kinds(&deep, &[]).contains("kind: WasmPlugin"));
}

#[test]
fn flags_and_environment_override_the_settings_file() {
    let d = settings_dir("kuadrantVersion: \"1.5\"\n");
    assert!(compute_kinds(d.path(), &["--kuadrant-version", "1.4"]).contains("kind: WasmPlugin"));
    let ex = examples();
    policyctl(d.path())
        .env("POLICYCTL_KUADRANT_VERSION", "1.4")
        .args(["compute", "-f", ex.to_str().unwrap()])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("kind: WasmPlugin"));
}

#[test]
fn config_flag_names_the_file_and_wins_over_the_search() {
    let d = settings_dir("kuadrantVersion: \"1.4\"\n");
    let other = d.path().join("ci.yaml");
    std::fs::write(&other, "kuadrantVersion: \"1.5\"\n").unwrap();
    let out = compute_kinds(d.path(), &["--config", other.to_str().unwrap()]);
    assert!(!out.contains("kind: WasmPlugin"));
}

#[test]
fn runtime_values_come_from_the_settings_file() {
    let d = settings_dir(
        "kuadrantVersion: \"1.4\"\n\
         kuadrantNamespace: platform-kuadrant\n\
         wasmImage: registry.example.com/wasm-shim:v9\n\
         istioControllerNames: [example.com/my-istio]\n",
    );
    let manifests = estate_without_kuadrant(d.path(), Some("example.com/my-istio"));
    let out = policyctl(d.path())
        .args(["compute", "-f", manifests.to_str().unwrap()])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("kind: WasmPlugin"),
        "custom Istio class: {text}"
    );
    assert!(text.contains("url: registry.example.com/wasm-shim:v9"));
    assert!(text.contains("namespace: platform-kuadrant"));
    assert!(!text.contains("namespace: kuadrant-system"));

    // The flag wins over the file.
    let out = policyctl(d.path())
        .args([
            "compute",
            "-f",
            manifests.to_str().unwrap(),
            "--kuadrant-namespace",
            "from-flag",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("namespace: from-flag"));
    assert!(!text.contains("namespace: platform-kuadrant"));

    // Without the controller setting, the renamed class is not Istio: no WasmPlugin.
    let plain = settings_dir("kuadrantNamespace: platform-kuadrant\n");
    let manifests = estate_without_kuadrant(plain.path(), Some("example.com/my-istio"));
    let out = policyctl(plain.path())
        .args(["compute", "-f", manifests.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        !String::from_utf8(out.stdout)
            .unwrap()
            .contains("kind: WasmPlugin")
    );
}

#[test]
fn wasm_sha256_from_settings_reaches_the_1_5_envoyfilter() {
    let sha = "ab".repeat(32);
    let d = settings_dir(&format!("kuadrantVersion: '1.5'\nwasmSha256: {sha}\n"));
    let out = compute_kinds(d.path(), &[]);
    assert!(out.contains(&format!("sha256: {sha}")), "{out}");
}

#[test]
fn unknown_key_is_a_warning_at_the_key() {
    let d = settings_dir("kuadrantVersion: \"1.4\"\nkuadrant-namespace: x\n");
    let ex = examples();
    policyctl(d.path())
        .args(["lint", "-f", ex.to_str().unwrap(), "-q"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            ".policyctl.yaml:2:1: warning[PCTL4001]",
        ))
        .stdout(predicate::str::contains("kuadrant-namespace"));
    // The full rendering suggests the key that was meant; the other commands print it on stderr
    // with their own findings.
    policyctl(d.path())
        .args(["lint", "-f", ex.to_str().unwrap()])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "did you mean `kuadrantNamespace`?",
        ));
    policyctl(d.path())
        .args(["status", "-f", ex.to_str().unwrap()])
        .assert()
        .code(0)
        .stderr(predicate::str::contains(
            "did you mean `kuadrantNamespace`?",
        ));
}

#[test]
fn fail_on_from_settings_sets_the_exit_code_and_the_flag_overrides_it() {
    let d = settings_dir("failOn: warning\nunknownThing: 1\n");
    let ex = examples();
    policyctl(d.path())
        .args(["lint", "-f", ex.to_str().unwrap()])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("PCTL4001"));
    policyctl(d.path())
        .args(["lint", "-f", ex.to_str().unwrap(), "--fail-on", "error"])
        .assert()
        .code(0);
    // failOn applies to the estate's own findings too: an info is not a warning, so still 0.
    let d = settings_dir("failOn: warning\n");
    policyctl(d.path())
        .args(["status", "-f", ex.to_str().unwrap()])
        .assert()
        .code(0);
}

#[test]
fn invalid_values_are_pctl4002_and_exit_2() {
    let ex = examples();
    for (text, line_col) in [
        ("kuadrantVersion: \"2.0\"\n", ":1:18: error[PCTL4002]"),
        ("failOn: sometimes\n", ":1:9: error[PCTL4002]"),
        ("wasmSha256: abc\n", ":1:13: error[PCTL4002]"),
        ("istioControllerNames: {a: b}\n", ":1:23: error[PCTL4002]"),
    ] {
        let d = settings_dir(text);
        policyctl(d.path())
            .args(["compute", "-f", ex.to_str().unwrap(), "-q"])
            .assert()
            .code(2)
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains(line_col));
    }
}

#[test]
fn unreadable_or_malformed_settings_exit_2() {
    let ex = examples();
    let d = settings_dir("kuadrantVersion: [1.4\n");
    policyctl(d.path())
        .args(["lint", "-f", ex.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("PCTL4002"));
    let d = settings_dir("- just\n- a list\n");
    policyctl(d.path())
        .args(["lint", "-f", ex.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("PCTL4002"));
    let plain = tempfile::tempdir().unwrap();
    policyctl(plain.path())
        .args([
            "lint",
            "-f",
            ex.to_str().unwrap(),
            "--config",
            "no-such-file.yaml",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("PCTL4002"))
        .stderr(predicate::str::contains("no-such-file.yaml"));
}

#[test]
fn completions_ignore_the_settings_file() {
    let d = settings_dir("kuadrantVersion: nonsense\n");
    policyctl(d.path())
        .args(["completions", "bash"])
        .assert()
        .code(0);
}

#[test]
fn library_parses_every_key_with_spans() {
    let text = "kuadrantVersion: 1.5\nkuadrantNamespace: ks\nwasmImage: img\n\
                wasmSha256: ABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABAB\n\
                istioControllerNames: a, b\nenvoyGatewayControllerNames: [c]\nfailOn: never\n\
                colour: red\n";
    let loaded = config::parse("settings.yaml", text);
    let s = &loaded.settings;
    assert_eq!(s.kuadrant_version, Some(KuadrantVersion::V1_5));
    assert_eq!(s.kuadrant_namespace.as_deref(), Some("ks"));
    assert_eq!(s.wasm_image.as_deref(), Some("img"));
    assert_eq!(s.wasm_sha256.as_deref(), Some("ab".repeat(32).as_str()));
    assert_eq!(s.istio_controller_names, ["a", "b"]);
    assert_eq!(s.envoy_gateway_controller_names, ["c"]);
    assert_eq!(s.fail_on, Some(FailOn::Never));
    let d: Vec<_> = loaded.diagnostics.iter().collect();
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].code, Code::ConfigUnknownKey);
    let span = d[0].primary_span().unwrap();
    assert_eq!(&text[span.offset..span.offset + span.len], "colour");
}

#[test]
fn empty_settings_file_is_fine() {
    let loaded = config::parse("empty.yaml", "# nothing yet\n");
    assert!(loaded.diagnostics.is_empty());
    assert_eq!(loaded.settings, config::Settings::default());
}

#[test]
fn find_walks_up_and_stops_at_the_nearest_file() {
    let d = settings_dir("failOn: never\n");
    let inner = d.path().join("x/y");
    std::fs::create_dir_all(&inner).unwrap();
    // Not in a repository: only the folder itself.
    assert_eq!(config::find(&inner), None);
    std::fs::create_dir(d.path().join(".git")).unwrap();
    assert_eq!(
        config::find(&inner).as_deref(),
        Some(d.path().join(".policyctl.yaml").as_path())
    );
    std::fs::write(d.path().join("x/.policyctl.yaml"), "").unwrap();
    assert_eq!(
        config::find(&inner).as_deref(),
        Some(d.path().join("x/.policyctl.yaml").as_path())
    );
}

#[test]
fn an_all_digit_wasm_sha256_is_read_as_written() {
    let zeros = "0".repeat(64);
    let loaded = config::parse("s.yaml", &format!("wasmSha256: {zeros}\n"));
    assert!(loaded.diagnostics.is_empty());
    assert_eq!(loaded.settings.wasm_sha256.as_deref(), Some(zeros.as_str()));
    let loaded = config::parse("s.yaml", "wasmSha256: 12e4\n");
    assert_eq!(
        loaded.diagnostics.iter().next().unwrap().code,
        Code::ConfigInvalid
    );
}

/// The settings file's `ignore:` and its own findings give the same findings, at the same lines,
/// in every command that reads manifests: each runs the same pipeline (`policyctl::run`, the
/// audit's findings included) and only chooses what to print. The estate is the toystore example
/// with two routes whose parent Gateway is not in the input (`PCTL2003`, a warning): the settings
/// file silences one of them, has an unknown key (`PCTL4001`, a warning), and silences the
/// storefront's missing authentication (`PCTL6001`, which only `audit --require auth` finds). It
/// gives the wasm module's sha256, so that the commands that write objects (`compute --out-dir`,
/// `watch`) have no finding about a placeholder (`PCTL4004`) either.
#[test]
fn one_settings_file_gives_the_same_findings_in_every_command() {
    let dir = settings_dir(
        "colour: blue\nwasmSha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\nignore:\n  - code: PCTL2003\n    object: \"HTTPRoute toystore/silenced\"\n    reason: its gateway is in another repository\n  - code: PCTL6001\n    object: \"HTTPRoute storefront/*\"\n    reason: the storefront is public\n",
    );
    let manifests = dir.path().join("manifests");
    std::fs::create_dir(&manifests).unwrap();
    for entry in std::fs::read_dir(examples().join("toystore")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, manifests.join(path.file_name().unwrap())).unwrap();
    }
    let orphan = |name: &str| {
        format!(
            "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: {name}\n  namespace: toystore\nspec:\n  parentRefs:\n  - name: elsewhere\n    namespace: gateway-system\n  hostnames: [\"{name}.example.com\"]\n  rules:\n  - backendRefs:\n    - name: toystore\n      port: 80\n"
        )
    };
    std::fs::write(
        manifests.join("40-orphans.yaml"),
        format!("{}---\n{}", orphan("silenced"), orphan("shown")),
    )
    .unwrap();
    let m = "manifests";
    let cases = examples()
        .parent()
        .unwrap()
        .join("tests/toystore/toystore.yaml");
    let cases = cases.to_str().unwrap();
    let commands: Vec<Vec<&str>> = vec![
        vec!["lint", "-f", m],
        vec!["compute", "-f", m],
        vec!["compute", "-f", m, "--out-dir", "out"],
        vec!["status", "-f", m],
        vec!["explain", "-f", m, "HTTPRoute/toystore/toystore"],
        vec!["graph", "-f", m],
        vec!["diff", "-f", m, "--base", m],
        vec!["simulate", "-f", m, "http://api.toystore.example.com/toy"],
        vec!["test", "-f", m, cases],
        vec!["watch", "-f", m, "--cycles", "1", "lint"],
        vec!["audit", "-f", m],
        vec!["audit", "-f", m, "--require", "auth"],
    ];
    // The commands that show infos (`PCTL3002` here, which the audit lists as dead configuration).
    let shows_infos = |command: &str| ["lint", "watch", "audit"].contains(&command);
    let mut seen: Vec<(String, std::collections::BTreeSet<String>)> = Vec::new();
    for args in &commands {
        let out = policyctl(dir.path())
            .arg("-q")
            .args(args)
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        // Each finding as `file:line:column: severity[CODE]: message (object)`, whatever precedes
        // it on the line (`watch` prefixes its lines with what changed).
        let findings: std::collections::BTreeSet<String> = text
            .lines()
            .filter_map(|l| {
                let at = ["error[", "warning[", "info["]
                    .iter()
                    .filter_map(|s| l.find(s))
                    .min()?;
                let start = l[..at].trim_end().rfind(' ').map_or(0, |i| i + 1);
                Some(l[start..].to_string())
            })
            .collect();
        assert!(
            findings.iter().all(|f| f.contains(".yaml:")),
            "`{}`: every finding has its file and line: {findings:?}",
            args.join(" ")
        );
        seen.push((args.join(" "), findings));
    }
    let (first, expected) = &seen[0];
    assert!(
        expected.iter().any(|f| f.contains("warning[PCTL4001]")),
        "{first}: the unknown settings key is a finding: {expected:?}"
    );
    assert!(
        expected.iter().any(|f| f.contains("40-orphans.yaml:23:")
            && f.contains("warning[PCTL2003]")
            && f.contains("HTTPRoute toystore/shown")),
        "{first}: {expected:?}"
    );
    assert!(
        expected.iter().any(|f| f.contains("info[PCTL3002]")),
        "{first}: {expected:?}"
    );
    assert!(
        !expected.iter().any(|f| f.contains("toystore/silenced")),
        "{first}: the ignore entry silences the other route: {expected:?}"
    );
    // The entry for PCTL6001 is used by `audit --require auth` alone, and unused by no command.
    assert!(
        seen.iter().all(|(_, f)| !f
            .iter()
            .any(|f| f.contains("PCTL6001") || f.contains("PCTL4009"))),
        "{seen:?}"
    );
    for (command, findings) in &seen[1..] {
        let name = command.split(' ').next().unwrap_or_default();
        let expected: std::collections::BTreeSet<String> = expected
            .iter()
            .filter(|f| shows_infos(name) || !f.contains("info["))
            .cloned()
            .collect();
        assert_eq!(findings, &expected, "`{command}` differs from `{first}`");
    }
    // The audit's suppressed finding is listed as such where suppressions are shown (SARIF).
    let out = policyctl(dir.path())
        .args(["-q", "audit", "-f", m, "--require", "auth", "-o", "sarif"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "nothing left that --require finds"
    );
    let sarif: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let suppressed: Vec<(&str, &str)> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| {
            Some((
                r["ruleId"].as_str()?,
                r["suppressions"][0]["justification"].as_str()?,
            ))
        })
        .collect();
    assert_eq!(
        suppressed,
        [("PCTL6001", "the storefront is public")],
        "{sarif}"
    );
}
