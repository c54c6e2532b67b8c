//! `policyctl status`: every policy's predicted `Accepted` / `Enforced` conditions.

use crate::cli::common::{CliError, DiagArgs, FailOn, InputArgs, Outcome, Ui, outcome};
use clap::{Args, ValueEnum};
use policyctl::render::objects;
use policyctl::render::table::{self, StatusRow};
use policyctl::{Condition, Object};

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum StatusFormat {
    #[default]
    Table,
    Wide,
    Yaml,
    Json,
}

/// Predict every policy's Accepted and Enforced conditions, as the operator would write them.
#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  policyctl status -f manifests/\n  policyctl status -f manifests/ -o wide\n  policyctl status -f manifests/ --routes\n  policyctl status -f manifests/ --gateways\n  policyctl status -f cluster-dump.yaml --respect-status -o yaml\n\n\
Offline assumptions: a Kuadrant object exists (one in kuadrant-system when none is given), Limitador,\n\
Authorino, TLS issuers and the generated data-plane objects are ready, and listeners/routes are\n\
Programmed/Accepted unless --respect-status. DNSPolicy/TLSPolicy Enforced is not predicted."
)]
pub struct StatusArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub diag: DiagArgs,
    /// Output: table, wide (adds reasons, overriding policies, paths), yaml (the policies as written
    /// with predicted status.conditions, multi-document) or json (a kubectl List).
    #[arg(short, long, value_enum, default_value_t = StatusFormat::Table)]
    pub output: StatusFormat,
    /// Read listener and route readiness from the objects' status instead of assuming it.
    #[arg(long)]
    pub respect_status: bool,
    /// Show the routes instead of the policies: the kuadrant.io/<Kind>Affected conditions the operator
    /// writes on each HTTPRoute/GRPCRoute parent Gateway (table: one row per condition; yaml/json: the
    /// routes as written with the predicted status.parents entries).
    #[arg(long, conflicts_with = "gateways")]
    pub routes: bool,
    /// Show the Gateways instead of the policies: the kuadrant.io/<Kind>Affected conditions the
    /// operator writes on each Gateway and on each of its listeners (table: one row per condition,
    /// LISTENER `-` for the Gateway's own; yaml/json: the Gateways as written with the predicted
    /// status.conditions and status.listeners).
    #[arg(long)]
    pub gateways: bool,
    /// The lowest severity that makes the exit code 1 [default: error, or failOn in the settings
    /// file].
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOn>,
}

pub fn run(a: StatusArgs, ui: &Ui) -> Result<Outcome, CliError> {
    let mut loaded = a.input.load()?;
    let opts = policyctl::RunOptions {
        status: policyctl::StatusOptions {
            respect_status: a.respect_status,
        },
        ..a.input
            .run_options(&mut loaded.sources, a.input.generate_options())
    };
    let run = policyctl::run(&loaded.model, &loaded.sources, &loaded.diagnostics, &opts);
    ui.report(&a.diag, &loaded.sources, &loaded.model, &run.findings)?;
    let result = show(&a, ui, &loaded, &run)
        .map(|()| outcome(&run.findings.kept, a.input.fail_on(a.fail_on)));
    // As in `compute`: the process exits next, so the operating system frees the estate at once
    // instead of millions of small frees.
    std::mem::forget(run);
    std::mem::forget(loaded);
    result
}

/// Write the table or the policies with their predicted conditions; the diagnostics are shown.
fn show(
    a: &StatusArgs,
    ui: &Ui,
    loaded: &policyctl::Loaded,
    analysis: &policyctl::Run,
) -> Result<(), CliError> {
    if a.routes {
        return show_routes(a, ui, loaded, analysis);
    }
    if a.gateways {
        return show_gateways(a, ui, loaded, analysis);
    }
    let statuses = &analysis.statuses;
    let m = &loaded.model;
    let paths = analysis.topology.path_list();
    match a.output {
        StatusFormat::Table | StatusFormat::Wide => {
            let rows: Vec<StatusRow> = statuses
                .iter()
                .map(|s| {
                    let p = &m.policies[s.policy];
                    let message = match (&s.enforced, &s.note) {
                        _ if !s.accepted.is_true() => s.accepted.message.clone(),
                        (Some(e), _) => e.message.clone(),
                        (None, Some(n)) => n.clone(),
                        (None, None) => String::new(),
                    };
                    StatusRow {
                        overridden_by: overriders_cell(&s.overridden_by),
                        paths: paths_cell(
                            s.enforced_on
                                .iter()
                                .map(|&i| analysis.topology.path_id(&paths[i])),
                        ),
                        ..row(
                            &p.meta,
                            p.kind.kind(),
                            &p.target,
                            (&s.accepted, s.enforced.as_ref()),
                            message,
                        )
                    }
                })
                .chain(
                    analysis
                        .extension_statuses
                        .iter()
                        .map(|s| extension_row(m, s)),
                )
                .collect();
            ui.out(&table::status(
                &rows,
                a.output == StatusFormat::Wide,
                ui.table_width,
            ))?;
        }
        StatusFormat::Yaml | StatusFormat::Json => {
            let items: Vec<Object> =
                policyctl::predicted_objects(&loaded.sources, &loaded.model, statuses)
                    .into_iter()
                    .chain(policyctl::predicted_extension_objects(
                        &loaded.sources,
                        &loaded.model,
                        &analysis.extension_statuses,
                    ))
                    .map(Object::Tree)
                    .collect();
            write_objects(ui, a.output, &items)?;
        }
    }
    Ok(())
}

