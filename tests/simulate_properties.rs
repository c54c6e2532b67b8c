//! Property test of `simulate`: on random estates and requests, the action set it selects is the
//! one a simple, independent matcher picks from the printed wasm configuration (hostname: exact,
//! else the longest wildcard; then the first set whose predicates all hold), and the limits
//! Limitador applies are exactly the generated Limitador limits of the action's namespace whose
//! conditions the descriptor satisfies.

use crate::common;
use common::load_docs;
use policyctl::GenerateOptions;
use policyctl::KuadrantVersion;
use policyctl::analyze;
use policyctl::simulate::request::Request;
use policyctl::simulate::{Simulation, Timed};
use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;
use serde_json::Value;
use std::collections::BTreeSet;
use std::time::Duration;

const HOSTS: [&str; 3] = ["a.example.com", "b.example.com", "*.example.com"];
const PATHS: [&str; 3] = ["/", "/p", "/p/q"];

#[derive(Debug, Clone)]
struct Rule {
    exact: bool,
    path: usize,
    method: Option<bool>,
}

#[derive(Debug, Clone)]
struct Route {
    gateway: usize,
    host: usize,
    rules: Vec<Rule>,
}

#[derive(Debug, Clone)]
struct Rlp {
    route: usize,
    limits: Vec<(u32, bool)>,
}

#[derive(Debug, Clone)]
struct Estate {
    gateways: Vec<bool>,
    routes: Vec<Route>,
    rlps: Vec<Rlp>,
}

fn estate() -> impl Strategy<Value = Estate> {
    let rule = (
        any::<bool>(),
        0..PATHS.len(),
        prop::option::of(any::<bool>()),
    )
        .prop_map(|(exact, path, method)| Rule {
            exact,
            path,
            method,
        });
    let route = (0..2usize, 0..HOSTS.len(), prop::collection::vec(rule, 1..4)).prop_map(
        |(gateway, host, rules)| Route {
            gateway,
            host,
            rules,
        },
    );
    (
        prop::collection::vec(any::<bool>(), 2),
        prop::collection::vec(route, 1..5),
    )
        .prop_flat_map(|(gateways, routes)| {
            let n = routes.len();
            let rlp = (0..n, prop::collection::vec((1..4u32, any::<bool>()), 1..3))
                .prop_map(|(route, limits)| Rlp { route, limits });
            (
                Just(gateways),
                Just(routes),
                prop::collection::vec(rlp, 0..4),
            )
        })
        .prop_map(|(gateways, routes, rlps)| Estate {
            gateways,
            routes,
            rlps,
        })
}

fn documents(e: &Estate) -> Vec<String> {
    let mut docs = vec![
        "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata:\n  name: istio\nspec:\n  controllerName: istio.io/gateway-controller\n".to_string(),
        "apiVersion: kuadrant.io/v1beta1\nkind: Kuadrant\nmetadata:\n  name: kuadrant\n  namespace: kuadrant-system\n".to_string(),
    ];
    for (i, wildcard) in e.gateways.iter().enumerate() {
        let host = if *wildcard {
            "\n    hostname: \"*.example.com\""
        } else {
            ""
        };
        docs.push(format!(
            "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  name: gw-{i}\n  namespace: infra\nspec:\n  gatewayClassName: istio\n  listeners:\n  - name: http\n    port: 80\n    protocol: HTTP{host}\n    allowedRoutes: {{namespaces: {{from: All}}}}\n"
        ));
    }
    for (i, r) in e.routes.iter().enumerate() {
        let mut d = format!(
            "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: route-{i}\n  namespace: apps\nspec:\n  parentRefs:\n  - {{name: gw-{}, namespace: infra}}\n  hostnames: [\"{}\"]\n  rules:\n",
            r.gateway, HOSTS[r.host]
        );
        for rule in &r.rules {
            let kind = if rule.exact { "Exact" } else { "PathPrefix" };
            let method = match rule.method {
                Some(true) => "\n      method: GET",
                Some(false) => "\n      method: POST",
                None => "",
            };
            d.push_str(&format!(
                "  - matches:\n    - path: {{type: {kind}, value: {}}}{method}\n",
                PATHS[rule.path]
            ));
        }
        docs.push(d);
    }
    for (i, p) in e.rlps.iter().enumerate() {
        let mut d = format!(
            "apiVersion: kuadrant.io/v1\nkind: RateLimitPolicy\nmetadata:\n  name: rlp-{i}\n  namespace: apps\nspec:\n  targetRef: {{group: gateway.networking.k8s.io, kind: HTTPRoute, name: route-{}}}\n  limits:\n",
            p.route
        );
        for (j, (limit, when)) in p.limits.iter().enumerate() {
            d.push_str(&format!(
                "    l-{i}-{j}:\n      rates: [{{limit: {limit}, window: 10s}}]\n"
            ));
            if *when {
                d.push_str("      when:\n      - predicate: \"request.method == 'GET'\"\n");
            }
        }
        docs.push(d);
    }
    docs
}

