//! Simulate: what a request gets, before anything reaches a cluster. Evaluates the objects
//! `compute` prints (the pipeline's [`crate::generate::Generated`]), never a second model of them:
//!
//! 1. `routing`: the Gateway and listener that take the request, then the HTTPRoute rule, by the
//!    Gateway API's matching and precedence rules;
//! 2. `shim`: the action set the wasm shim selects in that gateway's configuration (hostname, then
//!    route predicates), and each action's predicates and descriptor entries, with a CEL interpreter
//!    over the shim's variables;
//! 3. the auth action: `authorino` evaluates the AuthConfig its scope names, with the input's
//!    Secrets and what the user states (`--identity`, `--assume`); what it answers is what the
//!    shim does: a denial ends the request with Authorino's status, headers and body, success
//!    stores the dynamic metadata under `auth` for the actions after it;
//! 4. `limits`: Limitador's decision for each rate-limit descriptor, by the `limitador` crate
//!    configured with the generated limits, on a simulated clock shared by a sequence of requests.
//!
//! *Undecided* is a verdict: when an input to a decision cannot be known offline (a rule that needs
//! a live server, Secrets the input does not hold, a token count nobody gave), the request is
//! undecided, with what would decide it. In a sequence, an undecided request may or may not have
//! counted against the limits of the actions after the undecided one (or its token usage is
//! unknown): those limit namespaces are *tainted*, and every later request whose verdict a counter
//! of a tainted namespace decides is undecided too (a counter's window may even have been started
//! by the unknown hit, so the doubt does not end with a window). Counters are never updated by an
//! undecided request.
//!
//! Envoy runs the wasm filter before its router, so a request refused by auth or a limit is refused
//! even when no route rule matches; one that passes and matches no rule gets 404.

mod action;
mod attributes;
pub mod authorino;
pub mod cases;
pub mod cost;
mod grpc;
mod limits;
pub mod request;
mod routing;
pub mod schedule;
mod shim;
mod shimcel;
pub mod text;

use crate::generate::actions::Action;
use crate::generate::object::Object;
use crate::topology::Topology;
use action::{Conditions, Message, Stop, request_data_failure};
use limits::{Decision, LimitSpec, Limitador};
use request::Request;
use routing::Routing;
use serde::Serialize;
use serde_json::{Map, Value};
use shim::{RequestData, WasmConfig};
use shimcel::{Activation, Failure, ShimCel};
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

/// The latest time the simulated clock holds, since the first request: half of what its 64 bits of
/// microseconds hold (about 292,000 years), so that Limitador's longest window (a policy's window
/// is at most 4 × 99999h) added to it still fits. A later time is refused, never saturated.
pub const MAX_TIME: Duration = Duration::from_micros(u64::MAX / 2);

/// [`MAX_TIME`] in words, for messages.
pub const MAX_TIME_TEXT: &str =
    "the simulated clock ends about 292,000 years after the first request";

/// A request sent `count` times, `interval` apart, the first at `start`.
#[derive(Clone, Debug)]
pub struct Planned {
    pub start: Duration,
    pub count: u64,
    pub interval: Duration,
    pub request: Request,
}

impl Planned {
    /// The time of the last request, or `None` when it is beyond [`MAX_TIME`].
    pub fn last(&self) -> Option<Duration> {
        let span = self
            .interval
            .as_micros()
            .checked_mul(u128::from(self.count.saturating_sub(1)))?;
        let last = self.start.as_micros().checked_add(span)?;
        (last <= MAX_TIME.as_micros())
            .then(|| Duration::from_micros(u64::try_from(last).unwrap_or(u64::MAX)))
    }

    /// The time of request `k` (from 0); within [`MAX_TIME`] once [`Planned::last`] is.
    pub fn time_of(&self, k: u64) -> Duration {
        let us = self
            .interval
            .as_micros()
            .saturating_mul(u128::from(k))
            .saturating_add(self.start.as_micros());
        Duration::from_micros(u64::try_from(us).unwrap_or(u64::MAX))
    }
}

/// A sequence of requests, described rather than listed: [`Plan::iter`] gives one request at a
/// time, so that a run of millions holds one.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    pub entries: Vec<Planned>,
}

