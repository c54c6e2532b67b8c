//! The composite Action (`action.yml`) run step by step, as the runner would, against fakes: a
//! release server on loopback (the archive and its SHA256SUMS), a build cache in a folder (for
//! `actions/cache/restore` and `save`), a `cargo` that records that it was asked to build, and a
//! `gh` that keeps pull-request comments in a folder and refuses writes with a read-only token. The
//! `run:` steps are the real scripts of action.yml, with their `env:` and `if:` evaluated by a small
//! interpreter of the expressions action.yml uses (a GitHub Actions runner and Docker, which `act`
//! needs, do not run here). Each scenario takes well under a second.

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn action() -> Value {
    let text = std::fs::read_to_string(root().join("action.yml")).unwrap();
    serde_saphyr::from_str(&text).unwrap()
}

// ------------------------------------------------------------------ expressions

/// A value of a GitHub Actions expression (the subset action.yml uses).
#[derive(Clone, Debug, PartialEq)]
enum Val {
    Null,
    Bool(bool),
    Str(String),
}

impl Val {
    fn text(&self) -> String {
        match self {
            Val::Null => String::new(),
            Val::Bool(b) => b.to_string(),
            Val::Str(s) => s.clone(),
        }
    }

    fn truthy(&self) -> bool {
        match self {
            Val::Null => false,
            Val::Bool(b) => *b,
            Val::Str(s) => !s.is_empty(),
        }
    }
}

/// Tokens: names (`steps.lint.outputs.exit-code`), 'strings', operators and parentheses.
fn tokens(expr: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = expr.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == '\'' {
            chars.next();
            let mut s = String::from("'");
            loop {
                match chars.next() {
                    Some('\'') if chars.peek() == Some(&'\'') => {
                        chars.next();
                        s.push('\'');
                    }
                    Some('\'') | None => break,
                    Some(c) => s.push(c),
                }
            }
            out.push(s);
        } else if "=!&|".contains(c) {
            let mut op = String::from(c);
            chars.next();
            if let Some(&n) = chars.peek()
                && "=&|".contains(n)
            {
                op.push(n);
                chars.next();
            }
            out.push(op);
        } else if "()".contains(c) {
            out.push(c.to_string());
            chars.next();
        } else {
            let mut name = String::new();
            while let Some(&c) = chars.peek() {
                if c.is_alphanumeric() || "._-[]*".contains(c) {
                    name.push(c);
                    chars.next();
                } else {
                    break;
                }
            }
            assert!(!name.is_empty(), "cannot read {expr:?} at {c:?}");
            out.push(name);
        }
    }
    out
}

/// Recursive descent over `||`, `&&`, `==`/`!=`, `!`, parentheses, `always()`/`success()`.
struct Parser<'a> {
    tokens: Vec<String>,
    at: usize,
    ctx: &'a Value,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&str> {
        self.tokens.get(self.at).map(String::as_str)
    }

    fn next(&mut self) -> String {
        self.at += 1;
        self.tokens[self.at - 1].clone()
    }

    fn or(&mut self) -> Val {
        let mut v = self.and();
        while self.peek() == Some("||") {
            self.next();
            let r = self.and();
            v = if v.truthy() { v } else { r };
        }
        v
    }

    fn and(&mut self) -> Val {
        let mut v = self.cmp();
        while self.peek() == Some("&&") {
            self.next();
            let r = self.cmp();
            v = if v.truthy() { r } else { v };
        }
        v
    }

    fn cmp(&mut self) -> Val {
        let l = self.unary();
        match self.peek() {
            Some("==") | Some("!=") => {
                let op = self.next();
                let r = self.unary();
                // String comparison ignores case, as GitHub's does.
                let eq = l.text().to_lowercase() == r.text().to_lowercase();
                Val::Bool(if op == "==" { eq } else { !eq })
            }
            _ => l,
        }
    }

    fn unary(&mut self) -> Val {
        if self.peek() == Some("!") {
            self.next();
            return Val::Bool(!self.unary().truthy());
        }
        if self.peek() == Some("(") {
            self.next();
            let v = self.or();
            assert_eq!(self.next(), ")");
            return v;
        }
        let t = self.next();
        if let Some(s) = t.strip_prefix('\'') {
            return Val::Str(s.to_string());
        }
        if self.peek() == Some("(") {
            self.next();
            assert_eq!(self.next(), ")", "functions take no arguments here");
            return match t.as_str() {
                "always" => Val::Bool(true),
                "success" => Val::Bool(!self.ctx["job"]["failed"].as_bool().unwrap_or(false)),
                "failure" => Val::Bool(self.ctx["job"]["failed"].as_bool().unwrap_or(false)),
                f => panic!("function {f} is not interpreted"),
            };
        }
        match t.as_str() {
            "true" => return Val::Bool(true),
            "false" => return Val::Bool(false),
            _ => {}
        }
        let mut v = self.ctx;
        for part in t.split('.') {
            v = &v[part];
        }
        match v {
            Value::Null => Val::Null,
            Value::Bool(b) => Val::Bool(*b),
            Value::String(s) => Val::Str(s.clone()),
            other => Val::Str(other.to_string()),
        }
    }
}

