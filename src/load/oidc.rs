//! OIDCPolicy: the objects its controller creates, read from kuadrant-operator v1.5.2 and v1.4.6
//! `cmd/extensions/oidc-policy/internal/controller/oidcpolicy_reconciler.go` and
//! `cmd/extensions/oidc-policy/api/v1alpha1/oidcpolicy_types.go`.
//!
//! Owns the ingress gateway the controller resolves (`self.findGateways()[0]` and its first
//! listener), the URLs it derives (authorize, redirect, token, base), and the three objects it
//! writes: the main AuthPolicy (the OIDCPolicy's name and target), the callback HTTPRoute
//! (`<name>-callback`, path prefix `/auth/callback` on the ingress gateway) and the callback
//! AuthPolicy (`<name>-callback`, targeting that route). They are built here as the controller
//! builds them and Go serializes them (`response.success: {}` is written, as `MergeableResponseSpec`
//! holds it by value; no API-server defaults); `crate::load` validates them like input objects and adds
//! them to the model. Where the controller's output depends on Go map order (the claims, the token
//! request body) they are written sorted by key, and `PCTL3026` says so.

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::extension::Extension;
use crate::model::oidc::OidcSpec;
use crate::model::*;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// `ingressGatewayInfo`: the first gateway the policy reaches and its first listener.
#[derive(Clone, Debug)]
pub(crate) struct IngressGateway {
    pub hostname: String,
    pub name: String,
    pub namespace: String,
    pub protocol: String,
    pub port: i64,
}

/// The default paths and token-source name (`oidcpolicy_types.go` constants).
const CALLBACK_PATH: &str = "/auth/callback";
const TOKEN_PATH: &str = "/oauth/token";
const AUTHORIZE_PATH: &str = "/oauth/authorize";
const DEFAULT_TOKEN_SOURCE: &str = "jwt";
/// The metadata condition of the callback AuthPolicy: the request carries a `code` parameter.
const CODE_PRESENT: &str = r#"request.query.split("&").map(entry, entry.split("=")).filter(pair, pair[0] == "code").map(pair, pair[1]).size() > 0"#;

/// The gateways the OIDCPolicy's target reaches, in policyctl's order: the targeted Gateway, or
/// the Gateways a targeted HTTPRoute's parentRefs name (in parentRef order) that the input holds.
fn gateways<'m>(model: &'m Model, e: &Extension) -> Vec<&'m Obj<Gateway>> {
    let ns = &e.meta.namespace;
    let name = &e.target.name.value;
    match e.target.kind.value.as_str() {
        "Gateway" => model.gateway(ns, name).into_iter().collect(),
        _ => {
            let Some(route) = model.routes.iter().find(|r| {
                r.spec.kind == RouteKind::Http && &r.meta.namespace == ns && &r.meta.name == name
            }) else {
                return vec![];
            };
            let mut out: Vec<&Obj<Gateway>> = Vec::new();
            for p in &route.spec.parent_refs {
                if p.group != GATEWAY_API_GROUP || p.kind != "Gateway" {
                    continue;
                }
                let gns = p.namespace.as_deref().unwrap_or(ns);
                if let Some(g) = model.gateway(gns, &p.name)
                    && !out.iter().any(|o| std::ptr::eq(*o, g))
                {
                    out.push(g);
                }
            }
            out
        }
    }
}

/// Resolve the ingress gateway as the controller's CEL expression does, or say why it cannot.
fn ingress_gateway(model: &Model, e: &Extension) -> Result<(IngressGateway, usize), String> {
    let found = gateways(model, e);
    let Some(g) = found.first() else {
        return Err(format!(
            "the {} {} it targets reaches no Gateway of the input",
            e.target.kind.value, e.target.name.value
        ));
    };
    let Some(l) = g.spec.listeners.first() else {
        return Err(format!("Gateway {} has no listener", g.meta.key()));
    };
    let Some(host) = l.hostname.as_ref().filter(|h| !h.value.is_empty()) else {
        return Err(format!(
            "the first listener ({}) of Gateway {} has no hostname, so the URLs the controller builds have no host",
            l.name.value,
            g.meta.key()
        ));
    };
    Ok((
        IngressGateway {
            hostname: host.value.clone(),
            name: g.meta.name.clone(),
            namespace: g.meta.namespace.clone(),
            protocol: l.protocol.clone(),
            port: l.port,
        },
        found.len(),
    ))
}

