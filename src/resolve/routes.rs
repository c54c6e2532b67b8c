//! Route-side status: the `kuadrant.io/<Kind>Affected` conditions the operator writes on the parents of
//! HTTPRoutes (and, on 1.5, GRPCRoutes) so that a route shows which policies affect it.
//!
//! Facts (kuadrant-operator v1.4.6 internal/controller/httproute_policy_discoverability_reconciler.go,
//! HTTPRoutes only; v1.5.2 internal/controller/route_policy_discoverability_reconciler.go, HTTPRoutes
//! and GRPCRoutes; `PolicyAffectedCondition` and `policyGroupKinds` in internal/controller/common.go at
//! both tags):
//!
//! - the route's path is the route, then for each parent listener the listener and its gateway, each
//!   targetable once (`getRoutePath`); route *rules* are not in it, so a policy that targets a rule
//!   by `sectionName` is not listed;
//! - per kind, in the order AuthPolicy, RateLimitPolicy, TokenRateLimitPolicy, TLSPolicy, DNSPolicy,
//!   the accepted policies of that kind attached to the path (`PoliciesInPath`: per targetable in path
//!   order, by creation time);
//! - when there are some, every gateway of the path gets a parent status entry with controllerName
//!   `kuadrant.io/policy-controller` and the condition type `kuadrant.io/<Kind>Affected`, status
//!   True, reason `Accepted`, message `Object affected by <Kind> [ns/name ns/name]`; when there are
//!   none the condition is removed, and an entry left without conditions is removed.
//!
//! Predicted as written on a route that had no Kuadrant entry before (new entries and conditions are
//! appended in the order above). Owns nothing else: acceptance comes from [`super::status`].
//!
//! One order is the operator's by chance: `getRoutePath` takes the route's listeners from
//! policy-machinery's `Parents` (v0.8.0 machinery/topology.go), which ranges over a Go map, so with
//! two or more parent listeners the live order of listeners (and of their Gateways) varies between
//! reconciliations. Here they follow the route's parentRefs, then each Gateway's listener order; a
//! message naming policies attached to different listeners or Gateways of such a route may list them
//! in another order in the cluster.

//!
//! Gateway-side status (kuadrant-operator v1.4.6 and v1.5.2, identical at both tags:
//! internal/controller/gateway_policy_discoverability_reconciler.go), [`gateway_conditions`]:
//!
//! - on every Gateway of the topology, per kind in the same order, the accepted policies of that kind
//!   attached to the Gateway itself (`PoliciesInPath([gateway])`) give the Gateway's own condition in
//!   `status.conditions`: the same type, status, reason and message as on routes;
//! - on each of its listeners, those attached to the Gateway then to the listener
//!   (`PoliciesInPath([gateway, listener])`) give the condition in that listener's
//!   `status.listeners[]` entry; so a policy targeting a listener (`sectionName`) is on that listener
//!   only, and a Gateway's policy is on the Gateway and on every listener;
//! - `observedGeneration` is the Gateway's `metadata.generation`; a condition of a kind with no
//!   accepted policy is removed; a listener without a status entry gets one (its name, its
//!   conditions), appended; other conditions (Istio's `Accepted`, `Programmed`) are kept.
//!
//! The upstream test tests/common/discoverability/policy_discoverability_reconciler_test.go (v1.5.2:
//! "adds section name polices only to specific listener status conditions", "gateway policy is also
//! listed with section policy") checks exactly these memberships.

use super::status::{Condition, PolicyStatus};
use crate::model::{PolicyKind, RouteKind};
use crate::topology::{self, Topology, route_in_topology};
use petgraph::graph::NodeIndex;
use serde::Serialize;

/// The controller name of the operator's route parent entries (`kuadrant.ControllerName`,
/// kuadrant-operator v1.4.6 and v1.5.2 internal/kuadrant/kuadrant.go).
pub(crate) const POLICY_CONTROLLER: &str = "kuadrant.io/policy-controller";

