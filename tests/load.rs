//! Loading and validation: every fixture in testdata/invalid/schema declares the diagnostics it must
//! produce (`# expect: CODE line:col`), and hostile inputs end in a diagnostic, never a panic.

use crate::common;
use common::found;
use policyctl::diag::Code;
use policyctl::{Input, LoadOptions, Loaded, load};
use std::path::{Path, PathBuf};

fn load_paths(paths: &[PathBuf]) -> Loaded {
    let inputs: Vec<Input> = paths.iter().cloned().map(Input::Path).collect();
    load(&inputs, &LoadOptions::default())
}

fn load_text(name: &str, text: &[u8]) -> Loaded {
    load(
        &[Input::Text {
            name: name.into(),
            bytes: text.to_vec(),
        }],
        &LoadOptions::default(),
    )
}

fn codes(l: &Loaded) -> Vec<Code> {
    l.diagnostics.iter().map(|d| d.code).collect()
}

#[test]
fn invalid_fixtures_report_exact_code_and_position() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/invalid/schema");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "fixtures missing");
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let mut expected: Vec<String> = text
            .lines()
            .filter_map(|l| l.strip_prefix("# expect: "))
            .map(str::to_string)
            .collect();
        expected.sort();
        assert!(
            !expected.is_empty(),
            "{} has no `# expect:` line",
            f.display()
        );
        let l = load_paths(std::slice::from_ref(&f));
        assert_eq!(found(&l), expected, "{}", f.display());
    }
}

#[test]
fn example_estate_is_clean() {
    let l = load_paths(&[Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/examples")]);
    assert!(l.diagnostics.is_empty(), "{:?}", found(&l));
    assert_eq!(l.model.gateways.len(), 1);
    assert_eq!(l.model.routes.len(), 2);
    assert_eq!(l.model.policies.len(), 3);
    assert_eq!(l.files.len(), 4);
}

#[test]
fn crd_defaults_are_applied() {
    let l = load_text(
        "r.yaml",
        br#"
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: ns}
spec:
  parentRefs: [{name: gw}]
  rules:
  - matches: [{method: GET}]
  - {}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: g, namespace: ns}
spec:
  rules:
  - matches: [{method: {service: svc}}]
"#,
    );
    assert!(l.diagnostics.is_empty(), "{:?}", found(&l));
    let r = &l.model.routes[0];
    let pr = &r.spec.parent_refs[0];
    assert_eq!(
        (pr.group.as_str(), pr.kind.as_str()),
        ("gateway.networking.k8s.io", "Gateway")
    );
    assert_eq!(
        pr.namespace, None,
        "namespace defaults to the route's at use"
    );
    use policyctl::{PathMatchType, RuleMatches};
    let RuleMatches::Http(m0) = &r.spec.rules[0].matches else {
        panic!()
    };
    assert_eq!(m0[0].path.kind, PathMatchType::PathPrefix);
    assert_eq!(m0[0].path.value, "/");
    let RuleMatches::Http(m1) = &r.spec.rules[1].matches else {
        panic!()
    };
    assert_eq!(
        m1.len(),
        1,
        "absent matches default to one PathPrefix / match"
    );
    let g = &l.model.routes[1];
    let RuleMatches::Grpc(gm) = &g.spec.rules[0].matches else {
        panic!()
    };
    assert_eq!(gm[0].method.as_ref().unwrap().kind, "Exact");
}

#[test]
fn lists_json_and_file_order_independence() {
    let a = br#"{"apiVersion":"v1","kind":"List","items":[
      {"apiVersion":"gateway.networking.k8s.io/v1","kind":"GatewayClass","metadata":{"name":"b"},"spec":{"controllerName":"example.com/x"}},
      {"apiVersion":"gateway.networking.k8s.io/v1","kind":"GatewayClass","metadata":{"name":"a"},"spec":{"controllerName":"example.com/y"}}]}"#;
    let l = load_text("list.json", a);
    assert!(l.diagnostics.is_empty(), "{:?}", found(&l));
    let names: Vec<_> = l
        .model
        .gateway_classes
        .iter()
        .map(|c| c.meta.name.as_str())
        .collect();
    assert_eq!(names, ["a", "b"], "objects are kept in canonical order");
}

