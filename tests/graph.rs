//! The topology graph (`policyctl graph`) and the topology lint (PCTL2xxx).
//!
//! Golden topology cases B–E (`docs/semantics/README.md`; fixtures under testdata/topology/), the
//! byte-exact policy-machinery DOT (`docs/semantics/topology.md`), `--for`, and one fixture per PCTL2xxx situation under
//! testdata/invalid/. Every DOT text produced here goes through a real DOT parser (graphviz-rust); with
//! `POLICYCTL_REQUIRE_DOT=1` every testdata graph must also be accepted by Graphviz's `dot -Tsvg`.

use crate::common;
use graphviz_rust::dot_structures::{EdgeTy, Graph, Id, Stmt, Vertex};
use policyctl::KuadrantVersion;
use policyctl::diag::{Code, Severity};
use policyctl::render::graph::{self as render, Selection};
use policyctl::{EdgeKind, Topology, lint};
use policyctl::{Input, LoadOptions, Loaded, load};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn load_fixture(rel: &str, version: KuadrantVersion) -> Loaded {
    // complex-expanded replays policy-machinery's TestGatewayAPITopology, whose objects are built
    // in Go without an API server: Service backendRefs without a port (which the HTTPRoute CRD's
    // rule "Must have port for Service reference" refuses) are what its expected links are about.
    let replay = rel.ends_with("complex-expanded");
    let l = load(
        &[Input::Path(root().join(rel))],
        &LoadOptions {
            version,
            crd_validation: !replay,
            ..LoadOptions::default()
        },
    );
    assert!(
        !l.diagnostics.has_errors(),
        "{rel} should load cleanly: {:?}",
        l.diagnostics
    );
    l
}

