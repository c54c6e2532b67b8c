//! An incremental cycle: the slices of the estate before and after the change (`slice`) are
//! computed, and what they stand for replaces its part of the last state — output files, the
//! Limitador's limits, statuses and findings. The result is by construction the one a full cycle
//! gives (the property test in `tests/watch.rs` checks it after every random edit); a change the
//! slices cannot stand for makes [`Watch::incremental`] decline, and the cycle is a full one.

use super::limits::LimitadorState;
use super::slice::{self, Slice, Version};
use super::{CycleReport, Digest, Watch, status_lines, wasm_envoy_filters};
use crate::diag::{Diagnostic, Diagnostics};
use crate::generate::GenerateOptions;
use crate::generate::object::Object;
use crate::load::{self, ParsedFile};
use crate::outdir::Rendered;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::PathBuf;
use std::time::Instant;

/// The output files of a slice, by name.
type Files = BTreeMap<String, Rendered<Digest>>;

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
        // The index is brought up to date with the change whatever the cycle turns out to be (a
        // full cycle builds another).
        let mut index = self
            .kept
            .as_mut()
            .map(|k| std::mem::take(&mut k.index))
            .unwrap_or_default();
        let cut = self.cut(before, &mut index);
        if let Some(k) = self.kept.as_mut() {
            k.index = index;
        }
        let plan = match cut {
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
        let Some(mut computed) = self.compute_slices(old, new, &reach, &kinds, &gen_opts) else {
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

    /// What the change is, and the slices of both versions when it can be sliced. `index`, the
    /// index of the estate before the change, is brought up to date with it.
    fn cut(&self, before: &HashMap<PathBuf, ParsedFile>, index: &mut slice::Index) -> Cut {
        // The two versions of the estate, and the objects of the files that changed.
        let (mut old, mut new): (Version<'_>, Version<'_>) = (Vec::new(), Vec::new());
        let (mut old_seq, mut new_seq) = (0, 0);
        let mut changed = Vec::new();
        let mut replaced = Vec::new();
        for (i, p) in self.order.iter().enumerate() {
            let now = self.files.get(p).map(|f| &f.good);
            let was = before.get(p).or(now);
            if let (Some(was), Some(now)) = (before.get(p), now) {
                changed.extend(was.objects.iter().chain(&now.objects));
                replaced.push((i, &was.objects[..], &now.objects[..]));
            }
            old.push((old_seq, was.map_or(&[][..], |f| &f.objects[..])));
            new.push((new_seq, now.map_or(&[][..], |f| &f.objects[..])));
            old_seq += was.map_or(0, |f| f.objects_seen);
            new_seq += now.map_or(0, |f| f.objects_seen);
        }
        // A file listed twice is replaced once for each place.
        let update = |index: &mut slice::Index| {
            for (i, was, now) in &replaced {
                index.replace(*i, was, now);
            }
        };
        if changed.is_empty() {
            // A file stopped parsing and keeps its last good state.
            update(index);
            return Cut::Nothing;
        }
        let reach = slice::reach(&changed, &old, index);
        let old_slice = reach
            .as_ref()
            .and_then(|reach| slice::slice(&old, index, reach, false));
        update(index);
        let (Some(reach), Some(old)) = (reach, old_slice) else {
            return Cut::Full;
        };
        // Objects carrying the suppression annotation, for the findings of the whole estate.
        let (Some(new), Some(annotated)) = (
            slice::slice(&new, index, &reach, true),
            self.annotated(&new, index),
        ) else {
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
        let limitador = if kinds.limits {
            self.kept.as_mut().and_then(|k| k.limitador.take())
        } else {
            // The Limitador is the last state's: the slice's is not looked at.
            computed
                .new_objects
                .retain(|o| !matches!(o, Object::Limitador(_)));
            None
        };
        self.merge_outputs(computed, limitador, kinds)
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
            }
            kept.wasm_envoy_filters
                .retain(|gw, _| !reach.gateways.contains(gw));
            kept.wasm_envoy_filters.extend(outputs.wasm_envoy_filters);
            for gw in &reach.gateways {
                kept.owned.remove(gw);
            }
            kept.owned.extend(outputs.owned);
            for name in &outputs.removed {
                kept.carrier_digests.remove(name);
            }
            kept.carrier_digests.extend(outputs.carrier_digests);
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
            if let Digest::Later(_) = out.digest {
                self.later.push(file.clone());
            }
            self.outputs.insert(file, out);
        }
        report.objects = self.outputs.len();
    }

    /// The statuses: the core policies' come from the new slice.
    fn apply_statuses(&mut self, c: &mut Computed, report: &mut CycleReport) {
        let keys: BTreeSet<&String> = c.old.policies.iter().chain(&c.new.policies).collect();
        for k in keys {
            let after = if c.new.policies.contains(k) {
                c.statuses.remove(k)
            } else {
                None
            };
            let before = match &after {
                Some(a) => self.statuses.insert(k.clone(), a.clone()),
                None => self.statuses.remove(k),
            };
            if before != after {
                report.status_changes.push(super::StatusChange {
                    policy: k.clone(),
                    before,
                    after,
                });
            }
        }
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
        let fixed = shown(fixed_findings(kept, &self.opts.generate, file_diags))
            .into_iter()
            .map(|(_, l)| l)
            .collect();
        let (gone, stay) = std::mem::take(&mut kept.analysis)
            .into_iter()
            .partition(|(o, _)| in_core(o, &c.old) || in_core(o, &c.new));
        kept.analysis = stay;
        self.replace_lines(fixed, gone, fresh, report);
    }

    /// A cycle in which no object changed: the findings with the loader's new ones.
    fn findings_only(&mut self, file_diags: &Diagnostics, report: &mut CycleReport) -> bool {
        let Some(kept) = self.kept.as_ref() else {
            return false;
        };
        let Some(annotated) = self.annotated(&self.current(), &kept.index) else {
            return false;
        };
        let fixed = fixed_findings(kept, &self.opts.generate, file_diags);
        let fixed: Vec<String> =
            crate::suppress::apply(fixed, &annotated, &self.opts.ignore, false)
                .kept
                .iter()
                .map(|d| super::diagnostic_line(d, &self.sources))
                .collect();
        report.objects = self.outputs.len();
        self.replace_lines(fixed, Vec::new(), Vec::new(), report);
        report.incremental = Some(0);
        true
    }

    /// Every file's objects as they are now, with their sequence offsets.
    pub(super) fn current(&self) -> Version<'_> {
        let mut seq = 0;
        let mut v = Vec::new();
        for p in &self.order {
            match self.files.get(p) {
                Some(f) => {
                    v.push((seq, &f.good.objects[..]));
                    seq += f.good.objects_seen;
                }
                None => v.push((seq, &[])),
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

    /// The model of the objects of `version` (whose index is `index`) that carry the suppression
    /// annotation (all a suppression needs of the model); `None` when one of them is defined twice
    /// (the full model keeps one by content).
    fn annotated(
        &self,
        version: &Version<'_>,
        index: &slice::Index,
    ) -> Option<crate::model::Model> {
        let kept = self.kept.as_ref()?;
        let mut objects = Vec::new();
        for (offset, o) in index.annotated(version) {
            let (g, k, n, m) = o.identity();
            let id = [g.to_string(), k.to_string(), n.to_string(), m.to_string()];
            if kept.identities.get(&id).copied().unwrap_or(0) > 1 {
                return None;
            }
            let mut o = o.clone();
            o.meta_mut().origin.seq += offset;
            objects.push(o);
        }
        let mut sink = Diagnostics::new();
        Some(load::assemble_objects(
            objects,
            &self.sources,
            &self.opts.load,
            &mut sink,
        ))
    }

    /// The new slice computed (objects, statuses, findings); the old one's files are the last
    /// state's files of the affected gateways.
    fn compute_slices(
        &self,
        old: Slice,
        mut new: Slice,
        reach: &slice::Reach,
        kinds: &Kinds,
        gen_opts: &GenerateOptions,
    ) -> Option<Computed> {
        let kept = self.kept.as_ref()?;
        let mut sink = Diagnostics::new();
        let new_model = load::assemble_objects(
            std::mem::take(&mut new.objects),
            &self.sources,
            &self.opts.load,
            &mut sink,
        );
        let analysis =
            crate::analysis::analyze(&new_model, &Diagnostics::new(), gen_opts, &self.opts.status);
        // Objects of policies (Certificates, DNSRecords, extensions') are not sliced: `slice`
        // keeps their policies out, so the slice's are the Limitador and the affected gateways'.
        let mut new_objects = analysis.generated.objects;
        if !kinds.auth {
            // The AuthConfigs are the last state's.
            new_objects.retain(|o| !matches!(o, Object::AuthConfig(_)));
        }
        let (mut owned, all) = super::Owned::of(
            &new_model,
            new_objects
                .iter()
                .filter(|o| !matches!(o, Object::Limitador(_))),
        );
        if !all || owned.keys().any(|gw| !reach.gateways.contains(gw)) {
            return None;
        }
        // The last state's files of the affected gateways; their AuthConfigs stay when no route or
        // AuthPolicy changed.
        let mut old_files = BTreeSet::new();
        let none = super::Owned::default();
        for gw in &reach.gateways {
            let was = kept.owned.get(gw).unwrap_or(&none);
            old_files.extend(was.objects.iter().cloned());
            if kinds.auth {
                old_files.extend(was.auth.iter().cloned());
            } else {
                owned.entry(gw.clone()).or_default().auth = was.auth.clone();
            }
        }
        Some(Computed {
            statuses: status_lines(&new_model, &analysis.statuses),
            diagnostics: analysis.diagnostics.into_vec(),
            new_objects,
            old_files,
            owned,
            old,
            new,
        })
    }

    /// The output files the slices change, checked against the last state; `None` when a file of
    /// the new slice belongs to something outside it (the state is then not the slices' to change).
    /// `limitador` is the last state's (when limits may change), whose limits of the core routes are
    /// replaced.
    fn merge_outputs(
        &self,
        c: &mut Computed,
        limitador: Option<LimitadorState>,
        kinds: &Kinds,
    ) -> Option<MergedOutputs> {
        let dir = self.opts.out_dir.clone().unwrap_or_default();
        let is_limitador = |o: &Object| matches!(o, Object::Limitador(_));
        let new_limitador = c
            .new_objects
            .iter()
            .position(is_limitador)
            .map(|i| c.new_objects.remove(i));
        let previous = &self.outputs;
        let note = |f: &str, text: &str| {
            let digest = super::digest(text);
            let same = previous.get(f).is_some_and(|o| o.digest.get() == digest);
            (Digest::Known(digest), !same)
        };
        let previous_digest = |f: &str| previous.get(f).map(|o| o.digest.clone());
        let kept_digests = self.kept.as_ref().map(|k| &k.carrier_digests);
        let has = self.kept.as_ref().is_some_and(|k| k.has_limitador);
        let c_ref: &Computed = c;
        // The gateways' files and the Limitador's are done side by side.
        let (written, limitador, carrier_digests, unchanged) = std::thread::scope(|scope| {
            let limitador = scope.spawn(|| {
                limitador_file(
                    c_ref,
                    kinds.limits,
                    has,
                    limitador,
                    new_limitador,
                    &previous_digest,
                )
            });
            // A carrier whose object is the one its file was rendered from is not rendered again.
            let carrier_digests = super::memo::of(&c_ref.new_objects);
            let unchanged: Files = carrier_digests
                .iter()
                .filter(|(f, d)| kept_digests.and_then(|k| k.get(*f)) == Some(d))
                .filter_map(|(f, _)| {
                    let out = previous.get(f)?;
                    let r = Rendered {
                        object: out.object.clone(),
                        content: None,
                        note: out.digest.clone(),
                    };
                    Some((f.clone(), r))
                })
                .collect();
            let to_render: Vec<&Object> = c_ref
                .new_objects
                .iter()
                .filter(|o| {
                    !(super::memo::is_carrier(o)
                        && crate::outdir::object_file_name(o)
                            .is_some_and(|f| unchanged.contains_key(&f)))
                })
                .collect();
            let written = crate::outdir::render_objects(&dir, &to_render, note);
            let limitador = limitador
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e));
            (written, limitador, carrier_digests, unchanged)
        });
        let mut written: Files = written.ok()?;
        for (name, r) in unchanged {
            // Another object of the slice renders to the same file: a full cycle tells.
            if written.insert(name, r).is_some() {
                return None;
            }
        }
        for name in written.keys() {
            if self.outputs.contains_key(name) && !c.old_files.contains(name) {
                return None;
            }
        }
        let limitador = match limitador? {
            Some((state, name, rendered)) => {
                if !self.outputs.contains_key(&name) || written.contains_key(&name) {
                    return None;
                }
                written.insert(name, rendered);
                Some(state)
            }
            None => None,
        };
        let removed = c
            .old_files
            .iter()
            .filter(|f| !written.contains_key(*f))
            .cloned()
            .collect();
        Some(MergedOutputs {
            written,
            removed,
            limitador,
            wasm_envoy_filters: wasm_envoy_filters(&c.new_objects),
            carrier_digests,
            owned: std::mem::take(&mut c.owned),
        })
    }
}