#[test]
fn unknown_kinds_are_counted_and_skipped() {
    let l = load_text(
        "cm.yaml",
        b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n---\n---\n# only a comment\n",
    );
    assert_eq!(codes(&l), [Code::UnknownKind]);
    assert_eq!(l.model.skipped.len(), 1);
    assert_eq!(l.documents, 1, "empty documents are not counted");
}

#[test]
fn alias_bomb_is_refused() {
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/hostile/alias-bomb.yaml");
    let l = load_paths(&[f]);
    assert_eq!(codes(&l), [Code::InputLimit], "{:?}", found(&l));
}

#[test]
fn deep_nesting_is_refused() {
    let depth = 10_000;
    let mut s = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata: ");
    s.push_str(&"[".repeat(depth));
    s.push_str(&"]".repeat(depth));
    s.push('\n');
    let l = load_text("deep.yaml", s.as_bytes());
    assert_eq!(codes(&l), [Code::InputLimit], "{:?}", found(&l));

    let mut b = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\ndata:\n");
    for i in 0..depth {
        b.push_str(&" ".repeat(i.min(200)));
        b.push_str("- \n");
    }
    let l = load_text("deep-block.yaml", b.as_bytes());
    assert!(!l.diagnostics.is_empty());
}

#[test]
fn invalid_utf8_and_binary_are_reported() {
    let l = load_text(
        "latin1.yaml",
        b"apiVersion: v1\nkind: Namespace\nmetadata: {name: caf\xe9}\n",
    );
    assert_eq!(found(&l), ["PCTL1005 3:21"]);
    let l = load_text("blob.bin", &[0x7f, b'E', b'L', b'F', 0, 0, 1, 2]);
    assert_eq!(codes(&l), [Code::UnreadableInput]);
}

#[test]
fn wrong_types_everywhere_end_in_diagnostics() {
    let f =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/hostile/wrong-types-everywhere.yaml");
    let l = load_paths(&[f]);
    assert_eq!(l.model.object_count(), 0);
    assert_eq!(l.diagnostics.len(), 12, "{:?}", found(&l));
    assert!(
        !l.diagnostics.has_trouble(),
        "type errors are findings, not trouble"
    );
}

#[test]
fn huge_scalar_and_many_documents() {
    let big = "x".repeat(50 * 1024 * 1024);
    let s =
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: big}}\ndata: {{a: {big}}}\n");
    let l = load_text("big.yaml", s.as_bytes());
    assert_eq!(codes(&l), [Code::UnknownKind]);

    let mut many = String::new();
    for i in 0..10_000 {
        many.push_str(&format!(
            "---\napiVersion: v1\nkind: Namespace\nmetadata: {{name: ns-{i}}}\n"
        ));
    }
    let l = load_text("many.yaml", many.as_bytes());
    assert!(l.diagnostics.is_empty());
    assert_eq!(l.model.namespaces.len(), 10_000);
}

#[cfg(unix)]
#[test]
fn symlink_loop_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("a")).unwrap();
    std::os::unix::fs::symlink(dir.path(), dir.path().join("a/loop")).unwrap();
    std::fs::write(
        dir.path().join("a/ns.yaml"),
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n",
    )
    .unwrap();
    let l = load_paths(&[dir.path().to_path_buf()]);
    assert_eq!(codes(&l), [Code::UnreadableInput]);
    assert_eq!(l.model.namespaces.len(), 1, "the rest is still read");
}

#[test]
fn missing_path_is_trouble() {
    let l = load_paths(&[PathBuf::from("/nonexistent/policyctl")]);
    assert!(l.diagnostics.has_trouble());
}