fn eval(expr: &str, ctx: &Value) -> Val {
    let mut p = Parser {
        tokens: tokens(expr),
        at: 0,
        ctx,
    };
    let v = p.or();
    assert_eq!(p.at, p.tokens.len(), "trailing tokens in {expr:?}");
    v
}

/// `${{ … }}` replaced by their values.
fn interpolate(text: &str, ctx: &Value) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("${{") {
        out.push_str(&rest[..i]);
        let end = rest[i..].find("}}").expect("closed expression") + i;
        out.push_str(&eval(&rest[i + 3..end], ctx).text());
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    out
}

/// A step's `if:`: without a status function it is `success() && (…)`, as on GitHub.
fn should_run(cond: Option<&str>, ctx: &Value) -> bool {
    let Some(cond) = cond else {
        return !ctx["job"]["failed"].as_bool().unwrap_or(false);
    };
    let expr = cond
        .trim()
        .strip_prefix("${{")
        .and_then(|c| c.strip_suffix("}}"))
        .unwrap_or(cond);
    let explicit = ["always()", "success()", "failure()", "cancelled()"]
        .iter()
        .any(|f| expr.contains(f));
    let expr = if explicit {
        expr.to_string()
    } else {
        format!("success() && ({expr})")
    };
    eval(&expr, ctx).truthy()
}

#[test]
fn expressions_are_read_as_github_reads_them() {
    let ctx = json!({
        "inputs": {"comment": "true", "out-dir": ""},
        "steps": {"lint": {"outputs": {"exit-code": "1"}}},
        "github": {"event_name": "pull_request"},
        "job": {"failed": true},
    });
    assert!(
        eval(
            "inputs.comment == 'true' && github.event_name == 'pull_request'",
            &ctx
        )
        .truthy()
    );
    assert!(!eval("inputs.out-dir != ''", &ctx).truthy());
    assert!(eval("steps.lint.outputs.exit-code == '1'", &ctx).truthy());
    assert!(eval("steps.nothing.outputs.x == ''", &ctx).truthy());
    assert!(eval("always() && !(inputs.comment == 'false')", &ctx).truthy());
    assert_eq!(interpolate("a-${{ inputs.comment }}-b", &ctx), "a-true-b");
    // After a failed step, only `always()` steps run.
    assert!(!should_run(Some("${{ inputs.comment == 'true' }}"), &ctx));
    assert!(should_run(Some("${{ always() }}"), &ctx));
    assert!(!should_run(None, &ctx));
}

// ------------------------------------------------------------------ fakes

