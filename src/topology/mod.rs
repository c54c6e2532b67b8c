//! Topology: the DAG policy-machinery builds for the operator, over the [`Model`].
//!
//! Owns the nodes (GatewayClass, Gateway, Listener, HTTPRoute/GRPCRoute, route rules, Service,
//! ServicePort, policies, Kuadrant), their [`Locator`]s, the link edges derived from the children's specs,
//! policy attachment by target locator, and path enumeration GatewayClass → Gateway → Listener → Route →
//! Rule. Must not merge policies or format output.
//!
//! Version differences (`docs/semantics/versions.md`): on 1.4 GRPCRoutes are not part of the topology and rules are always
//! `rule-N`; on 1.5 GRPCRoutes are expanded and a rule's `name` is its section name.

pub(crate) mod lint;

use crate::model::{
    GATEWAY_API_GROUP, KuadrantVersion, Locator, Model, PolicyKind, RouteKind, hostname_subset_of,
};
use foldhash::{HashMap, HashMapExt};
use petgraph::Direction;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use std::collections::BTreeSet;
use std::sync::{Arc, OnceLock};

/// What a node stands for: indices into the [`Model`]'s vectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NodeRef {
    Kuadrant(usize),
    GatewayClass(usize),
    Gateway(usize),
    /// (gateway, listener)
    Listener(usize, usize),
    Route(usize),
    /// (route, rule)
    Rule(usize, usize),
    Service(usize),
    /// (service, port)
    ServicePort(usize, usize),
    Policy(usize),
    /// An extension policy (`Model::extensions`): drawn by policyctl's own graphs only, never in the
    /// operator's topology (its controllers run outside the operator).
    Extension(usize),
}

/// How policy-machinery draws a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeRole {
    /// Plain object (ellipse): Kuadrant.
    Object,
    /// Targetable (grey box).
    Targetable,
    /// Policy (dashed note).
    Policy,
}

#[derive(Clone, Debug)]
pub struct Node {
    pub locator: Locator,
    /// The label's kind line, e.g. `Listener`, `HTTPRouteRule`.
    pub kind: &'static str,
    pub what: NodeRef,
    pub role: NodeRole,
}

impl Node {
    /// The label's name line: `namespace/name[#section]`, or `name` when cluster-scoped (the
    /// locator after its `kind.group:`).
    pub fn name(&self) -> &str {
        self.locator.name_part()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeKind {
    /// Parent → child link (comment `"<From> -> <To>"`).
    Link,
    /// Policy → target (comment `"Policy -> Target"`, dashed).
    Policy,
    /// Extension policy → the policy its controller creates (comment `"<Kind> -> <Kind>"`, dotted).
    Derived,
}

/// One path GatewayClass → Gateway → Listener → Route → Rule, as indices into the model. Its
/// PathID ([`Topology::path_id`]) and its rule's section name ([`Topology::rule_name`]) are built
/// when asked for: a large estate has a million paths, most of them through listeners the route's
/// hostnames do not match, and only the valid paths with policies ever need their id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Path {
    pub class: usize,
    pub gateway: usize,
    pub listener: usize,
    pub route: usize,
    pub rule: usize,
    /// Whether Kuadrant treats the path as valid (`docs/semantics/paths.md`, "Path validity"): the
    /// route has no hostname, or one of them is a subset of the listener hostname (`*` when it has
    /// none). The other checks of the operator hold for every path the topology enumerates.
    pub valid: bool,
}

/// Link edges (from, to), in the order they are added.
type Edges = Vec<(NodeIndex, NodeIndex)>;

/// The topology of one model.
pub struct Topology<'m> {
    pub model: &'m Model,
    pub graph: DiGraph<Node, EdgeKind>,
    index: HashMap<Locator, NodeIndex>,
    /// Policy index → the node its target locator resolved to.
    attached: HashMap<usize, NodeIndex>,
    /// Node → the policies attached to it, in model order.
    attached_at: HashMap<NodeIndex, Vec<usize>>,
    /// Node → the policies attached to it in `PoliciesInPath` order (creation order, then model
    /// order), by node index: every path looks at five nodes.
    attached_in_order: Vec<Vec<usize>>,
    /// `(namespace, name)` → the first gateway with that key.
    gateway_ix: HashMap<(&'m str, &'m str), usize>,
    /// What the paths are found from (shared with the thread that finds them while the graph is
    /// built).
    data: Arc<PathData>,
    /// Nodes of the targetables of a path, by model indices (what a locator lookup would give).
    class_nodes: Vec<Option<NodeIndex>>,
    gateway_nodes: Vec<Option<NodeIndex>>,
    listener_nodes: Vec<Vec<Option<NodeIndex>>>,
    route_nodes: Vec<Option<NodeIndex>>,
    rule_nodes: Vec<Vec<Option<NodeIndex>>>,
    /// Each service's node, and the nodes of its named ports (`None` for an unnamed one).
    service_nodes: Vec<Option<NodeIndex>>,
    port_nodes: Vec<Vec<Option<NodeIndex>>>,
    /// Each policy's node, by the model's index.
    policy_nodes: Vec<Option<NodeIndex>>,
    /// `paths()`, computed once.
    paths: OnceLock<Vec<Path>>,
}

/// What the paths are found and named from, apart from the graph: [`Topology::build_with_paths`]
/// finds them while the graph is built.
#[derive(Debug, Default)]
struct PathData {
    /// Each route's (gateway, listener) pairs ([`Topology::route_listeners`]), by the model's index.
    route_parents: Vec<Vec<(usize, usize)>>,
    /// Gateway → the first GatewayClass named by its `gatewayClassName`.
    gateway_class_ix: Vec<Option<usize>>,
    /// Each route rule's section name (`rule-N`, or its name on 1.5), by model indices; empty for
    /// routes outside the topology.
    rule_names: Vec<Vec<String>>,
}

/// A model with its [`PathData`]: what finds the paths and builds their ids.
#[derive(Clone, Copy)]
struct PathView<'a> {
    model: &'a Model,
    data: &'a PathData,
}

/// The order the operator registers policy kinds in (`WithPolicyKinds`, identical at v1.4.6 and v1.5.2).
pub(crate) const POLICY_REGISTRATION_ORDER: [PolicyKind; 5] = [
    PolicyKind::Dns,
    PolicyKind::Tls,
    PolicyKind::Auth,
    PolicyKind::RateLimit,
    PolicyKind::TokenRateLimit,
];

/// Whether a route kind is part of the topology for this version.
pub(crate) fn route_in_topology(kind: RouteKind, version: KuadrantVersion) -> bool {
    kind == RouteKind::Http || version == KuadrantVersion::V1_5
}

impl<'m> Topology<'m> {
    /// Build the topology. Node insertion order follows policy-machinery: objects, then targetables
    /// (classes, gateways, routes, services, listeners, rules, service ports), then policies.
    pub fn build(model: &'m Model) -> Self {
        Self::build_then(model, false)
    }

    /// [`Topology::build`] with the path list ([`Topology::path_list`]) found on another core while
    /// the graph is built (mostly on one): for callers that walk the paths.
    pub fn build_with_paths(model: &'m Model) -> Self {
        Self::build_then(model, true)
    }

