//! Diagnostics as text: miette's graphical report for people, JSON for tools, GitHub workflow
//! annotations for CI logs, SARIF 2.1.0 for code scanning and JUnit XML for test-report viewers.
//! One renderer per format; every command that prints diagnostics goes through these.

use super::Style;
use crate::diag::{Code, Diagnostic, Diagnostics, Severity};
use crate::source::{SourceFile, SourceMap, Span};
use crate::suppress::{Checked, Suppressed};
use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, MietteSpanContents,
    SourceCode, SourceSpan, SpanContents,
};
use serde_sarif::sarif;
use std::collections::BTreeMap;
use std::fmt;

/// One input file as miette's source. miette finds the lines around a span by scanning the text
/// from its start, which made every report cost the size of its file (minutes for thousands of
/// diagnostics in a 50 MB input). Here miette scans only from a few lines before the span, found
/// through the file's line index, and the line numbers are shifted back: the same report, in time
/// proportional to the lines shown.
///
/// Source lines go to a terminal: when the lines around a label hold control characters (an escape
/// sequence in a comment), miette reads a copy of them with each such byte shown as `?` (same
/// length, so every offset and line stays where it was). Only the lines around each label are
/// looked at, never the text between two labels: a finding about a route far below its Gateway
/// costs the lines it shows, not the distance between them.
struct FileSource<'a> {
    file: &'a SourceFile,
    /// The copies, `(start, text)`, sorted and disjoint: the windows of [`safe_windows`] that hold
    /// a control character.
    patched: Vec<(usize, String)>,
}

/// Lines of margin around a label in [`safe_windows`]: miette reads at most a line or two of
/// context before and after a span.
const WINDOW_MARGIN: usize = 8;

/// The copies of the text [`FileSource`] shows around the labels `spans` (offset, length): the lines
/// of each label with [`WINDOW_MARGIN`] lines either side, overlapping windows joined, and of these
/// only the ones that hold a control character, made safe.
fn safe_windows(
    f: &SourceFile,
    spans: impl Iterator<Item = (usize, usize)>,
) -> Vec<(usize, String)> {
    let mut windows: Vec<(usize, usize)> = spans
        .map(|(off, len)| {
            (
                f.break_start(f.break_index(off).saturating_sub(WINDOW_MARGIN)),
                f.break_start(f.break_index(off + len) + WINDOW_MARGIN),
            )
        })
        .collect();
    windows.sort_unstable();
    let mut joined: Vec<(usize, usize)> = Vec::with_capacity(windows.len());
    for (start, end) in windows {
        match joined.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => joined.push((start, end)),
        }
    }
    let bad = |c: char| super::terminal::is_unsafe(c) && !matches!(c, '\n' | '\r' | '\t');
    joined
        .into_iter()
        .filter_map(|(start, end)| {
            let window = f.text.get(start..end)?;
            if !window.chars().any(bad) {
                return None;
            }
            let mut out = String::with_capacity(window.len());
            for c in window.chars() {
                if !bad(c) {
                    out.push(c);
                } else {
                    out.extend(std::iter::repeat_n('?', c.len_utf8()));
                }
            }
            Some((start, out))
        })
        .collect()
}

impl SourceCode for FileSource<'_> {
    fn read_span<'b>(
        &'b self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'b> + 'b>, MietteError> {
        let f = self.file;
        // Lines as miette counts them (a lone carriage return breaks one too).
        let first = f
            .break_index(span.offset())
            .saturating_sub(context_lines_before + 1);
        // Starting at a line start at least `context_lines_before + 1` lines before the span leaves
        // miette's scan in the state it would have reached from the start of the text.
        let start = f.break_start(first);
        // A read starts within its label's window and ends there (the margins are wider than
        // miette's context): the copy of that window when it has one, else the text.
        let window = match self
            .patched
            .iter()
            .find(|(ps, p)| *ps <= start && start < ps + p.len())
        {
            Some((ps, patched)) => patched.as_bytes().get(start - ps..).unwrap_or_default(),
            None => f.text.as_bytes().get(start..).unwrap_or_default(),
        };
        let shifted = SourceSpan::new(span.offset().saturating_sub(start).into(), span.len());
        let c = window.read_span(&shifted, context_lines_before, context_lines_after)?;
        let data: &'b [u8] = c.data();
        Ok(Box::new(MietteSpanContents::new_named(
            super::terminal::line(&f.name).into_owned(),
            data,
            SourceSpan::new((c.span().offset() + start).into(), c.span().len()),
            c.line() + first,
            c.column(),
            // The lines of the window, not of the text before it too: miette counts every line
            // break from the start of what it reads, and merges a label's snippet with the next
            // one whenever `line + line_count` reaches it. Counted from the file's start, that
            // joined two labels hundreds of lines apart into one snippet showing every line
            // between them (a report quadratic in the input: PCTL3004 on thousands of policies).
            c.line_count(),
        )))
    }
}

/// Adapter from our [`Diagnostic`] to `miette::Diagnostic`, for one source file.
struct Report<'a> {
    d: &'a Diagnostic,
    source: Option<FileSource<'a>>,
    labels: Vec<LabeledSpan>,
    help: Option<String>,
}

