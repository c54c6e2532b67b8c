//! The `PCTL6xxx` findings, from what the walk gathered: paths `--require` finds unprotected,
//! limits that never decide or never apply, counters without an identity or shared by several
//! gateways or hostnames, AuthPolicy conditions that never hold.

use super::walk::{CounterStats, Walked, limit_text};
use super::{Options, Row, State};
use crate::analysis::Analysis;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Limit, Model, PolicyBody, Sp};
use crate::resolve::AUTH_CONDITIONS_KEY;
use crate::source::{SourceMap, Span};
use std::collections::{BTreeMap, BTreeSet};

/// Places listed in a message before the rest is counted.
const LISTED: usize = 3;

pub(super) fn findings(
    a: &Analysis<'_>,
    sources: &SourceMap,
    w: &Walked,
    opts: &Options,
) -> Diagnostics {
    let m = a.topology.model;
    let mut out = Diagnostics::new();
    if opts.require_auth {
        required(a, &w.rows, Code::AuditNoAuth, &mut out);
    }
    if opts.require_rate_limit {
        required(a, &w.rows, Code::AuditNoRateLimit, &mut out);
    }
    for (s, l) in w.limits.iter().zip(&w.names) {
        if s.seen == 0 {
            continue;
        }
        let (p, name) = (&l.policy, &l.name);
        let policy = &m.policies[*p];
        let Some(limit) = limit_of(m, *p, name) else {
            continue;
        };
        let what = limit_text(m, l);
        let first_rate = limit
            .rates
            .first()
            .map_or(policy.meta.origin.name, |r| r.span);
        if s.applies == 0 {
            if let Some((route, rule, text)) = &s.never_example {
                let r = &m.routes[*route];
                let span = limit
                    .when
                    .first()
                    .map(|w| w.span)
                    .or_else(|| top_level_when(m, *p).map(|w| w.span))
                    .unwrap_or(first_rate);
                let msg = format!(
                    "{what} never applies: its predicates (`{}`) never hold on the requests of the route rules it is in effect on (e.g. {} {} {rule}, match `{text}`)",
                    s.predicates,
                    r.spec.kind.kind(),
                    r.meta.key()
                );
                out.push(
                    Diagnostic::new(Code::LimitNeverApplies, msg)
                        .object(policy.display())
                        .at(span, "never holds on those route rules")
                        .help("fix the `when` predicates, or target the route rule they were meant for"),
                );
            }
            continue;
        }
        for ((max, seconds), (count, by)) in &s.shadowed {
            let Some(by) = by else { continue };
            if *count != s.applies {
                continue;
            }
            let span = limit
                .rates
                .iter()
                .find(|r| r.max_value() == *max && r.seconds() == *seconds)
                .map_or(first_rate, |r| r.span);
            let msg = format!(
                "the rate {max} per {seconds}s of {what} never refuses a request on its own: {by}; Limitador counts no hit of a refused request"
            );
            out.push(
                Diagnostic::new(Code::LimitShadowed, msg)
                    .object(policy.display())
                    .at(span, "never decides")
                    .help("remove this rate, or change the one that refuses first (see `docs/guide/audit.md`, \"Limits that never decide\")"),
            );
        }
        if !s.without_auth.is_empty() {
            let read = &s.reads_auth[0];
            let span = limit
                .counters
                .iter()
                .find(|c| c.value == *read || c.value.trim() == read.trim())
                .map_or(first_rate, |c| c.span);
            let places: Vec<String> = s
                .without_auth
                .iter()
                .map(|&(route, rule)| {
                    let r = &m.routes[route];
                    let section = r.spec.rules[rule].section_name(rule, m.version);
                    format!("{} {} {section}", r.spec.kind.kind(), r.meta.key())
                })
                .collect();
            let msg = format!(
                "{what} counts by `{read}`, but no AuthPolicy is in effect on {}: there is no identity for the counter to read there (the operator does not check counter expressions, so nothing else reports this; `policyctl simulate` shows what such a request gets)",
                listed(&places)
            );
            out.push(
                Diagnostic::new(Code::CounterWithoutIdentity, msg)
                    .object(policy.display())
                    .at(span, "reads auth data")
                    .help("attach an AuthPolicy to those routes, or count by a request attribute"),
            );
        }
    }
    shared(m, w, &mut out);
    for ((p, key), s) in &w.auth_rules {
        if s.holds > 0 || s.seen == 0 {
            continue;
        }
        let Some((route, rule, text)) = &s.never_example else {
            continue;
        };
        let policy = &m.policies[*p];
        let r = &m.routes[*route];
        let example = format!(
            "e.g. {} {} {rule}, match `{text}`",
            r.spec.kind.kind(),
            r.meta.key()
        );
        let (msg, span) = if &**key == AUTH_CONDITIONS_KEY {
            let span = match &policy.body {
                PolicyBody::Auth(s) => s.when.first().map(|w| w.span),
                _ => None,
            };
            (
                format!(
                    "the top-level `when` of {} (`{}`) never holds on the requests of the route rules it is in effect on ({example}): its authentication never runs there",
                    policy.display(),
                    s.predicates
                ),
                span,
            )
        } else {
            let field = key.replacen('#', ".", 1);
            let first = s.predicates.split(" && ").next().unwrap_or("");
            (
                format!(
                    "rule `{field}` of {} never applies: its `when` (`{}`) never holds on the requests of the route rules it is in effect on ({example})",
                    policy.display(),
                    s.predicates
                ),
                locate(sources, policy.meta.origin.document, &[first]),
            )
        };
        out.push(
            Diagnostic::new(Code::AuthConditionNeverHolds, msg)
                .object(policy.display())
                .at(span.unwrap_or(policy.meta.origin.name), "never holds there")
                .help("fix the `when` predicates, or target the route rule they were meant for"),
        );
    }
    out
}

