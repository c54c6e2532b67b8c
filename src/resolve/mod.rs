//! Resolve: effective policies per path, as the operator computes them (`docs/semantics/paths.md`,
//! `docs/semantics/merge.md`).
//!
//! Owns policy ordering on a path (least → most specific; within a target by creationTimestamp, then
//! namespace/name), the four merge strategies, rule keys and rule provenance, and the predicted status
//! conditions. Must not know Istio, Limitador or Authorino, read files or format output.
//!
//! This file fixes the types other stages consume; `merge`, `effective` and `status` fill them.

pub(crate) mod changes;
pub mod effective;
pub(crate) mod explain;
pub(crate) mod extension;
pub(crate) mod merge;
pub(crate) mod routes;
pub(crate) mod status;

pub use effective::effective;

use crate::model::{Limit, Locator, PolicyKind, Sp};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The reserved RateLimitPolicy/TokenRateLimitPolicy rule key of the top-level `when`.
pub(crate) const TOP_LEVEL_PREDICATES_KEY: &str = "###_TOP_LEVEL_PREDICATES_###";
/// The AuthPolicy rule key of the top-level `when`.
pub(crate) const AUTH_CONDITIONS_KEY: &str = "conditions#";

/// The value of one rule of an effective policy.
#[derive(Clone, Debug)]
pub enum RuleValue {
    /// `limits.<name>` of a RateLimitPolicy / TokenRateLimitPolicy.
    Limit(std::sync::Arc<Limit>),
    /// A top-level `when` (RLP/TRLP key [`TOP_LEVEL_PREDICATES_KEY`], AuthPolicy key [`AUTH_CONDITIONS_KEY`]).
    When(Vec<Sp<String>>),
    /// An AuthPolicy rule kept as written, in its section (the key is `<section>#<name>`, see
    /// [`RuleKey::auth`]). Shared: the effective policies of many paths hold the same rule.
    Auth(AuthSection, Arc<Value>),
}

/// The section of an AuthPolicy rule: the part of its rule key before `#` (kuadrant-operator
/// v1.5.2 api/v1/authpolicy_types.go, `AuthPolicySpecProper.Rules()`: `patterns#`, then the
/// auth scheme's sections, the operator's `response.success.metadata` being the policy's
/// `response.success.filters`). The key is built from it ([`RuleKey::auth`]), and `generate` reads
/// the section from the rule's value: a section the AuthConfig does not place cannot exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuthSection {
    Patterns,
    Authentication,
    Metadata,
    Authorization,
    Callbacks,
    SuccessHeaders,
    SuccessMetadata,
    Unauthenticated,
    Unauthorized,
}

impl AuthSection {
    /// The section as the operator's rule keys spell it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            AuthSection::Patterns => "patterns",
            AuthSection::Authentication => "authentication",
            AuthSection::Metadata => "metadata",
            AuthSection::Authorization => "authorization",
            AuthSection::Callbacks => "callbacks",
            AuthSection::SuccessHeaders => "response.success.headers",
            AuthSection::SuccessMetadata => "response.success.metadata",
            AuthSection::Unauthenticated => "response.unauthenticated",
            AuthSection::Unauthorized => "response.unauthorized",
        }
    }
}

/// What a rule key names: the part of the rule it is, typed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyOf {
    /// The top-level `when` of a RateLimitPolicy / TokenRateLimitPolicy
    /// ([`TOP_LEVEL_PREDICATES_KEY`]).
    TopLevelPredicates,
    /// The top-level `when` of an AuthPolicy ([`AUTH_CONDITIONS_KEY`]).
    AuthConditions,
    /// `limits.<name>` of a RateLimitPolicy / TokenRateLimitPolicy: the key is the name.
    Limit,
    /// An AuthPolicy entry of a section: the key is `<section>#<name>`.
    Auth(AuthSection),
}

