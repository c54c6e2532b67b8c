//! Render a [`Topology`] as DOT, Mermaid or JSON.
//!
//! Three DOT-family outputs share policy-machinery's visual grammar: targetables are grey boxes
//! (`fillcolor="#e5e5e5",shape="box",style="filled"`), policies dashed notes, plain objects (Kuadrant)
//! ellipses; link edges go parent → child with `comment="<FromKind> -> <ToKind>"`, policy edges go
//! policy → target with `comment="Policy -> Target",style="dashed"`; labels are `Kind\nns/name`.
//!
//! * [`dot`] — policyctl's own DOT. **Node ids are the quoted locators** (e.g.
//!   `"gateway.gateway.networking.k8s.io:ns/gw#http"`): unique, stable when objects are added or removed,
//!   and readable in a diff. Nodes are written sorted by locator (byte order), edges sorted by
//!   (from locator, to locator, kind) with duplicates removed. Nothing depends on input order.
//! * [`dot_compat`] — the bytes emicklei/dot v1.8.0 prints for policy-machinery's `Topology.ToDot()` as the
//!   operator builds it, given policyctl's canonical input order (objects sorted by namespace/name, policies
//!   kind by kind in the operator's registration order): header `digraph  {`, TAB-indented lines, ids
//!   `n<seq>` by node creation order, nodes sorted by locator, edges grouped by from-locator (sorted) in
//!   insertion order, duplicates kept, attributes sorted by key and quoted like Go's `%q`. Service and
//!   ServicePort nodes are left out because the operator never feeds Services into its topology.
//! * [`mermaid`] and [`json`] — the same nodes and edges for PR comments and tools.
//!
//! A policy whose target does not exist is drawn without an edge. Every function returns a `String`.

use crate::model::{EXTENSIONS_GROUP, GATEWAY_API_GROUP, Locator, RefError, RefKind};
use crate::topology::{EdgeKind, Node, NodeRef, NodeRole, Topology};
use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// Which nodes to draw: all, or a `--for` neighbourhood (see [`Topology::focus`]).
#[derive(Clone, Debug, Default)]
pub struct Selection {
    keep: Option<BTreeSet<NodeIndex>>,
}

impl Selection {
    pub fn all() -> Self {
        Selection { keep: None }
    }

    /// The neighbourhood of `locator`; `None` when the topology has no such node.
    pub fn focus(t: &Topology, locator: &Locator) -> Option<Self> {
        let ix = t.node_index(locator)?;
        Some(Selection {
            keep: Some(t.focus(ix)),
        })
    }

    fn contains(&self, ix: NodeIndex) -> bool {
        self.keep.as_ref().is_none_or(|k| k.contains(&ix))
    }
}

/// The kinds `--for` takes.
const FOCUS_KINDS: &[RefKind] = &[
    focus_kind(
        "gatewayclass",
        "GatewayClass",
        GATEWAY_API_GROUP,
        true,
        false,
    ),
    focus_kind("gateway", "Gateway", GATEWAY_API_GROUP, false, false),
    focus_kind("listener", "Gateway", GATEWAY_API_GROUP, false, true),
    focus_kind("httproute", "HTTPRoute", GATEWAY_API_GROUP, false, false),
    focus_kind("httprouterule", "HTTPRoute", GATEWAY_API_GROUP, false, true),
    focus_kind("grpcroute", "GRPCRoute", GATEWAY_API_GROUP, false, false),
    focus_kind("grpcrouterule", "GRPCRoute", GATEWAY_API_GROUP, false, true),
    focus_kind("service", "Service", "", false, false),
    focus_kind("serviceport", "Service", "", false, true),
    focus_kind("kuadrant", "Kuadrant", "kuadrant.io", false, false),
    focus_kind(
        "ratelimitpolicy",
        "RateLimitPolicy",
        "kuadrant.io",
        false,
        false,
    ),
    focus_kind("authpolicy", "AuthPolicy", "kuadrant.io", false, false),
    focus_kind(
        "tokenratelimitpolicy",
        "TokenRateLimitPolicy",
        "kuadrant.io",
        false,
        false,
    ),
    focus_kind("dnspolicy", "DNSPolicy", "kuadrant.io", false, false),
    focus_kind("tlspolicy", "TLSPolicy", "kuadrant.io", false, false),
    focus_kind("planpolicy", "PlanPolicy", EXTENSIONS_GROUP, false, false),
    focus_kind("oidcpolicy", "OIDCPolicy", EXTENSIONS_GROUP, false, false),
    focus_kind(
        "telemetrypolicy",
        "TelemetryPolicy",
        EXTENSIONS_GROUP,
        false,
        false,
    ),
    focus_kind(
        "threatpolicy",
        "ThreatPolicy",
        EXTENSIONS_GROUP,
        false,
        false,
    ),
];

