//! Which Gateway, listener, HTTPRoute and rule take a request, by the Gateway API's rules
//! (gateway-api v1.2.1 `apis/v1/gateway_types.go` listener hostnames, `apis/v1/httproute_types.go`
//! `hostnames` and `matches` precedence):
//!
//! - listeners on the request's port whose protocol fits the scheme (HTTP for http, HTTPS for
//!   https) and whose hostname matches the host, the most specific first (exact, then the longest
//!   wildcard, then none);
//! - among the routes attached to that listener (the topology's paths), those with a hostname that
//!   matches the host (a route without hostnames takes the listener's), the largest number of
//!   characters in a matching non-wildcard hostname, then in a matching hostname;
//! - then, across their rules' matches: an Exact path, then the longest PathPrefix, then a method
//!   match, then the most header matches, then the most query parameter matches; then the oldest
//!   route (creationTimestamp), then `namespace/name`, then the first rule and match in list order.
//!
//! RegularExpression path matches rank after prefixes (their precedence is implementation
//! specific).
//!
//! GRPCRoutes (gateway-api v1.2.1 `apis/v1/grpcroute_types.go`, `GRPCRouteRule.Matches`): a match's
//! `method` compares the request's `/service/method` path (one of `service` and `method` may be
//! left out, matching any; `Exact` or `RegularExpression`), its headers as HTTPRoute's; among
//! matching rules the most characters in a matching non-wildcard hostname, then hostname, then
//! service, then method, then the most header matches win, then the oldest route, then
//! `namespace/name`, then the first rule and match. The two kinds are never merged: a gRPC request
//! (`content-type: application/grpc…`) is routed by the GRPCRoutes of the listener when one
//! matches, else by its HTTPRoutes; any other request the other way round.

use super::request::Request;
use crate::model::{HttpMatch, PathMatchType, RuleMatches};
use crate::topology::{Path, Topology};
use serde::Serialize;

/// Where the request goes.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Routing {
    /// `namespace/name` of the Gateway.
    pub gateway: String,
    pub listener: String,
    pub listener_port: i64,
    pub listener_protocol: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub listener_hostname: Option<String>,
    /// `namespace/name` of the route and the rule's section name; `None`: no rule matches (404).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub route: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// The index of the path in `Topology::path_list` whose rule matched.
    #[serde(skip)]
    pub path: Option<usize>,
}

/// Whether hostname pattern `pattern` (exact or `*.suffix`) matches host `host`.
pub(super) fn host_matches(pattern: &str, host: &str) -> bool {
    match pattern.strip_prefix("*.") {
        Some(suffix) => host.len() > suffix.len() + 1 && host.ends_with(&format!(".{suffix}")),
        None => pattern.eq_ignore_ascii_case(host),
    }
}

/// The listener's specificity for a matching host: exact > longer wildcard > no hostname.
fn listener_rank(hostname: Option<&str>) -> (u8, usize) {
    match hostname {
        Some(h) if !h.starts_with('*') => (2, h.len()),
        Some(h) => (1, h.len()),
        None => (0, 0),
    }
}

/// Candidate gateways for a request: indices into `model.gateways` that have a listener for it,
/// in model order.
pub(super) fn candidate_gateways(t: &Topology<'_>, req: &Request) -> Vec<usize> {
    (0..t.model.gateways.len())
        .filter(|&g| best_listener(t, g, req).is_some())
        .collect()
}

fn protocol_fits(protocol: &str, scheme: &str) -> bool {
    match scheme {
        "https" => protocol.eq_ignore_ascii_case("HTTPS"),
        _ => protocol.eq_ignore_ascii_case("HTTP"),
    }
}