impl fmt::Debug for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&super::terminal::text(&self.d.message))
    }
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&super::terminal::text(&self.d.message))
    }
}

impl std::error::Error for Report<'_> {}

impl miette::Diagnostic for Report<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        Some(Box::new(self.d.code.as_str()))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.d.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Info => miette::Severity::Advice,
        })
    }

    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_ref().map(|s| s as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        if self.labels.is_empty() {
            None
        } else {
            Some(Box::new(self.labels.iter().cloned()))
        }
    }
}

/// The longest line, in bytes, a label is drawn on (or beside, as context).
const LONG_LINE: usize = 10_000;

/// Whether a line of the snippet of the label at `(off, len)` (its lines and one on either side,
/// the context miette draws) is longer than [`LONG_LINE`].
fn near_long_line(f: &SourceFile, (off, len): (usize, usize)) -> bool {
    let first = f.line_index(off).saturating_sub(1);
    let last = f.line_index(off + len) + 1;
    (first..=last)
        .take_while(|&i| f.line_start(i) < f.text.len())
        .any(|i| f.line_start(i + 1) - f.line_start(i) > LONG_LINE)
}

fn clamp(sources: &SourceMap, span: Span) -> (usize, usize) {
    let len = sources.get(span.source).map(|f| f.text.len()).unwrap_or(0);
    let off = span.offset.min(len);
    (off, span.len.min(len - off))
}

/// One diagnostic, drawn by miette's graphical handler.
pub(crate) fn human(d: &Diagnostic, sources: &SourceMap, style: Style) -> String {
    let primary = d.primary_span();
    let file = primary.and_then(|s| sources.get(s.source).map(|f| (s.source, f)));
    let mut labels = Vec::new();
    let mut notes = Vec::new();
    // miette pads a label to its column with a width argument, which panics past 65,535, and draws
    // every line of a snippet whole: a label that far along its line (a 100,000-character key), or
    // whose snippet would hold a line longer than that (a stream of JSON objects on one line of
    // megabytes, drawn again for each of its findings), is shown as a position note instead.
    let far = |span: Span| {
        sources.position(span).is_some_and(|p| p.column > LONG_LINE)
            || sources
                .get(span.source)
                .is_some_and(|f| near_long_line(f, clamp(sources, span)))
    };
    for l in &d.labels {
        match file {
            Some((id, _)) if l.span.source == id && !far(l.span) => {
                let (off, len) = clamp(sources, l.span);
                let message = super::terminal::line(&l.message).into_owned();
                labels.push(if l.primary {
                    LabeledSpan::new_primary_with_span(Some(message), (off, len))
                } else {
                    LabeledSpan::new_with_span(Some(message), (off, len))
                });
            }
            _ => {
                if let Some(p) = sources.position(l.span) {
                    notes.push(format!("{}: {p}", l.message));
                }
            }
        }
    }
    let mut help = d.help.clone();
    if !notes.is_empty() {
        let n = notes.join("; ");
        help = Some(match help {
            Some(h) => format!("{h}\n{n}"),
            None => n,
        });
    }
    let help = help.map(|h| super::terminal::text(&h).into_owned());
    let report = Report {
        d,
        source: file.map(|(_, f)| FileSource {
            file: f,
            patched: safe_windows(f, labels.iter().map(|l| (l.offset(), l.len()))),
        }),
        labels,
        help,
    };
    let theme = match (style.unicode, style.color) {
        (true, true) => GraphicalTheme::unicode(),
        (true, false) => GraphicalTheme::unicode_nocolor(),
        (false, true) => GraphicalTheme {
            characters: miette::ThemeCharacters::ascii(),
            styles: miette::ThemeStyles::ansi(),
        },
        (false, false) => GraphicalTheme::none(),
    };
    // Lines wrap only between words: a name, a path or a command longer than the width stays
    // whole (and a name is not split at its hyphens), so what is printed can be copied.
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(style.width)
        .with_wrap_lines(style.width != usize::MAX)
        .with_break_words(false)
        .with_word_splitter(textwrap::WordSplitter::NoHyphenation)
        .with_links(false);
    let mut out = String::new();
    if handler.render_report(&mut out, &report).is_err() {
        out = format!(
            "{}: {} {}\n",
            d.severity.as_str(),
            d.code.as_str(),
            super::terminal::text(&d.message)
        );
    }
    let object = d.object.as_deref().map(super::terminal::line);
    if let Some(obj) = &object
        && !out.contains(obj.as_ref())
    {
        // miette has no slot for the object; keep it visible on the first line.
        if let Some(first_nl) = out.find('\n') {
            out.insert_str(first_nl, &format!(" [{obj}]"));
        }
    }
    out
}

/// In the human format, a code with more findings than this shows only its first
/// [`SHOWN_OF_FREQUENT`]; one closing line counts the others.
pub const FREQUENT: usize = 50;

/// How many findings of a code with more than [`FREQUENT`] the human format draws.
pub const SHOWN_OF_FREQUENT: usize = 10;

