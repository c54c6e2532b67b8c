//! A document's tree built straight from the parser's events, without serde.
//!
//! serde-saphyr reads a document through serde: every value passes through its deserializer, its
//! `Spanned` wrapper and the visitor of `node.rs`, which cost about twice what the parser itself
//! does (tests/benches/README.md). This builder reads the events of the same parser
//! (granit-parser, with the options serde-saphyr gives it) into the same [`Node`] tree: the same
//! values, each with the span of the same event.
//!
//! It takes only documents it reads exactly as serde-saphyr does: one document whose root is a
//! mapping or a list, of scalars of any style, with no tag, anchor, alias, merge key (`<<`),
//! directive, key that is not a scalar, key serde-saphyr reads as null or as one already in its
//! mapping, or non-finite number, within every limit of `yaml/mod.rs`. A document with more values
//! than the limit it refuses itself, at the first value over it, as serde-saphyr refuses it (the
//! same message and span: reading such a document again through serde took ten times as long and
//! three times the memory). On anything else (a syntax error and every other limit included) it
//! gives up, and `parse_node` reads the document with serde-saphyr, whose findings, limits and
//! positions are then the only ones. `differential.rs` compares the loader
//! with serde-saphyr alone on every corpus document and on generated ones.
//!
//! Documents in the plain block style most manifests are written in do not reach the parser:
//! `block.rs` scans them into the same [`Builder`], with the spans the parser's events would have.

use super::Limits;
use super::scalar::{self, Plain};
use crate::load::node::{Entry, Node, Value};
use crate::model::span::Sp;
use crate::source::{SourceId, Span};
use granit_parser::{Event, Parser, ScalarStyle};
use std::borrow::Cow;

/// What the builder made of a document.
#[derive(Debug)]
pub(super) enum Reading {
    /// Its tree, as serde-saphyr reads it.
    Taken(Node),
    /// More values than the limit: serde-saphyr refuses it at the first value over it, at this
    /// span, before it would find anything else (see [`Builder::over_values`]).
    OverValues(Span),
    /// serde-saphyr is to read it.
    Declined,
}

/// The reading of one document's text (located at `base` in `source`).
pub(super) fn tree(source: SourceId, base: usize, text: &str, limits: &Limits) -> Reading {
    let mut b = Builder::new(limits);
    match read(&mut b, source, base, text, limits) {
        Some(()) => b.into_root().map_or(Reading::Declined, Reading::Taken),
        None => b
            .over_values()
            .map_or(Reading::Declined, Reading::OverValues),
    }
}

/// Build `text`'s events into `b`; `None` where the builder gives up.
fn read(
    b: &mut Builder<'_>,
    source: SourceId,
    base: usize,
    text: &str,
    limits: &Limits,
) -> Option<()> {
    // serde-saphyr keeps byte positions only below 4 GiB.
    u32::try_from(text.len()).ok()?;
    for item in Parser::new_from_str_with_options(text, parser_options(limits)) {
        let (event, span) = item.ok()?;
        b.event()?;
        let start = span.start.byte_offset()?;
        let at = Span::new(
            source,
            base + start,
            span.end.byte_offset()?.checked_sub(start)?,
        );
        match event {
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => {}
            Event::DocumentStart(_, version) => {
                if version.is_some() || b.documents > 0 {
                    return None;
                }
                b.documents += 1;
            }
            Event::Scalar(value, style, anchor, tag) => {
                if anchor != 0 || tag.is_some() {
                    return None;
                }
                b.scalar(value, style, at)?;
            }
            Event::SequenceStart(_, anchor, tag) => {
                if anchor != 0 || tag.is_some() {
                    return None;
                }
                b.start(at, false)?;
            }
            Event::MappingStart(_, anchor, tag) => {
                if anchor != 0 || tag.is_some() {
                    return None;
                }
                b.start(at, true)?;
            }
            Event::SequenceEnd | Event::MappingEnd => b.end()?,
            // Aliases, and events of options not set.
            _ => return None,
        }
    }
    Some(())
}

