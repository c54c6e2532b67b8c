//! The ways policyctl reaches a pipeline, checked where they can be here: the composite GitHub
//! Action (`action.yml`), the README's CI snippets (YAML parses, the script passes `bash -n`), the
//! krew manifest template (`.krew.yaml`), the `Dockerfile` (built when a container runtime
//! answers, else linted with hadolint, which `.ci/run` installs) and the minimum Rust version.

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn yaml(text: &str, what: &str) -> Value {
    serde_saphyr::from_str::<Value>(text).unwrap_or_else(|e| panic!("{what}: {e}\n{text}"))
}

/// `bash -n` on a script: it parses.
fn bash_parses(script: &str, what: &str) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("script.sh");
    std::fs::write(&file, script).unwrap();
    let out = Command::new("bash").arg("-n").arg(&file).output().unwrap();
    assert!(
        out.status.success(),
        "{what}: bash -n: {}\n{script}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The fenced blocks of one language in a piece of Markdown.
fn blocks(markdown: &str, lang: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match &mut current {
            None if line.trim_end() == format!("```{lang}") => current = Some(String::new()),
            None => {}
            Some(_) if line.trim_end() == "```" => out.push(current.take().unwrap()),
            Some(text) => {
                text.push_str(line);
                text.push('\n');
            }
        }
    }
    out
}

/// The README's "In CI" section.
fn ci_section() -> String {
    let r = read("README.md");
    let start = r.find("### In CI\n").expect("README has an In CI section");
    let end = start + r[start..].find("\n## ").unwrap();
    r[start..end].to_string()
}

