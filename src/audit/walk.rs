//! The walk over every path and hostname: the action sets the gateway's wasm configuration holds
//! for it (found by name, as the operator names them), what each set's actions do on the
//! requests of its route match, and what every limit and AuthPolicy rule did on each set it is in
//! (for `findings`).
//!
//! What a set's actions do depends only on the actions (shared by the paths of a route and its
//! effective policies), the match predicates (shared by the sets of a rule match) and the
//! AuthConfig the auth action names, so it is computed once per distinct triple.

use super::logic::{self, Formula};
use super::{Coverage, Row, State};
use crate::analysis::Analysis;
use crate::generate::actions::{
    AUTH_SERVICE, Action, ConditionalData, RATELIMIT_CHECK_SERVICE, RATELIMIT_SERVICE,
};
use crate::generate::object::{ActionSet, AuthConfig, LimitadorLimit, Object};
use crate::generate::{hostnames, names};
use crate::model::{KuadrantVersion, PathMatchType, PolicyBody, PolicyKind, RuleMatches};
use crate::resolve::{AUTH_CONDITIONS_KEY, AuthSection, PathEffective, RuleValue};
use crate::topology::Path;
use foldhash::{HashMap, HashMapExt};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// A limit of the model: its identifier (the descriptor key its conditionalData entries give),
/// the policy that writes it and its name there.
pub(super) struct LimitName {
    pub(super) id: Arc<str>,
    pub(super) policy: usize,
    pub(super) name: String,
}

/// What the walk gathered.
#[derive(Default)]
pub(super) struct Walked<'m> {
    pub(super) rows: Vec<Row>,
    /// By limit (index into `names`).
    pub(super) limits: Vec<LimitStats>,
    /// By route (index into `Model::routes`) and limit: the Limitador counter.
    pub(super) counters: HashMap<(usize, usize), CounterStats<'m>>,
    /// By source policy and effective rule key (`authentication#name`, or the top-level `when`'s
    /// key): the AuthPolicy conditions met on the route rules they reach.
    pub(super) auth_rules: HashMap<(usize, Arc<str>), AuthRuleStats>,
    /// Every limit of the model's rate-limit policies.
    pub(super) names: Vec<LimitName>,
}

/// One limit over every action set it is in.
#[derive(Default)]
pub(super) struct LimitStats {
    /// Sets that hold it.
    pub(super) seen: usize,
    /// Sets on whose requests its predicates can hold.
    pub(super) applies: usize,
    /// A set on which they cannot: (route, rule, the match).
    pub(super) never_example: Option<(usize, Arc<str>, String)>,
    /// Its predicates (top-level `when` and its own), joined.
    pub(super) predicates: String,
    /// By rate (`max_value`, `seconds`): on how many applying sets another limit (or rate) makes
    /// it never decide, and the first such explanation.
    pub(super) shadowed: BTreeMap<(i64, i64), (usize, Option<String>)>,
    /// Its counters (and data) that read `auth.`, and the route rules where no auth action runs
    /// before them.
    pub(super) reads_auth: Vec<String>,
    /// (route, rule index).
    pub(super) without_auth: BTreeSet<(usize, usize)>,
}

/// One Limitador counter: a limit in its route's namespace.
#[derive(Default)]
pub(super) struct CounterStats<'m> {
    /// The gateways (indices) and hostnames of the sets on whose requests it can count.
    pub(super) hosts: foldhash::HashSet<(usize, &'m str)>,
    /// Its counter qualifiers (`variables`, the expressions).
    pub(super) variables: Arc<[String]>,
    /// Its rates (`max_value`, `seconds`).
    pub(super) rates: Arc<[(i64, i64)]>,
}

/// One AuthPolicy condition over every set its AuthConfig serves.
#[derive(Default)]
pub(super) struct AuthRuleStats {
    pub(super) seen: usize,
    pub(super) holds: usize,
    pub(super) predicates: String,
    pub(super) never_example: Option<(usize, Arc<str>, String)>,
}

/// The state of one kind of protection on the requests of one action set.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Reach {
    /// Its action runs on every request of the set.
    Full,
    /// Only when one of these conjunctions holds.
    When(Vec<Arc<str>>),
    /// Its predicates never hold on the set's requests.
    Never(Arc<str>),
    /// Authentication is not required (an anonymous rule, or none at all).
    Anonymous(Arc<str>),
    /// No such action in the set.
    Absent,
    /// Its actions run, and fail on every request of the set, for this reason: the failure mode
    /// lets the requests through (a TelemetryPolicy label the 1.5 shim cannot evaluate before
    /// auth, PCTL3030).
    Off(Arc<str>),
}

/// A limit entry (`conditionalData`) of a rate-limit action, whatever the route match.
struct EntryInfo {
    /// Its limit (index into `Shared::names`) and identifier.
    limit: usize,
    id: Arc<str>,
    /// Its predicates (the action's, then the entry's), joined, and as propositions.
    predicates: Arc<str>,
    formulas: Vec<Arc<Formula>>,
    /// Its counters (and data) that read `auth.`, when no auth action runs before them.
    reads_auth: Vec<String>,
    /// Its Limitador limits' `variables`, and their rates (`max_value`, `seconds`), sorted.
    variables: Arc<[String]>,
    rates: Arc<[(i64, i64)]>,
    /// Where its rates start in [`SetOut::shadowed`].
    first_rate: usize,
    /// Why its action fails on every request, counting nothing (see [`Reach::Off`]).
    off: Option<Arc<str>>,
}

/// An auth action's predicates: joined, as written, and as propositions.
type AuthPredicates = (Arc<str>, Vec<Arc<str>>, Vec<Arc<Formula>>);

/// An AuthPolicy condition: (policy, rule key, predicates joined, propositions).
type AuthRule = (usize, Arc<str>, Arc<str>, Vec<Arc<Formula>>);

/// Why a rate of limit B never decides on a set's requests: a rate of limit A refuses first.
/// Written out ([`shadow_text`]) only for the first set of each limit and rate.
#[derive(Clone, Copy, Debug)]
struct Shadow {
    /// A (index into `Shared::names`) and its rate (`max`, `seconds`).
    by: usize,
    ra: (i64, i64),
    /// A is B (another rate of the same limit).
    same_limit: bool,
    rb: (i64, i64),
    /// The number of A's windows one of B's can meet.
    windows: u64,
    /// A has fewer counter qualifiers than B.
    fewer: bool,
}

/// What an action list holds, whatever the route match (the list is shared by the paths of a
/// route and its effective policies; a route has a few matches).
struct ActionsInfo {
    /// The auth action's predicates (the AuthPolicy's top-level `when`), joined, as written and
    /// as propositions; `None` without an auth action.
    auth: Option<AuthPredicates>,
    auth_policies: Vec<String>,
    rate_limit_policies: Vec<String>,
    kinds: Vec<&'static str>,
    any_rate_limit: bool,
    entries: Vec<EntryInfo>,
    /// The rates of all entries.
    rates: usize,
    /// The pairs that may make a rate never decide: (entry B, rate of B, entry A, rate of A), in
    /// the order they are tried; only RateLimitPolicy entries of one action, A's qualifiers among
    /// B's, both windows whole seconds, `max_B >= max_A`.
    candidates: Vec<(usize, usize, usize, usize)>,
    /// AuthPolicy conditions: (policy, rule key, predicates joined, propositions).
    auth_rules: Vec<AuthRule>,
}

