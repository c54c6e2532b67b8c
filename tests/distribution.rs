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

/// `.krew.yaml` rendered as krew-release-bot renders it (rajatjindal/krew-release-bot v0.0.51
/// pkg/source/template.go: a Go text/template over `ReleaseRequest` with `TagName`, `PluginOwner`,
/// `PluginRepo`; `addURIAndSha URL TAG` writes `uri: URL` and, on the next line after four spaces,
/// `sha256: SUM`; `indent N` moves that line to N spaces), for the template constructs the file uses.
fn render_krew(template: &str, owner: &str, repo: &str, tag: &str, sha: &str) -> String {
    let fields = [
        (".TagName", tag),
        (".PluginOwner", owner),
        (".PluginRepo", repo),
    ];
    let mut out = String::new();
    for line in template.lines() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        if let Some(call) = trimmed.strip_prefix("{{ addURIAndSha (printf \"") {
            let (format, rest) = call.split_once('"').unwrap();
            let (args, rest) = rest.split_once(')').unwrap();
            let mut uri = format.to_string();
            for arg in args.split_whitespace() {
                let value = fields.iter().find(|(k, _)| *k == arg).unwrap().1;
                uri = uri.replacen("%s", value, 1);
            }
            let pad: usize = rest
                .split("| indent ")
                .nth(1)
                .and_then(|r| r.trim_end_matches(" }}").trim().parse().ok())
                .expect("the sha256 line is indented with `| indent N`");
            out.push_str(&format!(
                "{indent}uri: {uri}\n{}sha256: {sha}\n",
                " ".repeat(pad)
            ));
            continue;
        }
        let mut l = line.to_string();
        for (k, v) in fields {
            l = l.replace(&format!("{{{{ {k} }}}}"), v);
        }
        out.push_str(&l);
        out.push('\n');
    }
    out
}

#[test]
fn krew_manifest_renders_to_a_valid_plugin() {
    let template = read(".krew.yaml");
    assert!(
        !template.contains("OWNER"),
        "no placeholder owner: the release names itself"
    );
    let tag = "v0.1.0";
    let sha = "ab".repeat(32);
    let rendered = render_krew(&template, "acme", "policyctl", tag, &sha);
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
        let target = match (labels["os"].as_str(), labels["arch"].as_str()) {
            (Some("linux"), Some("amd64")) => "x86_64-unknown-linux-gnu",
            (Some("linux"), Some("arm64")) => "aarch64-unknown-linux-gnu",
            (Some("darwin"), Some("amd64")) => "x86_64-apple-darwin",
            (Some("darwin"), Some("arm64")) => "aarch64-apple-darwin",
            other => panic!("{other:?}"),
        };
        // The archive the release workflow attaches (and the Action downloads).
        assert_eq!(
            uri,
            format!(
                "https://github.com/acme/policyctl/releases/download/{tag}/policyctl-{tag}-{target}.tar.gz"
            )
        );
        assert_eq!(p["sha256"].as_str().unwrap(), sha);
        assert_eq!(p["bin"], "policyctl");
        for file in ["policyctl", "LICENSE"] {
            assert!(
                p["files"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|f| f["from"] == file),
                "the archive's {file} is installed (krew-index wants the licence)"
            );
        }
    }
    let want: BTreeSet<String> = ["linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(seen, want);
    assert_eq!(
        plugin["spec"]["homepage"],
        "https://github.com/acme/policyctl"
    );
}

