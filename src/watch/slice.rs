//! The part of the estate a change touches, for `watch`'s incremental cycles
//! (`docs/architecture.md`, "watch: incremental cycles").
//!
//! A cycle whose changed objects are all routes and rate-limit / auth policies touches the paths
//! through a set of gateways, the *affected* gateways: the parents of every changed route, the
//! targets of every changed policy (a route's parents for a policy on a route), before and after the
//! change. Every output of those paths can be computed from a *slice* of the estate:
//!
//! - the affected gateways, and the *core* routes: those attached to one of them (or changed);
//! - the other parents of the core routes (the *neighbours*), so that every path through a core
//!   route is there, with the policies on the neighbours;
//! - the policies on the affected gateways and on the core routes (the *core* policies);
//! - every object outside the topology (classes, namespaces, Kuadrant, Limitador, Authorino,
//!   issuers), and the Services the core routes send to.
//!
//! An effective policy depends only on the objects along its path, so a path through a core route
//! has the same effective policy in the slice as in the whole estate; the per-gateway objects of the
//! affected gateways, the AuthConfigs of their paths, the Limitador limits of the core routes, the
//! statuses of the core policies and the findings about core objects are therefore those a full
//! computation gives. A neighbour's own objects, policies and findings are not complete in a slice
//! and are never taken from it.
//!
//! Whatever the slice cannot stand for (a changed Gateway, class or other object outside the
//! topology, a DNS or TLS policy, extension policies, duplicates) makes the cycle a full one.

use crate::load::validate::Validated;
use crate::model::{GATEWAY_API_GROUP, PolicyKind};
use std::collections::BTreeSet;

/// A gateway, `(namespace, name)`.
pub(super) type GatewayKey = (String, String);

/// A route, `(kind, namespace, name)`.
type RouteKey = (&'static str, String, String);

/// One version of the estate (before or after the change): each file's objects and the sequence
/// offset of its first object, in `compute`'s file order.
pub(super) type Version<'a> = Vec<(usize, &'a [Validated])>;

/// What the changed objects reach, whichever version they are in.
#[derive(Default)]
pub(super) struct Reach {
    /// The affected gateways.
    pub gateways: BTreeSet<GatewayKey>,
    /// Routes that are core whatever their parents (the changed ones).
    routes: BTreeSet<RouteKey>,
    /// Policies that are core whatever their target (the changed ones): kind, namespace, name.
    policies: BTreeSet<(PolicyKind, String, String)>,
}

/// A slice of one version.
pub(super) struct Slice {
    /// Its objects, each with its sequence number in the whole input, in file order.
    pub objects: Vec<Validated>,
    /// `Kind namespace/name` of the core objects: the affected gateways, the core routes and the
    /// core policies (findings about them come from the slice).
    pub core: BTreeSet<String>,
    /// `namespace/name` of the core routes (the Limitador limits' namespaces).
    pub routes: BTreeSet<String>,
    /// `Kind namespace/name` of the core policies.
    pub policies: BTreeSet<String>,
}

/// The gateways a route names as parents.
fn parents(r: &crate::model::Obj<crate::model::Route>) -> impl Iterator<Item = GatewayKey> + '_ {
    r.spec
        .parent_refs
        .iter()
        .filter(|p| p.group == GATEWAY_API_GROUP && p.kind == "Gateway")
        .map(|p| {
            (
                p.namespace
                    .clone()
                    .unwrap_or_else(|| r.meta.namespace.clone()),
                p.name.clone(),
            )
        })
}

fn route_key(r: &crate::model::Obj<crate::model::Route>) -> RouteKey {
    (
        r.spec.kind.kind(),
        r.meta.namespace.clone(),
        r.meta.name.clone(),
    )
}

/// What a policy's targetRef names: a gateway or a route; `None` for anything else.
enum Target {
    Gateway(GatewayKey),
    Route(RouteKey),
}

