//! AuthConfig spec re-encoding (`docs/semantics/generated-objects.md`, "AuthConfigs"): the operator decodes the
//! AuthPolicy rules into Authorino's `v1beta3` Go types and writes them back with `encoding/json`.
//! So unknown fields vanish, the AuthPolicy CRD defaults appear (`cache.ttl: 60`, `http.method: GET`,
//! `http.contentType: application/x-www-form-urlencoded`, `oauth2.cache: true`), zero values vanish
//! through `omitempty`, non-pointer structs are always written (`credentials: {}`), and nulls are pruned
//! (the "stage A minus nulls" form the notes recommend). Key order is irrelevant here: every generated
//! object has its keys sorted afterwards.

use crate::resolve::AuthSection;
use serde_json::{Map, Value};

type Enc = fn(&Value) -> Map<String, Value>;

/// How one field is written.
#[derive(Clone, Copy)]
enum F {
    /// string, omitempty
    Str,
    /// string without omitempty (written as `""` when absent)
    StrReq,
    /// string, omitempty, with an AuthPolicy CRD default when absent
    StrD(&'static str),
    /// integer, omitempty
    Int,
    /// integer, omitempty, CRD default when absent
    IntD(i64),
    /// bool, omitempty
    Bool,
    /// pointer to bool (an explicit false is written), CRD default when absent
    PtrBoolD(bool),
    /// pointer to int (an explicit 0 is written)
    PtrInt,
    /// `runtime.RawExtension` (any JSON; pruned when absent or null)
    Raw,
    /// pointer to struct (omitted when absent or null)
    P(Enc),
    /// non-pointer struct: always written
    St(Enc),
    /// map of structs, omitempty
    M(Enc),
    /// map of structs without omitempty (`{}` when present and empty)
    MReq(Enc),
    /// list of structs, omitempty
    L(Enc),
    /// list of structs without omitempty (`[]` when present and empty)
    LReq(Enc),
    /// list of strings, omitempty
    LStr,
    /// map of strings, omitempty
    MStr,
    /// embedded struct: its fields are inlined
    Inline(Enc),
}

/// Look a key up like `encoding/json` does: exact match first, then case-insensitively.
fn get<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    let o = v.as_object()?;
    o.get(key)
        .or_else(|| {
            o.iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(key))
                .map(|(_, v)| v)
        })
        .filter(|v| !v.is_null())
}

fn fields(v: &Value, spec: &[(&str, F)]) -> Map<String, Value> {
    let mut out = Map::new();
    for (name, f) in spec {
        let x = get(v, name);
        let put = match *f {
            F::Str => x
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(Value::from),
            F::StrReq => Some(Value::from(x.and_then(Value::as_str).unwrap_or(""))),
            F::StrD(d) => {
                let s = match x {
                    Some(x) => x.as_str().unwrap_or(""),
                    None => d,
                };
                (!s.is_empty()).then(|| Value::from(s))
            }
            F::Int => x.and_then(as_i64).filter(|n| *n != 0).map(Value::from),
            F::IntD(d) => {
                let n = match x {
                    Some(x) => as_i64(x).unwrap_or(0),
                    None => d,
                };
                (n != 0).then(|| Value::from(n))
            }
            F::Bool => x.and_then(Value::as_bool).filter(|b| *b).map(Value::from),
            F::PtrBoolD(d) => Some(Value::from(x.and_then(Value::as_bool).unwrap_or(d))),
            F::PtrInt => x.and_then(as_i64).map(Value::from),
            F::Raw => x.map(normalise_raw),
            F::P(e) => x.map(|x| Value::Object(e(x))),
            F::St(e) => Some(Value::Object(e(x.unwrap_or(&Value::Null)))),
            F::M(e) => x
                .and_then(Value::as_object)
                .filter(|m| !m.is_empty())
                .map(|m| {
                    Value::Object(
                        m.iter()
                            .map(|(k, v)| (k.clone(), Value::Object(e(v))))
                            .collect(),
                    )
                }),
            F::MReq(e) => x.and_then(Value::as_object).map(|m| {
                Value::Object(
                    m.iter()
                        .map(|(k, v)| (k.clone(), Value::Object(e(v))))
                        .collect(),
                )
            }),
            F::L(e) => x
                .and_then(Value::as_array)
                .filter(|l| !l.is_empty())
                .map(|l| Value::Array(l.iter().map(|v| Value::Object(e(v))).collect())),
            F::LReq(e) => x
                .and_then(Value::as_array)
                .map(|l| Value::Array(l.iter().map(|v| Value::Object(e(v))).collect())),
            F::LStr => x
                .and_then(Value::as_array)
                .filter(|l| !l.is_empty())
                .map(|l| {
                    Value::Array(
                        l.iter()
                            .map(|s| Value::from(s.as_str().unwrap_or("")))
                            .collect(),
                    )
                }),
            F::MStr => x
                .and_then(Value::as_object)
                .filter(|m| !m.is_empty())
                .map(|m| {
                    Value::Object(
                        m.iter()
                            .map(|(k, s)| (k.clone(), Value::from(s.as_str().unwrap_or(""))))
                            .collect(),
                    )
                }),
            F::Inline(e) => {
                out.extend(e(v));
                None
            }
        };
        if let Some(p) = put {
            out.insert((*name).to_string(), p);
        }
    }
    out
}

