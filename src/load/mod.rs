//! Load: read the inputs the CLI hands over, split them into documents, parse, and validate into a
//! [`Model`].
//!
//! Owns file discovery (directories recursively, sorted, hidden entries skipped, symlink loops
//! detected, a file named twice read once), multi-document splitting with byte offsets (JSON
//! streams as kubectl reads them), parsing each document into a spanned tree ([`node`]), `List`
//! expansion and duplicate detection, the API server's validation of the tree ([`schema`]: the CRD
//! schemas of the release, strict field validation, CEL rules, ObjectMeta), the raw shapes read
//! from it ([`raw`]) and their conversion into the model types ([`validate`]: the CRD defaults).
//! Must not build graphs, merge policies or write output.

pub(crate) mod budget;
mod document;
pub(crate) mod extension;
mod node;
pub(crate) mod oidc;
pub(crate) mod raw;
pub(crate) mod schema;
mod split;
pub(crate) mod validate;
mod yaml;

pub(crate) use yaml::{parse_requests, parse_small};

use budget::DocumentBudget;
pub use budget::{MAX_ACTION_SETS, MAX_DOCUMENTS, MAX_INPUT_BYTES, MAX_PATHS};
pub(crate) use document::{RawDocument, RawSpec, RawStatus};
use node::{Node, Value};
pub use schema::FieldValidation;

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{KuadrantVersion, Model};
use crate::source::{SourceId, SourceMap, SourceText, Span};
use foldhash::{HashMap, HashMapExt};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use validate::Validated;

/// One `-f` argument.
#[derive(Debug, Clone)]
pub enum Input {
    /// A file or a directory.
    Path(PathBuf),
    /// Text read by the caller (stdin), with the name to show in diagnostics.
    Text { name: String, bytes: Vec<u8> },
}

/// Settings that change how objects are read.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// Namespace given to namespaced objects that have none (kubectl's `-n`, default `default`).
    pub default_namespace: String,
    pub version: KuadrantVersion,
    /// GatewayClasses assumed to exist when a Gateway names one the input does not define: class
    /// name → controllerName. Default: [`well_known_gateway_classes`].
    pub gateway_classes: BTreeMap<String, String>,
    /// How fields the schema does not declare are treated (kubectl's `--validate`).
    pub validate: FieldValidation,
    /// Whether objects are validated against their CRDs (schema and rules) at all. Always on for
    /// users; off only where a test replays an upstream unit test whose objects never met an API
    /// server (policy-machinery's topology tests build Services references without ports).
    #[doc(hidden)]
    pub crd_validation: bool,
    /// The most bytes one run reads, files and streams together ([`MAX_INPUT_BYTES`] by default):
    /// the input that would go over it, and every one after it, is left out (`PCTL1019`).
    pub max_input_bytes: u64,
    /// The most documents one run reads ([`MAX_DOCUMENTS`] by default; a List's items each count,
    /// and `watch` counts its files together at every cycle): the documents from the first over it
    /// are left out (`PCTL1019`).
    pub max_documents: usize,
    /// The most paths one run computes ([`MAX_PATHS`] by default): routes that would take the
    /// estate over it are left out (`PCTL1019`).
    pub max_paths: u64,
    /// The most wasm action sets one run computes ([`MAX_ACTION_SETS`] by default), as
    /// [`Self::max_paths`].
    pub max_action_sets: u64,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            default_namespace: "default".into(),
            version: KuadrantVersion::default(),
            gateway_classes: well_known_gateway_classes(),
            validate: FieldValidation::default(),
            crd_validation: true,
            max_input_bytes: MAX_INPUT_BYTES,
            max_documents: MAX_DOCUMENTS,
            max_paths: MAX_PATHS,
            max_action_sets: MAX_ACTION_SETS,
        }
    }
}

/// The well-known GatewayClasses (`model::WELL_KNOWN_GATEWAY_CLASSES`) as a map, to extend or override.
pub fn well_known_gateway_classes() -> BTreeMap<String, String> {
    crate::model::WELL_KNOWN_GATEWAY_CLASSES
        .iter()
        .map(|(n, c)| (n.to_string(), c.to_string()))
        .collect()
}

/// The result of loading: sources (for rendering diagnostics), the model and the findings.
#[derive(Debug, Default)]
pub struct Loaded {
    pub sources: SourceMap,
    pub model: Model,
    pub diagnostics: Diagnostics,
    /// Files read, in order.
    pub files: Vec<String>,
    /// Documents seen (including skipped and invalid ones).
    pub documents: usize,
}

/// Documents per parsing thread at the least (fewer stay on the calling thread).
const PARSE_MIN_PER_THREAD: usize = 64;
/// Documents a parsing thread takes at a time from a window: documents differ widely in cost (a
/// Gateway with dozens of listeners beside Services of a few lines), and threads that each take one
/// half of a window wait for the slower half.
const PARSE_CHUNK: usize = 128;
/// Documents parsed before their objects are moved into one list (a window's results are held
/// beside that list until then).
const PARSE_WINDOW: usize = 16384;
/// The text of a window of documents at the most (but for its first document): a List's items each
/// become an object or a finding of one or two kilobytes, and 4 MiB of text holds at most about 1.4
/// million of them (`{},` is three bytes an item).
const PARSE_WINDOW_BYTES: usize = 4 << 20;

/// Load every input. Never fails as a whole: problems become diagnostics.
pub fn load(inputs: &[Input], opts: &LoadOptions) -> Loaded {
    load_in_windows(inputs, opts, PARSE_WINDOW)
}

/// `text` loaded as one input file, `input.yaml`, at `version` with the other options' defaults:
/// the estates tests write inline.
#[cfg(test)]
pub(crate) fn load_text(text: &str, version: KuadrantVersion) -> Loaded {
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

/// [`load`], parsing at most `window` documents at a time.
fn load_in_windows(inputs: &[Input], opts: &LoadOptions, window: usize) -> Loaded {
    let mut out = Loaded::default();
    let texts = read_inputs(inputs, opts.max_input_bytes, &mut out);
    let parsed = parse_texts(&texts, &mut out.sources, opts, window, 0);
    out.documents = parsed.documents;
    out.diagnostics.extend(parsed.diagnostics);
    out.model = assemble(parsed.objects, &out.sources, &mut out.diagnostics);
    complete(&mut out.model, &mut out.sources, opts, &mut out.diagnostics);
    out
}

/// Split, parse and validate `texts` (registered in `sources`; documents rendered by helm become
/// sources of their own, added to `sources`), at most `window` documents at a time, within what
/// the inputs before them, which admitted `before` documents, left of the run's budget
/// ([`LoadOptions::max_documents`]): their valid objects numbered in input order, and the findings
/// of splitting, of each document and of the budget, in that order.
fn parse_texts(
    texts: &[(SourceId, SourceText)],
    sources: &mut SourceMap,
    opts: &LoadOptions,
    window: usize,
    before: usize,
) -> ParsedFile {
    let mut out = ParsedFile {
        budget_before: Some(before),
        ..ParsedFile::default()
    };
    let mut chunks: Vec<(SourceId, SourceText, usize, usize)> = Vec::new();
    // One document more than the budget, to find the first left out; the rest are not looked for.
    let mut room = opts.max_documents.saturating_sub(before).saturating_add(1);
    for (id, text) in texts {
        if room == 0 {
            break;
        }
        let found = chunks.len();
        file_chunks(
            *id,
            text,
            sources,
            (&mut chunks, room),
            &mut out.diagnostics,
        );
        room -= chunks.len() - found;
    }
    // Slice: every (offset, len) above lies within its text.
    let docs: Vec<(SourceId, usize, &str)> = chunks
        .iter()
        .map(|(id, text, off, len)| (*id, *off, &text[*off..*off + *len]))
        .collect();
    // About one object a document: room for them up front (objects are large, and a vector
    // grown by doubling would copy them again and again).
    out.objects.reserve(docs.len().min(opts.max_documents));
    let mut budget = DocumentBudget::after(opts.max_documents, before);
    parse_in_windows(&docs, opts, window, &mut budget, |one| {
        out.documents += 1;
        // Numbered from 1 within the document: shift past the objects before it.
        for mut v in one.objects {
            v.meta_mut().origin.seq += out.objects_seen;
            out.objects.push(v);
        }
        out.objects_seen += one.objects_seen;
        out.diagnostics.extend(one.diagnostics);
    });
    out.budget_used = budget.used() - before.min(opts.max_documents);
    out.over_budget = budget.is_over();
    if let Some(d) = budget.diagnostic() {
        out.diagnostics.push(d);
    }
    out
}

/// A document to parse: its source, its offset there and its text.
type DocText<'t> = (SourceId, usize, &'t str);

