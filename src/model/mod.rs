//! The typed model of the input: Gateway API objects, Kuadrant policies and the Kuadrant runtime objects.
//!
//! Owns the object types (with CRD defaults applied and spans kept), the [`Locator`] used to name every
//! node, creation instants ([`Instant`]) and the objects' `status` as written ([`status`]). Plain data:
//! `load` reads the input and validates it into these types. Must not do I/O, parse YAML, build graphs
//! or know about paths through the graph.

pub(crate) mod duration;
pub(crate) mod extension;
mod instant;
mod locator;
pub(crate) mod oidc;
pub(crate) mod span;
pub(crate) mod status;

pub(crate) use instant::Instant;
pub(crate) use locator::{Locator, RefError, RefKind};
pub(crate) use span::Sp;

use crate::source::Span;
use indexmap::IndexMap;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

pub(crate) const GATEWAY_API_GROUP: &str = "gateway.networking.k8s.io";
pub(crate) const KUADRANT_GROUP: &str = "kuadrant.io";
/// The API group of Kuadrant's extension policies (PlanPolicy, OIDCPolicy, TelemetryPolicy, ThreatPolicy).
pub(crate) const EXTENSIONS_GROUP: &str = "extensions.kuadrant.io";

/// Which operator release line to emulate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum KuadrantVersion {
    /// Operator v1.4.x (policy-machinery pinned at 1ca17a0; WasmPlugin).
    V1_4,
    /// Operator v1.5.x (policy-machinery v0.8.0; wasm in an EnvoyFilter, GRPCRoute, rule names): the
    /// newest release line, the default.
    #[default]
    V1_5,
}

impl KuadrantVersion {
    pub fn as_str(self) -> &'static str {
        match self {
            KuadrantVersion::V1_4 => "1.4",
            KuadrantVersion::V1_5 => "1.5",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s.trim_start_matches('v') {
            "1.4" | "1.4.x" => Some(KuadrantVersion::V1_4),
            "1.5" | "1.5.x" => Some(KuadrantVersion::V1_5),
            _ => None,
        }
    }
}

/// The kinds policyctl models.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ObjectKind {
    GatewayClass,
    Gateway,
    HttpRoute,
    GrpcRoute,
    Namespace,
    Service,
    RateLimitPolicy,
    AuthPolicy,
    TokenRateLimitPolicy,
    DnsPolicy,
    TlsPolicy,
    Kuadrant,
    Limitador,
    Authorino,
    /// cert-manager `Issuer`: only its existence is modelled (a TLSPolicy's issuerRef).
    Issuer,
    /// cert-manager `ClusterIssuer`: only its existence is modelled.
    ClusterIssuer,
    /// `extensions.kuadrant.io` PlanPolicy (see [`extension`]).
    PlanPolicy,
    /// `extensions.kuadrant.io` OIDCPolicy.
    OidcPolicy,
    /// `extensions.kuadrant.io` TelemetryPolicy.
    TelemetryPolicy,
    /// `extensions.kuadrant.io` ThreatPolicy (shipped from operator 1.5).
    ThreatPolicy,
}

/// cert-manager's API group.
pub(crate) const CERT_MANAGER_GROUP: &str = "cert-manager.io";

/// What an `apiVersion` + `kind` pair means to policyctl.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KindMatch {
    /// A modelled kind at a served version.
    Served(ObjectKind),
    /// A modelled kind at a version the operator no longer serves; the string is the one to migrate to.
    Unserved(ObjectKind, &'static str),
    /// Anything else: counted and skipped.
    Unknown,
}

