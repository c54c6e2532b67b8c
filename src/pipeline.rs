//! A whole run in one call: the stages of [`crate::analysis`], the audit when asked, the findings
//! about the generated objects when asked, then suppression. One pure function from the input
//! state to the desired output state; the commands only choose what to print.

use crate::analysis::{Mapped, Paths, analyze_paths, map, name_derived_sources};
use crate::audit::{self, Audit, DEAD_CONFIGURATION};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::generate::object::{Embed, Object};
use crate::generate::{self, GenerateOptions, Generated};
use crate::model::Model;
use crate::resolve::PathEffective;
use crate::resolve::extension::ExtensionStatus;
use crate::resolve::status::{self, PolicyStatus, StatusOptions};
use crate::source::SourceMap;
use crate::suppress::{Outcome, Rule, Suppressed, Suppressor};
use crate::topology::Topology;

/// How far a [`run`] goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Depth {
    /// The topology and its lint, all `graph` shows: no effective policies, objects or statuses.
    Map,
    /// Every stage.
    #[default]
    Analyze,
}

/// What a [`run`] is asked for. The commands differ only here and in what they print.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    pub depth: Depth,
    pub generate: GenerateOptions,
    pub status: StatusOptions,
    /// Add the findings about the generated objects themselves ([`output_diagnostics`]): for the
    /// commands that write or compare them (`compute --out-dir`, `diff --against`, `watch`).
    pub output_findings: bool,
    /// The settings file's `ignore:` entries, their spans in the run's sources.
    pub ignore: Vec<Rule>,
    /// The settings file's own findings, their spans in the run's sources: reported, silenced and
    /// counted with the run's.
    pub settings_findings: Diagnostics,
    /// Report every suppression that silenced nothing (`PCTL4009`). Only a run that has every
    /// finding can tell: never with [`Depth::Map`].
    pub unused_suppressions: bool,
    /// Keep the input's findings and the stages' apart as well ([`Run::apart`]): `watch` replaces
    /// the stages' findings about the objects a change reaches, and reads the input's again.
    pub findings_apart: bool,
    /// Audit the analysis (`audit`): its findings are suppressed with the run's, and reported
    /// apart from them ([`Run::audit`]).
    pub audit: Option<audit::Options>,
}

/// The findings still reported after suppression, in two: the input's (the loader's, the settings
/// file's, those about the generated objects and about the suppressions) and those of the stages
/// after loading. Each sorted.
#[derive(Clone, Debug, Default)]
pub struct Apart {
    pub input: Diagnostics,
    pub stages: Diagnostics,
}

/// A whole run: load's model in, everything computed and the findings after suppression out.
pub struct Run<'m> {
    pub topology: Topology<'m>,
    /// Effective policies, aligned with `topology.paths()` (empty with [`Depth::Map`]). Without
    /// [`RunOptions::audit`], a path Kuadrant treats as invalid may have none where no output reads
    /// them (1.5, no TokenRateLimitPolicy): the objects, statuses and findings are the same.
    pub effective: Vec<PathEffective>,
    /// The generated objects, with the `only`/`gateway` filters of the options applied.
    pub generated: Generated,
    pub statuses: Vec<PolicyStatus>,
    pub extension_statuses: Vec<ExtensionStatus>,
    /// Every finding still reported (sorted), and those the input's annotations and the settings
    /// file's `ignore:` silenced.
    pub findings: Outcome,
    /// With [`RunOptions::findings_apart`]: `findings.kept` in two.
    pub apart: Option<Apart>,
    /// With [`RunOptions::audit`]: the audit, whose findings (the `PCTL6xxx` codes and the dead
    /// configuration it lists) are then here and not in `findings`.
    pub audit: Option<Audited>,
}

/// The audit of a [`Run`], after suppression.
#[derive(Default)]
pub struct Audited {
    /// The coverage, and the audit's findings still reported, sorted.
    pub audit: Audit,
    /// The audit's findings that a suppression silenced, in the audit's order.
    pub suppressed: Vec<Suppressed>,
}

/// Whether a finding is the audit's own output rather than one of the run's diagnostics: the
/// `PCTL6xxx` codes, and the dead configuration the analysis finds and the audit lists.
fn audit_owns(code: Code) -> bool {
    code.is_audit() || DEAD_CONFIGURATION.contains(&code)
}

