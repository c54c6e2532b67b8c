//! Topology: the DAG policy-machinery builds for the operator, over the [`Model`].
//!
//! Owns the nodes (GatewayClass, Gateway, Listener, HTTPRoute/GRPCRoute, route rules, Service,
//! ServicePort, policies, Kuadrant), their [`Locator`]s, the link edges derived from the children's specs,
//! policy attachment by target locator, and path enumeration GatewayClass → Gateway → Listener → Route →
//! Rule. Must not merge policies or format output.
//!
//! Version differences (ERRATA 6): on 1.4 GRPCRoutes are not part of the topology and rules are always
//! `rule-N`; on 1.5 GRPCRoutes are expanded and a rule's `name` is its section name.

pub mod lint;

use crate::model::{GATEWAY_API_GROUP, KuadrantVersion, Locator, Model, PolicyKind, RouteKind};
use petgraph::Direction;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use std::collections::{BTreeSet, HashMap};

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
    /// The label's name line: `namespace/name[#section]`, or `name` when cluster-scoped.
    pub name: String,
    pub what: NodeRef,
    pub role: NodeRole,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeKind {
    /// Parent → child link (comment `"<From> -> <To>"`).
    Link,
    /// Policy → target (comment `"Policy -> Target"`, dashed).
    Policy,
}

/// One path GatewayClass → Gateway → Listener → Route → Rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Path {
    pub class: usize,
    pub gateway: usize,
    pub listener: usize,
    pub route: usize,
    pub rule: usize,
    /// The rule's section name (`rule-N` or its name on 1.5).
    pub rule_name: String,
    /// `class|ns/gw|ns/gw#listener|ns/route|ns/route#rule`.
    pub id: String,
}

/// The topology of one model.
pub struct Topology<'m> {
    pub model: &'m Model,
    pub version: KuadrantVersion,
    pub graph: DiGraph<Node, EdgeKind>,
    index: HashMap<Locator, NodeIndex>,
    /// Policy index → the node its target locator resolved to.
    attached: HashMap<usize, NodeIndex>,
}

/// The order the operator registers policy kinds in (`WithPolicyKinds`, identical at v1.4.6 and v1.5.2).
pub const POLICY_REGISTRATION_ORDER: [PolicyKind; 5] = [
    PolicyKind::Dns,
    PolicyKind::Tls,
    PolicyKind::Auth,
    PolicyKind::RateLimit,
    PolicyKind::TokenRateLimit,
];

/// Whether a route kind is part of the topology for this version.
pub fn route_in_topology(kind: RouteKind, version: KuadrantVersion) -> bool {
    kind == RouteKind::Http || version == KuadrantVersion::V1_5
}

impl<'m> Topology<'m> {
    /// Build the topology. Node insertion order follows policy-machinery: objects, then targetables
    /// (classes, gateways, routes, services, listeners, rules, service ports), then policies.
    pub fn build(model: &'m Model, version: KuadrantVersion) -> Self {
        let mut t = Topology {
            model,
            version,
            graph: DiGraph::new(),
            index: HashMap::new(),
            attached: HashMap::new(),
        };
        for (i, k) in model.kuadrants.iter().enumerate() {
            t.add(
                Locator::object("Kuadrant", "kuadrant.io", &k.meta.namespace, &k.meta.name),
                "Kuadrant",
                k.meta.key(),
                NodeRef::Kuadrant(i),
                NodeRole::Object,
            );
        }
        for (i, c) in model.gateway_classes.iter().enumerate() {
            t.add(
                Locator::object("GatewayClass", GATEWAY_API_GROUP, "", &c.meta.name),
                "GatewayClass",
                c.meta.name.clone(),
                NodeRef::GatewayClass(i),
                NodeRole::Targetable,
            );
        }
        for (i, g) in model.gateways.iter().enumerate() {
            t.add(
                gateway_locator(&g.meta.namespace, &g.meta.name),
                "Gateway",
                g.meta.key(),
                NodeRef::Gateway(i),
                NodeRole::Targetable,
            );
        }
        for (i, r) in model.routes.iter().enumerate() {
            if !route_in_topology(r.spec.kind, version) {
                continue;
            }
            t.add(
                route_locator(r.spec.kind, &r.meta.namespace, &r.meta.name),
                r.spec.kind.kind(),
                r.meta.key(),
                NodeRef::Route(i),
                NodeRole::Targetable,
            );
        }
        for (i, s) in model.services.iter().enumerate() {
            t.add(
                Locator::object("Service", "", &s.meta.namespace, &s.meta.name),
                "Service",
                s.meta.key(),
                NodeRef::Service(i),
                NodeRole::Targetable,
            );
        }
        for (gi, g) in model.gateways.iter().enumerate() {
            for (li, l) in g.spec.listeners.iter().enumerate() {
                t.add(
                    gateway_locator(&g.meta.namespace, &g.meta.name).section(&l.name.value),
                    "Listener",
                    format!("{}#{}", g.meta.key(), l.name.value),
                    NodeRef::Listener(gi, li),
                    NodeRole::Targetable,
                );
            }
        }
        for kind in [RouteKind::Http, RouteKind::Grpc] {
            for (ri, r) in model.routes.iter().enumerate() {
                if r.spec.kind != kind || !route_in_topology(kind, version) {
                    continue;
                }
                for (xi, rule) in r.spec.rules.iter().enumerate() {
                    let section = rule.section_name(xi, version);
                    t.add(
                        route_locator(kind, &r.meta.namespace, &r.meta.name).section(&section),
                        kind.rule_kind(),
                        format!("{}#{section}", r.meta.key()),
                        NodeRef::Rule(ri, xi),
                        NodeRole::Targetable,
                    );
                }
            }
        }
        for (si, s) in model.services.iter().enumerate() {
            for (pi, (name, _)) in s.spec.ports.iter().enumerate() {
                let Some(name) = name else { continue };
                t.add(
                    Locator::object("Service", "", &s.meta.namespace, &s.meta.name).section(name),
                    "ServicePort",
                    format!("{}#{name}", s.meta.key()),
                    NodeRef::ServicePort(si, pi),
                    NodeRole::Targetable,
                );
            }
        }
        // Policies are fed kind by kind in the operator's registration order
        // (state_of_the_world.go `WithPolicyKinds`), which fixes their DOT `n<seq>` numbers.
        for kind in POLICY_REGISTRATION_ORDER {
            for (pi, p) in model.policies.iter().enumerate() {
                if p.kind != kind {
                    continue;
                }
                t.add(
                    p.locator(),
                    p.kind.kind(),
                    p.meta.key(),
                    NodeRef::Policy(pi),
                    NodeRole::Policy,
                );
            }
        }
        t.link();
        t
    }

