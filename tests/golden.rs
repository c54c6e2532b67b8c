//! Golden cases G1–G14 (`docs/semantics/README.md`) that apply to operator v1.4 / v1.5, run through the library on
//! the manifests under `testdata/golden/<case>/input.yaml`. Field-by-field comparisons; hashes exact.
//! (G1–G4 and the predicate/comparator tables are unit tests in `src/generate/`; G11 is main-only.)

use crate::common;
use policyctl::Topology;
use policyctl::render;
use policyctl::{GenerateOptions, Generated};
use policyctl::{Input, LoadOptions, load};
use policyctl::{KuadrantVersion, PolicyKind};
use serde_json::{Value, json};

const V14: KuadrantVersion = KuadrantVersion::V1_4;
const V15: KuadrantVersion = KuadrantVersion::V1_5;

fn run(case: &str, version: KuadrantVersion) -> Generated {
    run_path(&format!("golden/{case}/input.yaml"), version)
}

/// Generate from a file or folder under testdata/.
fn run_path(case: &str, version: KuadrantVersion) -> Generated {
    run_with(case, version, &GenerateOptions::default())
}

/// [`run_path`] with other generation options.
fn run_with(case: &str, version: KuadrantVersion, opts: &GenerateOptions) -> Generated {
    let path = format!("{}/testdata/{case}", env!("CARGO_MANIFEST_DIR"));
    let loaded = load(
        &[Input::Path(path.into())],
        &LoadOptions {
            default_namespace: "default".into(),
            version,
            ..LoadOptions::default()
        },
    );
    assert!(
        !loaded.diagnostics.has_errors(),
        "{case}: {:?}",
        loaded.diagnostics
    );
    let t = Topology::build(&loaded.model);
    let eff = policyctl::effective(&t);
    let g = policyctl::generate(&t, &eff, opts);
    // The typed writer and the tree writer give the same text.
    assert_eq!(
        render::objects::yaml_objects(&g.objects).unwrap(),
        render::objects::yaml(&policyctl::object_values(&g.objects)).unwrap(),
        "{case}"
    );
    g
}

