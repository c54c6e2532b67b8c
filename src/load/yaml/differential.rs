//! The loader against serde-saphyr alone, which is how every document was read before `events.rs`:
//! for every document of the repository's corpora and for generated documents full of what YAML
//! makes tricky, `parse_node_within` gives exactly what `parse_node_serde` gives: the same tree
//! (values, spans, key order) or the same finding (code, message, span). The limits are checked
//! with small ones, where every threshold can be crossed in a few bytes.
//!
//! The block scanner (`block.rs`) is checked against the events' builder on every one of these
//! documents and on perturbed manifests: whenever it takes a document, its tree is the one
//! `events.rs` builds (values, spans, key order), and so serde-saphyr's.

use super::{DOCUMENT, Limits, ParseError, block, events, parse_node_serde, parse_node_within};
use crate::load::node::Node;
use crate::source::SourceId;
use proptest::prelude::*;
use std::path::Path;

/// The loader's reading of `text` within `l`, serde-saphyr's, and whether the event builder took
/// the document. A document the builder does not take is read by `parse_node_serde` itself
/// (`parse_node_within`), which is then both readings: it is read once (alias bombs are slow in a
/// debug build). Read on the 8 MiB stack the loader parses on: a test thread's is too small for
/// serde-saphyr's 64 levels in a debug build.
fn readings(text: &str, l: &Limits) -> (Result<Node, ParseError>, Result<Node, ParseError>, bool) {
    crate::par::with_stack(|| {
        let built = events::tree(SourceId(3), 7, text, l);
        // Whenever the block scanner takes a document, it builds the events' tree.
        if let Some(fast) = block::tree(SourceId(3), 7, text, l) {
            assert!(
                matches!(&built, events::Reading::Taken(t) if *t == fast),
                "the block scanner's tree differs from the events' on {text:?}"
            );
        }
        let taken = matches!(built, events::Reading::Taken(_));
        // A document the builder refuses is read by serde-saphyr here, to compare.
        let decided = !matches!(built, events::Reading::Declined);
        let new = parse_node_within(SourceId(3), 7, text, l);
        let old = if decided {
            parse_node_serde(SourceId(3), 7, text, l)
        } else {
            new.clone()
        };
        (new, old, taken)
    })
}

/// Asserts that both readings agree; returns whether the builder took the document.
pub(super) fn same_within(text: &str, l: &Limits) -> Result<bool, TestCaseError> {
    let (new, old, taken) = readings(text, l);
    prop_assert_eq!(new, old, "{:?}", text);
    Ok(taken)
}

/// [`same_within`] for a manifest document, panicking on a difference.
pub(super) fn same(text: &str) -> bool {
    match same_within(text, &DOCUMENT) {
        Ok(taken) => taken,
        Err(e) => panic!("{e}"),
    }
}

// ---------------------------------------------------------------- the corpora

/// Every file of `dir` (recursively) that the loader would read or that a corpus holds.
fn corpus_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.expect("a readable test corpus");
        let p = entry.path();
        let fuzz_seed = p.components().any(|c| c.as_os_str() == "corpus");
        let manifest = matches!(
            p.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml" | "json")
        );
        // Not a build folder's files (`tests/fuzz/target` once the fuzz targets are built).
        let built = p.components().any(|c| c.as_os_str() == "target");
        if entry.file_type().is_file() && (manifest || fuzz_seed) && !built {
            out.push(p.to_path_buf());
        }
    }
}

