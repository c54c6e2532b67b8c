//! The estate's budgets: how many bytes and documents one run reads, and how many paths and wasm
//! action sets it computes.
//!
//! A run holds about twenty times its input in memory, and each input is bounded on its own, not
//! their number: [`MAX_INPUT_BYTES`] bounds them together (`load::read_inputs`). Documents cost
//! memory whatever their size: `---\n{}\n` is seven bytes, and each document (a List's items each
//! count as one) becomes an object or a finding of one to three kilobytes, so a file within its
//! bound can ask for tens of gigabytes. [`DocumentBudget`] admits them in input order, counted
//! before they are parsed (and a List's items before they are validated); from the first over the
//! budget on, they are left out. See `docs/input.md`, "Bytes" and "Documents".
//!
//! Paths multiply: a route attached to whole Gateways gets one path per listener and rule, and a
//! path one action set per hostname and match. The Gateway API's schemas cap each factor (64
//! listeners a Gateway, 32 parentRefs, 16 hostnames and rules a route, 128 matches across its
//! rules), not their product: a few hundred kilobytes of YAML can ask for millions of paths and
//! tens of millions of action sets, gigabytes of memory and of output. Before any path is built,
//! [`keep_within`] bounds what the model's routes can give, route by route in model order, and
//! leaves out the routes from the first one that would go over the budget.
//! See `docs/input.md`, "Paths and action sets".

use super::LoadOptions;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{GATEWAY_API_GROUP, Model, Obj, Route, hostname_subset_of};
use crate::source::Span;
use crate::topology::route_in_topology;
use foldhash::HashMap;

/// The most bytes one run reads, files and streams together: each input has the same bound on its
/// own, and a run holds about twenty times its input's size in memory (the 40 MB benchmark estates
/// peak at 820 MiB), so a repository of many files at that bound would ask for tens of gigabytes.
/// Six times the largest estates we benchmark.
pub const MAX_INPUT_BYTES: u64 = 256 << 20;

/// The `PCTL1019` of inputs over [`LoadOptions::max_input_bytes`]: `name` would have gone over it.
pub(crate) fn input_bytes_diagnostic(name: &str, max: u64) -> Diagnostic {
    Diagnostic::new(
        Code::EstateLimit,
        format!(
            "the input is larger than the run's budget of {} bytes (files and streams together): {name} and every input after it are left out",
            thousands(max)
        ),
    )
    .help("run policyctl on part of the repository at a time (a folder per gateway or team), or raise the budget with --max-input-bytes N if the machine has the memory (about 20 bytes for a byte of YAML)")
}

/// The most documents (YAML documents, the objects of a JSON stream, the items of a List) one run
/// reads: two and a half times those of the largest estates we benchmark (100,000 objects, one a
/// document). A tiny document's finding takes about 2 KB until the report is written, a
/// duplicate's 3 KB, so at the budget a run takes at most about 1.2 GB (`tests/hostile/limits.sh`
/// and `docs/input.md`, "Documents").
pub const MAX_DOCUMENTS: usize = 1 << 18;

/// The documents a run has admitted, against its budget (in `watch`, from each file on, after the
/// files before it).
pub(crate) struct DocumentBudget {
    max: usize,
    used: usize,
    /// The first document left out, and what it counts.
    over: Option<(Span, usize)>,
}

impl DocumentBudget {
    /// The budget of `max` documents of which the inputs before have admitted `used` (`watch`
    /// parses its files one by one, each after those before it in input order).
    pub(crate) fn after(max: usize, used: usize) -> Self {
        DocumentBudget {
            max,
            used: used.min(max),
            over: None,
        }
    }

    /// How many documents have been admitted, the inputs before included.
    pub(crate) fn used(&self) -> usize {
        self.used
    }

    /// Whether a document was left out.
    pub(crate) fn is_over(&self) -> bool {
        self.over.is_some()
    }

    /// How many more documents fit.
    pub(crate) fn room(&self) -> usize {
        if self.over.is_some() {
            0
        } else {
            self.max - self.used
        }
    }

    /// Admit the next document in input order, which counts `weight` (one, or a List's items) and
    /// starts at `at`: false for the first that would go over the budget and every one after it.
    pub(crate) fn admit(&mut self, weight: usize, at: Span) -> bool {
        if self.over.is_some() {
            return false;
        }
        if weight > self.max - self.used {
            self.over = Some((at, weight));
            return false;
        }
        self.used += weight;
        true
    }