#[test]
fn action_is_a_composite_action_whose_inputs_are_declared_and_documented() {
    let text = read("action.yml");
    let action = yaml(&text, "action.yml");
    assert_eq!(action["runs"]["using"], "composite");
    let inputs: BTreeSet<String> = action["inputs"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    for (name, input) in action["inputs"].as_object().unwrap() {
        assert!(
            input["description"].as_str().is_some_and(|d| !d.is_empty()),
            "input {name} has no description"
        );
    }
    // Every `inputs.X` the steps use is declared.
    let mut used = BTreeSet::new();
    let mut rest = text.as_str();
    while let Some(i) = rest.find("inputs.") {
        rest = &rest[i + 7..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
            .collect();
        used.insert(name);
    }
    let undeclared: Vec<_> = used.difference(&inputs).collect();
    assert!(undeclared.is_empty(), "undeclared inputs: {undeclared:?}");
    // Every input is in the README's table.
    let ci = ci_section();
    for name in &inputs {
        assert!(
            ci.contains(&format!("| `{name}` |")),
            "README's input table lacks {name}"
        );
    }
    // What the action must do: install, lint to SARIF and upload it, check --out-dir, comment a
    // markdown diff.
    let steps = action["runs"]["steps"].as_array().unwrap();
    let runs: String = steps
        .iter()
        .filter_map(|s| s["run"].as_str())
        .collect::<Vec<_>>()
        .join("\n");
    for needle in [
        "releases/download",
        "sha256sum -c",
        "cargo build --release --locked",
        "-o sarif",
        "--out-dir \"$OUT_DIR\" --check",
        "-o markdown",
        "gh api -X PATCH",
    ] {
        assert!(runs.contains(needle), "action.yml does not run {needle:?}");
    }
    assert!(
        steps.iter().any(|s| s["uses"]
            .as_str()
            .is_some_and(|u| u.starts_with("github/codeql-action/upload-sarif@"))),
        "no SARIF upload"
    );
    for step in steps {
        if let Some(script) = step["run"].as_str() {
            assert_eq!(step["shell"], "bash", "{step}");
            assert!(
                !script.contains("${{"),
                "expressions go through env:, not into the script: {script}"
            );
            bash_parses(script, &format!("action.yml step {}", step["name"]));
        }
    }
}

#[test]
fn readme_ci_snippets_parse() {
    let ci = ci_section();
    let yamls = blocks(&ci, "yaml");
    assert!(yamls.len() >= 2, "GitHub Actions and GitLab CI examples");
    let docs: Vec<Value> = yamls.iter().map(|y| yaml(y, "README CI YAML")).collect();
    // GitHub Actions: the job uses the action.
    let gha = docs
        .iter()
        .find(|d| d.get("jobs").is_some())
        .expect("a GitHub Actions workflow");
    let steps = gha["jobs"]["policyctl"]["steps"].as_array().unwrap();
    let uses_action = steps
        .iter()
        .find(|s| s["uses"].as_str() == Some("./tools/policyctl"))
        .expect("the workflow uses the action");
    let action = yaml(&read("action.yml"), "action.yml");
    for (input, _) in uses_action["with"].as_object().unwrap() {
        assert!(
            action["inputs"].get(input).is_some(),
            "the README passes an input the action lacks: {input}"
        );
    }
    assert!(action["inputs"]["manifests"]["required"] == true);
    assert!(uses_action["with"].get("manifests").is_some());
    // GitLab CI: a JUnit report from lint -o junit.
    let gitlab = docs
        .iter()
        .find(|d| {
            d.get("policyctl")
                .is_some_and(|j| j.get("script").is_some())
        })
        .expect("a GitLab CI job");
    let job = &gitlab["policyctl"];
    let report = job["artifacts"]["reports"]["junit"].as_str().unwrap();
    assert!(
        job["script"].as_array().unwrap().iter().any(|l| l
            .as_str()
            .unwrap()
            .contains(&format!("-o junit > {report}"))),
        "the job writes the JUnit report it declares"
    );
    let scripts = blocks(&ci, "sh");
    assert!(!scripts.is_empty(), "a plain shell script");
    for s in &scripts {
        bash_parses(s, "README CI script");
        assert!(s.contains("-o junit"));
    }
}

/// A broken script is caught: the check above is not vacuous.
#[test]
fn bash_n_rejects_a_broken_script() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.sh");
    std::fs::write(&file, "if true; then\n  echo unterminated\n").unwrap();
    let out = Command::new("bash").arg("-n").arg(&file).output().unwrap();
    assert!(!out.status.success());
}

/// `.krew.yaml` filled in as krew-release-bot does for a tag: a krew `Plugin` whose platforms each
/// name an archive of that tag, a sha256 and the `policyctl` binary, installed so that kubectl
/// runs it as `kubectl kuadrant-policy`.
#[test]
fn krew_manifest_renders_to_a_valid_plugin() {
    let template = read(".krew.yaml");
    let tag = "v0.1.0";
    let sha = "ab".repeat(32);
    let mut rendered = String::new();
    for line in template.lines() {
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix("{{addURIAndSha \"") {
            let indent = &line[..line.len() - trimmed.len()];
            let uri = rest
                .split('"')
                .next()
                .unwrap()
                .replace("{{ .TagName }}", tag);
            rendered.push_str(&format!("{indent}uri: {uri}\n{indent}sha256: {sha}\n"));
        } else {
            rendered.push_str(&line.replace("{{ .TagName }}", tag));
            rendered.push('\n');
        }
    }
    assert!(!rendered.contains("{{"), "unrendered template:\n{rendered}");
    let plugin = yaml(&rendered, ".krew.yaml rendered");
    assert_eq!(
        plugin["apiVersion"],
        "krew.googlecontainertools.github.com/v1alpha2"
    );
    assert_eq!(plugin["kind"], "Plugin");
    let name = plugin["metadata"]["name"].as_str().unwrap();
    // krew links the binary as kubectl-<name with - as _>; policyctl's help then says
    // `kubectl kuadrant-policy` (src/cli/mod.rs bin_name).
    assert_eq!(
        format!("kubectl-{}", name.replace('-', "_")),
        "kubectl-kuadrant_policy"
    );
    assert_eq!(plugin["spec"]["version"], tag);
    assert!(
        plugin["spec"]["shortDescription"]
            .as_str()
            .is_some_and(|d| d.len() <= 50)
    );
    let platforms = plugin["spec"]["platforms"].as_array().unwrap();
    let mut seen = BTreeSet::new();
    for p in platforms {
        let labels = &p["selector"]["matchLabels"];
        seen.insert(format!("{}/{}", labels["os"], labels["arch"]).replace('"', ""));
        let uri = p["uri"].as_str().unwrap();
        assert!(uri.starts_with("https://") && uri.contains(tag) && uri.ends_with(".tar.gz"));
        assert_eq!(p["sha256"].as_str().unwrap(), sha);
        assert_eq!(p["bin"], "policyctl");
        assert!(
            p["files"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f["from"] == "policyctl"),
            "the archive's binary is installed"
        );
    }
    let want: BTreeSet<String> = ["linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(seen, want);
}

/// Cargo.toml's `rust-version`.
fn rust_version() -> String {
    let toml = read("Cargo.toml");
    let line = toml
        .lines()
        .find(|l| l.starts_with("rust-version"))
        .expect("Cargo.toml sets rust-version");
    line.split('"').nth(1).unwrap().to_string()
}

fn version_tuple(v: &str) -> (u64, u64, u64) {
    let mut parts = v.split('.').map(|p| p.parse::<u64>().unwrap_or(0));
    (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    )
}

#[test]
fn dockerfile_is_multi_stage_non_root_and_ships_only_the_binary() {
    let text = read("Dockerfile");
    let froms: Vec<&str> = text.lines().filter(|l| l.starts_with("FROM ")).collect();
    assert_eq!(froms.len(), 2, "a build stage and a runtime stage");
    // The build stage uses the minimum supported Rust.
    assert!(
        froms[0].contains(&format!("rust:{}-", rust_version())),
        "{} is not rust:{}",
        froms[0],
        rust_version()
    );
    let runtime = &text[text.rfind("\nFROM ").unwrap()..];
    let copies: Vec<&str> = runtime.lines().filter(|l| l.starts_with("COPY")).collect();
    assert_eq!(
        copies,
        ["COPY --from=build /src/target/release/policyctl /usr/local/bin/policyctl"]
    );
    let user = runtime
        .lines()
        .find_map(|l| l.strip_prefix("USER "))
        .expect("the runtime stage sets a user");
    let uid = user.split(':').next().unwrap();
    assert!(
        uid.parse::<u32>().is_ok_and(|u| u != 0),
        "a numeric non-root user: {user}"
    );
    assert!(runtime.contains("ENTRYPOINT [\"/usr/local/bin/policyctl\"]"));
    assert!(
        !runtime.contains("RUN "),
        "nothing runs in the runtime image"
    );
}

/// Whether `docker info` reaches a daemon.
fn container_runtime() -> bool {
    Command::new("docker")
        .arg("info")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn dockerfile_builds_or_lints() {
    if container_runtime() {
        let out = Command::new("docker")
            .args(["build", "-t", "policyctl:test", "."])
            .current_dir(root())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "docker build: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = Command::new("docker")
            .args(["run", "--rm", "policyctl:test", "version"])
            .output()
            .unwrap();
        assert!(String::from_utf8_lossy(&out.stdout).starts_with("policyctl "));
        return;
    }
    let hadolint = Command::new("hadolint")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !hadolint {
        assert!(
            std::env::var_os("POLICYCTL_REQUIRE_HADOLINT").is_none(),
            "POLICYCTL_REQUIRE_HADOLINT is set but hadolint is not on PATH"
        );
        eprintln!(
            "SKIPPED: no container runtime answers `docker info` and hadolint is not on PATH \
             (.ci/run installs it); the Dockerfile was neither built nor linted"
        );
        return;
    }
    let out = Command::new("hadolint")
        .arg(root().join("Dockerfile"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "hadolint:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// No locked dependency needs a newer Rust than `rust-version`, so `cargo install --locked` works
/// on the documented minimum. (Std APIs newer than it are clippy's `incompatible_msrv`, denied in
/// `.ci/run`; a build with that exact toolchain is not run there: see the README.)
#[test]
fn locked_dependencies_build_on_the_minimum_rust() {
    let ours = version_tuple(&rust_version());
    // The packages this platform builds (all of them would need downloading the other
    // platforms' crates, and the test runs offline).
    let rustc = Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
        .arg("-vV")
        .output()
        .unwrap();
    let host = String::from_utf8(rustc.stdout)
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .expect("rustc -vV names the host");
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--locked", "--offline"])
        .args(["--filter-platform", &host])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut checked = 0;
    let mut too_new = Vec::new();
    for p in meta["packages"].as_array().unwrap() {
        if let Some(v) = p["rust_version"].as_str() {
            checked += 1;
            if version_tuple(v) > ours {
                too_new.push(format!("{} {} needs {v}", p["name"], p["version"]));
            }
        }
    }
    assert!(
        checked > 10,
        "only {checked} packages declare a rust-version"
    );
    assert!(too_new.is_empty(), "{too_new:?}");
}

#[test]
fn readme_documents_install_with_the_minimum_rust() {
    let r = read("README.md");
    assert!(r.contains("cargo install --locked"));
    assert!(
        r.contains(&format!("Rust {} or newer", rust_version())),
        "the README names the rust-version of Cargo.toml"
    );
    assert!(Path::new(&root().join("Dockerfile")).exists());
}