const fn focus_kind(
    word: &'static str,
    kind: &'static str,
    group: &'static str,
    cluster_scoped: bool,
    needs_section: bool,
) -> RefKind {
    RefKind {
        word,
        kind,
        group,
        cluster_scoped,
        needs_section,
    }
}

/// Turn a `--for` argument into a locator: `KIND/NS/NAME`, `KIND/NAME` for cluster-scoped kinds, with an
/// optional `#section` (`listener/ns/gw#http`, `gateway/ns/gw#http`, `httprouterule/ns/r#rule-1`,
/// `httproute/ns/r#rule-1`). Kinds are case-insensitive.
pub fn parse_focus(spec: &str) -> Result<Locator, String> {
    Locator::parse_ref(spec, FOCUS_KINDS).map_err(|e| match e {
        RefError::Syntax(_) | RefError::EmptySection => format!(
            "--for {spec:?}: expected KIND/NAMESPACE/NAME (e.g. httproute/toystore/toystore, \
             gateway/gateway-system/prod-web, listener/gateway-system/prod-web#api) or gatewayclass/NAME"
        ),
        RefError::UnknownKind(kind) => format!(
            "--for {spec:?}: unknown kind {kind:?}; use gatewayclass, gateway, listener, httproute, \
             httprouterule, grpcroute, grpcrouterule, service, serviceport, kuadrant or a policy kind"
        ),
        RefError::NeedsSection(kind) => format!(
            "--for {spec:?}: a {kind} needs a #section, e.g. {kind}/NAMESPACE/NAME#SECTION"
        ),
    })
}

/// The label policy-machinery writes: `Kind\nnamespace/name[#section]`.
fn label(n: &Node) -> String {
    format!("{}\n{}", n.kind, n.name())
}

/// The node's attributes other than the label, sorted by key, as policy-machinery sets them.
fn role_attrs(role: NodeRole) -> &'static [(&'static str, &'static str)] {
    match role {
        NodeRole::Object => &[("shape", "ellipse")],
        NodeRole::Targetable => &[
            ("fillcolor", "#e5e5e5"),
            ("shape", "box"),
            ("style", "filled"),
        ],
        NodeRole::Policy => &[("shape", "note"), ("style", "dashed")],
    }
}