    /// The `PCTL1019` of a budget gone over.
    pub(crate) fn diagnostic(&self) -> Option<Diagnostic> {
        let (at, weight) = self.over?;
        let this = match weight {
            1 => "this document and every one after it are left out".to_string(),
            n => format!(
                "this List of {} items and every document after it are left out",
                thousands(n as u64)
            ),
        };
        Some(
            Diagnostic::new(
                Code::EstateLimit,
                format!(
                    "the input is larger than the run's budget of {} documents (YAML documents, objects of a JSON stream and items of a List, each counted): {this}",
                    thousands(self.max as u64)
                ),
            )
            .at(at, "the first document left out")
            .help("run policyctl on part of the repository at a time (a folder per gateway or team), or raise the budget with --max-documents N if the machine has the memory (up to about 3 KB a document)"),
        )
    }
}

/// The most paths (gateway class → gateway → listener → route → rule) one run computes: four
/// times those of the largest estate we benchmark (100,000 objects, 40,000 routes on Gateways of
/// ten listeners: about a million paths).
pub const MAX_PATHS: u64 = 4 << 20;

/// The most wasm action sets (a path's hostnames × its rule's matches) one run computes: at least
/// four times what the routes of the 100,000-object benchmark estates can give at most (about 130,000
/// for the multi-tenant one, 300,000 to 500,000 for the other), and half of what one route can
/// ask for within the schemas' caps (32 × 64 listeners × 16 hostnames × 128 matches), which is
/// then left out on its own.
pub const MAX_ACTION_SETS: u64 = 2 << 20;

/// What a route can give at most: its paths and their action sets.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
struct Bound {
    paths: u64,
    action_sets: u64,
}

/// A Gateway's listeners: their names and hostnames.
type Listeners<'m> = HashMap<(&'m str, &'m str), Vec<(&'m str, Option<&'m str>)>>;

fn listeners(model: &Model) -> Listeners<'_> {
    (model.gateways.iter())
        .map(|g| {
            let ls = (g.spec.listeners.iter()).map(|l| {
                (
                    l.name.value.as_str(),
                    l.hostname.as_ref().map(|h| h.as_str()),
                )
            });
            (
                (g.meta.namespace.as_str(), g.meta.name.as_str()),
                ls.collect(),
            )
        })
        .collect()
}

/// The most paths and action sets `r` can give: a path for each listener a parentRef matches (all
/// of its Gateway's listeners without a `sectionName`, as the topology links them) and rule; on
/// each, an action set for each hostname of the path (the route's hostnames that are a subset of
/// the listener's, or the listener's when the route has none: `docs/semantics/paths.md`) and match
/// of the rule (one without: the default match). An upper bound: attachment checks, and paths
/// without policies, only take some away.
fn bound(r: &Obj<Route>, listeners: &Listeners) -> Bound {
    let (mut attached, mut hosts) = (0u64, 0u64);
    for pr in &r.spec.parent_refs {
        if pr.group != GATEWAY_API_GROUP || pr.kind != "Gateway" {
            continue;
        }
        let ns = pr.namespace.as_deref().unwrap_or(&r.meta.namespace);
        let Some(ls) = listeners.get(&(ns, pr.name.as_str())) else {
            continue;
        };
        for (name, hostname) in ls {
            if pr.section_name.as_ref().is_some_and(|s| s != name) {
                continue;
            }
            attached += 1;
            let l = hostname.unwrap_or("*");
            hosts += match r.spec.hostnames.len() {
                0 => 1,
                _ => (r.spec.hostnames.iter())
                    .filter(|h| hostname_subset_of(h.as_str(), l))
                    .count() as u64,
            };
        }
    }
    let rules = r.spec.rules.len() as u64;
    let matches: u64 = (r.spec.rules.iter())
        .map(|x| x.matches.len().max(1) as u64)
        .sum();
    Bound {
        paths: attached.saturating_mul(rules),
        action_sets: hosts.saturating_mul(matches),
    }
}

/// Leave out the routes from the first one (in model order: kind, namespace, name) whose paths or
/// action sets would take the estate over `opts.max_paths` or `opts.max_action_sets`, with one
/// `PCTL1019`.
pub(crate) fn keep_within(model: &mut Model, opts: &LoadOptions, diags: &mut Diagnostics) {
    let max = Bound {
        paths: opts.max_paths,
        action_sets: opts.max_action_sets,
    };
    keep_within_limits(model, max, diags);
}

