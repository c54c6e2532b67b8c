//! Reference and attachment checks over a built [`Topology`] (the `PCTL2xxx` diagnostics).
//!
//! Each finding points at the reference that causes it: a policy's `targetRef` name or `sectionName`, a
//! route's `parentRef` name or `sectionName`, a Gateway's `gatewayClassName`. Must not merge policies.

use super::{Topology, route_in_topology};
use crate::diag::{Code, Diagnostic, Diagnostics, Severity};
use crate::model::hostname_subset_of;
use crate::model::{
    GATEWAY_API_GROUP, Gateway, KuadrantVersion, Listener, Locator, Obj, ParentRef, Policy, Route,
    RoutesFrom,
};
use crate::topology::NodeRef;
use foldhash::{HashSet, HashSetExt};
use std::collections::BTreeMap;

/// Every `PCTL2xxx` finding of the topology, in model order (callers sort).
pub fn lint(t: &Topology) -> Diagnostics {
    let mut d = Diagnostics::new();
    for (pi, p) in t.model.policies.iter().enumerate() {
        policy_target(t, pi, p, &mut d);
    }
    for g in &t.model.gateways {
        if t.model.gateway_class(&g.spec.class_name.value).is_none() {
            d.push(
                Diagnostic::new(
                    Code::GatewayClassNotFound,
                    format!(
                        "gatewayClassName {:?} matches no GatewayClass in the input and is not a class policyctl assumes: the Gateway is in no path, so none of the policies on it, its listeners or its routes can be predicted",
                        g.spec.class_name.value
                    ),
                )
                .object(format!("Gateway {}", g.meta.key()))
                .at(g.spec.class_name.span, "no GatewayClass with this name")
                .help(format!(
                    "add the GatewayClass with -f, or name its controller: --gateway-class {}=istio.io/gateway-controller (Istio) or gateway.envoyproxy.io/gatewayclass-controller (Envoy Gateway), or gatewayClasses in .policyctl.yaml",
                    g.spec.class_name.value
                )),
            );
        }
    }
    let mut hostname_seen = HashSet::new();
    for (ri, r) in t.model.routes.iter().enumerate() {
        if !route_in_topology(r.spec.kind, t.version()) {
            continue;
        }
        for pr in &r.spec.parent_refs {
            parent_ref(t, ri, pr, &mut hostname_seen, &mut d);
        }
    }
    d
}

/// The operator's `TargetNotFound` message: `name#section` for RLP/Auth/TRLP, `name` for DNS/TLS.
fn operator_not_found(p: &Policy) -> String {
    let name = match (&p.target.section_name, p.kind.is_inherited()) {
        (Some(s), true) => format!("{}#{}", p.target.name.value, s.value),
        _ => p.target.name.value.clone(),
    };
    format!("{} target {name} was not found", p.kind.kind())
}

/// The checks of a policy's `targetRef`: a positional rule name when it resolves, else a missing
/// section of an existing object, else a missing target.
fn policy_target(t: &Topology, pi: usize, p: &Policy, d: &mut Diagnostics) {
    if let Some(node) = t.policy_target(pi) {
        if let NodeRef::Rule(ri, xi) = node.what {
            positional_rule_name(t, p, ri, xi, d);
        }
        return;
    }
    if !section_not_found(t, p, d) {
        target_not_found(t, p, d);
    }
}

/// A policy targets rule `xi` of route `ri` by its position (`rule-N`): `PositionalRuleName`.
fn positional_rule_name(t: &Topology, p: &Policy, ri: usize, xi: usize, d: &mut Diagnostics) {
    // Index: NodeRef::Rule(ri, xi) is created by enumerating this model's routes and rules.
    let rule = &t.model.routes[ri].spec.rules[xi];
    if (rule.name.is_none() || t.version() == KuadrantVersion::V1_4)
        && let Some(s) = &p.target.section_name
    {
        let help = if t.version() == KuadrantVersion::V1_4 {
            "operator 1.4 names rules only by position: adding, removing or reordering rules silently moves this policy"
        } else {
            "give the rule a name (spec.rules[].name) and target that name: rule-N moves when rules are added, removed or reordered"
        };
        d.push(
            Diagnostic::new(
                Code::PositionalRuleName,
                format!(
                    "targets rule {:?} of {} by its position",
                    s.value,
                    node_display(t, ri)
                ),
            )
            .object(p.display())
            .at(s.span, "positional rule name")
            .help(help),
        );
    }
}