/// Parse and validate `docs`, a window of them at a time (at most `window` documents and
/// [`PARSE_WINDOW_BYTES`] of text), and hand the documents `budget` admits to `collect` in input
/// order; once one is over the budget, the windows after it are not parsed.
///
/// Documents are independent: each is parsed and validated on the parsing threads (parsing
/// dominates loading), and `collect` takes a window's results on this thread while the next window
/// is parsed. A window at a time, so that the parsed documents of the whole input are never all
/// held beside what they become; a window's text is bounded too, as a List's items each become an
/// object or a finding.
fn parse_in_windows(
    docs: &[DocText<'_>],
    opts: &LoadOptions,
    window: usize,
    budget: &mut DocumentBudget,
    mut collect: impl FnMut(OneDocument) + Send,
) {
    let mut parsed: Option<(&[DocText<'_>], Vec<OneDocument>)> = None;
    let mut rest = docs;
    while !rest.is_empty() {
        let n = window_len(rest, window.max(1), PARSE_WINDOW_BYTES);
        let (this, after) = rest.split_at(n);
        rest = after;
        // A List with more items than the budget has room for before this window is over it
        // whatever comes before it in the window: its items are counted, not validated.
        let room = budget.room();
        let earlier = parsed.take();
        let (done, within) = crate::par::join_if(
            earlier.is_some(),
            || parse_documents(this, opts, room),
            || earlier.is_none_or(|(w, d)| admit(budget, w, d, &mut collect)),
        );
        if !within {
            return;
        }
        parsed = Some((this, done));
    }
    if let Some((w, d)) = parsed {
        admit(budget, w, d, &mut collect);
    }
}

/// Hand the parsed documents of `window` that `budget` admits to `collect`, in order; false once
/// one is over the budget.
fn admit(
    budget: &mut DocumentBudget,
    window: &[DocText<'_>],
    done: Vec<OneDocument>,
    collect: &mut impl FnMut(OneDocument),
) -> bool {
    for (&(id, base, text), one) in window.iter().zip(done) {
        // Its first line after the `---` and comments before it.
        let lead = leading_trivia(text);
        // Slice: `leading_trivia` ends at a line boundary within `text`.
        let line = text[lead..].split('\n').next().unwrap_or("").len();
        if !budget.admit(one.items.max(1), Span::new(id, base + lead, line)) {
            return false;
        }
        collect(one);
    }
    true
}

/// The documents of the next window of `docs`: at most `max` of them and, but the first, at most
/// `max_bytes` of text.
fn window_len(docs: &[DocText<'_>], max: usize, max_bytes: usize) -> usize {
    let mut bytes = 0usize;
    let mut n = 0;
    for (_, _, text) in docs.iter().take(max) {
        bytes += text.len();
        if n > 0 && bytes > max_bytes {
            break;
        }
        n += 1;
    }
    n
}

/// What every model gets once its objects are assembled: the emulated release, the objects
/// extension policies' controllers create (validated like input objects, `PCTL3023` when one
/// replaces an input object), and the assumed GatewayClasses. `load` and `watch`'s cycles build
/// their models this way, so that they are the same for the same files.
pub(crate) fn complete(
    model: &mut Model,
    sources: &mut SourceMap,
    opts: &LoadOptions,
    diags: &mut Diagnostics,
) {
    model.version = opts.version;
    extension::expand(model, diags);
    expand_oidc(model, sources, opts, diags);
    crate::model::assume_gateway_classes(model, &opts.gateway_classes, diags);
    // Last: the OIDCPolicies' controllers may add routes.
    budget::keep_within(model, opts, diags);
}

/// Add the objects OIDCPolicies' controllers create (`oidc`) to the model, validated
/// like input objects. Each is also a source of its own (its JSON text, named after the OIDCPolicy
/// and the object) so that a finding inside it can be shown; its `origin` is the OIDCPolicy's. An
/// input object of the same kind, namespace and name is replaced, as the controller overwrites it
/// (`PCTL3023`).
fn expand_oidc(
    model: &mut Model,
    sources: &mut SourceMap,
    opts: &LoadOptions,
    diags: &mut Diagnostics,
) {
    let built = oidc::expand(model, opts.version, diags);
    if built.is_empty() {
        return;
    }
    let mut added = Vec::new();
    for (i, value) in built {
        let e = &model.extensions[i];
        let (origin, from) = (e.meta.origin, e.display());
        let text = serde_json::to_string_pretty(&value).unwrap_or_default();
        let label = format!(
            "{from} ({} {})",
            value["kind"].as_str().unwrap_or_default(),
            value["metadata"]["name"].as_str().unwrap_or_default()
        );
        let id = sources.add(label, text.as_str());
        let whole = Span::new(id, 0, text.len());
        let Ok(doc) = yaml::parse_node(id, 0, &text) else {
            continue;
        };
        let Some(mut v) = validate::object(doc, 0, (whole, None), opts, diags) else {
            continue;
        };
        let m = v.meta_mut();
        m.origin = origin;
        m.derived_from = Some(from);
        added.push((v, value));
    }
    for (v, value) in added {
        replace_overwritten(model, &v, diags);
        v.into_model(model);
        model.derived_objects.push(value);
    }
    validate::sort_model(model);
}

/// Drop the input object a derived object `v` overwrites (same kind, namespace and name), and say
/// so.
fn replace_overwritten(model: &mut Model, v: &Validated, diags: &mut Diagnostics) {
    let m = v.meta();
    let from = m.derived_from.clone().unwrap_or_default();
    let mut report = |meta: &crate::model::Meta, kind: &str| {
        diags.push(
            Diagnostic::new(
                Code::ExtensionOverwrites,
                format!(
                    "{from} creates {kind} {}, which the input also defines: the controller overwrites its spec",
                    meta.key()
                ),
            )
            .at(meta.origin.name, "replaced")
            .also(m.origin.name, "by this extension policy's")
            .object(format!("{kind} {}", meta.key()))
            .help("rename the extension policy or the object: they cannot share a name"),
        );
    };
    let same = |o: &crate::model::Meta| {
        o.derived_from.is_none() && o.namespace == m.namespace && o.name == m.name
    };
    match v {
        Validated::Policy(p) => {
            for old in model
                .policies
                .iter()
                .filter(|o| o.kind == p.kind && same(&o.meta))
            {
                report(&old.meta, p.kind.kind());
            }
            model
                .policies
                .retain(|o| !(o.kind == p.kind && same(&o.meta)));
        }
        Validated::Route(r) => {
            let kind = r.spec.kind;
            for old in model
                .routes
                .iter()
                .filter(|o| o.spec.kind == kind && same(&o.meta))
            {
                report(&old.meta, "HTTPRoute");
            }
            model
                .routes
                .retain(|o| !(o.spec.kind == kind && same(&o.meta)));
        }
        _ => {}
    }
}

/// The documents of one file's text, as (source, text, offset, length). Documents rendered by
/// `helm template` start with `# Source: <template>`: such a document becomes its own source named
/// after the template, so diagnostics name the template and its line. A file whose text starts
/// with `{` is a stream of JSON objects, as kubectl reads it (apimachinery `GuessJSONStream`):
/// each object is a document, and broken JSON is reported with serde_json's message.
fn file_chunks(
    id: SourceId,
    text: &SourceText,
    sources: &mut SourceMap,
    (chunks, limit): (&mut Vec<(SourceId, SourceText, usize, usize)>, usize),
    diags: &mut Diagnostics,
) {
    if text.trim_start().starts_with('{') {
        json_chunks(id, text, (chunks, limit), diags);
        return;
    }
    // The documents and their helm markers of a large stream are found in pieces on every core.
    let pieces = (text.len() >= PARALLEL_SPLIT_FROM)
        .then(|| split::pieces(text, crate::par::cores()))
        .filter(|p| p.len() > 1);
    let in_piece = |r: std::ops::Range<usize>| {
        // Slice: pieces lie within `text` on line boundaries.
        let piece = &text[r.clone()];
        (split::documents_upto(piece, limit).into_iter())
            .map(|c| {
                // Slice: chunks from `split::documents(piece)` lie within it on line boundaries.
                let doc = &piece[c.offset..c.offset + c.len];
                (r.start + c.offset, c.len, helm_source(doc))
            })
            .collect::<Vec<_>>()
    };
    let mut found = match pieces {
        Some(pieces) => crate::par::map_ranges(pieces, in_piece).concat(),
        None => in_piece(0..text.len()),
    };
    found.truncate(limit);
    for (offset, len, helm) in found {
        // Slice: `offset` and `len` are a chunk's, within `text`.
        let doc = &text[offset..offset + len];
        match helm {
            Some((template, body_start)) => {
                let body = &doc[body_start..];
                let hid = sources.add(template, body);
                let body = sources.get(hid).map(|f| f.text.clone()).unwrap_or_default();
                let len = body.len();
                chunks.push((hid, body, 0, len));
            }
            None => chunks.push((id, text.clone(), offset, len)),
        }
    }
}

/// Streams from this size on are split into documents in pieces on every core.
const PARALLEL_SPLIT_FROM: usize = 8 << 20;

/// The objects of a JSON stream, one chunk each, the first `limit` of them; the first syntax error
/// ends the stream.
fn json_chunks(
    id: SourceId,
    text: &SourceText,
    (chunks, limit): (&mut Vec<(SourceId, SourceText, usize, usize)>, usize),
    diags: &mut Diagnostics,
) {
    let mut values = serde_json::Deserializer::from_str(text).into_iter::<serde::de::IgnoredAny>();
    let mut start = 0;
    for _ in 0..limit {
        match values.next() {
            Some(Ok(_)) => {
                let end = values.byte_offset();
                // The whitespace before a value belongs to it: its chunk starts at the value.
                let lead = text[start..end].len() - text[start..end].trim_start().len();
                chunks.push((id, text.clone(), start + lead, end - start - lead));
                start = end;
            }
            Some(Err(e)) => {
                let e = yaml::json_error(id, 0, text, &e);
                diags.push(
                    Diagnostic::new(e.code, e.message)
                        .at(e.span, "here")
                        .help("fix the JSON syntax at this position (the file starts with `{`, so it is read as JSON, as kubectl reads it)"),
                );
                return;
            }
            None => return,
        }
    }
}

/// Parse and validate documents on the parsing threads (documents are independent); the results
/// in input order. A List of more than `room` items is over the documents' budget: its items are
/// counted, not validated.
fn parse_documents(
    docs: &[(SourceId, usize, &str)],
    opts: &LoadOptions,
    room: usize,
) -> Vec<OneDocument> {
    let one = |&(id, base, text): &(SourceId, usize, &str)| {
        let mut one = OneDocument::default();
        parse_chunk(
            (id, base, text),
            read_document(id, base, text),
            (opts, room),
            &mut one,
        );
        one
    };
    // A chunk at a time by every core, with the stack the parser's depth budget is sized for; a
    // few hundred documents are cut finer, so that one costly document (#1085's Gateway of 63
    // listeners, whose rules compare every listener with every other) does not hold a chunk of
    // others behind it.
    let chunk = PARSE_CHUNK.min(docs.len().div_ceil(8 * crate::par::cores()));
    crate::par::map_chunked(docs, chunk, one)
}

/// One file read on its own (`watch` keeps one per file and parses again only the files that
/// changed): its valid objects, numbered from 1 within the file, how many objects its documents
/// held, how many documents it has, and its findings.
#[derive(Clone, Debug, Default)]
pub(crate) struct ParsedFile {
    pub objects: Vec<validate::Validated>,
    pub objects_seen: usize,
    pub documents: usize,
    pub diagnostics: Diagnostics,
    /// The documents of the run's budget the files before it had admitted when it was parsed
    /// (`None`: not parsed, as after a document left out over the budget).
    pub budget_before: Option<usize>,
    /// What it admitted of the budget (a List's items each count).
    pub budget_used: usize,
    /// Whether a document of it was left out over the budget (with a `PCTL1019`).
    pub over_budget: bool,
}

impl ParsedFile {
    /// Whether parsing the same text after files that admitted `before` documents gives this
    /// parse again: the budget left for it is the same, or it neither reached the budget it had
    /// nor would reach the new one.
    pub(crate) fn same_after(&self, before: usize, max: usize) -> bool {
        self.budget_before == Some(before)
            || (!self.over_budget && self.budget_used <= max.saturating_sub(before))
    }
}

/// [`parse_texts`] of one file's text, registered in `sources` as `id`: the same steps as [`load`]
/// takes for each file, after files that admitted `before` documents of the run's budget.
pub(crate) fn parse_file(
    id: SourceId,
    text: &SourceText,
    sources: &mut SourceMap,
    opts: &LoadOptions,
    before: usize,
) -> ParsedFile {
    parse_texts(&[(id, text.clone())], sources, opts, PARSE_WINDOW, before)
}

/// The model of files parsed one by one ([`parse_file`]), given in the order [`load`] would read
/// them: the same model and findings as [`load`] of those files (duplicates, assumed
/// GatewayClasses). The files' objects are copied; the files stay as they are.
pub(crate) fn assemble_files(
    files: &[&ParsedFile],
    sources: &mut SourceMap,
    opts: &LoadOptions,
    diags: &mut Diagnostics,
) -> Model {
    let mut objs = Vec::with_capacity(files.iter().map(|f| f.objects.len()).sum());
    let mut seq = 0;
    for f in files {
        for v in &f.objects {
            let mut v = v.clone();
            v.meta_mut().origin.seq += seq;
            objs.push(v);
        }
        seq += f.objects_seen;
    }
    let mut model = assemble(objs, sources, diags);
    complete(&mut model, sources, opts, diags);
    model
}

/// [`assemble_files`] for objects already gathered from the files, each with its sequence number in
/// the whole input (`watch`'s slices: a part of the files' objects). The model is completed as
/// every model is ([`complete`]); a slice holds no extension policies (`watch` computes an estate
/// with any in full), so no object is created and no source added: `created` stays empty.
pub(crate) fn assemble_objects(
    objects: Vec<Validated>,
    sources: &SourceMap,
    opts: &LoadOptions,
    diags: &mut Diagnostics,
) -> Model {
    let mut model = assemble(objects, sources, diags);
    let mut created = SourceMap::new();
    complete(&mut model, &mut created, opts, diags);
    debug_assert!(
        created.files().next().is_none(),
        "a slice with extension policies"
    );
    model
}

/// The manifest files under a path, in the order [`load`] reads them (see `discover`); problems
/// (an unreadable path, a symlink loop) are findings.
pub(crate) fn discover_files(path: &Path) -> (Vec<PathBuf>, Diagnostics) {
    let mut diags = Diagnostics::new();
    let files = discover(path, &mut diags)
        .into_iter()
        .map(|f| f.path)
        .collect();
    (files, diags)
}

/// Read one manifest file as [`load`] does (byte-order mark dropped, lone carriage returns made
/// line feeds) within `left`, what is left of the run's budget of bytes, with the number of bytes
/// read (what the budget counts, text or not); `None` when it would go over the budget. A file that
/// cannot be read or is not UTF-8 text gives its findings instead (whose positions are registered
/// in `sources`).
pub(crate) fn read_path(
    path: &Path,
    sources: &mut SourceMap,
    left: u64,
) -> Option<(Result<String, Diagnostics>, u64)> {
    let found = Found {
        path: path.to_path_buf(),
        stream: false,
    };
    let mut out = Loaded {
        sources: std::mem::take(sources),
        ..Loaded::default()
    };
    let read = match read_within(&found, left) {
        Ok(Some(bytes)) => {
            let n = bytes.len() as u64;
            let name = path.display().to_string();
            Some((decode(&name, Cow::Owned(bytes), &mut out), n))
        }
        Ok(None) => None,
        Err(e) => {
            out.diagnostics.push(unreadable(&found, e));
            Some((None, 0))
        }
    };
    *sources = out.sources;
    read.map(|(text, n)| (text.ok_or(out.diagnostics), n))
}

/// What one document gave: its valid objects (numbered from 1 within the document), how many
/// objects it held, and its diagnostics.
#[derive(Default)]
struct OneDocument {
    objects: Vec<Validated>,
    objects_seen: usize,
    diagnostics: Diagnostics,
    /// The items of a List (0 for any other document): each counts as a document in the budget.
    items: usize,
}

/// `# Source: <path>` among a document's leading comment lines (helm's marker): the template name and
/// the byte offset where the document's text after that line starts.
fn helm_source(doc: &str) -> Option<(String, usize)> {
    let mut off = 0;
    for line in doc.split_inclusive('\n') {
        let t = line.trim();
        if let Some(name) = t.strip_prefix("# Source:") {
            let name = name.trim();
            return (!name.is_empty()).then(|| (name.to_string(), off + line.len()));
        }
        if !(t.is_empty() || t.starts_with('#') || t == "---") {
            return None;
        }
        off += line.len();
    }
    None
}

/// Read every input into the source map, recording the file names; unreadable paths and non-text
/// files become diagnostics. The files are read in the order of their paths ([`input_order`]),
/// whatever the order of the inputs that named them, until they total more than `max_bytes`: that
/// file and every one after it are left out, with one `PCTL1019`.
fn read_inputs(inputs: &[Input], max_bytes: u64, out: &mut Loaded) -> Vec<(SourceId, SourceText)> {
    /// An input to read: a text the caller read, or a file found.
    enum Pending<'i> {
        Text(&'i str, &'i [u8]),
        File(Found),
    }
    impl Pending<'_> {
        fn path(&self) -> &Path {
            match self {
                Pending::Text(name, _) => Path::new(name),
                Pending::File(found) => &found.path,
            }
        }
    }
    let mut pending = Vec::new();
    for input in inputs {
        match input {
            Input::Text { name, bytes } => pending.push(Pending::Text(name, bytes)),
            Input::Path(p) => pending.extend(
                discover(p, &mut out.diagnostics)
                    .into_iter()
                    .map(Pending::File),
            ),
        }
    }
    // Stable: a name given twice keeps the order of the inputs (only texts can share a name).
    pending.sort_by(|a, b| input_order(a.path(), b.path()));
    let mut texts = Vec::new();
    // Regular files already read, by canonical path: a file named twice (`-f dir -f dir`,
    // `-f a.yaml -f ./a.yaml`, a symbolic link to it) is read once, under the name that comes
    // first.
    let mut seen = std::collections::HashSet::new();
    let mut left = max_bytes;
    let mut add = |name: String, bytes: Cow<'_, [u8]>, out: &mut Loaded| {
        if let Some(t) = decode(&name, bytes, out) {
            let id = out.sources.add(name.clone(), t);
            out.files.push(name);
            let text = out
                .sources
                .get(id)
                .map(|f| f.text.clone())
                .unwrap_or_default();
            texts.push((id, text));
        }
    };
    let mut over = None;
    for input in pending {
        match input {
            Pending::Text(name, bytes) => {
                if bytes.len() as u64 > left {
                    over = Some(name.to_owned());
                    break;
                }
                left -= bytes.len() as u64;
                add(name.to_owned(), Cow::Borrowed(bytes), out)
            }
            Pending::File(found) => {
                if !found.stream
                    && let Ok(canonical) = std::fs::canonicalize(&found.path)
                    && !seen.insert(canonical)
                {
                    continue;
                }
                let name = found.path.display().to_string();
                match read_within(&found, left) {
                    Ok(Some(bytes)) => {
                        left -= bytes.len() as u64;
                        add(name, Cow::Owned(bytes), out)
                    }
                    Ok(None) => {
                        over = Some(name);
                        break;
                    }
                    Err(e) => out.diagnostics.push(unreadable(&found, e)),
                }
            }
        }
    }
    if let Some(name) = over {
        out.diagnostics
            .push(budget::input_bytes_diagnostic(&name, max_bytes));
    }
    texts
}

/// The order inputs are read in, and their documents counted against the run's budgets: by path,
/// a component at a time (a folder's files are walked in this order too), so that the same files
/// named in any order give the same run.
pub(crate) fn input_order(a: &Path, b: &Path) -> std::cmp::Ordering {
    a.cmp(b)
}

/// The most a stream (a pipe, a FIFO, process substitution such as `<(kubectl get … -o yaml)`,
/// `/dev/stdin` or `-`) may give: 256 MiB. A stream has no size to check before reading, and one that
/// never ends (`/dev/zero`, `yes`) must not grow to the memory limit. A regular file has the same
/// bound ([`MAX_FILE_BYTES`]), checked on its size before it is read.
pub const MAX_STREAM_BYTES: u64 = 256 * 1024 * 1024;

/// The most bytes policyctl reads from one regular file named with `-f` (or found in a folder
/// named with it, `watch` included): the stream bound.
pub const MAX_FILE_BYTES: u64 = MAX_STREAM_BYTES;

/// Read the file at `path` (a flag's `@FILE`, a test case file): a regular file or a stream (a
/// pipe or FIFO, `/dev/stdin`), at most `max` bytes; `/dev/null` reads as empty. Another device
/// (`/dev/zero`, a terminal), a socket or a folder is refused: it would never end, or block.
pub fn read_bounded_file(path: &Path, max: u64) -> Result<Vec<u8>, StreamError> {
    let meta = std::fs::metadata(path).map_err(|e| StreamError::Io(e.to_string()))?;
    if meta.is_dir() {
        return Err(StreamError::Io("a folder, not a file".into()));
    }
    match special_file(&meta) {
        Some(false) => {
            return Err(StreamError::Io(
                "a device or a socket, not a file or a pipe".into(),
            ));
        }
        Some(true) if is_null_device(&meta) => return Ok(Vec::new()),
        _ => {}
    }
    let file = std::fs::File::open(path).map_err(|e| StreamError::Io(e.to_string()))?;
    read_regular_or_stream(file, max)
}

/// Read an open file whole, at most `max` bytes: a regular file's size is checked first (and
/// its buffer sized once), a stream is read up to the bound.
fn read_regular_or_stream(file: std::fs::File, max: u64) -> Result<Vec<u8>, StreamError> {
    use std::io::Read;
    let meta = file
        .metadata()
        .map_err(|e| StreamError::Io(e.to_string()))?;
    if !meta.is_file() {
        return read_stream(file, max);
    }
    if meta.len() > max {
        return Err(StreamError::TooLarge(max));
    }
    #[cfg(unix)]
    if meta.len() >= PARALLEL_READ_FROM
        && let Some(bytes) = read_in_parts(&file, meta.len())
    {
        return Ok(bytes);
    }
    // The size may change between the check and the read: the read is bounded all the same.
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0).saturating_add(1));
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| StreamError::Io(e.to_string()))?;
    if bytes.len() as u64 > max {
        return Err(StreamError::TooLarge(max));
    }
    Ok(bytes)
}

