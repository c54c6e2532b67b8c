//! Generated objects as text: multi-document YAML (kubectl style, `---` between documents) or a JSON
//! `List`. Keys are printed in the order the values hold (the generator sorts them).
//!
//! The YAML is written by a small block-style writer of our own ([`yaml_document`]) that produces
//! exactly the text serde-saphyr's serializer (`prefer_block_scalars: false`) produces for a
//! `serde_json::Value`, several times faster: the layout is fixed (block mappings, `- ` at the
//! parent's indentation, `{}` / `[]` for empty containers), strings that are certainly plain are
//! written as they are, and every other scalar is handed to serde-saphyr on its own so quoting
//! and escaping stay serde-saphyr's. A property test below compares both on random values.
//!
//! The typed parts of wasm carriers and of the Limitador (action sets, limits) are written through
//! their own `Serialize` by a serializer with the same layout ([`block`]).

use crate::generate::object::{
    self, ActionSet, AuthConfig, Embed, JsonStyle, LimitadorLimit, Object, SharedId, WasmConfig,
};
use foldhash::HashMap;
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::fmt::Write as _;
use std::sync::Arc;

mod block;

fn saphyr_options() -> serde_saphyr::SerializerOptions {
    serde_saphyr::ser_options! { prefer_block_scalars: false }
}

/// serde-saphyr's text for `v` as a whole document (the reference the fast writer must match).
fn saphyr_document(v: &Value) -> Result<String, String> {
    serde_saphyr::to_string_with_options(v, saphyr_options()).map_err(|e| e.to_string())
}

/// Bytes allowed after the first one in a [`certainly_plain`] key.
const PLAIN_BYTES: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        t[i] = c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'/' | b'-');
        i += 1;
    }
    t
};

/// A key that serde-saphyr writes as it is: an ASCII letter, then letters, digits, `.`, `_`, `/`
/// and `-` only, and none of the words YAML 1.1 / 1.2 resolve to something other than a string.
/// Conservative on purpose: anything else asks serde-saphyr.
fn certainly_plain(s: &str) -> bool {
    let b = s.as_bytes();
    let Some(first) = b.first() else {
        return false;
    };
    if !first.is_ascii_alphabetic() || !b.iter().all(|&c| PLAIN_BYTES[c as usize]) {
        return false;
    }
    not_a_word(s)
}

/// Not one of the letter-only spellings YAML reads as a boolean, null or float.
fn not_a_word(s: &str) -> bool {
    if s.len() > 5 {
        return true;
    }
    const WORDS: [&str; 11] = [
        "null", "true", "false", "yes", "no", "y", "n", "on", "off", "nan", "inf",
    ];
    !WORDS.iter().any(|w| s.eq_ignore_ascii_case(w))
}

/// A value that serde-saphyr writes as it is (values may hold more than keys), conservatively:
/// - an ASCII letter, then printable ASCII without ` #` (a `#` after a space starts a comment; any
///   other is text, as in `route#rule-1`), no `: `, not ending in `:` or a space, and not one of the
///   YAML words (text starting with a letter is no number, date or indicator);
/// - or lowercase hexadecimal-like text (a digit, then `0-9a-z` only, no `0x`/`0o`/`0b` radix
///   prefix) holding a letter other than `e`, so not a number (hashes in generated names).
fn certainly_plain_value(s: &str) -> bool {
    let b = s.as_bytes();
    let Some(&first) = b.first() else {
        return false;
    };
    if first.is_ascii_alphabetic() {
        // Printable ASCII (a pass without early exit, which the compiler vectorises), no `: ` or
        // ` #`, and the last byte neither `:` nor a space.
        let printable = b
            .iter()
            .fold(true, |ok, &c| ok & (c.wrapping_sub(0x20) < 0x5f));
        // Neither `: ` nor ` #`, pair by pair (the values are short: a substring search is set
        // up for each call).
        let no_pair = b.windows(2).fold(true, |ok, w| {
            ok & !matches!((w[0], w[1]), (b':', b' ') | (b' ', b'#'))
        });
        let last = b[b.len() - 1];
        return printable && no_pair && !matches!(last, b':' | b' ') && not_a_word(s);
    }
    first.is_ascii_digit()
        && b.len() > 1
        && !matches!(b[1], b'x' | b'o' | b'b')
        && b.iter()
            .all(|c| c.is_ascii_digit() || c.is_ascii_lowercase())
        && b.iter().any(|&c| c.is_ascii_lowercase() && c != b'e')
}

/// What a carrier's placeholder stands for.
#[derive(Clone, Copy)]
enum Hole<'v> {
    Wasm(&'v WasmConfig),
    /// A configuration written as its JSON text, a string.
    WasmJson(&'v WasmConfig),
    Limits(&'v [LimitadorLimit]),
}

/// Scalar texts serde-saphyr produced, by (position, string), for one rendering call; and the
/// shared parts of typed objects already written.
#[derive(Default)]
struct Scalars<'v> {
    values: HashMap<Box<str>, String>,
    keys: HashMap<Box<str>, String>,
    /// The placeholder of the carrier being written, and what is written in its place.
    hole: Option<(&'v Value, Hole<'v>)>,
    /// Text of the parts action sets share (`object::SHARED`), by identity, column and place.
    shared: HashMap<(SharedId, usize, block::At), String>,
    /// Text of shared AuthConfig specs (before and after `hosts`), by address.
    auth_specs: HashMap<usize, (String, String)>,
    /// Where a Limitador's limits were written: the offset in the text and their column.
    limits_at: Option<(usize, usize)>,
}

impl<'v> Scalars<'v> {
    fn value(&mut self, out: &mut String, s: &str) -> Result<(), String> {
        if certainly_plain_value(s) {
            out.push_str(s);
            return Ok(());
        }
        if long_flow_text(s) {
            write_double_quoted_ascii(out, s);
            return Ok(());
        }
        if let Some(t) = self.values.get(s) {
            out.push_str(t);
            return Ok(());
        }
        let start = out.len();
        saphyr_value(out, s)?;
        self.values.insert(s.into(), out[start..].to_string());
        Ok(())
    }

    fn key(&mut self, out: &mut String, s: &str) -> Result<(), String> {
        if certainly_plain(s) {
            out.push_str(s);
            return Ok(());
        }
        if let Some(t) = self.keys.get(s) {
            out.push_str(t);
            return Ok(());
        }
        // Keys follow a stricter rule than values: render `{s: 0}` and keep what precedes `: 0`.
        let mut one = Map::new();
        one.insert(s.to_string(), Value::from(0));
        let doc = saphyr_document(&Value::Object(one))?;
        let t = doc
            .strip_suffix(": 0\n")
            .ok_or_else(|| format!("unexpected key rendering {doc:?}"))?
            .to_string();
        out.push_str(&t);
        self.keys.insert(s.into(), t);
        Ok(())
    }

    /// A scalar or an empty container, on the current line (no newline).
    fn scalar(&mut self, out: &mut String, v: &'v Value) -> Result<(), String> {
        match v {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    let _ = write!(out, "{i}");
                } else if let Some(u) = n.as_u64() {
                    let _ = write!(out, "{u}");
                } else {
                    let doc = saphyr_document(v)?;
                    out.push_str(doc.strip_suffix('\n').unwrap_or(&doc));
                }
            }
            Value::String(s) => self.value(out, s)?,
            Value::Array(_) => out.push_str("[]"),
            Value::Object(_) => out.push_str("{}"),
        }
        Ok(())
    }
}

