//! The per-path pass of `generate`: for every path with effective policies, the Limitador limits,
//! the AuthConfig, the merged and CEL-validated wasm actions and the action sets of its gateway.
//! Runs on contiguous runs of paths in parallel ([`run`]), a large gateway's split too; the parts
//! are merged in path order, keeping what a single pass keeps, so the result does not depend on the
//! number of cores.

use super::actions::{
    self, AUTH_SERVICE, Action, RATELIMIT_CHECK_SERVICE, RATELIMIT_REPORT_SERVICE,
    RATELIMIT_SERVICE,
};
use super::object::{self, ActionSet, LimitadorLimit};
use super::predicates::{self, SortKey};
use super::runtime::Runtime;
use super::{authconfig, hostnames, names, sort_map};
use crate::model::{KuadrantVersion, Model, PolicyKind, RuleMatches};
use crate::resolve::{CelIssue, Effective, PathEffective, Provider, RuleValue};
use crate::topology::{Path, Topology};
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// One action set before sorting.
pub(super) struct ActionSetEntry<'a> {
    pub(super) key: SortKey<'a>,
    pub(super) value: ActionSet,
}

/// Per-gateway accumulation.
#[derive(Default)]
pub(super) struct GatewayOut<'a> {
    /// Its action sets, in order (`predicates::compare`, equal keys in path order); only for a
    /// gateway whose objects are emitted.
    pub(super) action_sets: Vec<ActionSetEntry<'a>>,
    /// Whether it has action sets (emitted or not: its components need it).
    pub(super) has_sets: bool,
    pub(super) rate_limit: bool,
    pub(super) auth: bool,
    pub(super) any_policy: bool,
}

/// A rule's matches: their predicates and sort keys.
type RuleMatchList<'a> = Vec<(Arc<[String]>, SortKey<'a>)>;

/// A rule's matches, and whether the shim check has something to check in them (a value that may
/// break the CEL string it is copied into, or a `queryParams` match; only such rules can give it a
/// finding).
struct RuleMatchesOf<'a> {
    list: RuleMatchList<'a>,
    shim_checks: bool,
}

/// The matches of a rule as the operator iterates them: their predicates and sort keys (with an
/// empty hostname, set per action set). They depend only on the route and the rule.
fn rule_matches<'a>(t: &Topology<'a>, p: &Path, route: &'a str) -> RuleMatchList<'a> {
    let r = &t.model.routes[p.route];
    let rule = &r.spec.rules[p.rule];
    let created = r.meta.creation_timestamp.as_deref();
    match &rule.matches {
        RuleMatches::Http(ms) => {
            let defaulted;
            let ms = if ms.is_empty() {
                if t.version() == KuadrantVersion::V1_4 {
                    return vec![];
                }
                defaulted = vec![crate::model::HttpMatch::default()];
                &defaulted
            } else {
                ms
            };
            ms.iter()
                .map(|m| {
                    (
                        predicates::http(m).into(),
                        SortKey::from_http("", m, created, route),
                    )
                })
                .collect()
        }
        RuleMatches::Grpc(ms) => {
            let defaulted;
            let ms = if ms.is_empty() {
                defaulted = vec![crate::model::GrpcMatch::default()];
                &defaulted
            } else {
                ms
            };
            ms.iter()
                .map(|m| {
                    (
                        predicates::grpc(m).into(),
                        SortKey::from_grpc("", m, created, route),
                    )
                })
                .collect()
        }
    }
}

fn path_hostnames<'a>(t: &Topology<'a>, p: &Path) -> Vec<&'a str> {
    let m: &'a Model = t.model;
    let g = &m.gateways[p.gateway];
    let l = &g.spec.listeners[p.listener];
    let r = &m.routes[p.route];
    hostnames::select_in(
        l.hostname.as_ref().map(|h| h.as_str()),
        r.spec.hostnames.iter().map(|h| h.as_str()),
    )
}

fn cel_kind(service: &str) -> PolicyKind {
    match service {
        AUTH_SERVICE => PolicyKind::Auth,
        RATELIMIT_CHECK_SERVICE | RATELIMIT_REPORT_SERVICE => PolicyKind::TokenRateLimit,
        _ => PolicyKind::RateLimit,
    }
}

