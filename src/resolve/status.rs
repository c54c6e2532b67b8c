//! Predicted `Accepted` / `Enforced` conditions of every policy (`docs/semantics/status.md`; the
//! version differences in `docs/semantics/versions.md`).
//!
//! Offline assumptions (`docs/semantics/status.md`): a Kuadrant object exists (one in `kuadrant-system` when the input has
//! none), Limitador/Authorino and the generated data-plane objects are ready, a TLSPolicy's issuer
//! exists when the input holds no issuer of the kind it names (else see [`issuer_check`]), and
//! listeners/routes are Programmed/Accepted unless [`StatusOptions::respect_status`] is set. A
//! data-plane object the status updaters look for but `generate` does not produce is waited for, as
//! the operator does (`Enforced=False Unknown "… waiting for the following components to sync"`).
//! DNSPolicy/TLSPolicy `Enforced` depends on DNSRecords and Certificates and is not predicted.

use super::effective;
use super::merge::{self, LossReason};
use super::{CelIssue, Component, Components, Effective, PathEffective, Provider, RuleKey};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{
    GATEWAY_API_GROUP, KuadrantVersion, Locator, Model, Policy, PolicyBody, PolicyKind, RouteKind,
    status::Condition as RawCondition,
};
use crate::topology::{Path, Topology};
use foldhash::{HashMap, HashMapExt};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Istio's default gateway controller name.
pub(crate) const ISTIO_CONTROLLER: &str = "istio.io/gateway-controller";
/// Envoy Gateway's default gateway controller name.
pub(crate) const ENVOY_GATEWAY_CONTROLLER: &str = "gateway.envoyproxy.io/gatewayclass-controller";

#[derive(Clone, Debug, Default)]
pub struct StatusOptions {
    /// Read listener and route readiness from the objects' `status` (`docs/semantics/paths.md`, "Readiness") instead of
    /// assuming it.
    pub respect_status: bool,
}

/// One status condition as the operator writes it (no timestamps, no generation).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Condition {
    #[serde(rename = "type")]
    pub type_: String,
    pub status: String,
    pub reason: String,
    pub message: String,
}

impl Condition {
    fn new(type_: &str, ok: bool, reason: &str, message: String) -> Self {
        Condition {
            type_: type_.into(),
            status: if ok { "True" } else { "False" }.into(),
            reason: reason.into(),
            message,
        }
    }

    pub fn is_true(&self) -> bool {
        self.status == "True"
    }
}

/// The predicted status of one policy.
#[derive(Clone, Debug)]
pub struct PolicyStatus {
    /// Index into `Model::policies`.
    pub policy: usize,
    pub accepted: Condition,
    /// `None` when not accepted (the operator removes it) and for DNS/TLS (not predictable offline).
    pub enforced: Option<Condition>,
    /// Why `enforced` is missing although the policy is accepted.
    pub note: Option<String>,
    /// Valid, ready paths where at least one rule of the policy is effective: indices into
    /// `Topology::path_list()`, in PathID order.
    pub enforced_on: Vec<usize>,
    /// `namespace/name` of the policies that override some rule of this one, sorted.
    pub overridden_by: Vec<String>,
    /// `Some` when both Istio and Envoy Gateway gateways have CEL issues and this policy has some on
    /// its paths, so that its live status depends on which of the operator's extension reconcilers
    /// stored its issues last (see [`status`]): the Envoy Gateway issues the prediction leaves out
    /// (possibly none).
    pub cel_not_shown: Option<Vec<String>>,
}

impl PolicyStatus {
    /// The conditions in the order the operator writes them.
    pub fn conditions(&self) -> Vec<&Condition> {
        std::iter::once(&self.accepted)
            .chain(self.enforced.as_ref())
            .collect()
    }
}

/// Path validity (`ObjectsInRequestPath` on 1.4, `ParseTopologyPath` on 1.5). With the operator's
/// topology the kind, class, listener and rule checks hold by construction, and so does the route
/// having a parentRef to the gateway with no sectionName or the listener's: what can fail is the
/// route's hostnames, one of which (when it has some) must be a subset of the listener hostname
/// (`*` when absent). The topology decides it once per path ([`Path::valid`]). `Err` carries the
/// message.
pub(crate) fn path_validity(t: &Topology, p: &Path) -> Result<(), String> {
    if p.valid {
        return Ok(());
    }
    let route = match t.model.routes[p.route].spec.kind {
        RouteKind::Http => "http route",
        RouteKind::Grpc => "grpc route",
    };
    Err(format!(
        "invalid path: {route} does not belong to the listener"
    ))
}

fn condition_true(conds: &Option<Vec<RawCondition>>, type_: &str) -> bool {
    conds.as_ref().is_some_and(|cs| {
        cs.iter()
            .find(|c| c.type_.as_deref() == Some(type_))
            .is_some_and(|c| c.status.as_deref() == Some("True"))
    })
}