    fn build_then(model: &'m Model, with_paths: bool) -> Self {
        let mut t = Topology {
            model,
            graph: DiGraph::new(),
            index: HashMap::new(),
            attached: HashMap::new(),
            attached_at: HashMap::new(),
            attached_in_order: Vec::new(),
            gateway_ix: HashMap::new(),
            data: Arc::default(),
            class_nodes: Vec::new(),
            gateway_nodes: Vec::new(),
            listener_nodes: Vec::new(),
            route_nodes: Vec::new(),
            rule_nodes: Vec::new(),
            service_nodes: Vec::new(),
            port_nodes: Vec::new(),
            policy_nodes: Vec::new(),
            paths: OnceLock::new(),
        };
        let mut class_ix: HashMap<&str, usize> = HashMap::new();
        for (i, c) in model.gateway_classes.iter().enumerate() {
            class_ix.entry(c.meta.name.as_str()).or_insert(i);
        }
        let mut gateway_class_ix = Vec::with_capacity(model.gateways.len());
        for (i, g) in model.gateways.iter().enumerate() {
            t.gateway_ix
                .entry((g.meta.namespace.as_str(), g.meta.name.as_str()))
                .or_insert(i);
            gateway_class_ix.push(class_ix.get(g.spec.class_name.value.as_str()).copied());
        }
        // The listeners of every route, found once on every core: the links, the paths and the
        // route views read them.
        let route_parents = crate::par::map(&model.routes, 4096, |r| t.parents_of(r));
        let version = model.version;
        let rule_names = crate::par::map(&model.routes, 4096, |r| {
            if !route_in_topology(r.spec.kind, version) {
                return Vec::new();
            }
            (r.spec.rules.iter().enumerate())
                .map(|(xi, rule)| rule.section_name(xi, version))
                .collect()
        });
        t.data = Arc::new(PathData {
            route_parents,
            gateway_class_ix,
            rule_names,
        });
        let graph = |t: &mut Self| {
            t.reserve();
            t.add_objects();
            t.add_targetables();
            t.add_sections();
            t.add_policies();
            t.link();
            t.add_extensions();
            t.index_attached();
        };
        if with_paths {
            let data = Arc::clone(&t.data);
            let view = PathView { model, data: &data };
            let (paths, ()) = crate::par::join(|| view.paths(), || graph(&mut t));
            // Set only here: `t.paths` is fresh.
            let _ = t.paths.set(paths);
        } else {
            graph(&mut t);
        }
        t
    }

    /// The object nodes: the Kuadrant objects.
    fn add_objects(&mut self) {
        let model = self.model;
        for (i, k) in model.kuadrants.iter().enumerate() {
            self.add(
                Locator::object("Kuadrant", "kuadrant.io", &k.meta.namespace, &k.meta.name),
                "Kuadrant",
                NodeRef::Kuadrant(i),
                NodeRole::Object,
            );
        }
    }

    /// The whole-object targetables: classes, gateways, routes (of the kinds in the topology),
    /// services; each object's node recorded.
    fn add_targetables(&mut self) {
        let model = self.model;
        let version = model.version;
        // Each object's node, recorded as it is added (a second object with a used locator gets the
        // first one's node, as a lookup by locator would).
        self.class_nodes = vec![None; model.gateway_classes.len()];
        self.gateway_nodes = vec![None; model.gateways.len()];
        self.listener_nodes = model
            .gateways
            .iter()
            .map(|g| vec![None; g.spec.listeners.len()])
            .collect();
        self.route_nodes = vec![None; model.routes.len()];
        self.rule_nodes = model
            .routes
            .iter()
            .map(|r| vec![None; r.spec.rules.len()])
            .collect();
        for (i, c) in model.gateway_classes.iter().enumerate() {
            self.class_nodes[i] = Some(self.add(
                Locator::object("GatewayClass", GATEWAY_API_GROUP, "", &c.meta.name),
                "GatewayClass",
                NodeRef::GatewayClass(i),
                NodeRole::Targetable,
            ));
        }
        for (i, g) in model.gateways.iter().enumerate() {
            self.gateway_nodes[i] = Some(self.add(
                gateway_locator(&g.meta.namespace, &g.meta.name),
                "Gateway",
                NodeRef::Gateway(i),
                NodeRole::Targetable,
            ));
        }
        // The locators of routes and services are built on every core first.
        let route_locators = crate::par::map(&model.routes, 4096, |r| {
            route_in_topology(r.spec.kind, version)
                .then(|| route_locator(r.spec.kind, &r.meta.namespace, &r.meta.name))
        });
        for (i, (r, locator)) in model.routes.iter().zip(route_locators).enumerate() {
            let Some(locator) = locator else {
                continue;
            };
            self.route_nodes[i] = Some(self.add(
                locator,
                r.spec.kind.kind(),
                NodeRef::Route(i),
                NodeRole::Targetable,
            ));
        }
        let service_locators = crate::par::map(&model.services, 4096, |s| {
            Locator::object("Service", "", &s.meta.namespace, &s.meta.name)
        });
        self.service_nodes = service_locators
            .into_iter()
            .enumerate()
            .map(|(i, locator)| {
                Some(self.add(
                    locator,
                    "Service",
                    NodeRef::Service(i),
                    NodeRole::Targetable,
                ))
            })
            .collect();
    }

    /// The section targetables: listeners, route rules, named service ports.
    fn add_sections(&mut self) {
        let model = self.model;
        let version = model.version;
        for (gi, g) in model.gateways.iter().enumerate() {
            for (li, l) in g.spec.listeners.iter().enumerate() {
                self.listener_nodes[gi][li] = Some(self.add(
                    gateway_locator(&g.meta.namespace, &g.meta.name).section(&l.name.value),
                    "Listener",
                    NodeRef::Listener(gi, li),
                    NodeRole::Targetable,
                ));
            }
        }
        // The rules' locators are built on every core first.
        let mut rule_locators: Vec<Vec<Locator>> = {
            let rule_names = &self.data.rule_names;
            let routes: Vec<usize> = (0..model.routes.len()).collect();
            crate::par::map(&routes, 4096, |&ri| {
                let r = &model.routes[ri];
                if !route_in_topology(r.spec.kind, version) {
                    return Vec::new();
                }
                let route = route_locator(r.spec.kind, &r.meta.namespace, &r.meta.name);
                (rule_names[ri].iter())
                    .map(|name| route.section(name))
                    .collect()
            })
        };
        for kind in [RouteKind::Http, RouteKind::Grpc] {
            for (ri, r) in model.routes.iter().enumerate() {
                if r.spec.kind != kind || !route_in_topology(kind, version) {
                    continue;
                }
                let locators = std::mem::take(&mut rule_locators[ri]);
                for (xi, locator) in locators.into_iter().enumerate() {
                    self.rule_nodes[ri][xi] = Some(self.add(
                        locator,
                        kind.rule_kind(),
                        NodeRef::Rule(ri, xi),
                        NodeRole::Targetable,
                    ));
                }
            }
        }
        let port_locators = crate::par::map(&model.services, 4096, |s| {
            let service = Locator::object("Service", "", &s.meta.namespace, &s.meta.name);
            (s.spec.ports.iter())
                .map(|(name, _)| name.as_ref().map(|n| service.section(n)))
                .collect::<Vec<_>>()
        });
        self.port_nodes = port_locators
            .into_iter()
            .enumerate()
            .map(|(si, ports)| {
                (ports.into_iter().enumerate())
                    .map(|(pi, locator)| {
                        Some(self.add(
                            locator?,
                            "ServicePort",
                            NodeRef::ServicePort(si, pi),
                            NodeRole::Targetable,
                        ))
                    })
                    .collect()
            })
            .collect();
    }

    /// The policy nodes.
    fn add_policies(&mut self) {
        let model = self.model;
        // Policies are fed kind by kind in the operator's registration order
        // (state_of_the_world.go `WithPolicyKinds`), which fixes their DOT `n<seq>` numbers.
        // The locators are built on every core first (a large estate has tens of thousands).
        let mut locators: Vec<Option<Locator>> =
            crate::par::map(&model.policies, 4096, |p| Some(p.locator()));
        self.policy_nodes = vec![None; model.policies.len()];
        for kind in POLICY_REGISTRATION_ORDER {
            for (pi, p) in model.policies.iter().enumerate() {
                if p.kind != kind {
                    continue;
                }
                let Some(locator) = locators[pi].take() else {
                    continue;
                };
                self.policy_nodes[pi] = Some(self.add(
                    locator,
                    p.kind.kind(),
                    NodeRef::Policy(pi),
                    NodeRole::Policy,
                ));
            }
        }
    }

