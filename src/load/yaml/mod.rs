//! The YAML crates live here and only here (serde-saphyr, and the parser it reads with; see
//! Cargo.toml for why).
//!
//! Parses one document's text into a [`Node`] tree, with every span made absolute in its file, and
//! classifies parse errors. A document in the plain block style of most manifests is read by a
//! scanner of that subset (`block.rs`); any other is read straight from the parser's events
//! (`events.rs`) when that reading is certainly serde-saphyr's, and by serde-saphyr otherwise, which
//! then gives every finding. Must not know about validation or the model beyond the raw shapes.

mod block;
#[cfg(test)]
mod differential;
mod events;
mod scalar;
// The benchmarks' estate generator, whose documents the block scanner's tests read.
#[cfg(test)]
#[path = "../../../tests/synth/synth.rs"]
#[allow(dead_code, unreachable_pub, clippy::print_stderr)]
mod synth;

use super::node::Node;
use crate::diag::Code;
use crate::model::span::Sp;
use crate::source::{SourceId, Span};
use serde::{Deserialize, Deserializer};
use std::cell::Cell;

thread_local! {
    /// (file, byte offset of the document being parsed); spans read by `Sp` are relative to it.
    static BASE: Cell<(SourceId, usize)> = const { Cell::new((SourceId(0), 0)) };
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Sp<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if super::node::reading_tree() {
            return super::node::spanned(d);
        }
        let s = serde_saphyr::Spanned::<T>::deserialize(d)?;
        let (source, base) = BASE.with(|b| b.get());
        let span = s.referenced.span();
        let offset = span.byte_offset().unwrap_or(0) as usize;
        let len = span.byte_len().unwrap_or(0) as usize;
        Ok(Sp {
            value: s.value,
            span: Span::new(source, base + offset, len),
        })
    }
}

/// A parse failure, classified, with the absolute position when known.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ParseError {
    pub code: Code,
    pub message: String,
    pub span: Span,
}

/// The limits one document is read within (docs/input.md lists them).
#[derive(Clone, Copy, Debug)]
struct Limits {
    nodes: usize,
    events: usize,
    depth: usize,
    aliases: usize,
    anchors: usize,
    scalar_bytes: usize,
    /// Events copied or replayed through anchors and aliases.
    alias_events: usize,
}

/// Limits of one manifest document.
const DOCUMENT: Limits = Limits {
    nodes: 5_000_000,
    events: 20_000_000,
    depth: 64,
    aliases: 10_000,
    anchors: 10_000,
    scalar_bytes: 256 * 1024 * 1024,
    // Alias expansion is bounded far below the library's million events: a 1 KiB alias bomb must not
    // cost seconds and hundreds of MiB before it is refused (fuzzing finding).
    alias_events: 100_000,
};

/// Limits of the settings file (a few lines); `scalar_bytes` is the caller's.
const SETTINGS: Limits = Limits {
    nodes: 10_000,
    events: 100_000,
    depth: 8,
    aliases: 100,
    anchors: 100,
    scalar_bytes: 0,
    alias_events: 100_000,
};

/// `n` with thousands separators, as docs/input.md writes limits.
pub(crate) fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The error under the alias and snippet wrappers the YAML crate adds.
fn original(mut e: &serde_saphyr::Error) -> &serde_saphyr::Error {
    while let serde_saphyr::Error::AliasError { error, .. }
    | serde_saphyr::Error::WithSnippet { error, .. } = e
    {
        e = error;
    }
    e
}

/// The message of a document over a limit, `what` saying which.
fn refusal(what: &str) -> String {
    format!("policyctl does not read this document: {what}")
}

/// The limit of values in words.
fn too_many_values(l: &Limits) -> String {
    format!(
        "it holds more than {} values (mappings, lists and scalars), the most policyctl reads in one document",
        thousands(l.nodes)
    )
}