/// A `sectionName` that matches no section of the existing target object; whether it reported.
fn section_not_found(t: &Topology, p: &Policy, d: &mut Diagnostics) -> bool {
    let tr = &p.target;
    let base = Locator::object(
        &tr.kind.value,
        &tr.group.value,
        &p.meta.namespace,
        &tr.name.value,
    );
    let (Some(section), Some(parent)) = (&tr.section_name, t.node(&base)) else {
        return false;
    };
    let (what, names) = sections_of(t, parent.what);
    // A rule name on 1.4: say which rule-N it is and that 1.5 honours names.
    let (positional, extra) = match t.positional_rule(&p.target_locator()) {
        Some(rule) => (
            format!(
                "; on 1.4 {} is {rule} (--kuadrant-version 1.5 honours rule names)",
                section.value
            ),
            format!(
                "operator 1.4 names rules only by position: target sectionName {rule}, or emulate operator 1.5 with --kuadrant-version 1.5; "
            ),
        ),
        None => (String::new(), String::new()),
    };
    d.push(
        Diagnostic::new(
            Code::SectionNotFound,
            format!(
                "sectionName {:?} matches no {what} of {} {} ({what}s: {}){positional}",
                section.value,
                parent.kind,
                parent.name(),
                if names.is_empty() {
                    "none".to_owned()
                } else {
                    names.join(", ")
                }
            ),
        )
        .object(p.display())
        .at(section.span, format!("no {what} with this name"))
        .help(format!(
            "{extra}the operator will report Accepted=False: \"{}\"",
            operator_not_found(p)
        )),
    );
    true
}

/// The target object is not in the input (under that kind, namespace and name).
fn target_not_found(t: &Topology, p: &Policy, d: &mut Diagnostics) {
    let tr = &p.target;
    // A route the input holds, left out of the run by its budget (`PCTL1019`).
    let left_out = tr.group.value == crate::model::GATEWAY_API_GROUP
        && (t.model).left_out_route(&tr.kind.value, &p.meta.namespace, &tr.name.value);
    let (label, help) = if left_out {
        (
            format!(
                "{} {}/{} is in the input, but left out of this run (PCTL1019)",
                tr.kind.value, p.meta.namespace, tr.name.value
            ),
            "the run's budget of paths or action sets left the route out: raise it (--max-paths, --max-action-sets) or run on part of the repository".into(),
        )
    } else {
        (
            format!(
                "no {} named {:?} in namespace {}",
                tr.kind.value, tr.name.value, p.meta.namespace
            ),
            target_not_found_help(t, p),
        )
    };
    d.push(
        Diagnostic::new(Code::TargetNotFound, operator_not_found(p))
            .object(p.display())
            .at(tr.name.span, label)
            .help(help),
    );
}

/// What to do about a missing target: a GRPCRoute on 1.4, an object of that name in another
/// namespace, or the input.
fn target_not_found_help(t: &Topology, p: &Policy) -> String {
    let tr = &p.target;
    let kind_lc = tr.kind.value.to_ascii_lowercase();
    let elsewhere: Vec<String> = match kind_lc.as_str() {
        "gateway" => t
            .model
            .gateways
            .iter()
            .filter(|g| g.meta.name == tr.name.value)
            .map(|g| g.meta.key())
            .collect(),
        "httproute" | "grpcroute" => t
            .model
            .routes
            .iter()
            .filter(|r| {
                r.meta.name == tr.name.value && r.spec.kind.kind().eq_ignore_ascii_case(&kind_lc)
            })
            .map(|r| r.meta.key())
            .collect(),
        _ => Vec::new(),
    };
    if kind_lc == "grpcroute"
        && t.version() == KuadrantVersion::V1_4
        && elsewhere
            .iter()
            .any(|k| *k == format!("{}/{}", p.meta.namespace, tr.name.value))
    {
        "operator 1.4 does not put GRPCRoutes in its topology; use --kuadrant-version 1.5".into()
    } else if !elsewhere.is_empty() {
        format!(
            "a policy can only target objects in its own namespace ({}); found {} {}",
            p.meta.namespace,
            tr.kind.value,
            elsewhere.join(", ")
        )
    } else {
        String::from("check spec.targetRef, or pass the file that defines the target with -f")
    }
}

fn node_display(t: &Topology, route: usize) -> String {
    let r = &t.model.routes[route];
    format!("{} {}", r.spec.kind.kind(), r.meta.key())
}

