//! `explain` over the scenario fixtures: every HTTPRoute of a case is explained and the text tree is
//! compared with the insta snapshot `testdata/cases/<case>/explain.snap`; after a deliberate change,
//! `cargo insta review` (or `INSTA_UPDATE=always cargo test --test tests explain::`), then review the diff.

use crate::common;
use common::version_of;
use policyctl::LossReason;
use policyctl::Topology;
use policyctl::{DecidedBy, Explanation};
use policyctl::{Input, LoadOptions, Loaded, load};
use policyctl::{KuadrantVersion, PolicyKind};
use std::path::Path;

fn load_text(text: &str, version: KuadrantVersion) -> Loaded {
    load(
        &[Input::Text {
            name: "input.yaml".into(),
            bytes: text.as_bytes().to_vec(),
        }],
        &LoadOptions {
            default_namespace: "default".into(),
            version,
            ..LoadOptions::default()
        },
    )
}

fn explain_routes(l: &Loaded) -> String {
    let t = Topology::build(&l.model);
    let mut out = String::new();
    for r in &l.model.routes {
        let target = policyctl::parse_target(&format!("httproute/{}", r.meta.key())).unwrap();
        let e = policyctl::explain(&t, &target, None).unwrap();
        out.push_str(&policyctl::render::explain::text(&e));
    }
    out
}

#[test]
fn explain_snapshots() {
    common::for_each_case(|case| {
        let v = version_of(case);
        let l = load_text(
            &std::fs::read_to_string(case.join("input.yaml")).unwrap(),
            v,
        );
        let got = explain_routes(&l);
        common::assert_case_snapshot(case, "explain", &got);
    });
}

fn explain_case(name: &str, target: &str, kind: Option<PolicyKind>) -> Explanation {
    let case = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/cases")
        .join(name);
    let v = version_of(&case);
    let l = load_text(
        &std::fs::read_to_string(case.join("input.yaml")).unwrap(),
        v,
    );
    let t = Topology::build(&l.model);
    policyctl::explain(&t, &policyctl::parse_target(target).unwrap(), kind).unwrap()
}

#[test]
fn atomic_defaults_lose_entirely() {
    let e = explain_case(
        "table-implicit-defaults-replaced",
        "httproute/toystore/toystore-route",
        None,
    );
    let k = &e.paths[0].kinds[0];
    let a = k.rules.iter().find(|r| r.key == "a").unwrap();
    assert_eq!(a.winner, None);
    assert_eq!(a.losers[0].policy, "toystore/gw-rlp");
    assert_eq!(a.losers[0].reason, LossReason::AtomicDefaultsDiscarded);
    assert_eq!(a.losers[0].decided_by, DecidedBy::Specificity);
}

#[test]
fn top_level_when_leaking_under_merge() {
    let e = explain_case(
        "table-top-level-when-leaks",
        "httproute/toystore/toystore-route",
        None,
    );
    let k = &e.paths[0].kinds[0];
    let top = k
        .rules
        .iter()
        .find(|r| r.key == "###_TOP_LEVEL_PREDICATES_###")
        .unwrap();
    assert_eq!(top.winner.as_deref(), Some("toystore/gw-rlp"));
    assert_eq!(
        k.source_policies,
        vec!["toystore/gw-rlp", "toystore/route-rlp"]
    );
}

#[test]
fn overrides_listed_least_specific_first() {
    let e = explain_case(
        "case-i-atomic-gateway-overrides",
        "gateway/toystore/gateway",
        None,
    );
    let k = &e.paths[0].kinds[0];
    let order: Vec<&str> = k.policies.iter().map(|p| p.policy.as_str()).collect();
    assert_eq!(
        order,
        vec!["toystore/toystore-rlp", "toystore/httproute-rlp"]
    );
    let route = k.rules.iter().find(|r| r.key == "route").unwrap();
    assert_eq!(
        route.losers[0].reason,
        LossReason::DiscardedByAtomicOverride
    );
}

#[test]
fn kind_filter_and_invalid_paths() {
    let e = explain_case(
        "case-l-invalid-path-ignored",
        "gateway/toystore/gateway",
        Some(PolicyKind::RateLimit),
    );
    assert_eq!(e.paths.len(), 2);
    assert!(e.paths.iter().all(|p| p.kinds.is_empty()));
    assert!(e.paths[0].invalid.is_none());
    assert_eq!(
        e.paths[1].invalid.as_deref(),
        Some("invalid path: http route does not belong to the listener")
    );
}

#[test]
fn name_tie_break_is_reported() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/cases/case-f-rlp-targets-httproute/input.yaml"),
    )
    .unwrap();
    let second = "---\napiVersion: kuadrant.io/v1\nkind: RateLimitPolicy\nmetadata:\n  name: zz-rlp\n  namespace: toystore\nspec:\n  targetRef:\n    group: gateway.networking.k8s.io\n    kind: HTTPRoute\n    name: toystore-route\n  limits:\n    l2:\n      rates:\n        - limit: 2\n          window: 1m\n";
    let l = load_text(&format!("{text}{second}"), KuadrantVersion::V1_4);
    let t = Topology::build(&l.model);
    let e = policyctl::explain(
        &t,
        &policyctl::parse_target("httproute/toystore/toystore-route").unwrap(),
        None,
    )
    .unwrap();
    let l1 = e.paths[0].kinds[0]
        .rules
        .iter()
        .find(|r| r.key == "l1")
        .unwrap();
    assert_eq!(l1.winner, None);
    assert_eq!(l1.losers[0].decided_by, DecidedBy::Name);
    let s = policyctl::status(
        &t,
        &policyctl::effective(&t),
        &[],
        None,
        &Default::default(),
    );
    let d = policyctl::status_diagnostics(&t, &s);
    assert_eq!(
        d.iter().filter(|x| x.code.as_str() == "PCTL3004").count(),
        1
    );
}
