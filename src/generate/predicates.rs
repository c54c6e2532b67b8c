//! Route matches → `routeRuleConditions.predicates` and the action-set comparator
//! (`docs/semantics/generated-objects.md`, "Action sets"). Values are interpolated raw, exactly like the operator (no escaping of `'` or `\`).

use crate::model::{GrpcMatch, GrpcMethodMatch, HttpMatch, PathMatchType};
use std::cmp::Ordering;

pub(crate) fn path_predicate(kind: PathMatchType, value: &str) -> String {
    match kind {
        PathMatchType::Exact => format!("request.url_path == '{value}'"),
        PathMatchType::PathPrefix => format!("request.url_path.startsWith('{value}')"),
        PathMatchType::RegularExpression => format!("request.url_path.matches('{value}')"),
    }
}

/// The name lowered by Go's `strings.ToLower` (kuadrant-operator v1.5.2 internal/wasm/utils.go
/// `predicateFromHeader`): the schema allows ASCII names only, but an input read without its
/// schema gets what the operator would write.
pub(crate) fn header_predicate(name: &str, value: &str) -> String {
    let name: String = name.chars().map(crate::gounicode::to_lower).collect();
    format!(
        "request.headers.exists(h, h.lowerAscii() == '{name}' && request.headers[h] == '{value}')"
    )
}

pub(crate) fn query_predicate(name: &str, value: &str) -> String {
    format!(
        "'{name}' in queryMap(request.query) ? queryMap(request.query)['{name}'] == '{value}' : false"
    )
}

/// Predicates of an HTTPRouteMatch: method, path, headers, then the first occurrence of each query
/// parameter name.
pub(crate) fn http(m: &HttpMatch) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(method) = &m.method {
        out.push(format!("request.method == '{method}'"));
    }
    out.push(path_predicate(m.path.kind, &m.path.value));
    for h in &m.headers {
        out.push(header_predicate(&h.name, &h.value));
    }
    let mut seen = foldhash::HashSet::default();
    for q in &m.query_params {
        if seen.insert(q.name.as_str()) {
            out.push(query_predicate(&q.name, &q.value));
        }
    }
    out
}

/// The predicate of a GRPCMethodMatch, when service or method is set.
pub(crate) fn grpc_method_predicate(mm: &GrpcMethodMatch) -> Option<String> {
    let svc = mm.service.as_deref().filter(|s| !s.is_empty());
    let meth = mm.method.as_deref().filter(|s| !s.is_empty());
    let regex = mm.kind == "RegularExpression";
    match (regex, svc, meth) {
        (_, None, None) => None,
        (false, Some(s), Some(m)) => Some(format!("request.url_path == '/{s}/{m}'")),
        (false, Some(s), None) => Some(format!("request.url_path.startsWith('/{s}/')")),
        (true, Some(s), Some(m)) => Some(format!("request.url_path.matches('^/{s}/{m}$')")),
        (true, Some(s), None) => Some(format!("request.url_path.matches('^/{s}/.*$')")),
        (_, None, Some(m)) => Some(format!("request.url_path.matches('^/[^/]+/{m}$')")),
    }
}

/// Predicates of a GRPCRouteMatch (1.5): the method predicate (when service or method is set), then
/// the headers.
pub(crate) fn grpc(m: &GrpcMatch) -> Vec<String> {
    let mut out = Vec::new();
    out.extend(m.method.as_ref().and_then(grpc_method_predicate));
    for h in &m.headers {
        out.push(header_predicate(&h.name, &h.value));
    }
    out
}

/// What the comparator reads of one action set (borrowed from the model and the route keys).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SortKey<'a> {
    pub hostname: &'a str,
    /// Labels of `hostname` (read by every comparison, so counted once).
    pub hostname_labels: usize,
    /// Path match type and the length of its value (the comparator reads no more); `None` for a
    /// gRPC match without a method.
    pub path: Option<(PathMatchType, usize)>,
    pub has_method: bool,
    pub headers: usize,
    pub query_params: usize,
    /// Route `creationTimestamp` (RFC 3339); `None` is Go's zero time.
    pub created: Option<&'a str>,
    /// `<routeNs>/<routeName>`.
    pub route: &'a str,
}

impl<'a> SortKey<'a> {
    /// The same key for another hostname.
    pub(crate) fn with_hostname(self, hostname: &'a str) -> Self {
        SortKey {
            hostname,
            hostname_labels: super::hostnames::labels(hostname),
            ..self
        }
    }