/// For a parent node: what its sections are called, and their names.
fn sections_of(t: &Topology, parent: NodeRef) -> (&'static str, Vec<String>) {
    match parent {
        NodeRef::Gateway(gi) => (
            "listener",
            t.model.gateways[gi]
                .spec
                .listeners
                .iter()
                .map(|l| l.name.value.clone())
                .collect(),
        ),
        NodeRef::Route(ri) => (
            "rule",
            t.model.routes[ri]
                .spec
                .rules
                .iter()
                .enumerate()
                .map(|(i, r)| r.section_name(i, t.version()))
                .collect(),
        ),
        NodeRef::Service(si) => (
            "port",
            t.model.services[si]
                .spec
                .ports
                .iter()
                .filter_map(|(n, _)| n.clone())
                .collect(),
        ),
        _ => ("section", Vec::new()),
    }
}

/// Whether a listener admits a route.
enum Admission {
    Admitted,
    /// Refused, with the reason.
    Refused(String),
    /// Not decidable offline (a namespace selector without the Namespace object), with why.
    Undecided(String),
}

fn admits(t: &Topology, gw: &Obj<Gateway>, l: &Listener, r: &Obj<Route>) -> Admission {
    let ar = &l.allowed_routes;
    if !ar.kinds.is_empty()
        && !ar
            .kinds
            .iter()
            .any(|(g, k)| g == GATEWAY_API_GROUP && k == r.spec.kind.kind())
    {
        return Admission::Refused(format!(
            "allowedRoutes.kinds does not include {}",
            r.spec.kind.kind()
        ));
    }
    let ns = &r.meta.namespace;
    match &ar.from {
        RoutesFrom::All => Admission::Admitted,
        RoutesFrom::Same if *ns == gw.meta.namespace => Admission::Admitted,
        RoutesFrom::Same => Admission::Refused(format!(
            "allowedRoutes.namespaces.from is Same (the default) and the route is in namespace {ns}, the Gateway in {}",
            gw.meta.namespace
        )),
        RoutesFrom::Selector(sel) => {
            // Kubernetes sets `kubernetes.io/metadata.name` on every Namespace.
            let implicit = ("kubernetes.io/metadata.name".to_owned(), ns.clone());
            let labels: BTreeMap<String, String> = match t.model.namespace_labels(ns) {
                Some(l) => l.clone().into_iter().chain([implicit]).collect(),
                None => {
                    let only_name = sel.match_labels.keys().all(|k| k == &implicit.0)
                        && sel
                            .match_expressions
                            .iter()
                            .all(|(k, _, _)| *k == implicit.0);
                    if !only_name {
                        return Admission::Undecided(format!(
                            "allowedRoutes.namespaces.from is Selector and Namespace {ns} is not in the input"
                        ));
                    }
                    [implicit].into_iter().collect()
                }
            };
            if sel.matches(&labels) {
                Admission::Admitted
            } else {
                Admission::Refused(format!(
                    "the labels of Namespace {ns} do not match allowedRoutes.namespaces.selector"
                ))
            }
        }
    }
}

/// Gateway API hostname intersection (either side may be a wildcard).
fn hostnames_intersect(a: &str, b: &str) -> bool {
    hostname_subset_of(a, b) || hostname_subset_of(b, a)
}

/// The checks of one `parentRef` of route `route_ix` that names a Gateway: the Gateway exists, its
/// `sectionName` names a listener, the listeners admit the route, and the hostnames match.
fn parent_ref(
    t: &Topology,
    route_ix: usize,
    pr: &ParentRef,
    hostname_seen: &mut HashSet<(usize, usize, usize)>,
    d: &mut Diagnostics,
) {
    if pr.group != GATEWAY_API_GROUP || pr.kind != "Gateway" {
        return;
    }
    let r = &t.model.routes[route_ix];
    let c = ParentCheck { t, route_ix, r, pr };
    let Some(gi) = c.gateway(d) else {
        return;
    };
    // Index: `gi` comes from `position` over the same gateways.
    let gw = &t.model.gateways[gi];
    let Some(listeners) = c.listeners(gw, d) else {
        return;
    };
    // The listeners the Gateway API could attach the route to through this parentRef: those whose
    // hostname intersects one of the route's (every listener when the route has none). A listener
    // outside them never serves the route, whatever its allowedRoutes or Kuadrant's view of its
    // path: nothing there needs fixing, unless the route can attach to no listener at all.
    let reachable: Vec<usize> = listeners
        .iter()
        .copied()
        .filter(|&li| {
            let lh = listener_hostname(&gw.spec.listeners[li]);
            r.spec.hostnames.is_empty()
                || r.spec
                    .hostnames
                    .iter()
                    .any(|h| hostnames_intersect(&h.value, lh))
        })
        .collect();
    let considered = if reachable.is_empty() {
        &listeners
    } else {
        &reachable
    };
    c.allowed_routes(gw, considered, d);
    if !r.spec.hostnames.is_empty() {
        c.hostnames(gi, &listeners, &reachable, hostname_seen, d);
    }
}

