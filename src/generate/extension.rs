//! What the extension policies' controllers register with the operator and create, read from the
//! model's extension policies: the `plan` a PlanPolicy adds to the AuthConfigs of its target
//! ([`plan_data`]), the metric labels a TelemetryPolicy adds to its Gateway's wasm configuration
//! ([`request_data`]), and the RateLimitPolicy a PlanPolicy's controller creates as the API server
//! stores it ([`derived_object`]).

use crate::model::extension::{ExtensionBody, ExtensionKind, Plan};
use crate::model::{KuadrantVersion, Model, Policy, PolicyBody, RouteKind, Sp};
use serde_json::Value;

/// `PlanPolicy.BuildCelExpression`: the CEL expression that picks the first tier whose predicate
/// holds (newlines of a predicate removed), registered as the `plan` data of the auth domain.
pub(crate) fn plan_expression(plans: &[Plan]) -> String {
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

/// The object the controller of an extension policy creates for `p` (a PlanPolicy's
/// RateLimitPolicy) as the API server stores it, keys in the order `kubectl get -o json` prints
/// them after sorting; `None` for a policy from the input. Its owner reference (the controller
/// sets it with `SetControllerReference`) is written only when the PlanPolicy's `metadata.uid` is
/// known.
pub(crate) fn derived_object(model: &Model, p: &Policy) -> Option<Value> {
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

/// The `kuadrant` dynamic-metadata properties the extension manager adds to the AuthConfig of a
/// path through `gateway` and `route` (`(binding, expression)`, binding order): the `plan` of the
/// PlanPolicies that target them. Later target refs win over earlier ones for the same binding:
/// on 1.5 the Gateway then the route, on 1.4 the HTTPRoute then the Gateway (kuadrant-operator
/// v1.5.2 / v1.4.6 `internal/extension/registry.go` `ApplyAuthConfigMutators`,
/// `mutateAuthConfig`). Only PlanPolicies whose RateLimitPolicy could be created register data.
pub(crate) fn plan_data(
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
pub(crate) fn request_data(model: &Model, namespace: &str, name: &str) -> Vec<(String, String)> {
    request_data_sources(model, namespace, name)
        .into_iter()
        .map(|(key, expression, _, _)| (key, expression.value.clone()))
        .collect()
}

/// [`request_data`] with where each entry comes from: the TelemetryPolicy (its index among the
/// model's extensions) and the label's name.
pub(crate) fn request_data_sources<'m>(
    model: &'m Model,
    namespace: &str,
    name: &str,
) -> Vec<(String, &'m Sp<String>, usize, &'m str)> {
    let mut out: std::collections::BTreeMap<String, (&Sp<String>, usize, &str)> =
        Default::default();
    for (i, e) in model.extensions.iter().enumerate() {
        if let ExtensionBody::Telemetry(labels) = &e.body
            && e.targets("Gateway", namespace, name)
        {
            for (label, expression) in labels {
                out.entry(format!("metrics.labels.{label}")).or_insert((
                    expression,
                    i,
                    label.as_str(),
                ));
            }
        }
    }
    out.into_iter()
        .map(|(key, (expression, i, label))| (key, expression, i, label))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Sp;
    use crate::source::Span;

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