fn node_attrs(n: &Node) -> Vec<(&'static str, String)> {
    let mut v: Vec<(&'static str, String)> = role_attrs(n.role)
        .iter()
        .map(|(k, v)| (*k, (*v).to_owned()))
        .collect();
    v.push(("label", label(n)));
    v.sort_by(|a, b| a.0.cmp(b.0));
    v
}

fn edge_comment(t: &Topology, from: NodeIndex, to: NodeIndex, kind: EdgeKind) -> String {
    match kind {
        EdgeKind::Policy => "Policy -> Target".to_owned(),
        EdgeKind::Link | EdgeKind::Derived => {
            format!("{} -> {}", t.graph[from].kind, t.graph[to].kind)
        }
    }
}

fn edge_attrs(comment: String, kind: EdgeKind) -> Vec<(&'static str, String)> {
    let mut v = vec![("comment", comment)];
    match kind {
        EdgeKind::Policy => v.push(("style", "dashed".to_owned())),
        EdgeKind::Derived => v.push(("style", "dotted".to_owned())),
        EdgeKind::Link => {}
    }
    v
}

fn write_attrs(out: &mut String, attrs: &[(&'static str, String)]) {
    out.push('[');
    for (i, (k, v)) in attrs.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "{k}={}", crate::gofmt::quote(v));
    }
    out.push(']');
}

/// policyctl's DOT (see the module docs for the id scheme).
pub fn dot(t: &Topology, sel: &Selection) -> String {
    let mut out = String::from("digraph topology {\n");
    for ix in sorted_nodes(t, sel, false) {
        let n = &t.graph[ix];
        let _ = write!(out, "\t{} ", crate::gofmt::quote(n.locator.as_str()));
        write_attrs(&mut out, &node_attrs(n));
        out.push_str(";\n");
    }
    for (from, to, kind) in sorted_edges(t, sel) {
        let _ = write!(
            out,
            "\t{} -> {} ",
            crate::gofmt::quote(t.graph[from].locator.as_str()),
            crate::gofmt::quote(t.graph[to].locator.as_str())
        );
        write_attrs(&mut out, &edge_attrs(edge_comment(t, from, to, kind), kind));
        out.push_str(";\n");
    }
    out.push_str("}\n");
    out
}

/// Nodes in the selection, sorted by locator; `compat` leaves out the nodes outside the operator's
/// topology (Services, ServicePorts, extension policies).
fn sorted_nodes(t: &Topology, sel: &Selection, compat: bool) -> Vec<NodeIndex> {
    let mut v: Vec<NodeIndex> = t
        .graph
        .node_indices()
        .filter(|ix| sel.contains(*ix) && !(compat && outside_operator_topology(&t.graph[*ix])))
        .collect();
    v.sort_by(|a, b| t.graph[*a].locator.cmp(&t.graph[*b].locator));
    v
}

/// Nodes the operator's topology does not hold: Services (never fed into it) and extension
/// policies (their controllers run outside the operator).
fn outside_operator_topology(n: &Node) -> bool {
    matches!(
        n.what,
        NodeRef::Service(_) | NodeRef::ServicePort(..) | NodeRef::Extension(_)
    )
}

/// Edges between selected nodes, sorted by (from, to, kind), de-duplicated.
fn sorted_edges(t: &Topology, sel: &Selection) -> Vec<(NodeIndex, NodeIndex, EdgeKind)> {
    let mut set = BTreeSet::new();
    for e in t.graph.edge_references() {
        if sel.contains(e.source()) && sel.contains(e.target()) {
            let k = match e.weight() {
                EdgeKind::Link => 0u8,
                EdgeKind::Policy => 1u8,
                EdgeKind::Derived => 2u8,
            };
            set.insert((
                t.graph[e.source()].locator.clone(),
                t.graph[e.target()].locator.clone(),
                k,
                e.source(),
                e.target(),
            ));
        }
    }
    set.into_iter()
        .map(|(_, _, k, a, b)| {
            (
                a,
                b,
                match k {
                    0 => EdgeKind::Link,
                    1 => EdgeKind::Policy,
                    _ => EdgeKind::Derived,
                },
            )
        })
        .collect()
}

/// The text emicklei/dot prints for policy-machinery's `ToDot()` (see the module docs).
pub fn dot_compat(t: &Topology, sel: &Selection) -> String {
    // Sequence numbers follow node creation order over the whole graph (not just the selection), so a
    // focused graph keeps the ids of the full one.
    let mut seq: BTreeMap<NodeIndex, usize> = BTreeMap::new();
    for ix in t.graph.node_indices() {
        if !outside_operator_topology(&t.graph[ix]) {
            let next = seq.len() + 1;
            seq.insert(ix, next);
        }
    }
    let mut out = String::from("digraph  {\n\t\n\t");
    for ix in sorted_nodes(t, sel, true) {
        let _ = write!(out, "n{}", seq[&ix]);
        write_attrs(&mut out, &node_attrs(&t.graph[ix]));
        out.push_str(";\n\t");
    }
    // Edges grouped by from-node id, groups sorted by locator, insertion order inside a group.
    let mut groups: BTreeMap<&Locator, Vec<(NodeIndex, NodeIndex, EdgeKind)>> = BTreeMap::new();
    for e in t.graph.edge_references() {
        let (a, b) = (e.source(), e.target());
        if !seq.contains_key(&a) || !seq.contains_key(&b) || !sel.contains(a) || !sel.contains(b) {
            continue;
        }
        groups
            .entry(&t.graph[a].locator)
            .or_default()
            .push((a, b, *e.weight()));
    }
    for edges in groups.values() {
        for (a, b, kind) in edges {
            // Index: edges whose ends are not in `seq` were skipped when grouping.
            let _ = write!(out, "n{}->n{}", seq[a], seq[b]);
            write_attrs(&mut out, &edge_attrs(edge_comment(t, *a, *b, *kind), *kind));
            out.push_str(";\n\t");
        }
    }
    out.push_str("\n}\n");
    out
}

/// A Mermaid flowchart: ids `n<k>` by sorted locator (`k` counts within the drawn nodes), boxes for
/// targetables, flags for policies, stadiums for objects; dashed arrows for policy edges.
pub fn mermaid(t: &Topology, sel: &Selection) -> String {
    let nodes = sorted_nodes(t, sel, false);
    let ids: BTreeMap<NodeIndex, usize> = nodes
        .iter()
        .enumerate()
        .map(|(i, ix)| (*ix, i + 1))
        .collect();
    let mut out = String::from("flowchart TD\n");
    for ix in &nodes {
        let n = &t.graph[*ix];
        let text = format!("{}<br/>{}", mermaid_text(n.kind), mermaid_text(n.name()));
        let (open, close, class) = match n.role {
            NodeRole::Targetable => ("[\"", "\"]", "targetable"),
            NodeRole::Policy => (">\"", "\"]", "policy"),
            NodeRole::Object => ("([\"", "\"])", "object"),
        };
        let _ = writeln!(out, "    n{}{open}{text}{close}:::{class}", ids[ix]);
    }
    for (a, b, kind) in sorted_edges(t, sel) {
        let arrow = match kind {
            EdgeKind::Link => "-->",
            EdgeKind::Policy => "-.->",
            EdgeKind::Derived => "==>",
        };
        let _ = writeln!(out, "    n{} {arrow} n{}", ids[&a], ids[&b]);
    }
    out.push_str("    classDef targetable fill:#e5e5e5,stroke:#333\n");
    out.push_str("    classDef policy fill:#fff,stroke:#333,stroke-dasharray:4 3\n");
    out.push_str("    classDef object fill:#fff,stroke:#333\n");
    out
}

/// Text inside a quoted Mermaid label: entity codes for the characters Mermaid would interpret.
fn mermaid_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("#quot;"),
            '#' => out.push_str("#35;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '&' => out.push_str("#amp;"),
            c => out.push(c),
        }
    }
    out
}

