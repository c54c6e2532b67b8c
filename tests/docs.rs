//! The README and CHANGELOG stay in step with the code.

use crate::common;
use policyctl::diag::Code;

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap()
}

/// The table between the `codes:start` / `codes:end` markers, as the code describes it.
fn expected_table() -> String {
    let mut t = String::from("| code | severity | meaning |\n|---|---|---|\n");
    for c in Code::ALL {
        t.push_str(&format!(
            "| `{}` | {} | {} |\n",
            c.as_str(),
            c.severity().as_str(),
            c.description()
        ));
    }
    t
}

#[test]
fn readme_lists_every_diagnostic_code() {
    let r = readme();
    let start = r
        .find("<!-- codes:start -->\n")
        .expect("codes:start marker")
        + 21;
    let end = r.find("<!-- codes:end -->").expect("codes:end marker");
    let table = &r[start..end];
    if std::env::var_os("UPDATE_EXPECT").is_some() && std::env::var_os("CI").is_none() {
        let updated = format!("{}{}{}", &r[..start], expected_table(), &r[end..]);
        std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"), updated).unwrap();
        return;
    }
    assert_eq!(
        table,
        expected_table(),
        "README code table is stale: run UPDATE_EXPECT=1 cargo test --test tests docs::"
    );
}

/// `docs/diagnostics.md` as the code describes it: a heading per code (the anchor `-o sarif` links
/// each rule to, `#pctl1001`), its severity, whether it can be silenced and what it means.
fn expected_diagnostics_doc() -> String {
    let mut t = String::from(
        "# Diagnostic codes\n\n\
         Every finding policyctl reports carries one of these codes, stable from release to release. \
         `lint -o sarif` (and `--diagnostics-format sarif`) links each rule to its heading here \
         (`helpUri`). The README's [Suppressions](../README.md#suppressions) section says how a \
         finding is silenced and [Exit codes](../README.md#exit-codes) what the exit code means.\n\n\
         <!-- Generated from src/diag/code.rs: UPDATE_EXPECT=1 cargo test --test tests docs:: -->\n",
    );
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
    line: usize,
    command: String,
    output: Vec<String>,
    code: i32,
}

fn console_examples(readme: &str) -> Vec<Example> {
    let mut examples: Vec<Example> = Vec::new();
    let mut in_console = false;
    let mut expect_code = false;
    for (i, line) in readme.lines().enumerate() {
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
                "README.md:{}: console examples run policyctl only: {cmd}",
                i + 1
            );
            examples.push(Example {
                line: i + 1,
                command: cmd.to_string(),
                output: Vec::new(),
                code: 0,
            });
            continue;
        }
        let Some(last) = examples.last_mut() else {
            panic!("README.md:{}: output before any command", i + 1);
        };
        if expect_code {
            last.code = line
                .trim()
                .parse()
                .unwrap_or_else(|_| panic!("README.md:{}: not an exit code: {line}", i + 1));
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
fn readme_console_examples_run_as_shown() {
    let r = readme();
    let examples = console_examples(&r);
    assert!(examples.len() >= 10, "found only {examples:?}");
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
    // In README order: later examples may read what earlier ones wrote (`--out-dir generated/`).
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
            "README.md:{}: `{}` exits {:?}, the README says {}\nstderr:\n{stderr}",
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
                    "README.md:{}: `{}` does not print (in this order) the line\n{shown}\nactual output:\n{stdout}{stderr}",
                    ex.line, ex.command
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
fn readme_graph_picture_is_committed_and_current() {
    let r = readme();
    assert!(r.contains("](testdata/examples/toystore.svg)"));
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
fn readme_settings_example_is_valid_and_names_every_key() {
    let r = readme();
    let start = r.find("## Settings file").expect("settings section");
    let block = &r[start..];
    let open = block.find("```yaml\n").expect("settings example") + 8;
    let close = open + block[open..].find("```").unwrap();
    let text = &block[open..close];
    let loaded = policyctl::config::parse("README.md", text);
    assert!(
        loaded.diagnostics.is_empty(),
        "{:?}",
        loaded.diagnostics.iter().collect::<Vec<_>>()
    );
    for key in policyctl::config::KEYS {
        assert!(text.contains(&format!("{key}:")), "README lacks {key}");
    }
}