impl ObjectKind {
    pub fn kind(self) -> &'static str {
        match self {
            ObjectKind::GatewayClass => "GatewayClass",
            ObjectKind::Gateway => "Gateway",
            ObjectKind::HttpRoute => "HTTPRoute",
            ObjectKind::GrpcRoute => "GRPCRoute",
            ObjectKind::Namespace => "Namespace",
            ObjectKind::Service => "Service",
            ObjectKind::RateLimitPolicy => "RateLimitPolicy",
            ObjectKind::AuthPolicy => "AuthPolicy",
            ObjectKind::TokenRateLimitPolicy => "TokenRateLimitPolicy",
            ObjectKind::DnsPolicy => "DNSPolicy",
            ObjectKind::TlsPolicy => "TLSPolicy",
            ObjectKind::Kuadrant => "Kuadrant",
            ObjectKind::Limitador => "Limitador",
            ObjectKind::Authorino => "Authorino",
            ObjectKind::Issuer => "Issuer",
            ObjectKind::ClusterIssuer => "ClusterIssuer",
            ObjectKind::PlanPolicy => "PlanPolicy",
            ObjectKind::OidcPolicy => "OIDCPolicy",
            ObjectKind::TelemetryPolicy => "TelemetryPolicy",
            ObjectKind::ThreatPolicy => "ThreatPolicy",
        }
    }

    pub fn group(self) -> &'static str {
        match self {
            ObjectKind::GatewayClass
            | ObjectKind::Gateway
            | ObjectKind::HttpRoute
            | ObjectKind::GrpcRoute => GATEWAY_API_GROUP,
            ObjectKind::Namespace | ObjectKind::Service => "",
            ObjectKind::RateLimitPolicy
            | ObjectKind::AuthPolicy
            | ObjectKind::TokenRateLimitPolicy
            | ObjectKind::DnsPolicy
            | ObjectKind::TlsPolicy
            | ObjectKind::Kuadrant => KUADRANT_GROUP,
            ObjectKind::Limitador => "limitador.kuadrant.io",
            ObjectKind::Authorino => "operator.authorino.kuadrant.io",
            ObjectKind::Issuer | ObjectKind::ClusterIssuer => CERT_MANAGER_GROUP,
            ObjectKind::PlanPolicy
            | ObjectKind::OidcPolicy
            | ObjectKind::TelemetryPolicy
            | ObjectKind::ThreatPolicy => EXTENSIONS_GROUP,
        }
    }

    pub fn cluster_scoped(self) -> bool {
        matches!(
            self,
            ObjectKind::GatewayClass | ObjectKind::Namespace | ObjectKind::ClusterIssuer
        )
    }

    /// Classify an `apiVersion`/`kind` pair.
    pub fn classify(api_version: &str, kind: &str) -> KindMatch {
        let (group, version) = match api_version.rsplit_once('/') {
            Some((g, v)) => (g, v),
            None => ("", api_version),
        };
        use ObjectKind as K;
        let served = |k: K, ok: &[&str], to: &'static str| {
            if ok.contains(&version) {
                KindMatch::Served(k)
            } else {
                KindMatch::Unserved(k, to)
            }
        };
        match (group, kind) {
            (GATEWAY_API_GROUP, "GatewayClass") => served(
                K::GatewayClass,
                &["v1", "v1beta1"],
                "gateway.networking.k8s.io/v1",
            ),
            (GATEWAY_API_GROUP, "Gateway") => served(
                K::Gateway,
                &["v1", "v1beta1"],
                "gateway.networking.k8s.io/v1",
            ),
            (GATEWAY_API_GROUP, "HTTPRoute") => served(
                K::HttpRoute,
                &["v1", "v1beta1"],
                "gateway.networking.k8s.io/v1",
            ),
            (GATEWAY_API_GROUP, "GRPCRoute") => served(
                K::GrpcRoute,
                &["v1", "v1alpha2"],
                "gateway.networking.k8s.io/v1",
            ),
            ("", "Namespace") => served(K::Namespace, &["v1"], "v1"),
            ("", "Service") => served(K::Service, &["v1"], "v1"),
            (KUADRANT_GROUP, "RateLimitPolicy") => {
                served(K::RateLimitPolicy, &["v1"], "kuadrant.io/v1")
            }
            (KUADRANT_GROUP, "AuthPolicy") => served(K::AuthPolicy, &["v1"], "kuadrant.io/v1"),
            (KUADRANT_GROUP, "TokenRateLimitPolicy") => served(
                K::TokenRateLimitPolicy,
                &["v1alpha1"],
                "kuadrant.io/v1alpha1",
            ),
            (KUADRANT_GROUP, "DNSPolicy") => served(K::DnsPolicy, &["v1"], "kuadrant.io/v1"),
            (KUADRANT_GROUP, "TLSPolicy") => served(K::TlsPolicy, &["v1"], "kuadrant.io/v1"),
            (KUADRANT_GROUP, "Kuadrant") => {
                served(K::Kuadrant, &["v1beta1"], "kuadrant.io/v1beta1")
            }
            ("limitador.kuadrant.io", "Limitador") => served(
                K::Limitador,
                &["v1alpha1"],
                "limitador.kuadrant.io/v1alpha1",
            ),
            (CERT_MANAGER_GROUP, "Issuer") => served(K::Issuer, &["v1"], "cert-manager.io/v1"),
            (CERT_MANAGER_GROUP, "ClusterIssuer") => {
                served(K::ClusterIssuer, &["v1"], "cert-manager.io/v1")
            }
            (EXTENSIONS_GROUP, "PlanPolicy") => served(
                K::PlanPolicy,
                &["v1alpha1"],
                "extensions.kuadrant.io/v1alpha1",
            ),
            (EXTENSIONS_GROUP, "OIDCPolicy") => served(
                K::OidcPolicy,
                &["v1alpha1"],
                "extensions.kuadrant.io/v1alpha1",
            ),
            (EXTENSIONS_GROUP, "TelemetryPolicy") => served(
                K::TelemetryPolicy,
                &["v1alpha1"],
                "extensions.kuadrant.io/v1alpha1",
            ),
            (EXTENSIONS_GROUP, "ThreatPolicy") => served(
                K::ThreatPolicy,
                &["v1alpha1"],
                "extensions.kuadrant.io/v1alpha1",
            ),
            ("operator.authorino.kuadrant.io", "Authorino") => served(
                K::Authorino,
                &["v1beta1"],
                "operator.authorino.kuadrant.io/v1beta1",
            ),
            _ => KindMatch::Unknown,
        }
    }
}