/// The parser's options as serde-saphyr sets them from the document's limits (serde-saphyr
/// 2.1.1 `Budget::parser_options`: the block nesting limit raised to the depth limit; its simple-key
/// lookahead, 1,024, and flow nesting limit, 255, are the parser's defaults; no comments without
/// its `comments` feature): whatever this builder accepts, serde-saphyr's parser accepts.
fn parser_options(l: &Limits) -> granit_parser::Options {
    let mut o = granit_parser::Options::default();
    o.block_nesting_limit = o.block_nesting_limit.max(l.depth.saturating_add(1));
    o.emit_comments = false;
    o
}

/// A mapping or a list being read.
struct Open {
    span: Span,
    /// Where its items (in `Builder::items`) or entries (in `Builder::entries`) start.
    first: usize,
    map: Option<MapState>,
}

struct MapState {
    /// The key read, whose value comes next.
    key: Option<Sp<String>>,
    /// The integers of the plain keys that are integers, which serde-saphyr compares by value
    /// (`1`, `0x1` and `01` are the same key); checked for a repeat when the mapping ends.
    integers: Vec<(bool, u128)>,
}

/// The tree being built from a document's events, in the parser's order (this module's, or
/// the block scanner's of `block.rs`), with every limit and check of a tree serde-saphyr reads.
pub(super) struct Builder<'l> {
    limits: &'l Limits,
    open: Vec<Open>,
    /// The items of the open lists, innermost last (one stack for all: each list takes exactly
    /// its own when it ends).
    items: Vec<Node>,
    /// The entries of the open mappings, likewise.
    entries: Vec<Entry>,
    root: Option<Node>,
    events: usize,
    nodes: usize,
    /// The first value over the limit of values, where the builder stopped.
    over: Option<Span>,
    scalar_bytes: usize,
    documents: usize,
}

/// The stacks of a thread's last builder, empty, for its next one: a document's builder no longer
/// grows its stacks from nothing (about 1 % of reading a large estate).
#[derive(Default)]
struct Stacks {
    open: Vec<Open>,
    items: Vec<Node>,
    entries: Vec<Entry>,
}

thread_local! {
    static STACKS: std::cell::Cell<Stacks> = std::cell::Cell::default();
}

impl Drop for Builder<'_> {
    fn drop(&mut self) {
        let mut stacks = Stacks {
            open: std::mem::take(&mut self.open),
            items: std::mem::take(&mut self.items),
            entries: std::mem::take(&mut self.entries),
        };
        // A builder given up on midway leaves values behind.
        stacks.open.clear();
        stacks.items.clear();
        stacks.entries.clear();
        // Stacks grown by a very large document are not kept.
        if stacks.items.capacity() <= 4096 && stacks.entries.capacity() <= 4096 {
            STACKS.set(stacks);
        }
    }
}

impl<'l> Builder<'l> {
    pub(super) fn new(limits: &'l Limits) -> Self {
        let Stacks {
            open,
            items,
            entries,
        } = STACKS.take();
        Builder {
            limits,
            open,
            items,
            entries,
            root: None,
            events: 0,
            nodes: 0,
            over: None,
            scalar_bytes: 0,
            documents: 0,
        }
    }

    /// Counts one event (each of the stream's and the document's starts and ends included); `None`
    /// on reaching the events limit.
    pub(super) fn event(&mut self) -> Option<()> {
        self.events += 1;
        (self.events < self.limits.events).then_some(())
    }

    /// The document's root, if it is a complete mapping or list.
    pub(super) fn into_root(mut self) -> Option<Node> {
        if !self.open.is_empty() {
            return None;
        }
        self.root
            .take()
            .filter(|r| matches!(r.value, Value::Map(_) | Value::Seq(_)))
    }