    pub(crate) fn from_http(
        hostname: &'a str,
        m: &HttpMatch,
        created: Option<&'a str>,
        route: &'a str,
    ) -> Self {
        SortKey {
            hostname,
            hostname_labels: super::hostnames::labels(hostname),
            path: Some((m.path.kind, m.path.value.len())),
            has_method: m.method.is_some(),
            headers: m.headers.len(),
            query_params: m.query_params.len(),
            created,
            route,
        }
    }

    /// `ConvertGRPCRouteMatchToHTTP`: method specificity encoded as a path match; no HTTP method.
    pub(crate) fn from_grpc(
        hostname: &'a str,
        m: &GrpcMatch,
        created: Option<&'a str>,
        route: &'a str,
    ) -> Self {
        let path = m.method.as_ref().and_then(|mm| {
            let s = mm.service.as_deref().unwrap_or("");
            let me = mm.method.as_deref().unwrap_or("");
            let (kind, value) = if mm.kind == "RegularExpression" {
                match (s.is_empty(), me.is_empty()) {
                    (false, false) => (PathMatchType::RegularExpression, format!("^/{s}/{me}$")),
                    (false, true) => (PathMatchType::RegularExpression, format!("^/{s}")),
                    (true, false) => (PathMatchType::RegularExpression, format!("^/{me}")),
                    (true, true) => return None,
                }
            } else {
                match (s.is_empty(), me.is_empty()) {
                    (false, false) => (PathMatchType::Exact, format!("/{s}/{me}")),
                    (false, true) => (PathMatchType::PathPrefix, format!("/{s}")),
                    (true, false) => (PathMatchType::PathPrefix, format!("/{me}")),
                    (true, true) => return None,
                }
            };
            Some((kind, value.len()))
        });
        SortKey {
            hostname,
            hostname_labels: super::hostnames::labels(hostname),
            path,
            has_method: false,
            headers: m.headers.len(),
            query_params: 0,
            created,
            route,
        }
    }
}

/// The operator's `Less` (`internal/gatewayapi/types.go`), step by step: the reference [`compare`]
/// is tested against.
#[cfg(test)]
pub(crate) fn less(i: &SortKey, j: &SortKey) -> bool {
    use PathMatchType::*;
    if i.hostname != j.hostname {
        return super::hostnames::more_specific_counted(
            (i.hostname, i.hostname_labels),
            (j.hostname, j.hostname_labels),
        );
    }
    if let (Some((ti, _)), Some((tj, _))) = (&i.path, &j.path) {
        match (ti, tj) {
            (Exact, RegularExpression | PathPrefix) => return true,
            (RegularExpression, Exact) => return false,
            (RegularExpression, PathPrefix) => return true,
            (PathPrefix, Exact | RegularExpression) => return false,
            _ => {}
        }
    }
    let li = i.path.map_or(0, |p| p.1);
    let lj = j.path.map_or(0, |p| p.1);
    if li != lj {
        return li > lj;
    }
    if i.has_method != j.has_method {
        return !i.has_method;
    }
    if i.headers != j.headers {
        return i.headers > j.headers;
    }
    if i.query_params != j.query_params {
        return i.query_params > j.query_params;
    }
    if i.created != j.created {
        return match (&i.created, &j.created) {
            (None, Some(_)) => true,
            (Some(_), None) => false,
            (Some(a), Some(b)) => a < b,
            (None, None) => false,
        };
    }
    i.route < j.route
}

