//! What a change does to coverage and findings: the audits of two estates (a pull request's base
//! and head) compared row by row (gateway, listener, hostname, route rule) and finding by finding.

use super::{Audit, Row, State};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// One row whose protection changed (or a new row that is not fully protected).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Delta {
    /// `Kind namespace/name`.
    pub route: String,
    pub rule: String,
    pub gateway: String,
    pub listener: String,
    pub hostname: Option<String>,
    /// `None`: the row is new.
    pub before: Option<State>,
    /// `None`: the row is gone.
    pub after: Option<State>,
    /// What the head says of it (its reason or conditions), when it is not fully protected.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

/// The change from base to head.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    /// Rows whose authentication is weaker than on the base, or new and not fully authenticated.
    pub auth_weakened: Vec<Delta>,
    /// Rows whose authentication is stronger than on the base.
    pub auth_strengthened: Vec<Delta>,
    pub rate_limit_weakened: Vec<Delta>,
    pub rate_limit_strengthened: Vec<Delta>,
    /// Findings only the head has, one line each (`CODE object: message`).
    pub findings_added: Vec<String>,
    /// Findings only the base has.
    pub findings_resolved: Vec<String>,
}

impl Change {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        *self == Change::default()
    }
}

/// How much a state protects: lower is better.
fn rank(s: State) -> u8 {
    match s {
        State::Full => 0,
        State::Partial => 1,
        State::Anonymous => 2,
        State::None => 3,
    }
}

type Key<'a> = (&'a str, &'a str, &'a str, &'a str, &'a str, Option<&'a str>);

fn key(r: &Row) -> Key<'_> {
    (
        r.route_kind,
        &r.route,
        &r.rule,
        &r.gateway,
        &r.listener,
        r.hostname.as_deref(),
    )
}

fn detail(c: &super::Coverage) -> String {
    match c.state {
        State::Full => String::new(),
        State::Partial if !c.when.is_empty() => format!("only when `{}`", c.when.join("` or `")),
        State::Partial => format!("not on match {}", c.not_on.join(", ")),
        _ => c.reason.clone().unwrap_or_default(),
    }
}

fn line(d: &crate::diag::Diagnostic) -> String {
    match &d.object {
        Some(o) => format!("{} {o}: {}", d.code.as_str(), d.message),
        None => format!("{}: {}", d.code.as_str(), d.message),
    }
}

/// Compare the audits of the base and the head.
pub fn compare(base: &Audit, head: &Audit) -> Change {
    let before: BTreeMap<Key<'_>, &Row> = base.coverage.iter().map(|r| (key(r), r)).collect();
    let after: BTreeMap<Key<'_>, &Row> = head.coverage.iter().map(|r| (key(r), r)).collect();
    let mut c = Change::default();
    for (k, h) in &after {
        let b = before.get(k);
        for (auth, weakened, strengthened) in [
            (true, &mut c.auth_weakened, &mut c.auth_strengthened),
            (
                false,
                &mut c.rate_limit_weakened,
                &mut c.rate_limit_strengthened,
            ),
        ] {
            let pick = |r: &Row| {
                if auth {
                    r.auth.clone()
                } else {
                    r.rate_limit.clone()
                }
            };
            let now = pick(h);
            let was = b.map(|r| pick(r).state);
            let delta = Delta {
                route: format!("{} {}", h.route_kind, h.route),
                rule: h.rule.to_string(),
                gateway: h.gateway.to_string(),
                listener: h.listener.to_string(),
                hostname: h.hostname.as_deref().map(str::to_string),
                before: was,
                after: Some(now.state),
                detail: detail(&now),
            };
            match was {
                None if now.state != State::Full => weakened.push(delta),
                Some(w) if rank(now.state) > rank(w) => weakened.push(delta),
                Some(w) if rank(now.state) < rank(w) => strengthened.push(delta),
                _ => {}
            }
        }
    }
    let old: BTreeSet<String> = base.findings.iter().map(line).collect();
    let new: BTreeSet<String> = head.findings.iter().map(line).collect();
    c.findings_added = new.difference(&old).cloned().collect();
    c.findings_resolved = old.difference(&new).cloned().collect();
    c
}

/// The route rules (`Kind namespace/name rule`) of some deltas, each once, in order.
pub fn route_rules(ds: &[Delta]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    ds.iter()
        .map(|d| format!("{} {}", d.route, d.rule))
        .filter(|r| seen.insert(r.clone()))
        .collect()
}
