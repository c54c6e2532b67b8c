//! Audit: what the data plane leaves exposed, what never takes effect, and what a change takes
//! away (`policyctl audit`, `docs/guide/audit.md`).
//!
//! Reads one [`Analysis`]: the generated objects are the source of truth, so that `audit` agrees
//! with `compute` and `simulate`. For every path (gateway → listener → route rule) and each of its
//! hostnames, the action sets of the gateway's wasm configuration say whether authentication and
//! rate limiting run on its requests, and under which predicates (`coverage`); the same walk
//! gathers what each limit and AuthPolicy rule does on every route rule it reaches, from which
//! `findings` draws the `PCTL6xxx` findings: limits that never decide or never apply, counters
//! without an identity or shared by several gateways or hostnames, AuthPolicy conditions that
//! never hold. Predicates are reasoned about by [`logic`], which proves or says nothing.
//!
//! Owns the analysis, not its text (`render::audit`) nor the exit code (the CLI). Must not read
//! files or print.

pub(crate) mod logic;

mod change;
mod findings;
mod walk;

pub use change::{Change, Delta, compare, route_rules};

use crate::analysis::Analysis;
use crate::diag::{Code, Diagnostics};
use crate::source::SourceMap;
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use std::sync::Arc;

/// What `audit` is asked to require.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Every path must be authenticated: a path that is not is a `PCTL6001` finding.
    pub require_auth: bool,
    /// Every path must be rate limited: a path that is not is a `PCTL6002` finding.
    pub require_rate_limit: bool,
}

/// How far one kind of protection reaches the requests of a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// Every request of the row.
    Full,
    /// Only the requests that meet `when`, or not those of some matches.
    Partial,
    /// Authentication only: the AuthConfig lets a request without credentials through.
    Anonymous,
    /// No request of the row.
    None,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Full => "full",
            State::Partial => "partial",
            State::Anonymous => "anonymous",
            State::None => "none",
        }
    }
}

/// One kind of protection on one row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Coverage {
    pub state: State,
    /// The policies whose actions run (`Kind namespace/name`), even when their `when` restricts them.
    #[serde(skip)]
    pub policies: Vec<String>,
    /// `partial`: the alternatives under which it runs, each a conjunction of predicates.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub when: Vec<String>,
    /// Rate limiting: the kinds of policy that limit (RateLimitPolicy, TokenRateLimitPolicy).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kinds: Vec<&'static str>,
    /// `partial`: the matches of the rule (as [`Row::matches`] writes them) it does not run on.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_on: Vec<String>,
    /// Why not (`none`, `anonymous`), or a note on what is in effect.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Coverage {
    fn none(reason: impl Into<String>) -> Self {
        Coverage {
            state: State::None,
            policies: vec![],
            when: vec![],
            kinds: vec![],
            not_on: vec![],
            reason: Some(reason.into()),
        }
    }
}

/// One path and one of its hostnames (or the path alone when it has none: an invalid path).
#[derive(Clone, Debug)]
pub struct Row {
    /// Index of the path in `Topology::path_list`.
    pub path: usize,
    /// `namespace/name`.
    pub gateway: Arc<str>,
    pub listener: Arc<str>,
    /// `None`: the path has no hostname (no route hostname within the listener's).
    pub hostname: Option<Arc<str>>,
    /// `HTTPRoute` or `GRPCRoute`.
    pub route_kind: &'static str,
    /// `namespace/name`.
    pub route: Arc<str>,
    /// The rule's section name (`rule-N`, or its name on 1.5).
    pub rule: Arc<str>,
    /// The rule's matches, compactly: `GET /toys*` (a prefix), `/admin` (exact), `~^/re$`
    /// (a regular expression), `[header=value]`, `?param=value`.
    pub matches: Arc<[String]>,
    pub auth: Arc<Coverage>,
    pub rate_limit: Arc<Coverage>,
}

/// `{"gateway", "listener", "hostname", "route", "rule", "auth": [policies], "rateLimit":
/// [policies], ...}`: the names of the contract first, then the details.
impl Serialize for Row {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("gateway", &*self.gateway)?;
        m.serialize_entry("listener", &*self.listener)?;
        m.serialize_entry("hostname", &self.hostname.as_deref())?;
        m.serialize_entry("route", &*self.route)?;
        m.serialize_entry("rule", &*self.rule)?;
        m.serialize_entry("auth", &self.auth.policies)?;
        m.serialize_entry("rateLimit", &self.rate_limit.policies)?;
        m.serialize_entry("routeKind", self.route_kind)?;
        m.serialize_entry("matches", &*self.matches)?;
        m.serialize_entry("authCoverage", &*self.auth)?;
        m.serialize_entry("rateLimitCoverage", &*self.rate_limit)?;
        m.end()
    }
}

/// The audit of one estate.
#[derive(Clone, Debug, Default)]
pub struct Audit {
    /// In path order, then hostname order.
    pub coverage: Vec<Row>,
    /// The `PCTL6xxx` findings, and the dead configuration the analysis already reports
    /// (`PCTL3001` overridden, `PCTL3002` partially enforced, `PCTL3003` not in any path), sorted.
    pub findings: Diagnostics,
}

/// The analysis's findings about configuration that takes no effect, which `audit` lists with
/// its own rather than finding again.
pub const DEAD_CONFIGURATION: [Code; 3] =
    [Code::Overridden, Code::PartiallyEnforced, Code::NotInPath];

/// Audit an analysed estate (`sources`: its input files, where findings about AuthPolicy rules
/// look for their fields). The findings of [`DEAD_CONFIGURATION`] are taken from
/// `analysis.diagnostics`.
pub fn audit(analysis: &Analysis<'_>, sources: &SourceMap, opts: &Options) -> Audit {
    let walked = walk::walk(analysis);
    let mut findings = findings::findings(analysis, sources, &walked, opts);
    for d in &analysis.diagnostics {
        if DEAD_CONFIGURATION.contains(&d.code) {
            findings.push(d.clone());
        }
    }
    findings.sort();
    Audit {
        coverage: walked.rows,
        findings,
    }
}