/// Regular files from this size on are read in parts on every core at once ([`read_in_parts`]).
#[cfg(unix)]
const PARALLEL_READ_FROM: u64 = 8 << 20;

/// The `len` bytes of a regular file, its parts read at their offsets on every core at once: the
/// kernel's copy into fresh memory (a page fault per 4 KiB) is most of a large file's read, and
/// nothing else can start before it ends. `None` when the file is not exactly `len` bytes long by
/// the end of the reads (it changed meanwhile) or a read fails: the caller reads it again from the
/// start, bounded, as it reads any file.
#[cfg(unix)]
fn read_in_parts(file: &std::fs::File, len: u64) -> Option<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let len = usize::try_from(len).ok()?;
    // Zeroed memory fresh from the system (the allocator does not write it): the reads fault it in.
    let mut bytes = vec![0u8; len];
    let part = len.div_ceil(crate::par::cores().max(1)).max(1);
    let read = crate::par::chunks_mut(&mut bytes, part, |i, chunk| {
        file.read_exact_at(chunk, (i * part) as u64).is_ok()
    });
    // Nothing after the last byte: the file did not grow since its size was read.
    let mut after = [0u8; 1];
    let ended = matches!(file.read_at(&mut after, len as u64), Ok(0));
    (read.iter().all(|ok| *ok) && ended).then_some(bytes)
}