/// Every document of every YAML and JSON file under testdata/ and tests/ (fixtures, golden
/// inputs, hostile inputs, the fuzz seeds, the settings and request files), and every document of
/// the schema conformance corpus: both readers agree, and the builder takes most documents.
#[test]
fn every_corpus_document_reads_as_serde_saphyr_reads_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    corpus_files(&root.join("testdata"), &mut files);
    corpus_files(&root.join("tests"), &mut files);
    let (mut docs, mut taken, mut conformance) = (0usize, 0usize, 0usize);
    // Documents of the files (not of the conformance corpus, mostly small flow-style ones) the
    // block scanner takes.
    let mut scanned = 0usize;
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let conformance_corpus = path.parent().and_then(Path::file_name)
            == Some("conformance".as_ref())
            && path.extension() == Some("json".as_ref());
        if !conformance_corpus {
            for c in crate::load::split::documents(&text) {
                docs += 1;
                let doc = &text[c.offset..c.offset + c.len];
                taken += usize::from(same(doc));
                scanned += usize::from(block::tree(SourceId(3), 7, doc, &DOCUMENT).is_some());
            }
        } else {
            // Its documents, not the corpus file itself (1.5 MB of JSON, slow in a debug build).
            let corpus: serde_json::Value = serde_json::from_str(&text).expect("corpus JSON");
            for e in corpus["entries"].as_array().expect("entries") {
                let text = e["document"].as_str().expect("a document");
                conformance += 1;
                taken += usize::from(same(text));
            }
        }
    }
    // testdata/ and tests/ hold 209 such files and 745 documents, the conformance corpus 1,426
    // (both releases); the builder takes all but about 50 of them.
    assert!(files.len() > 150, "{} files", files.len());
    assert!(docs > 600, "{docs} documents in files");
    assert!(conformance > 1000, "{conformance} conformance documents");
    assert!(
        taken * 10 > (docs + conformance) * 9,
        "{taken} of {} documents taken",
        docs + conformance
    );
    // The block scanner takes 683 of the 814 documents of the files (the others are hostile or
    // written to exercise YAML beyond the block subset).
    assert!(
        scanned * 5 > docs * 4,
        "{scanned} of {docs} documents scanned"
    );
}

// ---------------------------------------------------------------- written by hand

/// What YAML makes tricky, one document each: both readers agree on all of them (most are left
/// to serde-saphyr, which is what agreeing means for them), and the finding is the one the user
/// saw before.
#[test]
fn tricky_documents_read_as_serde_saphyr_reads_them() {
    let cases: &[&str] = &[
        // anchors, aliases, merge keys
        "a: &x 1\nb: *x\n",
        "a: &m {x: 1, y: 2}\nb:\n  <<: *m\n  y: 3\n",
        "a: &m {x: 1}\nb: &n {z: 2}\nc:\n  <<: [*m, *n]\n",
        "b:\n  <<: {x: 1}\n  x: 2\n",
        "'<<': 1\n",
        "\"<<\": {a: 1}\n",
        "a: *nowhere\n",
        "a: &x [*x]\n",
        "&r a: b\n",
        "a: &x\nb: *x\n",
        // tags
        "a: !!str 1\n",
        "a: !!int '7'\n",
        "a: !!float 1\n",
        "a: !!bool yes\n",
        "a: !!null ''\n",
        "a: !custom x\n",
        "a: !!map {b: 1}\n",
        "a: !!seq [1]\n",
        "a: !!binary aGVsbG8=\n",
        "!!map {a: 1}\n",
        "%TAG !e! tag:example.com,2000:\n---\na: !e!x 1\n",
        // directives and several documents
        "%YAML 1.2\n---\na: 1\n",
        "%YAML 1.1\n---\na: yes\n",
        "a: 1\n---\nb: 2\n",
        "a: 1\n...\n",
        "a: 1\n...\n---\nb: 2\n---\nc: 3\n",
        "---\na: 1\n",
        "--- {a: 1}\n",
        "",
        "# only a comment\n",
        "---\n",
        "just a scalar\n",
        "'quoted scalar'\n",
        "~\n",
        // flow collections
        "{a: [1, {b: c}], d: {}}\n",
        "[a, b, [c, [d]]]\n",
        "{a, b: }\n",
        "[a: b, c]\n",
        "{\"a\":1,\"b\":[true,false,null]}",
        "{a: 1,}\n",
        "[1, 2,]\n",
        "{a: [1, 2}\n",
        // block scalars
        "a: |\n  x\n  y\n",
        "a: |-\n  x\n\n",
        "a: |+\n  x\n\n",
        "a: >\n  folded\n  text\n\n  para\n",
        "a: >-\n  x\n",
        "a: |2\n    indented\n",
        "a: |\n x\n  y\n",
        "a: |\nb: 1\n",
        // YAML 1.1 booleans, which kubectl reads as booleans
        "a: y\nb: n\nc: on\nd: off\ne: Yes\nf: NO\ng: True\nh: oFF\n",
        "y: 1\nn: 2\non: 3\noff: 4\n",
        "- 'yes'\n- \"no\"\n- yes\n",
        // octal-looking, numbers and other ambiguous scalars
        "a: 0755\nb: 0o755\nc: 08\nd: 0x1F\ne: 0b101\nf: 1_000\ng: 0_7\n",
        "a: 1e3\nb: 1E-3\nc: .5\nd: -.5\ne: +1\nf: -0\ng: 00\n",
        "a: 9223372036854775807\nb: 9223372036854775808\nc: -9223372036854775808\n",
        "a: -9223372036854775809\nb: 18446744073709551616\nc: 0xFFFFFFFFFFFFFFFFF\n",
        "a: .inf\n",
        "a: -.Inf\n",
        "a: .NaN\n",
        "a: 1e999\n",
        "a: inf\nb: nan\nc: Infinity\n",
        "a: 2024-01-01\nb: 12:30:00\nc: 1:30\n",
        "a: null\nb: Null\nc: NULL\nd: ~\ne:\nf: nULL\n",
        "a: '0755'\nb: \"1e3\"\n",
        // duplicate keys, as text and as values
        "a: 1\na: 2\n",
        "a: 1\n'a': 2\n",
        "a: 1\n\"a\": 2\n",
        "1: a\n0x1: b\n",
        "1: a\n01: b\n",
        "1: a\n+1: b\n",
        "0: a\n-0: b\n",
        "1: a\n'1': b\n",
        "yes: a\ntrue: b\n",
        "~: a\nnull: b\n",
        "a: {b: 1, b: 2}\n",
        "- {a: 1, a: 1}\n",
        "? a\n: 1\n? a\n: 2\n",
        // keys that are not text
        "~: a\n",
        ": a\n",
        "null: a\n",
        "? [a]\n: b\n",
        "? {a: 1}\n: b\n",
        "[a]: b\n",
        // syntax errors
        "a:\n  b: 1\n c: 2\n",
        "a: 'unterminated\n",
        "a: \"bad \\q escape\"\n",
        "a:\tb\n",
        "\ta: b\n",
        "a: b: c\n",
        "- a\nb: c\n",
        "a: @b\n",
        "a: `b\n",
        "a: [}\n",
        "\u{feff}a: 1\n",
        "a: \"\\u0000\"\n",
        "a: 1\r\nb: [x,\r\n y]\r\n",
        "é: ü\n日本: 語\n",
    ];
    for text in cases {
        same(text);
    }
}

