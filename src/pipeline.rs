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
                    if o.kind() != "Limitador" {
                        assert!(everything.contains(&o.to_value()), "{}", g.meta.key());
                        objects_seen += 1;
                    }
                }
            }
            assert!(objects_seen > 0);
        }
    }
}