/// Readiness gates of the status updaters (`docs/semantics/paths.md`, "Readiness"): the listener is Programmed and the route
/// is Accepted by the first `status.parents` entry of the class's controller that names the gateway.
/// Without `respect_status` both are assumed.
pub(crate) fn path_ready(t: &Topology, p: &Path, opts: &StatusOptions) -> bool {
    if !opts.respect_status {
        return true;
    }
    let m = t.model;
    let g = &m.gateways[p.gateway];
    let l = &g.spec.listeners[p.listener];
    let r = &m.routes[p.route];
    let controller = &m.gateway_classes[p.class].spec.controller_name;
    let listener_ready = g.spec.status.as_ref().is_some_and(|s| {
        s.listeners.as_ref().is_some_and(|ls| {
            ls.iter()
                .find(|x| x.name.as_deref() == Some(l.name.value.as_str()))
                .is_some_and(|x| condition_true(&x.conditions, "Programmed"))
        })
    });
    if !listener_ready {
        return false;
    }
    let grpc_v15 = r.spec.kind == RouteKind::Grpc && t.version() == KuadrantVersion::V1_5;
    let parents = r.spec.status.as_ref().and_then(|s| s.parents.as_ref());
    let entry = parents.and_then(|ps| {
        ps.iter().find(|s| {
            let Some(pr) = &s.parent_ref else {
                return false;
            };
            let val = |v: &Option<crate::model::Sp<String>>, d: &str| {
                v.as_ref()
                    .map(|x| x.value.clone())
                    .unwrap_or_else(|| d.to_string())
            };
            let mut ok = s.controller_name.as_deref() == Some(controller.as_str())
                && val(&pr.group, GATEWAY_API_GROUP) == GATEWAY_API_GROUP
                && val(&pr.kind, "Gateway") == "Gateway"
                && val(&pr.namespace, &r.meta.namespace) == g.meta.namespace
                && val(&pr.name, "") == g.meta.name;
            if grpc_v15 {
                // 1.5 checks a GRPCRoute's entry against the listener too: a `sectionName` or
                // `port` it names must be the listener's (kuadrant-operator v1.5.2
                // internal/gatewayapi/utils.go, `IsGRPCRouteReady`; HTTPRoutes and 1.4 do not).
                ok = ok
                    && pr
                        .section_name
                        .as_ref()
                        .is_none_or(|s| s.value == l.name.value)
                    && pr.port.as_ref().is_none_or(|x| x.value == l.port);
            }
            ok
        })
    });
    entry.is_some_and(|e| condition_true(&e.conditions, "Accepted"))
}

fn ns_name(p: &Policy) -> String {
    p.meta.key()
}

/// The `name` or `name#section` a target-not-found message shows.
fn target_ref_name(p: &Policy, with_section: bool) -> String {
    match (&p.target.section_name, with_section) {
        (Some(s), true) => format!("{}#{}", p.target.name.value, s.value),
        _ => p.target.name.value.clone(),
    }
}

fn accepted(t: &Topology, pi: usize) -> Condition {
    let m = t.model;
    let p = &m.policies[pi];
    let kind = p.kind.kind();
    if t.policy_target(pi).is_none() {
        let name = target_ref_name(p, p.kind.is_inherited());
        return Condition::new(
            "Accepted",
            false,
            "TargetNotFound",
            format!("{kind} target {name} was not found"),
        );
    }
    if !p.kind.is_inherited()
        && let Some(other) = conflicting(m, pi)
    {
        return Condition::new(
            "Accepted",
            false,
            "Conflicted",
            format!(
                "{kind} is conflicted by {}: conflicting policy",
                ns_name(&m.policies[other])
            ),
        );
    }
    if issuer_check(m, p) == IssuerCheck::Missing {
        // kuadrant.NewErrInvalid(kind, "unable to find issuer") (tlspolicies_validator.go
        // isIssuerFound, v1.4.6 and v1.5.2); ErrInvalid's text is "%s target is invalid: %s".
        return Condition::new(
            "Accepted",
            false,
            "Invalid",
            format!("{kind} target is invalid: unable to find issuer"),
        );
    }
    Condition::new(
        "Accepted",
        true,
        "Accepted",
        format!("{kind} has been accepted"),
    )
}

/// What the input says about a TLSPolicy's issuer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IssuerCheck {
    /// Not a TLSPolicy with an issuerRef, or the issuer is in the input.
    Found,
    /// The operator would not find it: Accepted=False Invalid.
    Missing,
    /// The input holds no issuers of the kind named: assumed to exist, as offline must.
    Assumed,
}

/// The operator's `isIssuerFound` (tlspolicies_validator.go, identical at v1.4.6 and v1.5.2): among
/// the objects the policy is linked to, an Issuer named `issuerRef.name` in the policy's namespace
/// when `issuerRef.kind` is blank or `Issuer`, else a ClusterIssuer of that name. The links
/// (tls_workflow.go `LinkTLSPolicyToIssuerFunc` / `…ToClusterIssuerFunc`) exist only when
/// `issuerRef.kind` is exactly `Issuer` / `ClusterIssuer`, so a blank kind is never found.
pub(crate) fn issuer_check(m: &Model, p: &Policy) -> IssuerCheck {
    let PolicyBody::Direct(d) = &p.body else {
        return IssuerCheck::Found;
    };
    let Some(ir) = (p.kind == PolicyKind::Tls)
        .then_some(d.issuer.as_ref())
        .flatten()
    else {
        return IssuerCheck::Found;
    };
    let name = ir.name.value.as_str();
    let found = match ir.kind.as_str() {
        "" => return IssuerCheck::Missing,
        "Issuer" => {
            if m.issuers.is_empty() {
                return IssuerCheck::Assumed;
            }
            m.issuers
                .iter()
                .any(|i| i.meta.name == name && i.meta.namespace == p.meta.namespace)
        }
        _ => {
            if m.cluster_issuers.is_empty() {
                return IssuerCheck::Assumed;
            }
            m.cluster_issuers.iter().any(|i| i.meta.name == name)
        }
    };
    if found {
        IssuerCheck::Found
    } else {
        IssuerCheck::Missing
    }
}

