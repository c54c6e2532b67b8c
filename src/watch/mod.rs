//! `watch`: the state of the world, kept up to date as input files change.
//!
//! Owns the per-file cache (each file's last text and its parsed, validated objects), the cycle that
//! turns a set of changed paths into a new state, and the differences between two states: output
//! files created / updated / deleted, policies whose predicted status changed, diagnostics that
//! appeared or were resolved. Only the files that changed are read and parsed again. A change to
//! routes and rate-limit / auth policies is then computed on the slice of the estate the affected
//! gateways' paths need and merged into the last state (`incremental`, `slice`); anything else, in
//! full from the cached files (`docs/architecture.md`, "watch: incremental cycles"). Either way a
//! cycle's state is the state a fresh `compute` of the same files gives (the property test in
//! `tests/watch.rs` checks it). Watching the file system, writing `--out-dir` and printing are the
//! command's; this module does no output.
//!
//! A file that stops parsing (an editor saving in steps, a typo) keeps its last good objects, and
//! its findings are shown with `PCTL4012` until it parses again.

mod incremental;
mod limits;
mod memo;
mod slice;

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::generate::GenerateOptions;
use crate::generate::object::Object;
use crate::load::{self, LoadOptions, ParsedFile};
use crate::model::{Locator, Model, PolicyKind};
use crate::resolve::status::{PolicyStatus, StatusOptions};
use crate::source::{SourceId, SourceMap};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What to watch and how to compute.
#[derive(Clone, Debug)]
pub struct WatchOptions {
    /// The `-f` paths: files or folders, read as `compute` reads them.
    pub roots: Vec<PathBuf>,
    pub load: LoadOptions,
    pub generate: GenerateOptions,
    pub status: StatusOptions,
    /// Suppression rules (the settings file's `ignore:`), besides the inputs' ignore annotations.
    pub ignore: Vec<crate::suppress::Rule>,
    /// A target to explain after every cycle (`watch explain TARGET`).
    pub explain: Option<(Locator, Option<PolicyKind>)>,
    /// The folder output files are named for (in collision findings); `None` without `--out-dir`.
    pub out_dir: Option<PathBuf>,
}

impl WatchOptions {
    /// The options of a full run of the pipeline: `compute --out-dir`'s, with the input's and the
    /// stages' findings kept apart. A suppression that silences nothing is not reported: an
    /// incremental cycle sees only part of the findings.
    pub(crate) fn run(&self) -> crate::pipeline::RunOptions {
        crate::pipeline::RunOptions {
            depth: crate::pipeline::Depth::Analyze,
            generate: self.generate.clone(),
            status: self.status.clone(),
            output_findings: true,
            ignore: self.ignore.clone(),
            settings_findings: Diagnostics::new(),
            unused_suppressions: false,
            findings_apart: true,
            audit: None,
        }
    }
}

/// One output file as of the last cycle.
#[derive(Clone, Debug)]
struct OutFile {
    object: String,
    digest: Digest,
}

/// An output file's text digest. An incremental cycle's Limitador (tens of megabytes) has its
/// digest computed on a thread of its own while the cycle's files are written; it is waited for
/// where it is first needed, at the latest when the next cycle starts.
#[derive(Clone, Debug)]
enum Digest {
    Known([u8; 32]),
    Later(Arc<LaterDigest>),
}

impl Digest {
    fn get(&self) -> [u8; 32] {
        match self {
            Digest::Known(d) => *d,
            Digest::Later(l) => *l.digest.get_or_init(|| digest_text(&l.text)),
        }
    }

    /// Waited for, and the text it was computed from let go.
    fn settle(&mut self) {
        if let Digest::Later(_) = self {
            *self = Digest::Known(self.get());
        }
    }

    /// The digest of `text`, computed from now on on another thread (or, when a thread cannot be
    /// started, by the first to ask).
    fn later(text: crate::outdir::Text) -> Self {
        let l = Arc::new(LaterDigest {
            digest: std::sync::OnceLock::new(),
            text,
        });
        let d = Digest::Later(Arc::clone(&l));
        let on_thread = Digest::Later(l);
        let _ = std::thread::Builder::new()
            .name("digest".into())
            .spawn(move || on_thread.get());
        d
    }
}

/// A digest being computed from a text.
struct LaterDigest {
    digest: std::sync::OnceLock<[u8; 32]>,
    text: crate::outdir::Text,
}

impl std::fmt::Debug for LaterDigest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LaterDigest")
            .field("digest", &self.digest.get())
            .finish_non_exhaustive()
    }
}

/// One input file: its last text and the parse the state uses.
struct FileState {
    /// The file's absolute path, to match change events.
    absolute: PathBuf,
    /// The text last read (parsed or not).
    text: crate::source::SourceText,
    /// Two source ids used in turn: `ids[current]` holds the text of `good`; a new text is parsed
    /// into the other one, which becomes current when the text parses.
    ids: [SourceId; 2],
    current: usize,
    /// The bytes last read (what the run's budget of bytes counts).
    bytes: u64,
    /// The last parse that had no syntax error (empty before the first one).
    good: ParsedFile,
    /// Findings of the current text when it does not parse (or cannot be read): `good` is kept.
    failed: Option<Diagnostics>,
}