/// `policyGroupKinds()`: the order the conditions are written in.
pub(crate) const AFFECTED_ORDER: [PolicyKind; 5] = [
    PolicyKind::Auth,
    PolicyKind::RateLimit,
    PolicyKind::TokenRateLimit,
    PolicyKind::Tls,
    PolicyKind::Dns,
];

/// One parent status entry the operator writes on a route.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RouteParent {
    pub gateway_namespace: String,
    pub gateway_name: String,
    pub conditions: Vec<Condition>,
}

/// The Kuadrant parent entries of one route.
#[derive(Clone, Debug)]
pub struct RouteConditions {
    /// Index into `Model::routes`.
    pub route: usize,
    pub parents: Vec<RouteParent>,
}

/// The condition type of a policy kind (`PolicyAffectedConditionType`).
pub(crate) fn affected_type(kind: PolicyKind) -> String {
    format!("kuadrant.io/{}Affected", kind.kind())
}

/// The targetables of `getRoutePath` (route, then listener and gateway per parent listener, each
/// once) and the gateways among them, as model indices.
fn route_path(t: &Topology, route: usize) -> Option<(Vec<NodeIndex>, Vec<usize>)> {
    let m = t.model;
    let r = &m.routes[route];
    let rn = t.node_index(&topology::route_locator(
        r.spec.kind,
        &r.meta.namespace,
        &r.meta.name,
    ))?;
    let mut nodes = vec![rn];
    let mut gateways = Vec::new();
    for &(gi, li) in t.route_listeners(route) {
        let g = &m.gateways[gi];
        let gl = topology::gateway_locator(&g.meta.namespace, &g.meta.name);
        let ll = gl.section(&g.spec.listeners[li].name.value);
        let gn = t.node_index(&gl);
        for n in [t.node_index(&ll), gn].into_iter().flatten() {
            if !nodes.contains(&n) {
                nodes.push(n);
            }
        }
        if gn.is_some() && !gateways.contains(&gi) {
            gateways.push(gi);
        }
    }
    Some((nodes, gateways))
}

/// The predicted Kuadrant parent entries of every route that gets at least one condition, ordered by
/// kind (HTTPRoute before GRPCRoute), namespace and name. `statuses` are the policies' predicted
/// statuses (one per policy; only `Accepted` is read).
pub fn route_conditions(t: &Topology, statuses: &[PolicyStatus]) -> Vec<RouteConditions> {
    let m = t.model;
    let accepted = accepted_policies(t, statuses);
    let mut out = Vec::new();
    for (ri, r) in m.routes.iter().enumerate() {
        if !route_in_topology(r.spec.kind, t.version()) {
            continue;
        }
        let Some((nodes, gateways)) = route_path(t, ri) else {
            continue;
        };
        let conditions = affected(t, &accepted, &nodes);
        if conditions.is_empty() || gateways.is_empty() {
            continue;
        }
        let parents = gateways
            .iter()
            .map(|&gi| RouteParent {
                gateway_namespace: m.gateways[gi].meta.namespace.clone(),
                gateway_name: m.gateways[gi].meta.name.clone(),
                conditions: conditions.clone(),
            })
            .collect();
        out.push(RouteConditions { route: ri, parents });
    }
    let sort_key = |c: &RouteConditions| {
        let r = &m.routes[c.route];
        (
            r.spec.kind != RouteKind::Http,
            r.meta.namespace.clone(),
            r.meta.name.clone(),
        )
    };
    out.sort_by_key(sort_key);
    out
}

/// The predicted `kuadrant.io/<Kind>Affected` conditions of one listener of a gateway.
#[derive(Clone, Debug, Serialize)]
pub struct ListenerConditions {
    pub name: String,
    pub conditions: Vec<Condition>,
}

/// The predicted `kuadrant.io/<Kind>Affected` conditions of one gateway: its own, and its listeners'
/// (every listener, in spec order, some with no condition).
#[derive(Clone, Debug)]
pub struct GatewayConditions {
    /// Index into `Model::gateways`.
    pub gateway: usize,
    pub conditions: Vec<Condition>,
    pub listeners: Vec<ListenerConditions>,
}

