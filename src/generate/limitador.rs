//! The Limitador CR `generate` writes: its limits in the canonical order and its shell (name,
//! owner, tracing), and what Limitador will do with the windows it is given (PCTL3009).

use super::object::{self, LimitadorLimit, Object};
use super::owner_ref;
use super::runtime::Runtime;
use crate::diag::{Code, Diagnostic};
use crate::model::Model;
use serde_json::{Value, json};

/// PCTL3009: a rate window that is not whole seconds. The operator writes Limitador's `seconds` as
/// `int(time.ParseDuration(window).Seconds())`, truncated (kuadrant-operator v1.4.6 and v1.5.2
/// api/v1/ratelimitpolicy_types.go `Duration.Seconds`; TokenRateLimitPolicy uses the same `Rate`).
/// Limitador expires a counter `seconds` after its first hit (limitador
/// limitador/src/storage/atomic_expiring_value.rs): with 0 the counter has expired whenever it is
/// read, so no request is ever limited.
pub(super) fn window_diagnostics(m: &Model) -> Vec<Diagnostic> {
    // Policy by policy on every core (a large estate has tens of thousands), in policy order.
    crate::par::map(&m.policies, 4096, policy_window_diagnostics)
        .into_iter()
        .flatten()
        .collect()
}

/// [`window_diagnostics`] of one policy.
fn policy_window_diagnostics(p: &crate::model::Policy) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let (crate::model::PolicyBody::RateLimit(spec)
    | crate::model::PolicyBody::TokenRateLimit(spec)) = &p.body
    else {
        return out;
    };
    for (name, limit) in &spec.limits {
        for rate in &limit.rates {
            let Some(ms) = crate::model::parse_go_duration_millis(&rate.window) else {
                continue;
            };
            if ms % 1000 == 0 {
                continue;
            }
            let seconds = rate.seconds();
            let (msg, label, help) = if seconds == 0 {
                (
                    format!(
                        "window {:?} of limit {name:?} is shorter than one second: Limitador gets `seconds: 0` and never enforces the limit",
                        rate.window
                    ),
                    "truncated to 0 s: never enforced".to_string(),
                    "use a window of at least 1s; Limitador counts in whole seconds".to_string(),
                )
            } else {
                (
                    format!(
                        "window {:?} of limit {name:?} is not whole seconds: Limitador gets `seconds: {seconds}`, a shorter window than written",
                        rate.window
                    ),
                    format!("truncated to {seconds} s"),
                    format!(
                        "write the window in whole seconds ({seconds}s or {}s); the operator drops the milliseconds",
                        seconds + 1
                    ),
                )
            };
            out.push(
                Diagnostic::new(Code::WindowTruncated, msg)
                    .object(p.display())
                    .at(rate.span, label)
                    .help(help),
            );
        }
    }
    out
}

/// The canonical order of Limitador limits (`docs/output-conventions.md`): name, namespace, max_value, seconds, conditions,
/// variables (lists by length, then element by element).
/// Every field takes part (the pattern below names them all), so limits it finds equal are alike.
pub(crate) fn limit_order(a: &LimitadorLimit, b: &LimitadorLimit) -> std::cmp::Ordering {
    fn head(l: &LimitadorLimit) -> (&str, &str, i64, i64, usize) {
        let LimitadorLimit {
            conditions,
            max_value,
            name,
            namespace,
            seconds,
            variables: _,
        } = l;
        (
            name.as_str(),
            namespace,
            *max_value,
            *seconds,
            conditions.len(),
        )
    }
    head(a)
        .cmp(&head(b))
        .then_with(|| a.conditions.cmp(&b.conditions))
        .then_with(|| a.variables.len().cmp(&b.variables.len()))
        .then_with(|| a.variables.cmp(&b.variables))
}

/// The Limitador CR: a tree when it has no limits, else a carrier of its limits in the canonical
/// order. [`limit_order`] compares every field, so limits it finds equal are alike and the order
/// they come in does not matter.
pub(super) fn limitador(rt: &Runtime<'_>, mut limits: Vec<LimitadorLimit>) -> Object {
    // On every core that is free (a large estate has a hundred thousand limits).
    crate::par::sort_unstable_by(&mut limits, limit_order);
    let mut spec = json!({"metricLabelsDefault": "descriptors[1]"});
    if !limits.is_empty() {
        // The placeholder the limits are written in.
        spec["limits"] = Value::Null;
    }
    if let Some((url, _)) = &rt.tracing {
        spec["tracing"] = json!({"endpoint": url});
    }
    let name = rt
        .limitador_obj
        .map_or("limitador", |l| l.meta.name.as_str());
    let mut meta = json!({"name": name, "namespace": rt.namespace});
    if let Some(k) = rt.kuadrant
        && let Some(uid) = &k.meta.uid
    {
        meta["ownerReferences"] = json!([owner_ref(
            "kuadrant.io/v1beta1",
            "Kuadrant",
            &k.meta.name,
            uid
        )]);
    }
    let mut obj = json!({
        "apiVersion": "limitador.kuadrant.io/v1alpha1",
        "kind": "Limitador",
        "metadata": meta,
        "spec": null,
    });
    obj["spec"] = spec;
    if limits.is_empty() {
        return Object::Tree(obj);
    }
    Object::Limitador(Box::new(object::LimitadorCarrier {
        shell: obj,
        at: "/spec/limits",
        limits,
    }))
}
