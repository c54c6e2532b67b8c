//! Effective policies per path (`docs/semantics/paths.md`, `docs/semantics/merge.md`): which policies are on a path, their order,
//! and the fold.

use super::merge::{self, FoldInput, Folded};
use super::{Effective, PathEffective, Rules};
use crate::model::{KuadrantVersion, Locator, Policy, PolicyKind, RouteKind};
use crate::topology::{Path, Topology};
use foldhash::{HashMap, HashMapExt};
use std::cell::OnceCell;
use std::cmp::Ordering;
use std::sync::Arc;

/// `ObjectsByCreationTimestamp`: older first; equal instants by `"namespace/name"`.
pub fn creation_order(a: &Policy, b: &Policy) -> Ordering {
    a.meta
        .created
        .cmp(&b.meta.created)
        .then_with(|| a.meta.key().cmp(&b.meta.key()))
}

/// Whether two policies on the same target were ordered by name (their instants are equal).
pub fn tie_by_name(a: &Policy, b: &Policy) -> bool {
    a.meta.created == b.meta.created
}

/// `PoliciesInPath`: policies of `kind` attached to the path's targetables, least → most specific,
/// each targetable's policies in creation order. Every attached policy is accepted offline.
pub fn policies_in_path(t: &Topology, path: &Path, kind: PolicyKind) -> Vec<usize> {
    let m = t.model;
    let mut out = Vec::new();
    // Each node's list is already in creation order (a stable sort of model order), so filtering it by
    // kind gives what sorting the filtered list would.
    for node in t.path_nodes(path).into_iter().flatten() {
        out.extend(
            t.policies_at_node_in_order(node)
                .iter()
                .copied()
                .filter(|&i| m.policies[i].kind == kind),
        );
    }
    out
}

/// Whether policies of `kind` are computed for a path: RLP and AuthPolicy on every route rule the
/// topology has (GRPCRoute rules on 1.5), TokenRateLimitPolicy on HTTPRoute rules only.
pub fn kind_applies(t: &Topology, path: &Path, kind: PolicyKind) -> bool {
    match kind {
        PolicyKind::RateLimit | PolicyKind::Auth => true,
        PolicyKind::TokenRateLimit => t.model.routes[path.route].spec.kind == RouteKind::Http,
        PolicyKind::Dns | PolicyKind::Tls => false,
    }
}

/// The effective policy of one kind on one path, with the fold's record of dropped rules.
#[derive(Clone, Debug)]
pub struct Traced {
    pub effective: Effective,
    pub folded: Folded,
}

/// Fold the policies of `kind` on `path`; `None` when no policy of that kind is on it.
pub fn effective_for_path(t: &Topology, path: &Path, kind: PolicyKind) -> Option<Traced> {
    if !kind_applies(t, path, kind) {
        return None;
    }
    fold_policies(t, kind, policies_in_path(t, path, kind))
}

/// The fold of a path's policies of one kind (`PoliciesInPath` order). It depends on nothing else, so
/// paths with the same list share the result.
pub fn fold_policies(t: &Topology, kind: PolicyKind, policies: Vec<usize>) -> Option<Traced> {
    fold_with(t, kind, policies, merge::fold)
}

fn fold_with(
    t: &Topology,
    kind: PolicyKind,
    policies: Vec<usize>,
    fold: fn(&[FoldInput]) -> Option<Folded>,
) -> Option<Traced> {
    let m = t.model;
    let inputs: Vec<FoldInput> = policies
        .iter()
        // Index: policy indices come from this topology, built over the same immutable model.
        .filter_map(|&i| FoldInput::of(i, &m.policies[i]))
        .collect();
    let folded = fold(&inputs)?;
    let sources = sources_of(kind, &policies, &folded, |i| t.policy_locator(i));
    Some(Traced {
        effective: Effective {
            kind,
            rules: Rules::from_map(&folded.rules),
            sources,
            policies,
        },
        folded,
    })
}

