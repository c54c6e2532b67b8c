//! `policyctl test`: run declarative test cases (see `policyctl::simulate::cases`) against the
//! simulated estate. Exit codes of a test runner: 0 every case passed, 1 a case failed, 2 trouble.

use crate::cli::common::{CliError, InputArgs, Outcome, Ui};
use clap::{Args, ValueEnum};
use policyctl::render::terminal;
use policyctl::simulate::{Simulation, cases};
use std::io::Write;

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum TestFormat {
    #[default]
    Text,
    Junit,
}

/// Run test cases (requests and expected verdicts) against the simulated estate.
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    policyctl test -f manifests/ tests/\n  \
    policyctl test -f testdata/examples/ testdata/tests/toystore/ -o junit > report.xml\n\n\
CASES are YAML files, or directories read recursively for .yaml and .yml files; docs/guide/test.md\n\
documents the format. A case with an undecided request (one whose verdict needs a live server)\n\
neither passes nor fails. Exit codes: 0 every case passed, 1 a case failed or was undecided\n\
(unless --accept-undecided), 2 trouble.")]
pub struct TestArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Test case files or directories.
    #[arg(value_name = "CASES", required = true)]
    pub cases: Vec<std::path::PathBuf>,
    /// Output: text (a line per case and a summary) or junit (XML).
    #[arg(short, long, value_enum, default_value_t = TestFormat::Text)]
    pub output: TestFormat,
    /// Exit 0 when no case failed even if some were undecided (a request whose verdict needs a
    /// live server): they are still reported, and skipped in JUnit.
    #[arg(long)]
    pub accept_undecided: bool,
    /// A JWKS document JWT signatures are verified against (as simulate's --jwks). Repeatable.
    #[arg(long, value_name = "[URL=]FILE")]
    pub jwks: Vec<String>,
    #[command(flatten)]
    pub budget: super::simulate::BudgetArgs,
}

fn case_files(paths: &[std::path::PathBuf]) -> Result<Vec<std::path::PathBuf>, String> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found: Vec<_> = walkdir::WalkDir::new(p)
                .sort_by_file_name()
                .into_iter()
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_file())
                .map(|e| e.into_path())
                .filter(|f| matches!(f.extension().and_then(|x| x.to_str()), Some("yaml" | "yml")))
                .collect();
            if found.is_empty() {
                return Err(format!("{}: no .yaml test case file", p.display()));
            }
            out.append(&mut found);
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

fn bad_case(ui: &Ui, msg: String) -> Outcome {
    let d = policyctl::diag::Diagnostic::new(policyctl::diag::Code::BadTestCase, msg)
        .help("docs/guide/test.md documents the test case format");
    ui.trouble(d)
}