/// The limit a policy writes under `name`.
fn limit_of<'m>(m: &'m Model, policy: usize, name: &str) -> Option<&'m Limit> {
    match &m.policies[policy].body {
        PolicyBody::RateLimit(s) | PolicyBody::TokenRateLimit(s) => {
            s.limits.get(name).map(|l| &**l)
        }
        _ => None,
    }
}

/// A rate-limit policy's own top-level `when`.
fn top_level_when(m: &Model, policy: usize) -> Option<&Sp<String>> {
    match &m.policies[policy].body {
        PolicyBody::RateLimit(s) | PolicyBody::TokenRateLimit(s) => s.when.first(),
        _ => None,
    }
}

/// The first places, then how many more.
fn listed(places: &[String]) -> String {
    let shown = &places[..places.len().min(LISTED)];
    let mut t = shown.join(", ");
    if places.len() > shown.len() {
        t.push_str(&format!(" and {} more", places.len() - shown.len()));
    }
    t
}

/// The span of the first of `needles` found in the document (each searched after the one
/// before): AuthPolicy rules are kept as values, without the spans of their fields.
fn locate(sources: &SourceMap, doc: Span, needles: &[&str]) -> Option<Span> {
    let text = sources
        .get(doc.source)?
        .text
        .get(doc.offset..doc.offset + doc.len)?;
    let mut at = 0;
    let mut found = None;
    for n in needles.iter().filter(|n| !n.is_empty()) {
        let i = text.get(at..)?.find(n)? + at;
        found = Some(Span::new(doc.source, doc.offset + i, n.len()));
        at = i + n.len();
    }
    found
}

/// (route, rule index) → (state, reason or condition) → the places (gateway, listener, hostname).
type Gaps = BTreeMap<(usize, usize), BTreeMap<(State, String), BTreeSet<String>>>;

