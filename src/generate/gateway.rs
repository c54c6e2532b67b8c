//! The per-gateway carriers of `generate`, one code path for both providers: for each gateway with
//! a wasm provider (Istio or Envoy Gateway), the wasm configuration and its carrier (`WasmPlugin`
//! on 1.4 Istio, the wasm `EnvoyFilter kuadrant-<gw>` on 1.5 Istio, `EnvoyExtensionPolicy` on Envoy
//! Gateway), the cluster objects for Limitador, Authorino and tracing (Istio `EnvoyFilter`s, Envoy
//! Gateway `EnvoyPatchPolicy`s), and the components the status updaters wait for. What differs by
//! provider is in small functions taking the [`Provider`].

use super::actions::{
    AUTH_SERVICE, RATELIMIT_CHECK_SERVICE, RATELIMIT_REPORT_SERVICE, RATELIMIT_SERVICE,
};
use super::cluster::{self, Endpoint};
use super::object::{ActionSet, Embed, Object, WasmCarrier, WasmConfig};
use super::paths::GatewayOut;
use super::runtime::Runtime;
use super::{
    Family, GenerateOptions, Generated, WASM_IMAGE_1_4, WASM_IMAGE_1_5, owner_ref, predicates,
    sort_map, threat,
};
use crate::model::{KuadrantVersion, Model};
use crate::resolve::{Component, Provider};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;

const PROTECTED_REGISTRY: &str = "registry.redhat.io";
const PULL_SECRET: &str = "wasm-plugin-pull-secret";
const WASM_SERVER_PORT: i64 = 8082;

/// The wasm provider of every gateway class of `m`, by class index: the class controller is one
/// of `opts`' Istio or Envoy Gateway controllers.
pub(super) fn providers(m: &Model, opts: &GenerateOptions) -> Vec<Option<Provider>> {
    m.gateway_classes
        .iter()
        .map(|class| {
            let c = &class.spec.controller_name;
            if opts.istio_controllers.iter().any(|x| x == c) {
                Some(Provider::Istio)
            } else if opts.envoy_gateway_controllers.iter().any(|x| x == c) {
                Some(Provider::EnvoyGateway)
            } else {
                None
            }
        })
        .collect()
}

/// The wasm-shim image: `opts.wasm_image`, else the release default.
pub(super) fn image(m: &Model, opts: &GenerateOptions) -> String {
    opts.wasm_image.clone().unwrap_or_else(|| {
        if m.version == KuadrantVersion::V1_5 {
            WASM_IMAGE_1_5
        } else {
            WASM_IMAGE_1_4
        }
        .to_string()
    })
}

/// A service a gateway's data plane calls through a cluster object.
#[derive(Clone, Copy)]
enum Service {
    RateLimit,
    Auth,
    Tracing,
}

impl Service {
    /// The cluster object's name is `<prefix>-<gateway>`.
    fn prefix(self) -> &'static str {
        match self {
            Service::RateLimit => "kuadrant-ratelimiting",
            Service::Auth => "kuadrant-auth",
            Service::Tracing => "kuadrant-tracing",
        }
    }

    /// The cluster object's own label (besides `kuadrant.io/managed`).
    fn label(self) -> &'static str {
        match self {
            Service::RateLimit => "kuadrant.io/ratelimit",
            Service::Auth => "kuadrant.io/auth",
            Service::Tracing => "kuadrant.io/tracing",
        }
    }

    /// The Envoy cluster's name.
    fn cluster(self) -> &'static str {
        match self {
            Service::RateLimit => "kuadrant-ratelimit-service",
            Service::Auth => "kuadrant-auth-service",
            Service::Tracing => "kuadrant-tracing-service",
        }
    }

    /// The patch name of the Envoy Gateway `EnvoyPatchPolicy`.
    fn patch(self) -> &'static str {
        match self {
            Service::RateLimit => "kuadrant-ratelimit-service",
            Service::Auth => "kuadrant-auth-service",
            Service::Tracing => "tracing-service",
        }
    }
}