/// The merged, validated actions of a path; they depend only on its route and effective policies
/// (the auth action's scope, the path's AuthConfig name, is left empty and filled in per path).
struct RouteActions {
    list: Arc<[Action]>,
    /// CEL failures (kind, message), reported for every path.
    failures: Vec<(PolicyKind, String)>,
}

/// Identity of a shared effective policy (0 for none): paths with the same policy list share one.
fn identity(e: Option<&Arc<Effective>>) -> usize {
    e.map_or(0, |e| Arc::as_ptr(e) as usize)
}

/// The identities of a path's effective RateLimitPolicy, AuthPolicy and TokenRateLimitPolicy.
fn identities(pe: &PathEffective) -> [usize; 3] {
    [
        identity(pe.rate_limit.as_ref()),
        identity(pe.auth.as_ref()),
        identity(pe.token_rate_limit.as_ref()),
    ]
}

/// Validate merged actions (`docs/semantics/generated-objects.md`, "Wasm actions"): the first failing predicate drops the action.
fn validate_actions(eff: &PathEffective, list: Vec<Action>, memo: &mut CelMemo) -> RouteActions {
    let auth = eff.auth.is_some();
    let mut kept = Vec::new();
    let mut failures = Vec::new();
    for a in list {
        let env = crate::cel::CelEnv {
            auth,
            ratelimit: a.service != AUTH_SERVICE,
        };
        let preds = a.predicates.iter().chain(
            a.conditional_data
                .iter()
                .flat_map(|cd| cd.predicates.iter()),
        );
        let mut failed = None;
        for p in preds {
            if let Err(e) = memo.validate(p, env) {
                failed = Some(e.clone());
                break;
            }
        }
        match failed {
            Some(message) => failures.push((cel_kind(a.service), message)),
            None => kept.push(a),
        }
    }
    RouteActions {
        list: kept.into(),
        failures,
    }
}

/// CEL validation results by expression and environment: the same predicates recur on every path
/// of a route, and parsing is the expensive part. One map per environment (`auth`, `ratelimit`),
/// looked up without copying the expression.
#[derive(Default)]
struct CelMemo([HashMap<String, Result<(), String>>; 4]);

impl CelMemo {
    fn validate(&mut self, expr: &str, env: crate::cel::CelEnv) -> &Result<(), String> {
        let memo = &mut self.0[usize::from(env.auth) * 2 + usize::from(env.ratelimit)];
        if !memo.contains_key(expr) {
            memo.insert(expr.to_string(), crate::cel::validate(expr, env));
        }
        // Present: found or inserted above.
        static VALID: Result<(), String> = Ok(());
        memo.get(expr).unwrap_or(&VALID)
    }
}

/// What the per-path pass reads.
pub(super) struct PassContext<'a> {
    pub(super) t: &'a Topology<'a>,
    pub(super) rt: &'a Runtime<'a>,
    /// `ns/name` of every route (the sort keys borrow them).
    pub(super) route_keys: &'a [String],
    /// The same, shared by the route's Limitador limits.
    pub(super) route_namespaces: &'a [Arc<str>],
    /// `ns/name` of every gateway.
    pub(super) gateway_keys: &'a [String],
    /// Per gateway class: its wasm provider, if any.
    pub(super) providers: &'a [Option<Provider>],
    /// Per gateway: whether `opts.gateway` keeps its paths (limits, findings and objects).
    pub(super) selected: &'a [bool],
    /// Per gateway: whether its objects are emitted (`selected`, and within `opts.slice`).
    pub(super) emit: &'a [bool],
    /// Whether an invalid path's effective policies may have been left out
    /// (`resolve::effective::effective_of_valid_paths`): else an empty entry means it has none.
    pub(super) invalid_left_out: bool,
}

/// What the per-path pass produces for a run of paths, or, merged, for all of them.
#[derive(Default)]
pub(super) struct PathsOut<'a> {
    pub(super) gateways: BTreeMap<usize, GatewayOut<'a>>,
    /// The Limitador's limits, by route and limit identifier (the operator's index
    /// "<routeNs>/<routeName>/<identifier>"), each key once, in the order first met.
    pub(super) limits: Vec<RouteLimits>,
    /// AuthConfigs (names unique: one per PathID), sorted by name.
    pub(super) auth_configs: Vec<object::AuthConfig>,
    /// In PathID order.
    pub(super) cel_issues: Vec<CelIssue>,
    /// What the wasm-shim of each gateway parses: the route rules with action sets there that have a
    /// value that may break its CEL string (gateway, route, rule; merged: sorted, each once), and
    /// the effective policies whose actions survived validation (see `shim`).
    pub(super) shim_rules: Vec<(usize, usize, usize)>,
    pub(super) shim_actions: Vec<ShimActions<'a>>,
    /// What each run merged here met, in run order.
    seen: Vec<Seen>,
}