/// `PCTL6001` / `PCTL6002`: the route rules whose paths are not fully protected, one finding per
/// route rule and state.
fn required(a: &Analysis<'_>, rows: &[Row], code: Code, out: &mut Diagnostics) {
    let m = a.topology.model;
    let paths = a.topology.path_list();
    let mut gaps: Gaps = BTreeMap::new();
    for r in rows {
        let c = if code == Code::AuditNoAuth {
            &r.auth
        } else {
            &r.rate_limit
        };
        if c.state == State::Full {
            continue;
        }
        let p = &paths[r.path];
        let detail = match c.state {
            State::Partial if !c.when.is_empty() => {
                format!("only when `{}`", c.when.join("` or `"))
            }
            State::Partial => format!("not on match {}", c.not_on.join(", ")),
            _ => c.reason.clone().unwrap_or_default(),
        };
        let place = match &r.hostname {
            Some(h) => format!("Gateway {} listener {} ({h})", r.gateway, r.listener),
            None => format!("Gateway {} listener {}", r.gateway, r.listener),
        };
        gaps.entry((p.route, p.rule))
            .or_default()
            .entry((c.state, detail))
            .or_default()
            .insert(place);
    }
    let what = if code == Code::AuditNoAuth {
        "authentication"
    } else {
        "rate limiting"
    };
    for ((route, rule), by_state) in gaps {
        let r = &m.routes[route];
        let x = &r.spec.rules[rule];
        let section = x.section_name(rule, m.version);
        for ((state, detail), places) in by_state {
            let places: Vec<String> = places.into_iter().collect();
            let msg = match state {
                State::Partial => format!(
                    "{} {} {section} has {what} {detail}, on {}",
                    r.spec.kind.kind(),
                    r.meta.key(),
                    listed(&places)
                ),
                State::Anonymous => format!(
                    "{} {} {section} lets requests without credentials through on {}: {detail}",
                    r.spec.kind.kind(),
                    r.meta.key(),
                    listed(&places)
                ),
                _ => format!(
                    "{} {} {section} has no {what} on {}: {detail}",
                    r.spec.kind.kind(),
                    r.meta.key(),
                    listed(&places)
                ),
            };
            let help = if code == Code::AuditNoAuth {
                "attach an AuthPolicy to the route or its Gateway; if the route is public on purpose, annotate it with policyctl.kuadrant.io/ignore: PCTL6001"
            } else {
                "attach a RateLimitPolicy (or a TokenRateLimitPolicy) to the route or its Gateway; if that is on purpose, annotate the route with policyctl.kuadrant.io/ignore: PCTL6002"
            };
            out.push(
                Diagnostic::new(code, msg)
                    .object(format!("{} {}", r.spec.kind.kind(), r.meta.key()))
                    .at(x.span, format!("not fully protected by {what}"))
                    .help(help),
            );
        }
    }
}

/// The counter qualifier expression of a Limitador variable (`descriptors[0]["x"]` → `x`).
fn variable(v: &str) -> &str {
    v.strip_prefix("descriptors[0][\"")
        .and_then(|s| s.strip_suffix("\"]"))
        .unwrap_or(v)
}

/// Whether two action-set hostnames can take the same request (equal, or a wildcard covering the
/// other).
fn overlap(a: &str, b: &str) -> bool {
    let covers = |w: &str, h: &str| {
        w.strip_prefix('*')
            .is_some_and(|suffix| h.ends_with(suffix) && h.len() > suffix.len())
    };
    a == "*" || b == "*" || a.eq_ignore_ascii_case(b) || covers(a, b) || covers(b, a)
}

/// Who shares one Limitador counter: the finding's code, the Gateways or hostnames, and how the
/// counter's qualifiers divide it.
type Sharing = (Code, String, String);

/// `PCTL6006` / `PCTL6007`: whether one Limitador counter (a limit in its route's namespace)
/// counts the requests of several gateways, or of several hostnames of one gateway.
fn sharing(m: &Model, c: &CounterStats) -> Option<Sharing> {
    // One gateway and hostname: nothing to share with.
    if c.hosts.len() < 2 {
        return None;
    }
    let vars: Vec<&str> = c.variables.iter().map(|v| variable(v).trim()).collect();
    let by_host = vars.contains(&"request.host");
    let others: Vec<&str> = vars
        .iter()
        .copied()
        .filter(|v| *v != "request.host")
        .collect();
    // The (gateway, hostname) pairs that share a counter value.
    let mut hosts: Vec<(usize, &str)> = c.hosts.iter().copied().collect();
    hosts.sort_unstable();
    let mut shared: BTreeMap<usize, BTreeSet<&str>> = BTreeMap::new();
    if by_host {
        for (g1, h1) in &hosts {
            for (g2, h2) in &hosts {
                if g1 != g2 && overlap(h1, h2) {
                    shared.entry(*g1).or_default().insert(h1);
                    shared.entry(*g2).or_default().insert(h2);
                }
            }
        }
    } else {
        for (g, h) in &hosts {
            shared.entry(*g).or_default().insert(h);
        }
    }
    let hostnames: BTreeSet<&str> = shared.values().flatten().copied().collect();
    let (code, whose) = if shared.len() >= 2 {
        let gws: Vec<String> = shared
            .iter()
            .map(|(g, hs)| {
                let hs: Vec<&str> = hs.iter().copied().collect();
                format!("{} ({})", m.gateways[*g].meta.key(), hs.join(", "))
            })
            .collect();
        (
            Code::CounterSharedByGateways,
            format!("Gateways {}", gws.join(" and ")),
        )
    } else if !by_host && hostnames.len() >= 2 {
        let hs: Vec<&str> = hostnames.iter().copied().collect();
        (
            Code::CounterSharedByHostnames,
            format!("hostnames {}", hs.join(", ")),
        )
    } else {
        return None;
    };
    let mut per = String::new();
    if by_host {
        per.push_str(" for each hostname");
    }
    if !others.is_empty() {
        per.push_str(&format!(" per value of {}", others.join(", ")));
    }
    Some((code, whose, per))
}