    /// The extension policies, after everything the operator's topology holds: each with an edge to
    /// its target (when it exists) and one to each policy its controller creates.
    fn add_extensions(&mut self) {
        let m = self.model;
        for (ei, e) in m.extensions.iter().enumerate() {
            let locator = Locator::object(
                e.kind.kind(),
                crate::model::EXTENSIONS_GROUP,
                &e.meta.namespace,
                &e.meta.name,
            );
            self.add(
                locator.clone(),
                e.kind.kind(),
                NodeRef::Extension(ei),
                NodeRole::Policy,
            );
            let target = e.target_locator();
            self.edge(&locator, &target, EdgeKind::Policy);
            let display = e.display();
            for p in &m.policies {
                if p.meta.derived_from.as_deref() == Some(display.as_str()) {
                    self.edge(&locator, &p.locator(), EdgeKind::Derived);
                }
            }
            // An OIDCPolicy's callback HTTPRoute.
            for r in &m.routes {
                if r.meta.derived_from.as_deref() == Some(display.as_str()) {
                    let route = Locator::object(
                        r.spec.kind.kind(),
                        GATEWAY_API_GROUP,
                        &r.meta.namespace,
                        &r.meta.name,
                    );
                    self.edge(&locator, &route, EdgeKind::Derived);
                }
            }
        }
    }

    /// The policies attached to each node, by index and in merge order (after [`Self::link`]).
    fn index_attached(&mut self) {
        let m = self.model;
        let mut at: HashMap<NodeIndex, Vec<usize>> = HashMap::new();
        for (&pi, &ix) in &self.attached {
            at.entry(ix).or_default().push(pi);
        }
        let mut in_order = vec![Vec::new(); self.graph.node_count()];
        for (ix, v) in at.iter_mut() {
            v.sort_unstable();
            let mut o = v.clone();
            if o.len() > 1 {
                o.sort_by(|&a, &b| {
                    let (pa, pb) = (&m.policies[a].meta, &m.policies[b].meta);
                    pa.created
                        .cmp(&pb.created)
                        .then_with(|| pa.key().cmp(&pb.key()))
                });
            }
            if let Some(slot) = in_order.get_mut(ix.index()) {
                *slot = o;
            }
        }
        self.attached_at = at;
        self.attached_in_order = in_order;
    }

    /// The operator release emulated (the model's, chosen at load).
    pub fn version(&self) -> KuadrantVersion {
        self.model.version
    }

    /// The nodes of a path's five targetables, least specific first (`None` for a locator with no node).
    pub fn path_nodes(&self, p: &Path) -> [Option<NodeIndex>; 5] {
        [
            self.class_nodes.get(p.class).copied().flatten(),
            self.gateway_nodes.get(p.gateway).copied().flatten(),
            self.listener_nodes
                .get(p.gateway)
                .and_then(|v| v.get(p.listener))
                .copied()
                .flatten(),
            self.route_nodes.get(p.route).copied().flatten(),
            self.rule_nodes
                .get(p.route)
                .and_then(|v| v.get(p.rule))
                .copied()
                .flatten(),
        ]
    }

    /// The policies attached to a node, in model order.
    pub fn policies_at_node(&self, node: NodeIndex) -> &[usize] {
        self.attached_at.get(&node).map_or(&[], Vec::as_slice)
    }

    /// The policies attached to a node in `PoliciesInPath` order: older first, equal instants by
    /// namespace/name, then model order.
    pub fn policies_at_node_in_order(&self, node: NodeIndex) -> &[usize] {
        self.attached_in_order
            .get(node.index())
            .map_or(&[], Vec::as_slice)
    }

    /// Whether any policy is attached to a node.
    pub fn has_policies(&self, node: NodeIndex) -> bool {
        !self.policies_at_node_in_order(node).is_empty()
    }

    /// On 1.4, which names route rules only by position: the `rule-N` of the rule whose `name` a
    /// section locator (`…route#name`) uses, when that name is not also a section of the route.
    /// `None` on 1.5, for other locators, and when no rule has that name.
    pub fn positional_rule(&self, target: &Locator) -> Option<String> {
        if self.version() != KuadrantVersion::V1_4 || self.node(target).is_some() {
            return None;
        }
        let (object, section) = target.split_section()?;
        let NodeRef::Route(ri) = self.node(&object)?.what else {
            return None;
        };
        self.model.routes[ri]
            .spec
            .rules
            .iter()
            .position(|r| r.name.as_ref().is_some_and(|n| n.value == section))
            .map(|i| format!("rule-{}", i + 1))
    }

    /// The GatewayClass a gateway names (the first with that name), if any.
    pub fn gateway_class_of(&self, gateway: usize) -> Option<usize> {
        self.view().gateway_class_of(gateway)
    }

    fn add(
        &mut self,
        locator: Locator,
        kind: &'static str,
        what: NodeRef,
        role: NodeRole,
    ) -> NodeIndex {
        if let Some(&ix) = self.index.get(&locator) {
            // A second object with a used locator reuses the node (policy-machinery overwrites the label).
            return ix;
        }
        let ix = self.graph.add_node(Node {
            locator: locator.clone(),
            kind,
            what,
            role,
        });
        self.index.insert(locator, ix);
        ix
    }

    fn edge(&mut self, from: &Locator, to: &Locator, kind: EdgeKind) {
        if let (Some(&a), Some(&b)) = (self.index.get(from), self.index.get(to)) {
            self.graph.add_edge(a, b, kind);
        }
    }

    /// [`Self::edge`] between nodes already known (recorded by [`Self::build`] as they were added).
    fn edge_between(&mut self, from: Option<NodeIndex>, to: Option<NodeIndex>, kind: EdgeKind) {
        if let (Some(a), Some(b)) = (from, to) {
            self.graph.add_edge(a, b, kind);
        }
    }

    /// Edges, in policy-machinery's insertion order: policy edges first, then the link functions.
    fn link(&mut self) {
        let m = self.model;
        // Each policy's target looked up on every core; the edges added in policy order.
        let targets: Vec<Option<NodeIndex>> = {
            let index = &self.index;
            crate::par::map(&m.policies, 4096, |p| {
                index.get(&p.target_locator()).copied()
            })
        };
        for (pi, target) in targets.into_iter().enumerate() {
            if let Some(ix) = target {
                self.attached.insert(pi, ix);
                self.edge_between(self.policy_nodes[pi], Some(ix), EdgeKind::Policy);
            }
        }
        // Kuadrant → every GatewayClass.
        for k in &m.kuadrants {
            let kl = Locator::object("Kuadrant", "kuadrant.io", &k.meta.namespace, &k.meta.name);
            for c in &m.gateway_classes {
                self.edge(
                    &kl,
                    &Locator::object("GatewayClass", GATEWAY_API_GROUP, "", &c.meta.name),
                    EdgeKind::Link,
                );
            }
        }
        // GatewayClass → Gateway (by name; first match).
        for (gi, g) in m.gateways.iter().enumerate() {
            if let Some(c) = self.gateway_class_of(gi).map(|ci| &m.gateway_classes[ci]) {
                self.edge(
                    &Locator::object("GatewayClass", GATEWAY_API_GROUP, "", &c.meta.name),
                    &gateway_locator(&g.meta.namespace, &g.meta.name),
                    EdgeKind::Link,
                );
            }
        }
        // Gateway → Listener. The nodes of gateways, listeners, routes and rules were recorded when
        // they were added; the links below use them instead of looking locators up again.
        for (gi, g) in m.gateways.iter().enumerate() {
            for li in 0..g.spec.listeners.len() {
                self.edge_between(
                    self.gateway_nodes[gi],
                    self.listener_nodes[gi][li],
                    EdgeKind::Link,
                );
            }
        }
        // Listener → Route, per parentRef in order (HTTP, then GRPC); then the links of the
        // routes' rules. Each route's edges are found on every core, then added in that order.
        let (listener_edges, rule_edges) = self.route_edges();
        for kind in [RouteKind::Http, RouteKind::Grpc] {
            for (ri, r) in m.routes.iter().enumerate() {
                if r.spec.kind == kind {
                    self.add_edges(&listener_edges[ri]);
                }
            }
        }
        for kind in [RouteKind::Http, RouteKind::Grpc] {
            for (ri, r) in m.routes.iter().enumerate() {
                if r.spec.kind == kind {
                    self.add_edges(&rule_edges[ri]);
                }
            }
        }
        // Service → ServicePort, from the nodes recorded as they were added.
        for si in 0..m.services.len() {
            for pi in 0..self.port_nodes[si].len() {
                let port = self.port_nodes[si][pi];
                self.edge_between(self.service_nodes[si], port, EdgeKind::Link);
            }
        }
    }

