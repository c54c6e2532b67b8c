//! What the data plane and the operator's status updaters do with the generated objects
//! (`testdata/dataplane/*/input.yaml`): objects the status waits for although they are never
//! created, and the CEL issues of only one gateway provider.
//!
//! Every expected message is built from the operator's format strings, cited on each test:
//! `ErrOutOfSync.Error()` is `"%s waiting for the following components to sync: %s"` over a Go
//! `[]string` (`[a b]`) (kuadrant-operator v1.4.6 and v1.5.2 internal/kuadrant/errors.go), and each
//! missing component is `"%s (%s/%s)"` of the kind, the gateway namespace and name
//! (`gatewayComponentsToSync` / `gatewayComponentsToSyncWithName`,
//! internal/controller/data_plane_policies_workflow.go at both tags).

use policyctl::GenerateOptions;
use policyctl::KuadrantVersion;
use policyctl::StatusOptions;
use policyctl::diag::Diagnostics;
use policyctl::{Analysis, analyze};
use policyctl::{Input, LoadOptions, Loaded, load};
use std::path::Path;

fn load_fixture(name: &str, version: KuadrantVersion) -> Loaded {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/dataplane")
        .join(name);
    load(
        &[Input::Path(dir)],
        &LoadOptions {
            default_namespace: "default".into(),
            version,
            ..LoadOptions::default()
        },
    )
}

fn analysis(l: &Loaded) -> Analysis<'_> {
    let opts = GenerateOptions::default();
    analyze(&l.model, &l.diagnostics, &opts, &StatusOptions::default())
}

/// `(status, reason, message)` of the Enforced condition of the policy `Kind ns/name`.
fn enforced(a: &Analysis<'_>, l: &Loaded, policy: &str) -> (String, String, String) {
    let s = a
        .statuses
        .iter()
        .find(|s| l.model.policies[s.policy].display() == policy)
        .unwrap_or_else(|| panic!("no status for {policy}"));
    let e = s.enforced.as_ref().expect("an Enforced condition");
    (e.status.clone(), e.reason.clone(), e.message.clone())
}

/// `ErrOutOfSync` (kuadrant-operator v1.4.6 / v1.5.2 internal/kuadrant/errors.go).
fn waiting(kind: &str, components: &[&str]) -> (String, String, String) {
    (
        "False".into(),
        "Unknown".into(),
        format!(
            "{kind} waiting for the following components to sync: [{}]",
            components.join(" ")
        ),
    )
}

fn kinds(a: &Analysis<'_>) -> Vec<String> {
    a.generated
        .objects
        .iter()
        .map(|o| {
            let v = o.to_value();
            format!(
                "{} {}",
                o.kind(),
                v["metadata"]["name"].as_str().unwrap_or("")
            )
        })
        .collect()
}

/// The objects the diagnostics of `code` are about, sorted.
fn codes(d: &Diagnostics, code: &str) -> Vec<String> {
    let mut v: Vec<String> = d
        .iter()
        .filter(|x| x.code.as_str() == code)
        .map(|x| x.object.clone().unwrap_or_default())
        .collect();
    v.sort();
    v
}

/// On 1.4 a rule with an explicit `matches: []` gets no action set (v1.4.6
/// internal/wasm/utils.go iterates the empty list), so neither a WasmPlugin nor an
/// EnvoyExtensionPolicy is created; the RateLimitPolicy and AuthPolicy status updaters still count
/// the gateway as affected and wait for it (v1.4.6 internal/controller/
/// ratelimit_policy_status_updater.go and auth_policy_status_updater.go: Istio looks for a
/// `WasmPlugin` child, Envoy Gateway for an `EnvoyExtensionPolicy` child).
#[test]
fn empty_matches_on_1_4_wait_for_the_wasm_object_that_is_never_created() {
    let v = KuadrantVersion::V1_4;
    let l = load_fixture("empty-matches", v);
    let a = analysis(&l);
    let objects = kinds(&a);
    assert!(
        !objects
            .iter()
            .any(|o| o.starts_with("WasmPlugin") || o.starts_with("EnvoyExtensionPolicy")),
        "{objects:?}"
    );
    assert_eq!(
        enforced(&a, &l, "RateLimitPolicy shop/istio-rlp"),
        waiting("RateLimitPolicy", &["WasmPlugin (gateway-system/istio-gw)"])
    );
    assert_eq!(
        enforced(&a, &l, "AuthPolicy shop/istio-auth"),
        waiting("AuthPolicy", &["WasmPlugin (gateway-system/istio-gw)"])
    );
    assert_eq!(
        enforced(&a, &l, "RateLimitPolicy shop/eg-rlp"),
        waiting(
            "RateLimitPolicy",
            &["EnvoyExtensionPolicy (gateway-system/eg-gw)"]
        )
    );
}