/// The operator's `SourcePolicies` of a fold: every policy of the list for TokenRateLimitPolicy,
/// else the sorted, de-duplicated locators of the rules' sources.
fn sources_of(
    kind: PolicyKind,
    policies: &[usize],
    folded: &Folded,
    locator: impl Fn(usize) -> Locator,
) -> Vec<Locator> {
    if kind == PolicyKind::TokenRateLimit {
        policies.iter().map(|&i| locator(i)).collect()
    } else {
        let mut v: Vec<Locator> = merge::rule_sources(&folded.rules)
            .into_iter()
            .map(locator)
            .collect();
        v.sort();
        v.dedup();
        v
    }
}

/// What a fold reads of each policy, made on first use and then shared by every list the policy
/// is in: its rules and strategy. (On large estates a gateway's policies are on thousands of
/// distinct lists.)
struct PolicyParts<'t, 'm> {
    t: &'t Topology<'m>,
    inputs: Vec<OnceCell<Option<FoldInput>>>,
}

impl<'t, 'm> PolicyParts<'t, 'm> {
    fn new(t: &'t Topology<'m>) -> Self {
        let n = t.model.policies.len();
        PolicyParts {
            t,
            inputs: std::iter::repeat_with(OnceCell::new).take(n).collect(),
        }
    }

    /// Policy `i`'s fold input (`None` for a kind that does not merge).
    fn input(&self, i: usize) -> Option<&FoldInput> {
        // Index: policy indices come from a topology built over this model.
        self.inputs[i]
            .get_or_init(|| FoldInput::of(i, &self.t.model.policies[i]))
            .as_ref()
    }

    /// The effective policy of a path's policies of one kind ([`fold_policies`] without the
    /// record of the rules dropped on the way, which only `explain` and the tie check read).
    fn fold_effective(&self, kind: PolicyKind, policies: Vec<usize>) -> Option<Effective> {
        let inputs: Vec<&FoldInput> = policies.iter().filter_map(|&i| self.input(i)).collect();
        let folded = merge::fold_rules(&inputs)?;
        let sources = sources_of(kind, &policies, &folded, |i| self.t.policy_locator(i));
        Some(Effective {
            kind,
            rules: Rules::from_owned(folded.rules),
            sources,
            policies,
        })
    }
}

/// Effective RateLimitPolicy, AuthPolicy and TokenRateLimitPolicy of every path, index by index with
/// `t.paths()` (PathID order). A Kuadrant object is assumed to exist (`docs/semantics/status.md`, offline assumptions).
pub fn effective(t: &Topology) -> Vec<PathEffective> {
    effective_of(t, true)
}

/// [`effective`] with the entries of the paths Kuadrant treats as invalid left empty, when nothing
/// but [`has_effective`] reads them ([`invalid_paths_read`]); else [`effective`]. Most paths of a
/// multi-tenant estate are invalid (a route on a Gateway of ten listeners matches one of them),
/// and looking their policies up, path by path, costs more per path the larger the estate
/// (`tests/benches/README.md`, "On main after session 21").
pub(crate) fn effective_of_valid_paths(t: &Topology) -> Vec<PathEffective> {
    effective_of(t, invalid_paths_read(t))
}

/// Whether some output reads the effective policies of invalid paths: on 1.4, whose limits and
/// wasm-action checks take every path (`docs/semantics/paths.md`, "Path validity"), and when a
/// TokenRateLimitPolicy exists, whose status ignores validity (kuadrant-operator v1.5.2
/// internal/controller/tokenratelimitpolicy_status_updater.go). On 1.5 the other kinds' status and
/// objects take valid paths only; `generate` asks [`has_effective`] of the others (a gateway's
/// tracing). `audit` reads them all: it asks for [`effective`].
pub(crate) fn invalid_paths_read(t: &Topology) -> bool {
    t.version() == KuadrantVersion::V1_4
        || (t.model.policies.iter()).any(|p| p.kind == PolicyKind::TokenRateLimit)
}