fn as_i64(v: &Value) -> Option<i64> {
    v.as_i64()
        .or_else(|| v.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
}

/// A raw value after the float64 round trip: integral floats print as integers; nulls inside are kept.
fn normalise_raw(v: &Value) -> Value {
    match v {
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 9.007_199_254_740_992e15 => {
                Value::from(f as i64)
            }
            _ => v.clone(),
        },
        Value::Array(a) => Value::Array(a.iter().map(normalise_raw).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), normalise_raw(v)))
                .collect(),
        ),
        _ => v.clone(),
    }
}

fn pattern_expr(v: &Value) -> Map<String, Value> {
    fields(
        v,
        &[
            ("selector", F::Str),
            ("operator", F::Str),
            ("value", F::Str),
        ],
    )
}

fn peor(v: &Value) -> Map<String, Value> {
    fields(
        v,
        &[
            ("selector", F::Str),
            ("operator", F::Str),
            ("value", F::Str),
            ("patternRef", F::Str),
            ("predicate", F::Str),
            ("all", F::L(peor)),
            ("any", F::L(peor)),
        ],
    )
}

fn vos(v: &Value) -> Map<String, Value> {
    fields(
        v,
        &[
            ("value", F::Raw),
            ("selector", F::Str),
            ("expression", F::Str),
        ],
    )
}

fn cache(v: &Value) -> Map<String, Value> {
    fields(v, &[("key", F::St(vos)), ("ttl", F::IntD(60))])
}

fn common(v: &Value) -> Map<String, Value> {
    fields(
        v,
        &[
            ("priority", F::Int),
            ("metrics", F::Bool),
            ("when", F::L(peor)),
            ("cache", F::P(cache)),
        ],
    )
}

fn prefixed(v: &Value) -> Map<String, Value> {
    fields(v, &[("prefix", F::Str)])
}

fn named(v: &Value) -> Map<String, Value> {
    fields(v, &[("name", F::StrReq)])
}

fn credentials(v: &Value) -> Map<String, Value> {
    fields(
        v,
        &[
            ("authorizationHeader", F::P(prefixed)),
            ("customHeader", F::P(named)),
            ("queryString", F::P(named)),
            ("cookie", F::P(named)),
        ],
    )
}

fn label_expr(v: &Value) -> Map<String, Value> {
    fields(
        v,
        &[
            ("key", F::StrReq),
            ("operator", F::StrReq),
            ("values", F::LStr),
        ],
    )
}

