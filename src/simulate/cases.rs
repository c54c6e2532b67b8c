//! Declarative test cases for `policyctl test`: a YAML file with a `cases` list; each case is a
//! request (or `count` of them, `interval` apart), an optional identity, and expectations about the
//! simulated verdicts. Every case runs on fresh Limitador counters.
//!
//! ```yaml
//! cases:
//! - name: alice may create 5 toys every 10 seconds
//!   method: POST                       # default GET
//!   url: http://api.toystore.com/toys
//!   headers: ["X-Tenant: acme"]        # curl-style, optional
//!   identity: {userid: alice}          # auth.identity, optional
//!   count: 6                           # default 1
//!   interval: 1s                       # default 0
//!   expect:
//!     limitedAfter: 5                  # the first 5 allowed, every later one 429
//!     limit: alice-limit               # the limit that refuses (as written in the policy)
//!     policy: toystore/toystore        # a policy behind the deciding action (namespace/name)
//! ```
//!
//! Other expectations: `allowed: true|false` (every request), `deniedByAuth: true` (every request
//! refused with 401), `status: N` (every request's status), `grpcStatus: NAME` (every request's gRPC
//! status: `OK`, `UNAUTHENTICATED`, `UNAVAILABLE`, …), `headers: {Name: value}` (headers of
//! Authorino's denial, as `curl -i` shows them).
//!
//! Other request keys: `assume` (`{authorization: {NAME: true|false}, metadata: {NAME: {...}}}`, as
//! `--assume`), `source`, `tokens` and `responseBody` (as `--source`, `--tokens`,
//! `--response-body`). A request whose verdict is undecided is checked against nothing: a case with
//! one and no failure is reported as undecided, with what would decide it.

use super::request::{self, Request};
use super::{Simulation, Timed, Trace};
use serde_json::Value;
use std::time::Duration;

/// One case as read.
#[derive(Clone, Debug)]
pub struct Case {
    pub name: String,
    pub requests: Vec<Timed>,
    pub gateway: Option<String>,
    pub expect: Expect,
}

#[derive(Clone, Debug, Default)]
pub struct Expect {
    pub allowed: Option<bool>,
    pub limited_after: Option<usize>,
    pub limit: Option<String>,
    pub denied_by_auth: Option<bool>,
    pub policy: Option<String>,
    pub status: Option<u16>,
    /// The gRPC status name a refused gRPC request gets (`UNAUTHENTICATED`, `UNAVAILABLE`, …).
    pub grpc_status: Option<String>,
    /// Headers of Authorino's denial (`WWW-Authenticate`, `X-Ext-Auth-Reason`, a deny-with's),
    /// names compared without case.
    pub headers: Vec<(String, String)>,
}

/// The outcome of one case.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub name: String,
    /// Empty when the case passed (or was undecided).
    pub failures: Vec<String>,
    /// The requests whose verdict is undecided, each with what would decide it: a case with one and
    /// no failure neither passes nor fails.
    pub undecided: Vec<String>,
}

const CASE_KEYS: [&str; 13] = [
    "name",
    "method",
    "url",
    "headers",
    "identity",
    "assume",
    "source",
    "tokens",
    "responseBody",
    "count",
    "interval",
    "gateway",
    "expect",
];
const EXPECT_KEYS: [&str; 8] = [
    "headers",
    "allowed",
    "limitedAfter",
    "limit",
    "deniedByAuth",
    "policy",
    "status",
    "grpcStatus",
];

fn str_of<'a>(v: &'a Value, key: &str, at: &str) -> Result<Option<&'a str>, String> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(format!("{at}: `{key}` is not a string")),
    }
}

fn num_of(v: &Value, key: &str, at: &str) -> Result<Option<u64>, String> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(x) => x
            .as_u64()
            .map(Some)
            .ok_or_else(|| format!("{at}: `{key}` is not a whole number")),
    }
}

fn bool_of(v: &Value, key: &str, at: &str) -> Result<Option<bool>, String> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(format!("{at}: `{key}` is not true or false")),
    }
}

fn unknown_keys(v: &Value, known: &[&str], at: &str) -> Result<(), String> {
    if let Some(m) = v.as_object()
        && let Some(k) = m.keys().find(|k| !known.contains(&k.as_str()))
    {
        return Err(format!(
            "{at}: unknown key `{k}` (expected one of {})",
            known.join(", ")
        ));
    }
    Ok(())
}