/// String `s` as a mapping value, on the current line (no newline).
fn string_value(out: &mut String, s: &str) -> Result<(), String> {
    if certainly_plain_value(s) {
        out.push_str(s);
    } else if long_flow_text(s) {
        write_double_quoted_ascii(out, s);
    } else {
        saphyr_value(out, s)?;
    }
    Ok(())
}

/// String `s` as a mapping value, written by serde-saphyr.
fn saphyr_value(out: &mut String, s: &str) -> Result<(), String> {
    // A lone string document is written exactly as a mapping value would be (same quoting rule,
    // no block scalars with these options), followed by a newline.
    let doc =
        serde_saphyr::to_string_with_options(&s, saphyr_options()).map_err(|e| e.to_string())?;
    out.push_str(doc.strip_suffix('\n').unwrap_or(&doc));
    Ok(())
}

/// How long a JSON-like text is for [`long_flow_text`].
const LONG_FLOW: usize = 4096;

/// Whether `s` is a long text that starts with `{` or `[` and is printable ASCII: a JSON document
/// embedded in an object (a gateway's wasm configuration in its 1.5 `EnvoyFilter`, megabytes long).
/// A plain scalar cannot start with a flow indicator, so serde-saphyr writes it double-quoted, and in
/// printable ASCII its escapes are `\\` and `\"` only; [`write_double_quoted_ascii`] writes that
/// text without going character by character (`tests::long_flow_texts_are_written_as_serde_saphyr_does`).
fn long_flow_text(s: &str) -> bool {
    s.len() >= LONG_FLOW
        && matches!(s.as_bytes().first(), Some(b'{' | b'['))
        && s.bytes().all(|b| (0x20..0x7f).contains(&b))
}

/// A configuration's compact JSON text as a mapping value: what `string_value` makes of
/// `config.to_json()`, written in one pass. A long configuration in printable ASCII, the usual case,
/// is written by serde_json already escaped inside double quotes ([`InDoubleQuotes`]), without
/// the text, the scan and the copy of [`long_flow_text`] and [`write_double_quoted_ascii`];
/// anything else takes `string_value`.
fn wasm_json_value(out: &mut String, config: &WasmConfig) -> Result<(), String> {
    wasm_json_value_in(out, config, config.json_parts())
}

/// [`wasm_json_value`] with the action sets written in `parts` parts. The JSON is written straight
/// into `out` (megabytes for a large gateway: a copy through a buffer of its own costs as many
/// fresh pages again), and taken back if it turns out not to be printable ASCII or to be short.
fn wasm_json_value_in(out: &mut String, config: &WasmConfig, parts: usize) -> Result<(), String> {
    let mark = out.len();
    out.push('"');
    // serde_json writes a few bytes at a time: they are gathered, and checked as UTF-8, 64 KiB at a
    // time.
    let mut w = std::io::BufWriter::with_capacity(1 << 16, Utf8Into(out));
    let written = config
        .json_into(InDoubleQuotes, parts, &mut w)
        .and_then(|()| std::io::Write::flush(&mut w));
    // Taken apart rather than dropped: a drop would write what a failed write left buffered.
    let _ = w.into_parts();
    if written.is_ok() {
        let text = &out[mark + 1..];
        // serde_json escapes control characters itself: what is left to rule out is DEL and
        // anything past ASCII, which YAML writes otherwise.
        if text.is_ascii() && !text.as_bytes().contains(&0x7f) && unescaped_is_long(text) {
            out.push('"');
            return Ok(());
        }
    }
    out.truncate(mark);
    string_value(out, &config.to_json())
}

/// Whether the JSON that [`InDoubleQuotes`] wrote as `escaped` has `LONG_FLOW` characters or more.
/// Each escape it adds is a backslash before one character of the JSON, so the JSON has at least
/// half as many characters, and exactly as many as `escaped` has pairs and lone characters.
fn unescaped_is_long(escaped: &str) -> bool {
    if escaped.len() / 2 >= LONG_FLOW {
        return true;
    }
    let mut bytes = escaped.bytes();
    let mut n = 0;
    while let Some(b) = bytes.next() {
        if b == b'\\' {
            bytes.next();
        }
        n += 1;
    }
    n >= LONG_FLOW
}

/// A `String` as an [`std::io::Write`]: a write that is not UTF-8 (a character cut between two
/// writes, which only text past ASCII can give) is refused with an error, and the caller falls
/// back.
struct Utf8Into<'s>(&'s mut String);

impl std::io::Write for Utf8Into<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .push_str(std::str::from_utf8(buf).map_err(std::io::Error::other)?);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// serde_json's compact formatter, its output escaped as the inside of a YAML double-quoted scalar
/// (`"` and `\` after a backslash, as [`write_double_quoted_ascii`] does). Its string fragments are
/// written as they are: the caller checks the whole text once.
#[derive(Clone, Copy)]
pub(crate) struct InDoubleQuotes;

impl serde_json::ser::Formatter for InDoubleQuotes {
    fn begin_string<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b"\\\"")
    }

    fn end_string<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b"\\\"")
    }

    fn write_char_escape<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        escape: serde_json::ser::CharEscape,
    ) -> std::io::Result<()> {
        use serde_json::ser::CharEscape as E;
        // JSON's escape is a backslash and a letter (or `"`, `\`, `/`, `u00XX`); in YAML double
        // quotes its backslash is doubled, and a quote or backslash after it escaped too.
        let tail: &[u8] = match escape {
            E::Quote => b"\\\"",
            E::ReverseSolidus => b"\\\\",
            E::Solidus => b"/",
            E::Backspace => b"b",
            E::FormFeed => b"f",
            E::LineFeed => b"n",
            E::CarriageReturn => b"r",
            E::Tab => b"t",
            E::AsciiControl(byte) => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                return w.write_all(&[
                    b'\\',
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[usize::from(byte >> 4)],
                    HEX[usize::from(byte & 0xf)],
                ]);
            }
        };
        w.write_all(b"\\\\")?;
        w.write_all(tail)
    }
}

impl JsonStyle for InDoubleQuotes {
    fn literal(&self, json: &[u8], out: &mut Vec<u8>) {
        for &b in json {
            if matches!(b, b'"' | b'\\') {
                out.push(b'\\');
            }
            out.push(b);
        }
    }
}

