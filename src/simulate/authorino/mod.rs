//! An offline Authorino: what Authorino would answer for one request, from the AuthConfig `compute`
//! generates (so a simulation checks the generator too), the Secrets of the input and what the user
//! states about the rest. A pure function; it never guesses: when an input to the decision cannot be
//! known offline, the outcome is *undecided*, with what would decide it.
//!
//! Read from authorino v0.24.3 (what authorino-operator v0.23.4, deployed by kuadrant-operator
//! v1.4.6, runs) and v0.26.2 (authorino-operator v0.25.2, kuadrant-operator v1.5.2); the AuthConfigs
//! are written with the v1beta3 types of authorino v0.22.0 (1.4) and v0.25.0 (1.5). What this
//! follows, by phase (`pkg/service/auth_pipeline.go`, `Evaluate`):
//!
//! 1. *Identity* (`evaluateIdentityConfigs`): the `authentication` rules grouped by `priority`,
//!    lowest first; in a group every rule runs at once and the first to succeed wins. A rule whose
//!    `when` does not hold (or fails to evaluate) is skipped. An empty `authentication` is one
//!    `anonymous` rule (`controllers/auth_config_controller.go`). None succeeding: 401, the reason the
//!    one rule's error, or a JSON object of every failed rule's error when there are several, and a
//!    `WWW-Authenticate: <credentials key> realm="<rule>"` challenge per rule
//!    (`evaluators/config.go`). `defaults` then `overrides` extend the identity.
//! 2. *Metadata*: HTTP, UserInfo and UMA need a live server: their objects are only known when the
//!    user states them; a later rule reading `metadata` is undecided otherwise.
//! 3. *Authorization* (`evaluateAuthorizationConfigs`): by priority, every rule must pass; the first
//!    denial is 403 with its message (`Unauthorized` for patterns and OPA).
//! 4. *Response*: success `headers` and `dynamicMetadata` (`json`, `plain`; a wristband cannot be
//!    signed offline), and the `unauthenticated` / `unauthorized` deny-with (code, message, headers,
//!    body), which replace the challenge headers; `X-Ext-Auth-Reason` always carries the message
//!    (`pkg/service/auth.go`, `buildResponseHeadersWithReason`).
//!
//! Callbacks run after the decision and do not change it: they are not simulated.

mod cel;
pub(crate) mod rego;
pub(crate) mod selector;

use cel::{Activation, Cel};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// A Secret of the input as Authorino's API-key rules see it.
#[derive(Clone, Debug)]
pub struct Secret {
    pub namespace: String,
    pub name: String,
    pub labels: BTreeMap<String, String>,
    /// The decoded `api_key` entry of `data`.
    pub api_key: Option<String>,
    /// The object Authorino publishes as the identity (`auth.identity`): the Secret as
    /// `encoding/json` writes a `v1.Secret`.
    pub object: Value,
}

impl Secret {
    /// A Secret from its metadata and `{data, type}` as the model holds it.
    pub fn new(meta: &crate::model::Meta, body: &Value) -> Secret {
        let data = body.get("data").and_then(Value::as_object);
        let api_key = data
            .and_then(|d| d.get("api_key"))
            .and_then(Value::as_str)
            .and_then(|b| data_encoding::BASE64.decode(b.as_bytes()).ok())
            .map(|b| String::from_utf8_lossy(&b).into_owned());
        let mut metadata = Map::new();
        metadata.insert("name".into(), Value::from(meta.name.clone()));
        metadata.insert("namespace".into(), Value::from(meta.namespace.clone()));
        if let Some(uid) = &meta.uid {
            metadata.insert("uid".into(), Value::from(uid.clone()));
        }
        metadata.insert(
            "creationTimestamp".into(),
            meta.creation_timestamp
                .clone()
                .map(Value::from)
                .unwrap_or(Value::Null),
        );
        let strings = |m: &BTreeMap<String, String>| {
            Value::Object(
                m.iter()
                    .map(|(k, v)| (k.clone(), Value::from(v.clone())))
                    .collect(),
            )
        };
        if !meta.labels.is_empty() {
            metadata.insert("labels".into(), strings(&meta.labels));
        }
        if !meta.annotations.is_empty() {
            metadata.insert("annotations".into(), strings(&meta.annotations));
        }
        let mut object = Map::new();
        object.insert("metadata".into(), Value::Object(metadata));
        if let Some(d) = data.filter(|d| !d.is_empty()) {
            object.insert("data".into(), Value::Object(d.clone()));
        }
        if let Some(t) = body.get("type") {
            object.insert("type".into(), t.clone());
        }
        Secret {
            namespace: meta.namespace.clone(),
            name: meta.name.clone(),
            labels: meta.labels.clone(),
            api_key,
            object: Value::Object(object),
        }
    }
}

/// The label Authorino's Secret watcher selects by default (authorino `main.go`,
/// `--secret-label-selector`).
pub const MANAGED_BY: (&str, &str) = ("authorino.kuadrant.io/managed-by", "authorino");

/// What the user states about what policyctl cannot evaluate (`--identity`, `--assume`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Statements {
    /// The identity a rule that needs a live server (Kubernetes TokenReview, OAuth2 token
    /// introspection, X.509, an API key whose Secrets are not in the input) resolves, when the
    /// request carries its credential.
    pub identity: Option<Value>,
    /// `authentication/NAME`, `authorization/NAME`, `metadata/NAME` → the stated outcome: `true` /
    /// `false` (allow or deny, succeed or fail) or an object (an identity, a metadata object).
    pub assume: BTreeMap<String, Value>,
    /// JWKS documents (`--jwks [URL=]FILE`) that JWT signatures are verified against: for the
    /// `issuerUrl` or `jwksUrl` named, or (`None`) for every JWT rule without one of its own.
    pub jwks: std::sync::Arc<Vec<(Option<String>, Value)>>,
}

/// The request as Authorino receives it from the wasm shim (`CheckRequest`).
pub struct CheckRequest<'a> {
    pub method: &'a str,
    pub scheme: &'a str,
    /// `:authority` as the shim sends it.
    pub host: &'a str,
    /// `:path`, with the query.
    pub path: &'a str,
    pub url_path: &'a str,
    pub query: &'a str,
    /// Lower-case names; repeated headers joined with `,`.
    pub headers: &'a BTreeMap<String, String>,
    pub source: Option<(&'a str, u16)>,
    pub destination_port: u16,
    /// The scope the shim sends as the `host` context extension: the AuthConfig's host.
    pub scope: &'a str,
    /// Seconds since the Unix epoch (JWT expiry).
    pub now: i64,
    /// Whether Authorino publishes `request.grpc` (authorino v0.26; not v0.24, which 1.4 deploys).
    pub grpc_attributes: bool,
}