/// The shared counters of one route and policy, by who shares them: each limit's name, rates and
/// the span of its first rate.
type Shared = BTreeMap<(usize, usize, Sharing), Vec<(String, String, Span)>>;

/// The findings of [`sharing`], one per route, policy and sharing: the limits of a policy on a
/// route are usually shared alike.
fn shared(m: &Model, w: &Walked, out: &mut Diagnostics) {
    // Each counter's sharing read on every core (a large estate has tens of thousands), grouped
    // here, and each group's finding written on every core, in the groups' order.
    let counters: Vec<(&(usize, usize), &CounterStats)> = w.counters.iter().collect();
    let items = crate::par::map(&counters, 4096, |&(&(route, limit), c)| {
        let how = sharing(m, c)?;
        let l = &w.names[limit];
        let policy = &m.policies[l.policy];
        let span = limit_of(m, l.policy, &l.name)
            .and_then(|x| x.rates.first())
            .map_or(policy.meta.origin.name, |r| r.span);
        let rates = c
            .rates
            .iter()
            .map(|(max, s)| format!("{max} per {s}s"))
            .collect::<Vec<_>>()
            .join(", ");
        Some(((route, l.policy, how), (l.name.clone(), rates, span)))
    });
    let mut groups: Shared = BTreeMap::new();
    for (key, limit) in items.into_iter().flatten() {
        groups.entry(key).or_default().push(limit);
    }
    let groups: Vec<_> = groups
        .into_iter()
        .map(|(key, mut limits)| {
            limits.sort();
            (key, limits)
        })
        .collect();
    let findings = crate::par::map(&groups, 1024, |((route, p, (code, whose, per)), limits)| {
        let policy = &m.policies[*p];
        let r = &m.routes[*route];
        let key = r.meta.key();
        let on = format!("{} {}", r.spec.kind.kind(), key);
        let msg = match limits.as_slice() {
            [(name, rates, _)] => format!(
                "limit `{name}` of {} on {on}: one Limitador counter (namespace `{key}`) counts the requests of {whose}, which share its {rates}{per} rather than each getting its own",
                policy.display(),
            ),
            _ => format!(
                "limits {} of {} on {on}: each is one Limitador counter (namespace `{key}`) for the requests of {whose}, which share its allowance{per} rather than each getting its own",
                limits
                    .iter()
                    .map(|(n, rates, _)| format!("`{n}` ({rates})"))
                    .collect::<Vec<_>>()
                    .join(", "),
                policy.display(),
            ),
        };
        let help = if *code == Code::CounterSharedByGateways {
            "Limitador's namespace is the route: to give each Gateway its own allowance, attach a separate route to each"
        } else {
            "to give each hostname its own allowance, add `request.host` to the limits' counters"
        };
        let mut d = Diagnostic::new(*code, msg)
            .object(policy.display())
            .at(limits[0].2, "one counter for all of them");
        for (_, _, span) in &limits[1..] {
            d = d.also(*span, "another counter for all of them");
        }
        d.also(
            r.meta.origin.name,
            "the route whose namespace the counters are in",
        )
        .help(help)
    });
    for d in findings {
        out.push(d);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostnames_overlap_when_equal_or_covered_by_a_wildcard() {
        assert!(overlap("a.example.com", "a.example.com"));
        assert!(overlap("*.example.com", "a.example.com"));
        assert!(overlap("a.example.com", "*.example.com"));
        assert!(!overlap("*.example.com", "example.com"));
        assert!(!overlap("a.example.com", "b.example.com"));
        assert!(overlap("*", "b.example.com"));
    }

    #[test]
    fn variables_are_read_back_from_descriptors() {
        assert_eq!(variable("descriptors[0][\"request.host\"]"), "request.host");
        assert_eq!(variable("other"), "other");
    }
}
