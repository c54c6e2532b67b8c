//! Kuadrant's extension policies (`extensions.kuadrant.io/v1alpha1`): PlanPolicy, OIDCPolicy and
//! TelemetryPolicy (operator 1.4 and 1.5) and ThreatPolicy (1.5 only).
//!
//! Owns their validation (CRD schema and `x-kubernetes-validations`, per version) and their
//! expansion into what their controllers create before the topology is built: a PlanPolicy becomes
//! a RateLimitPolicy of the same name and namespace (kuadrant-operator v1.5.2
//! `cmd/extensions/plan-policy/internal/controller/planpolicy_reconciler.go`), whose `origin` is
//! the PlanPolicy's so that diagnostics point at what the user wrote. The data a PlanPolicy adds to
//! the AuthConfigs of its target (`plan`, in the `kuadrant` dynamic metadata) is
//! [`plan_data`]; the metric labels of a TelemetryPolicy are [`request_data`]. An OIDCPolicy's
//! objects are built by [`super::oidc`]. ThreatPolicy is validated and announced, not expanded
//! (see the README's "Extension policies").

use super::raw::{ExtensionPolicySpec, RawPlan};
use super::validate::{Check, Validated, target_ref, window_ok};
use super::*;
use crate::diag::{Code, Diagnostic, Diagnostics};

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

    fn of(k: ObjectKind) -> Option<Self> {
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
    /// TelemetryPolicy `metrics.default.labels` (label name → CEL expression).
    Telemetry(IndexMap<String, String>),
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
        let base = Locator::object(
            &self.target.kind.value,
            &self.target.group.value,
            &self.meta.namespace,
            &self.target.name.value,
        );
        match &self.target.section_name {
            Some(s) => base.section(&s.value),
            None => base,
        }
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

/// The operator release that first ships `kind`, when `version` does not.
pub fn not_shipped(kind: ObjectKind, version: KuadrantVersion) -> Option<&'static str> {
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
        ExtensionKind::Oidc => {
            oidc_auth(s.auth.as_ref(), c);
            oidc(s.provider, s.auth.as_ref(), at, c)
        }
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
        if let Some(pr) = &predicate
            && pr.value.is_empty()
        {
            c.schema(
                pr.span,
                "spec.plans[].predicate must be at least 1 character",
                "write a CEL expression over the identity, e.g. auth.identity.tier == 'gold'",
            );
        }
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
            if !window_ok(&window.value) {
                c.schema(
                    window.span,
                    format!(
                        "window {:?} does not match ^([0-9]{{1,5}}(h|m|s|ms)){{1,4}}$",
                        window.value
                    ),
                    "use up to four segments of 1-5 digits with h, m, s or ms, e.g. 1m or 1h30m (no d)",
                );
            }
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
    let set = |v: &Option<Sp<String>>| v.as_ref().is_some_and(|s| !s.value.is_empty());
    // The two rules of `Provider` (kuadrant-operator v1.5.2 and v1.4.6
    // `cmd/extensions/oidc-policy/api/v1alpha1/oidcpolicy_types.go`).
    if set(&p.jwks_url) && set(&p.issuer_url) {
        c.cel(span, "Use one of: jwksURL, issuerURL");
    }
    if set(&p.jwks_url) && !(set(&p.authorization_endpoint) && set(&p.token_endpoint)) {
        c.cel(
            span,
            "When jwksURL is set, authorizationEndpoint and tokenEndpoint must also be provided",
        );
    }
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
    Some(ExtensionBody::Oidc(Box::new(super::oidc::OidcSpec {
        jwks_url: text(p.jwks_url),
        issuer_url: text(p.issuer_url),
        client_id: client_id.value,
        authorization_endpoint: text(p.authorization_endpoint),
        redirect_uri: text(p.redirect_uri),
        token_endpoint: text(p.token_endpoint),
        claims,
        token_source: auth.and_then(|a| a.get("tokenSource")).cloned(),
    })))
}

/// OIDCPolicy `auth`: `claims` is a map of strings, and a `tokenSource` `cookie`, `customHeader` or
/// `queryString` needs its `name` (the CRD's schema).
fn oidc_auth(auth: Option<&Sp<Value>>, c: &mut Check) {
    let Some(auth) = auth else { return };
    let span = auth.span;
    if let Some(claims) = auth.value.get("claims") {
        let ok = claims
            .as_object()
            .is_some_and(|m| m.values().all(Value::is_string));
        if !ok {
            c.schema(
                span,
                "spec.auth.claims must map claim names to strings",
                "write each claim's expected value as a string, e.g. email_verified: \"true\"",
            );
        }
    }
    let Some(source) = auth.value.get("tokenSource") else {
        return;
    };
    for field in ["cookie", "customHeader", "queryString"] {
        if let Some(v) = source.get(field)
            && !v.get("name").is_some_and(Value::is_string)
        {
            c.missing(span, &format!("spec.auth.tokenSource.{field}.name"));
        }
    }
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
    if labels.value.is_empty() {
        c.schema(
            labels.span,
            "spec.metrics.default.labels must have at least 1 item",
            "name at least one label and the CEL expression of its value",
        );
    }
    Some(ExtensionBody::Telemetry(
        labels
            .value
            .into_iter()
            .map(|(k, v)| (k, v.value))
            .collect(),
    ))
}