/// Go's `url.QueryEscape`.
fn query_escape(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Go's `url.QueryUnescape` (`None` for a bad escape).
fn query_unescape(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let hex = s.get(i + 1..i + 3)?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// `URL.Query()`: the pairs of a raw query (a pair with `;` or a bad escape is dropped).
fn parse_query(q: &str) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for part in q.split('&').filter(|p| !p.is_empty() && !p.contains(';')) {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        if let (Some(k), Some(v)) = (query_unescape(k), query_unescape(v)) {
            out.entry(k).or_default().push(v);
        }
    }
    out
}

/// `url.Values.Encode`: keys sorted, each key's values in order.
fn encode_query(q: &BTreeMap<String, Vec<String>>) -> String {
    let mut parts = Vec::new();
    for (k, vs) in q {
        for v in vs {
            parts.push(format!("{}={}", query_escape(k), query_escape(v)));
        }
    }
    parts.join("&")
}

/// A URL split as `scheme://authority`, path, `?query` (without `?`) and `#fragment` (with `#`).
struct UrlParts<'a> {
    origin: &'a str,
    path: &'a str,
    query: Option<&'a str>,
    fragment: &'a str,
}

fn split_url(u: &str) -> UrlParts<'_> {
    let (rest, fragment) = match u.find('#') {
        Some(i) => (&u[..i], &u[i..]),
        None => (u, ""),
    };
    let (rest, query) = match rest.split_once('?') {
        Some((r, q)) => (r, Some(q)),
        None => (rest, None),
    };
    let after_scheme = rest.find("://").map_or(0, |i| i + 3);
    let path_at = rest[after_scheme..]
        .find('/')
        .map_or(rest.len(), |i| after_scheme + i);
    UrlParts {
        origin: &rest[..path_at],
        path: &rest[path_at..],
        query,
        fragment,
    }
}

/// Go's `path.Join(p, tail)` for an absolute `tail` (the result is cleaned: no empty or `.`
/// elements, `..` applied).
fn path_join(p: &str, tail: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/').chain(tail.split('/')) {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    format!("/{}", parts.join("/"))
}

/// The URLs the controller derives from the policy and the ingress gateway.
#[derive(Clone, Debug)]
pub(crate) struct Urls {
    /// `ingressGatewayInfo.GetURL()`.
    pub gateway: String,
    /// `redirectURL`: `provider.redirectURI`, or the gateway URL + `/auth/callback`.
    pub redirect: String,
    /// `GetAuthorizeURL`.
    pub authorize: String,
    /// `GetTokenRequestURL`.
    pub token: String,
    /// `GetBaseURL` (1.5): scheme and host of the redirect URL.
    pub base: String,
}

/// Derive the URLs; 1.4 writes no port into the gateway URL (v1.4.6 `GetURL`).
pub(crate) fn urls(s: &OidcSpec, igw: &IngressGateway, version: KuadrantVersion) -> Urls {
    let scheme = igw.protocol.to_ascii_lowercase();
    let odd_port =
        (igw.protocol == "HTTP" && igw.port != 80) || (igw.protocol == "HTTPS" && igw.port != 443);
    let host = if version == KuadrantVersion::V1_5 && odd_port {
        format!("{}:{}", igw.hostname, igw.port)
    } else {
        igw.hostname.clone()
    };
    let gateway = format!("{scheme}://{host}");
    let redirect = if s.redirect_uri.is_empty() {
        format!("{gateway}{CALLBACK_PATH}")
    } else {
        s.redirect_uri.clone()
    };
    let authorize = authorize_url(s, &redirect);
    let token = if s.token_endpoint.is_empty() {
        let u = split_url(&s.issuer_url);
        let query = u.query.map(|q| format!("?{q}")).unwrap_or_default();
        format!(
            "{}{}{query}{}",
            u.origin,
            path_join(u.path, TOKEN_PATH),
            u.fragment
        )
    } else {
        s.token_endpoint.clone()
    };
    let r = split_url(&redirect);
    let base = match r.origin.split_once("://") {
        Some((sch, auth)) => format!("{sch}://{}", auth.rsplit('@').next().unwrap_or(auth)),
        None => r.origin.to_string(),
    };
    Urls {
        gateway,
        redirect,
        authorize,
        token,
        base,
    }
}