/// Why a stream could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamError {
    /// Reading failed; the operating system's message.
    Io(String),
    /// The stream gave more than the bound, in bytes.
    TooLarge(u64),
}

impl StreamError {
    /// The message (naming the stream) and what to do, for a diagnostic.
    pub fn explain(&self, name: &str) -> (String, &'static str) {
        match self {
            StreamError::Io(e) => (
                format!("cannot read {name}: {e}"),
                "check the path and its permissions",
            ),
            StreamError::TooLarge(max) => (
                format!(
                    "{name} gave more than {} MiB, the most policyctl reads from a pipe, a FIFO or stdin",
                    max / (1024 * 1024)
                ),
                "write the text to a file and pass the file with -f, or split it into several inputs",
            ),
        }
    }
}

/// Read a stream to its end, refusing one that gives more than `max` bytes (without reading more
/// than one byte past it).
pub fn read_stream(r: impl std::io::Read, max: u64) -> Result<Vec<u8>, StreamError> {
    use std::io::Read;
    let mut bytes = Vec::new();
    r.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| StreamError::Io(e.to_string()))?;
    if bytes.len() as u64 > max {
        return Err(StreamError::TooLarge(max));
    }
    Ok(bytes)
}

/// A path to read and how: a regular file whole, a stream up to [`MAX_STREAM_BYTES`].
struct Found {
    path: PathBuf,
    stream: bool,
}