    /// Link edges, in the order they are added.
    fn add_edges(&mut self, edges: &[(NodeIndex, NodeIndex)]) {
        for &(a, b) in edges {
            self.graph.add_edge(a, b, EdgeKind::Link);
        }
    }

    /// Each route's link edges, by the model's index (none for routes outside the topology): its
    /// listeners' edges to it, in parentRef order; and Route → Rule, Rule → ServicePort (backendRefs
    /// with a port), Rule → Service (without).
    fn route_edges(&self) -> (Vec<Edges>, Vec<Edges>) {
        let m = self.model;
        let mut service_ix: HashMap<(&str, &str), usize> = HashMap::new();
        for (i, s) in m.services.iter().enumerate() {
            service_ix
                .entry((s.meta.namespace.as_str(), s.meta.name.as_str()))
                .or_insert(i);
        }
        let routes: Vec<usize> = (0..m.routes.len()).collect();
        crate::par::map(&routes, 4096, |&ri| {
            let r = &m.routes[ri];
            let (mut listeners, mut rules) = (Vec::new(), Vec::new());
            if !route_in_topology(r.spec.kind, self.version()) {
                return (listeners, rules);
            }
            let link = |out: &mut Vec<_>, a: Option<NodeIndex>, b: Option<NodeIndex>| {
                if let (Some(a), Some(b)) = (a, b) {
                    out.push((a, b));
                }
            };
            for &(gi, li) in self.route_listeners(ri) {
                link(
                    &mut listeners,
                    self.listener_nodes[gi][li],
                    self.route_nodes[ri],
                );
            }
            for xi in 0..r.spec.rules.len() {
                link(&mut rules, self.route_nodes[ri], self.rule_nodes[ri][xi]);
            }
            for (xi, rule) in r.spec.rules.iter().enumerate() {
                let rule_n = self.rule_nodes[ri][xi];
                for b in &rule.backend_refs {
                    let Some(port) = b.port else { continue };
                    if !b.group.is_empty() || b.kind != "Service" {
                        continue;
                    }
                    let ns = b.namespace.as_deref().unwrap_or(&r.meta.namespace);
                    if let Some(s) = service_ix
                        .get(&(ns, b.name.as_str()))
                        .map(|&i| &m.services[i])
                        && let Some((Some(pn), _)) = s.spec.ports.iter().find(|(_, p)| *p == port)
                    {
                        let sl = Locator::object("Service", "", ns, &b.name).section(pn);
                        link(&mut rules, rule_n, self.index.get(&sl).copied());
                    }
                }
            }
            for (xi, rule) in r.spec.rules.iter().enumerate() {
                let rule_n = self.rule_nodes[ri][xi];
                for b in &rule.backend_refs {
                    if b.port.is_some() || !b.group.is_empty() || b.kind != "Service" {
                        continue;
                    }
                    let ns = b.namespace.as_deref().unwrap_or(&r.meta.namespace);
                    let to = self
                        .index
                        .get(&Locator::object("Service", "", ns, &b.name))
                        .copied();
                    link(&mut rules, rule_n, to);
                }
            }
            (listeners, rules)
        })
        .into_iter()
        .unzip()
    }

    /// The (gateway, listener) pairs a route attaches to, one entry per parentRef match, in parentRef
    /// order (duplicates kept, as policy-machinery draws duplicate edges). Port, allowedRoutes and
    /// hostnames are not consulted.
    pub fn route_listeners(&self, route: usize) -> &[(usize, usize)] {
        self.view().route_listeners(route)
    }

    /// [`Self::route_listeners`] of one route, from the gateway index.
    fn parents_of(&self, r: &crate::model::Obj<crate::model::Route>) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for pr in &r.spec.parent_refs {
            if pr.group != GATEWAY_API_GROUP || pr.kind != "Gateway" {
                continue;
            }
            let ns = pr.namespace.as_deref().unwrap_or(&r.meta.namespace);
            let Some(&gi) = self.gateway_ix.get(&(ns, pr.name.as_str())) else {
                continue;
            };
            for (li, l) in self.model.gateways[gi].spec.listeners.iter().enumerate() {
                if pr.section_name.as_ref().is_none_or(|s| *s == l.name.value) {
                    out.push((gi, li));
                }
            }
        }
        out
    }

    /// Room in the graph and the locator index for every node the build adds, and for the links
    /// of routes and rules (a large estate would otherwise grow them a dozen times over).
    fn reserve(&mut self) {
        let m = self.model;
        let version = m.version;
        let in_topology = || (m.routes.iter()).filter(|r| route_in_topology(r.spec.kind, version));
        let listeners: usize = m.gateways.iter().map(|g| g.spec.listeners.len()).sum();
        let rules: usize = in_topology().map(|r| r.spec.rules.len()).sum();
        let ports: usize = (m.services.iter())
            .map(|s| s.spec.ports.iter().filter(|(n, _)| n.is_some()).count())
            .sum();
        let nodes = m.kuadrants.len()
            + m.gateway_classes.len()
            + m.gateways.len()
            + in_topology().count()
            + m.services.len()
            + listeners
            + rules
            + ports
            + m.policies.len()
            + m.extensions.len();
        let parents: usize = self.data.route_parents.iter().map(Vec::len).sum();
        let backends: usize = in_topology()
            .flat_map(|r| &r.spec.rules)
            .map(|x| x.backend_refs.len())
            .sum();
        let edges = m.policies.len() + listeners + parents + rules + backends + ports;
        self.graph.reserve_nodes(nodes);
        self.graph.reserve_edges(edges);
        self.index.reserve(nodes);
    }

    /// The nodes `--for` keeps around `focus`: the node itself, its ancestors and descendants along link
    /// edges, and every policy attached to any of them. For a policy: the policy itself, and the
    /// neighbourhood of its target when it is attached.
    pub fn focus(&self, focus: NodeIndex) -> BTreeSet<NodeIndex> {
        let mut keep = BTreeSet::new();
        let start = if self.graph[focus].role == NodeRole::Policy {
            keep.insert(focus);
            match self
                .graph
                .edges(focus)
                .find(|e| *e.weight() == EdgeKind::Policy)
            {
                Some(e) => e.target(),
                None => return keep,
            }
        } else {
            focus
        };
        for dir in [Direction::Incoming, Direction::Outgoing] {
            let mut stack = vec![start];
            while let Some(n) = stack.pop() {
                if !keep.insert(n) && n != start {
                    continue;
                }
                for e in self.graph.edges_directed(n, dir) {
                    if *e.weight() == EdgeKind::Link {
                        let next = if dir == Direction::Incoming {
                            e.source()
                        } else {
                            e.target()
                        };
                        if !keep.contains(&next) {
                            stack.push(next);
                        }
                    }
                }
            }
        }
        let targets: Vec<NodeIndex> = keep.iter().copied().collect();
        for n in targets {
            for e in self.graph.edges_directed(n, Direction::Incoming) {
                if *e.weight() == EdgeKind::Policy {
                    keep.insert(e.source());
                }
            }
        }
        keep
    }

    pub fn node(&self, locator: &Locator) -> Option<&Node> {
        self.index.get(locator).map(|ix| &self.graph[*ix])
    }

    pub fn node_index(&self, locator: &Locator) -> Option<NodeIndex> {
        self.index.get(locator).copied()
    }

    /// The node a policy is attached to, if its target exists.
    pub fn policy_target(&self, policy: usize) -> Option<&Node> {
        self.attached.get(&policy).map(|ix| &self.graph[*ix])
    }

    /// A policy's locator ([`crate::model::Policy::locator`]), from its node when it has one (the
    /// node's locator is the one the policy's was looked up by: equal text).
    pub fn policy_locator(&self, policy: usize) -> Locator {
        match self.policy_nodes.get(policy).copied().flatten() {
            Some(ix) => self.graph[ix].locator.clone(),
            None => self.model.policies[policy].locator(),
        }
    }

    /// Every path GatewayClass → Gateway → Listener → Route → Rule, de-duplicated, in PathID order.
    pub fn paths(&self) -> Vec<Path> {
        self.path_list().to_vec()
    }

    /// [`Topology::paths`] without the copy: computed on first use, then kept.
    pub fn path_list(&self) -> &[Path] {
        self.paths.get_or_init(|| self.view().paths())
    }

    /// The section name of a path's rule: `rule-N`, or the rule's name on 1.5.
    pub fn rule_name(&self, p: &Path) -> &str {
        self.view().rule_name(p)
    }

    /// A path's `PathID` (`docs/semantics/paths.md`): `class|ns/gw|ns/gw#listener|ns/route|ns/route#rule`.
    pub fn path_id(&self, p: &Path) -> String {
        self.view().path_id(p)
    }

    /// [`Topology::path_id`] with the `namespace/name` of the path's gateway and route given.
    pub(crate) fn path_id_with(&self, p: &Path, gk: &str, rk: &str) -> String {
        self.view().path_id_with(p, gk, rk)
    }

    fn view(&self) -> PathView<'_> {
        PathView {
            model: self.model,
            data: &self.data,
        }
    }

    /// The locators of a path's five targetables, least specific first.
    pub fn path_locators(&self, p: &Path) -> [Locator; 5] {
        let m = self.model;
        let g = &m.gateways[p.gateway];
        let r = &m.routes[p.route];
        let gl = gateway_locator(&g.meta.namespace, &g.meta.name);
        let rl = route_locator(r.spec.kind, &r.meta.namespace, &r.meta.name);
        [
            Locator::object(
                "GatewayClass",
                GATEWAY_API_GROUP,
                "",
                &m.gateway_classes[p.class].meta.name,
            ),
            gl.clone(),
            gl.section(&g.spec.listeners[p.listener].name.value),
            rl.clone(),
            rl.section(self.rule_name(p)),
        ]
    }
}