/// All diagnostics for people, separated by blank lines. A code with more than [`FREQUENT`]
/// findings shows its first [`SHOWN_OF_FREQUENT`] only, and a closing line per such code counts
/// the others and ends with `see_all` (unless empty), which says how to list every finding (`-q`,
/// a machine format): thousands of reports of one kind hide the few others and take long to print.
pub fn human_all(ds: &Diagnostics, sources: &SourceMap, style: Style, see_all: &str) -> String {
    use std::collections::BTreeMap;
    let mut per_code: BTreeMap<Code, usize> = BTreeMap::new();
    for d in ds {
        *per_code.entry(d.code).or_default() += 1;
    }
    let frequent = |c: Code| per_code.get(&c).is_some_and(|&n| n > FREQUENT);
    // Of each frequent code: how many were drawn, and the severities of those that were not.
    let mut drawn: BTreeMap<Code, (usize, [usize; 3])> = BTreeMap::new();
    let mut parts: Vec<String> = Vec::new();
    for d in ds {
        if frequent(d.code) {
            let (n, hidden) = drawn.entry(d.code).or_default();
            if *n >= SHOWN_OF_FREQUENT {
                hidden[d.severity as usize] += 1;
                continue;
            }
            *n += 1;
        }
        parts.push(human(d, sources, style));
    }
    let mut out = parts.join("\n");
    for (code, (_, hidden)) in &drawn {
        let total = per_code.get(code).copied().unwrap_or(0);
        let not_shown: usize = hidden.iter().sum();
        let what = match hidden {
            [_, 0, 0] => "errors",
            [0, _, 0] => "warnings",
            [0, 0, _] => "infos",
            _ => "findings",
        };
        let see_all = if see_all.is_empty() {
            String::new()
        } else {
            format!("; {see_all}")
        };
        out.push_str(&format!(
            "\n{}: {not_shown} more {what} not shown ({total} in all, the first {SHOWN_OF_FREQUENT} above){see_all}\n",
            code.as_str()
        ));
    }
    out
}

#[derive(serde::Serialize)]
pub(crate) struct JsonDiag<'a> {
    code: &'a str,
    severity: Severity,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    object: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    column: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    help: Option<&'a str>,
}

pub(crate) fn json_diag<'a>(d: &'a Diagnostic, sources: &SourceMap) -> JsonDiag<'a> {
    let pos = d.primary_span().and_then(|s| sources.position(s));
    JsonDiag {
        code: d.code.as_str(),
        severity: d.severity,
        message: &d.message,
        object: d.object.as_deref(),
        file: pos.as_ref().map(|p| p.file.clone()),
        line: pos.as_ref().map(|p| p.line),
        column: pos.as_ref().map(|p| p.column),
        help: d.help.as_deref(),
    }
}

/// `{"diagnostics": [...], "summary": {...}}`, pretty-printed. The summary counts the findings
/// suppressions silenced (`suppressed`) only when there are some. Written straight from the
/// findings, one at a time: a tree of JSON values of them all took about 2 KB a finding.
pub fn json(ds: &Diagnostics, suppressed: usize, sources: &SourceMap) -> String {
    #[derive(serde::Serialize)]
    struct Report<'a> {
        diagnostics: Items<'a>,
        summary: Summary,
    }
    #[derive(serde::Serialize)]
    struct Summary {
        errors: usize,
        warnings: usize,
        infos: usize,
        #[serde(skip_serializing_if = "Option::is_none")]
        suppressed: Option<usize>,
    }
    struct Items<'a>(&'a Diagnostics, &'a SourceMap);
    impl serde::Serialize for Items<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(self.0.iter().map(|d| json_diag(d, self.1)))
        }
    }
    let report = Report {
        diagnostics: Items(ds, sources),
        summary: Summary {
            errors: ds.count(Severity::Error),
            warnings: ds.count(Severity::Warning),
            infos: ds.count(Severity::Info),
            suppressed: (suppressed > 0).then_some(suppressed),
        },
    };
    let mut s = super::terminal::json(serde_json::to_string_pretty(&report).unwrap_or_default());
    s.push('\n');
    s
}

/// Workflow-command data; other control characters are escaped too, since GitHub's log viewer
/// renders escape sequences.
fn gh_escape_data(s: &str) -> String {
    let s = s
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A");
    super::terminal::text(&s).into_owned()
}