/// The component the status updaters look for: the wasm carrier (`None`) or a cluster object.
fn component(prov: Provider, v15: bool, service: Option<Service>) -> Component {
    match (prov, service) {
        (Provider::Istio, None) if v15 => Component::WasmEnvoyFilter,
        (Provider::Istio, None) => Component::WasmPlugin,
        (Provider::Istio, Some(Service::RateLimit)) => Component::RateLimitEnvoyFilter,
        (Provider::Istio, Some(Service::Auth)) => Component::AuthEnvoyFilter,
        (Provider::Istio, Some(Service::Tracing)) => Component::TracingEnvoyFilter,
        (Provider::EnvoyGateway, None) => Component::EnvoyExtensionPolicy,
        (Provider::EnvoyGateway, Some(_)) => Component::EnvoyPatchPolicy,
    }
}

/// The `--only` families of a provider's wasm carrier and of its cluster objects.
fn families(prov: Provider) -> (Family, Family) {
    match prov {
        Provider::Istio => (Family::Wasm, Family::EnvoyFilter),
        Provider::EnvoyGateway => (Family::EnvoyGateway, Family::EnvoyGateway),
    }
}

/// A gateway as its objects' shells name it.
struct Shell<'g> {
    gw: &'g str,
    ns: &'g str,
    owner: Option<Value>,
}

/// What the carriers of every gateway read.
pub(super) struct Carriers<'a> {
    pub(super) m: &'a Model,
    pub(super) rt: &'a Runtime<'a>,
    pub(super) opts: &'a GenerateOptions,
    /// Per gateway class: its wasm provider, if any.
    pub(super) providers: &'a [Option<Provider>],
    /// Per gateway: whether its objects are emitted (`opts.gateway`, and within `opts.slice`).
    pub(super) selected: &'a [bool],
    /// The wasm-shim image.
    pub(super) image: String,
}