fn best_listener(t: &Topology<'_>, g: usize, req: &Request) -> Option<usize> {
    let gw = &t.model.gateways[g];
    gw.spec
        .listeners
        .iter()
        .enumerate()
        .filter(|(_, l)| l.port == i64::from(req.port) && protocol_fits(&l.protocol, &req.scheme))
        .filter(|(_, l)| {
            l.hostname
                .as_ref()
                .is_none_or(|h| host_matches(&h.value, &req.host))
        })
        .max_by(|(ia, a), (ib, b)| {
            listener_rank(a.hostname.as_ref().map(|h| h.value.as_str()))
                .cmp(&listener_rank(
                    b.hostname.as_ref().map(|h| h.value.as_str()),
                ))
                .then(ib.cmp(ia))
        })
        .map(|(i, _)| i)
}

/// The precedence key of a match that fits the request (greater wins).
fn match_rank(m: &HttpMatch) -> (u8, usize, bool, usize, usize) {
    let (kind, len) = match m.path.kind {
        PathMatchType::Exact => (2, m.path.value.len()),
        PathMatchType::PathPrefix => (1, m.path.value.len()),
        PathMatchType::RegularExpression => (0, 0),
    };
    (
        kind,
        len,
        m.method.is_some(),
        m.headers.len(),
        m.query_params.len(),
    )
}

/// Whether one HTTPRouteMatch fits the request.
pub(super) fn http_match_fits(m: &HttpMatch, req: &Request) -> bool {
    let path_ok = match m.path.kind {
        PathMatchType::Exact => req.path == m.path.value,
        PathMatchType::PathPrefix => prefix_fits(&m.path.value, &req.path),
        PathMatchType::RegularExpression => regex_full(&m.path.value, &req.path),
    };
    let method_ok = m
        .method
        .as_ref()
        .is_none_or(|x| x.eq_ignore_ascii_case(&req.method));
    let headers_ok = m.headers.iter().all(|h| {
        let v = req
            .headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(&h.name))
            .map(|(_, v)| v.as_str());
        match (h.kind.as_str(), v) {
            (_, None) => false,
            ("RegularExpression", Some(v)) => regex_full(&h.value, v),
            (_, Some(v)) => v == h.value,
        }
    });
    let params = req.query_params();
    let query_ok = m.query_params.iter().all(|q| {
        let v = params.iter().find(|(n, _)| *n == q.name).map(|(_, v)| *v);
        match (q.kind.as_str(), v) {
            (_, None) => false,
            ("RegularExpression", Some(v)) => regex_full(&q.value, v),
            (_, Some(v)) => v == q.value,
        }
    });
    path_ok && method_ok && headers_ok && query_ok
}

/// Gateway API PathPrefix: element-wise prefix, a trailing `/` ignored.
fn prefix_fits(prefix: &str, path: &str) -> bool {
    let p = prefix.trim_end_matches('/');
    if p.is_empty() {
        return true;
    }
    path == p || path.starts_with(&format!("{p}/"))
}

fn regex_full(pattern: &str, s: &str) -> bool {
    regex::Regex::new(&format!("^(?:{pattern})$")).is_ok_and(|r| r.is_match(s))
}

/// Route hostname precedence for `host`: characters of a matching exact hostname, then of a
/// matching hostname. `None`: the route does not take the host.
fn route_host_rank(t: &Topology<'_>, p: &Path, host: &str) -> Option<(usize, usize)> {
    let route = &t.model.routes[p.route];
    let listener = &t.model.gateways[p.gateway].spec.listeners[p.listener];
    let names: Vec<&str> = if route.spec.hostnames.is_empty() {
        listener.hostname.iter().map(|h| h.value.as_str()).collect()
    } else {
        route
            .spec
            .hostnames
            .iter()
            .map(|h| h.value.as_str())
            .filter(|h| {
                listener.hostname.as_ref().is_none_or(|l| {
                    host_matches(&l.value, host) && (host_matches(h, host) || *h == l.value)
                })
            })
            .collect()
    };
    if names.is_empty() {
        // Neither the route nor the listener names a host: every host.
        return route.spec.hostnames.is_empty().then_some((0, 0));
    }
    let matching: Vec<&str> = names
        .into_iter()
        .filter(|h| host_matches(h, host))
        .collect();
    if matching.is_empty() {
        return None;
    }
    let exact = matching
        .iter()
        .filter(|h| !h.starts_with('*'))
        .map(|h| h.len())
        .max()
        .unwrap_or(0);
    let any = matching.iter().map(|h| h.len()).max().unwrap_or(0);
    Some((exact, any))
}

