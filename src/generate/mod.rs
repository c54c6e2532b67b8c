//! Generate: the data-plane objects the operator would apply for the emulated release (v1.4.6 / v1.5.2),
//! computed from the topology and the effective policies of every path.
//!
//! Owns action sets (names, hostnames, predicates, order), wasm actions (placement around auth, merging,
//! CEL validation), the wasm carriers (`WasmPlugin` on 1.4, `EnvoyFilter` on 1.5, `EnvoyExtensionPolicy`
//! on Envoy Gateway), the cluster `EnvoyFilter`s / `EnvoyPatchPolicy`s, the Limitador CR limits and the
//! AuthConfigs. Must not read files or format text. It also reports what the data plane will refuse
//! or ignore in what it generates, faithfully, anyway: CEL the wasm-shim cannot parse (`shim`,
//! PCTL3008) and rate windows Limitador gets truncated (PCTL3009); and the objects it produced per
//! gateway, which the status updaters wait for.
//!
//! Objects are [`object::Object`]s: small ones are trees; action sets and AuthConfigs keep their
//! repeated parts typed and shared (see `object`). The per-path pass runs on contiguous runs of whole
//! gateways in parallel and is merged in path order, so the result does not depend on the number of
//! cores.
//!
//! Key order, object order, the canonical orders chosen where the operator is not deterministic and
//! the runtime values it cannot know: `docs/output-conventions.md`. What each object holds and the
//! upstream files it follows: `docs/semantics/generated-objects.md`.

pub(crate) mod actions;
pub(crate) mod authconfig;
pub(crate) mod cluster;
pub(crate) mod dns;
pub(crate) mod hostnames;
pub(crate) mod names;
pub(crate) mod object;
pub(crate) mod predicates;
pub(crate) mod shim;
pub(crate) mod threat;
pub(crate) mod tls;

use crate::diag::{Code, Diagnostic};
use crate::model::{KuadrantVersion, Model, Obj, PolicyKind, RuleMatches};
use crate::resolve::{CelIssue, Component, Components, PathEffective, Provider, RuleValue};
use crate::topology::{Path, Topology};
use actions::{
    AUTH_SERVICE, Action, RATELIMIT_CHECK_SERVICE, RATELIMIT_REPORT_SERVICE, RATELIMIT_SERVICE,
};
use cluster::Endpoint;
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use object::{ActionSet, LimitadorLimit, Object, WasmCarrier, WasmConfig};
use predicates::SortKey;
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

pub const DEFAULT_KUADRANT_NAMESPACE: &str = "kuadrant-system";
pub const ISTIO_CONTROLLER: &str = "istio.io/gateway-controller";
pub const ENVOY_GATEWAY_CONTROLLER: &str = "gateway.envoyproxy.io/gatewayclass-controller";
/// `RELATED_IMAGE_WASMSHIM` of operator release v1.4.6.
pub const WASM_IMAGE_1_4: &str = "quay.io/kuadrant/wasm-shim:v0.12.3";
/// `RELATED_IMAGE_WASMSHIM` of operator release v1.5.2 (used by Envoy Gateway only).
pub const WASM_IMAGE_1_5: &str = "quay.io/kuadrant/wasm-shim:v0.14.1";
/// Placeholder for the sha256 of the `.wasm` the 1.5 operator serves (computed at run time there).
pub const WASM_SHA256_PLACEHOLDER: &str = "";
const PROTECTED_REGISTRY: &str = "registry.redhat.io";
const PULL_SECRET: &str = "wasm-plugin-pull-secret";
const WASM_SERVER_PORT: i64 = 8082;

/// Which object families to produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    /// Istio wasm carrier: `WasmPlugin` (1.4) or `EnvoyFilter kuadrant-<gw>` (1.5).
    Wasm,
    /// Istio cluster `EnvoyFilter`s (rate limit, auth, tracing).
    EnvoyFilter,
    Limitador,
    AuthConfig,
    /// Envoy Gateway `EnvoyExtensionPolicy` and `EnvoyPatchPolicy`s.
    EnvoyGateway,
    /// cert-manager `Certificate`s of TLSPolicies.
    Certificate,
    /// `DNSRecord`s of DNSPolicies.
    DnsRecord,
    /// What extension policies' controllers create (a PlanPolicy's `RateLimitPolicy`).
    Extension,
}

impl Family {
    /// Every family, in the order `--only` lists them.
    pub const ALL: [Family; 8] = [
        Family::Wasm,
        Family::EnvoyFilter,
        Family::Limitador,
        Family::AuthConfig,
        Family::EnvoyGateway,
        Family::Certificate,
        Family::DnsRecord,
        Family::Extension,
    ];

    /// The name `--only` takes.
    pub fn name(self) -> &'static str {
        match self {
            Family::Wasm => "wasm",
            Family::EnvoyFilter => "envoyfilter",
            Family::Limitador => "limitador",
            Family::AuthConfig => "authconfig",
            Family::EnvoyGateway => "envoygateway",
            Family::Certificate => "certificate",
            Family::DnsRecord => "dnsrecord",
            Family::Extension => "extension",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Family::ALL.into_iter().find(|f| f.name() == s)
    }

    /// Every name, `sep`-separated.
    pub fn names(sep: &str) -> String {
        Family::ALL.map(Family::name).join(sep)
    }
}