impl<'a> PathView<'a> {
    fn version(&self) -> KuadrantVersion {
        self.model.version
    }

    /// [`Topology::route_listeners`].
    fn route_listeners(&self, route: usize) -> &'a [(usize, usize)] {
        (self.data.route_parents.get(route)).map_or(&[], Vec::as_slice)
    }

    /// [`Topology::gateway_class_of`].
    fn gateway_class_of(&self, gateway: usize) -> Option<usize> {
        self.data.gateway_class_ix.get(gateway).copied().flatten()
    }

    /// [`Topology::path_list`].
    fn paths(&self) -> Vec<Path> {
        // Routes in parts on every core, the parts' paths joined in route order.
        const ROUTES_PER_THREAD: usize = 4096;
        let routes = self.model.routes.len();
        let threads = crate::par::cores().min(routes / ROUTES_PER_THREAD).max(1);
        let order = PathOrder::new(self);
        if let Some(paths) = (order.as_ref()).and_then(|o| self.paths_in_order(o, threads)) {
            return paths;
        }
        self.sorted_paths(order, threads)
    }

    /// The paths in PathID order by enumerating them in that order, when every name ranks apart
    /// from the others of its scope (gateways, a gateway's listeners, the routes of the topology, a
    /// route's rules): a path's key then names one path, and sorting by it is going through the
    /// gateways in (class, gateway) order, each one's listeners in order, the routes attached to
    /// each listener in order and their rules in order. A path met twice (a route whose
    /// `parentRefs` name a listener twice) is the same path: it is kept once, as the sort's
    /// de-duplication keeps it. `None` when names tie (a GRPCRoute and an HTTPRoute of the same
    /// name, objects never checked against their schemas): [`Topology::sorted_paths`] decides
    /// those.
    fn paths_in_order(&self, order: &PathOrder, threads: usize) -> Option<Vec<Path>> {
        let m = self.model;
        let version = self.version();
        fn distinct(ranks: impl Iterator<Item = u32>) -> bool {
            let mut v: Vec<u32> = ranks.collect();
            v.sort_unstable();
            v.windows(2).all(|w| w[0] != w[1])
        }
        let routes: Vec<usize> = (0..m.routes.len())
            .filter(|&ri| route_in_topology(m.routes[ri].spec.kind, version))
            .collect();
        if !distinct(order.gateway.iter().copied())
            || !order.listener.iter().all(|v| distinct(v.iter().copied()))
            || !distinct(routes.iter().map(|&ri| order.route[ri]))
            || !routes
                .iter()
                .all(|&ri| distinct(order.rule[ri].iter().copied()))
        {
            return None;
        }
        // Each listener's routes, in route order (a bucket per listener, gateway by gateway).
        let mut by_rank = routes;
        by_rank.sort_unstable_by_key(|&ri| order.route[ri]);
        let mut first_bucket = Vec::with_capacity(m.gateways.len());
        let mut buckets = 0;
        for g in &m.gateways {
            first_bucket.push(buckets);
            buckets += g.spec.listeners.len();
        }
        let mut attached: Vec<Vec<usize>> = vec![Vec::new(); buckets];
        for &ri in &by_rank {
            for &(gi, li) in self.route_listeners(ri) {
                let bucket = &mut attached[first_bucket[gi] + li];
                if bucket.last() != Some(&ri) {
                    bucket.push(ri);
                }
            }
        }
        // Each route's rules in order (most routes' are in it already: none is kept for them).
        let rule_order: Vec<Option<Vec<usize>>> = (0..m.routes.len())
            .map(|ri| {
                let ranks = &order.rule[ri];
                if ranks.windows(2).all(|w| w[0] < w[1]) {
                    return None;
                }
                let mut v: Vec<usize> = (0..ranks.len()).collect();
                v.sort_unstable_by_key(|&xi| ranks[xi]);
                Some(v)
            })
            .collect();
        // The listeners in order, each with its class, and the paths through each.
        let mut gateways: Vec<(usize, usize)> = (0..m.gateways.len())
            .filter_map(|gi| Some((self.gateway_class_of(gi)?, gi)))
            .collect();
        gateways.sort_unstable_by_key(|&(ci, gi)| (order.class[ci], order.gateway[gi]));
        let mut listeners: Vec<(usize, usize, usize, usize)> = Vec::new();
        let mut total = 0;
        for (ci, gi) in gateways {
            let mut lis: Vec<usize> = (0..m.gateways[gi].spec.listeners.len()).collect();
            lis.sort_unstable_by_key(|&li| order.listener[gi][li]);
            for li in lis {
                let n: usize = (attached[first_bucket[gi] + li].iter())
                    .map(|&ri| m.routes[ri].spec.rules.len())
                    .sum();
                total += n;
                listeners.push((ci, gi, li, n));
            }
        }
        // The listeners cut into runs of about the same number of paths, one per core.
        let per = total.div_ceil(threads.max(1)).max(1);
        let runs = crate::par::weighted_ranges(listeners.iter().map(|l| l.3), per);
        let parts = crate::par::map_owned(runs, 1, |(r, room)| {
            // The first run has room for them all: only the others' paths are copied after.
            let mut out = Vec::with_capacity(if r.start == 0 { total } else { room });
            for &(ci, gi, li, _) in &listeners[r] {
                for &ri in &attached[first_bucket[gi] + li] {
                    let through = (ci, gi, li, ri);
                    match &rule_order[ri] {
                        None => {
                            self.push_paths(through, 0..m.routes[ri].spec.rules.len(), &mut out)
                        }
                        Some(v) => self.push_paths(through, v.iter().copied(), &mut out),
                    }
                }
            }
            out
        });
        Some(crate::par::joined(parts))
    }

    /// The paths through `(class, gateway, listener, route)`, one per rule of `rules`, onto `out`.
    fn push_paths(
        &self,
        (class, gateway, listener, route): (usize, usize, usize, usize),
        rules: impl Iterator<Item = usize>,
        out: &mut Vec<Path>,
    ) {
        let valid = self.path_valid(route, gateway, listener);
        out.extend(rules.map(|rule| Path {
            class,
            gateway,
            listener,
            route,
            rule,
            valid,
        }));
    }

    /// Whether the path through a route and a listener is valid ([`Path::valid`]).
    fn path_valid(&self, ri: usize, gi: usize, li: usize) -> bool {
        let r = &self.model.routes[ri];
        let listener = &self.model.gateways[gi].spec.listeners[li];
        let listener_host = listener.hostname.as_ref().map_or("*", |h| h.value.as_str());
        r.spec.hostnames.is_empty()
            || (r.spec.hostnames.iter()).any(|h| hostname_subset_of(&h.value, listener_host))
    }

    /// The paths enumerated route by route on every core, then sorted into PathID order by `order`
    /// (`None` when a name holds a `|`: by the ids themselves).
    fn sorted_paths(&self, order: Option<PathOrder>, threads: usize) -> Vec<Path> {
        let routes = self.model.routes.len();
        let parts = crate::par::map_ranges(crate::par::even_ranges(routes, threads), |r| {
            self.paths_of_routes(r)
        });
        // PathID order; a stable sort keeps the first of equal ids first, and `dedup_by` keeps
        // it, as the insert-if-unseen loop of the operator's map does.
        match order {
            Some(order) => {
                // Each key computed once, a part on each core, with the path's place (part, then
                // index in it: the enumeration order), which makes the unstable sort stable. Keys
                // and places packed into one number where they fit (they do but on contrived
                // estates) sort several times faster than the five ranks and the place apart.
                let longest = parts.iter().map(Vec::len).max().unwrap_or(0);
                let place = [bits(parts.len()), bits(longest)];
                match order.packing(place) {
                    Some(packing) => {
                        let keyed = crate::par::map_ranges(
                            crate::par::even_ranges(parts.len(), threads),
                            |r| {
                                let mut keyed: Vec<u128> = Vec::new();
                                for k in r {
                                    keyed.extend(
                                        (parts[k].iter().enumerate())
                                            .map(|(i, p)| packing.pack(&order.key(p), k, i)),
                                    );
                                }
                                keyed
                            },
                        );
                        let mut keyed = crate::par::joined(keyed);
                        crate::par::sort_unstable(&mut keyed);
                        keyed.dedup_by_key(|k| packing.key_of(*k));
                        keyed
                            .iter()
                            .map(|&k| {
                                let (k, i) = packing.place_of(k);
                                parts[k][i]
                            })
                            .collect()
                    }
                    None => {
                        let keyed = crate::par::map_ranges(
                            crate::par::even_ranges(parts.len(), threads),
                            |r| {
                                let mut keyed: Vec<([u32; 5], (usize, usize))> = Vec::new();
                                for k in r {
                                    keyed.extend(
                                        (parts[k].iter().enumerate())
                                            .map(|(i, p)| (order.key(p), (k, i))),
                                    );
                                }
                                keyed
                            },
                        );
                        let mut keyed = crate::par::joined(keyed);
                        crate::par::sort_unstable(&mut keyed);
                        keyed.dedup_by_key(|k| k.0);
                        keyed.iter().map(|&(_, (k, i))| parts[k][i]).collect()
                    }
                }
            }
            None => {
                let out = crate::par::joined(parts);
                // A name with a `|` (which no valid object has): compare the ids themselves.
                let mut keyed: Vec<(String, Path)> =
                    out.into_iter().map(|p| (self.path_id(&p), p)).collect();
                keyed.sort_by(|a, b| a.0.cmp(&b.0));
                keyed.dedup_by(|later, first| later.0 == first.0);
                keyed.into_iter().map(|(_, p)| p).collect()
            }
        }
    }

    /// The paths through the routes of `routes`, in route, parent, listener and rule order.
    fn paths_of_routes(&self, routes: std::ops::Range<usize>) -> Vec<Path> {
        let m = self.model;
        // Room for every path up front: a large estate's are hundreds of thousands, and a vector
        // grown by doubling copies them into fresh memory again and again.
        let room = (routes.clone())
            .map(|ri| self.route_listeners(ri).len() * m.routes[ri].spec.rules.len())
            .sum();
        let mut out = Vec::with_capacity(room);
        for ri in routes {
            let r = &m.routes[ri];
            if !route_in_topology(r.spec.kind, self.version()) {
                continue;
            }
            for &(gi, li) in self.route_listeners(ri) {
                let Some(ci) = self.gateway_class_of(gi) else {
                    continue;
                };
                self.push_paths((ci, gi, li, ri), 0..r.spec.rules.len(), &mut out);
            }
        }
        out
    }

    /// The section name of a path's rule: `rule-N`, or the rule's name on 1.5.
    fn rule_name(&self, p: &Path) -> &'a str {
        self.data
            .rule_names
            .get(p.route)
            .and_then(|v| v.get(p.rule))
            .map_or("", String::as_str)
    }

    /// A path's `PathID` (`docs/semantics/paths.md`): `class|ns/gw|ns/gw#listener|ns/route|ns/route#rule`.
    fn path_id(&self, p: &Path) -> String {
        let m = self.model;
        let (gk, rk) = (
            m.gateways[p.gateway].meta.key(),
            m.routes[p.route].meta.key(),
        );
        self.path_id_with(p, &gk, &rk)
    }

    /// [`PathView::path_id`] with the `namespace/name` of the path's gateway and route given.
    fn path_id_with(&self, p: &Path, gk: &str, rk: &str) -> String {
        let m = self.model;
        let class = &m.gateway_classes[p.class].meta.name;
        let g = &m.gateways[p.gateway];
        let listener = &g.spec.listeners[p.listener].name.value;
        let rule = self.rule_name(p);
        let mut id = String::with_capacity(
            class.len() + 2 * gk.len() + listener.len() + 2 * rk.len() + rule.len() + 6,
        );
        for part in [
            class.as_str(),
            "|",
            gk,
            "|",
            gk,
            "#",
            listener,
            "|",
            rk,
            "|",
            rk,
            "#",
            rule,
        ] {
            id.push_str(part);
        }
        id
    }
}