impl Carriers<'_> {
    /// The objects and components of every gateway the per-path pass reached, in gateway order.
    /// Returns the gateways with a wasm provider and whether they have action sets (for
    /// `threat::diagnostics`).
    pub(super) fn all(
        &self,
        gateways: BTreeMap<usize, GatewayOut<'_>>,
        out: &mut Generated,
    ) -> Vec<(usize, bool)> {
        // Each gateway's objects made on the cores (sorting a large gateway's action sets and
        // building its configuration), then added in gateway order.
        let built = crate::par::map_owned(gateways.into_iter().collect(), 1, |(gi, go)| {
            let mut part = Generated::default();
            let has_sets = self.gateway(gi, go, &mut part)?;
            Some((gi, has_sets, part))
        });
        let mut found = Vec::with_capacity(built.len());
        for (gi, has_sets, part) in built.into_iter().flatten() {
            out.components.extend(part.components);
            out.objects.extend(part.objects);
            found.push((gi, has_sets));
        }
        found
    }

    /// The objects and components of gateway `gi` (into `out`'s `objects` and `components`);
    /// `None` when it has no wasm provider, else whether it has action sets.
    fn gateway(&self, gi: usize, go: GatewayOut<'_>, out: &mut Generated) -> Option<bool> {
        let m = self.m;
        let v15 = m.version == KuadrantVersion::V1_5;
        let g = &m.gateways[gi];
        let class = m
            .gateway_classes
            .iter()
            .position(|c| c.meta.name == g.spec.class_name.value)?;
        let prov = self.providers[class]?;
        let shell =
            Shell {
                gw: g.meta.name.as_str(),
                ns: g.meta.namespace.as_str(),
                owner: g.meta.uid.as_deref().map(|uid| {
                    owner_ref("gateway.networking.k8s.io/v1", "Gateway", &g.meta.name, uid)
                }),
            };
        let has_sets = go.has_sets;
        let needs = self.cluster_needs(prov, &go);
        if has_sets {
            out.components.insert(gi, component(prov, v15, None));
        }
        for (service, _, _) in &needs {
            out.components
                .insert(gi, component(prov, v15, Some(*service)));
        }
        if !self.selected[gi] {
            return Some(has_sets);
        }
        // In order (the per-path pass sorts them).
        debug_assert!(
            (go.action_sets).is_sorted_by(|a, b| predicates::compare(&a.key, &b.key).is_le())
        );
        let sets: Vec<ActionSet> = go.action_sets.into_iter().map(|e| e.value).collect();
        let config = self.config(&shell, sets);
        let (wasm_family, cluster_family) = families(prov);
        if has_sets && self.opts.wants(wasm_family) {
            out.objects.push(self.wasm_carrier(prov, &shell, config));
        }
        if self.opts.wants(cluster_family) {
            for (service, ep, mtls) in &needs {
                out.objects
                    .push(cluster_object(prov, &shell, *service, ep, *mtls));
            }
        }
        Some(has_sets)
    }

    /// The cluster objects a gateway needs, in order, with their endpoint and whether they use
    /// mTLS: Limitador if a path has rate limits, Authorino if one has an AuthPolicy, the tracing
    /// service if one has any policy and Kuadrant sets a usable tracing endpoint. Envoy Gateway
    /// reaches Limitador and Authorino without mTLS.
    fn cluster_needs(&self, prov: Provider, go: &GatewayOut<'_>) -> Vec<(Service, Endpoint, bool)> {
        let rt = self.rt;
        let istio = prov == Provider::Istio;
        let mut needs = Vec::new();
        if go.rate_limit {
            needs.push((
                Service::RateLimit,
                rt.limitador.clone(),
                istio && rt.mtls_limitador,
            ));
        }
        if go.auth {
            needs.push((
                Service::Auth,
                rt.authorino.clone(),
                istio && rt.mtls_authorino,
            ));
        }
        if let Some((url, insecure)) = &rt.tracing
            && go.any_policy
            && let Some(ep) = cluster::tracing_endpoint(url)
        {
            needs.push((Service::Tracing, ep, !insecure));
        }
        needs
    }

    /// The wasm configuration of a gateway, with what its extension policies add: ThreatPolicy
    /// actions on every action set and the descriptor service, and the `requestData` they
    /// register.
    fn config(&self, shell: &Shell<'_>, mut sets: Vec<ActionSet>) -> WasmConfig {
        let threats = threat::on_gateway(self.m, shell.ns, shell.gw);
        let threat_service = (!threats.is_empty()).then(threat::service);
        if let Some((key, _)) = &threat_service {
            let typed: Arc<[Value]> = threats
                .iter()
                .map(|(e, t)| threat::action(e, *t, key))
                .collect();
            for s in &mut sets {
                s.typed = Arc::clone(&typed);
            }
        }
        wasm_config(
            self.rt,
            sets,
            super::extension::request_data(self.m, shell.ns, shell.gw),
            threat_service,
        )
    }

    /// The carrier of a gateway's wasm configuration.
    fn wasm_carrier(&self, prov: Provider, shell: &Shell<'_>, config: WasmConfig) -> Object {
        let (gw, ns, image) = (shell.gw, shell.ns, self.image.as_str());
        let name = format!("kuadrant-{gw}");
        let labels = json!({"kuadrant.io/managed": "true"});
        match prov {
            Provider::Istio if self.m.version == KuadrantVersion::V1_5 => {
                Object::Wasm(Box::new(WasmCarrier {
                    shell: wasm_envoy_filter(&name, ns, gw, shell.owner.clone(), self.opts),
                    at: WASM_ENVOY_FILTER_CONFIG,
                    embed: Embed::Json,
                    config,
                }))
            }
            Provider::Istio => {
                let mut spec = json!({
                    "targetRefs": [target_ref(gw)],
                    "url": image,
                    "pluginConfig": null,
                    "phase": "STATS",
                });
                if image.contains(PROTECTED_REGISTRY) {
                    spec["imagePullSecret"] = json!(PULL_SECRET);
                }
                let shell = json!({
                    "apiVersion": "extensions.istio.io/v1alpha1",
                    "kind": "WasmPlugin",
                    "metadata": metadata(&name, ns, labels, shell.owner.clone()),
                    "spec": spec,
                });
                Object::Wasm(Box::new(WasmCarrier {
                    shell,
                    at: "/spec/pluginConfig",
                    embed: Embed::Mapping,
                    config,
                }))
            }
            Provider::EnvoyGateway => {
                let mut image_v = json!({"url": image});
                if image.contains(PROTECTED_REGISTRY) {
                    image_v["pullSecretRef"] = json!({"name": PULL_SECRET});
                }
                let shell = json!({
                    "apiVersion": "gateway.envoyproxy.io/v1alpha1",
                    "kind": "EnvoyExtensionPolicy",
                    "metadata": metadata(&name, ns, labels, shell.owner.clone()),
                    "spec": {
                        "targetRefs": [target_ref(gw)],
                        "wasm": [{
                            "name": "kuadrant-wasm-shim",
                            "rootID": "kuadrant_wasm_shim",
                            "code": {"type": "Image", "image": image_v},
                            "config": null,
                            "failOpen": false,
                        }]
                    }
                });
                Object::Wasm(Box::new(WasmCarrier {
                    shell,
                    at: "/spec/wasm/0/config",
                    embed: Embed::Mapping,
                    config,
                }))
            }
        }
    }
}