impl Plan {
    /// The number of requests.
    pub fn len(&self) -> u64 {
        self.entries
            .iter()
            .fold(0u64, |n, e| n.saturating_add(e.count))
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every request, in order, with its time.
    pub fn iter(&self) -> impl Iterator<Item = (Duration, &Request)> + '_ {
        self.entries
            .iter()
            .flat_map(|e| (0..e.count).map(move |k| (e.time_of(k), &e.request)))
    }
}

/// What happened to one request.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Trace {
    /// Milliseconds since the first request of the sequence.
    pub at_ms: u64,
    pub method: String,
    /// The URL Envoy routes: its path normalized ([`request::normalized_path`]).
    pub url: String,
    /// The path as the client sent it, when normalization changed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path_as_sent: Option<String>,
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
    /// `allowed`, `refused` or `undecided`.
    pub verdict: &'static str,
    /// What would decide an undecided request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undecided: Option<String>,
    /// The HTTP status the client would see; `null` when no listener takes the request or the
    /// verdict is undecided.
    pub status: Option<u16>,
    /// For a gRPC request (`content-type: application/grpc…`) refused by the data plane: the gRPC
    /// status Envoy maps the HTTP status to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grpc_status: Option<String>,
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

impl Trace {
    /// The headers of the denial Authorino answered with, when it refused the request.
    pub fn denial_headers(&self) -> Vec<(String, String)> {
        self.actions
            .iter()
            .filter_map(|a| a.auth.as_ref()?.outcome.as_ref())
            .find_map(|o| match o {
                authorino::Outcome::Denied { headers, .. } => Some(headers.clone()),
                _ => None,
            })
            .unwrap_or_default()
    }
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
    /// The second descriptor's entries: the gateway's `requestData` (TelemetryPolicy labels).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub request_data: Vec<Entry>,
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

/// The AuthConfig consulted and what Authorino answered.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthTrace {
    pub auth_config: String,
    pub authenticated: bool,
    /// The authentication rule that authenticated the request, or the rules that all failed.
    pub rules: Vec<String>,
    pub reason: String,
    /// Authorino's answer: `verdict` (`allowed`, `denied`, `undecided`) and its details (the
    /// headers and dynamic metadata of a success; the status, headers, body and rule of a denial).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<authorino::Outcome>,
    /// How each rule went, in evaluation order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<String>,
}

/// What depends only on the request's method, URL and headers.
struct Memo {
    cands: Vec<usize>,
    routed: Option<Routing>,
    hostname: Option<String>,
    /// Indices into the gateway's action sets.
    sets: Vec<usize>,
}

/// The most distinct requests whose routing [`Simulation`] keeps.
const MEMO: usize = 4096;

/// A simulation over one analysed estate; counters persist across [`Simulation::run`] calls.
pub struct Simulation<'t> {
    topology: &'t Topology<'t>,
    /// The topology's paths by listener, built on the first request.
    listener_paths: std::sync::OnceLock<routing::ListenerPaths>,
    /// `namespace/name` of the gateway → its wasm configuration.
    wasm: BTreeMap<String, Carrier>,
    auth_configs: BTreeMap<String, Map<String, Value>>,
    /// Every generated limit, for the property test and the trace.
    pub limits: Vec<LimitSpec>,
    limitador: Limitador,
    /// The shim's CEL: the interpreter of the release's wasm-shim.
    shim_cel: ShimCel,
    /// Routing and action-set candidates per distinct request (identity and time aside): a
    /// sequence repeats one request, and both scans grow with the estate.
    memo: RefCell<std::collections::HashMap<String, Rc<Memo>>>,
    /// The previous request, its memo entry and its CEL variables.
    #[allow(clippy::type_complexity)]
    last: RefCell<Option<(Request, Rc<Memo>, Rc<Activation>)>>,
    /// `namespace/name` of the gateway to use when several have a listener for a request.
    pub gateway: Option<String>,
    authorino: authorino::Authorino,
    secrets: Vec<authorino::Secret>,
    /// The namespace of the AuthConfigs (Authorino's): an API-key rule without `allNamespaces`
    /// looks for Secrets there.
    auth_namespace: String,
    /// Limit namespaces whose counters are unknown from some request on: an undecided request
    /// may have counted against them, or a request's token usage was unknown; why, by namespace.
    tainted: RefCell<BTreeMap<String, String>>,
    /// The number of requests run so far.
    seq: std::cell::Cell<usize>,
    /// The simulated instant of the first request, in seconds since the Unix epoch (JWT expiry).
    pub epoch: i64,
    /// JWKS documents JWT signatures are verified against (`--jwks`).
    pub jwks: std::sync::Arc<Vec<(Option<String>, Value)>>,
    /// The previous request with auth data, that data and its CEL variables.
    #[allow(clippy::type_complexity)]
    last_auth: RefCell<Option<(Request, Map<String, Value>, Rc<Activation>)>>,
    /// The evaluation budgets of each request.
    pub budget: cost::Limits,
}

