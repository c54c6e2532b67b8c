//! `status` over the scenario fixtures in `testdata/cases/*/input.yaml`.
//!
//! Each case's expected output is the insta snapshot `testdata/cases/<case>/status.snap`; after a
//! deliberate change, `cargo insta review` (or `INSTA_UPDATE=always cargo test --test tests status::`)
//! and review the git diff. A case directory may hold a `version` file (`1.4` or `1.5`; default `1.4`).

use crate::common;
use common::{cases, load_docs, version_of};
use policyctl::KuadrantVersion;
use policyctl::Loaded;
use policyctl::Topology;
use policyctl::diag::Diagnostics;
use policyctl::{PolicyStatus, StatusOptions};
use proptest::prelude::*;
use std::fmt::Write;
use std::path::Path;

fn split_docs(text: &str) -> Vec<String> {
    text.split("\n---\n").map(|s| s.to_string()).collect()
}

/// Statuses and the merge/enforcement diagnostics (PCTL3xxx) of the whole pipeline, so CEL issues from
/// generation reach the status as they do in the CLI; and the PathIDs `enforced_on` indexes.
fn statuses(l: &Loaded) -> (Vec<PolicyStatus>, Diagnostics, Vec<String>) {
    let opts = policyctl::GenerateOptions::default();
    let a = policyctl::analyze(
        &l.model,
        &Diagnostics::new(),
        &opts,
        &StatusOptions::default(),
    );
    let mut d = Diagnostics::new();
    for x in a
        .diagnostics
        .iter()
        .filter(|x| x.code.as_str().starts_with("PCTL3"))
    {
        d.push(x.clone());
    }
    let ids = a
        .topology
        .path_list()
        .iter()
        .map(|p| a.topology.path_id(p))
        .collect();
    (a.statuses, d, ids)
}

/// The predicted statuses and diagnostics as stable text.
fn render(l: &Loaded) -> String {
    let (s, d, ids) = statuses(l);
    let mut out = String::new();
    for st in &s {
        let p = &l.model.policies[st.policy];
        let _ = writeln!(out, "{} {}", p.kind.kind(), p.meta.key());
        for c in st.conditions() {
            let _ = writeln!(
                out,
                "  {} {} {}: {}",
                c.type_, c.status, c.reason, c.message
            );
        }
        if let Some(n) = &st.note {
            let _ = writeln!(out, "  note: {n}");
        }
        for &path in &st.enforced_on {
            let _ = writeln!(out, "  enforced on {}", ids[path]);
        }
    }
    let mut codes: Vec<String> = d
        .iter()
        .map(|x| {
            format!(
                "{} {}",
                x.code.as_str(),
                x.object.clone().unwrap_or_default()
            )
        })
        .collect();
    codes.sort();
    for c in codes {
        let _ = writeln!(out, "diagnostic {c}");
    }
    out
}

#[test]
fn status_snapshots() {
    common::for_each_case(|case| {
        let text = std::fs::read_to_string(case.join("input.yaml")).unwrap();
        let v = version_of(case);
        let l = load_docs(std::slice::from_ref(&text), v);
        assert!(
            !l.diagnostics.has_errors(),
            "{}: {:?}",
            case.display(),
            l.diagnostics
        );
        let got = render(&l);
        // Deterministic regardless of input order: the documents reversed give the same text.
        let mut docs = split_docs(&text);
        docs.reverse();
        assert_eq!(
            render(&load_docs(&docs, v)),
            got,
            "{}: order-dependent",
            case.display()
        );
        common::assert_case_snapshot(case, "status", &got);
    });
}

/// The loaded case, its statuses, and the PathIDs their `enforced_on` indexes.
fn case_status(name: &str) -> (Loaded, Vec<PolicyStatus>, Vec<String>) {
    let case = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/cases")
        .join(name);
    let v = version_of(&case);
    let l = load_docs(
        &[std::fs::read_to_string(case.join("input.yaml")).unwrap()],
        v,
    );
    let (s, _, ids) = statuses(&l);
    (l, s, ids)
}