/// The paths of each (gateway, listener), in path order: a request looks only at its listener's.
#[derive(Default)]
pub(super) struct ListenerPaths(std::collections::HashMap<(usize, usize), Vec<usize>>);

impl ListenerPaths {
    pub(super) fn new(t: &Topology<'_>) -> Self {
        let mut m: std::collections::HashMap<(usize, usize), Vec<usize>> = Default::default();
        for (i, p) in t.path_list().iter().enumerate() {
            m.entry((p.gateway, p.listener)).or_default().push(i);
        }
        ListenerPaths(m)
    }

    fn of(&self, g: usize, l: usize) -> &[usize] {
        self.0.get(&(g, l)).map_or(&[], Vec::as_slice)
    }
}

/// Route the request through gateway `g` (an index into `model.gateways`); `paths` indexes the
/// topology's paths by listener.
pub(super) fn route(
    t: &Topology<'_>,
    paths: &ListenerPaths,
    g: usize,
    req: &Request,
) -> Option<Routing> {
    let l = best_listener(t, g, req)?;
    let gw = &t.model.gateways[g];
    let listener = &gw.spec.listeners[l];
    let path = if req.is_grpc() {
        best_grpc(t, paths, g, l, req).or_else(|| best_http(t, paths, g, l, req))
    } else {
        best_http(t, paths, g, l, req).or_else(|| best_grpc(t, paths, g, l, req))
    };
    let p = path.map(|i| &t.path_list()[i]);
    Some(Routing {
        gateway: format!("{}/{}", gw.meta.namespace, gw.meta.name),
        listener: listener.name.value.clone(),
        listener_port: listener.port,
        listener_protocol: listener.protocol.clone(),
        listener_hostname: listener.hostname.as_ref().map(|h| h.value.clone()),
        route: p.map(|p| {
            let r = &t.model.routes[p.route];
            format!("{}/{}", r.meta.namespace, r.meta.name)
        }),
        rule: p.map(|p| t.rule_name(p).to_string()),
        path,
    })
}

fn tie_break(
    route: &crate::model::Obj<crate::model::Route>,
    rule: usize,
    index: usize,
) -> TieBreak {
    TieBreak {
        created: (
            route.meta.creation_timestamp.is_none(),
            route.meta.creation_timestamp.clone().unwrap_or_default(),
        ),
        key: (route.meta.namespace.clone(), route.meta.name.clone()),
        rule,
        index,
    }
}

/// Whether a header match list fits the request.
fn headers_fit(headers: &[crate::model::KeyValueMatch], req: &Request) -> bool {
    headers.iter().all(|h| {
        let v = req
            .headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(&h.name))
            .map(|(_, v)| v.as_str());
        match (h.kind.as_str(), v) {
            (_, None) => false,
            ("RegularExpression", Some(v)) => regex_full(&h.value, v),
            (_, Some(v)) => v == h.value,
        }
    })
}

/// The characters of the service and method a GRPCRoute match compares, when it fits the
/// request's `/service/method` path.
fn grpc_match_fits(m: &crate::model::GrpcMatch, req: &Request) -> Option<(usize, usize)> {
    if !headers_fit(&m.headers, req) {
        return None;
    }
    let Some(mm) = &m.method else {
        return Some((0, 0));
    };
    let (service, method) = super::request::grpc_service_method(&req.path)?;
    let fits = |want: &Option<String>, got: &str| match want {
        None => true,
        Some(w) if mm.kind == "RegularExpression" => regex_full(w, got),
        Some(w) => w == got,
    };
    (fits(&mm.service, service) && fits(&mm.method, method)).then(|| {
        (
            mm.service.as_ref().map_or(0, |_| service.len()),
            mm.method.as_ref().map_or(0, |_| method.len()),
        )
    })
}

