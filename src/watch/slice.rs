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
use std::collections::{BTreeSet, HashMap, HashSet};

/// A gateway, `(namespace, name)`.
pub(super) type GatewayKey = (String, String);

/// A route, `(kind, namespace, name)`.
type RouteKey = (&'static str, String, String);

/// What a policy's targetRef names when it is a gateway or a route: `(kind, namespace, name)`.
type TargetKey = (&'static str, String, String);

/// One version of the estate (before or after the change): for each entry of the file order, its
/// objects and the sequence offset of its first object.
pub(super) type Version<'a> = Vec<(usize, &'a [Validated])>;

/// Where an object is in a version: the number of its file in the file order, and its position
/// among the file's objects.
type Loc = (u32, u32);

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
    /// Its objects, each with its sequence number in the whole input, in file order (none when the
    /// slice was cut for its names only).
    pub objects: Vec<Validated>,
    /// `Kind namespace/name` of the core objects: the affected gateways, the core routes and the
    /// core policies (findings about them come from the slice).
    pub core: BTreeSet<String>,
    /// `namespace/name` of the core routes (the Limitador limits' namespaces).
    pub routes: BTreeSet<String>,
    /// `Kind namespace/name` of the core policies.
    pub policies: BTreeSet<String>,
}

/// The estate's objects by what a slice looks them up by, kept between cycles and brought up to
/// date with the files parsed again: cutting a slice costs what the slice holds, not what the
/// estate holds.
#[derive(Default)]
pub(super) struct Index {
    gateways: HashMap<GatewayKey, Vec<Loc>>,
    /// Routes by each gateway they name as a parent.
    routes_by_parent: HashMap<GatewayKey, Vec<Loc>>,
    routes: HashMap<RouteKey, Vec<Loc>>,
    /// Policies by the gateway or route they target.
    policies_by_target: HashMap<TargetKey, Vec<Loc>>,
    policies: HashMap<(PolicyKind, String, String), Vec<Loc>>,
    services: HashMap<(String, String), Vec<Loc>>,
    /// Objects outside the topology: every slice holds them.
    always: BTreeSet<Loc>,
    extensions: BTreeSet<Loc>,
    /// Objects that carry the suppression annotation.
    annotated: BTreeSet<Loc>,
}

/// The gateways a route names as parents, each once.
fn parents(r: &crate::model::Obj<crate::model::Route>) -> BTreeSet<GatewayKey> {
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
        .collect()
}

fn route_key(r: &crate::model::Obj<crate::model::Route>) -> RouteKey {
    (
        r.spec.kind.kind(),
        r.meta.namespace.clone(),
        r.meta.name.clone(),
    )
}