/// The objects the operator generates for valid DNSPolicies and TLSPolicies (`Certificate`s, then
/// `DNSRecord`s), then those extension controllers create (a PlanPolicy's RateLimitPolicy), with the `only` / `gateway` filters of `opts`. `accepted[i]` says whether policy `i`
/// of the model is predicted `Accepted` (the operator's validators decide which policies get objects).
pub(crate) fn policy_objects(
    m: &Model,
    accepted: &[bool],
    opts: &GenerateOptions,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Object> {
    let want = |f: Family| opts.only.as_ref().is_none_or(|o| o.contains(&f));
    let mut out = Vec::new();
    if want(Family::Certificate) {
        out.extend(tls::certificates(m, accepted, opts.gateway.as_ref(), diags));
    }
    if want(Family::DnsRecord) {
        out.extend(dns::dns_records(m, accepted, opts.gateway.as_ref(), diags));
    }
    // Not per gateway: left out when the output is restricted to one.
    if want(Family::Extension) && opts.gateway.is_none() {
        out.extend(
            m.policies
                .iter()
                .filter(|p| matches!(p.body, crate::model::PolicyBody::RateLimit(_)))
                .filter_map(|p| crate::model::extension::derived_object(m, p))
                .chain(m.derived_objects.iter().cloned())
                .map(|v| Object::Tree(sort_keys(v))),
        );
    }
    out
}

/// Settings for one generation run.
#[derive(Clone, Debug)]
/// The emulated release is not here: it is the model's (`Model::version`, chosen at load).
pub struct GenerateOptions {
    /// Used when the input has no Kuadrant object.
    pub kuadrant_namespace: String,
    /// `RELATED_IMAGE_WASMSHIM`; `None` means the release default of `version`.
    pub wasm_image: Option<String>,
    /// sha256 of the served wasm module (1.5 `EnvoyFilter`).
    pub wasm_sha256: String,
    /// `OPERATOR_NAMESPACE` (1.5 wasm server URL).
    pub operator_namespace: String,
    /// Istio class controller names (the default is appended like the operator does).
    pub istio_controllers: Vec<String>,
    pub envoy_gateway_controllers: Vec<String>,
    /// `None`: every family.
    pub only: Option<BTreeSet<Family>>,
    /// Restrict to paths through this gateway `(namespace, name)`.
    pub gateway: Option<(String, String)>,
}

impl Default for GenerateOptions {
    fn default() -> Self {
        GenerateOptions {
            kuadrant_namespace: DEFAULT_KUADRANT_NAMESPACE.into(),
            wasm_image: None,
            wasm_sha256: WASM_SHA256_PLACEHOLDER.into(),
            operator_namespace: DEFAULT_KUADRANT_NAMESPACE.into(),
            istio_controllers: controller_names(&[], ISTIO_CONTROLLER),
            envoy_gateway_controllers: controller_names(&[], ENVOY_GATEWAY_CONTROLLER),
            only: None,
            gateway: None,
        }
    }
}

/// The operator's controller-name list: items trimmed; a list equal to `[default]` stays as is,
/// otherwise the default is appended.
pub fn controller_names(user: &[String], default: &str) -> Vec<String> {
    let items: Vec<String> = user.iter().map(|s| s.trim().to_string()).collect();
    if items.is_empty() || items == [default] {
        return vec![default.to_string()];
    }
    let mut v = items;
    v.push(default.to_string());
    v
}

/// What a run produced.
#[derive(Debug, Default)]
pub struct Generated {
    /// The objects, in the documented order, keys sorted.
    pub objects: Vec<Object>,
    /// CEL validation failures in PathID order, then action order, over every path: `gateway` and
    /// `only` filter the objects, not these (status needs the whole estate's).
    pub cel_issues: Vec<CelIssue>,
    /// The data-plane objects produced per gateway, whatever `only` and `gateway` keep.
    pub components: Components,
    pub diagnostics: Vec<Diagnostic>,
}

/// Runtime context read from the Kuadrant, Limitador and Authorino objects.
struct Runtime<'m> {
    namespace: String,
    kuadrant: Option<&'m Obj<Value>>,
    limitador: Endpoint,
    limitador_obj: Option<&'m Obj<Value>>,
    authorino: Endpoint,
    mtls_limitador: bool,
    mtls_authorino: bool,
    tracing: Option<(String, bool)>,
    observability: Option<Value>,
}

fn ptr<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    v.pointer(path).filter(|x| !x.is_null())
}

fn runtime<'m>(m: &'m Model, opts: &GenerateOptions, diags: &mut Vec<Diagnostic>) -> Runtime<'m> {
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
    let tracing = ptr(&spec, "/observability/tracing/defaultEndpoint")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(|e| {
            let insecure = ptr(&spec, "/observability/tracing/insecure")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            (e.to_string(), insecure)
        });
    let observability = ptr(&spec, "/observability/dataPlane").map(|dp| {
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
        if tracing.is_some() {
            o.insert("tracing".into(), json!({"service": "tracing-service"}));
        }
        Value::Object(o)
    });
    let limitador_obj = m
        .limitadors
        .iter()
        .find(|l| l.meta.name == "limitador" && l.meta.namespace == namespace);
    let limitador = match limitador_obj {
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
    };
    let authorino = match m
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
    };
    Runtime {
        namespace,
        kuadrant,
        limitador,
        limitador_obj,
        authorino,
        mtls_limitador: mtls_for("limitador"),
        mtls_authorino: mtls_for("authorino"),
        tracing,
        observability,
    }
}

/// One action set before sorting.
struct ActionSetEntry<'a> {
    key: SortKey<'a>,
    value: ActionSet,
}

/// Per-gateway accumulation.
#[derive(Default)]
struct GatewayOut<'a> {
    action_sets: Vec<ActionSetEntry<'a>>,
    rate_limit: bool,
    auth: bool,
    any_policy: bool,
}

/// A rule's matches: their predicates and sort keys.
type RuleMatchList<'a> = Vec<(Arc<[String]>, SortKey<'a>)>;