/// Authorino's answer.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase", tag = "verdict")]
pub enum Outcome {
    /// OK: the headers added to the request upstream and the dynamic metadata the shim stores
    /// under `auth`.
    Allowed {
        #[serde(skip_serializing_if = "Option::is_none")]
        identity_rule: Option<String>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        headers: Vec<(String, String)>,
        #[serde(skip_serializing_if = "Map::is_empty")]
        metadata: Map<String, Value>,
    },
    /// UNAUTHENTICATED or PERMISSION_DENIED, as the client sees it.
    Denied {
        status: u16,
        /// The gRPC code Authorino answers with (`UNAUTHENTICATED`, `PERMISSION_DENIED`).
        code: String,
        /// `X-Ext-Auth-Reason`.
        reason: String,
        headers: Vec<(String, String)>,
        #[serde(skip_serializing_if = "Option::is_none")]
        body: Option<String>,
        /// `authentication` or `authorization`, and the rule that denied when one did.
        phase: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        rule: Option<String>,
    },
    /// Unknowable offline: what would decide it.
    Undecided { reason: String },
}

/// One step of the evaluation, for the trace.
pub type Steps = Vec<String>;

/// An evaluation that may be unknowable offline.
#[derive(Clone, Debug, PartialEq)]
enum Ev<T> {
    Ok(T),
    /// Authorino's error (the rule fails, or the condition is not met).
    Err(String),
    /// Undecided, with what would decide it.
    Unknown(String),
}

/// The evaluator: the CEL environment and the compiled Rego policies, shared by every request of a
/// simulation.
#[derive(Default)]
pub struct Authorino {
    cel: Cel,
    rego: rego::Policies,
    /// The Authorino instance's deployment settings.
    instance: Instance,
}

impl Authorino {
    /// An evaluator for the Authorino instance `instance`.
    pub fn new(instance: Instance) -> Authorino {
        Authorino {
            instance,
            ..Authorino::default()
        }
    }
}

/// What the Authorino custom resource decides for API keys (authorino-operator v0.23.4 / v0.25.2
/// `api/v1beta1/authorino_types.go`): `clusterWide` (`allNamespaces` is honoured only then) and
/// `secretLabelSelectors` (the Secrets its watcher sees; `authorino.kuadrant.io/managed-by=authorino`
/// by default, authorino `main.go`). The Kuadrant operator creates its Authorino cluster-wide
/// (kuadrant-operator v1.4.6 and v1.5.2 internal/controller/authorino_reconciler.go).
#[derive(Clone, Debug, PartialEq)]
pub struct Instance {
    pub cluster_wide: bool,
    /// `key=value` requirements, all of which a watched Secret's labels meet; `None` for a
    /// selector policyctl cannot read (a Secret it would need is then undecided).
    pub secret_labels: Option<Vec<(String, String)>>,
    /// The selector as written.
    pub secret_selector: String,
}

impl Default for Instance {
    fn default() -> Self {
        Instance {
            cluster_wide: true,
            secret_labels: Some(vec![(MANAGED_BY.0.to_string(), MANAGED_BY.1.to_string())]),
            secret_selector: format!("{}={}", MANAGED_BY.0, MANAGED_BY.1),
        }
    }
}

impl Instance {
    /// The settings of an Authorino object's `spec` (`clusterWide` is false when absent: the field
    /// has no default).
    pub fn from_spec(spec: &Value) -> Instance {
        let mut i = Instance {
            cluster_wide: spec.get("clusterWide").and_then(Value::as_bool) == Some(true),
            ..Instance::default()
        };
        if let Some(sel) = spec
            .get("secretLabelSelectors")
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
        {
            i.secret_selector = sel.to_string();
            i.secret_labels = sel
                .split(',')
                .map(
                    |part| match part.split_once("==").or_else(|| part.split_once('=')) {
                        Some((k, v)) if !k.trim().is_empty() && !k.contains('!') => {
                            Some((k.trim().to_string(), v.trim().to_string()))
                        }
                        _ => None,
                    },
                )
                .collect();
        }
        i
    }
}

/// The mutable state of one evaluation (authorino `AuthPipeline`).
struct Pipeline<'a> {
    config: &'a Map<String, Value>,
    request: Value,
    identity: Option<Value>,
    metadata: Map<String, Value>,
    /// Metadata rules whose objects are unknown offline.
    unknown_metadata: Vec<String>,
    authorization: Map<String, Value>,
    response: Map<String, Value>,
    steps: Steps,
}

fn obj<'v>(v: &'v Value, key: &str) -> Option<&'v Map<String, Value>> {
    v.get(key).and_then(Value::as_object)
}

/// The rules of a section, `(name, rule)`, in name order (the AuthConfig's keys are sorted).
fn rules(section: Option<&Value>) -> Vec<(&str, &Value)> {
    section
        .and_then(Value::as_object)
        .map(|m| m.iter().map(|(k, v)| (k.as_str(), v)).collect())
        .unwrap_or_default()
}

fn priority(rule: &Value) -> i64 {
    rule.get("priority").and_then(Value::as_i64).unwrap_or(0)
}

/// Rules grouped by priority, lowest first (authorino `groupAuthConfigsByPriority`).
fn by_priority<'v>(rules: Vec<(&'v str, &'v Value)>) -> Vec<(i64, Vec<(&'v str, &'v Value)>)> {
    let mut groups: BTreeMap<i64, Vec<(&'v str, &'v Value)>> = BTreeMap::new();
    for (n, r) in rules {
        groups.entry(priority(r)).or_default().push((n, r));
    }
    groups.into_iter().collect()
}

impl<'a> Pipeline<'a> {
    /// The authorization JSON (authorino `GetAuthorizationJSON`): the request's well-known
    /// attributes, the deprecated `context`, and `auth` with what the pipeline resolved so far.
    fn json(&self) -> Value {
        let mut doc = self.request.clone();
        let mut auth = Map::new();
        if let Some(id) = &self.identity {
            auth.insert("identity".into(), id.clone());
        }
        for (key, m) in [
            ("metadata", &self.metadata),
            ("authorization", &self.authorization),
            ("response", &self.response),
        ] {
            if !m.is_empty() {
                auth.insert(key.into(), Value::Object(m.clone()));
            }
        }
        if let Value::Object(d) = &mut doc {
            d.insert("auth".into(), Value::Object(auth));
        }
        doc
    }
}

