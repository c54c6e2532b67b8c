//! The whole computation in one call: model → topology → effective policies → generated objects →
//! predicted status, with every diagnostic of every stage. One pure function from the input state to
//! the desired output state; the commands only choose what to print.

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::generate::{self, GenerateOptions, Generated};
use crate::model::Model;
use crate::resolve::extension::ExtensionStatus;
use crate::resolve::status::{self, PolicyStatus, StatusOptions};
use crate::resolve::{self, PathEffective};
use crate::source::SourceMap;
use crate::suppress::{Outcome, Rule, Suppressor};
use crate::topology::{self, Topology};

/// The first stages alone, for the commands that show no more than the graph (`graph`): the
/// topology, with the loader's findings and the topology lint, unsorted.
pub struct Mapped<'m> {
    pub topology: Topology<'m>,
    pub diagnostics: Diagnostics,
}

/// Build the topology of `model` and lint it. `load_diagnostics` are the loader's findings, carried
/// into the result. [`analyze`] starts with this.
pub fn map<'m>(model: &'m Model, load_diagnostics: &Diagnostics) -> Mapped<'m> {
    let topology = Topology::build(model);
    let mut diagnostics = load_diagnostics.clone();
    diagnostics.extend(topology::lint::lint(&topology));
    Mapped {
        topology,
        diagnostics,
    }
}

/// Everything computed for one input.
pub struct Analysis<'m> {
    pub topology: Topology<'m>,
    /// Effective policies, aligned with `topology.paths()`.
    pub effective: Vec<PathEffective>,
    /// The generated objects, with the `only`/`gateway` filters of the options applied.
    pub generated: Generated,
    pub statuses: Vec<PolicyStatus>,
    /// The PlanPolicies' own statuses (from their RateLimitPolicies').
    pub extension_statuses: Vec<ExtensionStatus>,
    /// Load diagnostics plus those of every stage, sorted.
    pub diagnostics: Diagnostics,
}

/// Run every stage once. `load_diagnostics` are the loader's findings, carried into the result.
pub fn analyze<'m>(
    model: &'m Model,
    load_diagnostics: &Diagnostics,
    gen_opts: &GenerateOptions,
    status_opts: &StatusOptions,
) -> Analysis<'m> {
    let Mapped {
        topology,
        mut diagnostics,
    } = map(model, load_diagnostics);
    let effective = resolve::effective(&topology);
    // The CEL issues and the data-plane components status reads come from every path, whatever
    // `only` and `gateway` keep of the objects (see `Generated`).
    let mut generated = generate::generate(&topology, &effective, gen_opts);
    let statuses = status::status(
        &topology,
        &effective,
        &generated.cel_issues,
        Some(&generated.components),
        status_opts,
    );
    let extension_statuses = resolve::extension::statuses(model, &statuses);
    let mut accepted = vec![false; model.policies.len()];
    for s in &statuses {
        accepted[s.policy] = s.accepted.is_true();
    }
    let policy_objects =
        generate::policy_objects(model, &accepted, gen_opts, &mut generated.diagnostics);
    generated.objects.extend(policy_objects);
    for d in &generated.diagnostics {
        diagnostics.push(d.clone());
    }
    diagnostics.extend(status::diagnostics(&topology, &statuses));
    name_derived_sources(model, &mut diagnostics);
    diagnostics.sort();
    Analysis {
        topology,
        effective,
        generated,
        statuses,
        extension_statuses,
        diagnostics,
    }
}

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
    /// Effective policies, aligned with `topology.paths()` (empty with [`Depth::Map`]).
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
}

/// Run a whole computation on `model`: the stages `opts.depth` asks for, the findings about the
/// generated objects when asked, then suppression. `load_diagnostics` are the loader's findings.
/// Every command runs this, and `watch` its full cycles: the same input and settings give the
/// same findings whatever prints them.
pub fn run<'m>(model: &'m Model, load_diagnostics: &Diagnostics, opts: &RunOptions) -> Run<'m> {
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
        };
    }
    let complete = opts.unused_suppressions;
    let mut apart = None;
    let analysis = if opts.findings_apart {
        let mut analysis = analyze(model, &Diagnostics::new(), &opts.generate, &opts.status);
        let mut input = load_diagnostics.clone();
        name_derived_sources(model, &mut input);
        if opts.output_findings {
            input.extend(output_diagnostics(&opts.generate, &analysis.generated));
        }
        input.extend(opts.settings_findings.clone());
        let mut stages = Outcome::default();
        suppressor.sift(std::mem::take(&mut analysis.diagnostics), &mut stages);
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
        let mut analysis = analyze(model, load_diagnostics, &opts.generate, &opts.status);
        let mut diagnostics = std::mem::take(&mut analysis.diagnostics);
        if opts.output_findings {
            diagnostics.extend(output_diagnostics(&opts.generate, &analysis.generated));
            diagnostics.sort();
        }
        diagnostics.extend(opts.settings_findings.clone());
        suppressor.sift(diagnostics, &mut findings);
        suppressor.finish(complete, &mut findings);
        analysis
    };
    Run {
        topology: analysis.topology,
        effective: analysis.effective,
        generated: analysis.generated,
        statuses: analysis.statuses,
        extension_statuses: analysis.extension_statuses,
        findings,
        apart,
    }
}