/// Print objects as a kubectl `List` (JSON) or a YAML stream, streamed like `compute`'s output (a
/// closed pipe stops it).
fn write_objects(ui: &Ui, output: StatusFormat, items: &[Object]) -> Result<(), CliError> {
    ui.out_with(|o| {
        let written = if output == StatusFormat::Json {
            objects::write_kubectl_list(items, o)
        } else {
            objects::write_yaml_objects(items, o)
        };
        written.map_err(CliError::from)
    })
}

/// `status --routes`: the predicted route parent conditions as a table (table and wide alike) or as
/// the route objects with their predicted Kuadrant parent entries.
fn show_routes(
    a: &StatusArgs,
    ui: &Ui,
    loaded: &policyctl::Loaded,
    analysis: &policyctl::Run,
) -> Result<(), CliError> {
    let m = &loaded.model;
    let predicted = policyctl::route_conditions(&analysis.topology, &analysis.statuses);
    match a.output {
        StatusFormat::Table | StatusFormat::Wide => {
            let mut rows = Vec::new();
            for rc in &predicted {
                let r = &m.routes[rc.route];
                for p in &rc.parents {
                    for c in &p.conditions {
                        rows.push(table::RouteRow {
                            namespace: r.meta.namespace.clone(),
                            kind: r.spec.kind.kind().to_string(),
                            name: r.meta.name.clone(),
                            gateway: format!("{}/{}", p.gateway_namespace, p.gateway_name),
                            condition: c.type_.clone(),
                            status: c.status.clone(),
                            message: c.message.clone(),
                        });
                    }
                }
            }
            ui.out(&table::routes(&rows))?;
        }
        StatusFormat::Yaml | StatusFormat::Json => {
            let items: Vec<Object> = predicted
                .iter()
                .filter_map(|rc| {
                    let r = &m.routes[rc.route];
                    let v = policyctl::object_value(&loaded.sources, &r.meta.origin)?;
                    Some(Object::Tree(policyctl::sort_keys(
                        policyctl::with_predicted_parents(v, rc, r.meta.generation),
                    )))
                })
                .collect();
            write_objects(ui, a.output, &items)?;
        }
    }
    Ok(())
}

/// `status --gateways`: the predicted Gateway and listener conditions as a table (table and wide
/// alike) or as the Gateway objects with their predicted status.
fn show_gateways(
    a: &StatusArgs,
    ui: &Ui,
    loaded: &policyctl::Loaded,
    analysis: &policyctl::Run,
) -> Result<(), CliError> {
    let m = &loaded.model;
    let predicted = policyctl::gateway_conditions(&analysis.topology, &analysis.statuses);
    match a.output {
        StatusFormat::Table | StatusFormat::Wide => {
            let mut rows = Vec::new();
            for gc in &predicted {
                let g = &m.gateways[gc.gateway];
                let own = gc.conditions.iter().map(|c| ("-", c));
                let listeners = gc
                    .listeners
                    .iter()
                    .flat_map(|l| l.conditions.iter().map(move |c| (l.name.as_str(), c)));
                for (listener, c) in own.chain(listeners) {
                    rows.push(table::GatewayRow {
                        namespace: g.meta.namespace.clone(),
                        name: g.meta.name.clone(),
                        listener: listener.to_string(),
                        condition: c.type_.clone(),
                        status: c.status.clone(),
                        message: c.message.clone(),
                    });
                }
            }
            ui.out(&table::gateways(&rows))?;
        }
        StatusFormat::Yaml | StatusFormat::Json => {
            let items: Vec<Object> = predicted
                .iter()
                .filter_map(|gc| {
                    let g = &m.gateways[gc.gateway];
                    let v = policyctl::object_value(&loaded.sources, &g.meta.origin)?;
                    Some(Object::Tree(policyctl::sort_keys(
                        policyctl::with_predicted_gateway_status(v, gc, g.meta.generation),
                    )))
                })
                .collect();
            write_objects(ui, a.output, &items)?;
        }
    }
    Ok(())
}

