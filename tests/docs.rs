//! The README, the user docs under `docs/` and the CHANGELOG stay in step with the code: every
//! `console` example is run, every relative link resolves, the diagnostics reference is generated.

use crate::common;
use policyctl::diag::Code;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn readme() -> String {
    read("README.md")
}

/// The pages whose `console` examples are run, in reading order: an example may read what an
/// earlier one wrote (`--out-dir generated/`). Every page with a `console` block must be here
/// (`every_page_with_examples_is_run`).
const PAGES: &[&str] = &[
    "README.md",
    "docs/install.md",
    "docs/guide/compute.md",
    "docs/guide/graph.md",
    "docs/guide/status.md",
    "docs/guide/explain.md",
    "docs/guide/lint.md",
    "docs/guide/diff.md",
    "docs/guide/simulate.md",
    "docs/guide/test.md",
    "docs/guide/watch.md",
    "docs/guide/audit.md",
    "docs/ci.md",
    "docs/kuadrant-guide.md",
    "docs/input.md",
    "docs/settings.md",
    "docs/extensions.md",
    "docs/fidelity.md",
    "docs/output-conventions.md",
    "docs/performance.md",
];

/// Every Markdown file of the repository's documentation: README.md and `docs/**/*.md`.
fn markdown_files() -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    let mut files = vec![root().join("README.md")];
    walk(&root().join("docs"), &mut files);
    let mut rel: Vec<String> = files
        .iter()
        .map(|p| {
            p.strip_prefix(root())
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect();
    rel.sort();
    rel
}

/// The index table at the top of `docs/diagnostics.md`: one row per code, linked to its heading.
fn expected_table() -> String {
    let mut t = String::from("| code | severity | meaning |\n|---|---|---|\n");
    for c in Code::ALL {
        t.push_str(&format!(
            "| [`{}`](#{}) | {} | {} |\n",
            c.as_str(),
            c.as_str().to_lowercase(),
            c.severity().as_str(),
            c.description()
        ));
    }
    t
}

/// `docs/diagnostics.md` as the code describes it: a heading per code (the anchor `-o sarif` links
/// each rule to, `#pctl1001`), its severity, whether it can be silenced and what it means.
fn expected_diagnostics_doc() -> String {
    let mut t = String::from(
        "# Diagnostic codes\n\n\
         Every finding policyctl reports carries one of these codes, stable from release to release. \
         `lint -o sarif` (and `--diagnostics-format sarif`) links each rule to its heading here \
         (`helpUri`). [Suppressions](settings.md#suppressions) says how a finding is silenced and \
         [Exit codes](ci.md#exit-codes) what the exit code means.\n\n\
         Codes are stable and grouped by family: `PCTL1xxx` input and schema, `PCTL2xxx` references \
         and attachment, `PCTL3xxx` merge and enforcement, `PCTL4xxx` configuration and versions, \
         `PCTL5xxx` simulation and test cases, `PCTL6xxx` audit findings (`policyctl audit` only).\n\n\
         <!-- Generated from src/diag/code.rs: UPDATE_EXPECT=1 cargo test --test tests docs:: -->\n\n",
    );
    t.push_str(&expected_table());
    for c in Code::ALL {
        let severity = c.severity().as_str();
        let exit = if c.is_trouble() {
            "; the run stops with exit code 2"
        } else {
            ""
        };
        let silence = if c.can_be_suppressed() {
            "can be silenced with a reason"
        } else {
            "cannot be silenced"
        };
        t.push_str(&format!(
            "\n## {}\n\n{} ({severity}{exit}; {silence})\n",
            c.as_str(),
            upper_first(c.description()),
        ));
    }
    t
}

fn upper_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

#[test]
fn diagnostics_doc_has_a_heading_per_code() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/diagnostics.md");
    if std::env::var_os("UPDATE_EXPECT").is_some() && std::env::var_os("CI").is_none() {
        std::fs::write(path, expected_diagnostics_doc()).unwrap();
        return;
    }
    let doc = std::fs::read_to_string(path).unwrap_or_default();
    assert_eq!(
        doc,
        expected_diagnostics_doc(),
        "docs/diagnostics.md is stale: run UPDATE_EXPECT=1 cargo test --test tests docs::"
    );
    // Every rule's helpUri ends with the anchor of a heading of this page.
    for c in Code::ALL {
        let uri = policyctl::render::diagnostics::help_uri(*c);
        let (page, anchor) = uri.rsplit_once('#').unwrap();
        assert!(page.ends_with("docs/diagnostics.md"), "{uri}");
        assert!(
            doc.contains(&format!("\n## {}\n", anchor.to_uppercase())),
            "{uri}"
        );
    }
}

#[test]
fn changelog_has_unreleased_section() {
    let c = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/CHANGELOG.md")).unwrap();
    assert!(c.contains("## [Unreleased]"));
}