/// The generated predicate forms, evaluated without CEL.
fn holds(p: &str, method: &str, path: &str) -> bool {
    let quoted = |rest: &str| rest.trim_end_matches(')').trim_matches('\'').to_string();
    if let Some(m) = p.strip_prefix("request.method == ") {
        return quoted(m) == method;
    }
    if let Some(v) = p.strip_prefix("request.url_path == ") {
        return quoted(v) == path;
    }
    if let Some(v) = p.strip_prefix("request.url_path.startsWith(") {
        return path.starts_with(&quoted(v));
    }
    panic!("a predicate form this test does not know: {p}");
}

/// The independent matcher over one gateway's printed action sets.
fn expected_set(sets: &[Value], host: &str, method: &str, path: &str) -> Option<String> {
    let names = |s: &Value| -> Vec<String> {
        s["routeRuleConditions"]["hostnames"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h.as_str().unwrap().to_string())
            .collect()
    };
    let exact: Vec<&Value> = sets
        .iter()
        .filter(|s| names(s).iter().any(|h| h == host))
        .collect();
    let chosen = if !exact.is_empty() {
        exact
    } else {
        let fits = |h: &str| {
            h.strip_prefix('*')
                .is_some_and(|suffix| host.ends_with(suffix))
        };
        let best = sets
            .iter()
            .flat_map(names)
            .filter(|h| fits(h))
            .map(|h| h.len())
            .max()?;
        sets.iter()
            .filter(|s| names(s).iter().any(|h| fits(h) && h.len() == best))
            .collect()
    };
    chosen
        .into_iter()
        .find(|s| {
            s["routeRuleConditions"]["predicates"]
                .as_array()
                .map(|ps| ps.iter().all(|p| holds(p.as_str().unwrap(), method, path)))
                .unwrap_or(true)
        })
        .map(|s| s["name"].as_str().unwrap().to_string())
}

/// `descriptors[0]["K"] == "V"` and `descriptors[0]["K"]` read without Limitador.
fn key_of(expr: &str) -> (String, Option<String>) {
    let rest = expr.strip_prefix("descriptors[0][\"").unwrap();
    let (k, tail) = rest.split_once("\"]").unwrap();
    let v = tail
        .strip_prefix(" == \"")
        .map(|v| v.trim_end_matches('"').to_string());
    (k.to_string(), v)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    #[test]
    fn simulate_applies_what_compute_generates(
        e in estate(),
        reqs in prop::collection::vec((0..3usize, 0..4usize, any::<bool>(), 0..2usize), 1..8),
    ) {
        let docs = documents(&e);
        let loaded = load_docs(&docs, KuadrantVersion::V1_4);
        let a = analyze(&loaded.model, &loaded.diagnostics, &GenerateOptions::default(), &Default::default());
        let values: Vec<Value> = a.generated.objects.iter().map(|o| o.to_value()).collect();
        let limits: Vec<&Value> = values
            .iter()
            .filter(|v| v["kind"] == "Limitador")
            .filter_map(|v| v["spec"]["limits"].as_array())
            .flatten()
            .collect();
        for (host, path, get, gw) in reqs {
            let host = ["a.example.com", "b.example.com", "c.example.com"][host];
            let path = ["/", "/p", "/p/q", "/x"][path];
            let method = if get { "GET" } else { "POST" };
            let mut sim = Simulation::new(&a.topology, &a.generated.objects).unwrap();
            sim.gateway = Some(format!("infra/gw-{gw}"));
            let req = Request::parse(method, &format!("http://{host}{path}"), &[]).unwrap();
            let t = &sim.run(&[Timed { at: Duration::ZERO, request: req }]).unwrap()[0];
            let sets: Vec<Value> = values
                .iter()
                .find(|v| v["kind"] == "WasmPlugin" && v["metadata"]["name"] == format!("kuadrant-gw-{gw}"))
                .map(|v| v["spec"]["pluginConfig"]["actionSets"].as_array().unwrap().clone())
                .unwrap_or_default();
            prop_assert_eq!(&t.action_set, &expected_set(&sets, host, method, path), "{} {}{}", method, host, path);
            for act in &t.actions {
                let Some(d) = &act.limitador else { continue };
                let entries: BTreeSet<(String, String)> =
                    act.descriptor.iter().map(|e| (e.key.clone(), e.value.clone())).collect();
                let keys: BTreeSet<&String> = entries.iter().map(|(k, _)| k).collect();
                let want: BTreeSet<(String, u64, u64)> = limits
                    .iter()
                    .filter(|l| l["namespace"] == act.scope.as_str())
                    .filter(|l| {
                        l["conditions"].as_array().unwrap().iter().all(|c| {
                            let (k, v) = key_of(c.as_str().unwrap());
                            entries.contains(&(k, v.unwrap()))
                        }) && l["variables"].as_array().unwrap().iter().all(|x| {
                            keys.contains(&key_of(x.as_str().unwrap()).0)
                        })
                    })
                    .map(|l| (
                        l["name"].as_str().unwrap_or("").to_string(),
                        l["max_value"].as_u64().unwrap(),
                        l["seconds"].as_u64().unwrap(),
                    ))
                    .collect();
                let got: BTreeSet<(String, u64, u64)> =
                    d.counters.iter().map(|c| (c.limit.clone(), c.max_value, c.seconds)).collect();
                prop_assert!(!want.is_empty());
                prop_assert_eq!(got, want);
            }
        }
    }
}