/// `PCTL3014` / `PCTL3015` for a TLSPolicy's issuerRef (`None` when there is nothing to say).
fn issuer_diagnostic(m: &Model, p: &Policy, accepted: &Condition) -> Option<Diagnostic> {
    let PolicyBody::Direct(d) = &p.body else {
        return None;
    };
    let ir = d.issuer.as_ref()?;
    let name = &ir.name.value;
    let named = match ir.kind.as_str() {
        "ClusterIssuer" => format!("ClusterIssuer {name}"),
        _ => format!("Issuer {}/{name}", p.meta.namespace),
    };
    match issuer_check(m, p) {
        IssuerCheck::Found => None,
        IssuerCheck::Missing if accepted.reason == "Invalid" => {
            let (why, help) = if ir.kind.is_empty() {
                (
                    "issuerRef.kind is blank, and the operator links a TLSPolicy only to an issuer of the kind issuerRef.kind names, so it never finds one".to_string(),
                    "set issuerRef.kind: Issuer (or ClusterIssuer)",
                )
            } else {
                (
                    format!("{named} is not in the input"),
                    "fix issuerRef, or add the issuer to the input (cert-manager.io/v1)",
                )
            };
            Some(
                Diagnostic::new(
                    Code::IssuerNotFound,
                    format!("{} ({why})", accepted.message),
                )
                .object(p.display())
                .at(ir.name.span, "issuer not found")
                .help(help),
            )
        }
        IssuerCheck::Missing => None,
        IssuerCheck::Assumed => Some(
            Diagnostic::new(
                Code::IssuerAssumed,
                format!(
                    "the input holds no {}: {named} is assumed to exist",
                    if ir.kind == "ClusterIssuer" {
                        "ClusterIssuer"
                    } else {
                        "Issuer"
                    }
                ),
            )
            .object(p.display())
            .at(ir.name.span, "assumed issuer")
            .help("add the Issuers and ClusterIssuers to the input to have issuerRef checked"),
        ),
    }
}

/// DNS/TLS: an older policy of the same kind with an identical targetRef. The operator takes the first
/// match in map order; policyctl the oldest, then by namespace/name.
fn conflicting(m: &Model, pi: usize) -> Option<usize> {
    let p = &m.policies[pi];
    let same_ref = |q: &Policy| {
        q.meta.namespace == p.meta.namespace
            && q.target.group.value == p.target.group.value
            && q.target.kind.value == p.target.kind.value
            && q.target.name.value == p.target.name.value
            && q.target.section_name.as_ref().map(|s| &s.value)
                == p.target.section_name.as_ref().map(|s| &s.value)
    };
    let mine = p.meta.created;
    m.policies
        .iter()
        .enumerate()
        .filter(|(i, q)| *i != pi && q.kind == p.kind && q.meta.created < mine && same_ref(q))
        .min_by(|a, b| effective::creation_order(a.1, b.1))
        .map(|(i, _)| i)
}

fn effective_of(pe: &PathEffective, kind: PolicyKind) -> Option<&Effective> {
    match kind {
        PolicyKind::RateLimit => pe.rate_limit.as_deref(),
        PolicyKind::Auth => pe.auth.as_deref(),
        PolicyKind::TokenRateLimit => pe.token_rate_limit.as_deref(),
        _ => None,
    }
}

struct Walk {
    affected_gateways: BTreeSet<usize>,
    /// rule key → who overrides it (a key is present once some path did not take it from this policy).
    overriding: BTreeMap<RuleKey, Overriders>,
    cel: Vec<String>,
    /// Issues of the provider whose findings the operator may have overwritten (see [`status`]).
    cel_not_shown: Vec<String>,
    enforced_on: Vec<usize>,
    /// Whether some rule of the policy is effective in an effective policy, by address: paths share
    /// effective policies, and what the rules say depends on nothing else.
    affected_in: HashMap<usize, bool>,
}

impl Walk {
    fn new() -> Self {
        Walk {
            affected_gateways: BTreeSet::new(),
            overriding: BTreeMap::new(),
            cel: Vec::new(),
            cel_not_shown: Vec::new(),
            enforced_on: Vec::new(),
            affected_in: HashMap::new(),
        }
    }

