//! An incremental cycle: the slices of the estate before and after the change (`slice`) are
//! computed, and what they stand for replaces its part of the last state — output files, the
//! Limitador's limits, statuses and findings. The result is by construction the one a full cycle
//! gives (the property test in `tests/watch.rs` checks it after every random edit); a change the
//! slices cannot stand for makes [`Watch::incremental`] decline, and the cycle is a full one.

use super::slice::{self, Slice, Version};
use super::{CycleReport, OutFile, Watch, carriers, status_lines};
use crate::diag::{Diagnostic, Diagnostics};
use crate::generate::object::Object;
use crate::generate::{self, GenerateOptions};
use crate::load::{self, ParsedFile};
use crate::outdir::Rendered;
use sha2::Digest;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::time::Instant;

/// The output files of a slice, by name.
type Files = BTreeMap<String, Rendered<[u8; 32]>>;

impl Watch {
    /// Try an incremental cycle; `false` when it cannot stand for this change (the state is then
    /// untouched, and the caller runs a full cycle).
    pub(super) fn incremental(
        &mut self,
        before: &HashMap<PathBuf, ParsedFile>,
        file_diags: &Diagnostics,
        report: &mut CycleReport,
    ) -> bool {
        if self.kept.is_none()
            || self.opts.explain.is_some()
            || self.opts.generate.gateway.is_some()
        {
            return false;
        }
        let mut clock = Instant::now();
        let mut lap = |name: &'static str, report: &mut CycleReport| {
            report.stages.push((name, clock.elapsed()));
            clock = Instant::now();
        };
        // The two versions of the estate, and the objects that changed between them.
        let (mut old, mut new): (Version<'_>, Version<'_>) = (Vec::new(), Vec::new());
        let (mut old_seq, mut new_seq) = (0, 0);
        let mut changed = Vec::new();
        for p in &self.order {
            let Some(f) = self.files.get(p) else { continue };
            let was = before.get(p).unwrap_or(&f.good);
            if before.contains_key(p) {
                changed.extend(was.objects.iter().chain(&f.good.objects));
            }
            old.push((old_seq, &was.objects[..]));
            new.push((new_seq, &f.good.objects[..]));
            old_seq += was.objects_seen;
            new_seq += f.good.objects_seen;
        }
        let Some(reach) = slice::reach(&changed, &[&old, &new]) else {
            return false;
        };
        let (Some(old_slice), Some(new_slice)) =
            (slice::slice(&old, &reach), slice::slice(&new, &reach))
        else {
            return false;
        };
        // Objects carrying the suppression annotation, for the findings of the whole estate.
        let Some(annotated) = self.annotated(&new) else {
            return false;
        };
        drop((old, new, changed));
        lap("model", report);
        let gen_opts = GenerateOptions {
            slice: Some(reach.gateways.clone()),
            ..self.opts.generate.clone()
        };
        let Some(mut computed) = self.compute_slices(old_slice, new_slice, &gen_opts) else {
            return false;
        };
        lap("analysis", report);
        // Taken from the state: a cycle that stops here is followed by a full one, which sets the
        // state again.
        let limitador = self.kept.as_mut().and_then(|k| k.limitador.take());
        let Some(outputs) = self.merge_outputs(&mut computed, limitador) else {
            return false;
        };
        lap("outputs", report);
        // Nothing can fail from here: the state is updated.
        let Computed {
            old: old_slice,
            new: new_slice,
            statuses,
            diagnostics,
            ..
        } = computed;
        let Some(kept) = self.kept.as_mut() else {
            return false;
        };
        let removed_files = outputs.removed;
        kept.limitador = outputs.limitador;
        kept.carriers.retain(|gw, _| !reach.gateways.contains(gw));
        kept.carriers.extend(outputs.carriers);
        for name in &removed_files {
            if let Some(o) = self.outputs.remove(name) {
                report.deleted.push(super::FileChange {
                    file: name.clone(),
                    object: o.object,
                    content: None,
                });
            }
        }
        for (file, r) in outputs.written {
            let change = super::FileChange {
                file: file.clone(),
                object: r.object.clone(),
                content: r.content,
            };
            match self.outputs.get(&file) {
                None => report.created.push(change),
                Some(o) if o.digest != r.note => report.updated.push(change),
                Some(_) => {}
            }
            self.outputs.insert(
                file,
                OutFile {
                    object: r.object,
                    digest: r.note,
                },
            );
        }
        report.objects = self.outputs.len();
        // Statuses: the core policies' come from the slice.
        let mut next = self.statuses.clone();
        next.retain(|k, _| !old_slice.policies.contains(k) && !new_slice.policies.contains(k));
        next.extend(
            statuses
                .into_iter()
                .filter(|(k, _)| new_slice.policies.contains(k)),
        );
        report.status_changes = super::changes(&self.statuses, &next);
        self.statuses = next;
        // Findings: those about core objects come from the slice.
        let in_core =
            |about: &Option<String>, s: &Slice| about.as_ref().is_some_and(|o| s.core.contains(o));
        let sources = &self.sources;
        let shown = |diags: Diagnostics| -> Vec<(Option<String>, String)> {
            crate::suppress::apply(diags, &annotated, &self.opts.ignore, false)
                .kept
                .iter()
                .map(|d| {
                    (
                        slice::about(d).map(String::from),
                        super::diagnostic_line(d, sources),
                    )
                })
                .collect()
        };
        let mut slice_diags = Diagnostics::new();
        for d in diagnostics {
            slice_diags.push(d);
        }
        let fresh: Vec<_> = shown(slice_diags)
            .into_iter()
            .filter(|(o, _)| in_core(o, &new_slice))
            .collect();
        let mut fixed = file_diags.clone();
        fixed.extend(kept.assembly.clone());
        if let Some((_, first)) = kept.carriers.first_key_value()
            && let Some(d) = crate::pipeline::wasm_sha256_unknown(
                &self.opts.generate,
                kept.carriers.len(),
                (&first.0, &first.1),
            )
        {
            fixed.push(d);
        }
        let fixed = shown(fixed);
        kept.analysis
            .retain(|(o, _)| !in_core(o, &old_slice) && !in_core(o, &new_slice));
        kept.analysis.extend(fresh);
        let lines: BTreeSet<String> = fixed
            .into_iter()
            .chain(kept.analysis.iter().cloned())
            .map(|(_, l)| l)
            .collect();
        self.set_diagnostics(lines, report);
        lap("findings", report);
        report.incremental = Some(reach.gateways.len());
        true
    }

    /// The model of the objects that carry the suppression annotation (all a suppression needs of
    /// the model); `None` when one of them is defined twice (the full model keeps one by content).
    fn annotated(&self, version: &Version<'_>) -> Option<crate::model::Model> {
        let kept = self.kept.as_ref()?;
        let mut objects = Vec::new();
        for (offset, objs) in version {
            for o in objs.iter() {
                if o.meta()
                    .annotations
                    .contains_key(crate::suppress::ANNOTATION)
                {
                    let (g, k, n, m) = o.identity();
                    let id = [g.to_string(), k.to_string(), n.to_string(), m.to_string()];
                    if kept.identities.get(&id).copied().unwrap_or(0) > 1 {
                        return None;
                    }
                    let mut o = o.clone();
                    o.meta_mut().origin.seq += offset;
                    objects.push(o);
                }
            }
        }
        let mut sink = Diagnostics::new();
        Some(load::assemble_objects(
            objects,
            &self.sources,
            &self.opts.load,
            &mut sink,
        ))
    }

    /// The slices computed: the new one in full (objects, statuses, findings), the old one for its
    /// objects only (the files they were).
    fn compute_slices(
        &self,
        mut old: Slice,
        mut new: Slice,
        gen_opts: &GenerateOptions,
    ) -> Option<Computed> {
        let mut sink = Diagnostics::new();
        let new_model = load::assemble_objects(
            std::mem::take(&mut new.objects),
            &self.sources,
            &self.opts.load,
            &mut sink,
        );
        let analysis =
            crate::pipeline::analyze(&new_model, &Diagnostics::new(), gen_opts, &self.opts.status);
        let old_model = load::assemble_objects(
            std::mem::take(&mut old.objects),
            &self.sources,
            &self.opts.load,
            &mut sink,
        );
        let old_topology = crate::topology::Topology::build(&old_model);
        let old_effective = crate::resolve::effective(&old_topology);
        let old_objects = generate::generate(&old_topology, &old_effective, gen_opts).objects;
        // Objects of policies (Certificates, DNSRecords, extensions') are not sliced: `slice`
        // keeps their policies out, so neither version may have any.
        if analysis
            .generated
            .objects
            .iter()
            .chain(&old_objects)
            .any(|o| {
                !matches!(o, Object::Wasm(_) | Object::AuthConfig(_))
                    && o.kind() != "Limitador"
                    && !is_gateway_object(o)
            })
        {
            return None;
        }
        Some(Computed {
            statuses: status_lines(&new_model, &analysis.statuses),
            diagnostics: analysis.diagnostics.into_vec(),
            new_objects: analysis.generated.objects,
            old_objects,
            old,
            new,
        })
    }

    /// The output files the slices change, checked against the last state; `None` when a file of
    /// the new slice belongs to something outside it (the state is then not the slices' to change).
    /// `limitador` is the last state's, whose limits of the core routes are replaced.
    fn merge_outputs(&self, c: &mut Computed, limitador: Option<Object>) -> Option<MergedOutputs> {
        let dir = self.opts.out_dir.clone().unwrap_or_default();
        let is_limitador = |o: &Object| o.kind() == "Limitador";
        let old_limitador = c.old_objects.iter().position(is_limitador);
        let new_limitador = c
            .new_objects
            .iter()
            .position(is_limitador)
            .map(|i| c.new_objects.remove(i));
        c.old_objects.retain(|o| !is_limitador(o));
        // The old slice's files: their names are enough.
        let old_files = crate::outdir::object_file_names(&c.old_objects)?;
        let previous = &self.outputs;
        let note = |f: &str, text: &str| {
            let digest: [u8; 32] = sha2::Sha256::digest(text.as_bytes()).into();
            let same = previous.get(f).is_some_and(|o| o.digest == digest);
            (digest, !same)
        };
        let mut written: Files = crate::outdir::render_objects(&dir, &c.new_objects, note).ok()?;
        for name in written.keys() {
            if self.outputs.contains_key(name) && !old_files.contains_key(name) {
                return None;
            }
        }
        // The Limitador: the core routes' limits replaced.
        let limitador = match (limitador, old_limitador, new_limitador) {
            (None, None, None) => None,
            (Some(Object::Limitador(mut all)), Some(_), Some(part)) => {
                // A slice without limits has a Limitador without any.
                let part = match part {
                    Object::Limitador(p) => p.limits,
                    _ => Vec::new(),
                };
                let (old_routes, new_routes) = (&c.old.routes, &c.new.routes);
                all.limits.retain(|l| {
                    !old_routes.contains(&*l.namespace) && !new_routes.contains(&*l.namespace)
                });
                let part: Vec<_> = part
                    .into_iter()
                    .filter(|l| new_routes.contains(&*l.namespace))
                    .collect();
                all.limits = generate::merge_limits(std::mem::take(&mut all.limits), part);
                if all.limits.is_empty() {
                    return None;
                }
                let all = Object::Limitador(all);
                let file =
                    crate::outdir::render_objects(&dir, std::slice::from_ref(&all), note).ok()?;
                for (name, r) in file {
                    if !self.outputs.contains_key(&name) || written.contains_key(&name) {
                        return None;
                    }
                    written.insert(name, r);
                }
                Some(all)
            }
            // A Limitador without limits, before or after: its shape changes; a full cycle.
            _ => return None,
        };
        let removed = old_files
            .into_keys()
            .filter(|f| !written.contains_key(f))
            .collect();
        Some(MergedOutputs {
            written,
            removed,
            limitador,
            carriers: carriers(&c.new_objects),
        })
    }
}