/// Children along link edges, as `name_part` of the locator with the `my-namespace/` prefix removed.
fn children(t: &Topology) -> BTreeMap<String, BTreeSet<String>> {
    let short = |ix| {
        let n: &policyctl::Node = &t.graph[ix];
        n.locator
            .name_part()
            .trim_start_matches("my-namespace/")
            .to_owned()
    };
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for e in t.graph.raw_edges() {
        if e.weight == EdgeKind::Link {
            out.entry(short(e.source()))
                .or_default()
                .insert(short(e.target()));
        }
    }
    out
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

/// Parse DOT with graphviz-rust; returns (node ids, edges as (from, to)).
fn parse_dot(text: &str) -> (Vec<String>, Vec<(String, String)>) {
    let g =
        graphviz_rust::parse(text).unwrap_or_else(|e| panic!("DOT does not parse: {e}\n{text}"));
    let Graph::DiGraph { stmts, .. } = g else {
        panic!("not a digraph:\n{text}")
    };
    let id = |i: &Id| match i {
        Id::Html(s) | Id::Escaped(s) | Id::Plain(s) | Id::Anonymous(s) => s.clone(),
    };
    let vertex = |v: &Vertex| match v {
        Vertex::N(n) => id(&n.0),
        Vertex::S(_) => panic!("unexpected subgraph"),
    };
    let mut nodes = Vec::new();
    let mut edges = Vec::new();
    for s in &stmts {
        match s {
            Stmt::Node(n) => nodes.push(id(&n.id.0)),
            Stmt::Edge(e) => match &e.ty {
                EdgeTy::Pair(a, b) => edges.push((vertex(a), vertex(b))),
                EdgeTy::Chain(_) => panic!("unexpected edge chain"),
            },
            other => panic!("unexpected statement {other:?}"),
        }
    }
    (nodes, edges)
}

/// Render every DOT flavour, parse it, and check the parse has the topology's nodes and edges.
fn check_dot(t: &Topology, sel: &Selection) -> String {
    let text = render::dot(t, sel);
    let (nodes, edges) = parse_dot(&text);
    let unique: BTreeSet<&String> = nodes.iter().collect();
    assert_eq!(unique.len(), nodes.len(), "duplicate node ids:\n{text}");
    for (a, b) in &edges {
        assert!(
            unique.contains(a) && unique.contains(b),
            "edge {a}->{b} to an undeclared node"
        );
    }
    let compat = render::dot_compat(t, sel);
    let (cnodes, cedges) = parse_dot(&compat);
    for (a, b) in &cedges {
        assert!(
            cnodes.contains(a) && cnodes.contains(b),
            "compat edge {a}->{b} to an undeclared node"
        );
    }
    text
}

// ------------------------------------------------- policy-machinery DOT (docs/semantics/topology.md)

const WORKED_EXAMPLE: &str = "digraph  {
\t
\tn2[fillcolor=\"#e5e5e5\",label=\"Gateway\\ndefault/gw\",shape=\"box\",style=\"filled\"];
\tn4[fillcolor=\"#e5e5e5\",label=\"Listener\\ndefault/gw#http\",shape=\"box\",style=\"filled\"];
\tn1[fillcolor=\"#e5e5e5\",label=\"GatewayClass\\nistio\",shape=\"box\",style=\"filled\"];
\tn3[fillcolor=\"#e5e5e5\",label=\"HTTPRoute\\ndefault/route\",shape=\"box\",style=\"filled\"];
\tn5[fillcolor=\"#e5e5e5\",label=\"HTTPRouteRule\\ndefault/route#rule-1\",shape=\"box\",style=\"filled\"];
\tn6[label=\"RateLimitPolicy\\ndefault/rlp\",shape=\"note\",style=\"dashed\"];
\tn2->n4[comment=\"Gateway -> Listener\"];
\tn4->n3[comment=\"Listener -> HTTPRoute\"];
\tn1->n2[comment=\"GatewayClass -> Gateway\"];
\tn3->n5[comment=\"HTTPRoute -> HTTPRouteRule\"];
\tn6->n3[comment=\"Policy -> Target\",style=\"dashed\"];
\t
}
";

#[test]
fn compat_dot_matches_the_worked_example_byte_for_byte() {
    for v in [KuadrantVersion::V1_4, KuadrantVersion::V1_5] {
        let l = load_fixture("testdata/topology/worked-example", v);
        let t = Topology::build(&l.model);
        assert_eq!(render::dot_compat(&t, &Selection::all()), WORKED_EXAMPLE);
        check_dot(&t, &Selection::all());
    }
}

#[test]
fn compat_dot_through_the_binary() {
    let out = common::policyctl()
        .args(["graph", "--compat", "policy-machinery", "-f"])
        .arg(root().join("testdata/topology/worked-example"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), WORKED_EXAMPLE);
}

#[test]
fn compat_numbers_policies_in_operator_registration_order_and_draws_kuadrant() {
    // Objects first (Kuadrant), then targetables, then policies kind by kind: DNS, TLS, Auth, RLP, TRLP.
    let l = load_fixture("testdata/examples/toystore", KuadrantVersion::V1_4);
    let t = Topology::build(&l.model);
    let text = render::dot_compat(&t, &Selection::all());
    assert!(text.starts_with("digraph  {\n\t\n\t"), "{text}");
    assert!(text.ends_with(";\n\t\n}\n"), "{text}");
    assert!(
        text.contains("\tn1[label=\"Kuadrant\\nkuadrant-system/kuadrant\",shape=\"ellipse\"];\n"),
        "{text}"
    );
    let seq_of = |label: &str| -> usize {
        let line = text
            .lines()
            .find(|l| l.contains(&format!("label=\"{label}\"")))
            .unwrap_or_else(|| panic!("no node {label}"));
        line.trim_start_matches('\t')[1..]
            .split('[')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let auth = seq_of("AuthPolicy\\ntoystore/toystore");
    let rlp_gw = seq_of("RateLimitPolicy\\ngateway-system/gw-defaults");
    let rlp_route = seq_of("RateLimitPolicy\\ntoystore/toystore");
    let rule = seq_of("HTTPRouteRule\\ntoystore/toystore#rule-2");
    assert!(rule < auth && auth < rlp_gw && rlp_gw < rlp_route, "{text}");
    assert!(
        text.contains("\tn1->"),
        "Kuadrant -> GatewayClass edge missing:\n{text}"
    );
    check_dot(&t, &Selection::all());
}

// ------------------------------------------------------ cases B–E (docs/semantics/README.md)

#[test]
fn case_b_complex_topology_expanded() {
    let l = load_fixture("testdata/topology/complex-expanded", KuadrantVersion::V1_5);
    let t = Topology::build(&l.model);
    let c = children(&t);
    let expect: &[(&str, &[&str])] = &[
        ("gatewayclass-1", &["gateway-1", "gateway-2", "gateway-3"]),
        ("gatewayclass-2", &["gateway-4", "gateway-5"]),
        (
            "gateway-1",
            &["gateway-1#listener-1", "gateway-1#listener-2"],
        ),
        ("gateway-2", &["gateway-2#listener-1"]),
        (
            "gateway-3",
            &["gateway-3#listener-1", "gateway-3#listener-2"],
        ),
        (
            "gateway-4",
            &["gateway-4#listener-1", "gateway-4#listener-2"],
        ),
        ("gateway-5", &["gateway-5#listener-1"]),
        ("gateway-1#listener-1", &["http-route-1"]),
        ("gateway-1#listener-2", &["http-route-1", "http-route-2"]),
        ("gateway-2#listener-1", &["http-route-2", "http-route-3"]),
        ("gateway-5#listener-1", &["grpc-route-1"]),
        (
            "http-route-1",
            &["http-route-1#rule-1", "http-route-1#rule-2"],
        ),
        ("http-route-2", &["http-route-2#rule-1"]),
        ("http-route-3", &["http-route-3#rule-1"]),
        ("grpc-route-1", &["grpc-route-1#rule-1"]),
        ("http-route-1#rule-1", &["service-1"]),
        ("http-route-1#rule-2", &["service-2"]),
        ("http-route-2#rule-1", &["service-3#port-1"]),
        ("http-route-3#rule-1", &["service-3#port-1"]),
        ("grpc-route-1#rule-1", &["service-7"]),
        ("service-1", &["service-1#port-1", "service-1#port-2"]),
        ("service-2", &["service-2#port-1"]),
        ("service-3", &["service-3#port-1", "service-3#port-2"]),
        ("service-4", &["service-4#port-1"]),
        ("service-5", &["service-5#port-1"]),
        ("service-6", &["service-6#port-1"]),
        ("service-7", &["service-7#port-1"]),
    ];
    let want: BTreeMap<String, BTreeSet<String>> = expect
        .iter()
        .map(|(k, v)| ((*k).to_owned(), set(v)))
        .collect();
    assert_eq!(c, want);
    check_dot(&t, &Selection::all());

    // 1.4 leaves the GRPCRoute (and its rule) out of the topology.
    let l14 = load_fixture("testdata/topology/complex-expanded", KuadrantVersion::V1_4);
    let t14 = Topology::build(&l14.model);
    let c14 = children(&t14);
    assert!(!c14.contains_key("gateway-5#listener-1") && !c14.contains_key("grpc-route-1"));
}

#[test]
fn case_c_non_expanded_projection() {
    // policyctl always builds the operator's expanded topology; the non-expanded links of
    // TestGatewayAPITopology are what remains when listeners and rules are collapsed into their parents.
    let l = load_fixture("testdata/topology/complex-expanded", KuadrantVersion::V1_5);
    let t = Topology::build(&l.model);
    let c = children(&t);
    let parent = |s: &str| s.split('#').next().unwrap().to_owned();
    let mut collapsed: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, tos) in &c {
        if from.starts_with("gatewayclass") || from.starts_with("service") {
            continue;
        }
        for to in tos {
            let (f, t) = (parent(from), parent(to));
            if f != t {
                collapsed.entry(f).or_default().insert(t);
            }
        }
    }
    assert_eq!(
        collapsed["gateway-1"],
        set(&["http-route-1", "http-route-2"])
    );
    assert_eq!(
        collapsed["gateway-2"],
        set(&["http-route-2", "http-route-3"])
    );
    assert_eq!(collapsed["gateway-5"], set(&["grpc-route-1"]));
    assert_eq!(collapsed["http-route-1"], set(&["service-1", "service-2"]));
    assert_eq!(collapsed["http-route-2"], set(&["service-3"]));
    assert_eq!(collapsed["http-route-3"], set(&["service-3"]));
    assert_eq!(collapsed["grpc-route-1"], set(&["service-7"]));
}

#[test]
fn case_d_policies_with_section_names_attach_to_listeners() {
    let l = load_fixture(
        "testdata/topology/policies-with-section-names",
        KuadrantVersion::V1_4,
    );
    let t = Topology::build(&l.model);
    let c = children(&t);
    assert_eq!(
        c["my-gateway"],
        set(&["my-gateway#http", "my-gateway#https"])
    );
    let attached: BTreeMap<String, String> = l
        .model
        .policies
        .iter()
        .enumerate()
        .map(|(i, p)| {
            (
                p.meta.name.clone(),
                t.policy_target(i).unwrap().locator.to_string(),
            )
        })
        .collect();
    assert_eq!(
        attached["my-policy-1"],
        "gateway.gateway.networking.k8s.io:my-namespace/my-gateway#http"
    );
    assert_eq!(
        attached["my-policy-2"],
        "gateway.gateway.networking.k8s.io:my-namespace/my-gateway#https"
    );
    let text = check_dot(&t, &Selection::all());
    assert!(text.contains(
        "\"dnspolicy.kuadrant.io:my-namespace/my-policy-1\" -> \
         \"gateway.gateway.networking.k8s.io:my-namespace/my-gateway#http\" \
         [comment=\"Policy -> Target\",style=\"dashed\"];"
    ));
    // No GatewayClass in this case: the only finding is PCTL2007.
    let codes: Vec<Code> = lint(&t).iter().map(|d| d.code).collect();
    assert_eq!(codes, vec![Code::GatewayClassNotFound]);
}

#[test]
fn case_e_rule_names_by_version() {
    let l = load_fixture("testdata/topology/rule-names", KuadrantVersion::V1_5);
    let t15 = Topology::build(&l.model);
    let c = children(&t15);
    assert_eq!(c["named"], set(&["named#custom-name"]));
    assert_eq!(c["unnamed"], set(&["unnamed#rule-1"]));
    assert_eq!(
        c["mixed"],
        set(&["mixed#first", "mixed#rule-2", "mixed#third"])
    );
    assert_eq!(c["grpc"], set(&["grpc#streaming-rule"]));
    check_dot(&t15, &Selection::all());

    let l14 = load_fixture("testdata/topology/rule-names", KuadrantVersion::V1_4);
    let t14 = Topology::build(&l14.model);
    let c = children(&t14);
    assert_eq!(c["named"], set(&["named#rule-1"]));
    assert_eq!(
        c["mixed"],
        set(&["mixed#rule-1", "mixed#rule-2", "mixed#rule-3"])
    );
    assert!(!c.contains_key("grpc"));
    check_dot(&t14, &Selection::all());

    // rule-2 is positional on both versions; "third" is a name only 1.5 knows.
    let found = |t: &Topology| -> Vec<(Code, Severity)> {
        let mut d = lint(t);
        d.sort();
        d.iter().map(|d| (d.code, d.severity)).collect()
    };
    assert_eq!(
        found(&t15),
        vec![(Code::PositionalRuleName, Severity::Info)]
    );
    assert_eq!(
        found(&t14),
        vec![
            (Code::PositionalRuleName, Severity::Info),
            (Code::SectionNotFound, Severity::Error)
        ]
    );
    let d14 = lint(&t14);
    let miss = d14
        .iter()
        .find(|d| d.code == Code::SectionNotFound)
        .unwrap();
    assert!(
        miss.help
            .as_deref()
            .unwrap()
            .contains("operator 1.4 names rules only by position")
    );
    assert!(
        miss.message
            .ends_with("; on 1.4 third is rule-3 (--kuadrant-version 1.5 honours rule names)"),
        "{}",
        miss.message
    );
    assert!(
        miss.help
            .as_deref()
            .unwrap()
            .contains("\"RateLimitPolicy target mixed#third was not found\"")
    );
}

// ------------------------------------------------------------------ formats, focus, determinism

fn graph_cmd(args: &[&str], paths: &[PathBuf]) -> std::process::Output {
    let mut c = common::policyctl();
    c.arg("graph").args(args);
    for p in paths {
        c.arg("-f").arg(p);
    }
    c.output().unwrap()
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[test]
fn output_does_not_depend_on_input_order() {
    let dir = root().join("testdata/examples/toystore");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let tmp = tempfile::tempdir().unwrap();
    let reversed = tmp.path().join("all.yaml");
    let mut text = String::new();
    for f in files.iter().rev() {
        text.push_str(&std::fs::read_to_string(f).unwrap());
        text.push_str("\n---\n");
    }
    std::fs::write(&reversed, text).unwrap();
    for args in [
        &["-o", "dot"][..],
        &["--compat", "policy-machinery"],
        &["-o", "mermaid"],
        &["-o", "json"],
    ] {
        let a = graph_cmd(args, std::slice::from_ref(&dir));
        let b = graph_cmd(args, std::slice::from_ref(&reversed));
        let mut rev_files = files.clone();
        rev_files.reverse();
        let c = graph_cmd(args, &rev_files);
        assert_eq!(
            a.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&a.stderr)
        );
        assert_eq!(stdout(&a), stdout(&b), "{args:?}");
        assert_eq!(stdout(&a), stdout(&c), "{args:?}");
    }
}

#[test]
fn mermaid_and_json_carry_the_same_graph() {
    let l = load_fixture("testdata/examples/toystore", KuadrantVersion::V1_4);
    let t = Topology::build(&l.model);
    let (dot_nodes, dot_edges) = parse_dot(&check_dot(&t, &Selection::all()));

    let j: serde_json::Value = serde_json::from_str(&render::json(&t, &Selection::all())).unwrap();
    let nodes = j["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), dot_nodes.len());
    let edges = j["edges"].as_array().unwrap();
    assert_eq!(edges.len(), dot_edges.len());
    let listener = nodes
        .iter()
        .find(|n| n["locator"] == "gateway.gateway.networking.k8s.io:gateway-system/prod-web#api")
        .unwrap();
    assert_eq!(listener["kind"], "Listener");
    assert_eq!(listener["namespace"], "gateway-system");
    assert_eq!(listener["name"], "prod-web#api");
    assert_eq!(listener["role"], "targetable");
    let class = nodes.iter().find(|n| n["kind"] == "GatewayClass").unwrap();
    assert_eq!(class["namespace"], "");
    assert_eq!(class["name"], "istio");
    let policy = nodes.iter().find(|n| n["kind"] == "AuthPolicy").unwrap();
    assert_eq!(policy["role"], "policy");
    assert_eq!(policy["attached"], true);
    assert!(
        edges
            .iter()
            .any(|e| e["kind"] == "policy" && e["comment"] == "Policy -> Target")
    );
    assert!(
        edges
            .iter()
            .any(|e| e["kind"] == "link" && e["comment"] == "Gateway -> Listener")
    );

    let m = render::mermaid(&t, &Selection::all());
    assert!(m.starts_with("flowchart TD\n"));
    assert_eq!(
        m.matches("-->").count() + m.matches("-.->").count(),
        dot_edges.len()
    );
    assert!(
        m.contains("[\"Listener<br/>gateway-system/prod-web#35;api\"]:::targetable"),
        "{m}"
    );
    assert!(
        m.contains(">\"AuthPolicy<br/>toystore/toystore\"]:::policy"),
        "{m}"
    );
    assert!(
        m.contains("([\"Kuadrant<br/>kuadrant-system/kuadrant\"]):::object"),
        "{m}"
    );
}

#[test]
fn focus_keeps_ancestors_descendants_and_their_policies() {
    let dir = root().join("testdata/examples/toystore");
    let o = graph_cmd(
        &["--for", "httproute/toystore/toystore"],
        std::slice::from_ref(&dir),
    );
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    let (nodes, _) = parse_dot(&text);
    let nodes: BTreeSet<String> = nodes.into_iter().collect();
    let want = set(&[
        "kuadrant.kuadrant.io:kuadrant-system/kuadrant",
        "gatewayclass.gateway.networking.k8s.io:istio",
        "gateway.gateway.networking.k8s.io:gateway-system/prod-web",
        "gateway.gateway.networking.k8s.io:gateway-system/prod-web#api",
        "httproute.gateway.networking.k8s.io:toystore/toystore",
        "httproute.gateway.networking.k8s.io:toystore/toystore#rule-1",
        "httproute.gateway.networking.k8s.io:toystore/toystore#rule-2",
        "ratelimitpolicy.kuadrant.io:gateway-system/gw-defaults",
        "ratelimitpolicy.kuadrant.io:toystore/toystore",
        "authpolicy.kuadrant.io:toystore/toystore",
    ]);
    // graphviz-rust keeps the quotes of escaped ids.
    let unquoted: BTreeSet<String> = nodes
        .iter()
        .map(|n| n.trim_matches('"').to_owned())
        .collect();
    assert_eq!(unquoted, want);

    // A listener: its gateway and class above, the routes below; the other listener is not kept.
    let o = graph_cmd(
        &[
            "--for",
            "listener/gateway-system/prod-web#web",
            "-o",
            "json",
        ],
        std::slice::from_ref(&dir),
    );
    assert_eq!(o.status.code(), Some(0));
    let j: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let locs: BTreeSet<String> = j["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["locator"].as_str().unwrap().to_owned())
        .collect();
    assert!(locs.contains("httproute.gateway.networking.k8s.io:storefront/storefront"));
    assert!(!locs.contains("gateway.gateway.networking.k8s.io:gateway-system/prod-web#api"));
    assert!(!locs.contains("httproute.gateway.networking.k8s.io:toystore/toystore"));

    // gatewayclass/NAME: everything hangs below the class.
    let all = graph_cmd(&[], std::slice::from_ref(&dir));
    let class = graph_cmd(&["--for", "gatewayclass/istio"], std::slice::from_ref(&dir));
    assert_eq!(stdout(&all), stdout(&class));

    // compat keeps the full graph's n<seq> ids.
    let full = stdout(&graph_cmd(
        &["--compat", "policy-machinery"],
        std::slice::from_ref(&dir),
    ));
    let part = stdout(&graph_cmd(
        &[
            "--compat",
            "policy-machinery",
            "--for",
            "httproute/storefront/storefront",
        ],
        std::slice::from_ref(&dir),
    ));
    parse_dot(&part);
    for line in part.lines().filter(|l| l.contains('[')) {
        assert!(
            full.lines().any(|f| f == line),
            "{line} not in the full graph"
        );
    }
}

#[test]
fn unknown_focus_is_a_usage_error() {
    let dir = root().join("testdata/examples/toystore");
    for (spec, needle) in [
        ("httproute/toystore/nope", "no such object"),
        ("gateway/prod-web", "expected KIND/NAMESPACE/NAME"),
        ("widget/a/b", "unknown kind"),
        ("listener/gateway-system/prod-web", "needs a #section"),
    ] {
        let o = graph_cmd(&["--for", spec], std::slice::from_ref(&dir));
        assert_eq!(o.status.code(), Some(2), "{spec}");
        assert!(o.stdout.is_empty());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(needle), "{spec}: {err}");
    }
    let o = graph_cmd(&["-o", "json", "--compat", "policy-machinery"], &[dir]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn unattached_policy_is_drawn_without_edge_and_fails_the_run() {
    let f = root().join("testdata/invalid/target-not-found.yaml");
    let o = graph_cmd(&[], std::slice::from_ref(&f));
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("PCTL2001"), "{err}");
    assert!(
        err.contains("RateLimitPolicy target missing-route was not found"),
        "{err}"
    );
    let (nodes, edges) = parse_dot(&stdout(&o));
    let rlp = "\"ratelimitpolicy.kuadrant.io:gateway-system/rlp\"";
    assert!(nodes.iter().any(|n| n == rlp));
    assert!(edges.iter().all(|(a, b)| a != rlp && b != rlp));
    let compat = stdout(&graph_cmd(&["--compat", "policy-machinery"], &[f]));
    assert!(compat.contains("label=\"RateLimitPolicy\\ngateway-system/rlp\""));
    assert!(!compat.contains("Policy -> Target"));
}

#[test]
fn help_shows_an_example() {
    let o = common::policyctl()
        .args(["graph", "--help"])
        .output()
        .unwrap();
    let s = stdout(&o);
    assert!(
        s.contains("Examples:") && s.contains("--for httproute/toystore/toystore"),
        "{s}"
    );
}

// ------------------------------------------------------------------ lint: one fixture per PCTL2xxx

/// (code, severity, line, column) of one finding.
type Finding = (&'static str, Severity, usize, usize);

/// Every topology finding of a fixture, sorted.
fn findings(rel: &str, version: KuadrantVersion) -> Vec<Finding> {
    let l = load_fixture(rel, version);
    let t = Topology::build(&l.model);
    let mut d = lint(&t);
    d.sort();
    d.iter()
        .map(|d| {
            let p = l.sources.position(d.primary_span().unwrap()).unwrap();
            (d.code.as_str(), d.severity, p.line, p.column)
        })
        .collect()
}

#[test]
fn lint_findings_point_at_the_offending_reference() {
    use Severity::*;
    let cases: &[(&str, &[Finding])] = &[
        ("target-not-found.yaml", &[("PCTL2001", Error, 34, 11)]),
        (
            "target-section-not-found.yaml",
            &[("PCTL2002", Error, 35, 18)],
        ),
        (
            "parentref-section-not-found.yaml",
            &[("PCTL2002", Error, 33, 18)],
        ),
        (
            "parentref-gateway-not-found.yaml",
            &[("PCTL2003", Warning, 33, 11)],
        ),
        (
            "route-namespace-not-allowed.yaml",
            &[
                ("PCTL2004", Warning, 45, 11),
                ("PCTL2004", Warning, 45, 11),
                ("PCTL2004", Info, 59, 11),
            ],
        ),
        ("hostname-not-subset.yaml", &[("PCTL2005", Warning, 32, 11)]),
        ("positional-rule-name.yaml", &[("PCTL2006", Info, 55, 18)]),
        ("gatewayclass-not-found.yaml", &[("PCTL2007", Error, 8, 21)]),
    ];
    for (file, want) in cases {
        let got = findings(&format!("testdata/invalid/{file}"), KuadrantVersion::V1_4);
        assert_eq!(&got, want, "{file}");
    }
}

#[test]
fn lint_messages_follow_the_operator() {
    let l = load_fixture(
        "testdata/invalid/target-section-not-found.yaml",
        KuadrantVersion::V1_4,
    );
    let t = Topology::build(&l.model);
    let d = lint(&t);
    let x = d.iter().next().unwrap();
    assert_eq!(
        x.message,
        "sectionName \"https\" matches no listener of Gateway gateway-system/gw (listeners: http)"
    );
    assert!(
        x.help
            .as_deref()
            .unwrap()
            .contains("\"AuthPolicy target gw#https was not found\"")
    );

    let l = load_fixture(
        "testdata/invalid/route-namespace-not-allowed.yaml",
        KuadrantVersion::V1_4,
    );
    let t = Topology::build(&l.model);
    let msgs: Vec<String> = lint(&t).iter().map(|d| d.message.clone()).collect();
    assert!(
        msgs.iter()
            .any(|m| m.contains("listener same") && m.contains("from is Same"))
    );
    assert!(
        msgs.iter().any(|m| m.contains("listener selected")
            && m.contains("labels of Namespace apps do not match"))
    );
    assert!(
        msgs.iter()
            .any(|m| m.starts_with("cannot check") && m.contains("Namespace web"))
    );

    let l = load_fixture(
        "testdata/invalid/hostname-not-subset.yaml",
        KuadrantVersion::V1_4,
    );
    let t = Topology::build(&l.model);
    let d = lint(&t);
    let x = d.iter().next().unwrap();
    assert!(
        x.help
            .as_deref()
            .unwrap()
            .starts_with("Gateway API still attaches the route")
    );
}

#[test]
fn lint_command_reports_topology_findings_with_positions() {
    let f = root().join("testdata/invalid/target-not-found.yaml");
    let o = common::policyctl()
        .args(["lint", "-q", "-f"])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let s = stdout(&o);
    assert!(
        s.contains("target-not-found.yaml:34:11: error[PCTL2001]: RateLimitPolicy target missing-route was not found"),
        "{s}"
    );
    // Warnings alone do not fail the run.
    let f = root().join("testdata/invalid/hostname-not-subset.yaml");
    let o = graph_cmd(&[], &[f]);
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stderr).contains("PCTL2005"));
}

// ------------------------------------------------------------------ Graphviz

/// Every file under testdata, and every directory that directly holds manifests.
fn graph_inputs(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    let mut has_manifest = false;
    for p in entries {
        if p.is_dir() {
            graph_inputs(&p, out);
        } else if p
            .extension()
            .is_some_and(|e| e == "yaml" || e == "yml" || e == "json")
        {
            has_manifest = true;
            out.push(p);
        }
    }
    if has_manifest {
        out.push(dir.to_owned());
    }
}

#[test]
fn graphviz_accepts_every_testdata_graph() {
    let required = std::env::var("POLICYCTL_REQUIRE_DOT").is_ok_and(|v| v == "1");
    let dot_ok = std::process::Command::new("dot")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !dot_ok {
        assert!(
            !required,
            "POLICYCTL_REQUIRE_DOT=1 but Graphviz `dot` is not installed"
        );
        eprintln!(
            "graphviz_accepts_every_testdata_graph: SKIPPED, `dot` not found (set POLICYCTL_REQUIRE_DOT=1 to require it)"
        );
        return;
    }
    let mut inputs = Vec::new();
    graph_inputs(&root().join("testdata"), &mut inputs);
    let (mut rendered, mut no_graph) = (0, 0);
    for input in &inputs {
        for version in ["1.4", "1.5"] {
            for args in [&[][..], &["--compat", "policy-machinery"]] {
                let o = graph_cmd(
                    &[&["--kuadrant-version", version][..], args].concat(),
                    std::slice::from_ref(input),
                );
                if o.status.code() == Some(2) {
                    no_graph += 1;
                    continue;
                }
                let text = stdout(&o);
                assert!(!text.is_empty(), "{} produced no graph", input.display());
                parse_dot(&text);
                let mut child = std::process::Command::new("dot")
                    .arg("-Tsvg")
                    .stdin(std::process::Stdio::piped())
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap();
                use std::io::Write;
                child
                    .stdin
                    .take()
                    .unwrap()
                    .write_all(text.as_bytes())
                    .unwrap();
                let res = child.wait_with_output().unwrap();
                assert!(
                    res.status.success(),
                    "dot -Tsvg rejects the graph of {} ({args:?}): {}",
                    input.display(),
                    String::from_utf8_lossy(&res.stderr)
                );
                rendered += 1;
            }
        }
    }
    assert!(rendered > 0, "no testdata graph was rendered");
    eprintln!(
        "graphviz_accepts_every_testdata_graph: RAN dot -Tsvg on {rendered} graphs ({no_graph} inputs gave no graph: exit 2)"
    );
}