/// The well-known attributes of a request (authorino `pkg/service/well_known_attributes.go`) and
/// the deprecated `context` (Envoy's `AttributeContext`), empty fields left out.
fn request_json(r: &CheckRequest<'_>) -> Value {
    let headers: Map<String, Value> = r
        .headers
        .iter()
        .map(|(k, v)| (k.clone(), Value::from(v.clone())))
        .collect();
    let mut req = Map::new();
    let put = |m: &mut Map<String, Value>, k: &str, v: &str| {
        if !v.is_empty() {
            m.insert(k.into(), Value::from(v));
        }
    };
    // gRPC runs on HTTP/2 only; a plain request is taken as curl sends one.
    let grpc = (r.headers.get("content-type"))
        .is_some_and(|c| crate::simulate::request::is_grpc_content_type(c));
    let protocol = if grpc { "HTTP/2" } else { "HTTP/1.1" };
    put(&mut req, "protocol", protocol);
    put(&mut req, "scheme", r.scheme);
    put(&mut req, "host", r.host);
    put(&mut req, "method", r.method);
    put(&mut req, "path", r.path);
    put(&mut req, "url_path", r.url_path);
    put(&mut req, "query", r.query);
    req.insert("headers".into(), Value::Object(headers.clone()));
    if let Some(v) = r.headers.get("referer") {
        put(&mut req, "referer", v);
    }
    if let Some(v) = r.headers.get("user-agent") {
        put(&mut req, "user_agent", v);
    }
    // gRPC requests get `request.grpc` (authorino v0.26: `parseGRPCPath`; v0.24.3, which 1.4
    // deploys, has no such attribute).
    if grpc
        && r.grpc_attributes
        && let Some((service, method)) = crate::simulate::request::grpc_service_method(r.url_path)
    {
        req.insert(
            "grpc".into(),
            serde_json::json!({"service": service, "method": method}),
        );
    }
    let ext = serde_json::json!({"host": r.scope});
    req.insert("context_extensions".into(), ext.clone());
    let mut source = Map::new();
    if let Some((a, p)) = r.source {
        put(&mut source, "address", a);
        if p != 0 {
            source.insert("port".into(), Value::from(p));
        }
    }
    let mut destination = Map::new();
    destination.insert("port".into(), Value::from(r.destination_port));
    let mut http = Map::new();
    put(&mut http, "method", r.method);
    put(&mut http, "path", r.path);
    put(&mut http, "host", r.host);
    put(&mut http, "scheme", r.scheme);
    put(&mut http, "protocol", protocol);
    http.insert("headers".into(), Value::Object(headers));
    serde_json::json!({
        "context": {"request": {"http": http}, "context_extensions": ext},
        "request": req,
        "source": source,
        "destination": destination,
    })
}

/// Where a rule's credentials are (authorino `pkg/auth/credentials.go`): `(in, key)`, the
/// `Authorization` header with prefix `Bearer` by default.
fn credentials(rule: &Value) -> (&'static str, String) {
    let c = rule.get("credentials");
    let get = |k: &str, f: &str| {
        c.and_then(|c| c.get(k))
            .map(|x| x.get(f).and_then(Value::as_str).unwrap_or("").to_string())
    };
    let (in_, key) = if let Some(p) = get("authorizationHeader", "prefix") {
        ("authorization_header", p)
    } else if let Some(n) = get("customHeader", "name") {
        ("custom_header", n)
    } else if let Some(n) = get("queryString", "name") {
        ("query", n)
    } else if let Some(n) = get("cookie", "name") {
        ("cookie", n)
    } else {
        ("authorization_header", String::new())
    };
    let key = if key.is_empty() {
        "Bearer".to_string()
    } else {
        key
    };
    (in_, key)
}

/// The credential of a request (authorino `GetCredentialsFromReq`); `Err`: Authorino's message.
fn credential(r: &CheckRequest<'_>, in_: &str, key: &str) -> Result<String, String> {
    const NOT_FOUND: &str = "credential not found";
    match in_ {
        "custom_header" => r
            .headers
            .get(&key.to_ascii_lowercase())
            .cloned()
            .ok_or_else(|| NOT_FOUND.into()),
        "authorization_header" => r
            .headers
            .get("authorization")
            .and_then(|h| h.strip_prefix(&format!("{key} ")))
            .map(str::to_owned)
            .ok_or_else(|| NOT_FOUND.into()),
        "cookie" => r
            .headers
            .get("cookie")
            .and_then(|h| {
                h.split(';')
                    .map(str::trim)
                    .find_map(|kv| kv.strip_prefix(&format!("{key}=")))
            })
            .map(str::to_owned)
            .ok_or_else(|| NOT_FOUND.into()),
        "query" => {
            // `([?&]KEY=)(?P<credValue>[^&]*)` over the path with its query; KEY is a regular
            // expression there, as in Go.
            let re = regex::Regex::new(&format!("([?&]{key}=)(?P<v>[^&]*)"))
                .map_err(|_| NOT_FOUND.to_string())?;
            re.captures(r.path)
                .and_then(|c| c.name("v"))
                .map(|m| m.as_str().to_string())
                .ok_or_else(|| NOT_FOUND.into())
        }
        _ => Err("the credential location is not supported".into()),
    }
}

/// Whether a label selector (`matchLabels`, `matchExpressions`) selects `labels`
/// (apimachinery `LabelSelectorAsSelector`). `None`: an operator it does not know.
fn selects(selector: Option<&Value>, labels: &BTreeMap<String, String>) -> Option<bool> {
    let Some(sel) = selector else {
        // A nil selector selects nothing (apimachinery `LabelSelectorAsSelector`).
        return Some(false);
    };
    if let Some(m) = obj(sel, "matchLabels") {
        for (k, v) in m {
            if labels.get(k).map(String::as_str) != v.as_str() {
                return Some(false);
            }
        }
    }
    for e in sel
        .get("matchExpressions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let key = e.get("key").and_then(Value::as_str).unwrap_or("");
        let values: Vec<&str> = e
            .get("values")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let have = labels.get(key);
        let ok = match e.get("operator").and_then(Value::as_str).unwrap_or("") {
            "In" => have.is_some_and(|h| values.contains(&h.as_str())),
            "NotIn" => have.is_none_or(|h| !values.contains(&h.as_str())),
            "Exists" => have.is_some(),
            "DoesNotExist" => have.is_none(),
            _ => return None,
        };
        if !ok {
            return Some(false);
        }
    }
    Some(true)
}