/// Nesting around the limit of 64 levels, in block and flow style, and far beyond it.
#[test]
fn deep_nesting_reads_as_serde_saphyr_reads_it() {
    for depth in [1, 2, 62, 63, 64, 65, 66, 200, 1000] {
        let mut block = String::new();
        for i in 0..depth {
            block.push_str(&" ".repeat(i));
            block.push_str("a:\n");
        }
        same(&block);
        let mut list = String::new();
        for i in 0..depth {
            list.push_str(&"  ".repeat(i));
            list.push_str("-\n");
        }
        same(&list);
        let flow = format!("a: {}1{}\n", "[".repeat(depth), "]".repeat(depth));
        same(&flow);
        let mixed = format!("a: {}1{}\n", "{b: [".repeat(depth), "]}".repeat(depth));
        same(&mixed);
    }
}

/// Alias bombs (each level copies the one before ten times) stay bounded: refused with the same
/// input-limit finding as before, long before their expansion would cost anything.
#[test]
fn alias_bombs_are_refused_as_before() {
    for levels in [3, 9] {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..levels {
            let p = i - 1;
            text.push_str(&format!(
                "a{i}: &a{i} [{}]\n",
                vec![format!("*a{p}"); 10].join(", ")
            ));
        }
        let (new, old, taken) = readings(&text, &DOCUMENT);
        assert!(!taken);
        assert_eq!(new, old);
        if levels > 3 {
            let e = new.expect_err("an alias bomb is refused");
            assert_eq!(e.code, crate::diag::Code::InputLimit, "{e:?}");
        }
    }
    // A single anchor of 100 values aliased 1,200 times (no nesting): 120,000 copied values.
    let mut text = format!("a: &a [{}]\nb:\n", vec!["1"; 100].join(", "));
    for _ in 0..1_200 {
        text.push_str("- *a\n");
    }
    let (new, old, _) = readings(&text, &DOCUMENT);
    assert_eq!(new, old);
    assert!(new.is_err());
}

// ---------------------------------------------------------------- the limits

/// Limits small enough to be crossed by a few lines.
const SMALL: Limits = Limits {
    nodes: 30,
    events: 50,
    depth: 5,
    aliases: 3,
    anchors: 3,
    scalar_bytes: 60,
    alias_events: 20,
};

