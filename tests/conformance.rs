//! Schema conformance: `lint` rejects exactly the documents the upstream CRD schemas reject, at the
//! line of the offending field, for both releases.
//!
//! The corpus (`tests/conformance/corpus-<release>.json`) is valid documents and mutations of them
//! (unknown fields, wrong types, enums, patterns, bounds, required fields, CRD CEL rules, metadata
//! limits). Its verdicts and lines come from `tests/conformance/oracle.py`, which reads the upstream
//! CRDs itself and judges each document with the `jsonschema` package and Google's CEL
//! implementation (cel-expr-python), not with policyctl; see that file to regenerate it.

use policyctl::diag::{Code, Severity};
use policyctl::{Input, KuadrantVersion, LoadOptions, load};

/// The codes of the API server's refusals at load.
const REFUSALS: &[Code] = &[
    Code::NotAnObject,
    Code::InvalidType,
    Code::MissingField,
    Code::SchemaViolation,
    Code::CelRule,
    Code::InvalidName,
    Code::UnknownField,
    Code::UnknownKindInGroup,
    Code::InvalidMetadata,
];

fn check(release: &str, version: KuadrantVersion) {
    let path = format!(
        "{}/tests/conformance/corpus-{release}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let corpus: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let entries = corpus["entries"].as_array().unwrap();
    assert!(entries.len() > 500, "{} entries", entries.len());
    let mut wrong = Vec::new();
    for e in entries {
        let name = e["name"].as_str().unwrap();
        let text = e["document"].as_str().unwrap();
        let rejected = e["rejected"].as_bool().unwrap();
        let lines: Vec<u64> = e["lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_u64().unwrap())
            .collect();
        let l = load(
            &[Input::Text {
                name: "doc.yaml".into(),
                bytes: text.as_bytes().to_vec(),
            }],
            &LoadOptions {
                version,
                ..LoadOptions::default()
            },
        );
        let refusals: Vec<(Code, usize, String)> = l
            .diagnostics
            .iter()
            // On 1.4, a Gateway API field that only newer CRDs than the release installs declare is
            // kept with a warning (PCTL1018): the release's own CRDs refuse it, as the oracle says.
            .filter(|d| {
                (d.severity == Severity::Error && REFUSALS.contains(&d.code))
                    || d.code == Code::NewerGatewayApiField
            })
            .map(|d| {
                let line = d
                    .primary_span()
                    .and_then(|s| l.sources.position(s))
                    .map_or(0, |p| p.line);
                (d.code, line, d.message.clone())
            })
            .collect();
        if refusals.is_empty() == rejected {
            wrong.push(format!(
                "{name}: oracle {} ({:?}), policyctl {:?}",
                if rejected { "rejects" } else { "accepts" },
                e["errors"],
                refusals
            ));
        } else if rejected
            && !refusals
                .iter()
                .any(|(_, line, _)| lines.contains(&(*line as u64)))
        {
            wrong.push(format!(
                "{name}: oracle rejects at lines {lines:?} ({:?}), policyctl at {refusals:?}",
                e["errors"]
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} documents judged differently:\n{}",
        wrong.len(),
        entries.len(),
        wrong.join("\n")
    );
}

#[test]
fn release_1_4_rejects_what_the_schemas_reject() {
    check("1.4", KuadrantVersion::V1_4);
}

#[test]
fn release_1_5_rejects_what_the_schemas_reject() {
    check("1.5", KuadrantVersion::V1_5);
}