    fn add(
        &mut self,
        locator: Locator,
        kind: &'static str,
        name: String,
        what: NodeRef,
        role: NodeRole,
    ) {
        if self.index.contains_key(&locator) {
            // A second object with a used locator reuses the node (policy-machinery overwrites the label).
            return;
        }
        let ix = self.graph.add_node(Node {
            locator: locator.clone(),
            kind,
            name,
            what,
            role,
        });
        self.index.insert(locator, ix);
    }

    fn edge(&mut self, from: &Locator, to: &Locator, kind: EdgeKind) {
        if let (Some(&a), Some(&b)) = (self.index.get(from), self.index.get(to)) {
            self.graph.add_edge(a, b, kind);
        }
    }

    /// Edges, in policy-machinery's insertion order: policy edges first, then the link functions.
    fn link(&mut self) {
        let m = self.model;
        for (pi, p) in m.policies.iter().enumerate() {
            let target = p.target_locator();
            if let Some(&ix) = self.index.get(&target) {
                self.attached.insert(pi, ix);
                self.edge(&p.locator(), &target, EdgeKind::Policy);
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
        for g in &m.gateways {
            if let Some(c) = m
                .gateway_classes
                .iter()
                .find(|c| c.meta.name == g.spec.class_name.value)
            {
                self.edge(
                    &Locator::object("GatewayClass", GATEWAY_API_GROUP, "", &c.meta.name),
                    &gateway_locator(&g.meta.namespace, &g.meta.name),
                    EdgeKind::Link,
                );
            }
        }
        // Gateway → Listener.
        for g in &m.gateways {
            let gl = gateway_locator(&g.meta.namespace, &g.meta.name);
            for l in &g.spec.listeners {
                self.edge(&gl, &gl.section(&l.name.value), EdgeKind::Link);
            }
        }
        // Listener → Route, per parentRef in order (HTTP, then GRPC).
        for kind in [RouteKind::Http, RouteKind::Grpc] {
            for (ri, r) in m.routes.iter().enumerate() {
                if r.spec.kind != kind || !route_in_topology(kind, self.version) {
                    continue;
                }
                let rl = route_locator(kind, &r.meta.namespace, &r.meta.name);
                for (gi, li) in self.route_listeners(ri) {
                    let g = &m.gateways[gi];
                    let ll = gateway_locator(&g.meta.namespace, &g.meta.name)
                        .section(&g.spec.listeners[li].name.value);
                    self.edge(&ll, &rl, EdgeKind::Link);
                }
            }
        }
        // Route → Rule, Rule → ServicePort, Rule → Service.
        for kind in [RouteKind::Http, RouteKind::Grpc] {
            for r in &m.routes {
                if r.spec.kind != kind || !route_in_topology(kind, self.version) {
                    continue;
                }
                let rl = route_locator(kind, &r.meta.namespace, &r.meta.name);
                for (xi, rule) in r.spec.rules.iter().enumerate() {
                    self.edge(
                        &rl,
                        &rl.section(&rule.section_name(xi, self.version)),
                        EdgeKind::Link,
                    );
                }
                for (xi, rule) in r.spec.rules.iter().enumerate() {
                    let rule_l = rl.section(&rule.section_name(xi, self.version));
                    for b in &rule.backend_refs {
                        let Some(port) = b.port else { continue };
                        if !b.group.is_empty() || b.kind != "Service" {
                            continue;
                        }
                        let ns = b.namespace.as_deref().unwrap_or(&r.meta.namespace);
                        if let Some(s) = m
                            .services
                            .iter()
                            .find(|s| s.meta.namespace == ns && s.meta.name == b.name)
                            && let Some((Some(pn), _)) =
                                s.spec.ports.iter().find(|(_, p)| *p == port)
                        {
                            let sl = Locator::object("Service", "", ns, &b.name).section(pn);
                            self.edge(&rule_l, &sl, EdgeKind::Link);
                        }
                    }
                }
                for (xi, rule) in r.spec.rules.iter().enumerate() {
                    let rule_l = rl.section(&rule.section_name(xi, self.version));
                    for b in &rule.backend_refs {
                        if b.port.is_some() || !b.group.is_empty() || b.kind != "Service" {
                            continue;
                        }
                        let ns = b.namespace.as_deref().unwrap_or(&r.meta.namespace);
                        self.edge(
                            &rule_l,
                            &Locator::object("Service", "", ns, &b.name),
                            EdgeKind::Link,
                        );
                    }
                }
            }
        }
        // Service → ServicePort.
        for s in &m.services {
            let sl = Locator::object("Service", "", &s.meta.namespace, &s.meta.name);
            for (name, _) in &s.spec.ports {
                if let Some(n) = name {
                    self.edge(&sl, &sl.section(n), EdgeKind::Link);
                }
            }
        }
    }

    /// The (gateway, listener) pairs a route attaches to, one entry per parentRef match, in parentRef
    /// order (duplicates kept, as policy-machinery draws duplicate edges). Port, allowedRoutes and
    /// hostnames are not consulted.
    pub fn route_listeners(&self, route: usize) -> Vec<(usize, usize)> {
        let r = &self.model.routes[route];
        let mut out = Vec::new();
        for pr in &r.spec.parent_refs {
            if pr.group != GATEWAY_API_GROUP || pr.kind != "Gateway" {
                continue;
            }
            let ns = pr.namespace.as_deref().unwrap_or(&r.meta.namespace);
            let Some(gi) = self
                .model
                .gateways
                .iter()
                .position(|g| g.meta.namespace == ns && g.meta.name == pr.name)
            else {
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

    /// Indices of the policies whose target is `locator`, in model order.
    pub fn policies_at(&self, locator: &Locator) -> Vec<usize> {
        let mut v: Vec<usize> = self
            .attached
            .iter()
            .filter(|(_, ix)| self.graph[**ix].locator == *locator)
            .map(|(p, _)| *p)
            .collect();
        v.sort_unstable();
        v
    }

    /// Every path GatewayClass → Gateway → Listener → Route → Rule, de-duplicated, in PathID order.
    pub fn paths(&self) -> Vec<Path> {
        let m = self.model;
        let mut out = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for (ri, r) in m.routes.iter().enumerate() {
            if !route_in_topology(r.spec.kind, self.version) {
                continue;
            }
            for (gi, li) in self.route_listeners(ri) {
                let g = &m.gateways[gi];
                let Some(ci) = m
                    .gateway_classes
                    .iter()
                    .position(|c| c.meta.name == g.spec.class_name.value)
                else {
                    continue;
                };
                for (xi, rule) in r.spec.rules.iter().enumerate() {
                    let rule_name = rule.section_name(xi, self.version);
                    let id = format!(
                        "{}|{}|{}#{}|{}|{}#{}",
                        m.gateway_classes[ci].meta.name,
                        g.meta.key(),
                        g.meta.key(),
                        g.spec.listeners[li].name.value,
                        r.meta.key(),
                        r.meta.key(),
                        rule_name
                    );
                    if seen.insert(id.clone()) {
                        out.push(Path {
                            class: ci,
                            gateway: gi,
                            listener: li,
                            route: ri,
                            rule: xi,
                            rule_name,
                            id,
                        });
                    }
                }
            }
        }
        out.sort_by(|a, b| a.id.cmp(&b.id));
        out
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
            rl.section(&p.rule_name),
        ]
    }
}

pub fn gateway_locator(ns: &str, name: &str) -> Locator {
    Locator::object("Gateway", GATEWAY_API_GROUP, ns, name)
}

pub fn route_locator(kind: RouteKind, ns: &str, name: &str) -> Locator {
    Locator::object(kind.kind(), GATEWAY_API_GROUP, ns, name)
}