/// The matches of a rule as the operator iterates them: their predicates and sort keys (with an
/// empty hostname, set per action set). They depend only on the route and the rule.
fn rule_matches<'a>(t: &Topology<'a>, p: &Path, route: &'a str) -> RuleMatchList<'a> {
    let r = &t.model.routes[p.route];
    let rule = &r.spec.rules[p.rule];
    let created = r.meta.creation_timestamp.as_deref();
    match &rule.matches {
        RuleMatches::Http(ms) => {
            let defaulted;
            let ms = if ms.is_empty() {
                if t.version() == KuadrantVersion::V1_4 {
                    return vec![];
                }
                defaulted = vec![crate::model::HttpMatch::default()];
                &defaulted
            } else {
                ms
            };
            ms.iter()
                .map(|m| {
                    (
                        predicates::http(m).into(),
                        SortKey::from_http("", m, created, route),
                    )
                })
                .collect()
        }
        RuleMatches::Grpc(ms) => {
            let defaulted;
            let ms = if ms.is_empty() {
                defaulted = vec![crate::model::GrpcMatch::default()];
                &defaulted
            } else {
                ms
            };
            ms.iter()
                .map(|m| {
                    (
                        predicates::grpc(m).into(),
                        SortKey::from_grpc("", m, created, route),
                    )
                })
                .collect()
        }
    }
}

fn path_hostnames<'a>(t: &Topology<'a>, p: &Path) -> Vec<&'a str> {
    let m: &'a Model = t.model;
    let g = &m.gateways[p.gateway];
    let l = &g.spec.listeners[p.listener];
    let r = &m.routes[p.route];
    let hs: Vec<&str> = r.spec.hostnames.iter().map(|h| h.as_str()).collect();
    hostnames::select(l.hostname.as_ref().map(|h| h.as_str()), &hs)
}

fn cel_kind(service: &str) -> PolicyKind {
    match service {
        AUTH_SERVICE => PolicyKind::Auth,
        RATELIMIT_CHECK_SERVICE | RATELIMIT_REPORT_SERVICE => PolicyKind::TokenRateLimit,
        _ => PolicyKind::RateLimit,
    }
}

/// The merged, validated actions of a path; they depend only on its route and effective policies
/// (the auth action's scope, the path's AuthConfig name, is left empty and filled in per path).
struct RouteActions {
    list: Arc<[Action]>,
    /// CEL failures (kind, message), reported for every path.
    failures: Vec<(PolicyKind, String)>,
}

/// Identity of a shared effective policy (0 for none): paths with the same policy list share one.
fn identity(e: Option<&Arc<crate::resolve::Effective>>) -> usize {
    e.map_or(0, |e| Arc::as_ptr(e) as usize)
}

/// Validate merged actions (`docs/semantics/generated-objects.md`, "Wasm actions"): the first failing predicate drops the action.
fn validate_actions(eff: &PathEffective, list: Vec<Action>, memo: &mut CelMemo) -> RouteActions {
    let auth = eff.auth.is_some();
    let mut kept = Vec::new();
    let mut failures = Vec::new();
    for a in list {
        let env = crate::cel::CelEnv {
            auth,
            ratelimit: a.service != AUTH_SERVICE,
        };
        let preds = a.predicates.iter().chain(
            a.conditional_data
                .iter()
                .flat_map(|cd| cd.predicates.iter()),
        );
        let mut failed = None;
        for p in preds {
            if let Err(e) = memo.validate(p, env) {
                failed = Some(e.clone());
                break;
            }
        }
        match failed {
            Some(message) => failures.push((cel_kind(a.service), message)),
            None => kept.push(a),
        }
    }
    RouteActions {
        list: kept.into(),
        failures,
    }
}

/// CEL validation results by expression and environment: the same predicates recur on every path
/// of a route, and parsing is the expensive part.
#[derive(Default)]
struct CelMemo(HashMap<(String, bool, bool), Result<(), String>>);

impl CelMemo {
    fn validate(&mut self, expr: &str, env: crate::cel::CelEnv) -> &Result<(), String> {
        let key = (expr.to_string(), env.auth, env.ratelimit);
        self.0
            .entry(key)
            .or_insert_with(|| crate::cel::validate(expr, env))
    }
}

fn owner_ref(api_version: &str, kind: &str, name: &str, uid: &str) -> Value {
    json!({"apiVersion": api_version, "kind": kind, "name": name, "uid": uid,
           "controller": true, "blockOwnerDeletion": true})
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

/// Sort object keys at every level (the one implementation: generated objects, diff and status use it).
pub fn sort_keys(mut v: Value) -> Value {
    sort_keys_in_place(&mut v);
    v
}

/// [`sort_keys`] without rebuilding the tree; maps already in order are only checked.
fn sort_keys_in_place(v: &mut Value) {
    match v {
        Value::Object(o) => {
            if !o.keys().is_sorted() {
                o.sort_keys();
            }
            o.values_mut().for_each(sort_keys_in_place);
        }
        Value::Array(a) => a.iter_mut().for_each(sort_keys_in_place),
        _ => {}
    }
}

/// The wasm plugin configuration (legacy format) of one gateway.
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

/// What the per-path pass reads.
struct PassContext<'a> {
    t: &'a Topology<'a>,
    rt: &'a Runtime<'a>,
    /// `ns/name` of every route (the sort keys borrow them).
    route_keys: &'a [String],
    provider: &'a (dyn Fn(usize) -> Option<Provider> + Sync),
    /// Per gateway: whether `opts.gateway` keeps its objects.
    selected: &'a [bool],
}

/// What the per-path pass produces for a run of paths.
#[derive(Default)]
struct PathsOut<'a> {
    gateways: BTreeMap<usize, GatewayOut<'a>>,
    /// Limitador index: "<routeNs>/<routeName>/<identifier>" → entries.
    limits: BTreeMap<String, Vec<LimitadorLimit>>,
    /// AuthConfigs (names unique: one per PathID).
    auth_configs: Vec<object::AuthConfig>,
    /// In PathID order.
    cel_issues: Vec<CelIssue>,
    /// What the wasm-shim of each gateway parses: the route rules with action sets there, and the
    /// effective policies whose actions survived validation (see `shim`).
    shim_rules: BTreeSet<(usize, usize, usize)>,
    shim_actions: Vec<ShimActions<'a>>,
}