    /// Continue this walk with `later`, the walk of the same policy over the paths that follow:
    /// what one walk over both runs of paths finds. An effective policy met in both runs gives
    /// the same overriders in each; the first locator found is the earlier run's.
    fn append(&mut self, later: Walk) {
        self.affected_gateways.extend(later.affected_gateways);
        for (k, o) in later.overriding {
            match self.overriding.entry(k) {
                std::collections::btree_map::Entry::Vacant(v) => {
                    v.insert(o);
                }
                std::collections::btree_map::Entry::Occupied(mut e) => {
                    let e = e.get_mut();
                    if e.first.is_none() {
                        e.first = o.first;
                    }
                    e.winners.extend(o.winners);
                    e.sources.extend(o.sources);
                }
            }
        }
        self.cel.extend(later.cel);
        self.cel_not_shown.extend(later.cel_not_shown);
        self.enforced_on.extend(later.enforced_on);
        self.affected_in.extend(later.affected_in);
    }
}

/// Who overrides one rule key of a policy, over all the paths of its walk (each distinct effective
/// policy is looked at once).
#[derive(Default)]
struct Overriders {
    /// The first locator found (paths in PathID order): a TokenRateLimitPolicy's message names it.
    first: Option<String>,
    /// Policies whose rule of the key won on some path.
    winners: BTreeSet<usize>,
    /// The sources of the effective policies without the key: all of them count as overriders.
    sources: BTreeSet<Locator>,
}

impl Overriders {
    /// `namespace/name` of every overrider (a policy may come twice: the caller sorts and dedups).
    fn names(&self, m: &Model) -> impl Iterator<Item = String> {
        self.winners
            .iter()
            .map(|&pi| m.policies[pi].locator())
            .chain(self.sources.iter().cloned())
            .map(|l| l.name_part().to_string())
    }
}

/// Walk every path once and record, for each policy in `wanted`, what its walk over the paths in PathID
/// order finds (the paths through a policy are the ones whose effective policy lists it).
fn walks(
    t: &Topology,
    paths: &[Path],
    eff: &[PathEffective],
    cel: &[CelIssue],
    shown: Option<Provider>,
    opts: &StatusOptions,
    wanted: &[bool],
) -> Vec<Option<Walk>> {
    let m = t.model;
    // The rule keys of every wanted policy of the kinds walked, on every core (a large estate has
    // tens of thousands of policies).
    let walked = |pi: usize| {
        wanted[pi]
            && matches!(
                m.policies[pi].kind,
                PolicyKind::RateLimit | PolicyKind::Auth | PolicyKind::TokenRateLimit
            )
    };
    let indices: Vec<usize> = (0..wanted.len().min(m.policies.len())).collect();
    let keys: Vec<Option<Vec<RuleKey>>> = crate::par::map(&indices, 1024, |&pi| {
        walked(pi).then(|| merge::policy_rule_keys(&m.policies[pi]))
    });
    let mut cel_at: HashMap<usize, Vec<&CelIssue>> = HashMap::new();
    for c in cel {
        cel_at.entry(c.path).or_default().push(c);
    }
    let shown = |c: &&CelIssue| shown.is_none_or(|p| c.provider == p);
    // Contiguous runs of paths walked on every core, each run's walks appended to the earlier
    // runs' in path order.
    const PATHS_PER_THREAD: usize = 16384;
    let threads = crate::par::cores()
        .min(paths.len() / PATHS_PER_THREAD)
        .max(1);
    let ranges = crate::par::even_ranges(paths.len(), threads);
    let fresh = || -> Vec<Option<Walk>> { wanted.iter().map(|&w| w.then(Walk::new)).collect() };
    let parts = crate::par::map_ranges(ranges, |r| {
        let mut out = fresh();
        for index in r {
            let (path, pe) = (&paths[index], &eff[index]);
            let mut ready = None;
            for kind in [
                PolicyKind::RateLimit,
                PolicyKind::Auth,
                PolicyKind::TokenRateLimit,
            ] {
                let Some(e) = effective_of(pe, kind) else {
                    continue;
                };
                let mut seen: Vec<usize> = Vec::new();
                for &pi in &e.policies {
                    if m.policies[pi].kind != kind || seen.contains(&pi) {
                        continue;
                    }
                    seen.push(pi);
                    let Some(w) = out.get_mut(pi).and_then(Option::as_mut) else {
                        continue;
                    };
                    // Every wanted policy of a walked kind has its keys.
                    let Some(keys) = keys.get(pi).and_then(Option::as_deref) else {
                        continue;
                    };
                    walk_path(
                        t,
                        (index, path),
                        e,
                        (cel_at.get(&index), &shown),
                        opts,
                        pi,
                        keys,
                        w,
                        &mut ready,
                    );
                }
            }
        }
        out
    });
    let mut parts = parts.into_iter();
    // No path at all: no run, and every wanted policy's walk is empty.
    let mut out = parts.next().unwrap_or_else(fresh);
    for part in parts {
        // Policy by policy on every core.
        crate::par::zip_mut(&mut out, part, 1024, |w, later| {
            if let (Some(w), Some(later)) = (w, later) {
                w.append(later);
            }
        });
    }
    out
}

/// The CEL issues of one path, and which of them the prediction shows.
type PathIssues<'a> = (
    Option<&'a Vec<&'a CelIssue>>,
    &'a dyn Fn(&&CelIssue) -> bool,
);