/// The PathID order of paths, without building their ids: each part of an id ends with `|` (the
/// last one with the end of the id), so comparing two ids compares their first differing parts as
/// if each ended with `|`. With each name ranked in that order once, a path's key is five numbers:
/// class, gateway (`ns/name`), listener name, route (`ns/name`), rule section name. Equal keys are
/// equal ids. This holds while no name contains a `|`; [`PathOrder::new`] gives `None` otherwise.
struct PathOrder {
    class: Vec<u32>,
    gateway: Vec<u32>,
    /// By gateway, then listener.
    listener: Vec<Vec<u32>>,
    route: Vec<u32>,
    /// By route, then rule.
    rule: Vec<Vec<u32>>,
}

impl PathOrder {
    fn new(t: &PathView<'_>) -> Option<Self> {
        let m = t.model;
        let gateway_keys: Vec<String> = m.gateways.iter().map(|g| g.meta.key()).collect();
        let route_keys: Vec<String> = m.routes.iter().map(|r| r.meta.key()).collect();
        let class: Vec<&str> = m
            .gateway_classes
            .iter()
            .map(|c| c.meta.name.as_str())
            .collect();
        let listeners: Vec<Vec<&str>> = (m.gateways.iter())
            .map(|g| {
                g.spec
                    .listeners
                    .iter()
                    .map(|l| l.name.value.as_str())
                    .collect()
            })
            .collect();
        let rules: Vec<Vec<&str>> = (t.data.rule_names.iter())
            .map(|v| v.iter().map(String::as_str).collect())
            .collect();
        let bar = |s: &&str| s.contains('|');
        if class.iter().any(bar)
            || gateway_keys
                .iter()
                .map(String::as_str)
                .any(|s| s.contains('|'))
            || route_keys
                .iter()
                .map(String::as_str)
                .any(|s| s.contains('|'))
            || listeners.iter().flatten().any(bar)
            || rules.iter().flatten().any(bar)
        {
            return None;
        }
        let gateway_refs: Vec<&str> = gateway_keys.iter().map(String::as_str).collect();
        let route_refs: Vec<&str> = route_keys.iter().map(String::as_str).collect();
        let listener_ranks = ranks(listeners.iter().flatten().copied(), true);
        let rule_ranks = ranks(rules.iter().flatten().copied(), false);
        Some(PathOrder {
            class: ranks(class.iter().copied(), true).ranked(&class),
            gateway: ranks(gateway_refs.iter().copied(), true).ranked(&gateway_refs),
            listener: listeners.iter().map(|v| listener_ranks.ranked(v)).collect(),
            route: ranks(route_refs.iter().copied(), true).ranked(&route_refs),
            rule: rules.iter().map(|v| rule_ranks.ranked(v)).collect(),
        })
    }