/// `PolicyAffectedCondition` of each kind with accepted policies attached to `nodes` (in order).
fn affected(t: &Topology, accepted: &[bool], nodes: &[NodeIndex]) -> Vec<Condition> {
    let m = t.model;
    AFFECTED_ORDER
        .into_iter()
        .filter_map(|kind| {
            let names: Vec<String> = nodes
                .iter()
                .flat_map(|&n| t.policies_at_node_in_order(n).iter().copied())
                .filter(|&pi| m.policies[pi].kind == kind && accepted[pi])
                .map(|pi| m.policies[pi].meta.key())
                .collect();
            (!names.is_empty()).then(|| Condition {
                type_: affected_type(kind),
                status: "True".into(),
                reason: "Accepted".into(),
                message: format!("Object affected by {} [{}]", kind.kind(), names.join(" ")),
            })
        })
        .collect()
}

/// Whether each policy is predicted `Accepted`, by model index.
fn accepted_policies(t: &Topology, statuses: &[PolicyStatus]) -> Vec<bool> {
    let mut accepted = vec![false; t.model.policies.len()];
    for s in statuses {
        if let Some(a) = accepted.get_mut(s.policy) {
            *a = s.accepted.is_true();
        }
    }
    accepted
}

/// The predicted gateway-side conditions of every gateway of the topology that gets at least one
/// (on itself or a listener), ordered by namespace and name (see the module's facts).
pub fn gateway_conditions(t: &Topology, statuses: &[PolicyStatus]) -> Vec<GatewayConditions> {
    let m = t.model;
    let accepted = accepted_policies(t, statuses);
    let mut out = Vec::new();
    for (gi, g) in m.gateways.iter().enumerate() {
        let gl = topology::gateway_locator(&g.meta.namespace, &g.meta.name);
        let Some(gn) = t.node_index(&gl) else {
            continue;
        };
        let listeners: Vec<ListenerConditions> = g
            .spec
            .listeners
            .iter()
            .map(|l| {
                let mut nodes = vec![gn];
                nodes.extend(t.node_index(&gl.section(&l.name.value)));
                ListenerConditions {
                    name: l.name.value.clone(),
                    conditions: affected(t, &accepted, &nodes),
                }
            })
            .collect();
        let conditions = affected(t, &accepted, &[gn]);
        if conditions.is_empty() && listeners.iter().all(|l| l.conditions.is_empty()) {
            continue;
        }
        out.push(GatewayConditions {
            gateway: gi,
            conditions,
            listeners,
        });
    }
    out.sort_by(|a, b| {
        let key = |c: &GatewayConditions| {
            let g = &m.gateways[c.gateway];
            (g.meta.namespace.clone(), g.meta.name.clone())
        };
        key(a).cmp(&key(b))
    });
    out
}

/// `meta.SetStatusCondition` / `RemoveStatusCondition` of the five `<Kind>Affected` types on a
/// conditions list as written: a predicted condition replaces one of its type in place (else it is
/// appended), a type with none predicted is removed, other conditions are kept.
fn set_affected(
    conditions: &mut Vec<serde_json::Value>,
    predicted: &[Condition],
    generation: Option<i64>,
) {
    use serde_json::{Map, Value, json};
    for kind in AFFECTED_ORDER {
        let type_ = affected_type(kind);
        let at = conditions
            .iter()
            .position(|c| c.get("type").and_then(Value::as_str) == Some(type_.as_str()));
        match (predicted.iter().find(|c| c.type_ == type_), at) {
            (Some(c), at) => {
                let mut o = Map::new();
                o.insert("type".into(), json!(c.type_));
                o.insert("status".into(), json!(c.status));
                o.insert("reason".into(), json!(c.reason));
                o.insert("message".into(), json!(c.message));
                if let Some(g) = generation {
                    o.insert("observedGeneration".into(), json!(g));
                }
                match at {
                    Some(i) => conditions[i] = Value::Object(o),
                    None => conditions.push(Value::Object(o)),
                }
            }
            (None, Some(i)) => {
                conditions.remove(i);
            }
            (None, None) => {}
        }
    }
}