/// The effective policies of a path whose merged actions reach a gateway's wasm configuration.
struct ShimActions<'a> {
    gateway: usize,
    effective: &'a PathEffective,
    /// Which actions survived validation: rate limit, auth, token rate limit.
    kept: [bool; 3],
}

/// Split the paths into at most `n` contiguous runs of about the same length, cut only where the
/// gateway changes.
fn gateway_runs(paths: &[Path], n: usize) -> Vec<std::ops::Range<usize>> {
    let mut runs = Vec::new();
    let mut start = 0;
    for k in 1..n {
        let mut cut = (paths.len() * k / n).max(start + 1);
        while cut < paths.len() && paths[cut].gateway == paths[cut - 1].gateway {
            cut += 1;
        }
        if cut >= paths.len() {
            break;
        }
        runs.push(start..cut);
        start = cut;
    }
    runs.push(start..paths.len());
    runs
}

/// Limits, AuthConfigs, cluster needs and action sets of a run of paths (`eff[i]` belongs to
/// `paths[i]`).
fn path_pass<'a>(
    ctx: &PassContext<'a>,
    paths: &'a [Path],
    eff: &'a [PathEffective],
) -> PathsOut<'a> {
    let (t, rt) = (ctx.t, ctx.rt);
    let m = t.model;
    let v15 = m.version == KuadrantVersion::V1_5;
    let mut out = PathsOut::default();
    let mut cel_memo = CelMemo::default();
    // Encoded AuthConfig specs by effective AuthPolicy.
    let mut auth_specs: HashMap<usize, Arc<Map<String, Value>>> = HashMap::new();
    // What depends only on a path's route and effective policies, computed once: (route, effective
    // RateLimitPolicy / TokenRateLimitPolicy) whose limits are indexed; the merged, validated actions.
    let mut limits_done: HashSet<(usize, usize)> = HashSet::new();
    let mut route_actions: HashMap<(usize, [usize; 3]), RouteActions> = HashMap::new();
    let no_scope: Arc<str> = Arc::from("");
    let namespace: Arc<str> = Arc::from(rt.namespace.as_str());
    let mut annotations: HashMap<(usize, usize), Arc<(String, String)>> = HashMap::new();
    // Each hostname's text, shared by its action sets.
    let mut host_texts: HashMap<&'a str, Arc<str>> = HashMap::new();
    // Each rule's matches.
    let mut rule_matches_memo: HashMap<(usize, usize), RuleMatchList<'a>> = HashMap::new();
    // Gateway and effective policies whose actions were recorded for the shim check.
    let mut shim_seen: HashSet<(usize, [usize; 3])> = HashSet::new();

    for (p, pe) in paths.iter().zip(eff) {
        // A path through another gateway than `--gateway` gives no object, but still its CEL issues
        // and the components of its gateway: the status of every policy needs the whole estate's.
        let selected = ctx.selected[p.gateway];
        if pe.rate_limit.is_none() && pe.auth.is_none() && pe.token_rate_limit.is_none() {
            continue;
        }
        let r = &m.routes[p.route];
        let route_scope = &ctx.route_keys[p.route];
        let hosts = path_hostnames(t, p);
        let valid = !hosts.is_empty();
        let counts = valid || !v15;

        // Limitador limits: every path, whatever the class (1.5: valid paths only).
        if counts && selected {
            for (eff_kind, token) in [(&pe.rate_limit, false), (&pe.token_rate_limit, true)] {
                let Some(e) = eff_kind else { continue };
                // Same route and policies: the same keys and entries again.
                if !limits_done.insert((p.route, identity(Some(e)))) {
                    continue;
                }
                for (name, limit, source) in e.limits() {
                    let sp = &m.policies[source];
                    let id =
                        names::limit_identifier(token, &sp.meta.namespace, &sp.meta.name, name);
                    let key = format!("{route_scope}/{id}");
                    // The entries depend only on the key's parts (route, source policy, limit name),
                    // so the other paths of the route would write the same value again.
                    if out.limits.contains_key(&key) {
                        continue;
                    }
                    let namespace: Arc<str> = Arc::from(route_scope.as_str());
                    let entries: Vec<LimitadorLimit> = limit
                        .rates
                        .iter()
                        .map(|rate| LimitadorLimit {
                            conditions: vec![format!("descriptors[0][\"{id}\"] == \"1\"")],
                            max_value: rate.max_value(),
                            name: name.to_string(),
                            namespace: namespace.clone(),
                            seconds: rate.seconds(),
                            variables: limit
                                .counters
                                .iter()
                                .map(|c| format!("descriptors[0][\"{}\"]", c.value.trim()))
                                .collect(),
                        })
                        .collect();
                    out.limits.insert(key, entries);
                }
            }
        }

        // The AuthConfig name, also the auth action's scope: valid paths with an AuthPolicy.
        let auth_name = (valid && pe.auth.is_some()).then(|| names::auth_config_name(&p.id));

        // AuthConfigs: valid paths with an effective AuthPolicy.
        if let (Some(name), Some(a), true) = (&auth_name, &pe.auth, selected) {
            // The annotation names the route rule: the same for every path through it.
            let annotation = annotations
                .entry((p.route, p.rule))
                .or_insert_with(|| {
                    let route_locator = crate::model::Locator::object(
                        r.spec.kind.kind(),
                        crate::model::GATEWAY_API_GROUP,
                        &r.meta.namespace,
                        &r.meta.name,
                    );
                    Arc::new((
                        format!("{}.gateway.networking.k8s.io", r.spec.kind.rule_kind()),
                        format!("{route_locator}#{}", p.rule_name),
                    ))
                })
                .clone();
            // The spec depends on the path only through `hosts`: encode it once per effective
            // AuthPolicy (paths with the same policy list share one) and share it.
            let base = auth_specs
                .entry(identity(Some(a)))
                .or_insert_with(|| {
                    let rules = a.rules.values().filter_map(|r| match &r.value {
                        RuleValue::Auth(v) => Some((r.key.as_str(), v)),
                        _ => None,
                    });
                    let sections = authconfig::AuthSections::from_rules(rules);
                    let mut spec = match authconfig::spec(name, &sections) {
                        Value::Object(m) => m,
                        _ => Map::new(),
                    };
                    spec.shift_remove("hosts");
                    sort_map(&mut spec);
                    Arc::new(spec)
                })
                .clone();
            // The data extension policies register for the path's gateway and route.
            let g = &m.gateways[p.gateway];
            let data = crate::model::extension::plan_data(
                m,
                m.version,
                (&g.meta.namespace, &g.meta.name),
                (r.spec.kind, &r.meta.namespace, &r.meta.name),
            );
            let spec = if data.is_empty() {
                base
            } else {
                let mut spec = (*base).clone();
                authconfig::add_kuadrant_data(&mut spec, &data);
                sort_map(&mut spec);
                Arc::new(spec)
            };
            out.auth_configs.push(object::AuthConfig {
                name: name.clone(),
                namespace: Arc::clone(&namespace),
                annotation,
                spec,
            });
        }

        let Some(provider) = (ctx.provider)(p.class) else {
            continue;
        };
        let go = out.gateways.entry(p.gateway).or_default();
        go.any_policy = true;
        if counts && (pe.rate_limit.is_some() || pe.token_rate_limit.is_some()) {
            go.rate_limit = true;
        }
        if counts && pe.auth.is_some() {
            go.auth = true;
        }

        // Wasm actions: 1.5 skips invalid paths entirely; 1.4 validates them, then skips.
        if !counts {
            continue;
        }
        let ra = route_actions
            .entry((
                p.route,
                [
                    identity(pe.rate_limit.as_ref()),
                    identity(pe.auth.as_ref()),
                    identity(pe.token_rate_limit.as_ref()),
                ],
            ))
            .or_insert_with(|| {
                let built = actions::merge(actions::path_actions(m, route_scope, pe), m.version);
                validate_actions(pe, built, &mut cel_memo)
            });
        out.cel_issues
            .extend(ra.failures.iter().map(|(kind, message)| CelIssue {
                kind: *kind,
                path_id: p.id.clone(),
                message: message.clone(),
                provider,
            }));
        if ra.list.is_empty() || !valid {
            continue;
        }
        // The auth action's scope is the path's AuthConfig name.
        let auth_scope: Arc<str> = match auth_name {
            Some(name) => name.into(),
            None => Arc::clone(&no_scope),
        };
        let matches = rule_matches_memo
            .entry((p.route, p.rule))
            .or_insert_with(|| rule_matches(t, p, &ctx.route_keys[p.route]));
        if !matches.is_empty() && selected {
            out.shim_rules.insert((p.gateway, p.route, p.rule));
            let ids = [
                identity(pe.rate_limit.as_ref()),
                identity(pe.auth.as_ref()),
                identity(pe.token_rate_limit.as_ref()),
            ];
            if shim_seen.insert((p.gateway, ids)) {
                let has = |f: &dyn Fn(&str) -> bool| ra.list.iter().any(|a| f(a.service));
                out.shim_actions.push(ShimActions {
                    gateway: p.gateway,
                    effective: pe,
                    kept: [
                        has(&|s| s == RATELIMIT_SERVICE),
                        has(&|s| s == AUTH_SERVICE),
                        has(&|s| s == RATELIMIT_CHECK_SERVICE || s == RATELIMIT_REPORT_SERVICE),
                    ],
                });
            }
        }
        for &h in &hosts {
            for (i, (predicates, key)) in matches.iter().enumerate() {
                let key = key.with_hostname(h);
                let value = ActionSet {
                    name: names::action_set_name(&p.id, i, h),
                    hostname: Arc::clone(host_texts.entry(h).or_insert_with(|| Arc::from(h))),
                    predicates: Arc::clone(predicates),
                    actions: Arc::clone(&ra.list),
                    auth_scope: Arc::clone(&auth_scope),
                    typed: Arc::from([]),
                };
                go.action_sets.push(ActionSetEntry { key, value });
            }
        }
    }

    out
}