/// An output file created, updated or deleted in a cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileChange {
    /// The file name in the output folder.
    pub file: String,
    /// `Kind namespace/name`.
    pub object: String,
    /// The new text; `None` when deleted.
    pub content: Option<crate::outdir::Text>,
}

/// A policy whose predicted status changed: the one-line summaries before and after (`None`: the
/// policy did not exist).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatusChange {
    pub policy: String,
    pub before: Option<String>,
    pub after: Option<String>,
}

/// What one cycle did; the reconciler's statistics.
#[derive(Clone, Debug, Default)]
pub struct CycleReport {
    /// The number of the cycles that recomputed, this one included: 1 for the first.
    pub cycle: u64,
    /// Whether anything was computed again (a change event for a file whose text did not change, or
    /// for a file that is not a manifest, does nothing).
    pub recomputed: bool,
    /// Files read, and of those parsed again (their text had changed).
    pub files_read: usize,
    pub files_parsed: usize,
    /// Files no longer present.
    pub files_removed: usize,
    /// Input files watched after the cycle, and output files desired.
    pub files: usize,
    pub objects: usize,
    pub created: Vec<FileChange>,
    pub updated: Vec<FileChange>,
    pub deleted: Vec<FileChange>,
    pub status_changes: Vec<StatusChange>,
    pub new_diagnostics: Vec<String>,
    pub resolved_diagnostics: Vec<String>,
    /// `watch explain`: the explanation (or why there is none) after this cycle.
    pub explain:
        Option<Result<crate::resolve::explain::Explanation, crate::resolve::explain::ExplainError>>,
    /// An incremental cycle: how many gateways' paths were computed again (of how many there
    /// are); `None` for a full cycle.
    pub incremental: Option<usize>,
    pub elapsed: Duration,
    /// Where the time went: `read` (listing, reading and parsing files), `model`, `analysis`
    /// (topology to statuses), `outputs` (rendering and comparing every output file), `findings`.
    pub stages: Vec<(&'static str, Duration)>,
}

/// The comparable state after a cycle: every output file's text digest, every policy's status
/// summary, every finding as one line.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Snapshot {
    pub files: BTreeMap<String, [u8; 32]>,
    pub statuses: BTreeMap<String, String>,
    pub diagnostics: BTreeSet<String>,
}

/// The watched state.
pub struct Watch {
    opts: WatchOptions,
    sources: SourceMap,
    files: HashMap<PathBuf, FileState>,
    /// The files in the order `compute` reads them (a file under two `-f` paths is read twice).
    order: Vec<PathBuf>,
    outputs: BTreeMap<String, OutFile>,
    statuses: BTreeMap<String, String>,
    diagnostics: BTreeSet<String>,
    cycle: u64,
    /// Recompute on the next cycle even if no file changed ([`Watch::forget_outputs`]).
    force: bool,
    /// The roots found gone at the last cycle (see `scan`).
    gone: BTreeSet<PathBuf>,
    /// The first file left out over the budget of bytes at the last cycle.
    over_bytes: Option<PathBuf>,
    /// Within a cycle: the last good parse of each file parsed again, as it was before.
    before: HashMap<PathBuf, ParsedFile>,
    /// What the last cycle kept for an incremental next one; `None` makes the next one full.
    kept: Option<Kept>,
    /// The output files whose digest is [`Digest::Later`].
    later: Vec<String>,
    /// The sources the last full cycle added for objects extension policies create.
    derived_sources: Vec<SourceId>,
}

/// What an incremental cycle starts from, besides the output files, statuses and findings.
struct Kept {
    /// The Limitador in parts; `None` when the output has none, or one it cannot be cut into
    /// (`has_limitador` tells which).
    limitador: Option<limits::LimitadorState>,
    has_limitador: bool,
    /// The model's own findings (duplicates, assumed classes): only a full cycle changes them.
    assembly: Diagnostics,
    /// The findings of the stages after loading that suppression keeps: the object each is about
    /// (`Kind namespace/name`) and its line.
    analysis: Vec<(Option<String>, String)>,
    /// The lines of the other findings (the loader's, the model's, the wasm module's sha256).
    fixed: Vec<String>,
    /// How many of `fixed` and `analysis` give each line of the state's findings: a cycle looks
    /// only at the lines it adds or takes out, not at all of them.
    line_counts: HashMap<String, u32>,
    /// How many times each object identity (group, kind, namespace, name) is defined.
    identities: HashMap<[String; 4], u32>,
    /// The wasm `EnvoyFilter`s of the output, by gateway: the filter's namespace and name.
    wasm_envoy_filters: BTreeMap<slice::GatewayKey, (String, String)>,
    /// The estate's objects by what slices look them up by.
    index: slice::Index,
    /// The output files of each gateway: its own objects and the AuthConfigs of its paths.
    owned: HashMap<slice::GatewayKey, Owned>,
    /// The digest of the object each wasm carrier's file was rendered from, by file (`memo`).
    carrier_digests: HashMap<String, [u8; 32]>,
}

/// The output files of one gateway.
#[derive(Default)]
struct Owned {
    /// Its wasm plugin or filter and cluster patches.
    objects: BTreeSet<String>,
    /// The AuthConfigs of its paths.
    auth: BTreeSet<String>,
}