/// Each route's bound, in model order (none for a route the topology leaves out): on every core,
/// as large estates have tens of thousands of routes.
fn route_bounds(model: &Model) -> Vec<Option<Bound>> {
    let listeners = listeners(model);
    crate::par::map(&model.routes, 4096, |r| {
        (route_in_topology(r.spec.kind, model.version)).then(|| bound(r, &listeners))
    })
}

fn keep_within_limits(model: &mut Model, max: Bound, diags: &mut Diagnostics) {
    let bounds = route_bounds(model);
    let mut total = Bound::default();
    let mut over = None;
    for (i, b) in bounds.into_iter().enumerate() {
        let Some(b) = b else { continue };
        let with = Bound {
            paths: total.paths.saturating_add(b.paths),
            action_sets: total.action_sets.saturating_add(b.action_sets),
        };
        if with.paths > max.paths || with.action_sets > max.action_sets {
            over = Some((i, with));
            break;
        }
        total = with;
    }
    let Some((first, with)) = over else {
        return;
    };
    let left_out = model.routes.split_off(first);
    model.left_out_routes = (left_out.iter())
        .map(|r| (r.spec.kind, r.meta.namespace.clone(), r.meta.name.clone()))
        .collect();
    // Sorted as the tuples compare, for `Model::left_out_route`.
    model.left_out_routes.sort_unstable();
    let r = &left_out[0];
    let count = |n: u64, one: &str| match n {
        1 => format!("1 {one}"),
        n => format!("{} {one}s", thousands(n)),
    };
    let (what, flag) = if with.paths > max.paths {
        (count(max.paths, "path"), "--max-paths")
    } else {
        (
            count(max.action_sets, "wasm action set"),
            "--max-action-sets",
        )
    };
    let object = format!("{} {}", r.spec.kind.kind(), r.meta.key());
    let left = match left_out.len() - 1 {
        0 => format!("{object} is left out"),
        1 => format!(
            "{object} and the route after it (in kind, namespace and name order) are left out"
        ),
        n => format!(
            "{object} and the {} routes after it (in kind, namespace and name order) are left out",
            thousands(n as u64)
        ),
    };
    diags.push(
        Diagnostic::new(
            Code::EstateLimit,
            format!(
                "the estate is larger than the run's budget: with {object}, its routes could give more than {what}; {left}"
            ),
        )
        .at(r.meta.origin.name, "the first route left out")
        .object(object)
        .help(format!("run policyctl on part of the repository at a time (a folder per gateway or team), or raise the budget with {flag} N if the machine has the memory (about 600 bytes an action set); a parentRef without sectionName attaches a route to every listener of its Gateway, and each hostname and match of a rule is an action set on each")),
    );
}

/// `n` with thousands separators, as `docs/input.md` writes limits.
fn thousands(n: u64) -> String {
    super::yaml::thousands(usize::try_from(n).unwrap_or(usize::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::load_text;

    /// Two Gateways of three listeners, one of them for `a.example.com` only; route `a` names both
    /// whole (6 listeners × 2 rules = 12 paths; its two hostnames on five listeners and one on the
    /// last, 11, × (2 + 1 matches) = 33 action sets), `b` one listener of one (1 path, 1 action
    /// set), `c` a Gateway that does not exist (nothing).
    const ESTATE: &str = r#"
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: g1, namespace: ns}
spec:
  gatewayClassName: istio
  listeners:
  - {name: l0, port: 80, protocol: HTTP}
  - {name: l1, port: 81, protocol: HTTP}
  - {name: l2, port: 82, protocol: HTTP}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: g2, namespace: ns}
spec:
  gatewayClassName: istio
  listeners:
  - {name: l0, port: 80, protocol: HTTP}
  - {name: l1, port: 81, protocol: HTTP}
  - {name: l2, port: 82, protocol: HTTP, hostname: a.example.com}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: a, namespace: ns}
spec:
  parentRefs: [{name: g1}, {name: g2}]
  hostnames: [a.example.com, b.example.com]
  rules:
  - matches: [{path: {value: /x}}, {path: {value: /y}}]
  - matches: [{path: {value: /z}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: b, namespace: ns}
spec:
  parentRefs: [{name: g1, sectionName: l1}]
  rules:
  - backendRefs: []
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: c, namespace: ns}
spec:
  parentRefs: [{name: nowhere}]
  rules:
  - backendRefs: []
