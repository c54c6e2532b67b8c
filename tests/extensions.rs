//! Kuadrant's extension policies (issue 21): PlanPolicy, OIDCPolicy, TelemetryPolicy and
//! ThreatPolicy at operator 1.4 and 1.5. Expected values come from kuadrant-operator v1.4.6 /
//! v1.5.2: `cmd/extensions/plan-policy/api/v1alpha1/planpolicy_types.go` (`ToRateLimits`,
//! `ToRates`, `BuildCelExpression`), `cmd/extensions/plan-policy/internal/controller/
//! planpolicy_reconciler.go`, `internal/extension/registry.go` (`ApplyAuthConfigMutators`,
//! `mutateAuthConfig`), `pkg/extension/controller/utils.go` (condition messages), and the CRDs
//! under `cmd/extensions/*/config/crd/bases/`.

use crate::common;

use policyctl::Analysis;
use policyctl::GenerateOptions;
use policyctl::KuadrantVersion;
use policyctl::StatusOptions;
use policyctl::{Input, LoadOptions, Loaded, load};
use serde_json::{Value, json};

const V14: KuadrantVersion = KuadrantVersion::V1_4;
const V15: KuadrantVersion = KuadrantVersion::V1_5;

fn load_case(case: &str, version: KuadrantVersion) -> Loaded {
    let path = format!("{}/testdata/extensions/{case}", env!("CARGO_MANIFEST_DIR"));
    load(
        &[Input::Path(path.into())],
        &LoadOptions {
            default_namespace: "default".into(),
            version,
            ..LoadOptions::default()
        },
    )
}

/// The whole pipeline; the version is the one `l` was loaded with (the model holds it).
fn analyze(l: &Loaded, version: KuadrantVersion) -> Analysis<'_> {
    assert_eq!(l.model.version, version);
    let opts = GenerateOptions::default();
    policyctl::analyze(&l.model, &l.diagnostics, &opts, &StatusOptions::default())
}

fn objects(a: &Analysis) -> Vec<Value> {
    policyctl::object_values(&a.generated.objects)
}