/// One `$ policyctl …` line of a ```console block, with the output shown under it and the exit code
/// a following `$ echo $?` gives (0 when none is shown).
#[derive(Debug)]
struct Example {
    page: &'static str,
    line: usize,
    command: String,
    output: Vec<String>,
    code: i32,
}

fn console_examples(page: &'static str, text: &str) -> Vec<Example> {
    let mut examples: Vec<Example> = Vec::new();
    let mut in_console = false;
    let mut expect_code = false;
    for (i, line) in text.lines().enumerate() {
        if !in_console {
            in_console = line.trim_end() == "```console";
            continue;
        }
        if line.trim_end() == "```" {
            in_console = false;
            expect_code = false;
            continue;
        }
        if let Some(cmd) = line.strip_prefix("$ ") {
            if cmd.trim() == "echo $?" {
                expect_code = true;
                continue;
            }
            assert!(
                cmd.starts_with("policyctl "),
                "{page}:{}: console examples run policyctl only: {cmd}",
                i + 1
            );
            examples.push(Example {
                page,
                line: i + 1,
                command: cmd.to_string(),
                output: Vec::new(),
                code: 0,
            });
            continue;
        }
        let Some(last) = examples.last_mut() else {
            panic!("{page}:{}: output before any command", i + 1);
        };
        if expect_code {
            last.code = line
                .trim()
                .parse()
                .unwrap_or_else(|_| panic!("{page}:{}: not an exit code: {line}", i + 1));
            expect_code = false;
        } else {
            last.output.push(line.trim_end().to_string());
        }
    }
    examples
}

/// Copy the testdata folders the examples name into `dir`, so commands that write (`--out-dir`)
/// never touch the repository.
fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn every_page_with_examples_is_run() {
    for page in markdown_files() {
        let has = read(&page).lines().any(|l| l.trim_end() == "```console");
        assert!(
            !has || PAGES.contains(&page.as_str()),
            "{page} has console examples: add it to PAGES in tests/docs.rs"
        );
    }
    for page in PAGES {
        assert!(
            root().join(page).is_file(),
            "PAGES names {page}, which is gone"
        );
    }
}

#[test]
fn console_examples_run_as_shown() {
    let examples: Vec<Example> = PAGES
        .iter()
        .flat_map(|page| console_examples(page, &read(page)))
        .collect();
    assert!(
        examples.len() >= 30,
        "found only {} examples",
        examples.len()
    );
    assert!(
        examples.iter().filter(|e| e.page == "README.md").count() >= 5,
        "the README's tour lost its examples"
    );
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let work = tempfile::tempdir().unwrap();
    for ex in &examples {
        for word in ex.command.split_whitespace() {
            if let Some(rest) = word.strip_prefix("testdata/") {
                let top = rest.split('/').next().unwrap();
                let dest = work.path().join("testdata").join(top);
                if !dest.exists() {
                    copy_tree(&root.join("testdata").join(top), &dest);
                }
            }
        }
    }
    let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_policyctl"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = std::env::join_paths(std::iter::once(bin_dir).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap();
    // In PAGES order: later examples may read what earlier ones wrote (`--out-dir generated/`).
    for ex in &examples {
        let out = common::scrub(&mut std::process::Command::new("bash"))
            .args(["-o", "pipefail", "-c", &ex.command])
            .current_dir(work.path())
            .env("PATH", &path)
            .env("NO_COLOR", "1")
            .env("COLUMNS", "100")
            .output()
            .expect("run bash");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(ex.code),
            "{}:{}: `{}` exits {:?}, the page says {}\nstderr:\n{stderr}",
            ex.page,
            ex.line,
            ex.command,
            out.status.code(),
            ex.code
        );
        // Every line shown (`…` marks lines left out) appears, in order, in stdout then stderr.
        let actual: Vec<&str> = stdout
            .lines()
            .chain(stderr.lines())
            .map(str::trim_end)
            .collect();
        let mut at = 0;
        for shown in ex.output.iter().filter(|l| l.as_str() != "…") {
            match actual[at..].iter().position(|a| a == shown) {
                Some(p) => at += p + 1,
                None => panic!(
                    "{}:{}: `{}` does not print (in this order) the line\n{shown}\nactual output:\n{stdout}{stderr}",
                    ex.page, ex.line, ex.command
                ),
            }
        }
    }
}

#[test]
fn readme_keeps_the_set_up_commands() {
    assert!(readme().contains(
        "## Set up\n\nOn a fresh machine with a Rust toolchain (rustup, Rust 1.89 or newer) and the C \
         compiler it links\nwith (`cc`; the allocator, mimalloc, is C compiled by cargo):\n\n```sh\n\
         cargo run --release -- compute -f testdata/examples/\ncargo test --locked\n```\n"
    ));
}