/// Whether [`effective`] gives a path any effective policy, without folding: one of its
/// targetables holds a policy of a kind that applies to it and that folds (a fold of one policy or
/// more is never empty).
pub(crate) fn has_effective(t: &Topology, path: &Path) -> bool {
    let nodes = t.path_nodes(path).into_iter().flatten();
    nodes
        .flat_map(|n| t.policies_at_node_in_order(n))
        .map(|&i| &t.model.policies[i])
        .any(|p| kind_applies(t, path, p.kind) && merge::strategy_of(p).is_some())
}

fn effective_of(t: &Topology, with_invalid: bool) -> Vec<PathEffective> {
    // Paths are independent: large estates fold in parallel, on contiguous runs of paths. A
    // thousand paths a thread is enough to pay for the thread: one gateway of a large estate
    // (`watch`'s slices) has a few thousand.
    const MIN_PER_THREAD: usize = 1024;
    let paths = t.path_list().len();
    let threads = crate::par::cores().min(paths / MIN_PER_THREAD).max(1);
    effective_in_runs(t, threads, with_invalid)
}

/// [`effective`] on `threads` contiguous runs of paths, each run's results written in place in
/// the list (a million paths' results are not copied again from lists of runs); the invalid
/// paths' entries are left empty unless `with_invalid`.
fn effective_in_runs(t: &Topology, threads: usize, with_invalid: bool) -> Vec<PathEffective> {
    crate::par::map_with(
        t.path_list(),
        threads,
        || Run::new(t),
        |run, p| {
            if with_invalid || p.valid {
                run.effective(p)
            } else {
                PathEffective::default()
            }
        },
    )
}

/// The state of one run of paths: each distinct policy list folded once, and the paths that
/// share their policy nodes sharing one result.
struct Run<'t, 'm> {
    t: &'t Topology<'m>,
    parts: PolicyParts<'t, 'm>,
    // Paths multiply (listeners × routes × rules) but their policy lists repeat: fold each distinct
    // list once, and let paths with the same list share the result. Most paths have no policy of a
    // kind at all.
    memo: HashMap<(PolicyKind, Vec<usize>), Option<Arc<Effective>>>,
    // A path's lists depend only on the nodes of its targetables that hold policies (and, for
    // TokenRateLimitPolicies, on its route being an HTTPRoute): paths through the same such nodes
    // (the listeners of a gateway without listener policies, say) get their results from one look.
    // Paths come in runs with the same such nodes (a route's rules without policies of their
    // own), so the previous path's result is tried first. Both name a result by its index in
    // `results`: a path takes one copy of it (an increment of each of its counts).
    by_nodes: HashMap<NodesKey, usize>,
    results: Vec<PathEffective>,
    last: Option<(NodesKey, usize)>,
}

/// The nodes of a path's targetables that hold policies, and whether its route is an HTTPRoute.
type NodesKey = ([u32; 5], bool);

impl<'t, 'm> Run<'t, 'm> {
    fn new(t: &'t Topology<'m>) -> Self {
        Run {
            t,
            parts: PolicyParts::new(t),
            memo: HashMap::new(),
            by_nodes: HashMap::new(),
            results: Vec::new(),
            last: None,
        }
    }

    fn one(&mut self, p: &Path, kind: PolicyKind) -> Option<Arc<Effective>> {
        if !kind_applies(self.t, p, kind) {
            return None;
        }
        let policies = policies_in_path(self.t, p, kind);
        if policies.is_empty() {
            return None;
        }
        let parts = &self.parts;
        self.memo
            .entry((kind, policies))
            .or_insert_with_key(|(k, list)| parts.fold_effective(*k, list.clone()).map(Arc::new))
            .clone()
    }