/// What one run of paths met, so that runs merge into what one pass over them all gives.
#[derive(Default)]
struct Seen {
    /// The gateways and effective policies of its `shim_actions`.
    shim: HashSet<(usize, [usize; 3])>,
    /// The keys of its `limits`.
    limits: HashSet<(usize, Arc<str>)>,
    /// Per gateway: whether `shim` has a key of it.
    gateways: Vec<bool>,
    /// Per route: whether `limits` has a key of it.
    routes: Vec<bool>,
}

impl Seen {
    /// Record the shim's key `(gateway, identities)`; false if it was met before.
    fn shim(&mut self, key: (usize, [usize; 3])) -> bool {
        mark(&mut self.gateways, key.0);
        self.shim.insert(key)
    }

    /// Record the limit key `(route, identifier)`; false if it was met before.
    fn limit(&mut self, route: usize, identifier: &Arc<str>) -> bool {
        mark(&mut self.routes, route);
        self.limits.insert((route, Arc::clone(identifier)))
    }

    /// Whether the run met the shim's key. The runs are contiguous in path order and paths are in
    /// gateway order, so another run rarely has a key of the same gateway: the set is read only
    /// for those.
    fn has_shim(&self, key: &(usize, [usize; 3])) -> bool {
        self.gateways.get(key.0) == Some(&true) && self.shim.contains(key)
    }

    /// Whether the run met the limit key; a route's paths are mostly in one run ([`Seen::has_shim`]).
    fn has_limit(&self, route: usize, identifier: &Arc<str>) -> bool {
        self.routes.get(route) == Some(&true)
            && self.limits.contains(&(route, Arc::clone(identifier)))
    }
}

fn mark(v: &mut Vec<bool>, i: usize) {
    if v.len() <= i {
        v.resize(i + 1, false);
    }
    v[i] = true;
}

/// The Limitador entries of one limit of a route's effective RateLimitPolicy or
/// TokenRateLimitPolicy.
pub(super) struct RouteLimits {
    route: usize,
    identifier: Arc<str>,
    pub(super) entries: Vec<LimitadorLimit>,
}

impl<'a> PathsOut<'a> {
    /// Append the part of the next run of paths.
    fn merge(&mut self, part: PathsOut<'a>) {
        self.shim_rules.extend(part.shim_rules);
        // A gateway's effective policies are recorded once, at their first path (as one pass
        // does), whichever run met them.
        let earlier = &self.seen;
        self.shim_actions
            .extend(part.shim_actions.into_iter().filter(|a| {
                let key = (a.gateway, identities(a.effective));
                !earlier.iter().any(|s| s.has_shim(&key))
            }));
        for (gi, go) in part.gateways {
            let into = self.gateways.entry(gi).or_default();
            // Each run's are in order ([`path_pass`]): merged, they are the stable sort of the
            // runs' sets one after the other.
            let mine = std::mem::take(&mut into.action_sets);
            into.action_sets = merge_sorted(mine, go.action_sets, |a, b| {
                predicates::compare(&a.key, &b.key).is_lt()
            });
            into.has_sets |= go.has_sets;
            into.rate_limit |= go.rate_limit;
            into.auth |= go.auth;
            into.any_policy |= go.any_policy;
        }
        // The same key always has the same entries; the first is kept, as in one pass.
        self.limits.extend(
            (part.limits.into_iter())
                .filter(|l| !earlier.iter().any(|s| s.has_limit(l.route, &l.identifier))),
        );
        self.seen.extend(part.seen);
        // Each run's are sorted by name (names are unique).
        let mine = std::mem::take(&mut self.auth_configs);
        self.auth_configs = merge_sorted(mine, part.auth_configs, |a, b| a.name < b.name);
        self.cel_issues.extend(part.cel_issues);
    }
}

