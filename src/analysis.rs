//! The stages after loading, each once, in order: model → topology → effective policies →
//! generated objects → predicted status, with every diagnostic of every stage. [`map`] stops after
//! the topology; [`analyze`] runs them all. A whole run (suppression, the audit, the findings about
//! the generated objects) is [`crate::pipeline::run`], which starts here.

use crate::diag::Diagnostics;
use crate::generate::{self, GenerateOptions, Generated};
use crate::model::Model;
use crate::resolve::extension::ExtensionStatus;
use crate::resolve::status::{self, PolicyStatus, StatusOptions};
use crate::resolve::{self, PathEffective};
use crate::topology::{self, Topology};

/// The first stages alone, for the commands that show no more than the graph (`graph`): the
/// topology, with the loader's findings and the topology lint, unsorted.
pub struct Mapped<'m> {
    pub topology: Topology<'m>,
    pub diagnostics: Diagnostics,
}

/// Build the topology of `model` and lint it. `load_diagnostics` are the loader's findings, carried
/// into the result. [`analyze`] does the same, with the lint beside the effective policies.
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
    /// Effective policies, aligned with `topology.paths()`. From [`analyze`], every path's.
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
    analyze_paths(model, load_diagnostics, gen_opts, status_opts, Paths::All)
}

/// Which paths' effective policies an [`Analysis`] holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Paths {
    /// Every path's (what [`analyze`] gives, and `audit` reads).
    All,
    /// The invalid paths' entries may be empty where no output of the analysis reads them
    /// ([`resolve::effective::effective_of_valid_paths`]): the objects, statuses and findings are
    /// the same.
    Read,
}

/// [`analyze`], with the effective policies of `paths`.
pub(crate) fn analyze_paths<'m>(
    model: &'m Model,
    load_diagnostics: &Diagnostics,
    gen_opts: &GenerateOptions,
    status_opts: &StatusOptions,
    paths: Paths,
) -> Analysis<'m> {
    // Policies' predicates are validated by the generator (`generate/paths.rs`).
    if !model.policies.is_empty() {
        crate::cel::prepare();
    }
    let topology = Topology::build_with_paths(model);
    // The lint reads the topology while the effective policies are merged.
    let (lint, effective) = crate::par::join(
        || topology::lint::lint(&topology),
        || match paths {
            Paths::All => resolve::effective(&topology),
            Paths::Read => resolve::effective::effective_of_valid_paths(&topology),
        },
    );
    let mut diagnostics = load_diagnostics.clone();
    diagnostics.extend(lint);
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
        .filter_map(|p| {
            let from = p.meta.derived_from.as_deref()?;
            Some((p.display(), from))
        })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::load_text;
    use crate::model::KuadrantVersion;

    /// An analysis that leaves out the invalid paths' effective policies where no output reads
    /// them has the objects, statuses and findings of one with every path's: on every case, golden
    /// and data-plane estate (`dataplane/invalid-path-tracing` has a gateway whose only policy is
    /// on an invalid path, in an estate that traces), at both releases. On 1.5 without a
    /// TokenRateLimitPolicy it does leave them out.
    #[test]
    fn invalid_paths_left_out_change_no_output() {
        let cases = ["cases", "golden", "dataplane"].map(crate::generate::testdata_cases);
        let (mut left_out, mut traced) = (0, 0);
        for name in cases.iter().flatten() {
            for version in [KuadrantVersion::V1_4, KuadrantVersion::V1_5] {
                let l = crate::generate::testdata_loaded(name, version);
                let (g, s) = (GenerateOptions::default(), StatusOptions::default());
                let all = analyze_paths(&l.model, &l.diagnostics, &g, &s, Paths::All);
                let read = analyze_paths(&l.model, &l.diagnostics, &g, &s, Paths::Read);
                let what = format!("{name} at {version:?}");
                let values = |a: &Analysis| -> Vec<_> {
                    a.generated.objects.iter().map(|o| o.to_value()).collect()
                };
                let objects = values(&all);
                assert_eq!(values(&read), objects, "{what}");
                assert_eq!(
                    format!("{:?}", read.statuses),
                    format!("{:?}", all.statuses),
                    "{what}"
                );
                assert_eq!(
                    format!("{:?}", read.extension_statuses),
                    format!("{:?}", all.extension_statuses),
                    "{what}"
                );
                assert_eq!(read.diagnostics, all.diagnostics, "{what}");
                assert_eq!(
                    read.generated.cel_issues, all.generated.cel_issues,
                    "{what}"
                );
                assert_eq!(
                    read.generated.components, all.generated.components,
                    "{what}"
                );
                let paths = read.topology.path_list();
                for (i, p) in paths.iter().enumerate() {
                    if p.valid {
                        assert_eq!(
                            format!("{:?}", read.effective[i]),
                            format!("{:?}", all.effective[i]),
                            "{what}"
                        );
                    } else if format!("{:?}", read.effective[i])
                        != format!("{:?}", all.effective[i])
                    {
                        left_out += 1;
                    }
                }
                traced += usize::from(objects.iter().any(|v| v.to_string().contains("jaeger")));
            }
        }
        // Some invalid paths with policies were left out, and some output traced.
        assert!(left_out > 0 && traced > 0, "{left_out} {traced}");
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
