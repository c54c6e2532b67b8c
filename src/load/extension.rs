//! Loading Kuadrant's extension policies: their validation (CRD schema and
//! `x-kubernetes-validations`, per version) and their expansion into what their controllers create
//! before the topology is built: a PlanPolicy becomes a RateLimitPolicy of the same name and
//! namespace (kuadrant-operator v1.5.2
//! `cmd/extensions/plan-policy/internal/controller/planpolicy_reconciler.go`), whose `origin` is the
//! PlanPolicy's so that diagnostics point at what the user wrote. The model's side is
//! `model::extension`.

use super::raw::{ExtensionPolicySpec, RawPlan};
use super::validate::{Check, Validated, target_ref};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::extension::*;
use crate::model::*;
use crate::source::Span;
use serde_json::Value;
use std::sync::Arc;

/// The operator release that first ships `kind`, when `version` does not.
pub(crate) fn not_shipped(kind: ObjectKind, version: KuadrantVersion) -> Option<&'static str> {
    (kind == ObjectKind::ThreatPolicy && version == KuadrantVersion::V1_4).then_some("1.5 (v1.5.2)")
}

/// Validate one extension policy as the API server would (its CRD at `version`).
pub(super) fn validate(
    kind: ObjectKind,
    meta: Meta,
    s: ExtensionPolicySpec,
    version: KuadrantVersion,
    c: &mut Check,
) -> Option<Validated> {
    let ek = ExtensionKind::of(kind)?;
    let at = meta.origin.object;
    let target = target_ref(kind, s.target_ref, at, version, c);
    let body = match ek {
        ExtensionKind::Plan => plans(s.plans, at, c),
        ExtensionKind::Oidc => oidc(s.provider, s.auth.as_ref(), at, c),
        ExtensionKind::Telemetry => telemetry(s.metrics, at, c),
        ExtensionKind::Threat => threat(s.threshold, at, c),
    };
    Some(Validated::Extension(Box::new(Extension {
        kind: ek,
        meta,
        target: target?,
        body: body?,
    })))
}

fn plans(p: Option<Sp<Vec<Sp<RawPlan>>>>, at: Span, c: &mut Check) -> Option<ExtensionBody> {
    let Some(p) = p else {
        c.missing(at, "spec.plans");
        return None;
    };
    let mut out = Vec::new();
    for plan in p.value {
        let span = plan.span;
        let plan = plan.value;
        let tier = c.required(&plan.tier, span, "spec.plans[].tier").cloned();
        let predicate = c
            .required(&plan.predicate, span, "spec.plans[].predicate")
            .cloned();
        let mut rates = Vec::new();
        let limits = plan.limits.unwrap_or_default();
        for (value, window) in [
            (limits.daily, "24h"),
            (limits.weekly, "168h"),
            (limits.monthly, "730h"),
            (limits.yearly, "8760h"),
        ] {
            if let Some(v) = value {
                rates.push(Rate {
                    limit: v.value,
                    window: window.to_string(),
                    span: v.span,
                });
            }
        }
        for r in limits.custom.unwrap_or_default() {
            let (Some(limit), Some(window)) = (&r.limit, &r.window) else {
                let field = if r.limit.is_none() { "limit" } else { "window" };
                c.missing(span, &format!("spec.plans[].limits.custom[].{field}"));
                continue;
            };
            rates.push(Rate {
                limit: limit.value,
                window: window.value.clone(),
                span: window.span,
            });
        }
        if let (Some(tier), Some(predicate)) = (tier, predicate) {
            out.push(Plan {
                tier,
                predicate,
                rates,
            });
        }
    }
    Some(ExtensionBody::Plan(out))
}

fn oidc(
    p: Option<Sp<super::raw::RawOidcProvider>>,
    auth: Option<&Sp<Value>>,
    at: Span,
    c: &mut Check,
) -> Option<ExtensionBody> {
    let Some(p) = p else {
        c.missing(at, "spec.provider");
        return None;
    };
    let span = p.span;
    let p = p.value;
    let client_id = c
        .required(&p.client_id, span, "spec.provider.clientID")?
        .clone();
    // The CRD's schema and the two rules of `Provider` were checked before (`schema_pass`).
    let text = |v: Option<Sp<String>>| v.map(|s| s.value).unwrap_or_default();
    let auth = auth.map(|a| &a.value);
    let claims = auth
        .and_then(|a| a.get("claims"))
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default();
    Some(ExtensionBody::Oidc(Box::new(
        crate::model::oidc::OidcSpec {
            jwks_url: text(p.jwks_url),
            issuer_url: text(p.issuer_url),
            client_id: client_id.value,
            authorization_endpoint: text(p.authorization_endpoint),
            redirect_uri: text(p.redirect_uri),
            token_endpoint: text(p.token_endpoint),
            claims,
            token_source: auth.and_then(|a| a.get("tokenSource")).cloned(),
        },
    )))
}

fn telemetry(
    m: Option<Sp<super::raw::RawMetrics>>,
    at: Span,
    c: &mut Check,
) -> Option<ExtensionBody> {
    let Some(m) = m else {
        c.missing(at, "spec.metrics");
        return None;
    };
    let Some(d) = m.value.default else {
        c.missing(m.span, "spec.metrics.default");
        return None;
    };
    let Some(labels) = d.value.labels else {
        c.missing(d.span, "spec.metrics.default.labels");
        return None;
    };
    Some(ExtensionBody::Telemetry(labels.value))
}