/// One step of a policy's walk: `path` is a path whose effective policy of the policy's kind lists it.
#[allow(clippy::too_many_arguments)]
fn walk_path(
    t: &Topology,
    (index, path): (usize, &Path),
    e: &Effective,
    (cel, shown): PathIssues<'_>,
    opts: &StatusOptions,
    pi: usize,
    keys: &[RuleKey],
    w: &mut Walk,
    ready: &mut Option<bool>,
) {
    let m = t.model;
    let p = &m.policies[pi];
    {
        for c in cel.into_iter().flatten().filter(|c| c.kind == p.kind) {
            if shown(c) {
                w.cel.push(c.message.clone());
            } else {
                w.cel_not_shown.push(c.message.clone());
            }
        }
        // TokenRateLimitPolicy ignores path validity (kuadrant-operator v1.5.2
        // internal/controller/tokenratelimitpolicy_status_updater.go).
        if p.kind != PolicyKind::TokenRateLimit && !path.valid {
            return;
        }
        if !*ready.get_or_insert_with(|| path_ready(t, path, opts)) {
            return;
        }
        let seen = w
            .affected_in
            .get(&(std::ptr::from_ref(e) as usize))
            .copied();
        let mut affected = seen.unwrap_or(p.kind == PolicyKind::Auth && e.rules.is_empty());
        if seen.is_none() && !affected {
            for k in keys {
                let winner = match e.rules.get(k.as_str()) {
                    Some(r) if r.source == pi => {
                        affected = true;
                        continue;
                    }
                    Some(r) => Some(r.source),
                    None => None,
                };
                if !w.overriding.contains_key(k) {
                    w.overriding.insert(k.clone(), Overriders::default());
                }
                let Some(o) = w.overriding.get_mut(k) else {
                    continue;
                };
                match winner {
                    Some(source) => {
                        if o.first.is_none() {
                            o.first = Some(m.policies[source].locator().to_string());
                        }
                        o.winners.insert(source);
                    }
                    None => {
                        if o.first.is_none() {
                            o.first = e.sources.first().map(|l| l.to_string());
                        }
                        o.sources.extend(e.sources.iter().cloned());
                    }
                }
            }
        }
        w.affected_in
            .insert(std::ptr::from_ref(e) as usize, affected);
        if affected {
            w.affected_gateways.insert(path.gateway);
            w.enforced_on.push(index);
        }
    }
}

/// `namespace/name` of every policy that overrides some rule of the walked one, sorted.
fn overridden_by(m: &Model, w: &Walk) -> Vec<String> {
    let mut v: Vec<String> = w.overriding.values().flat_map(|o| o.names(m)).collect();
    v.sort();
    v.dedup();
    v
}

/// The components a status updater looks for under one gateway, in the order it looks (kuadrant-operator
/// v1.4.6 and v1.5.2 internal/controller/{ratelimit_policy,auth_policy,tokenratelimitpolicy}_status_updater.go):
/// each entry is the kind it names and the generated objects that satisfy it. 1.4 accepts any child
/// of the kind; 1.5 wants Istio's `EnvoyFilter`s by name.
fn gateway_components(
    version: KuadrantVersion,
    kind: PolicyKind,
    provider: Provider,
) -> [(&'static str, &'static [Component]); 2] {
    use Component as C;
    const ANY_ENVOY_FILTER: &[Component] = &[
        C::RateLimitEnvoyFilter,
        C::AuthEnvoyFilter,
        C::TracingEnvoyFilter,
        C::WasmEnvoyFilter,
    ];
    match (provider, version) {
        (Provider::EnvoyGateway, _) => [
            ("EnvoyPatchPolicy", &[C::EnvoyPatchPolicy]),
            ("EnvoyExtensionPolicy", &[C::EnvoyExtensionPolicy]),
        ],
        (Provider::Istio, KuadrantVersion::V1_4) => [
            ("EnvoyFilter", ANY_ENVOY_FILTER),
            ("WasmPlugin", &[C::WasmPlugin]),
        ],
        (Provider::Istio, KuadrantVersion::V1_5) => [
            (
                "EnvoyFilter",
                if kind == PolicyKind::Auth {
                    &[C::AuthEnvoyFilter]
                } else {
                    &[C::RateLimitEnvoyFilter]
                },
            ),
            ("EnvoyFilter", &[C::WasmEnvoyFilter]),
        ],
    }
}