fn label_selector(v: &Value) -> Map<String, Value> {
    fields(
        v,
        &[
            ("matchLabels", F::MStr),
            ("matchExpressions", F::L(label_expr)),
        ],
    )
}

fn api_key(v: &Value) -> Map<String, Value> {
    fields(
        v,
        &[
            ("selector", F::P(label_selector)),
            ("allNamespaces", F::Bool),
        ],
    )
}

fn jwt(v: &Value) -> Map<String, Value> {
    fields(
        v,
        &[("jwksUrl", F::Str), ("issuerUrl", F::Str), ("ttl", F::Int)],
    )
}

fn local_ref(v: &Value) -> Map<String, Value> {
    fields(v, &[("name", F::Str)])
}

fn oauth2_introspection(v: &Value) -> Map<String, Value> {
    fields(
        v,
        &[
            ("endpoint", F::StrReq),
            ("tokenTypeHint", F::Str),
            ("credentialsRef", F::P(local_ref)),
        ],
    )
}

fn token_review(v: &Value) -> Map<String, Value> {
    fields(v, &[("audiences", F::LStr)])
}

fn x509_source(v: &Value) -> Map<String, Value> {
    fields(
        v,
        &[
            ("xfccHeader", F::Str),
            ("clientCertHeader", F::Str),
            ("expression", F::Str),
        ],
    )
}

/// v1.4 (authorino v0.22.0) has no `x509.source`; the v1.4 AuthPolicy CRD prunes it from the input.
fn x509(v: &Value) -> Map<String, Value> {
    fields(
        v,
        &[
            ("selector", F::P(label_selector)),
            ("allNamespaces", F::Bool),
            ("source", F::P(x509_source)),
        ],
    )
}

fn plain_identity(v: &Value) -> Map<String, Value> {
    fields(v, &[("selector", F::Str), ("expression", F::Str)])
}

fn empty(_: &Value) -> Map<String, Value> {
    Map::new()
}

fn authentication(v: &Value) -> Map<String, Value> {
    fields(
        v,
        &[
            ("", F::Inline(common)),
            ("credentials", F::St(credentials)),
            ("overrides", F::M(vos)),
            ("defaults", F::M(vos)),
            ("apiKey", F::P(api_key)),
            ("jwt", F::P(jwt)),
            ("oauth2Introspection", F::P(oauth2_introspection)),
            ("kubernetesTokenReview", F::P(token_review)),
            ("x509", F::P(x509)),
            ("plain", F::P(plain_identity)),
            ("anonymous", F::P(empty)),
        ],
    )
}

fn secret_key_ref(v: &Value) -> Map<String, Value> {
    fields(v, &[("name", F::StrReq), ("key", F::StrReq)])
}

fn oauth2_client(v: &Value) -> Map<String, Value> {
    fields(
        v,
        &[
            ("tokenUrl", F::StrReq),
            ("clientId", F::StrReq),
            ("clientSecretRef", F::St(secret_key_ref)),
            ("scopes", F::LStr),
            ("extraParams", F::MStr),
            ("cache", F::PtrBoolD(true)),
        ],
    )
}

fn http_endpoint(v: &Value) -> Map<String, Value> {
    fields(
        v,
        &[
            ("url", F::Str),
            ("urlExpression", F::Str),
            ("method", F::StrD("GET")),
            ("body", F::P(vos)),
            ("bodyParameters", F::M(vos)),
            ("contentType", F::StrD("application/x-www-form-urlencoded")),
            ("headers", F::M(vos)),
            ("sharedSecretRef", F::P(secret_key_ref)),
            ("oauth2", F::P(oauth2_client)),
            ("credentials", F::St(credentials)),
        ],
    )
}

fn user_info(v: &Value) -> Map<String, Value> {
    fields(v, &[("identitySource", F::Str), ("userInfoUrl", F::Str)])
}

fn uma(v: &Value) -> Map<String, Value> {
    fields(
        v,
        &[("endpoint", F::StrReq), ("credentialsRef", F::P(local_ref))],
    )
}