/// `GetAuthorizeURL`: the authorization endpoint (or the issuer + `/oauth/authorize`) with
/// `client_id`, `redirect_uri`, `response_type=code` and `scope=openid` added where its query has
/// none, the query encoded as Go does (keys sorted).
fn authorize_url(s: &OidcSpec, redirect: &str) -> String {
    let (endpoint, suffix) = if s.authorization_endpoint.is_empty() {
        (s.issuer_url.as_str(), AUTHORIZE_PATH)
    } else {
        (s.authorization_endpoint.as_str(), "")
    };
    let u = split_url(endpoint);
    let mut q = parse_query(u.query.unwrap_or(""));
    for (k, v) in [
        ("client_id", s.client_id.as_str()),
        ("redirect_uri", redirect),
        ("response_type", "code"),
        ("scope", "openid"),
    ] {
        let empty = q
            .get(k)
            .and_then(|vs| vs.first())
            .is_none_or(|v| v.is_empty());
        if empty {
            q.insert(k.to_string(), vec![v.to_string()]);
        }
    }
    format!(
        "{}{}{suffix}?{}{}",
        u.origin,
        u.path,
        encode_query(&q),
        u.fragment
    )
}

/// `GetTokenRequestBodyCelExpression` with the parameters sorted by name (the controller writes
/// them in Go map order).
fn token_body(s: &OidcSpec, u: &Urls) -> String {
    let params = [
        ("client_id", s.client_id.as_str()),
        ("grant_type", "authorization_code"),
        ("redirect_uri", u.redirect.as_str()),
    ];
    let opts: String = params
        .iter()
        .map(|(k, v)| format!("&{k}={}", query_escape(v)))
        .collect();
    format!(
        "\n\"code=\" + request.query.split(\"&\").map(entry, entry.split(\"=\")).filter(pair, pair[0] == \"code\").map(pair, pair[1])[0] + \"{opts}\"\n"
    )
}

fn secure_flag(protocol: &str) -> &'static str {
    if protocol == "HTTPS" { "Secure;" } else { "" }
}

/// The `set-cookie` expression of the main AuthPolicy's unauthenticated response (the page asked
/// for, kept for after the login).
fn target_cookie(igw: &IngressGateway, version: KuadrantVersion) -> String {
    let flag = secure_flag(&igw.protocol);
    let host = &igw.hostname;
    match version {
        KuadrantVersion::V1_5 => format!(
            "\n\"target=\" + request.url_path + (has(request.query) && request.query != \"\" ? \"?\" + request.query : \"\") + \"; domain={host}; HttpOnly; {flag} SameSite=Lax; Path=/; Max-Age=3600\""
        ),
        _ => format!(
            "\n\"target=\" + request.path + \"; domain={host}; HttpOnly; {flag} SameSite=Lax; Path=/; Max-Age=3600\""
        ),
    }
}

/// The predicate of one claim (`claimPredicate` on 1.5).
fn claim_predicate(k: &str, v: &str, version: KuadrantVersion) -> String {
    match version {
        KuadrantVersion::V1_5 => format!(
            "has(auth.identity) && has(auth.identity.{k}) && (auth.identity.{k} == \"{v}\" || (type(auth.identity.{k}) == list && \"{v}\" in auth.identity.{k}))"
        ),
        _ => format!("\"{v}\" in auth.identity.{k}"),
    }
}

/// The kind of `auth.tokenSource` (Authorino `Credentials.GetType`), with its name or prefix.
fn token_source(s: &OidcSpec) -> (&'static str, String) {
    let src = s.token_source.as_ref();
    let field = |f: &str, k: &str| {
        src.and_then(|t| t.get(f))
            .map(|v| v.get(k).and_then(Value::as_str).unwrap_or("").to_string())
    };
    if let Some(p) = field("authorizationHeader", "prefix") {
        return ("authorizationHeader", p);
    }
    if let Some(n) = field("customHeader", "name") {
        return ("customHeader", n);
    }
    if let Some(n) = field("queryString", "name") {
        return ("queryString", n);
    }
    if let Some(n) = field("cookie", "name") {
        return ("cookie", n);
    }
    ("cookie", DEFAULT_TOKEN_SOURCE.into())
}

/// `credentialsSource`: where the main AuthPolicy reads the token.
fn credentials(s: &OidcSpec) -> Value {
    match token_source(s) {
        ("authorizationHeader", p) => json!({ "authorizationHeader": { "prefix": p } }),
        (kind, name) => json!({ kind: { "name": name } }),
    }
}