fn enforced(t: &Topology, p: &Policy, w: &Walk, components: Option<&Components>) -> Condition {
    let m = t.model;
    let kind = p.kind.kind();
    let overriders = || overridden_by(m, w);
    if w.affected_gateways.is_empty() {
        if w.overriding.is_empty() {
            return Condition::new(
                "Enforced",
                false,
                "Unknown",
                format!("{kind} is not in the path to any existing routes"),
            );
        }
        return Condition::new(
            "Enforced",
            false,
            "Overridden",
            format!("{kind} is overridden by [{}]", overriders().join(" ")),
        );
    }
    if p.kind == PolicyKind::TokenRateLimit && !w.overriding.is_empty() {
        // Canonical order for the operator's map iteration: by rule key.
        let parts: Vec<String> = w
            .overriding
            .iter()
            .map(|(k, by)| match &by.first {
                Some(b) if !b.is_empty() => format!("{k} by {b}"),
                _ => k.to_string(),
            })
            .collect();
        return Condition::new(
            "Enforced",
            false,
            "Unknown",
            format!(
                "{kind} has encountered some issues: policy rule(s) overridden: {}",
                parts.join(", ")
            ),
        );
    }
    // Components: Limitador/Authorino are assumed synced, and so are the Istio/Envoy Gateway objects
    // that `generate` produced; one it did not produce is waited for forever, as the operator does (an
    // affected gateway with no action set has no wasm object). A gateway of any other controller is
    // always pending.
    let mut pending: Vec<String> = Vec::new();
    for &gi in &w.affected_gateways {
        let g = &m.gateways[gi];
        let Some(class) = m.gateway_class(&g.spec.class_name.value) else {
            continue;
        };
        let provider = match class.spec.controller_name.as_str() {
            ISTIO_CONTROLLER => Provider::Istio,
            ENVOY_GATEWAY_CONTROLLER => Provider::EnvoyGateway,
            _ => {
                pending.push(format!("Gateway ({})", g.meta.key()));
                continue;
            }
        };
        let Some(made) = components else { continue };
        for (name, satisfied_by) in gateway_components(t.version(), p.kind, provider) {
            if !satisfied_by.iter().any(|&c| made.contains(gi, c)) {
                pending.push(format!("{name} ({})", g.meta.key()));
            }
        }
    }
    if !w.cel.is_empty() {
        return Condition::new(
            "Enforced",
            false,
            "InvalidCelExpression",
            format!("validation issues: [{}]", w.cel.join(" ")),
        );
    }
    if !pending.is_empty() {
        return Condition::new(
            "Enforced",
            false,
            "Unknown",
            format!(
                "{kind} waiting for the following components to sync: [{}]",
                pending.join(" ")
            ),
        );
    }
    if w.overriding.is_empty() {
        Condition::new(
            "Enforced",
            true,
            "Enforced",
            format!("{kind} has been successfully enforced"),
        )
    } else {
        Condition::new(
            "Enforced",
            true,
            "Enforced",
            format!("{kind} has been partially enforced"),
        )
    }
}

/// Predicted status of every policy, in model order. `eff` is [`super::effective()`] of `t`; `cel` the
/// generator's CEL issues (any order: entries are taken path by path in PathID order).
///
/// `components` are the objects `generate` produced (`None`: assume every one exists). When both
/// Istio and Envoy Gateway gateways have CEL issues, only the Istio ones are shown: the operator's two
/// extension reconcilers run as concurrent tasks and each stores its own issue collection under the
/// same state key (`StateCELValidationErrors`; kuadrant-operator v1.4.6 and v1.5.2
/// internal/controller/istio_extension_reconciler.go and envoy_gateway_extension_reconciler.go), so
/// the live status carries whichever set was written last. The issues left out are in
/// [`PolicyStatus::cel_not_shown`] and [`diagnostics`] warns about them.
pub fn status(
    t: &Topology,
    eff: &[PathEffective],
    cel: &[CelIssue],
    components: Option<&Components>,
    opts: &StatusOptions,
) -> Vec<PolicyStatus> {
    let m = t.model;
    let paths = t.path_list();
    let has = |p: Provider| cel.iter().any(|c| c.provider == p);
    let shown = (has(Provider::Istio) && has(Provider::EnvoyGateway)).then_some(Provider::Istio);
    let indices: Vec<usize> = (0..m.policies.len()).collect();
    let acc: Vec<Condition> = crate::par::map(&indices, 1024, |&pi| accepted(t, pi));
    let wanted: Vec<bool> = acc
        .iter()
        .zip(&m.policies)
        .map(|(a, p)| a.is_true() && p.kind.is_inherited())
        .collect();
    let walks = walks(t, paths, eff, cel, shown, opts, &wanted);
    // What each walk means, and each policy's status, on every core; the walks (tens of thousands
    // of maps for a large estate) are then freed on every core too.
    let statuses = crate::par::map(&indices, 1024, |&pi| {
        let p = &m.policies[pi];
        let acc = &acc[pi];
        let mut status = PolicyStatus {
            policy: pi,
            accepted: acc.clone(),
            enforced: None,
            note: None,
            enforced_on: vec![],
            overridden_by: vec![],
            cel_not_shown: None,
        };
        if !acc.is_true() {
            return status;
        }
        if !p.kind.is_inherited() {
            status.note = Some(format!(
                "{} Enforced depends on {} in the cluster and is not predicted offline",
                p.kind.kind(),
                if p.kind == PolicyKind::Dns {
                    "DNSRecords"
                } else {
                    "cert-manager Certificates"
                }
            ));
            return status;
        }
        let Some(w) = walks[pi].as_ref() else {
            unreachable!("every accepted inherited policy is walked")
        };
        status.enforced = Some(enforced(t, p, w, components));
        status.overridden_by = overridden_by(m, w);
        status.enforced_on = w.enforced_on.clone();
        status.cel_not_shown = (shown.is_some()
            && !(w.cel.is_empty() && w.cel_not_shown.is_empty()))
        .then(|| w.cel_not_shown.clone());
        status
    });
    crate::par::drop_in_parts(walks, 1024);
    statuses
}