pub fn run(a: TestArgs, ui: &Ui) -> Result<Outcome, CliError> {
    let files = match case_files(&a.cases) {
        Ok(f) => f,
        Err(m) => return Ok(bad_case(ui, m)),
    };
    let mut suites = Vec::new();
    let mut total_requests = 0u64;
    for f in &files {
        let text = match read_case_file(f) {
            Ok(t) => t,
            Err(m) => return Ok(bad_case(ui, m)),
        };
        match cases::parse(&text) {
            Ok(c) => {
                total_requests = c
                    .iter()
                    .fold(total_requests, |n, c| n.saturating_add(c.plan.count));
                suites.push((f.display().to_string(), c));
            }
            Err(m) => return Ok(bad_case(ui, format!("{}: {m}", f.display()))),
        }
    }
    if let Some(o) = a.budget.check(total_requests, ui) {
        return Ok(o);
    }
    let jwks = match super::simulate::read_jwks(&a.jwks) {
        Ok(j) => std::sync::Arc::new(j),
        Err(m) => return Ok(super::simulate::bad_request(ui, m)),
    };
    let mut loaded = a.input.load()?;
    // As `simulate`: without the findings about the generated objects.
    let opts = a
        .input
        .run_options(&mut loaded.sources, a.input.generate_options());
    let analysis = policyctl::run(&loaded.model, &loaded.sources, &loaded.diagnostics, &opts);
    let diags = &analysis.findings.kept;
    ui.diagnostics(&loaded, diags);
    if diags.has_trouble() {
        return Ok(Outcome::Trouble);
    }
    // Objects with errors are left out (or not accepted), so the cases run against an estate that
    // is not the one written: the run fails (exit 1) whatever the verdicts.
    let errors = diags.count(policyctl::diag::Severity::Error);
    let mut sim = match Simulation::new(&analysis.topology, &analysis.generated.objects) {
        Ok(s) => s,
        Err(m) => return Ok(super::simulate::unsupported(ui, m)),
    };
    sim.jwks = jwks;
    sim.budget = a.budget.limits();
    // Text is written case by case as each is decided; JUnit needs every outcome (a few lines
    // each, whatever the number of requests) before its first line.
    let mut results: Vec<(String, Vec<cases::Outcome>)> = Vec::new();
    let (mut total, mut failed, mut undecided) = (0usize, 0usize, 0usize);
    let mut stopped = None;
    ui.out_with(|o| {
        let mut w = std::io::BufWriter::new(o);
        'files: for (file, cs) in &suites {
            let mut outcomes = Vec::new();
            for c in cs {
                let o = match cases::run_case(&mut sim, c) {
                    Ok(o) => o,
                    Err(e) => {
                        stopped = Some((file.clone(), c.name.clone(), e));
                        break 'files;
                    }
                };
                total += 1;
                failed += usize::from(!o.failures.is_empty());
                undecided += usize::from(is_undecided(&o));
                if a.output == TestFormat::Text {
                    w.write_all(case_text(file, &o).as_bytes())?;
                }
                outcomes.push(o);
            }
            if a.output == TestFormat::Junit {
                results.push((file.clone(), outcomes));
            }
        }
        if stopped.is_none() {
            match a.output {
                TestFormat::Text if undecided == 0 => {
                    w.write_all(format!("{} passed, {failed} failed\n", total - failed).as_bytes())?
                }
                TestFormat::Text => w.write_all(
                    format!(
                        "{} passed, {failed} failed, {undecided} undecided\n",
                        total - failed - undecided
                    )
                    .as_bytes(),
                )?,
                TestFormat::Junit => w.write_all(junit(&results).as_bytes())?,
            }
        }
        w.flush()?;
        Ok(())
    })?;
    std::mem::forget(sim);
    std::mem::forget(analysis);
    std::mem::forget(loaded);
    if let Some((file, name, e)) = stopped {
        let d = policyctl::diag::Diagnostic::new(
            policyctl::diag::Code::EvaluationBudget,
            format!("{file}: case {name:?}: {}", e.message()),
        )
        .help(format!(
            "the case's verdict is unknown; raise the budget with {} N if the expression is meant to be that costly",
            e.flag()
        ));
        return Ok(ui.trouble(d));
    }
    if errors > 0 {
        ui.error(&format!(
            "the manifests have {errors} error(s) (above): the cases ran without the objects they reject"
        ));
        return Ok(Outcome::Findings);
    }
    Ok(if failed > 0 || (undecided > 0 && !a.accept_undecided) {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}

/// The text of one case's outcome: its mark and name, then what failed or was undecided.
fn case_text(file: &str, o: &cases::Outcome) -> String {
    let mut out = String::new();
    let mark = if !o.failures.is_empty() {
        "FAIL"
    } else if is_undecided(o) {
        "UNDECIDED"
    } else {
        "ok  "
    };
    // Case names and the requests' URLs come from the case files: escaped.
    let head = format!("{mark} {file}: {}", o.name);
    out.push_str(&format!("{}\n", terminal::line(&head)));
    for f in &o.failures {
        out.push_str(&format!("       {}\n", terminal::line(f)));
    }
    if is_undecided(o) {
        for u in &o.undecided {
            out.push_str(&format!("       {}\n", terminal::line(u)));
        }
    }
    out
}

/// A case file's text: a regular file (or a pipe) of at most [`MAX_CASE_BYTES`], UTF-8.
fn read_case_file(f: &std::path::Path) -> Result<String, String> {
    let bytes = policyctl::read_bounded_file(f, MAX_CASE_BYTES).map_err(|e| match e {
        policyctl::StreamError::Io(e) => format!("{}: cannot read: {e}", f.display()),
        policyctl::StreamError::TooLarge(max) => format!(
            "{}: more than {} MiB, the most a case file may hold",
            f.display(),
            max / (1024 * 1024)
        ),
    })?;
    // Lone carriage returns are line breaks, as in manifests.
    String::from_utf8(bytes)
        .map(|t| policyctl::line_feeds(&t))
        .map_err(|e| {
            format!(
                "{}: not UTF-8 text (byte {})",
                f.display(),
                e.utf8_error().valid_up_to()
            )
        })
}

/// The most bytes a case file may hold, as a request file.
const MAX_CASE_BYTES: u64 = policyctl::simulate::schedule::MAX_BYTES;

/// The JUnit report of the cases (the dialect `lint -o junit` writes): one suite per case file,
/// one test case per case, classname `policyctl.test.` and the file's path as a dotted name
/// (without its extension), the file in the `file` attribute, the broken expectations in the
/// failure.
fn junit(results: &[(String, Vec<cases::Outcome>)]) -> String {
    use policyctl::render::junit::{Case, Suite, Verdict, class_segment, report};
    let suites: Vec<Suite> = results
        .iter()
        .map(|(file, r)| {
            let stem = std::path::Path::new(file).with_extension("");
            let classname = format!("policyctl.test.{}", class_segment(&stem.to_string_lossy()));
            Suite {
                name: file.clone(),
                cases: r
                    .iter()
                    .map(|o| Case {
                        classname: classname.clone(),
                        name: o.name.clone(),
                        file: Some(file.clone()),
                        verdict: if is_undecided(o) {
                            Verdict::Skipped {
                                message: format!("undecided: {}", o.undecided.join("; ")),
                            }
                        } else if o.failures.is_empty() {
                            Verdict::Passed
                        } else {
                            Verdict::Failed {
                                message: o.failures[0].clone(),
                                kind: "expectation".to_string(),
                                details: o.failures.join("\n"),
                            }
                        },
                        output: Vec::new(),
                    })
                    .collect(),
            }
        })
        .collect();
    report("policyctl", &suites)
}

/// A case is undecided when no expectation failed and a request's verdict could not be decided.
fn is_undecided(o: &cases::Outcome) -> bool {
    o.failures.is_empty() && !o.undecided.is_empty()
}
