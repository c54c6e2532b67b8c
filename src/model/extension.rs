//! Kuadrant's extension policies (`extensions.kuadrant.io/v1alpha1`): PlanPolicy, OIDCPolicy and
//! TelemetryPolicy (operator 1.4 and 1.5) and ThreatPolicy (1.5 only), as the model holds them once
//! loaded (validation and expansion are `load::extension`'s, an OIDCPolicy's objects
//! `load::oidc`'s). What their controllers register for the data plane and the objects they create
//! are built by `crate::generate::extension` (plan data, metric labels, a PlanPolicy's
//! RateLimitPolicy) and `crate::generate::threat`.

use super::*;

/// The four extension kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ExtensionKind {
    Plan,
    Oidc,
    Telemetry,
    Threat,
}

impl ExtensionKind {
    pub fn object_kind(self) -> ObjectKind {
        match self {
            ExtensionKind::Plan => ObjectKind::PlanPolicy,
            ExtensionKind::Oidc => ObjectKind::OidcPolicy,
            ExtensionKind::Telemetry => ObjectKind::TelemetryPolicy,
            ExtensionKind::Threat => ObjectKind::ThreatPolicy,
        }
    }

    pub fn kind(self) -> &'static str {
        self.object_kind().kind()
    }

    pub fn of(k: ObjectKind) -> Option<Self> {
        match k {
            ObjectKind::PlanPolicy => Some(ExtensionKind::Plan),
            ObjectKind::OidcPolicy => Some(ExtensionKind::Oidc),
            ObjectKind::TelemetryPolicy => Some(ExtensionKind::Telemetry),
            ObjectKind::ThreatPolicy => Some(ExtensionKind::Threat),
            _ => None,
        }
    }
}

/// One plan of a PlanPolicy.
#[derive(Clone, Debug)]
pub struct Plan {
    pub tier: Sp<String>,
    pub predicate: Sp<String>,
    /// `limits.ToRates()`: daily (24h), weekly (168h), monthly (730h), yearly (8760h), then custom.
    pub rates: Vec<Rate>,
}

/// What an extension policy holds, by kind.
#[derive(Clone, Debug)]
pub enum ExtensionBody {
    Plan(Vec<Plan>),
    /// OIDCPolicy `provider` and `auth` (see [`super::oidc`]).
    Oidc(Box<super::oidc::OidcSpec>),
    /// TelemetryPolicy `metrics.default.labels` (label name → CEL expression, where it is written).
    Telemetry(IndexMap<String, super::Sp<String>>),
    /// ThreatPolicy `threshold`.
    Threat(i64),
}

/// A validated extension policy.
#[derive(Clone, Debug)]
pub struct Extension {
    pub kind: ExtensionKind,
    pub meta: Meta,
    pub target: TargetRef,
    pub body: ExtensionBody,
}

impl Extension {
    /// `Kind namespace/name`, for messages.
    pub fn display(&self) -> String {
        format!("{} {}", self.kind.kind(), self.meta.key())
    }

    /// The locator of the object its targetRef names (`#section` when set).
    pub fn target_locator(&self) -> Locator {
        self.target.locator(&self.meta.namespace)
    }

    /// Whether its targetRef names `kind` `namespace/name` (the extension manager matches the
    /// group, kind, name and the policy's namespace; the sectionName is not part of the key:
    /// kuadrant-operator v1.5.2 `internal/extension/manager.go` `createLocatorFromProtobuf`).
    pub fn targets(&self, kind: &str, namespace: &str, name: &str) -> bool {
        self.target.group.value == GATEWAY_API_GROUP
            && self.target.kind.value == kind
            && self.meta.namespace == namespace
            && self.target.name.value == name
    }
}