/// Where an object came from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Origin {
    /// The start of the object in its file (the document, or the `items[]` entry of a List).
    pub object: Span,
    /// `metadata.name`, or the object start when there is none.
    pub name: Span,
    /// Position of the document in the whole input (file order, then document order); used only
    /// where the operator itself keeps input order.
    pub seq: usize,
    /// The whole document's byte range (for a `List` item: the List's document).
    pub document: Span,
    /// Index in the `items` of a `List`, when the object came from one.
    pub item: Option<usize>,
}

/// Object metadata, as modelled.
#[derive(Clone, Debug, Default)]
pub struct Meta {
    pub name: String,
    /// Empty for cluster-scoped objects.
    pub namespace: String,
    pub uid: Option<String>,
    pub creation_timestamp: Option<String>,
    /// `creation_timestamp` parsed (Go's zero time when missing or unreadable), for ordering.
    pub created: Instant,
    pub generation: Option<i64>,
    pub labels: BTreeMap<String, String>,
    pub annotations: BTreeMap<String, String>,
    pub api_version: String,
    pub origin: Origin,
    /// For an object an extension's controller creates (a PlanPolicy's RateLimitPolicy): the
    /// extension policy it comes from, as `Kind namespace/name`. Its `origin` is the extension's.
    pub derived_from: Option<String>,
}

impl Meta {
    /// `namespace/name`, or `name` for cluster-scoped objects.
    pub fn key(&self) -> String {
        if self.namespace.is_empty() {
            self.name.clone()
        } else {
            let mut key = String::with_capacity(self.namespace.len() + 1 + self.name.len());
            key.push_str(&self.namespace);
            key.push('/');
            key.push_str(&self.name);
            key
        }
    }
}

/// A modelled object: metadata plus a kind-specific body.
#[derive(Clone, Debug)]
pub struct Obj<T> {
    pub meta: Meta,
    pub spec: T,
}

impl<T> Obj<T> {
    pub fn key(&self) -> String {
        self.meta.key()
    }
}

// ---------------------------------------------------------------- Gateway API

#[derive(Clone, Debug)]
pub struct GatewayClass {
    pub controller_name: String,
    /// Not in the input: assumed to exist because a Gateway names it (see [`assume_gateway_classes`]).
    pub assumed: bool,
}

/// The GatewayClasses the Gateway API implementations Kuadrant supports install under their usual
/// names, and their `controllerName`s: what policyctl assumes for a Gateway whose class is not in the
/// input (Istio installs `istio`; Envoy Gateway's quick start creates `eg`, its Helm chart
/// `envoy-gateway`).
pub(crate) const WELL_KNOWN_GATEWAY_CLASSES: &[(&str, &str)] = &[
    ("eg", "gateway.envoyproxy.io/gatewayclass-controller"),
    (
        "envoy-gateway",
        "gateway.envoyproxy.io/gatewayclass-controller",
    ),
    ("istio", "istio.io/gateway-controller"),
];

/// Add to `model` a GatewayClass for every class a Gateway names that the input does not define but
/// `assumed` (class name → controllerName) knows, as the cluster would have it; each is announced by a
/// `PCTL2008` at the first Gateway naming it. Classes stay sorted by name.
pub(crate) fn assume_gateway_classes(
    model: &mut Model,
    assumed: &BTreeMap<String, String>,
    diags: &mut crate::diag::Diagnostics,
) {
    use crate::diag::{Code, Diagnostic};
    let mut added: BTreeMap<&str, &str> = BTreeMap::new();
    for g in &model.gateways {
        let name = g.spec.class_name.value.as_str();
        if added.contains_key(name) || model.gateway_class(name).is_some() {
            continue;
        }
        let Some(controller) = assumed.get(name) else {
            continue;
        };
        added.insert(name, controller);
        diags.push(
            Diagnostic::new(
                Code::GatewayClassAssumed,
                format!(
                    "GatewayClass {name:?} is not in the input: assumed to exist with controllerName {controller}"
                ),
            )
            .object(format!("Gateway {}", g.meta.key()))
            .at(g.spec.class_name.span, "assumed GatewayClass")
            .help(format!(
                "add the GatewayClass to the input, or name its controller: --gateway-class {name}=CONTROLLER (or gatewayClasses in .policyctl.yaml)"
            )),
        );
    }
    if added.is_empty() {
        return;
    }
    let new: Vec<Obj<GatewayClass>> = added
        .into_iter()
        .map(|(name, controller)| Obj {
            meta: Meta {
                name: name.to_string(),
                api_version: format!("{GATEWAY_API_GROUP}/v1"),
                ..Meta::default()
            },
            spec: GatewayClass {
                controller_name: controller.to_string(),
                assumed: true,
            },
        })
        .collect();
    model.gateway_classes.extend(new);
    model
        .gateway_classes
        .sort_by(|a, b| a.meta.name.cmp(&b.meta.name));
}

