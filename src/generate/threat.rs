//! What a ThreatPolicy (operator 1.5) adds to the wasm configuration of the Gateway it targets.
//!
//! Its controller (kuadrant-operator v1.5.2
//! `cmd/extensions/threat-policy/internal/controller/threatpolicy_reconciler.go`, `reconcileSpec`)
//! registers one action method, `assess-threat`, on a fixed URL, and commits a pipeline: on the
//! request a gRPC call storing its reply in `threatResponse`, a `fail` and a `deny` reading it; on
//! the response an `add headers` reading it. The operator's wasm mutator
//! (`internal/extension/registry.go` `mutateWasmConfig`, `translatePipelineToTypedActions`) turns
//! the method into a `dynamic` service named `ext-<hash>` and the pipeline into one typed `grpc`
//! action whose `onReply` holds the three actions that read the variable, appended to every action
//! set of the gateway (a Gateway target keeps no route filter), one per ThreatPolicy in
//! namespace/name order, and sets `descriptorService`.
//!
//! Not modelled here (announced by the caller): a gateway with no action sets (the operator builds
//! skeleton sets from the topology, `buildActionSetsFromTopology`), a ThreatPolicy on an HTTPRoute,
//! and the Envoy cluster patches for the upstream and the descriptor service.

use super::sort_keys;
use crate::diag::{Code, Diagnostic};
use crate::model::Model;
use crate::model::extension::{Extension, ExtensionBody};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// `threatServiceURL` of the ThreatPolicy controller.
pub(crate) const THREAT_SERVICE_URL: &str =
    "grpc://threat-assessment-service.security.svc.cluster.local:8080";
/// The registered gRPC service and method (`ActionMethodConfig`).
const GRPC_SERVICE: &str = "threat.v1.ThreatAssessmentService";
const GRPC_METHOD: &str = "AssessRequest";
/// `ActionMethodConfig.MessageTemplate`.
const MESSAGE_TEMPLATE: &str =
    "threat.v1.ThreatRequest{uri: request.path, source_ip: source.address}";
/// `GRPCMethodAction.Var`.
const VAR: &str = "threatResponse";
/// `RegisterActionMethod` stores every upstream with these (internal/extension/manager.go).
const FAILURE_MODE: &str = "deny";
const TIMEOUT: &str = "100ms";
/// `mutateWasmConfig` sets this when any dynamic service is registered.
pub(crate) const DESCRIPTOR_SERVICE: &str = "kuadrant-operator-grpc";

/// The ThreatPolicies whose targetRef names Gateway `namespace/name`, in the order the mutator
/// sorts policies (kind, namespace, name), each with its threshold.
pub(crate) fn on_gateway<'m>(
    model: &'m Model,
    namespace: &str,
    name: &str,
) -> Vec<(&'m Extension, i64)> {
    let mut out: Vec<(&Extension, i64)> = model
        .extensions
        .iter()
        .filter_map(|e| match e.body {
            ExtensionBody::Threat(t) if e.targets("Gateway", namespace, name) => Some((e, t)),
            _ => None,
        })
        .collect();
    out.sort_by(|a, b| {
        (a.0.meta.namespace.as_str(), a.0.meta.name.as_str())
            .cmp(&(b.0.meta.namespace.as_str(), b.0.meta.name.as_str()))
    });
    out
}

/// `generateClusterName`: `ext-` and the URL's host with every character outside `[a-zA-Z0-9-]`
/// replaced by `-`, then `-<port>`.
fn cluster_name(url: &str) -> String {
    let authority = url.trim_start_matches("grpc://");
    let (host, port) = authority.split_once(':').unwrap_or((authority, ""));
    let host: String = host
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if port.is_empty() {
        format!("ext-{host}")
    } else {
        format!("ext-{host}-{port}")
    }
}

/// The `services` key and entry of the threat method: `"ext-" + HashUpstreamServiceConfig(svc)`,
/// the first 8 bytes of SHA-256 over `type|endpoint|failureMode|timeout|grpcService|grpcMethod`.
pub(crate) fn service() -> (String, Value) {
    let endpoint = cluster_name(THREAT_SERVICE_URL);
    let data = format!("dynamic|{endpoint}|{FAILURE_MODE}|{TIMEOUT}|{GRPC_SERVICE}|{GRPC_METHOD}");
    let digest = Sha256::digest(data.as_bytes());
    let key = format!("ext-{}", hex::encode(&digest[..8]));
    let value = json!({
        "endpoint": endpoint,
        "failureMode": FAILURE_MODE,
        "grpcMethod": GRPC_METHOD,
        "grpcService": GRPC_SERVICE,
        "timeout": TIMEOUT,
        "type": "dynamic",
    });
    (key, value)
}