/// A gateway's wasm configuration, with what the simulation reads of it each request.
struct Carrier {
    config: WasmConfig,
    /// Its `services`, by name.
    services: Map<String, Value>,
    /// Its `requestData`, less the expressions the shim's parser refuses (the shim leaves them
    /// out: wasm-shim v0.12.3 / v0.14.1 src/kuadrant/pipeline/factory.rs).
    request_data: Vec<RequestData>,
}

/// `namespace/name` of gateway `g`.
fn gateway_key(t: &Topology, g: usize) -> String {
    let gw = &t.model.gateways[g];
    format!("{}/{}", gw.meta.namespace, gw.meta.name)
}

/// The wasm configuration of a generated wasm carrier, and its gateway `namespace/name`.
fn wasm_config_of(o: &Object) -> Option<(String, &crate::generate::object::WasmConfig)> {
    let Object::Wasm(w) = o else {
        return None;
    };
    let (ns, gw) = w.gateway()?;
    Some((format!("{ns}/{gw}"), &w.config))
}

/// What [`evaluate`] gives: the value as JSON (`None` when JSON cannot hold it) or the
/// evaluation's error, and what the evaluation cost.
#[doc(hidden)]
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluated {
    pub value: Result<Option<Value>, String>,
    pub cost: u64,
}

/// Evaluate one CEL expression as a simulated request evaluates a `when` predicate or a counter:
/// by the interpreter of `version`'s shim, with the shim's variables of `req` (`auth.identity` its
/// identity, when it has one), instrumented and metered as a request of its own under `limits`.
/// `Err` when it exceeds a budget. The entry point of the `cel_eval` fuzz target (`tests/fuzz`); no
/// command calls it.
#[doc(hidden)]
pub fn evaluate(
    src: &str,
    req: &Request,
    version: crate::model::KuadrantVersion,
    limits: cost::Limits,
) -> Result<Evaluated, cost::Exceeded> {
    thread_local! {
        static SHIMS: [ShimCel; 2] = [
            ShimCel::new(crate::model::KuadrantVersion::V1_4),
            ShimCel::new(crate::model::KuadrantVersion::V1_5),
        ];
    }
    let auth = req.identity.as_ref().map(|id| {
        let mut m = Map::new();
        m.insert("identity".into(), id.clone());
        m
    });
    let value = SHIMS.with(|shims| {
        let cel = match version {
            crate::model::KuadrantVersion::V1_4 => &shims[0],
            crate::model::KuadrantVersion::V1_5 => &shims[1],
        };
        let act = cel.activation(req, auth.as_ref());
        cost::begin_request(limits);
        let value = cel.json(src, &act).map_err(|f| f.message().to_string());
        // Its cache of compiled expressions would grow with every call.
        cel.forget();
        value
    });
    let spent = cost::request_spent();
    match cost::end_request() {
        Some(e) => Err(e),
        None => Ok(Evaluated { value, cost: spent }),
    }
}

/// What the 1.5 shim gets evaluating `string(src)`, a `requestData` entry, in a request it builds
/// before the auth action stored anything (`auth` null): `Some(error)` when that fails whatever the
/// request, `src` reading no variable but `auth`; `None` when it gives a value, when its outcome
/// depends on the request, or when `src` reads the response (such a label is left out of the
/// requests built before it: wasm-shim v0.14.1 legacy_translation.rs).
pub(crate) fn fails_before_auth(src: &str) -> Option<String> {
    thread_local! {
        static SHIM: ShimCel = ShimCel::new(crate::model::KuadrantVersion::V1_5);
    }
    if shim::reads_response(src) {
        return None;
    }
    SHIM.with(|cel| {
        if !cel.reads_only_auth(src) {
            cel.forget();
            return None;
        }
        let req = Request::parse("GET", "http://x/", &[]).ok()?;
        let act = cel.activation(&req, None);
        cost::begin_request(cost::Limits::default());
        let out = cel.entry_value(src, &act);
        let over = cost::end_request();
        cel.forget();
        match (out, over) {
            (Err(Failure::Error(e)), None) => Some(e),
            _ => None,
        }
    })
}