#[derive(Clone, Debug)]
pub struct Gateway {
    pub class_name: Sp<String>,
    pub listeners: Vec<Listener>,
    pub status: Option<status::GatewayStatus>,
}

#[derive(Clone, Debug)]
pub struct Listener {
    pub name: Sp<String>,
    pub hostname: Option<Sp<String>>,
    pub port: i64,
    pub protocol: String,
    pub allowed_routes: AllowedRoutes,
    /// `tls`, with the CRD defaults applied (mode `Terminate`; certificateRefs group `""`, kind `Secret`).
    pub tls: Option<ListenerTls>,
}

/// A listener's `tls` block (Gateway API v1.2.1 `GatewayTLSConfig`, the fields the operator reads).
#[derive(Clone, Debug)]
pub struct ListenerTls {
    pub mode: String,
    pub certificate_refs: Vec<SecretRef>,
}

/// `tls.certificateRefs[]` (`SecretObjectReference`).
#[derive(Clone, Debug)]
pub struct SecretRef {
    pub group: String,
    pub kind: String,
    pub name: String,
    pub namespace: Option<String>,
}

/// `allowedRoutes` with the CRD default `{namespaces: {from: Same}}` applied.
#[derive(Clone, Debug)]
pub struct AllowedRoutes {
    pub from: RoutesFrom,
    pub kinds: Vec<(String, String)>,
}

#[derive(Clone, Debug)]
pub enum RoutesFrom {
    All,
    Same,
    Selector(LabelSelector),
}

#[derive(Clone, Debug, Default)]
pub struct LabelSelector {
    pub match_labels: BTreeMap<String, String>,
    /// `(key, operator, values)`; operators In, NotIn, Exists, DoesNotExist.
    pub match_expressions: Vec<(String, String, Vec<String>)>,
}

impl LabelSelector {
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.match_labels
            .iter()
            .all(|(k, v)| labels.get(k) == Some(v))
            && self.match_expressions.iter().all(|(k, op, vals)| {
                let got = labels.get(k);
                match op.as_str() {
                    "In" => got.is_some_and(|g| vals.contains(g)),
                    "NotIn" => got.is_none_or(|g| !vals.contains(g)),
                    "Exists" => got.is_some(),
                    "DoesNotExist" => got.is_none(),
                    _ => false,
                }
            })
    }
}

/// A route's `parentRef` with the CRD defaults applied (group, kind); namespace defaults to the route's.
#[derive(Clone, Debug)]
pub struct ParentRef {
    pub group: String,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
    pub section_name: Option<String>,
    pub port: Option<i64>,
    pub span: Span,
    pub name_span: Span,
    pub section_span: Option<Span>,
}

impl ParentRef {
    /// Whether this ref names the Gateway `ns/name` (defaults: group/kind, namespace = route's).
    pub fn refers_to_gateway(&self, route_ns: &str, gw_ns: &str, gw_name: &str) -> bool {
        self.group == GATEWAY_API_GROUP
            && self.kind == "Gateway"
            && self.namespace.as_deref().unwrap_or(route_ns) == gw_ns
            && self.name == gw_name
    }
}