/// The cluster object of `service` for a gateway: an Istio `EnvoyFilter` or an Envoy Gateway
/// `EnvoyPatchPolicy`.
fn cluster_object(
    prov: Provider,
    shell: &Shell<'_>,
    service: Service,
    ep: &Endpoint,
    mtls: bool,
) -> Object {
    let gw = shell.gw;
    let name = format!("{}-{gw}", service.prefix());
    let labels = json!({"kuadrant.io/managed": "true", service.label(): "true"});
    let metadata = metadata(&name, shell.ns, labels, shell.owner.clone());
    Object::Tree(match prov {
        Provider::Istio => json!({
            "apiVersion": "networking.istio.io/v1alpha3",
            "kind": "EnvoyFilter",
            "metadata": metadata,
            "spec": {
                "targetRefs": [target_ref(gw)],
                "configPatches": [cluster::istio_cluster_config_patch(service.cluster(), ep, mtls)],
            }
        }),
        Provider::EnvoyGateway => json!({
            "apiVersion": "gateway.envoyproxy.io/v1alpha1",
            "kind": "EnvoyPatchPolicy",
            "metadata": metadata,
            "spec": cluster::envoy_patch_policy_spec(gw, service.patch(), service.cluster(), ep, mtls),
        }),
    })
}

fn metadata(name: &str, namespace: &str, labels: Value, owner: Option<Value>) -> Value {
    let mut m = json!({"name": name, "namespace": namespace, "labels": labels});
    if let Some(o) = owner {
        m["ownerReferences"] = json!([o]);
    }
    m
}

fn target_ref(gw: &str) -> Value {
    json!({"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": gw})
}