/// Run a whole computation on `model`: the stages `opts.depth` asks for, the audit and the findings
/// about the generated objects when asked, then suppression. `sources` are the input files (the
/// audit points into AuthPolicies' fields), `load_diagnostics` the loader's findings. Every command
/// runs this, and `watch` its full cycles: the same input and settings give the same findings
/// whatever prints them.
pub fn run<'m>(
    model: &'m Model,
    sources: &SourceMap,
    load_diagnostics: &Diagnostics,
    opts: &RunOptions,
) -> Run<'m> {
    let mut suppressor = Suppressor::new(model, &opts.ignore);
    let mut findings = Outcome::default();
    if opts.depth == Depth::Map {
        let Mapped {
            topology,
            mut diagnostics,
        } = map(model, load_diagnostics);
        diagnostics.sort();
        diagnostics.extend(opts.settings_findings.clone());
        suppressor.sift(diagnostics, &mut findings);
        suppressor.finish(false, &mut findings);
        return Run {
            topology,
            effective: Vec::new(),
            generated: Generated::default(),
            statuses: Vec::new(),
            extension_statuses: Vec::new(),
            findings,
            apart: None,
            audit: None,
        };
    }
    let complete = opts.unused_suppressions;
    // The audit reads every path's effective policies; the rest of a run, those it reads.
    let paths = if opts.audit.is_some() {
        Paths::All
    } else {
        Paths::Read
    };
    let mut apart = None;
    let mut audited = None;
    let analysis = if opts.findings_apart {
        let mut analysis = analyze_paths(
            model,
            &Diagnostics::new(),
            &opts.generate,
            &opts.status,
            paths,
        );
        let audit = audit_into(&mut analysis, sources, opts.audit.as_ref(), &mut audited);
        let mut input = load_diagnostics.clone();
        name_derived_sources(model, &mut input);
        if opts.output_findings {
            input.extend(output_diagnostics(&opts.generate, &analysis.generated));
        }
        input.extend(opts.settings_findings.clone());
        let mut stages = Outcome::default();
        suppressor.sift(std::mem::take(&mut analysis.diagnostics), &mut stages);
        suppressor.sift(audit, &mut stages);
        stages.kept.sort();
        suppressor.sift(input, &mut findings);
        suppressor.finish(complete, &mut findings);
        apart = Some(Apart {
            input: findings.kept.clone(),
            stages: stages.kept.clone(),
        });
        findings.kept.extend(stages.kept);
        findings.kept.sort();
        findings.suppressed.extend(stages.suppressed);
        analysis
    } else {
        let mut analysis =
            analyze_paths(model, load_diagnostics, &opts.generate, &opts.status, paths);
        let audit = audit_into(&mut analysis, sources, opts.audit.as_ref(), &mut audited);
        let mut diagnostics = std::mem::take(&mut analysis.diagnostics);
        if opts.output_findings {
            diagnostics.extend(output_diagnostics(&opts.generate, &analysis.generated));
            diagnostics.sort();
        }
        diagnostics.extend(audit);
        diagnostics.extend(opts.settings_findings.clone());
        suppressor.sift(diagnostics, &mut findings);
        suppressor.finish(complete, &mut findings);
        analysis
    };
    let audit = audited.map(|mut audit: Audit| {
        // The audit's findings, suppressed with the run's, are reported with the audit.
        let mut others = Diagnostics::new();
        for d in std::mem::take(&mut findings.kept).into_vec() {
            if audit_owns(d.code) {
                audit.findings.push(d);
            } else {
                others.push(d);
            }
        }
        findings.kept = others;
        let (suppressed, others): (Vec<_>, Vec<_>) = std::mem::take(&mut findings.suppressed)
            .into_iter()
            .partition(|s| audit_owns(s.diagnostic.code));
        findings.suppressed = others;
        Audited { audit, suppressed }
    });
    Run {
        topology: analysis.topology,
        effective: analysis.effective,
        generated: analysis.generated,
        statuses: analysis.statuses,
        extension_statuses: analysis.extension_statuses,
        findings,
        apart,
        audit,
    }
}

/// With `opts` (`RunOptions::audit`), audit `analysis` into `audited` and return its findings,
/// which then replace the dead configuration the analysis found (the audit lists it).
fn audit_into(
    analysis: &mut crate::analysis::Analysis<'_>,
    sources: &SourceMap,
    opts: Option<&audit::Options>,
    audited: &mut Option<Audit>,
) -> Diagnostics {
    let Some(opts) = opts else {
        return Diagnostics::new();
    };
    let mut a = audit::audit(analysis, sources, opts);
    let mut kept = Diagnostics::new();
    for d in std::mem::take(&mut analysis.diagnostics).into_vec() {
        if !DEAD_CONFIGURATION.contains(&d.code) {
            kept.push(d);
        }
    }
    analysis.diagnostics = kept;
    let findings = std::mem::take(&mut a.findings);
    *audited = Some(a);
    findings
}