/// The release workflow: built on a tag, every action pinned by digest, the archive names the
/// Action and the krew manifest download (with LICENSE inside), SHA256SUMS beside them; its
/// packaging commands, run here on a stand-in build, make an archive holding policyctl, LICENSE
/// and README.md that the Action's check (`sha256sum -c` of its SHA256SUMS line) accepts.
#[test]
fn release_workflow_packages_checksummed_archives_with_the_licence() {
    let text = read(".github/workflows/release.yml");
    let wf = yaml(&text, "release.yml");
    assert!(
        wf["on"]["push"]["tags"][0]
            .as_str()
            .unwrap()
            .starts_with('v')
    );
    let mut pins = 0;
    for line in text
        .lines()
        .filter(|l| l.trim_start().starts_with("- uses:") || l.trim_start().starts_with("uses:"))
    {
        let spec = line.split("uses:").nth(1).unwrap().trim();
        let (_, rest) = spec.split_once('@').unwrap();
        let sha = rest.split(' ').next().unwrap();
        assert!(
            sha.len() == 40 && sha.chars().all(|c| c.is_ascii_hexdigit()),
            "{line}"
        );
        assert!(rest.contains(" # v"), "{line}");
        pins += 1;
    }
    assert!(pins >= 5, "{pins}");
    let targets: BTreeSet<String> = wf["jobs"]["build"]["strategy"]["matrix"]["include"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["target"].as_str().unwrap().to_string())
        .collect();
    let krew = read(".krew.yaml");
    let action = read("action.yml");
    for t in &targets {
        assert!(krew.contains(&format!("-{t}.tar.gz")), "krew names {t}");
        assert!(
            action.contains(&format!("target={t}")),
            "the Action downloads {t}"
        );
    }
    assert_eq!(targets.len(), 4);
    // The packaging lines of the build step, run on a stand-in build.
    let script = wf["jobs"]["build"]["steps"][1]["run"].as_str().unwrap();
    let package = &script[script.find("stage=$(mktemp -d)").unwrap()..];
    bash_parses(script, "release build step");
    let dir = tempfile::tempdir().unwrap();
    let target = "x86_64-unknown-linux-gnu";
    let built = dir.path().join("target").join(target).join("release");
    std::fs::create_dir_all(&built).unwrap();
    // A stand-in for the release binary (compressing the debug build would take seconds).
    std::fs::write(built.join("policyctl"), "#!/bin/sh\necho policyctl\n").unwrap();
    for f in ["LICENSE", "README.md"] {
        std::fs::copy(root().join(f), dir.path().join(f)).unwrap();
    }
    let out = Command::new("bash")
        .args(["-eo", "pipefail", "-c", package])
        .current_dir(dir.path())
        .env("TARGET", target)
        .env("TAG", "v9.9.9")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let asset = format!("policyctl-v9.9.9-{target}.tar.gz");
    let list = Command::new("tar")
        .args(["-tzf", &asset])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let mut names: Vec<String> = String::from_utf8(list.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    names.sort();
    assert_eq!(names, ["LICENSE", "README.md", "policyctl"]);
    // The publish job's checksum line, checked the way the Action checks it.
    let sums = Command::new("bash")
        .args(["-c", "sha256sum policyctl-*.tar.gz > SHA256SUMS && grep -E \"^[0-9a-f]{64}  $0\\$\" SHA256SUMS | sha256sum -c -"])
        .arg(&asset)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        sums.status.success(),
        "{}",
        String::from_utf8_lossy(&sums.stderr)
    );
    assert!(text.contains("sha256sum policyctl-*.tar.gz > SHA256SUMS"));
    // The licence is the Apache License 2.0 that Cargo.toml declares.
    assert!(read("Cargo.toml").contains("license = \"Apache-2.0\""));
    let licence = read("LICENSE");
    assert!(licence.contains("Apache License\n                        Version 2.0, January 2004"));
    assert!(licence.contains("END OF TERMS AND CONDITIONS"));
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
    // Base images pinned by digest.
    for from in &froms {
        let image = from.split_whitespace().nth(1).unwrap();
        let digest = image.split_once("@sha256:").map(|(_, d)| d).unwrap_or("");
        assert!(
            digest.len() == 64 && digest.chars().all(|c| c.is_ascii_hexdigit()),
            "{from} is not pinned by digest"
        );
    }
    // A dependency layer: the manifests, then a build of the dependencies, before the sources.
    let build = &text[..text.rfind("\nFROM ").unwrap()];
    let manifests = build
        .find("COPY Cargo.toml Cargo.lock ./")
        .expect("the manifests first");
    let deps = build[manifests..]
        .find("cargo build")
        .expect("a dependency build")
        + manifests;
    let sources = build.find("COPY src ./src").expect("then the sources");
    assert!(manifests < deps && deps < sources, "{build}");
    assert!(build[sources..].contains("cargo build --release --locked --bin policyctl"));
    // The stand-ins cover every target file Cargo.toml names (cargo reads them all).
    let stubs = &build[deps - 400.min(deps)..deps];
    for line in read("Cargo.toml").lines() {
        if let Some(path) = line
            .strip_prefix("path = \"")
            .and_then(|p| p.strip_suffix('"'))
            && path != "src/lib.rs"
            && path != "src/main.rs"
        {
            assert!(
                stubs.contains(path),
                "the dependency layer lacks a stand-in for {path}"
            );
        }
    }
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
