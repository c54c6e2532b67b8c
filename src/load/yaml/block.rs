//! A scanner for the plain block YAML that manifests are almost always written in, in front of the
//! parser's events (`events.rs`).
//!
//! Most of the cost of reading a large estate was the parser itself: its tokens, and the events it
//! builds and moves, one per value (tests/benches/README.md). This scanner reads a document line by
//! line, byte by byte, and feeds the same [`Builder`] as `events.rs` (the same limits, the same
//! checks of keys, the same reading of plain scalars through `scalar.rs`) with the same events,
//! each with the span granit-parser gives it.
//!
//! What it takes: after an optional `---` line (and before an optional `...` line), a block mapping
//! or a block list at column 0, nested by indentation with spaces: `key: value`, `key:` followed
//! by a more indented block or by `- ` items at the key's column, `- value`, `- key: value` (a
//! mapping that starts in an item), `-` followed by a more indented block, and values that are
//! plain scalars, single- or double-quoted scalars on one line (`''`, and the escapes `\\`, `\"`,
//! `\/`, `\n`, `\t`, `\r` and `\uXXXX` but for control characters), or flow collections of such
//! scalars on one line (`[GET, POST]`, `{app: x}`, `{}`), whose plain scalars are of letters, digits
//! and `_./-` only.
//! Comments and blank lines go anywhere a line may.
//!
//! What it leaves to the parser, by returning `None` as soon as it meets one: tabs, carriage
//! returns, control characters, a byte order mark, the line and paragraph separators; flow
//! collections over more than one line, nested ones, other plain scalars in them, a key without
//! its `: ` or a trailing comma; block scalars (`|`, `>`); scalars over more than one line; any
//! other escape; anchors, aliases, tags and directives; `?` keys and keys that are not scalars;
//! a scalar starting with an indicator (`-` followed by a letter, digit or dot aside); `- -`; a
//! space before a key's `:`; a key of 1,000 bytes or more; a value, a line or a comment where
//! the block structure does not expect one; and anything the builder gives up on (a null, merge
//! or repeated key, a non-finite number, a limit approached). `events.rs` (and then serde-saphyr)
//! reads such a document as before.
//!
//! `differential.rs` checks that whenever this scanner takes a document, its tree (values, spans,
//! key order) is the one `events.rs` builds, on every corpus document, on generated documents and
//! on mutated manifests.

use super::Limits;
use super::events::Builder;
use crate::load::node::Node;
use crate::source::{SourceId, Span};
use granit_parser::ScalarStyle;
use std::borrow::Cow;

/// Keys this long or longer are left to the parser (whose simple keys end within 1,024 characters).
const MAX_KEY: usize = 1000;

/// The tree of one document's text (located at `base` in `source`), or `None` if `events.rs` is
/// to read it.
pub(super) fn tree(source: SourceId, base: usize, text: &str, limits: &Limits) -> Option<Node> {
    u32::try_from(text.len()).ok()?;
    if !plain_text(text) {
        return None;
    }
    let mut s = Scanner {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        source,
        base,
        b: Builder::new(limits),
    };
    // The stream's start and the document's.
    s.b.event()?;
    s.b.event()?;
    s.document_start();
    let Next::Line(line) = s.peek()? else {
        return None;
    };
    if line.indent != 0 {
        return None;
    }
    if s.is_entry(line.start) {
        s.seq(0, line.start, false)?;
    } else {
        s.map(0, line.start)?;
    }
    if !matches!(s.peek()?, Next::End) {
        return None;
    }
    // The document's end and the stream's.
    s.b.event()?;
    s.b.event()?;
    s.b.into_root()
}

/// Whether every character of `text` is one this scanner reads as the parser does: printable,
/// and no line break but `\n` (no tab, carriage return, byte order mark, C1 control, line or
/// paragraph separator, non-breaking space).
fn plain_text(text: &str) -> bool {
    // Runs of bytes checked without stopping at the first bad one: the compiler checks a run's
    // bytes many at a time.
    text.as_bytes().chunks(64).all(|run| {
        run.iter().fold(true, |ok, &b| {
            ok & ((b' '..=b'~').contains(&b) | (b == b'\n'))
        })
    }) || text.chars().all(|c| {
        c == '\n'
            || (' '..='~').contains(&c)
            || (c >= '\u{a1}'
                && !matches!(
                    c,
                    '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
                ))
    })
}

