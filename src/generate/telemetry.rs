//! PCTL3030: a TelemetryPolicy label that turns rate limits off on 1.5.
//!
//! wasm-shim v0.14.1 writes every `requestData` entry of a gateway's configuration (the metric
//! labels of the TelemetryPolicies on the Gateway, `super::extension::request_data`) into each
//! rate-limit request it builds, as `string(expression)` (src/configuration/legacy_translation.rs
//! `build_ratelimit_message_builder`). When one fails, the message fails, the rate-limit action
//! fails and its failure mode, `allow`, lets the request through uncounted. Before the auth action
//! has stored anything the shim binds `auth` to null (src/data/cel.rs `eval`), so a label that
//! reads nothing but `auth` (`auth.identity.userid`) fails for every request there: every rate limit
//! that runs before the auth action, or on a path without an AuthPolicy, is never enforced. Labels
//! that read the request fail or not request by request; `simulate` shows those.
//!
//! The 1.4 shim (v0.12.3 src/services/rate_limit.rs `build_request`) leaves such a label out of the
//! request instead: nothing to report there.

use super::actions::{
    AUTH_SERVICE, RATELIMIT_CHECK_SERVICE, RATELIMIT_REPORT_SERVICE, RATELIMIT_SERVICE,
};
use super::object::Object;
use crate::diag::{Code, Diagnostic};
use crate::model::{KuadrantVersion, Model, Sp};
use std::collections::{BTreeMap, BTreeSet};

/// A label of a Gateway's `requestData` that fails in the 1.5 shim whenever `auth` is not set.
pub(crate) struct FailingLabel<'m> {
    /// Its `requestData` key (`metrics.labels.<label>`).
    pub key: String,
    pub expression: &'m Sp<String>,
    /// The TelemetryPolicy (its index among the model's extensions) and the label's name.
    pub extension: usize,
    pub label: &'m str,
    /// What the shim's interpreter says.
    pub error: String,
}

/// The labels of the `requestData` of Gateway `namespace/name` that fail in the 1.5 shim
/// whenever `auth` is not set, in the order of their keys; none on 1.4.
pub(crate) fn failing_labels<'m>(
    m: &'m Model,
    namespace: &str,
    name: &str,
) -> Vec<FailingLabel<'m>> {
    if m.version != KuadrantVersion::V1_5 {
        return vec![];
    }
    super::extension::request_data_sources(m, namespace, name)
        .into_iter()
        .filter_map(|(key, expression, extension, label)| {
            let error = crate::simulate::fails_before_auth(&expression.value)?;
            Some(FailingLabel {
                key,
                expression,
                extension,
                label,
                error,
            })
        })
        .collect()
}

/// PCTL3030 for every TelemetryPolicy label that fails in the 1.5 shim whenever `auth` is not set
/// ([`failing_labels`]), and that a rate-limit action of the generated wasm configurations meets
/// before any auth action (of its action set), naming the policies of those actions and the
/// Gateways; one diagnostic per label, in the order of the TelemetryPolicies and their labels.
pub(super) fn diagnostics(m: &Model, objects: &[Object]) -> Vec<Diagnostic> {
    // (extension, label name) → the label, its Gateways, the policies whose limits it turns off.
    type Found<'m> = (FailingLabel<'m>, BTreeSet<String>, BTreeSet<String>);
    let mut found: BTreeMap<(usize, &str), Found<'_>> = BTreeMap::new();
    for o in objects {
        let Object::Wasm(w) = o else { continue };
        let Some((ns, gw)) = w.gateway() else {
            continue;
        };
        let failing = failing_labels(m, ns, gw);
        if failing.is_empty() {
            continue;
        }
        let mut sources = BTreeSet::new();
        for set in &w.config.action_sets {
            for a in set.actions.iter() {
                match a.service {
                    AUTH_SERVICE => break,
                    RATELIMIT_SERVICE | RATELIMIT_CHECK_SERVICE | RATELIMIT_REPORT_SERVICE => {
                        sources.extend(a.sources.iter().map(String::as_str));
                    }
                    _ => {}
                }
            }
        }
        if sources.is_empty() {
            continue;
        }
        for f in failing {
            let entry = found
                .entry((f.extension, f.label))
                .or_insert_with(|| (f, BTreeSet::new(), BTreeSet::new()));
            entry.1.insert(format!("{ns}/{gw}"));
            entry.2.extend(sources.iter().map(|s| s.to_string()));
        }
    }
    if found.is_empty() {
        return vec![];
    }
    // The policies as messages name them, by the locator their actions carry.
    let names: std::collections::HashMap<String, String> = (m.policies.iter())
        .map(|p| (p.locator().to_string(), p.display()))
        .collect();
    found
        .into_values()
        .map(|(f, gateways, sources)| {
            let e = &m.extensions[f.extension];
            let expr = &f.expression.value;
            let policies: Vec<&str> = (sources.iter())
                .map(|s| names.get(s).map_or(s.as_str(), String::as_str))
                .collect();
            Diagnostic::new(
                Code::TelemetryLabelFails,
                format!(
                    "label `{}` is written into every rate-limit request of Gateway {} as `string({expr})` by wasm-shim v0.14.1 (operator 1.5); before the auth action `auth` is null there, so it fails ({}), and so do the rate-limit actions of {} that run without auth: their failure mode, allow, lets every such request through uncounted",
                    f.label,
                    gateways.into_iter().collect::<Vec<_>>().join(", "),
                    f.error,
                    policies.join(", "),
                ),
            )
            .object(e.display())
            .at(f.expression.span, "fails whenever auth is not set")
            .help("guard the label (`auth == null ? \"\" : <expression>`), or put an AuthPolicy on those routes and reference `auth.` in their RateLimitPolicy so that its limits run after auth; `policyctl simulate` shows a request's failed action")
        })
        .collect()
}