/// The key of a rule of an effective policy: what it names ([`KeyOf`]) and the operator's map key
/// written from it once, by the constructors (kuadrant-operator v1.5.2 api/v1: `Rules()` of each
/// policy type). Keys compare, sort and hash as that text does (the operator's canonical order),
/// and a rule's section and name are read from here, never parsed back from the text.
#[derive(Clone, Debug)]
pub struct RuleKey {
    /// Shared: every effective policy that holds the rule holds its key.
    text: Arc<str>,
    of: KeyOf,
}

impl RuleKey {
    pub(crate) fn top_level_predicates() -> Self {
        RuleKey {
            text: Arc::from(TOP_LEVEL_PREDICATES_KEY),
            of: KeyOf::TopLevelPredicates,
        }
    }

    pub(crate) fn auth_conditions() -> Self {
        RuleKey {
            text: Arc::from(AUTH_CONDITIONS_KEY),
            of: KeyOf::AuthConditions,
        }
    }

    pub(crate) fn limit(name: &str) -> Self {
        RuleKey {
            text: Arc::from(name),
            of: KeyOf::Limit,
        }
    }

    /// The entry `name` of an AuthPolicy section (`""` for the sections of one entry,
    /// `response.unauthenticated` and `response.unauthorized`).
    pub(crate) fn auth(section: AuthSection, name: &str) -> Self {
        RuleKey {
            text: Arc::from(format!("{}#{name}", section.as_str())),
            of: KeyOf::Auth(section),
        }
    }

    /// The operator's map key.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    pub fn of(&self) -> KeyOf {
        self.of
    }

    /// The name of a limit or of an AuthPolicy entry (`""` for a top-level `when` and for the
    /// sections of one entry).
    pub fn name(&self) -> &str {
        match self.of {
            KeyOf::Limit => &self.text,
            KeyOf::Auth(s) => self.text.get(s.as_str().len() + 1..).unwrap_or(""),
            KeyOf::TopLevelPredicates | KeyOf::AuthConditions => "",
        }
    }
}

impl PartialEq for RuleKey {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for RuleKey {}

impl PartialOrd for RuleKey {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for RuleKey {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.text.cmp(&other.text)
    }
}

impl std::hash::Hash for RuleKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.text.hash(state);
    }
}

/// Rules are looked up by the operator's key (`rules.get(AUTH_CONDITIONS_KEY)`).
impl std::borrow::Borrow<str> for RuleKey {
    fn borrow(&self) -> &str {
        &self.text
    }
}

impl std::fmt::Display for RuleKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// One rule of an effective policy and the policy it was written in.
#[derive(Clone, Debug)]
pub struct EffectiveRule {
    /// The rule key (limit name; `authentication#x`; …).
    pub key: RuleKey,
    /// Index of the source policy in `Model::policies`.
    pub source: usize,
    pub value: RuleValue,
}

/// The rules of an effective policy, sorted by key. A sorted list rather than a `BTreeMap`: a map
/// node has room for eleven entries, and most effective policies hold one to three rules (there is
/// one effective policy per distinct list of policies, tens of thousands on large estates).
#[derive(Clone, Debug, Default)]
pub struct Rules(Box<[EffectiveRule]>);

impl Rules {
    /// The rules of a merge result, in key order.
    pub fn from_map(rules: &BTreeMap<RuleKey, EffectiveRule>) -> Self {
        Rules(rules.values().cloned().collect())
    }

    /// [`Rules::from_map`] of a merge result no longer needed.
    pub fn from_owned(rules: BTreeMap<RuleKey, EffectiveRule>) -> Self {
        Rules(rules.into_values().collect())
    }

    /// The rule of a key.
    pub fn get(&self, key: &str) -> Option<&EffectiveRule> {
        self.0
            .binary_search_by(|r| r.key.as_str().cmp(key))
            .ok()
            .and_then(|i| self.0.get(i))
    }