#[test]
fn graph_guide_picture_is_committed_and_current() {
    let r = read("docs/guide/graph.md");
    assert!(r.contains("](../../testdata/examples/toystore.svg)"));
    let svg = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/examples/toystore.svg"
    ))
    .expect("testdata/examples/toystore.svg is committed");
    // Every node of today's graph is in the picture (dot writes each label line as a <text>).
    let out = common::policyctl_std()
        .args(["graph", "-f", "testdata/examples/"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let dot = String::from_utf8(out.stdout).unwrap();
    let labels: Vec<&str> = dot
        .split("label=\"")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap())
        .collect();
    assert!(labels.len() >= 10, "{dot}");
    for label in labels {
        for part in label.split("\\n") {
            // dot escapes `-` as `&#45;` in SVG text.
            let text = part
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('-', "&#45;");
            assert!(
                svg.contains(&format!(">{text}</text>")),
                "toystore.svg lacks {part:?}: regenerate it: policyctl graph -f testdata/examples/ | dot -Tsvg > testdata/examples/toystore.svg"
            );
        }
    }
}

#[test]
fn settings_example_is_valid_and_names_every_key() {
    let r = read("docs/settings.md");
    let start = r.find("## Settings file").expect("settings section");
    let block = &r[start..];
    let open = block.find("```yaml\n").expect("settings example") + 8;
    let close = open + block[open..].find("```").unwrap();
    let text = &block[open..close];
    let loaded = policyctl::config::parse("docs/settings.md", text);
    assert!(
        loaded.diagnostics.is_empty(),
        "{:?}",
        loaded.diagnostics.iter().collect::<Vec<_>>()
    );
    for key in policyctl::config::KEYS {
        assert!(
            text.contains(&format!("{key}:")),
            "docs/settings.md lacks {key}"
        );
    }
}

/// GitHub's anchor for a heading: lower case, punctuation dropped (hyphens and underscores kept),
/// spaces as hyphens; a repeated anchor gets `-1`, `-2`, ….
fn anchors(markdown: &str) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    let mut fence = false;
    for line in markdown.lines() {
        if line.starts_with("```") {
            fence = !fence;
            continue;
        }
        let Some(text) = line
            .strip_prefix('#')
            .map(|l| l.trim_start_matches('#'))
            .and_then(|l| l.strip_prefix(' '))
        else {
            continue;
        };
        if fence {
            continue;
        }
        let base: String = text
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let mut anchor = base.clone();
        let mut n = 0;
        while seen.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        seen.push(anchor);
    }
    seen
}

/// The relative link targets of a page (`](target)`), outside code blocks and inline code.
fn relative_links(markdown: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fence = false;
    for (i, line) in markdown.lines().enumerate() {
        if line.starts_with("```") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        // Drop inline code spans so `a](b)` inside backticks is not taken for a link.
        let mut prose = String::new();
        for (k, part) in line.split('`').enumerate() {
            if k % 2 == 0 {
                prose.push_str(part);
            }
        }
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let Some(end) = rest.find(')') else { break };
            let target = &rest[..end];
            if !target.contains("://") && !target.starts_with("mailto:") {
                out.push((i + 1, target.to_string()));
            }
            rest = &rest[end..];
        }
    }
    out
}

#[test]
fn every_relative_link_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in markdown_files() {
        let dir = Path::new(&page)
            .parent()
            .unwrap_or(Path::new(""))
            .to_path_buf();
        let text = read(&page);
        for (line, target) in relative_links(&text) {
            checked += 1;
            let (path, anchor) = match target.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (target.as_str(), None),
            };
            let file = if path.is_empty() {
                root().join(&page)
            } else {
                root().join(&dir).join(path)
            };
            if !file.exists() {
                broken.push(format!("{page}:{line}: {target}: no such file"));
                continue;
            }
            if let Some(anchor) = anchor {
                let md = std::fs::read_to_string(&file).unwrap_or_default();
                if !anchors(&md).iter().any(|a| a == anchor) {
                    broken.push(format!(
                        "{page}:{line}: {target}: no heading with that anchor"
                    ));
                }
            }
        }
    }
    assert!(checked >= 50, "only {checked} links found");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn readme_is_short_and_links_every_user_guide() {
    let r = readme();
    // A newcomer reads it in ten minutes; the reference lives in docs/.
    assert!(
        r.lines().count() < 250,
        "README.md has {} lines",
        r.lines().count()
    );
    for page in PAGES.iter().filter(|p| p.starts_with("docs/")) {
        let link = format!("]({page})");
        assert!(r.contains(&link), "README.md does not link {page}");
    }
    assert!(r.contains("](docs/diagnostics.md)"));
}