fn threat(t: Option<Sp<i64>>, at: Span, c: &mut Check) -> Option<ExtensionBody> {
    let Some(t) = t else {
        c.missing(at, "spec.threshold");
        return None;
    };
    if !(0..=10).contains(&t.value) {
        c.schema(
            t.span,
            format!(
                "spec.threshold {} must be between 0 and 10 inclusive",
                t.value
            ),
            "use a threat level threshold from 0 to 10",
        );
    }
    Some(ExtensionBody::Threat(t.value))
}

/// The RateLimitPolicy a PlanPolicy's controller creates: same name and namespace, the
/// PlanPolicy's targetRef, one limit per plan named after its tier (a later plan of the same tier
/// replaces an earlier one; the API server keeps the map's keys sorted), each with the predicate
/// `auth.kuadrant.plan == "<tier>"` and the plan's rates (`PlanPolicy.ToRateLimits`).
pub fn plan_rate_limit_policy(e: &Extension, plans: &[Plan]) -> Policy {
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

/// `PlanPolicy.BuildCelExpression`: the CEL expression that picks the first tier whose predicate
/// holds (newlines of a predicate removed), registered as the `plan` data of the auth domain.
pub fn plan_expression(plans: &[Plan]) -> String {
    let tiers: Vec<String> = plans
        .iter()
        .map(|p| format!("\"{}\"", p.tier.value))
        .collect();
    let predicates: Vec<String> = plans
        .iter()
        .map(|p| {
            format!(
                "    \"{}\": {},",
                p.tier.value,
                p.predicate.value.replace('\n', "")
            )
        })
        .collect();
    format!(
        "[{}]\n  .filter(i, i in\n    [{{\n{}\n    }}].map(m, m.filter(key, m[key]))[0])[0]",
        tiers.join(", "),
        predicates.join("\n")
    )
}

/// Expand the extension policies into the objects their controllers create, before the topology:
/// each PlanPolicy's RateLimitPolicy joins `model.policies`. A RateLimitPolicy of the same
/// namespace and name in the input is replaced (the controller overwrites its spec) and reported.
/// A PlanPolicy whose RateLimitPolicy the API server would refuse (no plans: "At least one
/// spec.limits must be defined") gets none, and is reported.
pub fn expand(model: &mut Model, diags: &mut Diagnostics) {
    let mut derived = Vec::new();
    for e in &model.extensions {
        let plans = match &e.body {
            ExtensionBody::Plan(plans) => plans,
            // Expanded after this (`super::oidc`, from the load), as it needs the validated model.
            ExtensionBody::Telemetry(_) | ExtensionBody::Oidc(_) => continue,
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

/// The object the controller of an extension policy creates for `p` (a PlanPolicy's
/// RateLimitPolicy) as the API server stores it, keys in the order `kubectl get -o json` prints
/// them after sorting; `None` for a policy from the input. Its owner reference (the controller
/// sets it with `SetControllerReference`) is written only when the PlanPolicy's `metadata.uid` is
/// known.
pub fn derived_object(model: &Model, p: &Policy) -> Option<Value> {
    p.meta.derived_from.as_ref()?;
    let PolicyBody::RateLimit(spec) = &p.body else {
        // An OIDCPolicy's AuthPolicies: as the controller built them.
        return model
            .derived_objects
            .iter()
            .find(|v| {
                v["kind"] == p.kind.kind()
                    && v["metadata"]["namespace"] == p.meta.namespace.as_str()
                    && v["metadata"]["name"] == p.meta.name.as_str()
            })
            .cloned();
    };
    let owner = model.extensions.iter().find(|e| {
        e.kind == ExtensionKind::Plan
            && e.meta.namespace == p.meta.namespace
            && e.meta.name == p.meta.name
    })?;
    let mut metadata = serde_json::json!({
        "name": p.meta.name,
        "namespace": p.meta.namespace,
    });
    if let Some(uid) = &owner.meta.uid {
        metadata["ownerReferences"] = serde_json::json!([{
            "apiVersion": owner.meta.api_version,
            "blockOwnerDeletion": true,
            "controller": true,
            "kind": "PlanPolicy",
            "name": owner.meta.name,
            "uid": uid,
        }]);
    }
    let mut target = serde_json::json!({
        "group": p.target.group.value,
        "kind": p.target.kind.value,
        "name": p.target.name.value,
    });
    if let Some(s) = &p.target.section_name {
        target["sectionName"] = Value::from(s.value.clone());
    }
    let limits: serde_json::Map<String, Value> = spec
        .limits
        .iter()
        .map(|(name, l)| {
            let mut v = serde_json::Map::new();
            if !l.rates.is_empty() {
                let rates: Vec<Value> = l
                    .rates
                    .iter()
                    .map(|r| serde_json::json!({ "limit": r.limit, "window": r.window }))
                    .collect();
                v.insert("rates".into(), Value::from(rates));
            }
            let when: Vec<Value> = l
                .when
                .iter()
                .map(|w| serde_json::json!({ "predicate": w.value }))
                .collect();
            v.insert("when".into(), Value::from(when));
            (name.clone(), Value::Object(v))
        })
        .collect();
    Some(serde_json::json!({
        "apiVersion": p.meta.api_version,
        "kind": "RateLimitPolicy",
        "metadata": metadata,
        "spec": { "limits": limits, "targetRef": target },
    }))
}

/// A `PCTL3024` for an extension whose controller's effects policyctl does not compute.
fn not_modelled(e: &Extension) -> Diagnostic {
    // Only a ThreatPolicy is announced: an OIDCPolicy is built by `super::oidc`.
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
    .help("check what the extension adds on a cluster; see the README's \"Extension policies\" section")
}

/// The `kuadrant` dynamic-metadata properties the extension manager adds to the AuthConfig of a
/// path through `gateway` and `route` (`(binding, expression)`, binding order): the `plan` of the
/// PlanPolicies that target them. Later target refs win over earlier ones for the same binding:
/// on 1.5 the Gateway then the route, on 1.4 the HTTPRoute then the Gateway (kuadrant-operator
/// v1.5.2 / v1.4.6 `internal/extension/registry.go` `ApplyAuthConfigMutators`,
/// `mutateAuthConfig`). Only PlanPolicies whose RateLimitPolicy could be created register data.
pub fn plan_data(
    model: &Model,
    version: KuadrantVersion,
    gateway: (&str, &str),
    route: (RouteKind, &str, &str),
) -> Vec<(String, String)> {
    if !model
        .extensions
        .iter()
        .any(|e| e.kind == ExtensionKind::Plan)
    {
        return vec![];
    }
    let gw = ("Gateway", gateway.0, gateway.1);
    let rt = (route.0.kind(), route.1, route.2);
    let refs = match version {
        KuadrantVersion::V1_5 => [gw, rt],
        KuadrantVersion::V1_4 => [rt, gw],
    };
    let mut props: std::collections::BTreeMap<String, String> = Default::default();
    for (kind, ns, name) in refs {
        for e in &model.extensions {
            if let ExtensionBody::Plan(plans) = &e.body
                && !plans.is_empty()
                && e.targets(kind, ns, name)
            {
                props.insert("plan".to_string(), plan_expression(plans));
            }
        }
    }
    props.into_iter().collect()
}

/// The `requestData` of the wasm configuration of the Gateway `namespace/name`: the metric labels
/// of the TelemetryPolicies that target it, as `metrics.labels.<label>` → CEL expression
/// (kuadrant-operator v1.5.2 / v1.4.6 `cmd/extensions/telemetry-policy/internal/controller/
/// telemetrypolicy_reconciler.go` `reconcileSpec`, `pkg/extension/types/types.go`
/// `KuadrantMetricBinding`; `internal/extension/registry.go` `mutateWasmConfig`: the first
/// registration of a binding is kept, here the first TelemetryPolicy by namespace/name), sorted.
pub fn request_data(model: &Model, namespace: &str, name: &str) -> Vec<(String, String)> {
    let mut out: std::collections::BTreeMap<String, String> = Default::default();
    for e in &model.extensions {
        if let ExtensionBody::Telemetry(labels) = &e.body
            && e.targets("Gateway", namespace, name)
        {
            for (label, expression) in labels {
                out.entry(format!("metrics.labels.{label}"))
                    .or_insert_with(|| expression.clone());
            }
        }
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(tier: &str, predicate: &str) -> Plan {
        Plan {
            tier: Sp::new(tier.into(), Span::default()),
            predicate: Sp::new(predicate.into(), Span::default()),
            rates: vec![],
        }
    }

    /// The expression `BuildCelExpression` prints (kuadrant-operator v1.5.2
    /// `cmd/extensions/plan-policy/api/v1alpha1/planpolicy_types.go`): tiers quoted and joined by
    /// ", ", one `"tier": predicate,` line per plan, newlines of a predicate removed.
    #[test]
    fn plan_expression_layout() {
        let got = plan_expression(&[
            plan("gold", "auth.identity.tier == \"gold\""),
            plan("silver", "auth.identity.tier ==\n \"silver\""),
        ]);
        let want = "[\"gold\", \"silver\"]\n  .filter(i, i in\n    [{\n    \"gold\": auth.identity.tier == \"gold\",\n    \"silver\": auth.identity.tier == \"silver\",\n    }].map(m, m.filter(key, m[key]))[0])[0]";
        assert_eq!(got, want);
    }
}