/// Diagnostics for the predicted statuses: PCTL3001 overridden, PCTL3002 partially enforced, PCTL3003
/// not in path, PCTL3005 conflicted, PCTL3006 invalid CEL, PCTL3004 a name tie-break decided a rule,
/// (PCTL3007, no Kuadrant object, comes from generation.) Each points at the policy's `metadata.name`.
pub fn diagnostics(t: &Topology, statuses: &[PolicyStatus]) -> Diagnostics {
    let m = t.model;
    let mut d = Diagnostics::new();
    for s in statuses {
        // Index: statuses are built one per policy of this model.
        let p = &m.policies[s.policy];
        let span = p.meta.origin.name;
        let at = |code: Code, msg: String| {
            Diagnostic::new(code, msg.clone())
                .object(p.display())
                .at(span, msg)
        };
        if let Some(issuer) = issuer_diagnostic(m, p, &s.accepted) {
            d.push(issuer);
        }
        if s.accepted.reason == "Conflicted" {
            d.push(at(Code::Conflicted, s.accepted.message.clone()).help(
                "only the oldest policy of a kind may target an object; remove or retarget this one",
            ));
        }
        let Some(e) = &s.enforced else { continue };
        match (e.reason.as_str(), e.is_true()) {
            ("Overridden", _) => d.push(
                at(Code::Overridden, e.message.clone())
                    .help("see `policyctl explain` for which rules lost and why"),
            ),
            ("Unknown", false) if e.message.ends_with("not in the path to any existing routes") => d.push(
                at(Code::NotInPath, e.message.clone())
                    .help("no valid path (class → gateway → listener → route) runs through this policy's target"),
            ),
            ("InvalidCelExpression", _) => d.push(
                at(Code::InvalidCel, e.message.clone())
                    .help("declare the variable (e.g. add an AuthPolicy on the path for `auth.*`) or fix the predicate"),
            ),
            ("Enforced", true) if e.message.ends_with("partially enforced") => d.push(
                at(Code::PartiallyEnforced, e.message.clone())
                    .help("see `policyctl explain` for which rules are overridden"),
            ),
            _ => {}
        }
        if let Some(other) = &s.cel_not_shown {
            let msg = format!(
                "the operator reports the CEL issues of either the Istio or the Envoy Gateway gateways, whichever its extension reconcilers store last: policyctl shows the Istio ones ({}), the live status may show {}",
                match e.reason.as_str() {
                    "InvalidCelExpression" => "Enforced=False InvalidCelExpression",
                    _ => "no validation issue for this policy",
                },
                if other.is_empty() {
                    "no validation issue for this policy instead".to_string()
                } else {
                    format!("validation issues: [{}] instead", other.join(" "))
                }
            );
            d.push(at(Code::CelIssuesOneProvider, msg).help(
                "fix the CEL issues on both kinds of gateway; until then the Enforced condition depends on timing",
            ));
        }
    }
    equal_timestamp_conflicts(t, &mut d);
    for (a, b) in name_ties(t) {
        let (pa, pb) = (&m.policies[a], &m.policies[b]);
        let msg = format!(
            "{} and {} target the same object with equal creationTimestamps (missing counts as equal); their namespace/name order decided a rule",
            pa.display(),
            pb.display()
        );
        d.push(
            Diagnostic::new(Code::TieBreakByName, msg.clone())
                .object(pa.display())
                .at(pa.meta.origin.name, msg)
                .also(pb.meta.origin.name, "tied with this policy")
                .help("set metadata.creationTimestamp to the real creation order, or make the policies not compete"),
        );
    }
    d
}

/// `PCTL3013`: two DNSPolicies or TLSPolicies with the same targetRef and no `creationTimestamp`
/// (manifests kept in git). The operator marks Conflicted only a policy with a strictly older one on
/// the same target (`isConflict`, dnspolicies_validator.go / tlspolicies_validator.go, identical at
/// v1.4.6 and v1.5.2), so with equal timestamps neither is, as predicted; but applied to a cluster,
/// whichever is created second gets a later timestamp and is Conflicted. One finding per pair.
fn equal_timestamp_conflicts(t: &Topology, d: &mut Diagnostics) {
    let m = t.model;
    let mut groups: BTreeMap<(PolicyKind, String), Vec<usize>> = BTreeMap::new();
    for (pi, p) in m.policies.iter().enumerate() {
        if p.kind.is_inherited()
            || p.meta.creation_timestamp.is_some()
            || t.policy_target(pi).is_none()
        {
            continue;
        }
        let target = format!(
            "{}/{}|{}|{}|{}#{}",
            p.meta.namespace,
            p.target.group.value,
            p.target.kind.value,
            p.target.name.value,
            p.target.section_name.is_some(),
            p.target
                .section_name
                .as_ref()
                .map_or("", |s| s.value.as_str()),
        );
        groups.entry((p.kind, target)).or_default().push(pi);
    }
    for list in groups.values() {
        for (i, &a) in list.iter().enumerate() {
            for &b in &list[i + 1..] {
                let (pa, pb) = (&m.policies[a], &m.policies[b]);
                let kind = pa.kind.kind();
                let target = t
                    .policy_target(a)
                    .map(|n| format!("{} {}", n.kind, n.name()))
                    .unwrap_or_default();
                let msg = format!(
                    "{} and {} both target {target} and neither has a creationTimestamp: neither is Conflicted here, as the operator decides for equal timestamps, but in a cluster whichever is created second will be Accepted=False Conflicted",
                    pa.display(),
                    pb.display()
                );
                d.push(
                    Diagnostic::new(Code::EqualTimestampConflict, msg.clone())
                        .object(pa.display())
                        .at(pa.meta.origin.name, msg)
                        .also(pb.meta.origin.name, "same target")
                        .help(format!(
                            "only one {kind} may target an object: remove or retarget one of them"
                        )),
                );
            }
        }
    }
}