/// `s`, printable ASCII, as a double-quoted scalar.
fn write_double_quoted_ascii(out: &mut String, s: &str) {
    out.reserve(s.len() + s.len() / 4 + 2);
    out.push('"');
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        if matches!(b, b'"' | b'\\') {
            out.push_str(&s[start..i]);
            out.push('\\');
            start = i;
        }
    }
    out.push_str(&s[start..]);
    out.push('"');
}

fn indent(out: &mut String, mut n: usize) {
    const SPACES: &str = "                                                                ";
    while n > SPACES.len() {
        out.push_str(SPACES);
        n -= SPACES.len();
    }
    out.push_str(&SPACES[..n]);
}

/// A non-empty mapping whose keys sit at column `col`; with `inline`, the first key continues the
/// current line (after `- `).
fn write_map<'v>(
    out: &mut String,
    sc: &mut Scalars<'v>,
    m: &'v Map<String, Value>,
    col: usize,
    inline: bool,
) -> Result<(), String> {
    for (i, (k, v)) in m.iter().enumerate() {
        if i > 0 || !inline {
            indent(out, col);
        }
        write_entry(out, sc, k, v, col)?;
    }
    Ok(())
}

/// `key: value` of a mapping whose keys sit at column `col`, the indentation already written.
fn write_entry<'v>(
    out: &mut String,
    sc: &mut Scalars<'v>,
    k: &'v str,
    v: &'v Value,
    col: usize,
) -> Result<(), String> {
    sc.key(out, k)?;
    out.push(':');
    // A carrier's placeholder: its typed part goes here.
    if let Some((hole, part)) = sc.hole
        && std::ptr::eq(hole, v)
    {
        return match part {
            Hole::Wasm(config) => {
                out.push('\n');
                write_wasm_config(out, sc, config, col + 2)
            }
            Hole::WasmJson(config) => {
                out.push(' ');
                wasm_json_value(out, config)?;
                out.push('\n');
                Ok(())
            }
            Hole::Limits(limits) => {
                out.push('\n');
                sc.limits_at = Some((out.len(), col));
                write_limits(out, sc, limits, col)
            }
        };
    }
    match v {
        Value::Object(c) if !c.is_empty() => {
            out.push('\n');
            write_map(out, sc, c, col + 2, false)?;
        }
        Value::Array(a) if !a.is_empty() => {
            out.push('\n');
            write_seq(out, sc, a, col, false)?;
        }
        _ => {
            out.push(' ');
            sc.scalar(out, v)?;
            out.push('\n');
        }
    }
    Ok(())
}

/// `key: <string>` at column `col` (indentation included).
fn string_entry<'v>(
    out: &mut String,
    sc: &mut Scalars<'v>,
    col: usize,
    k: &'v str,
    v: &'v str,
) -> Result<(), String> {
    indent(out, col);
    sc.key(out, k)?;
    out.push_str(": ");
    sc.value(out, v)?;
    out.push('\n');
    Ok(())
}

/// `key:` and a sequence of strings (`key: []` when empty), the key at column `col` and the
/// indentation already written.
fn strings_entry<'v>(
    out: &mut String,
    sc: &mut Scalars<'v>,
    col: usize,
    k: &'v str,
    items: &'v [impl AsRef<str>],
) -> Result<(), String> {
    sc.key(out, k)?;
    if items.is_empty() {
        out.push_str(": []\n");
        return Ok(());
    }
    out.push_str(":\n");
    for s in items {
        indent(out, col);
        out.push_str("- ");
        sc.value(out, s.as_ref())?;
        out.push('\n');
    }
    Ok(())
}

/// A wasm configuration (`WasmConfig`'s serialisation) as a block mapping at column `col`.
fn write_wasm_config<'v>(
    out: &mut String,
    sc: &mut Scalars<'v>,
    config: &'v WasmConfig,
    col: usize,
) -> Result<(), String> {
    indent(out, col);
    if config.action_sets.is_empty() {
        out.push_str("actionSets: []\n");
    } else {
        out.push_str("actionSets:\n");
        // A gateway of a large estate has thousands of action sets.
        write_in_parts(out, sc, &config.action_sets, 2048, |out, sc, sets| {
            write_action_sets(out, sc, sets, col)
        })?;
    }
    for (k, v) in &config.rest {
        indent(out, col);
        write_entry(out, sc, k, v, col)?;
    }
    Ok(())
}

/// Action sets as sequence items, their dashes at column `col`.
fn write_action_sets<'v>(
    out: &mut String,
    sc: &mut Scalars<'v>,
    sets: &'v [ActionSet],
    col: usize,
) -> Result<(), String> {
    for set in sets {
        write_item(out, sc, set, col)?;
    }
    Ok(())
}

/// A typed part through its own `Serialize` ([`block`]), as a sequence item, its dash at column
/// `col`.
fn write_item<T: Serialize>(
    out: &mut String,
    sc: &mut Scalars<'_>,
    part: &T,
    col: usize,
) -> Result<(), String> {
    indent(out, col);
    out.push_str("- ");
    part.serialize(block::Block {
        out,
        sc,
        col,
        at: block::At::Item,
    })
    .map_err(|e| e.0)
}

/// Limitador limits (`LimitadorLimit`'s serialisation) as a sequence with its dashes at column `col`.
fn write_limits<'v>(
    out: &mut String,
    sc: &mut Scalars<'v>,
    limits: &'v [LimitadorLimit],
    col: usize,
) -> Result<(), String> {
    // A large estate's Limitador holds a hundred thousand limits.
    write_in_parts(out, sc, limits, 8192, |out, sc, limits| {
        write_limit_items(out, sc, limits, col)
    })
}

/// `items` written by `write` (which writes a run of them), in contiguous parts on every core when
/// each core gets at least `min_part` of them, else in place with the caller's caches. Each item's
/// text depends on that item alone (the caches only save work), so the parts joined are the text.
fn write_in_parts<'v, T: Sync>(
    out: &mut String,
    sc: &mut Scalars<'v>,
    items: &'v [T],
    min_part: usize,
    write: impl Fn(&mut String, &mut Scalars<'v>, &'v [T]) -> Result<(), String> + Sync,
) -> Result<(), String> {
    let parts = crate::par::cores().min(items.len() / min_part);
    if parts < 2 {
        return write(out, sc, items);
    }
    let texts = crate::par::map_ranges(crate::par::even_ranges(items.len(), parts), |r| {
        let mut text = String::new();
        write(&mut text, &mut Scalars::default(), &items[r]).map(|()| text)
    });
    for t in texts {
        out.push_str(&t?);
    }
    Ok(())
}

/// A Limitador carrier's text cut around its limits: the text before them, the column of their
/// dashes and the text after; with [`limit_item`] of each limit in between it is the carrier's
/// text ([`yaml_objects`]). `watch` replaces some limits without writing the others again.
pub(crate) fn limitador_frame(
    l: &crate::generate::object::LimitadorCarrier,
) -> Result<(String, usize, String), String> {
    let mut out = String::new();
    let mut sc = Scalars {
        hole: l.shell.pointer(l.at).map(|h| (h, Hole::Limits(&[]))),
        ..Scalars::default()
    };
    write_document(&mut out, &mut sc, &l.shell)?;
    let (at, col) = sc
        .limits_at
        .ok_or("the Limitador has no limits placeholder")?;
    let tail = out.split_off(at);
    Ok((out, col, tail))
}