/// The wasm configuration of one gateway; `request_data` is what extension policies registered
/// for it (`requestData`, omitted when empty).
fn wasm_config(
    rt: &Runtime<'_>,
    action_sets: Vec<ActionSet>,
    request_data: Vec<(String, String)>,
    dynamic_service: Option<(String, Value)>,
) -> WasmConfig {
    let svc = |endpoint: &str, ty: &str, fm: &str, timeout: &str| json!({"endpoint": endpoint, "type": ty, "failureMode": fm, "timeout": timeout});
    let mut services = Map::new();
    services.insert(
        AUTH_SERVICE.into(),
        svc("kuadrant-auth-service", "auth", "deny", "200ms"),
    );
    services.insert(
        RATELIMIT_CHECK_SERVICE.into(),
        svc(
            "kuadrant-ratelimit-service",
            "ratelimit-check",
            "allow",
            "100ms",
        ),
    );
    services.insert(
        RATELIMIT_REPORT_SERVICE.into(),
        svc(
            "kuadrant-ratelimit-service",
            "ratelimit-report",
            "allow",
            "100ms",
        ),
    );
    services.insert(
        RATELIMIT_SERVICE.into(),
        svc("kuadrant-ratelimit-service", "ratelimit", "allow", "100ms"),
    );
    let mut c = Map::new();
    if let Some(obs) = &rt.observability {
        if rt.tracing.is_some() {
            services.insert(
                "tracing-service".into(),
                svc("kuadrant-tracing-service", "tracing", "allow", "100ms"),
            );
        }
        c.insert("observability".into(), obs.clone());
    }
    if let Some((key, service)) = dynamic_service {
        services.insert(key, service);
        c.insert(
            "descriptorService".into(),
            Value::String(threat::DESCRIPTOR_SERVICE.into()),
        );
    }
    c.insert("services".into(), Value::Object(services));
    if !request_data.is_empty() {
        let data: Map<String, Value> = request_data
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect();
        c.insert("requestData".into(), Value::Object(data));
    }
    sort_map(&mut c);
    debug_assert!(c.keys().all(|k| k.as_str() > "actionSets"));
    WasmConfig {
        action_sets,
        rest: c,
    }
}

/// Where a 1.5 wasm `EnvoyFilter` holds its configuration's JSON text.
const WASM_ENVOY_FILTER_CONFIG: &str =
    "/spec/configPatches/0/patch/value/typed_config/value/config/configuration/value";

/// A 1.5 wasm `EnvoyFilter` without its configuration: `null` at [`WASM_ENVOY_FILTER_CONFIG`].
fn wasm_envoy_filter(
    name: &str,
    ns: &str,
    gw: &str,
    owner: Option<Value>,
    opts: &GenerateOptions,
) -> Value {
    let host = format!(
        "kuadrant-operator-wasm.{}.svc.cluster.local",
        opts.operator_namespace
    );
    let wasm_ep = Endpoint {
        host: host.clone(),
        port: WASM_SERVER_PORT,
    };
    json!({
        "apiVersion": "networking.istio.io/v1alpha3",
        "kind": "EnvoyFilter",
        "metadata": metadata(name, ns, json!({"kuadrant.io/managed": "true", "kuadrant.io/wasm": "true"}), owner),
        "spec": {
            "targetRefs": [target_ref(gw)],
            "configPatches": [
                {
                    "applyTo": "HTTP_FILTER",
                    "match": {"context": "GATEWAY", "listener": {"filterChain": {"filter": {
                        "name": "envoy.filters.network.http_connection_manager",
                        "subFilter": {"name": "envoy.filters.http.router"}}}}},
                    "patch": {
                        "operation": "INSERT_BEFORE",
                        "value": {
                            "name": "envoy.filters.http.wasm",
                            "typed_config": {
                                "@type": "type.googleapis.com/udpa.type.v1.TypedStruct",
                                "type_url": "type.googleapis.com/envoy.extensions.filters.http.wasm.v3.Wasm",
                                "value": {"config": {
                                    "name": "kuadrant-wasm-shim",
                                    "root_id": "kuadrant_wasm_shim",
                                    "vm_config": {
                                        "runtime": "envoy.wasm.runtime.v8",
                                        "code": {"remote": {
                                            "http_uri": {
                                                "uri": format!("http://{host}:{WASM_SERVER_PORT}/plugin.wasm"),
                                                "timeout": "10s",
                                                "cluster": "kuadrant-operator-wasm",
                                            },
                                            "sha256": opts.wasm_sha256,
                                        }},
                                        "allow_precompiled": true,
                                    },
                                    "failure_policy": "FAIL_RELOAD",
                                    "configuration": {
                                        "@type": "type.googleapis.com/google.protobuf.StringValue",
                                        "value": null,
                                    }
                                }}
                            }
                        }
                    }
                },
                cluster::istio_cluster_config_patch("kuadrant-operator-wasm", &wasm_ep, false),
            ]
        }
    })
}