fn gh_escape_prop(s: &str) -> String {
    gh_escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// GitHub Actions workflow commands: `::error file=…,line=…,col=…,title=CODE::message`.
pub fn github(ds: &Diagnostics, sources: &SourceMap) -> String {
    let mut out = String::new();
    for d in ds {
        let level = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let mut props = Vec::new();
        if let Some(p) = d.primary_span().and_then(|s| sources.position(s)) {
            props.push(format!("file={}", gh_escape_prop(&p.file)));
            props.push(format!("line={}", p.line));
            props.push(format!("col={}", p.column));
        }
        props.push(format!("title={}", d.code.as_str()));
        let mut msg = d.message.clone();
        if let Some(o) = &d.object {
            msg = format!("{msg} ({o})");
        }
        if let Some(h) = &d.help {
            msg = format!("{msg}\nhelp: {h}");
        }
        out.push_str(&format!(
            "::{level} {}::{}\n",
            props.join(","),
            gh_escape_data(&msg)
        ));
    }
    out
}

/// One line per finding, `file:line:col: severity[CODE]: message (object)`, for `-q` and logs.
pub fn short(ds: &Diagnostics, sources: &SourceMap) -> String {
    let mut out = String::new();
    for d in ds {
        out.push_str(&super::terminal::text(&one_line(d, sources)));
        out.push('\n');
    }
    out
}

/// A finding as `file:line:col: severity[CODE]: message (object)` (no position when it has none),
/// not yet escaped for a terminal.
pub fn one_line(d: &Diagnostic, sources: &SourceMap) -> String {
    let pos = d
        .primary_span()
        .and_then(|s| sources.position(s))
        .map(|p| format!("{p}: "))
        .unwrap_or_default();
    let obj = d
        .object
        .as_ref()
        .map(|o| format!(" ({o})"))
        .unwrap_or_default();
    format!(
        "{pos}{}[{}]: {}{obj}",
        d.severity.as_str(),
        d.code.as_str(),
        d.message
    )
}

/// What the SARIF and JUnit reports are built from: the findings still reported, the ones a
/// suppression silenced, where they are, and the objects that were checked.
pub struct Findings<'a> {
    pub shown: &'a Diagnostics,
    pub suppressed: &'a [Suppressed],
    pub sources: &'a SourceMap,
    /// One JUnit test case each (see [`crate::suppress::checked`]).
    pub objects: &'a [Checked],
    /// Where each source file (by name) is in the repository, for SARIF's URIs: worked out by the
    /// caller, which may look at the file system; a name not in it (stdin) is written as it is.
    pub artifacts: &'a BTreeMap<String, Artifact>,
}

/// Where an input file is, for a SARIF consumer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Artifact {
    /// Inside the repository: its path from the root, `/`-separated, written relative to
    /// [`SRCROOT`], as GitHub code scanning matches results to the repository's files.
    InRoot(String),
    /// Outside the repository: its absolute path, written as a `file://` URI.
    Outside(String),
}

/// The URI base id of the repository root (the name CodeQL and SARIF's examples use); its absolute
/// URI is left out of the log (SARIF 2.1.0 §3.14.14 allows it "to produce deterministic output").
pub const SRCROOT: &str = "%SRCROOT%";

/// SARIF's `level` for a severity.
fn sarif_level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A source file's location as SARIF writes it: relative to [`SRCROOT`] inside the repository, a
/// `file://` URI outside it, and as named otherwise (stdin, or a name that is no file).
fn artifact_location(
    file: &str,
    artifacts: &BTreeMap<String, Artifact>,
) -> sarif::ArtifactLocation {
    match artifacts.get(file) {
        Some(Artifact::InRoot(path)) => sarif::ArtifactLocation {
            uri: Some(sarif_uri(path)),
            uri_base_id: Some(SRCROOT.to_string()),
            ..Default::default()
        },
        Some(Artifact::Outside(path)) => sarif::ArtifactLocation {
            uri: Some(sarif_uri(path)),
            ..Default::default()
        },
        None => sarif::ArtifactLocation {
            uri: Some(sarif_uri(file)),
            ..Default::default()
        },
    }
}