fn metadata(v: &Value) -> Map<String, Value> {
    fields(
        v,
        &[
            ("", F::Inline(common)),
            ("http", F::P(http_endpoint)),
            ("userInfo", F::P(user_info)),
            ("uma", F::P(uma)),
        ],
    )
}

fn pattern_matching(v: &Value) -> Map<String, Value> {
    fields(v, &[("patterns", F::LReq(peor))])
}

fn external_policy(v: &Value) -> Map<String, Value> {
    fields(v, &[("", F::Inline(http_endpoint)), ("ttl", F::Int)])
}

fn opa(v: &Value) -> Map<String, Value> {
    fields(
        v,
        &[
            ("rego", F::Str),
            ("externalPolicy", F::P(external_policy)),
            ("allValues", F::Bool),
        ],
    )
}

fn resource_attributes(v: &Value) -> Map<String, Value> {
    fields(
        v,
        &[
            ("group", F::St(vos)),
            ("resource", F::St(vos)),
            ("subresource", F::St(vos)),
            ("name", F::St(vos)),
            ("namespace", F::St(vos)),
            ("verb", F::St(vos)),
        ],
    )
}

fn subject_access_review(v: &Value) -> Map<String, Value> {
    fields(
        v,
        &[
            ("user", F::P(vos)),
            ("groups", F::LStr),
            ("authorizationGroups", F::P(vos)),
            ("resourceAttributes", F::P(resource_attributes)),
        ],
    )
}

fn spicedb_object(v: &Value) -> Map<String, Value> {
    fields(v, &[("name", F::St(vos)), ("kind", F::St(vos))])
}

fn spicedb(v: &Value) -> Map<String, Value> {
    fields(
        v,
        &[
            ("endpoint", F::StrReq),
            ("insecure", F::Bool),
            ("sharedSecretRef", F::P(secret_key_ref)),
            ("subject", F::P(spicedb_object)),
            ("resource", F::P(spicedb_object)),
            ("permission", F::St(vos)),
        ],
    )
}

fn authorization(v: &Value) -> Map<String, Value> {
    fields(
        v,
        &[
            ("", F::Inline(common)),
            ("patternMatching", F::P(pattern_matching)),
            ("opa", F::P(opa)),
            ("kubernetesSubjectAccessReview", F::P(subject_access_review)),
            ("spicedb", F::P(spicedb)),
        ],
    )
}

fn callback(v: &Value) -> Map<String, Value> {
    fields(v, &[("", F::Inline(common)), ("http", F::P(http_endpoint))])
}

fn deny_with(v: &Value) -> Map<String, Value> {
    fields(
        v,
        &[
            ("code", F::Int),
            ("message", F::P(vos)),
            ("headers", F::M(vos)),
            ("body", F::P(vos)),
        ],
    )
}

fn json_response(v: &Value) -> Map<String, Value> {
    fields(v, &[("properties", F::MReq(vos))])
}

fn signing_key_ref(v: &Value) -> Map<String, Value> {
    fields(v, &[("name", F::StrReq), ("algorithm", F::StrReq)])
}

fn wristband(v: &Value) -> Map<String, Value> {
    fields(
        v,
        &[
            ("issuer", F::StrReq),
            ("customClaims", F::M(vos)),
            ("tokenDuration", F::PtrInt),
            ("signingKeyRefs", F::LReq(signing_key_ref)),
        ],
    )
}

fn success_response(v: &Value) -> Map<String, Value> {
    fields(
        v,
        &[
            ("", F::Inline(common)),
            ("plain", F::P(vos)),
            ("json", F::P(json_response)),
            ("wristband", F::P(wristband)),
            ("key", F::Str),
        ],
    )
}

