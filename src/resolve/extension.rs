//! The status extension policies' controllers write on their own objects.
//!
//! A PlanPolicy is `Accepted` and `Enforced` when the RateLimitPolicy its controller created is
//! `Enforced`; otherwise `Accepted=False` (reason `Unknown`) and no `Enforced` (kuadrant-operator
//! v1.5.2 and v1.4.6 `cmd/extensions/plan-policy/internal/controller/planpolicy_reconciler.go`
//! `reconcileSpec`, `calculateErrorStatus`, `calculateEnforcedStatus`; the messages of
//! `pkg/extension/controller/utils.go` `AcceptedCondition`, `EnforcedCondition` and
//! `internal/kuadrant/errors.go` `ErrUnknown`). A TelemetryPolicy, which only registers its
//! labels, is `Accepted` and `Enforced` (`telemetrypolicy_reconciler.go`). An OIDCPolicy is
//! `Accepted`, and `Enforced` when both its AuthPolicies are, else `Enforced=False` (reason
//! `Unknown`, "AuthPolicy NAME is not enforced", the main one checked first:
//! `oidcpolicy_reconciler.go` `reconcileSpec`, `calculateEnforcedStatus`); one that got no
//! objects (no ingress gateway: the reconcile fails before writing status) has none predicted.
//! A ThreatPolicy is `Accepted` and `Enforced` when the Gateway or HTTPRoute it targets exists,
//! else `Accepted=False`, reason `TargetNotFound`, "ThreatPolicy target NAME was not found"
//! (kuadrant-operator v1.5.2 `cmd/extensions/threat-policy/internal/controller/
//! threatpolicy_reconciler.go` `validateTarget`; `internal/kuadrant/errors.go`
//! `ErrTargetNotFound`); registering its action method and pipeline is assumed to succeed.

use super::status::{Condition, PolicyStatus};
use crate::model::Model;
use crate::model::extension::ExtensionKind;

/// The predicted conditions of one extension policy.
#[derive(Clone, Debug)]
pub struct ExtensionStatus {
    /// Index into `Model::extensions`.
    pub extension: usize,
    pub accepted: Condition,
    /// `None` when not accepted (the controller removes it).
    pub enforced: Option<Condition>,
}

impl ExtensionStatus {
    /// The conditions in the order the controller writes them.
    pub fn conditions(&self) -> Vec<&Condition> {
        std::iter::once(&self.accepted)
            .chain(self.enforced.as_ref())
            .collect()
    }
}

fn condition(type_: &str, ok: bool, reason: &str, message: String) -> Condition {
    Condition {
        type_: type_.into(),
        status: if ok { "True" } else { "False" }.into(),
        reason: reason.into(),
        message,
    }
}

/// `calculateEnforcedStatus` without an error.
fn enforced_status(extension: usize, kind: &str) -> ExtensionStatus {
    ExtensionStatus {
        extension,
        accepted: condition(
            "Accepted",
            true,
            "Accepted",
            format!("{kind} has been accepted"),
        ),
        enforced: Some(condition(
            "Enforced",
            true,
            "Enforced",
            format!("{kind} has been successfully enforced"),
        )),
    }
}

/// The PlanPolicies' and TelemetryPolicies' statuses, from the predicted statuses of the policies (`statuses`, indexed
/// by `PolicyStatus::policy`) of `model`.
pub(crate) fn statuses(model: &Model, statuses: &[PolicyStatus]) -> Vec<ExtensionStatus> {
    let mut out = Vec::new();
    for (i, e) in model.extensions.iter().enumerate() {
        let kind = e.kind.kind();
        if e.kind == ExtensionKind::Telemetry {
            // Registering its labels is all it does: Accepted and Enforced.
            out.push(enforced_status(i, kind));
            continue;
        }
        if e.kind == ExtensionKind::Threat {
            out.push(threat_status(model, i));
            continue;
        }
        if e.kind == ExtensionKind::Oidc {
            out.extend(oidc_status(model, statuses, i));
            continue;
        }
        if e.kind != ExtensionKind::Plan {
            continue;
        }
        let derived = model.policies.iter().position(|p| {
            p.meta.derived_from.is_some()
                && p.meta.namespace == e.meta.namespace
                && p.meta.name == e.meta.name
        });
        let enforced = derived.and_then(|j| statuses.iter().find(|s| s.policy == j));
        let error = match (derived, enforced) {
            (None, _) => Some(format!(
                "RateLimitPolicy.kuadrant.io {:?} is invalid: spec: Invalid value: \"object\": At least one spec.limits must be defined",
                e.meta.name
            )),
            (Some(_), Some(s)) if s.enforced.as_ref().is_some_and(|c| c.is_true()) => None,
            (Some(_), _) => Some(format!("RateLimitPolicy {} is not enforced", e.meta.name)),
        };
        out.push(match error {
            None => enforced_status(i, kind),
            Some(err) => ExtensionStatus {
                extension: i,
                accepted: condition(
                    "Accepted",
                    false,
                    "Unknown",
                    format!("{kind} has encountered some issues: {err}"),
                ),
                enforced: None,
            },
        });
    }
    out
}

/// An OIDCPolicy's conditions, from the predicted statuses of its main and callback AuthPolicies.
fn oidc_status(model: &Model, statuses: &[PolicyStatus], i: usize) -> Option<ExtensionStatus> {
    let e = &model.extensions[i];
    let enforced = |name: &str| -> Option<bool> {
        let j = model.policies.iter().position(|p| {
            p.meta.derived_from.is_some()
                && p.kind == crate::model::PolicyKind::Auth
                && p.meta.namespace == e.meta.namespace
                && p.meta.name == name
        })?;
        Some(
            statuses
                .iter()
                .find(|s| s.policy == j)
                .and_then(|s| s.enforced.as_ref())
                .is_some_and(|c| c.is_true()),
        )
    };
    let main = e.meta.name.clone();
    let callback = format!("{}-callback", e.meta.name);
    let (main_ok, callback_ok) = (enforced(&main)?, enforced(&callback)?);
    let kind = e.kind.kind();
    let failed = [(main_ok, main), (callback_ok, callback)]
        .into_iter()
        .find(|(ok, _)| !ok);
    Some(match failed {
        None => enforced_status(i, kind),
        Some((_, name)) => ExtensionStatus {
            extension: i,
            accepted: condition(
                "Accepted",
                true,
                "Accepted",
                format!("{kind} has been accepted"),
            ),
            enforced: Some(condition(
                "Enforced",
                false,
                "Unknown",
                format!("AuthPolicy {name} is not enforced"),
            )),
        },
    })
}

/// A ThreatPolicy's conditions: its target must exist (`validateTarget`).
fn threat_status(model: &Model, i: usize) -> ExtensionStatus {
    let e = &model.extensions[i];
    let (ns, name) = (&e.meta.namespace, &e.target.name.value);
    let found = match e.target.kind.value.as_str() {
        "Gateway" => model.gateway(ns, name).is_some(),
        _ => model.routes.iter().any(|r| {
            r.spec.kind == crate::model::RouteKind::Http
                && &r.meta.namespace == ns
                && &r.meta.name == name
        }),
    };
    if found {
        return enforced_status(i, e.kind.kind());
    }
    ExtensionStatus {
        extension: i,
        accepted: condition(
            "Accepted",
            false,
            "TargetNotFound",
            format!("ThreatPolicy target {name} was not found"),
        ),
        enforced: None,
    }
}