/// 1.5 treats `matches: []` as `[{path: PathPrefix /}]` (v1.5.2 internal/wasm/utils.go): the wasm
/// objects exist and the policies are enforced (`"%s has been successfully enforced"`, v1.5.2
/// internal/kuadrant/errors.go via `EnforcedCondition`).
#[test]
fn empty_matches_on_1_5_are_enforced() {
    let v = KuadrantVersion::V1_5;
    let l = load_fixture("empty-matches", v);
    let a = analysis(&l);
    for (policy, kind) in [
        ("RateLimitPolicy shop/istio-rlp", "RateLimitPolicy"),
        ("AuthPolicy shop/istio-auth", "AuthPolicy"),
        ("RateLimitPolicy shop/eg-rlp", "RateLimitPolicy"),
    ] {
        assert_eq!(
            enforced(&a, &l, policy),
            (
                "True".into(),
                "Enforced".into(),
                format!("{kind} has been successfully enforced")
            )
        );
    }
}

/// The TokenRateLimitPolicy status updater takes each path with `ObjectsInRequestPath` and ignores
/// its validity error (v1.4.6 and v1.5.2 internal/controller/tokenratelimitpolicy_status_updater.go),
/// so a gateway reached only through an invalid path is affected. No action set is built for an
/// invalid path: 1.4 waits for the `WasmPlugin` (its rate-limit cluster EnvoyFilter exists, 1.4 builds
/// it for invalid paths too); 1.5, whose reconcilers skip invalid paths, waits for both EnvoyFilters it
/// looks up by name (`kuadrant-ratelimiting-<gw>` then `kuadrant-<gw>`).
#[test]
fn token_rate_limit_policy_on_an_invalid_path_waits_forever() {
    let policy = "TokenRateLimitPolicy gateway-system/internal-tokens";
    let l = load_fixture("trlp-invalid-path", KuadrantVersion::V1_4);
    let a = analysis(&l);
    assert_eq!(
        kinds(&a),
        [
            "EnvoyFilter kuadrant-ratelimiting-ai-gw",
            "Limitador limitador"
        ]
    );
    assert_eq!(
        enforced(&a, &l, policy),
        waiting(
            "TokenRateLimitPolicy",
            &["WasmPlugin (gateway-system/ai-gw)"]
        )
    );

    let l = load_fixture("trlp-invalid-path", KuadrantVersion::V1_5);
    let a = analysis(&l);
    assert_eq!(kinds(&a), ["Limitador limitador"]);
    assert_eq!(
        enforced(&a, &l, policy),
        waiting(
            "TokenRateLimitPolicy",
            &[
                "EnvoyFilter (gateway-system/ai-gw)",
                "EnvoyFilter (gateway-system/ai-gw)"
            ]
        )
    );
}

/// The Istio and Envoy Gateway extension reconcilers run as concurrent tasks (policy-machinery
/// controller/workflow.go `Run`: errgroup) and each stores its own `IssueCollection` under
/// `StateCELValidationErrors` (v1.4.6 internal/controller/istio_extension_reconciler.go:348,
/// envoy_gateway_extension_reconciler.go:338; v1.5.2 :545 and :513): the last write wins. policyctl
/// shows the Istio issues and warns (PCTL3010) on every policy whose status depends on it. The
/// message is `"validation issues: %s"` over cel-go's error text (`ErrCelValidation`,
/// internal/kuadrant/errors.go), whose first line is `ERROR: <input>:1:1: undeclared reference to
/// 'auth' (in container '')` (cel-go v0.23.2 checker/errors.go `undeclaredReference`).
#[test]
fn cel_issues_of_both_providers_show_the_istio_set_and_warn() {
    for v in [KuadrantVersion::V1_4, KuadrantVersion::V1_5] {
        let l = load_fixture("cel-both-providers", v);
        let a = analysis(&l);
        let (status, reason, message) = enforced(&a, &l, "RateLimitPolicy shop/istio-rlp");
        assert_eq!(
            (status.as_str(), reason.as_str()),
            ("False", "InvalidCelExpression")
        );
        assert!(
            message.starts_with(
                "validation issues: [ERROR: <input>:1:1: undeclared reference to 'auth' (in container '')\n | auth.identity.group != 'admin'"
            ),
            "{message}"
        );
        assert!(!message.contains("tier"), "{message}");
        // The Envoy Gateway policy shows no issue, and its dropped action left the gateway without an
        // EnvoyExtensionPolicy, which the status then waits for.
        assert_eq!(
            enforced(&a, &l, "RateLimitPolicy shop/eg-rlp"),
            waiting(
                "RateLimitPolicy",
                &["EnvoyExtensionPolicy (gateway-system/eg-gw)"]
            )
        );
        assert_eq!(
            codes(&a.diagnostics, "PCTL3010"),
            [
                "RateLimitPolicy shop/eg-rlp",
                "RateLimitPolicy shop/istio-rlp"
            ]
        );
    }
}