/// A `when` / `patterns` list (authorino `buildPredicates`): every entry must hold.
enum Cond<'v> {
    Pattern {
        selector: &'v str,
        operator: &'v str,
        value: &'v str,
    },
    Predicate(&'v str),
    All(Vec<Cond<'v>>),
    Any(Vec<Cond<'v>>),
}

fn build<'v>(config: &'v Map<String, Value>, list: Option<&'v Value>) -> Vec<Cond<'v>> {
    let mut out = Vec::new();
    for p in list.and_then(Value::as_array).into_iter().flatten() {
        let s = |k: &str| p.get(k).and_then(Value::as_str).unwrap_or("");
        let pattern = |e: &'v Value| Cond::Pattern {
            selector: e.get("selector").and_then(Value::as_str).unwrap_or(""),
            operator: e.get("operator").and_then(Value::as_str).unwrap_or(""),
            value: e.get("value").and_then(Value::as_str).unwrap_or(""),
        };
        let named = config
            .get("patterns")
            .and_then(|n| n.get(s("patternRef")))
            .and_then(Value::as_array);
        if let Some(list) = named {
            out.extend(list.iter().map(pattern));
        } else if !s("operator").is_empty() {
            out.push(pattern(p));
        } else if !s("predicate").is_empty() {
            out.push(Cond::Predicate(
                p.get("predicate").and_then(Value::as_str).unwrap_or(""),
            ));
        }
        if p.get("all")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
        {
            out.push(Cond::All(build(config, p.get("all"))));
        }
        if p.get("any")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
        {
            out.push(Cond::Any(build(config, p.get("any"))));
        }
    }
    out
}

impl Authorino {
    /// Evaluate one condition over the authorization JSON `text` (and `doc`, its value).
    fn cond(&self, c: &Cond<'_>, doc: &Value, text: &str, unknown: &[String]) -> Ev<bool> {
        match c {
            Cond::Pattern {
                selector,
                operator,
                value,
            } => {
                if let Some(r) = reads_unknown(selector, unknown) {
                    return Ev::Unknown(r);
                }
                // A missing field selects "": any comparison with it would be a guess.
                if let Some(r) = needs_missing(selector, doc) {
                    return Ev::Unknown(r);
                }
                match *operator {
                    "eq" => Ev::Ok(selector::get_string(text, selector) == *value),
                    "neq" => Ev::Ok(selector::get_string(text, selector) != *value),
                    "incl" => Ev::Ok(
                        selector::get_array_strings(text, selector)
                            .iter()
                            .any(|x| x == value),
                    ),
                    "excl" => Ev::Ok(
                        !selector::get_array_strings(text, selector)
                            .iter()
                            .any(|x| x == value),
                    ),
                    "matches" => match regex::Regex::new(value) {
                        Ok(re) => Ev::Ok(re.is_match(&selector::get_string(text, selector))),
                        Err(e) => Ev::Err(format!("error parsing regexp: {e}")),
                    },
                    _ => Ev::Err("unsupported operator for json authorization".into()),
                }
            }
            Cond::Predicate(src) => {
                if let Some(r) = reads_unknown(src, unknown) {
                    return Ev::Unknown(r);
                }
                if let Err(e) = self.cel.compiles(src) {
                    return Ev::Unknown(format!(
                        "Authorino would refuse the AuthConfig: the predicate {e}"
                    ));
                }
                match self.cel.eval(src, &activation(&self.cel, doc)) {
                    Ok(::cel::Value::Bool(b)) => Ev::Ok(b),
                    Ok(other) => Ev::Err(format!("{src}: not a boolean: {other:?}")),
                    Err(e) => needs_missing(src, doc).map_or(Ev::Err(e), Ev::Unknown),
                }
            }
            Cond::All(list) => self.all(list, doc, text, unknown),
            Cond::Any(list) => {
                // jsonexp `Or`: the first that holds; an error ends it.
                let mut undecided = None;
                for c in list {
                    match self.cond(c, doc, text, unknown) {
                        Ev::Ok(true) => return Ev::Ok(true),
                        Ev::Ok(false) => {}
                        Ev::Err(e) => return undecided.map(Ev::Unknown).unwrap_or(Ev::Err(e)),
                        Ev::Unknown(r) => undecided = undecided.or(Some(r)),
                    }
                }
                undecided.map(Ev::Unknown).unwrap_or(Ev::Ok(false))
            }
        }
    }

    /// jsonexp `All`: each in order; the first that fails or errs ends it.
    fn all(&self, list: &[Cond<'_>], doc: &Value, text: &str, unknown: &[String]) -> Ev<bool> {
        let mut undecided = None;
        for c in list {
            match self.cond(c, doc, text, unknown) {
                Ev::Ok(true) => {}
                Ev::Ok(false) => return undecided.map(Ev::Unknown).unwrap_or(Ev::Ok(false)),
                Ev::Err(e) => return undecided.map(Ev::Unknown).unwrap_or(Ev::Err(e)),
                Ev::Unknown(r) => undecided = undecided.or(Some(r)),
            }
        }
        undecided.map(Ev::Unknown).unwrap_or(Ev::Ok(true))
    }

    /// Whether a rule's `when` holds: `Ok(false)` and `Err` both skip the rule.
    fn when(&self, p: &Pipeline<'_>, rule: &Value) -> Ev<bool> {
        let conds = build(p.config, rule.get("when"));
        if conds.is_empty() {
            return Ev::Ok(true);
        }
        let doc = p.json();
        let text = doc.to_string();
        self.all(&conds, &doc, &text, &p.unknown_metadata)
    }

    /// A `{value | selector | expression}` (authorino `valueFrom` / `getJsonFromStaticDynamic`).
    fn value(&self, v: &Value, doc: &Value, text: &str, unknown: &[String]) -> Ev<Value> {
        if let Some(src) = v
            .get("expression")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            if let Some(r) = reads_unknown(src, unknown) {
                return Ev::Unknown(r);
            }
            if let Err(e) = self.cel.compiles(src) {
                return Ev::Unknown(format!(
                    "Authorino would refuse the AuthConfig: the expression {e}"
                ));
            }
            return match self.cel.eval(src, &activation(&self.cel, doc)) {
                Ok(v) => match cel::cel_to_json(&v) {
                    Some(j) => Ev::Ok(j),
                    None => Ev::Err(format!("{src}: the value is not JSON")),
                },
                Err(e) => needs_missing(src, doc).map_or(Ev::Err(e), Ev::Unknown),
            };
        }
        if let Some(sel) = v
            .get("selector")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            if let Some(r) = reads_unknown(sel, unknown).or_else(|| needs_missing(sel, doc)) {
                return Ev::Unknown(r);
            }
            return Ev::Ok(selector::resolve(sel, text));
        }
        Ev::Ok(v.get("value").cloned().unwrap_or(Value::Null))
    }

    /// What Authorino answers for `req` with the AuthConfig `spec`.
    pub fn evaluate(
        &self,
        config_name: &str,
        spec: &Map<String, Value>,
        req: &CheckRequest<'_>,
        secrets: &[Secret],
        authconfig_namespace: &str,
        stated: &Statements,
    ) -> (Outcome, Steps) {
        let mut p = Pipeline {
            config: spec,
            request: request_json(req),
            identity: None,
            metadata: Map::new(),
            unknown_metadata: vec![],
            authorization: Map::new(),
            response: Map::new(),
            steps: vec![],
        };
        let outcome = self.run(
            config_name,
            &mut p,
            req,
            secrets,
            authconfig_namespace,
            stated,
        );
        (outcome, p.steps)
    }

    fn run(
        &self,
        config_name: &str,
        p: &mut Pipeline<'_>,
        req: &CheckRequest<'_>,
        secrets: &[Secret],
        ns: &str,
        stated: &Statements,
    ) -> Outcome {
        // Phase 1: identity.
        let anonymous = serde_json::json!({"anonymous": {}, "credentials": {}});
        let mut authn = rules(p.config.get("authentication"));
        if authn.is_empty() {
            p.steps
                .push("no authentication rule: anonymous access (Authorino's default)".into());
            authn = vec![("anonymous", &anonymous)];
        }
        let count = authn.len();
        let mut errors: BTreeMap<String, String> = BTreeMap::new();
        let mut found: Option<(String, Value)> = None;
        for (prio, group) in by_priority(authn.clone()) {
            let mut successes: Vec<(String, Value)> = Vec::new();
            let mut unknown: Vec<String> = Vec::new();
            for (name, rule) in &group {
                match self.when(p, rule) {
                    Ev::Ok(true) => {}
                    Ev::Ok(false) | Ev::Err(_) => {
                        p.steps.push(format!(
                            "authentication {name:?}: skipped, its `when` does not hold"
                        ));
                        continue;
                    }
                    Ev::Unknown(r) => {
                        unknown.push(format!("authentication {name:?}: {r}"));
                        continue;
                    }
                }
                match self.identity(p, name, rule, req, secrets, ns, stated) {
                    Ev::Ok(id) => match self.extend(p, rule, id) {
                        Ev::Ok(id) => {
                            p.steps.push(format!("authentication {name:?}: succeeded"));
                            successes.push((name.to_string(), id));
                        }
                        Ev::Err(e) => {
                            p.steps
                                .push(format!("authentication {name:?}: failed: {e}"));
                            errors.insert(name.to_string(), e);
                        }
                        Ev::Unknown(r) => unknown.push(format!("authentication {name:?}: {r}")),
                    },
                    Ev::Err(e) => {
                        p.steps
                            .push(format!("authentication {name:?}: failed: {e}"));
                        errors.insert(name.to_string(), e);
                    }
                    Ev::Unknown(r) => unknown.push(format!("authentication {name:?}: {r}")),
                }
            }
            if !unknown.is_empty() {
                let what = if successes.is_empty() {
                    "whether the request is authenticated"
                } else {
                    "which identity Authorino takes (rules of one priority race; the first to succeed wins)"
                };
                return Outcome::Undecided {
                    reason: format!("{what}: {}", unknown.join("; ")),
                };
            }
            if successes.len() > 1 {
                let first = &successes[0].1;
                if successes.iter().any(|(_, id)| id != first) {
                    let names: Vec<&str> = successes.iter().map(|(n, _)| n.as_str()).collect();
                    return Outcome::Undecided {
                        reason: format!(
                            "rules {} of priority {prio} all authenticate the request, with different identities; Authorino takes whichever answers first",
                            names.join(", ")
                        ),
                    };
                }
            }
            if let Some(s) = successes.into_iter().next() {
                found = Some(s);
                break;
            }
        }
        let Some((identity_rule, identity)) = found else {
            let reason = if count == 1 {
                errors
                    .values()
                    .next()
                    .cloned()
                    .unwrap_or_else(|| "{}".into())
            } else {
                serde_json::to_string(&errors).unwrap_or_default()
            };
            let mut challenge = Vec::new();
            for (name, rule) in &authn {
                let (_, key) = credentials(rule);
                challenge.push((
                    "WWW-Authenticate".to_string(),
                    format!("{key} realm=\"{name}\""),
                ));
            }
            return self.deny(
                p,
                "unauthenticated",
                401,
                "UNAUTHENTICATED",
                reason,
                challenge,
                "authentication",
                None,
            );
        };
        p.identity = Some(identity);

        // Phase 2: metadata.
        for (_, group) in by_priority(rules(p.config.get("metadata"))) {
            for (name, rule) in group {
                match self.when(p, rule) {
                    Ev::Ok(true) => {}
                    Ev::Ok(false) | Ev::Err(_) => continue,
                    Ev::Unknown(r) => {
                        return Outcome::Undecided {
                            reason: format!("metadata {name:?}: {r}"),
                        };
                    }
                }
                match stated.assume.get(&format!("metadata/{name}")) {
                    Some(v) => {
                        p.steps.push(format!("metadata {name:?}: as stated"));
                        p.metadata.insert(name.to_string(), v.clone());
                    }
                    None => {
                        p.steps.push(format!(
                            "metadata {name:?}: fetched from a live service, unknown offline (state it with --assume metadata/{name}=JSON)"
                        ));
                        p.unknown_metadata.push(name.to_string());
                    }
                }
            }
        }

        // Phase 3: authorization.
        for (_, group) in by_priority(rules(p.config.get("authorization"))) {
            let mut denied: Option<(String, String)> = None;
            let mut unknown: Vec<String> = Vec::new();
            let mut granted: Vec<(String, Value)> = Vec::new();
            for (name, rule) in group {
                match self.when(p, rule) {
                    Ev::Ok(true) => {}
                    Ev::Ok(false) | Ev::Err(_) => {
                        p.steps.push(format!(
                            "authorization {name:?}: skipped, its `when` does not hold"
                        ));
                        continue;
                    }
                    Ev::Unknown(r) => {
                        unknown.push(format!("authorization {name:?}: {r}"));
                        continue;
                    }
                }
                match self.authorize(config_name, p, name, rule, stated) {
                    Ev::Ok(v) => {
                        p.steps.push(format!("authorization {name:?}: granted"));
                        granted.push((name.to_string(), v));
                    }
                    Ev::Err(e) => {
                        p.steps.push(format!("authorization {name:?}: denied: {e}"));
                        if denied.is_none() {
                            denied = Some((name.to_string(), e));
                        }
                    }
                    Ev::Unknown(r) => unknown.push(format!("authorization {name:?}: {r}")),
                }
            }
            if let Some((rule, reason)) = denied {
                return self.deny(
                    p,
                    "unauthorized",
                    403,
                    "PERMISSION_DENIED",
                    reason,
                    vec![],
                    "authorization",
                    Some(rule),
                );
            }
            if !unknown.is_empty() {
                return Outcome::Undecided {
                    reason: unknown.join("; "),
                };
            }
            for (n, v) in granted {
                p.authorization.insert(n, v);
            }
        }

        // Phase 4: success responses.
        let response = p.config.get("response");
        let success = response.and_then(|r| r.get("success"));
        let mut headers = Vec::new();
        let mut metadata = Map::new();
        let mut all: Vec<(&str, &Value, bool)> = Vec::new();
        for (n, r) in rules(success.and_then(|s| s.get("headers"))) {
            all.push((n, r, true));
        }
        for (n, r) in rules(success.and_then(|s| s.get("dynamicMetadata"))) {
            all.push((n, r, false));
        }
        let mut groups: BTreeMap<i64, Vec<(&str, &Value, bool)>> = BTreeMap::new();
        for e in all {
            groups.entry(priority(e.1)).or_default().push(e);
        }
        for (_, group) in groups {
            let mut built = Vec::new();
            for (name, rule, header) in group {
                match self.when(p, rule) {
                    Ev::Ok(true) => {}
                    Ev::Ok(false) | Ev::Err(_) => continue,
                    Ev::Unknown(r) => {
                        return Outcome::Undecided {
                            reason: format!("response {name:?}: {r}"),
                        };
                    }
                }
                let doc = p.json();
                let text = doc.to_string();
                let key = rule
                    .get("key")
                    .and_then(Value::as_str)
                    .filter(|k| !k.is_empty())
                    .unwrap_or(name)
                    .to_string();
                let value = if let Some(j) = rule.get("json") {
                    let mut out = Map::new();
                    let mut failed = None;
                    for (prop, v) in j
                        .get("properties")
                        .and_then(Value::as_object)
                        .into_iter()
                        .flatten()
                    {
                        match self.value(v, &doc, &text, &p.unknown_metadata) {
                            Ev::Ok(x) => {
                                out.insert(prop.clone(), x);
                            }
                            Ev::Err(e) => failed = Some(Ev::Err(e)),
                            Ev::Unknown(r) => failed = Some(Ev::Unknown(r)),
                        }
                    }
                    failed.unwrap_or(Ev::Ok((Value::Object(out), true)))
                } else if let Some(v) = rule.get("plain") {
                    match self.value(v, &doc, &text, &p.unknown_metadata) {
                        Ev::Ok(x) => Ev::Ok((x, false)),
                        Ev::Err(e) => Ev::Err(e),
                        Ev::Unknown(r) => Ev::Unknown(r),
                    }
                } else {
                    Ev::Unknown(format!(
                        "response {name:?} is a Festival Wristband, a token Authorino signs with keys policyctl does not have"
                    ))
                };
                match value {
                    Ev::Ok((v, json)) => built.push((name.to_string(), key, v, json, header)),
                    Ev::Err(e) => p.steps.push(format!(
                        "response {name:?}: not built ({e}); Authorino leaves it out"
                    )),
                    Ev::Unknown(r) => {
                        return Outcome::Undecided { reason: r };
                    }
                }
            }
            for (name, key, v, json, header) in built {
                p.response.insert(name, v.clone());
                if header {
                    let text = if json {
                        stringify(&v)
                    } else {
                        crate::gofmt::sprint(&v)
                    };
                    headers.push((key, text));
                } else {
                    metadata.insert(key, v);
                }
            }
        }
        headers.sort();
        Outcome::Allowed {
            identity_rule: Some(identity_rule),
            headers,
            metadata,
        }
    }

    /// A denial, customised by the deny-with of `which` (`unauthenticated`, `unauthorized`).
    #[allow(clippy::too_many_arguments)]
    fn deny(
        &self,
        p: &mut Pipeline<'_>,
        which: &str,
        status: u16,
        code: &str,
        mut reason: String,
        mut headers: Vec<(String, String)>,
        phase: &str,
        rule: Option<String>,
    ) -> Outcome {
        let mut status = status;
        let mut body = None;
        if let Some(d) = p.config.get("response").and_then(|r| r.get(which)) {
            let doc = p.json();
            let text = doc.to_string();
            let unknown = p.unknown_metadata.clone();
            if let Some(c) = d.get("code").and_then(Value::as_u64).filter(|c| *c != 0) {
                status = u16::try_from(c).unwrap_or(status);
            }
            // A deny-with value that fails to resolve is written empty (its error is ignored).
            let resolve = |v: &Value| -> Result<String, String> {
                match self.value(v, &doc, &text, &unknown) {
                    Ev::Ok(x) => Ok(stringify(&x)),
                    Ev::Err(_) => Ok(String::new()),
                    Ev::Unknown(r) => Err(r),
                }
            };
            if let Some(m) = d.get("message") {
                match resolve(m) {
                    Ok(m) => reason = m,
                    Err(r) => return Outcome::Undecided { reason: r },
                }
            }
            if let Some(b) = d.get("body") {
                match resolve(b) {
                    Ok(b) => body = Some(b),
                    Err(r) => return Outcome::Undecided { reason: r },
                }
            }
            if let Some(h) = d
                .get("headers")
                .and_then(Value::as_object)
                .filter(|h| !h.is_empty())
            {
                headers.clear();
                for (name, v) in h {
                    match resolve(v) {
                        Ok(x) => headers.push((name.clone(), x)),
                        Err(r) => return Outcome::Undecided { reason: r },
                    }
                }
            }
        }
        headers.push(("X-Ext-Auth-Reason".into(), reason.clone()));
        Outcome::Denied {
            status,
            code: code.into(),
            reason,
            headers,
            body: body.filter(|b| !b.is_empty()),
            phase: phase.into(),
            rule,
        }
    }

    /// One authentication rule's identity object.
    #[allow(clippy::too_many_arguments)]
    fn identity(
        &self,
        p: &mut Pipeline<'_>,
        name: &str,
        rule: &Value,
        req: &CheckRequest<'_>,
        secrets: &[Secret],
        ns: &str,
        stated: &Statements,
    ) -> Ev<Value> {
        if let Some(v) = stated.assume.get(&format!("authentication/{name}")) {
            return match v {
                Value::Bool(false) | Value::Null => Ev::Err("failed (as stated)".into()),
                Value::Object(_) => Ev::Ok(v.clone()),
                _ => Ev::Ok(stated.identity.clone().unwrap_or(serde_json::json!({}))),
            };
        }
        let (in_, key) = credentials(rule);
        if rule.get("anonymous").is_some() {
            return Ev::Ok(serde_json::json!({"anonymous": true}));
        }
        if let Some(plain) = rule.get("plain") {
            let doc = p.json();
            let text = doc.to_string();
            return match self.value(plain, &doc, &text, &p.unknown_metadata) {
                Ev::Ok(Value::Null) => Ev::Err("could not retrieve identity object or null".into()),
                other => other,
            };
        }
        // X.509 reads the client certificate of the connection (or a forwarded-certificate header),
        // not a credential of the request: only a live server knows it.
        let cred = if rule.get("x509").is_some() {
            String::new()
        } else {
            match credential(req, in_, &key) {
                Ok(c) => c,
                Err(e) => return Ev::Err(e),
            }
        };
        if let Some(api) = rule.get("apiKey") {
            // `allNamespaces` counts only for a cluster-wide Authorino (auth_config_controller.go).
            let all = api.get("allNamespaces").and_then(Value::as_bool) == Some(true)
                && self.instance.cluster_wide;
            let mut scope: Vec<&Secret> = Vec::new();
            for s in secrets {
                if !all && s.namespace != ns {
                    continue;
                }
                match selects(api.get("selector"), &s.labels) {
                    Some(true) => scope.push(s),
                    Some(false) => {}
                    None => {
                        return Ev::Unknown(format!(
                            "the label selector of rule {name:?} has an operator policyctl does not know"
                        ));
                    }
                }
            }
            // Authorino indexes the Secrets by key: a later one (the API server lists by
            // namespace, then name) replaces an earlier one with the same key.
            let hit = scope.iter().rev().find(|s| {
                s.api_key
                    .as_deref()
                    .is_some_and(|k| !k.is_empty() && k == cred)
            });
            if let Some(s) = hit {
                let watched = self
                    .instance
                    .secret_labels
                    .as_ref()
                    .is_some_and(|l| l.iter().all(|(k, v)| s.labels.get(k) == Some(v)));
                if !watched {
                    return Ev::Unknown(format!(
                        "Secret {}/{} holds the key, but policyctl cannot tell that Authorino's Secret watcher selects it ({}): Authorino knows it only if it existed when the AuthConfig was last reconciled",
                        s.namespace, s.name, self.instance.secret_selector
                    ));
                }
                p.steps.push(format!(
                    "authentication {name:?}: the API key is Secret {}/{}",
                    s.namespace, s.name
                ));
                return Ev::Ok(s.object.clone());
            }
            if scope.is_empty() {
                // The input says nothing of the Secrets this rule selects: the cluster's decide.
                return match &stated.identity {
                    Some(id) => {
                        p.steps.push(format!(
                            "authentication {name:?}: no Secret of the input is selected; the identity given (--identity) stands for the one it would find"
                        ));
                        Ev::Ok(id.clone())
                    }
                    None => Ev::Unknown(format!(
                        "no Secret of the input is selected by its `apiKey.selector`{}: the cluster's Secrets decide (add them to the input, or pass --identity)",
                        if all {
                            ""
                        } else {
                            " in the Authorino namespace"
                        }
                    )),
                };
            }
            return Ev::Err("the API Key provided is invalid".into());
        }
        if let Some(jwt) = rule.get("jwt") {
            let url = jwt
                .get("issuerUrl")
                .or_else(|| jwt.get("jwksUrl"))
                .and_then(Value::as_str)
                .unwrap_or("");
            let jwks = stated
                .jwks
                .iter()
                .find(|(u, _)| u.as_deref() == Some(url))
                .or_else(|| stated.jwks.iter().find(|(u, _)| u.is_none()))
                .map(|(_, k)| k);
            let claims = match jwks {
                Some(set) => match verify_jwt(&cred, set) {
                    Ok(()) => {
                        p.steps.push(format!(
                            "authentication {name:?}: the JWT's signature is verified with the JWKS given for {url}"
                        ));
                        jwt_claims(&cred, req.now)
                    }
                    Err(e) => Err(e),
                },
                None => jwt_claims(&cred, req.now).inspect(|_| {
                    p.steps.push(format!(
                        "authentication {name:?}: the JWT's claims are decoded; its signature is not verified offline (give the issuer's keys with --jwks)"
                    ));
                }),
            };
            return claims.map_or_else(Ev::Err, Ev::Ok);
        }
        let method = ["kubernetesTokenReview", "oauth2Introspection", "x509"]
            .into_iter()
            .find(|m| rule.get(m).is_some())
            .unwrap_or("this method");
        match &stated.identity {
            Some(id) => {
                p.steps.push(format!(
                    "authentication {name:?}: {method} needs a live server; the identity given (--identity) stands for what it resolves"
                ));
                Ev::Ok(id.clone())
            }
            None => Ev::Unknown(format!(
                "{method} needs a live server (pass --identity with the identity it would resolve, or --assume authentication/{name}=false)"
            )),
        }
    }

    /// `defaults` then `overrides` (authorino `ResolveExtendedProperties`).
    fn extend(&self, p: &Pipeline<'_>, rule: &Value, id: Value) -> Ev<Value> {
        let defaults = obj(rule, "defaults");
        let overrides = obj(rule, "overrides");
        if defaults.is_none_or(Map::is_empty) && overrides.is_none_or(Map::is_empty) {
            return Ev::Ok(id);
        }
        let Value::Object(mut extended) = id.clone() else {
            return Ev::Err("json: cannot unmarshal the identity into an object".into());
        };
        let mut with = Pipeline {
            config: p.config,
            request: p.request.clone(),
            identity: Some(id),
            metadata: Map::new(),
            unknown_metadata: vec![],
            authorization: Map::new(),
            response: Map::new(),
            steps: vec![],
        };
        let doc = with.json();
        let text = doc.to_string();
        for (list, overwrite) in [(defaults, false), (overrides, true)] {
            for (k, v) in list.into_iter().flatten() {
                if extended.contains_key(k) && !overwrite {
                    continue;
                }
                match self.value(v, &doc, &text, &[]) {
                    Ev::Ok(x) => {
                        extended.insert(k.clone(), x);
                    }
                    Ev::Err(e) => return Ev::Err(e),
                    Ev::Unknown(r) => return Ev::Unknown(r),
                }
            }
        }
        with.identity = None;
        Ev::Ok(Value::Object(extended))
    }

    /// One authorization rule: its result object when it grants access.
    fn authorize(
        &self,
        config_name: &str,
        p: &Pipeline<'_>,
        name: &str,
        rule: &Value,
        stated: &Statements,
    ) -> Ev<Value> {
        if let Some(v) = stated.assume.get(&format!("authorization/{name}")) {
            return match v {
                Value::Bool(false) | Value::Null => Ev::Err("Unauthorized (as stated)".into()),
                Value::Bool(true) => Ev::Ok(Value::Bool(true)),
                other => Ev::Ok(other.clone()),
            };
        }
        let doc = p.json();
        let text = doc.to_string();
        if let Some(pm) = rule.get("patternMatching") {
            let conds = build(p.config, pm.get("patterns"));
            return match self.all(&conds, &doc, &text, &p.unknown_metadata) {
                Ev::Ok(true) => Ev::Ok(Value::Bool(true)),
                Ev::Ok(false) => Ev::Err("Unauthorized".into()),
                Ev::Err(e) => Ev::Err(e),
                Ev::Unknown(r) => Ev::Unknown(r),
            };
        }
        if let Some(opa) = rule.get("opa") {
            let src = opa.get("rego").and_then(Value::as_str).unwrap_or("");
            if src.is_empty() {
                return Ev::Unknown(
                    "an OPA policy fetched from an external registry (state it with --assume authorization/NAME=true|false)"
                        .replace("NAME", name),
                );
            }
            if let Some(r) = reads_unknown(src, &p.unknown_metadata) {
                return Ev::Unknown(r);
            }
            let all_values = opa.get("allValues").and_then(Value::as_bool) == Some(true);
            return match self
                .rego
                .evaluate(&format!("{config_name}/{name}"), src, all_values, &doc)
            {
                Ok(Some(bindings)) => Ev::Ok(bindings),
                Ok(None) => Ev::Err("Unauthorized".into()),
                Err(e) => Ev::Unknown(format!(
                    "the Rego policy could not be evaluated offline: {e}"
                )),
            };
        }
        let method = ["kubernetesSubjectAccessReview", "spicedb", "http"]
            .into_iter()
            .find(|m| rule.get(m).is_some())
            .unwrap_or("this method");
        Ev::Unknown(format!(
            "{method} needs a live server (state the outcome with --assume authorization/{name}=true|false)"
        ))
    }
}