/// Two definitions of one object in two files: the same one is kept and the same diagnostic given
/// whatever the files are called and in whichever order they are passed (issue 16).
#[test]
fn duplicate_objects_do_not_depend_on_file_names_or_order() {
    let gc = |controller: &str| {
        format!(
            "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata:\n  name: istio\nspec:\n  controllerName: {controller}\n"
        )
    };
    let dir = tempfile::tempdir().unwrap();
    let mut results = Vec::new();
    for (first, second) in [("a.yaml", "b.yaml"), ("b.yaml", "a.yaml")] {
        std::fs::write(dir.path().join(first), gc("example.com/zzz")).unwrap();
        std::fs::write(dir.path().join(second), gc("example.com/aaa")).unwrap();
        for order in [[first, second], [second, first]] {
            let paths: Vec<PathBuf> = order.iter().map(|f| dir.path().join(f)).collect();
            let l = load_paths(&paths);
            assert_eq!(codes(&l), [Code::DuplicateObject]);
            let controllers: Vec<_> = l
                .model
                .gateway_classes
                .iter()
                .map(|c| c.spec.controller_name.clone())
                .collect();
            results.push(controllers);
        }
    }
    assert!(
        results.iter().all(|r| r == &["example.com/aaa"]),
        "{results:?}"
    );
}

/// A document that is not valid YAML is a syntax error (exit 2), even where the typed read first
/// meets a value of the wrong shape.
#[test]
fn unclosed_flow_collection_is_a_syntax_error() {
    for text in [
        "apiVersion: v1\nkind: [unclosed\n",
        "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: x\n",
    ] {
        let l = load_text("u.yaml", text.as_bytes());
        assert_eq!(codes(&l), [Code::YamlSyntax], "{text}: {:?}", found(&l));
    }
}

/// A limit's message says in words which limit was passed, never the YAML crate's debug print.
#[test]
fn limit_messages_are_words() {
    let deep = format!("a: {}{}\n", "[".repeat(100), "]".repeat(100));
    let l = load_text("deep.yaml", deep.as_bytes());
    assert_eq!(codes(&l), [Code::InputLimit]);
    let m = &l.diagnostics.iter().next().unwrap().message;
    assert!(m.contains("more than 64 levels deep"), "{m}");
    assert!(!m.contains('{') && !m.contains("budget"), "{m}");
    let bomb = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/hostile/alias-bomb.yaml");
    let l = load_paths(&[bomb]);
    let m = &l.diagnostics.iter().next().unwrap().message;
    assert!(m.contains("100,000 values") && !m.contains('{'), "{m}");
}

/// Integer fields take what the API server takes: an integral number written with a decimal point
/// (kube-openapi accepts a float64 that is a JSON integer), not a quoted number or a fraction; a
/// label value refuses an unquoted number or boolean (fixtures in testdata/invalid/schema).
#[test]
fn integers_and_strings_are_typed_as_the_api_server_types_them() {
    let rlp = |limit: &str| {
        format!(
            "apiVersion: kuadrant.io/v1\nkind: RateLimitPolicy\nmetadata:\n  name: p\n  namespace: default\nspec:\n  targetRef: {{group: gateway.networking.k8s.io, kind: Gateway, name: gw}}\n  limits:\n    a:\n      rates:\n      - limit: {limit}\n        window: 10s\n"
        )
    };
    let limit_of = |l: &Loaded| format!("{:?}", l.model.policies);
    let five = load_text("a.yaml", rlp("5").as_bytes());
    assert!(five.diagnostics.is_empty(), "{:?}", found(&five));
    let five_point_zero = load_text("a.yaml", rlp("5.0").as_bytes());
    assert!(
        five_point_zero.diagnostics.is_empty(),
        "{:?}",
        found(&five_point_zero)
    );
    for l in [&five, &five_point_zero] {
        assert!(
            limit_of(l).contains("Rate { limit: 5, window: \"10s\""),
            "{}",
            limit_of(l)
        );
    }
    for bad in ["\"5\"", "5.5", "'5'", "true"] {
        let l = load_text("a.yaml", rlp(bad).as_bytes());
        assert_eq!(codes(&l), [Code::InvalidType], "{bad}: {:?}", found(&l));
    }
    // A label value is a string: unquoted 2 or yes is refused, quoted it is kept.
    let gw = |v: &str| {
        format!(
            "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  name: gw\n  labels:\n    v: {v}\nspec:\n  gatewayClassName: istio\n  listeners:\n  - {{name: http, port: 80, protocol: HTTP}}\n"
        )
    };
    for bad in ["2", "yes", "1.5"] {
        let l = load_text("gw.yaml", gw(bad).as_bytes());
        assert_eq!(codes(&l), [Code::InvalidType], "{bad}: {:?}", found(&l));
    }
    let l = load_text("gw.yaml", gw("\"2\"").as_bytes());
    // Only the announcement of the assumed `istio` GatewayClass (PCTL2008) remains.
    assert_eq!(codes(&l), [Code::GatewayClassAssumed], "{:?}", found(&l));
    assert_eq!(
        l.model.gateways[0].meta.labels.get("v").map(String::as_str),
        Some("2")
    );
}

