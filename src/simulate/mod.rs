//! Simulate: what a request gets, before anything reaches a cluster. Evaluates the objects
//! `compute` prints (the pipeline's [`crate::generate::Generated`]), never a second model of them:
//!
//! 1. `routing`: the Gateway and listener that take the request, then the HTTPRoute rule, by the
//!    Gateway API's matching and precedence rules;
//! 2. `shim`: the action set the wasm shim selects in that gateway's configuration (hostname, then
//!    route predicates), and each action's predicates and descriptor entries, with a CEL interpreter
//!    over the shim's variables;
//! 3. the auth action: the AuthConfig its scope names. Authorino is not run: the identity is given
//!    (`--identity`) or absent; absent, the request is refused (401) unless an authentication rule
//!    of that AuthConfig is `anonymous`. Authorization rules are not evaluated;
//! 4. `limits`: Limitador's decision for each rate-limit descriptor, by the `limitador` crate
//!    configured with the generated limits, on a simulated clock shared by a sequence of requests.
//!
//! Envoy runs the wasm filter before its router, so a request refused by auth or a limit is refused
//! even when no route rule matches; one that passes and matches no rule gets 404.

pub mod authorino;
pub mod cases;
mod limits;
pub mod request;
mod routing;
pub mod schedule;
mod shim;
pub mod text;

use crate::generate::object::Object;
use crate::topology::Topology;
use limits::{Decision, LimitSpec, Limitador};
use request::Request;
use routing::Routing;
use serde::Serialize;
use serde_json::{Map, Value};
use shim::{Activation, Cel, WasmConfig};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Duration;

/// A request of a sequence, at a time since the first one.
#[derive(Clone, Debug)]
pub struct Timed {
    pub at: Duration,
    pub request: Request,
}

/// What happened to one request.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Trace {
    /// Milliseconds since the first request of the sequence.
    pub at_ms: u64,
    pub method: String,
    pub url: String,
    /// Gateways with a listener for the request when more than one has (the first is used).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub other_gateways: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub routing: Option<Routing>,
    /// The action set the shim selected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action_set: Option<String>,
    /// The hostname of the configuration through which the sets were looked up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action_set_hostname: Option<String>,
    pub actions: Vec<ActionTrace>,
    pub allowed: bool,
    /// The HTTP status the client would see; `null` when no listener takes the request.
    pub status: Option<u16>,
    /// The limit that refused the request, as its name was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<String>,
    /// What decided the verdict, in a few words.
    pub decided_by: String,
    /// The policies behind the action that decided (`kind:namespace/name`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub policies: Vec<String>,
    /// Typed actions of extension policies the request reached, which are not simulated:
    /// `<type> <source>…` (a ThreatPolicy's gRPC call to its threat assessment service).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_simulated: Vec<String>,
}

/// One action of the selected set.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ActionTrace {
    pub service: String,
    pub scope: String,
    pub sources: Vec<String>,
    /// The first predicate that does not hold: the action did not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped_by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auth: Option<AuthTrace>,
    /// The descriptor entries sent to Limitador.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub descriptor: Vec<Entry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limitador: Option<Decision>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Entry {
    pub key: String,
    pub value: String,
}

/// The AuthConfig consulted and what follows from the identity.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthTrace {
    pub auth_config: String,
    pub authenticated: bool,
    /// The authentication rule that decides: the anonymous one, or those that would all fail.
    pub rules: Vec<String>,
    pub reason: String,
}

/// What depends only on the request's method, URL and headers.
struct Memo {
    cands: Vec<usize>,
    routed: Option<Routing>,
    hostname: Option<String>,
    /// Indices into the gateway's action sets.
    sets: Vec<usize>,
}

/// A simulation over one analysed estate; counters persist across [`Simulation::run`] calls.
pub struct Simulation<'t> {
    topology: &'t Topology<'t>,
    /// The topology's paths by listener, built on the first request.
    listener_paths: std::sync::OnceLock<routing::ListenerPaths>,
    /// `namespace/name` of the gateway → its wasm configuration.
    wasm: BTreeMap<String, (WasmConfig, Map<String, Value>)>,
    auth_configs: BTreeMap<String, Map<String, Value>>,
    /// Every generated limit, for the property test and the trace.
    pub limits: Vec<LimitSpec>,
    limitador: Limitador,
    cel: Cel,
    /// Routing and action-set candidates per distinct request (identity and time aside): a
    /// sequence repeats one request, and both scans grow with the estate.
    memo: RefCell<std::collections::HashMap<String, Rc<Memo>>>,
    /// The previous request, its memo entry and its CEL variables.
    #[allow(clippy::type_complexity)]
    last: RefCell<Option<(Request, Rc<Memo>, Rc<Activation>)>>,
    /// `namespace/name` of the gateway to use when several have a listener for a request.
    pub gateway: Option<String>,
}

