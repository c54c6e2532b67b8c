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
//! repeated parts typed and shared (see `object`). The per-path pass runs on contiguous runs of paths
//! in parallel and is merged in path order, so the result does not depend on the number of cores.
//!
//! [`generate`] runs the rooms in order: `runtime` (what the Kuadrant, Limitador and Authorino
//! objects set), `paths` (the per-path pass: limits, AuthConfigs, wasm actions, action sets),
//! `shim` (what the wasm-shim refuses), `gateway` (per gateway, for either provider: the wasm
//! carrier, the cluster objects, the components), `threat`, then `limitador` (the Limitador CR)
//! and the AuthConfigs.
//!
//! Key order, object order, the canonical orders chosen where the operator is not deterministic and
//! the runtime values it cannot know: `docs/output-conventions.md`. What each object holds and the
//! upstream files it follows: `docs/semantics/generated-objects.md`.

pub(crate) mod actions;
pub(crate) mod authconfig;
pub(crate) mod cluster;
pub(crate) mod dns;
pub(crate) mod extension;
pub(crate) mod hostnames;
pub(crate) mod names;
pub(crate) mod object;
pub(crate) mod predicates;
pub(crate) mod shim;
pub(crate) mod telemetry;
pub(crate) mod threat;
pub(crate) mod tls;

mod gateway;
mod limitador;
pub(crate) use limitador::limit_order;
mod paths;
mod runtime;

use crate::diag::Diagnostic;
use crate::model::Model;
use crate::resolve::{CelIssue, Components, PathEffective};
use crate::topology::Topology;
use limitador::limitador;
use object::Object;
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;
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
    let want = |f: Family| opts.wants(f);
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
                .filter_map(|p| extension::derived_object(m, p))
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
    /// `watch`'s incremental cycles (`docs/architecture.md`, "watch: incremental cycles"): the
    /// per-gateway objects and the AuthConfigs only of paths through these gateways `(namespace,
    /// name)`. Unlike `gateway`, the Limitador's limits and the findings still come from every path.
    pub slice: Option<BTreeSet<(String, String)>>,
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
            slice: None,
        }
    }
}

