//! An incremental cycle: the slices of the estate before and after the change (`slice`) are
//! computed, and what they stand for replaces its part of the last state — output files, the
//! Limitador's limits, statuses and findings. The result is by construction the one a full cycle
//! gives (the property test in `tests/watch.rs` checks it after every random edit); a change the
//! slices cannot stand for makes [`Watch::incremental`] decline, and the cycle is a full one.

use super::slice::{self, Slice, Version};
use super::{CycleReport, LimitadorText, Watch, carriers, status_lines};
use crate::diag::{Diagnostic, Diagnostics};
use crate::generate::object::Object;
use crate::generate::{self, GenerateOptions};
use crate::load::{self, ParsedFile};
use crate::outdir::Rendered;
use sha2::Digest;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
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
        let plan = match self.cut(before) {
            Cut::Nothing => return self.findings_only(file_diags, report),
            Cut::Full => return false,
            Cut::Slices(plan) => plan,
        };
        lap("model", report);
        let gen_opts = GenerateOptions {
            slice: Some(plan.reach.gateways.clone()),
            ..self.opts.generate.clone()
        };
        let Plan {
            reach,
            old,
            new,
            kinds,
            annotated,
        } = *plan;
        let Some(mut computed) = self.compute_slices(old, new, &gen_opts) else {
            return false;
        };
        lap("analysis", report);
        let Some(outputs) = self.outputs_of(&mut computed, &kinds) else {
            return false;
        };
        lap("outputs", report);
        // Nothing can fail from here: the state is updated.
        self.apply_outputs(outputs, &reach, &kinds, report);
        self.apply_statuses(&mut computed, report);
        self.apply_findings(computed, &annotated, file_diags, report);
        lap("findings", report);
        report.incremental = Some(reach.gateways.len());
        true
    }

    /// What the change is, and the slices of both versions when it can be sliced.
    fn cut(&self, before: &HashMap<PathBuf, ParsedFile>) -> Cut {
        // The two versions of the estate, and the objects of the files that changed.
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
        if changed.is_empty() {
            // A file stopped parsing and keeps its last good state.
            return Cut::Nothing;
        }
        let Some(reach) = slice::reach(&changed, &[&old, &new]) else {
            return Cut::Full;
        };
        // The two versions are sliced side by side.
        let (old_slice, new_slice) = std::thread::scope(|scope| {
            let before = scope.spawn(|| slice::slice(&old, &reach));
            let after = slice::slice(&new, &reach);
            let before = before
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e));
            (before, after)
        });
        // Objects carrying the suppression annotation, for the findings of the whole estate.
        let (Some(old), Some(new), Some(annotated)) = (old_slice, new_slice, self.annotated(&new))
        else {
            return Cut::Full;
        };
        Cut::Slices(Box::new(Plan {
            reach,
            old,
            new,
            // What the changed kinds can change: AuthConfigs come from routes and AuthPolicies
            // only, Limitador limits from routes and (token) rate-limit policies only.
            kinds: Kinds::of(&self.modified(before)),
            annotated,
        }))
    }

    /// The output files of the computed slices, with the families the changed kinds cannot change
    /// left as they are.
    fn outputs_of(&mut self, computed: &mut Computed, kinds: &Kinds) -> Option<MergedOutputs> {
        // Taken from the state: a cycle that stops here is followed by a full one, which sets the
        // state again.
        let limitador = self.kept.as_mut().and_then(|k| k.limitador.take());
        let text = self.kept.as_mut().and_then(|k| k.limitador_text.take());
        if !kinds.auth {
            // Their AuthConfigs are those of the last state, files and texts.
            let auth = |o: &Object| !matches!(o, Object::AuthConfig(_));
            computed.old_objects.retain(auth);
            computed.new_objects.retain(auth);
        }
        let (limitador, text) = if kinds.limits {
            (limitador, text)
        } else {
            // The Limitador is the last state's: neither slice's is looked at.
            let keep = |o: &Object| o.kind() != "Limitador";
            computed.old_objects.retain(keep);
            computed.new_objects.retain(keep);
            if let Some(k) = self.kept.as_mut() {
                k.limitador = limitador;
                k.limitador_text = text;
            }
            (None, None)
        };
        self.merge_outputs(computed, limitador, text, kinds.limits)
    }

    /// The output files and the kept Limitador and wasm filters, updated; the file changes go into
    /// `report`.
    fn apply_outputs(
        &mut self,
        outputs: MergedOutputs,
        reach: &slice::Reach,
        kinds: &Kinds,
        report: &mut CycleReport,
    ) {
        if let Some(kept) = self.kept.as_mut() {
            if kinds.limits {
                kept.limitador = outputs.limitador;
                kept.limitador_text = outputs.limitador_text;
            }
            kept.carriers.retain(|gw, _| !reach.gateways.contains(gw));
            kept.carriers.extend(outputs.carriers);
        }
        for name in &outputs.removed {
            if let Some(o) = self.outputs.remove(name) {
                report.deleted.push(super::FileChange {
                    file: name.clone(),
                    object: o.object,
                    content: None,
                });
            }
        }
        for (file, r) in outputs.written {
            let out = super::written(self.outputs.get(&file), &file, r, report);
            self.outputs.insert(file, out);
        }
        report.objects = self.outputs.len();
    }

    /// The statuses: the core policies' come from the new slice.
    fn apply_statuses(&mut self, c: &mut Computed, report: &mut CycleReport) {
        let mut next = self.statuses.clone();
        next.retain(|k, _| !c.old.policies.contains(k) && !c.new.policies.contains(k));
        next.extend(
            std::mem::take(&mut c.statuses)
                .into_iter()
                .filter(|(k, _)| c.new.policies.contains(k)),
        );
        report.status_changes = super::changes(&self.statuses, &next);
        self.statuses = next;
    }

    /// The findings: those about core objects come from the new slice, the loader's are those of
    /// every file now.
    fn apply_findings(
        &mut self,
        c: Computed,
        annotated: &crate::model::Model,
        file_diags: &Diagnostics,
        report: &mut CycleReport,
    ) {
        let Some(kept) = self.kept.as_mut() else {
            return;
        };
        let in_core =
            |about: &Option<String>, s: &Slice| about.as_ref().is_some_and(|o| s.core.contains(o));
        let sources = &self.sources;
        let shown = |diags: Diagnostics| -> Vec<(Option<String>, String)> {
            crate::suppress::apply(diags, annotated, &self.opts.ignore, false)
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
        for d in c.diagnostics {
            slice_diags.push(d);
        }
        let fresh: Vec<_> = shown(slice_diags)
            .into_iter()
            .filter(|(o, _)| in_core(o, &c.new))
            .collect();
        let fixed = shown(fixed_findings(kept, &self.opts.generate, file_diags));
        kept.analysis
            .retain(|(o, _)| !in_core(o, &c.old) && !in_core(o, &c.new));
        kept.analysis.extend(fresh);
        let lines: BTreeSet<String> = fixed
            .into_iter()
            .chain(kept.analysis.iter().cloned())
            .map(|(_, l)| l)
            .collect();
        self.set_diagnostics(lines, report);
    }

    /// A cycle in which no object changed: the findings with the loader's new ones.
    fn findings_only(&mut self, file_diags: &Diagnostics, report: &mut CycleReport) -> bool {
        let Some(kept) = self.kept.as_ref() else {
            return false;
        };
        let Some(annotated) = self.annotated(&self.current()) else {
            return false;
        };
        let fixed = fixed_findings(kept, &self.opts.generate, file_diags);
        let mut lines: BTreeSet<String> =
            crate::suppress::apply(fixed, &annotated, &self.opts.ignore, false)
                .kept
                .iter()
                .map(|d| super::diagnostic_line(d, &self.sources))
                .collect();
        lines.extend(kept.analysis.iter().map(|(_, l)| l.clone()));
        report.objects = self.outputs.len();
        self.set_diagnostics(lines, report);
        report.incremental = Some(0);
        true
    }

    /// Every file's objects as they are now, with their sequence offsets.
    fn current(&self) -> Version<'_> {
        let mut seq = 0;
        let mut v = Vec::new();
        for p in &self.order {
            if let Some(f) = self.files.get(p) {
                v.push((seq, &f.good.objects[..]));
                seq += f.good.objects_seen;
            }
        }
        v
    }

    /// The objects of the files parsed again whose document text changed (or that are in one
    /// version only), both versions: an object only moved within its file is not among them.
    fn modified<'a>(
        &'a self,
        before: &'a HashMap<PathBuf, ParsedFile>,
    ) -> Vec<&'a load::validate::Validated> {
        let text = |o: &load::validate::Validated| {
            let d = o.meta().origin.document;
            self.sources
                .get(d.source)
                .and_then(|f| f.text.get(d.offset..d.offset + d.len))
        };
        let mut out = Vec::new();
        for (p, old) in before {
            let Some(new) = self.files.get(p).map(|f| &f.good) else {
                continue;
            };
            let texts = |objs: &'a [load::validate::Validated]| -> HashMap<_, _> {
                objs.iter().map(|o| (o.identity(), text(o))).collect()
            };
            let (was, is) = (texts(&old.objects), texts(&new.objects));
            // A text that cannot be found counts as changed.
            let same = |o: &load::validate::Validated, other: &HashMap<_, _>| {
                let t = text(o);
                t.is_some() && other.get(&o.identity()) == Some(&t)
            };
            out.extend(old.objects.iter().filter(|o| !same(o, &is)));
            out.extend(new.objects.iter().filter(|o| !same(o, &was)));
        }
        out
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
    /// `limitador` is the last state's, whose limits of the core routes are replaced (`text`: its
    /// text, cut around the limits).
    fn merge_outputs(
        &self,
        c: &mut Computed,
        limitador: Option<Object>,
        text: Option<LimitadorText>,
        limits: bool,
    ) -> Option<MergedOutputs> {
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
        let mut limitador_text = None;
        let limitador = match (limitador, old_limitador, new_limitador) {
            _ if !limits => None,
            (None, None, None) => None,
            (Some(Object::Limitador(mut all)), Some(_), Some(part)) => {
                // A slice without limits has a Limitador without any.
                let part = match part {
                    Object::Limitador(p) => p.limits,
                    _ => Vec::new(),
                };
                let gone: HashSet<&str> = c
                    .old
                    .routes
                    .iter()
                    .chain(&c.new.routes)
                    .map(String::as_str)
                    .collect();
                let fresh: HashSet<&str> = c.new.routes.iter().map(String::as_str).collect();
                let part: Vec<_> = part
                    .into_iter()
                    .filter(|l| fresh.contains(&*l.namespace))
                    .collect();
                let (content, text) = merge_limits(&mut all, part, text, &gone)?;
                if all.limits.is_empty() {
                    return None;
                }
                let all = Object::Limitador(all);
                let file = match content {
                    Some(content) => {
                        let (name, object) =
                            crate::outdir::object_file_names(std::slice::from_ref(&all))?
                                .pop_first()?;
                        let (note, keep) = note(&name, &content);
                        let rendered = Rendered {
                            object,
                            content: keep.then_some(content),
                            note,
                        };
                        BTreeMap::from([(name, rendered)])
                    }
                    None => crate::outdir::render_objects(&dir, std::slice::from_ref(&all), note)
                        .ok()?,
                };
                for (name, r) in file {
                    if !self.outputs.contains_key(&name) || written.contains_key(&name) {
                        return None;
                    }
                    written.insert(name, r);
                }
                limitador_text = text;
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
            limitador_text,
            carriers: carriers(&c.new_objects),
        })
    }
}