fn enforced(name: &str, policy: &str) -> (String, String, String) {
    let (l, s, _) = case_status(name);
    let st = s
        .iter()
        .find(|x| l.model.policies[x.policy].meta.name == policy)
        .unwrap_or_else(|| panic!("{policy} not in {name}"));
    let e = st.enforced.clone().expect("enforced condition");
    (e.status, e.reason, e.message)
}

fn e(status: &str, reason: &str, message: &str) -> (String, String, String) {
    (status.into(), reason.into(), message.into())
}

// Messages below are the operator's (internal/kuadrant/errors.go, conditions.go at v1.4.6) for the
// integration-test scenarios of cases F–L (docs/semantics/README.md).
#[test]
fn case_f_route_policy_enforced() {
    assert_eq!(
        enforced("case-f-rlp-targets-httproute", "toystore-rlp"),
        e(
            "True",
            "Enforced",
            "RateLimitPolicy has been successfully enforced"
        )
    );
}

#[test]
fn case_g_not_in_path() {
    assert_eq!(
        enforced("case-g-gateway-rlp-no-routes", "toystore-rlp"),
        e(
            "False",
            "Unknown",
            "RateLimitPolicy is not in the path to any existing routes"
        )
    );
}

#[test]
fn case_h_route_defaults_beat_gateway_defaults() {
    assert_eq!(
        enforced(
            "case-h-route-defaults-beat-gateway-defaults",
            "toystore-rlp"
        ),
        e(
            "False",
            "Overridden",
            "RateLimitPolicy is overridden by [toystore/httproute-rlp]"
        )
    );
    assert_eq!(
        enforced(
            "case-h-route-defaults-beat-gateway-defaults",
            "httproute-rlp"
        )
        .0,
        "True"
    );
}

#[test]
fn atomic_defaults_partially_enforced_with_uncovered_route() {
    assert_eq!(
        enforced("case-h-second-route-partially-enforced", "toystore-rlp"),
        e(
            "True",
            "Enforced",
            "RateLimitPolicy has been partially enforced"
        )
    );
}

#[test]
fn case_i_atomic_overrides() {
    assert_eq!(
        enforced("case-i-atomic-gateway-overrides", "httproute-rlp"),
        e(
            "False",
            "Overridden",
            "RateLimitPolicy is overridden by [toystore/toystore-rlp]"
        )
    );
    assert_eq!(
        enforced("case-i-gateway-defaults-flip", "toystore-rlp"),
        e(
            "False",
            "Overridden",
            "RateLimitPolicy is overridden by [toystore/httproute-rlp]"
        )
    );
}

#[test]
fn case_j_route_under_two_gateways_overridden_by_both() {
    assert_eq!(
        enforced("case-j-route-with-two-gateways", "targeted-route"),
        e(
            "False",
            "Overridden",
            "RateLimitPolicy is overridden by [toystore/gateway-a toystore/gateway-b]"
        )
    );
}

#[test]
fn gateway_level_limits_scoped_per_route() {
    // Case J: each gateway policy is effective on the paths of *both* routes, route by route.
    let (l, s, ids) = case_status("case-j-route-with-two-gateways");
    let st = s
        .iter()
        .find(|x| l.model.policies[x.policy].meta.name == "gateway-a")
        .unwrap();
    let routes: Vec<&str> = st
        .enforced_on
        .iter()
        .map(|&p| ids[p].split('|').nth(3).unwrap())
        .collect();
    assert_eq!(
        routes,
        vec!["toystore/targeted-route", "toystore/untargeted-route"]
    );
}

#[test]
fn case_k_auth_flips() {
    assert_eq!(
        enforced("case-k-auth-gateway-defaults-overridden", "gw-auth"),
        e(
            "False",
            "Overridden",
            "AuthPolicy is overridden by [toystore/toystore]"
        )
    );
    assert_eq!(
        enforced("case-k-auth-gateway-overrides", "toystore"),
        e(
            "False",
            "Overridden",
            "AuthPolicy is overridden by [toystore/gw-auth]"
        )
    );
}