/// Diagnostics about the generated objects themselves, for the commands whose output depends on
/// them (`compute --out-dir` and `--check`, `diff --against`, `watch`): `lint`, `status`, `explain`
/// and `graph` show none of these objects and so none of these findings. Pass the objects the
/// command outputs (after `--only` / `--gateway`).
pub fn output_diagnostics(opts: &GenerateOptions, generated: &Generated) -> Diagnostics {
    let mut out = Diagnostics::new();
    if let Some(d) = placeholder_sha256(opts, generated) {
        out.push(d);
    }
    out
}

/// On 1.5 the wasm `EnvoyFilter` carries the sha256 of the module the operator serves, which only the
/// running operator knows: say so when it was left empty, never guess silently, and say where to
/// read it. The operator (v1.5.2 internal/controller/wasm_server.go) hashes the file it serves
/// (`/wasm/plugin.wasm`, or `$WASM_SERVER_FILE_PATH`) when it starts, logs it with
/// `starting wasm server (h2c)`, and writes it at
/// `vm_config.code.remote.sha256` of every wasm EnvoyFilter (internal/istio/utils.go).
/// Only 1.5 writes wasm `EnvoyFilter`s (1.4 writes `WasmPlugin`s), so no version check is needed.
fn placeholder_sha256(opts: &GenerateOptions, generated: &Generated) -> Option<Diagnostic> {
    let filters: Vec<_> = generated
        .objects
        .iter()
        .filter(|o| is_wasm_envoy_filter(o))
        .collect();
    let first = filters.first()?.namespace_name().unwrap_or(("NS", "NAME"));
    wasm_sha256_unknown(opts, filters.len(), first)
}

/// Whether an object is a wasm `EnvoyFilter` (1.5), the one wasm carrier that holds the module's
/// sha256: the carrier whose configuration is embedded as JSON text (`Embed::Json`).
pub(crate) fn is_wasm_envoy_filter(o: &Object) -> bool {
    matches!(o, Object::Wasm(w) if w.embed == Embed::Json)
}

/// The finding of [`placeholder_sha256`] for `count` wasm `EnvoyFilter`s, the first of which (in
/// the objects' order) is `first` (`namespace`, `name`); `watch` counts them itself.
pub(crate) fn wasm_sha256_unknown(
    opts: &GenerateOptions,
    count: usize,
    (namespace, name): (&str, &str),
) -> Option<Diagnostic> {
    if !opts.wasm_sha256.is_empty() || count == 0 {
        return None;
    }
    let what = if count == 1 {
        format!("the wasm EnvoyFilter {namespace}/{name} carries")
    } else {
        format!("{count} wasm EnvoyFilters (the first {namespace}/{name}) carry")
    };
    // Brief, and the command on a line of its own: it is copied as it is.
    Some(
        Diagnostic::new(
            Code::RuntimeValueUnknown,
            format!("{what} an empty sha256: only the running operator knows the wasm module's hash"),
        )
        .help(format!(
            "pass --wasm-sha256 (or wasmSha256 in .policyctl.yaml) with the hash a cluster running the operator shows:\n\
             kubectl get envoyfilter -n {namespace} {name} -o jsonpath='{{.spec.configPatches[0].patch.value.typed_config.value.config.vm_config.code.remote.sha256}}'"
        )),
    )
}

/// Every policy of `statuses` as written in its source, with its predicted `status.conditions`,
/// keys sorted (`status -o yaml|json`). The policies' documents are parsed again, on the available
/// cores; a policy whose document cannot be read again is left out.
pub fn predicted_objects(
    sources: &SourceMap,
    model: &Model,
    statuses: &[PolicyStatus],
) -> Vec<serde_json::Value> {
    crate::par::map(statuses, 256, |s| {
        let p = &model.policies[s.policy];
        let v = match crate::generate::extension::derived_object(model, p) {
            Some(v) => v,
            None => crate::load::object_value(sources, &p.meta.origin)?,
        };
        Some(generate::sort_keys(status::with_predicted_status(
            v,
            s,
            p.meta.generation,
        )))
    })
    .into_iter()
    .flatten()
    .collect()
}

/// Every extension policy of `statuses` as written in its source, with its predicted
/// `status` (`observedGeneration` and `conditions`; the extension controllers set no
/// `observedGeneration` on the conditions themselves), keys sorted.
pub fn predicted_extension_objects(
    sources: &SourceMap,
    model: &Model,
    statuses: &[ExtensionStatus],
) -> Vec<serde_json::Value> {
    statuses
        .iter()
        .filter_map(|s| {
            let e = &model.extensions[s.extension];
            let mut v = crate::load::object_value(sources, &e.meta.origin)?;
            v = status::with_conditions(v, &s.conditions(), None);
            if let (Some(g), Some(st)) = (e.meta.generation, v.get_mut("status"))
                && let Some(st) = st.as_object_mut()
            {
                st.insert("observedGeneration".into(), serde_json::Value::from(g));
            }
            Some(generate::sort_keys(v))
        })
        .collect()
}