impl Found {
    /// The most bytes read from it: [`MAX_STREAM_BYTES`] or [`MAX_FILE_BYTES`].
    fn bound(&self) -> u64 {
        if self.stream {
            MAX_STREAM_BYTES
        } else {
            MAX_FILE_BYTES
        }
    }
}

/// Read `found` within `left`, what is left of the run's budget of bytes, and its own bound:
/// `Ok(None)` when it would go over the budget (checked on a regular file's size before it is
/// read), an error when it cannot be read or is over its own bound.
fn read_within(found: &Found, left: u64) -> Result<Option<Vec<u8>>, StreamError> {
    let own = found.bound();
    match read_found(found, own.min(left)) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(StreamError::TooLarge(max)) if max < own => Ok(None),
        Err(e) => Err(e),
    }
}

/// Read `found`, at most `max` bytes.
fn read_found(found: &Found, max: u64) -> Result<Vec<u8>, StreamError> {
    let file = std::fs::File::open(&found.path).map_err(|e| StreamError::Io(e.to_string()))?;
    if found.stream {
        read_stream(file, max)
    } else {
        read_regular_or_stream(file, max)
    }
}

/// The `PCTL1005` of an input that cannot be read, or is larger than its own bound.
fn unreadable(found: &Found, e: StreamError) -> Diagnostic {
    let name = found.path.display().to_string();
    match (&e, found.stream) {
        (StreamError::TooLarge(max), false) => Diagnostic::new(
            Code::UnreadableInput,
            format!(
                "{name} holds more than {} MiB, the most policyctl reads from one file",
                max / (1024 * 1024)
            ),
        )
        .help("split it into several files (a folder named with -f reads them all)"),
        _ => {
            let (message, help) = e.explain(&name);
            Diagnostic::new(Code::UnreadableInput, message).help(help)
        }
    }
}

/// What kind of non-regular, non-directory file a path is: `Some(true)` for a stream policyctl reads
/// (a pipe or FIFO, or the null device, which reads as empty), `Some(false)` for one it refuses
/// (another character device, a block device, a socket).
#[cfg(unix)]
pub(crate) fn special_file(meta: &std::fs::Metadata) -> Option<bool> {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_fifo() {
        return Some(true);
    }
    if t.is_char_device() {
        return Some(is_null_device(meta));
    }
    (t.is_block_device() || t.is_socket()).then_some(false)
}

/// Whether a file is the null device (`/dev/null`), which reads as empty.
#[cfg(unix)]
pub(crate) fn is_null_device(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    meta.file_type().is_char_device()
        && std::fs::metadata("/dev/null").is_ok_and(|n| n.rdev() == meta.rdev())
}

#[cfg(not(unix))]
pub fn is_null_device(_meta: &std::fs::Metadata) -> bool {
    false
}

#[cfg(not(unix))]
pub fn special_file(_meta: &std::fs::Metadata) -> Option<bool> {
    None
}

fn decode(name: &str, bytes: Cow<'_, [u8]>, out: &mut Loaded) -> Option<String> {
    // The bytes read are the text, without a copy (a large input is tens of megabytes).
    let mut bytes = bytes.into_owned();
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    if bytes.iter().take(8192).any(|b| *b == 0) {
        out.diagnostics.push(
            Diagnostic::new(
                Code::UnreadableInput,
                format!("{name} is a binary file, not YAML or JSON"),
            )
            .help("pass only manifest files, or a directory of them, with -f"),
        );
        return None;
    }
    match String::from_utf8(bytes) {
        Ok(s) => Some(line_feeds_owned(s)),
        Err(e) => {
            // Point at the bad byte: register the readable prefix so the position can be shown.
            let valid = e.utf8_error().valid_up_to();
            // Slice: `valid_up_to` is at most the length.
            let good = &e.as_bytes()[..valid];
            let text = String::from_utf8_lossy(good).into_owned();
            let id = out.sources.add(name.to_owned(), text);
            out.diagnostics.push(
                Diagnostic::new(Code::UnreadableInput, format!("{name} is not valid UTF-8"))
                    .at(
                        Span::new(id, valid, 0),
                        "invalid UTF-8 byte sequence starts here",
                    )
                    .help(
                        "Kubernetes manifests must be UTF-8; re-encode the file (e.g. with iconv)",
                    ),
            );
            None
        }
    }
}

/// [`line_feeds`] of an owned text: the text itself when it has no carriage return.
fn line_feeds_owned(s: String) -> String {
    if s.contains('\r') { line_feeds(&s) } else { s }
}

/// The text with every lone carriage return (old Mac OS line ends) turned into a line feed. YAML 1.2
/// reads a lone CR as a line break (spec 5.4, `b-break`), but neither the YAML crate nor the line
/// index here does; one byte for one byte, so every offset and `line:column` stays right. A CR before
/// a LF is left alone. Every text policyctl reads goes through it: manifests, settings, request
/// and test case files.
pub fn line_feeds(s: &str) -> String {
    if !s.contains('\r') {
        return s.to_owned();
    }
    let b = s.as_bytes();
    let out: Vec<u8> = b
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            if c == b'\r' && b.get(i + 1) != Some(&b'\n') {
                b'\n'
            } else {
                c
            }
        })
        .collect();
    // Replacing one ASCII byte by another keeps the text UTF-8.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Files under a path: the path itself if it is a file or a stream (a pipe, a FIFO, `/dev/stdin`,
/// process substitution, the null device); else every `.yaml`/`.yml`/`.json` below it, in sorted path
/// order, skipping hidden entries and anything that is not a regular file. Symlinks are followed;
/// loops are reported. Other special files named directly are refused.
fn discover(path: &Path, diags: &mut Diagnostics) -> Vec<Found> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) => {
            diags.push(
                Diagnostic::new(
                    Code::UnreadableInput,
                    format!("cannot read {}: {e}", path.display()),
                )
                .help("check the path given with -f"),
            );
            return vec![];
        }
    };
    if meta.is_file() {
        return vec![Found {
            path: path.to_path_buf(),
            stream: false,
        }];
    }
    match special_file(&meta) {
        Some(true) => {
            return vec![Found {
                path: path.to_path_buf(),
                stream: true,
            }];
        }
        Some(false) => {
            diags.push(
                Diagnostic::new(
                    Code::UnreadableInput,
                    format!(
                        "cannot read {}: it is a device or socket, not a file, directory or pipe",
                        path.display()
                    ),
                )
                .help("pass manifest files or directories with -f, or pipe the text in with -f -"),
            );
            return vec![];
        }
        None => {}
    }
    let mut files = Vec::new();
    let walker = walkdir::WalkDir::new(path)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'));
    for entry in walker {
        match entry {
            Ok(e) => {
                if e.file_type().is_file() && is_manifest(e.path()) {
                    files.push(Found {
                        path: e.into_path(),
                        stream: false,
                    });
                }
            }
            Err(e) => {
                let what = if e.loop_ancestor().is_some() {
                    "a symbolic link loop".to_string()
                } else {
                    e.to_string()
                };
                let at = e
                    .path()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default();
                diags.push(
                    Diagnostic::new(Code::UnreadableInput, format!("cannot read {at}: {what}"))
                        .help("remove the loop or the unreadable entry, or pass the files you mean with -f"),
                );
            }
        }
    }
    files
}

fn is_manifest(p: &Path) -> bool {
    matches!(
        p.extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml" | "json")
    )
}