/// In words, which limit a document exceeded, or `None` when the error is not a limit. (The YAML
/// crate's own text is a Rust debug print such as `Nodes { nodes: 5000001 }`.)
fn limit_message(e: &serde_saphyr::Error, l: &Limits) -> Option<String> {
    use serde_saphyr::budget::BudgetBreach as B;
    let what = match original(e) {
        serde_saphyr::Error::AliasExpansionLimitExceeded { .. } => format!(
            "its aliases (*name) expand to more than {} copied values, the most policyctl expands in one document",
            thousands(l.alias_events)
        ),
        serde_saphyr::Error::Budget { breach, .. } => match breach {
            B::Nodes { .. } => too_many_values(l),
            B::Events { .. } => format!(
                "it holds more than {} YAML events (values, starts and ends of mappings and lists), the most policyctl reads in one document",
                thousands(l.events)
            ),
            B::Depth { .. } => format!(
                "it nests mappings and lists more than {} levels deep",
                l.depth
            ),
            B::Aliases { .. } => {
                format!("it uses more than {} aliases (*name)", thousands(l.aliases))
            }
            B::Anchors { .. } => format!(
                "it defines more than {} anchors (&name)",
                thousands(l.anchors)
            ),
            B::ScalarBytes { .. } => format!(
                "its strings add up to more than {} MiB",
                l.scalar_bytes / (1024 * 1024)
            ),
            B::RecordedAnchorEvents { .. } | B::RecordedAnchorBytes { .. } => format!(
                "its anchors (&name) hold more than {} values to copy through aliases, the most policyctl keeps in one document",
                thousands(l.alias_events)
            ),
            B::Documents { .. } => "it holds more than one YAML document".to_string(),
            _ => "it exceeds one of policyctl's parsing limits".to_string(),
        },
        _ => return None,
    };
    Some(refusal(&what))
}

fn options() -> serde_saphyr::Options {
    options_within(&DOCUMENT)
}

/// serde-saphyr's options for a manifest document read within `l`.
fn options_within(l: &Limits) -> serde_saphyr::Options {
    serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_documents: 2,
            max_nodes: l.nodes,
            max_events: l.events,
            max_depth: l.depth,
            max_aliases: l.aliases,
            max_anchors: l.anchors,
            max_total_scalar_bytes: l.scalar_bytes,
            max_recorded_anchor_events: l.alias_events,
        },
        alias_limits: serde_saphyr::alias_limits! {
            max_total_replayed_events: l.alias_events,
        },
        legacy_octal_numbers: true,
        with_snippet: false,
    }
}

/// Parse the text of one document (located at `base` in `source`) into a tree of spanned values.
pub(super) fn parse_node(source: SourceId, base: usize, text: &str) -> Result<Node, ParseError> {
    parse_node_within(source, base, text, &DOCUMENT)
}

/// [`parse_node`] within limits `l` (the tests read with small ones). The tree is built by the block
/// scanner when `block.rs` takes the document, else straight from the parser's events when
/// `events.rs` takes it (each takes only documents serde-saphyr reads without a finding, exactly
/// as serde-saphyr reads them); serde-saphyr reads every other one, and gives every finding.
fn parse_node_within(
    source: SourceId,
    base: usize,
    text: &str,
    l: &Limits,
) -> Result<Node, ParseError> {
    if let Some(node) = block::tree(source, base, text, l) {
        return Ok(node);
    }
    let read = parse_node_parser(source, base, text, l);
    // A refusal of the syntax, or over a limit (read again, the text would cost as much again).
    let settled = |e: &ParseError| matches!(e.code, Code::YamlSyntax | Code::InputLimit);
    if read.as_ref().is_err_and(settled) || text.ends_with('\n') {
        return read;
    }
    // The parser misses a few syntax errors at the very end of a text that it finds before a line
    // break (`? a: 1\nb`: a plain scalar where a key's `:` is due), where libyaml, go-yaml and so
    // kubectl take the end of the text as a line break. Such an error, found with one added, is
    // the document's.
    match parse_node_parser(source, base, &format!("{text}\n"), l) {
        Err(mut e) if e.code == Code::YamlSyntax => {
            // Within the text (the added line break is its end).
            let end = base + text.len();
            e.span = Span::new(
                source,
                e.span.offset.min(end),
                e.span.len.min(end.saturating_sub(e.span.offset)),
            );
            Err(e)
        }
        _ => read,
    }
}

/// [`parse_node_within`] past the block scanner: from the parser's events when `events.rs` takes
/// the document, else by serde-saphyr.
fn parse_node_parser(
    source: SourceId,
    base: usize,
    text: &str,
    l: &Limits,
) -> Result<Node, ParseError> {
    match events::tree(source, base, text, l) {
        events::Reading::Taken(node) => Ok(node),
        // As serde-saphyr refuses it, without reading it again (at about ten times the cost).
        events::Reading::OverValues(span) => Err(ParseError {
            code: Code::InputLimit,
            message: refusal(&too_many_values(l)),
            span,
        }),
        events::Reading::Declined => parse_node_serde(source, base, text, l),
    }
}

/// [`parse_node_within`] by serde-saphyr alone: every document `events.rs` does not take, and the
/// reading the differential tests compare the whole loader with.
fn parse_node_serde(
    source: SourceId,
    base: usize,
    text: &str,
    l: &Limits,
) -> Result<Node, ParseError> {
    BASE.with(|b| b.set((source, base)));
    serde_saphyr::from_str_with_options::<Node>(text, options_within(l))
        .map_err(|e| classify(source, base, text, &e, l))
}