/// With issues on one provider only, that set is reported, as the operator does, and nothing warns.
#[test]
fn cel_issues_of_one_provider_are_reported_without_a_warning() {
    let v = KuadrantVersion::V1_4;
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/dataplane/cel-both-providers/input.yaml"),
    )
    .unwrap();
    // Keep everything but the Istio route's policy.
    let docs: Vec<&str> = text
        .split("\n---\n")
        .filter(|d| !d.contains("name: istio-rlp"))
        .collect();
    let l = load(
        &[Input::Text {
            name: "eg-only.yaml".into(),
            bytes: docs.join("\n---\n").into_bytes(),
        }],
        &LoadOptions {
            default_namespace: "default".into(),
            version: v,
            ..LoadOptions::default()
        },
    );
    let a = analysis(&l);
    let (status, reason, message) = enforced(&a, &l, "RateLimitPolicy shop/eg-rlp");
    assert_eq!(
        (status.as_str(), reason.as_str()),
        ("False", "InvalidCelExpression")
    );
    assert!(
        message.contains("auth.identity.tier == 'free'"),
        "{message}"
    );
    assert!(codes(&a.diagnostics, "PCTL3010").is_empty());
}

/// `line:col object` of every diagnostic with `code`, sorted.
fn placed(l: &Loaded, d: &Diagnostics, code: &str) -> Vec<String> {
    let mut v: Vec<String> = d
        .iter()
        .filter(|x| x.code.as_str() == code)
        .map(|x| {
            let pos = x
                .primary_span()
                .and_then(|s| l.sources.position(s))
                .map(|p| format!("{}:{}", p.line, p.column))
                .unwrap_or_default();
            format!("{pos} {}", x.object.clone().unwrap_or_default())
        })
        .collect();
    v.sort();
    v
}

