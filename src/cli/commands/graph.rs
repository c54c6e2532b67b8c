//! `policyctl graph`: the topology as DOT (default), Mermaid or JSON; diagnostics to stderr.

use crate::cli::common::{CliError, DiagArgs, FailOn, InputArgs, Outcome, Ui, outcome};
use clap::{Args, ValueEnum};
use policyctl::render::graph::{self, Selection};

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum GraphFormat {
    #[default]
    Dot,
    Mermaid,
    Json,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Compat {
    /// Byte-compatible with the operator's `topology` ConfigMap (policy-machinery `ToDot()`).
    #[value(name = "policy-machinery")]
    PolicyMachinery,
}

/// Print the topology: GatewayClasses, Gateways, listeners, routes, rules and the policies attached.
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    policyctl graph -f manifests/ | dot -Tsvg > topology.svg\n  \
    policyctl graph -f manifests/ --for httproute/toystore/toystore -o mermaid\n  \
    policyctl graph -f manifests/ --compat policy-machinery   # same text as the operator's topology ConfigMap\n\n\
    Node ids in the default DOT output are the quoted locators; --compat policy-machinery prints n<seq> ids\n  \
    exactly as the operator does, numbered in policyctl's canonical input order.")]
pub struct GraphArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub diag: DiagArgs,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = GraphFormat::Dot)]
    pub output: GraphFormat,
    /// Print DOT exactly as another tool does (only with -o dot).
    #[arg(long, value_enum, value_name = "TOOL")]
    pub compat: Option<Compat>,
    /// Draw only this object, its ancestors, descendants and the policies attached to any of them:
    /// KIND/NAMESPACE/NAME (gatewayclass/NAME for classes; listener/NS/GATEWAY#LISTENER for a listener).
    #[arg(long = "for", value_name = "KIND/NS/NAME")]
    pub focus: Option<String>,
    /// The lowest severity that makes the exit code 1 [default: error, or failOn in the settings
    /// file].
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOn>,
}

pub fn run(a: GraphArgs, ui: &Ui) -> Result<Outcome, CliError> {
    if a.compat.is_some() && a.output != GraphFormat::Dot {
        return Err(CliError::Usage(
            "--compat policy-machinery needs -o dot".into(),
        ));
    }
    let focus = a
        .focus
        .as_deref()
        .map(graph::parse_focus)
        .transpose()
        .map_err(CliError::Usage)?;
    let mut loaded = a.input.load()?;
    // The graph needs the topology only: the later stages are not run.
    let opts = policyctl::RunOptions {
        depth: policyctl::Depth::Map,
        ..a.input.run_options(&mut loaded.sources, Default::default())
    };
    let policyctl::Run {
        topology,
        findings: found,
        ..
    } = policyctl::run(&loaded.model, &loaded.sources, &loaded.diagnostics, &opts);
    let selection = match &focus {
        None => Selection::all(),
        Some(l) => match Selection::focus(&topology, l) {
            Some(s) => s,
            None => {
                ui.report(&a.diag, &loaded.sources, &loaded.model, &found)?;
                return Err(CliError::Usage(format!(
                    "--for {}: no such object in the topology ({l})",
                    a.focus.as_deref().unwrap_or_default()
                )));
            }
        },
    };
    let text = match (a.output, a.compat) {
        (GraphFormat::Dot, Some(Compat::PolicyMachinery)) => {
            graph::dot_compat(&topology, &selection)
        }
        (GraphFormat::Dot, None) => graph::dot(&topology, &selection),
        (GraphFormat::Mermaid, _) => graph::mermaid(&topology, &selection),
        (GraphFormat::Json, _) => graph::json(&topology, &selection),
    };
    ui.report(&a.diag, &loaded.sources, &loaded.model, &found)?;
    ui.out(&text)?;
    Ok(outcome(&found.kept, a.input.fail_on(a.fail_on)))
}