    /// Counts the value that starts at `at`; `None` for the first one over the limit of values
    /// (which serde-saphyr also counts: it reads as many, and refuses the next).
    fn count_node(&mut self, at: Span) -> Option<()> {
        self.nodes += 1;
        if self.nodes <= self.limits.nodes {
            return Some(());
        }
        self.over.get_or_insert(at);
        None
    }

    /// Where the builder stopped at the first value over the limit, when serde-saphyr refuses the
    /// document there: everything before that value passed the builder's checks, but a large
    /// mapping's keys are checked only when it ends, so none of the open mappings may repeat one.
    pub(super) fn over_values(&self) -> Option<Span> {
        let at = self.over?;
        let maps: Vec<(usize, &MapState)> = (self.open.iter())
            .filter_map(|o| Some((o.first, o.map.as_ref()?)))
            .collect();
        let repeats = maps.iter().enumerate().any(|(i, &(first, m))| {
            // Its entries: up to the next open mapping's.
            let end = maps.get(i + 1).map_or(self.entries.len(), |n| n.0);
            repeats_key(&self.entries[first..end], m.integers.clone())
        });
        (!repeats).then_some(at)
    }

    pub(super) fn scalar(
        &mut self,
        text: Cow<'_, str>,
        style: ScalarStyle,
        at: Span,
    ) -> Option<()> {
        self.count_node(at)?;
        self.scalar_bytes += text.len();
        if self.scalar_bytes >= self.limits.scalar_bytes {
            return None;
        }
        let plain = style == ScalarStyle::Plain;
        if let Some(Open {
            map: Some(m),
            first,
            ..
        }) = self.open.last_mut()
            && m.key.is_none()
        {
            // A key: read as text, as policyctl always read keys; serde-saphyr refuses a null key
            // and merges `<<`.
            if plain && (text == "<<" || scalar::is_null(&text)) {
                return None;
            }
            let entries = &self.entries[*first..];
            // Small mappings are checked here; larger ones when they end (`end`).
            if entries.len() < SMALL_MAP
                && entries.iter().any(|e| {
                    let k = e.key.value.as_bytes();
                    k.len() == text.len()
                        && k.first() == text.as_bytes().first()
                        && *k == *text.as_bytes()
                })
            {
                return None;
            }
            if plain
                && text
                    .as_bytes()
                    .first()
                    .is_some_and(|c| c.is_ascii_digit() || matches!(c, b'+' | b'-'))
                && let Some(i) = scalar::key_integer(&text)
            {
                m.integers.push(i);
            }
            m.key = Some(Sp::new(text.into_owned(), at));
            return Some(());
        }
        let value = if plain {
            match scalar::resolve(&text)? {
                Plain::Null => Value::Null,
                Plain::Bool(b) => Value::Bool(b),
                Plain::Int(i) => Value::Int(i),
                Plain::Float(f) => Value::Float(f),
                Plain::Str => Value::Str(text.into_owned()),
            }
        } else {
            Value::Str(text.into_owned())
        };
        self.finish(Node { span: at, value })
    }

    pub(super) fn start(&mut self, span: Span, map: bool) -> Option<()> {
        self.count_node(span)?;
        // A mapping or a list as a key.
        if let Some(Open { map: Some(m), .. }) = self.open.last()
            && m.key.is_none()
        {
            return None;
        }
        if self.open.len() + 1 >= self.limits.depth {
            return None;
        }
        self.open.push(Open {
            span,
            first: if map {
                self.entries.len()
            } else {
                self.items.len()
            },
            map: map.then(|| MapState {
                key: None,
                integers: Vec::new(),
            }),
        });
        Some(())
    }

    pub(super) fn end(&mut self) -> Option<()> {
        let open = self.open.pop()?;
        let value = match open.map {
            Some(m) => {
                if m.key.is_some() {
                    return None;
                }
                let entries: Vec<Entry> = self.entries.drain(open.first..).collect();
                if repeats_key(&entries, m.integers) {
                    return None;
                }
                Value::Map(entries)
            }
            None => Value::Seq(self.items.drain(open.first..).collect()),
        };
        self.finish(Node {
            span: open.span,
            value,
        })
    }