"#;

    fn estate() -> Model {
        let l = load_text(ESTATE, crate::model::KuadrantVersion::default());
        assert!(!l.diagnostics.has_errors(), "{:?}", l.diagnostics);
        l.model
    }

    fn names(m: &Model) -> Vec<&str> {
        m.routes.iter().map(|r| r.meta.name.as_str()).collect()
    }

    /// Each route's bound counts its listeners, rules, matches and hostnames as documented.
    #[test]
    fn a_route_bound_multiplies_listeners_rules_matches_and_hostnames() {
        let got = route_bounds(&estate());
        let want = [(12, 33), (1, 1), (0, 0)]
            .map(|(paths, action_sets)| Some(Bound { paths, action_sets }));
        assert_eq!(got, want);
    }

    /// The routes that fit are kept; from the first that would go over either budget, every
    /// route is left out, with one `PCTL1019` at that route; exactly at the budget nothing is.
    #[test]
    fn routes_from_the_first_over_the_budget_are_left_out() {
        let run = |paths, action_sets| {
            let mut m = estate();
            let mut diags = Diagnostics::new();
            keep_within_limits(&mut m, Bound { paths, action_sets }, &mut diags);
            let found: Vec<String> = diags.iter().map(|d| d.message.clone()).collect();
            (names(&m).join(","), found)
        };
        assert_eq!(run(13, 34), ("a,b,c".into(), vec![]));
        let (kept, found) = run(12, 34);
        assert_eq!(kept, "a");
        assert_eq!(found.len(), 1);
        assert!(
            found[0].contains("more than 12 paths")
                && found[0].contains("HTTPRoute ns/b and the route after it"),
            "{found:?}"
        );
        // The routes left out are found by kind, namespace and name; the others are not.
        let mut m = estate();
        keep_within_limits(
            &mut m,
            Bound {
                paths: 12,
                action_sets: 34,
            },
            &mut Diagnostics::new(),
        );
        for (kind, name, left_out) in [
            ("HTTPRoute", "a", false),
            ("HTTPRoute", "b", true),
            ("HTTPRoute", "c", true),
            ("GRPCRoute", "c", false),
            ("Service", "c", false),
        ] {
            assert_eq!(
                m.left_out_route(kind, "ns", name),
                left_out,
                "{kind} {name}"
            );
        }
        let (kept, found) = run(100, 32);
        assert_eq!(kept, "");
        assert_eq!(
            found,
            [
                "the estate is larger than the run's budget: with HTTPRoute ns/a, its routes could give more than 32 wasm action sets; HTTPRoute ns/a and the 2 routes after it (in kind, namespace and name order) are left out"
            ]
        );
    }

    /// The bounds hold: on every testdata estate at both releases, the topology's paths are no more
    /// than the routes' path bounds, and their action-set hostnames (`generate`'s selection) times
    /// their rules' matches no more than the action-set bounds.
    #[test]
    fn bounds_are_upper_bounds_on_every_testdata_estate() {
        use crate::model::KuadrantVersion;
        use crate::topology::Topology;
        let mut estates = 0;
        for version in [KuadrantVersion::V1_4, KuadrantVersion::V1_5] {
            for group in ["cases", "examples", "dataplane"] {
                for case in crate::generate::testdata_cases(group) {
                    let m = crate::generate::testdata_model(&case, version);
                    let t = Topology::build(&m);
                    let bounds = route_bounds(&m).into_iter().flatten();
                    let (paths, sets) =
                        bounds.fold((0, 0), |(p, s), b| (p + b.paths, s + b.action_sets));
                    let mut actual_sets = 0u64;
                    for p in t.path_list() {
                        let r = &m.routes[p.route];
                        let l = &m.gateways[p.gateway].spec.listeners[p.listener];
                        let hosts = crate::generate::hostnames::select_in(
                            l.hostname.as_ref().map(|h| h.as_str()),
                            r.spec.hostnames.iter().map(|h| h.as_str()),
                        );
                        let matches = r.spec.rules[p.rule].matches.len().max(1);
                        actual_sets += (hosts.len() * matches) as u64;
                    }
                    let what = format!("{case} at {version:?}");
                    assert!(t.path_list().len() as u64 <= paths, "{what}");
                    assert!(actual_sets <= sets, "{what}: {actual_sets} > {sets}");
                    estates += usize::from(!t.path_list().is_empty());
                }
            }
        }
        assert!(estates > 20, "{estates}");
    }
}