impl Owned {
    /// The files of `objects` (generated from `model`) that belong to a gateway, by gateway, and
    /// whether every object does (and can be named).
    fn of<'a>(
        model: &Model,
        objects: impl IntoIterator<Item = &'a Object>,
    ) -> (HashMap<slice::GatewayKey, Owned>, bool) {
        let mut out: HashMap<slice::GatewayKey, Owned> = HashMap::new();
        let mut all = true;
        for o in objects {
            let (Some(gw), Some(file)) = (
                incremental::gateway_of(model, o),
                crate::outdir::object_file_name(o),
            ) else {
                all = false;
                continue;
            };
            let owned = out.entry(gw).or_default();
            match o {
                Object::AuthConfig(_) => owned.auth.insert(file),
                _ => owned.objects.insert(file),
            };
        }
        (out, all)
    }
}

impl Watch {
    /// A state with nothing read yet; the first [`Watch::apply`] reads every file. `sources` holds
    /// the texts the suppression rules point into (the settings file), or nothing.
    pub fn new(opts: WatchOptions, sources: SourceMap) -> Self {
        Watch {
            opts,
            sources,
            files: HashMap::new(),
            order: Vec::new(),
            outputs: BTreeMap::new(),
            statuses: BTreeMap::new(),
            diagnostics: BTreeSet::new(),
            cycle: 0,
            force: false,
            gone: BTreeSet::new(),
            over_bytes: None,
            before: HashMap::new(),
            kept: None,
            later: Vec::new(),
            derived_sources: Vec::new(),
        }
    }

    /// One cycle after a change to `changed` (files or folders, absolute or as given; events of
    /// any kind): the roots are listed again, new files and files at or below a changed path are
    /// read, and those whose text changed are parsed again. The first cycle reads everything.
    pub fn apply(&mut self, changed: &[PathBuf]) -> CycleReport {
        let changed: Vec<PathBuf> = changed.iter().map(|p| absolute(p)).collect();
        self.cycle_with(|f| changed.iter().any(|c| f.starts_with(c)))
    }

    /// A full recompute (`--resync`, Enter): every file read and parsed again, nothing kept but the
    /// last state to compare with; the report lists any difference, and there must be none.
    pub fn resync(&mut self) -> CycleReport {
        // The files of a root that is gone are kept (see `scan`): there is nothing to read again.
        let keep: BTreeSet<PathBuf> = self
            .opts
            .roots
            .iter()
            .filter(|r| load::discover_files(r).0.is_empty())
            .flat_map(|r| self.files_under(r))
            .collect();
        let files = std::mem::take(&mut self.files);
        for (p, f) in files {
            if keep.contains(&p) {
                self.files.insert(p, f);
                continue;
            }
            // The texts are freed; the ids stay unused.
            for id in f.ids {
                self.sources.replace(id, p.display().to_string(), "");
            }
        }
        self.force = true;
        self.kept = None;
        self.cycle_with(|_| true)
    }

    /// Forget the output files, so that the next cycle recomputes and reports every one as created
    /// (with its text): after the caller failed to write a cycle's changes, the next cycle gives it
    /// the whole folder to bring up to date.
    pub fn forget_outputs(&mut self) {
        self.outputs.clear();
        self.kept = None;
        self.force = true;
    }