/// One limit's item of a Limitador's text, its dash at column `col` ([`limitador_frame`]).
pub(crate) fn limit_item(l: &LimitadorLimit, col: usize) -> Result<String, String> {
    let mut out = String::new();
    write_limit_items(
        &mut out,
        &mut Scalars::default(),
        std::slice::from_ref(l),
        col,
    )?;
    Ok(out)
}

/// The items of [`write_limits`], dashes at column `col`.
fn write_limit_items<'v>(
    out: &mut String,
    sc: &mut Scalars<'v>,
    limits: &'v [LimitadorLimit],
    col: usize,
) -> Result<(), String> {
    for l in limits {
        write_item(out, sc, l, col)?;
    }
    Ok(())
}

/// An AuthConfig (its serialisation) as a document.
fn write_auth_config<'v>(
    out: &mut String,
    sc: &mut Scalars<'v>,
    a: &'v AuthConfig,
) -> Result<(), String> {
    out.push_str("apiVersion: ");
    sc.value(out, object::AUTH_CONFIG_API_VERSION)?;
    out.push_str("\nkind: AuthConfig\nmetadata:\n  annotations:\n    ");
    sc.key(out, &a.annotation.0)?;
    out.push_str(": ");
    sc.value(out, &a.annotation.1)?;
    out.push_str("\n  labels:\n");
    for (k, v) in object::AUTH_CONFIG_LABELS {
        string_entry(out, sc, 4, k, v)?;
    }
    string_entry(out, sc, 2, "name", &a.name)?;
    string_entry(out, sc, 2, "namespace", &a.namespace)?;
    out.push_str("spec:\n");
    // The shared spec is written once, in two parts around `hosts`.
    let key = Arc::as_ptr(&a.spec) as usize;
    if !sc.auth_specs.contains_key(&key) {
        let (mut before, mut after) = (String::new(), String::new());
        for (k, v) in a.spec.iter() {
            let part = if k.as_str() < "hosts" {
                &mut before
            } else {
                &mut after
            };
            indent(part, 2);
            write_entry(part, sc, k, v, 2)?;
        }
        sc.auth_specs.insert(key, (before, after));
    }
    if let Some((before, _)) = sc.auth_specs.get(&key) {
        out.push_str(before);
    }
    out.push_str("  ");
    strings_entry(out, sc, 2, "hosts", std::slice::from_ref(&a.name))?;
    if let Some((_, after)) = sc.auth_specs.get(&key) {
        out.push_str(after);
    }
    Ok(())
}

/// A non-empty sequence whose dashes sit at column `col`; with `inline`, the first dash continues
/// the current line.
fn write_seq<'v>(
    out: &mut String,
    sc: &mut Scalars<'v>,
    a: &'v [Value],
    col: usize,
    inline: bool,
) -> Result<(), String> {
    for (i, v) in a.iter().enumerate() {
        if i > 0 || !inline {
            indent(out, col);
        }
        out.push_str("- ");
        match v {
            Value::Object(c) if !c.is_empty() => write_map(out, sc, c, col + 2, true)?,
            Value::Array(s) if !s.is_empty() => write_seq(out, sc, s, col + 2, true)?,
            _ => {
                sc.scalar(out, v)?;
                out.push('\n');
            }
        }
    }
    Ok(())
}

fn write_document<'v>(out: &mut String, sc: &mut Scalars<'v>, v: &'v Value) -> Result<(), String> {
    match v {
        Value::Object(m) if !m.is_empty() => write_map(out, sc, m, 0, false),
        Value::Array(a) if !a.is_empty() => write_seq(out, sc, a, 0, false),
        _ => {
            sc.scalar(out, v)?;
            out.push('\n');
            Ok(())
        }
    }
}

/// One YAML document for `v`, ending with a newline: the same text as serde-saphyr's serializer
/// with `prefer_block_scalars: false` (used by `compute`, `--out-dir` files and `diff`).
pub fn yaml_document(v: &Value) -> Result<String, String> {
    let mut out = String::new();
    write_document(&mut out, &mut Scalars::default(), v)?;
    Ok(out)
}

/// Generated objects as `---`-separated YAML documents (empty string for none): the same text as
/// [`yaml`] over their trees ([`Object::to_value`]), written from the typed parts directly.
pub fn yaml_objects(objects: &[Object]) -> Result<String, String> {
    let mut out = Vec::new();
    write_yaml_objects(objects, &mut out).map_err(|e| e.to_string())?;
    // The writer only writes `&str`s.
    String::from_utf8(out).map_err(|e| e.to_string())
}

/// The text of one object appended to `out`: what [`yaml_objects`] gives for it alone, rendered on
/// the calling thread (`--out-dir` renders its files on every core already; a thread per object
/// cost a thread start and an 8 MiB stack mapping per file).
pub(crate) fn write_yaml_object(out: &mut String, o: &Object) -> Result<(), String> {
    render_part(out, std::slice::from_ref(o), 0..1)
}

/// Why [`write_yaml_objects`] stopped.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("cannot render YAML: {0}")]
    Render(String),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// [`yaml_objects`] into `w`, a part of the objects at a time, so the whole text is never held in
/// memory (hundreds of megabytes for large estates): contiguous parts of about the same size are
/// rendered on the available cores and written in order ([`write_streamed`]).
/// A failure stops the writing where it is: callers that must not leave partial output write to a
/// temporary file or a buffer.
pub fn write_yaml_objects(
    objects: &[Object],
    w: &mut impl std::io::Write,
) -> Result<(), WriteError> {
    write_streamed(objects, w, |out: &mut String, r| {
        render_part(out, objects, r)
    })
}

/// What a rendering thread writes into: its text is written out, then it is cleared and reused.
trait Buffer: Default + Send {
    fn bytes(&self) -> &[u8];
    fn clear(&mut self);
    /// Room for at least `n` bytes in all.
    fn room(&mut self, n: usize);
}

impl Buffer for String {
    fn bytes(&self) -> &[u8] {
        self.as_bytes()
    }
    fn clear(&mut self) {
        String::clear(self);
    }
    fn room(&mut self, n: usize) {
        self.reserve(n.saturating_sub(self.len()));
    }
}

impl Buffer for Vec<u8> {
    fn bytes(&self) -> &[u8] {
        self
    }
    fn clear(&mut self) {
        Vec::clear(self);
    }
    fn room(&mut self, n: usize) {
        self.reserve(n.saturating_sub(self.len()));
    }
}

