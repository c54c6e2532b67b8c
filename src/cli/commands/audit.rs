//! `policyctl audit`: what the data plane leaves exposed, what never takes effect, and (with
//! `--base`) what a change takes away.

use crate::cli::common::{
    CliError, DiagArgs, DiagFormat, FailOn, InputArgs, Outcome, Ui, machine_report, outcome,
};
use clap::{Args, ValueEnum};
use policyctl::audit::{self, Audit};
use policyctl::diag::Code;
use policyctl::render;
use policyctl::suppress;

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum AuditFormat {
    /// One line per path (its hostnames together), the summary, then the findings.
    #[default]
    Table,
    /// `{"coverage": [...], "findings": [...], "summary": {...}, "change": {...}}`.
    Json,
    /// A pull-request comment (with --base: what the change does first).
    Markdown,
    /// The findings as SARIF 2.1.0, as `lint -o sarif`.
    Sarif,
}

/// What `--require` can ask for.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Require {
    /// Every path authenticated (PCTL6001 otherwise).
    Auth,
    /// Every path rate limited (PCTL6002 otherwise).
    Ratelimit,
}

/// Audit coverage and configuration: which paths lack authentication or rate limiting, which
/// limits never decide, which counters are shared.
#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  policyctl audit -f manifests/\n  policyctl audit -f manifests/ --require auth,ratelimit\n  policyctl audit -f head/manifests --base base/manifests -o markdown > comment.md\n  policyctl audit -f manifests/ -o sarif > audit.sarif\n\n\
Coverage follows the generated wasm action sets and AuthConfigs, as `compute` prints them. A path\n\
that --require finds unprotected is a finding (exit code 1); silence one on purpose with the\n\
annotation policyctl.kuadrant.io/ignore: PCTL6001 on the route, or an `ignore:` entry in the\n\
settings file."
)]
pub struct AuditArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub diag: DiagArgs,
    /// Output: table, json, markdown (a pull-request comment) or sarif (the findings).
    #[arg(short, long, value_enum, default_value_t = AuditFormat::Table)]
    pub output: AuditFormat,
    /// Make a path without this protection a finding, and the exit code 1 (comma-separated: auth,
    /// ratelimit).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "KIND")]
    pub require: Vec<Require>,
    /// Another input tree (e.g. the pull request's base): audit both and say what the change
    /// does to coverage and findings.
    #[arg(long, value_name = "PATH")]
    pub base: Option<String>,
    /// The lowest severity that makes the exit code 1 [default: error, or failOn in the settings
    /// file]. Findings of --require always do.
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOn>,
}

/// One audited estate: the audit with its kept findings, and the rest of the run's findings.
struct Side {
    audit: Audit,
    /// The silenced findings of the audit.
    suppressed: Vec<suppress::Suppressed>,
    /// Every other finding, after suppression (the suppressions' own findings included).
    others: suppress::Outcome,
}

/// Analyse and audit one input in one run: suppressions apply to the audit's findings and the
/// others alike.
fn side(
    input: &InputArgs,
    loaded: &mut policyctl::Loaded,
    opts: &audit::Options,
    complete: bool,
) -> Side {
    let mut run_opts = input.run_options(&mut loaded.sources, input.generate_options());
    run_opts.unused_suppressions = complete;
    run_opts.audit = Some(*opts);
    let mut run = policyctl::run(
        &loaded.model,
        &loaded.sources,
        &loaded.diagnostics,
        &run_opts,
    );
    let others = std::mem::take(&mut run.findings);
    let audited = run.audit.take().unwrap_or_default();
    // The process exits soon after: the run is left to the operating system (as `status`).
    std::mem::forget(run);
    Side {
        audit: audited.audit,
        suppressed: audited.suppressed,
        others,
    }
}

pub fn run(a: AuditArgs, ui: &Ui) -> Result<Outcome, CliError> {
    let opts = audit::Options {
        require_auth: a.require.contains(&Require::Auth),
        require_rate_limit: a.require.contains(&Require::Ratelimit),
    };
    let mut loaded = a.input.load()?;
    let head = side(&a.input, &mut loaded, &opts, true);
    ui.report(&a.diag, &loaded.sources, &loaded.model, &head.others)?;
    let mut result = outcome(&head.others.kept, a.input.fail_on(a.fail_on));
    let change = match &a.base {
        Some(base) => {
            let base_input = InputArgs {
                filenames: vec![base.clone()],
                ..a.input.clone()
            };
            // An empty folder is an empty estate (the base of a change that adds the manifests).
            let mut base_loaded = base_input.load_any()?;
            let b = side(&base_input, &mut base_loaded, &opts, false);
            if b.others.kept.has_trouble() {
                ui.diagnostics(&base_loaded, &b.others.kept);
                return Ok(Outcome::Trouble);
            }
            std::mem::forget(base_loaded);
            Some(audit::compare(&b.audit, &head.audit))
        }
        None => None,
    };
    if result == Outcome::Trouble {
        return Ok(result);
    }
    let text = match a.output {
        // Streamed: the table of a large estate is twice the size of its input.
        AuditFormat::Table => {
            ui.out_with(|o| {
                render::audit::write_table(&head.audit, change.as_ref(), &loaded.sources, o)
                    .map_err(CliError::from)
            })?;
            None
        }
        AuditFormat::Json => Some(render::audit::json(
            &head.audit,
            change.as_ref(),
            &loaded.sources,
        )),
        AuditFormat::Markdown => Some(render::audit::markdown(
            &head.audit,
            change.as_ref(),
            &loaded.sources,
        )),
        AuditFormat::Sarif => {
            let found = suppress::Outcome {
                kept: head.audit.findings.clone(),
                suppressed: head.suppressed.clone(),
            };
            Some(machine_report(
                DiagFormat::Sarif,
                &head.audit.findings,
                &found,
                &loaded.sources,
                &loaded.model,
            ))
        }
    };
    if let Some(text) = text {
        ui.out(&text)?;
        // Hundreds of megabytes on a large estate: left to the operating system too.
        std::mem::forget(text);
    }
    let failing = outcome(&head.audit.findings, a.input.fail_on(a.fail_on));
    let required = head
        .audit
        .findings
        .iter()
        .any(|d| matches!(d.code, Code::AuditNoAuth | Code::AuditNoRateLimit));
    result = result.worst(failing);
    if required {
        result = result.worst(Outcome::Findings);
    }
    // The process exits next: the operating system frees the estate and its audit at once.
    std::mem::forget(head);
    std::mem::forget(loaded);
    Ok(result)
}