    /// The state after the last cycle.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            files: self
                .outputs
                .iter()
                .map(|(k, v)| (k.clone(), v.digest.get()))
                .collect(),
            statuses: self.statuses.clone(),
            diagnostics: self.diagnostics.clone(),
        }
    }

    /// Every policy's status summary, by `Kind namespace/name`.
    pub fn statuses(&self) -> &BTreeMap<String, String> {
        &self.statuses
    }

    /// Every current finding, one line each, sorted.
    pub fn diagnostics(&self) -> &BTreeSet<String> {
        &self.diagnostics
    }

    fn cycle_with(&mut self, reread: impl Fn(&Path) -> bool) -> CycleReport {
        let start = Instant::now();
        // The last cycle's digests are complete (they were computed during the pause), and the
        // texts they were computed from are let go before the state changes.
        for f in std::mem::take(&mut self.later) {
            if let Some(o) = self.outputs.get_mut(&f) {
                o.digest.settle();
            }
        }
        let mut report = CycleReport::default();
        let (mut order, mut scan_diags, gone) = self.scan();
        let mut dirty = self.cycle == 0 || std::mem::take(&mut self.force);
        // A root gone or back changes the findings (and, back, the files).
        if gone != self.gone {
            self.gone = gone;
            dirty = true;
        }
        // Files gone.
        let present: BTreeSet<&PathBuf> = order.iter().collect();
        let gone: Vec<PathBuf> = self
            .files
            .keys()
            .filter(|p| !present.contains(p))
            .cloned()
            .collect();
        for p in gone {
            if let Some(f) = self.files.remove(&p) {
                // The texts are freed; the ids stay unused.
                for id in f.ids {
                    self.sources.replace(id, p.display().to_string(), "");
                }
            }
            report.files_removed += 1;
            dirty = true;
        }
        // Files new or changed, read in order within the run's budgets of bytes and documents as
        // `compute` reads them (`docs/input.md`, "Bytes" and "Documents"): a file parsed again
        // when the documents the files before it admit change what is left for it, and from the
        // first file over the budget of bytes on, the files left out (and their texts let go).
        let max_bytes = self.opts.load.max_input_bytes;
        let mut bytes_left = max_bytes;
        // The documents the files so far admitted; `None` once one was left out over the budget.
        let mut documents = Some(0usize);
        let mut left_out = None;
        // `scan` lists each file once.
        for (i, p) in order.iter().enumerate() {
            let known = self.files.get(p).map(|f| reread(&f.absolute));
            // A file kept as it was counts the bytes it was read with (at most the bound of one
            // file, so over what is left only when that is less).
            if known == Some(false) && self.files.get(p).is_some_and(|f| f.bytes > bytes_left) {
                left_out = Some(i);
                break;
            }
            let mut parsed = false;
            if known != Some(false) {
                match self.read(p, documents, bytes_left) {
                    Read::Over => {
                        left_out = Some(i);
                        break;
                    }
                    Read::Parsed => parsed = true,
                    Read::Same => {}
                }
                report.files_read += 1;
            }
            // A text kept (unchanged, or the last good one beside a syntax error) whose parse the
            // budget left for it changes.
            parsed |= self.parse_again(p, documents);
            if parsed {
                report.files_parsed += 1;
                dirty = true;
            }
            let Some(f) = self.files.get(p) else { continue };
            bytes_left -= f.bytes.min(bytes_left);
            documents = match documents {
                Some(n) if !f.good.over_budget => Some(n + f.good.budget_used),
                _ => None,
            };
        }
        let over_bytes = left_out.map(|i| order[i].clone());
        if over_bytes != self.over_bytes {
            self.over_bytes = over_bytes;
            dirty = true;
        }
        if let Some(i) = left_out {
            let name = order[i].display().to_string();
            scan_diags.push(load::budget::input_bytes_diagnostic(&name, max_bytes));
            for p in order.split_off(i) {
                if let Some(f) = self.files.remove(&p) {
                    for id in f.ids {
                        self.sources.replace(id, p.display().to_string(), "");
                    }
                    report.files_removed += 1;
                    dirty = true;
                }
            }
        }
        report.stages.push(("read", start.elapsed()));
        if order != self.order || report.files_removed > 0 {
            // Files came or went: the objects' sequence numbers move; a full cycle.
            self.kept = None;
            dirty = true;
        }
        self.order = order;
        report.files = self.order.len();
        let before = std::mem::take(&mut self.before);
        if dirty {
            self.cycle += 1;
            report.recomputed = true;
            self.recompute(scan_diags, before, &mut report);
        } else {
            report.objects = self.outputs.len();
        }
        report.cycle = self.cycle;
        report.elapsed = start.elapsed();
        report
    }

    /// The files under the roots, in `compute`'s order, the findings of listing them, and the
    /// roots whose last files are kept. A root that is gone or lists no manifest file now (a
    /// folder removed, to be created again by a checkout or a script) keeps the files last read
    /// under it, with a `PCTL4012` warning, until it is back: `compute` would refuse to run
    /// without it (`PCTL4014`), so the output folder keeps what the last run wrote.
    fn scan(&self) -> (Vec<PathBuf>, Diagnostics, BTreeSet<PathBuf>) {
        let mut order = Vec::new();
        let mut diags = Diagnostics::new();
        let mut kept_roots = BTreeSet::new();
        for root in &self.opts.roots {
            let (files, d) = load::discover_files(root);
            if files.is_empty() {
                let kept = self.files_under(root);
                if !kept.is_empty() {
                    diags.push(root_gone(root, kept.len()));
                    order.extend(kept);
                    kept_roots.insert(root.clone());
                    continue;
                }
            }
            order.extend(files);
            diags.extend(d);
        }
        // As `compute` reads them: by path, whatever the order of the roots; a file under two
        // roots once.
        order.sort_by(|a, b| load::input_order(a, b));
        order.dedup();
        (order, diags, kept_roots)
    }

    /// The files last read under `root`.
    fn files_under(&self, root: &Path) -> Vec<PathBuf> {
        self.order
            .iter()
            .filter(|p| p.starts_with(root) && self.files.contains_key(*p))
            .cloned()
            .collect()
    }

    /// Read one file, after files that admitted `documents` of the run's budget (`None`: one of
    /// them was left out over it, so this file's documents are left out too) and within what is
    /// left of the budget of bytes. A file that vanished between listing and reading is left as it
    /// was: the next event lists it again.
    fn read(&mut self, p: &Path, documents: Option<usize>, bytes_left: u64) -> Read {
        let name = p.display().to_string();
        let Some((text, bytes)) = load::read_path(p, &mut self.sources, bytes_left) else {
            return Read::Over;
        };
        let text: Result<crate::source::SourceText, Diagnostics> = text.map(Into::into);
        if let Err(d) = &text
            && !p.exists()
            && d.iter().all(|d| d.code == Code::UnreadableInput)
        {
            return Read::Same;
        }
        let fresh = !self.files.contains_key(p);
        if fresh {
            let ids = [self.sources.add(&name, ""), self.sources.add(&name, "")];
            self.files.insert(
                p.to_path_buf(),
                FileState {
                    absolute: absolute(p),
                    text: "".into(),
                    ids,
                    current: 0,
                    bytes: 0,
                    good: ParsedFile::default(),
                    failed: None,
                },
            );
        }
        let Some(state) = self.files.get_mut(p) else {
            return Read::Same;
        };
        state.bytes = bytes;
        match text {
            Err(d) => {
                state.failed = Some(d);
                Read::Parsed
            }
            Ok(text) if !fresh && text == state.text && state.failed.is_none() => Read::Same,
            Ok(text) => {
                let next = 1 - state.current;
                let id = state.ids[next];
                self.sources.replace(id, &name, text.clone());
                let parsed = parse_within(id, &text, &mut self.sources, &self.opts.load, documents);
                state.text = text;
                if parsed.diagnostics.iter().any(|d| is_syntax(d.code)) && state.current_ok() {
                    state.failed = Some(parsed.diagnostics);
                } else {
                    let was = std::mem::replace(&mut state.good, parsed);
                    self.before.entry(p.to_path_buf()).or_insert(was);
                    state.current = next;
                    state.failed = None;
                }
                Read::Parsed
            }
        }
    }

    /// Parse a file's good text again if the documents the files before it admit (`documents`,
    /// as [`Watch::read`] takes it) change what its parse gives; whether it did.
    fn parse_again(&mut self, p: &Path, documents: Option<usize>) -> bool {
        let max = self.opts.load.max_documents;
        let Some(state) = self.files.get_mut(p) else {
            return false;
        };
        let same = match (documents, state.good.budget_before) {
            (Some(n), Some(_)) => state.good.same_after(n, max),
            (None, None) => true,
            _ => false,
        };
        if same {
            return false;
        }
        let id = state.ids[state.current];
        let Some(text) = self.sources.get(id).map(|f| f.text.clone()) else {
            return false;
        };
        let parsed = parse_within(id, &text, &mut self.sources, &self.opts.load, documents);
        let was = std::mem::replace(&mut state.good, parsed);
        self.before.entry(p.to_path_buf()).or_insert(was);
        true
    }

    /// The loader's findings of the cached files (syntax errors, invalid objects, kept last good
    /// states), after the findings of listing them.
    fn file_diagnostics(&self, scan_diags: Diagnostics) -> Diagnostics {
        let mut out = scan_diags;
        for p in &self.order {
            let Some(f) = self.files.get(p) else { continue };
            match &f.failed {
                None => out.extend(f.good.diagnostics.clone()),
                Some(d) => {
                    out.extend(d.clone());
                    out.push(kept_last_good(p, &f.good));
                }
            }
        }
        out
    }

    /// Everything computed again from the cached files, incrementally when the change allows
    /// (see `slice`), else in full; the differences with the last state go into `report`.
    /// `before` holds the previous parse of each file parsed again.
    fn recompute(
        &mut self,
        scan_diags: Diagnostics,
        before: HashMap<PathBuf, ParsedFile>,
        report: &mut CycleReport,
    ) {
        let file_diags = self.file_diagnostics(scan_diags);
        let identities_ok = self.update_identities(&before);
        if identities_ok && self.incremental(&before, &file_diags, report) {
            return;
        }
        report.stages.clear();
        self.full(file_diags, report);
    }

    /// Bring the identity counts up to date with the files parsed again; whether every object
    /// those files define, before and after, is defined once (a duplicate makes a full cycle).
    fn update_identities(&mut self, before: &HashMap<PathBuf, ParsedFile>) -> bool {
        let Some(kept) = &mut self.kept else {
            return false;
        };
        let id = |o: &load::validate::Validated| {
            let (g, k, n, m) = o.identity();
            [g.to_string(), k.to_string(), n.to_string(), m.to_string()]
        };
        let mut touched = Vec::new();
        // A duplicate the change resolves changes the model's own findings, too.
        let mut once = true;
        for (p, old) in before {
            let Some(f) = self.files.get(p) else { continue };
            for o in &old.objects {
                let k = id(o);
                if let Some(c) = kept.identities.get_mut(&k) {
                    once &= *c <= 1;
                    *c = c.saturating_sub(1);
                }
                touched.push(k);
            }
            for o in &f.good.objects {
                let k = id(o);
                *kept.identities.entry(k.clone()).or_default() += 1;
                touched.push(k);
            }
        }
        once && touched
            .iter()
            .all(|k| kept.identities.get(k).copied().unwrap_or(0) <= 1)
    }

    /// A full cycle: the model from every cached file, and everything computed from it.
    fn full(&mut self, file_diags: Diagnostics, report: &mut CycleReport) {
        let mut parsed: Vec<&ParsedFile> = Vec::with_capacity(self.order.len());
        for p in &self.order {
            if let Some(f) = self.files.get(p) {
                parsed.push(&f.good);
            }
        }
        let mut clock = Instant::now();
        let mut lap = |name: &'static str, report: &mut CycleReport| {
            report.stages.push((name, clock.elapsed()));
            clock = Instant::now();
        };
        let mut assembly = Diagnostics::new();
        // The sources the last full cycle's extension policies added (an OIDCPolicy's objects)
        // are let go; this cycle adds its own.
        for id in std::mem::take(&mut self.derived_sources) {
            self.sources.replace(id, "", "");
        }
        let known = self.sources.files().count();
        let model =
            load::assemble_files(&parsed, &mut self.sources, &self.opts.load, &mut assembly);
        self.derived_sources = self.sources.files().skip(known).map(|(id, _)| id).collect();
        let mut identities: HashMap<[String; 4], u32> = HashMap::new();
        for o in parsed.iter().flat_map(|f| &f.objects) {
            let (g, k, n, m) = o.identity();
            *identities
                .entry([g.to_string(), k.to_string(), n.to_string(), m.to_string()])
                .or_default() += 1;
        }
        lap("model", report);
        let mut input = file_diags;
        input.extend(assembly.clone());
        // The stages' findings are kept apart, with the object each is about, for the
        // incremental cycles to replace; the input's are read again every cycle.
        let analysis = crate::pipeline::run(&model, &self.sources, &input, &self.opts.run());
        let apart = analysis.apart.clone().unwrap_or_default();
        // The findings of this cycle after suppression.
        let mut diags = apart.input;
        lap("analysis", report);
        let dir = self.opts.out_dir.clone().unwrap_or_default();
        let previous = &self.outputs;
        let rendered = crate::outdir::render_objects(&dir, &analysis.generated.objects, |f, c| {
            let digest = digest(c);
            let same = previous.get(f).is_some_and(|o| o.digest.get() == digest);
            (Digest::Known(digest), !same)
        });
        let rendered_ok = rendered.is_ok();
        match rendered {
            Ok(files) => self.diff_outputs(files, report),
            Err(e) => diags.push(
                Diagnostic::new(Code::WatchOutDir, e.to_string())
                    .help("the output files stay as they were until this is fixed"),
            ),
        }
        report.objects = self.outputs.len();
        lap("outputs", report);
        let statuses = status_lines(&model, &analysis.statuses);
        report.status_changes = changes(&self.statuses, &statuses);
        self.statuses = statuses;
        let shown = diags;
        let analysis_lines: Vec<(Option<String>, String)> = apart
            .stages
            .iter()
            .map(|d| {
                (
                    slice::about(d).map(String::from),
                    diagnostic_line(d, &self.sources),
                )
            })
            .collect();
        let fixed: Vec<String> = shown
            .iter()
            .map(|d| diagnostic_line(d, &self.sources))
            .collect();
        let mut line_counts: HashMap<String, u32> = HashMap::new();
        for l in fixed.iter().chain(analysis_lines.iter().map(|(_, l)| l)) {
            *line_counts.entry(l.clone()).or_default() += 1;
        }
        self.set_diagnostics(line_counts.keys().cloned().collect(), report);
        lap("findings", report);
        if let Some((target, kind)) = &self.opts.explain {
            report.explain = Some(crate::resolve::explain::explain(
                &analysis.topology,
                target,
                *kind,
            ));
        }
        // Extension policies are expanded across objects: their estates have full cycles only.
        let sliceable =
            rendered_ok && model.extensions.is_empty() && model.derived_objects.is_empty();
        let index = sliceable.then(|| slice::Index::of(&self.current()));
        self.kept = index.map(|index| {
            let limitador = analysis
                .generated
                .objects
                .iter()
                .find(|o| matches!(o, crate::generate::object::Object::Limitador(_)));
            Kept {
                limitador: limitador.and_then(limits::LimitadorState::of),
                has_limitador: limitador.is_some(),
                assembly,
                analysis: analysis_lines,
                fixed,
                line_counts,
                identities,
                wasm_envoy_filters: wasm_envoy_filters(&analysis.generated.objects),
                index,
                // The Limitador and policies' objects belong to no gateway.
                owned: Owned::of(&model, &analysis.generated.objects).0,
                carrier_digests: memo::of(&analysis.generated.objects),
            }
        });
    }

    /// The findings after an incremental cycle: the kept fixed lines replaced by `fixed`, the
    /// analysis lines `gone` (already taken out of the kept ones) by `fresh`. Only the lines whose
    /// count goes to or from zero change the state's findings; they go into `report`.
    fn replace_lines(
        &mut self,
        fixed: Vec<String>,
        gone: Vec<(Option<String>, String)>,
        fresh: Vec<(Option<String>, String)>,
        report: &mut CycleReport,
    ) {
        let Some(kept) = self.kept.as_mut() else {
            return;
        };
        let mut touched: BTreeSet<String> = BTreeSet::new();
        // The fixed lines seldom change: compared first, they are counted again only then.
        let fixed_changed = kept.fixed != fixed;
        let old_fixed = if fixed_changed {
            std::mem::replace(&mut kept.fixed, fixed)
        } else {
            Vec::new()
        };
        let new_fixed = if fixed_changed { &kept.fixed[..] } else { &[] };
        for l in old_fixed.iter().chain(gone.iter().map(|(_, l)| l)) {
            if let Some(n) = kept.line_counts.get_mut(l) {
                *n -= 1;
                if *n == 0 {
                    kept.line_counts.remove(l);
                }
            }
            touched.insert(l.clone());
        }
        for l in new_fixed.iter().chain(fresh.iter().map(|(_, l)| l)) {
            *kept.line_counts.entry(l.clone()).or_default() += 1;
            touched.insert(l.clone());
        }
        kept.analysis.extend(fresh);
        let (mut new, mut resolved) = (Vec::new(), Vec::new());
        for l in touched {
            match (
                self.diagnostics.contains(&l),
                kept.line_counts.contains_key(&l),
            ) {
                (false, true) => {
                    self.diagnostics.insert(l.clone());
                    new.push(l);
                }
                (true, false) => {
                    self.diagnostics.remove(&l);
                    resolved.push(l);
                }
                _ => {}
            }
        }
        report.new_diagnostics = new;
        report.resolved_diagnostics = resolved;
    }

    /// The findings after a cycle, one line each; the new and resolved ones go into `report`.
    fn set_diagnostics(&mut self, lines: BTreeSet<String>, report: &mut CycleReport) {
        report.new_diagnostics = lines.difference(&self.diagnostics).cloned().collect();
        report.resolved_diagnostics = self.diagnostics.difference(&lines).cloned().collect();
        self.diagnostics = lines;
    }

    fn diff_outputs(
        &mut self,
        files: BTreeMap<String, crate::outdir::Rendered<Digest>>,
        report: &mut CycleReport,
    ) {
        let mut next = BTreeMap::new();
        for (file, r) in files {
            let out = written(self.outputs.get(&file), &file, r, report);
            next.insert(file, out);
        }
        for (file, o) in &self.outputs {
            if !next.contains_key(file) {
                report.deleted.push(FileChange {
                    file: file.clone(),
                    object: o.object.clone(),
                    content: None,
                });
            }
        }
        self.outputs = next;
    }
}