/// `credentialsHeader`: the headers of the callback AuthPolicy's redirect.
fn callback_headers(s: &OidcSpec, igw: &IngressGateway) -> Value {
    let mut h = serde_json::Map::new();
    h.insert(
        "location".into(),
        json!({ "expression": "auth.authorization.location.location" }),
    );
    let cookie = |name: &str| {
        json!({ "expression": format!(
            "\n\"{name}=\" + auth.metadata.token.id_token + \"; domain={}; HttpOnly; {} SameSite=Lax; Path=/; Max-Age=3600\"\n",
            igw.hostname,
            secure_flag(&igw.protocol)
        ) })
    };
    match token_source(s) {
        ("authorizationHeader", p) => {
            h.insert(
                "Authorization".into(),
                json!({ "expression": format!("\"{p} \" + auth.metadata.token.id_token") }),
            );
        }
        ("customHeader", n) => {
            h.insert(n, json!({ "expression": "auth.metadata.token.id_token" }));
        }
        ("queryString", _) => {}
        (_, n) => {
            h.insert("set-cookie".into(), cookie(&n));
        }
    }
    Value::Object(h)
}

/// `metadata` of a derived object: name, namespace, and the owner reference
/// `SetControllerReference` writes when the OIDCPolicy's uid is known.
fn metadata(e: &Extension, name: &str) -> Value {
    let mut m = json!({ "name": name, "namespace": e.meta.namespace });
    if let Some(uid) = &e.meta.uid {
        m["ownerReferences"] = json!([{
            "apiVersion": e.meta.api_version,
            "blockOwnerDeletion": true,
            "controller": true,
            "kind": "OIDCPolicy",
            "name": e.meta.name,
            "uid": uid,
        }]);
    }
    m
}

/// `buildMainAuthPolicy`.
fn main_auth_policy(
    e: &Extension,
    s: &OidcSpec,
    igw: &IngressGateway,
    u: &Urls,
    version: KuadrantVersion,
) -> Value {
    let mut jwt = serde_json::Map::new();
    if s.issuer_url.is_empty() {
        jwt.insert("jwksUrl".into(), Value::from(s.jwks_url.clone()));
    } else {
        jwt.insert("issuerUrl".into(), Value::from(s.issuer_url.clone()));
    }
    let mut rules = json!({
        "authentication": { "oidc": { "jwt": jwt, "credentials": credentials(s) } },
        "response": { "unauthenticated": {
            "code": 302,
            "headers": {
                "location": { "value": u.authorize },
                "set-cookie": { "expression": target_cookie(igw, version) },
            },
        }, "success": {} },
    });
    if !s.claims.is_empty() {
        let patterns: Vec<Value> = s
            .claims
            .iter()
            .map(|(k, v)| json!({ "predicate": claim_predicate(k, v, version) }))
            .collect();
        let when = if s.issuer_url.is_empty() {
            json!({})
        } else {
            json!({ "predicate": format!("auth.identity.iss == \"{}\"", s.issuer_url) })
        };
        rules["authorization"] = json!({ "oidc": {
            "when": [when],
            "patternMatching": { "patterns": patterns },
        } });
    }
    let mut target = json!({
        "group": e.target.group.value,
        "kind": e.target.kind.value,
        "name": e.target.name.value,
    });
    if let Some(sec) = &e.target.section_name {
        target["sectionName"] = Value::from(sec.value.clone());
    }
    json!({
        "apiVersion": format!("{KUADRANT_GROUP}/v1"),
        "kind": "AuthPolicy",
        "metadata": metadata(e, &e.meta.name),
        "spec": {
            "targetRef": target,
            "overrides": { "strategy": "merge", "rules": rules },
        },
    })
}

/// `buildCallbackHTTPRoute`.
fn callback_route(e: &Extension, igw: &IngressGateway) -> Value {
    json!({
        "apiVersion": format!("{GATEWAY_API_GROUP}/v1"),
        "kind": "HTTPRoute",
        "metadata": metadata(e, &format!("{}-callback", e.meta.name)),
        "spec": {
            "parentRefs": [{ "name": igw.name, "namespace": igw.namespace }],
            "rules": [{ "matches": [{ "path": { "type": "PathPrefix", "value": CALLBACK_PATH } }] }],
        },
    })
}

