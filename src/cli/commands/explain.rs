//! `policyctl explain`: per path through a target, the policies in merge order and who won each rule.

use crate::cli::common::{CliError, DiagArgs, FailOn, InputArgs, Outcome, Ui, outcome};
use clap::{Args, ValueEnum};
use policyctl::PolicyKind;

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum ExplainFormat {
    #[default]
    Text,
    Yaml,
    Json,
}

/// Explain, for each path through a target, which policy rule won and why.
#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  policyctl explain -f manifests/ httproute/shop/toystore\n  policyctl explain -f manifests/ gateway/infra/external --kind RateLimitPolicy\n  policyctl explain -f manifests/ httproute/shop/toystore#rule-2 -o yaml\n\n\
TARGET is gatewayclass/NAME, gateway/NS/NAME, listener/NS/GATEWAY#LISTENER, httproute/NS/NAME[#RULE]\n\
or grpcroute/NS/NAME[#RULE]."
)]
pub struct ExplainArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub diag: DiagArgs,
    /// The targetable whose paths to explain.
    #[arg(value_name = "TARGET")]
    pub target: String,
    /// Only this policy kind (RateLimitPolicy, AuthPolicy, TokenRateLimitPolicy).
    #[arg(long, value_name = "KIND")]
    pub kind: Option<String>,
    /// Output: text (a tree), yaml or json.
    #[arg(short, long, value_enum, default_value_t = ExplainFormat::Text)]
    pub output: ExplainFormat,
    /// The lowest severity that makes the exit code 1 [default: error, or failOn in the settings
    /// file].
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOn>,
}

/// The policy kind `--kind` names, for `explain` and `watch explain`: one of the kinds whose
/// policies are inherited along paths.
pub fn kind_filter(kind: Option<&str>) -> Result<Option<PolicyKind>, CliError> {
    let Some(k) = kind else {
        return Ok(None);
    };
    match PolicyKind::parse(k) {
        Some(pk) if pk.is_inherited() => Ok(Some(pk)),
        _ => Err(CliError::Usage(format!(
            "--kind {k}: expected RateLimitPolicy, AuthPolicy or TokenRateLimitPolicy"
        ))),
    }
}

pub fn run(a: ExplainArgs, ui: &Ui) -> Result<Outcome, CliError> {
    let kind = kind_filter(a.kind.as_deref())?;
    let target = policyctl::parse_target(&a.target).map_err(CliError::Usage)?;
    let mut loaded = a.input.load()?;
    let opts = a
        .input
        .run_options(&mut loaded.sources, a.input.generate_options());
    let run = policyctl::run(&loaded.model, &loaded.sources, &loaded.diagnostics, &opts);
    let t = &run.topology;
    ui.report(&a.diag, &loaded.sources, &loaded.model, &run.findings)?;
    let diags = &run.findings.kept;
    let e = policyctl::explain(t, &target, kind).map_err(|e| CliError::Usage(e.to_string()))?;
    let text = match a.output {
        // Rule and limit names are the user's map keys: their control characters are escaped.
        ExplainFormat::Text => {
            policyctl::render::terminal::text(&policyctl::render::explain::text(&e)).into_owned()
        }
        ExplainFormat::Yaml => {
            let v = serde_json::to_value(&e).map_err(|e| CliError::Io(e.to_string()))?;
            policyctl::render::objects::yaml_document(&v).map_err(CliError::Io)?
        }
        ExplainFormat::Json => {
            let mut s = policyctl::render::terminal::json(
                serde_json::to_string_pretty(&e).map_err(|e| CliError::Io(e.to_string()))?,
            );
            s.push('\n');
            s
        }
    };
    ui.out(&text)?;
    Ok(outcome(diags, a.input.fail_on(a.fail_on)))
}