/// A serde_json error as a syntax [`ParseError`] at its line and column (within `text`, located
/// at `base`).
pub(super) fn json_error(
    source: SourceId,
    base: usize,
    text: &str,
    err: &serde_json::Error,
) -> ParseError {
    let message = err.to_string();
    let message = message
        .rsplit_once(" at line ")
        .map_or(message.as_str(), |(m, _)| m);
    let line_start: usize = text
        .split_inclusive('\n')
        .take(err.line().saturating_sub(1))
        .map(str::len)
        .sum();
    let mut at = (line_start + err.column().saturating_sub(1)).min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    ParseError {
        code: Code::YamlSyntax,
        message: format!("JSON syntax error: {message}"),
        span: Span::new(source, base + at, 0),
    }
}

/// Byte offset and length (within `text`) of where a parse error was found; (0, 0) when unknown.
fn error_position(text: &str, e: &serde_saphyr::Error) -> (usize, usize) {
    e.location()
        .map(|l| {
            let s = l.span();
            let off = match s.byte_offset() {
                Some(b) => b as usize,
                // Scanner errors carry only a character offset: convert it.
                None => text
                    .char_indices()
                    .nth(s.offset() as usize)
                    .map(|(b, _)| b)
                    .unwrap_or(text.len()),
            };
            let off = off.min(text.len());
            (
                off,
                (s.byte_len().unwrap_or(0) as usize).min(text.len() - off),
            )
        })
        .unwrap_or((0, 0))
}

fn classify(
    source: SourceId,
    base: usize,
    text: &str,
    e: &serde_saphyr::Error,
    l: &Limits,
) -> ParseError {
    let (off, len) = error_position(text, e);
    let span = Span::new(source, base + off, len);
    let message = e.without_snippet().to_string();
    let message = strip_location_suffix(&message).to_string();
    let lower = message.to_lowercase();
    if let Some(message) = limit_message(e, l) {
        return ParseError {
            code: Code::InputLimit,
            message,
            span,
        };
    }
    let code = if matches!(e, serde_saphyr::Error::Budget { .. })
        || lower.contains("budget")
        // An alias to an anchor that does not exist is a syntax error, not a limit.
        || (lower.contains("alias") && !lower.contains("unknown anchor"))
        || lower.contains("recursion limit")
        || lower.contains("nesting")
    {
        Code::InputLimit
    } else if lower.contains("missing field") {
        Code::MissingField
    } else if is_type_error(&lower) {
        Code::InvalidType
    } else {
        Code::YamlSyntax
    };
    ParseError {
        code,
        message: tidy_message(&message, text, span.offset - base, span.len),
        span,
    }
}

/// Errors about a value's type (the YAML itself was well-formed).
fn is_type_error(m: &str) -> bool {
    let numeric = m.strip_prefix("invalid ").is_some_and(|t| {
        matches!(
            t,
            "i8" | "i16"
                | "i32"
                | "i64"
                | "i128"
                | "u8"
                | "u16"
                | "u32"
                | "u64"
                | "u128"
                | "f32"
                | "f64"
                | "bool"
                | "char"
        )
    });
    numeric
        || m.starts_with("invalid type")
        || m.starts_with("invalid value")
        || m.starts_with("invalid length")
        || m.contains("unknown variant")
        || m.starts_with("expected ")
}

/// Make the YAML crate's messages read as ours: no option names, the offending token shown.
fn tidy_message(m: &str, text: &str, offset: usize, len: usize) -> String {
    let token = text.get(offset..offset + len).unwrap_or("").trim();
    if let Some(key) = m.strip_prefix("duplicate mapping key: ") {
        let key = key.split(", set DuplicateKeyPolicy").next().unwrap_or(key);
        return format!(
            "duplicate mapping key `{key}`: YAML does not allow the same key twice in a mapping"
        );
    }
    let shape = match m {
        "expected mapping start" => Some("a mapping (key: value pairs)"),
        "expected sequence start" => Some("a list"),
        "expected string scalar" => Some("a string"),
        _ => None,
    };
    if let Some(what) = shape {
        return if token.is_empty() {
            format!("expected {what} here")
        } else {
            format!("expected {what}, found `{}`", truncate(token, 40))
        };
    }
    let expected = match m {
        "invalid i64" | "invalid i32" | "invalid u64" | "invalid u32" | "invalid i128" => {
            Some("an integer")
        }
        "invalid bool" => Some("true or false"),
        "invalid f64" | "invalid f32" => Some("a number"),
        _ => None,
    };
    match expected {
        Some(what) if !token.is_empty() => format!("expected {what}, found `{token}`"),
        Some(what) => format!("expected {what}"),
        None => m.to_string(),
    }
}

fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// serde-saphyr appends ` at line L, column C`; the diagnostic carries the position itself.
fn strip_location_suffix(m: &str) -> &str {
    let mut m = m.trim_end();
    loop {
        // `rfind` returns a char boundary of `m`, so the slice is in bounds.
        let Some(i) = m.rfind(" at line ") else {
            return m;
        };
        let head = m[..i].trim_end();
        // "… (defined at line 2, column 3) (used at line 4, column 5)": drop the whole parenthesised
        // note rather than leave "(used" behind, then look for the location before it.
        if head.matches('(').count() > head.matches(')').count()
            && let Some(j) = head.rfind('(')
        {
            m = head[..j].trim_end();
            continue;
        }
        return head;
    }
}

/// Parse a document into an untyped JSON value (for re-reading an object as written).
pub(super) fn parse_value(text: &str) -> Option<serde_json::Value> {
    serde_saphyr::from_str_with_options(text, options()).ok()
}

/// Like [`parse_value`], with the parser's message on failure.
pub(super) fn parse_value_checked(text: &str) -> Result<serde_json::Value, String> {
    serde_saphyr::from_str_with_options(text, options()).map_err(|e| {
        let m = limit_message(&e, &DOCUMENT).unwrap_or_else(|| e.without_snippet().to_string());
        let p = e
            .location()
            .map(|l| format!(" (line {} of the document)", l.line()))
            .unwrap_or_default();
        format!("{}{p}", strip_location_suffix(&m))
    })
}

/// Parse a small standalone document (the settings file) into `T`, whose [`Sp`] fields get spans in
/// `source`. Budgets suit a file of a few lines. On failure: the error's span and message.
pub(crate) fn parse_small<T: serde::de::DeserializeOwned>(
    source: SourceId,
    text: &str,
    max_bytes: usize,
) -> Result<T, (Span, String)> {
    parse_standalone(
        source,
        text,
        Limits {
            scalar_bytes: max_bytes,
            ..SETTINGS
        },
    )
}

/// Limits of a request file (`simulate --requests`): a manifest document's, nesting aside (an
/// entry is a mapping of scalars, headers and an identity).
const REQUESTS: Limits = Limits {
    depth: 32,
    ..DOCUMENT
};

/// Parse a request file (`simulate --requests`) into `T`, whose [`Sp`] fields get spans in
/// `source`. On failure: the error's span and message.
pub(crate) fn parse_requests<T: serde::de::DeserializeOwned>(
    source: SourceId,
    text: &str,
) -> Result<T, (Span, String)> {
    parse_standalone(source, text, REQUESTS)
}

fn parse_standalone<T: serde::de::DeserializeOwned>(
    source: SourceId,
    text: &str,
    l: Limits,
) -> Result<T, (Span, String)> {
    BASE.with(|b| b.set((source, 0)));
    let opts = serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_documents: 1,
            max_nodes: l.nodes,
            max_events: l.events,
            max_depth: l.depth,
            max_aliases: l.aliases,
            max_anchors: l.anchors,
            max_total_scalar_bytes: l.scalar_bytes,
        },
        with_snippet: false,
    };
    serde_saphyr::from_str_with_options(text, opts).map_err(|e| {
        let (off, len) = error_position(text, &e);
        let m = match limit_message(&e, &l) {
            Some(m) => m,
            None => strip_location_suffix(&e.without_snippet().to_string()).to_string(),
        };
        (Span::new(source, off, len), m)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A syntax error at the very end of a document is the one found before a line break, as
    /// libyaml and go-yaml (and so kubectl) find it: the parser alone read these texts without
    /// one, and the schema then refused their collection keys with another finding.
    #[test]
    fn an_error_at_the_end_of_a_text_is_the_one_before_a_line_break() {
        for text in ["? a: 1\nb", "? [a]\nb", "x:\n  ? a: 1\n  b", "a: 1\nb"] {
            let at_end = parse_node(SourceId(0), 0, text).unwrap_err();
            let before = parse_node(SourceId(0), 0, &format!("{text}\n")).unwrap_err();
            assert_eq!(at_end.code, Code::YamlSyntax, "{text:?}: {at_end:?}");
            assert_eq!(
                (at_end.message, at_end.span),
                (before.message, before.span),
                "{text:?}"
            );
        }
    }
}