/// Two lists sorted by `less` merged into one sorted list (an item of `a` before an equal one of
/// `b`).
fn merge_sorted<T>(a: Vec<T>, b: Vec<T>, less: impl Fn(&T, &T) -> bool) -> Vec<T> {
    if a.is_empty() {
        return b;
    }
    if b.is_empty() {
        return a;
    }
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    while let (Some(x), Some(y)) = (a.peek(), b.peek()) {
        let next = if less(y, x) { b.next() } else { a.next() };
        out.extend(next);
    }
    out.extend(a);
    out.extend(b);
    out
}

/// The effective policies of a path whose merged actions reach a gateway's wasm configuration.
pub(super) struct ShimActions<'a> {
    pub(super) gateway: usize,
    pub(super) effective: &'a PathEffective,
    /// Which actions survived validation: rate limit, auth, token rate limit.
    pub(super) kept: [bool; 3],
}

/// The per-path pass over every path of `ctx.t`, on at most `runs` contiguous runs of paths of
/// about the same length in parallel; the results merged in path order. `eff[i]` belongs to the
/// topology's path `i`.
pub(super) fn run<'a>(
    ctx: &PassContext<'a>,
    eff: &'a [PathEffective],
    runs: usize,
) -> PathsOut<'a> {
    let paths = ctx.t.path_list();
    let runs = crate::par::even_ranges(paths.len(), runs);
    let parts: Vec<PathsOut<'_>> = crate::par::map_ranges(runs, |r| {
        path_pass(ctx, r.start, &paths[r.clone()], &eff[r])
    });
    let mut parts = parts.into_iter();
    let mut out = parts.next().unwrap_or_default();
    for part in parts {
        out.merge(part);
    }
    // Tens of thousands of keys for a large estate: freed while the objects are made.
    let keys = (out.seen.iter())
        .map(|s| s.limits.len() + s.shim.len())
        .sum();
    crate::par::drop_later(std::mem::take(&mut out.seen), keys, 4096);
    out.shim_rules.sort_unstable();
    out.shim_rules.dedup();
    out
}

/// Limits, AuthConfigs, cluster needs and action sets of a run of paths (`eff[i]` belongs to
/// `paths[i]`, the path `first + i` of the topology).
fn path_pass<'a>(
    ctx: &PassContext<'a>,
    first: usize,
    paths: &'a [Path],
    eff: &'a [PathEffective],
) -> PathsOut<'a> {
    let mut pass = PathPass {
        ctx,
        out: PathsOut::default(),
        seen: Seen::default(),
        cel_memo: CelMemo::default(),
        auth_specs: HashMap::new(),
        limits_done: HashSet::new(),
        limit_ids: actions::LimitIds::default(),
        route_actions: HashMap::new(),
        no_scope: Arc::from(""),
        namespace: Arc::from(ctx.rt.namespace.as_str()),
        annotations: HashMap::new(),
        host_texts: HashMap::new(),
        rule_matches: HashMap::new(),
    };
    // Paths come gateway by gateway. The memos by route are emptied at each new gateway, so that
    // they hold one gateway's routes and stay in the cores' caches (on 100 gateways of 400 routes
    // each, 40,000 routes' entries did not). An entry emptied is computed again if a later path
    // needs it, to the same value.
    let mut gateway = usize::MAX;
    for (i, (p, pe)) in paths.iter().zip(eff).enumerate() {
        if p.gateway != gateway {
            gateway = p.gateway;
            pass.route_actions.clear();
            pass.rule_matches.clear();
            pass.annotations.clear();
            pass.limits_done.clear();
        }
        pass.path(first + i, p, pe);
    }
    let mut out = pass.out;
    out.seen.push(pass.seen);
    // Sorted here, on the run's thread; the runs' lists are merged in order. The action sets in
    // the order the operator sorts them (a stable sort: equal keys stay in path order).
    out.auth_configs
        .sort_unstable_by(|a, b| a.name.cmp(&b.name));
    for go in out.gateways.values_mut() {
        go.action_sets
            .sort_by(|a, b| predicates::compare(&a.key, &b.key));
    }
    out
}

