//! `kubectl get -o yaml|json` dumps of every modelled kind load exactly like the same objects written
//! one per document: a List whose `items` come before `kind` (kubectl sorts a YAML dump's keys), a
//! JSON List (kubectl's four-space indent), a List inside a List, and `diff --against` and
//! `status --respect-status` on them.

use crate::common::policyctl;
use serde_json::Value;

const ESTATE: &str = "testdata/dumps/estate.yaml";

/// The estate's objects, one value each.
fn objects() -> Vec<Value> {
    let text = std::fs::read_to_string(ESTATE).unwrap();
    serde_saphyr::from_multiple::<Value>(&text)
        .unwrap()
        .into_iter()
        .filter(|v| v.is_object())
        .collect()
}

/// A value with every mapping's keys sorted, as kubectl's YAML printer writes them.
fn sorted(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted(&m[k])))
                    .collect(),
            )
        }
        Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// A List as `kubectl get -o yaml` writes it: `apiVersion`, `items`, `kind`, `metadata`.
fn list(items: Vec<Value>) -> Value {
    sorted(&serde_json::json!({
        "apiVersion": "v1",
        "items": items,
        "kind": "List",
        "metadata": {"resourceVersion": ""},
    }))
}

fn yaml(v: &Value) -> String {
    serde_saphyr::to_string(v).unwrap()
}

/// JSON as kubectl prints it (four-space indent).
fn json(v: &Value) -> String {
    let mut out = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
    serde::Serialize::serialize(v, &mut ser).unwrap();
    String::from_utf8(out).unwrap() + "\n"
}

/// stdout and exit code of a command on one input file.
fn run(args: &[&str], file: &str) -> (String, i32) {
    let out = policyctl()
        .args(args)
        .args(["-f", file])
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn dumps_load_like_documents() {
    let dir = tempfile::tempdir().unwrap();
    let objects = objects();
    assert!(objects.len() >= 20, "one object of every modelled kind");
    let write = |name: &str, text: String| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    };
    let (half, rest) = objects.split_at(objects.len() / 2);
    let dumps = [
        write("dump.yaml", yaml(&list(objects.clone()))),
        write("dump.json", json(&list(objects.clone()))),
        // A List inside a List (kubectl flattens it), the rest of the objects after it.
        write(
            "nested.yaml",
            yaml(&list(
                std::iter::once(list(half.to_vec()))
                    .chain(rest.iter().cloned())
                    .collect(),
            )),
        ),
        // `kind` first, `items` last, the objects' own keys as written.
        write(
            "kind-first.json",
            serde_json::to_string(&serde_json::json!({"kind": "GatewayList", "apiVersion": "gateway.networking.k8s.io/v1", "metadata": {}, "items": objects})).unwrap(),
        ),
    ];
    for version in ["1.4", "1.5"] {
        let v = ["--kuadrant-version", version];
        for cmd in [
            &["compute", "-o", "yaml"][..],
            &["status", "-o", "yaml", "--respect-status"],
            &["status", "--routes"],
            &["graph", "-o", "json"],
        ] {
            let args: Vec<&str> = cmd.iter().chain(v.iter()).copied().collect();
            let expected = run(&args, ESTATE);
            assert!(!expected.0.is_empty(), "{cmd:?}");
            for d in &dumps {
                assert_eq!(run(&args, d), expected, "{cmd:?} {version} on {d}");
            }
        }
        // The same findings (their positions aside): the summary line after its document count.
        let summary = |file: &str| {
            let (out, code) = run(&["lint", "--kuadrant-version", version], file);
            let last = out.lines().last().unwrap_or_default().to_string();
            let counts = last.split_once("documents, ").map(|(_, c)| c.to_string());
            (counts, code)
        };
        let expected = summary(ESTATE);
        assert!(
            expected
                .0
                .as_deref()
                .is_some_and(|c| c.starts_with("20 objects")),
            "{expected:?}"
        );
        for d in &dumps {
            assert_eq!(summary(d), expected, "lint {version} on {d}");
        }
    }
}

/// `diff --against` a dump of what the operator applied reads it as the same objects one per
/// document: the same differences and exit code, whether the dump is YAML or JSON and whether the
/// input itself is a dump.
#[test]
fn diff_against_a_dump_reads_it_like_documents() {
    let dir = tempfile::tempdir().unwrap();
    let mut generated = String::new();
    // Every object the operator and the extension controllers create.
    for only in [&[][..], &["--only", "extension"]] {
        let args: Vec<&str> = ["compute", "-o", "yaml"]
            .iter()
            .chain(only)
            .copied()
            .collect();
        let (text, code) = run(&args, ESTATE);
        assert_eq!(code, 0);
        generated.push_str("---\n");
        generated.push_str(&text);
    }
    let applied: Vec<Value> = serde_saphyr::from_multiple::<Value>(&generated)
        .unwrap()
        .into_iter()
        .filter(|v| v.is_object())
        .collect();
    assert!(applied.len() > 5);
    let documents = dir.path().join("applied-documents.yaml");
    std::fs::write(&documents, &generated).unwrap();
    let yaml_dump = dir.path().join("applied.yaml");
    let json_dump = dir.path().join("applied.json");
    std::fs::write(&yaml_dump, yaml(&list(applied.clone()))).unwrap();
    std::fs::write(&json_dump, json(&list(applied))).unwrap();
    let input_dump = dir.path().join("input.json");
    std::fs::write(&input_dump, json(&list(objects()))).unwrap();
    let diff = |input: &str, against: &std::path::Path| {
        let out = policyctl()
            .args(["diff", "-o", "stat", "-f", input, "--against"])
            .arg(against)
            .output()
            .unwrap();
        (String::from_utf8(out.stdout).unwrap(), out.status.code())
    };
    let expected = diff(ESTATE, &documents);
    assert!(expected.0.contains("9 unchanged"), "{expected:?}");
    for input in [ESTATE.to_string(), input_dump.display().to_string()] {
        for against in [&documents, &yaml_dump, &json_dump] {
            assert_eq!(
                diff(&input, against),
                expected,
                "{input} against {}",
                against.display()
            );
        }
    }
}