/// Over the limit of values, the builder refuses a document itself, as serde-saphyr does (same
/// message and span), unless an open mapping repeats a key: serde-saphyr decides then.
#[test]
fn the_builder_refuses_documents_over_the_values_limit_as_serde_saphyr() {
    let l = &SMALL;
    let over = |text: &str| {
        matches!(
            events::tree(SourceId(3), 7, text, l),
            events::Reading::OverValues(_)
        )
    };
    let list: String = (0..30).map(|i| format!("- {i}\n")).collect();
    let flow = format!(
        "[{}]",
        (0..30)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    for text in [list.clone(), flow] {
        assert!(over(&text), "{text:?}");
        let (new, old, taken) = readings(&text, l);
        assert!(!taken && new.is_err(), "{text:?}");
        assert_eq!(new, old, "{text:?}");
    }
    // 29 items (30 values) are read.
    let (new, _, taken) = readings(&list[..list.len() - "- 29\n".len()], l);
    assert!(taken && new.is_ok());
    // A mapping of 40 keys in a list goes over 60 values at its 29th key's value; with the 21st key
    // a repeat of the first (a large mapping's keys are checked when it ends), it is declined.
    let l = &Limits {
        nodes: 60,
        events: 1000,
        scalar_bytes: 1000,
        ..SMALL
    };
    let nested = |k: usize| -> String {
        let keys: String = (0..40).map(|i| format!("  k{}: v\n", i % k)).collect();
        format!("- x\n-\n{keys}")
    };
    for (k, refused) in [(40, true), (20, false)] {
        let text = nested(k);
        let reading = events::tree(SourceId(3), 7, &text, l);
        assert_eq!(
            matches!(reading, events::Reading::OverValues(_)),
            refused,
            "{text:?}"
        );
        let (new, old, _) = readings(&text, l);
        assert_eq!(new, old, "{text:?}");
        assert!(new.is_err());
    }
}

/// At and around every limit, both readers refuse the same documents with the same finding and
/// read the others alike: the builder gives up before any limit, and serde-saphyr decides.
#[test]
fn every_limit_holds_as_before() {
    let l = &SMALL;
    let mut refused = std::collections::BTreeSet::new();
    let mut check = |text: String| {
        let (new, old, taken) = readings(&text, l);
        assert_eq!(new, old, "{text:?}");
        if let Err(e) = &new
            && e.code == crate::diag::Code::InputLimit
        {
            refused.insert(e.message.clone());
            assert!(!taken, "taken past a limit: {text:?}");
        }
    };
    for n in 1..40 {
        // values (nodes): a list of n scalars is n + 1 nodes and n + 6 events
        check((0..n).map(|i| format!("- {i}\n")).collect());
        // events without values: a list of n empty lists is n + 1 nodes and 2n + 6 events
        check((0..n).map(|_| "- []\n").collect());
        // a mapping of n keys: 2n + 1 nodes
        check((0..n).map(|i| format!("k{i}: v\n")).collect());
        // scalar bytes: n keys of two bytes and values of one, plus one long value
        check(format!(
            "{}z: {}\n",
            (0..n)
                .map(|i| format!("k{}: v\n", i % 10))
                .take(1)
                .collect::<String>(),
            "x".repeat(n * 2)
        ));
    }
    for depth in 1..9 {
        check(format!("a: {}1{}\n", "[".repeat(depth), "]".repeat(depth)));
        let mut block = String::new();
        for i in 0..depth {
            block.push_str(&" ".repeat(i));
            block.push_str("a:\n");
        }
        check(block);
    }
    for n in 1..6 {
        let anchors: String = (0..n).map(|i| format!("a{i}: &x{i} {i}\n")).collect();
        check(anchors.clone());
        check(format!(
            "{anchors}b: [{}]\n",
            (0..n)
                .map(|i| format!("*x{i}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        check(format!("a: &x 1\nb: [{}]\n", vec!["*x"; n].join(", ")));
        check(format!(
            "a: &x [1, 2, 3, 4, 5]\nb: [{}]\n",
            vec!["*x"; n].join(", ")
        ));
    }
    for docs in 1..4 {
        check((0..docs).map(|i| format!("---\nk{i}: v\n")).collect());
    }
    // Every limit was crossed at least once (a message names each).
    let crossed = [
        "values",
        "YAML events",
        "levels deep",
        "MiB",
        "aliases (*name)",
        "anchors (&name)",
        "alias replay",
    ];
    for what in crossed {
        assert!(
            refused.iter().any(|m| m.contains(what)),
            "no document crossed the limit on {what}: {refused:#?}"
        );
    }
}

// ---------------------------------------------------------------- generated documents

/// Scalars of every kind, in both readers.
pub(super) const NASTY: &[&str] = &[
    "",
    " ",
    "a",
    "yes",
    "No",
    "oN",
    "y",
    "~",
    "null",
    "NULL",
    "<<",
    "=",
    "0",
    "-0",
    "+0",
    "00",
    "08",
    "0o8",
    "0x",
    "0xG",
    "0b2",
    "0_1",
    "1_",
    "_1",
    "1__2",
    "1e3",
    "1E+3",
    ".5",
    "5.",
    "-.5",
    "+.5",
    ".",
    "-",
    "+",
    ".inf",
    "-.INF",
    ".NaN",
    "inf",
    "nan",
    "1e999",
    "-1e999",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "340282366920938463463374607431768211456",
    "0x8000000000000000",
    "-0x8000000000000000",
    "1.0e-400",
    "a: b",
    "a #b",
    "#c",
    "- x",
    "'",
    "\"",
    "\\",
    "\t",
    "é",
    "日本",
    "\u{85}",
    "\u{2028}",
    "x\ny",
    " lead",
    "trail ",
    "@at",
    "`tick",
    "%pct",
    "!bang",
    "&amp",
    "*star",
    "|pipe",
    ">gt",
    "{",
    "}",
    "[",
    "]",
    ",",
    "?",
    "? x",
    "---",
    "...",
    "key:",
    "http://x:1",
    "2024-01-01",
    "1:30",
    "0.0.0.0",
    "0755",
    "0o17",
    "0_10",
    "0x_10",
    "1000_1000",
    "Off",
    "N",
];

/// Every scalar of [`NASTY`] as a value, a key and an item, in every style.
#[test]
fn nasty_scalars_read_as_serde_saphyr_reads_them() {
    for s in NASTY {
        for text in [
            format!("k: {s}\n"),
            format!("{s}: v\n"),
            format!("- {s}\n"),
            format!("k: [{s}]\n"),
            format!("{{{s}: v}}\n"),
            format!("k: '{}'\n", s.replace('\'', "''")),
            format!("k: {}\n", serde_json::to_string(s).unwrap_or_default()),
            format!("k: |\n  {s}\n"),
            format!("k: >\n  {s}\n"),
            format!("k: {s}\n{s}: v\n- {s}\n"),
            format!("{s}: 1\n'{}': 2\n", s.replace('\'', "''")),
        ] {
            same(&text);
        }
    }
}

/// A value and how to write it.
#[derive(Debug, Clone)]
enum Doc {
    /// Text and style: plain, single-quoted, double-quoted, literal, folded.
    Scalar(String, u8),
    /// Items, flow style.
    Seq(Vec<Doc>, bool),
    /// Entries (key, key style, value), flow style.
    Map(Vec<(String, u8, Doc)>, bool),
}

fn scalar_text() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::sample::select(NASTY).prop_map(str::to_string),
        "[a-z][a-z0-9.-]{0,8}",
        "[-+]?[0-9._xobXOBeE]{0,6}",
        "[ -~]{0,6}",
        any::<String>().prop_map(|s| s.chars().take(6).collect()),
    ]
}

/// Keys: names, often enough for the builder to take the document, and otherwise drawn from a
/// small set, so that mappings repeat one (as text, or as the same integer written two ways), with
/// merge keys and nulls, or any scalar.
fn key_text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z][a-zA-Z0-9.-]{0,8}",
        2 => proptest::sample::select(&[
            "a", "b", "1", "01", "0x1", "+1", "-0", "0", "yes", "true", "~", "<<", "null", "",
            "a b", "é",
        ][..])
        .prop_map(str::to_string),
        1 => scalar_text(),
    ]
}