fn object(g: &Generated, kind: &str, name: &str) -> Value {
    policyctl::object_values(&g.objects)
        .into_iter()
        .find(|o| o["kind"] == kind && o["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("no {kind} {name} in {:#?}", names(g)))
}

fn names(g: &Generated) -> Vec<String> {
    policyctl::object_values(&g.objects)
        .iter()
        .map(|o| {
            format!(
                "{}/{}",
                o["kind"].as_str().unwrap(),
                o["metadata"]["name"].as_str().unwrap()
            )
        })
        .collect()
}

/// The legacy plugin config of a gateway: WasmPlugin `pluginConfig` (1.4) or the parsed JSON string of
/// the wasm EnvoyFilter (1.5).
fn plugin_config(g: &Generated, gw: &str, version: KuadrantVersion) -> Value {
    match version {
        KuadrantVersion::V1_4 => {
            object(g, "WasmPlugin", &format!("kuadrant-{gw}"))["spec"]["pluginConfig"].clone()
        }
        KuadrantVersion::V1_5 => {
            let ef = object(g, "EnvoyFilter", &format!("kuadrant-{gw}"));
            let s =
                ef["spec"]["configPatches"][0]["patch"]["value"]["typed_config"]["value"]["config"]
                    ["configuration"]["value"]
                    .as_str()
                    .unwrap();
            serde_json::from_str(s).unwrap()
        }
    }
}

fn limits(g: &Generated) -> Value {
    object(g, "Limitador", "limitador")["spec"]["limits"].clone()
}

const G5_PATH: &str = "istio|test-ns/test-placed-gateway|test-ns/test-placed-gateway#default|test-ns/toystore-route|test-ns/toystore-route#rule-1";

fn services() -> Value {
    json!({
        "auth-service": {"endpoint": "kuadrant-auth-service", "type": "auth", "failureMode": "deny", "timeout": "200ms"},
        "ratelimit-check-service": {"endpoint": "kuadrant-ratelimit-service", "type": "ratelimit-check", "failureMode": "allow", "timeout": "100ms"},
        "ratelimit-report-service": {"endpoint": "kuadrant-ratelimit-service", "type": "ratelimit-report", "failureMode": "allow", "timeout": "100ms"},
        "ratelimit-service": {"endpoint": "kuadrant-ratelimit-service", "type": "ratelimit", "failureMode": "allow", "timeout": "100ms"},
    })
}

fn g5_config(policy: &str) -> Value {
    json!({
        "services": services(),
        "actionSets": [{
            "name": "726e670b7a73feada4a490e60b86b4e186b322f5c3972cc4b5842348e46ed8a8",
            "routeRuleConditions": {
                "hostnames": ["*.example.com"],
                "predicates": ["request.method == 'GET'", "request.url_path.startsWith('/toy')"]
            },
            "actions": [{
                "service": "ratelimit-service",
                "scope": "test-ns/toystore-route",
                "conditionalData": [{"data": [{"expression": {"key": "limit.l1__177ff214", "value": "1"}}]}],
                "sources": [format!("ratelimitpolicy.kuadrant.io:test-ns/{policy}")]
            }]
        }]
    })
}

fn g5_limits() -> Value {
    json!([{"conditions": ["descriptors[0][\"limit.l1__177ff214\"] == \"1\""], "max_value": 1,
            "namespace": "test-ns/toystore-route", "seconds": 180, "variables": [], "name": "l1"}])
}

#[test]
fn g5_simple_rlp_on_route() {
    for v in [V14, V15] {
        let g = run("g5", v);
        assert_eq!(
            plugin_config(&g, "test-placed-gateway", v),
            g5_config("toystore-rlp"),
            "{v:?}"
        );
        assert_eq!(limits(&g), g5_limits());
        assert!(g.cel_issues.is_empty());
        let ef = object(
            &g,
            "EnvoyFilter",
            "kuadrant-ratelimiting-test-placed-gateway",
        );
        assert_eq!(
            ef["metadata"]["labels"],
            json!({"kuadrant.io/managed": "true", "kuadrant.io/ratelimit": "true"})
        );
        assert_eq!(
            ef["spec"],
            json!({
                "targetRefs": [{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "test-placed-gateway"}],
                "configPatches": [{
                    "applyTo": "CLUSTER",
                    "match": {"cluster": {"service": "limitador-limitador.kuadrant-system.svc.cluster.local"}},
                    "patch": {"operation": "ADD", "value": {
                        "name": "kuadrant-ratelimit-service", "type": "STRICT_DNS", "connect_timeout": "1s",
                        "lb_policy": "ROUND_ROBIN", "http2_protocol_options": {},
                        "load_assignment": {"cluster_name": "kuadrant-ratelimit-service", "endpoints": [{"lb_endpoints": [
                            {"endpoint": {"address": {"socket_address": {
                                "address": "limitador-limitador.kuadrant-system.svc.cluster.local", "port_value": 8081}}}}]}]}}}
                }]
            })
        );
        assert!(!names(&g).iter().any(|n| n.starts_with("AuthConfig/")));
        assert!(!names(&g).contains(&"EnvoyFilter/kuadrant-auth-test-placed-gateway".to_string()));
    }
    let g = run("g5", V14);
    let wp = object(&g, "WasmPlugin", "kuadrant-test-placed-gateway");
    assert_eq!(wp["apiVersion"], "extensions.istio.io/v1alpha1");
    assert_eq!(wp["metadata"]["namespace"], "test-ns");
    assert_eq!(
        wp["metadata"]["labels"],
        json!({"kuadrant.io/managed": "true"})
    );
    assert!(
        wp["metadata"].get("ownerReferences").is_none(),
        "no uid, no owner"
    );
    assert_eq!(wp["spec"]["url"], "quay.io/kuadrant/wasm-shim:v0.12.3");
    assert_eq!(wp["spec"]["phase"], "STATS");
    assert!(wp["spec"].get("imagePullSecret").is_none());
    // key order is alphabetical at every level
    let keys: Vec<&String> = wp.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["apiVersion", "kind", "metadata", "spec"]);
    let g = run("g5", V15);
    assert!(!names(&g).iter().any(|n| n.starts_with("WasmPlugin/")));
    let ef = object(&g, "EnvoyFilter", "kuadrant-test-placed-gateway");
    assert_eq!(
        ef["metadata"]["labels"],
        json!({"kuadrant.io/managed": "true", "kuadrant.io/wasm": "true"})
    );
    assert_eq!(
        ef["spec"]["configPatches"][1]["match"]["cluster"]["service"],
        "kuadrant-operator-wasm.kuadrant-system.svc.cluster.local"
    );
    let s = ef["spec"]["configPatches"][0]["patch"]["value"]["typed_config"]["value"]["config"]["configuration"]["value"]
        .as_str()
        .unwrap();
    assert!(
        s.starts_with("{\"actionSets\":[{\"actions\":[{\"conditionalData\""),
        "sorted, compact: {s}"
    );
}

#[test]
fn g6_full_featured_rlp_and_authpolicy() {
    let rule1 = "2f74d3edcab68518ac40f03991f68b61ec83ac73c083410d5d9299c799b02536";
    let rule2 = "e4cee9f4ae8b6cd3c2da6cc8286b353eb7db7550607917c04fe09199c93fc775";
    assert_eq!(policyctl::auth_config_name(G5_PATH), rule1);
    let expected_sets = [
        (
            "1b9a4c4fc3a233ed3dd8eaa14e7230cda767bec5c045d4a8eb01b730581f64c8",
            "*.toystore.acme.com",
            vec!["request.url_path == '/assets'"],
            rule2,
        ),
        (
            "705843a0e4b3b2325980e8eaf60b5e350b9a40b701a3d2def34be607e6b9e1df",
            "*.toystore.acme.com",
            vec![
                "request.method == 'GET'",
                "request.url_path.startsWith('/toys')",
            ],
            rule1,
        ),
        (
            "80a17cceff1f903552237527f6a1af5eb4a9104bebda2c63f94eeb58dd2aa749",
            "*.toystore.acme.com",
            vec![
                "request.method == 'POST'",
                "request.url_path.startsWith('/toys')",
            ],
            rule1,
        ),
        (
            "68f82983544d0d762ed396b7311569e0e3fd98ba42e5f76e7a08b2cbfdcdaf6c",
            "api.toystore.io",
            vec!["request.url_path == '/assets'"],
            rule2,
        ),
        (
            "9e6d17deb345f7ad381c4e54c1e05c365c563365d9c52172adbef5c55662bc20",
            "api.toystore.io",
            vec![
                "request.method == 'GET'",
                "request.url_path.startsWith('/toys')",
            ],
            rule1,
        ),
        (
            "64839bd8fd3973e83727831ff09523df224f18a0f6616d5c4d5421a8e52d39c1",
            "api.toystore.io",
            vec![
                "request.method == 'POST'",
                "request.url_path.startsWith('/toys')",
            ],
            rule1,
        ),
    ];
    for v in [V14, V15] {
        let g = run("g6", v);
        assert!(g.cel_issues.is_empty(), "{:?}", g.cel_issues);
        let cfg = plugin_config(&g, "test-placed-gateway", v);
        let sets = cfg["actionSets"].as_array().unwrap();
        assert_eq!(sets.len(), 6);
        for (set, (name, host, preds, scope)) in sets.iter().zip(&expected_sets) {
            assert_eq!(set["name"], *name);
            assert_eq!(
                set["routeRuleConditions"],
                json!({"hostnames": [host], "predicates": preds})
            );
            assert_eq!(
                set["actions"],
                json!([
                    {"service": "auth-service", "scope": scope, "sources": ["authpolicy.kuadrant.io:test-ns/toystore-auth"]},
                    {"service": "ratelimit-service", "scope": "test-ns/toystore-route",
                     "conditionalData": [
                        {"predicates": ["source.remote_address != '192.168.1.1'", "auth.identity.username != 'root'"],
                         "data": [{"expression": {"key": "limit.all__0d9aaf7a", "value": "1"}}]},
                        {"predicates": ["source.remote_address != '192.168.1.1'", "auth.identity.username != 'root'", "auth.identity.group != 'admin'"],
                         "data": [{"expression": {"key": "limit.users__63097a06", "value": "1"}},
                                  {"expression": {"key": "auth.identity.username", "value": "auth.identity.username"}}]}],
                     "sources": ["ratelimitpolicy.kuadrant.io:test-ns/toystore-rlp"]}
                ])
            );
        }
        assert_eq!(
            limits(&g),
            json!([
                {"conditions": ["descriptors[0][\"limit.all__0d9aaf7a\"] == \"1\""], "max_value": 5, "namespace": "test-ns/toystore-route", "seconds": 60, "variables": [], "name": "all"},
                {"conditions": ["descriptors[0][\"limit.all__0d9aaf7a\"] == \"1\""], "max_value": 100, "namespace": "test-ns/toystore-route", "seconds": 43200, "variables": [], "name": "all"},
                {"conditions": ["descriptors[0][\"limit.users__63097a06\"] == \"1\""], "max_value": 50, "namespace": "test-ns/toystore-route", "seconds": 60,
                 "variables": ["descriptors[0][\"auth.identity.username\"]"], "name": "users"}
            ])
        );
        for (name, rule) in [(rule1, "rule-1"), (rule2, "rule-2")] {
            let ac = object(&g, "AuthConfig", name);
            assert_eq!(ac["apiVersion"], "authorino.kuadrant.io/v1beta3");
            assert_eq!(ac["metadata"]["namespace"], "kuadrant-system");
            assert_eq!(
                ac["metadata"]["labels"],
                json!({"kuadrant.io/managed": "true", "kuadrant.io/auth": "true"})
            );
            // The value is the route's locator plus the rule section (docs/semantics/generated-objects.md).
            assert_eq!(
                ac["metadata"]["annotations"],
                json!({"HTTPRouteRule.gateway.networking.k8s.io": format!("httproute.gateway.networking.k8s.io:test-ns/toystore-route#{rule}")})
            );
            assert_eq!(
                ac["spec"],
                json!({"hosts": [name], "authentication": {"apiKey": {
                    "apiKey": {"selector": {"matchLabels": {"app": "toystore"}}},
                    "credentials": {"authorizationHeader": {"prefix": "APIKEY"}}}}})
            );
        }
        let auth = object(&g, "EnvoyFilter", "kuadrant-auth-test-placed-gateway");
        let patch = &auth["spec"]["configPatches"][0];
        assert_eq!(
            patch["match"]["cluster"]["service"],
            "authorino-authorino-authorization.kuadrant-system.svc.cluster.local"
        );
        assert_eq!(patch["patch"]["value"]["name"], "kuadrant-auth-service");
        assert_eq!(
            patch["patch"]["value"]["load_assignment"]["endpoints"][0]["lb_endpoints"][0]["endpoint"]
                ["address"]["socket_address"]["port_value"],
            50051
        );
        object(
            &g,
            "EnvoyFilter",
            "kuadrant-ratelimiting-test-placed-gateway",
        );
    }
}

#[test]
fn cel_invalid_auth_predicates_drop_the_rate_limit_action() {
    // G6 without the AuthPolicy: `auth.` is undeclared, the merged action is dropped
    // (docs/semantics/generated-objects.md, "Wasm actions").
    for v in [V14, V15] {
        let g = run("cel-no-auth", v);
        assert!(!names(&g).iter().any(
            |n| n.starts_with("WasmPlugin/") || n == "EnvoyFilter/kuadrant-test-placed-gateway"
        ));
        assert_eq!(limits(&g).as_array().unwrap().len(), 3, "limits unaffected");
        assert_eq!(g.cel_issues.len(), 2, "one per path");
        let entry = "ERROR: <input>:1:1: undeclared reference to 'auth' (in container '')\n | auth.identity.username != 'root'\n | ^";
        assert_eq!(g.cel_issues[0].message, entry);
        assert_eq!(g.cel_issues[0].kind, PolicyKind::RateLimit);
        assert_eq!(g.cel_issues[0].path_id, G5_PATH);
        assert!(g.cel_issues[1].path_id.ends_with("#rule-2"));
        let full = format!(
            "validation issues: [{}]",
            g.cel_issues
                .iter()
                .map(|i| i.message.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        );
        assert_eq!(full, format!("validation issues: [{entry} {entry}]"));
    }
}

#[test]
fn g7_gateway_policy_single_route() {
    for v in [V14, V15] {
        let g = run("g7", v);
        assert_eq!(
            plugin_config(&g, "test-placed-gateway", v),
            g5_config("toystore-rlp")
        );
        assert_eq!(limits(&g), g5_limits());
    }
}

#[test]
fn g8_listener_hostname_route_without_hostnames() {
    let g = run("g8", V14);
    let cfg = plugin_config(&g, "toystore-gw", V14);
    assert_eq!(
        cfg["actionSets"][0]["name"],
        "773028f9b1c81c5fe39244a8f17062e557cb274b5ba7abdbe74c4edc468c37ce"
    );
    assert_eq!(
        cfg["actionSets"][0]["routeRuleConditions"],
        json!({"hostnames": ["*.gw.example.com"], "predicates": ["request.method == 'GET'", "request.url_path.startsWith('/toy')"]})
    );
    assert_eq!(
        cfg["actionSets"][0]["actions"][0]["conditionalData"][0]["data"][0]["expression"]["key"],
        "limit.l1__888ef3c0"
    );
}

#[test]
fn g9_atomic_defaults_lose_to_route_policy() {
    let g = run("g9-atomic", V14);
    let cfg = plugin_config(&g, "toystore-gw", V14);
    assert_eq!(
        cfg["actionSets"][0]["name"],
        "267d7091b26a9d21fa4c9aade134d99c73ea769d7cf9e7bc5ab0f7daaedd1e82"
    );
    let action = &cfg["actionSets"][0]["actions"][0];
    assert_eq!(
        action["conditionalData"][0]["data"][0]["expression"]["key"],
        "limit.route__46a0355e"
    );
    assert_eq!(
        action["sources"],
        json!(["ratelimitpolicy.kuadrant.io:test-ns/route-rlp"])
    );
    assert_eq!(limits(&g).as_array().unwrap().len(), 1);
}

#[test]
fn g9_merge_defaults() {
    for v in [V14, V15] {
        let g = run("g9-merge", v);
        let cfg = plugin_config(&g, "toystore-gw", v);
        let actions = cfg["actionSets"][0]["actions"].as_array().unwrap();
        assert_eq!(actions.len(), 1);
        assert_eq!(
            actions[0]["sources"],
            json!([
                "ratelimitpolicy.kuadrant.io:test-ns/gw-rlp",
                "ratelimitpolicy.kuadrant.io:test-ns/route-rlp"
            ])
        );
        assert_eq!(
            actions[0]["conditionalData"],
            json!([{"data": [{"expression": {"key": "limit.gateway_limit__8276de66", "value": "1"}}]},
                   {"data": [{"expression": {"key": "limit.route_limit__881ee4b9", "value": "1"}}]}])
        );
        assert_eq!(
            limits(&g),
            json!([
                {"name": "gateway-limit", "namespace": "test-ns/toystore-route", "max_value": 10, "seconds": 60,
                 "conditions": ["descriptors[0][\"limit.gateway_limit__8276de66\"] == \"1\""], "variables": []},
                {"name": "route-limit", "namespace": "test-ns/toystore-route", "max_value": 100, "seconds": 60,
                 "conditions": ["descriptors[0][\"limit.route_limit__881ee4b9\"] == \"1\""], "variables": []}
            ])
        );
    }
}

#[test]
fn g10_token_rate_limit_legacy_actions() {
    let g = run("g10", V15);
    let cfg = plugin_config(&g, "test-placed-gateway", V15);
    let id = policyctl::limit_identifier(true, "test-ns", "trlp", "free");
    let src = json!(["tokenratelimitpolicy.kuadrant.io:test-ns/trlp"]);
    assert_eq!(
        cfg["actionSets"][0]["actions"],
        json!([
            {"service": "ratelimit-check-service", "scope": "test-ns/toystore-route", "sources": src,
             "conditionalData": [{"data": [{"expression": {"key": id, "value": "1"}},
                                           {"expression": {"key": "auth.identity.userid", "value": "auth.identity.userid"}},
                                           {"expression": {"key": "ratelimit.hits_addend", "value": "0"}}]}]},
            {"service": "ratelimit-report-service", "scope": "test-ns/toystore-route", "sources": src,
             "conditionalData": [{"data": [{"expression": {"key": id, "value": "1"}},
                                           {"expression": {"key": "auth.identity.userid", "value": "auth.identity.userid"}},
                                           {"expression": {"key": "ratelimit.hits_addend", "value": "responseBodyJSON(\"/usage/total_tokens\")"}}]}]}
        ])
    );
    assert_eq!(
        limits(&g)[0]["conditions"][0],
        format!("descriptors[0][\"{id}\"] == \"1\"")
    );
    assert_eq!(
        limits(&g)[0]["variables"],
        json!(["descriptors[0][\"auth.identity.userid\"]"])
    );
    // G10 literal: tokenlimit.myTokenLimit__d681f6c3 is the identifier's shape.
    assert!(id.starts_with("tokenlimit.free__"));
}

#[test]
fn g12_no_output() {
    for v in [V14, V15] {
        let g = run("g12-no-routes", v);
        assert_eq!(names(&g), ["Limitador/limitador"], "{v:?}");
        assert!(
            object(&g, "Limitador", "limitador")["spec"]
                .get("limits")
                .is_none()
        );
    }
    // every route hostname outside the listener hostname: no wasm; limits and cluster objects on 1.4
    // only (docs/semantics/versions.md, "Invalid paths and the objects they produce").
    let g = run("g12-hostnames", V14);
    assert_eq!(
        names(&g),
        [
            "EnvoyFilter/kuadrant-ratelimiting-test-placed-gateway",
            "Limitador/limitador"
        ]
    );
    assert_eq!(limits(&g), g5_limits());
    let g = run("g12-hostnames", V15);
    assert_eq!(names(&g), ["Limitador/limitador"]);
}

#[test]
fn g13_observability_and_tracing() {
    let g = run("g13", V14);
    let cfg = plugin_config(&g, "test-placed-gateway", V14);
    assert_eq!(
        cfg["observability"],
        json!({"defaultLevel": "DEBUG", "httpHeaderIdentifier": "x-request-id", "tracing": {"service": "tracing-service"}})
    );
    assert_eq!(
        cfg["services"]["tracing-service"],
        json!({"endpoint": "kuadrant-tracing-service", "type": "tracing", "failureMode": "allow", "timeout": "100ms"})
    );
    let tr = object(&g, "EnvoyFilter", "kuadrant-tracing-test-placed-gateway");
    let v = &tr["spec"]["configPatches"][0]["patch"]["value"];
    assert_eq!(v["name"], "kuadrant-tracing-service");
    assert_eq!(
        v["load_assignment"]["endpoints"][0]["lb_endpoints"][0]["endpoint"]["address"]["socket_address"],
        json!({"address": "jaeger", "port_value": 14268})
    );
    assert_eq!(v["transport_socket"]["name"], "envoy.transport_sockets.tls");
    assert_eq!(
        object(&g, "Limitador", "limitador")["spec"]["tracing"],
        json!({"endpoint": "http://jaeger:14268/api/traces"})
    );
    assert!(
        g.diagnostics.is_empty(),
        "the Kuadrant object is in the input"
    );
}

#[test]
fn g14_legacy_config_uses_only_the_shim_schema() {
    // shim v0.12.3 legacy schema: top-level keys, action keys, data item keys.
    let g = run("g6", V14);
    let cfg = plugin_config(&g, "test-placed-gateway", V14);
    for k in cfg.as_object().unwrap().keys() {
        assert!(
            ["services", "actionSets", "observability", "requestData"].contains(&k.as_str()),
            "{k}"
        );
    }
    for set in cfg["actionSets"].as_array().unwrap() {
        for a in set["actions"].as_array().unwrap() {
            for k in a.as_object().unwrap().keys() {
                assert!(
                    [
                        "service",
                        "scope",
                        "predicates",
                        "conditionalData",
                        "sources"
                    ]
                    .contains(&k.as_str()),
                    "{k}"
                );
            }
            assert!(
                cfg["services"]
                    .get(a["service"].as_str().unwrap())
                    .is_some()
            );
            for cd in a
                .get("conditionalData")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                for d in cd["data"].as_array().unwrap() {
                    let item = d.as_object().unwrap();
                    assert_eq!(item.len(), 1);
                    assert!(item.contains_key("expression") || item.contains_key("static"));
                }
            }
        }
    }
}

#[test]
fn output_does_not_depend_on_input_order() {
    let path = format!(
        "{}/testdata/golden/g6/input.yaml",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path).unwrap();
    let mut docs: Vec<&str> = text.split("\n---\n").collect();
    docs.reverse();
    let reversed = docs.join("\n---\n");
    let gen_of = |t: &str| {
        let loaded = load(
            &[Input::Text {
                name: "x.yaml".into(),
                bytes: t.as_bytes().to_vec(),
            }],
            &LoadOptions {
                version: V14,
                ..LoadOptions::default()
            },
        );
        let topo = Topology::build(&loaded.model);
        let eff = policyctl::effective(&topo);
        policyctl::object_values(
            &policyctl::generate(&topo, &eff, &GenerateOptions::default()).objects,
        )
    };
    assert_eq!(gen_of(&text), gen_of(&reversed));
}

#[test]
fn compute_cli_yaml_json_and_filters() {
    let input = format!(
        "{}/testdata/golden/g6/input.yaml",
        env!("CARGO_MANIFEST_DIR")
    );
    let out = common::policyctl()
        .args([
            "compute",
            "-f",
            &input,
            "-o",
            "json",
            "--only",
            "authconfig,limitador",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(list["kind"], "List");
    let kinds: Vec<&str> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["Limitador", "AuthConfig", "AuthConfig"]);
    let out = common::policyctl()
        .args([
            "compute",
            "-f",
            &input,
            "--kuadrant-version",
            "1.5",
            "--gateway",
            "test-ns/other",
        ])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "apiVersion: limitador.kuadrant.io/v1alpha1\nkind: Limitador\nmetadata:\n  name: limitador\n  namespace: kuadrant-system\nspec:\n  metricLabelsDefault: descriptors[1]\n"
    );
    let out = common::policyctl()
        .args(["compute", "-f", &input, "--only", "bogus"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let help = common::policyctl()
        .args(["compute", "--help"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&help.stdout).contains("policyctl compute -f manifests/"));
}

/// docs/semantics/generated-objects.md: on an Envoy Gateway class the wasm configuration goes into an
/// `EnvoyExtensionPolicy` (the same configuration the Istio carrier holds, at both versions) and the
/// clusters into `EnvoyPatchPolicy`s (JSONPatch, mTLS off); no Istio object is written.
#[test]
fn envoy_gateway_extension_and_patch_policies() {
    for version in [V14, V15] {
        let eg = run("envoy-gateway", version);
        let istio = run_path("examples/toystore", version);
        let kinds: Vec<String> = names(&eg);
        assert_eq!(
            kinds,
            [
                "EnvoyExtensionPolicy/kuadrant-prod-web",
                "EnvoyPatchPolicy/kuadrant-ratelimiting-prod-web",
                "EnvoyPatchPolicy/kuadrant-auth-prod-web",
                "Limitador/limitador",
            ]
            .into_iter()
            .map(String::from)
            .chain(
                names(&istio)
                    .into_iter()
                    .filter(|n| n.starts_with("AuthConfig/"))
            )
            .collect::<Vec<_>>(),
            "{version:?}"
        );

        let eep = object(&eg, "EnvoyExtensionPolicy", "kuadrant-prod-web");
        assert_eq!(eep["apiVersion"], "gateway.envoyproxy.io/v1alpha1");
        assert_eq!(eep["metadata"]["namespace"], "gateway-system");
        assert_eq!(
            eep["metadata"]["labels"],
            json!({"kuadrant.io/managed": "true"})
        );
        assert_eq!(
            eep["spec"]["targetRefs"],
            json!([{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "prod-web"}])
        );
        let wasm = eep["spec"]["wasm"].as_array().unwrap();
        assert_eq!(wasm.len(), 1);
        assert_eq!(wasm[0]["name"], "kuadrant-wasm-shim");
        assert_eq!(wasm[0]["rootID"], "kuadrant_wasm_shim");
        assert_eq!(wasm[0]["failOpen"], false);
        assert_eq!(wasm[0]["code"]["type"], "Image");
        let image = match version {
            V14 => policyctl::WASM_IMAGE_1_4,
            _ => policyctl::WASM_IMAGE_1_5,
        };
        assert_eq!(wasm[0]["code"]["image"], json!({"url": image}));
        assert_eq!(
            wasm[0]["config"],
            plugin_config(&istio, "prod-web", version)
        );
        assert!(
            !wasm[0]["config"]["actionSets"]
                .as_array()
                .unwrap()
                .is_empty()
        );

        for (name, label, cluster, host, port) in [
            (
                "kuadrant-ratelimiting-prod-web",
                "kuadrant.io/ratelimit",
                "kuadrant-ratelimit-service",
                "limitador-limitador.kuadrant-system.svc.cluster.local",
                8081,
            ),
            (
                "kuadrant-auth-prod-web",
                "kuadrant.io/auth",
                "kuadrant-auth-service",
                "authorino-authorino-authorization.kuadrant-system.svc.cluster.local",
                50051,
            ),
        ] {
            let epp = object(&eg, "EnvoyPatchPolicy", name);
            assert_eq!(epp["apiVersion"], "gateway.envoyproxy.io/v1alpha1");
            assert_eq!(epp["metadata"]["labels"][label], "true", "{name}");
            assert_eq!(epp["spec"]["type"], "JSONPatch");
            assert_eq!(
                epp["spec"]["targetRef"],
                json!({"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "prod-web"})
            );
            let patch = &epp["spec"]["jsonPatches"][0];
            assert_eq!(
                patch["type"],
                "type.googleapis.com/envoy.config.cluster.v3.Cluster"
            );
            assert_eq!(patch["name"], cluster);
            assert_eq!(patch["operation"]["op"], "add");
            assert_eq!(patch["operation"]["path"], "");
            let value = &patch["operation"]["value"];
            assert_eq!(value["name"], cluster);
            assert!(value.get("transport_socket").is_none(), "mTLS is off on EG");
            // The same input handled as Istio does carry mTLS (the assertion above can fail).
            assert!(
                istio_clusters_with_mtls(version) > 0,
                "mTLS is on in the Kuadrant object"
            );
            let addr = &value["load_assignment"]["endpoints"][0]["lb_endpoints"][0]["endpoint"]["address"]
                ["socket_address"];
            assert_eq!(addr["address"], host);
            assert_eq!(addr["port_value"], port);
        }
    }
}

/// Cluster patches with a TLS transport socket when the Envoy Gateway estate's class is handled as
/// Istio (`--istio-controller-names`).
fn istio_clusters_with_mtls(version: KuadrantVersion) -> usize {
    let g = run_with(
        "golden/envoy-gateway/input.yaml",
        version,
        &GenerateOptions {
            istio_controllers: vec!["gateway.envoyproxy.io/gatewayclass-controller".into()],
            ..GenerateOptions::default()
        },
    );
    policyctl::object_values(&g.objects)
        .iter()
        .filter(|o| o["kind"] == "EnvoyFilter")
        .filter(|o| {
            o["spec"]["configPatches"][0]["patch"]["value"]
                .get("transport_socket")
                .is_some()
        })
        .count()
}
