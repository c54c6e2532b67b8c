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

/// One label that fails before auth: where it is, and what its rate limits are.
struct Finding<'m> {
    expression: &'m Sp<String>,
    label: &'m str,
    error: String,
    /// `Gateway namespace/name`s.
    gateways: BTreeSet<String>,
    /// The policies whose rate-limit actions run without auth.
    policies: BTreeSet<String>,
}

/// PCTL3030 for every TelemetryPolicy label that fails in the 1.5 shim whenever `auth` is not set,
/// and that a rate-limit action of the generated wasm configurations meets before any auth action
/// (of its action set), naming the policies of those actions and the Gateways; one diagnostic per
/// label, in the order of the TelemetryPolicies and their labels. Nothing on 1.4.
pub(super) fn diagnostics(m: &Model, objects: &[Object]) -> Vec<Diagnostic> {
    if m.version != KuadrantVersion::V1_5 {
        return vec![];
    }
    // (extension, label name) → finding; labels checked once.
    let mut found: BTreeMap<(usize, &str), Finding<'_>> = BTreeMap::new();
    let mut checked: BTreeMap<(usize, &str), bool> = BTreeMap::new();
    for o in objects {
        let Object::Wasm(w) = o else { continue };
        let (Some(ns), Some(name)) = (
            w.shell
                .pointer("/metadata/namespace")
                .and_then(|v| v.as_str()),
            w.shell.pointer("/metadata/name").and_then(|v| v.as_str()),
        ) else {
            continue;
        };
        let Some(gw) = name.strip_prefix("kuadrant-") else {
            continue;
        };
        let mut failing = Vec::new();
        for (_, expression, ext, label) in super::extension::request_data_sources(m, ns, gw) {
            let fails = checked.entry((ext, label)).or_insert_with(|| {
                match crate::simulate::fails_before_auth(&expression.value) {
                    Some(error) => {
                        found.insert(
                            (ext, label),
                            Finding {
                                expression,
                                label,
                                error,
                                gateways: BTreeSet::new(),
                                policies: BTreeSet::new(),
                            },
                        );
                        true
                    }
                    None => false,
                }
            });
            if *fails {
                failing.push((ext, label));
            }
        }
        if failing.is_empty() {
            continue;
        }
        let mut policies = BTreeSet::new();
        for set in &w.config.action_sets {
            for a in set.actions.iter() {
                match a.service {
                    AUTH_SERVICE => break,
                    RATELIMIT_SERVICE | RATELIMIT_CHECK_SERVICE | RATELIMIT_REPORT_SERVICE => {
                        policies.extend(a.sources.iter().cloned());
                    }
                    _ => {}
                }
            }
        }
        if policies.is_empty() {
            continue;
        }
        for key in failing {
            if let Some(f) = found.get_mut(&key) {
                f.gateways.insert(format!("{ns}/{gw}"));
                f.policies.extend(policies.iter().cloned());
            }
        }
    }
    found
        .into_iter()
        .filter(|(_, f)| !f.policies.is_empty())
        .map(|((ext, _), f)| {
            let e = &m.extensions[ext];
            let expr = &f.expression.value;
            let policies: Vec<String> = f.policies.iter().map(|p| policy_name(p)).collect();
            Diagnostic::new(
                Code::TelemetryLabelFails,
                format!(
                    "label `{}` is written into every rate-limit request of Gateway {} as `string({expr})` by wasm-shim v0.14.1 (operator 1.5); before the auth action `auth` is null there, so it fails ({}), and so do the rate-limit actions of {} that run without auth: their failure mode, allow, lets every such request through uncounted",
                    f.label,
                    f.gateways.iter().cloned().collect::<Vec<_>>().join(", "),
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

/// `Kind namespace/name` of a wasm action's source locator (`ratelimitpolicy.kuadrant.io:ns/name`).
fn policy_name(source: &str) -> String {
    let (kind, key) = source.split_once(':').unwrap_or(("", source));
    let kind = match kind {
        "ratelimitpolicy.kuadrant.io" => "RateLimitPolicy",
        "tokenratelimitpolicy.kuadrant.io" => "TokenRateLimitPolicy",
        other => other,
    };
    format!("{kind} {key}")
}