    /// How to pack keys and places with `place` bits (of the part, of the index) into one
    /// number, if they fit.
    fn packing(&self, place: [u32; 2]) -> Option<Packing> {
        let most = |v: &mut dyn Iterator<Item = u32>| bits(v.max().map_or(0, |m| m as usize + 1));
        let widths = [
            most(&mut self.class.iter().copied()),
            most(&mut self.gateway.iter().copied()),
            most(&mut self.listener.iter().flatten().copied()),
            most(&mut self.route.iter().copied()),
            most(&mut self.rule.iter().flatten().copied()),
            place[0],
            place[1],
        ];
        (widths.iter().sum::<u32>() <= u128::BITS).then_some(Packing {
            widths,
            place: place[0] + place[1],
        })
    }

    fn key(&self, p: &Path) -> [u32; 5] {
        [
            self.class[p.class],
            self.gateway[p.gateway],
            self.listener[p.gateway][p.listener],
            self.route[p.route],
            self.rule[p.route][p.rule],
        ]
    }
}

/// The number of bits that hold every number below `n`.
fn bits(n: usize) -> u32 {
    usize::BITS - n.saturating_sub(1).leading_zeros()
}

/// A path's key ([`PathOrder::key`]) and place (part, index in it) packed into one number whose
/// order is that of the key, then of the place: each field in as many bits as its largest value
/// needs, the key's five ranks first.
#[derive(Clone, Copy)]
struct Packing {
    /// Bits of the five ranks, then of the part and of the index.
    widths: [u32; 7],
    /// Bits of the place (part and index).
    place: u32,
}

impl Packing {
    fn pack(&self, key: &[u32; 5], part: usize, index: usize) -> u128 {
        let fields = key
            .iter()
            .map(|&r| u128::from(r))
            .chain([part as u128, index as u128]);
        fields
            .zip(self.widths)
            .fold(0u128, |acc, (v, w)| (acc << w) | v)
    }

    /// The key's bits of a packed number: equal for equal keys.
    fn key_of(&self, packed: u128) -> u128 {
        packed >> self.place
    }

    fn place_of(&self, packed: u128) -> (usize, usize) {
        let index_bits = self.widths[6];
        let index = packed & ((1u128 << index_bits) - 1);
        let part = (packed >> index_bits) & ((1u128 << self.widths[5]) - 1);
        (part as usize, index as usize)
    }
}

/// The distinct names of a part, sorted as the part sorts inside an id.
struct Ranks<'a>(Vec<&'a str>, bool);

/// Rank `names`; `terminated` when the part is followed by a `|` in the id (all but the rule).
fn ranks<'a>(names: impl Iterator<Item = &'a str>, terminated: bool) -> Ranks<'a> {
    let mut v: Vec<&str> = names.collect();
    v.sort_unstable_by(|a, b| part_order(a, b, terminated));
    v.dedup();
    Ranks(v, terminated)
}

impl Ranks<'_> {
    /// The rank of each name (each one of the ranked names).
    fn ranked(&self, names: &[&str]) -> Vec<u32> {
        names
            .iter()
            .map(|n| {
                let i = self.0.partition_point(|x| part_order(x, n, self.1).is_lt());
                u32::try_from(i).unwrap_or(u32::MAX)
            })
            .collect()
    }
}

/// The order of two parts of ids: as strings, each followed by a `|` when `terminated`.
fn part_order(a: &str, b: &str, terminated: bool) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    if !terminated {
        return a.cmp(b);
    }
    // `a|` against `b|`: the common length compares as the strings do; past it, the shorter
    // one's `|` meets the longer one's next byte, and if that is a `|` too, the shorter one
    // has ended first.
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len().min(b.len());
    match a[..n].cmp(&b[..n]) {
        Ordering::Equal => match (a.get(n), b.get(n)) {
            (Some(x), _) => x.cmp(&b'|').then(Ordering::Greater),
            (None, Some(y)) => b'|'.cmp(y).then(Ordering::Less),
            (None, None) => Ordering::Equal,
        },
        o => o,
    }
}

pub(crate) fn gateway_locator(ns: &str, name: &str) -> Locator {
    Locator::object("Gateway", GATEWAY_API_GROUP, ns, name)
}