    /// A complete value: the root, a list's next item or the value of a mapping's key.
    fn finish(&mut self, node: Node) -> Option<()> {
        match self.open.last_mut() {
            None if self.root.is_none() => self.root = Some(node),
            None => return None,
            Some(Open { map: None, .. }) => self.items.push(node),
            Some(Open { map: Some(m), .. }) => {
                let key = m.key.take()?;
                self.entries.push(Entry { key, value: node });
            }
        }
        Some(())
    }
}

/// Mappings with fewer entries are checked for a repeated key as each key is read.
const SMALL_MAP: usize = 16;

/// Whether a mapping repeats a key: a text key (a small mapping's were checked as each was read,
/// a large one's here), or integer keys of the same value (`integers`).
fn repeats_key(entries: &[Entry], mut integers: Vec<(bool, u128)>) -> bool {
    if entries.len() >= SMALL_MAP && has_repeated_key(entries) {
        return true;
    }
    integers.sort_unstable();
    integers.windows(2).any(|w| w[0] == w[1])
}

fn has_repeated_key(entries: &[Entry]) -> bool {
    let mut keys: Vec<&str> = entries.iter().map(|e| e.key.value.as_str()).collect();
    keys.sort_unstable();
    keys.windows(2).any(|w| w[0] == w[1])
}

#[cfg(test)]
mod tests {
    use super::super::differential::same;

    /// Documents the builder leaves to serde-saphyr (whose reading or finding it would not
    /// repeat exactly), and ones it takes; `same` checks that both readers agree on each.
    #[test]
    fn gives_up_where_serde_saphyr_differs_or_refuses() {
        let left = [
            "a: &x 1\nb: *x\n",
            "a: !!str 1\n",
            "base: {x: 1}\nm:\n  <<: {y: 2}\n",
            "a: 1\na: 2\n",
            "a: 1\n'a': 2\n",
            "1: a\n0x1: b\n",
            "01: a\n+1: b\n",
            "~: a\n",
            ": a\n",
            "null: a\n",
            "? [a]\n: b\n",
            "%YAML 1.2\n---\na: 1\n",
            "a: 1\n...\n---\nb: 2\n",
            "a: .inf\n",
            "a: 1e999\n",
            "a: -.NaN\n",
            "just a scalar\n",
            "",
            "a: [1, 2\n",
            "a:\n  b: 1\n c: 2\n",
        ];
        for text in left {
            assert!(!same(text), "taken: {text:?}");
        }
        let mut keys = String::new();
        for i in 0..40 {
            keys.push_str(&format!("k{}: {i}\n", i % 39));
        }
        assert!(!same(&keys), "a repeated key in a large mapping");
        let mut integers = String::new();
        for i in 0..40 {
            integers.push_str(&format!("{i}: x\n"));
        }
        assert!(same(&integers), "integer keys, all distinct");
        integers.push_str("0x3: y\n");
        assert!(!same(&integers), "3 twice, as 3 and as 0x3");
        let mut deep = String::new();
        for i in 0..64 {
            deep.push_str(&" ".repeat(i));
            deep.push_str("a:\n");
        }
        assert!(!same(&deep), "64 levels");
        let taken = [
            "a: 1\n",
            "- 1\n- x\n",
            "{\"a\": [1, 2.5, \"x\", null, true]}",
            "a: '1'\n\"1\": b\n",
            "a: |\n  x\n  y\nb: >-\n  p\n  q\n",
            "a: yes\nb: 0755\nc: 0x1F\nd: ~\ne:\nf: -0\n",
            "\"\": empty key\n",
            "1: a\n'01': b\n",
        ];
        for text in taken {
            assert!(same(text), "left: {text:?}");
        }
    }
}
