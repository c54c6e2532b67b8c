//! What changes between two analysed estates (a pull request's base and head) in the policies' own
//! terms: the effective limits as their policies write them (rates, `when`, counters) and the
//! predicted status of every policy. `diff --base` shows both beside the generated objects' diff.
//!
//! Owns only the comparison; the limits come from the effective policies ([`super::effective`]) and
//! the statuses from [`super::status`].

use super::explain::{RuleContent, field_path};
use super::merge;
use super::status::{self, PolicyStatus};
use super::{PathEffective, RuleValue};
use crate::model::Block;
use crate::topology::Topology;
use std::collections::{BTreeMap, BTreeSet};

/// One side of the comparison.
#[derive(Clone, Copy)]
pub struct Side<'a, 'm> {
    pub topology: &'a Topology<'m>,
    /// Aligned with the topology's paths.
    pub effective: &'a [PathEffective],
    pub statuses: &'a [PolicyStatus],
}

/// The policy-level changes from base to head.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PolicyChanges {
    /// Effective limits only on the head side, one line each.
    pub limits_added: Vec<String>,
    /// Effective limits only on the base side.
    pub limits_removed: Vec<String>,
    /// Policies whose predicted conditions differ (new and removed policies included), one line each.
    pub statuses: Vec<String>,
}

/// A limit rule as a line: `RateLimitPolicy ns/name limits.x: 5 per 10s, when P, counters C`; a
/// top-level `when` as `RateLimitPolicy ns/name when: P && Q`.
fn limit_line(kind: &str, policy: &str, field: &str, c: &RuleContent) -> String {
    let mut parts = Vec::new();
    if !c.rates.is_empty() {
        parts.push(c.rates.join(", "));
    }
    if !c.when.is_empty() {
        parts.push(format!("when {}", c.when.join(" && ")));
    }
    if !c.counters.is_empty() {
        parts.push(format!("counters {}", c.counters.join(", ")));
    }
    format!("{kind} {policy} {field}: {}", parts.join(", "))
}

/// Every effective RateLimitPolicy / TokenRateLimitPolicy rule on a valid path, as a line.
fn effective_limits(s: Side) -> BTreeSet<String> {
    let t = s.topology;
    let m = t.model;
    let mut out = BTreeSet::new();
    for (path, pe) in t.path_list().iter().zip(s.effective) {
        if status::path_validity(t, path).is_err() {
            continue;
        }
        for e in [&pe.rate_limit, &pe.token_rate_limit].into_iter().flatten() {
            for r in e.rules.values() {
                if !matches!(r.value, RuleValue::Limit(_) | RuleValue::When(_)) {
                    continue;
                }
                let Some(p) = m.policies.get(r.source) else {
                    continue;
                };
                let block = merge::block_and_strategy(p).map_or(Block::Implicit, |(b, _)| b);
                let field = field_path(&r.key, block);
                out.insert(limit_line(
                    p.kind.kind(),
                    &p.meta.key(),
                    &field,
                    &RuleContent::of(&r.value),
                ));
            }
        }
    }
    out
}

/// `Kind namespace/name` → the predicted conditions as `(type, status, reason, message)`.
fn conditions(s: Side) -> BTreeMap<String, Vec<(String, String, String, String)>> {
    let m = s.topology.model;
    s.statuses
        .iter()
        .filter_map(|st| {
            let p = m.policies.get(st.policy)?;
            let cs = st
                .conditions()
                .into_iter()
                .map(|c| {
                    (
                        c.type_.clone(),
                        c.status.clone(),
                        c.reason.clone(),
                        c.message.clone(),
                    )
                })
                .collect();
            Some((format!("{} {}", p.kind.kind(), p.meta.key()), cs))
        })
        .collect()
}

type Conds = [(String, String, String, String)];