pub(crate) fn route_locator(kind: RouteKind, ns: &str, name: &str) -> Locator {
    Locator::object(kind.kind(), GATEWAY_API_GROUP, ns, name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::{Input, LoadOptions, load};

    /// Names that are prefixes of one another and differ by the bytes around `|` and `#`; with
    /// `grpc`, a GRPCRoute of the same namespace and name as an HTTPRoute.
    fn estate(grpc: bool) -> String {
        let mut s = String::new();
        for class in ["gc", "gc-a"] {
            s.push_str(&format!(
                "---\napiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {{name: {class}}}\nspec: {{controllerName: istio.io/gateway-controller}}\n"
            ));
        }
        let gateways = [
            ("n", "g", "gc"),
            ("n", "g-1", "gc-a"),
            ("n", "g1", "gc"),
            ("n-a", "g", "gc"),
            ("na", "g.1", "gc-a"),
        ];
        for (ns, name, class) in gateways {
            s.push_str(&format!(
                "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {{name: \"{name}\", namespace: \"{ns}\"}}\nspec:\n  gatewayClassName: {class}\n  listeners:\n"
            ));
            for (l, host) in [
                ("l", "a.example.com"),
                ("l-1", "*.example.com"),
                ("l1", "b.example.com"),
                ("l.1", "*.b.example.com"),
                ("l0", ""),
            ] {
                let host = if host.is_empty() {
                    String::new()
                } else {
                    format!(", hostname: \"{host}\"")
                };
                s.push_str(&format!(
                    "  - {{name: {l}, port: 80, protocol: HTTP{host}, allowedRoutes: {{namespaces: {{from: All}}}}}}\n"
                ));
            }
        }
        let routes = [
            ("HTTPRoute", "n", "r", "[a.example.com]"),
            ("HTTPRoute", "n", "r-1", "[]"),
            ("HTTPRoute", "n-a", "r1", "[x.b.example.com]"),
            ("HTTPRoute", "n", "r.1", "[\"*.example.com\"]"),
            ("GRPCRoute", "n", "r", "[b.example.com]"),
        ];
        let routes = &routes[..if grpc { 5 } else { 4 }];
        for (i, &(kind, ns, name, hosts)) in routes.iter().enumerate() {
            // `n` is quoted (kubectl reads a plain `n` as a boolean). The last parentRef names the
            // route's namespace by leaving it out: the CRD's rule that references to one parent all
            // have a sectionName or none compares the written namespaces, so it does not apply.
            s.push_str(&format!(
                "---\napiVersion: gateway.networking.k8s.io/v1\nkind: {kind}\nmetadata: {{name: \"{name}\", namespace: \"{ns}\"}}\nspec:\n  hostnames: {hosts}\n  parentRefs:\n  - {{name: g, namespace: \"n\"}}\n  - {{name: g-1, namespace: \"n\", sectionName: l-1}}\n  - {{name: g, namespace: n-a}}\n  - {{name: g.1, namespace: na}}\n  - {{name: g, sectionName: l}}\n  rules:\n"
            ));
            let names = [
                "get", "get-x", "get.x", "getx", "", "", "", "", "", "", "", "",
            ];
            for rule in names.iter().take(4 + 4 * (i % 3)) {
                let named = if rule.is_empty() {
                    String::new()
                } else {
                    format!("name: {rule}, ")
                };
                s.push_str(&format!("  - {{{named}backendRefs: []}}\n"));
            }
        }
        s
    }

    /// The path list (its order, the paths kept among equal ids, their validity) is what sorting
    /// the built ids of every enumerated path gives, on names whose ids sort differently from
    /// their parts: `g-1` < `g1` < `g|` inside an id, `rule-1` < `rule-10` < `rule-2`, and on
    /// routes naming a listener twice. GRPCRoute `n/r` has the ids of HTTPRoute `n/r` on 1.5: the
    /// first enumerated is kept. Both ways of finding the list are checked: enumerating in order
    /// (names that rank apart) and sorting (every estate; the only way with the tie).
    #[test]
    fn path_order_is_the_order_of_the_ids() {
        let cases = [KuadrantVersion::V1_4, KuadrantVersion::V1_5]
            .into_iter()
            .flat_map(|v| [(v, false), (v, true)]);
        for (version, grpc) in cases {
            let l = load(
                &[Input::Text {
                    name: "paths.yaml".into(),
                    bytes: estate(grpc).into_bytes(),
                }],
                &LoadOptions {
                    version,
                    ..LoadOptions::default()
                },
            );
            assert!(!l.diagnostics.has_errors(), "{:?}", l.diagnostics);
            let t = Topology::build(&l.model);
            let mut want: Vec<(String, Path)> = Vec::new();
            for (ri, r) in l.model.routes.iter().enumerate() {
                if !route_in_topology(r.spec.kind, version) {
                    continue;
                }
                for &(gi, li) in t.route_listeners(ri) {
                    let Some(ci) = t.gateway_class_of(gi) else {
                        continue;
                    };
                    let lh = l.model.gateways[gi].spec.listeners[li]
                        .hostname
                        .as_ref()
                        .map_or("*", |h| h.value.as_str());
                    let valid = r.spec.hostnames.is_empty()
                        || r.spec
                            .hostnames
                            .iter()
                            .any(|h| hostname_subset_of(&h.value, lh));
                    for xi in 0..r.spec.rules.len() {
                        let p = Path {
                            class: ci,
                            gateway: gi,
                            listener: li,
                            route: ri,
                            rule: xi,
                            valid,
                        };
                        want.push((t.path_id(&p), p));
                    }
                }
            }
            want.sort_by(|a, b| a.0.cmp(&b.0));
            want.dedup_by(|later, first| later.0 == first.0);
            assert!(want.len() > 300, "{version:?}: {}", want.len());
            assert!(want.iter().any(|w| !w.1.valid) && want.iter().any(|w| w.1.valid));
            let ids = |paths: &[Path]| -> Vec<(String, Path)> {
                paths.iter().map(|p| (t.path_id(p), *p)).collect()
            };
            assert_eq!(ids(t.path_list()), want, "{version:?}, grpc {grpc}");
            // Found while the graph is built, the same list.
            let beside = Topology::build_with_paths(&l.model);
            assert_eq!(beside.paths.get().map(Vec::as_slice), Some(t.path_list()));
            let order = || PathOrder::new(&t.view());
            let sorted = t.view().sorted_paths(order(), 2);
            assert_eq!(ids(&sorted), want, "{version:?}, grpc {grpc}");
            let order = order().expect("no name has a |");
            let in_order = t.view().paths_in_order(&order, 2);
            // The tie exists on 1.5 only (1.4's topology has no GRPCRoute).
            let tie = grpc && version == KuadrantVersion::V1_5;
            assert_eq!(in_order.is_none(), tie, "{version:?}, grpc {grpc}");
            if let Some(paths) = in_order {
                assert_eq!(ids(&paths), want, "{version:?}, grpc {grpc}");
            }
        }
    }

    /// A policy's locator read from its node is the one built from the policy, for every policy
    /// of every case estate, those whose target is missing included.
    #[test]
    fn policy_locators_from_nodes_are_the_policies_own() {
        let dir = format!("{}/testdata/cases", env!("CARGO_MANIFEST_DIR"));
        let mut seen = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let l = load(
                &[Input::Path(entry.unwrap().path())],
                &LoadOptions::default(),
            );
            let t = Topology::build(&l.model);
            for (i, p) in l.model.policies.iter().enumerate() {
                assert_eq!(t.policy_locator(i), p.locator());
                seen += 1;
            }
        }
        assert!(seen > 20, "{seen}");
    }

    /// The comparison of parts without building them is the comparison of the parts built.
    #[test]
    fn part_order_is_the_order_of_the_parts_with_their_bars() {
        // The definition: each part followed by a `|` when terminated, compared as bytes.
        let by_definition = |a: &str, b: &str, terminated: bool| {
            let end = std::iter::once(b'|').filter(|_| terminated);
            a.bytes().chain(end.clone()).cmp(b.bytes().chain(end))
        };
        let names = [
            "", "a", "ab", "a|", "a{", "a}", "a~", "a-", "a.b", "b", "g", "g-1", "g~", "é", "aé",
            "ns/gw", "ns/gw-1", "ns/gw1", "ns/g",
        ];
        for a in names {
            for b in names {
                for terminated in [true, false] {
                    assert_eq!(
                        part_order(a, b, terminated),
                        by_definition(a, b, terminated),
                        "{a:?} {b:?} {terminated}"
                    );
                }
            }
        }
    }

    /// Packed keys and places sort as the keys, then the places; equal keys keep equal key bits;
    /// the place comes back out; keys too wide for one number are not packed.
    #[test]
    fn packed_keys_sort_as_keys_then_places() {
        let order = PathOrder {
            class: vec![0, 1],
            gateway: vec![2, 0, 1],
            listener: vec![vec![0, 5], vec![3], vec![1, 2]],
            route: vec![0, 300, 7],
            rule: vec![vec![0, 1], vec![2], vec![0]],
        };
        let packing = order.packing([bits(3), bits(1000)]).unwrap();
        let mut items = Vec::new();
        for class in 0..2 {
            for gateway in 0..3 {
                for listener in 0..order.listener[gateway].len() {
                    for route in 0..3 {
                        for rule in 0..order.rule[route].len() {
                            let p = Path {
                                class,
                                gateway,
                                listener,
                                route,
                                rule,
                                valid: true,
                            };
                            for place in [(0, 999), (2, 0), (1, 7)] {
                                items.push((order.key(&p), place));
                            }
                        }
                    }
                }
            }
        }
        let mut packed: Vec<u128> = (items.iter())
            .map(|(k, (part, i))| packing.pack(k, *part, *i))
            .collect();
        for (x, (k, place)) in packed.iter().zip(&items) {
            assert_eq!(packing.place_of(*x), *place);
            for (y, (l, _)) in packed.iter().zip(&items) {
                assert_eq!(packing.key_of(*x) == packing.key_of(*y), k == l);
            }
        }
        packed.sort_unstable();
        items.sort_unstable();
        let back: Vec<_> = (packed.iter())
            .map(|&x| (packing.key_of(x), packing.place_of(x)))
            .collect();
        let want: Vec<_> = (items.iter())
            .map(|(k, (part, i))| (packing.key_of(packing.pack(k, *part, *i)), (*part, *i)))
            .collect();
        assert_eq!(back, want);
        let wide = PathOrder {
            class: vec![u32::MAX - 1],
            gateway: vec![u32::MAX - 1],
            listener: vec![vec![u32::MAX - 1]],
            route: vec![u32::MAX - 1],
            rule: vec![vec![1]],
        };
        // 4 × 32 bits of ranks and 1 of the rule's.
        assert!(wide.packing([0, 0]).is_none());
        assert_eq!(
            [bits(0), bits(1), bits(2), bits(5), bits(8), bits(9)],
            [0, 0, 1, 3, 3, 4]
        );
    }

    /// Parts compare as they do inside an id: followed by `|`, except the rule's.
    #[test]
    fn parts_compare_as_inside_an_id() {
        use std::cmp::Ordering::*;
        assert_eq!(part_order("g", "g-1", true), Greater); // `g|` > `g-1`
        assert_eq!(part_order("g", "g-1", false), Less);
        assert_eq!(part_order("g", "g~", true), Less); // `|` < `~`
        assert_eq!(part_order("g1", "g1", true), Equal);
        let r = ranks(["b", "a-b", "a", "a", "a.b", "ab"].into_iter(), true);
        // Lower-case letters and digits sort before `|`: `ab` < `a|`.
        assert_eq!(r.0, ["a-b", "a.b", "ab", "a", "b"]);
        assert_eq!(r.ranked(&["a", "b", "a-b"]), [3, 4, 0]);
    }
}