/// What one set's actions do on its requests.
struct SetOut {
    info: Arc<ActionsInfo>,
    auth: Reach,
    rate_limit: Reach,
    /// Per entry: its predicates never hold here.
    never: Vec<bool>,
    /// Per rate of the entries (from each entry's `first_rate`): why it never decides here.
    shadowed: Vec<Option<Shadow>>,
    /// Per AuthPolicy condition of `info`: it can hold here.
    holds: Vec<bool>,
}

/// A gateway's action sets by name. A name is a SHA-256 digest in hex, so its first 16 digits are
/// a hash already and key the table (a large gateway has thousands of sets, looked up once per
/// path, hostname and match); the whole name is compared on a hit.
#[derive(Default)]
struct SetIndex<'a> {
    by_prefix: HashMap<u64, &'a ActionSet>,
    /// The sets whose prefix another set has.
    rest: HashMap<&'a str, &'a ActionSet>,
}

impl<'a> SetIndex<'a> {
    fn prefix(name: &str) -> u64 {
        let b = name.as_bytes();
        let mut k = [0u8; 8];
        let n = b.len().min(8);
        k[..n].copy_from_slice(&b[..n]);
        u64::from_le_bytes(k)
    }

    fn insert(&mut self, s: &'a ActionSet) {
        let name = s.name.as_str();
        match self.by_prefix.entry(Self::prefix(name)) {
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(s);
            }
            std::collections::hash_map::Entry::Occupied(_) => {
                self.rest.insert(name, s);
            }
        }
    }

    fn get(&self, name: &str) -> Option<&'a ActionSet> {
        match self.by_prefix.get(&Self::prefix(name)) {
            Some(s) if s.name.as_str() == name => Some(*s),
            _ => self.rest.get(name).copied(),
        }
    }
}

/// The generated objects, indexed for the walk.
struct Objects<'a> {
    /// Per gateway: its action sets by name; `None` without a wasm configuration.
    sets: Vec<Option<SetIndex<'a>>>,
    auth_configs: HashMap<&'a str, &'a AuthConfig>,
    /// Limitador limits by namespace and the limit identifier of their condition
    /// `descriptors[0]["<id>"] == "1"` (the form the operator writes; other conditions are not
    /// looked up).
    limits: HashMap<(&'a str, &'a str), Vec<&'a LimitadorLimit>>,
    /// Per gateway: why the rate-limit requests its 1.5 shim builds before the auth action all
    /// fail (a `requestData` label that fails whenever `auth` is not set), if they do.
    label_failures: Vec<Option<Arc<str>>>,
}

/// Why every rate-limit request the 1.5 shim builds before the auth action fails on Gateway
/// `namespace/name`: the first of its labels that fails whenever `auth` is not set (PCTL3030,
/// `crate::generate::telemetry::failing_labels`).
fn label_failure(m: &crate::model::Model, namespace: &str, name: &str) -> Option<Arc<str>> {
    let f = crate::generate::telemetry::failing_labels(m, namespace, name)
        .into_iter()
        .next()?;
    Some(Arc::from(format!(
        "the 1.5 shim writes the label {} into each as string({}), which fails before auth ({}), and the failure mode lets the request through uncounted (PCTL3030)",
        f.key, f.expression.value, f.error
    )))
}

impl<'a> Objects<'a> {
    fn new(a: &'a Analysis<'_>) -> Self {
        let m = a.topology.model;
        let mut by_key: HashMap<(&str, &str), usize> = HashMap::new();
        for (i, g) in m.gateways.iter().enumerate() {
            by_key
                .entry((g.meta.namespace.as_str(), g.meta.name.as_str()))
                .or_insert(i);
        }
        // The gateways' set indices are built on every core while the AuthConfigs and the
        // Limitador's limits are indexed.
        let mut label_failures: Vec<Option<Arc<str>>> = vec![None; m.gateways.len()];
        let carriers: Vec<(usize, &'a [ActionSet])> = (a.generated.objects.iter())
            .filter_map(|o| match o {
                Object::Wasm(w) => {
                    let (ns, gw) = w.gateway()?;
                    let g = *by_key.get(&(ns, gw))?;
                    label_failures[g] = label_failure(m, ns, gw);
                    Some((g, w.config.action_sets.as_slice()))
                }
                _ => None,
            })
            .collect();
        let (indices, (auth_configs, limits)) = crate::par::join(
            || {
                crate::par::map(&carriers, 1, |&(g, action_sets)| {
                    let mut index = SetIndex::default();
                    for s in action_sets {
                        index.insert(s);
                    }
                    (g, index)
                })
            },
            || {
                let mut auth_configs = HashMap::new();
                let mut limits: HashMap<(&str, &str), Vec<&LimitadorLimit>> = HashMap::new();
                for o in &a.generated.objects {
                    match o {
                        Object::AuthConfig(c) => {
                            auth_configs.insert(c.name.as_str(), &**c);
                        }
                        Object::Limitador(l) => {
                            for x in &l.limits {
                                for c in &x.conditions {
                                    if let Some(id) = limit_condition_id(c) {
                                        limits.entry((&*x.namespace, id)).or_default().push(x);
                                    }
                                }
                            }
                        }
                        Object::Wasm(_) | Object::Tree(_) => {}
                    }
                }
                (auth_configs, limits)
            },
        );
        let mut sets: Vec<Option<SetIndex<'a>>> = (0..m.gateways.len()).map(|_| None).collect();
        // In object order, as one pass: a later carrier of the same gateway replaces an earlier.
        for (g, index) in indices {
            sets[g] = Some(index);
        }
        Objects {
            sets,
            auth_configs,
            limits,
            label_failures,
        }
    }
}

/// The limit identifier of a Limitador condition `descriptors[0]["<id>"] == "1"`, the condition
/// the operator writes for each limit: exactly the conditions equal to that text for some id.
fn limit_condition_id(condition: &str) -> Option<&str> {
    condition
        .strip_prefix("descriptors[0][\"")?
        .strip_suffix("\"] == \"1\"")
}

/// What every run of the walk reads.
struct Shared<'a, 'm> {
    a: &'a Analysis<'m>,
    objects: Objects<'a>,
    /// Policy locator text → `Kind namespace/name`.
    displays: HashMap<String, Arc<str>>,
    /// Every limit of the model, and its index by identifier.
    names: Vec<LimitName>,
    limit_index: HashMap<Arc<str>, usize>,
    /// The CEL issues of each path: the kinds whose action was dropped.
    dropped: HashMap<&'a str, Vec<PolicyKind>>,
    /// The texts rows share: gateway and route keys.
    gateway_keys: Vec<Arc<str>>,
    route_keys: Vec<Arc<str>>,
}

/// The state of one run of the walk: what it computed once and reuses, and its output.
struct Walk<'s, 'a, 'm> {
    s: &'s Shared<'a, 'm>,
    formulas: HashMap<String, Arc<Formula>>,
    route_preds: HashMap<usize, Arc<[Arc<Formula>]>>,
    infos: HashMap<(usize, usize, usize), Arc<ActionsInfo>>,
    sets: HashMap<(usize, usize, usize, usize, usize), Arc<SetOut>>,
    anonymous: HashMap<usize, Option<Arc<str>>>,
    matches: HashMap<(usize, usize), Arc<[String]>>,
    coverage: HashMap<Vec<usize>, (Arc<Coverage>, Arc<Coverage>)>,
    /// The texts rows share: listener and rule names, hostnames.
    listeners: HashMap<(usize, usize), Arc<str>>,
    rules: HashMap<(usize, usize), Arc<str>>,
    hostnames: HashMap<&'m str, Arc<str>>,
    /// The action-set hostnames of each (gateway, listener, route).
    hosts: HashMap<(usize, usize, usize), Arc<[&'m str]>>,
    /// Buffers of `path`: the sets of one hostname's matches, and their key in `coverage`.
    found: Vec<Option<Arc<SetOut>>>,
    key: Vec<usize>,
    memo_sets: usize,
    out: Walked<'m>,
}

/// Action sets a run of the walk keeps what it computed for, at most: the memos of routes are
/// dropped past that (the paths of a route come together, by gateway and listener), so that the
/// walk's memory does not grow with the estate.
const MEMO_SETS: usize = 1 << 14;

impl Walk<'_, '_, '_> {
    /// Drop the memos of action lists, sets and route rules once they hold `memo_sets` sets
    /// ([`MEMO_SETS`]).
    /// `coverage` is keyed by the addresses of memoised sets: dropped with them.
    fn bound_memos(&mut self) {
        if self.sets.len() < self.memo_sets {
            return;
        }
        self.route_preds.clear();
        self.infos.clear();
        self.sets.clear();
        self.coverage.clear();
        self.matches.clear();
        self.rules.clear();
        self.hosts.clear();
    }
}