/// The digest the state keeps of an output file's text.
fn digest(text: &str) -> [u8; 32] {
    *blake3::hash(text.as_bytes()).as_bytes()
}

/// [`digest`] of a text that may be in parts: the same as of the parts joined.
fn digest_text(text: &crate::outdir::Text) -> [u8; 32] {
    // Small parts are gathered before they are hashed: BLAKE3 hashes many chunks of a long input
    // at once, but one at a time from short ones.
    const BATCH: usize = 1 << 16;
    let mut hasher = blake3::Hasher::new();
    let mut batch = Vec::with_capacity(BATCH);
    for p in text.parts() {
        if batch.len() + p.len() > BATCH {
            hasher.update(&batch);
            batch.clear();
        }
        if p.len() >= BATCH {
            hasher.update(p.as_bytes());
        } else {
            batch.extend_from_slice(p.as_bytes());
        }
    }
    hasher.update(&batch);
    *hasher.finalize().as_bytes()
}

/// A file written in a cycle, as the state keeps it; created or updated in `report`. Its text is
/// there when it is not `previous`'s (the renderers keep it only then).
fn written(
    previous: Option<&OutFile>,
    file: &str,
    r: crate::outdir::Rendered<Digest>,
    report: &mut CycleReport,
) -> OutFile {
    let changed = r.content.is_some();
    let change = FileChange {
        file: file.to_string(),
        object: r.object.clone(),
        content: r.content,
    };
    match previous {
        None => report.created.push(change),
        Some(_) if changed => report.updated.push(change),
        Some(_) => {}
    }
    OutFile {
        object: r.object,
        digest: r.note,
    }
}