/// Lone CR line ends (old Mac OS) are line breaks, as YAML 1.2 says: every document is read, and
/// positions count the CRs.
#[test]
fn lone_carriage_returns_are_line_breaks() {
    let text = "---\rapiVersion: v1\rkind: Namespace\rmetadata:\r  name: a\r---\rapiVersion: v1\rkind: Namespace\rmetadata:\r  name: B\r";
    let l = load_text("cr.yaml", text.as_bytes());
    assert_eq!(l.documents, 2);
    assert_eq!(l.model.namespaces.len(), 1);
    assert_eq!(
        found(&l),
        ["PCTL1012 10:9"],
        "the second name, at its own line"
    );
}

/// A file named twice (a directory and a file in it, or the same path spelt two ways) is read once.
#[test]
fn a_file_named_twice_is_read_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("ns.yaml"),
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n",
    )
    .unwrap();
    let twice = [
        dir.path().to_path_buf(),
        dir.path().to_path_buf(),
        dir.path().join("ns.yaml"),
        dir.path().join(".").join("ns.yaml"),
    ];
    let l = load_paths(&twice);
    assert!(l.diagnostics.is_empty(), "{:?}", found(&l));
    assert_eq!(l.files.len(), 1);
    assert_eq!(l.model.namespaces.len(), 1);
}

/// A duplicate names where the kept object is.
#[test]
fn a_duplicate_names_both_places() {
    let l = load_text(
        "dup.yaml",
        b"apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n",
    );
    let d = l.diagnostics.iter().next().unwrap();
    assert_eq!(d.code, Code::DuplicateObject);
    assert!(d.message.contains("(kept: dup.yaml:3:"), "{}", d.message);
    assert_eq!(found(&l), ["PCTL1003 7:18"]);
}

/// A JSON file is read as kubectl reads it: a stream of objects; broken JSON is a JSON syntax
/// error with serde_json's message at its line and column.
#[test]
fn json_streams_and_json_syntax_errors() {
    let stream = br#"{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}
{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "b"}}
"#;
    let l = load_text("stream.json", stream);
    assert!(l.diagnostics.is_empty(), "{:?}", found(&l));
    assert_eq!(l.model.namespaces.len(), 2);
    let broken = b"{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"Namespace\"\n  \"metadata\": {\"name\": \"a\"}\n}\n";
    let l = load_text("broken.json", broken);
    assert_eq!(found(&l), ["PCTL1001 4:3"]);
    let m = &l.diagnostics.iter().next().unwrap().message;
    assert_eq!(m, "JSON syntax error: expected `,` or `}`");
}