/// Paths a run of the walk takes at least: fewer are not worth a thread.
const MIN_PER_RUN: usize = 4096;

pub(super) fn walk<'m>(a: &Analysis<'m>) -> Walked<'m> {
    let paths = a.topology.path_list().len();
    walk_in_runs(
        a,
        crate::par::cores().min(paths / MIN_PER_RUN).max(1),
        MEMO_SETS,
    )
}

/// [`walk`] on `runs` contiguous runs of paths.
fn walk_in_runs<'m>(a: &Analysis<'m>, runs: usize, memo_sets: usize) -> Walked<'m> {
    let m = a.topology.model;
    let mut displays = HashMap::new();
    let mut limit_names: Vec<LimitName> = Vec::new();
    let mut limit_index: HashMap<Arc<str>, usize> = HashMap::new();
    for (i, p) in m.policies.iter().enumerate() {
        displays.insert(p.locator().to_string(), Arc::from(p.display()));
        let (token, spec) = match &p.body {
            PolicyBody::RateLimit(s) => (false, s),
            PolicyBody::TokenRateLimit(s) => (true, s),
            _ => continue,
        };
        for name in spec.limits.keys() {
            let id: Arc<str> =
                names::limit_identifier(token, &p.meta.namespace, &p.meta.name, name).into();
            limit_index
                .entry(Arc::clone(&id))
                .or_insert(limit_names.len());
            limit_names.push(LimitName {
                id,
                policy: i,
                name: name.clone(),
            });
        }
    }
    let mut dropped: HashMap<&str, Vec<PolicyKind>> = HashMap::new();
    for c in &a.generated.cel_issues {
        dropped.entry(c.path_id.as_str()).or_default().push(c.kind);
    }
    let shared = Shared {
        a,
        objects: Objects::new(a),
        displays,
        names: limit_names,
        limit_index,
        dropped,
        gateway_keys: m.gateways.iter().map(|g| Arc::from(g.meta.key())).collect(),
        route_keys: m.routes.iter().map(|r| Arc::from(r.meta.key())).collect(),
    };
    // Paths are independent but for the memos: contiguous runs of paths on the cores, merged in
    // path order as one pass would have gathered them.
    let paths = a.topology.path_list();
    let parts = crate::par::map_ranges(crate::par::even_ranges(paths.len(), runs), |r| {
        let mut w = Walk {
            s: &shared,
            formulas: HashMap::new(),
            route_preds: HashMap::new(),
            infos: HashMap::new(),
            sets: HashMap::new(),
            anonymous: HashMap::new(),
            matches: HashMap::new(),
            coverage: HashMap::new(),
            listeners: HashMap::new(),
            rules: HashMap::new(),
            hostnames: HashMap::new(),
            hosts: HashMap::new(),
            found: Vec::new(),
            key: Vec::new(),
            memo_sets,
            out: Walked {
                limits: (0..shared.names.len())
                    .map(|_| LimitStats::default())
                    .collect(),
                ..Walked::default()
            },
        };
        for i in r {
            w.bound_memos();
            w.path(i, &paths[i], &a.effective[i]);
        }
        w.out
    });
    let total: usize = parts.iter().map(|p| p.rows.len()).sum();
    let mut parts = parts.into_iter();
    let mut out = parts.next().unwrap_or_default();
    out.rows.reserve_exact(total - out.rows.len());
    for part in parts {
        out.merge(part);
    }
    out.names = shared.names;
    out
}

impl<'m> Walked<'m> {
    /// Append what a later run of paths gathered: counts add up, the first example stays.
    fn merge(&mut self, part: Walked<'m>) {
        self.rows.extend(part.rows);
        for (s, p) in self.limits.iter_mut().zip(part.limits) {
            s.seen += p.seen;
            s.applies += p.applies;
            if s.never_example.is_none() {
                s.never_example = p.never_example;
            }
            if s.predicates.is_empty() {
                s.predicates = p.predicates;
            }
            for (rate, (count, by)) in p.shadowed {
                let x = s.shadowed.entry(rate).or_insert((0, None));
                x.0 += count;
                if x.1.is_none() {
                    x.1 = by;
                }
            }
            for r in p.reads_auth {
                if !s.reads_auth.contains(&r) {
                    s.reads_auth.push(r);
                }
            }
            s.without_auth.extend(p.without_auth);
        }
        for (k, p) in part.counters {
            let c = self.counters.entry(k).or_default();
            c.hosts.extend(p.hosts);
            if c.variables.is_empty() {
                c.variables = p.variables;
            }
            if c.rates.is_empty() {
                c.rates = p.rates;
            }
        }
        for (k, p) in part.auth_rules {
            let s = self.auth_rules.entry(k).or_default();
            s.seen += p.seen;
            s.holds += p.holds;
            if s.predicates.is_empty() {
                s.predicates = p.predicates;
            }
            if s.never_example.is_none() {
                s.never_example = p.never_example;
            }
        }
    }
}