/// A path as a SARIF URI: relative paths stay relative references, absolute ones become `file://`
/// URIs (`file:///C:/…` on Windows); characters URIs reserve are escaped.
fn sarif_uri(file: &str) -> String {
    let slashed = file.replace('\\', "/");
    let mut out = String::with_capacity(slashed.len());
    if slashed.starts_with('/') {
        out.push_str("file://");
    } else if slashed.as_bytes().get(1) == Some(&b':') && slashed.as_bytes().get(2) == Some(&b'/') {
        out.push_str("file:///");
    }
    for c in slashed.chars() {
        match c {
            '%' | ' ' | '#' | '?' | '[' | ']' | '"' | '<' | '>' | '`' | '{' | '}' | '|' | '^' => {
                let mut b = [0u8; 4];
                for byte in c.encode_utf8(&mut b).bytes() {
                    out.push_str(&format!("%{byte:02X}"));
                }
            }
            c if c.is_control() => {
                let mut b = [0u8; 4];
                for byte in c.encode_utf8(&mut b).bytes() {
                    out.push_str(&format!("%{byte:02X}"));
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// A fingerprint that survives edits elsewhere in the file: the code, the object, the file and
/// the message, not the line or column.
fn fingerprint(d: &Diagnostic, file: Option<&str>) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for part in [
        d.code.as_str(),
        d.object.as_deref().unwrap_or(""),
        file.unwrap_or(""),
        &d.message,
    ] {
        h.update(part.as_bytes());
        h.update([0u8]);
    }
    hex::encode(h.finalize())
}

fn sarif_result(
    d: &Diagnostic,
    sources: &SourceMap,
    artifacts: &BTreeMap<String, Artifact>,
    suppressed: Option<&Suppressed>,
) -> sarif::Result {
    // GitHub code scanning rejects a whole log when one result has no physical location: a
    // finding about the input as a whole (PCTL3007) is placed at the start of the first input.
    let first = crate::source::SourceId(0);
    let primary = d
        .primary_span()
        .or_else(|| sources.get(first).map(|_| Span::new(first, 0, 0)));
    let pos = primary.and_then(|s| sources.position(s));
    let mut text = d.message.clone();
    if let Some(o) = &d.object {
        text = format!("{text} ({o})");
    }
    if let Some(h) = &d.help {
        text = format!("{text}\nhelp: {h}");
    }
    let locations = match (primary, &pos) {
        (Some(span), Some(p)) => {
            let (end_line, end_column) = sources
                .get(span.source)
                .map(|f| f.line_col(span.offset + span.len))
                .unwrap_or((p.line, p.column));
            let region = sarif::Region::builder()
                .start_line(p.line as i64)
                .start_column(p.column as i64)
                .end_line(end_line as i64)
                .end_column(end_column as i64)
                .build();
            let physical = sarif::PhysicalLocation::builder()
                .artifact_location(artifact_location(&p.file, artifacts))
                .region(region)
                .build();
            let location = sarif::Location::builder().physical_location(physical);
            Some(vec![match &d.object {
                Some(o) => location
                    .logical_locations(vec![
                        sarif::LogicalLocation::builder()
                            .fully_qualified_name(o.clone())
                            .kind("object".to_string())
                            .build(),
                    ])
                    .build(),
                None => location.build(),
            }])
        }
        _ => None,
    };
    // The fingerprint names the file as the repository does, whatever folder policyctl ran in.
    let file = pos.as_ref().map(|p| match artifacts.get(&p.file) {
        Some(Artifact::InRoot(path) | Artifact::Outside(path)) => path.as_str(),
        None => p.file.as_str(),
    });
    finish_result(d, text, file, suppressed, locations)
}

fn finish_result(
    d: &Diagnostic,
    text: String,
    file: Option<&str>,
    suppressed: Option<&Suppressed>,
    locations: Option<Vec<sarif::Location>>,
) -> sarif::Result {
    let rule_index = Code::ALL.iter().position(|c| *c == d.code).unwrap_or(0) as i64;
    let level = match d.severity {
        Severity::Error => sarif::ResultLevel::Error,
        Severity::Warning => sarif::ResultLevel::Warning,
        Severity::Info => sarif::ResultLevel::Note,
    };
    let mut fingerprints = std::collections::BTreeMap::new();
    fingerprints.insert("policyctl/v1".to_string(), fingerprint(d, file));
    let suppressions = suppressed.map(|s| {
        vec![
            sarif::Suppression::builder()
                .kind(serde_json::Value::from(match s.by {
                    "annotation" => "inSource",
                    _ => "external",
                }))
                .justification(s.reason.clone())
                .build(),
        ]
    });
    let r = sarif::Result::builder()
        .rule_id(d.code.as_str().to_string())
        .rule_index(rule_index)
        .level(level)
        .message(sarif::Message::builder().text(text).build())
        .partial_fingerprints(fingerprints);
    match (locations, suppressions) {
        (Some(l), Some(s)) => r.locations(l).suppressions(s).build(),
        (Some(l), None) => r.locations(l).build(),
        (None, Some(s)) => r.suppressions(s).build(),
        (None, None) => r.build(),
    }
}

/// Where the documentation of the diagnostic codes is: the release's `docs/diagnostics.md` when
/// the build says so (`POLICYCTL_DOCS_URL`, set by the release workflow and the Action's own
/// build), else the file in the sources policyctl was built from.
fn docs_url() -> String {
    match option_env!("POLICYCTL_DOCS_URL") {
        Some(url) if !url.is_empty() => url.to_string(),
        _ => sarif_uri(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/diagnostics.md")),
    }
}

/// The documentation of one code: its heading in `docs/diagnostics.md`.
pub fn help_uri(code: Code) -> String {
    format!("{}#{}", docs_url(), code.as_str().to_ascii_lowercase())
}

/// A SARIF 2.1.0 log: one run of policyctl, every diagnostic code as a rule (its description as
/// help, a `helpUri` to its documentation, its severity as the default level), one result per
/// finding with the physical location of its span (relative to [`SRCROOT`] for the repository's
/// files), and the silenced findings as suppressed results. Columns count characters.
pub fn sarif(f: &Findings<'_>) -> String {
    let (log, results) = sarif_parts(f);
    spliced(log, results)
}

/// The SARIF log of `f` without its results, and its results.
fn sarif_parts<'f>(
    f: &'f Findings<'_>,
) -> (sarif::Sarif, impl Iterator<Item = sarif::Result> + 'f) {
    let rules: Vec<sarif::ReportingDescriptor> = Code::ALL
        .iter()
        .map(|c| {
            let text = c.description().to_string();
            sarif::ReportingDescriptor::builder()
                .id(c.as_str().to_string())
                .short_description(
                    sarif::MultiformatMessageString::builder()
                        .text(text.clone())
                        .build(),
                )
                .help(
                    sarif::MultiformatMessageString::builder()
                        .text(text)
                        .build(),
                )
                .help_uri(help_uri(*c))
                .default_configuration(
                    sarif::ReportingConfiguration::builder()
                        .level(serde_json::Value::from(sarif_level(c.severity())))
                        .build(),
                )
                .build()
        })
        .collect();
    let driver = sarif::ToolComponent::builder()
        .name("policyctl".to_string())
        .version(env!("CARGO_PKG_VERSION").to_string())
        .semantic_version(env!("CARGO_PKG_VERSION").to_string())
        .rules(rules)
        .build();
    let results = (f
        .shown
        .iter()
        .map(|d| sarif_result(d, f.sources, f.artifacts, None)))
    .chain(
        (f.suppressed.iter()).map(|s| sarif_result(&s.diagnostic, f.sources, f.artifacts, Some(s))),
    );
    let root = sarif::ArtifactLocation {
        description: Some(
            sarif::Message::builder()
                .text("The repository root: the nearest folder holding .git above the working directory (POLICYCTL_SOURCE_ROOT when set).".to_string())
                .build(),
        ),
        ..Default::default()
    };
    let run = sarif::Run::builder()
        .tool(sarif::Tool::builder().driver(driver).build())
        .original_uri_base_ids(BTreeMap::from([(SRCROOT.to_string(), root)]))
        .column_kind(serde_json::Value::from("unicodeCodePoints"))
        .results(Vec::new())
        .build();
    let log = sarif::Sarif::builder()
        .schema(SARIF_SCHEMA.to_string())
        .version(serde_json::Value::from("2.1.0"))
        .runs(vec![run])
        .build();
    (log, results)
}

/// The log's text with `results` written one at a time into it (a list of them all took about
/// 8 KB a finding): the log is written with none, and each result then in the place of the empty
/// list, with the indentation the whole log would give it ([`in_tree`]'s text).
fn spliced(log: sarif::Sarif, results: impl Iterator<Item = sarif::Result>) -> String {
    let whole = serde_json::to_string_pretty(&log).unwrap_or_default();
    // A key of the run (`"results": []` in a string would be escaped), the only one.
    const EMPTY: &str = "\"results\": []";
    let Some(at) = whole.rfind(EMPTY) else {
        // Not met (a log without results writes that key once): all at once.
        return in_tree(log, results);
    };
    // The run's keys are three levels deep (six spaces), its results four.
    let mut s = String::with_capacity(whole.len());
    s.push_str(&whole[..at]);
    s.push_str("\"results\": [");
    let mut any = false;
    for (i, r) in results.enumerate() {
        any = true;
        s.push_str(if i == 0 { "\n" } else { ",\n" });
        let one = serde_json::to_string_pretty(&r).unwrap_or_default();
        for (j, line) in one.split('\n').enumerate() {
            if j > 0 {
                s.push('\n');
            }
            s.push_str("        ");
            s.push_str(line);
        }
    }
    s.push_str(if any { "\n      ]" } else { "]" });
    s.push_str(&whole[at + EMPTY.len()..]);
    let mut s = super::terminal::json(s);
    s.push('\n');
    s
}

/// The log's text with `results` in its tree, written all at once.
fn in_tree(mut log: sarif::Sarif, results: impl Iterator<Item = sarif::Result>) -> String {
    if let Some(run) = log.runs.first_mut() {
        run.results = Some(results.collect());
    }
    let mut s = super::terminal::json(serde_json::to_string_pretty(&log).unwrap_or_default());
    s.push('\n');
    s
}

/// The SARIF 2.1.0 schema the log names.
pub(crate) const SARIF_SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// `file:line:col: ` of a finding, or nothing.
fn at(d: &Diagnostic, sources: &SourceMap) -> String {
    d.primary_span()
        .and_then(|s| sources.position(s))
        .map(|p| format!("{p}: "))
        .unwrap_or_default()
}

/// JUnit XML (the dialect of [`super::junit`]): one test suite, one test case per object checked,
/// classname `policyctl.lint.<Kind>` and name `namespace/name`, its file in the `file` attribute,
/// plus one per input file for findings about no object (`policyctl.lint.File`) and one for
/// findings about the whole input (`policyctl.lint.Input`); a test case with an error or a warning
/// fails, with every finding in the failure's text. Infos and silenced findings go to the test
/// case's output.
pub fn junit(f: &Findings<'_>) -> String {
    use super::junit::{Case, Suite, Verdict};
    /// A test case's file, failing findings and output lines, by (class name, name).
    type Cases<'d> = BTreeMap<(String, String), (Option<String>, Vec<&'d Diagnostic>, Vec<String>)>;
    let mut cases: Cases<'_> = BTreeMap::new();
    let file_of = |span: Option<Span>| {
        span.and_then(|s| f.sources.get(s.source))
            .map(|file| file.name.clone())
    };
    // `Kind namespace/name` (with what created it, for derived objects): the kind is the class.
    let object_key = |o: &str| match o.split_once(' ') {
        Some((kind, name)) => (
            format!("policyctl.lint.{}", super::junit::class_segment(kind)),
            name.to_string(),
        ),
        None => ("policyctl.lint.Object".to_string(), o.to_string()),
    };
    for o in f.objects {
        cases
            .entry(object_key(&o.object))
            .or_insert_with(|| (file_of(Some(o.span)), Vec::new(), Vec::new()));
    }
    let object_file: BTreeMap<&str, Option<String>> = f
        .objects
        .iter()
        .map(|o| (o.object.as_str(), file_of(Some(o.span))))
        .collect();
    let key = |d: &Diagnostic| match &d.object {
        Some(o) => (
            object_key(o),
            object_file
                .get(o.as_str())
                .cloned()
                .unwrap_or_else(|| file_of(d.primary_span())),
        ),
        None => match file_of(d.primary_span()) {
            Some(file) => (
                ("policyctl.lint.File".to_string(), file.clone()),
                Some(file),
            ),
            None => (
                (
                    "policyctl.lint.Input".to_string(),
                    "the input as a whole".to_string(),
                ),
                None,
            ),
        },
    };
    for d in f.shown {
        let (k, file) = key(d);
        let entry = cases
            .entry(k)
            .or_insert_with(|| (file, Vec::new(), Vec::new()));
        if d.severity == Severity::Info {
            entry.2.push(format!(
                "{}{}[{}]: {}",
                at(d, f.sources),
                d.severity.as_str(),
                d.code.as_str(),
                d.message
            ));
        } else {
            entry.1.push(d);
        }
    }
    for s in f.suppressed {
        let d = &s.diagnostic;
        let (k, file) = key(d);
        cases
            .entry(k)
            .or_insert_with(|| (file, Vec::new(), Vec::new()))
            .2
            .push(format!(
                "{}suppressed[{}]: {} (by {}: {})",
                at(d, f.sources),
                d.code.as_str(),
                d.message,
                s.by,
                s.reason
            ));
    }
    let cases = cases
        .into_iter()
        .map(|((classname, name), (file, failures, output))| {
            let verdict = if failures.is_empty() {
                Verdict::Passed
            } else {
                let first = failures[0];
                let message = if failures.len() == 1 {
                    format!("{}: {}", first.code.as_str(), first.message)
                } else {
                    format!(
                        "{} findings; first {}: {}",
                        failures.len(),
                        first.code.as_str(),
                        first.message
                    )
                };
                let mut codes: Vec<&str> = failures.iter().map(|d| d.code.as_str()).collect();
                codes.sort();
                codes.dedup();
                let details: String = failures
                    .iter()
                    .map(|d| {
                        let help = d
                            .help
                            .as_ref()
                            .map(|h| format!("\n  help: {h}"))
                            .unwrap_or_default();
                        format!(
                            "{}{}[{}]: {}{help}\n",
                            at(d, f.sources),
                            d.severity.as_str(),
                            d.code.as_str(),
                            d.message
                        )
                    })
                    .collect();
                Verdict::Failed {
                    message,
                    kind: codes.join(","),
                    details,
                }
            };
            Case {
                classname,
                name,
                file,
                verdict,
                output,
            }
        })
        .collect();
    super::junit::report(
        "policyctl",
        &[Suite {
            name: "policyctl lint".to_string(),
            cases,
        }],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The log with its results written one at a time into its text is the log with them in its
    /// tree: none, one and several findings, with quotes, a line feed and the key the text is
    /// spliced at in their messages and labels.
    #[test]
    fn sarif_results_spliced_into_the_text_are_those_of_the_tree() {
        let mut sources = SourceMap::new();
        let id = sources.add("a.yaml", "kind: \"Service\"\nmetadata:\n  name: x\n");
        let all = [
            Diagnostic::new(Code::EstateLimit, "a message with \"results\": [] in it")
                .at(Span::new(id, 6, 9), "a \"quoted\"\nlabel"),
            Diagnostic::new(Code::TargetNotFound, "no label"),
            Diagnostic::new(Code::SectionNotFound, "two labels")
                .at(Span::new(id, 0, 4), "first")
                .also(Span::new(id, 25, 1), "second"),
        ];
        for n in [0, 1, 3] {
            let mut shown = Diagnostics::new();
            for d in &all[..n] {
                shown.push(d.clone());
            }
            let artifacts = BTreeMap::new();
            let f = Findings {
                shown: &shown,
                suppressed: &[],
                sources: &sources,
                objects: &[],
                artifacts: &artifacts,
            };
            let (log, results) = sarif_parts(&f);
            assert_eq!(sarif(&f), in_tree(log, results), "{n} findings");
        }
    }

    /// Everything miette reads from a span's contents.
    fn contents(c: &dyn SpanContents<'_>) -> (Vec<u8>, usize, usize, usize, usize, usize) {
        (
            c.data().to_vec(),
            c.span().offset(),
            c.span().len(),
            c.line(),
            c.column(),
            c.line_count(),
        )
    }

    /// With control characters around the labels, the windowed source gives miette what scanning
    /// a copy of the whole text with each of them shown as `?` gives.
    #[test]
    fn windowed_source_shows_control_characters_as_the_whole_copy_does() {
        let mut text = String::new();
        for i in 0..60 {
            let line = match i % 7 {
                0 => format!("# \u{1b}[31mred{i}\u{1b}[0m\n"),
                3 => format!("bell{i}: \u{7}\r\n"),
                5 => format!("bidi{i}: \u{202E}txt\r"),
                _ => format!("key{i}: value{i}\n"),
            };
            text.push_str(&line);
        }
        let whole: String = text
            .chars()
            .map(|c| {
                if crate::render::terminal::is_unsafe(c) && !matches!(c, '\n' | '\r' | '\t') {
                    "?".repeat(c.len_utf8())
                } else {
                    c.to_string()
                }
            })
            .collect();
        let file = SourceFile::new("t.yaml", text.as_str());
        for offset in (0..text.len()).filter(|&o| text.is_char_boundary(o)) {
            for len in [0, 1, 5, 40] {
                let len = len.min(text.len() - offset);
                let windowed = FileSource {
                    file: &file,
                    patched: safe_windows(&file, [(offset, len)].into_iter()),
                };
                let span = SourceSpan::new(offset.into(), len);
                for (before, after) in [(0, 0), (1, 1), (3, 2)] {
                    let want = whole
                        .as_bytes()
                        .read_span(&span, before, after)
                        .map(|c| contents(&*c));
                    let got = windowed
                        .read_span(&span, before, after)
                        .map(|c| contents(&*c));
                    match (&want, &got) {
                        (Ok(w), Ok(g)) => {
                            // The line count is the window's (see `read_span`).
                            let first = file.break_index(offset).saturating_sub(before + 1);
                            let mut w = w.clone();
                            w.5 -= first;
                            assert_eq!(&w, g, "{offset}+{len} {before}/{after}")
                        }
                        (Err(_), Err(_)) => {}
                        _ => panic!("{offset}+{len}: {want:?} vs {got:?}"),
                    }
                }
            }
        }
    }

    /// Only the lines around each label are looked at: a control character between two labels far
    /// apart (a Gateway near the top of a file, a route far below) is neither scanned for nor copied.
    #[test]
    fn safe_windows_look_at_the_lines_around_each_label_only() {
        let mut text = String::from("gateway: top\n");
        text.push_str(&"filler: line\n".repeat(100));
        text.push_str("# \u{1b}]0;title\u{7}\n");
        text.push_str(&"filler: line\n".repeat(100));
        let route = text.len();
        text.push_str("route: bottom\n");
        let file = SourceFile::new("t.yaml", text.as_str());
        assert!(safe_windows(&file, [(0, 7), (route, 5)].into_iter()).is_empty());
        // A label next to the control character gets a copy of its own lines only.
        let near = text.find("# ").unwrap_or(0);
        let patched = safe_windows(&file, [(0, 7), (near, 1), (route, 5)].into_iter());
        assert_eq!(patched.len(), 1);
        let (start, copy) = &patched[0];
        assert_eq!(copy.lines().count(), 2 * WINDOW_MARGIN);
        assert!(*start > 0 && start + copy.len() < route);
        assert!(!copy.contains('\u{1b}') && copy.contains("# ?]0;title?"));
    }

    /// The windowed source gives miette exactly what scanning the whole text gives, for every
    /// span start and length, context size and kind of line break; but its line count is the
    /// window's (miette's counts every line from the start of the text).
    #[test]
    fn windowed_source_reads_what_the_whole_text_reads() {
        let texts = [
            "a: 1\nbb: 22\n\nccc: [3]\n  - dddd\ne: 5\nf: 66\ng: 7\n".to_string(),
            "x: 1\r\ny: 2\r\n\r\nz: 3\r\nw: 44\r\nv: 5".to_string(),
            "lone: 1\rcr: 2\nmixed: 3\r\nend: 4\n".to_string(),
            "é: ü\nκλειδί: τιμή\n日本: 語\nlast".to_string(),
            (0..40)
                .map(|i| format!("key{i}: {i}\n"))
                .collect::<String>(),
            (0..30)
                .map(|i| format!("k{i}: {i}{}", ["\n", "\r", "\r\n"][i % 3]))
                .collect::<String>(),
        ];
        for text in &texts {
            let file = SourceFile::new("t.yaml", text.as_str());
            let windowed = FileSource {
                file: &file,
                patched: Vec::new(),
            };
            let whole = text.as_bytes();
            for offset in 0..=text.len() {
                for len in [0, 1, 3, 12] {
                    let len = len.min(text.len() - offset);
                    let span = SourceSpan::new(offset.into(), len);
                    for (before, after) in [(0, 0), (1, 1), (2, 3), (5, 0)] {
                        let want = whole.read_span(&span, before, after).map(|c| contents(&*c));
                        let got = windowed
                            .read_span(&span, before, after)
                            .map(|c| contents(&*c));
                        match (&want, &got) {
                            (Ok(w), Ok(g)) => {
                                let first = file.break_index(offset).saturating_sub(before + 1);
                                let mut w = w.clone();
                                w.5 -= first;
                                assert_eq!(&w, g, "{text:?} {offset}+{len} {before}/{after}")
                            }
                            (Err(_), Err(_)) => {}
                            _ => panic!("{text:?} {offset}+{len}: {want:?} vs {got:?}"),
                        }
                    }
                }
            }
        }
    }
}
