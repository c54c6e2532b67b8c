//! The CEL conformance corpus (testdata/cel/corpus.jsonl, provenance in testdata/cel/README.md):
//! every expression through `policyctl::validate` in its environment, compared with the verdict
//! and, where the record carries one, cel-go's error text (exactly, or ignoring whitespace as cel-go's
//! own parser and checker tests compare).

use policyctl::{CelEnv, validate};
use serde_json::Value;

/// How a record's error text is compared with ours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Compare {
    /// The verdict only (valid or not).
    Verdict,
    /// The error text exactly.
    Exact,
    /// The error text, whitespace ignored.
    Whitespace,
    /// Not compared: a known gap (the record's `gap` says which).
    None,
}

/// A record's `compare`; `None` for a mode this runner does not know, which fails the corpus
/// rather than being taken as "anything goes".
fn compare_mode(record: &Value) -> Option<Compare> {
    match record["compare"].as_str()? {
        "verdict" => Some(Compare::Verdict),
        "exact" => Some(Compare::Exact),
        "whitespace" => Some(Compare::Whitespace),
        "none" => Some(Compare::None),
        _ => None,
    }
}

#[test]
fn an_unknown_compare_mode_is_refused() {
    assert_eq!(
        compare_mode(&serde_json::json!({"compare": "exact"})),
        Some(Compare::Exact)
    );
    assert_eq!(
        compare_mode(&serde_json::json!({"compare": "exactly"})),
        None
    );
    assert_eq!(compare_mode(&serde_json::json!({})), None);
}

fn strip(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, ' ' | '\n' | '\t'))
        .collect()
}

#[test]
fn corpus_matches_cel_go() {
    // The ANTLR parser recurses per nesting level; unoptimised test builds need more than the default
    // 2 MiB test-thread stack for the deepest records (the 101-operand error-cap case).
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(run_corpus)
        .unwrap()
        .join()
        .unwrap();
}

fn run_corpus() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/cel/corpus.jsonl"
    ))
    .unwrap();
    let mut failures = Vec::new();
    let mut count = 0;
    let mut skipped = 0;
    for (n, line) in text.lines().enumerate() {
        let r: Value = serde_json::from_str(line).unwrap();
        count += 1;
        let Some(mode) = compare_mode(&r) else {
            failures.push(format!(
                "line {}: unknown compare mode {} (expected verdict, exact, whitespace or none)",
                n + 1,
                r["compare"]
            ));
            continue;
        };
        if mode == Compare::None {
            // A known gap (the record's `gap` says which); kept so the expectation is not lost.
            skipped += 1;
            continue;
        }
        let expr = r["expr"].as_str().unwrap();
        let env = CelEnv {
            auth: r["auth"].as_bool().unwrap(),
            ratelimit: r["ratelimit"].as_bool().unwrap(),
        };
        let got = validate(expr, env);
        let want_valid = r["valid"].as_bool().unwrap();
        let ok = match (&got, r["error"].as_str()) {
            (Ok(()), _) => want_valid,
            (Err(_), None) => !want_valid,
            (Err(e), Some(want)) => match mode {
                Compare::Exact => e == want,
                Compare::Whitespace => strip(e) == strip(want),
                Compare::Verdict | Compare::None => true,
            },
        };
        if !ok {
            failures.push(format!(
                "line {}: {expr:?} ({}) expected {} got {:?}",
                n + 1,
                r["source"],
                r["error"]
                    .as_str()
                    .unwrap_or(if want_valid { "valid" } else { "invalid" }),
                got
            ));
        }
    }
    assert!(count >= 3000, "corpus has {count} records");
    assert!(skipped <= 11, "{skipped} records are not asserted");
    assert!(
        failures.is_empty(),
        "{} of {count} disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
