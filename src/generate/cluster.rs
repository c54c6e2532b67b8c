//! Cluster patches: what the Istio `EnvoyFilter`s `kuadrant-{ratelimiting,auth,tracing}-<gw>` and
//! the Envoy Gateway `EnvoyPatchPolicy`s carry (`docs/semantics/generated-objects.md`, "Cluster
//! objects"; `gateway` assembles those objects), plus the wasm-server cluster of the 1.5 wasm
//! `EnvoyFilter`.

use serde_json::{Value, json};

/// An upstream the data plane calls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Endpoint {
    pub host: String,
    pub port: i64,
}

/// The cluster patch value (`cluster_patch_helpers.go`); `mtls` adds the Istio SDS transport socket.
pub(crate) fn cluster_patch(name: &str, ep: &Endpoint, mtls: bool) -> Value {
    let mut v = json!({
        "name": name,
        "type": "STRICT_DNS",
        "connect_timeout": "1s",
        "lb_policy": "ROUND_ROBIN",
        "http2_protocol_options": {},
        "load_assignment": {
            "cluster_name": name,
            "endpoints": [{"lb_endpoints": [{"endpoint": {"address": {"socket_address": {
                "address": ep.host, "port_value": ep.port}}}}]}]
        }
    });
    if mtls {
        let sds = json!({"api_config_source": {"api_type": "GRPC",
            "grpc_services": [{"envoy_grpc": {"cluster_name": "sds-grpc"}}]}});
        v["transport_socket"] = json!({
            "name": "envoy.transport_sockets.tls",
            "typed_config": {
                "@type": "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext",
                "common_tls_context": {
                    "tls_certificate_sds_secret_configs": [{"name": "default", "sds_config": sds.clone()}],
                    "validation_context_sds_secret_config": {"name": "ROOTCA", "sds_config": sds}
                }
            }
        });
    }
    v
}

/// The Istio configPatch adding a cluster (no `context` in the match).
pub(crate) fn istio_cluster_config_patch(name: &str, ep: &Endpoint, mtls: bool) -> Value {
    json!({
        "applyTo": "CLUSTER",
        "match": {"cluster": {"service": ep.host}},
        "patch": {"operation": "ADD", "value": cluster_patch(name, ep, mtls)}
    })
}

/// `spec` of an Envoy Gateway `EnvoyPatchPolicy` adding one cluster; `patch_name` is the JSON-patch
/// `name` (for tracing the operator writes `tracing-service` while the cluster is `kuadrant-tracing-service`).
pub(crate) fn envoy_patch_policy_spec(
    gateway: &str,
    patch_name: &str,
    cluster: &str,
    ep: &Endpoint,
    mtls: bool,
) -> Value {
    json!({
        "type": "JSONPatch",
        "jsonPatches": [{
            "type": "type.googleapis.com/envoy.config.cluster.v3.Cluster",
            "name": patch_name,
            "operation": {"op": "add", "path": "", "value": cluster_patch(cluster, ep, mtls)}
        }],
        "targetRef": {"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": gateway}
    })
}

/// Parse `defaultEndpoint` as the operator does: URL host, explicit port or by scheme https→443,
/// http→80, anything else→4317. `None` when there is no host.
pub(crate) fn tracing_endpoint(url: &str) -> Option<Endpoint> {
    let (scheme, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    let (host, port) = if let Some(stripped) = authority.strip_prefix('[') {
        let (h, after) = stripped.split_once(']')?;
        (h.to_string(), after.strip_prefix(':').map(str::to_string))
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h.to_string(), Some(p.to_string())),
            None => (authority.to_string(), None),
        }
    };
    if host.is_empty() {
        return None;
    }
    let port = match port.filter(|p| !p.is_empty()) {
        Some(p) => p.parse().ok()?,
        None => match scheme {
            "https" => 443,
            "http" => 80,
            _ => 4317,
        },
    };
    Some(Endpoint { host, port })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracing_endpoints() {
        assert_eq!(
            tracing_endpoint("http://jaeger:14268/api/traces"),
            Some(Endpoint {
                host: "jaeger".into(),
                port: 14268
            })
        );
        assert_eq!(tracing_endpoint("rpc://tempo.ns.svc").unwrap().port, 4317);
        assert_eq!(
            tracing_endpoint("https://otel.example.com").unwrap().port,
            443
        );
        assert_eq!(tracing_endpoint(""), None);
    }

    #[test]
    fn mtls_adds_transport_socket() {
        let ep = Endpoint {
            host: "h".into(),
            port: 1,
        };
        assert!(
            cluster_patch("c", &ep, false)
                .get("transport_socket")
                .is_none()
        );
        let v = cluster_patch("c", &ep, true);
        assert_eq!(v["transport_socket"]["name"], "envoy.transport_sockets.tls");
    }
}