    /// The effective policies of the next path of the run.
    fn effective(&mut self, p: &Path) -> PathEffective {
        const NONE: u32 = u32::MAX;
        let t = self.t;
        let nodes = t.path_nodes(p).map(|n| match n {
            Some(n) if t.has_policies(n) => u32::try_from(n.index()).unwrap_or(NONE),
            _ => NONE,
        });
        let key = (nodes, t.model.routes[p.route].spec.kind == RouteKind::Http);
        let at = match self.last {
            Some((k, at)) if k == key => at,
            _ => match self.by_nodes.get(&key) {
                Some(&at) => at,
                None => {
                    let e = PathEffective {
                        rate_limit: self.one(p, PolicyKind::RateLimit),
                        auth: self.one(p, PolicyKind::Auth),
                        token_rate_limit: self.one(p, PolicyKind::TokenRateLimit),
                    };
                    self.results.push(e);
                    self.by_nodes.insert(key, self.results.len() - 1);
                    self.results.len() - 1
                }
            },
        };
        self.last = Some((key, at));
        // Present: every index above is of a pushed result.
        self.results.get(at).cloned().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::{Input, LoadOptions, Loaded, load};
    use crate::model::KuadrantVersion;

    /// Folding on several runs of paths gives what one run gives, path by path.
    #[test]
    fn parallel_runs_give_the_single_run_result() {
        for case in ["cases/case-j-route-with-two-gateways", "examples/toystore"] {
            let dir = format!("{}/testdata/{case}", env!("CARGO_MANIFEST_DIR"));
            let l = load(
                &[Input::Path(dir.into())],
                &LoadOptions {
                    default_namespace: "default".into(),
                    version: KuadrantVersion::V1_4,
                    ..LoadOptions::default()
                },
            );
            let t = Topology::build(&l.model);
            let one = format!("{:?}", effective_in_runs(&t, 1, true));
            assert!(one.contains("Some("), "{case}: no effective policy at all");
            for runs in [2, 3, 7] {
                assert_eq!(
                    format!("{:?}", effective_in_runs(&t, runs, true)),
                    one,
                    "{case} {runs}"
                );
            }
        }
    }

    /// Every case estate and the `texts`, loaded at both releases: `f` gets each one's topology
    /// and a name for it.
    fn each_estate(texts: &[(&str, &str)], mut f: impl FnMut(&Topology, &str)) {
        for version in [KuadrantVersion::V1_4, KuadrantVersion::V1_5] {
            for case in crate::generate::testdata_cases("cases") {
                let m = crate::generate::testdata_model(&case, version);
                f(&Topology::build(&m), &format!("{case} at {version:?}"));
            }
            for (name, text) in texts {
                let l = crate::load::load_text(text, version);
                f(
                    &Topology::build(&l.model),
                    &format!("{name} at {version:?}"),
                );
            }
        }
    }

    /// `has_effective` says of every path what `effective` gives it (some policy or none), and
    /// `effective_of_valid_paths` gives every valid path its `effective` entry and an invalid one
    /// its entry or, when `invalid_paths_read` says nothing reads it, none: on every case estate,
    /// the runs estate and `testdata/dataplane/invalid-path-tracing` (a path with no policy beside
    /// an invalid one with a policy), at both releases.
    #[test]
    fn valid_paths_and_has_effective_agree_with_effective() {
        let texts = [
            ("RUNS", RUNS),
            (
                "invalid-path-tracing",
                include_str!("../../testdata/dataplane/invalid-path-tracing/input.yaml"),
            ),
        ];
        let (mut with, mut without, mut left_out) = (0, 0, 0);
        each_estate(&texts, |t, what| {
            let all = effective(t);
            let valid = effective_of_valid_paths(t);
            let read = invalid_paths_read(t);
            for ((p, e), v) in t.path_list().iter().zip(&all).zip(&valid) {
                let some =
                    e.rate_limit.is_some() || e.auth.is_some() || e.token_rate_limit.is_some();
                assert_eq!(has_effective(t, p), some, "{what} {p:?}");
                if some {
                    with += 1;
                } else {
                    without += 1;
                }
                let (e, v) = (format!("{e:?}"), format!("{v:?}"));
                if p.valid || read {
                    assert_eq!(v, e, "{what}");
                } else {
                    assert_eq!(v, format!("{:?}", PathEffective::default()), "{what}");
                    left_out += usize::from(some);
                }
            }
        });
        assert!(
            with > 0 && without > 0 && left_out > 0,
            "{with} {without} {left_out}"
        );
    }

    /// The shared results (one fold per distinct list, the previous path's result tried first,
    /// each policy's rules made once) are what folding every path on its own gives, path by path
    /// and kind by kind: on every case estate, at both releases, and on an estate where
    /// consecutive paths differ only in a rule's own policy, or only in their route's kind.
    #[test]
    fn shared_results_are_each_paths_own_fold() {
        let mut compared = 0;
        each_estate(&[("RUNS", RUNS)], |t, what| {
            let eff = effective(t);
            assert_eq!(eff.len(), t.path_list().len());
            for (p, e) in t.path_list().iter().zip(&eff) {
                for (kind, got) in [
                    (PolicyKind::RateLimit, &e.rate_limit),
                    (PolicyKind::Auth, &e.auth),
                    (PolicyKind::TokenRateLimit, &e.token_rate_limit),
                ] {
                    let own = effective_for_path(t, p, kind).map(|x| x.effective);
                    assert_eq!(
                        format!("{:?}", got.as_deref()),
                        format!("{own:?}"),
                        "{what} {} {kind:?}",
                        t.path_id(p)
                    );
                    compared += usize::from(own.is_some());
                }
            }
        });
        assert!(compared > 40, "{compared}");
        // The runs themselves: rule `two` has its own limit, which discards the gateway's atomic
        // defaults (kuadrant-operator v1.5.2 api/v1/merge_strategies.go, `AtomicDefaultsMergeStrategy`:
        // a non-empty target is kept); the rules around it have the gateway's; TokenRateLimitPolicies
        // apply to HTTPRoute rules only.
        let l = load_text(RUNS, KuadrantVersion::V1_5);
        let t = Topology::build(&l.model);
        let eff = effective(&t);
        let seen: Vec<(String, Vec<String>, bool)> = (t.path_list().iter().zip(&eff))
            .map(|(p, e)| {
                let limits = e.rate_limit.as_ref().unwrap().limits();
                (
                    t.path_id(p),
                    limits.map(|(name, _, _)| name.to_string()).collect(),
                    e.token_rate_limit.is_some(),
                )
            })
            .collect();
        let row = |id: &str, limits: &[&str], trl: bool| {
            (
                format!("istio|ns/gw|ns/gw#{id}"),
                limits.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
                trl,
            )
        };
        let mut want = Vec::new();
        for listener in ["a", "b"] {
            want.extend([
                row(&format!("{listener}|ns/r|ns/r#one"), &["g"], true),
                row(&format!("{listener}|ns/r|ns/r#three"), &["g"], true),
                row(&format!("{listener}|ns/r|ns/r#two"), &["r"], true),
                row(&format!("{listener}|ns/s|ns/s#one"), &["g"], false),
                row(&format!("{listener}|ns/s|ns/s#two"), &["s"], false),
            ]);
        }
        assert_eq!(seen, want);
    }

    /// Two routes on one gateway with a gateway policy of each kind: the HTTPRoute's second rule
    /// has a policy of its own (its path follows the first rule's), and the GRPCRoute (1.5) has
    /// no TokenRateLimitPolicy although its nodes hold as many policies as the HTTPRoute's.
    const RUNS: &str = "apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: istio}
spec: {controllerName: istio.io/gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: ns}
spec:
  gatewayClassName: istio
  listeners: [{name: a, port: 80, protocol: HTTP}, {name: b, port: 81, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: ns}
spec:
  parentRefs: [{name: gw}]
  rules: [{name: one}, {name: two}, {name: three}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: s, namespace: ns}
spec:
  parentRefs: [{name: gw}]
  rules: [{name: one}, {name: two}]
---
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: gw-rl, namespace: ns}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  defaults:
    limits: {g: {rates: [{limit: 1, window: 1m}]}}
---
apiVersion: kuadrant.io/v1alpha1
kind: TokenRateLimitPolicy
metadata: {name: gw-trl, namespace: ns}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  limits: {t: {rates: [{limit: 1, window: 1m}]}}
---
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: rule-two, namespace: ns}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: r, sectionName: two}
  limits: {r: {rates: [{limit: 2, window: 1m}]}}