/// PCTL3009: a rate window that is not whole seconds. The operator writes Limitador's `seconds` as
/// `int(time.ParseDuration(window).Seconds())`, truncated (kuadrant-operator v1.4.6 and v1.5.2
/// api/v1/ratelimitpolicy_types.go `Duration.Seconds`; TokenRateLimitPolicy uses the same `Rate`).
/// Limitador expires a counter `seconds` after its first hit (limitador
/// limitador/src/storage/atomic_expiring_value.rs): with 0 the counter has expired whenever it is
/// read, so no request is ever limited.
fn window_diagnostics(m: &Model) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for p in &m.policies {
        let (crate::model::PolicyBody::RateLimit(spec)
        | crate::model::PolicyBody::TokenRateLimit(spec)) = &p.body
        else {
            continue;
        };
        for (name, limit) in &spec.limits {
            for rate in &limit.rates {
                let Some(ms) = crate::model::parse_go_duration_millis(&rate.window) else {
                    continue;
                };
                if ms % 1000 == 0 {
                    continue;
                }
                let seconds = rate.seconds();
                let (msg, label, help) = if seconds == 0 {
                    (
                        format!(
                            "window {:?} of limit {name:?} is shorter than one second: Limitador gets `seconds: 0` and never enforces the limit",
                            rate.window
                        ),
                        "truncated to 0 s: never enforced".to_string(),
                        "use a window of at least 1s; Limitador counts in whole seconds"
                            .to_string(),
                    )
                } else {
                    (
                        format!(
                            "window {:?} of limit {name:?} is not whole seconds: Limitador gets `seconds: {seconds}`, a shorter window than written",
                            rate.window
                        ),
                        format!("truncated to {seconds} s"),
                        format!(
                            "write the window in whole seconds ({seconds}s or {}s); the operator drops the milliseconds",
                            seconds + 1
                        ),
                    )
                };
                out.push(
                    Diagnostic::new(Code::WindowTruncated, msg)
                        .object(p.display())
                        .at(rate.span, label)
                        .help(help),
                );
            }
        }
    }
    out
}

