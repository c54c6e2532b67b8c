//! `policyctl test`: run declarative test cases (see `policyctl::simulate::cases`) against the
//! simulated estate. Exit codes of a test runner: 0 every case passed, 1 a case failed, 2 trouble.

use crate::cli::common::{CliError, InputArgs, Outcome, Ui};
use clap::{Args, ValueEnum};
use policyctl::render::terminal;
use policyctl::simulate::cases;

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
CASES are YAML files, or directories read recursively for .yaml and .yml files; the README\n\
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
        .help("the README's `test` section documents the test case format");
    let mut diags = policyctl::diag::Diagnostics::default();
    diags.push(d);
    ui.diagnostics_in(&Default::default(), &diags);
    Outcome::Trouble
}

pub fn run(a: TestArgs, ui: &Ui) -> Result<Outcome, CliError> {
    let files = match case_files(&a.cases) {
        Ok(f) => f,
        Err(m) => return Ok(bad_case(ui, m)),
    };
    let mut suites = Vec::new();
    for f in &files {
        let text = match std::fs::read_to_string(f) {
            Ok(t) => t,
            Err(e) => return Ok(bad_case(ui, format!("{}: cannot read: {e}", f.display()))),
        };
        match cases::parse(&text) {
            Ok(c) => suites.push((f.display().to_string(), c)),
            Err(m) => return Ok(bad_case(ui, format!("{}: {m}", f.display()))),
        }
    }
    let jwks = match super::simulate::read_jwks(&a.jwks) {
        Ok(j) => std::sync::Arc::new(j),
        Err(m) => return Ok(super::simulate::bad_request(ui, m)),
    };
    let loaded = a.input.load()?;
    let analysis = policyctl::analyze(
        &loaded.model,
        &loaded.diagnostics,
        &a.input.generate_options(),
        &Default::default(),
    );
    let mut diags = policyctl::diag::Diagnostics::default();
    for d in analysis.diagnostics.iter() {
        if d.code != policyctl::diag::Code::RuntimeValueUnknown {
            diags.push(d.clone());
        }
    }
    ui.diagnostics(&loaded, &diags);
    if analysis.diagnostics.has_trouble() {
        return Ok(Outcome::Trouble);
    }
    // Objects with errors are left out (or not accepted), so the cases run against an estate that
    // is not the one written: the run fails (exit 1) whatever the verdicts.
    let errors = diags.count(policyctl::diag::Severity::Error);
    let mut results = Vec::new();
    for (file, c) in &suites {
        match cases::run(&analysis.topology, &analysis.generated.objects, c, &jwks) {
            Ok(r) => results.push((file.clone(), r)),
            Err(m) => return Ok(super::simulate::unsupported(ui, m)),
        }
    }
    let total: usize = results.iter().map(|(_, r)| r.len()).sum();
    let failed: usize = results
        .iter()
        .map(|(_, r)| r.iter().filter(|o| !o.failures.is_empty()).count())
        .sum();

    let undecided: usize = results
        .iter()
        .map(|(_, r)| r.iter().filter(|o| is_undecided(o)).count())
        .sum();
    let mut out = String::new();
    match a.output {
        TestFormat::Text => {
            for (file, r) in &results {
                for o in r {
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
                }
            }
            if undecided == 0 {
                out.push_str(&format!("{} passed, {failed} failed\n", total - failed));
            } else {
                out.push_str(&format!(
                    "{} passed, {failed} failed, {undecided} undecided\n",
                    total - failed - undecided
                ));
            }
        }
        TestFormat::Junit => out.push_str(&junit(&results)),
    }
    ui.out(&out)?;
    std::mem::forget(analysis);
    std::mem::forget(loaded);
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