    /// The rules in key order.
    pub fn values(&self) -> std::slice::Iter<'_, EffectiveRule> {
        self.0.iter()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The merged policy of one kind on one path.
#[derive(Clone, Debug)]
pub struct Effective {
    pub kind: PolicyKind,
    /// Rules by key (the operator keeps a Go map; key order is the canonical order).
    pub rules: Rules,
    /// The operator's `SourcePolicies`: sorted, de-duplicated locators of the rules' sources
    /// (TokenRateLimitPolicy: every policy in the path).
    pub sources: Vec<Locator>,
    /// Policies on the path in merge order (least → most specific), indices into `Model::policies`.
    pub policies: Vec<usize>,
}

impl Effective {
    /// The limits, by name (the canonical order), without the top-level-predicates rule.
    pub fn limits(&self) -> impl Iterator<Item = (&str, &Limit, usize)> {
        self.rules.values().filter_map(|r| match &r.value {
            RuleValue::Limit(l) => Some((r.key.as_str(), l.as_ref(), r.source)),
            _ => None,
        })
    }

    /// The top-level `when` predicates (RLP/TRLP/AuthPolicy), if any rule holds them.
    pub fn top_level_when(&self) -> &[Sp<String>] {
        self.rules
            .values()
            .find_map(|r| match (&r.value, r.key.of()) {
                (RuleValue::When(w), KeyOf::TopLevelPredicates | KeyOf::AuthConditions) => {
                    Some(w.as_slice())
                }
                _ => None,
            })
            .unwrap_or(&[])
    }
}

/// Effective policies of one path (an index into the topology's `paths()`).
#[derive(Clone, Debug, Default)]
pub struct PathEffective {
    pub rate_limit: Option<Arc<Effective>>,
    pub auth: Option<Arc<Effective>>,
    pub token_rate_limit: Option<Arc<Effective>>,
}

/// One CEL validation failure of a merged wasm action (`docs/semantics/generated-objects.md`, "Wasm actions"): produced by
/// `generate` while building actions, consumed by the status computation (`InvalidCelExpression`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CelIssue {
    /// Kind of the policies whose action failed (RateLimit, Auth or TokenRateLimit).
    pub kind: PolicyKind,
    /// The PathID the action belongs to.
    pub path_id: String,
    /// That path's index in `Topology::path_list()`.
    pub path: usize,
    /// One entry of the operator's `validation issues: [...]` list (cel-go's error text).
    pub message: String,
    /// Whose extension reconciler found it: the operator keeps the Istio and the Envoy Gateway
    /// findings apart (see [`status`]).
    pub provider: Provider,
}

/// The gateway provider a data-plane object or a CEL issue belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Provider {
    Istio,
    EnvoyGateway,
}

/// A Kuadrant data-plane object the operator's status updaters look for among a gateway's children
/// (`gatewayComponentsToSync` / `gatewayComponentsToSyncWithName` in kuadrant-operator v1.4.6 and
/// v1.5.2 internal/controller/data_plane_policies_workflow.go).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Component {
    /// 1.4 Istio: `WasmPlugin kuadrant-<gateway>`.
    WasmPlugin,
    /// 1.5 Istio: the wasm `EnvoyFilter kuadrant-<gateway>`.
    WasmEnvoyFilter,
    /// Istio `EnvoyFilter kuadrant-ratelimiting-<gateway>`.
    RateLimitEnvoyFilter,
    /// Istio `EnvoyFilter kuadrant-auth-<gateway>`.
    AuthEnvoyFilter,
    /// Istio `EnvoyFilter kuadrant-tracing-<gateway>`.
    TracingEnvoyFilter,
    /// Envoy Gateway `EnvoyExtensionPolicy kuadrant-<gateway>`.
    EnvoyExtensionPolicy,
    /// Envoy Gateway `EnvoyPatchPolicy` (rate-limit, auth or tracing cluster).
    EnvoyPatchPolicy,
}

/// The data-plane objects `generate` produced, by gateway (index into `Model::gateways`), before any
/// `--only` / `--gateway` filter: what the status updaters will find in the cluster.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Components(std::collections::BTreeSet<(usize, Component)>);

impl Components {
    pub fn insert(&mut self, gateway: usize, c: Component) {
        self.0.insert((gateway, c));
    }

    pub fn contains(&self, gateway: usize, c: Component) -> bool {
        self.0.contains(&(gateway, c))
    }

    pub fn extend(&mut self, other: Components) {
        self.0.extend(other.0);
    }
}