/// A line with content: where it starts and how many spaces indent it.
#[derive(Clone, Copy)]
struct Line {
    start: usize,
    indent: usize,
}

enum Next {
    Line(Line),
    /// The end of the document (of the text, or a `...` line followed only by comments).
    End,
}

struct Scanner<'t, 'l> {
    text: &'t str,
    bytes: &'t [u8],
    /// The start of the first line not read yet.
    pos: usize,
    source: SourceId,
    base: usize,
    b: Builder<'l>,
}

impl<'t> Scanner<'t, '_> {
    /// The plain scalar `text[at..end]`, one event.
    fn plain_scalar(&mut self, at: usize, end: usize) -> Option<()> {
        self.b.event()?;
        self.b.scalar(
            Cow::Borrowed(&self.text[at..end]),
            ScalarStyle::Plain,
            self.span(at, end - at),
        )
    }

    fn span(&self, at: usize, len: usize) -> Span {
        Span::new(self.source, self.base + at, len)
    }

    /// The `\n` ending the line that `at` is on, or the end of the text.
    fn line_end(&self, at: usize) -> usize {
        self.bytes[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(self.bytes.len(), |i| at + i)
    }

    /// Moves past the line ending at `eol` (a `\n` or the end of the text).
    fn next_line(&mut self, eol: usize) {
        self.pos = (eol + 1).min(self.bytes.len());
    }

    fn skip_spaces(&self, mut at: usize) -> usize {
        while self.bytes.get(at) == Some(&b' ') {
            at += 1;
        }
        at
    }

    /// Whether `at` is the end of a line (or of the text).
    fn at_eol(&self, at: usize) -> bool {
        matches!(self.bytes.get(at), None | Some(b'\n'))
    }

    /// Whether a list item starts at `at`: `-` followed by a space or the end of the line.
    fn is_entry(&self, at: usize) -> bool {
        self.bytes.get(at) == Some(&b'-')
            && matches!(self.bytes.get(at + 1), None | Some(b' ' | b'\n'))
    }

    /// Skips blank and comment lines, then one `---` line, if the document has one.
    fn document_start(&mut self) {
        loop {
            let start = self.pos;
            let c = self.skip_spaces(start);
            if c < self.bytes.len() && self.bytes[c] == b'#' {
                let eol = self.line_end(c);
                self.next_line(eol);
            } else if c < self.bytes.len() && self.bytes[c] == b'\n' {
                self.next_line(c);
            } else {
                if c == start && self.bytes[start..].starts_with(b"---") && self.at_eol(start + 3) {
                    self.next_line(start + 3);
                }
                return;
            }
        }
    }

    /// The next line with content, past blank and comment lines (`pos` stays at its start); `None`
    /// on a document marker this scanner does not take.
    fn peek(&mut self) -> Option<Next> {
        loop {
            let start = self.pos;
            if start >= self.bytes.len() {
                return Some(Next::End);
            }
            let c = self.skip_spaces(start);
            match self.bytes.get(c) {
                None => self.pos = c,
                Some(b'\n') => self.next_line(c),
                Some(b'#') => {
                    let eol = self.line_end(c);
                    self.next_line(eol);
                }
                Some(_) if c == start && self.bytes[c..].starts_with(b"...") => {
                    // The document's end: only spaces after it, and only comments after it.
                    let eol = self.skip_spaces(c + 3);
                    if !self.at_eol(eol) {
                        return None;
                    }
                    self.next_line(eol);
                    while self.pos < self.bytes.len() {
                        let c = self.skip_spaces(self.pos);
                        match self.bytes.get(c) {
                            None => self.pos = c,
                            Some(b'\n' | b'#') => {
                                let eol = self.line_end(c);
                                self.next_line(eol);
                            }
                            Some(_) => return None,
                        }
                    }
                    return Some(Next::End);
                }
                Some(_) if c == start && self.bytes[c..].starts_with(b"---") => return None,
                Some(_) => {
                    return Some(Next::Line(Line {
                        start,
                        indent: c - start,
                    }));
                }
            }
        }
    }

    /// A block mapping whose keys are at column `indent`, the first one at `first`.
    fn map(&mut self, indent: usize, first: usize) -> Option<()> {
        self.b.event()?;
        self.b.start(self.span(first, 0), true)?;
        let mut at = first;
        loop {
            let colon = self.key(at)?;
            self.value(indent, colon)?;
            match self.peek()? {
                Next::Line(l) if l.indent == indent && !self.is_entry(l.start + indent) => {
                    at = l.start + indent;
                }
                Next::Line(l) if l.indent < indent => break,
                Next::End => break,
                Next::Line(_) => return None,
            }
        }
        self.b.event()?;
        self.b.end()
    }

    /// The key at `at`, up to its `:` (followed by a space or the end of the line), whose position
    /// it returns.
    fn key(&mut self, at: usize) -> Option<usize> {
        let colon = match self.bytes[at] {
            b'\'' | b'"' => {
                let end = self.quoted(at)?;
                if end - at >= MAX_KEY || self.bytes.get(end) != Some(&b':') {
                    return None;
                }
                end
            }
            _ => {
                let colon = self.plain_key_end(at)?;
                self.plain_scalar(at, colon)?;
                colon
            }
        };
        matches!(self.bytes.get(colon + 1), None | Some(b' ' | b'\n')).then_some(colon)
    }

    /// The `:` ending the plain key at `at`; `None` if the line at `at` is not a plain key this
    /// scanner takes.
    fn plain_key_end(&self, at: usize) -> Option<usize> {
        if !self.plain_start(at) {
            return None;
        }
        let mut i = at;
        loop {
            match self.bytes.get(i) {
                None | Some(b'\n') => return None,
                Some(b':') if matches!(self.bytes.get(i + 1), None | Some(b' ' | b'\n')) => break,
                Some(b' ') if self.bytes.get(i + 1) == Some(&b'#') => return None,
                _ => {}
            }
            i += 1;
            if i - at >= MAX_KEY {
                return None;
            }
        }
        // `plain_start` refused a `:` at `at`, so `i > at`.
        (self.bytes[i - 1] != b' ').then_some(i)
    }

    /// Whether a plain scalar may start at `at`: not at an indicator (but `-` before a letter, a
    /// digit or a dot, as in `-1`).
    fn plain_start(&self, at: usize) -> bool {
        match self.bytes.get(at) {
            None | Some(b' ' | b'\n') => false,
            Some(b'-') => self
                .bytes
                .get(at + 1)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'.'),
            Some(
                b'?' | b':' | b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|'
                | b'>' | b'\'' | b'"' | b'%' | b'@' | b'`',
            ) => false,
            Some(_) => true,
        }
    }

    /// The value after the key of a mapping at column `indent` whose `:` is at `colon`: on the
    /// same line, or on the lines below, or none (null).
    fn value(&mut self, indent: usize, colon: usize) -> Option<()> {
        let at = self.skip_spaces(colon + 1);
        if !(self.at_eol(at) || self.bytes[at] == b'#') {
            return self.inline(at);
        }
        let eol = self.line_end(at);
        self.next_line(eol);
        match self.peek()? {
            Next::Line(l) if l.indent > indent => self.block(l),
            Next::Line(l) if l.indent == indent && self.is_entry(l.start + indent) => {
                self.seq(indent, l.start + indent, true)
            }
            // The parser's empty scalar, at the `:`.
            _ => self.null(colon),
        }
    }

    /// A mapping or a list that starts on line `l`, more indented than the one it is in.
    fn block(&mut self, l: Line) -> Option<()> {
        let at = l.start + l.indent;
        if self.is_entry(at) {
            self.seq(l.indent, at, false)
        } else {
            self.map(l.indent, at)
        }
    }

    fn null(&mut self, at: usize) -> Option<()> {
        self.b.event()?;
        self.b
            .scalar(Cow::Borrowed("~"), ScalarStyle::Plain, self.span(at, 0))
    }

    /// A block list whose `-` are at column `indent`, the first one at `dash`; `indentless` if it
    /// is a mapping's value at the mapping's own column (the parser then starts it where its first
    /// item's content starts).
    fn seq(&mut self, indent: usize, mut dash: usize, indentless: bool) -> Option<()> {
        let mut first = true;
        loop {
            let at = self.skip_spaces(dash + 1);
            let empty = self.at_eol(at) || self.bytes[at] == b'#';
            // Where the parser puts the item's start: past the spaces, and past a comment.
            let entry = if empty { self.line_end(at) } else { at };
            if first {
                first = false;
                self.b.event()?;
                let start = if indentless { entry } else { dash };
                self.b.start(self.span(start, 0), false)?;
            }
            if empty {
                self.next_line(entry);
                match self.peek()? {
                    Next::Line(l) if l.indent > indent => self.block(l)?,
                    _ => self.null(entry)?,
                }
            } else if self.is_entry(at) {
                return None;
            } else if self.item_is_key(at)? {
                self.map(indent + (at - dash), at)?;
            } else {
                self.inline(at)?;
            }
            match self.peek()? {
                Next::Line(l) if l.indent == indent && self.is_entry(l.start + indent) => {
                    dash = l.start + indent;
                }
                Next::Line(l) if l.indent < indent || (indentless && l.indent == indent) => break,
                Next::End => break,
                Next::Line(_) => return None,
            }
        }
        self.b.event()?;
        self.b.end()
    }

    /// Whether the item content at `at` is a key (`- key: value`); `None` if it is neither a key
    /// nor a value this scanner takes.
    fn item_is_key(&self, at: usize) -> Option<bool> {
        match self.bytes[at] {
            b'{' | b'[' => Some(false),
            b'\'' | b'"' => {
                let end = self.quoted_end(at)?;
                Some(
                    self.bytes.get(end) == Some(&b':')
                        && matches!(self.bytes.get(end + 1), None | Some(b' ' | b'\n')),
                )
            }
            _ => {
                let mut i = at;
                loop {
                    match self.bytes.get(i) {
                        None | Some(b'\n') => return Some(false),
                        Some(b':')
                            if matches!(self.bytes.get(i + 1), None | Some(b' ' | b'\n')) =>
                        {
                            return Some(true);
                        }
                        Some(b' ') if self.bytes.get(i + 1) == Some(&b'#') => return Some(false),
                        _ => i += 1,
                    }
                }
            }
        }
    }

    /// A value that starts at `at` and ends its line (but for a comment).
    fn inline(&mut self, at: usize) -> Option<()> {
        let end = match self.bytes[at] {
            b'\'' | b'"' => self.quoted(at)?,
            b'{' | b'[' => self.flow(at)?,
            _ => return self.plain_value(at),
        };
        // Only spaces and a comment after it.
        let rest = self.skip_spaces(end);
        if !(self.at_eol(rest) || (rest > end && self.bytes[rest] == b'#')) {
            return None;
        }
        let eol = self.line_end(rest);
        self.next_line(eol);
        Some(())
    }

    /// A plain scalar from `at` to the end of its line or a comment, without its trailing spaces.
    fn plain_value(&mut self, at: usize) -> Option<()> {
        if !self.plain_start(at) {
            return None;
        }
        let mut end = at;
        let mut i = at;
        loop {
            match self.bytes.get(i) {
                None | Some(b'\n') => break,
                Some(b' ') => {
                    if self.bytes.get(i + 1) == Some(&b'#') {
                        i = self.line_end(i);
                        break;
                    }
                }
                Some(b':') if matches!(self.bytes.get(i + 1), None | Some(b' ' | b'\n')) => {
                    return None;
                }
                Some(_) => end = i + 1,
            }
            i += 1;
        }
        self.plain_scalar(at, end)?;
        self.next_line(i);
        Some(())
    }

    /// A flow collection of scalars on one line (`[a, 'b']`, `{k: v, "l": 1}`, `{}`) at `at`,
    /// read; returns where it ends (past its closing bracket).
    fn flow(&mut self, at: usize) -> Option<usize> {
        let map = self.bytes[at] == b'{';
        let close = if map { b'}' } else { b']' };
        self.b.event()?;
        self.b.start(self.span(at, 1), map)?;
        let mut i = self.skip_spaces(at + 1);
        if self.bytes.get(i) != Some(&close) {
            loop {
                i = self.flow_scalar(i)?;
                if map {
                    // `key: value`, the `:` right after the key.
                    if self.bytes.get(i) != Some(&b':') || self.bytes.get(i + 1) != Some(&b' ') {
                        return None;
                    }
                    i = self.flow_scalar(self.skip_spaces(i + 1))?;
                }
                i = self.skip_spaces(i);
                match self.bytes.get(i) {
                    Some(b',') => i = self.skip_spaces(i + 1),
                    Some(&c) if c == close => break,
                    _ => return None,
                }
            }
        }
        self.b.event()?;
        self.b.end()?;
        Some(i + 1)
    }

    /// A scalar in a flow collection at `at`, read: quoted, or plain of letters, digits and
    /// `_./-` only (not starting with `-` but before a letter, a digit or a dot). Returns where it
    /// ends.
    fn flow_scalar(&mut self, at: usize) -> Option<usize> {
        match *self.bytes.get(at)? {
            b'\'' | b'"' => self.quoted(at),
            first => {
                let name =
                    |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'/' | b'-');
                if !name(first) || (first == b'-' && !self.plain_start(at)) {
                    return None;
                }
                let mut end = at + 1;
                while self.bytes.get(end).is_some_and(|&c| name(c)) {
                    end += 1;
                }
                self.plain_scalar(at, end)?;
                Some(end)
            }
        }
    }

    /// Where the quoted scalar at `at` ends (past its closing quote), if it ends on its line.
    fn quoted_end(&self, at: usize) -> Option<usize> {
        let quote = self.bytes[at];
        let mut i = at + 1;
        loop {
            match *self.bytes.get(i)? {
                b'\n' => return None,
                b'\'' if quote == b'\'' && self.bytes.get(i + 1) == Some(&b'\'') => i += 2,
                b'\\' if quote == b'"' => i += 2,
                c if c == quote => return Some(i + 1),
                _ => i += 1,
            }
        }
    }

    /// The quoted scalar at `at`, read; returns where it ends (past its closing quote).
    fn quoted(&mut self, at: usize) -> Option<usize> {
        let quote = self.bytes[at];
        let text = self.text;
        let mut owned: Option<String> = None;
        let mut from = at + 1;
        let mut i = at + 1;
        loop {
            match *self.bytes.get(i)? {
                b'\n' => return None,
                b'\'' if quote == b'\'' && self.bytes.get(i + 1) == Some(&b'\'') => {
                    owned
                        .get_or_insert_with(String::new)
                        .push_str(&text[from..=i]);
                    i += 2;
                    from = i;
                }
                b'\\' if quote == b'"' => {
                    let (c, len) = match *self.bytes.get(i + 1)? {
                        b'\\' => ('\\', 2),
                        b'"' => ('"', 2),
                        b'/' => ('/', 2),
                        b'n' => ('\n', 2),
                        b't' => ('\t', 2),
                        b'r' => ('\r', 2),
                        b'u' => {
                            let hex = text.get(i + 2..i + 6)?;
                            if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                                return None;
                            }
                            let c = char::from_u32(u32::from_str_radix(hex, 16).ok()?)?;
                            if c.is_control() {
                                return None;
                            }
                            (c, 6)
                        }
                        _ => return None,
                    };
                    let s = owned.get_or_insert_with(String::new);
                    s.push_str(&text[from..i]);
                    s.push(c);
                    i += len;
                    from = i;
                }
                c if c == quote => break,
                _ => i += 1,
            }
        }
        let value = match owned {
            Some(mut s) => {
                s.push_str(&text[from..i]);
                Cow::Owned(s)
            }
            None => Cow::Borrowed(&text[from..i]),
        };
        let style = if quote == b'\'' {
            ScalarStyle::SingleQuoted
        } else {
            ScalarStyle::DoubleQuoted
        };
        self.b.event()?;
        self.b.scalar(value, style, self.span(at, i + 1 - at))?;
        Some(i + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::super::DOCUMENT;
    use super::super::differential::same;
    use super::super::synth;
    use super::tree;
    use crate::load::node::{Node, Value};
    use crate::source::{SourceId, Span};

    fn fast(text: &str) -> Option<Node> {
        tree(SourceId(3), 7, text, &DOCUMENT)
    }

    /// Documents the scanner takes, and ones it leaves to the parser's events. `same` checks
    /// each against serde-saphyr, and (through `differential::readings`) that the scanner's tree
    /// is the events' whenever it takes one.
    #[test]
    fn takes_the_block_subset_and_leaves_the_rest() {
        let taken = [
            "a: 1\n",
            "---\na: 1\n",
            "# c\n---\n\na: 1\n...\n# after\n",
            "a: 1",
            "a:\n  b: 1\n  c:\n    d: x\ne: y\n",
            "a:\n- 1\n- x\nb: 2\n",
            "a:\n  - 1\n  -   x  \nb: 2\n",
            "- a: 1\n  b: 2\n- c\n-\n",
            "-   a: 1\n    b:\n    - x\n-\n  k: v\n-\n  - y\n- # c\n",
            "a: 'it''s'\nb: \"\\u00e9 \\\" \\\\ \\/ \\n \\t \\r\"\n'c d': \"e: f\"\n",
            "a: 'x # y' # z\nb: x#y\nc: x  # y\nd: http://h:1/p?q=a:b\n",
            "a: {}\nb: []\nc: {}  # c\n",
            "a:\nb: # c\nc:\n  # c\n\nd: ~\n",
            "on: 1\nyes: 2\n'null': 3\n'~': 4\n0x1F: 5\n\"0x1E\": 6\nN: 7\n",
            "a: -1\nb: -.5\nc: 0755\nd: 1e3\ne: yes\nf: Off\ng: 1_000\n",
            "é: ü\n日本: 語 x\n",
            "a: b c  d\n",
            "a[0]: x,y\n",
            "a: [1]\nb: {c: d, 'e': \"f\"}\nc: { }\nd: [ a ,b,  -1 , .5, /p, x_y.z-w ]  # c\n",
            "- [a, 'b']\n- {k: v}\n-   {}\n",
            "a: [yes, null, 0x1F, 1e3, 'it''s', \"\\u00e9\"]\n",
        ];
        for text in taken {
            assert!(same(text), "the events builder left {text:?}");
            assert!(fast(text).is_some(), "left: {text:?}");
        }
        let left = [
            // not this scanner's syntax
            "a:\tb\n",
            "a: 1\r\n",
            "\u{feff}a: 1\n",
            "a: \u{a0}x\n",
            "a: [[1]]\n",
            "a: {b: [1]}\n",
            "- [a, {b: c}]\n",
            "a: [1, ]\n",
            "a: [a b]\n",
            "a: [a:b]\n",
            "a: [a: b]\n",
            "a: {b:1}\n",
            "a: {\"b\":1}\n",
            "a: {b}\n",
            "a: {b: }\n",
            "a: [1,\n  2]\n",
            "a: [é]\n",
            "a: [x#y]\n",
            "a: [1] x\n",
            "a: |\n  x\n",
            "a: >-\n  x\n",
            "a: b\n  c\n",
            "a: 'b\n  c'\n",
            "a: \"b\n  c\"\n",
            "a: \"\\x41\"\n",
            "a: \"\\u0001\"\n",
            "a: &x 1\nb: *x\n",
            "a: !!str 1\n",
            "%YAML 1.2\n---\na: 1\n",
            "--- a: 1\n",
            "---\n---\na: 1\n",
            "a: 1\n...\nb: 2\n",
            "? a\n: 1\n",
            "a : 1\n",
            "- - x\n",
            "  a: 1\n",
            "a:\n  b\n",
            "a: 'x'y\n",
            "a: 'x'#c\n",
            "a: b: c\n",
            "a: b:\n",
            "a: -\n",
            "a: :x\n",
            "a: @x\n",
            "a: ,\n",
            ": a\n",
            "a\n",
            "just a scalar\n",
            "",
            "# only a comment\n",
            // the builder's refusals
            "a: 1\na: 2\n",
            "~: a\n",
            "<<: {}\n",
            "a: .inf\n",
            // the block structure broken
            "a:\n  b: 1\n c: 2\n",
            "a:\n    b: 1\n  c: 2\n",
            "- a\nb: c\n",
            "a: 1\n- b\n",
            "- a: 1\n   b: 2\n",
            "- a: 1\n b: 2\n",
            "a:\n- b\n  - c\n",
        ];
        for text in left {
            same(text);
            assert!(fast(text).is_none(), "taken: {text:?}");
        }
        // Long scalars where the parser looks for a key, and comments after `- `.
        let long = "x".repeat(2000);
        for text in [
            format!("a: {long}\n"),
            format!("- {long}\n"),
            format!("a:\n- {long}\n"),
            format!("- a: {long}\n"),
            format!("a: '{long}'\n- \"{long}\"\n"),
            format!("a:\n- '{long}'\n"),
            "a:\n- # c\n  x: 1\n".to_string(),
            "a:\n- # c\n- b\n".to_string(),
            "a:\n-    # c\n".to_string(),
        ] {
            same(&text);
        }
        let long_key = format!("{}: 1\n", "k".repeat(1000));
        same(&long_key);
        assert!(fast(&long_key).is_none(), "a key of 1,000 bytes");
        let key = format!("{}: 1\n", "k".repeat(999));
        assert!(fast(&key).is_some(), "a key of 999 bytes");
    }

    /// The spans granit-parser 2.1.0 gives the events the scanner stands in for (its
    /// `scanner.rs` `fetch_block_entry` and `fetch_value`, `parser.rs` `parse_node` and
    /// `block_mapping_value`): a block mapping starts, empty, at its first key; a list at its
    /// first `-`, but one at its mapping's own column where its first item's content starts; a
    /// missing value is empty at its key's `:`, a missing item at the end of its line; a
    /// scalar's span is its text, quotes included.
    #[test]
    fn spans_are_the_parsers() {
        let text = "---\nk: v\nl:\n- a: 'q'\n  e:\n- \nm:\n  - x\n";
        let root = fast(text).expect("taken");
        let at = |offset: usize, len: usize| Span::new(SourceId(3), 7 + offset, len);
        assert_eq!(root.span, at(4, 0));
        let Value::Map(entries) = &root.value else {
            panic!("a mapping: {root:?}");
        };
        assert_eq!(entries[0].key.span, at(4, 1));
        assert_eq!(entries[0].value.span, at(7, 1));
        // `l:` at 9, its list at the content of its first item (`a` at 14).
        let list = &entries[1].value;
        assert_eq!(list.span, at(14, 0));
        let Value::Seq(items) = &list.value else {
            panic!("a list: {list:?}");
        };
        assert_eq!(items[0].span, at(14, 0));
        assert_eq!(items[0].get("a").map(|n| n.span), Some(at(17, 3)));
        // `e:` at 23, its colon at 24.
        assert_eq!(items[0].get("e").map(|n| n.span), Some(at(24, 0)));
        // `- ` at 26: the empty item at the end of its line.
        assert_eq!(items[1].span, at(28, 0));
        assert_eq!(items[1].value, Value::Null);
        // `m:` at 29, its list indented: at its `-` (34).
        assert_eq!(entries[2].value.span, at(34, 0));
    }

    /// Every document of small synthetic estates, from the generator the benchmarks use (the
    /// default, tenants and #1085 shapes): the scanner takes every one.
    #[test]
    fn takes_the_synthetic_estates_documents() {
        let estates = [
            synth::estate_text(2, 4, 60, 7).0,
            synth::tenants_text(2, 10, 60, 7).0,
            synth::issue1085_text(7).0,
        ];
        let mut docs = 0;
        for text in &estates {
            for c in crate::load::split::documents(text) {
                let doc = &text[c.offset..c.offset + c.len];
                docs += 1;
                assert!(same(doc), "the events builder left {doc:?}");
                assert!(fast(doc).is_some(), "left: {doc:?}");
            }
        }
        assert!(docs > 300, "{docs} documents");
    }
}