fn doc() -> impl Strategy<Value = Doc> {
    let leaf = (scalar_text(), 0u8..5).prop_map(|(s, st)| Doc::Scalar(s, st));
    leaf.prop_recursive(6, 48, 5, |inner| {
        prop_oneof![
            (
                proptest::collection::vec(inner.clone(), 0..5),
                any::<bool>()
            )
                .prop_map(|(v, f)| Doc::Seq(v, f)),
            (
                proptest::collection::vec((key_text(), 0u8..3, inner), 0..5),
                any::<bool>()
            )
                .prop_map(|(v, f)| Doc::Map(v, f)),
        ]
    })
}

/// Writes a [`Doc`] as YAML; `dice` decide what decorates each node (an anchor, an alias in its
/// place, a tag, a merge key), so that the same tree is written plain and decorated.
struct Writer<'d> {
    out: String,
    dice: &'d [u8],
    next: usize,
    anchors: usize,
}

impl Writer<'_> {
    fn roll(&mut self) -> u8 {
        let d = self.dice.get(self.next).copied().unwrap_or(255);
        self.next += 1;
        d
    }

    /// An anchor, alias or tag before a node; true if an alias replaced the node.
    fn decorate(&mut self, flow: bool, collection: bool) -> bool {
        const TAGS: &[&str] = &["!!str", "!!int", "!!float", "!!bool", "!!null", "!x", "!"];
        const COLLECTION_TAGS: &[&str] = &["!!map", "!!seq", "!y"];
        match self.roll() {
            0..=11 => {
                self.out.push_str(&format!("&a{} ", self.anchors));
                self.anchors += 1;
            }
            12..=19 if self.anchors > 0 => {
                let d = usize::from(self.roll());
                self.out.push_str(&format!("*a{}", d % (self.anchors + 1)));
                if !flow {
                    self.out.push(' ');
                }
                return true;
            }
            20..=27 => {
                let d = usize::from(self.roll());
                let tag = if collection {
                    COLLECTION_TAGS[d % COLLECTION_TAGS.len()]
                } else {
                    TAGS[d % TAGS.len()]
                };
                self.out.push_str(tag);
                self.out.push(' ');
            }
            _ => {}
        }
        false
    }

    fn scalar(&mut self, s: &str, style: u8, flow: bool, indent: usize) {
        match style {
            1 => self.out.push_str(&format!("'{}'", s.replace('\'', "''"))),
            2 => self
                .out
                .push_str(&serde_json::to_string(s).unwrap_or_default()),
            3 | 4 if !flow && !s.contains(['\n', '\r']) => {
                let header = match self.roll() % 4 {
                    0 => "-",
                    1 => "+",
                    _ => "",
                };
                self.out.push(if style == 3 { '|' } else { '>' });
                self.out.push_str(header);
                self.out.push('\n');
                self.out.push_str(&" ".repeat(indent + 2));
                self.out.push_str(s);
            }
            _ => self.out.push_str(s),
        }
    }

    fn node(&mut self, d: &Doc, flow: bool, indent: usize) {
        let collection = !matches!(d, Doc::Scalar(..));
        if self.decorate(flow, collection) {
            return;
        }
        let pad = " ".repeat(indent);
        match d {
            Doc::Scalar(s, st) => self.scalar(s, *st, flow, indent),
            Doc::Seq(items, f) if flow || *f || items.is_empty() => {
                self.out.push('[');
                for (i, x) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.node(x, true, indent);
                }
                self.out.push(']');
            }
            Doc::Seq(items, _) => {
                self.out.push('\n');
                for x in items {
                    self.out.push_str(&pad);
                    self.out.push_str("- ");
                    self.node(x, false, indent + 2);
                    self.out.push('\n');
                }
                self.out.pop();
            }
            Doc::Map(entries, f) if flow || *f || entries.is_empty() => {
                self.out.push('{');
                for (i, (k, ks, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.scalar(k, *ks, true, indent);
                    self.out.push_str(": ");
                    self.node(v, true, indent);
                }
                self.out.push('}');
            }
            Doc::Map(entries, _) => {
                self.out.push('\n');
                for (k, ks, v) in entries {
                    self.out.push_str(&pad);
                    if self.roll() < 16 && self.anchors > 0 {
                        let d = usize::from(self.roll());
                        self.out
                            .push_str(&format!("<<: *a{}\n{pad}", d % self.anchors));
                    }
                    self.scalar(k, *ks, true, indent);
                    self.out.push_str(": ");
                    self.node(v, false, indent + 2);
                    self.out.push('\n');
                }
                self.out.pop();
            }
        }
    }
}