impl FileState {
    /// Whether the file had a good parse to keep (a file never parsed has none: its findings
    /// stand as `compute` would show them).
    fn current_ok(&self) -> bool {
        self.good.documents > 0 || !self.good.objects.is_empty()
    }
}

/// What reading a file in a cycle gave.
enum Read {
    /// Its text or what its parse gives changed.
    Parsed,
    /// Nothing changed.
    Same,
    /// It is larger than what is left of the budget of bytes: it and the files after it are
    /// left out.
    Over,
}

/// [`load::parse_file`] after files that admitted `documents` of the run's budget; `None` (one of
/// them was left out over it): nothing of the file is parsed, as `compute` parses nothing after
/// the first document over the budget.
fn parse_within(
    id: SourceId,
    text: &crate::source::SourceText,
    sources: &mut SourceMap,
    opts: &LoadOptions,
    documents: Option<usize>,
) -> ParsedFile {
    match documents {
        Some(n) => load::parse_file(id, text, sources, opts, n),
        None => ParsedFile::default(),
    }
}

/// Findings that mean the text is not (yet) a YAML stream: the file keeps its last good state.
fn is_syntax(code: Code) -> bool {
    matches!(code, Code::YamlSyntax | Code::InputLimit)
}

fn kept_last_good(p: &Path, good: &ParsedFile) -> Diagnostic {
    Diagnostic::new(
        Code::WatchKeptLastGood,
        format!(
            "{} does not parse now: its last good state ({} object{}) is kept",
            crate::render::terminal::line(&p.display().to_string()),
            good.objects.len(),
            if good.objects.len() == 1 { "" } else { "s" }
        ),
    )
    .help("fix the file (or finish saving it); `compute` would leave its broken documents out")
}