/// The typed action one ThreatPolicy appends to each action set: the `grpc` call, its `onReply`
/// holding the `fail`, the `deny` and the response `headers` (all read `threatResponse`), each
/// with `sources: ["ThreatPolicy/<namespace>/<name>"]`. `terminal` is always written (no
/// `omitempty` in `wasm.TypedAction`); `predicate` is `true` when the action has none.
pub(crate) fn action(e: &Extension, threshold: i64, service_key: &str) -> Value {
    let sources = json!([format!("ThreatPolicy/{}/{}", e.meta.namespace, e.meta.name)]);
    let fail = json!({
        "type": "fail",
        "predicate": format!("{VAR}.threat_level < 0"),
        "terminal": true,
        "logMessage": "threat assessment returned invalid threat_level",
        "sources": sources,
    });
    // `buildDenyResponseExpr`: status as an unsigned literal, then headers, then body.
    let deny_with = format!(
        "DenyResponse{{status: 403u, headers: [[\"x-threat-blocked\", \"true\"], [\"x-threat-level\", string({VAR}.threat_level)]], body: 'Request blocked: threat level exceeds threshold'}}"
    );
    let deny = json!({
        "type": "deny",
        "predicate": format!("{VAR}.threat_level >= {threshold}"),
        "terminal": true,
        "denyWith": deny_with,
        "sources": sources,
    });
    let headers = json!({
        "type": "headers",
        "predicate": "true",
        "terminal": false,
        "target": "response",
        "headers": format!("[[\"x-threat-threshold\", \"{threshold}\"], [\"x-threat-score\", string({VAR}.threat_level)]]"),
        "sources": sources,
    });
    sort_keys(json!({
        "type": "grpc",
        "predicate": "true",
        "terminal": false,
        "var": VAR,
        "service": service_key,
        "messageBuilder": MESSAGE_TEMPLATE,
        "onReply": [fail, deny, headers],
        "sources": sources,
    }))
}

/// For each ThreatPolicy on an existing Gateway: `PCTL3027` when its actions were added (the
/// gateway has action sets), else `PCTL3028`. `gateways` lists the gateways with a wasm provider
/// and whether they have action sets. A ThreatPolicy on a missing Gateway gets neither (its status
/// says `TargetNotFound`); one on a route was announced by `PCTL3024` at load.
pub(crate) fn diagnostics(model: &Model, gateways: &[(usize, bool)]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for e in &model.extensions {
        if !matches!(e.body, ExtensionBody::Threat(_)) {
            continue;
        }
        let Some(gi) = model
            .gateways
            .iter()
            .position(|g| e.targets("Gateway", &g.meta.namespace, &g.meta.name))
        else {
            continue;
        };
        let with_sets = gateways.iter().any(|&(i, sets)| i == gi && sets);
        let gateway = model.gateways[gi].meta.key();
        out.push(if with_sets {
            Diagnostic::new(
                Code::ThreatServiceAssumed,
                format!(
                    "{}'s actions are added to the wasm configuration of Gateway {gateway} as if its controller registered the action method: the operator first fetches the service's descriptors by gRPC reflection from {THREAT_SERVICE_URL}, and when that fails the ThreatPolicy adds nothing and is not Accepted",
                    e.display()
                ),
            )
            .at(e.meta.origin.name, "actions modelled")
            .object(e.display())
            .help(format!(
                "make sure the threat assessment service answers at {THREAT_SERVICE_URL}; the Envoy clusters `{}` and `{DESCRIPTOR_SERVICE}` the operator also patches into the gateway are not printed",
                cluster_name(THREAT_SERVICE_URL)
            ))
        } else {
            Diagnostic::new(
                Code::ThreatNoActionSets,
                format!(
                    "Gateway {gateway} has no action sets: the operator builds skeleton sets for its routes to carry {}'s actions, which policyctl does not model",
                    e.display()
                ),
            )
            .at(e.meta.origin.name, "effects not modelled")
            .object(e.display())
            .help("attach a RateLimitPolicy or AuthPolicy to the Gateway's routes to see the actions, or check the wasm configuration on a cluster")
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `generateClusterName` on the controller's URL (kuadrant-operator v1.5.2
    /// internal/extension/manager.go).
    #[test]
    fn cluster_name_of_the_threat_service() {
        assert_eq!(
            cluster_name(THREAT_SERVICE_URL),
            "ext-threat-assessment-service-security-svc-cluster-local-8080"
        );
        assert_eq!(cluster_name("grpc://a.b"), "ext-a-b");
    }
}