/// The row of an extension policy (a PlanPolicy): its own conditions, no paths.
fn extension_row(m: &policyctl::Model, s: &policyctl::ExtensionStatus) -> StatusRow {
    let e = &m.extensions[s.extension];
    let message = match &s.enforced {
        Some(en) if s.accepted.is_true() => en.message.clone(),
        _ => s.accepted.message.clone(),
    };
    row(
        &e.meta,
        e.kind.kind(),
        &e.target,
        (&s.accepted, s.enforced.as_ref()),
        message,
    )
}

/// A table row of a policy's own cells: name, `KIND NAME[#SECTION]` target, the Accepted and
/// Enforced statuses and reasons (`-` when Enforced is not predicted), and the message.
fn row(
    meta: &policyctl::Meta,
    kind: &str,
    target: &policyctl::TargetRef,
    (accepted, enforced): (&Condition, Option<&Condition>),
    message: String,
) -> StatusRow {
    let target = match &target.section_name {
        Some(sec) => format!("{} {}#{}", target.kind.value, target.name.value, sec.value),
        None => format!("{} {}", target.kind.value, target.name.value),
    };
    let or_dash =
        |f: fn(&Condition) -> &String| enforced.map_or_else(|| "-".into(), |c| f(c).clone());
    StatusRow {
        namespace: meta.namespace.clone(),
        kind: kind.to_string(),
        name: meta.name.clone(),
        target,
        accepted: accepted.status.clone(),
        enforced: or_dash(|c| &c.status),
        message,
        accepted_reason: accepted.reason.clone(),
        enforced_reason: or_dash(|c| &c.reason),
        overridden_by: String::new(),
        paths: String::new(),
    }
}

/// The PATHS cell of `-o wide`: a gateway-wide policy can be enforced on thousands of paths, and a
/// table with cells that tall is unreadable (and took gigabytes to lay out on a 100k-object estate):
/// the first [`WIDE_PATHS_SHOWN`], then how many more; `policyctl explain` shows every path.
fn paths_cell(ids: impl ExactSizeIterator<Item = String>) -> String {
    let total = ids.len();
    // `ids` is lazy: only the ids shown are built.
    let mut cell: Vec<String> = ids.take(WIDE_PATHS_SHOWN).collect();
    let more = total - cell.len();
    if more > 0 {
        cell.push(format!("… and {more} more (policyctl explain lists them)"));
    }
    cell.join("\n")
}

/// Paths listed in a `-o wide` cell before the rest is counted.
const WIDE_PATHS_SHOWN: usize = 20;

/// The OVERRIDDEN BY cell of `-o wide`, on one line: a gateway's defaults can be overridden by
/// hundreds of route policies, and one line that long widened every line of the table (1.5 GB of
/// spaces on a 100k-object estate). The first [`WIDE_OVERRIDERS_SHOWN`], then how many more; the
/// MESSAGE column and `-o yaml` keep the operator's full list.
fn overriders_cell(names: &[String]) -> String {
    let shown = &names[..names.len().min(WIDE_OVERRIDERS_SHOWN)];
    let mut cell = shown.join(" ");
    let more = names.len() - shown.len();
    if more > 0 {
        cell.push_str(&format!(" … and {more} more"));
    }
    cell
}

/// Overriding policies named in a `-o wide` cell before the rest is counted.
const WIDE_OVERRIDERS_SHOWN: usize = 5;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_overriders_cell_names_five_then_counts() {
        let names: Vec<String> = (0..7).map(|i| format!("ns/p{i}")).collect();
        assert_eq!(overriders_cell(&names[..0]), "");
        assert_eq!(overriders_cell(&names[..2]), "ns/p0 ns/p1");
        assert_eq!(
            overriders_cell(&names[..5]),
            "ns/p0 ns/p1 ns/p2 ns/p3 ns/p4"
        );
        assert_eq!(
            overriders_cell(&names),
            "ns/p0 ns/p1 ns/p2 ns/p3 ns/p4 … and 2 more"
        );
    }

    #[test]
    fn wide_paths_cell_lists_twenty_then_counts() {
        let ids: Vec<String> = (0..23).map(|i| format!("p{i}")).collect();
        let all = |n: usize| paths_cell(ids[..n].iter().cloned());
        assert_eq!(all(0), "");
        assert_eq!(all(2), "p0\np1");
        assert_eq!(all(20).lines().count(), 20);
        let cut = all(23);
        assert_eq!(cut.lines().count(), 21);
        assert_eq!(cut.lines().nth(19), Some("p19"));
        assert_eq!(
            cut.lines().last(),
            Some("… and 3 more (policyctl explain lists them)")
        );
    }
}