#[test]
fn path_invalid_by_hostname_ignored() {
    assert_eq!(
        enforced("case-l-invalid-path-ignored", "gw-auth"),
        e(
            "True",
            "Enforced",
            "AuthPolicy has been successfully enforced"
        )
    );
    let (_, s, ids) = case_status("case-l-invalid-path-ignored");
    assert_eq!(s[0].enforced_on.len(), 1);
    assert!(ids[s[0].enforced_on[0]].contains("gateway#l1"));
}

#[test]
fn target_not_found_shows_section() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/cases/case-f-rlp-targets-httproute/input.yaml"),
    )
    .unwrap()
    .replace(
        "    name: toystore-route\n  defaults",
        "    name: toystore-route\n    sectionName: rule-9\n  defaults",
    );
    let l = load_docs(&[text], KuadrantVersion::V1_4);
    let (s, _, _) = statuses(&l);
    assert_eq!(s[0].accepted.reason, "TargetNotFound");
    assert_eq!(
        s[0].accepted.message,
        "RateLimitPolicy target toystore-route#rule-9 was not found"
    );
    assert!(s[0].enforced.is_none());
}

#[test]
fn kuadrant_assumed_once() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/cases/case-f-rlp-targets-httproute/input.yaml"),
    )
    .unwrap();
    let docs: Vec<String> = split_docs(&text)
        .into_iter()
        .filter(|d| !d.contains("kind: Kuadrant"))
        .collect();
    let l = load_docs(&docs, KuadrantVersion::V1_4);
    let (_, d, _) = statuses(&l);
    assert_eq!(
        d.iter().filter(|x| x.code.as_str() == "PCTL3007").count(),
        1
    );
}