/// The gateway object as written with the predicted conditions in `status.conditions` and in each
/// listener's `status.listeners[]` entry (see the module's facts; `observedGeneration` when
/// `metadata.generation` is known, no `lastTransitionTime`).
pub fn with_predicted_gateway_status(
    mut object: serde_json::Value,
    gc: &GatewayConditions,
    generation: Option<i64>,
) -> serde_json::Value {
    use serde_json::{Map, Value, json};
    let serde_json::Value::Object(o) = &mut object else {
        return object;
    };
    let mut status = match o.remove("status") {
        Some(Value::Object(s)) => s,
        _ => Map::new(),
    };
    let conditions = |v: Option<Value>| match v {
        Some(Value::Array(a)) => a,
        _ => Vec::new(),
    };
    let mut own = conditions(status.remove("conditions"));
    let mut listeners = conditions(status.remove("listeners"));
    for l in &gc.listeners {
        let at = listeners
            .iter()
            .position(|e| e.get("name").and_then(Value::as_str) == Some(l.name.as_str()));
        let i = at.unwrap_or_else(|| {
            listeners.push(json!({"name": l.name, "conditions": []}));
            listeners.len() - 1
        });
        if let Value::Object(entry) = &mut listeners[i] {
            let mut cs = conditions(entry.remove("conditions"));
            set_affected(&mut cs, &l.conditions, generation);
            entry.insert("conditions".into(), Value::Array(cs));
        }
    }
    set_affected(&mut own, &gc.conditions, generation);
    if !own.is_empty() {
        status.insert("conditions".into(), Value::Array(own));
    }
    status.insert("listeners".into(), Value::Array(listeners));
    o.insert("status".into(), Value::Object(status));
    object
}

/// The route object as written with the predicted Kuadrant parent entries: other controllers' entries
/// in `status.parents` are kept, any `kuadrant.io/policy-controller` entry is replaced by the
/// prediction (`controllerName`, `parentRef` kind/name/namespace, conditions with
/// `observedGeneration` when `metadata.generation` is known; no `lastTransitionTime`, which an
/// offline prediction cannot know).
pub fn with_predicted_parents(
    mut object: serde_json::Value,
    rc: &RouteConditions,
    generation: Option<i64>,
) -> serde_json::Value {
    use serde_json::{Map, Value, json};
    let mut parents: Vec<Value> = object
        .pointer("/status/parents")
        .and_then(Value::as_array)
        .map(|ps| {
            ps.iter()
                .filter(|p| {
                    p.get("controllerName").and_then(Value::as_str) != Some(POLICY_CONTROLLER)
                })
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    for p in &rc.parents {
        let conditions: Vec<Value> = p
            .conditions
            .iter()
            .map(|c| {
                let mut o = Map::new();
                o.insert("type".into(), json!(c.type_));
                o.insert("status".into(), json!(c.status));
                o.insert("reason".into(), json!(c.reason));
                o.insert("message".into(), json!(c.message));
                if let Some(g) = generation {
                    o.insert("observedGeneration".into(), json!(g));
                }
                Value::Object(o)
            })
            .collect();
        parents.push(json!({
            "controllerName": POLICY_CONTROLLER,
            "parentRef": {
                "kind": "Gateway",
                "name": p.gateway_name,
                "namespace": p.gateway_namespace,
            },
            "conditions": conditions,
        }));
    }
    if let Value::Object(o) = &mut object {
        let mut status = match o.remove("status") {
            Some(Value::Object(s)) => s,
            _ => Map::new(),
        };
        status.insert("parents".into(), Value::Array(parents));
        o.insert("status".into(), Value::Object(status));
    }
    object
}