impl<'t> Simulation<'t> {
    /// Read the generated objects. `Err`: a generated limit Limitador cannot read.
    pub fn new(topology: &'t Topology<'t>, objects: &[Object]) -> Result<Simulation<'t>, String> {
        let mut wasm = BTreeMap::new();
        let mut auth_configs = BTreeMap::new();
        let mut auth_namespace = String::new();
        let mut limits = Vec::new();
        let shim_cel = ShimCel::new(topology.model.version);
        for o in objects {
            if let Some((gw, config)) = wasm_config_of(o) {
                let config = WasmConfig::new(config.clone());
                let services = config.services();
                let mut request_data = config.request_data();
                request_data.retain(|d| shim_cel.parses(&d.expression));
                let carrier = Carrier {
                    config,
                    services,
                    request_data,
                };
                wasm.insert(gw, carrier);
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
                    auth_namespace = a.namespace.to_string();
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
            shim_cel,
            memo: Default::default(),
            last: Default::default(),
            gateway: None,
            authorino: authorino::Authorino::new(
                topology
                    .model
                    .authorinos
                    .first()
                    .and_then(|a| a.spec.get("spec"))
                    .map(authorino::Instance::from_spec)
                    .unwrap_or_default(),
            ),
            secrets: topology
                .model
                .secrets
                .iter()
                .map(|s| authorino::Secret::new(&s.meta, &s.spec))
                .collect(),
            auth_namespace,
            tainted: Default::default(),
            seq: Default::default(),
            epoch: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
                .unwrap_or(0),
            jwks: Default::default(),
            last_auth: Default::default(),
            budget: cost::Limits::default(),
        })
    }

    /// Start again from fresh counters at time 0, as a new sequence (a test case).
    pub fn reset(&mut self) {
        self.limitador.reset();
        self.tainted.borrow_mut().clear();
        self.seq.set(0);
    }

    /// Simulate a sequence of requests, in order; their times must not decrease. `Err` when a
    /// request exceeds an evaluation budget.
    pub fn run(&self, requests: &[Timed]) -> Result<Vec<Trace>, cost::Exceeded> {
        requests
            .iter()
            .map(|r| self.request(r.at, &r.request))
            .collect()
    }

    /// Simulate one request at time `at` (since the first; not before the previous request's).
    /// `Err` when it exceeds an evaluation budget (`limits`): its verdict is then unknown.
    pub fn request(&self, at: Duration, req: &Request) -> Result<Trace, cost::Exceeded> {
        cost::begin_request(self.budget);
        let trace = self.one(at, req);
        match cost::end_request() {
            Some(e) => Err(e),
            None => Ok(trace),
        }
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
                let mut memo = self.memo.borrow_mut();
                // A sequence of millions of distinct requests keeps a bounded memo.
                if memo.len() >= MEMO {
                    memo.clear();
                }
                memo.insert(memo_key, Rc::clone(&m));
                m
            }
        };
        let act = Rc::new(self.shim_cel.activation(req, None));
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
            Some(carrier) => shim::candidates(&carrier.config, &req.host),
            None => (None, vec![]),
        };
        Memo {
            cands,
            routed,
            hostname,
            sets,
        }
    }

    fn one(&self, at: Duration, req: &Request) -> Trace {
        self.limitador.clock.set(at);
        let number = self.seq.get() + 1;
        self.seq.set(number);
        let t = self.topology;
        let mut trace = Trace {
            at_ms: u64::try_from(at.as_millis()).unwrap_or(u64::MAX),
            method: req.method.clone(),
            url: req.url(),
            path_as_sent: req.path_as_sent.clone(),
            other_gateways: vec![],
            routing: None,
            action_set: None,
            action_set_hostname: None,
            actions: vec![],
            allowed: false,
            verdict: "refused",
            undecided: None,
            status: None,
            grpc_status: None,
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
        if let Some(carrier) = self.wasm.get(&key(g)) {
            let config = &carrier.config;
            trace.action_set_hostname = memo.hostname.clone();
            let sets = memo.sets.iter().map(|&i| &config.action_sets()[i]);
            let mut selected = None;
            for set in sets {
                match self.shim_cel.all(&set.predicates, &act) {
                    Ok(None) => {
                        selected = Some(set);
                        break;
                    }
                    Ok(Some(_)) => {}
                    // The shim cannot build the request's pipeline: 500 (wasm-shim v0.14.1
                    // src/filter/kuadrant_filter.rs, `on_http_request_headers`).
                    Err(Failure::Error(e)) => {
                        trace.status = Some(500);
                        trace.decided_by =
                            format!("route predicate of action set {}: {e}", set.name.as_str());
                        return finish(trace, req);
                    }
                    Err(Failure::Undecided(e)) => {
                        let reason =
                            format!("route predicate of action set {}: {e}", set.name.as_str());
                        self.taint(&set.actions, number);
                        trace.verdict = "undecided";
                        trace.undecided = Some(reason.clone());
                        trace.decided_by = reason;
                        return trace;
                    }
                }
            }
            if let Some(set) = selected {
                trace.action_set = Some(set.name.as_str().to_string());
                // The shim's variables: `auth` holds what the auth action stored, once it ran.
                let mut act = Rc::clone(&act);
                for (i, a) in set.actions.iter().enumerate() {
                    let (at, verdict, auth) = self.action(a, set.scope_of(a), carrier, req, &act);
                    trace.actions.push(at);
                    if let Some(meta) = auth.filter(|m| !m.is_empty()) {
                        act = self.with_auth(req, meta);
                    }
                    match verdict {
                        Some(Verdict::Ends(status, decided, limit)) => {
                            trace.status = Some(status);
                            trace.decided_by = decided;
                            trace.limit = limit;
                            trace.policies = a.sources.clone();
                            return finish(trace, req);
                        }
                        Some(Verdict::Undecided(reason)) => {
                            self.taint(&set.actions[i + 1..], number);
                            trace.verdict = "undecided";
                            trace.undecided = Some(reason.clone());
                            trace.decided_by = reason;
                            trace.policies = a.sources.clone();
                            return trace;
                        }
                        Some(Verdict::Taints(domain)) => {
                            self.tainted.borrow_mut().entry(domain).or_insert_with(|| {
                                format!("the token usage of request {number} is unknown")
                            });
                        }
                        None => {}
                    }
                }
                trace.not_simulated = set
                    .typed
                    .iter()
                    .map(|t| {
                        let (kind, sources) = shim::typed_action(t);
                        format!("{kind} {}", sources.join(" "))
                    })
                    .collect();
            }
        }
        match routed.as_ref().and_then(|r| r.route.as_ref()) {
            Some(_) => {
                trace.allowed = true;
                trace.verdict = "allowed";
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
                trace.decided_by = "no route rule of the listener matches".into();
            }
        }
        finish(trace, req)
    }

    /// The shim's variables once the auth action stored `meta`: a sequence usually repeats one
    /// request with one identity, so the previous request's are reused when both are the same.
    fn with_auth(&self, req: &Request, meta: Map<String, Value>) -> Rc<Activation> {
        if let Some((r, m, act)) = &*self.last_auth.borrow()
            && r == req
            && *m == meta
        {
            return Rc::clone(act);
        }
        let act = Rc::new(self.shim_cel.activation(req, Some(&meta)));
        *self.last_auth.borrow_mut() = Some((req.clone(), meta, Rc::clone(&act)));
        act
    }

    /// Taint `scope`, the limit namespace of the rate-limit action `a` the current request reached
    /// without a known outcome (`what` it did, after "request N"); an auth action has no counters.
    fn taint_scope(&self, a: &Action, scope: &str, what: &str) {
        if a.service != crate::generate::actions::AUTH_SERVICE {
            let number = self.seq.get();
            self.tainted
                .borrow_mut()
                .entry(scope.to_string())
                .or_insert_with(|| format!("request {number} {what}"));
        }
    }

    /// Taint the limit namespaces of the rate-limit `actions` (those an undecided request did not
    /// reach) with request `number`.
    fn taint(&self, actions: &[Action], number: usize) {
        let mut t = self.tainted.borrow_mut();
        for a in actions {
            if a.service != crate::generate::actions::AUTH_SERVICE {
                t.entry(a.scope.clone())
                    .or_insert_with(|| format!("request {number} was undecided"));
            }
        }
    }

    /// Run one action, with its `scope` in the set: the verdict when it ends or suspends the
    /// request, and the dynamic metadata an auth action stored.
    #[allow(clippy::type_complexity)]
    fn action(
        &self,
        a: &Action,
        scope: &str,
        carrier: &Carrier,
        req: &Request,
        act: &Activation,
    ) -> (ActionTrace, Option<Verdict>, Option<Map<String, Value>>) {
        let mut at = ActionTrace {
            service: a.service.to_string(),
            scope: scope.to_string(),
            sources: a.sources.clone(),
            skipped_by: None,
            auth: None,
            descriptor: vec![],
            request_data: vec![],
            limitador: None,
            error: None,
        };
        let services = &carrier.services;
        let fail = |at: &mut ActionTrace, e: Failure| {
            let e = match e {
                Failure::Error(e) => e,
                // Whether the action counted this request is unknown too.
                Failure::Undecided(e) => {
                    self.taint_scope(a, scope, "was undecided");
                    at.error = Some(e.clone());
                    return Some(Verdict::Undecided(format!("{}: {e}", a.service)));
                }
            };
            at.error = Some(e.clone());
            if Self::fails_open(services, a.service) {
                None
            } else {
                Some(Verdict::Ends(
                    500,
                    format!("{}: {e} (failureMode deny)", a.service),
                    None,
                ))
            }
        };
        // The 1.5 shim evaluates `requestBodyJSON` once the request body has arrived (wasm-shim
        // v0.14.1 src/data/cel.rs); a simulated request has none, so what such an action decides
        // is unknown, and so are its counters from then on. The 1.4 shim (v0.12.3) does not define
        // the function: evaluating it is an error, as below.
        let v15 = self.topology.model.version == crate::model::KuadrantVersion::V1_5;
        let mut texts = (a.predicates.iter()).chain(
            (a.conditional_data.iter())
                .flat_map(|cd| cd.predicates.iter().chain(cd.data.iter().map(|(_, v)| v))),
        );
        let body = if v15 {
            texts.find(|t| self.shim_cel.reads_request_body(t))
        } else {
            None
        };
        if let Some(p) = body {
            self.taint_scope(a, scope, "read the request body");
            let reason = format!(
                "{}: {p} reads the request body (requestBodyJSON), which a simulated request does not carry",
                a.service
            );
            at.error = Some(reason.clone());
            return (at, Some(Verdict::Undecided(reason)), None);
        }
        let mut conditions = Conditions::new();
        let held = if v15 {
            self.typed_predicate(a, act, &mut conditions)
        } else {
            self.shim_cel.all(&a.predicates, act)
        };
        match held {
            Ok(None) => {}
            Ok(Some(p)) => {
                at.skipped_by = Some(p);
                return (at, None, None);
            }
            Err(e) => {
                let v = fail(&mut at, e);
                return (at, v, None);
            }
        }
        if a.service == crate::generate::actions::AUTH_SERVICE {
            // The 1.5 auth message carries the `requestData` values that do not name `auth.` or
            // read the response, each `string(expression)` (wasm-shim v0.14.1
            // legacy_translation.rs `build_auth_message_builder`, `build_request_data_value_cel`):
            // one that fails fails the action. The 1.4 shim sends the expression's text instead of
            // a value it could not compute.
            if v15 {
                for d in (carrier.request_data.iter()).filter(|d| d.evaluated_for_auth()) {
                    if let Err(e) = self.shim_cel.entry_value(&d.expression, act) {
                        let v = fail(&mut at, request_data_failure(d, e));
                        return (at, v, None);
                    }
                }
            }
            let (auth, verdict, meta) = self.auth(scope, req);
            at.auth = Some(auth);
            return (at, verdict, meta);
        }
        let message = if v15 {
            self.message_1_5(a, scope, carrier, req, act, &mut conditions)
        } else {
            self.message_1_4(a, scope, carrier, req, act)
        };
        let Message {
            entries,
            domain,
            hits,
            request_data,
        } = match message {
            Ok(m) => m,
            Err(Stop::Failed(e)) => {
                let v = fail(&mut at, e);
                return (at, v, None);
            }
            Err(Stop::NotReported(why)) => {
                at.error = Some(why);
                return (at, None, None);
            }
            Err(Stop::Unknown(why)) => {
                at.error = Some(why);
                return (at, Some(Verdict::Taints(scope.to_string())), None);
            }
        };
        at.descriptor = entries;
        at.request_data = request_data;
        if at.descriptor.is_empty() {
            return (at, None, None);
        }
        if let Some(why) = self.tainted.borrow().get(&domain) {
            let reason = format!(
                "{why}: the counters of {domain}, which decide this request, are unknown from then on"
            );
            return (at, Some(Verdict::Undecided(reason)), None);
        }
        let pairs: Vec<(String, String)> = at
            .descriptor
            .iter()
            .map(|e| (e.key.clone(), e.value.clone()))
            .collect();
        // The `requestData` descriptor, second in the request: the operator's limits read the first
        // (`descriptors[0]`), so it decides nothing, but Limitador is given what the shim sends.
        let extra: Vec<(String, String)> = (at.request_data.iter())
            .map(|e| (e.key.clone(), e.value.clone()))
            .collect();
        // Limitador's gRPC services read a `hits_addend` of 0 as 1, proto3's default standing for
        // "not set" (limitador-server v2.1.0–v2.4.0 src/envoy_rls/server.rs `should_rate_limit`,
        // kuadrant_service.rs `report`), and `CheckRateLimit` asks whether one more hit fits,
        // whatever the request says (`is_rate_limited(&namespace, &ctx, 1)`): the token check's
        // `hits_addend` 0 does not make a counter at its maximum admit another request.
        let hits = hits.max(1);
        let result = match a.service {
            crate::generate::actions::RATELIMIT_REPORT_SERVICE => (self.limitador)
                .report(&domain, &pairs, &extra, hits)
                .map(|_| None),
            crate::generate::actions::RATELIMIT_CHECK_SERVICE => (self.limitador)
                .check(&domain, &pairs, &extra, 1, false)
                .map(Some),
            _ => (self.limitador)
                .check(&domain, &pairs, &extra, hits, true)
                .map(Some),
        };
        match result {
            Ok(Some(d)) => {
                let verdict = d.limited.then(|| {
                    let name = d.limit.clone().unwrap_or_default();
                    Verdict::Ends(429, limited_text(&name, &domain, a, &pairs), Some(name))
                });
                at.limitador = Some(d);
                (at, verdict, None)
            }
            Ok(None) => (at, None, None),
            Err(e) => {
                let v = fail(&mut at, Failure::Error(e));
                (at, v, None)
            }
        }
    }

    /// The auth action: Authorino's answer for the AuthConfig `scope` names.
    fn auth(
        &self,
        scope: &str,
        req: &Request,
    ) -> (AuthTrace, Option<Verdict>, Option<Map<String, Value>>) {
        let mut t = AuthTrace {
            auth_config: scope.to_string(),
            authenticated: false,
            rules: vec![],
            reason: String::new(),
            outcome: None,
            steps: vec![],
        };
        let Some(spec) = self.auth_configs.get(scope) else {
            // authorino pkg/service/auth.go: no AuthConfig for the host, NOT_FOUND.
            t.reason = "not among the generated AuthConfigs: Authorino answers NOT_FOUND (\"Service not found\")".into();
            let v = Verdict::Ends(
                404,
                format!("AuthConfig {}: {}", short(scope), t.reason),
                None,
            );
            return (t, Some(v), None);
        };
        let headers = req.joined_headers();
        let authority = req.authority();
        let full_path = req.full_path();
        let check = authorino::CheckRequest {
            method: &req.method,
            scheme: &req.scheme,
            host: &authority,
            path: &full_path,
            url_path: &req.path,
            query: &req.query,
            headers: &headers,
            source: req.source.as_ref().map(|(a, p)| (a.as_str(), *p)),
            destination_port: req.port,
            scope,
            now: self
                .epoch
                .saturating_add(i64::try_from(self.limitador.clock_secs()).unwrap_or(i64::MAX)),
            grpc_attributes: self.topology.model.version == crate::model::KuadrantVersion::V1_5,
        };
        let stated = authorino::Statements {
            identity: req.identity.clone(),
            assume: req.assume.clone(),
            jwks: std::sync::Arc::clone(&self.jwks),
        };
        let (outcome, steps) = self.authorino.evaluate(
            scope,
            spec,
            &check,
            &self.secrets,
            &self.auth_namespace,
            &stated,
        );
        t.steps = steps;
        let (verdict, meta) = match &outcome {
            authorino::Outcome::Allowed {
                identity_rule,
                metadata,
                ..
            } => {
                t.authenticated = true;
                t.rules = identity_rule.iter().cloned().collect();
                t.reason = match identity_rule {
                    Some(r) => format!("authenticated by {r:?}, authorized"),
                    None => "allowed".into(),
                };
                (None, Some(metadata.clone()))
            }
            authorino::Outcome::Denied {
                status,
                reason,
                phase,
                rule,
                ..
            } => {
                t.authenticated = phase == "authorization";
                if phase == "authentication" {
                    t.rules = spec
                        .get("authentication")
                        .and_then(Value::as_object)
                        .map(|m| m.keys().cloned().collect())
                        .unwrap_or_default();
                } else {
                    t.rules = rule.iter().cloned().collect();
                }
                t.reason = format!("{status} {reason}");
                let by = rule
                    .as_ref()
                    .map(|r| format!(" ({phase} rule {r:?})"))
                    .unwrap_or_default();
                let v = Verdict::Ends(
                    *status,
                    format!("AuthConfig {}: {status} {reason}{by}", short(scope)),
                    None,
                );
                (Some(v), None)
            }
            authorino::Outcome::Undecided { reason } => {
                t.reason = format!("undecided: {reason}");
                let v = Verdict::Undecided(format!("AuthConfig {}: {reason}", short(scope)));
                (Some(v), None)
            }
        };
        t.outcome = Some(outcome);
        (t, verdict, meta)
    }
}