/// The Rego of the callback AuthPolicy's `location` rule (`buildOpaAuthorizationRule` on 1.5).
fn location_rego(u: &Urls, version: KuadrantVersion) -> String {
    let (parser, first) = match version {
        KuadrantVersion::V1_5 => (
            r#"trimmed := trim(part, " "); eq_idx := indexof(trimmed, "="); eq_idx != -1; name := trim(substring(trimmed, 0, eq_idx), " "); value := trim(substring(trimmed, eq_idx + 1, -1), " ")"#,
            &u.base,
        ),
        _ => (
            r#"kv := split(trim(part, " "), "="); count(kv) == 2; name := trim(kv[0], " "); value := trim(kv[1], " ")"#,
            &u.gateway,
        ),
    };
    format!(
        "cookies := {{ name: value | raw_cookies := input.request.headers.cookie; cookie_parts := split(raw_cookies, \";\"); part := cookie_parts[_]; {parser}}}\nlocation := concat(\"\", [\"{first}\", cookies.target]) {{ input.auth.metadata.token.id_token; cookies.target }}\nlocation := \"{}\" {{ input.auth.metadata.token.id_token; not cookies.target }}\nlocation := \"{}\" {{ not input.auth.metadata.token.id_token }}\nallow = true",
        u.gateway, u.authorize
    )
}

/// `buildCallbackAuthPolicy`.
fn callback_auth_policy(
    e: &Extension,
    s: &OidcSpec,
    igw: &IngressGateway,
    u: &Urls,
    version: KuadrantVersion,
) -> Value {
    let name = format!("{}-callback", e.meta.name);
    json!({
        "apiVersion": format!("{KUADRANT_GROUP}/v1"),
        "kind": "AuthPolicy",
        "metadata": metadata(e, &name),
        "spec": {
            "targetRef": { "group": GATEWAY_API_GROUP, "kind": "HTTPRoute", "name": name },
            "overrides": { "strategy": "merge", "rules": {
                "metadata": { "token": {
                    "when": [{ "predicate": CODE_PRESENT }],
                    "http": {
                        "url": u.token,
                        "method": "POST",
                        "body": { "expression": token_body(s, u) },
                    },
                } },
                "authorization": {
                    "location": {
                        "opa": { "rego": location_rego(u, version), "allValues": true },
                        "priority": 1,
                    },
                    "deny": { "opa": { "rego": "allow = false" }, "priority": 2 },
                },
                "response": {
                    "unauthorized": { "code": 302, "headers": callback_headers(s, igw) },
                    "success": {},
                },
            } },
        },
    })
}

/// The objects the controller writes for `e`, in the order it writes them (main AuthPolicy,
/// callback HTTPRoute, callback AuthPolicy).
pub(crate) fn objects(
    e: &Extension,
    s: &OidcSpec,
    igw: &IngressGateway,
    version: KuadrantVersion,
) -> Vec<Value> {
    let u = urls(s, igw, version);
    vec![
        main_auth_policy(e, s, igw, &u, version),
        callback_route(e, igw),
        callback_auth_policy(e, s, igw, &u, version),
    ]
}