fn target(p: &crate::model::Policy) -> Option<Target> {
    let t = &p.target;
    if t.group.value != GATEWAY_API_GROUP {
        return None;
    }
    let ns = p.meta.namespace.clone();
    let name = t.name.value.clone();
    match t.kind.value.as_str() {
        "Gateway" => Some(Target::Gateway((ns, name))),
        "HTTPRoute" => Some(Target::Route(("HTTPRoute", ns, name))),
        "GRPCRoute" => Some(Target::Route(("GRPCRoute", ns, name))),
        _ => None,
    }
}

/// Whether a policy can be part of a slice: a rate-limit, auth or token rate-limit policy of the
/// input (not one an extension created) on a gateway or a route. DNS and TLS policies make objects
/// of their own (Certificates, DNSRecords) that the slice does not account for.
fn sliceable(p: &crate::model::Policy) -> bool {
    matches!(
        p.kind,
        PolicyKind::RateLimit | PolicyKind::Auth | PolicyKind::TokenRateLimit
    ) && p.meta.derived_from.is_none()
        && target(p).is_some()
}

/// What the changed objects (`changed`: those of the changed files, both versions) reach in the
/// versions `versions`; `None` when a changed object is not a route or a sliceable policy.
pub(super) fn reach(changed: &[&Validated], versions: &[&Version<'_>]) -> Option<Reach> {
    let mut out = Reach::default();
    let mut targeted: BTreeSet<RouteKey> = BTreeSet::new();
    for o in changed {
        match o {
            Validated::Route(r) => {
                out.gateways.extend(parents(r));
                out.routes.insert(route_key(r));
            }
            Validated::Policy(p) if sliceable(p) => {
                out.policies
                    .insert((p.kind, p.meta.namespace.clone(), p.meta.name.clone()));
                match target(p)? {
                    Target::Gateway(g) => {
                        out.gateways.insert(g);
                    }
                    Target::Route(r) => {
                        targeted.insert(r);
                    }
                }
            }
            // A gateway, a class, anything outside the topology or an extension: a full cycle.
            _ => return None,
        }
    }
    if !targeted.is_empty() {
        for v in versions {
            for o in v.iter().flat_map(|(_, objs)| objs.iter()) {
                if let Validated::Route(r) = o
                    && targeted.contains(&route_key(r))
                {
                    out.gateways.extend(parents(r));
                }
            }
        }
        // A targeted route that exists in neither version is core all the same (the policy's
        // status says its target is missing).
        out.routes.extend(targeted);
    }
    Some(out)
}

/// The gateways a route names as parents, borrowed.
fn parent_refs(
    r: &crate::model::Obj<crate::model::Route>,
) -> impl Iterator<Item = (&str, &str)> + '_ {
    r.spec
        .parent_refs
        .iter()
        .filter(|p| p.group == GATEWAY_API_GROUP && p.kind == "Gateway")
        .map(|p| {
            (
                p.namespace.as_deref().unwrap_or(&r.meta.namespace),
                p.name.as_str(),
            )
        })
}

/// A policy's target, borrowed: `(kind, namespace, name)` for a gateway or a route.
fn target_ref(p: &crate::model::Policy) -> Option<(&str, &str, &str)> {
    let t = &p.target;
    let kind = t.kind.value.as_str();
    (t.group.value == GATEWAY_API_GROUP && matches!(kind, "Gateway" | "HTTPRoute" | "GRPCRoute"))
        .then_some((kind, p.meta.namespace.as_str(), t.name.value.as_str()))
}