#[derive(Clone, Debug)]
pub struct BackendRef {
    pub group: String,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
    pub port: Option<i64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PathMatchType {
    Exact,
    PathPrefix,
    RegularExpression,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathMatch {
    pub kind: PathMatchType,
    pub value: String,
    /// The source of `value` (of the match when the path is defaulted).
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyValueMatch {
    /// `Exact` or `RegularExpression` (the operator ignores it).
    pub kind: String,
    pub name: String,
    pub value: String,
    /// The source of `value` (of `name` when the value is missing).
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpMatch {
    pub path: PathMatch,
    pub headers: Vec<KeyValueMatch>,
    pub query_params: Vec<KeyValueMatch>,
    pub method: Option<String>,
}

impl Default for HttpMatch {
    /// The CRD default `{path: {type: PathPrefix, value: /}}`.
    fn default() -> Self {
        HttpMatch {
            path: PathMatch {
                kind: PathMatchType::PathPrefix,
                value: "/".into(),
                span: Span::default(),
            },
            headers: vec![],
            query_params: vec![],
            method: None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrpcMethodMatch {
    /// `Exact` (CRD default) or `RegularExpression`.
    pub kind: String,
    pub service: Option<String>,
    pub method: Option<String>,
    /// The source of the match's `service` (else its `method`, else the match).
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct GrpcMatch {
    pub method: Option<GrpcMethodMatch>,
    pub headers: Vec<KeyValueMatch>,
}

/// Route matches by route kind.
#[derive(Clone, Debug)]
pub enum RuleMatches {
    Http(Vec<HttpMatch>),
    Grpc(Vec<GrpcMatch>),
}

impl RuleMatches {
    pub fn len(&self) -> usize {
        match self {
            RuleMatches::Http(m) => m.len(),
            RuleMatches::Grpc(m) => m.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[derive(Clone, Debug)]
pub struct RouteRule {
    /// The `name` field (Gateway API v1.2); whether it names the node depends on the version.
    pub name: Option<Sp<String>>,
    pub matches: RuleMatches,
    /// `matches` was written as an explicit empty list (`docs/semantics/versions.md`, "Explicit empty `matches`").
    pub matches_explicit_empty: bool,
    pub backend_refs: Vec<BackendRef>,
    pub span: Span,
}

impl RouteRule {
    /// The section name the topology gives this rule: `rule-<index+1>`, or its `name` on 1.5.
    pub fn section_name(&self, index: usize, version: KuadrantVersion) -> String {
        match (&self.name, version) {
            (Some(n), KuadrantVersion::V1_5) => n.value.clone(),
            _ => format!("rule-{}", index + 1),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RouteKind {
    Http,
    Grpc,
}

impl RouteKind {
    pub fn kind(self) -> &'static str {
        match self {
            RouteKind::Http => "HTTPRoute",
            RouteKind::Grpc => "GRPCRoute",
        }
    }

    pub fn rule_kind(self) -> &'static str {
        match self {
            RouteKind::Http => "HTTPRouteRule",
            RouteKind::Grpc => "GRPCRouteRule",
        }
    }

    pub fn object_kind(self) -> ObjectKind {
        match self {
            RouteKind::Http => ObjectKind::HttpRoute,
            RouteKind::Grpc => ObjectKind::GrpcRoute,
        }
    }
}

/// An HTTPRoute or GRPCRoute.
#[derive(Clone, Debug)]
pub struct Route {
    pub kind: RouteKind,
    pub parent_refs: Vec<ParentRef>,
    pub hostnames: Vec<Sp<String>>,
    pub rules: Vec<RouteRule>,
    pub status: Option<status::RouteStatus>,
}

#[derive(Clone, Debug)]
pub struct Service {
    pub ports: Vec<(Option<String>, i64)>,
}

// ---------------------------------------------------------------- policies

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PolicyKind {
    RateLimit,
    Auth,
    TokenRateLimit,
    Dns,
    Tls,
}

impl PolicyKind {
    pub const ALL: [PolicyKind; 5] = [
        PolicyKind::RateLimit,
        PolicyKind::Auth,
        PolicyKind::TokenRateLimit,
        PolicyKind::Dns,
        PolicyKind::Tls,
    ];

    pub fn kind(self) -> &'static str {
        self.object_kind().kind()
    }

    pub fn object_kind(self) -> ObjectKind {
        match self {
            PolicyKind::RateLimit => ObjectKind::RateLimitPolicy,
            PolicyKind::Auth => ObjectKind::AuthPolicy,
            PolicyKind::TokenRateLimit => ObjectKind::TokenRateLimitPolicy,
            PolicyKind::Dns => ObjectKind::DnsPolicy,
            PolicyKind::Tls => ObjectKind::TlsPolicy,
        }
    }

    /// Parse a kind name case-insensitively (`ratelimitpolicy`, `RateLimitPolicy`).
    pub fn parse(s: &str) -> Option<Self> {
        PolicyKind::ALL
            .into_iter()
            .find(|k| k.kind().eq_ignore_ascii_case(s))
    }

    /// Whether policies of this kind merge along paths (vs. DNS/TLS direct policies).
    pub fn is_inherited(self) -> bool {
        matches!(
            self,
            PolicyKind::RateLimit | PolicyKind::Auth | PolicyKind::TokenRateLimit
        )
    }
}

/// `spec.targetRef`, as written: group and kind are matched case-insensitively, names exactly.
#[derive(Clone, Debug)]
pub struct TargetRef {
    pub group: Sp<String>,
    pub kind: Sp<String>,
    pub name: Sp<String>,
    pub section_name: Option<Sp<String>>,
    pub span: Span,
}

impl TargetRef {
    /// The locator of the object this ref names, in `namespace` (the referring object's: a
    /// targetRef has none of its own), with `#section` when set.
    pub fn locator(&self, namespace: &str) -> Locator {
        let base = Locator::object(
            &self.kind.value,
            &self.group.value,
            namespace,
            &self.name.value,
        );
        match &self.section_name {
            Some(s) => base.section(&s.value),
            None => base,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    Atomic,
    Merge,
}

/// Which block of the spec the rules were read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Block {
    /// Bare `limits`/`rules` (implicit defaults).
    Implicit,
    Defaults,
    Overrides,
}

#[derive(Clone, Debug)]
pub struct Rate {
    pub limit: i64,
    pub window: String,
    pub span: Span,
}

impl Rate {
    /// `max_value`: negative limits become 0.
    pub fn max_value(&self) -> i64 {
        self.limit.max(0)
    }

    /// `seconds`: Go's `time.ParseDuration(window).Seconds()` truncated; 0 when unparseable.
    pub fn seconds(&self) -> i64 {
        parse_go_duration_seconds(&self.window).unwrap_or(0)
    }
}

/// Whole seconds of a Go duration string restricted to the CRD's units (h, m, s, ms), truncated.
pub(crate) fn parse_go_duration_seconds(s: &str) -> Option<i64> {
    i64::try_from(parse_go_duration_millis(s)? / 1000).ok()
}

/// The whole milliseconds of a window in the CRD's `h`/`m`/`s`/`ms` segments; `None` when Go's
/// `time.ParseDuration` would fail.
pub(crate) fn parse_go_duration_millis(s: &str) -> Option<i128> {
    if s.is_empty() {
        return None;
    }
    let bytes = s.as_bytes();
    let mut i = 0;
    let mut total_ms: i128 = 0;
    while i < bytes.len() {
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return None;
        }
        // Slices: `start`, `unit_start` and `i` only move over ASCII bytes, so they are char boundaries.
        let n: i128 = s[start..i].parse().ok()?;
        let unit_start = i;
        while i < bytes.len() && bytes[i].is_ascii_alphabetic() {
            i += 1;
        }
        let mult: i128 = match &s[unit_start..i] {
            "h" => 3_600_000,
            "m" => 60_000,
            "s" => 1_000,
            "ms" => 1,
            _ => return None,
        };
        total_ms = total_ms.checked_add(n.checked_mul(mult)?)?;
    }
    Some(total_ms)
}

#[derive(Clone, Debug)]
pub struct Limit {
    pub when: Vec<Sp<String>>,
    pub counters: Vec<Sp<String>>,
    pub rates: Vec<Rate>,
}

/// RateLimitPolicy and TokenRateLimitPolicy bodies (`Proper()`: the block that is used).
#[derive(Clone, Debug)]
pub struct LimitsSpec {
    pub block: Block,
    pub strategy: Strategy,
    /// The used block's top-level `when`.
    pub when: Vec<Sp<String>>,
    /// Shared with the effective policies that take a limit from this policy.
    pub limits: IndexMap<String, Arc<Limit>>,
}

#[derive(Clone, Debug, Default)]
pub struct AuthRules {
    pub authentication: IndexMap<String, Value>,
    pub metadata: IndexMap<String, Value>,
    pub authorization: IndexMap<String, Value>,
    pub callbacks: IndexMap<String, Value>,
    pub unauthenticated: Option<Value>,
    pub unauthorized: Option<Value>,
    pub success_headers: IndexMap<String, Value>,
    pub success_filters: IndexMap<String, Value>,
}

#[derive(Clone, Debug)]
pub struct AuthSpec {
    pub block: Block,
    pub strategy: Strategy,
    pub patterns: IndexMap<String, Value>,
    pub when: Vec<Sp<String>>,
    /// `None` when the used block has no `rules` (the operator's `Empty()`). Boxed: eight maps inline
    /// would make every policy of every kind as large as an AuthPolicy.
    pub rules: Option<Box<AuthRules>>,
}

#[derive(Clone, Debug)]
pub enum PolicyBody {
    RateLimit(LimitsSpec),
    TokenRateLimit(LimitsSpec),
    Auth(AuthSpec),
    /// DNSPolicy / TLSPolicy: no merging; the fields their generated objects need.
    Direct(Box<DirectSpec>),
}

/// The DNSPolicy / TLSPolicy fields the operator copies onto the objects it generates (cert-manager
/// `Certificate`s, `DNSRecord`s), as the operator reads them.
#[derive(Clone, Debug, Default)]
pub struct DirectSpec {
    /// TLSPolicy `issuerRef`: `name`, then `kind` and `group` when not empty.
    pub issuer_ref: Option<serde_json::Map<String, Value>>,
    /// TLSPolicy `commonName` (empty: not set).
    pub common_name: String,
    /// TLSPolicy `duration` / `renewBefore` as Go prints a `time.Duration` (`2160h0m0s`).
    pub duration: Option<String>,
    pub renew_before: Option<String>,
    /// TLSPolicy `usages` (`Some(empty)` when written as `[]`).
    pub usages: Option<Vec<String>>,
    pub revision_history_limit: Option<i64>,
    /// TLSPolicy `privateKey`: its non-empty fields.
    pub private_key: Option<serde_json::Map<String, Value>>,
    /// DNSPolicy `providerRefs[0]` as written.
    pub provider_ref: Option<Value>,
    pub delegate: bool,
    /// DNSPolicy `healthCheck` as written.
    pub health_check: Option<Value>,
    pub exclude_addresses: Vec<String>,
    /// DNSPolicy `loadBalancing` is set.
    pub load_balancing: bool,
    /// TLSPolicy `issuerRef` with its name's span, for the issuer existence check.
    pub issuer: Option<IssuerRef>,
}

/// A TLSPolicy's `issuerRef`, as written.
#[derive(Clone, Debug)]
pub struct IssuerRef {
    pub name: Sp<String>,
    /// `kind` as written; empty when not set (the CRD has no default).
    pub kind: String,
}

#[derive(Clone, Debug)]
pub struct Policy {
    pub kind: PolicyKind,
    pub meta: Meta,
    pub target: TargetRef,
    pub body: PolicyBody,
}

impl Policy {
    /// `kind.group:namespace/name`, e.g. `ratelimitpolicy.kuadrant.io:ns/p`.
    pub fn locator(&self) -> Locator {
        Locator::object(
            self.kind.kind(),
            KUADRANT_GROUP,
            &self.meta.namespace,
            &self.meta.name,
        )
    }

    /// The locator of the object its targetRef names (policy namespace; `#section` when set).
    pub fn target_locator(&self) -> Locator {
        self.target.locator(&self.meta.namespace)
    }

    /// `Kind ns/name`, for messages.
    pub fn display(&self) -> String {
        format!("{} {}", self.kind.kind(), self.meta.key())
    }
}

/// Everything read from the input, validated, in a canonical order (kind, then namespace/name).
#[derive(Clone, Debug, Default)]
pub struct Model {
    pub gateway_classes: Vec<Obj<GatewayClass>>,
    pub gateways: Vec<Obj<Gateway>>,
    /// HTTPRoutes then GRPCRoutes, each sorted by namespace/name.
    pub routes: Vec<Obj<Route>>,
    pub namespaces: Vec<Obj<()>>,
    pub services: Vec<Obj<Service>>,
    pub policies: Vec<Policy>,
    pub kuadrants: Vec<Obj<Value>>,
    pub limitadors: Vec<Obj<Value>>,
    pub authorinos: Vec<Obj<Value>>,
    /// cert-manager Issuers and ClusterIssuers (existence only).
    pub issuers: Vec<Obj<()>>,
    pub cluster_issuers: Vec<Obj<()>>,
    /// Extension policies (`extensions.kuadrant.io`), sorted by kind, then namespace/name.
    pub extensions: Vec<extension::Extension>,
    /// Objects of kinds policyctl does not model: `(apiVersion, kind, namespace/name)`.
    pub skipped: Vec<(String, String, String)>,
    /// The v1 Secrets of the input (also listed in `skipped`), sorted by namespace/name, each with
    /// `{data, type}` as the API server stores them: Authorino's API keys for `simulate`.
    pub secrets: Vec<Obj<Value>>,
    /// The operator release emulated, chosen when loading (`LoadOptions::version`): the one place
    /// every later stage reads it from.
    pub version: KuadrantVersion,
    /// The objects extension controllers create that are printed as built (an OIDCPolicy's
    /// AuthPolicies and callback HTTPRoute); they are also in `policies` / `routes`.
    pub derived_objects: Vec<Value>,
    /// Routes of the input left out of the run by its budget of paths and action sets
    /// (`PCTL1019`): `(kind, namespace, name)`, sorted.
    pub left_out_routes: Vec<(RouteKind, String, String)>,
}

impl Model {
    /// Whether the route of kind `kind` (`HTTPRoute`, `GRPCRoute`), `namespace` and `name` is in the
    /// input but left out of the run by its budget (`PCTL1019`): one search of a sorted list, as a
    /// policy that targets it asks (thousands of routes can be left out).
    pub fn left_out_route(&self, kind: &str, namespace: &str, name: &str) -> bool {
        let kind = match kind {
            "HTTPRoute" => RouteKind::Http,
            "GRPCRoute" => RouteKind::Grpc,
            _ => return false,
        };
        (self.left_out_routes)
            .binary_search_by(|(k, ns, n)| {
                (*k, ns.as_str(), n.as_str()).cmp(&(kind, namespace, name))
            })
            .is_ok()
    }

    pub fn gateway(&self, ns: &str, name: &str) -> Option<&Obj<Gateway>> {
        self.gateways
            .iter()
            .find(|g| g.meta.namespace == ns && g.meta.name == name)
    }

    pub fn gateway_class(&self, name: &str) -> Option<&Obj<GatewayClass>> {
        self.gateway_classes.iter().find(|c| c.meta.name == name)
    }

    pub fn namespace_labels(&self, ns: &str) -> Option<&BTreeMap<String, String>> {
        self.namespaces
            .iter()
            .find(|n| n.meta.name == ns)
            .map(|n| &n.meta.labels)
    }

    /// Number of modelled objects of the input (objects derived from extension policies are not
    /// counted).
    pub fn object_count(&self) -> usize {
        let derived = self
            .policies
            .iter()
            .filter(|p| p.meta.derived_from.is_some())
            .count()
            + self
                .routes
                .iter()
                .filter(|r| r.meta.derived_from.is_some())
                .count();
        self.input_and_derived_count() - derived
    }

    fn input_and_derived_count(&self) -> usize {
        self.gateway_classes.len()
            + self.gateways.len()
            + self.routes.len()
            + self.namespaces.len()
            + self.services.len()
            + self.policies.len()
            + self.kuadrants.len()
            + self.limitadors.len()
            + self.authorinos.len()
            + self.issuers.len()
            + self.cluster_issuers.len()
            + self.extensions.len()
    }
}

/// A SHA-256 digest in hexadecimal (64 digits, either case): the wasm module's sha256 a user gives,
/// and the names the operator derives by hashing (action sets, AuthConfigs).
pub fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Kuadrant's `SubsetOf` (kuadrant-operator v1.4.6 / v1.5.2 `internal/utils/hostname.go`): is hostname `a` covered by `b`.
/// Stricter than Gateway API's intersection: `*.example.com` is not covered by `api.example.com`.
pub(crate) fn hostname_subset_of(a: &str, b: &str) -> bool {
    let aw = a.starts_with('*');
    let bw = b.starts_with('*');
    match (aw, bw) {
        // Slices: both start with the one-byte '*', so 1 is a char boundary.
        (true, true) => a.len() >= b.len() && a[1..].ends_with(&b[1..]),
        (true, false) => false,
        (false, true) => a.ends_with(&b[1..]),
        (false, false) => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostname_subset_table_from_the_operator() {
        // kuadrant-operator v1.5.2 internal/utils/hostname_test.go TestNameSubsetOf (G4 in docs/semantics/README.md)
        let t = [
            ("foo.com", "foo.com", true),
            ("foo.com", "bar.com", false),
            ("*.com", "foo.com", false),
            ("foo.com", "*.com", true),
            ("*.foo.com", "foo.com", false),
            ("foo.com", "*.foo.com", false),
            ("*", "*.com", false),
            ("*.com", "*", true),
            ("*.com", "*.org", false),
            ("*.foo.com", "*.bar.foo.com", false),
            ("*.foo.com", "*.baz.foo.com", false),
            ("", "", true),
            ("", "foo.com", false),
            ("*.foo.*.com", "*.foo.*.com", true),
        ];
        for (a, b, want) in t {
            assert_eq!(hostname_subset_of(a, b), want, "{a} ⊆ {b}");
        }
    }

    #[test]
    fn go_durations_truncate_to_seconds() {
        assert_eq!(parse_go_duration_seconds("3m"), Some(180));
        assert_eq!(parse_go_duration_seconds("1m30s"), Some(90));
        assert_eq!(parse_go_duration_seconds("500ms"), Some(0));
        assert_eq!(parse_go_duration_seconds("1500ms"), Some(1));
        assert_eq!(parse_go_duration_seconds("12h"), Some(43200));
        assert_eq!(parse_go_duration_seconds("1d"), None);
        assert_eq!(parse_go_duration_seconds(""), None);
    }

    #[test]
    fn classify_versions() {
        assert_eq!(
            ObjectKind::classify("kuadrant.io/v1beta2", "RateLimitPolicy"),
            KindMatch::Unserved(ObjectKind::RateLimitPolicy, "kuadrant.io/v1")
        );
        assert_eq!(
            ObjectKind::classify("networking.istio.io/v1", "Gateway"),
            KindMatch::Unknown
        );
        assert_eq!(
            ObjectKind::classify("gateway.networking.k8s.io/v1", "Gateway"),
            KindMatch::Served(ObjectKind::Gateway)
        );
    }
}