/// The objects of every OIDCPolicy of `model` (`(index in model.extensions, object)`). An
/// OIDCPolicy whose ingress gateway cannot be resolved gets none (`PCTL3025`: the controller's
/// reconcile fails before writing anything); the orders policyctl chooses where the controller's
/// depend on Go maps or on the live topology are announced (`PCTL3026`).
pub(crate) fn expand(
    model: &Model,
    version: KuadrantVersion,
    diags: &mut Diagnostics,
) -> Vec<(usize, Value)> {
    let mut out = Vec::new();
    for (i, e) in model.extensions.iter().enumerate() {
        let crate::model::extension::ExtensionBody::Oidc(s) = &e.body else {
            continue;
        };
        let (igw, reached) = match ingress_gateway(model, e) {
            Ok(g) => g,
            Err(why) => {
                diags.push(
                    Diagnostic::new(
                        Code::OidcNoIngressGateway,
                        format!("{} gets no AuthPolicy or callback HTTPRoute: {why}", e.display()),
                    )
                    .at(e.target.span, "its target")
                    .object(e.display())
                    .help("the controller reads the hostname, protocol and port of the first listener of the first Gateway its target reaches: target a Gateway (or a route attached to one) whose first listener has a hostname, and include that Gateway in the input"),
                );
                continue;
            }
        };
        let mut chosen = vec!["the token request's parameters sorted by name".to_string()];
        if s.claims.len() > 1 {
            chosen.push("the claims' patterns sorted by claim".into());
        }
        if reached > 1 {
            chosen.push(format!(
                "Gateway {}/{} (the first of {reached} in parentRef order) as the ingress gateway",
                igw.namespace, igw.name
            ));
        }
        diags.push(
            Diagnostic::new(
                Code::OidcOrderAssumed,
                format!(
                    "{}: where the controller's output depends on Go map order, policyctl writes {}",
                    e.display(),
                    chosen.join(", ")
                ),
            )
            .at(e.meta.origin.name, "its derived objects")
            .object(e.display())
            .help("nothing to fix: the operator's order can differ from run to run, and Authorino reads them the same either way"),
        );
        out.extend(objects(e, s, &igw, version).into_iter().map(|v| (i, v)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> OidcSpec {
        OidcSpec {
            issuer_url: "https://issuer.com".into(),
            client_id: "client123".into(),
            ..OidcSpec::default()
        }
    }

    fn gw(protocol: &str, port: i64) -> IngressGateway {
        IngressGateway {
            hostname: "gateway.example.com".into(),
            name: "gw".into(),
            namespace: "default".into(),
            protocol: protocol.into(),
            port,
        }
    }

    /// kuadrant-operator v1.5.2 `oidcpolicy_types_test.go` `TestGetIssuerTokenExchangeURL`,
    /// `TestGetAuthorizeURL`, `TestGetIssuerTokenExchangeBodyCelExpression`.
    #[test]
    fn urls_as_the_upstream_tests_expect() {
        let mut s = spec();
        let u = urls(&s, &gw("HTTPS", 443), KuadrantVersion::V1_5);
        assert_eq!(u.token, "https://issuer.com/oauth/token");
        assert_eq!(u.gateway, "https://gateway.example.com");
        for part in [
            "client_id=client123",
            "redirect_uri=https%3A%2F%2Fgateway.example.com%2Fauth%2Fcallback",
            "response_type=code",
            "scope=openid",
        ] {
            assert!(u.authorize.contains(part), "{}", u.authorize);
        }
        let body = token_body(&s, &u);
        assert!(body.contains("&redirect_uri=https%3A%2F%2Fgateway.example.com%2Fauth%2Fcallback"));
        assert!(
            body.contains("&client_id=client123")
                && body.contains("&grant_type=authorization_code")
        );
        s.token_endpoint = "https://example.com/token?foo=bar".into();
        s.authorization_endpoint = "https://customidp.com/authorize?custom=true&client_id=client321&redirect_uri=https%3A%2F%2Fgateway.example.com%2Fauth%2Fcustomcallback".into();
        let u = urls(&s, &gw("HTTPS", 443), KuadrantVersion::V1_5);
        assert_eq!(u.token, "https://example.com/token?foo=bar");
        for part in [
            "client_id=client321",
            "redirect_uri=https%3A%2F%2Fgateway.example.com%2Fauth%2Fcustomcallback",
            "response_type=code",
            "scope=openid",
            "custom=true",
        ] {
            assert!(u.authorize.contains(part), "{}", u.authorize);
        }
    }

    /// v1.5.2 `oidcpolicy_reconciler_test.go` `TestIngressGatewayInfo_GetURL`.
    #[test]
    fn gateway_url_port() {
        let cases = [
            ("HTTP", 80, "http://gateway.example.com"),
            ("HTTPS", 443, "https://gateway.example.com"),
            ("HTTP", 8080, "http://gateway.example.com:8080"),
            ("HTTPS", 8443, "https://gateway.example.com:8443"),
        ];
        for (p, port, want) in cases {
            assert_eq!(
                urls(&spec(), &gw(p, port), KuadrantVersion::V1_5).gateway,
                want
            );
        }
        // v1.4.6 `GetURL` writes no port.
        let u = urls(&spec(), &gw("HTTP", 8080), KuadrantVersion::V1_4);
        assert_eq!(u.gateway, "http://gateway.example.com");
    }

    /// v1.5.2 `TestBuildOpaAuthorizationRule_CustomRedirectURI_Scenario`-style: a custom
    /// redirectURI gives the base URL of the first location.
    #[test]
    fn base_url_of_a_custom_redirect() {
        let mut s = spec();
        s.redirect_uri = "https://app.example.com/cb".into();
        let u = urls(&s, &gw("HTTP", 8080), KuadrantVersion::V1_5);
        assert_eq!(u.base, "https://app.example.com");
        let rego = location_rego(&u, KuadrantVersion::V1_5);
        assert!(rego.contains(r#"concat("", ["https://app.example.com", cookies.target])"#));
        assert!(rego.contains(r#"location := "http://gateway.example.com:8080" { input.auth.metadata.token.id_token; not cookies.target }"#));
        assert!(rego.contains(r#"eq_idx := indexof(trimmed, "=")"#));
        assert!(!rego.contains("count(kv) == 2"));
    }
}