impl<'a, 'm> Walk<'_, 'a, 'm> {
    fn path(&mut self, index: usize, p: &Path, pe: &PathEffective) {
        let t = &self.s.a.topology;
        let m: &'m crate::model::Model = t.model;
        let g = &m.gateways[p.gateway];
        let l = &g.spec.listeners[p.listener];
        let r = &m.routes[p.route];
        let hosts = Arc::clone(
            self.hosts
                .entry((p.gateway, p.listener, p.route))
                .or_insert_with(|| {
                    let route_hosts: Vec<&str> =
                        r.spec.hostnames.iter().map(|h| h.as_str()).collect();
                    hostnames::select(l.hostname.as_ref().map(|h| h.as_str()), &route_hosts).into()
                }),
        );
        let matches = self.matches_of(p);
        let gateway = Arc::clone(&self.s.gateway_keys[p.gateway]);
        let listener = Arc::clone(
            self.listeners
                .entry((p.gateway, p.listener))
                .or_insert_with(|| Arc::from(l.name.value.as_str())),
        );
        let route = Arc::clone(&self.s.route_keys[p.route]);
        let rule = Arc::clone(
            self.rules
                .entry((p.route, p.rule))
                .or_insert_with(|| Arc::from(self.s.a.topology.rule_name(p))),
        );
        let row =
            |hostname: Option<Arc<str>>, auth: Arc<Coverage>, rate_limit: Arc<Coverage>| Row {
                path: index,
                gateway: Arc::clone(&gateway),
                listener: Arc::clone(&listener),
                hostname,
                route_kind: r.spec.kind.kind(),
                route: Arc::clone(&route),
                rule: Arc::clone(&rule),
                matches: Arc::clone(&matches),
                auth,
                rate_limit,
            };
        if hosts.is_empty() {
            let why = format!(
                "invalid path: no hostname of the route is within listener {}'s (PCTL2005); it gets no action set",
                l.name.value
            );
            let id = self.s.a.topology.path_id(p);
            let (auth, rl) = self.absent(p, &id, pe, Some(&why));
            self.out.rows.push(row(None, auth, rl));
            return;
        }
        if self.s.a.generated.rejected_gateways.contains(&p.gateway) {
            let why = format!(
                "the wasm-shim refuses the wasm configuration of Gateway {} (PCTL3008): nothing is enforced on it",
                g.meta.key()
            );
            let c = Arc::new(Coverage::none(why));
            for &h in hosts.iter() {
                let h = self.hostname(h);
                self.out
                    .rows
                    .push(row(Some(h), Arc::clone(&c), Arc::clone(&c)));
            }
            return;
        }
        let id = self.s.a.topology.path_id(p);
        // The PathID fed to the digest once for all the path's set names.
        let path_names = names::PathNames::new(&id);
        let mut found = std::mem::take(&mut self.found);
        let mut key = std::mem::take(&mut self.key);
        for &h in hosts.iter() {
            found.clear();
            for i in 0..matches.len() {
                let name = path_names.action_set_name(i, h);
                let set = self.s.objects.sets[p.gateway]
                    .as_ref()
                    .and_then(|s| s.get(name.as_str()));
                found.push(set.map(|s| self.set_out(s, pe, p.gateway)));
            }
            if found.iter().all(Option::is_none) {
                let (auth, rl) = self.absent(p, &id, pe, None);
                let h = self.hostname(h);
                self.out.rows.push(row(Some(h), auth, rl));
                continue;
            }
            for (set, text) in found.iter().zip(matches.iter()) {
                if let Some(set) = set {
                    self.record(p, h, text, &rule, set);
                }
            }
            key.clear();
            key.extend(
                found
                    .iter()
                    .map(|f| f.as_ref().map_or(0, |o| Arc::as_ptr(o) as usize)),
            );
            let (auth, rl) = match self.coverage.get(key.as_slice()) {
                Some(c) => c.clone(),
                None => {
                    let outs: Vec<Option<&SetOut>> = found.iter().map(Option::as_deref).collect();
                    let c = (
                        Arc::new(auth_coverage(&outs, &matches)),
                        Arc::new(rate_limit_coverage(&outs, &matches)),
                    );
                    self.coverage.insert(key.clone(), c.clone());
                    c
                }
            };
            let h = self.hostname(h);
            self.out.rows.push(row(Some(h), auth, rl));
        }
        found.clear();
        self.found = found;
        self.key = key;
    }

    /// A hostname's shared text.
    fn hostname(&mut self, h: &'m str) -> Arc<str> {
        Arc::clone(self.hostnames.entry(h).or_insert_with(|| Arc::from(h)))
    }

    /// The coverage of a row without any action set: why there is none.
    fn absent(
        &self,
        p: &Path,
        id: &str,
        pe: &PathEffective,
        invalid: Option<&str>,
    ) -> (Arc<Coverage>, Arc<Coverage>) {
        let m = self.s.a.topology.model;
        let dropped = self.s.dropped.get(id);
        let why = |policies: Vec<String>, kind: PolicyKind, what: &str| -> String {
            if policies.is_empty() {
                return format!("no {what}");
            }
            if let Some(i) = invalid {
                return i.to_string();
            }
            let names = policies.join(", ");
            if dropped.is_some_and(|d| d.contains(&kind)) {
                return format!(
                    "{names}: its action is dropped, a predicate is invalid CEL (PCTL3006, InvalidCelExpression)"
                );
            }
            if self.s.objects.sets[p.gateway].is_none() {
                return format!(
                    "{names}: Gateway {} has no Kuadrant wasm configuration (its GatewayClass is not Istio's or Envoy Gateway's)",
                    m.gateways[p.gateway].meta.key()
                );
            }
            if m.routes[p.route].spec.rules[p.rule].matches.is_empty()
                && m.version == KuadrantVersion::V1_4
            {
                return format!("{names}: `matches: []` gets no action set on 1.4");
            }
            format!("{names}: no action set")
        };
        let sources = |e: &Option<Arc<crate::resolve::Effective>>| -> Vec<String> {
            e.as_ref()
                .map(|e| {
                    let mut v: Vec<usize> = e.policies.clone();
                    v.sort_unstable();
                    v.dedup();
                    v.into_iter().map(|i| m.policies[i].display()).collect()
                })
                .unwrap_or_default()
        };
        let auth = why(sources(&pe.auth), PolicyKind::Auth, "AuthPolicy");
        let mut rl_policies = sources(&pe.rate_limit);
        rl_policies.extend(sources(&pe.token_rate_limit));
        let rl_kind = if pe.rate_limit.is_some() {
            PolicyKind::RateLimit
        } else {
            PolicyKind::TokenRateLimit
        };
        let mut rl = why(
            rl_policies,
            rl_kind,
            "RateLimitPolicy or TokenRateLimitPolicy",
        );
        if pe.rate_limit.is_some()
            && pe.token_rate_limit.is_some()
            && dropped.is_some_and(|d| d.contains(&PolicyKind::TokenRateLimit))
            && invalid.is_none()
        {
            rl = format!("{rl}; the TokenRateLimitPolicy action is dropped too (PCTL3006)");
        }
        (Arc::new(Coverage::none(auth)), Arc::new(Coverage::none(rl)))
    }

    /// The compact text of the matches of a path's rule, one per action set (empty on 1.4 for
    /// `matches: []`, which gets none).
    fn matches_of(&mut self, p: &Path) -> Arc<[String]> {
        let m = self.s.a.topology.model;
        let version = m.version;
        self.matches
            .entry((p.route, p.rule))
            .or_insert_with(|| {
                let rule = &m.routes[p.route].spec.rules[p.rule];
                let texts: Vec<String> = match &rule.matches {
                    RuleMatches::Http(ms) if ms.is_empty() => {
                        if version == KuadrantVersion::V1_4 {
                            vec![]
                        } else {
                            vec!["/*".into()]
                        }
                    }
                    RuleMatches::Http(ms) => ms.iter().map(http_match_text).collect(),
                    RuleMatches::Grpc(ms) if ms.is_empty() => vec!["*".into()],
                    RuleMatches::Grpc(ms) => ms.iter().map(grpc_match_text).collect(),
                };
                texts.into()
            })
            .clone()
    }

    fn formula(&mut self, text: &str) -> Arc<Formula> {
        if let Some(f) = self.formulas.get(text) {
            return Arc::clone(f);
        }
        let f = Arc::new(Formula::parse(text));
        self.formulas.insert(text.to_string(), Arc::clone(&f));
        f
    }

    fn formulas(&mut self, texts: &[String]) -> Vec<Arc<Formula>> {
        texts.iter().map(|t| self.formula(t)).collect()
    }

    /// The propositions of a set's route predicates (memoised by the shared list). The forms the
    /// operator writes are read directly rather than kept by text: most are one route's own.
    fn route_formulas(&mut self, preds: &Arc<[String]>) -> Arc<[Arc<Formula>]> {
        let key = Arc::as_ptr(preds) as *const String as usize;
        if let Some(f) = self.route_preds.get(&key) {
            return Arc::clone(f);
        }
        let f: Arc<[Arc<Formula>]> = preds
            .iter()
            .map(|t| match logic::generated(t) {
                Some(f) => Arc::new(f),
                None => self.formula(t),
            })
            .collect();
        self.route_preds.insert(key, Arc::clone(&f));
        f
    }

    /// What the actions of `set` do on its requests (memoised).
    fn set_out(&mut self, set: &'a ActionSet, pe: &PathEffective, gateway: usize) -> Arc<SetOut> {
        // Action lists are shared by gateways, whose labels differ.
        let failure = self.s.objects.label_failures[gateway].clone();
        let labels = failure
            .as_ref()
            .map_or(0, |f| Arc::as_ptr(f) as *const u8 as usize);
        let actions = Arc::as_ptr(&set.actions) as *const Action as usize;
        let eff_auth = pe.auth.as_ref().map_or(0, |e| Arc::as_ptr(e) as usize);
        let info = match self.infos.get(&(actions, eff_auth, labels)) {
            Some(i) => Arc::clone(i),
            None => {
                let i = Arc::new(self.actions_info(set, pe, failure));
                self.infos
                    .insert((actions, eff_auth, labels), Arc::clone(&i));
                i
            }
        };
        // The AuthConfig matters (anonymous access) only to a set with an auth action.
        let spec = if info.auth.is_some() {
            self.s
                .objects
                .auth_configs
                .get(set.auth_scope.as_ref())
                .map_or(0, |c| Arc::as_ptr(&c.spec) as usize)
        } else {
            0
        };
        let key = (
            actions,
            Arc::as_ptr(&set.predicates) as *const String as usize,
            spec,
            eff_auth,
            labels,
        );
        if let Some(o) = self.sets.get(&key) {
            return Arc::clone(o);
        }
        let o = Arc::new(self.compute_set(set, info, spec));
        self.sets.insert(key, Arc::clone(&o));
        o
    }

    /// What an action list holds, whatever the route match.
    fn actions_info(
        &mut self,
        set: &ActionSet,
        pe: &PathEffective,
        failure: Option<Arc<str>>,
    ) -> ActionsInfo {
        let names = |w: &Walk<'_, '_, '_>, sources: &[String]| -> Vec<String> {
            sources
                .iter()
                .map(|s| {
                    w.s.displays
                        .get(s)
                        .map_or_else(|| s.clone(), |d| d.to_string())
                })
                .collect()
        };
        let mut info = ActionsInfo {
            auth: None,
            auth_policies: vec![],
            rate_limit_policies: vec![],
            kinds: vec![],
            any_rate_limit: false,
            entries: vec![],
            rates: 0,
            candidates: vec![],
            auth_rules: vec![],
        };
        if let Some(a) = set.actions.iter().find(|a| a.service == AUTH_SERVICE) {
            info.auth_policies = names(self, &a.sources);
            let texts: Vec<Arc<str>> = a.predicates.iter().map(|p| Arc::from(p.as_str())).collect();
            info.auth = Some((
                Arc::from(a.predicates.join(" && ")),
                texts,
                self.formulas(&a.predicates),
            ));
            if let Some(e) = &pe.auth {
                if let Some(r) = e.rules.get(AUTH_CONDITIONS_KEY) {
                    info.auth_rules.push((
                        r.source,
                        Arc::from(AUTH_CONDITIONS_KEY),
                        Arc::from(a.predicates.join(" && ")),
                        vec![],
                    ));
                }
                for r in e.rules.values() {
                    let RuleValue::Auth(section, v) = &r.value else {
                        continue;
                    };
                    if *section == AuthSection::Patterns {
                        continue;
                    }
                    let texts = when_predicates(v);
                    if texts.is_empty() {
                        continue;
                    }
                    let fs = self.formulas(&texts);
                    info.auth_rules.push((
                        r.source,
                        Arc::from(r.key.as_str()),
                        Arc::from(texts.join(" && ")),
                        fs,
                    ));
                }
            }
        }
        let has_auth = info.auth.is_some();
        let mut policies: BTreeSet<String> = BTreeSet::new();
        // The rate-limit actions before the auth action fail on every request when a label does.
        let mut off = failure;
        for a in set.actions.iter() {
            let token = match a.service {
                RATELIMIT_SERVICE => false,
                RATELIMIT_CHECK_SERVICE => true,
                AUTH_SERVICE => {
                    off = None;
                    continue;
                }
                _ => continue,
            };
            info.any_rate_limit = true;
            let kind = if token {
                "TokenRateLimitPolicy"
            } else {
                "RateLimitPolicy"
            };
            if !info.kinds.contains(&kind) {
                info.kinds.push(kind);
            }
            policies.extend(names(self, &a.sources));
            let first = info.entries.len();
            for cd in &a.conditional_data {
                if let Some(mut e) = self.entry_info(set, a, cd, has_auth) {
                    e.off = off.clone();
                    e.first_rate = info.rates;
                    info.rates += e.rates.len();
                    info.entries.push(e);
                }
            }
            if !token {
                let group = first..info.entries.len();
                let es = &info.entries;
                for bi in group.clone() {
                    for (k, rb) in es[bi].rates.iter().enumerate() {
                        for ai in group.clone() {
                            if !es[ai]
                                .variables
                                .iter()
                                .all(|v| es[bi].variables.contains(v))
                            {
                                continue;
                            }
                            for (j, ra) in es[ai].rates.iter().enumerate() {
                                if (ai, j) != (bi, k) && ra.1 > 0 && rb.1 > 0 && rb.0 >= ra.0 {
                                    info.candidates.push((bi, k, ai, j));
                                }
                            }
                        }
                    }
                }
            }
        }
        info.rate_limit_policies = policies.into_iter().collect();
        info
    }

    /// A conditionalData entry of a rate-limit action: the limit it counts for.
    fn entry_info(
        &mut self,
        set: &ActionSet,
        a: &Action,
        cd: &ConditionalData,
        has_auth: bool,
    ) -> Option<EntryInfo> {
        let (id, one) = cd.data.first()?;
        if one != "1" {
            return None;
        }
        let limit = *self.s.limit_index.get(id.as_str())?;
        let mut texts = a.predicates.clone();
        texts.extend(cd.predicates.iter().cloned());
        let formulas = self.formulas(&texts);
        let reads_auth: Vec<String> = if has_auth {
            vec![]
        } else {
            cd.data[1..]
                .iter()
                .filter(|(k, v)| {
                    !k.starts_with("ratelimit.") && (k.contains("auth.") || v.contains("auth."))
                })
                .map(|(_, v)| v.clone())
                .collect()
        };
        let limits = self.s.objects.limits.get(&(set.scope_of(a), id.as_str()));
        let variables: Arc<[String]> = limits
            .and_then(|l| l.first())
            .map(|l| l.variables.as_slice().into())
            .unwrap_or_else(|| Arc::from([]));
        let mut rates: Vec<(i64, i64)> = limits
            .map(|ls| ls.iter().map(|l| (l.max_value, l.seconds)).collect())
            .unwrap_or_default();
        rates.sort_unstable();
        rates.dedup();
        Some(EntryInfo {
            limit,
            id: Arc::clone(&self.s.names[limit].id),
            predicates: Arc::from(texts.join(" && ")),
            formulas,
            reads_auth,
            variables,
            rates: rates.into(),
            first_rate: 0,
            off: None,
        })
    }

    /// What the actions do on the requests of one set (its route match, its AuthConfig).
    fn compute_set(&mut self, set: &ActionSet, info: Arc<ActionsInfo>, spec: usize) -> SetOut {
        let route_preds = self.route_formulas(&set.predicates);
        let route: Vec<&Formula> = route_preds.iter().map(|f| &**f).collect();
        let route_never = logic::never(&route);
        let mut out = SetOut {
            info: Arc::clone(&info),
            auth: Reach::Absent,
            rate_limit: Reach::Absent,
            never: Vec::with_capacity(info.entries.len()),
            shadowed: vec![None; info.rates],
            holds: Vec::with_capacity(info.auth_rules.len()),
        };
        // The auth action: its predicates are the AuthPolicy's top-level `when`.
        if let Some((joined, texts, q)) = &info.auth {
            let q: Vec<&Formula> = q.iter().map(|f| &**f).collect();
            let mut both = route.clone();
            both.extend(q.iter().copied());
            let never = route_never || logic::never(&both);
            out.auth = if never {
                Reach::Never(Arc::clone(joined))
            } else if logic::implies(&route, &q) {
                Reach::Full
            } else {
                Reach::When(texts.clone())
            };
            if !never && let Some(why) = self.anonymous(set.auth_scope.as_ref(), spec) {
                out.auth = Reach::Anonymous(why);
            }
            for (_, key, _, fs) in &info.auth_rules {
                let holds = if &**key == AUTH_CONDITIONS_KEY {
                    !never
                } else {
                    let mut all = both.clone();
                    all.extend(fs.iter().map(|f| &**f));
                    !never && !logic::never(&all)
                };
                out.holds.push(holds);
            }
        }
        // The rate-limit entries.
        let mut full = false;
        let mut conds: Vec<Arc<str>> = vec![];
        for e in &info.entries {
            if e.off.is_some() {
                out.never.push(true);
                continue;
            }
            let (never, is_full) = if e.formulas.is_empty() {
                (route_never, !route_never)
            } else {
                let preds: Vec<&Formula> = e.formulas.iter().map(|f| &**f).collect();
                let mut both = route.clone();
                both.extend(preds.iter().copied());
                let never = route_never || logic::never(&both);
                (never, !never && logic::implies(&route, &preds))
            };
            if is_full {
                full = true;
            } else if !never && !conds.contains(&e.predicates) {
                conds.push(Arc::clone(&e.predicates));
            }
            out.never.push(never);
        }
        let off = info.entries.iter().find_map(|e| e.off.clone());
        out.rate_limit = if !info.any_rate_limit {
            Reach::Absent
        } else if full {
            Reach::Full
        } else if !conds.is_empty() {
            Reach::When(conds)
        } else if let Some(why) = off {
            Reach::Off(why)
        } else {
            let all: Vec<&str> = info.entries.iter().map(|e| &*e.predicates).collect();
            Reach::Never(Arc::from(all.join("; ")))
        };
        self.shadowing(&route, &info, &mut out);
        out
    }

    /// Which rates of a rate-limit action's limits never decide on the set's requests
    /// (`docs/guide/audit.md`, "Limits that never decide"): limit B's rate never decides when a rate of
    /// a limit A counts every request B counts (B's predicates imply A's, A's counter
    /// qualifiers are among B's, the same hits), and A refuses first. Limitador counts no hit
    /// of a refused request (limitador 2.3 and 2.4, `check_and_update` of the in-memory
    /// storage: a request some counter refuses updates none), so A's windows, each of `Wa`
    /// seconds, admit at most `max_A` of B's requests each; a window of B (`Wb` seconds) meets
    /// at most `ceil(Wb / Wa) + 1` of them, one if A and B count exactly the same requests
    /// with the same qualifiers and the same window (their windows then open and close
    /// together). B never refuses a request A admits when `max_B >= that many × max_A`.
    fn shadowing(&self, route: &[&Formula], info: &ActionsInfo, out: &mut SetOut) {
        if info.candidates.is_empty() {
            return;
        }
        let es = &info.entries;
        // `covers(a, b)`: A counts whenever B does on this set's requests (memoised).
        let mut known: HashMap<(usize, usize), bool> = HashMap::new();
        let mut covers = |ai: usize, bi: usize| -> bool {
            if ai == bi {
                return true;
            }
            if out.never[ai]
                || !es[ai]
                    .variables
                    .iter()
                    .all(|v| es[bi].variables.contains(v))
            {
                return false;
            }
            *known.entry((ai, bi)).or_insert_with(|| {
                let mut premises = route.to_vec();
                premises.extend(es[bi].formulas.iter().map(|f| &**f));
                let conclusions: Vec<&Formula> = es[ai].formulas.iter().map(|f| &**f).collect();
                logic::implies(&premises, &conclusions)
            })
        };
        let mut dominates = |ai: usize, ra: (i64, i64), bi: usize, rb: (i64, i64)| -> Option<u64> {
            if (ai, ra) == (bi, rb) || ra.1 <= 0 || rb.1 <= 0 || rb.0 < ra.0 || !covers(ai, bi) {
                return None;
            }
            let same_requests =
                ra.1 == rb.1 && es[ai].variables.len() == es[bi].variables.len() && covers(bi, ai);
            let windows = if same_requests {
                1
            } else {
                (rb.1 as u64).div_ceil(ra.1 as u64) + 1
            };
            let bound = windows.saturating_mul(ra.0.max(0) as u64);
            (rb.0.max(0) as u64 >= bound).then_some(windows)
        };
        let mut found: Vec<(usize, Shadow)> = Vec::new();
        for &(bi, k, ai, j) in &info.candidates {
            let at = es[bi].first_rate + k;
            if out.never[bi] || found.iter().any(|f| f.0 == at) {
                continue;
            }
            let (ra, rb) = (es[ai].rates[j], es[bi].rates[k]);
            let Some(windows) = dominates(ai, ra, bi, rb) else {
                continue;
            };
            // Two rates that bound each other: only the later is reported.
            if dominates(bi, rb, ai, ra).is_some() && (&*es[ai].id, ra) > (&*es[bi].id, rb) {
                continue;
            }
            found.push((
                at,
                Shadow {
                    by: es[ai].limit,
                    ra,
                    same_limit: ai == bi,
                    rb,
                    windows,
                    fewer: es[ai].variables.len() < es[bi].variables.len(),
                },
            ));
        }
        for (at, shadow) in found {
            out.shadowed[at] = Some(shadow);
        }
    }

    /// Why an AuthConfig lets requests without credentials through, if it does: an `anonymous`
    /// authentication rule, or none at all (Authorino then adds an anonymous one: authorino
    /// v0.22.0 and v0.25.0 controllers/auth_config_controller.go). Memoised by its spec.
    fn anonymous(&mut self, scope: &str, spec: usize) -> Option<Arc<str>> {
        if let Some(a) = self.anonymous.get(&spec) {
            return a.clone();
        }
        let why = self.s.objects.auth_configs.get(scope).and_then(|c| {
            match c.spec.get("authentication").and_then(Value::as_object) {
                Some(rules) if !rules.is_empty() => rules
                    .iter()
                    .find(|(_, r)| r.get("anonymous").is_some())
                    .map(|(name, _)| format!("authentication rule `{name}` is anonymous: requests without credentials get through")),
                _ => Some("its AuthConfig has no authentication rule: Authorino lets every request through as anonymous".into()),
            }
        });
        let why: Option<Arc<str>> = why.map(Arc::from);
        self.anonymous.insert(spec, why.clone());
        why
    }

    /// Record what a set did for the findings.
    fn record(&mut self, p: &Path, hostname: &'m str, text: &str, rule: &Arc<str>, set: &SetOut) {
        let info = &set.info;
        let shared = self.s;
        for (i, e) in info.entries.iter().enumerate() {
            // A limit whose requests all fail counts nothing here; the coverage says why.
            if e.off.is_some() {
                continue;
            }
            let stats = &mut self.out.limits[e.limit];
            stats.seen += 1;
            if stats.predicates.is_empty() {
                stats.predicates = e.predicates.to_string();
            }
            if set.never[i] {
                if stats.never_example.is_none() {
                    stats.never_example = Some((p.route, Arc::clone(rule), text.to_string()));
                }
                continue;
            }
            stats.applies += 1;
            let shadowed = &set.shadowed[e.first_rate..e.first_rate + e.rates.len()];
            for (rate, by) in e.rates.iter().zip(shadowed) {
                let s = stats.shadowed.entry(*rate).or_insert((0, None));
                if let Some(by) = by {
                    s.0 += 1;
                    if s.1.is_none() {
                        s.1 = Some(shadow_text(shared.a.topology.model, &shared.names, by));
                    }
                }
            }
            if !e.reads_auth.is_empty() {
                for r in &e.reads_auth {
                    if !stats.reads_auth.contains(r) {
                        stats.reads_auth.push(r.clone());
                    }
                }
                stats.without_auth.insert((p.route, p.rule));
            }
            let c = self.out.counters.entry((p.route, e.limit)).or_default();
            c.hosts.insert((p.gateway, hostname));
            if c.variables.is_empty() {
                c.variables = Arc::clone(&e.variables);
            }
            if c.rates.is_empty() {
                c.rates = Arc::clone(&e.rates);
            }
        }
        for ((policy, key, preds, _), holds) in info.auth_rules.iter().zip(&set.holds) {
            let s = self
                .out
                .auth_rules
                .entry((*policy, Arc::clone(key)))
                .or_default();
            s.seen += 1;
            if s.predicates.is_empty() {
                s.predicates = preds.to_string();
            }
            if *holds {
                s.holds += 1;
            } else if s.never_example.is_none() {
                s.never_example = Some((p.route, Arc::clone(rule), text.to_string()));
            }
        }
    }
}

