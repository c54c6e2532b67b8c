//! `policyctl lint`: every diagnostic, no rendering of objects.

use crate::cli::common::{CliError, FailOn, InputArgs, Outcome, Ui, outcome};
use clap::{Args, ValueEnum};
use policyctl::render;

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum LintFormat {
    #[default]
    Text,
    Json,
    Github,
}

/// Report every diagnostic: schema and CEL validation, references, merge outcomes.
#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  policyctl lint -f manifests/\n  kustomize build overlays/prod | policyctl lint -f - -o github"
)]
pub struct LintArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format: text (to stdout), json, or github (workflow annotations).
    #[arg(short, long, value_enum, default_value_t = LintFormat::Text)]
    pub output: LintFormat,
    /// The lowest severity that makes the exit code 1 [default: error, or failOn in the settings
    /// file].
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOn>,
}

pub fn run(a: LintArgs, ui: &Ui) -> Result<Outcome, CliError> {
    let loaded = a.input.load()?;
    let opts = a.input.generate_options();
    let mut analysis = policyctl::pipeline::analyze(
        &loaded.model,
        &loaded.diagnostics,
        &opts,
        &Default::default(),
    );
    let diags = std::mem::take(&mut analysis.diagnostics);
    // The process exits right after this command: leak the analysis (topology, effective
    // policies, generated objects) instead of freeing it piece by piece; the operating system
    // reclaims the memory at exit.
    std::mem::forget(analysis);
    let shown = ui.visible(&diags, true);
    match a.output {
        LintFormat::Text => {
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
                ))?;
                ui.out(&summary(&loaded, &shown))?;
                if ui.verbose {
                    for (api, kind, name) in &loaded.model.skipped {
                        ui.out(&format!("skipped: {api} {kind} {name}\n"))?;
                    }
                }
            }
        }
        LintFormat::Json => ui.out(&render::diagnostics::json(&shown, &loaded.sources))?,
        LintFormat::Github => ui.out(&render::diagnostics::github(&shown, &loaded.sources))?,
    }
    let result = outcome(&diags, a.input.fail_on(a.fail_on));
    // As above: the model is not freed either, the process exits next.
    std::mem::forget(loaded);
    Ok(result)
}

fn summary(loaded: &policyctl::load::Loaded, d: &policyctl::diag::Diagnostics) -> String {
    use policyctl::diag::Severity;
    format!(
        "Summary: {} files, {} documents, {} objects ({} skipped); {} errors, {} warnings, {} infos\n",
        loaded.files.len(),
        loaded.documents,
        loaded.model.object_count(),
        loaded.model.skipped.len(),
        d.count(Severity::Error),
        d.count(Severity::Warning),
        d.count(Severity::Info),
    )
}