/// `namespace/name` of gateway `g`.
fn gateway_key(t: &Topology, g: usize) -> String {
    let gw = &t.model.gateways[g];
    format!("{}/{}", gw.meta.namespace, gw.meta.name)
}

/// The wasm configuration of a generated wasm carrier, and its gateway `namespace/name`.
fn wasm_config_of(o: &Object) -> Option<(String, Value)> {
    let (shell, config) = match o {
        Object::Wasm(w) => (&w.shell, serde_json::to_value(&w.config).ok()?),
        _ => return None,
    };
    let ns = shell.pointer("/metadata/namespace")?.as_str()?;
    let name = shell.pointer("/metadata/name")?.as_str()?;
    let gw = name.strip_prefix("kuadrant-")?;
    Some((format!("{ns}/{gw}"), config))
}

impl<'t> Simulation<'t> {
    /// Read the generated objects. `Err`: a generated limit Limitador cannot read.
    pub fn new(topology: &'t Topology<'t>, objects: &[Object]) -> Result<Simulation<'t>, String> {
        let mut wasm = BTreeMap::new();
        let mut auth_configs = BTreeMap::new();
        let mut limits = Vec::new();
        for o in objects {
            if let Some((gw, config)) = wasm_config_of(o) {
                let services = config
                    .get("services")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                let parsed: WasmConfig = serde_json::from_value(config)
                    .map_err(|e| format!("the wasm configuration of {gw}: {e}"))?;
                wasm.insert(gw, (parsed, services));
            }
            match o {
                Object::Limitador(l) => limits.extend(l.limits.iter().map(|l| LimitSpec {
                    namespace: l.namespace.to_string(),
                    name: l.name.clone(),
                    max_value: l.max_value,
                    seconds: l.seconds,
                    conditions: l.conditions.clone(),
                    variables: l.variables.clone(),
                })),
                Object::AuthConfig(a) => {
                    auth_configs.insert(a.name.clone(), (*a.spec).clone());
                }
                _ => {}
            }
        }
        let limitador = Limitador::new(&limits)?;
        Ok(Simulation {
            topology,
            listener_paths: std::sync::OnceLock::new(),
            wasm,
            auth_configs,
            limits,
            limitador,
            cel: Cel::default(),
            memo: Default::default(),
            last: Default::default(),
            gateway: None,
        })
    }

    /// Simulate a sequence of requests, in order; their times must not decrease.
    pub fn run(&self, requests: &[Timed]) -> Vec<Trace> {
        requests.iter().map(|r| self.one(r)).collect()
    }

    /// The failure mode of a service of the gateway's configuration (`deny` unless it says allow).
    fn fails_open(services: &Map<String, Value>, service: &str) -> bool {
        services
            .get(service)
            .and_then(|s| s.get("failureMode"))
            .and_then(Value::as_str)
            == Some("allow")
    }

    /// Routing and action-set candidates of a request, and its CEL variables. A sequence
    /// usually repeats one request: the previous request's are reused when this one is the
    /// same; otherwise the routing comes from the memo of distinct requests.
    fn prepared(&self, req: &Request) -> (Rc<Memo>, Rc<Activation>) {
        if let Some((last, memo, act)) = &*self.last.borrow()
            && last == req
        {
            return (Rc::clone(memo), Rc::clone(act));
        }
        let memo_key = format!(
            "{:?}",
            (
                &self.gateway,
                &req.method,
                &req.scheme,
                &req.host,
                req.port,
                &req.path,
                &req.query,
                &req.headers,
            )
        );
        let cached = self.memo.borrow().get(&memo_key).cloned();
        let memo = match cached {
            Some(m) => m,
            None => {
                let m = Rc::new(self.route(req));
                self.memo.borrow_mut().insert(memo_key, Rc::clone(&m));
                m
            }
        };
        let act = Rc::new(Activation::new(req, &self.cel));
        *self.last.borrow_mut() = Some((req.clone(), Rc::clone(&memo), Rc::clone(&act)));
        (memo, act)
    }

    /// The gateways, the route rule and the action sets a request meets.
    fn route(&self, req: &Request) -> Memo {
        let t = self.topology;
        let mut cands = routing::candidate_gateways(t, req);
        if let Some(want) = &self.gateway {
            cands.retain(|g| gateway_key(t, *g) == *want);
        }
        let paths = self
            .listener_paths
            .get_or_init(|| routing::ListenerPaths::new(t));
        let routed = cands
            .first()
            .and_then(|&g| routing::route(t, paths, g, req));
        let config = cands
            .first()
            .and_then(|&g| self.wasm.get(&gateway_key(t, g)));
        let (hostname, sets) = match config {
            Some((config, _)) => {
                let (h, sets) = shim::candidates(config, &req.host);
                let idx = sets
                    .iter()
                    .filter_map(|s| config.action_sets.iter().position(|x| std::ptr::eq(x, *s)))
                    .collect();
                (h, idx)
            }
            None => (None, vec![]),
        };
        Memo {
            cands,
            routed,
            hostname,
            sets,
        }
    }

    fn one(&self, timed: &Timed) -> Trace {
        let req = &timed.request;
        self.limitador.clock.set(timed.at);
        let t = self.topology;
        let mut trace = Trace {
            at_ms: u64::try_from(timed.at.as_millis()).unwrap_or(u64::MAX),
            method: req.method.clone(),
            url: req.url(),
            other_gateways: vec![],
            routing: None,
            action_set: None,
            action_set_hostname: None,
            actions: vec![],
            allowed: false,
            status: None,
            limit: None,
            decided_by: String::new(),
            policies: vec![],
            not_simulated: vec![],
        };
        let key = |g: usize| gateway_key(t, g);
        let (memo, act) = self.prepared(req);
        let cands = &memo.cands;
        let Some(&g) = cands.first() else {
            trace.decided_by = format!(
                "no Gateway listener for {} port {}{}",
                req.scheme,
                req.port,
                self.gateway
                    .as_ref()
                    .map(|g| format!(" on {g}"))
                    .unwrap_or_default()
            );
            return trace;
        };
        trace.other_gateways = cands[1..].iter().map(|g| key(*g)).collect();
        let routed = memo.routed.clone();
        trace.routing = routed.clone();
        if let Some((config, services)) = self.wasm.get(&key(g)) {
            trace.action_set_hostname = memo.hostname.clone();
            let sets = memo.sets.iter().map(|&i| &config.action_sets[i]);
            let mut selected = None;
            for set in sets {
                match self.cel.all(&set.route_rule_conditions.predicates, &act) {
                    Ok(None) => {
                        selected = Some(set);
                        break;
                    }
                    Ok(Some(_)) => {}
                    Err(e) => {
                        trace.status = Some(500);
                        trace.decided_by =
                            format!("route predicate of action set {}: {e}", set.name);
                        return trace;
                    }
                }
            }
            if let Some(set) = selected {
                trace.action_set = Some(set.name.clone());
                for a in &set.actions {
                    let (at, verdict) = self.action(a, services, req, &act);
                    trace.actions.push(at);
                    if let Some((status, decided, limit)) = verdict {
                        trace.status = Some(status);
                        trace.decided_by = decided;
                        trace.limit = limit;
                        trace.policies = a.sources.clone();
                        return trace;
                    }
                }
                trace.not_simulated = set
                    .typed
                    .iter()
                    .map(|t| format!("{} {}", t.kind, t.sources.join(" ")))
                    .collect();
            }
        }
        match routed.as_ref().and_then(|r| r.route.as_ref()) {
            Some(_) => {
                trace.allowed = true;
                trace.status = Some(200);
                trace.decided_by = if trace.not_simulated.is_empty() {
                    "every action admitted the request".into()
                } else {
                    "every simulated action admitted the request (typed actions not simulated)"
                        .into()
                };
            }
            None => {
                trace.status = Some(404);
                trace.decided_by = "no HTTPRoute rule of the listener matches".into();
            }
        }
        trace
    }

    /// Run one action. `Some((status, decided_by, limit))` when it ends the request.
    #[allow(clippy::type_complexity)]
    fn action(
        &self,
        a: &shim::Action,
        services: &Map<String, Value>,
        req: &Request,
        act: &Activation,
    ) -> (ActionTrace, Option<(u16, String, Option<String>)>) {
        let mut at = ActionTrace {
            service: a.service.clone(),
            scope: a.scope.clone(),
            sources: a.sources.clone(),
            skipped_by: None,
            auth: None,
            descriptor: vec![],
            limitador: None,
            error: None,
        };
        let fail = |at: &mut ActionTrace, e: String| {
            at.error = Some(e.clone());
            if Self::fails_open(services, &a.service) {
                None
            } else {
                Some((500, format!("{}: {e} (failureMode deny)", a.service), None))
            }
        };
        match self.cel.all(&a.predicates, act) {
            Ok(None) => {}
            Ok(Some(p)) => {
                at.skipped_by = Some(p);
                return (at, None);
            }
            Err(e) => {
                let v = fail(&mut at, e);
                return (at, v);
            }
        }
        if a.service == crate::generate::actions::AUTH_SERVICE {
            let auth = self.auth(&a.scope, req);
            let verdict = (!auth.authenticated).then(|| {
                (
                    401,
                    format!("AuthConfig {}: {}", auth.auth_config, auth.reason),
                    None,
                )
            });
            at.auth = Some(auth);
            return (at, verdict);
        }
        let mut entries = Vec::new();
        let mut domain = a.scope.clone();
        let mut hits = 1u64;
        for cd in &a.conditional_data {
            match self.cel.all(&cd.predicates, act) {
                Ok(None) => {}
                Ok(Some(_)) => continue,
                Err(e) => {
                    let v = fail(&mut at, e);
                    return (at, v);
                }
            }
            for item in &cd.data {
                let kv = &item.expression;
                match self.cel.scalar(&kv.value, act) {
                    Ok(v) if kv.key == "ratelimit.domain" => domain = v,
                    Ok(v) if kv.key == "ratelimit.hits_addend" => {
                        hits = v.parse().unwrap_or(1);
                    }
                    Ok(v) => entries.push(Entry {
                        key: kv.key.clone(),
                        value: v,
                    }),
                    Err(e) => {
                        let v = fail(&mut at, e);
                        return (at, v);
                    }
                }
            }
        }
        at.descriptor = entries;
        if at.descriptor.is_empty() {
            return (at, None);
        }
        let pairs: Vec<(String, String)> = at
            .descriptor
            .iter()
            .map(|e| (e.key.clone(), e.value.clone()))
            .collect();
        let result = match a.service.as_str() {
            crate::generate::actions::RATELIMIT_REPORT_SERVICE => {
                let tokens = req.tokens.unwrap_or(0);
                self.limitador.report(&domain, &pairs, tokens).map(|_| None)
            }
            crate::generate::actions::RATELIMIT_CHECK_SERVICE => {
                self.limitador.check(&domain, &pairs, 0, false).map(Some)
            }
            _ => self.limitador.check(&domain, &pairs, hits, true).map(Some),
        };
        match result {
            Ok(Some(d)) => {
                let verdict = d.limited.then(|| {
                    let name = d.limit.clone().unwrap_or_default();
                    (
                        429,
                        format!("Limitador: limit {name:?} of {domain}"),
                        Some(name),
                    )
                });
                at.limitador = Some(d);
                (at, verdict)
            }
            Ok(None) => (at, None),
            Err(e) => {
                let v = fail(&mut at, e);
                (at, v)
            }
        }
    }

    fn auth(&self, scope: &str, req: &Request) -> AuthTrace {
        let spec = self.auth_configs.get(scope);
        let rules: Vec<(String, bool)> = spec
            .and_then(|s| s.get("authentication"))
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), v.get("anonymous").is_some()))
                    .collect()
            })
            .unwrap_or_default();
        let mut t = AuthTrace {
            auth_config: scope.to_string(),
            authenticated: false,
            rules: vec![],
            reason: String::new(),
        };
        if spec.is_none() {
            t.reason =
                "not among the generated AuthConfigs: Authorino would find none and deny".into();
            return t;
        }
        if req.identity.is_some() {
            t.authenticated = true;
            t.reason = "the identity given stands for a successful authentication (Authorino is not run; authorization rules are not evaluated)".into();
            return t;
        }
        if let Some((name, _)) = rules.iter().find(|(_, anon)| *anon) {
            t.authenticated = true;
            t.rules = vec![name.clone()];
            t.reason = format!("no identity given; rule {name:?} allows anonymous access");
            return t;
        }
        t.rules = rules.into_iter().map(|(n, _)| n).collect();
        t.reason = if t.rules.is_empty() {
            "no identity given".into()
        } else {
            format!(
                "no identity given, and no anonymous rule: {} would have to authenticate the request (pass --identity)",
                t.rules.join(", ")
            )
        };
        t
    }
}
