//! The runtime settings `generate` reads from the Kuadrant, Limitador and Authorino objects of the
//! input: the Kuadrant namespace, the Limitador and Authorino service endpoints, mTLS, tracing and
//! the wasm-shim's observability block (`docs/semantics/generated-objects.md`).

use super::GenerateOptions;
use super::cluster::Endpoint;
use crate::diag::{Code, Diagnostic};
use crate::model::{Model, Obj};
use serde_json::{Map, Value, json};

/// Runtime context read from the Kuadrant, Limitador and Authorino objects.
pub(super) struct Runtime<'m> {
    pub(super) namespace: String,
    pub(super) kuadrant: Option<&'m Obj<Value>>,
    pub(super) limitador: Endpoint,
    pub(super) limitador_obj: Option<&'m Obj<Value>>,
    pub(super) authorino: Endpoint,
    pub(super) mtls_limitador: bool,
    pub(super) mtls_authorino: bool,
    pub(super) tracing: Option<(String, bool)>,
    pub(super) observability: Option<Value>,
}

fn ptr<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    v.pointer(path).filter(|x| !x.is_null())
}

pub(super) fn runtime<'m>(
    m: &'m Model,
    opts: &GenerateOptions,
    diags: &mut Vec<Diagnostic>,
) -> Runtime<'m> {
    let kuadrant = m.kuadrants.iter().min_by(|a, b| {
        match (&a.meta.creation_timestamp, &b.meta.creation_timestamp) {
            (Some(x), Some(y)) if x != y => x.cmp(y),
            _ => a.key().cmp(&b.key()),
        }
    });
    let namespace = match kuadrant {
        Some(k) => k.meta.namespace.clone(),
        None => {
            if !m.policies.is_empty() {
                diags.push(
                    Diagnostic::new(
                        Code::KuadrantAssumed,
                        format!(
                            "no Kuadrant object in the input: one in {} is assumed",
                            opts.kuadrant_namespace
                        ),
                    )
                    .help("add the Kuadrant object to the input, or pass the namespace explicitly"),
                );
            }
            opts.kuadrant_namespace.clone()
        }
    };
    let spec = kuadrant
        .and_then(|k| k.spec.get("spec"))
        .cloned()
        .unwrap_or(Value::Null);
    let mtls_on = ptr(&spec, "/mtls/enable")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let mtls_for = |c: &str| {
        mtls_on
            && ptr(&spec, &format!("/mtls/{c}"))
                .and_then(Value::as_bool)
                .unwrap_or(true)
    };
    let tracing = tracing(&spec);
    let observability = observability(&spec, tracing.is_some());
    let limitador_obj = m
        .limitadors
        .iter()
        .find(|l| l.meta.name == "limitador" && l.meta.namespace == namespace);
    let limitador = limitador_endpoint(limitador_obj, &namespace);
    let authorino = authorino_endpoint(m, &namespace);
    Runtime {
        mtls_limitador: mtls_for("limitador"),
        mtls_authorino: mtls_for("authorino"),
        namespace,
        kuadrant,
        limitador,
        limitador_obj,
        authorino,
        tracing,
        observability,
    }
}

/// The Kuadrant spec's default tracing endpoint and whether it is insecure.
fn tracing(spec: &Value) -> Option<(String, bool)> {
    ptr(spec, "/observability/tracing/defaultEndpoint")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(|e| {
            let insecure = ptr(spec, "/observability/tracing/insecure")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            (e.to_string(), insecure)
        })
}

/// The wasm configuration's `observability` block, from the Kuadrant spec's `dataPlane`.
fn observability(spec: &Value, tracing: bool) -> Option<Value> {
    ptr(spec, "/observability/dataPlane").map(|dp| {
        let levels: Vec<&Map<String, Value>> = dp
            .get("defaultLevels")
            .and_then(Value::as_array)
            .map(|l| l.iter().filter_map(Value::as_object).collect())
            .unwrap_or_default();
        let has = |k: &str| levels.iter().any(|l| l.contains_key(k));
        let level = if has("debug") {
            "DEBUG"
        } else if has("info") {
            "INFO"
        } else if has("warn") {
            "WARN"
        } else {
            "ERROR"
        };
        let mut o = Map::new();
        o.insert("defaultLevel".into(), json!(level));
        if let Some(h) = dp
            .get("httpHeaderIdentifier")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            o.insert("httpHeaderIdentifier".into(), json!(h));
        }
        if tracing {
            o.insert("tracing".into(), json!({"service": "tracing-service"}));
        }
        Value::Object(o)
    })
}

/// Limitador's gRPC service: from its status, else its spec, else the defaults.
fn limitador_endpoint(limitador: Option<&Obj<Value>>, namespace: &str) -> Endpoint {
    match limitador {
        Some(l) => {
            let host = ptr(&l.spec, "/status/service/host")
                .and_then(Value::as_str)
                .map(str::to_string);
            let port = ptr(&l.spec, "/status/service/ports/grpc").and_then(Value::as_i64);
            Endpoint {
                host: host.unwrap_or_else(|| {
                    format!("limitador-{}.{}.svc.cluster.local", l.meta.name, namespace)
                }),
                port: port
                    .or_else(|| ptr(&l.spec, "/spec/listener/grpc/port").and_then(Value::as_i64))
                    .unwrap_or(8081),
            }
        }
        None => Endpoint {
            host: format!("limitador-limitador.{namespace}.svc.cluster.local"),
            port: 8081,
        },
    }
}

/// Authorino's authorization service: the `authorino` object of the Kuadrant namespace, else the
/// defaults.
fn authorino_endpoint(m: &Model, namespace: &str) -> Endpoint {
    match m
        .authorinos
        .iter()
        .find(|a| a.meta.name == "authorino" && a.meta.namespace == namespace)
    {
        Some(a) => Endpoint {
            host: format!(
                "{}-authorino-authorization.{}.svc.cluster.local",
                a.meta.name, a.meta.namespace
            ),
            port: ptr(&a.spec, "/spec/listener/ports/grpc")
                .and_then(Value::as_i64)
                .or_else(|| ptr(&a.spec, "/spec/listener/port").and_then(Value::as_i64))
                .unwrap_or(50051),
        },
        None => Endpoint {
            host: format!("authorino-authorino-authorization.{namespace}.svc.cluster.local"),
            port: 50051,
        },
    }
}