/// Why a rate never decides: the limit (or rate) that refuses first.
fn shadow_text(m: &crate::model::Model, names: &[LimitName], sh: &Shadow) -> String {
    let Shadow {
        by,
        ra,
        same_limit,
        rb,
        windows,
        fewer,
    } = *sh;
    let who = if same_limit {
        format!("its own rate {} per {}s", ra.0, ra.1)
    } else {
        format!("{} ({} per {}s)", limit_text(m, &names[by]), ra.0, ra.1)
    };
    if windows == 1 {
        format!(
            "{who} counts exactly the same requests with the same counter qualifiers and window, so it refuses first (or together)"
        )
    } else {
        let qualifiers = if fewer {
            " (with fewer counter qualifiers)"
        } else {
            ""
        };
        format!(
            "{who} counts every request it counts{qualifiers}, and lets at most {} of them pass in any {}s ({windows} of its {}s windows can meet one {}s window)",
            (windows as i64).saturating_mul(ra.0),
            rb.1,
            ra.1,
            rb.1
        )
    }
}

/// `limit `name` of Kind ns/name`.
pub(super) fn limit_text(m: &crate::model::Model, l: &LimitName) -> String {
    format!("limit `{}` of {}", l.name, m.policies[l.policy].display())
}

/// The CEL predicates of an AuthPolicy rule's `when` (and of its `all` groups); other forms
/// (pattern expressions, `any`, `patternRef`) are left out, which only weakens the condition.
fn when_predicates(v: &Value) -> Vec<String> {
    fn collect(items: &[Value], out: &mut Vec<String>) {
        for i in items {
            if let Some(p) = i.get("predicate").and_then(Value::as_str) {
                out.push(p.to_string());
            } else if let Some(all) = i.get("all").and_then(Value::as_array) {
                collect(all, out);
            }
        }
    }
    let mut out = Vec::new();
    if let Some(items) = v.get("when").and_then(Value::as_array) {
        collect(items, &mut out);
    }
    out
}