/// A per-gateway object (wasm plugin or filter, cluster patches): it names its gateway in
/// `spec.targetRefs` (Istio) or `spec.targetRef(s)` (Envoy Gateway).
fn is_gateway_object(o: &Object) -> bool {
    let v = match o {
        Object::Tree(v) => v,
        Object::Wasm(w) => &w.shell,
        _ => return false,
    };
    let spec = &v["spec"];
    let names_gateway = |t: &serde_json::Value| t["kind"] == "Gateway";
    spec["targetRefs"]
        .as_array()
        .is_some_and(|ts| !ts.is_empty() && ts.iter().all(names_gateway))
        || names_gateway(&spec["targetRef"])
}

/// The slices and what was computed from them.
struct Computed {
    old: Slice,
    new: Slice,
    old_objects: Vec<Object>,
    new_objects: Vec<Object>,
    /// The new slice's status lines, by policy.
    statuses: BTreeMap<String, String>,
    /// The new slice's findings after loading, unsuppressed.
    diagnostics: Vec<Diagnostic>,
}

/// The output files an incremental cycle writes and removes.
struct MergedOutputs {
    written: Files,
    removed: BTreeSet<String>,
    limitador: Option<Object>,
    carriers: BTreeMap<slice::GatewayKey, (String, String)>,
}
