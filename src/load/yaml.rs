//! The YAML crate lives here and only here (serde-saphyr; see Cargo.toml for why).
//!
//! Parses one document's text into a [`RawDocument`], with every [`Sp`] span made absolute in its file,
//! and classifies parse errors. Must not know about validation or the model beyond the raw shapes.

use super::document::{DocSeed, RawDocument};
use crate::diag::Code;
use crate::model::KindMatch;
use crate::model::span::Sp;
use crate::source::{SourceId, Span};
use serde::de::DeserializeSeed;
use serde::{Deserialize, Deserializer};
use std::cell::Cell;

thread_local! {
    /// (file, byte offset of the document being parsed); spans read by `Sp` are relative to it.
    static BASE: Cell<(SourceId, usize)> = const { Cell::new((SourceId(0), 0)) };
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Sp<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
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
#[derive(Debug, Clone)]
pub struct ParseError {
    pub code: Code,
    pub message: String,
    pub span: Span,
}

fn options() -> serde_saphyr::Options {
    serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_documents: 2,
            max_nodes: 5_000_000,
            max_events: 20_000_000,
            max_depth: 64,
            max_aliases: 10_000,
            max_anchors: 10_000,
            max_total_scalar_bytes: 256 * 1024 * 1024,
        },
        legacy_octal_numbers: true,
        with_snippet: false,
    }
}

/// Parse the text of one document (located at `base` in `source`).
pub fn parse_document(
    source: SourceId,
    base: usize,
    text: &str,
    hint: Option<KindMatch>,
) -> Result<RawDocument, ParseError> {
    BASE.with(|b| b.set((source, base)));
    serde_saphyr::with_deserializer_from_str_with_options(text, options(), |de| {
        DocSeed { hint }.deserialize(de)
    })
    .map_err(|e| classify(source, base, text, &e))
}

fn classify(source: SourceId, base: usize, text: &str, e: &serde_saphyr::Error) -> ParseError {
    let span = e
        .location()
        .map(|l| {
            let s = l.span();
            let off = s.byte_offset().unwrap_or(0) as usize;
            Span::new(source, base + off.min(text.len()), s.byte_len().unwrap_or(0) as usize)
        })
        .unwrap_or(Span::new(source, base, 0));
    let message = e.without_snippet().to_string();
    let message = strip_location_suffix(&message);
    let lower = message.to_lowercase();
    let code = if matches!(e, serde_saphyr::Error::Budget { .. })
        || lower.contains("budget")
        || lower.contains("alias")
        || lower.contains("recursion limit")
        || lower.contains("nesting")
    {
        Code::InputLimit
    } else if lower.contains("missing field") {
        Code::MissingField
    } else if lower.starts_with("invalid type")
        || lower.starts_with("invalid value")
        || lower.starts_with("invalid length")
        || lower.contains("unknown variant")
        || lower.starts_with("invalid u")
        || lower.starts_with("invalid i")
        || lower.contains("expected")
            && !lower.contains("while scanning")
            && !lower.contains("did not find")
    {
        Code::InvalidType
    } else {
        Code::YamlSyntax
    };
    ParseError {
        code,
        message: message.to_string(),
        span,
    }
}

/// serde-saphyr appends ` at line L, column C`; the diagnostic carries the position itself.
fn strip_location_suffix(m: &str) -> &str {
    match m.rfind(" at line ") {
        Some(i) => m[..i].trim_end(),
        None => m.trim_end(),
    }
}

/// Parse a document into an untyped JSON value (for re-reading an object as written).
pub fn parse_value(text: &str) -> Option<serde_json::Value> {
    serde_saphyr::from_str_with_options(text, options()).ok()
}