/// The coverage of authentication on a row, from what each match's set does.
fn auth_coverage(outs: &[Option<&SetOut>], matches: &[String]) -> Coverage {
    let mut policies: BTreeSet<String> = BTreeSet::new();
    let reaches: Vec<Reach> = outs
        .iter()
        .map(|o| match o {
            Some(o) => {
                policies.extend(o.info.auth_policies.iter().cloned());
                o.auth.clone()
            }
            None => Reach::Absent,
        })
        .collect();
    let mut c = combine(&reaches, matches, "AuthPolicy");
    if let Some(why) = reaches.iter().find_map(|r| match r {
        Reach::Anonymous(w) => Some(w.to_string()),
        _ => None,
    }) {
        c.state = State::Anonymous;
        c.reason = Some(why);
    }
    c.policies = policies.into_iter().collect();
    c
}

/// The coverage of rate limiting on a row.
fn rate_limit_coverage(outs: &[Option<&SetOut>], matches: &[String]) -> Coverage {
    let mut policies: BTreeSet<String> = BTreeSet::new();
    let mut kinds: Vec<&'static str> = vec![];
    let reaches: Vec<Reach> = outs
        .iter()
        .map(|o| match o {
            Some(o) => {
                policies.extend(o.info.rate_limit_policies.iter().cloned());
                for k in &o.info.kinds {
                    if !kinds.contains(k) {
                        kinds.push(k);
                    }
                }
                o.rate_limit.clone()
            }
            None => Reach::Absent,
        })
        .collect();
    let mut c = combine(&reaches, matches, "RateLimitPolicy or TokenRateLimitPolicy");
    c.policies = policies.into_iter().collect();
    kinds.sort_unstable();
    c.kinds = kinds;
    c
}