---
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: grpc-two, namespace: ns}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: GRPCRoute, name: s, sectionName: two}
  limits: {s: {rates: [{limit: 3, window: 1m}]}}
";

    fn load_text(text: &str, version: KuadrantVersion) -> Loaded {
        let l = crate::load::load_text(text, version);
        assert!(!l.diagnostics.has_errors(), "{:?}", l.diagnostics);
        l
    }

    fn keys_and_sources(e: &Effective, t: &Topology) -> Vec<(String, String)> {
        e.rules
            .values()
            .map(|r| {
                (
                    r.key.to_string(),
                    t.model.policies[r.source].meta.name.clone(),
                )
            })
            .collect()
    }

    // Case A: kuadrant-operator v1.5.2 internal/controller/effective_auth_policies_reconciler_test.go
    // TestCalculateEffectiveAuthPolicies.
    #[test]
    fn case_a_effective_auth_policies() {
        let l = load_text(
            include_str!("../../testdata/cases/case-a-effective-auth-policies/input.yaml"),
            KuadrantVersion::V1_5,
        );
        let t = Topology::build(&l.model);
        let paths = t.paths();
        let eff = effective(&t);
        assert_eq!(eff.len(), paths.len());
        let auth: Vec<_> = eff.iter().filter_map(|e| e.auth.as_ref()).collect();
        assert_eq!(auth.len(), 2);
        assert!(
            eff.iter()
                .all(|e| e.rate_limit.is_none() && e.token_rate_limit.is_none())
        );
        let get = paths
            .iter()
            .position(|p| t.path_id(p).ends_with("http-route#get-rule"))
            .unwrap();
        let post = paths
            .iter()
            .position(|p| t.path_id(p).ends_with("http-route#post-rule"))
            .unwrap();
        let s = |k: &str, n: &str| (k.to_string(), n.to_string());
        assert_eq!(
            keys_and_sources(eff[get].auth.as_ref().unwrap(), &t),
            vec![
                s("authentication#jwt", "gw-auth"),
                s("authorization#admins-or-privileged", "rule-auth"),
            ]
        );
        assert_eq!(
            keys_and_sources(eff[post].auth.as_ref().unwrap(), &t),
            vec![
                s("authentication#jwt", "gw-auth"),
                s("authorization#admins-only", "route-auth"),
            ]
        );
        let get_eff = eff[get].auth.as_ref().unwrap();
        let names: Vec<_> = get_eff
            .sources
            .iter()
            .map(|l| l.as_str().to_string())
            .collect();
        assert_eq!(
            names,
            vec![
                "authpolicy.kuadrant.io:default/gw-auth",
                "authpolicy.kuadrant.io:default/rule-auth"
            ]
        );
        let order: Vec<_> = get_eff
            .policies
            .iter()
            .map(|&i| t.model.policies[i].meta.name.as_str())
            .collect();
        assert_eq!(order, vec!["gw-auth", "route-auth", "rule-auth"]);
    }

    const BASE: &str = "apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: istio}