/// A release server on loopback: serves the files of one folder at `/<path>`, 404 otherwise, and
/// stops after `max` requests or when the test ends. Returns its base URL.
fn serve(dir: PathBuf, max: usize) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().take(max) {
            let Ok(mut stream) = stream else { continue };
            stream
                .set_read_timeout(Some(Duration::from_secs(5)))
                .unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request = String::new();
            if reader.read_line(&mut request).is_err() {
                continue;
            }
            // The headers, up to the blank line.
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let path = request.split_whitespace().nth(1).unwrap_or("/");
            let file = dir.join(path.trim_start_matches('/'));
            let response = match std::fs::read(&file) {
                Ok(body) if file.starts_with(&dir) => {
                    let mut r = format!(
                        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        body.len()
                    )
                    .into_bytes();
                    r.extend(body);
                    r
                }
                _ => b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    .to_vec(),
            };
            let _ = stream.write_all(&response);
        }
    });
    url
}

fn write_exec(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// A `policyctl` that is the binary under test (what an archive or a build would hold).
fn policyctl_wrapper() -> String {
    format!(
        "#!/bin/sh\nexec '{}' \"$@\"\n",
        env!("CARGO_BIN_EXE_policyctl")
    )
}

/// The fake `gh`: comments of one pull request as files `<id>.body` in `$FAKE_GH`, every call in
/// `$FAKE_GH/calls`; with `FAKE_GH_READONLY=1` every write is refused as GitHub refuses a fork's
/// token.
const FAKE_GH: &str = r#"#!/usr/bin/env bash
set -euo pipefail
state=${FAKE_GH:?}
echo "$*" >> "$state/calls"
[ "${1:-}" = api ] || { echo "fake gh: only api" >&2; exit 2; }
shift
method=GET
if [ "${1:-}" = -X ]; then method=$2; shift 2; fi
path=$1; shift
body=""; jq=""
while [ $# -gt 0 ]; do
  case "$1" in
    -F) body=${2#body=@}; shift 2 ;;
    --jq) jq=$2; shift 2 ;;
    *) shift ;;
  esac
done
if [ "$method" != GET ] && [ "${FAKE_GH_READONLY:-}" = 1 ]; then
  echo "HTTP 403: Resource not accessible by integration" >&2
  exit 1
fi
case "$method $path" in
  "GET repos/"*"/comments")
    marker=${jq#*startswith(\"}; marker=${marker%%\")*}
    for f in "$state"/*.body; do
      [ -e "$f" ] || continue
      head=$(head -c "${#marker}" "$f")
      if [ "$head" = "$marker" ]; then basename "$f" .body; fi
    done ;;
  "PATCH repos/"*"/issues/comments/"*)
    id=${path##*/}
    [ -e "$state/$id.body" ] || { echo "HTTP 404" >&2; exit 1; }
    cp "$body" "$state/$id.body" ;;
  "POST repos/"*"/comments")
    n=$(ls "$state" | grep -c '\.body$' || true)
    cp "$body" "$state/$((1001 + n)).body" ;;
  *) echo "fake gh: $method $path" >&2; exit 2 ;;
esac
"#;

/// The fake `cargo`: records the build and leaves a `policyctl` in the target folder.
fn fake_cargo(calls: &Path) -> String {
    format!(
        "#!/usr/bin/env bash\nset -euo pipefail\necho \"$*\" >> '{}'\nmkdir -p \"$CARGO_TARGET_DIR/release\"\ncat > \"$CARGO_TARGET_DIR/release/policyctl\" <<'EOF'\n{}EOF\nchmod +x \"$CARGO_TARGET_DIR/release/policyctl\"\n",
        calls.display(),
        policyctl_wrapper()
    )
}

// ------------------------------------------------------------------ the runner

/// What a job is given: the event and where things are.
struct Job<'a> {
    workspace: &'a Path,
    runner_temp: &'a Path,
    /// `actions/cache` storage, shared between runs: `<key>/` folders.
    cache: &'a Path,
    fakes: &'a Path,
    server: &'a str,
    inputs: Value,
    github: Value,
    env: Vec<(&'a str, String)>,
}

