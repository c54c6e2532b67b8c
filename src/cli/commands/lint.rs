//! `policyctl lint`: every diagnostic, no rendering of objects.

use crate::cli::common::{
    CliError, DiagFormat, FailOn, InputArgs, Outcome, Ui, machine_report, outcome, suppressed_lines,
};
use clap::Args;
use policyctl::render;

/// Report every diagnostic: schema and CEL validation, references, merge outcomes.
#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  policyctl lint -f manifests/\n  kustomize build overlays/prod | policyctl lint -f - -o github\n  policyctl lint -f manifests/ -o sarif > policyctl.sarif\n\nSilence a finding with the annotation policyctl.kuadrant.io/ignore: \"PCTL3004,PCTL2006\" on the object, or an\n`ignore:` entry (code, object pattern, reason) in the settings file. Errors cannot be silenced."
)]
pub struct LintArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format: text, json, github (workflow annotations), sarif (SARIF 2.1.0) or junit
    /// (JUnit XML).
    #[arg(short, long, value_enum, default_value_t = DiagFormat::Text)]
    pub output: DiagFormat,
    /// The lowest severity that makes the exit code 1 [default: error, or failOn in the settings
    /// file].
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOn>,
}

pub fn run(a: LintArgs, ui: &Ui) -> Result<Outcome, CliError> {
    let mut loaded = a.input.load()?;
    let opts = a
        .input
        .run_options(&mut loaded.sources, a.input.generate_options());
    let mut run = policyctl::run(&loaded.model, &loaded.sources, &loaded.diagnostics, &opts);
    let found = std::mem::take(&mut run.findings);
    // The process exits right after this command: leak the run (topology, effective
    // policies, generated objects) instead of freeing it piece by piece; the operating system
    // reclaims the memory at exit.
    std::mem::forget(run);
    let shown = ui.visible(&found.kept, true);
    match a.output {
        DiagFormat::Text => {
            if ui.quiet {
                ui.out(&render::diagnostics::short(&shown, &loaded.sources))?;
            } else {
                let style = render::Style {
                    color: ui.color_out,
                    width: ui.width,
                    unicode: true,
                };
                ui.out(&render::diagnostics::human_all(
                    &shown,
                    &loaded.sources,
                    style,
                    "-q or -o json lists every finding",
                ))?;
                ui.out(&summary(&loaded, &shown, found.suppressed.len()))?;
                if ui.verbose {
                    ui.out(&suppressed_lines(&found, &loaded.sources))?;
                    for (api, kind, name) in &loaded.model.skipped {
                        ui.out(&format!("skipped: {api} {kind} {name}\n"))?;
                    }
                }
            }
        }
        f => ui.out(&machine_report(
            f,
            &shown,
            &found,
            &loaded.sources,
            &loaded.model,
        ))?,
    }
    let result = outcome(&found.kept, a.input.fail_on(a.fail_on));
    // As above: the model is not freed either, the process exits next.
    std::mem::forget(loaded);
    Ok(result)
}

/// The closing line; the silenced findings are counted only when there are some.
fn summary(
    loaded: &policyctl::Loaded,
    d: &policyctl::diag::Diagnostics,
    suppressed: usize,
) -> String {
    use policyctl::diag::Severity;
    let silenced = if suppressed > 0 {
        format!(", {suppressed} suppressed")
    } else {
        String::new()
    };
    format!(
        "Summary: {} files, {} documents, {} objects ({} skipped); {} errors, {} warnings, {} infos{silenced}\n",
        loaded.files.len(),
        loaded.documents,
        loaded.model.object_count(),
        loaded.model.skipped.len(),
        d.count(Severity::Error),
        d.count(Severity::Warning),
        d.count(Severity::Info),
    )
}
