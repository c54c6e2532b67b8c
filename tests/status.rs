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
                        r.key.clone(),
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
        let sec = section.map(|s| format!("    sectionName: {s}\n")).unwrap_or_default();
        let orphan = format!(
            "apiVersion: kuadrant.io/v1\nkind: RateLimitPolicy\nmetadata:\n  name: orphan-{name}\n  namespace: toystore\nspec:\n  targetRef:\n    group: gateway.networking.k8s.io\n    kind: {target}\n    name: does-not-exist\n{sec}{block_line}{indent}limits:\n{indent}  {limit}:\n{indent}    rates:\n{indent}      - limit: 1\n{indent}        window: 1m\n"
        );
        let after = load_docs(&[text, orphan], KuadrantVersion::V1_4);
        prop_assert_eq!(after.model.policies.len(), before.model.policies.len() + 1);
        prop_assert_eq!(effective_summary(&before), effective_summary(&after));
    }
}