/// The operator's `Less` as a total order for a stable sort: ties (neither is less) compare equal.
pub(crate) fn compare(i: &SortKey, j: &SortKey) -> Ordering {
    // `Less` in one pass: each of its steps decides when the two keys differ in what the step
    // reads, and decides both ways (`Less(i, j)` and `Less(j, i)` stop at the same step with
    // opposite answers), so the first step that tells them apart gives the order. A gateway's
    // thousands of action sets are sorted with it, and asking `Less` both ways read every step
    // twice.
    fn rank(t: PathMatchType) -> u8 {
        match t {
            PathMatchType::Exact => 0,
            PathMatchType::RegularExpression => 1,
            PathMatchType::PathPrefix => 2,
        }
    }
    if i.hostname != j.hostname {
        // `more_specific_counted`: more labels first, then a hostname without a wildcard, then
        // the text (the hostnames differ, so this is never `Equal`).
        return (j.hostname_labels.cmp(&i.hostname_labels))
            .then_with(|| {
                i.hostname
                    .starts_with('*')
                    .cmp(&j.hostname.starts_with('*'))
            })
            .then_with(|| i.hostname.cmp(j.hostname));
    }
    let by_type = match (&i.path, &j.path) {
        (Some((ti, _)), Some((tj, _))) => rank(*ti).cmp(&rank(*tj)),
        _ => Ordering::Equal,
    };
    let length = |k: &SortKey| k.path.map_or(0, |p| p.1);
    by_type
        // The longer path, then no method, then more headers, then more query parameters.
        .then_with(|| length(j).cmp(&length(i)))
        .then_with(|| i.has_method.cmp(&j.has_method))
        .then_with(|| j.headers.cmp(&i.headers))
        .then_with(|| j.query_params.cmp(&i.query_params))
        // The older route (no timestamp is Go's zero time, before every other), then the name.
        .then_with(|| i.created.cmp(&j.created))
        .then_with(|| i.route.cmp(j.route))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{KeyValueMatch, PathMatch};

    fn kv(name: &str, value: &str) -> KeyValueMatch {
        KeyValueMatch {
            kind: "Exact".into(),
            name: name.into(),
            value: value.into(),
            span: Default::default(),
        }
    }

    #[test]
    fn g2_http_predicates() {
        let m = HttpMatch {
            method: Some("TRACE".into()),
            path: PathMatch {
                kind: PathMatchType::PathPrefix,
                value: "/admin".into(),
                span: Default::default(),
            },
            headers: vec![kv("X-Auth", "kuadrant")],
            query_params: vec![kv("foo", "bar"), kv("foo", "baz"), kv("kua", "drant")],
        };
        assert_eq!(
            http(&m),
            vec![
                "request.method == 'TRACE'",
                "request.url_path.startsWith('/admin')",
                "request.headers.exists(h, h.lowerAscii() == 'x-auth' && request.headers[h] == 'kuadrant')",
                "'foo' in queryMap(request.query) ? queryMap(request.query)['foo'] == 'bar' : false",
                "'kua' in queryMap(request.query) ? queryMap(request.query)['kua'] == 'drant' : false",
            ]
        );
        assert_eq!(
            http(&HttpMatch::default()),
            vec!["request.url_path.startsWith('/')"]
        );
    }

    fn gm(kind: &str, s: Option<&str>, m: Option<&str>, headers: Vec<KeyValueMatch>) -> GrpcMatch {
        GrpcMatch {
            method: Some(GrpcMethodMatch {
                kind: kind.into(),
                service: s.map(Into::into),
                method: m.map(Into::into),
                span: Default::default(),
            }),
            headers,
        }
    }

    #[test]
    fn g3_grpc_predicates() {
        let svc = Some("com.example.UserService");
        let cases: Vec<(GrpcMatch, Vec<&str>)> = vec![
            (
                gm("Exact", svc, Some("GetUser"), vec![]),
                vec!["request.url_path == '/com.example.UserService/GetUser'"],
            ),
            (
                gm("Exact", svc, None, vec![]),
                vec!["request.url_path.startsWith('/com.example.UserService/')"],
            ),
            (
                gm("Exact", None, Some("GetUser"), vec![]),
                vec!["request.url_path.matches('^/[^/]+/GetUser$')"],
            ),
            (
                gm(
                    "RegularExpression",
                    Some(r"com\.example\..*Service"),
                    Some("Get.*"),
                    vec![],
                ),
                vec![r"request.url_path.matches('^/com\.example\..*Service/Get.*$')"],
            ),
            (
                gm("RegularExpression", Some(r"com\.example\..*"), None, vec![]),
                vec![r"request.url_path.matches('^/com\.example\..*/.*$')"],
            ),
            (
                gm("RegularExpression", None, Some("Get.*"), vec![]),
                vec!["request.url_path.matches('^/[^/]+/Get.*$')"],
            ),
            (
                gm(
                    "Exact",
                    Some("example.Service"),
                    Some("Echo"),
                    vec![kv("x-tenant", "acme"), kv("x-env", "prod")],
                ),
                vec![
                    "request.url_path == '/example.Service/Echo'",
                    "request.headers.exists(h, h.lowerAscii() == 'x-tenant' && request.headers[h] == 'acme')",
                    "request.headers.exists(h, h.lowerAscii() == 'x-env' && request.headers[h] == 'prod')",
                ],
            ),
            (
                GrpcMatch {
                    method: None,
                    headers: vec![kv("x-api-key", "secret")],
                },
                vec![
                    "request.headers.exists(h, h.lowerAscii() == 'x-api-key' && request.headers[h] == 'secret')",
                ],
            ),
        ];
        for (m, want) in cases {
            assert_eq!(grpc(&m), want, "{m:?}");
        }
        assert!(grpc(&GrpcMatch::default()).is_empty());
    }

    fn key<'a>(
        host: &'a str,
        kind: PathMatchType,
        path: &str,
        method: bool,
        route: &'a str,
    ) -> SortKey<'a> {
        SortKey {
            hostname: host,
            hostname_labels: crate::generate::hostnames::labels(host),
            path: Some((kind, path.len())),
            has_method: method,
            headers: 0,
            query_params: 0,
            created: None,
            route,
        }
    }

    #[test]
    fn comparator_steps() {
        use PathMatchType::*;
        // hostname first: more labels wins even against a more specific path
        assert!(less(
            &key("a.b.c", PathPrefix, "/", false, "n/r"),
            &key("b.c", Exact, "/xyz", false, "n/r")
        ));
        // exact beats regex beats prefix
        assert!(less(
            &key("h", Exact, "/a", false, "n/r"),
            &key("h", RegularExpression, "/abc", false, "n/r")
        ));
        assert!(less(
            &key("h", RegularExpression, "/a", false, "n/r"),
            &key("h", PathPrefix, "/abc", false, "n/r")
        ));
        // longer path first
        assert!(less(
            &key("h", PathPrefix, "/toys", false, "n/r"),
            &key("h", PathPrefix, "/toy", false, "n/r")
        ));
        // no method first (as coded)
        assert!(less(
            &key("h", PathPrefix, "/a", false, "n/r"),
            &key("h", PathPrefix, "/a", true, "n/r")
        ));
        // route name last; identical keys tie
        assert!(less(
            &key("h", PathPrefix, "/a", true, "a/r"),
            &key("h", PathPrefix, "/a", true, "b/r")
        ));
        let k = key("h", PathPrefix, "/a", true, "a/r");
        assert_eq!(compare(&k, &{ k }), Ordering::Equal);
        // older route first, a missing timestamp is the zero time
        let mut old = k;
        old.created = Some("2024-01-01T00:00:00Z");
        let mut new = k;
        new.created = Some("2025-01-01T00:00:00Z");
        new.route = "0/first";
        assert!(less(&old, &new));
        assert!(less(&k, &old));
    }

    /// The one-pass comparison orders every pair of keys as `Less` asked both ways does, over keys
    /// that differ in every step (wildcards, label counts, each path type, an empty path value and
    /// none, methods, headers, query parameters, timestamps and their absence, route names).
    #[test]
    fn compare_is_less_asked_both_ways() {
        use PathMatchType::*;
        let mut keys = Vec::new();
        for hostname in ["a.b.c", "*.b.c", "x.b.c", "b.c", "*"] {
            for path in [
                None,
                Some((Exact, 0)),
                Some((Exact, 3)),
                Some((RegularExpression, 3)),
                Some((PathPrefix, 1)),
                Some((PathPrefix, 3)),
            ] {
                for (has_method, headers, query_params) in
                    [(false, 0, 0), (true, 1, 0), (false, 1, 2)]
                {
                    for created in [
                        None,
                        Some("2024-01-01T00:00:00Z"),
                        Some("2025-01-01T00:00:00Z"),
                    ] {
                        for route in ["n/a", "n/b"] {
                            keys.push(SortKey {
                                hostname,
                                hostname_labels: super::super::hostnames::labels(hostname),
                                path,
                                has_method,
                                headers,
                                query_params,
                                created,
                                route,
                            });
                        }
                    }
                }
            }
        }
        for i in &keys {
            for j in &keys {
                let want = if less(i, j) {
                    Ordering::Less
                } else if less(j, i) {
                    Ordering::Greater
                } else {
                    Ordering::Equal
                };
                assert_eq!(compare(i, j), want, "{i:?} {j:?}");
            }
        }
    }
}