/// A kind that does not exist in a group policyctl models is refused with the closest kind; a real
/// kind policyctl does not model, and any kind of another group, is skipped.
#[test]
fn unknown_kinds_of_modelled_groups_are_refused() {
    let l = load_text(
        "kinds.yaml",
        b"apiVersion: kuadrant.io/v1\nkind: RateLimitPolicie\nmetadata: {name: a}\nspec: {}\n---\napiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\nmetadata: {name: g}\nspec: {}\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n",
    );
    assert_eq!(found(&l), ["PCTL1002 12:7", "PCTL1002 7:7", "PCTL1016 2:7"]);
    let d = l
        .diagnostics
        .iter()
        .find(|d| d.code == Code::UnknownKindInGroup)
        .unwrap();
    assert_eq!(
        d.message,
        "no matches for kind \"RateLimitPolicie\" in version \"kuadrant.io/v1\""
    );
    assert!(
        d.help
            .as_deref()
            .unwrap_or_default()
            .starts_with("did you mean RateLimitPolicy?")
    );
}

/// Strict field validation: an unknown field is refused, with the closest declared field; with
/// `warn` it is dropped with a warning and the object is read without it; with `ignore` silently.
#[test]
fn unknown_fields_by_validation_mode() {
    let text = b"apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r}\nspec:\n  parentRefs: [{name: gw}]\n  hostnams: [a.example.com]\n";
    let with = |validate| {
        load(
            &[Input::Text {
                name: "r.yaml".into(),
                bytes: text.to_vec(),
            }],
            &LoadOptions {
                validate,
                ..LoadOptions::default()
            },
        )
    };
    let strict = with(policyctl::FieldValidation::Strict);
    assert_eq!(found(&strict), ["PCTL1014 6:3"]);
    let d = strict.diagnostics.iter().next().unwrap();
    assert_eq!(d.message, "unknown field \"spec.hostnams\"");
    assert!(
        d.help
            .as_deref()
            .unwrap_or_default()
            .starts_with("did you mean hostnames?")
    );
    assert!(strict.model.routes.is_empty());
    let warn = with(policyctl::FieldValidation::Warn);
    assert_eq!(found(&warn), ["PCTL1015 6:3"]);
    assert_eq!(warn.model.routes.len(), 1);
    assert!(warn.model.routes[0].spec.hostnames.is_empty(), "dropped");
    let ignore = with(policyctl::FieldValidation::Ignore);
    assert!(ignore.diagnostics.is_empty());
    assert_eq!(ignore.model.routes.len(), 1);
}

/// The API server quotes a refused value with Go's `%q` (apimachinery's field errors): a control
/// character as `\x1b`, a no-break space as `\u00a0`, where Rust's `{:?}` writes `\u{1b}` and
/// leaves the space as it is.
#[test]
fn refused_values_are_quoted_as_go_quotes_them() {
    let l = load_text(
        "gw.yaml",
        b"apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  name: gw\n  namespace: ns\n  labels:\n    team: \"a\\eb\\u00a0\"\nspec:\n  gatewayClassName: istio\n  listeners:\n  - {name: a, port: 80, protocol: HTTP}\n",
    );
    let messages: Vec<&str> = l.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert!(
        messages
            .iter()
            .any(|m| m
                .starts_with(r#"metadata.labels: Invalid value: "a\x1bb\u00a0": a valid label"#)),
        "{messages:?}"
    );
    // Strict decoding names an unknown field with `strconv.Quote` too (sigs.k8s.io/json
    // internal/golang/encoding/json/kubernetes_patch.go, `strictError`).
    let l = load_text(
        "gw.yaml",
        b"apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: ns}\nspec:\n  gatewayClassName: istio\n  \"li\\tsteners\": []\n  listeners:\n  - {name: a, port: 80, protocol: HTTP}\n",
    );
    let messages: Vec<&str> = l.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert!(
        messages.contains(&r#"unknown field "spec.li\tsteners""#),
        "{messages:?}"
    );
}