fn threat(t: Option<Sp<i64>>, at: Span, c: &mut Check) -> Option<ExtensionBody> {
    let Some(t) = t else {
        c.missing(at, "spec.threshold");
        return None;
    };
    Some(ExtensionBody::Threat(t.value))
}

/// The RateLimitPolicy a PlanPolicy's controller creates: same name and namespace, the
/// PlanPolicy's targetRef, one limit per plan named after its tier (a later plan of the same tier
/// replaces an earlier one; the API server keeps the map's keys sorted), each with the predicate
/// `auth.kuadrant.plan == "<tier>"` and the plan's rates (`PlanPolicy.ToRateLimits`).
pub(crate) fn plan_rate_limit_policy(e: &Extension, plans: &[Plan]) -> Policy {
    let mut limits: std::collections::BTreeMap<&str, Arc<Limit>> = Default::default();
    for p in plans {
        limits.insert(
            &p.tier.value,
            Arc::new(Limit {
                when: vec![Sp::new(
                    format!("auth.kuadrant.plan == \"{}\"", p.tier.value),
                    p.tier.span,
                )],
                counters: vec![],
                rates: p.rates.clone(),
            }),
        );
    }
    Policy {
        kind: PolicyKind::RateLimit,
        meta: Meta {
            name: e.meta.name.clone(),
            namespace: e.meta.namespace.clone(),
            api_version: format!("{KUADRANT_GROUP}/v1"),
            origin: e.meta.origin,
            derived_from: Some(e.display()),
            ..Meta::default()
        },
        target: e.target.clone(),
        body: PolicyBody::RateLimit(LimitsSpec {
            block: Block::Implicit,
            strategy: Strategy::Atomic,
            when: vec![],
            limits: limits
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        }),
    }
}

/// Expand the extension policies into the objects their controllers create, before the topology:
/// each PlanPolicy's RateLimitPolicy joins `model.policies`. A RateLimitPolicy of the same
/// namespace and name in the input is replaced (the controller overwrites its spec) and reported.
/// A PlanPolicy whose RateLimitPolicy the API server would refuse (no plans: "At least one
/// spec.limits must be defined") gets none, and is reported.
pub(crate) fn expand(model: &mut Model, diags: &mut Diagnostics) {
    let mut derived = Vec::new();
    for e in &model.extensions {
        let plans = match &e.body {
            ExtensionBody::Plan(plans) => plans,
            // Expanded after this (`crate::model::oidc`, from the load), as it needs the validated model.
            ExtensionBody::Telemetry(_) | ExtensionBody::Oidc(_) => continue,
            // On a Gateway it is modelled by `crate::generate::threat`; on a route it is not.
            ExtensionBody::Threat(_) if e.target.kind.value == "Gateway" => continue,
            _ => {
                diags.push(not_modelled(e));
                continue;
            }
        };
        if plans.is_empty() {
            diags.push(
                Diagnostic::new(
                    Code::CelRule,
                    "At least one spec.limits must be defined",
                )
                .at(e.meta.origin.name, "this PlanPolicy's RateLimitPolicy")
                .object(e.display())
                .help("the API server refuses the RateLimitPolicy the controller creates for a PlanPolicy without plans: add at least one plan"),
            );
            continue;
        }
        derived.push(plan_rate_limit_policy(e, plans));
    }
    if derived.is_empty() {
        return;
    }
    for d in &derived {
        let same = |p: &Policy| {
            p.kind == PolicyKind::RateLimit
                && p.meta.derived_from.is_none()
                && p.meta.namespace == d.meta.namespace
                && p.meta.name == d.meta.name
        };
        if let Some(old) = model.policies.iter().find(|p| same(p)) {
            diags.push(
                Diagnostic::new(
                    Code::ExtensionOverwrites,
                    format!(
                        "{} creates RateLimitPolicy {}, which the input also defines: the controller overwrites its targetRef and limits",
                        d.meta.derived_from.as_deref().unwrap_or_default(),
                        d.meta.key()
                    ),
                )
                .at(old.meta.origin.name, "replaced")
                .also(d.meta.origin.name, "by this PlanPolicy's")
                .object(old.display())
                .help("rename the PlanPolicy or the RateLimitPolicy: they cannot share a name"),
            );
        }
        model.policies.retain(|p| !same(p));
    }
    model.policies.extend(derived);
    super::validate::sort_model(model);
}

/// A `PCTL3024` for an extension whose controller's effects policyctl does not compute.
fn not_modelled(e: &Extension) -> Diagnostic {
    // Only a ThreatPolicy on a route is announced: on a Gateway it is `crate::generate::threat`'s,
    // and an OIDCPolicy is built by `crate::model::oidc`.
    let what = "the actions its controller adds to the wasm configuration";
    Diagnostic::new(
        Code::ExtensionNotModelled,
        format!(
            "{} is validated, but {what} are not modelled: compute and explain leave them out",
            e.display()
        ),
    )
    .at(e.meta.origin.name, "effects not modelled")
    .object(e.display())
    .help("check what the extension adds on a cluster; see docs/extensions.md")
}