/// One coverage from the reach on each match.
fn combine(reaches: &[Reach], matches: &[String], what: &str) -> Coverage {
    let full = |r: &Reach| matches!(r, Reach::Full | Reach::Anonymous(_));
    let none = |r: &Reach| matches!(r, Reach::Never(_) | Reach::Absent | Reach::Off(_));
    let mut c = Coverage::none(String::new());
    c.reason = None;
    if reaches.iter().all(full) {
        c.state = State::Full;
        return c;
    }
    if reaches.iter().all(none) {
        let never = reaches.iter().find_map(|r| match r {
            Reach::Never(p) => Some(p.clone()),
            _ => None,
        });
        let off = reaches.iter().find_map(|r| match r {
            Reach::Off(why) => Some(why.clone()),
            _ => None,
        });
        c.reason = Some(match (never, off) {
            (_, Some(why)) => format!("its rate-limit requests all fail on this rule: {why}"),
            (Some(p), None) => format!("its predicates never hold on this rule's requests: {p}"),
            (None, None) => format!("no {what}"),
        });
        return c;
    }
    c.state = State::Partial;
    for (r, m) in reaches.iter().zip(matches) {
        match r {
            Reach::When(ps) => {
                for p in ps {
                    if !c.when.iter().any(|w| **w == **p) {
                        c.when.push(p.to_string());
                    }
                }
            }
            Reach::Never(_) | Reach::Absent | Reach::Off(_) => c.not_on.push(m.clone()),
            Reach::Full | Reach::Anonymous(_) => {}
        }
    }
    c
}