#[derive(serde::Serialize)]
struct JsonGraph {
    nodes: Vec<JsonNode>,
    edges: Vec<JsonEdge>,
}

#[derive(serde::Serialize)]
struct JsonNode {
    locator: String,
    kind: &'static str,
    /// Empty for cluster-scoped objects.
    namespace: String,
    /// `name`, or `parent#section` for listeners, route rules and service ports.
    name: String,
    role: &'static str,
    /// Policies only: the locator their targetRef names.
    #[serde(skip_serializing_if = "Option::is_none")]
    target: Option<String>,
    /// Policies only: whether that target exists.
    #[serde(skip_serializing_if = "Option::is_none")]
    attached: Option<bool>,
}

#[derive(serde::Serialize)]
struct JsonEdge {
    from: String,
    to: String,
    kind: &'static str,
    comment: String,
}

/// JSON: `{"nodes": [...], "edges": [...]}`, nodes sorted by locator, edges as in [`dot`].
pub fn json(t: &Topology, sel: &Selection) -> String {
    let nodes = sorted_nodes(t, sel, false)
        .into_iter()
        .map(|ix| {
            let n = &t.graph[ix];
            let (namespace, name) = match n.name().split_once('/') {
                Some((ns, name)) => (ns.to_owned(), name.to_owned()),
                None => (String::new(), n.name().to_string()),
            };
            let (target, attached) = match n.what {
                NodeRef::Policy(pi) => (
                    Some(t.model.policies[pi].target_locator().to_string()),
                    Some(t.policy_target(pi).is_some()),
                ),
                NodeRef::Extension(ei) => {
                    let target = t.model.extensions[ei].target_locator();
                    let attached = t.node_index(&target).is_some();
                    (Some(target.to_string()), Some(attached))
                }
                _ => (None, None),
            };
            JsonNode {
                locator: n.locator.to_string(),
                kind: n.kind,
                namespace,
                name,
                role: match n.role {
                    NodeRole::Object => "object",
                    NodeRole::Targetable => "targetable",
                    NodeRole::Policy => "policy",
                },
                target,
                attached,
            }
        })
        .collect();
    let edges = sorted_edges(t, sel)
        .into_iter()
        .map(|(a, b, kind)| JsonEdge {
            from: t.graph[a].locator.to_string(),
            to: t.graph[b].locator.to_string(),
            kind: match kind {
                EdgeKind::Link => "link",
                EdgeKind::Policy => "policy",
                EdgeKind::Derived => "derived",
            },
            comment: edge_comment(t, a, b, kind),
        })
        .collect();
    let mut s = super::terminal::json(
        serde_json::to_string_pretty(&JsonGraph { nodes, edges }).unwrap_or_default(),
    );
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn focus_specs() {
        assert_eq!(
            parse_focus("httproute/toystore/toystore").unwrap().as_str(),
            "httproute.gateway.networking.k8s.io:toystore/toystore"
        );
        assert_eq!(
            parse_focus("gatewayclass/istio").unwrap().as_str(),
            "gatewayclass.gateway.networking.k8s.io:istio"
        );
        assert_eq!(
            parse_focus("listener/ns/gw#http").unwrap().as_str(),
            "gateway.gateway.networking.k8s.io:ns/gw#http"
        );
        assert_eq!(
            parse_focus("RateLimitPolicy/ns/p").unwrap().as_str(),
            "ratelimitpolicy.kuadrant.io:ns/p"
        );
        assert!(parse_focus("listener/ns/gw").is_err());
        assert!(parse_focus("gateway/gw").is_err());
        assert!(parse_focus("widget/ns/x").is_err());
        assert!(parse_focus("gatewayclass/a/b").is_err());
    }
}