/// `PCTL4012` for a root that is gone (or empty) while `files` of its files were being watched.
fn root_gone(root: &Path, files: usize) -> Diagnostic {
    Diagnostic::new(
        Code::WatchKeptLastGood,
        format!(
            "{} is gone (or holds no manifest file): the last state of its {files} file{} is kept until it is back",
            crate::render::terminal::line(&root.display().to_string()),
            if files == 1 { "" } else { "s" }
        ),
    )
    .help("create it again (or restart `watch` with other -f paths); `compute` cannot run without it")
}

/// A path made absolute against the current folder, without resolving links (as change events
/// name them).
fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// The wasm `EnvoyFilter`s among `objects`, by the gateway they target: their namespace and name.
fn wasm_envoy_filters(objects: &[Object]) -> BTreeMap<slice::GatewayKey, (String, String)> {
    objects
        .iter()
        .filter(|o| crate::pipeline::is_wasm_envoy_filter(o))
        .filter_map(|o| {
            let (ns, name) = o.namespace_name()?;
            // A carrier's shell holds its targetRefs (its body is elsewhere): no tree is built.
            let Object::Wasm(w) = o else {
                return None;
            };
            let gw = w.shell.pointer("/spec/targetRefs/0/name")?.as_str()?;
            Some((
                (ns.to_string(), gw.to_string()),
                (ns.to_string(), name.to_string()),
            ))
        })
        .collect()
}