/// The state of the pass over one run of paths: its output and what it computes once and reuses.
struct PathPass<'c, 'a> {
    ctx: &'c PassContext<'a>,
    out: PathsOut<'a>,
    seen: Seen,
    cel_memo: CelMemo,
    /// Encoded AuthConfig specs by effective AuthPolicy.
    auth_specs: HashMap<usize, Arc<Map<String, Value>>>,
    /// (route, effective RateLimitPolicy / TokenRateLimitPolicy) whose limits are indexed.
    limits_done: HashSet<(usize, usize)>,
    /// The limit identifiers met so far.
    limit_ids: actions::LimitIds<'a>,
    /// The merged, validated actions by route and effective policies.
    route_actions: HashMap<(usize, [usize; 3]), RouteActions>,
    no_scope: Arc<str>,
    /// The Kuadrant namespace, the AuthConfigs' namespace.
    namespace: Arc<str>,
    /// The AuthConfig annotation of each route rule.
    annotations: HashMap<(usize, usize), Arc<(String, String)>>,
    /// Each hostname's text, shared by its action sets.
    host_texts: HashMap<&'a str, Arc<str>>,
    /// Each rule's matches.
    rule_matches: HashMap<(usize, usize), RuleMatchesOf<'a>>,
}

impl<'a> PathPass<'_, 'a> {
    /// Everything the path `index` contributes.
    fn path(&mut self, index: usize, p: &'a Path, pe: &'a PathEffective) {
        let t = self.ctx.t;
        // A path through another gateway than `--gateway` gives no object, but still its CEL issues
        // and the components of its gateway: the status of every policy needs the whole estate's.
        let selected = self.ctx.selected[p.gateway];
        if pe.rate_limit.is_none() && pe.auth.is_none() && pe.token_rate_limit.is_none() {
            if !p.valid && self.ctx.invalid_left_out {
                self.left_out_path(p);
            }
            return;
        }
        // An invalid path has no hostname for action sets (`p.valid` is `hosts` not being empty).
        let valid = p.valid;
        let hosts = if valid {
            path_hostnames(t, p)
        } else {
            Vec::new()
        };
        debug_assert_eq!(valid, !path_hostnames(t, p).is_empty());
        let counts = valid || t.model.version != KuadrantVersion::V1_5;
        // The path's id, built once if anything needs it: most paths of a large estate do not.
        let id = std::cell::OnceCell::new();
        let ctx = self.ctx;
        let id = || -> &str {
            id.get_or_init(|| {
                t.path_id_with(p, &ctx.gateway_keys[p.gateway], &ctx.route_keys[p.route])
            })
        };
        // The names hashed from the id, which share the digest of its text.
        let hashed = std::cell::OnceCell::new();
        let hashed = || -> &names::PathNames { hashed.get_or_init(|| names::PathNames::new(id())) };

        // Limitador limits: every path, whatever the class (1.5: valid paths only).
        if counts && selected {
            self.limits(p, pe);
        }

        // The AuthConfig name, also the auth action's scope: valid paths with an AuthPolicy.
        let auth_name = (valid && pe.auth.is_some()).then(|| hashed().auth_config_name());

        // AuthConfigs: valid paths with an effective AuthPolicy.
        if let (Some(name), Some(a), true) = (&auth_name, &pe.auth, self.ctx.emit[p.gateway]) {
            self.auth_config(p, a, name);
        }

        let Some(provider) = self.ctx.providers[p.class] else {
            return;
        };
        let go = self.out.gateways.entry(p.gateway).or_default();
        go.any_policy = true;
        if counts && (pe.rate_limit.is_some() || pe.token_rate_limit.is_some()) {
            go.rate_limit = true;
        }
        if counts && pe.auth.is_some() {
            go.auth = true;
        }

        // Wasm actions: 1.5 skips invalid paths entirely; 1.4 validates them, then skips.
        if counts {
            self.action_sets((index, p, &id, &hashed), pe, provider, &hosts, auth_name);
        }
    }

    /// An invalid path whose effective policies may have been left out where nothing reads them
    /// (`resolve::effective::effective_of_valid_paths`): whether it has any still counts for its
    /// gateway's tracing need (`any_policy`), asked until one path of the gateway has.
    fn left_out_path(&mut self, p: &Path) {
        if self.ctx.providers[p.class].is_none()
            || (self.out.gateways.get(&p.gateway)).is_some_and(|g| g.any_policy)
        {
            return;
        }
        if crate::resolve::effective::has_effective(self.ctx.t, p) {
            self.out.gateways.entry(p.gateway).or_default().any_policy = true;
        }
    }

    /// The Limitador limits of a path's effective RateLimitPolicy and TokenRateLimitPolicy.
    fn limits(&mut self, p: &Path, pe: &'a PathEffective) {
        let m = self.ctx.t.model;
        for (eff_kind, token) in [(&pe.rate_limit, false), (&pe.token_rate_limit, true)] {
            let Some(e) = eff_kind else { continue };
            // Same route and policies: the same keys and entries again.
            if !self.limits_done.insert((p.route, identity(Some(e)))) {
                continue;
            }
            for (name, limit, source) in e.limits() {
                let id = self.limit_ids.get(m, token, source, name);
                // The entries depend only on the key's parts (route, source policy, limit name),
                // so the other paths of the route would write the same value again.
                if !self.seen.limit(p.route, id) {
                    continue;
                }
                let condition = format!("descriptors[0][\"{id}\"] == \"1\"");
                let namespace = &self.ctx.route_namespaces[p.route];
                let entries: Vec<LimitadorLimit> = limit
                    .rates
                    .iter()
                    .map(|rate| LimitadorLimit {
                        conditions: vec![condition.clone()],
                        max_value: rate.max_value(),
                        name: name.to_string(),
                        namespace: Arc::clone(namespace),
                        seconds: rate.seconds(),
                        variables: limit
                            .counters
                            .iter()
                            .map(|c| format!("descriptors[0][\"{}\"]", c.value.trim()))
                            .collect(),
                    })
                    .collect();
                self.out.limits.push(RouteLimits {
                    route: p.route,
                    identifier: Arc::clone(id),
                    entries,
                });
            }
        }
    }

    /// The AuthConfig `name` of a valid path with the effective AuthPolicy `a`.
    fn auth_config(&mut self, p: &Path, a: &Arc<Effective>, name: &str) {
        let m = self.ctx.t.model;
        let r = &m.routes[p.route];
        // The annotation names the route rule: the same for every path through it.
        let annotation = self
            .annotations
            .entry((p.route, p.rule))
            .or_insert_with(|| {
                let route_locator = crate::model::Locator::object(
                    r.spec.kind.kind(),
                    crate::model::GATEWAY_API_GROUP,
                    &r.meta.namespace,
                    &r.meta.name,
                );
                Arc::new((
                    format!("{}.gateway.networking.k8s.io", r.spec.kind.rule_kind()),
                    format!("{route_locator}#{}", self.ctx.t.rule_name(p)),
                ))
            })
            .clone();
        // The spec depends on the path only through `hosts`: encode it once per effective
        // AuthPolicy (paths with the same policy list share one) and share it.
        let base = self
            .auth_specs
            .entry(identity(Some(a)))
            .or_insert_with(|| {
                let rules = a.rules.values().filter_map(|r| match &r.value {
                    RuleValue::Auth(section, v) => Some((*section, r.key.name(), &**v)),
                    _ => None,
                });
                let sections = authconfig::AuthSections::from_rules(rules);
                let mut spec = match authconfig::spec(name, &sections) {
                    Value::Object(m) => m,
                    _ => Map::new(),
                };
                spec.shift_remove("hosts");
                sort_map(&mut spec);
                Arc::new(spec)
            })
            .clone();
        // The data extension policies register for the path's gateway and route.
        let g = &m.gateways[p.gateway];
        let data = super::extension::plan_data(
            m,
            m.version,
            (&g.meta.namespace, &g.meta.name),
            (r.spec.kind, &r.meta.namespace, &r.meta.name),
        );
        let spec = if data.is_empty() {
            base
        } else {
            let mut spec = (*base).clone();
            authconfig::add_kuadrant_data(&mut spec, &data);
            sort_map(&mut spec);
            Arc::new(spec)
        };
        self.out.auth_configs.push(object::AuthConfig {
            gateway: p.gateway,
            name: name.to_string(),
            namespace: Arc::clone(&self.namespace),
            annotation,
            spec,
        });
    }

    /// The merged, validated wasm actions of a path that counts for its gateway: its CEL issues,
    /// what the shim check needs and, on a valid path, its action sets (one per hostname and
    /// match).
    fn action_sets<'i>(
        &mut self,
        (index, p, id, hashed): (
            usize,
            &'a Path,
            &'i dyn Fn() -> &'i str,
            &'i dyn Fn() -> &'i names::PathNames,
        ),
        pe: &'a PathEffective,
        provider: Provider,
        hosts: &[&'a str],
        auth_name: Option<String>,
    ) {
        let t = self.ctx.t;
        let m = t.model;
        let route_keys: &'a [String] = self.ctx.route_keys;
        let route_scope = &route_keys[p.route];
        let cel_memo = &mut self.cel_memo;
        let limit_ids = &mut self.limit_ids;
        let ra = self
            .route_actions
            .entry((p.route, identities(pe)))
            .or_insert_with(|| {
                let built = actions::merge(
                    actions::path_actions(m, route_scope, pe, limit_ids),
                    m.version,
                );
                validate_actions(pe, built, cel_memo)
            });
        self.out
            .cel_issues
            .extend(ra.failures.iter().map(|(kind, message)| CelIssue {
                kind: *kind,
                path_id: id().to_string(),
                path: index,
                message: message.clone(),
                provider,
            }));
        if ra.list.is_empty() || hosts.is_empty() {
            return;
        }
        let selected = self.ctx.selected[p.gateway];
        // The auth action's scope is the path's AuthConfig name.
        let auth_scope: Arc<str> = match auth_name {
            Some(name) => name.into(),
            None => Arc::clone(&self.no_scope),
        };
        let RuleMatchesOf {
            list: matches,
            shim_checks,
        } = self
            .rule_matches
            .entry((p.route, p.rule))
            .or_insert_with(|| RuleMatchesOf {
                list: rule_matches(t, p, route_scope),
                shim_checks: super::shim::checks_rule(
                    &m.routes[p.route].spec.rules[p.rule].matches,
                ),
            });
        if !matches.is_empty() && selected {
            // The shim check reads only the rules in which it has something to check.
            if *shim_checks {
                self.out.shim_rules.push((p.gateway, p.route, p.rule));
            }
            if self.seen.shim((p.gateway, identities(pe))) {
                let has = |f: &dyn Fn(&str) -> bool| ra.list.iter().any(|a| f(a.service));
                self.out.shim_actions.push(ShimActions {
                    gateway: p.gateway,
                    effective: pe,
                    kept: [
                        has(&|s| s == RATELIMIT_SERVICE),
                        has(&|s| s == AUTH_SERVICE),
                        has(&|s| s == RATELIMIT_CHECK_SERVICE || s == RATELIMIT_REPORT_SERVICE),
                    ],
                });
            }
        }
        let go = self.out.gateways.entry(p.gateway).or_default();
        go.has_sets |= !matches.is_empty();
        // Another gateway's action sets (`--gateway`, a `watch` slice) would be dropped unwritten.
        if !self.ctx.emit[p.gateway] {
            return;
        }
        for &h in hosts {
            for (i, (predicates, key)) in matches.iter().enumerate() {
                let key = key.with_hostname(h);
                let value = ActionSet {
                    name: hashed().action_set_name(i, h),
                    hostname: Arc::clone(self.host_texts.entry(h).or_insert_with(|| Arc::from(h))),
                    predicates: Arc::clone(predicates),
                    actions: Arc::clone(&ra.list),
                    auth_scope: Arc::clone(&auth_scope),
                    typed: Arc::from([]),
                };
                go.action_sets.push(ActionSetEntry { key, value });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::merge_sorted;

    /// Two runs each sorted stably and merged give the stable sort of the runs one after the
    /// other: equal keys keep the earlier run's items first, each run's in their order, whatever
    /// the cut (none, an empty run, every cut of a list with many ties).
    #[test]
    fn merged_runs_are_the_stable_sort_of_both() {
        let items: Vec<(u8, usize)> = (0..40).map(|i| ((i * 7 % 5) as u8, i)).collect();
        let mut want = items.clone();
        want.sort_by_key(|&(k, _)| k);
        for cut in 0..=items.len() {
            let (mut a, mut b) = (items[..cut].to_vec(), items[cut..].to_vec());
            a.sort_by_key(|&(k, _)| k);
            b.sort_by_key(|&(k, _)| k);
            assert_eq!(merge_sorted(a, b, |x, y| x.0 < y.0), want, "cut {cut}");
        }
    }
}