/// `Accepted=True, Enforced=False (Overridden)`: each condition's status, and its reason unless it
/// is the condition's own name (the success reasons `Accepted` and `Enforced`).
fn summary(cs: &Conds) -> String {
    cs.iter()
        .map(|(t, st, r, _)| {
            if r == t {
                format!("{t}={st}")
            } else {
                format!("{t}={st} ({r})")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The line of a policy whose conditions differ: per differing type, `Type: before → after`, then
/// the head's message of the first differing condition.
fn status_line(policy: &str, before: Option<&Conds>, after: Option<&Conds>) -> Option<String> {
    match (before, after) {
        (None, None) => None,
        (None, Some(a)) => Some(format!("{policy}: new, {}", summary(a))),
        (Some(_), None) => Some(format!("{policy}: removed")),
        (Some(b), Some(a)) if b == a => None,
        (Some(b), Some(a)) => {
            let find = |cs: &Conds, t: &str| cs.iter().find(|c| c.0 == t).cloned();
            let mut types: Vec<&str> = b.iter().chain(a).map(|c| c.0.as_str()).collect();
            types.dedup();
            let mut seen = BTreeSet::new();
            let mut parts = Vec::new();
            let mut message = None;
            for t in types {
                if !seen.insert(t) {
                    continue;
                }
                let (x, y) = (find(b, t), find(a, t));
                if x == y {
                    continue;
                }
                let show = |c: &Option<(String, String, String, String)>| match c {
                    None => "absent".to_string(),
                    Some((t, st, r, _)) if r == t => st.clone(),
                    Some((_, st, r, _)) => format!("{st} ({r})"),
                };
                let same_verdict =
                    matches!((&x, &y), (Some(a), Some(b)) if a.1 == b.1 && a.2 == b.2);
                if same_verdict {
                    // Only the message changed (say, partially → successfully enforced).
                    let msg = |c: &Option<(String, String, String, String)>| {
                        c.as_ref().map(|c| c.3.clone()).unwrap_or_default()
                    };
                    parts.push(format!("{t} {}: {} → {}", show(&y), msg(&x), msg(&y)));
                    continue;
                }
                parts.push(format!("{t} {} → {}", show(&x), show(&y)));
                if message.is_none() {
                    message = y.map(|c| c.3);
                }
            }
            let mut line = format!("{policy}: {}", parts.join(", "));
            if let Some(msg) = message.filter(|m| !m.is_empty()) {
                line.push_str(&format!(" — {msg}"));
            }
            Some(line)
        }
    }
}

/// Compare the two sides.
pub fn policy_changes(base: Side, head: Side) -> PolicyChanges {
    let (lb, lh) = (effective_limits(base), effective_limits(head));
    let (cb, ch) = (conditions(base), conditions(head));
    let keys: BTreeSet<&String> = cb.keys().chain(ch.keys()).collect();
    PolicyChanges {
        limits_added: lh.difference(&lb).cloned().collect(),
        limits_removed: lb.difference(&lh).cloned().collect(),
        statuses: keys
            .into_iter()
            .filter_map(|k| {
                status_line(
                    k,
                    cb.get(k).map(Vec::as_slice),
                    ch.get(k).map(Vec::as_slice),
                )
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(t: &str, st: &str, r: &str, m: &str) -> (String, String, String, String) {
        (t.into(), st.into(), r.into(), m.into())
    }

    #[test]
    fn a_policy_that_becomes_overridden_is_one_line() {
        let before = [
            c("Accepted", "True", "Accepted", "a"),
            c("Enforced", "True", "Enforced", "e"),
        ];
        let after = [
            c("Accepted", "True", "Accepted", "a"),
            c("Enforced", "False", "Overridden", "overridden by [x/y]"),
        ];
        assert_eq!(
            status_line("RateLimitPolicy ns/p", Some(&before), Some(&after)).unwrap(),
            "RateLimitPolicy ns/p: Enforced True → False (Overridden) — overridden by [x/y]"
        );
        assert_eq!(status_line("p", Some(&before), Some(&before)), None);
        let partial = [
            c("Accepted", "True", "Accepted", "a"),
            c("Enforced", "True", "Enforced", "partially"),
        ];
        assert_eq!(
            status_line("p", Some(&before), Some(&partial)).unwrap(),
            "p: Enforced True: e → partially"
        );
        assert_eq!(status_line("p", Some(&before), None).unwrap(), "p: removed");
        assert_eq!(
            status_line("p", None, Some(&after)).unwrap(),
            "p: new, Accepted=True, Enforced=False (Overridden)"
        );
    }
}