/// Generate every object. `eff[i]` is the effective policies of `t.paths()[i]`.
pub fn generate(t: &Topology<'_>, eff: &[PathEffective], opts: &GenerateOptions) -> Generated {
    generate_in_runs(t, eff, opts, crate::par::cores())
}

/// [`generate`] with the per-path pass split into at most `runs` parallel runs.
fn generate_in_runs(
    t: &Topology<'_>,
    eff: &[PathEffective],
    opts: &GenerateOptions,
    runs: usize,
) -> Generated {
    let m = t.model;
    let v15 = m.version == KuadrantVersion::V1_5;
    let mut out = Generated::default();
    let rt = runtime(m, opts, &mut out.diagnostics);
    out.diagnostics.extend(window_diagnostics(m));
    let want = |f: Family| opts.only.as_ref().is_none_or(|o| o.contains(&f));
    let image = opts
        .wasm_image
        .clone()
        .unwrap_or_else(|| if v15 { WASM_IMAGE_1_5 } else { WASM_IMAGE_1_4 }.to_string());

    let provider = |class: usize| -> Option<Provider> {
        let c = &m.gateway_classes[class].spec.controller_name;
        if opts.istio_controllers.iter().any(|x| x == c) {
            Some(Provider::Istio)
        } else if opts.envoy_gateway_controllers.iter().any(|x| x == c) {
            Some(Provider::EnvoyGateway)
        } else {
            None
        }
    };

    // The per-path pass, on contiguous runs of paths (whole gateways: a gateway's paths are
    // contiguous in PathID order) in parallel; results merged in path order.
    let route_keys: Vec<String> = m.routes.iter().map(|r| r.meta.key()).collect();
    let selected: Vec<bool> = m
        .gateways
        .iter()
        .map(|g| {
            opts.gateway
                .as_ref()
                .is_none_or(|(ns, name)| g.meta.namespace == *ns && g.meta.name == *name)
        })
        .collect();
    let ctx = PassContext {
        t,
        rt: &rt,
        route_keys: &route_keys,
        provider: &provider,
        selected: &selected,
    };
    let paths = t.path_list();
    let runs = gateway_runs(paths, runs);
    let parts: Vec<PathsOut<'_>> =
        crate::par::map_ranges(runs, |r| path_pass(&ctx, &paths[r.clone()], &eff[r]));
    let mut gateways: BTreeMap<usize, GatewayOut<'_>> = BTreeMap::new();
    let mut limits: BTreeMap<String, Vec<LimitadorLimit>> = BTreeMap::new();
    let mut auth_configs: Vec<object::AuthConfig> = Vec::new();
    let mut shim_rules = BTreeSet::new();
    let mut shim_actions = Vec::new();
    for part in parts {
        shim_rules.extend(part.shim_rules);
        shim_actions.extend(part.shim_actions);
        for (gi, go) in part.gateways {
            let into = gateways.entry(gi).or_default();
            into.action_sets.extend(go.action_sets);
            into.rate_limit |= go.rate_limit;
            into.auth |= go.auth;
            into.any_policy |= go.any_policy;
        }
        // The same key always has the same entries; the first is kept, as in one pass.
        for (k, v) in part.limits {
            limits.entry(k).or_insert(v);
        }
        auth_configs.extend(part.auth_configs);
        out.cel_issues.extend(part.cel_issues);
    }

    out.diagnostics
        .extend(shim::diagnostics(t, &shim_rules, &shim_actions));
    // Gateways with a wasm provider, and whether they have action sets (for `threat::diagnostics`).
    let mut threat_gateways: Vec<(usize, bool)> = Vec::new();

    // Per-gateway objects.
    for (gi, mut go) in gateways {
        let g = &m.gateways[gi];
        let Some(class) = m
            .gateway_classes
            .iter()
            .position(|c| c.meta.name == g.spec.class_name.value)
        else {
            continue;
        };
        let Some(prov) = provider(class) else {
            continue;
        };
        let gw = g.meta.name.as_str();
        let ns = g.meta.namespace.as_str();
        let owner = g
            .meta
            .uid
            .as_deref()
            .map(|uid| owner_ref("gateway.networking.k8s.io/v1", "Gateway", gw, uid));
        let has_sets = !go.action_sets.is_empty();
        let tracing = go.any_policy
            && rt
                .tracing
                .as_ref()
                .is_some_and(|(url, _)| cluster::tracing_endpoint(url).is_some());
        let produced = match prov {
            Provider::Istio => [
                (
                    has_sets,
                    if v15 {
                        Component::WasmEnvoyFilter
                    } else {
                        Component::WasmPlugin
                    },
                ),
                (go.rate_limit, Component::RateLimitEnvoyFilter),
                (go.auth, Component::AuthEnvoyFilter),
                (tracing, Component::TracingEnvoyFilter),
            ],
            Provider::EnvoyGateway => [
                (has_sets, Component::EnvoyExtensionPolicy),
                (go.rate_limit, Component::EnvoyPatchPolicy),
                (go.auth, Component::EnvoyPatchPolicy),
                (tracing, Component::EnvoyPatchPolicy),
            ],
        };
        for (made, c) in produced {
            if made {
                out.components.insert(gi, c);
            }
        }
        let threats = threat::on_gateway(m, ns, gw);
        threat_gateways.push((gi, has_sets));
        if !selected[gi] {
            continue;
        }
        go.action_sets
            .sort_by(|a, b| predicates::compare(&a.key, &b.key));
        let mut sets: Vec<ActionSet> = go.action_sets.into_iter().map(|e| e.value).collect();
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
        let wasm_name = format!("kuadrant-{gw}");
        let config = wasm_config(
            &rt,
            sets,
            crate::model::extension::request_data(m, ns, gw),
            threat_service,
        );
        match prov {
            Provider::Istio => {
                if has_sets && want(Family::Wasm) {
                    if v15 {
                        out.objects.push(Object::Tree(wasm_envoy_filter(
                            &wasm_name,
                            ns,
                            gw,
                            owner.clone(),
                            &config,
                            opts,
                        )));
                    } else {
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
                            "metadata": metadata(&wasm_name, ns, json!({"kuadrant.io/managed": "true"}), owner.clone()),
                            "spec": spec,
                        });
                        out.objects.push(Object::Wasm(Box::new(WasmCarrier {
                            shell,
                            at: "/spec/pluginConfig",
                            config,
                        })));
                    }
                }
                if want(Family::EnvoyFilter) {
                    let ef = |name: String,
                              label: &str,
                              cluster: &str,
                              ep: &Endpoint,
                              mtls: bool| {
                        Object::Tree(json!({
                            "apiVersion": "networking.istio.io/v1alpha3",
                            "kind": "EnvoyFilter",
                            "metadata": metadata(&name, ns,
                                json!({"kuadrant.io/managed": "true", label: "true"}), owner.clone()),
                            "spec": {
                                "targetRefs": [target_ref(gw)],
                                "configPatches": [cluster::istio_cluster_config_patch(cluster, ep, mtls)],
                            }
                        }))
                    };
                    if go.rate_limit {
                        out.objects.push(ef(
                            format!("kuadrant-ratelimiting-{gw}"),
                            "kuadrant.io/ratelimit",
                            "kuadrant-ratelimit-service",
                            &rt.limitador,
                            rt.mtls_limitador,
                        ));
                    }
                    if go.auth {
                        out.objects.push(ef(
                            format!("kuadrant-auth-{gw}"),
                            "kuadrant.io/auth",
                            "kuadrant-auth-service",
                            &rt.authorino,
                            rt.mtls_authorino,
                        ));
                    }
                    if let Some((url, insecure)) = &rt.tracing
                        && go.any_policy
                        && let Some(ep) = cluster::tracing_endpoint(url)
                    {
                        out.objects.push(ef(
                            format!("kuadrant-tracing-{gw}"),
                            "kuadrant.io/tracing",
                            "kuadrant-tracing-service",
                            &ep,
                            !insecure,
                        ));
                    }
                }
            }
            Provider::EnvoyGateway => {
                if !want(Family::EnvoyGateway) {
                    continue;
                }
                if has_sets {
                    let mut image_v = json!({"url": image});
                    if image.contains(PROTECTED_REGISTRY) {
                        image_v["pullSecretRef"] = json!({"name": PULL_SECRET});
                    }
                    let shell = json!({
                        "apiVersion": "gateway.envoyproxy.io/v1alpha1",
                        "kind": "EnvoyExtensionPolicy",
                        "metadata": metadata(&wasm_name, ns, json!({"kuadrant.io/managed": "true"}), owner.clone()),
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
                    out.objects.push(Object::Wasm(Box::new(WasmCarrier {
                        shell,
                        at: "/spec/wasm/0/config",
                        config,
                    })));
                }
                let epp = |name: String,
                           label: &str,
                           patch: &str,
                           cluster: &str,
                           ep: &Endpoint,
                           mtls: bool| {
                    Object::Tree(json!({
                        "apiVersion": "gateway.envoyproxy.io/v1alpha1",
                        "kind": "EnvoyPatchPolicy",
                        "metadata": metadata(&name, ns,
                            json!({"kuadrant.io/managed": "true", label: "true"}), owner.clone()),
                        "spec": cluster::envoy_patch_policy_spec(gw, patch, cluster, ep, mtls),
                    }))
                };
                if go.rate_limit {
                    out.objects.push(epp(
                        format!("kuadrant-ratelimiting-{gw}"),
                        "kuadrant.io/ratelimit",
                        "kuadrant-ratelimit-service",
                        "kuadrant-ratelimit-service",
                        &rt.limitador,
                        false,
                    ));
                }
                if go.auth {
                    out.objects.push(epp(
                        format!("kuadrant-auth-{gw}"),
                        "kuadrant.io/auth",
                        "kuadrant-auth-service",
                        "kuadrant-auth-service",
                        &rt.authorino,
                        false,
                    ));
                }
                if let Some((url, insecure)) = &rt.tracing
                    && go.any_policy
                    && let Some(ep) = cluster::tracing_endpoint(url)
                {
                    out.objects.push(epp(
                        format!("kuadrant-tracing-{gw}"),
                        "kuadrant.io/tracing",
                        "tracing-service",
                        "kuadrant-tracing-service",
                        &ep,
                        !insecure,
                    ));
                }
            }
        }
    }

    out.diagnostics
        .extend(threat::diagnostics(m, &threat_gateways));
    if want(Family::Limitador) {
        out.objects
            .push(limitador(&rt, limits.into_values().flatten().collect()));
    }
    if want(Family::AuthConfig) {
        auth_configs.sort_unstable_by(|a, b| a.name.cmp(&b.name));
        out.objects.extend(
            auth_configs
                .into_iter()
                .map(|a| Object::AuthConfig(Box::new(a))),
        );
    }
    for o in &mut out.objects {
        match o {
            Object::Tree(v) => sort_keys_in_place(v),
            Object::Wasm(w) => sort_keys_in_place(&mut w.shell),
            Object::Limitador(l) => sort_keys_in_place(&mut l.shell),
            // Built sorted.
            Object::AuthConfig(_) => {}
        }
    }
    out
}