/// Render `objects` into `w` in order, in contiguous parts of about [`PART`] bytes of text, each
/// rendered by `render` on the pool's threads and written as soon as it and the parts before it
/// are done ([`crate::par::stream`]): the cores render while the calling thread writes into `w` (a
/// pipe drained by another process, a terminal), and at most [`WINDOW`] parts' texts exist at a
/// time, in buffers reused part after part.
fn write_streamed<B: Buffer>(
    objects: &[Object],
    w: &mut impl std::io::Write,
    render: impl Fn(&mut B, std::ops::Range<usize>) -> Result<(), String> + Sync,
) -> Result<(), WriteError> {
    write_streamed_of(objects, PART, w, render)
}

/// About how much text a part of [`write_streamed`] holds: small enough that the first parts are
/// written while the next are rendered, large enough that a part's task and hand-over cost nothing
/// beside its rendering.
const PART: usize = 256 << 10;

/// How many parts [`write_streamed`] renders ahead of the one being written, a core: enough that
/// the other cores keep rendering while one renders a large object (a gateway's wasm
/// configuration, megabytes of text, is itself written on every core), few enough that the
/// buffers are reused soon. Each buffer is fresh memory, a page fault every 4 KiB, until it comes
/// back: 8 a core left kuadrant-operator #1085's 5.6 MB of text almost all in fresh buffers; 2
/// took 34.2 to 31.9 ms of its CPU (median 24.3 to 23.2 ms of wall, 40 interleaved rounds), and
/// no more time on the 100k-object estates (1 was slower on the default one).
const WINDOW: usize = 2;

/// [`write_streamed`] with parts of about `part` bytes of text.
fn write_streamed_of<B: Buffer>(
    objects: &[Object],
    part: usize,
    w: &mut impl std::io::Write,
    render: impl Fn(&mut B, std::ops::Range<usize>) -> Result<(), String> + Sync,
) -> Result<(), WriteError> {
    let parts = parts(objects, part);
    // Text buffers, reused part after part: fresh memory costs a page fault per page, and the
    // output is ten times the input.
    let spare = std::sync::Mutex::new(Vec::<B>::new());
    let render_part = |(r, size): &(std::ops::Range<usize>, usize)| {
        let mut out = spare
            .lock()
            .map(|mut b| b.pop().unwrap_or_default())
            .unwrap_or_default();
        // A quarter more than the estimate: a buffer grown by doubling copies its text and
        // touches fresh pages (each a page fault) several times over. Room never written costs
        // address space only.
        out.room(size + size / 4);
        render(&mut out, r.clone()).map(|()| out)
    };
    let write = |text: Result<B, String>| {
        let mut text = text.map_err(WriteError::Render)?;
        w.write_all(text.bytes())?;
        text.clear();
        if let Ok(mut b) = spare.lock() {
            b.push(text);
        }
        Ok(())
    };
    crate::par::stream(&parts, WINDOW * crate::par::cores(), render_part, write)
}

/// The parts of [`write_streamed`]: contiguous runs of objects of about `part` bytes of text (at
/// least one object each; the sizes are estimates), with their estimated sizes.
fn parts(objects: &[Object], part: usize) -> Vec<(std::ops::Range<usize>, usize)> {
    crate::par::weighted_ranges(objects.iter().map(estimated_size), part)
}

/// [`json_list`] of the objects' trees into `w`, streamed like [`write_yaml_objects`]: only the
/// trees of the objects being rendered exist at a time (the whole list of a 100k-object estate
/// took 8 GB as trees and text).
pub fn write_json_list(objects: &[Object], w: &mut impl std::io::Write) -> Result<(), WriteError> {
    write_json_items(
        objects,
        w,
        "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"items\": [",
        "\n}\n",
    )
}

/// The objects' trees as the pretty-printed `List` of `kubectl get -o json`
/// (`apiVersion`, `items`, `kind`, `metadata.resourceVersion`), streamed like [`write_json_list`].
pub fn write_kubectl_list(
    objects: &[Object],
    w: &mut impl std::io::Write,
) -> Result<(), WriteError> {
    write_json_items(
        objects,
        w,
        "{\n  \"apiVersion\": \"v1\",\n  \"items\": [",
        ",\n  \"kind\": \"List\",\n  \"metadata\": {\n    \"resourceVersion\": \"\"\n  }\n}\n",
    )
}

/// `head` (ending with `"items": [`), the objects' trees as pretty-printed items, the closing `]`,
/// then `tail`.
fn write_json_items(
    objects: &[Object],
    w: &mut impl std::io::Write,
    head: &str,
    tail: &str,
) -> Result<(), WriteError> {
    w.write_all(head.as_bytes())?;
    write_streamed(objects, w, |out: &mut Vec<u8>, r| {
        for i in r {
            out.extend_from_slice(if i == 0 { b"\n    " } else { b",\n    " });
            let mut ser = serde_json::Serializer::with_formatter(&mut *out, ListItem::default());
            objects[i]
                .to_value()
                .serialize(&mut ser)
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    })?;
    w.write_all(if objects.is_empty() { b"]" } else { b"\n  ]" })?;
    w.write_all(tail.as_bytes())?;
    Ok(())
}

/// serde_json's pretty layout (two spaces a level) for a value that sits two levels deep, as an
/// item of a pretty-printed `List`'s `items`.
#[derive(Default)]
struct ListItem {
    /// Levels below the item.
    depth: usize,
    has_value: bool,
}

impl ListItem {
    fn newline_indent<W: ?Sized + std::io::Write>(&self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b"\n")?;
        for _ in 0..self.depth + 2 {
            w.write_all(b"  ")?;
        }
        Ok(())
    }

    fn open<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        bracket: &[u8],
    ) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(bracket)
    }

    fn close<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        bracket: &[u8],
    ) -> std::io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            self.newline_indent(w)?;
        }
        w.write_all(bracket)
    }

    /// Before an array item or an object key.
    fn next<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        if !first {
            w.write_all(b",")?;
        }
        self.newline_indent(w)
    }
}

impl serde_json::ser::Formatter for ListItem {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"[")
    }
    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"]")
    }
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.next(w, first)
    }
    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"{")
    }
    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"}")
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.next(w, first)
    }
    /// The unescaped parts of strings: DEL, C1 controls, bidirectional overrides and U+FFFE/U+FFFF
    /// (a limit name can hold them) as `\uXXXX`, as [`crate::render::terminal::json`] writes them.
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        // DEL is 0x7f; the C1 controls start with 0xc2, the overrides with 0xe2, U+FFFE and U+FFFF
        // with 0xef, in UTF-8.
        if !fragment
            .bytes()
            .any(|b| matches!(b, 0x7f | 0xc2 | 0xe2 | 0xef))
        {
            return w.write_all(fragment.as_bytes());
        }
        for c in fragment.chars() {
            if crate::render::terminal::is_unsafe(c) {
                write!(w, "\\u{:04x}", c as u32)?;
            } else {
                let mut b = [0; 4];
                w.write_all(c.encode_utf8(&mut b).as_bytes())?;
            }
        }
        Ok(())
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }
    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// Append the text of `objects[range]` to `out`, each document preceded by `---` except the very