/// Parse one document into a tree.
fn read_document(id: SourceId, base: usize, text: &str) -> Result<Node, yaml::ParseError> {
    yaml::parse_node(id, base, text)
}

fn parse_chunk(
    (id, base, text): (SourceId, usize, &str),
    doc: Result<Node, yaml::ParseError>,
    (opts, room): (&LoadOptions, usize),
    out: &mut OneDocument,
) {
    match doc {
        Ok(node) => {
            let whole = Span::new(id, base, text.len());
            accept(node, whole, (opts, room), out)
        }
        Err(e) => {
            let help = match e.code {
                Code::InputLimit => {
                    "the document is too large or too deeply nested, or expands too many aliases; split or simplify it"
                }
                Code::YamlSyntax => "fix the YAML syntax at this position",
                _ => "fix the value at this position; the object is left out",
            };
            out.diagnostics.push(
                Diagnostic::new(e.code, e.message)
                    .at(e.span, "here")
                    .help(help),
            );
        }
    }
}

/// Byte length of the blank/comment/`---` lines that open a document chunk.
fn leading_trivia(text: &str) -> usize {
    let mut off = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if t.is_empty()
            || t.starts_with('#')
            || t == "---"
            || t.starts_with("--- #")
            || t.starts_with('%')
        {
            off += line.len();
        } else {
            break;
        }
    }
    off.min(text.len())
}

/// Validate the objects of one document: the document itself, or the items of a List (nested
/// lists flattened as kubectl flattens them, each item numbered in that order), unless they are
/// more than `room`, the documents the budget has room for.
fn accept(node: Node, whole: Span, (opts, room): (&LoadOptions, usize), out: &mut OneDocument) {
    if document::is_list(&node) {
        let items = document::flatten(node);
        out.items = items.len();
        if items.len() > room {
            return;
        }
        for (i, item) in items.into_iter().enumerate() {
            accept_object(item, (whole, Some(i)), opts, out);
        }
    } else {
        accept_object(node, (whole, None), opts, out);
    }
}

fn accept_object(
    node: Node,
    place: (Span, Option<usize>),
    opts: &LoadOptions,
    out: &mut OneDocument,
) {
    let span = node.span;
    let Value::Map(entries) = &node.value else {
        out.diagnostics.push(
            Diagnostic::new(
                Code::NotAnObject,
                "the document is not a mapping: a Kubernetes object is a mapping with apiVersion and kind",
            )
            .at(span, "here")
            .help("every document must be one Kubernetes object; remove it or wrap it in a List"),
        );
        return;
    };
    if !entries.iter().any(|e| {
        matches!(
            e.key.value.as_str(),
            "apiVersion" | "kind" | "metadata" | "spec"
        )
    }) {
        // An empty mapping or a document with only unknown keys: nothing to model.
        out.diagnostics.push(
            Diagnostic::new(Code::NotAnObject, "document has no apiVersion or kind")
                .at(span, "this document")
                .help("every manifest needs apiVersion and kind; remove the document if it is not a Kubernetes object"),
        );
        return;
    }
    out.objects_seen += 1;
    if let Some(v) = validate::object(node, out.objects_seen, place, opts, &mut out.diagnostics) {
        // Most documents hold one object, and an object is large: room for one, not four.
        if out.objects.capacity() == 0 {
            out.objects.reserve_exact(1);
        }
        out.objects.push(v);
    }
}

/// Sort objects canonically, report duplicates, and build the model.
///
/// Of two or more objects with the same group, kind, namespace and name, the one kept is the first in
/// the order of their content (the object as JSON with sorted keys, then input order, which is by
/// path: [`input_order`]), so the result does not depend on the order of `-f` flags; every other
/// one is reported and left out.
fn assemble(mut objs: Vec<Validated>, sources: &SourceMap, diags: &mut Diagnostics) -> Model {
    // Objects with the same identity, found by a hash of it (computed on every core) and then
    // compared in full among the objects whose hashes are equal.
    let hasher = foldhash::fast::FixedState::with_seed(0);
    let hashes: Vec<u64> = crate::par::map(&objs, 8192, |o| {
        std::hash::BuildHasher::hash_one(&hasher, o.identity())
    });
    let mut first: HashMap<u64, usize> = HashMap::with_capacity(objs.len());
    let mut same_hash: Vec<usize> = Vec::new();
    for (i, &h) in hashes.iter().enumerate() {
        if let Some(&f) = first.get(&h) {
            // Sorted and de-duplicated below.
            same_hash.extend([f, i]);
        } else {
            first.insert(h, i);
        }
    }
    drop(first);
    same_hash.sort_unstable();
    same_hash.dedup();
    // What one pass over every object in order finds: each identity's objects, and the identities
    // with two or more, in the order their second object comes.
    let mut groups: HashMap<(&str, &str, &str, &str), Vec<usize>> = HashMap::new();
    let mut repeated = Vec::new();
    for &i in &same_hash {
        let o = &objs[i];
        let group = groups.entry(o.identity()).or_default();
        group.push(i);
        if group.len() == 2 {
            repeated.push(o.identity());
        }
    }
    let mut keep = vec![true; objs.len()];
    for key in repeated {
        let Some(group) = groups.get(&key) else {
            continue;
        };
        let content = |i: usize| -> String {
            let origin = &objs[i].meta().origin;
            let mut out = String::new();
            if let Some(v) = object_value(sources, origin) {
                canonical(&v, &mut out);
            }
            out
        };
        let mut order: Vec<(String, usize)> = group.iter().map(|&i| (content(i), i)).collect();
        order.sort();
        let kept = order[0].1;
        for &(_, i) in &order[1..] {
            keep[i] = false;
            let (kind, meta) = (key.1, objs[i].meta());
            let kept_at = sources
                .position(objs[kept].meta().origin.name)
                .map(|p| format!(" (kept: {p})"))
                .unwrap_or_default();
            diags.push(
                Diagnostic::new(
                    Code::DuplicateObject,
                    format!("duplicate {kind} {}: the same group, kind, namespace and name is defined twice{kept_at}", meta.key()),
                )
                .at(meta.origin.name, "left out")
                .also(objs[kept].meta().origin.name, "kept")
                .object(format!("{kind} {}", meta.key()))
                .help("remove one of the definitions; policyctl keeps the one that sorts first by content, whatever the file names"),
            );
        }
    }
    drop(groups);
    let mut keep = keep.into_iter();
    objs.retain(|_| keep.next().unwrap_or(true));
    let mut model = Model::with_room_for(&objs);
    for o in objs {
        o.into_model(&mut model);
    }
    validate::sort_model(&mut model);
    model
}