/// The slice of `version` for `reach`; `None` when something in it cannot be sliced (see the
/// module documentation). Looks at every object twice, borrowing: no key is copied but the
/// slice's own.
pub(super) fn slice(version: &Version<'_>, reach: &Reach) -> Option<Slice> {
    use std::collections::HashSet;
    let affected: HashSet<(&str, &str)> = reach
        .gateways
        .iter()
        .map(|(ns, name)| (ns.as_str(), name.as_str()))
        .collect();
    // The core routes (the changed ones are core even in the version without them: the policies
    // on them are), their other parents and the Services they send to.
    let mut routes: HashSet<(&str, &str, &str)> = reach
        .routes
        .iter()
        .map(|(kind, ns, name)| (*kind, ns.as_str(), name.as_str()))
        .collect();
    let mut neighbours: HashSet<(&str, &str)> = HashSet::new();
    let mut services: HashSet<(&str, &str)> = HashSet::new();
    for o in version.iter().flat_map(|(_, objs)| objs.iter()) {
        let Validated::Route(r) = o else { continue };
        let key = (
            r.spec.kind.kind(),
            r.meta.namespace.as_str(),
            r.meta.name.as_str(),
        );
        if !routes.contains(&key) && !parent_refs(r).any(|g| affected.contains(&g)) {
            continue;
        }
        neighbours.extend(parent_refs(r).filter(|g| !affected.contains(g)));
        for b in r.spec.rules.iter().flat_map(|x| &x.backend_refs) {
            if b.group.is_empty() && b.kind == "Service" {
                let ns = b.namespace.as_deref().unwrap_or(&r.meta.namespace);
                services.insert((ns, b.name.as_str()));
            }
        }
        routes.insert(key);
    }
    let changed_policy = |p: &crate::model::Policy| {
        reach
            .policies
            .iter()
            .any(|(k, ns, name)| *k == p.kind && *ns == p.meta.namespace && *name == p.meta.name)
    };
    let mut out = Slice {
        objects: Vec::new(),
        core: BTreeSet::new(),
        routes: routes
            .iter()
            .map(|(_, ns, name)| format!("{ns}/{name}"))
            .collect(),
        policies: BTreeSet::new(),
    };
    for (offset, objs) in version {
        for o in objs.iter() {
            let keep = match o {
                Validated::Gateway(g) => {
                    let key = (g.meta.namespace.as_str(), g.meta.name.as_str());
                    if affected.contains(&key) {
                        out.core.insert(format!("Gateway {}", g.meta.key()));
                        true
                    } else {
                        neighbours.contains(&key)
                    }
                }
                Validated::Route(r) => {
                    let key = (
                        r.spec.kind.kind(),
                        r.meta.namespace.as_str(),
                        r.meta.name.as_str(),
                    );
                    let core = routes.contains(&key);
                    if core {
                        out.core
                            .insert(format!("{} {}", r.spec.kind.kind(), r.meta.key()));
                    }
                    core
                }
                Validated::Policy(p) => {
                    let (core, kept) = match target_ref(p) {
                        Some(("Gateway", ns, name)) => (
                            affected.contains(&(ns, name)),
                            neighbours.contains(&(ns, name)),
                        ),
                        Some(route) => (routes.contains(&route), false),
                        None => (false, false),
                    };
                    let core = core || changed_policy(p);
                    if core && !sliceable(p) {
                        return None;
                    }
                    // A neighbour's DNS or TLS policy has no part in the paths of a core route.
                    let kept = kept && sliceable(p);
                    if core {
                        out.core.insert(p.display());
                        out.policies.insert(p.display());
                    }
                    core || kept
                }
                Validated::Service(s) => {
                    services.contains(&(s.meta.namespace.as_str(), s.meta.name.as_str()))
                }
                Validated::Extension(_) => return None,
                Validated::GatewayClass(_)
                | Validated::Namespace(_)
                | Validated::Kuadrant(_)
                | Validated::Limitador(_)
                | Validated::Authorino(_)
                | Validated::Issuer(_)
                | Validated::ClusterIssuer(_)
                | Validated::Skipped { .. } => true,
            };
            if keep {
                let mut o = o.clone();
                o.meta_mut().origin.seq += offset;
                out.objects.push(o);
            }
        }
    }
    Some(out)
}

/// The object a finding is about, as the slice's `core` names it: `Kind namespace/name` without a
/// section.
pub(super) fn about(d: &crate::diag::Diagnostic) -> Option<&str> {
    let o = d.object.as_deref()?;
    Some(o.split_once('#').map_or(o, |(head, _)| head))
}