/// What a policy's targetRef names when it is a gateway or a route in the Gateway API group.
fn target(p: &crate::model::Policy) -> Option<TargetKey> {
    let t = &p.target;
    if t.group.value != GATEWAY_API_GROUP {
        return None;
    }
    let kind = match t.kind.value.as_str() {
        "Gateway" => "Gateway",
        "HTTPRoute" => "HTTPRoute",
        "GRPCRoute" => "GRPCRoute",
        _ => return None,
    };
    Some((kind, p.meta.namespace.clone(), t.name.value.clone()))
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

fn policy_key(p: &crate::model::Policy) -> (PolicyKind, String, String) {
    (p.kind, p.meta.namespace.clone(), p.meta.name.clone())
}

impl Index {
    /// The index of `version`.
    pub(super) fn of(version: &Version<'_>) -> Self {
        let mut index = Index::default();
        for (file, (_, objs)) in version.iter().enumerate() {
            for (pos, o) in objs.iter().enumerate() {
                index.edit(loc(file, pos), o, true);
            }
        }
        index
    }

    /// The file at `file` in the order now holds `new` instead of `old`.
    pub(super) fn replace(&mut self, file: usize, old: &[Validated], new: &[Validated]) {
        for (pos, o) in old.iter().enumerate() {
            self.edit(loc(file, pos), o, false);
        }
        for (pos, o) in new.iter().enumerate() {
            self.edit(loc(file, pos), o, true);
        }
    }

    /// Add (`add`) or remove the entries of object `o` at `at`.
    fn edit(&mut self, at: Loc, o: &Validated, add: bool) {
        fn put<K: std::hash::Hash + Eq>(map: &mut HashMap<K, Vec<Loc>>, k: K, at: Loc, add: bool) {
            if add {
                map.entry(k).or_default().push(at);
            } else if let Some(v) = map.get_mut(&k) {
                v.retain(|l| *l != at);
                if v.is_empty() {
                    map.remove(&k);
                }
            }
        }
        fn set(set: &mut BTreeSet<Loc>, at: Loc, add: bool) {
            if add {
                set.insert(at);
            } else {
                set.remove(&at);
            }
        }
        if o.meta()
            .annotations
            .contains_key(crate::suppress::ANNOTATION)
        {
            set(&mut self.annotated, at, add);
        }
        match o {
            Validated::Gateway(g) => put(
                &mut self.gateways,
                (g.meta.namespace.clone(), g.meta.name.clone()),
                at,
                add,
            ),
            Validated::Route(r) => {
                for g in parents(r) {
                    put(&mut self.routes_by_parent, g, at, add);
                }
                put(&mut self.routes, route_key(r), at, add);
            }
            Validated::Policy(p) => {
                if let Some(t) = target(p) {
                    put(&mut self.policies_by_target, t, at, add);
                }
                put(&mut self.policies, policy_key(p), at, add);
            }
            Validated::Service(s) => put(
                &mut self.services,
                (s.meta.namespace.clone(), s.meta.name.clone()),
                at,
                add,
            ),
            Validated::Extension(_) => set(&mut self.extensions, at, add),
            Validated::GatewayClass(_)
            | Validated::Namespace(_)
            | Validated::Kuadrant(_)
            | Validated::Limitador(_)
            | Validated::Authorino(_)
            | Validated::Issuer(_)
            | Validated::ClusterIssuer(_)
            | Validated::Skipped { .. } => set(&mut self.always, at, add),
        }
    }

    /// The objects of `version` that carry the suppression annotation, in file order, each with
    /// its sequence offset.
    pub(super) fn annotated<'a>(&self, version: &Version<'a>) -> Vec<(usize, &'a Validated)> {
        self.annotated
            .iter()
            .filter_map(|&at| object(version, at))
            .collect()
    }
}

fn loc(file: usize, pos: usize) -> Loc {
    // The caps on input sizes keep both far below `u32::MAX`.
    (
        u32::try_from(file).unwrap_or(u32::MAX),
        u32::try_from(pos).unwrap_or(u32::MAX),
    )
}

/// The object at `at` in `version`, with its file's sequence offset.
fn object<'a>(version: &Version<'a>, (file, pos): Loc) -> Option<(usize, &'a Validated)> {
    let (offset, objs) = version.get(file as usize)?;
    Some((*offset, objs.get(pos as usize)?))
}

/// What the changed objects (`changed`: those of the changed files, both versions) reach;
/// `None` when a changed object is not a route or a sliceable policy. `old` is the version
/// before the change and `index` its index: a route a changed policy targets is in a changed file
/// (its parents are among the changed routes') or in both versions alike.
pub(super) fn reach(changed: &[&Validated], old: &Version<'_>, index: &Index) -> Option<Reach> {
    let mut out = Reach::default();
    let mut targeted: BTreeSet<RouteKey> = BTreeSet::new();
    for o in changed {
        match o {
            Validated::Route(r) => {
                out.gateways.extend(parents(r));
                out.routes.insert(route_key(r));
            }
            Validated::Policy(p) if sliceable(p) => {
                out.policies.insert(policy_key(p));
                match target(p)? {
                    ("Gateway", ns, name) => {
                        out.gateways.insert((ns, name));
                    }
                    route => {
                        targeted.insert(route);
                    }
                }
            }
            // A gateway, a class, anything outside the topology or an extension: a full cycle.
            _ => return None,
        }
    }
    for key in &targeted {
        for &at in index.routes.get(key).into_iter().flatten() {
            if let Some((_, Validated::Route(r))) = object(old, at) {
                out.gateways.extend(parents(r));
            }
        }
    }
    // A targeted route that exists in neither version is core all the same (the policy's status
    // says its target is missing).
    out.routes.extend(targeted);
    Some(out)
}