/// The effective AuthPolicy rules, by section, as `resolve` hands them over.
#[derive(Default)]
pub(crate) struct AuthSections<'a> {
    pub patterns: Vec<(&'a str, &'a Value)>,
    pub authentication: Vec<(&'a str, &'a Value)>,
    pub metadata: Vec<(&'a str, &'a Value)>,
    pub authorization: Vec<(&'a str, &'a Value)>,
    pub callbacks: Vec<(&'a str, &'a Value)>,
    pub unauthenticated: Option<&'a Value>,
    pub unauthorized: Option<&'a Value>,
    pub success_headers: Vec<(&'a str, &'a Value)>,
    pub success_metadata: Vec<(&'a str, &'a Value)>,
}

impl<'a> AuthSections<'a> {
    /// Sort the rules (section, entry name, value), in key order, into their sections.
    pub(crate) fn from_rules(
        rules: impl IntoIterator<Item = (AuthSection, &'a str, &'a Value)>,
    ) -> Self {
        let mut s = AuthSections::default();
        for (section, name, v) in rules {
            match section {
                AuthSection::Patterns => s.patterns.push((name, v)),
                AuthSection::Authentication => s.authentication.push((name, v)),
                AuthSection::Metadata => s.metadata.push((name, v)),
                AuthSection::Authorization => s.authorization.push((name, v)),
                AuthSection::Callbacks => s.callbacks.push((name, v)),
                AuthSection::Unauthenticated => s.unauthenticated = Some(v),
                AuthSection::Unauthorized => s.unauthorized = Some(v),
                AuthSection::SuccessHeaders => s.success_headers.push((name, v)),
                AuthSection::SuccessMetadata => s.success_metadata.push((name, v)),
            }
        }
        s
    }
}

fn map_of(entries: &[(&str, &Value)], enc: Enc) -> Option<Value> {
    if entries.is_empty() {
        return None;
    }
    Some(Value::Object(
        entries
            .iter()
            .map(|(k, v)| ((*k).to_string(), Value::Object(enc(v))))
            .collect(),
    ))
}

/// The AuthConfig `spec` for one path.
pub(crate) fn spec(name: &str, s: &AuthSections<'_>) -> Value {
    let mut out = Map::new();
    out.insert("hosts".into(), Value::from(vec![name.to_string()]));
    if !s.patterns.is_empty() {
        let pats: Map<String, Value> = s
            .patterns
            .iter()
            .map(|(k, v)| {
                // AuthPolicy `patterns.X.allOf: [...]` becomes AuthConfig `patterns.X: [...]`.
                let list = get(v, "allOf").or(Some(*v)).and_then(Value::as_array);
                let items: Vec<Value> = list
                    .map(|l| l.iter().map(|p| Value::Object(pattern_expr(p))).collect())
                    .unwrap_or_default();
                ((*k).to_string(), Value::Array(items))
            })
            .collect();
        out.insert("patterns".into(), Value::Object(pats));
    }
    for (key, entries, enc) in [
        ("authentication", &s.authentication, authentication as Enc),
        ("metadata", &s.metadata, metadata as Enc),
        ("authorization", &s.authorization, authorization as Enc),
        ("callbacks", &s.callbacks, callback as Enc),
    ] {
        if let Some(v) = map_of(entries, enc) {
            out.insert(key.into(), v);
        }
    }
    let has_response = s.unauthenticated.is_some()
        || s.unauthorized.is_some()
        || !s.success_headers.is_empty()
        || !s.success_metadata.is_empty();
    if has_response {
        let mut r = Map::new();
        if let Some(u) = s.unauthenticated {
            r.insert("unauthenticated".into(), Value::Object(deny_with(u)));
        }
        if let Some(u) = s.unauthorized {
            r.insert("unauthorized".into(), Value::Object(deny_with(u)));
        }
        let mut success = Map::new();
        if let Some(h) = map_of(&s.success_headers, success_response) {
            success.insert("headers".into(), h);
        }
        if let Some(m) = map_of(&s.success_metadata, success_response) {
            success.insert("dynamicMetadata".into(), m);
        }
        r.insert("success".into(), Value::Object(success));
        out.insert("response".into(), Value::Object(r));
    }
    Value::Object(out)
}