/// Why Limitador refused: the limit and the policy it is written in (`limit "bob-limit" of
/// RateLimitPolicy toystore/toystore`), found among the action's sources as the one whose limit
/// identifier (`limit.<name>__<hash of ns/name/limit>`) the descriptor carries; else the Limitador
/// namespace the limit lives in (the route, not a policy).
fn limited_text(limit: &str, domain: &str, a: &Action, descriptor: &[(String, String)]) -> String {
    let owner = a.sources.iter().find_map(|src| {
        let (kind, key) = src.split_once(':')?;
        let (ns, name) = key.split_once('/')?;
        let (kind, token) = match kind {
            "ratelimitpolicy.kuadrant.io" => ("RateLimitPolicy", false),
            "tokenratelimitpolicy.kuadrant.io" => ("TokenRateLimitPolicy", true),
            _ => return None,
        };
        let id = crate::generate::names::limit_identifier(token, ns, name, limit);
        descriptor
            .iter()
            .any(|(k, _)| *k == id)
            .then(|| format!("{kind} {key}"))
    });
    match owner {
        Some(policy) => format!("Limitador: limit {limit:?} of {policy}"),
        None => format!("Limitador: limit {limit:?} (Limitador namespace {domain})"),
    }
}
/// How an action ends or suspends a request.
enum Verdict {
    /// The request ends here: status, what decided it, the limit that refused it.
    Ends(u16, String, Option<String>),
    /// Undecided, with what would decide it.
    Undecided(String),
    /// The request goes on, but the counters of this limit namespace grew by an unknown amount.
    Taints(String),
}

/// The first 12 characters of a hash, as the trace shows names.
fn short(h: &str) -> &str {
    if crate::model::is_sha256_hex(h) {
        &h[..12]
    } else {
        h
    }
}

/// The gRPC status of a refused gRPC request.
fn finish(mut trace: Trace, req: &Request) -> Trace {
    if let Some(s) = trace.status
        && s != 200
        && req.is_grpc()
    {
        trace.grpc_status = Some(grpc::from_http(s).to_string());
    }
    trace
}