/// What a run did: each step's name and outcome (`success`, `failure`, `skipped`), its log, the
/// outputs, and how long each step took.
#[derive(Debug)]
struct Run {
    steps: Vec<(String, &'static str, Duration)>,
    log: String,
    outputs: Value,
    uploads: Vec<String>,
}

impl Run {
    fn outcome(&self, name: &str) -> &'static str {
        self.steps
            .iter()
            .find(|s| s.0 == name)
            .unwrap_or_else(|| panic!("no step {name}: {self:?}"))
            .1
    }

    fn green(&self) -> bool {
        self.steps.iter().all(|s| s.1 != "failure")
    }
}

/// The `key=value` and `key<<DELIM` lines of a `$GITHUB_OUTPUT` file.
fn outputs_of(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut lines = text.lines();
    while let Some(l) = lines.next() {
        if let Some((k, delim)) = l.split_once("<<") {
            let mut v = Vec::new();
            for l in lines.by_ref() {
                if l == delim {
                    break;
                }
                v.push(l);
            }
            out.insert(k.to_string(), v.join("\n"));
        } else if let Some((k, v)) = l.split_once('=') {
            out.insert(k.to_string(), v.to_string());
        }
    }
    out
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

/// Run every step of action.yml for `job`.
fn run(job: &Job) -> Run {
    let action = action();
    let mut inputs = serde_json::Map::new();
    let base = json!({"github": job.github, "runner": {"temp": job.runner_temp}});
    for (name, spec) in action["inputs"].as_object().unwrap() {
        let v = match job.inputs.get(name) {
            Some(v) => v.as_str().unwrap().to_string(),
            None => interpolate(spec["default"].as_str().unwrap_or(""), &base),
        };
        inputs.insert(name.clone(), Value::String(v));
    }
    let mut ctx = json!({
        "inputs": inputs,
        "github": job.github,
        "runner": {"temp": job.runner_temp},
        "steps": {},
        "job": {"failed": false},
    });
    let mut path_entries: Vec<String> = Vec::new();
    let mut result = Run {
        steps: Vec::new(),
        log: String::new(),
        outputs: json!({}),
        uploads: Vec::new(),
    };
    for (i, step) in action["runs"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        let name = step["name"].as_str().unwrap().to_string();
        if !should_run(step["if"].as_str(), &ctx) {
            result.steps.push((name, "skipped", Duration::ZERO));
            continue;
        }
        let started = Instant::now();
        let mut outputs = BTreeMap::new();
        let ok = if let Some(script) = step["run"].as_str() {
            let dir = job.runner_temp.join(format!("step-{i}"));
            std::fs::create_dir_all(&dir).unwrap();
            let (out_file, path_file) = (dir.join("output"), dir.join("path"));
            std::fs::write(&out_file, "").unwrap();
            std::fs::write(&path_file, "").unwrap();
            std::fs::write(dir.join("script.sh"), script).unwrap();
            let mut path = vec![job.fakes.display().to_string()];
            path.extend(path_entries.iter().rev().cloned());
            path.push(std::env::var("PATH").unwrap_or_default());
            let mut c = crate::common::scrub_std(Command::new("bash"));
            c.args(["--noprofile", "--norc", "-eo", "pipefail"])
                .arg(dir.join("script.sh"))
                .current_dir(job.workspace)
                .env("PATH", path.join(":"))
                .env("RUNNER_TEMP", job.runner_temp)
                .env("RUNNER_OS", "Linux")
                .env("RUNNER_ARCH", "X64")
                .env("GITHUB_OUTPUT", &out_file)
                .env("GITHUB_PATH", &path_file)
                .env("GITHUB_WORKSPACE", job.workspace)
                .env("GITHUB_SERVER_URL", job.server)
                .env("GITHUB_ACTIONS", "true")
                .env("NO_COLOR", "1");
            for (k, v) in &job.env {
                c.env(k, v);
            }
            if let Some(env) = step["env"].as_object() {
                for (k, v) in env {
                    c.env(k, interpolate(v.as_str().unwrap_or(""), &ctx));
                }
            }
            let out = c.output().unwrap();
            result.log.push_str(&format!(
                "== {name}\n{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ));
            outputs = outputs_of(&std::fs::read_to_string(&out_file).unwrap());
            for l in std::fs::read_to_string(&path_file).unwrap().lines() {
                path_entries.push(l.to_string());
            }
            out.status.success()
        } else {
            let uses = step["uses"].as_str().unwrap();
            let with = |k: &str| interpolate(step["with"][k].as_str().unwrap_or(""), &ctx);
            let action = uses.split('@').next().unwrap();
            match action {
                "actions/cache/restore" => {
                    let (path, key) = (PathBuf::from(with("path")), with("key"));
                    let prefixes = with("restore-keys");
                    let exact = job.cache.join(&key);
                    let matched = if exact.exists() {
                        Some(exact)
                    } else {
                        let mut entries: Vec<PathBuf> = std::fs::read_dir(job.cache)
                            .unwrap()
                            .map(|e| e.unwrap().path())
                            .filter(|p| {
                                prefixes.lines().any(|pre| {
                                    !pre.is_empty()
                                        && p.file_name().unwrap().to_string_lossy().starts_with(pre)
                                })
                            })
                            .collect();
                        entries.sort();
                        entries.pop()
                    };
                    if let Some(m) = &matched {
                        copy_tree(m, &path);
                        outputs.insert(
                            "cache-matched-key".into(),
                            m.file_name().unwrap().to_string_lossy().into_owned(),
                        );
                    }
                    outputs.insert(
                        "cache-hit".into(),
                        (matched.as_deref() == Some(&job.cache.join(&key))).to_string(),
                    );
                    result
                        .log
                        .push_str(&format!("== {name}\nrestored {matched:?}\n"));
                    true
                }
                "actions/cache/save" => {
                    let (path, key) = (PathBuf::from(with("path")), with("key"));
                    if !job.cache.join(&key).exists() {
                        copy_tree(&path, &job.cache.join(&key));
                    }
                    true
                }
                "github/codeql-action/upload-sarif" => {
                    let file = job.workspace.join(with("sarif_file"));
                    // The upload needs `security-events: write`, which a fork's token lacks.
                    let readonly = job
                        .env
                        .iter()
                        .any(|(k, v)| *k == "FAKE_GH_READONLY" && v == "1");
                    result.uploads.push(std::fs::read_to_string(&file).unwrap());
                    !readonly
                }
                other => panic!("no fake for {other}"),
            }
        };
        let elapsed = started.elapsed();
        if let Some(id) = step["id"].as_str() {
            ctx["steps"][id] = json!({"outputs": outputs});
        }
        if !ok {
            ctx["job"]["failed"] = Value::Bool(true);
        }
        result
            .steps
            .push((name, if ok { "success" } else { "failure" }, elapsed));
    }
    for (name, spec) in action["outputs"].as_object().unwrap() {
        result.outputs[name] = Value::String(interpolate(spec["value"].as_str().unwrap(), &ctx));
    }
    result
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A checkout of a pull request: `origin` has `main` with the example estate in `manifests/`; the
/// workspace has `main` checked out, then `head` (a folder of manifests) copied over it.
fn checkout(at: &Path, head: &str) -> PathBuf {
    let origin = at.join("origin");
    std::fs::create_dir_all(origin.join("manifests")).unwrap();
    copy_tree(&root().join("testdata/examples"), &origin.join("manifests"));
    git(&origin, &["init", "-q", "-b", "main"]);
    git(&origin, &["add", "-A"]);
    git(&origin, &["commit", "-qm", "base"]);
    let ws = at.join("workspace");
    git(at, &["clone", "-q", origin.to_str().unwrap(), "workspace"]);
    set_head(&ws, head);
    ws
}

/// The pull request's manifests become `head`.
fn set_head(ws: &Path, head: &str) {
    std::fs::remove_dir_all(ws.join("manifests")).unwrap();
    copy_tree(&root().join(head), &ws.join("manifests"));
}

/// A pull request event from `head_repo` into acme/kuadrant-config.
fn pull_request(head_repo: &str) -> Value {
    json!({
        "action_path": root(),
        "action_repository": "acme/policyctl",
        "action_ref": format!("v{}", env!("CARGO_PKG_VERSION")),
        "event_name": "pull_request",
        "event": {"number": 7, "pull_request": {"head": {"repo": {"full_name": head_repo}}}},
        "repository": "acme/kuadrant-config",
        "base_ref": "main",
        "actor": "someone",
        "token": "ghs_fake",
    })
}

/// A folder with the fake `gh` and `cargo`, and the state they keep.
fn fakes(at: &Path) -> (PathBuf, PathBuf) {
    let bin = at.join("fakes");
    let state = at.join("gh-state");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&state).unwrap();
    write_exec(&bin.join("gh"), FAKE_GH);
    write_exec(&bin.join("cargo"), &fake_cargo(&at.join("cargo-calls")));
    (bin, state)
}

/// A release of this version on the fake server: the archive (a `policyctl` and the LICENSE) and
/// SHA256SUMS; `tamper` writes a wrong sum.
fn release(at: &Path, tamper: bool) -> PathBuf {
    let tag = format!("v{}", env!("CARGO_PKG_VERSION"));
    let site = at.join("site");
    let dir = site.join("acme/policyctl/releases/download").join(&tag);
    std::fs::create_dir_all(&dir).unwrap();
    let stage = at.join("stage");
    std::fs::create_dir_all(&stage).unwrap();
    write_exec(&stage.join("policyctl"), &policyctl_wrapper());
    std::fs::copy(root().join("LICENSE"), stage.join("LICENSE")).unwrap();
    let asset = format!("policyctl-{tag}-x86_64-unknown-linux-gnu.tar.gz");
    let out = Command::new("tar")
        .args(["-czf"])
        .arg(dir.join(&asset))
        .args(["-C"])
        .arg(&stage)
        .args(["policyctl", "LICENSE"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let sum = Command::new("sha256sum")
        .arg(&asset)
        .current_dir(&dir)
        .output()
        .unwrap();
    let mut sums = String::from_utf8(sum.stdout).unwrap();
    if tamper {
        sums = format!("{}{}", "0".repeat(64), &sums[64..]);
    }
    std::fs::write(dir.join("SHA256SUMS"), sums).unwrap();
    site
}

fn calls(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

fn comments(state: &Path) -> BTreeMap<String, String> {
    std::fs::read_dir(state)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "body"))
        .map(|p| {
            (
                p.file_stem().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect()
}

// ------------------------------------------------------------------ scenarios

/// A pull request, pushed twice: the Action downloads the release archive of its own tag (checked
/// against SHA256SUMS, no build), uploads the SARIF, and keeps one impact comment, created on the
/// first push and updated in place on the second. Each run takes seconds, not the minutes of a
/// build.
#[test]
fn a_pull_request_gets_the_release_binary_and_one_comment_updated_in_place() {
    let tmp = tempfile::tempdir().unwrap();
    let at = tmp.path();
    let site = release(at, false);
    let server = serve(site, 16);
    let ws = checkout(at, "testdata/diff/pr-head");
    let (bin, state) = fakes(at);
    let cache = at.join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    let mut comment_ids = Vec::new();
    for push in 0..2 {
        let temp = at.join(format!("runner-temp-{push}"));
        std::fs::create_dir_all(&temp).unwrap();
        if push == 1 {
            // The second push changes the pull request again: the limit goes from 20 to 30.
            let f = ws.join("manifests/20-toystore.yaml");
            let text = std::fs::read_to_string(&f)
                .unwrap()
                .replace("limit: 20", "limit: 30");
            std::fs::write(&f, text).unwrap();
        }
        let job = Job {
            workspace: &ws,
            runner_temp: &temp,
            cache: &cache,
            fakes: &bin,
            server: &server,
            inputs: json!({"manifests": "manifests/"}),
            github: pull_request("acme/kuadrant-config"),
            env: vec![("FAKE_GH", state.display().to_string())],
        };
        let started = Instant::now();
        let r = run(&job);
        let took = started.elapsed();
        assert!(r.green(), "{}\n{:?}", r.log, r.steps);
        assert_eq!(r.outputs["policyctl-source"], "release", "{}", r.log);
        assert_eq!(r.outcome("Build policyctl"), "skipped");
        assert!(calls(&at.join("cargo-calls")).is_empty(), "no build");
        assert!(r.log.contains("sha256 checked"), "{}", r.log);
        assert!(took < Duration::from_secs(20), "{took:?}");
        assert_eq!(r.outcome("Upload findings to code scanning"), "success");
        assert_eq!(r.uploads.len(), 1);
        let c = comments(&state);
        assert_eq!(c.len(), 1, "one comment: {c:?}\n{}", r.log);
        let (id, body) = c.into_iter().next().unwrap();
        assert!(
            body.starts_with("<!-- policyctl impact: manifests/ -->\n"),
            "{body}"
        );
        let new_limit = if push == 0 { "20" } else { "30" };
        assert!(body.contains(new_limit), "push {push}: {body}");
        comment_ids.push(id);
    }
    assert_eq!(comment_ids[0], comment_ids[1], "updated in place");
    let writes: Vec<String> = calls(&state.join("calls"))
        .into_iter()
        .filter(|c| c.contains("-X "))
        .collect();
    assert_eq!(writes.len(), 2, "{writes:?}");
    assert!(
        writes[0].contains("-X POST") && writes[1].contains("-X PATCH"),
        "{writes:?}"
    );
}

/// A checksum that does not match stops the job: the archive is neither used nor replaced by a
/// build.
#[test]
fn a_release_archive_with_a_wrong_checksum_fails_the_job() {
    let tmp = tempfile::tempdir().unwrap();
    let at = tmp.path();
    let server = serve(release(at, true), 8);
    let ws = checkout(at, "testdata/examples");
    let (bin, state) = fakes(at);
    let cache = at.join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    let temp = at.join("runner-temp");
    std::fs::create_dir_all(&temp).unwrap();
    let job = Job {
        workspace: &ws,
        runner_temp: &temp,
        cache: &cache,
        fakes: &bin,
        server: &server,
        inputs: json!({"manifests": "manifests/"}),
        github: pull_request("acme/kuadrant-config"),
        env: vec![("FAKE_GH", state.display().to_string())],
    };
    let r = run(&job);
    assert_eq!(r.outcome("Locate policyctl"), "failure", "{}", r.log);
    assert!(r.log.contains("FAILED"), "sha256sum reports it: {}", r.log);
    assert_eq!(r.outcome("Build policyctl"), "skipped");
    assert_eq!(r.outcome("Lint"), "skipped");
    assert!(calls(&at.join("cargo-calls")).is_empty());
}

/// Used at a commit that is no release (or with no archive for it): the Action builds from its
/// sources once, caches the binary keyed on Cargo.lock and the sources, and the second run takes it
/// from the cache without building.
#[test]
fn without_a_release_the_build_is_cached_and_the_second_run_does_not_build() {
    let tmp = tempfile::tempdir().unwrap();
    let at = tmp.path();
    let server = serve(at.join("empty-site"), 8);
    let ws = checkout(at, "testdata/examples");
    let (bin, state) = fakes(at);
    let cache = at.join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    let mut github = pull_request("acme/kuadrant-config");
    github["action_ref"] = json!("main");
    github["event_name"] = json!("push");
    for push in 0..2 {
        let temp = at.join(format!("runner-temp-{push}"));
        std::fs::create_dir_all(&temp).unwrap();
        let job = Job {
            workspace: &ws,
            runner_temp: &temp,
            cache: &cache,
            fakes: &bin,
            server: &server,
            inputs: json!({"manifests": "manifests/", "out-dir": ""}),
            github: github.clone(),
            env: vec![("FAKE_GH", state.display().to_string())],
        };
        let r = run(&job);
        assert!(r.green(), "{}\n{:?}", r.log, r.steps);
        assert_eq!(r.outputs["policyctl-source"], "build");
        let builds = calls(&at.join("cargo-calls"));
        assert_eq!(builds.len(), 1, "built once, on the first run: {builds:?}");
        assert!(builds[0].contains("build --release --locked"), "{builds:?}");
        if push == 0 {
            assert_eq!(r.outcome("Save the policyctl build"), "success");
        } else {
            assert!(
                r.log.contains("policyctl from the build cache"),
                "{}",
                r.log
            );
            assert_eq!(r.outcome("Save the policyctl build"), "skipped");
        }
        assert_eq!(
            r.outcome("Comment the impact on the pull request"),
            "skipped"
        );
    }
    let keys: Vec<String> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(keys.len(), 1, "{keys:?}");
    assert!(
        keys[0].starts_with("policyctl-build-Linux-X64-"),
        "{keys:?}"
    );
}

/// A pull request from a fork runs with a read-only token: the SARIF upload and the comment are
/// skipped with a notice, nothing is written, and the job is green.
#[test]
fn a_fork_pull_request_finishes_green_without_comment_rights() {
    let tmp = tempfile::tempdir().unwrap();
    let at = tmp.path();
    let server = serve(release(at, false), 8);
    let ws = checkout(at, "testdata/diff/pr-head");
    let (bin, state) = fakes(at);
    let cache = at.join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    let temp = at.join("runner-temp");
    std::fs::create_dir_all(&temp).unwrap();
    let job = Job {
        workspace: &ws,
        runner_temp: &temp,
        cache: &cache,
        fakes: &bin,
        server: &server,
        inputs: json!({"manifests": "manifests/"}),
        github: pull_request("someone/kuadrant-config"),
        env: vec![
            ("FAKE_GH", state.display().to_string()),
            ("FAKE_GH_READONLY", "1".to_string()),
        ],
    };
    let r = run(&job);
    assert!(r.green(), "{}\n{:?}", r.log, r.steps);
    assert!(
        r.log.contains(
            "::notice::pull request from someone/kuadrant-config: the token is read-only"
        ),
        "{}",
        r.log
    );
    assert_eq!(r.outcome("Upload findings to code scanning"), "skipped");
    assert_eq!(
        r.outcome("Comment the impact on the pull request"),
        "skipped"
    );
    assert_eq!(r.outcome("Lint"), "success");
    assert!(r.uploads.is_empty());
    assert!(comments(&state).is_empty());
    assert!(calls(&state.join("calls")).is_empty(), "gh is not called");
    // The same job without the check would have failed on the first write.
    let out = Command::new(bin.join("gh"))
        .args([
            "api",
            "-X",
            "POST",
            "repos/a/b/issues/7/comments",
            "-F",
            "body=@/dev/null",
        ])
        .env("FAKE_GH", &state)
        .env("FAKE_GH_READONLY", "1")
        .output()
        .unwrap();
    assert!(!out.status.success());
}

/// Every `uses:` is pinned to a full commit digest, with the tag in a comment.
#[test]
fn every_action_used_is_pinned_by_digest() {
    let text = std::fs::read_to_string(root().join("action.yml")).unwrap();
    let mut n = 0;
    for line in text.lines().filter(|l| l.trim_start().starts_with("uses:")) {
        let spec = line.split("uses:").nth(1).unwrap().trim();
        let (name, rest) = spec.split_once('@').unwrap_or_else(|| panic!("{line}"));
        let (sha, comment) = rest
            .split_once(" # ")
            .unwrap_or_else(|| panic!("{line}: no tag comment"));
        assert!(
            sha.len() == 40
                && sha
                    .chars()
                    .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()),
            "{name} is not pinned by a commit digest: {line}"
        );
        assert!(comment.starts_with('v'), "{line}");
        n += 1;
    }
    assert_eq!(n, 3, "cache restore, cache save, upload-sarif");
}