/// Every string of the wasm carrier of `gateway` (1.4 WasmPlugin, 1.5 EnvoyFilter whose
/// configuration is a JSON string, read as JSON too).
fn wasm_strings(a: &Analysis<'_>, gateway: &str) -> Vec<String> {
    fn walk(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::String(s) => {
                if let Ok(inner @ serde_json::Value::Object(_)) = serde_json::from_str(s) {
                    walk(&inner, out);
                }
                out.push(s.clone());
            }
            serde_json::Value::Array(xs) => xs.iter().for_each(|x| walk(x, out)),
            serde_json::Value::Object(m) => m.values().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Some(v) = a
        .generated
        .objects
        .iter()
        .map(|o| o.to_value())
        .find(|v| v["metadata"]["name"] == format!("kuadrant-{gateway}"))
    {
        walk(&v, &mut out);
    }
    out
}

/// A `RegularExpression` path or header value is copied unescaped into a single-quoted CEL string
/// (kuadrant-operator v1.4.6 internal/wasm/utils.go `predicatesFromHTTPRouteMatch`:
/// `request.url_path.matches('%s')`; the header match type is ignored and the value compared with
/// `==`; v1.5.2 the same). `\.` and `\d` are not CEL escapes (cel-spec doc/langdef.md), so wasm-shim
/// fails to parse the predicate and refuses the gateway's whole configuration (wasm-shim v0.12.3 and
/// v0.14.1 src/filter/root_context.rs `on_configure` returns false when `PipelineFactory::try_from`
/// fails). policyctl generates exactly what the operator does and warns on the value, naming the
/// gateway; a counter expression (never checked by the operator) breaks its gateway the same way.
/// The same regex as a character class, `[.]`, is fine.
#[test]
fn regex_matches_and_bad_counters_break_the_gateway_they_reach() {
    for v in [KuadrantVersion::V1_4, KuadrantVersion::V1_5] {
        let l = load_fixture("regex-match", v);
        let a = analysis(&l);
        // Generated as the operator does: the value verbatim inside the quotes.
        let prod = wasm_strings(&a, "prod");
        for p in [
            r"request.url_path.matches('.*\.png$')",
            r"request.headers.exists(h, h.lowerAscii() == 'x-build' && request.headers[h] == '\d+')",
            "request.url_path.matches('.*[.]png$')",
        ] {
            assert!(prod.iter().any(|s| s == p), "{p} not in {prod:?}");
        }
        assert_eq!(
            placed(&l, &a.diagnostics, "PCTL3008"),
            [
                "124:21 RateLimitPolicy shop/reports",
                "56:16 HTTPRoute shop/assets",
                "60:16 HTTPRoute shop/assets",
            ]
        );
        for d in a
            .diagnostics
            .iter()
            .filter(|d| d.code.as_str() == "PCTL3008")
        {
            let gw = if d.object.as_deref() == Some("RateLimitPolicy shop/reports") {
                "Gateway gateway-system/internal:"
            } else {
                "Gateway gateway-system/prod:"
            };
            assert!(d.message.contains(gw), "{}", d.message);
            assert!(d.message.contains("rejects the whole wasm configuration"));
        }
    }
}

/// `Duration.Seconds()` is `int(time.ParseDuration(d).Seconds())` (kuadrant-operator v1.4.6 and
/// v1.5.2 api/v1/ratelimitpolicy_types.go), so Limitador gets 500ms as 0 s and 1500ms as 1 s; a
/// zero-second counter has always expired when Limitador reads it (limitador
/// limitador/src/storage/atomic_expiring_value.rs `value_at`), so that limit is never enforced.
#[test]
fn sub_second_windows_are_truncated_and_warned_on() {
    for v in [KuadrantVersion::V1_4, KuadrantVersion::V1_5] {
        let l = load_fixture("sub-second-window", v);
        let a = analysis(&l);
        let limitador = a
            .generated
            .objects
            .iter()
            .find(|o| o.kind() == "Limitador")
            .unwrap()
            .to_value();
        let mut seconds: Vec<i64> = limitador["spec"]["limits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["seconds"].as_i64().unwrap())
            .collect();
        seconds.sort();
        assert_eq!(seconds, [0, 1, 60]);
        assert_eq!(
            placed(&l, &a.diagnostics, "PCTL3009"),
            [
                "49:17 RateLimitPolicy gateway-system/burst",
                "51:17 RateLimitPolicy gateway-system/burst",
            ]
        );
        let msgs: Vec<&str> = a
            .diagnostics
            .iter()
            .filter(|d| d.code.as_str() == "PCTL3009")
            .map(|d| d.message.as_str())
            .collect();
        assert!(
            msgs.iter()
                .any(|m| m.contains("500ms") && m.contains("never enforces"))
        );
        assert!(
            msgs.iter()
                .any(|m| m.contains("1500ms") && m.contains("`seconds: 1`"))
        );
    }
}

/// PCTL3008 and PCTL3009 fire on the two fixtures made for them and on nothing else in testdata.
#[test]
fn shim_and_window_warnings_fire_only_on_their_fixtures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut estates = Vec::new();
    for group in std::fs::read_dir(&root).unwrap() {
        let group = group.unwrap().path();
        if !group.is_dir() {
            continue;
        }
        for e in std::fs::read_dir(&group).unwrap() {
            estates.push(e.unwrap().path());
        }
    }
    estates.sort();
    assert!(estates.len() > 40, "{estates:?}");
    let mut fired = Vec::new();
    for e in &estates {
        if e.extension().is_some_and(|x| x == "svg") {
            continue;
        }
        for v in [KuadrantVersion::V1_4, KuadrantVersion::V1_5] {
            let l = load(
                &[Input::Path(e.clone())],
                &LoadOptions {
                    default_namespace: "default".into(),
                    version: v,
                    ..LoadOptions::default()
                },
            );
            let a = analysis(&l);
            for d in a.diagnostics.iter() {
                if matches!(d.code.as_str(), "PCTL3008" | "PCTL3009") {
                    let name = e.strip_prefix(&root).unwrap().display().to_string();
                    fired.push(format!("{} {name}", d.code.as_str()));
                }
            }
        }
    }
    fired.sort();
    fired.dedup();
    assert_eq!(
        fired,
        [
            "PCTL3008 dataplane/regex-match",
            "PCTL3009 dataplane/sub-second-window"
        ]
    );
}
