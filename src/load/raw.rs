//! Raw shapes of the objects as written in YAML/JSON: every field optional, spans kept where a
//! diagnostic may need to point. `validate` turns them into the model types.
//!
//! Fields a shape does not read are skipped: the schema pass (`schema/`) has already refused, or
//! pruned, the fields the CRD does not declare. Must not apply defaults or validate: that is
//! `validate`'s and the schema pass's job.

use crate::model::span::{Sp, int};
pub(crate) use crate::model::status::{GatewayStatus, RawParentRef, RouteStatus};
use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;

pub(crate) type Str = Sp<String>;

/// A label or annotation value as the API server reads one (`map[string]string`): a string, or
/// null for the empty string. A plain scalar YAML reads as a number or boolean (`2`, `true`, `yes`)
/// reaches the API server as a number or boolean, which it refuses: it must be quoted.
struct LabelValue(String);

impl<'de> Deserialize<'de> for LabelValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'v> serde::de::Visitor<'v> for V {
            type Value = LabelValue;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<LabelValue, E> {
                Ok(LabelValue(v.to_string()))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<LabelValue, E> {
                Ok(LabelValue(String::new()))
            }
            fn visit_none<E: serde::de::Error>(self) -> Result<LabelValue, E> {
                Ok(LabelValue(String::new()))
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<LabelValue, E> {
                Err(not_a_string(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<LabelValue, E> {
                Err(not_a_string(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<LabelValue, E> {
                Err(not_a_string(v))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<LabelValue, E> {
                Err(not_a_string(v))
            }
        }
        d.deserialize_any(V)
    }
}

fn not_a_string<E: serde::de::Error>(v: impl std::fmt::Display) -> E {
    E::custom(format!(
        "expected a string, found `{v}`: label and annotation values are strings, and the API server refuses a number or boolean; quote it"
    ))
}

fn string_values<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<BTreeMap<String, String>>, D::Error> {
    Ok(Option::<BTreeMap<String, LabelValue>>::deserialize(d)?
        .map(|m| m.into_iter().map(|(k, v)| (k, v.0)).collect()))
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawMeta {
    pub name: Option<Str>,
    pub namespace: Option<Str>,
    pub uid: Option<String>,
    pub creation_timestamp: Option<Str>,
    #[serde(default, deserialize_with = "int::opt")]
    pub generation: Option<i64>,
    #[serde(default, deserialize_with = "string_values")]
    pub labels: Option<BTreeMap<String, String>>,
    #[serde(default, deserialize_with = "string_values")]
    pub annotations: Option<BTreeMap<String, String>>,
}

// ---------------------------------------------------------------- Gateway API

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GatewayClassSpec {
    pub controller_name: Option<Str>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GatewaySpec {
    pub gateway_class_name: Option<Str>,
    pub listeners: Option<Sp<Vec<RawListener>>>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawListener {
    pub name: Option<Str>,
    pub hostname: Option<Str>,
    #[serde(default, deserialize_with = "int::opt_sp")]
    pub port: Option<Sp<i64>>,
    pub protocol: Option<Str>,
    pub allowed_routes: Option<RawAllowedRoutes>,
    pub tls: Option<RawListenerTls>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawListenerTls {
    pub mode: Option<String>,
    pub certificate_refs: Option<Vec<RawSecretRef>>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawSecretRef {
    pub group: Option<String>,
    pub kind: Option<String>,
    pub name: Option<String>,
    pub namespace: Option<String>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawAllowedRoutes {
    pub namespaces: Option<RawRouteNamespaces>,
    pub kinds: Option<Vec<RawRouteGroupKind>>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawRouteNamespaces {
    pub from: Option<Str>,
    pub selector: Option<RawLabelSelector>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawLabelSelector {
    pub match_labels: Option<BTreeMap<String, String>>,
    pub match_expressions: Option<Vec<RawLabelSelectorRequirement>>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawLabelSelectorRequirement {
    pub key: Option<String>,
    pub operator: Option<Str>,
    pub values: Option<Vec<String>>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawRouteGroupKind {
    pub group: Option<String>,
    pub kind: Option<String>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawBackendRef {
    pub group: Option<String>,
    pub kind: Option<String>,
    pub namespace: Option<String>,
    pub name: Option<Str>,
    #[serde(default, deserialize_with = "int::opt")]
    pub port: Option<i64>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct HttpRouteSpec {
    pub parent_refs: Option<Vec<Sp<RawParentRef>>>,
    pub hostnames: Option<Vec<Str>>,
    pub rules: Option<Vec<Sp<RawHttpRule>>>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawHttpRule {
    pub name: Option<Str>,
    pub matches: Option<Vec<Sp<RawHttpMatch>>>,
    pub backend_refs: Option<Vec<RawBackendRef>>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawHttpMatch {
    pub path: Option<RawPathMatch>,
    pub headers: Option<Vec<RawKeyValueMatch>>,
    pub query_params: Option<Vec<RawKeyValueMatch>>,
    pub method: Option<Str>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawPathMatch {
    #[serde(rename = "type")]
    pub type_: Option<Str>,
    pub value: Option<Str>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawKeyValueMatch {
    #[serde(rename = "type")]
    pub type_: Option<Str>,
    pub name: Option<Str>,
    pub value: Option<Str>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GrpcRouteSpec {
    pub parent_refs: Option<Vec<Sp<RawParentRef>>>,
    pub hostnames: Option<Vec<Str>>,
    pub rules: Option<Vec<Sp<RawGrpcRule>>>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawGrpcRule {
    pub name: Option<Str>,
    pub matches: Option<Vec<Sp<RawGrpcMatch>>>,
    pub backend_refs: Option<Vec<RawBackendRef>>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawGrpcMatch {
    pub method: Option<RawGrpcMethod>,
    pub headers: Option<Vec<RawKeyValueMatch>>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawGrpcMethod {
    #[serde(rename = "type")]
    pub type_: Option<Str>,
    pub service: Option<Str>,
    pub method: Option<Str>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ServiceSpec {
    pub ports: Option<Vec<RawServicePort>>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawServicePort {
    pub name: Option<String>,
    #[serde(default, deserialize_with = "int::opt")]
    pub port: Option<i64>,
}

// ---------------------------------------------------------------- Kuadrant policies

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawTargetRef {
    pub group: Option<Str>,
    pub kind: Option<Str>,
    pub name: Option<Str>,
    pub section_name: Option<Str>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawPredicate {
    pub predicate: Option<Str>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawCounter {
    pub expression: Option<Str>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawRate {
    #[serde(default, deserialize_with = "int::opt_sp")]
    pub limit: Option<Sp<i64>>,
    pub window: Option<Str>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawLimit {
    pub when: Option<Vec<RawPredicate>>,
    pub counters: Option<Vec<RawCounter>>,
    pub rates: Option<Vec<RawRate>>,
}

/// `spec.defaults` / `spec.overrides` of a RateLimitPolicy or TokenRateLimitPolicy.
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawLimitsBlock {
    pub strategy: Option<Str>,
    pub when: Option<Vec<RawPredicate>>,
    pub limits: Option<Sp<IndexMap<String, RawLimit>>>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RateLimitPolicySpec {
    pub target_ref: Option<Sp<RawTargetRef>>,
    pub defaults: Option<Sp<RawLimitsBlock>>,
    pub overrides: Option<Sp<RawLimitsBlock>>,
    pub when: Option<Sp<Vec<RawPredicate>>>,
    pub limits: Option<Sp<IndexMap<String, RawLimit>>>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawAuthResponse {
    pub unauthenticated: Option<Value>,
    pub unauthorized: Option<Value>,
    pub success: Option<RawSuccessResponse>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawSuccessResponse {
    pub headers: Option<IndexMap<String, Value>>,
    pub filters: Option<IndexMap<String, Value>>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawAuthRules {
    pub authentication: Option<IndexMap<String, Value>>,
    pub metadata: Option<IndexMap<String, Value>>,
    pub authorization: Option<IndexMap<String, Value>>,
    pub callbacks: Option<IndexMap<String, Value>>,
    pub response: Option<RawAuthResponse>,
}

/// `spec.defaults` / `spec.overrides` of an AuthPolicy, or its bare (implicit defaults) fields.
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawAuthBlock {
    pub strategy: Option<Str>,
    pub patterns: Option<IndexMap<String, Value>>,
    pub when: Option<Vec<RawPredicate>>,
    pub rules: Option<Sp<RawAuthRules>>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AuthPolicySpec {
    pub target_ref: Option<Sp<RawTargetRef>>,
    pub defaults: Option<Sp<RawAuthBlock>>,
    pub overrides: Option<Sp<RawAuthBlock>>,
    pub patterns: Option<Sp<IndexMap<String, Value>>>,
    pub when: Option<Sp<Vec<RawPredicate>>>,
    pub rules: Option<Sp<RawAuthRules>>,
}

/// DNSPolicy and TLSPolicy: the target is modelled, the rest is kept as written.
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DirectPolicySpec {
    pub target_ref: Option<Sp<RawTargetRef>>,
    pub provider_refs: Option<Sp<Vec<Value>>>,
    pub exclude_addresses: Option<Sp<Vec<Str>>>,
    pub delegate: Option<bool>,
    pub load_balancing: Option<Value>,
    pub health_check: Option<Value>,
    pub issuer_ref: Option<Sp<RawIssuerRef>>,
    pub common_name: Option<String>,
    pub duration: Option<Str>,
    pub renew_before: Option<Str>,
    pub usages: Option<Vec<String>>,
    pub revision_history_limit: Option<i64>,
    pub private_key: Option<RawPrivateKey>,
}

/// TLSPolicy `spec.privateKey` (cert-manager `CertificatePrivateKey`).
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawPrivateKey {
    pub rotation_policy: Option<String>,
    pub encoding: Option<String>,
    pub algorithm: Option<String>,
    pub size: Option<i64>,
}

#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawIssuerRef {
    pub name: Option<Str>,
    pub kind: Option<Str>,
    pub group: Option<String>,
}

// ---------------------------------------------------------------- extension policies

/// The spec of the four `extensions.kuadrant.io/v1alpha1` kinds in one shape: each kind reads the
/// fields of its own CRD (kuadrant-operator v1.5.2 `cmd/extensions/*/api/v1alpha1/*_types.go`) and
/// ignores the others, as the API server prunes fields a CRD does not declare.
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExtensionPolicySpec {
    pub target_ref: Option<Sp<RawTargetRef>>,
    /// PlanPolicy `plans`.
    pub plans: Option<Sp<Vec<Sp<RawPlan>>>>,
    /// OIDCPolicy `provider`.
    pub provider: Option<Sp<RawOidcProvider>>,
    /// OIDCPolicy `auth`, as written.
    pub auth: Option<Sp<Value>>,
    /// TelemetryPolicy `metrics`.
    pub metrics: Option<Sp<RawMetrics>>,
    /// ThreatPolicy `threshold`.
    #[serde(default, deserialize_with = "int::opt_sp")]
    pub threshold: Option<Sp<i64>>,
}

/// One PlanPolicy `plans[]` entry.
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawPlan {
    pub tier: Option<Str>,
    pub predicate: Option<Str>,
    pub limits: Option<RawPlanLimits>,
}

/// A plan's `limits`: requests per day, week, month and year, plus custom rates.
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawPlanLimits {
    #[serde(default, deserialize_with = "int::opt_sp")]
    pub daily: Option<Sp<i64>>,
    #[serde(default, deserialize_with = "int::opt_sp")]
    pub weekly: Option<Sp<i64>>,
    #[serde(default, deserialize_with = "int::opt_sp")]
    pub monthly: Option<Sp<i64>>,
    #[serde(default, deserialize_with = "int::opt_sp")]
    pub yearly: Option<Sp<i64>>,
    pub custom: Option<Vec<RawRate>>,
}

/// OIDCPolicy `provider`.
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawOidcProvider {
    #[serde(rename = "jwksURL")]
    pub jwks_url: Option<Str>,
    #[serde(rename = "issuerURL")]
    pub issuer_url: Option<Str>,
    #[serde(rename = "clientID")]
    pub client_id: Option<Str>,
    pub authorization_endpoint: Option<Str>,
    #[serde(rename = "redirectURI")]
    pub redirect_uri: Option<Str>,
    pub token_endpoint: Option<Str>,
}

/// TelemetryPolicy `metrics`.
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawMetrics {
    pub default: Option<Sp<RawMetricsConfig>>,
}

/// TelemetryPolicy `metrics.default`.
#[derive(Deserialize, Debug, Default, Clone)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawMetricsConfig {
    pub labels: Option<Sp<IndexMap<String, Str>>>,
}