/// A value as JSON with every mapping's keys sorted (the same text whatever order the keys were
/// written in).
fn canonical(v: &serde_json::Value, out: &mut String) {
    match v {
        serde_json::Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::Value::String(k.clone()).to_string());
                out.push(':');
                if let Some(x) = m.get(k) {
                    canonical(x, out);
                }
            }
            out.push('}');
        }
        serde_json::Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(x, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// The floor `load` is measured against (issue 7): read the inputs, split them into documents and parse
/// every document into the same spanned tree, with the same YAML reader and options, as [`load`], then drop the
/// result. No validation, no model. Returns the number of documents that parsed.
#[doc(hidden)]
pub fn parse_only(inputs: &[Input]) -> usize {
    let mut scratch = Loaded::default();
    let mut texts: Vec<String> = Vec::new();
    for input in inputs {
        match input {
            Input::Text { name, bytes } => {
                texts.extend(decode(name, Cow::Borrowed(bytes), &mut scratch))
            }
            Input::Path(p) => {
                for found in discover(p, &mut scratch.diagnostics) {
                    if let Ok(bytes) = read_found(&found, found.bound()) {
                        let name = found.path.display().to_string();
                        texts.extend(decode(&name, Cow::Owned(bytes), &mut scratch));
                    }
                }
            }
        }
    }
    let docs: Vec<(usize, &str)> = texts
        .iter()
        .flat_map(|text| {
            split::documents(text)
                .into_iter()
                .map(move |c| (c.offset, &text[c.offset..c.offset + c.len]))
        })
        .collect();
    // The same parallel parse as `load`.
    crate::par::map(&docs, PARSE_MIN_PER_THREAD, |&(base, doc)| {
        yaml::parse_node(SourceId(0), base, doc).is_ok()
    })
    .into_iter()
    .filter(|ok| *ok)
    .count()
}

/// Untyped objects read from inputs (any kind), e.g. a `kubectl get -o yaml` dump or committed
/// output (`List`s are left as they are; parse failures become diagnostics), handed to `each` a
/// window of documents at a time (about `window_bytes` of text, at least one document) in input
/// order, so that a large dump is never held whole as trees (about twelve times its text). The
/// documents of a window are parsed on every core.
pub fn values_in_windows(
    inputs: &[Input],
    window_bytes: usize,
    mut each: impl FnMut(Vec<serde_json::Value>),
) -> (SourceMap, Diagnostics) {
    let mut out = Loaded::default();
    for (id, text) in read_inputs(inputs, MAX_INPUT_BYTES, &mut out) {
        let all = split::documents(&text);
        let mut rest = &all[..];
        while !rest.is_empty() {
            let mut n = 0;
            let mut bytes = 0;
            while n < rest.len() && (n == 0 || bytes < window_bytes) {
                bytes += rest[n].len;
                n += 1;
            }
            let (chunks, after) = rest.split_at(n);
            rest = after;
            let parsed = crate::par::map(chunks, 64, |chunk| {
                // Slice: chunks from `split::documents(&text)` lie within `text` on line boundaries.
                yaml::parse_value_checked(&text[chunk.offset..chunk.offset + chunk.len])
            });
            let mut batch = Vec::with_capacity(chunks.len());
            for (chunk, result) in chunks.iter().zip(parsed) {
                match result {
                    Ok(v) if v.is_object() => batch.push(v),
                    Ok(_) => {}
                    Err(msg) => {
                        let doc = &text[chunk.offset..chunk.offset + chunk.len];
                        out.diagnostics.push(
                            Diagnostic::new(Code::YamlSyntax, msg)
                                .at(
                                    Span::new(id, chunk.offset + leading_trivia(doc), 0),
                                    "in this document",
                                )
                                .help("fix the YAML syntax of the current objects"),
                        )
                    }
                }
            }
            each(batch);
        }
    }
    (out.sources, out.diagnostics)
}

/// The object as written, as JSON (re-read from its document), e.g. to print it with a predicted
/// status. `None` if the text cannot be read again.
pub fn object_value(
    sources: &SourceMap,
    origin: &crate::model::Origin,
) -> Option<serde_json::Value> {
    let file = sources.get(origin.document.source)?;
    let text = file
        .text
        .get(origin.document.offset..origin.document.offset + origin.document.len)?;
    let v = yaml::parse_value(text)?;
    match origin.item {
        None => Some(v),
        Some(i) => document::flatten_json(&v).get(i).map(|x| (*x).clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file large enough to be read in parts gives its bytes, every one in its place, as the
    /// sequential read does.
    #[cfg(unix)]
    #[test]
    fn a_large_file_read_in_parts_is_the_file() {
        let len = PARALLEL_READ_FROM as usize + 12_345;
        let bytes: Vec<u8> = (0..len).map(|i| (i * 7 + i / 4093) as u8).collect();
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("large.yaml");
        std::fs::write(&path, &bytes).expect("write");
        let file = std::fs::File::open(&path).expect("open");
        assert_eq!(
            read_in_parts(&file, len as u64).as_deref(),
            Some(&bytes[..])
        );
        // A size that is not the file's (it grew, or shrank, since): none, the caller reads again.
        assert_eq!(read_in_parts(&file, len as u64 - 1), None);
        assert_eq!(read_in_parts(&file, len as u64 + 1), None);
        let file = std::fs::File::open(&path).expect("open");
        let read = read_regular_or_stream(file, MAX_FILE_BYTES).expect("read");
        assert!(read == bytes, "the whole read differs");
    }

    /// Current objects are parsed on several threads: they come back in document order, and a bad
    /// document is reported where it is.
    #[test]
    fn values_keep_document_order() {
        let mut text = String::new();
        for i in 0..300 {
            if i == 150 {
                text.push_str("---\nkind: [unclosed\n");
            }
            text.push_str(&format!("---\nkind: K\nmetadata:\n  name: n{i}\n"));
        }
        let input = [Input::Text {
            name: "current.yaml".into(),
            bytes: text.into_bytes(),
        }];
        let mut whole = Vec::new();
        let (sources, diags) = values_in_windows(&input, usize::MAX, |batch| whole.push(batch));
        assert_eq!(whole.len(), 1);
        let values = whole.concat();
        // In windows of about 100 bytes (a few documents each): the same objects in the same order.
        let mut windows = Vec::new();
        let (_, window_diags) = values_in_windows(&input, 100, |batch| windows.push(batch));
        assert!(windows.len() > 50 && windows.iter().all(|w| w.len() <= 4));
        assert_eq!(windows.concat(), values);
        assert_eq!(window_diags.len(), diags.len());
        let names: Vec<&str> = values
            .iter()
            .filter_map(|v| v.pointer("/metadata/name")?.as_str())
            .collect();
        let want: Vec<String> = (0..300).map(|i| format!("n{i}")).collect();
        assert_eq!(names, want);
        assert_eq!(diags.len(), 1);
        let span = diags
            .iter()
            .next()
            .and_then(|d| d.labels.first())
            .map(|l| l.span);
        let line = span.and_then(|s| sources.position(s)).map(|p| p.line);
        // 150 documents of four lines, then `---`, then the bad line.
        assert_eq!(line, Some(150 * 4 + 2));
    }

    /// The window only bounds memory: any window size gives the same model, numbering and
    /// diagnostics, on valid input and on input with schema errors, duplicates and bad YAML.
    #[test]
    fn windows_do_not_change_the_result() {
        let root = env!("CARGO_MANIFEST_DIR");
        // Enough documents for the parsing threads to take them a chunk at a time, some of them
        // invalid (a port out of range, a YAML syntax error).
        let mut many = String::new();
        for i in 0..3 * PARSE_CHUNK {
            let port = if i % 50 == 7 { 70000 } else { 8000 + i };
            let bad = if i % 97 == 5 { "  x: [\n" } else { "" };
            many.push_str(&format!(
                "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: s{i}\n  namespace: ns\n{bad}spec:\n  ports:\n  - port: {port}\n"
            ));
        }
        let inputs = [
            Input::Path(format!("{root}/testdata/examples").into()),
            Input::Path(format!("{root}/testdata/invalid/schema").into()),
            Input::Text {
                name: "many.yaml".into(),
                bytes: many.into_bytes(),
            },
        ];
        let opts = LoadOptions::default();
        let whole = load_in_windows(&inputs, &opts, usize::MAX);
        assert!(
            whole.documents > 3 * PARSE_CHUNK,
            "{} documents",
            whole.documents
        );
        assert!(whole.model.services.len() > 2 * PARSE_CHUNK);
        assert!(!whole.diagnostics.is_empty());
        let text = |l: &Loaded| format!("{:?}\n{:?}\n{}", l.model, l.diagnostics, l.documents);
        let expected = text(&whole);
        // Objects are numbered in input order across documents: no two share a number.
        let m = &whole.model;
        let mut seqs: Vec<usize> = (m.gateway_classes.iter().map(|o| o.meta.origin.seq))
            .chain(m.gateways.iter().map(|o| o.meta.origin.seq))
            .chain(m.routes.iter().map(|o| o.meta.origin.seq))
            .chain(m.services.iter().map(|o| o.meta.origin.seq))
            .chain(m.policies.iter().map(|o| o.meta.origin.seq))
            .collect();
        let n = seqs.len();
        seqs.sort_unstable();
        seqs.dedup();
        assert!(n > 5, "{n} objects");
        assert_eq!(seqs.len(), n, "object numbers repeat");
        for window in [1, 2, 7, PARSE_CHUNK + 1, 2 * PARSE_CHUNK, PARSE_WINDOW] {
            assert_eq!(
                text(&load_in_windows(&inputs, &opts, window)),
                expected,
                "window {window}"
            );
        }
    }

    /// The documents' budget counts YAML documents, a JSON stream's objects and a List's items in
    /// input order; the documents from the first over it are left out (a List whole), with one
    /// `PCTL1019` at that document's first line, whatever the window.
    #[test]
    fn documents_from_the_first_over_the_budget_are_left_out() {
        let svc = |n: usize| {
            format!(
                "{{apiVersion: v1, kind: Service, metadata: {{name: s{n}, namespace: ns}}, spec: {{ports: [{{port: 80}}]}}}}"
            )
        };
        let yaml = format!(
            "# two documents, a List of three items, a document\n{}\n---\n{}\n---\napiVersion: v1\nkind: List\nitems:\n- {}\n- {}\n- {}\n---\n# the last\n{}\n",
            svc(0),
            svc(1),
            svc(2),
            svc(3),
            svc(4),
            svc(5)
        );
        let json_svc = |n: usize| {
            format!(
                r#"{{"apiVersion": "v1", "kind": "Service", "metadata": {{"name": "s{n}", "namespace": "ns"}}, "spec": {{"ports": [{{"port": 80}}]}}}}"#
            )
        };
        let inputs = [
            Input::Text {
                name: "a.yaml".into(),
                bytes: yaml.into_bytes(),
            },
            Input::Text {
                name: "b.json".into(),
                bytes: format!("{}\n{}\n", json_svc(6), json_svc(7)).into_bytes(),
            },
        ];
        let run = |max: usize, window: usize| {
            let opts = LoadOptions {
                max_documents: max,
                ..LoadOptions::default()
            };
            let l = load_in_windows(&inputs, &opts, window);
            let mut kept: Vec<String> = (l.model.services.iter())
                .map(|s| s.meta.name.clone())
                .collect();
            kept.sort();
            let over: Vec<(String, String, usize)> = (l.diagnostics.iter())
                .filter(|d| d.code == Code::EstateLimit)
                .map(|d| {
                    let span = d.labels[0].span;
                    let f = l.sources.get(span.source).expect("source");
                    let text = &f.text[span.offset..span.offset + span.len];
                    (
                        d.message.clone(),
                        format!("{}:{text}", f.name),
                        f.line_index(span.offset) + 1,
                    )
                })
                .collect();
            assert!(
                l.diagnostics.iter().all(|d| d.code == Code::EstateLimit),
                "{:?}",
                l.diagnostics
            );
            (kept.join(","), over, l.documents)
        };
        let budget = |n: &str, this: &str| {
            format!(
                "the input is larger than the run's budget of {n} documents (YAML documents, objects of a JSON stream and items of a List, each counted): {this}"
            )
        };
        let one = "this document and every one after it are left out";
        for window in [1, 2, 3, 7, usize::MAX] {
            assert_eq!(
                run(8, window),
                ("s0,s1,s2,s3,s4,s5,s6,s7".into(), vec![], 6)
            );
            assert_eq!(
                run(7, window),
                (
                    "s0,s1,s2,s3,s4,s5,s6".into(),
                    vec![(budget("7", one), format!("b.json:{}", json_svc(7)), 2)],
                    5
                ),
                "window {window}"
            );
            assert_eq!(
                run(5, window),
                (
                    "s0,s1,s2,s3,s4".into(),
                    // Its first line after the `---` and the comment.
                    vec![(budget("5", one), format!("a.yaml:{}", svc(5)), 14)],
                    3
                ),
                "window {window}"
            );
            // The List counts its three items: with room for two, it is left out whole.
            for max in [2, 3, 4] {
                let want = budget(
                    &max.to_string(),
                    "this List of 3 items and every document after it are left out",
                );
                assert_eq!(
                    run(max, window),
                    (
                        "s0,s1".into(),
                        vec![(want, "a.yaml:apiVersion: v1".into(), 6)],
                        2
                    ),
                    "max {max} window {window}"
                );
            }
            assert_eq!(
                run(0, window),
                (
                    "".into(),
                    vec![(budget("0", one), format!("a.yaml:{}", svc(0)), 2)],
                    0
                ),
                "window {window}"
            );
        }
    }

    /// `watch` parses each file on its own, within what the files before it left of the budget of
    /// documents; `same_after` says exactly when parsing it after other files gives the same.
    #[test]
    fn a_file_parsed_on_its_own_keeps_within_the_budget() {
        let svc = |n: &str| {
            format!(
                "{{apiVersion: v1, kind: Service, metadata: {{name: {n}, namespace: ns}}, spec: {{ports: [{{port: 80}}]}}}}\n"
            )
        };
        // Block documents: a text that starts with `{` is a JSON stream.
        let text = format!("---\n{}", [svc("a"), svc("b"), svc("c")].join("---\n"));
        let mut sources = SourceMap::new();
        let id = sources.add("f.yaml", text.as_str());
        let text = sources.get(id).expect("source").text.clone();
        for max in 0..5 {
            let opts = LoadOptions {
                max_documents: max,
                ..LoadOptions::default()
            };
            let mut parse = |before: usize| {
                let p = parse_file(id, &text, &mut sources, &opts, before);
                let found: Vec<(Code, Option<Span>)> = (p.diagnostics.iter())
                    .map(|d| (d.code, d.primary_span()))
                    .collect();
                (p, found)
            };
            for before in 0..=max {
                let (p, found) = parse(before);
                let room = max - before;
                assert_eq!(p.documents, room.min(3), "max {max} before {before}");
                assert_eq!(p.objects.len(), room.min(3), "max {max} before {before}");
                assert_eq!(p.budget_used, room.min(3), "max {max} before {before}");
                assert_eq!(p.over_budget, room < 3, "max {max} before {before}");
                let codes: Vec<Code> = found.iter().map(|f| f.0).collect();
                let want = if room < 3 {
                    vec![Code::EstateLimit]
                } else {
                    vec![]
                };
                assert_eq!(codes, want, "max {max} before {before}");
                for other in 0..=max {
                    let (q, again) = parse(other);
                    let same = (q.documents, q.over_budget, q.budget_used, &again)
                        == (p.documents, p.over_budget, p.budget_used, &found);
                    assert_eq!(
                        p.same_after(other, max),
                        same,
                        "max {max} before {before} then {other}"
                    );
                }
            }
        }
    }

    /// The input's budget of bytes counts files and texts together, in the order they are read; the
    /// input that would go over it and every one after it are left out, with one `PCTL1019`, and a
    /// file over it is not read.
    #[test]
    fn inputs_from_the_first_over_the_byte_budget_are_left_out() {
        let svc = |n: &str| {
            format!(
                "apiVersion: v1\nkind: Service\nmetadata: {{name: {n}, namespace: ns}}\nspec: {{ports: [{{port: 80}}]}}\n"
            )
        };
        let dir = tempfile::tempdir().expect("tempdir");
        for n in ["b", "c"] {
            std::fs::write(dir.path().join(format!("{n}.yaml")), svc(n)).expect("write");
        }
        let len = svc("a").len() as u64;
        // A text named as a file of the folder that sorts before the others: read first, whichever
        // input names it first.
        let a = dir.path().join("a.yaml").display().to_string();
        let text = Input::Text {
            name: a.clone(),
            bytes: svc("a").into_bytes(),
        };
        let folder = Input::Path(dir.path().to_path_buf());
        let run_in = |inputs: &[Input], max: u64| {
            let opts = LoadOptions {
                max_input_bytes: max,
                ..LoadOptions::default()
            };
            let l = load(inputs, &opts);
            let mut kept: Vec<&str> = (l.model.services.iter())
                .map(|s| s.meta.name.as_str())
                .collect();
            kept.sort();
            let found: Vec<String> = (l.diagnostics.iter())
                .map(|d| format!("{}: {}", d.code.as_str(), d.message))
                .collect();
            (kept.join(","), l.files.len(), found)
        };
        let run = |max: u64| {
            let given = run_in(&[text.clone(), folder.clone()], max);
            assert_eq!(run_in(&[folder.clone(), text.clone()], max), given);
            given
        };
        assert_eq!(run(3 * len), ("a,b,c".into(), 3, vec![]));
        let b = dir.path().join("b.yaml").display().to_string();
        for max in [2 * len - 1, len] {
            assert_eq!(
                run(max),
                (
                    "a".into(),
                    1,
                    vec![format!(
                        "PCTL1019: the input is larger than the run's budget of {} bytes (files and streams together): {b} and every input after it are left out",
                        crate::load::yaml::thousands(max as usize)
                    )]
                ),
                "max {max}"
            );
        }
        let (kept, files, found) = run(len - 1);
        assert_eq!((kept.as_str(), files), ("", 0));
        assert!(
            found[0].contains(&format!(": {a} and every input after it")),
            "{found:?}"
        );
    }
}