/// Pairs of policies on the same target with equal timestamps where one rule of one of them was dropped
/// in favour of the other (so the name order decided it), sorted, unique.
pub(crate) fn name_ties(t: &Topology) -> BTreeSet<(usize, usize)> {
    let m = t.model;
    let mut out = BTreeSet::new();
    // The fold depends only on the path's policy list: look at each distinct list once. Lists without
    // two policies on one target with equal instants cannot hold a tie. Two such policies are
    // attached to one node (one target, one node), next to each other in its list: only paths
    // through a node with such a pair are looked at, and on most estates there is none.
    const KINDS: [PolicyKind; 3] = [
        PolicyKind::RateLimit,
        PolicyKind::Auth,
        PolicyKind::TokenRateLimit,
    ];
    let tie_at = |node: petgraph::graph::NodeIndex| {
        let list = t.policies_at_node_in_order(node);
        KINDS.iter().any(|&kind| {
            let of_kind: Vec<usize> = (list.iter().copied())
                .filter(|&i| m.policies[i].kind == kind)
                .collect();
            of_kind
                .windows(2)
                .any(|w| effective::tie_by_name(&m.policies[w[0]], &m.policies[w[1]]))
        })
    };
    let tie_nodes: BTreeSet<petgraph::graph::NodeIndex> =
        (t.graph.node_indices()).filter(|&n| tie_at(n)).collect();
    let mut lists: BTreeSet<(PolicyKind, Vec<usize>)> = BTreeSet::new();
    if tie_nodes.is_empty() {
        return out;
    }
    for path in t.path_list() {
        if !(t.path_nodes(path).iter().flatten()).any(|n| tie_nodes.contains(n)) {
            continue;
        }
        for kind in KINDS {
            if !effective::kind_applies(t, path, kind) {
                continue;
            }
            let list = effective::policies_in_path(t, path, kind);
            let tie_possible = list.windows(2).any(|w| {
                t.policy_target(w[0]).map(|n| &n.locator)
                    == t.policy_target(w[1]).map(|n| &n.locator)
                    && effective::tie_by_name(&m.policies[w[0]], &m.policies[w[1]])
            });
            if tie_possible {
                lists.insert((kind, list));
            }
        }
    }
    for (kind, list) in lists {
        {
            let Some(tr) = effective::fold_policies(t, kind, list) else {
                continue;
            };
            for loss in &tr.folded.losses {
                if loss.reason == LossReason::ReplacedByAtomicDefaults {
                    continue;
                }
                let by = std::iter::once(loss.step_source).chain(loss.beaten_by.iter().copied());
                for w in by.collect::<BTreeSet<_>>() {
                    if w == loss.loser {
                        continue;
                    }
                    let (pl, pw) = (&m.policies[loss.loser], &m.policies[w]);
                    if t.policy_target(loss.loser).map(|n| &n.locator)
                        == t.policy_target(w).map(|n| &n.locator)
                        && effective::tie_by_name(pl, pw)
                    {
                        out.insert((loss.loser.min(w), loss.loser.max(w)));
                    }
                }
            }
        }
    }
    out
}

/// The policy object as written with `status` replaced by the prediction: `conditions` (type, status,
/// reason, message, and `observedGeneration` when `metadata.generation` is known) and
/// `observedGeneration`. `lastTransitionTime` is left out on purpose: it records when the operator wrote
/// the condition, which an offline prediction cannot know, and a made-up time would churn diffs.
pub(crate) fn with_predicted_status(
    object: serde_json::Value,
    s: &PolicyStatus,
    generation: Option<i64>,
) -> serde_json::Value {
    with_conditions(object, &s.conditions(), generation)
}

/// `object` with `status` set to `conditions` (and `observedGeneration` when the generation is
/// known).
pub(crate) fn with_conditions(
    mut object: serde_json::Value,
    conditions: &[&Condition],
    generation: Option<i64>,
) -> serde_json::Value {
    use serde_json::{Map, Value, json};
    let conditions: Vec<Value> = conditions
        .iter()
        .map(|c| {
            let mut m = Map::new();
            m.insert("type".into(), json!(c.type_));
            m.insert("status".into(), json!(c.status));
            m.insert("reason".into(), json!(c.reason));
            m.insert("message".into(), json!(c.message));
            if let Some(g) = generation {
                m.insert("observedGeneration".into(), json!(g));
            }
            Value::Object(m)
        })
        .collect();
    let mut status = Map::new();
    if let Some(g) = generation {
        status.insert("observedGeneration".into(), json!(g));
    }
    status.insert("conditions".into(), Value::Array(conditions));
    if let Value::Object(o) = &mut object {
        o.insert("status".into(), Value::Object(status));
    }
    object
}