/// The findings an incremental cycle does not take from a slice, unsuppressed: the loader's (of
/// every file, `file_diags`), the model's own (kept from the last full cycle) and the wasm module's
/// unknown sha256 (counted over the kept wasm `EnvoyFilter`s).
fn fixed_findings(
    kept: &super::Kept,
    opts: &GenerateOptions,
    file_diags: &Diagnostics,
) -> Diagnostics {
    let mut fixed = file_diags.clone();
    fixed.extend(kept.assembly.clone());
    if let Some((_, first)) = kept.carriers.first_key_value()
        && let Some(d) =
            crate::pipeline::wasm_sha256_unknown(opts, kept.carriers.len(), (&first.0, &first.1))
    {
        fixed.push(d);
    }
    fixed
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

/// What a change is: nothing (no object changed), something only a full cycle can stand for, or
/// the slices of the versions before and after.
enum Cut {
    Nothing,
    Full,
    Slices(Box<Plan>),
}

/// An incremental cycle's slices, before it computes them.
struct Plan {
    reach: slice::Reach,
    old: Slice,
    new: Slice,
    kinds: Kinds,
    /// The model of the objects that carry the suppression annotation.
    annotated: crate::model::Model,
}

/// The last state's limits without those of `gone` routes, with `part` merged in; with the last
/// state's text in parts (`text`, aligned with the limits), the new file text and the parts after.
fn merge_limits(
    all: &mut generate::object::LimitadorCarrier,
    part: Vec<generate::object::LimitadorLimit>,
    text: Option<LimitadorText>,
    gone: &HashSet<&str>,
) -> Option<(Option<String>, Option<LimitadorText>)> {
    Some(match text {
        // Only the new limits are written: the others' items are the last state's.
        Some(mut text) if text.items.len() == all.limits.len() => {
            let kept: Vec<_> = std::mem::take(&mut all.limits)
                .into_iter()
                .zip(std::mem::take(&mut text.items))
                .filter(|(l, _)| !gone.contains(&*l.namespace))
                .collect();
            let col = text.col;
            let added = crate::par::map(&part, 512, |l| crate::render::objects::limit_item(l, col))
                .into_iter()
                .collect::<Result<Vec<String>, String>>()
                .ok()?;
            let merged = generate::merge_limits(kept, part.into_iter().zip(added).collect());
            (all.limits, text.items) = merged.into_iter().unzip();
            (Some(text.file_content()), Some(text))
        }
        _ => {
            all.limits.retain(|l| !gone.contains(&*l.namespace));
            let kept = std::mem::take(&mut all.limits).into_iter().map(|l| (l, ()));
            let merged =
                generate::merge_limits(kept.collect(), part.into_iter().map(|l| (l, ())).collect());
            all.limits = merged.into_iter().map(|(l, ())| l).collect();
            (None, None)
        }
    })
}

/// Which kinds of object changed.
struct Kinds {
    /// Routes or AuthPolicies: AuthConfigs may change.
    auth: bool,
    /// Routes or (token) rate-limit policies: Limitador limits may change.
    limits: bool,
}

impl Kinds {
    fn of(changed: &[&crate::load::validate::Validated]) -> Self {
        use crate::load::validate::Validated;
        use crate::model::PolicyKind;
        let mut k = Kinds {
            auth: false,
            limits: false,
        };
        for o in changed {
            match o {
                Validated::Policy(p) if p.kind == PolicyKind::Auth => k.auth = true,
                Validated::Policy(p)
                    if matches!(p.kind, PolicyKind::RateLimit | PolicyKind::TokenRateLimit) =>
                {
                    k.limits = true
                }
                // Routes (and anything else, which `slice::reach` refuses anyway).
                _ => {
                    k.auth = true;
                    k.limits = true;
                }
            }
        }
        k
    }
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
    limitador_text: Option<LimitadorText>,
    carriers: BTreeMap<slice::GatewayKey, (String, String)>,
}