/// One line per policy: `Kind namespace/name` → its conditions, e.g.
/// `Accepted=True (Accepted), Enforced=False (Overridden)`.
pub(crate) fn status_lines(model: &Model, statuses: &[PolicyStatus]) -> BTreeMap<String, String> {
    statuses
        .iter()
        .filter_map(|s| {
            let p = model.policies.get(s.policy)?;
            let line = s
                .conditions()
                .iter()
                .map(|c| format!("{}={} ({})", c.type_, c.status, c.reason))
                .collect::<Vec<_>>()
                .join(", ");
            let line = match &s.note {
                Some(n) if s.enforced.is_none() => format!("{line}; {n}"),
                _ => line,
            };
            Some((p.display(), line))
        })
        .collect()
}

fn changes(
    before: &BTreeMap<String, String>,
    after: &BTreeMap<String, String>,
) -> Vec<StatusChange> {
    let keys: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    keys.into_iter()
        .filter_map(|k| {
            let (b, a) = (before.get(k), after.get(k));
            (b != a).then(|| StatusChange {
                policy: k.clone(),
                before: b.cloned(),
                after: a.cloned(),
            })
        })
        .collect()
}

/// A finding as one line: `file:line:column: severity[CODE]: message (object)`, escaped for a
/// terminal.
pub(crate) fn diagnostic_line(d: &Diagnostic, sources: &SourceMap) -> String {
    crate::render::terminal::line(&crate::render::diagnostics::one_line(d, sources)).into_owned()
}

/// The [`Snapshot`] of a fresh, one-shot computation (`compute`'s path: [`load::load`], then
/// [`crate::pipeline::run`]) of the same inputs, for checking a watch state against.
pub fn fresh_snapshot(opts: &WatchOptions) -> Snapshot {
    let inputs: Vec<load::Input> = opts
        .roots
        .iter()
        .map(|r| load::Input::Path(r.clone()))
        .collect();
    let loaded = load::load(&inputs, &opts.load);
    let mut analysis = crate::pipeline::run(
        &loaded.model,
        &loaded.sources,
        &loaded.diagnostics,
        &opts.run(),
    );
    let mut diags = std::mem::take(&mut analysis.findings.kept);
    let dir = opts.out_dir.clone().unwrap_or_default();
    let mut files = BTreeMap::new();
    match crate::outdir::render_objects(&dir, &analysis.generated.objects, |_, c| {
        (digest(c), false)
    }) {
        Ok(r) => files = r.into_iter().map(|(k, v)| (k, v.note)).collect(),
        Err(e) => diags.push(
            Diagnostic::new(Code::WatchOutDir, e.to_string())
                .help("the output files stay as they were until this is fixed"),
        ),
    }
    diags.sort();
    let kept = diags;
    Snapshot {
        files,
        statuses: status_lines(&loaded.model, &analysis.statuses),
        diagnostics: kept
            .iter()
            .map(|d| diagnostic_line(d, &loaded.sources))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outdir::Text;
    use std::sync::Arc;

    /// A text's digest does not depend on how it is cut: parts smaller and larger than the batch
    /// the parts are gathered in, and empty ones.
    #[test]
    fn a_digest_is_the_same_whole_or_in_parts() {
        for sizes in [
            vec![],
            vec![0],
            vec![3, 0, 70_000, 5],
            vec![65_535, 1, 65_536, 2],
        ] {
            let parts: Vec<Arc<str>> = sizes
                .iter()
                .enumerate()
                .map(|(i, n)| Arc::from(char::from(b'a' + i as u8).to_string().repeat(*n)))
                .collect();
            let text = Text::Parts(Arc::new(parts));
            assert_eq!(digest_text(&text), digest(&text.joined()), "{sizes:?}");
        }
        let whole = Text::Whole("kind: X\n".into());
        assert_eq!(digest_text(&whole), digest("kind: X\n"));
    }

    /// A digest computed on another thread is the text's, however soon it is asked for, and
    /// settling it lets the text go (the Limitador's parts are then the state's alone again).
    #[test]
    fn a_later_digest_is_the_texts_and_settles() {
        for n in [0, 1, 200_000] {
            let parts: Arc<Vec<Arc<str>>> = Arc::new(vec![Arc::from("a".repeat(n)), "b".into()]);
            let text = Text::Parts(Arc::clone(&parts) as Arc<dyn crate::outdir::Parts>);
            let mut later = Digest::later(text.clone());
            assert_eq!(later.get(), digest(&text.joined()));
            drop(text);
            later.settle();
            assert!(matches!(later, Digest::Known(_)));
            // The thread may still be finishing with its handle: it lets go when it ends.
            let deadline = Instant::now() + Duration::from_secs(10);
            while Arc::strong_count(&parts) > 1 && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(1));
            }
            assert_eq!(Arc::strong_count(&parts), 1);
        }
    }
}