fn find<'v>(objs: &'v [Value], kind: &str, name: &str) -> &'v Value {
    objs.iter()
        .find(|o| o["kind"] == kind && o["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("no {kind} {name}"))
}

/// `BuildCelExpression` for the three plans of the route's PlanPolicy (predicates are `|` blocks:
/// their trailing newline is removed).
fn toystore_plan_expression() -> String {
    let p = |tier: &str| {
        format!(
            "has(auth.identity) && auth.identity.metadata.annotations[\"secret.kuadrant.io/plan-id\"] == \"{tier}\""
        )
    };
    format!(
        "[\"gold\", \"silver\", \"bronze\"]\n  .filter(i, i in\n    [{{\n    \"gold\": {},\n    \"silver\": {},\n    \"bronze\": {},\n    }}].map(m, m.filter(key, m[key]))[0])[0]",
        p("gold"),
        p("silver"),
        p("bronze")
    )
}

#[test]
fn plan_policy_becomes_a_rate_limit_policy_of_the_same_name() {
    for version in [V14, V15] {
        let l = load_case("plan", version);
        assert!(!l.diagnostics.has_errors(), "{:?}", l.diagnostics);
        let a = analyze(&l, version);
        let objs = objects(&a);
        let rlp = find(&objs, "RateLimitPolicy", "toystore-plans");
        // One limit per plan, named after its tier (keys sorted as the API server stores a map),
        // `auth.kuadrant.plan == "<tier>"`, rates daily 24h, weekly 168h, monthly 730h, yearly
        // 8760h, then the custom ones.
        assert_eq!(
            rlp,
            &json!({
                "apiVersion": "kuadrant.io/v1",
                "kind": "RateLimitPolicy",
                "metadata": {
                    "name": "toystore-plans",
                    "namespace": "toystore",
                    "ownerReferences": [{
                        "apiVersion": "extensions.kuadrant.io/v1alpha1",
                        "blockOwnerDeletion": true,
                        "controller": true,
                        "kind": "PlanPolicy",
                        "name": "toystore-plans",
                        "uid": "6f1d2c3b-0000-4000-8000-000000000001",
                    }],
                },
                "spec": {
                    "targetRef": {"group": "gateway.networking.k8s.io", "kind": "HTTPRoute", "name": "toystore"},
                    "limits": {
                        "bronze": {
                            "rates": [
                                {"limit": 1, "window": "24h"},
                                {"limit": 20, "window": "730h"},
                                {"limit": 100, "window": "8760h"},
                            ],
                            "when": [{"predicate": "auth.kuadrant.plan == \"bronze\""}],
                        },
                        "gold": {
                            "rates": [
                                {"limit": 5, "window": "24h"},
                                {"limit": 2, "window": "10s"},
                            ],
                            "when": [{"predicate": "auth.kuadrant.plan == \"gold\""}],
                        },
                        "silver": {
                            "rates": [
                                {"limit": 2, "window": "24h"},
                                {"limit": 10, "window": "168h"},
                            ],
                            "when": [{"predicate": "auth.kuadrant.plan == \"silver\""}],
                        },
                    },
                },
            }),
            "{version:?}"
        );
        // The PlanPolicy without a uid: no owner reference is made up.
        let gw = find(&objs, "RateLimitPolicy", "gateway-plans");
        assert!(gw["metadata"].get("ownerReferences").is_none());
        // Its limits reach Limitador like a written RateLimitPolicy's: 24h is 86400 s.
        let limitador = find(&objs, "Limitador", "limitador");
        let gold: Vec<(i64, i64)> = limitador["spec"]["limits"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|l| l["name"] == "gold")
            .map(|l| {
                (
                    l["max_value"].as_i64().unwrap(),
                    l["seconds"].as_i64().unwrap(),
                )
            })
            .collect();
        assert_eq!(gold, [(2, 10), (5, 86400)], "{version:?}");
    }
}

/// The `plan` data goes into the `kuadrant` dynamic metadata of the route's AuthConfig. Of a
/// PlanPolicy on the route and one on its Gateway, the later target ref wins: the route on 1.5
/// (Gateway, then route), the Gateway on 1.4 (HTTPRoute, then Gateway).
#[test]
fn plan_data_in_the_auth_config_and_which_target_wins() {
    let free = "[\"free\"]\n  .filter(i, i in\n    [{\n    \"free\": true,\n    }].map(m, m.filter(key, m[key]))[0])[0]";
    for (version, want) in [(V15, toystore_plan_expression()), (V14, free.to_string())] {
        let l = load_case("plan", version);
        let a = analyze(&l, version);
        let objs = objects(&a);
        let ac: Vec<&Value> = objs.iter().filter(|o| o["kind"] == "AuthConfig").collect();
        assert_eq!(ac.len(), 1, "{version:?}");
        assert_eq!(
            ac[0]["spec"]["response"],
            json!({"success": {"dynamicMetadata": {"kuadrant": {"json": {"properties": {
                "plan": {"expression": want}
            }}}}}}),
            "{version:?}"
        );
        // The AuthPolicy's own rules are kept.
        assert!(ac[0]["spec"]["authentication"]["api-key-users"].is_object());
    }
}

/// A condition's type, status, reason and message.
type Cond = (String, String, String, String);

/// `calculateEnforcedStatus` when the RateLimitPolicy is Enforced; `calculateErrorStatus` with
/// `RateLimitPolicy <name> is not enforced` (an `ErrUnknown`) when it is not (the Gateway's is
/// overridden by the route's), with no Enforced condition.
#[test]
fn plan_policy_status_follows_its_rate_limit_policy() {
    for version in [V14, V15] {
        let l = load_case("plan", version);
        let a = analyze(&l, version);
        let got: Vec<(String, Vec<Cond>)> = a
            .extension_statuses
            .iter()
            .map(|s| {
                let e = &l.model.extensions[s.extension];
                (
                    e.meta.key(),
                    s.conditions()
                        .iter()
                        .map(|c| {
                            (
                                c.type_.clone(),
                                c.status.clone(),
                                c.reason.clone(),
                                c.message.clone(),
                            )
                        })
                        .collect(),
                )
            })
            .collect();
        let c = |t: &str, s: &str, r: &str, m: &str| (t.into(), s.into(), r.into(), m.into());
        assert_eq!(
            got,
            vec![
                (
                    "gateway-system/gateway-plans".to_string(),
                    vec![c(
                        "Accepted",
                        "False",
                        "Unknown",
                        "PlanPolicy has encountered some issues: RateLimitPolicy gateway-plans is not enforced"
                    )]
                ),
                (
                    "toystore/toystore-plans".to_string(),
                    vec![
                        c(
                            "Accepted",
                            "True",
                            "Accepted",
                            "PlanPolicy has been accepted"
                        ),
                        c(
                            "Enforced",
                            "True",
                            "Enforced",
                            "PlanPolicy has been successfully enforced"
                        ),
                    ]
                ),
            ],
            "{version:?}"
        );
    }
}

/// Findings about a PlanPolicy's RateLimitPolicy point into the PlanPolicy and name it.
#[test]
fn findings_about_the_derived_policy_point_at_the_plan_policy() {
    let l = load_case("plan", V15);
    let a = analyze(&l, V15);
    let d = a
        .diagnostics
        .iter()
        .find(|d| d.code.as_str() == "PCTL3001")
        .expect("the Gateway's plans are overridden");
    assert_eq!(
        d.object.as_deref(),
        Some(
            "RateLimitPolicy gateway-system/gateway-plans (created by PlanPolicy gateway-system/gateway-plans)"
        )
    );
    let pos = l.sources.position(d.primary_span().unwrap()).unwrap();
    let text = std::fs::read_to_string(format!(
        "{}/testdata/extensions/plan/input.yaml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let line = text.lines().nth(pos.line - 1).unwrap();
    assert_eq!(line, "  name: gateway-plans");
    let prev = text.lines().nth(pos.line - 3).unwrap();
    assert_eq!(prev, "kind: PlanPolicy");
}

/// OIDCPolicy (kuadrant-operator v1.5.2 and v1.4.6
/// `cmd/extensions/oidc-policy/internal/controller/oidcpolicy_reconciler.go` `buildMainAuthPolicy`,
/// `buildCallbackHTTPRoute`, `buildCallbackAuthPolicy`, `credentialsHeader`; URLs from
/// `api/v1alpha1/oidcpolicy_types.go` and its test `TestGetAuthorizeURL`, whose encoding
/// `redirect_uri=https%3A%2F%2Fgateway.example.com%2Fauth%2Fcallback` the values below follow).
/// The gateway's first listener is HTTP on port 8080: 1.5 writes the port into the gateway URL
/// (`TestIngressGatewayInfo_GetURL`, "HTTP non-standard port 8080"), 1.4 does not.
fn oidc_objects(version: KuadrantVersion) -> (Loaded, Vec<Value>) {
    let l = load_case("oidc", version);
    assert!(!l.diagnostics.has_errors(), "{:?}", l.diagnostics);
    let a = analyze(&l, version);
    let objs: Vec<Value> = objects(&a)
        .into_iter()
        .filter(|o| {
            o["metadata"]["name"]
                .as_str()
                .unwrap_or("")
                .starts_with("toystore-oidc")
        })
        .collect();
    (l, objs)
}

const OIDC_OWNER: &str = "6b1e3c8a-0f52-4b3e-9f1a-2d7c5e8a9b10";

#[test]
fn oidc_policy_objects_v15() {
    let (l, objs) = oidc_objects(V15);
    assert_eq!(objs.len(), 3, "{objs:#?}");
    let gw = "http://api.toystore.example.com:8080";
    let redirect = "http%3A%2F%2Fapi.toystore.example.com%3A8080%2Fauth%2Fcallback";
    let authorize = format!(
        "https://idp.example.com/realms/demo/oauth/authorize?client_id=toystore&redirect_uri={redirect}&response_type=code&scope=openid"
    );
    let main = find(&objs, "AuthPolicy", "toystore-oidc");
    assert_eq!(main["metadata"]["ownerReferences"][0]["uid"], OIDC_OWNER);
    assert_eq!(main["metadata"]["ownerReferences"][0]["kind"], "OIDCPolicy");
    assert_eq!(main["metadata"]["ownerReferences"][0]["controller"], true);
    assert_eq!(
        main["spec"]["targetRef"],
        json!({"group": "gateway.networking.k8s.io", "kind": "HTTPRoute", "name": "toystore"})
    );
    let o = &main["spec"]["overrides"];
    assert_eq!(o["strategy"], "merge");
    assert_eq!(
        o["rules"]["authentication"]["oidc"],
        json!({"credentials": {"cookie": {"name": "jwt"}}, "jwt": {"issuerUrl": "https://idp.example.com/realms/demo"}})
    );
    let authz = &o["rules"]["authorization"]["oidc"];
    assert_eq!(
        authz["when"],
        json!([{"predicate": "auth.identity.iss == \"https://idp.example.com/realms/demo\""}])
    );
    assert_eq!(
        authz["patternMatching"]["patterns"][1]["predicate"],
        "has(auth.identity) && has(auth.identity.group) && (auth.identity.group == \"developers\" || (type(auth.identity.group) == list && \"developers\" in auth.identity.group))"
    );
    // `MergeableResponseSpec.Success` is held by value: Go writes it as `{}`.
    assert_eq!(o["rules"]["response"]["success"], json!({}));
    let unauth = &o["rules"]["response"]["unauthenticated"];
    assert_eq!(unauth["code"], 302);
    assert_eq!(unauth["headers"]["location"]["value"], authorize.as_str());
    assert_eq!(
        unauth["headers"]["set-cookie"]["expression"],
        "\n\"target=\" + request.url_path + (has(request.query) && request.query != \"\" ? \"?\" + request.query : \"\") + \"; domain=api.toystore.example.com; HttpOnly;  SameSite=Lax; Path=/; Max-Age=3600\""
    );

    let route = find(&objs, "HTTPRoute", "toystore-oidc-callback");
    assert_eq!(
        route["spec"],
        json!({
            "parentRefs": [{"name": "api-gateway", "namespace": "gateway-system"}],
            "rules": [{"matches": [{"path": {"type": "PathPrefix", "value": "/auth/callback"}}]}],
        })
    );

    let cb = find(&objs, "AuthPolicy", "toystore-oidc-callback");
    assert_eq!(cb["spec"]["targetRef"]["name"], "toystore-oidc-callback");
    let rules = &cb["spec"]["overrides"]["rules"];
    let http = &rules["metadata"]["token"]["http"];
    assert_eq!(
        http["url"],
        "https://idp.example.com/realms/demo/oauth/token"
    );
    assert_eq!(http["method"], "POST");
    let body = http["body"]["expression"].as_str().unwrap();
    for part in [
        "&client_id=toystore",
        "&grant_type=authorization_code",
        &format!("&redirect_uri={redirect}"),
    ] {
        assert!(body.contains(part), "{body}");
    }
    let rego = rules["authorization"]["location"]["opa"]["rego"]
        .as_str()
        .unwrap();
    assert!(rego.contains(&format!("concat(\"\", [\"{gw}\", cookies.target])")));
    assert!(rego.contains(&format!(
        "location := \"{authorize}\" {{ not input.auth.metadata.token.id_token }}"
    )));
    assert!(rego.contains("eq_idx := indexof(trimmed, \"=\")"));
    assert_eq!(rules["authorization"]["location"]["priority"], 1);
    assert_eq!(
        rules["authorization"]["deny"],
        json!({"opa": {"rego": "allow = false"}, "priority": 2})
    );
    assert_eq!(
        rules["response"]["unauthorized"]["headers"],
        json!({
            "location": {"expression": "auth.authorization.location.location"},
            "set-cookie": {"expression": "\n\"jwt=\" + auth.metadata.token.id_token + \"; domain=api.toystore.example.com; HttpOnly;  SameSite=Lax; Path=/; Max-Age=3600\"\n"},
        })
    );

    // Status: both AuthPolicies enforced, so the OIDCPolicy is Accepted and Enforced.
    let a = analyze(&l, V15);
    let st = a
        .extension_statuses
        .iter()
        .find(|s| l.model.extensions[s.extension].meta.name == "toystore-oidc")
        .unwrap();
    assert_eq!(
        st.enforced.as_ref().unwrap().message,
        "OIDCPolicy has been successfully enforced"
    );
    // The map orders policyctl chose are announced.
    assert!(l.diagnostics.iter().any(|d| d.code.as_str() == "PCTL3026"));
}

#[test]
fn oidc_policy_objects_v14() {
    let (_l, objs) = oidc_objects(V14);
    assert_eq!(objs.len(), 3);
    let main = find(&objs, "AuthPolicy", "toystore-oidc");
    let rules = &main["spec"]["overrides"]["rules"];
    // v1.4.6: no port in the gateway URL, `"v" in auth.identity.k` claims, `request.path` cookie.
    assert_eq!(
        rules["response"]["unauthenticated"]["headers"]["location"]["value"],
        "https://idp.example.com/realms/demo/oauth/authorize?client_id=toystore&redirect_uri=http%3A%2F%2Fapi.toystore.example.com%2Fauth%2Fcallback&response_type=code&scope=openid"
    );
    assert_eq!(
        rules["authorization"]["oidc"]["patternMatching"]["patterns"],
        json!([{"predicate": "\"true\" in auth.identity.email_verified"}, {"predicate": "\"developers\" in auth.identity.group"}])
    );
    assert_eq!(
        rules["response"]["unauthenticated"]["headers"]["set-cookie"]["expression"],
        "\n\"target=\" + request.path + \"; domain=api.toystore.example.com; HttpOnly;  SameSite=Lax; Path=/; Max-Age=3600\""
    );
    let cb = find(&objs, "AuthPolicy", "toystore-oidc-callback");
    let rego = cb["spec"]["overrides"]["rules"]["authorization"]["location"]["opa"]["rego"]
        .as_str()
        .unwrap();
    assert!(rego.contains("count(kv) == 2"));
    assert!(rego.contains("concat(\"\", [\"http://api.toystore.example.com\", cookies.target])"));
}

/// ThreatPolicy status (kuadrant-operator v1.5.2 `cmd/extensions/threat-policy/internal/controller/
/// threatpolicy_reconciler.go` `validateTarget`, `internal/kuadrant/errors.go` `ErrTargetNotFound`,
/// `pkg/extension/controller/utils.go`): Accepted and Enforced when its target exists, else
/// `Accepted=False` `TargetNotFound`.
#[test]
fn threat_policy_status_follows_its_target() {
    let l = load_case("others", V15);
    let a = analyze(&l, V15);
    let threat = |a: &Analysis, l: &Loaded| {
        a.extension_statuses
            .iter()
            .find(|s| l.model.extensions[s.extension].meta.name == "threat")
            .cloned()
            .unwrap()
    };
    let st = threat(&a, &l);
    assert_eq!(st.accepted.message, "ThreatPolicy has been accepted");
    assert_eq!(
        st.enforced.unwrap().message,
        "ThreatPolicy has been successfully enforced"
    );
    let text = "apiVersion: extensions.kuadrant.io/v1alpha1\nkind: ThreatPolicy\nmetadata:\n  name: threat\n  namespace: default\nspec:\n  targetRef:\n    group: gateway.networking.k8s.io\n    kind: HTTPRoute\n    name: missing\n  threshold: 3\n";
    let l = load(
        &[Input::Text {
            name: "threat.yaml".into(),
            bytes: text.as_bytes().to_vec(),
        }],
        &LoadOptions {
            version: V15,
            ..LoadOptions::default()
        },
    );
    let a = analyze(&l, V15);
    let st = threat(&a, &l);
    assert_eq!(st.accepted.status, "False");
    assert_eq!(st.accepted.reason, "TargetNotFound");
    assert_eq!(
        st.accepted.message,
        "ThreatPolicy target missing was not found"
    );
    assert!(st.enforced.is_none());
}

/// OIDCPolicy and ThreatPolicy load; what they add is announced, never silently left out: the
/// ThreatPolicy's Gateway has no action sets, so its actions are not modelled (PCTL3028).
/// ThreatPolicy ships from 1.5 only.
#[test]
fn other_extensions_are_validated_and_announced() {
    let l = load_case("others", V15);
    assert!(!l.diagnostics.has_errors(), "{:?}", l.diagnostics);
    assert_eq!(l.model.extensions.len(), 3);
    assert!(l.diagnostics.iter().all(|d| d.code.as_str() != "PCTL3024"));
    let a = analyze(&l, V15);
    assert_eq!(
        codes_of(&a, "PCTL3028"),
        ["ThreatPolicy gateway-system/threat"]
    );
    // The OIDCPolicy's Gateway listener has no hostname: its controller cannot build its URLs.
    let no_gateway: Vec<&str> = l
        .diagnostics
        .iter()
        .filter(|d| d.code.as_str() == "PCTL3025")
        .filter_map(|d| d.object.as_deref())
        .collect();
    assert_eq!(no_gateway, ["OIDCPolicy gateway-system/oidc"]);
    assert!(l.model.derived_objects.is_empty());
    let l = load_case("others", V14);
    let not_shipped: Vec<&str> = l
        .diagnostics
        .iter()
        .filter(|d| d.code.as_str() == "PCTL1013")
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(
        not_shipped,
        [
            "ThreatPolicy is not shipped by the Kuadrant operator 1.4: it is shipped from 1.5 (v1.5.2)"
        ]
    );
    assert_eq!(l.model.extensions.len(), 2);
}

/// A TelemetryPolicy registers each label as `metrics.labels.<label>` in the request domain
/// (`KuadrantMetricBinding`), which becomes the `requestData` of the wasm configuration of the
/// Gateway it targets; it is Accepted and Enforced.
#[test]
fn telemetry_labels_become_request_data() {
    let want = json!({
        "metrics.labels.model": "request.headers[\"x-model\"]",
        "metrics.labels.user": "auth.identity.userid",
    });
    for version in [V14, V15] {
        let l = load_case("telemetry", version);
        assert!(!l.diagnostics.has_errors(), "{:?}", l.diagnostics);
        let a = analyze(&l, version);
        let objs = objects(&a);
        let config = match version {
            V14 => {
                find(&objs, "WasmPlugin", "kuadrant-api-gateway")["spec"]["pluginConfig"].clone()
            }
            _ => {
                let ef = find(&objs, "EnvoyFilter", "kuadrant-api-gateway");
                let text = ef["spec"]["configPatches"][0]["patch"]["value"]["typed_config"]["value"]
                    ["config"]["configuration"]["value"]
                    .as_str()
                    .unwrap();
                serde_json::from_str(text).unwrap()
            }
        };
        assert_eq!(config["requestData"], want, "{version:?}");
        let s = &a.extension_statuses;
        assert_eq!(s.len(), 1);
        let conds: Vec<(&str, &str)> = s[0]
            .conditions()
            .iter()
            .map(|c| (c.type_.as_str(), c.message.as_str()))
            .collect();
        assert_eq!(
            conds,
            [
                ("Accepted", "TelemetryPolicy has been accepted"),
                ("Enforced", "TelemetryPolicy has been successfully enforced")
            ]
        );
    }
    // Without a TelemetryPolicy there is no requestData.
    let l = load_case("plan", V14);
    let a = analyze(&l, V14);
    let objs = objects(&a);
    let wp = find(&objs, "WasmPlugin", "kuadrant-api-gateway");
    assert!(wp["spec"]["pluginConfig"].get("requestData").is_none());
}

fn doc(kind: &str, spec: &str) -> String {
    format!(
        "apiVersion: extensions.kuadrant.io/v1alpha1\nkind: {kind}\nmetadata:\n  name: x\n  namespace: ns\nspec:\n{spec}"
    )
}

const GW: &str = "  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}\n";

/// `(code, message)` of every error of one document.
fn errors(text: &str, version: KuadrantVersion) -> Vec<(String, String)> {
    let l = common::load_docs(&[text.to_string()], version);
    l.diagnostics
        .iter()
        .filter(|d| d.severity == policyctl::diag::Severity::Error)
        .map(|d| (d.code.as_str().to_string(), d.message.clone()))
        .collect()
}

/// The CRD schemas and CEL rules, each message the CRD's own.
#[test]
fn crd_rules_per_kind_and_version() {
    let e = |c: &str, m: &str| vec![(c.to_string(), m.to_string())];
    let plan_grpc = doc(
        "PlanPolicy",
        "  targetRef: {group: gateway.networking.k8s.io, kind: GRPCRoute, name: r}\n  plans: [{tier: a, predicate: 'true'}]\n",
    );
    assert_eq!(
        errors(&plan_grpc, V14),
        e(
            "PCTL1010",
            "spec.targetRef: Invalid value: \"object\": Invalid targetRef.kind. The only supported values are 'HTTPRoute' and 'Gateway'"
        )
    );
    assert_eq!(errors(&plan_grpc, V15), vec![]);
    let plan_svc = doc(
        "PlanPolicy",
        "  targetRef: {group: gateway.networking.k8s.io, kind: Service, name: r}\n  plans: [{tier: a, predicate: 'true'}]\n",
    );
    assert_eq!(
        errors(&plan_svc, V15),
        e(
            "PCTL1010",
            "spec.targetRef: Invalid value: \"object\": Invalid targetRef.kind. The only supported values are 'HTTPRoute', 'GRPCRoute', and 'Gateway'"
        )
    );
    let plan_group = doc(
        "PlanPolicy",
        "  targetRef: {group: example.com, kind: Gateway, name: r}\n  plans: [{tier: a, predicate: 'true'}]\n",
    );
    assert_eq!(
        errors(&plan_group, V15),
        e(
            "PCTL1010",
            "spec.targetRef: Invalid value: \"object\": Invalid targetRef.group. The only supported value is 'gateway.networking.k8s.io'"
        )
    );
    let no_tier = doc(
        "PlanPolicy",
        &format!("{GW}  plans: [{{predicate: 'true'}}]\n"),
    );
    assert_eq!(
        errors(&no_tier, V15),
        e("PCTL1008", "spec.plans[0].tier: Required value")
    );
    let empty_predicate = doc(
        "PlanPolicy",
        &format!("{GW}  plans: [{{tier: a, predicate: ''}}]\n"),
    );
    assert_eq!(
        errors(&empty_predicate, V15)[0].0,
        "PCTL1009",
        "predicate: minLength 1"
    );
    // No plans: the PlanPolicy is valid, the RateLimitPolicy its controller creates is not.
    let no_plans = doc("PlanPolicy", &format!("{GW}  plans: []\n"));
    assert_eq!(
        errors(&no_plans, V15),
        e("PCTL1010", "At least one spec.limits must be defined")
    );
    let tele_route = doc(
        "TelemetryPolicy",
        "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}\n  metrics: {default: {labels: {a: b}}}\n",
    );
    assert_eq!(
        errors(&tele_route, V14),
        e(
            "PCTL1010",
            "spec.targetRef: Invalid value: \"object\": Invalid targetRef.kind. The only supported value is 'Gateway'"
        )
    );
    let tele_empty = doc(
        "TelemetryPolicy",
        &format!("{GW}  metrics: {{default: {{labels: {{}}}}}}\n"),
    );
    assert_eq!(errors(&tele_empty, V15)[0].0, "PCTL1009", "minProperties 1");
    let both = doc(
        "OIDCPolicy",
        &format!(
            "{GW}  provider: {{clientID: c, issuerURL: 'https://i', jwksURL: 'https://j', authorizationEndpoint: a, tokenEndpoint: t}}\n"
        ),
    );
    assert_eq!(
        errors(&both, V15),
        e(
            "PCTL1010",
            "spec.provider: Invalid value: \"object\": Use one of: jwksURL, issuerURL"
        )
    );
    let jwks = doc(
        "OIDCPolicy",
        &format!("{GW}  provider: {{clientID: c, jwksURL: 'https://j'}}\n"),
    );
    assert_eq!(
        errors(&jwks, V14),
        e(
            "PCTL1010",
            "spec.provider: Invalid value: \"object\": When jwksURL is set, authorizationEndpoint and tokenEndpoint must also be provided"
        )
    );
    // The operator's own sample spells `cliendID`: the API server refuses it (an unknown field, and
    // clientID required).
    let sample = doc(
        "OIDCPolicy",
        "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: example-route}\n  provider:\n    cliendID: exampleID\n    issuerURL: https://idp.example.org/\n",
    );
    assert_eq!(
        errors(&sample, V15),
        vec![
            (
                "PCTL1014".to_string(),
                "unknown field \"spec.provider.cliendID\"".to_string()
            ),
            (
                "PCTL1008".to_string(),
                "spec.provider.clientID: Required value".to_string()
            )
        ]
    );
    let cookie = doc(
        "OIDCPolicy",
        &format!(
            "{GW}  provider: {{clientID: c, issuerURL: 'https://i'}}\n  auth: {{tokenSource: {{cookie: {{}}}}}}\n"
        ),
    );
    assert_eq!(
        errors(&cookie, V15),
        e(
            "PCTL1008",
            "spec.auth.tokenSource.cookie.name: Required value"
        )
    );
    let claims = doc(
        "OIDCPolicy",
        &format!(
            "{GW}  provider: {{clientID: c, issuerURL: 'https://i'}}\n  auth: {{claims: {{group: [a]}}}}\n"
        ),
    );
    assert_eq!(errors(&claims, V15)[0].0, "PCTL1007", "claims: strings");
    let threat = doc("ThreatPolicy", &format!("{GW}  threshold: 11\n"));
    assert_eq!(errors(&threat, V15)[0].0, "PCTL1009", "maximum 10");
    assert_eq!(errors(&threat, V14)[0].0, "PCTL1013", "not shipped by 1.4");
    let unserved = "apiVersion: extensions.kuadrant.io/v1beta1\nkind: PlanPolicy\nmetadata: {name: x}\nspec: {}\n";
    assert_eq!(errors(unserved, V15)[0].0, "PCTL1004");
}

/// Estates without extension policies compute exactly as before: no derived objects, no plan data.
#[test]
fn estates_without_extensions_get_nothing_new() {
    let path = format!("{}/testdata/examples/toystore", env!("CARGO_MANIFEST_DIR"));
    let l = load(
        &[Input::Path(path.into())],
        &LoadOptions {
            version: V15,
            ..LoadOptions::default()
        },
    );
    assert!(l.model.extensions.is_empty());
    assert!(
        l.model
            .policies
            .iter()
            .all(|p| p.meta.derived_from.is_none())
    );
    let a = analyze(&l, V15);
    assert!(a.extension_statuses.is_empty());
    for o in objects(&a) {
        if o["kind"] == "AuthConfig" {
            assert!(
                o["spec"]["response"]["success"]["dynamicMetadata"]
                    .get("kuadrant")
                    .is_none()
            );
        }
    }
}

/// `graph` draws each extension policy with an edge to its target and a dotted one to the policy
/// its controller creates; the operator's own topology (`--compat policy-machinery`) has neither.
#[test]
fn graph_draws_extensions_and_what_they_derive() {
    use policyctl::Topology;
    use policyctl::render::graph::{self, Selection};
    let l = load_case("plan", V15);
    let t = Topology::build(&l.model);
    let dot = graph::dot(&t, &Selection::all());
    let plan = "\"planpolicy.extensions.kuadrant.io:toystore/toystore-plans\"";
    assert!(dot.contains(&format!(
        "\t{plan} [label=\"PlanPolicy\\ntoystore/toystore-plans\",shape=\"note\",style=\"dashed\"];\n"
    )));
    assert!(dot.contains(&format!(
        "\t{plan} -> \"ratelimitpolicy.kuadrant.io:toystore/toystore-plans\" [comment=\"PlanPolicy -> RateLimitPolicy\",style=\"dotted\"];\n"
    )));
    assert!(dot.contains(&format!(
        "\t{plan} -> \"httproute.gateway.networking.k8s.io:toystore/toystore\" [comment=\"Policy -> Target\",style=\"dashed\"];\n"
    )));
    let compat = graph::dot_compat(&t, &Selection::all());
    assert!(!compat.contains("PlanPolicy"));
    assert!(compat.contains("RateLimitPolicy\\ntoystore/toystore-plans"));
    let json: Value = serde_json::from_str(&graph::json(&t, &Selection::all())).unwrap();
    let derived: Vec<(&str, &str)> = json["edges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "derived")
        .map(|e| (e["from"].as_str().unwrap(), e["to"].as_str().unwrap()))
        .collect();
    assert_eq!(
        derived,
        [
            (
                "planpolicy.extensions.kuadrant.io:gateway-system/gateway-plans",
                "ratelimitpolicy.kuadrant.io:gateway-system/gateway-plans"
            ),
            (
                "planpolicy.extensions.kuadrant.io:toystore/toystore-plans",
                "ratelimitpolicy.kuadrant.io:toystore/toystore-plans"
            ),
        ]
    );
    let focus = graph::parse_focus("planpolicy/toystore/toystore-plans").unwrap();
    assert!(Selection::focus(&t, &focus).is_some());
}

/// `explain` names the PlanPolicy a RateLimitPolicy comes from.
#[test]
fn explain_names_the_plan_policy() {
    use policyctl::Topology;
    let l = load_case("plan", V15);
    let t = Topology::build(&l.model);
    let target = policyctl::parse_target("httproute/toystore/toystore").unwrap();
    let e = policyctl::explain(&t, &target, None).unwrap();
    let text = policyctl::render::explain::text(&e);
    assert!(text.contains(
        "      2. toystore/toystore-plans (created by PlanPolicy toystore/toystore-plans) on HTTPRoute toystore/toystore — implicit defaults, atomic\n"
    ), "{text}");
    assert!(text.contains("      1. toystore/toystore-auth on HTTPRoute toystore/toystore"));
}

/// A RateLimitPolicy of the PlanPolicy's name in the input is replaced by the PlanPolicy's (the
/// controller's `rlpSpecMutator` overwrites its targetRef and limits), and reported.
#[test]
fn a_written_rate_limit_policy_of_the_same_name_is_replaced() {
    let plan = doc(
        "PlanPolicy",
        &format!("{GW}  plans: [{{tier: gold, predicate: 'true', limits: {{daily: 3}}}}]\n"),
    );
    let rlp = "apiVersion: kuadrant.io/v1\nkind: RateLimitPolicy\nmetadata: {name: x, namespace: ns}\nspec:\n  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: other}\n  limits:\n    l: {rates: [{limit: 1, window: 1m}]}\n";
    let l = common::load_docs(&[plan, rlp.to_string()], V15);
    let codes: Vec<&str> = l.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert!(codes.contains(&"PCTL3023"), "{codes:?}");
    let rlps: Vec<_> = l
        .model
        .policies
        .iter()
        .filter(|p| p.meta.key() == "ns/x")
        .collect();
    assert_eq!(rlps.len(), 1);
    assert_eq!(rlps[0].target.name.value, "gw");
    assert_eq!(
        rlps[0].meta.derived_from.as_deref(),
        Some("PlanPolicy ns/x")
    );
}

/// `graph` draws an OIDCPolicy's dotted edges to its two AuthPolicies and its callback HTTPRoute.
#[test]
fn graph_draws_what_an_oidc_policy_derives() {
    use policyctl::Topology;
    use policyctl::render::graph::{self, Selection};
    let l = load_case("oidc", V15);
    let t = Topology::build(&l.model);
    let json: Value = serde_json::from_str(&graph::json(&t, &Selection::all())).unwrap();
    let mut derived: Vec<(&str, &str)> = json["edges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "derived")
        .map(|e| (e["from"].as_str().unwrap(), e["to"].as_str().unwrap()))
        .collect();
    derived.sort();
    let from = "oidcpolicy.extensions.kuadrant.io:toystore/toystore-oidc";
    assert_eq!(
        derived,
        [
            (from, "authpolicy.kuadrant.io:toystore/toystore-oidc"),
            (
                from,
                "authpolicy.kuadrant.io:toystore/toystore-oidc-callback"
            ),
            (
                from,
                "httproute.gateway.networking.k8s.io:toystore/toystore-oidc-callback"
            ),
        ]
    );
}

/// Two OIDCPolicies read in either file order give the same derived objects.
#[test]
fn oidc_expansion_does_not_depend_on_input_order() {
    let dir = format!("{}/testdata/extensions/oidc", env!("CARGO_MANIFEST_DIR"));
    let base = std::fs::read_to_string(format!("{dir}/input.yaml")).unwrap();
    let second = base
        .split("\n---\n")
        .last()
        .unwrap()
        .replace("toystore-oidc", "second-oidc")
        .replace("  uid: 6b1e3c8a-0f52-4b3e-9f1a-2d7c5e8a9b10\n", "");
    let run = |files: [(&str, &str); 2]| {
        let inputs: Vec<Input> = files
            .iter()
            .map(|(n, t)| Input::Text {
                name: n.to_string(),
                bytes: t.as_bytes().to_vec(),
            })
            .collect();
        let l = load(
            &inputs,
            &LoadOptions {
                version: V15,
                ..LoadOptions::default()
            },
        );
        let a = analyze(&l, V15);
        serde_json::to_string(&objects(&a)).unwrap()
    };
    let ab = run([("a.yaml", base.as_str()), ("b.yaml", second.as_str())]);
    let ba = run([("b.yaml", second.as_str()), ("a.yaml", base.as_str())]);
    assert_eq!(ab, ba);
    assert!(ab.contains("second-oidc-callback"));
}

/// The objects of the diagnostics with `code` after the whole pipeline.
fn codes_of<'a>(a: &'a Analysis, code: &str) -> Vec<&'a str> {
    a.diagnostics
        .iter()
        .filter(|d| d.code.as_str() == code)
        .filter_map(|d| d.object.as_deref())
        .collect()
}

/// The wasm configuration of a 1.5 Istio gateway (the JSON text in its EnvoyFilter).
fn wasm_config_15(objs: &[Value], name: &str) -> Value {
    let ef = find(objs, "EnvoyFilter", name);
    let text = ef["spec"]["configPatches"][0]["patch"]["value"]["typed_config"]["value"]["config"]
        ["configuration"]["value"]
        .as_str()
        .unwrap();
    serde_json::from_str(text).unwrap()
}

/// A ThreatPolicy on a Gateway at 1.5 (golden values from kuadrant-operator v1.5.2):
/// - `cmd/extensions/threat-policy/internal/controller/threatpolicy_reconciler.go`
///   `reconcileSpec`: the `assess-threat` method (URL, service, method, message template), the
///   request actions (grpc into `threatResponse`, fail `< 0`, deny `>= threshold` with status,
///   headers, body) and the response add-headers action;
/// - `internal/extension/manager.go` `RegisterActionMethod` (failure mode deny, timeout 100ms) and
///   `generateClusterName` (`ext-` + host with `[^a-zA-Z0-9-]` → `-` + `-port`);
/// - `internal/extension/registry.go` `mutateWasmConfig` (service key `ext-` +
///   `HashUpstreamServiceConfig`, `descriptorService: kuadrant-operator-grpc`, policies sorted by
///   kind/namespace/name, typed actions appended to every set of a Gateway target),
///   `translatePipelineToTypedActions` (the actions that read the variable go to the grpc
///   action's `onReply`, request then response), `entryToTypedAction`, `buildDenyResponseExpr`,
///   `grpcToTypedAction`, `predicateOrTrue`;
/// - `internal/wasm/types.go` `TypedAction` (`terminal` always written), `ActionSet.MarshalJSON`
///   (legacy actions, then typed ones).
///
/// The service key is `"ext-"` + hex of the first 8 bytes of SHA-256 over
/// `dynamic|ext-threat-assessment-service-security-svc-cluster-local-8080|deny|100ms|threat.v1.ThreatAssessmentService|AssessRequest`
/// (computed with `sha256sum` from that formula: 876d9553a6e80745).
#[test]
fn threat_policy_adds_its_typed_actions_to_the_gateway_wasm_config() {
    let l = load_case("threat", V15);
    assert!(!l.diagnostics.has_errors(), "{:?}", l.diagnostics);
    let a = analyze(&l, V15);
    let objs = objects(&a);
    let config = wasm_config_15(&objs, "kuadrant-api-gateway");
    let key = "ext-876d9553a6e80745";
    assert_eq!(
        config["services"][key],
        json!({
            "endpoint": "ext-threat-assessment-service-security-svc-cluster-local-8080",
            "type": "dynamic",
            "failureMode": "deny",
            "timeout": "100ms",
            "grpcService": "threat.v1.ThreatAssessmentService",
            "grpcMethod": "AssessRequest",
        })
    );
    assert_eq!(config["descriptorService"], "kuadrant-operator-grpc");
    let threat = |name: &str, threshold: i64| {
        let sources = json!([format!("ThreatPolicy/gateway-system/{name}")]);
        json!({
            "type": "grpc",
            "predicate": "true",
            "terminal": false,
            "var": "threatResponse",
            "service": key,
            "messageBuilder": "threat.v1.ThreatRequest{uri: request.path, source_ip: source.address}",
            "sources": sources,
            "onReply": [
                {
                    "type": "fail",
                    "predicate": "threatResponse.threat_level < 0",
                    "terminal": true,
                    "logMessage": "threat assessment returned invalid threat_level",
                    "sources": sources,
                },
                {
                    "type": "deny",
                    "predicate": format!("threatResponse.threat_level >= {threshold}"),
                    "terminal": true,
                    "denyWith": "DenyResponse{status: 403u, headers: [[\"x-threat-blocked\", \"true\"], [\"x-threat-level\", string(threatResponse.threat_level)]], body: 'Request blocked: threat level exceeds threshold'}",
                    "sources": sources,
                },
                {
                    "type": "headers",
                    "predicate": "true",
                    "terminal": false,
                    "target": "response",
                    "headers": format!("[[\"x-threat-threshold\", \"{threshold}\"], [\"x-threat-score\", string(threatResponse.threat_level)]]"),
                    "sources": sources,
                },
            ],
        })
    };
    let sets = config["actionSets"].as_array().unwrap();
    assert_eq!(sets.len(), 1);
    let actions = sets[0]["actions"].as_array().unwrap();
    // The RateLimitPolicy's action first, then one grpc action per ThreatPolicy, audit before strict.
    assert_eq!(actions.len(), 3);
    assert_eq!(actions[0]["service"], "ratelimit-service");
    assert_eq!(actions[1], threat("audit", 9));
    assert_eq!(actions[2], threat("strict", 7));
    // No ThreatPolicy on the other gateway: no EnvoyFilter (no action sets), and it is announced.
    assert!(
        !objs
            .iter()
            .any(|o| o["metadata"]["name"] == "kuadrant-bare-gateway")
    );
    assert_eq!(
        codes_of(&a, "PCTL3027"),
        [
            "ThreatPolicy gateway-system/strict",
            "ThreatPolicy gateway-system/audit"
        ]
    );
    assert_eq!(
        codes_of(&a, "PCTL3028"),
        ["ThreatPolicy gateway-system/bare"]
    );
    assert_eq!(codes_of(&a, "PCTL3024"), ["ThreatPolicy toystore/on-route"]);
    // Without a ThreatPolicy (the TelemetryPolicy case) there is no dynamic service.
    let l = load_case("telemetry", V15);
    let a = analyze(&l, V15);
    let config = wasm_config_15(&objects(&a), "kuadrant-api-gateway");
    assert!(config.get("descriptorService").is_none());
    assert_eq!(config["services"].as_object().unwrap().len(), 4);
}

/// `simulate` runs the legacy actions of the selected set and names the typed ones it does not run
/// (the shim reads an action with a `type` as typed: wasm-shim v0.14.1 src/configuration.rs).
#[test]
fn simulate_names_the_threat_actions_it_does_not_run() {
    let dir = format!("{}/testdata/extensions/threat", env!("CARGO_MANIFEST_DIR"));
    let out = common::policyctl()
        .args([
            "simulate",
            "--kuadrant-version",
            "1.5",
            "-o",
            "json",
            "-f",
            &dir,
        ])
        .arg("http://api.toystore.com/toys")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let t = &v["requests"][0];
    assert_eq!(t["actions"].as_array().unwrap().len(), 1);
    assert_eq!(
        t["notSimulated"],
        json!([
            "grpc ThreatPolicy/gateway-system/audit",
            "grpc ThreatPolicy/gateway-system/strict"
        ])
    );
    assert_eq!(t["allowed"], true);
}

/// On Envoy Gateway the same typed actions reach the `EnvoyExtensionPolicy`, and the typed YAML
/// writer prints them as the tree writer does.
#[test]
fn threat_actions_on_envoy_gateway_print_as_the_tree_writer_does() {
    let path = format!(
        "{}/testdata/extensions/threat/input.yaml",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path)
        .unwrap()
        .replace("gatewayClassName: istio", "gatewayClassName: eg");
    let l = common::load_docs(&[text], V15);
    assert!(!l.diagnostics.has_errors(), "{:?}", l.diagnostics);
    let a = analyze(&l, V15);
    let values = objects(&a);
    let eep = find(&values, "EnvoyExtensionPolicy", "kuadrant-api-gateway");
    let config = &eep["spec"]["wasm"][0]["config"];
    let actions = config["actionSets"][0]["actions"].as_array().unwrap();
    let kinds: Vec<&str> = actions
        .iter()
        .map(|a| a.get("type").and_then(Value::as_str).unwrap_or("legacy"))
        .collect();
    assert_eq!(kinds, ["legacy", "grpc", "grpc"]);
    assert_eq!(config["descriptorService"], "kuadrant-operator-grpc");
    let typed = policyctl::render::objects::yaml_objects(&a.generated.objects).unwrap();
    assert_eq!(typed, policyctl::render::objects::yaml(&values).unwrap());
}

/// PCTL3030: on 1.5 the shim writes each TelemetryPolicy label into every rate-limit request as
/// `string(expression)` (wasm-shim v0.14.1 src/configuration/legacy_translation.rs
/// `build_ratelimit_message_builder`), with `auth` null before the auth action (src/data/cel.rs
/// `eval`), so `auth.identity.userid` fails there for every request, and the RateLimitPolicy's
/// action with it (failure mode allow). The label on a request header fails request by request:
/// not reported. Nothing on 1.4, whose shim leaves such a label out (v0.12.3
/// src/services/rate_limit.rs `build_request`); nothing for a guarded label, or for a policy whose
/// limits run after an auth action.
#[test]
fn telemetry_labels_that_fail_before_auth_turn_rate_limits_off() {
    let l = load_case("telemetry", V15);
    let a = analyze(&l, V15);
    let found: Vec<_> = (a.diagnostics.iter())
        .filter(|d| d.code.as_str() == "PCTL3030")
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    let d = found[0];
    assert_eq!(
        d.object.as_deref(),
        Some("TelemetryPolicy gateway-system/user-metrics")
    );
    for part in [
        "label `user` is written into every rate-limit request of Gateway gateway-system/api-gateway as `string(auth.identity.userid)`",
        "(auth.identity.userid: No such overload)",
        "RateLimitPolicy toystore/toystore-rlp",
    ] {
        assert!(d.message.contains(part), "{part}: {}", d.message);
    }
    let l = load_case("telemetry", V14);
    let a = analyze(&l, V14);
    assert!(a.diagnostics.iter().all(|d| d.code.as_str() != "PCTL3030"));

    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(format!(
        "{}/testdata/extensions/telemetry/input.yaml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let guarded = text.replace(
        "user: auth.identity.userid",
        "user: 'auth == null ? \"\" : auth.identity.userid'",
    );
    // An AuthPolicy on the route and a counter on `auth.`: the limit runs after the auth action.
    let after_auth = text.replace(
        "      rates: [{limit: 100, window: 1m}]\n",
        "      rates: [{limit: 100, window: 1m}]\n      counters: [{expression: auth.identity.userid}]\n",
    ) + "---\napiVersion: kuadrant.io/v1\nkind: AuthPolicy\nmetadata: {name: auth, namespace: toystore}\nspec:\n  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: toystore}\n  rules:\n    authentication:\n      anon: {anonymous: {}}\n";
    for (name, estate) in [("guarded", guarded), ("after-auth", after_auth)] {
        assert_ne!(estate, text, "{name}");
        let file = dir.path().join(format!("{name}.yaml"));
        std::fs::write(&file, estate).unwrap();
        let l = load(
            &[Input::Path(file)],
            &LoadOptions {
                default_namespace: "default".into(),
                version: V15,
                ..LoadOptions::default()
            },
        );
        assert!(!l.diagnostics.has_errors(), "{name}: {:?}", l.diagnostics);
        let a = analyze(&l, V15);
        assert!(
            a.diagnostics.iter().all(|d| d.code.as_str() != "PCTL3030"),
            "{name}"
        );
    }
}