fn effective_summary(l: &Loaded) -> Vec<Vec<(String, String)>> {
    let t = Topology::build(&l.model);
    policyctl::effective(&t)
        .iter()
        .map(|pe| {
            let mut v = Vec::new();
            for e in [&pe.rate_limit, &pe.auth, &pe.token_rate_limit]
                .into_iter()
                .flatten()
            {
                for r in e.rules.values() {
                    v.push((
                        r.key.to_string(),
                        l.model.policies[r.source].locator().to_string(),
                    ));
                }
            }
            v
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// A policy whose target does not exist changes no effective rule.
    #[test]
    fn orphan_policy_changes_nothing(
        case_ix in 0usize..17,
        name in "[a-z]{1,8}",
        limit in "[a-z]{1,4}",
        block in prop_oneof![Just(""), Just("defaults"), Just("overrides")],
        target in prop_oneof![Just("Gateway"), Just("HTTPRoute")],
        section in proptest::option::of("[a-z]{1,5}"),
    ) {
        let all = cases();
        let case = &all[case_ix % all.len()];
        let text = std::fs::read_to_string(case.join("input.yaml")).unwrap();
        let before = load_docs(std::slice::from_ref(&text), KuadrantVersion::V1_4);
        let indent = if block.is_empty() { "  " } else { "    " };
        let block_line = if block.is_empty() { String::new() } else { format!("  {block}:\n") };
        // Quoted: a plain `n` or `y` is a boolean to kubectl's YAML 1.1 reader.
        let sec = section.map(|s| format!("    sectionName: \"{s}\"\n")).unwrap_or_default();
        let orphan = format!(
            "apiVersion: kuadrant.io/v1\nkind: RateLimitPolicy\nmetadata:\n  name: orphan-{name}\n  namespace: toystore\nspec:\n  targetRef:\n    group: gateway.networking.k8s.io\n    kind: {target}\n    name: does-not-exist\n{sec}{block_line}{indent}limits:\n{indent}  {limit}:\n{indent}    rates:\n{indent}      - limit: 1\n{indent}        window: 1m\n"
        );
        let after = load_docs(&[text, orphan], KuadrantVersion::V1_4);
        prop_assert_eq!(after.model.policies.len(), before.model.policies.len() + 1);
        prop_assert_eq!(effective_summary(&before), effective_summary(&after));
    }
}

/// `status --gateways -o json` of `dir` at `version`: the Gateways with their predicted status.
fn gateways_json(dir: &std::path::Path, version: &str) -> serde_json::Value {
    let out = common::policyctl()
        .args([
            "status",
            "--gateways",
            "-o",
            "json",
            "--kuadrant-version",
            version,
            "-f",
        ])
        .arg(dir)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The `kuadrant.io/AuthPolicyAffected` condition of a conditions list, if any.
fn auth_affected(conditions: &serde_json::Value) -> Option<&serde_json::Value> {
    conditions
        .as_array()?
        .iter()
        .find(|c| c["type"] == "kuadrant.io/AuthPolicyAffected")
}

/// Gateway-side `kuadrant.io/<Kind>Affected` conditions, as kuadrant-operator v1.4.6 and v1.5.2
/// write them (internal/controller/gateway_policy_discoverability_reconciler.go, the same at both
/// tags). Expected values: tests/common/discoverability/policy_discoverability_reconciler_test.go at
/// v1.5.2, "gateway policy is also listed with section policy" (the Gateway's condition names the
/// Gateway's policy and not the listener's; the targeted listener names both; the other listener
/// only the Gateway's) and "adds section name polices only to specific listener status conditions"
/// (no Gateway condition; only the targeted listener has one); type, status `True`, reason
/// `Accepted` and the message `Object affected by AuthPolicy [ns/name ...]` from
/// `PolicyAffectedCondition` (internal/controller/common.go), `observedGeneration` the Gateway's
/// generation (`addOrUpdateCondition`), other conditions kept, a listener without a status entry
/// given one.
#[test]
fn gateway_and_listener_conditions_name_the_policies_attached_to_them() {
    let fixture = std::path::Path::new("testdata/discoverability");
    for version in ["1.4", "1.5"] {
        let list = gateways_json(fixture, version);
        let gw = &list["items"][0];
        let status = &gw["status"];
        let own = auth_affected(&status["conditions"]).unwrap();
        assert_eq!(own["status"], "True");
        assert_eq!(own["reason"], "Accepted");
        assert_eq!(own["observedGeneration"], 3);
        assert_eq!(
            own["message"],
            "Object affected by AuthPolicy [discoverability/gateway-ap]"
        );
        assert_eq!(status["conditions"][0]["type"], "Programmed", "kept");
        let listener = |name: &str| {
            status["listeners"]
                .as_array()
                .unwrap()
                .iter()
                .find(|l| l["name"] == name)
                .unwrap()
                .clone()
        };
        assert_eq!(
            auth_affected(&listener("test-listener-toystore-com")["conditions"]).unwrap()["message"],
            "Object affected by AuthPolicy [discoverability/gateway-ap discoverability/section-ap]"
        );
        let other = listener("test-listener-2");
        assert_eq!(
            auth_affected(&other["conditions"]).unwrap()["message"],
            "Object affected by AuthPolicy [discoverability/gateway-ap]"
        );
        assert_eq!(other["attachedRoutes"], 1, "the entry as written is kept");
    }
    // Only the listener's policy: no Gateway condition, only that listener has one.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(fixture.join("gateway-and-section.yaml")).unwrap();
    let without_gateway_policy: Vec<&str> = text
        .split("\n---\n")
        .filter(|d| !d.contains("name: gateway-ap"))
        .collect();
    std::fs::write(
        dir.path().join("in.yaml"),
        without_gateway_policy.join("\n---\n"),
    )
    .unwrap();
    for version in ["1.4", "1.5"] {
        let list = gateways_json(dir.path(), version);
        let status = &list["items"][0]["status"];
        assert!(auth_affected(&status["conditions"]).is_none(), "{status}");
        for l in status["listeners"].as_array().unwrap() {
            let c = auth_affected(&l["conditions"]);
            if l["name"] == "test-listener-toystore-com" {
                assert_eq!(
                    c.unwrap()["message"],
                    "Object affected by AuthPolicy [discoverability/section-ap]"
                );
            } else {
                assert!(c.is_none(), "{l}");
            }
        }
    }
    // The table: one row per condition, `-` for the Gateway's own.
    let out = common::policyctl()
        .args(["status", "--gateways", "-f", "testdata/discoverability/"])
        .output()
        .unwrap();
    let table = String::from_utf8(out.stdout).unwrap();
    assert_eq!(table.lines().count(), 4, "{table}");
    assert!(
        table.lines().nth(1).unwrap().contains("toystore-gw   -   "),
        "{table}"
    );
}

/// With `--respect-status` on 1.5, a GRPCRoute is ready through a listener only when the entry of
/// its `status.parents` names that listener or none: a `sectionName` or `port` there must be the
/// listener's (kuadrant-operator v1.5.2 internal/gatewayapi/utils.go, `IsGRPCRouteReady`). An
/// HTTPRoute's entry is matched on the Gateway alone (`IsHTTPRouteReady`). A policy none of whose
/// paths is ready is `Enforced=False Unknown` (`ErrNoRoutes`, internal/kuadrant/errors.go).
#[test]
fn grpc_route_readiness_matches_the_listener_of_its_status_entry() {
    const ESTATE: &str = "\
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: gateway-system}
spec:
  gatewayClassName: istio
  listeners:
  - {name: a, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}
  - {name: b, port: 8080, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}
status:
  listeners:
  - {name: a, attachedRoutes: 1, supportedKinds: [], conditions: [{type: Programmed, status: 'True', reason: Programmed, message: '', lastTransitionTime: '2026-01-01T00:00:00Z'}]}
  - {name: b, attachedRoutes: 1, supportedKinds: [], conditions: [{type: Programmed, status: 'True', reason: Programmed, message: '', lastTransitionTime: '2026-01-01T00:00:00Z'}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: KIND
metadata: {name: r, namespace: app}
spec:
  parentRefs: [{name: gw, namespace: gateway-system}]
  rules:
  - backendRefs: [{name: svc, port: 9000}]
status:
  parents:
  - parentRef: {name: gw, namespace: gateway-system, ENTRY}
    controllerName: istio.io/gateway-controller
    conditions: [{type: Accepted, status: 'True', reason: Accepted, message: '', lastTransitionTime: '2026-01-01T00:00:00Z'}]
---
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: p, namespace: app}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: KIND, name: r}
  limits:
    l: {rates: [{limit: 1, window: 10s}]}
";
    let enforced = |kind: &str, entry: &str| {
        let text = ESTATE.replace("KIND", kind).replace("ENTRY", entry);
        let l = load_docs(&split_docs(&text), KuadrantVersion::V1_5);
        assert!(!l.diagnostics.has_errors(), "{kind} {entry}");
        let opts = StatusOptions {
            respect_status: true,
        };
        let a = policyctl::analyze(
            &l.model,
            &Diagnostics::new(),
            &policyctl::GenerateOptions::default(),
            &opts,
        );
        let e = a.statuses[0].enforced.clone().expect("enforced condition");
        (e.status, e.reason, e.message)
    };
    let yes = e(
        "True",
        "Enforced",
        "RateLimitPolicy has been successfully enforced",
    );
    let no = e(
        "False",
        "Unknown",
        "RateLimitPolicy is not in the path to any existing routes",
    );
    for (entry, grpc) in [
        ("sectionName: a", &yes),
        ("sectionName: b", &yes),
        ("port: 8080", &yes),
        ("sectionName: zz", &no),
        ("port: 9999", &no),
        ("sectionName: a, port: 8080", &no),
    ] {
        assert_eq!(&enforced("GRPCRoute", entry), grpc, "GRPCRoute {entry}");
        assert_eq!(enforced("HTTPRoute", entry), yes, "HTTPRoute {entry}");
    }
}