/// [`sort_keys_in_place`] for a mapping.
fn sort_map(m: &mut Map<String, Value>) {
    m.sort_keys();
    m.values_mut().for_each(sort_keys_in_place);
}

fn wasm_envoy_filter(
    name: &str,
    ns: &str,
    gw: &str,
    owner: Option<Value>,
    config: &WasmConfig,
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
    let config_string = serde_json::to_string(config).unwrap_or_default();
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
                                        "value": config_string,
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

/// The canonical order of Limitador limits (`docs/output-conventions.md`): name, namespace, max_value, seconds, conditions,
/// variables (lists by length, then element by element).
fn limit_order(a: &LimitadorLimit, b: &LimitadorLimit) -> std::cmp::Ordering {
    fn head(l: &LimitadorLimit) -> (&str, &str, i64, i64, usize) {
        (
            l.name.as_str(),
            &l.namespace,
            l.max_value,
            l.seconds,
            l.conditions.len(),
        )
    }
    head(a)
        .cmp(&head(b))
        .then_with(|| a.conditions.cmp(&b.conditions))
        .then_with(|| a.variables.len().cmp(&b.variables.len()))
        .then_with(|| a.variables.cmp(&b.variables))
}

/// The Limitador CR: a tree when it has no limits, else a carrier of its limits in the canonical
/// order (a stable sort: equal limits keep their order).
fn limitador(rt: &Runtime<'_>, mut limits: Vec<LimitadorLimit>) -> Object {
    limits.sort_by(limit_order);
    let mut spec = json!({"metricLabelsDefault": "descriptors[1]"});
    if !limits.is_empty() {
        // The placeholder the limits are written in.
        spec["limits"] = Value::Null;
    }
    if let Some((url, _)) = &rt.tracing {
        spec["tracing"] = json!({"endpoint": url});
    }
    let name = rt
        .limitador_obj
        .map_or("limitador", |l| l.meta.name.as_str());
    let mut meta = json!({"name": name, "namespace": rt.namespace});
    if let Some(k) = rt.kuadrant
        && let Some(uid) = &k.meta.uid
    {
        meta["ownerReferences"] = json!([owner_ref(
            "kuadrant.io/v1beta1",
            "Kuadrant",
            &k.meta.name,
            uid
        )]);
    }
    let mut obj = json!({
        "apiVersion": "limitador.kuadrant.io/v1alpha1",
        "kind": "Limitador",
        "metadata": meta,
        "spec": null,
    });
    obj["spec"] = spec;
    if limits.is_empty() {
        return Object::Tree(obj);
    }
    Object::Limitador(Box::new(object::LimitadorCarrier {
        shell: obj,
        at: "/spec/limits",
        limits,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_parses_by_its_name() {
        for f in Family::ALL {
            assert_eq!(Family::parse(f.name()), Some(f));
        }
        assert_eq!(Family::parse("Wasm"), None);
        assert!(Family::names(",").starts_with("wasm,envoyfilter,"));
    }
    use crate::load::{Input, LoadOptions, load};

    /// Runs are cut only where the gateway changes, cover every path once, in order.
    #[test]
    fn gateway_runs_cut_between_gateways() {
        let path = |gateway| Path {
            class: 0,
            gateway,
            listener: 0,
            route: 0,
            rule: 0,
            rule_name: String::new(),
            id: String::new(),
        };
        let paths: Vec<Path> = [0, 0, 0, 1, 1, 2, 2, 2, 2, 3]
            .into_iter()
            .map(path)
            .collect();
        for n in 1..=12 {
            let runs = gateway_runs(&paths, n);
            assert!(runs.len() <= n);
            assert_eq!(runs.first().map(|r| r.start), Some(0));
            assert_eq!(runs.last().map(|r| r.end), Some(paths.len()));
            for w in runs.windows(2) {
                assert_eq!(w[0].end, w[1].start);
                assert_ne!(paths[w[1].start - 1].gateway, paths[w[1].start].gateway);
            }
        }
        assert_eq!(gateway_runs(&paths, 2), [0..5, 5..10]);
        assert_eq!(gateway_runs(&[path(7), path(7)], 2).len(), 1);
    }

    /// Splitting the pass changes nothing: the same objects, text and CEL issues, including for a
    /// route under two gateways (its limits reached from both runs) and at both versions.
    #[test]
    fn parallel_runs_give_the_single_run_output() {
        for case in [
            "cases/case-j-route-with-two-gateways",
            "topology/complex-expanded",
            "examples/toystore",
        ] {
            for version in [KuadrantVersion::V1_4, KuadrantVersion::V1_5] {
                let dir = format!("{}/testdata/{case}", env!("CARGO_MANIFEST_DIR"));
                let loaded = load(
                    &[Input::Path(dir.into())],
                    &LoadOptions {
                        default_namespace: "default".into(),
                        version,
                        ..LoadOptions::default()
                    },
                );
                let t = Topology::build(&loaded.model);
                let eff = crate::resolve::effective(&t);
                let opts = GenerateOptions::default();
                let one = generate_in_runs(&t, &eff, &opts, 1);
                let text = crate::render::objects::yaml_objects(&one.objects).unwrap();
                assert!(!one.objects.is_empty(), "{case}");
                if !case.starts_with("examples/") {
                    assert!(
                        gateway_runs(t.path_list(), 5).len() > 1,
                        "{case}: one run only"
                    );
                }
                for runs in [2, 3, 5] {
                    let many = generate_in_runs(&t, &eff, &opts, runs);
                    assert_eq!(
                        crate::render::objects::yaml_objects(&many.objects).unwrap(),
                        text,
                        "{case} {version:?} {runs}"
                    );
                    assert_eq!(many.cel_issues, one.cel_issues, "{case}");
                }
            }
        }
    }
}