/// The best GRPCRoute rule of listener `l` of gateway `g` for the request: a path index.
fn best_grpc(
    t: &Topology<'_>,
    paths: &ListenerPaths,
    g: usize,
    l: usize,
    req: &Request,
) -> Option<usize> {
    type Key = (
        (usize, usize),
        (usize, usize, usize),
        std::cmp::Reverse<TieBreak>,
    );
    let mut best: Option<(usize, Key)> = None;
    for &i in paths.of(g, l) {
        let p = &t.path_list()[i];
        let route = &t.model.routes[p.route];
        let RuleMatches::Grpc(matches) = &route.spec.rules[p.rule].matches else {
            continue;
        };
        let Some(host_rank) = route_host_rank(t, p, &req.host) else {
            continue;
        };
        let default = [crate::model::GrpcMatch::default()];
        let matches: &[crate::model::GrpcMatch] = if matches.is_empty() {
            &default
        } else {
            matches
        };
        for (mi, m) in matches.iter().enumerate() {
            let Some((sl, ml)) = grpc_match_fits(m, req) else {
                continue;
            };
            let key: Key = (
                host_rank,
                (sl, ml, m.headers.len()),
                std::cmp::Reverse(tie_break(route, p.rule, mi)),
            );
            if best.as_ref().is_none_or(|(_, k)| key > *k) {
                best = Some((i, key));
            }
        }
    }
    best.map(|(i, _)| i)
}

/// The best HTTPRoute rule of listener `l` of gateway `g` for the request: a path index.
fn best_http(
    t: &Topology<'_>,
    paths: &ListenerPaths,
    g: usize,
    l: usize,
    req: &Request,
) -> Option<usize> {
    let mut best: Option<(usize, Key)> = None;
    type Key = (
        (usize, usize),
        (u8, usize, bool, usize, usize),
        std::cmp::Reverse<TieBreak>,
    );
    for &i in paths.of(g, l) {
        let p = &t.path_list()[i];
        let route = &t.model.routes[p.route];
        let RuleMatches::Http(matches) = &route.spec.rules[p.rule].matches else {
            continue;
        };
        let Some(host_rank) = route_host_rank(t, p, &req.host) else {
            continue;
        };
        let default = [HttpMatch::default()];
        let matches: &[HttpMatch] = if matches.is_empty() {
            &default
        } else {
            matches
        };
        for (mi, m) in matches.iter().enumerate() {
            if !http_match_fits(m, req) {
                continue;
            }
            let tie = TieBreak {
                created: (
                    route.meta.creation_timestamp.is_none(),
                    route.meta.creation_timestamp.clone().unwrap_or_default(),
                ),
                key: (route.meta.namespace.clone(), route.meta.name.clone()),
                rule: p.rule,
                index: mi,
            };
            let key: Key = (host_rank, match_rank(m), std::cmp::Reverse(tie));
            if best.as_ref().is_none_or(|(_, k)| key > *k) {
                best = Some((i, key));
            }
        }
    }
    best.map(|(i, _)| i)
}

/// Older first: a route with a creationTimestamp before one without, then `namespace/name`, then
/// rule and match order (smaller wins, hence `Reverse` in the key).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct TieBreak {
    created: (bool, String),
    key: (String, String),
    rule: usize,
    index: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostnames_match_like_gateway_api() {
        assert!(host_matches("*.example.com", "a.example.com"));
        assert!(host_matches("*.example.com", "a.b.example.com"));
        assert!(!host_matches("*.example.com", "example.com"));
        assert!(host_matches("api.example.com", "API.example.com"));
        assert!(!host_matches("api.example.com", "x.api.example.com"));
    }

    #[test]
    fn prefixes_match_path_elements() {
        assert!(prefix_fits("/toys", "/toys"));
        assert!(prefix_fits("/toys", "/toys/1"));
        assert!(prefix_fits("/toys/", "/toys/1"));
        assert!(!prefix_fits("/toys", "/toysx"));
        assert!(prefix_fits("/", "/anything"));
    }
}