/// Variables of Authorino's CEL: `metadata`, `request`, `source`, `destination`, `auth`.
fn activation(cel: &Cel, doc: &Value) -> Activation {
    let null = Value::Null;
    let get = |k: &str| doc.get(k).unwrap_or(&null);
    Activation::from_json(
        cel,
        &[
            ("metadata", get("metadata")),
            ("request", get("request")),
            ("source", get("source")),
            ("destination", get("destination")),
            ("auth", get("auth")),
        ],
    )
}

/// When `text` (a selector, a CEL expression) names a field of the request Envoy would give
/// Authorino and a simulated request does not carry (`request.time`, `source.address` without a
/// source): why the value is undecided ([`crate::simulate::attributes`]).
fn needs_missing(text: &str, doc: &Value) -> Option<String> {
    crate::simulate::attributes::needs_missing(text, doc.pointer("/source/address").is_some())
}

/// When `text` (a selector, a CEL expression, a Rego policy) may read a metadata object unknown
/// offline: why the value is undecided.
fn reads_unknown(text: &str, unknown: &[String]) -> Option<String> {
    if unknown.is_empty() || !text.contains("metadata") {
        return None;
    }
    Some(format!(
        "it may read the metadata {} fetched from a live service (state it with --assume metadata/NAME=JSON)",
        unknown
            .iter()
            .map(|n| format!("{n:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// authorino `json.StringifyJSON`: a string as is, anything else as Go's `json.Marshal` writes the
/// value decoded from JSON (authorino v0.25.0 pkg/json/json.go).
fn stringify(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => crate::gofmt::json_marshal(other),
    }
}

/// Verify a JWT's signature with a JWKS document (`{"keys": [...]}`), by the `jsonwebtoken` crate:
/// the key the token's `kid` names, else any key of the set. The algorithm is the token's, as long as
/// the key supports it (go-oidc accepts the provider's advertised algorithms, which offline are not
/// known). Issuer and audience are not checked, as Authorino's verifier skips them
/// (`SkipClientIDCheck`, `SkipIssuerCheck`); expiry is checked by [`jwt_claims`].
fn verify_jwt(token: &str, jwks: &Value) -> Result<(), String> {
    use jsonwebtoken::jwk::JwkSet;
    let set: JwkSet = serde_json::from_value(jwks.clone())
        .map_err(|e| format!("the JWKS given is not a JWK set: {e}"))?;
    let header =
        jsonwebtoken::decode_header(token).map_err(|e| format!("oidc: malformed jwt: {e}"))?;
    let keys: Vec<&jsonwebtoken::jwk::Jwk> = match &header.kid {
        Some(kid) => set.find(kid).into_iter().collect(),
        None => set.keys.iter().collect(),
    };
    let mut validation = jsonwebtoken::Validation::new(header.alg);
    validation.validate_exp = false;
    validation.validate_nbf = false;
    validation.validate_aud = false;
    validation.required_spec_claims.clear();
    for jwk in keys {
        let Ok(key) = jsonwebtoken::DecodingKey::from_jwk(jwk) else {
            continue;
        };
        if jsonwebtoken::decode::<Value>(token, &key, &validation).is_ok() {
            return Ok(());
        }
    }
    Err("oidc: failed to verify signature: failed to verify id token signature".into())
}

/// The claims of a JWT, decoded; `Err`: why go-oidc would refuse it before the signature is
/// checked (not three parts, not base64url JSON, expired).
fn jwt_claims(token: &str, now: i64) -> Result<Value, String> {
    let parts: Vec<&str> = token.split('.').collect();
    if parts.len() != 3 {
        return Err(
            "oidc: malformed jwt: go-jose/go-jose: compact JWS format must have three parts".into(),
        );
    }
    let payload = data_encoding::BASE64URL_NOPAD
        .decode(parts[1].trim_end_matches('=').as_bytes())
        .map_err(|e| format!("oidc: malformed jwt payload: {e}"))?;
    let claims: Value = serde_json::from_slice(&payload)
        .map_err(|e| format!("oidc: failed to unmarshal claims: {e}"))?;
    if !claims.is_object() {
        return Err("oidc: failed to unmarshal claims: not an object".into());
    }
    let exp = claims.get("exp").and_then(Value::as_f64).unwrap_or(0.0);
    if (exp as i64) < now {
        return Err(format!(
            "oidc: token is expired (Token Expiry: {})",
            exp as i64
        ));
    }
    Ok(claims)
}

#[cfg(test)]
mod tests;