/// Set `response.success.dynamicMetadata.kuadrant` to a JSON response whose properties are the
/// `(binding, CEL expression)` pairs extension policies registered (kuadrant-operator v1.5.2 and
/// v1.4.6 `internal/extension/registry.go` `mutateAuthConfig`: the `kuadrant` entry is replaced
/// whole, the rest of the response is kept).
pub(crate) fn add_kuadrant_data(spec: &mut Map<String, Value>, data: &[(String, String)]) {
    let properties: Map<String, Value> = data
        .iter()
        .map(|(k, e)| (k.clone(), serde_json::json!({ "expression": e })))
        .collect();
    let entry = success_response(&serde_json::json!({ "json": { "properties": properties } }));
    let response = spec
        .entry("response")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(response) = response else {
        return;
    };
    let success = response
        .entry("success")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(success) = success else {
        return;
    };
    let metadata = success
        .entry("dynamicMetadata")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(metadata) = metadata {
        metadata.insert("kuadrant".into(), Value::Object(entry));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn g6_api_key_authentication() {
        let authn = json!({"apiKey": {"selector": {"matchLabels": {"app": "toystore"}}},
                           "credentials": {"authorizationHeader": {"prefix": "APIKEY"}}, "unknown": 1});
        let s = AuthSections::from_rules([(AuthSection::Authentication, "apiKey", &authn)]);
        assert_eq!(
            spec("h", &s),
            json!({"hosts": ["h"], "authentication": {"apiKey": {
                "apiKey": {"selector": {"matchLabels": {"app": "toystore"}}},
                "credentials": {"authorizationHeader": {"prefix": "APIKEY"}}}}})
        );
    }

    #[test]
    fn defaults_credentials_and_zero_values() {
        let meta = json!({"http": {"url": "http://x", "body": {"value": {"a": 1.0, "b": null}}}, "priority": 0, "metrics": false,
                          "cache": {"key": {"selector": "s"}}});
        let authz = json!({"kubernetesSubjectAccessReview": {"user": {"selector": "u"}, "resourceAttributes": {"verb": {"value": "get"}}}});
        let plain = json!({"plain": {"selector": "auth.identity.sub"}});
        let anon = json!({"anonymous": {}});
        let pats = json!({"allOf": [{"selector": "a", "operator": "eq", "value": ""}]});
        let unauth = json!({"message": {"value": "no"}});
        let s = AuthSections::from_rules([
            (AuthSection::Metadata, "m", &meta),
            (AuthSection::Authorization, "sar", &authz),
            (AuthSection::SuccessHeaders, "x", &plain),
            (AuthSection::Authentication, "anon", &anon),
            (AuthSection::Patterns, "p", &pats),
            (AuthSection::Unauthenticated, "", &unauth),
        ]);
        let got = spec("h", &s);
        assert_eq!(
            got["metadata"]["m"],
            json!({"http": {"url": "http://x", "method": "GET", "contentType": "application/x-www-form-urlencoded",
                            "body": {"value": {"a": 1, "b": null}}, "credentials": {}},
                   "cache": {"key": {"selector": "s"}, "ttl": 60}})
        );
        assert_eq!(
            got["authorization"]["sar"]["kubernetesSubjectAccessReview"]["resourceAttributes"],
            json!({"group": {}, "resource": {}, "subresource": {}, "name": {}, "namespace": {}, "verb": {"value": "get"}})
        );
        assert_eq!(
            got["authentication"]["anon"],
            json!({"anonymous": {}, "credentials": {}})
        );
        assert_eq!(
            got["patterns"],
            json!({"p": [{"selector": "a", "operator": "eq"}]})
        );
        assert_eq!(
            got["response"],
            json!({"unauthenticated": {"message": {"value": "no"}},
                   "success": {"headers": {"x": {"plain": {"selector": "auth.identity.sub"}}}}})
        );
    }
}