/// The slice of `version` (whose index is `index`) for `reach`; `None` when something in it
/// cannot be sliced (see the module documentation). Its objects are cloned only when `objects`
/// is set.
pub(super) fn slice(
    version: &Version<'_>,
    index: &Index,
    reach: &Reach,
    objects: bool,
) -> Option<Slice> {
    if !index.extensions.is_empty() {
        return None;
    }
    let at = |l: Loc| object(version, l).map(|(_, o)| o);
    let mut keep: BTreeSet<Loc> = index.always.clone();
    let mut out = Slice {
        objects: Vec::new(),
        core: BTreeSet::new(),
        routes: BTreeSet::new(),
        policies: BTreeSet::new(),
    };
    // The core routes: those attached to an affected gateway, and the changed ones (core even in
    // the version without them: the policies on them are). Every object with a core route's key
    // is core.
    let mut routes: BTreeSet<RouteKey> = reach.routes.clone();
    for g in &reach.gateways {
        for &l in index.routes_by_parent.get(g).into_iter().flatten() {
            if let Some(Validated::Route(r)) = at(l) {
                routes.insert(route_key(r));
            }
        }
    }
    let mut neighbours: HashSet<GatewayKey> = HashSet::new();
    let mut services: HashSet<(String, String)> = HashSet::new();
    for key in &routes {
        out.routes.insert(format!("{}/{}", key.1, key.2));
        for &l in index.routes.get(key).into_iter().flatten() {
            let Some(Validated::Route(r)) = at(l) else {
                continue;
            };
            keep.insert(l);
            out.core
                .insert(format!("{} {}", r.spec.kind.kind(), r.meta.key()));
            neighbours.extend(
                parents(r)
                    .into_iter()
                    .filter(|g| !reach.gateways.contains(g)),
            );
            for b in r.spec.rules.iter().flat_map(|x| &x.backend_refs) {
                if b.group.is_empty() && b.kind == "Service" {
                    let ns = b.namespace.as_ref().unwrap_or(&r.meta.namespace);
                    services.insert((ns.clone(), b.name.clone()));
                }
            }
        }
    }
    // The gateways: the affected ones are core, the neighbours kept.
    for g in &reach.gateways {
        for &l in index.gateways.get(g).into_iter().flatten() {
            if let Some(Validated::Gateway(gw)) = at(l) {
                keep.insert(l);
                out.core.insert(format!("Gateway {}", gw.meta.key()));
            }
        }
    }
    for g in &neighbours {
        keep.extend(index.gateways.get(g).into_iter().flatten());
    }
    for s in &services {
        keep.extend(index.services.get(s).into_iter().flatten());
    }
    // The policies: on an affected gateway or a core route, or changed, they are core (and must
    // be sliceable); a neighbour's rate-limit and auth policies are kept (its DNS or TLS policies
    // have no part in the paths of a core route).
    let mut core_policies: BTreeSet<Loc> = BTreeSet::new();
    for (ns, name) in &reach.gateways {
        let key = ("Gateway", ns.clone(), name.clone());
        core_policies.extend(index.policies_by_target.get(&key).into_iter().flatten());
    }
    for key in &routes {
        core_policies.extend(index.policies_by_target.get(key).into_iter().flatten());
    }
    for key in &reach.policies {
        core_policies.extend(index.policies.get(key).into_iter().flatten());
    }
    for &l in &core_policies {
        let Some(Validated::Policy(p)) = at(l) else {
            continue;
        };
        if !sliceable(p) {
            return None;
        }
        keep.insert(l);
        out.core.insert(p.display());
        out.policies.insert(p.display());
    }
    for (ns, name) in &neighbours {
        let key = ("Gateway", ns.clone(), name.clone());
        for &l in index.policies_by_target.get(&key).into_iter().flatten() {
            if let Some(Validated::Policy(p)) = at(l)
                && sliceable(p)
            {
                keep.insert(l);
            }
        }
    }
    if objects {
        out.objects = keep
            .into_iter()
            .filter_map(|l| object(version, l))
            .map(|(offset, o)| {
                let mut o = o.clone();
                o.meta_mut().origin.seq += offset;
                o
            })
            .collect();
    }
    Some(out)
}

/// The object a finding is about, as the slice's `core` names it: `Kind namespace/name` without a
/// section.
pub(super) fn about(d: &crate::diag::Diagnostic) -> Option<&str> {
    let o = d.object.as_deref()?;
    Some(o.split_once('#').map_or(o, |(head, _)| head))
}