/// A document as text: the tree, decorated by `dice` (none when empty), sometimes after a
/// directive or followed by another document.
fn write(d: &Doc, dice: &[u8], frame: u8) -> String {
    let mut w = Writer {
        out: String::new(),
        dice,
        next: 0,
        anchors: 0,
    };
    match frame % 8 {
        0 => w.out.push_str("%YAML 1.2\n---"),
        1 => w.out.push_str("---"),
        _ => w.out.push_str("k:"),
    }
    w.node(d, false, 2);
    w.out.push('\n');
    match frame % 16 {
        3 => w.out.push_str("---\nnext: document\n"),
        4 => w.out.push_str("...\n"),
        5 => w.out.push_str("...\n---\n"),
        _ => {}
    }
    w.out
}

/// A fixture document with a few random edits: broken YAML of every kind.
fn mutated() -> impl Strategy<Value = String> {
    const EDITS: &[&str] = &[
        ":",
        "- ",
        "[",
        "]",
        "{",
        "}",
        "&a ",
        "*a",
        "!!str ",
        "|\n",
        ">\n",
        "'",
        "\"",
        "#",
        "\n",
        "  ",
        "\t",
        "<<: ",
        "~",
        "? ",
        ",",
        "---\n",
        "...\n",
        "%YAML 1.2\n",
        "0x1",
        "1e999",
        ".inf",
        "yes",
        "0755",
    ];
    let base = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: {x: '1', y: \"2\"}\ndata:\n  k: |\n    line\n  n: [1, 2.5, -3, 0755]\n  list:\n  - a: 1\n    b: ~\n  - yes\n";
    proptest::collection::vec(
        (
            0usize..base.len(),
            proptest::sample::select(EDITS),
            any::<bool>(),
        ),
        1..4,
    )
    .prop_map(move |edits| {
        let mut s = base.to_string();
        for (at, what, delete) in edits {
            let mut at = at.min(s.len());
            while !s.is_char_boundary(at) {
                at -= 1;
            }
            if delete {
                let mut end = (at + what.len()).min(s.len());
                while !s.is_char_boundary(end) {
                    end -= 1;
                }
                s.replace_range(at..end, "");
            } else {
                s.insert_str(at, what);
            }
        }
        s
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Random trees, written plain (which the builder mostly takes).
    #[test]
    fn random_documents_read_as_serde_saphyr_reads_them(d in doc(), frame in any::<u8>()) {
        same_within(&write(&d, &[], frame), &DOCUMENT)?;
    }

    /// The same trees with anchors, aliases (some to anchors that do not exist), tags and merge
    /// keys, directives and second documents.
    #[test]
    fn decorated_documents_read_as_serde_saphyr_reads_them(
        d in doc(),
        dice in proptest::collection::vec(any::<u8>(), 0..64),
        frame in any::<u8>(),
    ) {
        let dice: Vec<u8> = dice.into_iter().map(|x| x % 64).collect();
        same_within(&write(&d, &dice, frame), &DOCUMENT)?;
    }

    /// Random trees within the small limits: every limit is crossed somewhere.
    #[test]
    fn random_documents_within_small_limits(
        d in doc(),
        dice in proptest::collection::vec(any::<u8>(), 0..64),
        frame in any::<u8>(),
    ) {
        same_within(&write(&d, &[], frame), &SMALL)?;
        let dice: Vec<u8> = dice.into_iter().map(|x| x % 64).collect();
        same_within(&write(&d, &dice, frame), &SMALL)?;
    }

    #[test]
    fn edited_documents_read_as_serde_saphyr_reads_them(text in mutated()) {
        same_within(&text, &DOCUMENT)?;
    }
}

// ---------------------------------------------------------------- perturbed manifests

/// A manifest in the block style the scanner takes, one entry a line.
const MANIFEST: &str = "\
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata:
  name: p
  labels:
    app: x
  annotations: {}
  methods: [GET, \"POST\", 'x']
  tags: {a: b, \"c\": 1}
spec:
  targetRef:
    kind: HTTPRoute
    name: 'r'
  limits:
    a:
      rates:
      - limit: 10
        window: \"10s\"
      when:
      - predicate: request.path == '/x'  # c
    b:
      rates: []
  list:
  - x
  -
  - y: 1
    z: \"2\"
";

/// What an edit writes: scalars every reader must agree on, and YAML that is not the scanner's.
const WORDS: &[&str] = &[
    "on",
    "yes",
    "null",
    "~",
    "0x1F",
    "'it''s'",
    "\"\\u00e9\"",
    "\"a # b\"",
    "'a # b'",
    "a:b",
    "a: b",
    "http://x:1",
    "-1",
    "-.5",
    "-",
    "- x",
    "{}",
    "[]",
    "[a]",
    "{ }",
    "''",
    "\"\"",
    "'x'y",
    "\"\\t\"",
    "\"\\/\"",
    "\"\\x41\"",
    "\"\\ud800\"",
    "\"\\u00\"",
    ".inf",
    "<<",
    "&a x",
    "*a",
    "!t x",
    "|",
    ">",
    "#",
    "a #b",
    "é",
    "?x",
    ":x",
    "%x",
    "@x",
    "`x",
    "\t",
    " ",
    "yes # c",
    "0755",
    "1e3",
    "k: v",
    "'",
    "\"",
    "[a, b]",
    "{a: b}",
    "[a,b]",
    "[ a ,b ]",
    "[a, [b]]",
    "{a: {b: c}}",
    "[a, ]",
    "{a:b}",
    "{a}",
    "[a: b]",
    "[a b]",
    "[-a]",
];

/// [`MANIFEST`] with one to three edits: indentation, quotes, comments, colons, `- ` nesting,
/// trailing spaces, special keys and values, lines added, repeated or removed.
fn perturbed() -> impl Strategy<Value = String> {
    use proptest::sample::Index;
    proptest::collection::vec((any::<Index>(), 0u8..14, any::<Index>()), 1..4).prop_map(|edits| {
        let mut lines: Vec<String> = MANIFEST.lines().map(str::to_string).collect();
        for (line, kind, pick) in edits {
            if lines.is_empty() {
                break;
            }
            let i = line.index(lines.len());
            let word = *pick.get(WORDS);
            let l = lines[i].clone();
            let colon = l.find(": ").or_else(|| l.strip_suffix(':').map(str::len));
            let (key, value) = match colon {
                Some(j) => (&l[..j], l.get(j + 2..).unwrap_or("")),
                None => (l.as_str(), ""),
            };
            let edited = match kind {
                0 => format!(" {l}"),
                1 => l.strip_prefix(' ').unwrap_or(&l).to_string(),
                2 => format!("{key}: '{}'", value.replace('\'', "''")),
                3 => format!(
                    "{key}: {}",
                    serde_json::to_string(value).unwrap_or_default()
                ),
                4 => format!("{l} # {word}"),
                5 => format!("{key}: {word}"),
                6 => {
                    let indent = key.len() - key.trim_start().len();
                    format!("{}{word}: {value}", &key[..indent])
                }
                7 => {
                    let indent = l.len() - l.trim_start().len();
                    format!("{}- {}", &l[..indent], &l[indent..])
                }
                8 => format!("{l}  "),
                9 => {
                    lines.insert(i, format!("{}{word}", " ".repeat(pick.index(5))));
                    continue;
                }
                10 => {
                    lines.insert(i, l);
                    continue;
                }
                11 => {
                    lines.remove(i);
                    continue;
                }
                12 => {
                    let at = pick.index(l.len() + 1);
                    let at = (0..=at).rev().find(|&k| l.is_char_boundary(k)).unwrap_or(0);
                    format!("{}: {}", &l[..at], &l[at..])
                }
                _ => format!("{l}{word}"),
            };
            lines[i] = edited;
        }
        let mut text = lines.join("\n");
        text.push('\n');
        text
    })
}

/// Whenever the block scanner takes a perturbed manifest, its tree is the events' (checked in
/// `readings`), and the loader reads it as serde-saphyr does; the scanner takes a good share of
/// them and leaves a good share (so that both sides of its line are exercised).
#[test]
fn perturbed_manifests_read_alike() {
    use proptest::test_runner::{Config, TestRunner};
    use std::sync::atomic::{AtomicUsize, Ordering};
    assert!(block::tree(SourceId(3), 7, MANIFEST, &DOCUMENT).is_some());
    let (cases, scanned) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let mut runner = TestRunner::new_with_rng(
        Config {
            cases: 600,
            failure_persistence: None,
            ..Config::default()
        },
        proptest::test_runner::TestRng::deterministic_rng(
            proptest::test_runner::RngAlgorithm::ChaCha,
        ),
    );
    let result = runner.run(&perturbed(), |text| {
        cases.fetch_add(1, Ordering::Relaxed);
        let fast = block::tree(SourceId(3), 7, &text, &DOCUMENT).is_some();
        scanned.fetch_add(usize::from(fast), Ordering::Relaxed);
        same_within(&text, &DOCUMENT)?;
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let (cases, scanned) = (cases.into_inner(), scanned.into_inner());
    // It takes about one in five.
    assert!(
        scanned * 8 > cases && scanned * 8 < cases * 7,
        "{scanned} of {cases} perturbed manifests scanned"
    );
}