spec: {controllerName: istio.io/gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: ns}
spec:
  gatewayClassName: istio
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: ns}
spec:
  parentRefs: [{name: gw}]
  rules: [{}]
";

    fn rlp(name: &str, ts: Option<&str>, target: &str, spec: &str) -> String {
        let ts = ts
            .map(|t| format!(", creationTimestamp: '{t}'"))
            .unwrap_or_default();
        let (kind, tname) = target.split_once('/').unwrap();
        format!(
            "---\napiVersion: kuadrant.io/v1\nkind: RateLimitPolicy\nmetadata: {{name: {name}, namespace: ns{ts}}}\nspec:\n  targetRef: {{group: gateway.networking.k8s.io, kind: {kind}, name: {tname}}}\n{spec}"
        )
    }

    fn only_rlp(docs: &[String]) -> Vec<(String, String)> {
        let text = format!("{BASE}{}", docs.concat());
        let l = load_text(&text, KuadrantVersion::V1_4);
        let t = Topology::build(&l.model);
        let eff = effective(&t);
        assert_eq!(eff.len(), 1);
        keys_and_sources(eff[0].rate_limit.as_ref().unwrap(), &t)
    }

    fn lim(names: &[&str], block: &str) -> String {
        let mut s = String::new();
        let indent = if block.is_empty() {
            s.push_str("  limits:\n");
            "    "
        } else {
            s.push_str(block);
            s.push_str("    limits:\n");
            "      "
        };
        for n in names {
            s.push_str(&format!(
                "{indent}{n}: {{rates: [{{limit: 1, window: 1m}}]}}\n"
            ));
        }
        s
    }

    fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn same_level_defaults_newest_wins() {
        let got = only_rlp(&[
            rlp(
                "old",
                Some("2024-01-01T00:00:00Z"),
                "Gateway/gw",
                &lim(&["a"], ""),
            ),
            rlp(
                "new",
                Some("2024-02-01T00:00:00Z"),
                "Gateway/gw",
                &lim(&["b"], ""),
            ),
        ]);
        assert_eq!(got, pairs(&[("b", "new")]));
    }

    #[test]
    fn same_level_overrides_oldest_wins() {
        let ov = "  overrides:\n";
        let got = only_rlp(&[
            rlp(
                "a-new",
                Some("2024-02-01T00:00:00Z"),
                "Gateway/gw",
                &lim(&["x"], ov),
            ),
            rlp(
                "z-old",
                Some("2024-01-01T00:00:00Z"),
                "Gateway/gw",
                &lim(&["y"], ov),
            ),
        ]);
        assert_eq!(got, pairs(&[("y", "z-old")]));
    }

    #[test]
    fn same_level_without_timestamps_orders_by_name() {
        // Defaults: the alphabetically last wins; overrides: the first.
        let got = only_rlp(&[
            rlp("b", None, "Gateway/gw", &lim(&["x"], "")),
            rlp("a", None, "Gateway/gw", &lim(&["y"], "")),
        ]);
        assert_eq!(got, pairs(&[("x", "b")]));
        let ov = "  overrides:\n";
        let got = only_rlp(&[
            rlp("b", None, "Gateway/gw", &lim(&["x"], ov)),
            rlp("a", None, "Gateway/gw", &lim(&["y"], ov)),
        ]);
        assert_eq!(got, pairs(&[("y", "a")]));
    }

    // The merge table (docs/semantics/README.md) through the whole pipeline (load → topology → effective).
    #[test]
    fn table_3_7_end_to_end() {
        let md = "  defaults:\n    strategy: merge\n";
        let mo = "  overrides:\n    strategy: merge\n";
        let ao = "  overrides:\n    strategy: atomic\n";
        let r = |names: &[&str]| rlp("r", None, "HTTPRoute/r", &lim(names, ""));
        let g = |names: &[&str], block: &str| rlp("g", None, "Gateway/gw", &lim(names, block));
        assert_eq!(only_rlp(&[g(&["a"], ""), r(&["c"])]), pairs(&[("c", "r")]));
        assert_eq!(
            only_rlp(&[g(&["a"], "  defaults:\n")]),
            pairs(&[("a", "g")])
        );
        assert_eq!(
            only_rlp(&[g(&["a", "b"], md), r(&["b", "c"])]),
            pairs(&[("a", "g"), ("b", "r"), ("c", "r")])
        );
        assert_eq!(only_rlp(&[g(&["a"], ao), r(&["c"])]), pairs(&[("a", "g")]));
        assert_eq!(
            only_rlp(&[g(&["a", "b"], mo), r(&["b", "c"])]),
            pairs(&[("a", "g"), ("b", "g"), ("c", "r")])
        );
        let with_when = format!("{md}    when: [{{predicate: \"request.method == 'GET'\"}}]\n");
        assert_eq!(
            only_rlp(&[g(&["a"], &with_when), r(&["c"])]),
            pairs(&[(TOP, "g"), ("a", "g"), ("c", "r")])
        );
    }

    const TOP: &str = crate::resolve::TOP_LEVEL_PREDICATES_KEY;
}