/// A finding about an object an extension policy's controller creates names that extension
/// policy too (its labels already point into the extension policy's document).
pub(crate) fn name_derived_sources(model: &Model, diagnostics: &mut Diagnostics) {
    let derived: std::collections::HashMap<String, &str> = model
        .policies
        .iter()
        .filter_map(|p| Some((p.display(), p.meta.derived_from.as_deref()?)))
        .collect();
    if derived.is_empty() {
        return;
    }
    for d in diagnostics.iter_mut() {
        if let Some(o) = &mut d.object
            && let Some(from) = derived.get(o.as_str())
        {
            *o = format!("{o} (created by {from})");
        }
    }
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
    let carriers: Vec<_> = generated
        .objects
        .iter()
        .filter(|o| is_wasm_carrier(o))
        .collect();
    let first = carriers.first()?.namespace_name().unwrap_or(("NS", "NAME"));
    wasm_sha256_unknown(opts, carriers.len(), first)
}

/// Whether an object is a wasm `EnvoyFilter` (1.5), the carrier of the module's sha256.
pub(crate) fn is_wasm_carrier(o: &crate::generate::object::Object) -> bool {
    o.kind() == "EnvoyFilter" && o.label("kuadrant.io/wasm") == Some("true")
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
        let v = match crate::model::extension::derived_object(model, p) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::{Input, LoadOptions, Loaded, load};
    use crate::model::KuadrantVersion;

    fn load_text(text: &str, version: KuadrantVersion) -> Loaded {
        let input = Input::Text {
            name: "input.yaml".into(),
            bytes: text.as_bytes().to_vec(),
        };
        let opts = LoadOptions {
            version,
            ..LoadOptions::default()
        };
        load(&[input], &opts)
    }

    /// `--gateway` narrows the objects, never the statuses: one generate run gives the objects of
    /// one gateway and the CEL issues and components of all of them.
    #[test]
    fn a_gateway_filter_keeps_every_status() {
        let estates = [
            include_str!("../testdata/dataplane/cel-both-providers/input.yaml"),
            include_str!("../testdata/cases/case-j-route-with-two-gateways/input.yaml"),
        ];
        for (text, version) in estates
            .iter()
            .flat_map(|t| [KuadrantVersion::V1_4, KuadrantVersion::V1_5].map(|v| (t, v)))
        {
            let l = load_text(text, version);
            assert!(l.model.gateways.len() >= 2);
            let all_opts = GenerateOptions::default();
            let status_opts = StatusOptions::default();
            let all = analyze(&l.model, &l.diagnostics, &all_opts, &status_opts);
            let shown = |a: &Analysis| format!("{:?}", a.statuses);
            let mut objects_seen = 0;
            for g in &l.model.gateways {
                let opts = GenerateOptions {
                    gateway: Some((g.meta.namespace.clone(), g.meta.name.clone())),
                    ..all_opts.clone()
                };
                let one = analyze(&l.model, &l.diagnostics, &opts, &status_opts);
                assert_eq!(shown(&one), shown(&all), "{}", g.meta.key());
                assert_eq!(one.generated.cel_issues, all.generated.cel_issues);
                assert_eq!(one.generated.components, all.generated.components);
                // The Limitador holds the limits of the gateway's paths only; every other object
                // is one of the unfiltered run's.
                let everything: Vec<_> =
                    all.generated.objects.iter().map(|o| o.to_value()).collect();
                for o in &one.generated.objects {
                    if !matches!(o, crate::generate::object::Object::Limitador(_)) {
                        assert!(everything.contains(&o.to_value()), "{}", g.meta.key());
                        objects_seen += 1;
                    }
                }
            }
            assert!(objects_seen > 0);
        }
    }
}