/// `GET /toys*`, `/admin`, `~^/re$`, then `[name=value]` headers and `?name=value` parameters.
fn http_match_text(m: &crate::model::HttpMatch) -> String {
    let mut parts = Vec::new();
    if let Some(method) = &m.method {
        parts.push(method.clone());
    }
    parts.push(match m.path.kind {
        PathMatchType::Exact => m.path.value.clone(),
        PathMatchType::PathPrefix => format!("{}*", m.path.value),
        PathMatchType::RegularExpression => format!("~{}", m.path.value),
    });
    for h in &m.headers {
        let op = if h.kind == "RegularExpression" {
            "~"
        } else {
            "="
        };
        parts.push(format!("[{}{op}{}]", h.name, h.value));
    }
    for q in &m.query_params {
        let op = if q.kind == "RegularExpression" {
            "~"
        } else {
            "="
        };
        parts.push(format!("?{}{op}{}", q.name, q.value));
    }
    parts.join(" ")
}

/// `service/method` (either may be `*`), then the headers.
fn grpc_match_text(m: &crate::model::GrpcMatch) -> String {
    let mut parts = Vec::new();
    match &m.method {
        Some(mm) => {
            let s = mm
                .service
                .as_deref()
                .filter(|s| !s.is_empty())
                .unwrap_or("*");
            let me = mm
                .method
                .as_deref()
                .filter(|s| !s.is_empty())
                .unwrap_or("*");
            let op = if mm.kind == "RegularExpression" {
                "~"
            } else {
                ""
            };
            parts.push(format!("{op}{s}/{me}"));
        }
        None => parts.push("*".into()),
    }
    for h in &m.headers {
        parts.push(format!("[{}={}]", h.name, h.value));
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::{Input, LoadOptions, load};
    use crate::model::KuadrantVersion;

    /// A limit's condition as the operator writes it (kuadrant-operator v1.5.2
    /// internal/controller/limitador_limits_reconciler.go: `descriptors[0]["%s"] == "1"` of the
    /// limit identifier) gives back its identifier; any other condition none.
    #[test]
    fn limit_conditions_give_back_their_identifier() {
        let id = "limit.gw_0__2c1a9b7f";
        let condition = format!("descriptors[0][\"{id}\"] == \"1\"");
        assert_eq!(limit_condition_id(&condition), Some(id));
        assert_eq!(limit_condition_id("descriptors[0][\"x\"] == \"2\""), None);
        assert_eq!(limit_condition_id("descriptors[0].x == \"1\""), None);
    }

    /// Walking on several runs of paths gives what one run gives: the rows, and the findings
    /// drawn from what was gathered; and so does dropping the memos before every path.
    #[test]
    fn parallel_runs_give_the_single_run_result() {
        for estate in [
            "audit/shared-counter",
            "audit/coverage",
            "examples/toystore",
        ] {
            let dir = format!("{}/testdata/{estate}", env!("CARGO_MANIFEST_DIR"));
            let l = load(
                &[Input::Path(dir.into())],
                &LoadOptions {
                    default_namespace: "default".into(),
                    version: KuadrantVersion::V1_5,
                    ..LoadOptions::default()
                },
            );
            let a = crate::analysis::analyze(
                &l.model,
                &l.diagnostics,
                &Default::default(),
                &Default::default(),
            );
            let opts = super::super::Options {
                require_auth: true,
                require_rate_limit: true,
            };
            let result = |runs: usize, memo_sets: usize| {
                let w = walk_in_runs(&a, runs, memo_sets);
                let mut f = super::super::findings::findings(&a, &l.sources, &w, &opts);
                f.sort();
                (format!("{:?}", w.rows), f)
            };
            let one = result(1, MEMO_SETS);
            assert!(!one.1.is_empty(), "{estate}: no finding at all");
            for runs in [2, 3, 5] {
                assert_eq!(result(runs, MEMO_SETS), one, "{estate} {runs}");
            }
            // 0: the memos are dropped before every path.
            assert_eq!(result(1, 0), one, "{estate}: memos dropped");
            assert_eq!(result(3, 0), one, "{estate}: memos dropped, 3 runs");
        }
    }
}