/// The Limitador after an incremental cycle: its parts, its file name and the file's text.
type LimitadorFile = (LimitadorState, String, Rendered<Digest>);

/// The Limitador's file after the change: the last state's (`limitador`, when limits may change)
/// with the core routes' limits replaced by those of the new slice (`part`), its file name and
/// text, the text only when the limits changed (`previous` gives the last state's digest of a
/// file); `Some(None)` when it is not written again, `None` when the change cannot be merged (a
/// Limitador that cannot be cut into parts, or one without limits before or after: its shape
/// changes).
///
/// Limits that differ are written differently, so the text changed exactly when the limits did;
/// its digest is then computed on another thread while the files are written ([`Digest::later`]).
fn limitador_file(
    c: &Computed,
    limits: bool,
    has: bool,
    limitador: Option<LimitadorState>,
    part: Option<Object>,
    previous: &(impl Fn(&str) -> Option<Digest> + Sync),
) -> Option<Option<LimitadorFile>> {
    match (limits, has, limitador, part) {
        (false, ..) | (true, false, None, None) => Some(None),
        (true, true, Some(mut state), Some(part)) => {
            // A slice without limits has a Limitador without any.
            let part = match part {
                Object::Limitador(p) => p.limits,
                _ => Vec::new(),
            };
            let fresh: HashSet<&str> = c.new.routes.iter().map(String::as_str).collect();
            let part: Vec<_> = part
                .into_iter()
                .filter(|l| fresh.contains(&*l.namespace))
                .collect();
            let gone = c.old.routes.iter().chain(&c.new.routes).map(String::as_str);
            let changed = state.replace(gone, part)?;
            if state.is_empty() {
                return None;
            }
            let (name, object) = state.file.clone();
            let rendered = if changed {
                // In parts: its tens of megabytes are neither joined nor copied.
                let text = state.text();
                Rendered {
                    object,
                    note: Digest::later(text.clone()),
                    content: Some(text),
                }
            } else {
                Rendered {
                    object,
                    content: None,
                    note: previous(&name)?,
                }
            };
            Some(Some((state, name, rendered)))
        }
        _ => None,
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
    if let Some((_, first)) = kept.wasm_envoy_filters.first_key_value()
        && let Some(d) = crate::pipeline::wasm_sha256_unknown(
            opts,
            kept.wasm_envoy_filters.len(),
            (&first.0, &first.1),
        )
    {
        fixed.push(d);
    }
    fixed
}

/// The gateway an object of `model`'s output belongs to: an AuthConfig's path's, or the one a
/// per-gateway object (wasm plugin or filter, cluster patches) names in `spec.targetRefs` (Istio)
/// or `spec.targetRef(s)` (Envoy Gateway), in its own namespace. `None` for anything else.
pub(super) fn gateway_of(model: &crate::model::Model, o: &Object) -> Option<slice::GatewayKey> {
    let v = match o {
        Object::AuthConfig(a) => {
            let g = model.gateways.get(a.gateway)?;
            return Some((g.meta.namespace.clone(), g.meta.name.clone()));
        }
        Object::Tree(v) => v,
        Object::Wasm(w) => &w.shell,
        Object::Limitador(_) => return None,
    };
    let spec = &v["spec"];
    let refs: Vec<&serde_json::Value> = match spec["targetRefs"].as_array() {
        Some(ts) if !ts.is_empty() => ts.iter().collect(),
        _ => vec![&spec["targetRef"]],
    };
    // Every reference names the same gateway.
    let mut name: Option<&str> = None;
    for t in refs {
        let n = t["name"].as_str().filter(|_| t["kind"] == "Gateway")?;
        if name.is_some_and(|m| m != n) {
            return None;
        }
        name = Some(n);
    }
    let (name, (ns, _)) = (name?, o.namespace_name()?);
    Some((ns.to_string(), name.to_string()))
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
    /// The last state's files of the affected gateways (those the new slice may replace).
    old_files: BTreeSet<String>,
    /// The files of each affected gateway after the change.
    owned: HashMap<slice::GatewayKey, super::Owned>,
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
    limitador: Option<LimitadorState>,
    wasm_envoy_filters: BTreeMap<slice::GatewayKey, (String, String)>,
    /// The [`super::memo::object_digest`] of every carrier of the new slice, by file.
    carrier_digests: HashMap<String, [u8; 32]>,
    owned: HashMap<slice::GatewayKey, super::Owned>,
}