/// first object's.
fn render_part(
    out: &mut String,
    objects: &[Object],
    range: std::ops::Range<usize>,
) -> Result<(), String> {
    let mut sc = Scalars::default();
    for i in range {
        if i > 0 {
            out.push_str("---\n");
        }
        match &objects[i] {
            Object::Tree(v) => write_document(out, &mut sc, v)?,
            Object::Wasm(w) => {
                let part = match w.embed {
                    Embed::Mapping => Hole::Wasm(&w.config),
                    Embed::Json => Hole::WasmJson(&w.config),
                };
                sc.hole = w.shell.pointer(w.at).map(|h| (h, part));
                let written = write_document(out, &mut sc, &w.shell);
                sc.hole = None;
                // Shared action lists do not outlive their gateway's carrier.
                sc.shared.clear();
                written?
            }
            Object::Limitador(l) => {
                sc.hole = l.shell.pointer(l.at).map(|h| (h, Hole::Limits(&l.limits)));
                let written = write_document(out, &mut sc, &l.shell);
                sc.hole = None;
                written?
            }
            Object::AuthConfig(a) => write_auth_config(out, &mut sc, a)?,
        }
    }
    Ok(())
}

/// A rough size of an object's text, to balance the rendering threads.
fn estimated_size(o: &Object) -> usize {
    fn tree(v: &Value) -> usize {
        match v {
            Value::String(s) => 8 + s.len(),
            Value::Array(a) => 8 + a.iter().map(tree).sum::<usize>(),
            Value::Object(m) => 8 + m.iter().map(|(k, v)| 8 + k.len() + tree(v)).sum::<usize>(),
            _ => 12,
        }
    }
    match o {
        Object::Tree(v) => tree(v),
        Object::Wasm(w) => 2_000 + 800 * w.config.action_sets.len(),
        Object::Limitador(l) => 1_000 + 200 * l.limits.len(),
        Object::AuthConfig(_) => 700,
    }
}

/// `---`-separated YAML documents; empty string for no objects.
pub fn yaml(objects: &[Value]) -> Result<String, String> {
    let mut out = String::new();
    let mut sc = Scalars::default();
    for (i, o) in objects.iter().enumerate() {
        if i > 0 {
            out.push_str("---\n");
        }
        write_document(&mut out, &mut sc, o)?;
    }
    Ok(out)
}