/// Read a case file's text. `Err` says what is wrong, and in which case.
pub fn parse(text: &str) -> Result<Vec<Case>, String> {
    let doc: Value = serde_saphyr::from_str(text).map_err(|e| format!("not YAML: {e}"))?;
    let list = doc
        .get("cases")
        .and_then(Value::as_array)
        .ok_or("expected a mapping with a `cases` list")?;
    let mut out = Vec::new();
    for (i, c) in list.iter().enumerate() {
        let at = format!("cases[{i}]");
        if !c.is_object() {
            return Err(format!("{at}: a case is a mapping"));
        }
        unknown_keys(c, &CASE_KEYS, &at)?;
        let name = str_of(c, "name", &at)?
            .map(str::to_owned)
            .unwrap_or_else(|| format!("case {}", i + 1));
        let at = format!("{at} ({name})");
        let url = str_of(c, "url", &at)?.ok_or(format!("{at}: `url` is required"))?;
        let method = str_of(c, "method", &at)?.unwrap_or("GET");
        let headers: Vec<String> = match c.get("headers") {
            None | Some(Value::Null) => vec![],
            Some(Value::Array(a)) => a
                .iter()
                .map(|h| {
                    h.as_str()
                        .map(str::to_owned)
                        .ok_or(format!("{at}: `headers` holds 'Name: value' strings"))
                })
                .collect::<Result<_, _>>()?,
            Some(_) => {
                return Err(format!(
                    "{at}: `headers` is a list of 'Name: value' strings"
                ));
            }
        };
        let mut req = Request::parse(method, url, &headers).map_err(|e| format!("{at}: {e}"))?;
        match c.get("identity") {
            None | Some(Value::Null) => {}
            Some(id @ Value::Object(_)) => req.identity = Some(id.clone()),
            Some(_) => return Err(format!("{at}: `identity` is a mapping")),
        }
        if let Some(a) = c.get("assume").filter(|v| !v.is_null()) {
            let stated = super::schedule::assume(a).map_err(|m| format!("{at}: {m}"))?;
            req.assume.extend(stated);
        }
        if let Some(src) = str_of(c, "source", &at)? {
            req.source = Some(request::parse_source(src).map_err(|e| format!("{at}: {e}"))?);
        }
        req.tokens = num_of(c, "tokens", &at)?;
        match c.get("responseBody") {
            None | Some(Value::Null) => {}
            Some(_) if req.tokens.is_some() => {
                return Err(format!(
                    "{at}: `tokens` and `responseBody` both give the token usage: keep one"
                ));
            }
            Some(b) => req.response_body = Some(b.clone()),
        }
        let count = num_of(c, "count", &at)?.unwrap_or(1);
        if count == 0 || count > 1_000_000 {
            return Err(format!("{at}: `count` is 1 to 1000000"));
        }
        let interval = match str_of(c, "interval", &at)? {
            Some(s) => request::parse_duration(s).map_err(|e| format!("{at}: interval {e}"))?,
            None => Duration::ZERO,
        };
        let e = c.get("expect").cloned().unwrap_or(Value::Null);
        if !e.is_object() {
            return Err(format!("{at}: `expect` is required (a mapping)"));
        }
        unknown_keys(&e, &EXPECT_KEYS, &format!("{at} expect"))?;
        let expect = Expect {
            allowed: bool_of(&e, "allowed", &at)?,
            limited_after: num_of(&e, "limitedAfter", &at)?.map(|n| n as usize),
            limit: str_of(&e, "limit", &at)?.map(str::to_owned),
            denied_by_auth: bool_of(&e, "deniedByAuth", &at)?,
            policy: str_of(&e, "policy", &at)?.map(str::to_owned),
            status: num_of(&e, "status", &at)?.map(|n| n as u16),
            grpc_status: str_of(&e, "grpcStatus", &at)?.map(str::to_ascii_uppercase),
            headers: match e.get("headers") {
                None | Some(Value::Null) => vec![],
                Some(Value::Object(m)) => m
                    .iter()
                    .map(|(k, v)| match v {
                        Value::String(v) => Ok((k.clone(), v.clone())),
                        _ => Err(format!("{at}: `expect.headers` maps names to strings")),
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err(format!("{at}: `expect.headers` is a mapping")),
            },
        };
        out.push(Case {
            name,
            requests: (0..count)
                .map(|k| Timed {
                    at: interval.saturating_mul(k as u32),
                    request: req.clone(),
                })
                .collect(),
            gateway: str_of(c, "gateway", &at)?.map(str::to_owned),
            expect,
        });
    }
    Ok(out)
}

fn describe(i: usize, t: &Trace) -> String {
    format!(
        "request {} ({} {}) got {}: {}",
        i + 1,
        t.method,
        t.url,
        t.status.map(|s| s.to_string()).unwrap_or("-".into()),
        t.decided_by
    )
}

/// Check the traces of a case against its expectations. An undecided request is checked against
/// nothing (it neither passes nor fails); what the whole sequence should show is checked only when
/// every request was decided.
pub fn check(case: &Case, traces: &[Trace]) -> Vec<String> {
    let e = &case.expect;
    let mut f = Vec::new();
    let all_decided = traces.iter().all(|t| t.undecided.is_none());
    for (i, t) in traces.iter().enumerate() {
        if t.undecided.is_some() {
            continue;
        }
        if let Some(a) = e.allowed
            && t.allowed != a
        {
            f.push(format!(
                "expected {}, {}",
                if a { "allowed" } else { "refused" },
                describe(i, t)
            ));
        }
        if let Some(n) = e.limited_after {
            let want_limited = i >= n;
            let limited = t.status == Some(429);
            if want_limited != limited || (!want_limited && !t.allowed) {
                f.push(format!(
                    "expected {} (limited after {n}), {}",
                    if want_limited { "429" } else { "allowed" },
                    describe(i, t)
                ));
            }
        }
        if let (Some(l), Some(got)) = (&e.limit, &t.limit)
            && l != got
        {
            f.push(format!("expected limit {l:?}, {}", describe(i, t)));
        }
        if e.denied_by_auth == Some(true) && t.status != Some(401) {
            f.push(format!("expected 401 from auth, {}", describe(i, t)));
        }
        if let Some(s) = e.status
            && t.status != Some(s)
        {
            f.push(format!("expected status {s}, {}", describe(i, t)));
        }
        if !e.headers.is_empty() {
            let got = t.denial_headers();
            for (k, v) in &e.headers {
                let have: Vec<&str> = got
                    .iter()
                    .filter(|(n, _)| n.eq_ignore_ascii_case(k))
                    .map(|(_, v)| v.as_str())
                    .collect();
                if !have.contains(&v.as_str()) {
                    f.push(format!(
                        "expected header {k}: {v}, {} (with {})",
                        describe(i, t),
                        if have.is_empty() {
                            "none".to_string()
                        } else {
                            have.join(", ")
                        }
                    ));
                }
            }
        }
        if let Some(g) = &e.grpc_status {
            let got = t.grpc_status.as_deref().unwrap_or("OK");
            if got.split(' ').next() != Some(g.as_str()) {
                f.push(format!(
                    "expected gRPC status {g}, {} (gRPC {got})",
                    describe(i, t)
                ));
            }
        }
        if let Some(p) = &e.policy {
            let decided = t
                .policies
                .iter()
                .any(|x| x.ends_with(&format!(":{p}")) || x == p);
            if !t.allowed && !decided {
                f.push(format!(
                    "expected policy {p} to decide, {} ({})",
                    describe(i, t),
                    t.policies.join(", ")
                ));
            }
        }
    }
    if !all_decided {
        return f;
    }
    if e.limit.is_some() && !traces.iter().any(|t| t.limit.is_some()) {
        f.push(format!(
            "expected limit {:?} to refuse a request, none was refused by a limit",
            e.limit.as_deref().unwrap_or("")
        ));
    }
    if e.policy.is_some() && traces.iter().all(|t| t.allowed) {
        f.push("expected a policy to decide, every request was allowed".into());
    }
    f
}

/// Run every case on fresh counters; `jwks` as `--jwks`.
pub fn run(
    topology: &crate::topology::Topology<'_>,
    objects: &[crate::generate::object::Object],
    cases: &[Case],
    jwks: &std::sync::Arc<Vec<(Option<String>, Value)>>,
) -> Result<Vec<Outcome>, String> {
    let mut out = Vec::new();
    for c in cases {
        let mut sim = Simulation::new(topology, objects)?;
        sim.gateway = c.gateway.clone();
        sim.jwks = std::sync::Arc::clone(jwks);
        let traces = sim.run(&c.requests);
        out.push(Outcome {
            name: c.name.clone(),
            failures: check(c, &traces),
            undecided: traces
                .iter()
                .enumerate()
                .filter_map(|(i, t)| {
                    t.undecided
                        .as_ref()
                        .map(|r| format!("request {} ({} {}): {r}", i + 1, t.method, t.url))
                })
                .collect(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_files_say_where() {
        assert!(
            parse("cases: [{url: 'http://x/'}]")
                .unwrap_err()
                .contains("`expect` is required")
        );
        assert!(
            parse("cases: [{url: 'http://x/', expect: {alowed: true}}]")
                .unwrap_err()
                .contains("unknown key `alowed`")
        );
        assert!(
            parse("cases: [{name: a, expect: {}}]")
                .unwrap_err()
                .contains("cases[0] (a): `url` is required")
        );
        assert!(parse("nothing: here").unwrap_err().contains("`cases`"));
        let c =
            parse("cases: [{url: 'http://x/', count: 3, interval: 2s, expect: {limitedAfter: 2}}]")
                .unwrap();
        assert_eq!(c[0].requests.len(), 3);
        assert_eq!(c[0].requests[2].at, Duration::from_secs(4));
    }
}