impl GenerateOptions {
    /// Whether `only` keeps the objects of family `f`.
    fn wants(&self, f: Family) -> bool {
        self.only.as_ref().is_none_or(|o| o.contains(&f))
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
    /// The gateways (indices into `Model::gateways`) whose wasm configuration the wasm-shim
    /// refuses (`PCTL3008`): no Kuadrant policy is enforced on them.
    pub rejected_gateways: BTreeSet<usize>,
    pub diagnostics: Vec<Diagnostic>,
}

fn owner_ref(api_version: &str, kind: &str, name: &str, uid: &str) -> Value {
    json!({"apiVersion": api_version, "kind": kind, "name": name, "uid": uid,
           "controller": true, "blockOwnerDeletion": true})
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
    let mut out = Generated::default();
    let rt = runtime::runtime(m, opts, &mut out.diagnostics);
    out.diagnostics.extend(limitador::window_diagnostics(m));
    let providers = gateway::providers(m, opts);
    let selected: Vec<bool> = m
        .gateways
        .iter()
        .map(|g| {
            opts.gateway
                .as_ref()
                .is_none_or(|(ns, name)| g.meta.namespace == *ns && g.meta.name == *name)
        })
        .collect();
    let emit: Vec<bool> = m
        .gateways
        .iter()
        .zip(&selected)
        .map(|(g, &sel)| {
            sel && opts
                .slice
                .as_ref()
                .is_none_or(|s| s.contains(&(g.meta.namespace.clone(), g.meta.name.clone())))
        })
        .collect();
    let route_keys: Vec<String> = crate::par::map(&m.routes, 4096, |r| r.meta.key());
    let route_namespaces: Vec<Arc<str>> =
        route_keys.iter().map(|k| Arc::from(k.as_str())).collect();
    let ctx = paths::PassContext {
        t,
        rt: &rt,
        route_keys: &route_keys,
        route_namespaces: &route_namespaces,
        gateway_keys: &m.gateways.iter().map(|g| g.meta.key()).collect::<Vec<_>>(),
        providers: &providers,
        selected: &selected,
        emit: &emit,
        invalid_left_out: !crate::resolve::effective::invalid_paths_read(t),
    };
    let mut pass = paths::run(&ctx, eff, runs);
    out.cel_issues.append(&mut pass.cel_issues);

    let carriers = gateway::Carriers {
        m,
        rt: &rt,
        opts,
        providers: &providers,
        selected: &emit,
        image: gateway::image(m, opts),
    };
    // The wasm-shim's findings are checked on a thread of their own while the carriers and the
    // Limitador are built: neither reads the other.
    let (shim_rules, shim_actions) = (&pass.shim_rules, &pass.shim_actions);
    let at = out.diagnostics.len();
    // The Limitador (its limits sorted) is made on the shim check's thread, after it.
    let limits = std::sync::Mutex::new(Some(pass.limits));
    let (((shim_diagnostics, rejected), limitador), threat_gateways) = crate::par::join(
        || {
            let shim = shim::diagnostics(t, shim_rules, shim_actions);
            let limits = limits.lock().ok().and_then(|mut l| l.take());
            let limitador = opts.wants(Family::Limitador).then(|| {
                limitador(
                    &rt,
                    limits
                        .into_iter()
                        .flatten()
                        .flat_map(|l| l.entries)
                        .collect(),
                )
            });
            (shim, limitador)
        },
        || carriers.all(pass.gateways, &mut out),
    );
    // In the order of a run on one thread: the shim's findings before the carriers'.
    out.diagnostics.splice(at..at, shim_diagnostics);
    out.rejected_gateways = rejected;
    out.diagnostics
        .extend(threat::diagnostics(m, &threat_gateways));
    out.diagnostics
        .extend(telemetry::diagnostics(m, &out.objects));
    out.objects.extend(limitador);
    if opts.wants(Family::AuthConfig) {
        // Sorted by name by the pass.
        let auth_configs = pass.auth_configs;
        debug_assert!(auth_configs.is_sorted_by(|a, b| a.name < b.name));
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
    // A key per route: freed while the caller goes on.
    let routes = route_keys.len();
    crate::par::drop_later((route_keys, route_namespaces), routes, 4096);
    out
}

/// [`sort_keys_in_place`] for a mapping.
fn sort_map(m: &mut Map<String, Value>) {
    m.sort_keys();
    m.values_mut().for_each(sort_keys_in_place);
}

/// The folders of `testdata/<group>`, as `<group>/<name>` and sorted: the estates tests go through
/// (each a `case` of [`testdata_loaded`]).
#[cfg(test)]
pub(crate) fn testdata_cases(group: &str) -> Vec<String> {
    let dir = format!("{}/testdata/{group}", env!("CARGO_MANIFEST_DIR"));
    let mut cases: Vec<String> = (std::fs::read_dir(dir).unwrap())
        .map(|e| e.unwrap())
        .filter(|e| e.path().is_dir())
        .map(|e| format!("{group}/{}", e.file_name().to_string_lossy()))
        .collect();
    cases.sort();
    cases
}

/// The model of `testdata/<case>` at `version`, for tests here and in the writers.
#[cfg(test)]
pub(crate) fn testdata_model(
    case: &str,
    version: crate::model::KuadrantVersion,
) -> crate::model::Model {
    testdata_loaded(case, version).model
}

/// `testdata/<case>` loaded at `version` (model and findings), as every test loads it.
#[cfg(test)]
pub(crate) fn testdata_loaded(
    case: &str,
    version: crate::model::KuadrantVersion,
) -> crate::load::Loaded {
    use crate::load::{Input, LoadOptions, load};
    let dir = format!("{}/testdata/{case}", env!("CARGO_MANIFEST_DIR"));
    let options = LoadOptions {
        default_namespace: "default".into(),
        version,
        // testdata/topology/complex-expanded replays a policy-machinery unit test whose objects
        // never met an API server (see tests/graph.rs).
        crd_validation: !case.ends_with("complex-expanded"),
        ..LoadOptions::default()
    };
    load(&[Input::Path(dir.into())], &options)
}

/// The objects generated for `testdata/examples/toystore` at `version`.
#[cfg(test)]
pub(crate) fn toystore_objects(version: crate::model::KuadrantVersion) -> Vec<Object> {
    let model = testdata_model("examples/toystore", version);
    let t = Topology::build(&model);
    let eff = crate::resolve::effective(&t);
    generate(&t, &eff, &GenerateOptions::default()).objects
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
    use crate::model::KuadrantVersion;

    /// Every wasm carrier of both releases has its configuration's place in its shell, and the
    /// configuration goes there as the release writes it: 1.5's `EnvoyFilter` a JSON string, 1.4's
    /// `WasmPlugin` a mapping.
    #[test]
    fn wasm_carriers_hold_their_configuration_where_the_release_puts_it() {
        for (version, kind, embed) in [
            (KuadrantVersion::V1_5, "EnvoyFilter", object::Embed::Json),
            (KuadrantVersion::V1_4, "WasmPlugin", object::Embed::Mapping),
        ] {
            let objects = toystore_objects(version);
            let carriers: Vec<&object::WasmCarrier> = objects
                .iter()
                .filter_map(|o| match o {
                    Object::Wasm(w) => Some(&**w),
                    _ => None,
                })
                .collect();
            assert!(!carriers.is_empty(), "{version:?}");
            for w in carriers {
                assert_eq!(w.shell["kind"], kind);
                assert_eq!(w.embed, embed);
                assert_eq!(w.shell.pointer(w.at), Some(&Value::Null), "{}", w.at);
                let whole = Object::Wasm(Box::new(w.clone())).to_value();
                let config = whole.pointer(w.at).unwrap();
                let parsed = match embed {
                    object::Embed::Json => serde_json::from_str(config.as_str().unwrap()).unwrap(),
                    object::Embed::Mapping => config.clone(),
                };
                assert_eq!(parsed, serde_json::to_value(&w.config).unwrap());
                assert!(
                    parsed["actionSets"]
                        .as_array()
                        .is_some_and(|a| !a.is_empty())
                );
            }
        }
    }

    /// A wasm configuration written in parts is the JSON `serde_json` writes in one go, however many
    /// parts (more parts than action sets included).
    #[test]
    fn wasm_configuration_json_in_parts_is_the_whole() {
        let objects = toystore_objects(KuadrantVersion::V1_4);
        let configs: Vec<&object::WasmConfig> = objects
            .iter()
            .filter_map(|o| match o {
                Object::Wasm(w) => Some(&w.config),
                _ => None,
            })
            .collect();
        assert!(configs.iter().any(|c| c.action_sets.len() > 1));
        for c in configs {
            let whole = serde_json::to_string(c).unwrap();
            for parts in [0, 1, 2, 3, 7, c.action_sets.len() + 2] {
                assert_eq!(c.to_json_in(parts), whole, "{parts} parts");
            }
        }
    }

    /// Splitting the pass changes nothing: the same objects, text, CEL issues and findings,
    /// including for a route under two gateways (its limits reached from both runs), for runs cut
    /// inside a gateway, and at both versions.
    #[test]
    fn parallel_runs_give_the_single_run_output() {
        for case in [
            "cases/case-j-route-with-two-gateways",
            "topology/complex-expanded",
            "examples/toystore",
        ] {
            for version in [KuadrantVersion::V1_4, KuadrantVersion::V1_5] {
                let model = testdata_model(case, version);
                let t = Topology::build(&model);
                let eff = crate::resolve::effective(&t);
                let opts = GenerateOptions::default();
                let one = generate_in_runs(&t, &eff, &opts, 1);
                let text = crate::render::objects::yaml_objects(&one.objects).unwrap();
                assert!(!one.objects.is_empty(), "{case}");
                if !case.starts_with("examples/") {
                    assert!(t.path_list().len() > 1, "{case}: one run only");
                }
                for runs in [2, 3, 5] {
                    let many = generate_in_runs(&t, &eff, &opts, runs);
                    assert_eq!(
                        crate::render::objects::yaml_objects(&many.objects).unwrap(),
                        text,
                        "{case} {version:?} {runs}"
                    );
                    assert_eq!(many.cel_issues, one.cel_issues, "{case}");
                    assert_eq!(many.diagnostics, one.diagnostics, "{case} {runs}");
                }
            }
        }
    }
}