/// A listener's hostname, `*` when it has none (it matches every hostname).
fn listener_hostname(l: &Listener) -> &str {
    l.hostname.as_ref().map(|h| h.value.as_str()).unwrap_or("*")
}

/// One `parentRef` of a route, under check.
struct ParentCheck<'t> {
    t: &'t Topology<'t>,
    route_ix: usize,
    r: &'t Obj<Route>,
    pr: &'t ParentRef,
}

impl ParentCheck<'_> {
    /// The route, as diagnostics name it (made only for a finding: most references have none).
    fn object(&self) -> String {
        format!("{} {}", self.r.spec.kind.kind(), self.r.meta.key())
    }

    /// The index of the Gateway the reference names, or `ParentNotFound`.
    fn gateway(&self, d: &mut Diagnostics) -> Option<usize> {
        let (pr, r) = (self.pr, self.r);
        let ns = pr.namespace.as_deref().unwrap_or(&r.meta.namespace);
        // The first Gateway with that namespace and name, from the topology's index.
        let gi = self.t.gateway_ix.get(&(ns, pr.name.as_str())).copied();
        if gi.is_none() {
            // A Gateway of that name in another namespace is the usual cause: a parentRef without
            // `namespace` means the route's own (Gateway API).
            let mut elsewhere: Vec<&str> = self
                .t
                .model
                .gateways
                .iter()
                .filter(|g| g.meta.name == pr.name)
                .map(|g| g.meta.namespace.as_str())
                .collect();
            elsewhere.sort_unstable();
            elsewhere.dedup();
            let implied = if pr.namespace.is_none() {
                format!(" (a parentRef without `namespace` means the route's own, {ns})")
            } else {
                String::new()
            };
            let help = match elsewhere.as_slice() {
                [] => "the route is in no path through this parentRef; add the Gateway with -f, or fix name/namespace".to_string(),
                [one] => format!(
                    "a Gateway {} exists in namespace {one}: set the parentRef's `namespace: {one}`{implied}",
                    pr.name
                ),
                many => format!(
                    "Gateways named {} exist in namespaces {}: set the parentRef's `namespace` to one of them{implied}",
                    pr.name,
                    many.join(", ")
                ),
            };
            d.push(
                Diagnostic::new(
                    Code::ParentNotFound,
                    format!(
                        "parentRef names Gateway {ns}/{}, which is not in the input",
                        pr.name
                    ),
                )
                .object(self.object())
                .at(pr.name_span, "no Gateway with this name")
                .help(help),
            );
        }
        gi
    }

    /// The listeners the reference attaches to (all, or the one its `sectionName` names), or
    /// `SectionNotFound`.
    fn listeners(&self, gw: &Obj<Gateway>, d: &mut Diagnostics) -> Option<Vec<usize>> {
        let pr = self.pr;
        let listeners: Vec<usize> = gw
            .spec
            .listeners
            .iter()
            .enumerate()
            .filter(|(_, l)| pr.section_name.as_ref().is_none_or(|s| *s == l.name.value))
            .map(|(i, _)| i)
            .collect();
        let (Some(s), true) = (&pr.section_name, listeners.is_empty()) else {
            return Some(listeners);
        };
        let names: Vec<&str> = gw
            .spec
            .listeners
            .iter()
            .map(|l| l.name.value.as_str())
            .collect();
        d.push(
            Diagnostic::new(
                Code::SectionNotFound,
                format!(
                    "sectionName {s:?} matches no listener of Gateway {} (listeners: {})",
                    gw.meta.key(),
                    names.join(", ")
                ),
            )
            .object(self.object())
            .at(
                pr.section_span.unwrap_or(pr.span),
                "no listener with this name",
            )
            .help("this parentRef attaches the route to nothing; use one of the listener names"),
        );
        None
    }

    /// `RouteNotAllowed`: listeners whose `allowedRoutes` refuse the route (a warning each), or
    /// cannot be evaluated (one note).
    fn allowed_routes(&self, gw: &Obj<Gateway>, listeners: &[usize], d: &mut Diagnostics) {
        let (pr, r) = (self.pr, self.r);
        let mut refused: Vec<(usize, String)> = Vec::new();
        let mut unknown: Vec<(usize, String)> = Vec::new();
        for &li in listeners {
            match admits(self.t, gw, &gw.spec.listeners[li], r) {
                Admission::Admitted => {}
                Admission::Refused(why) => refused.push((li, why)),
                Admission::Undecided(why) => unknown.push((li, why)),
            }
        }
        let names = |v: &[(usize, String)]| {
            v.iter()
                .map(|(li, _)| gw.spec.listeners[*li].name.value.clone())
                .collect::<Vec<_>>()
                .join(", ")
        };
        for (li, why) in &refused {
            d.push(
                Diagnostic::new(
                    Code::RouteNotAllowed,
                    format!(
                        "listener {} of Gateway {} does not admit this {}: {why}",
                        gw.spec.listeners[*li].name.value,
                        gw.meta.key(),
                        r.spec.kind.kind(),
                    ),
                )
                .object(self.object())
                .at(pr.name_span, "route not allowed here")
                .also(gw.spec.listeners[*li].name.span, "listener")
                .help(
                    "Kuadrant does not check allowedRoutes and still computes policies for this path, but the gateway \
                     will not serve the route there; allow the namespace/kind in spec.listeners[].allowedRoutes",
                ),
            );
        }
        if let Some((_, why)) = unknown.first() {
            d.push(
                Diagnostic::new(
                    Code::RouteNotAllowed,
                    format!(
                        "cannot check whether Gateway {} admits this {} on listener {}: {why}",
                        gw.meta.key(),
                        r.spec.kind.kind(),
                        names(&unknown)
                    ),
                )
                .severity(Severity::Info)
                .object(self.object())
                .at(pr.name_span, "allowedRoutes selector not evaluated")
                .help("pass the Namespace manifest (with its labels) with -f so the selector can be evaluated"),
            );
        }
    }

    /// `HostnameMismatch`, where Kuadrant's view of a path through this parentRef leaves something
    /// to fix (the route has hostnames; `listeners` are the parentRef's, `reachable` those of them
    /// whose hostname intersects one of the route's):
    /// - a reachable listener none of the route's hostnames is a *subset* of: the gateway serves
    ///   the route there, but Kuadrant treats the path as invalid and enforces no policy on it;
    /// - no reachable listener at all: the route attaches to nothing through this parentRef (route
    ///   status `Accepted=False`, reason `NoMatchingListenerHostname`), every listener is reported.
    ///
    /// A listener the route's hostnames do not intersect while another listener takes the route is
    /// not reported: the Gateway API never attaches the route there, so the invalid path loses no
    /// traffic (a route on a whole multi-tenant Gateway matches one listener of many). Each
    /// (route, gateway, listener) is reported once (`hostname_seen`).
    fn hostnames(
        &self,
        gi: usize,
        listeners: &[usize],
        reachable: &[usize],
        hostname_seen: &mut HashSet<(usize, usize, usize)>,
        d: &mut Diagnostics,
    ) {
        let (pr, r) = (self.pr, self.r);
        let gw = &self.t.model.gateways[gi];
        let attaches = !reachable.is_empty();
        let candidates = if attaches { reachable } else { listeners };
        let mut invalid: Vec<usize> = Vec::new();
        for &li in candidates {
            let lh = listener_hostname(&gw.spec.listeners[li]);
            if !r
                .spec
                .hostnames
                .iter()
                .any(|h| hostname_subset_of(&h.value, lh))
                && hostname_seen.insert((self.route_ix, gi, li))
            {
                invalid.push(li);
            }
        }
        let Some(&first) = invalid.first() else {
            return;
        };
        // Index: `invalid` holds indices of `gw.spec.listeners` only.
        let l = &gw.spec.listeners[first];
        let listed: Vec<String> = invalid
            .iter()
            .map(|li| {
                let l = &gw.spec.listeners[*li];
                format!("{} ({})", l.name.value, listener_hostname(l))
            })
            .collect();
        let mut diag = Diagnostic::new(
            Code::HostnameMismatch,
            format!(
                "no hostname of this {} is a subset of the hostname of listener {} of Gateway {}: Kuadrant treats the \
                 path as invalid and enforces no policy on it",
                r.spec.kind.kind(),
                listed.join(", "),
                gw.meta.key()
            ),
        )
        .object(self.object())
        .at(pr.name_span, "path through this parentRef is invalid for Kuadrant")
        .also(r.spec.hostnames[0].span, "route hostnames");
        if let Some(h) = &l.hostname {
            diag = diag.also(h.span, "listener hostname");
        }
        diag = diag.help(if attaches {
            "Gateway API still attaches the route (the hostnames intersect), but Kuadrant requires a route hostname \
             that is a subset of the listener's (a wildcard route hostname under a specific listener hostname is not)"
        } else {
            "the hostnames do not intersect either, so the gateway does not accept the route through this parentRef \
             (route status Accepted=False, reason NoMatchingListenerHostname)"
        });
        d.push(diag);
    }
}