/// `{"apiVersion":"v1","kind":"List","items":[...]}`, pretty-printed, with a trailing newline.
pub fn json_list(objects: &[Value]) -> String {
    let list = json!({"apiVersion": "v1", "kind": "List", "items": objects});
    let mut s =
        crate::render::terminal::json(serde_json::to_string_pretty(&list).unwrap_or_default());
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::{Scalars, long_flow_text, saphyr_document};

    /// Typed objects (wasm carriers with their configuration as a mapping or as a JSON string,
    /// the Limitador, AuthConfigs) are written as their trees are, at both releases; a carrier
    /// with a long configuration (the short way for long JSON texts) included.
    #[test]
    fn typed_objects_are_written_as_their_trees() {
        use crate::generate::object::Object;
        use crate::model::KuadrantVersion;
        let mut kinds = std::collections::BTreeSet::new();
        for version in [KuadrantVersion::V1_4, KuadrantVersion::V1_5] {
            let mut objects = crate::generate::toystore_objects(version);
            // A long configuration: the first carrier's sets, many times.
            let mut long = objects
                .iter()
                .find(|o| matches!(o, Object::Wasm(_)))
                .cloned()
                .unwrap();
            if let Object::Wasm(w) = &mut long {
                let sets = w.config.action_sets.clone();
                while w.config.to_json().len() < 10_000 {
                    w.config.action_sets.extend(sets.iter().cloned());
                }
            }
            objects.push(long);
            for o in &objects {
                if !matches!(o, Object::Tree(_)) {
                    kinds.insert(o.kind().to_string());
                }
                let typed = super::yaml_objects(std::slice::from_ref(o)).unwrap();
                let tree = super::yaml(&[o.to_value()]).unwrap();
                assert!(
                    typed == tree,
                    "{}:\n{typed}\n---- as a tree:\n{tree}",
                    o.kind()
                );
            }
        }
        let kinds: Vec<&str> = kinds.iter().map(String::as_str).collect();
        assert_eq!(
            kinds,
            ["AuthConfig", "EnvoyFilter", "Limitador", "WasmPlugin"]
        );
    }

    /// A wasm configuration's JSON written escaped in one pass is what `string_value` makes of its
    /// text, in any number of parts: with JSON's own escapes (quotes, backslashes, control
    /// characters) in its strings, short (under `LONG_FLOW`), and with text that is not printable
    /// ASCII (which serde-saphyr writes its own way).
    #[test]
    fn wasm_json_written_escaped_is_the_text_written() {
        use crate::generate::object::Object;
        use crate::model::KuadrantVersion;
        let base = crate::generate::toystore_objects(KuadrantVersion::V1_5)
            .into_iter()
            .find_map(|o| match o {
                Object::Wasm(w) => Some(w.config),
                _ => None,
            })
            .unwrap();
        let actions = base.action_sets[0].actions.clone();
        let tricky = [
            "plain.example.com",
            "quote\"d\\back",
            "line\nfeed\ttab\u{1}\u{1f}",
            "slash/and#hash: colon",
        ];
        for (case, odd) in [
            ("short", None),
            ("long", None),
            ("é", Some("é")),
            ("del", Some("\u{7f}")),
        ] {
            let mut c = base.clone();
            let count = if case == "short" { 1 } else { 64 };
            for i in 0..count {
                let mut host = tricky[i % tricky.len()].to_string();
                if let (Some(odd), 7) = (odd, i) {
                    host.push_str(odd);
                }
                c.action_sets.push(object::ActionSet::for_tests(
                    &format!("set-{i}"),
                    &host,
                    actions.clone(),
                ));
            }
            // The value is written after what the buffer holds, which a fallback keeps.
            let mut want = String::from("key: ");
            string_value(&mut want, &c.to_json()).unwrap();
            assert_eq!(case == "short", c.to_json().len() < LONG_FLOW, "{case}");
            // The text written escaped reads back as the JSON (each escape a backslash before one
            // character of it).
            let escaped =
                String::from_utf8(c.json_with(super::InDoubleQuotes, 1).unwrap()).unwrap();
            let mut unescaped = String::new();
            let mut chars = escaped.chars();
            while let Some(ch) = chars.next() {
                unescaped.extend(if ch == '\\' { chars.next() } else { Some(ch) });
            }
            assert_eq!(unescaped, c.to_json(), "{case}");
            assert_eq!(
                super::unescaped_is_long(&escaped),
                c.to_json().chars().count() >= LONG_FLOW,
                "{case}"
            );
            for parts in [0, 1, 2, 3, c.action_sets.len() + 2] {
                let mut got = String::from("key: ");
                super::wasm_json_value_in(&mut got, &c, parts).unwrap();
                assert_eq!(got, want, "{case}, {parts} parts");
            }
        }
    }

    /// The length of escaped JSON is read in characters of the JSON, each escape pair counting one,
    /// on both sides of the threshold and past twice its length (where no pair is counted).
    #[test]
    fn escaped_json_length() {
        for (pairs, chars) in [
            (1000, LONG_FLOW - 1),
            (1000, LONG_FLOW),
            (0, LONG_FLOW - 1),
            (LONG_FLOW - 1, LONG_FLOW - 1),
            (LONG_FLOW, LONG_FLOW),
        ] {
            let escaped = "\\\"".repeat(pairs) + &"a".repeat(chars - pairs);
            assert_eq!(
                super::unescaped_is_long(&escaped),
                chars >= LONG_FLOW,
                "{pairs} pairs, {chars} characters"
            );
        }
    }

    /// A small deterministic generator of numbers below `n` (a linear congruential one).
    fn lcg(mut seed: u64) -> impl FnMut(usize) -> usize {
        move |n| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        }
    }

    /// A value `certainly_plain_value` lets through is written by serde-saphyr as it is: random
    /// texts built from the bytes that matter (`:`, spaces, `#`, quotes, digits, letters of the
    /// YAML words, a non-ASCII letter), most of them starting with a letter.
    #[test]
    fn certainly_plain_values_are_written_plain() {
        const PIECES: &[&str] = &[
            "a", "Z", "x", "e", "0", "7", ":", " ", "#", "-", "/", ".", "'", "\"", "é", "on", "No",
            "true", "null", "~", "[", "{", "0x", "1e", ": ", " #",
        ];
        let mut next = lcg(11);
        let (mut plain, mut hashes) = (0, 0);
        for _ in 0..20_000 {
            let mut s = String::new();
            if next(4) > 0 {
                s.push(['k', 'Y', 'o', 'n'][next(4)]);
            }
            for _ in 0..next(8) {
                s.push_str(PIECES[next(PIECES.len())]);
            }
            if super::certainly_plain_value(&s) {
                plain += 1;
                hashes += usize::from(s.contains('#'));
                let mut out = String::new();
                super::saphyr_value(&mut out, &s).unwrap();
                assert_eq!(out, s, "{s:?}");
            }
        }
        // Texts with a `#` not after a space among them (`route#rule-1`).
        assert!(
            plain > 2_000 && hashes > 200,
            "{plain} plain texts, {hashes} with #"
        );
    }

    /// Long JSON-like texts take the short way, and give serde-saphyr's text: quotes, backslashes
    /// (JSON's own escapes), `#`, `: ` and every other printable ASCII byte, at either start.
    #[test]
    fn long_flow_texts_are_written_as_serde_saphyr_does() {
        let printable: Vec<char> = (0x20u8..0x7f).map(char::from).collect();
        let mut next = lcg(7);
        for case in 0..40 {
            let open = if case % 2 == 0 { '{' } else { '[' };
            let len = 4096 + next(3000);
            let mut s = String::from(open);
            while s.len() < len {
                // JSON's texture: quotes and escapes often, anything printable besides.
                s.push(match next(6) {
                    0 => '"',
                    1 => '\\',
                    2 => ':',
                    _ => printable[next(printable.len())],
                });
            }
            assert!(long_flow_text(&s));
            let mut fast = String::new();
            Scalars::default().value(&mut fast, &s).unwrap();
            let doc = saphyr_document(&serde_json::Value::String(s.clone())).unwrap();
            assert_eq!(fast, doc.strip_suffix('\n').unwrap(), "case {case}");
        }
        // Not taken: short, another start, a byte outside printable ASCII.
        let long = |head: &str, tail: &str| format!("{head}{}{tail}", "a".repeat(5000));
        assert!(!long_flow_text("{\"a\":1}"));
        assert!(!long_flow_text(&long("a{", "")));
        assert!(!long_flow_text(&long("{", "\t")));
        assert!(!long_flow_text(&long("{", "é")));
    }

    /// A Limitador's text is its frame with each limit's item in between, whatever the number of
    /// limits (the parallel parts of a large one included), and is what the tree's text is.
    #[test]
    fn limitador_text_is_its_frame_and_items() {
        use crate::generate::object::{LimitadorCarrier, LimitadorLimit, Object};
        for n in [1usize, 3, 20_000] {
            let limits: Vec<LimitadorLimit> = (0..n)
                .map(|i| LimitadorLimit {
                    conditions: vec![format!("descriptors[0][\"id-{i}\"] == \"1\"")],
                    max_value: i as i64 + 1,
                    name: if i % 2 == 0 {
                        format!("l{i}")
                    } else {
                        String::new()
                    },
                    namespace: std::sync::Arc::from(format!("ns/r{}", i % 7).as_str()),
                    seconds: 60,
                    variables: if i % 3 == 0 {
                        vec!["descriptors[0][\"user\"]".into()]
                    } else {
                        vec![]
                    },
                })
                .collect();
            let carrier = LimitadorCarrier::for_tests(limits);
            let (head, col, tail) = limitador_frame(&carrier).unwrap();
            let mut parts = head;
            for l in &carrier.limits {
                parts.push_str(&limit_item(l, col).unwrap());
            }
            parts.push_str(&tail);
            let o = Object::Limitador(Box::new(carrier));
            let whole = yaml_objects(std::slice::from_ref(&o)).unwrap();
            assert_eq!(parts, whole, "{n} limits");
            assert_eq!(whole, yaml(&[o.to_value()]).unwrap(), "{n} limits");
        }
    }

    use super::*;
    use proptest::prelude::*;

    #[test]
    fn documents_are_separated_and_ambiguous_scalars_quoted() {
        let objs = vec![
            json!({"kind": "A", "metadata": {"labels": {"kuadrant.io/managed": "true"}}}),
            json!({"kind": "B", "value": "line1\nline2", "n": 1}),
        ];
        let y = yaml(&objs).unwrap();
        assert!(y.contains("\n---\nkind: B\n"), "{y}");
        assert!(
            y.contains("kuadrant.io/managed: 'true'")
                || y.contains("kuadrant.io/managed: \"true\""),
            "{y}"
        );
        assert!(!y.contains('|'), "no block scalars: {y}");
        let back: Vec<Value> = y
            .split("---\n")
            .map(|d| serde_saphyr::from_str::<Value>(d).unwrap())
            .collect();
        assert_eq!(back, objs);
        assert!(json_list(&objs).starts_with("{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\""));
        assert_eq!(yaml(&[]).unwrap(), "");
    }

    /// Strings that YAML may read as something else, or that need quoting or escaping.
    const NASTY: &[&str] = &[
        "",
        " ",
        " x",
        "x ",
        "-",
        "- x",
        "-x",
        "?",
        "? x",
        ":",
        "a:",
        "a: b",
        "a:b",
        "#",
        "a #b",
        "a#b",
        "yes",
        "Yes",
        "NO",
        "y",
        "N",
        "on",
        "OFF",
        "true",
        "False",
        "null",
        "NULL",
        "~",
        "nan",
        ".nan",
        "inf",
        "-.inf",
        "0755",
        "0x1F",
        "0o17",
        "0b101",
        "1e3",
        "1_000",
        "1:30",
        "2024-01-01",
        "2001-12-14t21:59:43.10-05:00",
        "12",
        "-3",
        "+4",
        "3.",
        ".5",
        "*.x",
        "&a",
        "!tag",
        "|",
        ">",
        "'q'",
        "\"q\"",
        "%x",
        "@x",
        "`x",
        "[a]",
        "{a}",
        "a,b",
        "<<",
        "=",
        "---",
        "...",
        "--- x",
        "line1\nline2",
        "tab\tx",
        "cr\rx",
        "nul\u{0}",
        "bell\u{7}",
        "\u{feff}bom",
        "é",
        "日本語",
        "emoji 🚀",
        "\u{85}nel",
        "\u{2028}",
        "back\\slash",
        "request.host == 'a.example.com'",
        "kuadrant.io/managed",
        "x-y_z.w/v",
        "api.toystore.com",
        "*",
        "a\n",
        "\n",
        "a ",
        "x:\n y",
        "0e5",
        "1e",
        "12ab",
        "0b1a",
        "0x1g",
        "0o7z",
        "1ee3",
        "3f2b",
        "06247070a5",
        "2024a",
        "a:b",
        "a:b:",
        "a:",
        "x(y)",
        "a 'b'",
        "ab #c",
        "ab# c",
        "a\"b",
        "a{b}",
        "a [b]",
        "a,b c",
        "a*b",
        "Yes x",
        "on ",
        "y:z",
    ];

    fn string() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => proptest::sample::select(NASTY).prop_map(str::to_string),
            2 => "[a-zA-Z0-9 ._/:#'\"*&!,\\-\\n]{0,12}",
            1 => any::<String>(),
            1 => (proptest::sample::select(NASTY), proptest::sample::select(NASTY))
                .prop_map(|(a, b)| format!("{a}{b}")),
        ]
    }

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            string().prop_map(Value::String),
        ];
        leaf.prop_recursive(5, 48, 5, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                proptest::collection::vec((string(), inner), 0..5)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn writer_matches_serde_saphyr(v in value()) {
            prop_assert_eq!(yaml_document(&v).unwrap(), saphyr_document(&v).unwrap());
        }

        /// The serializer the typed parts are written through writes what the tree writer writes
        /// for their trees (whose text the tests above compare with serde-saphyr's): as a sequence
        /// item and as a mapping value, at any column.
        #[test]
        fn serializer_writes_what_the_tree_writer_writes(v in value(), col in 0usize..7) {
            let items = vec![v.clone(), json!({ "k": v })];
            let mut tree = String::new();
            write_seq(&mut tree, &mut Scalars::default(), &items, col, false).unwrap();
            let mut typed = String::new();
            let mut sc = Scalars::default();
            for item in &items {
                write_item(&mut typed, &mut sc, item, col).unwrap();
            }
            prop_assert_eq!(typed, tree);
        }

        #[test]
        fn documents_match_serde_saphyr(vs in proptest::collection::vec(value(), 0..4)) {
            let mut want = String::new();
            for (i, v) in vs.iter().enumerate() {
                if i > 0 {
                    want.push_str("---\n");
                }
                want.push_str(&saphyr_document(v).unwrap());
            }
            prop_assert_eq!(yaml(&vs).unwrap(), want);
        }

        #[test]
        fn streamed_json_list_is_serde_jsons_pretty_list(
            vs in proptest::collection::vec(value(), 0..6),
        ) {
            let objects: Vec<Object> = vs.iter().cloned().map(Object::Tree).collect();
            let mut out = Vec::new();
            write_json_list(&objects, &mut out).unwrap();
            prop_assert_eq!(String::from_utf8(out).unwrap(), json_list(&vs));
            let mut out = Vec::new();
            write_kubectl_list(&objects, &mut out).unwrap();
            let list = json!({
                "apiVersion": "v1",
                "items": vs,
                "kind": "List",
                "metadata": {"resourceVersion": ""},
            });
            // serde_json's text, with the characters a terminal must not get raw escaped.
            let want =
                crate::render::terminal::json(serde_json::to_string_pretty(&list).unwrap()) + "\n";
            prop_assert_eq!(String::from_utf8(out).unwrap(), want);
        }
    }

    /// Objects for the streaming tests: small trees, each its own document.
    fn numbered(n: usize) -> Vec<Object> {
        (0..n)
            .map(|i| Object::Tree(json!({"kind": "ConfigMap", "metadata": {"name": format!("c{i}")}, "data": {"i": i}})))
            .collect()
    }

    /// Parts rendered ahead of the writing give the text of one rendering, in order, whatever
    /// the part size (one object a part, a few, all in one).
    #[test]
    fn parts_written_in_order_are_the_whole_text() {
        let objects = numbered(200);
        let want = yaml_objects(&objects).unwrap();
        for part in [1, 64, 1_000, usize::MAX] {
            let mut out = Vec::new();
            write_streamed_of(&objects, part, &mut out, |o: &mut String, r| {
                render_part(o, &objects, r)
            })
            .unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), want, "part {part}");
        }
    }

    /// A writer that fails (a closed pipe) stops the rendering: the error comes back, nothing
    /// waits for ever on the parts rendered ahead.
    #[test]
    fn a_failing_writer_stops_the_parts() {
        struct Closes(usize);
        impl std::io::Write for Closes {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                if self.0 == 0 {
                    return Err(std::io::ErrorKind::BrokenPipe.into());
                }
                let n = b.len().min(self.0);
                self.0 -= n;
                Ok(n)
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let objects = numbered(500);
        for after in [0, 10, 5_000] {
            let got = write_streamed_of(&objects, 1, &mut Closes(after), |o: &mut String, r| {
                render_part(o, &objects, r)
            });
            assert!(matches!(got, Err(WriteError::Io(_))), "{after}: {got:?}");
        }
    }

    /// A rendering failure in a later part stops the writing after the parts before it.
    #[test]
    fn a_failing_part_stops_the_writing_there() {
        let objects = numbered(300);
        let mut out = Vec::new();
        let got = write_streamed_of(&objects, 1, &mut out, |o: &mut String, r| {
            if r.contains(&250) {
                return Err("object 250".into());
            }
            render_part(o, &objects, r)
        });
        assert!(
            matches!(&got, Err(WriteError::Render(m)) if m == "object 250"),
            "{got:?}"
        );
        let want = yaml_objects(&objects[..250]).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), want);
    }

    #[test]
    fn nasty_scalars_match_serde_saphyr() {
        for s in NASTY {
            let v = json!({ *s: [s, {*s: s}], "k": [[s], []], "e": {} });
            assert_eq!(
                yaml_document(&v).unwrap(),
                saphyr_document(&v).unwrap(),
                "{s:?}"
            );
            let v = json!(s);
            assert_eq!(
                yaml_document(&v).unwrap(),
                saphyr_document(&v).unwrap(),
                "{s:?}"
            );
        }
    }
}
