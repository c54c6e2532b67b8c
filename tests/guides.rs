//! Estates shaped like Kuadrant's own user guides (kuadrant-operator v1.5.2 `doc/user-guides/`), run as
//! a user copying a guide would: GatewayClass left out where the guide leaves it out, the guide's
//! names and values. Expected values come from the operator's source at v1.4.6 and v1.5.2 (cited at
//! each assertion), not from policyctl's own output.

use crate::common;
use assert_cmd::Command;
use predicates::prelude::*;

fn policyctl() -> Command {
    let mut c = common::policyctl();
    c.env("COLUMNS", "1000");
    c
}

/// `doc/user-guides/ratelimiting/simple-rl-for-app-developers.md`: an `istio` Gateway, no GatewayClass,
/// an HTTPRoute with rules named `get-toys` and `create-toy`, a RateLimitPolicy on `create-toy`.
const SIMPLE_RL: &str = "testdata/guides/simple-rl/";

fn stdout(args: &[&str]) -> String {
    let out = policyctl().args(args).output().unwrap();
    String::from_utf8(out.stdout).unwrap()
}

// ------------------------------------------------------------------ 1. the GatewayClass

#[test]
fn guide_without_gatewayclass_is_predicted_with_the_assumed_istio_class() {
    // Operator (both tags) internal/kuadrant/conditions.go: "%s has been accepted" and
    // "%s has been successfully enforced".
    let status = stdout(&[
        "status",
        "-f",
        SIMPLE_RL,
        "--kuadrant-version",
        "1.5",
        "-o",
        "yaml",
    ]);
    assert!(
        status.contains("message: RateLimitPolicy has been accepted"),
        "{status}"
    );
    assert!(
        status.contains("message: RateLimitPolicy has been successfully enforced"),
        "{status}"
    );
    // limitador_limits_reconciler.go: one limit named after the limit key, in the route's
    // namespace/name, 5 per 10 s.
    let limitador = stdout(&[
        "compute",
        "-f",
        SIMPLE_RL,
        "--kuadrant-version",
        "1.5",
        "--only",
        "limitador",
    ]);
    for want in [
        "max_value: 5",
        "name: create-toy",
        "namespace: default/toystore",
        "seconds: 10",
    ] {
        assert!(limitador.contains(want), "{want} missing: {limitador}");
    }
    // The assumed class is a GatewayClass node linked to the Gateway, as in the cluster's topology.
    let dot = stdout(&["graph", "-f", SIMPLE_RL, "--kuadrant-version", "1.5"]);
    assert!(dot.contains(
        "\"gatewayclass.gateway.networking.k8s.io:istio\" -> \"gateway.gateway.networking.k8s.io:api-gateway/external\""
    ), "{dot}");
    // Announced, at the gatewayClassName, as an info (shown with -v, never failing a run).
    policyctl()
        .args(["lint", "-f", SIMPLE_RL, "--kuadrant-version", "1.5", "-q"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "testdata/guides/simple-rl/00-gateway.yaml:12:21: info[PCTL2008]: GatewayClass \"istio\" is not in the input: assumed to exist with controllerName istio.io/gateway-controller",
        ));
}

/// The guide's Gateway under another class name: `sed s/istio/NAME/`.
fn with_class(name: &str) -> String {
    std::fs::read_to_string(format!("{SIMPLE_RL}00-gateway.yaml"))
        .unwrap()
        .replace(
            "gatewayClassName: istio",
            &format!("gatewayClassName: {name}"),
        )
}

/// The guide's estate in a temporary folder, its Gateway under class `class`.
fn simple_rl_with_class(class: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("00-gateway.yaml"), with_class(class)).unwrap();
    for f in ["10-httproute.yaml", "20-ratelimitpolicy.yaml"] {
        std::fs::copy(format!("{SIMPLE_RL}{f}"), dir.path().join(f)).unwrap();
    }
    dir
}

#[test]
fn envoy_gateway_class_names_are_assumed_too() {
    for class in ["eg", "envoy-gateway"] {
        let dir = simple_rl_with_class(class);
        let out = policyctl()
            .args(["compute", "--kuadrant-version", "1.5", "-v", "-f"])
            .arg(dir.path())
            .args(["--only", "envoygateway"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!(
                "GatewayClass {class:?} is not in the input: assumed to exist with controllerName gateway.envoyproxy.io/gatewayclass-controller"
            )),
            "{stderr}"
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("kind: EnvoyExtensionPolicy"), "{stdout}");
    }
}

#[test]
fn an_unknown_class_says_nothing_can_be_predicted_and_fails() {
    let dir = simple_rl_with_class("my-class");
    let input = dir.path().to_str().unwrap();
    policyctl()
        .args(["lint", "-f", input, "--kuadrant-version", "1.5", "-q"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "error[PCTL2007]: gatewayClassName \"my-class\" matches no GatewayClass in the input and is not a class policyctl assumes: the Gateway is in no path, so none of the policies on it, its listeners or its routes can be predicted",
        ));
    // --gateway-class names its controller: the class is assumed, the policy enforced.
    policyctl()
        .args(["status", "-f", input, "--kuadrant-version", "1.5", "-q"])
        .args(["--gateway-class", "my-class=istio.io/gateway-controller"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "RateLimitPolicy has been successfully enforced",
        ));
    // So does the settings file; a flag overrides it per class.
    let config = tempfile::tempdir().unwrap();
    let settings = config.path().join("settings.yaml");
    std::fs::write(
        &settings,
        "gatewayClasses:\n  my-class: istio.io/gateway-controller\n",
    )
    .unwrap();
    policyctl()
        .args(["status", "-f", input, "--kuadrant-version", "1.5", "-q"])
        .arg("--config")
        .arg(&settings)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "RateLimitPolicy has been successfully enforced",
        ));
    policyctl()
        .args(["status", "-f", input, "--kuadrant-version", "1.5", "-v"])
        .arg("--config")
        .arg(&settings)
        .args(["--gateway-class", "my-class=example.com/other"])
        .assert()
        .stderr(predicate::str::contains(
            "GatewayClass \"my-class\" is not in the input: assumed to exist with controllerName example.com/other",
        ));
    policyctl()
        .args(["lint", "-f", input, "--gateway-class", "my-class"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--gateway-class must be NAME=CONTROLLER",
        ));
}

// ------------------------------------------------------------------ 3. noise

#[test]
fn the_wasm_sha256_placeholder_is_reported_only_where_it_matters() {
    // lint, status, explain and graph never show the wasm EnvoyFilter; compute prints it for reading
    // and diff --base compares two outputs that carry the same placeholder: a 1.5 run is quiet.
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("generated");
    let out_dir = out_dir.to_str().unwrap();
    for args in [
        &["lint"][..],
        &["status"],
        &["graph"],
        &["explain", "httproute/default/toystore"],
        &["compute"],
        &["compute", "--only", "limitador"],
    ] {
        let out = policyctl()
            .args(args)
            .args([
                "-f",
                SIMPLE_RL,
                "--kuadrant-version",
                "1.5",
                "--fail-on",
                "warning",
            ])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(!stderr.contains("PCTL4004"), "{args:?}: {stderr}");
    }
    let out = policyctl()
        .args(["diff", "--base", SIMPLE_RL, "-f", SIMPLE_RL])
        .args(["--kuadrant-version", "1.5"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Written or compared output prints it once, with where to read the real value on a line of
    // its own: the operator writes it at vm_config.code.remote.sha256 of the wasm filter (v1.5.2
    // internal/istio/utils.go buildWasmFilterConfig).
    let help = "\n        kubectl get envoyfilter -n api-gateway kuadrant-external -o jsonpath='{.spec.configPatches[0].patch.value.typed_config.value.config.vm_config.code.remote.sha256}'\n";
    for args in [
        &["compute", "--out-dir", out_dir][..],
        &["compute", "--out-dir", out_dir, "--check"],
        &[
            "diff",
            "--against",
            "testdata/examples/toystore/00-gateway.yaml",
        ],
    ] {
        let out = policyctl()
            .args(args)
            .args(["-f", SIMPLE_RL, "--kuadrant-version", "1.5", "-q"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            stderr.matches("warning[PCTL4004]").count(),
            1,
            "{args:?}: {stderr}"
        );
        let out = policyctl()
            .args(args)
            .args(["-f", SIMPLE_RL, "--kuadrant-version", "1.5"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(help), "{args:?}: {stderr}");
        assert_eq!(stderr.matches("PCTL4004").count(), 1, "{args:?}: {stderr}");
        // Brief: the finding, the help sentence and the command.
        assert!(stderr.lines().count() <= 6, "{args:?}: {stderr}");
    }
}

// ------------------------------------------------------------------ 2. rule names on 1.4

#[test]
fn on_1_4_a_rule_name_gets_its_positional_equivalent_and_the_1_5_hint() {
    // policy-machinery 1ca17a0 (operator v1.4.6's pin) machinery/gateway_api_topology.go names every
    // HTTPRouteRule `rule-%d` (i+1); v0.8.0 (v1.5.2's) uses the rule's `name` when it has one. The
    // guide's create-toy is the second rule: rule-2 on 1.4.
    policyctl()
        .args(["lint", "-f", SIMPLE_RL, "--kuadrant-version", "1.4", "-q"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "testdata/guides/simple-rl/20-ratelimitpolicy.yaml:11:18: error[PCTL2002]: sectionName \"create-toy\" matches no rule of HTTPRoute default/toystore (rules: rule-1, rule-2); on 1.4 create-toy is rule-2 (--kuadrant-version 1.5 honours rule names)",
        ));
    policyctl()
        .args(["explain", "-f", SIMPLE_RL, "--kuadrant-version", "1.4"])
        .arg("httproute/default/toystore#create-toy")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "httproute.gateway.networking.k8s.io:default/toystore#create-toy is not in the topology: create-toy is rule-2 on 1.4 (operator 1.4 names rules only by position); explain httproute/default/toystore#rule-2, or emulate operator 1.5, which honours rule names, with --kuadrant-version 1.5",
        ));
    // A name no rule has keeps the plain message.
    policyctl()
        .args(["explain", "-f", SIMPLE_RL, "--kuadrant-version", "1.4"])
        .arg("httproute/default/toystore#no-such-rule")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "default/toystore#no-such-rule is not in the topology\n",
        ));
    // On 1.5 the name is the rule's section name.
    policyctl()
        .args(["explain", "-f", SIMPLE_RL, "--kuadrant-version", "1.5"])
        .arg("httproute/default/toystore#create-toy")
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "path istio|api-gateway/external|api-gateway/external#http|default/toystore|default/toystore#create-toy",
        ));
}

// ------------------------------------------------------------------ DNS/TLS: equal timestamps

/// `doc/user-guides/dns/basic-dns-configuration.md`'s Gateway and DNSPolicy, and a second DNSPolicy on
/// the same Gateway, none with a creationTimestamp.
const DNS_TWO: &str = "testdata/guides/dns-two-policies/";

/// The two DNSPolicies with `creationTimestamp`s (`None`: as in git).
fn dns_two_with(first: Option<&str>, second: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        format!("{DNS_TWO}00-gateway.yaml"),
        dir.path().join("00-gateway.yaml"),
    )
    .unwrap();
    for (f, ts) in [
        ("10-dnspolicy.yaml", first),
        ("20-second-dnspolicy.yaml", second),
    ] {
        let mut text = std::fs::read_to_string(format!("{DNS_TWO}{f}")).unwrap();
        if let Some(ts) = ts {
            text = text.replace(
                "metadata:\n",
                &format!("metadata:\n  creationTimestamp: \"{ts}\"\n"),
            );
        }
        std::fs::write(dir.path().join(f), text).unwrap();
    }
    dir
}

#[test]
fn two_dns_policies_without_timestamps_keep_the_operator_status_and_get_a_warning() {
    // isConflict (dnspolicies_validator.go, identical at v1.4.6 and v1.5.2) needs a strictly older
    // policy (CreationTimestamp.Before): equal (missing) timestamps conflict neither.
    let out = policyctl()
        .args(["status", "-f", DNS_TWO, "-o", "yaml", "-q"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout
            .matches("message: DNSPolicy has been accepted")
            .count(),
        2,
        "{stdout}"
    );
    assert!(!stdout.contains("Conflicted"), "{stdout}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(
        "testdata/guides/dns-two-policies/10-dnspolicy.yaml:5:9: warning[PCTL3013]: DNSPolicy my-gateway-namespace/basic-dnspolicy and DNSPolicy my-gateway-namespace/second-dnspolicy both target Gateway my-gateway-namespace/external and neither has a creationTimestamp: neither is Conflicted here, as the operator decides for equal timestamps, but in a cluster whichever is created second will be Accepted=False Conflicted"
    ), "{stderr}");
    assert_eq!(stderr.matches("PCTL3013").count(), 1, "{stderr}");

    // With timestamps, the operator's verdict: the younger one is Conflicted, with
    // kuadrant.ErrConflict's "%s is conflicted by %s: %s" (internal/kuadrant/errors.go) and no
    // PCTL3013.
    for (first, second, conflicted, by) in [
        (
            Some("2025-01-01T00:00:00Z"),
            Some("2025-01-02T00:00:00Z"),
            "second-dnspolicy",
            "basic-dnspolicy",
        ),
        (
            Some("2025-01-02T00:00:00Z"),
            Some("2025-01-01T00:00:00Z"),
            "basic-dnspolicy",
            "second-dnspolicy",
        ),
    ] {
        let dir = dns_two_with(first, second);
        let out = policyctl()
            .args(["status", "-q", "-o", "wide", "-f"])
            .arg(dir.path())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let row = stdout
            .lines()
            .find(|l| l.contains(&format!(" {conflicted} ")))
            .unwrap();
        assert!(
            row.contains(&format!(
                "DNSPolicy is conflicted by my-gateway-namespace/{by}: conflicting policy"
            )),
            "{stdout}"
        );
        assert!(row.contains("Conflicted"), "{row}");
        assert!(!stderr.contains("PCTL3013"), "{stderr}");
        assert!(stderr.contains("error[PCTL3005]"), "{stderr}");
    }
}

// ------------------------------------------------------------------ TLS: the issuer exists

/// `doc/user-guides/tls/gateway-tls.md`: Gateway, cert-manager Issuer and TLSPolicy, in my-gateways.
const GATEWAY_TLS: &str = "testdata/guides/gateway-tls/";

/// The guide's estate with `edit` applied to the TLSPolicy and, when `issuer` is false, without
/// the Issuer.
fn gateway_tls_with(edit: impl Fn(String) -> String, issuer: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        format!("{GATEWAY_TLS}00-gateway.yaml"),
        dir.path().join("00-gateway.yaml"),
    )
    .unwrap();
    if issuer {
        std::fs::copy(
            format!("{GATEWAY_TLS}10-issuer.yaml"),
            dir.path().join("10-issuer.yaml"),
        )
        .unwrap();
    }
    let policy = std::fs::read_to_string(format!("{GATEWAY_TLS}20-tlspolicy.yaml")).unwrap();
    std::fs::write(dir.path().join("20-tlspolicy.yaml"), edit(policy)).unwrap();
    dir
}

fn tls_status(dir: &std::path::Path) -> (String, String) {
    let out = policyctl()
        .args(["status", "-v", "-o", "yaml", "-f"])
        .arg(dir)
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn tls_policy_issuer_is_checked_against_the_issuers_in_the_input() {
    // tlspolicies_validator.go (v1.4.6 and v1.5.2): isIssuerFound fails with
    // kuadrant.NewErrInvalid("TLSPolicy", "unable to find issuer"); errors.go: ErrInvalid is
    // "%s target is invalid: %s", reason Invalid (gatewayapiv1alpha2.PolicyReasonInvalid).
    let invalid = "reason: Invalid";
    let message = "message: \"TLSPolicy target is invalid: unable to find issuer\"";

    // The guide as written: the Issuer is there, the policy accepted.
    let (stdout, _) = tls_status(std::path::Path::new(GATEWAY_TLS));
    assert!(
        stdout.contains("message: TLSPolicy has been accepted"),
        "{stdout}"
    );

    // A misspelt issuer name, with the Issuer in the input: Invalid.
    let dir = gateway_tls_with(
        |p| p.replace("name: selfsigned-issuer", "name: self-signed"),
        true,
    );
    let (stdout, stderr) = tls_status(dir.path());
    assert!(
        stdout.contains(invalid) && stdout.contains(message),
        "{stdout}"
    );
    assert!(stderr.contains("TLSPolicy target is invalid: unable to find issuer (Issuer my-gateways/self-signed is not in the input)"), "{stderr}");

    // An Issuer in another namespace does not count: an Issuer must be in the policy's namespace
    // (isIssuerFound compares issuer.GetNamespace() with p.GetNamespace()).
    let dir = gateway_tls_with(|p| p, false);
    let issuer = std::fs::read_to_string(format!("{GATEWAY_TLS}10-issuer.yaml"))
        .unwrap()
        .replace("namespace: my-gateways", "namespace: elsewhere");
    std::fs::write(dir.path().join("10-issuer.yaml"), issuer).unwrap();
    let (stdout, _) = tls_status(dir.path());
    assert!(stdout.contains(message), "{stdout}");

    // kind: ClusterIssuer with only an Issuer in the input: no ClusterIssuer at all, so the
    // ClusterIssuer is assumed (announced), and the policy accepted.
    let dir = gateway_tls_with(|p| p.replace("kind: Issuer", "kind: ClusterIssuer"), true);
    let (stdout, stderr) = tls_status(dir.path());
    assert!(
        stdout.contains("message: TLSPolicy has been accepted"),
        "{stdout}"
    );
    assert!(
        stderr.contains(
            "the input holds no ClusterIssuer: ClusterIssuer selfsigned-issuer is assumed to exist"
        ),
        "{stderr}"
    );

    // No issuer in the input at all: assumed to exist, announced.
    let dir = gateway_tls_with(|p| p, false);
    let (stdout, stderr) = tls_status(dir.path());
    assert!(
        stdout.contains("message: TLSPolicy has been accepted"),
        "{stdout}"
    );
    assert!(
        stderr.contains(
            "the input holds no Issuer: Issuer my-gateways/selfsigned-issuer is assumed to exist"
        ),
        "{stderr}"
    );

    // A blank kind: tls_workflow.go links a TLSPolicy to an Issuer only when issuerRef.kind is
    // exactly "Issuer" (to a ClusterIssuer only when "ClusterIssuer"), so isIssuerFound, which
    // looks among the policy's linked objects, never finds it: Invalid even with the Issuer there.
    let dir = gateway_tls_with(|p| p.replace("    kind: Issuer\n", ""), true);
    let (stdout, stderr) = tls_status(dir.path());
    assert!(stdout.contains(message), "{stdout}");
    assert!(stderr.contains("issuerRef.kind is blank"), "{stderr}");
}

// ------------------------------------------------------------------ the tour: authenticated rate limiting

/// `doc/user-guides/ratelimiting/authenticated-rl-for-app-developers.md` in two steps, no
/// GatewayClass: the route and its AuthPolicy, then the guide's RateLimitPolicy added.
const TOUR_AUTH: &str = "testdata/guides/tour/1-auth/";
const TOUR_RL: &str = "testdata/guides/tour/2-ratelimit/";

/// A folder holding the tour's second step plus `extra` as one more file.
fn tour_rl_with(extra: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(TOUR_RL).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dir.path().join(e.file_name())).unwrap();
    }
    std::fs::write(dir.path().join("90-extra.yaml"), extra).unwrap();
    dir
}

/// A RateLimitPolicy on the guide's Gateway `api-gateway/external`.
const GATEWAY_RLP: &str = "apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata:
  name: gw-rlp
  namespace: api-gateway
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: Gateway
    name: external
  overrides:
    limits:
      global:
        rates:
        - limit: 100
          window: 1m
        counters:
        - expression: auth.identity.userid
";

// ------------------------------------------------------------------ 4. explain shows the rule content

#[test]
fn explain_shows_limits_and_auth_sections_as_the_user_wrote_them() {
    // Field paths are the policies' json tags: kuadrant-operator v1.5.2 (and v1.4.6)
    // api/v1/ratelimitpolicy_types.go (`limits`, `rates`, `limit`, `window`, `when`, `counters`) and
    // api/v1/authpolicy_types.go (`rules`, `authentication`, `response`, `success`, and `filters`
    // for the operator's `response.success.metadata#` rules, `DynamicMetadata json:"filters"`).
    let text = stdout(&[
        "explain",
        "-f",
        TOUR_RL,
        "httproute/toystore/toystore#rule-1",
    ]);
    for want in [
        "    rules:\n      rules.authentication.api-key-users: toystore/toystore\n        apiKey:\n",
        "          prefix: APIKEY\n",
        "      rules.response.success.filters.identity: toystore/toystore\n        json:\n",
        "      limits.alice-limit: toystore/toystore\n        rates: 5 per 10s\n        when:\n          - auth.identity.userid == 'alice'\n",
        "      limits.bob-limit: toystore/toystore\n        rates: 2 per 10s\n        when:\n          - auth.identity.userid == 'bob'\n",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
    assert!(!text.contains("response.success.metadata#"), "{text}");
    assert!(!text.contains("authentication#"), "{text}");

    // The same content in -o json, with the operator's key kept beside the field path.
    let json: serde_json::Value = serde_json::from_str(&stdout(&[
        "explain",
        "-f",
        TOUR_RL,
        "httproute/toystore/toystore#rule-1",
        "--kind",
        "RateLimitPolicy",
        "-o",
        "json",
    ]))
    .unwrap();
    let rules = &json["paths"][0]["kinds"][0]["rules"];
    assert_eq!(rules[0]["key"], "alice-limit");
    assert_eq!(rules[0]["field"], "limits.alice-limit");
    assert_eq!(rules[0]["content"]["rates"][0], "5 per 10s");
    assert_eq!(
        rules[0]["content"]["when"][0],
        "auth.identity.userid == 'alice'"
    );

    // Counters and a defaults/overrides block: the field path starts at the block.
    let dir = tour_rl_with(GATEWAY_RLP);
    let text = stdout(&[
        "explain",
        "-f",
        dir.path().to_str().unwrap(),
        "httproute/toystore/toystore#rule-1",
        "--kind",
        "RateLimitPolicy",
    ]);
    assert!(
        text.contains(
            "      overrides.limits.global: api-gateway/gw-rlp\n        rates: 100 per 1m\n        counters:\n          - auth.identity.userid\n"
        ),
        "{text}"
    );

    // The simple rate-limiting guide: the rule named create-toy, as the guide's policy writes it.
    let text = stdout(&[
        "explain",
        "-f",
        SIMPLE_RL,
        "httproute/default/toystore#create-toy",
    ]);
    assert!(
        text.contains(
            "      limits.create-toy: default/toystore\n        rates: 5 per 10s\n        when:\n          - request.method == 'POST'\n"
        ),
        "{text}"
    );
}

// ------------------------------------------------------------------ 5. diff says more

#[test]
fn diff_of_the_guides_next_step_lists_limits_as_written_and_the_new_policy_status() {
    // The RateLimitPolicy the guide adds: its limits as written, and its predicted status
    // (internal/kuadrant/conditions.go at both tags: reasons Accepted and Enforced).
    let out = policyctl()
        .args(["diff", "-f", TOUR_RL, "--base", TOUR_AUTH, "-o", "stat"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(
            "limits added:\n  RateLimitPolicy toystore/toystore limits.alice-limit: 5 per 10s, when auth.identity.userid == 'alice'\n  RateLimitPolicy toystore/toystore limits.bob-limit: 2 per 10s, when auth.identity.userid == 'bob'\n"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "policies whose predicted status changes:\n  RateLimitPolicy toystore/toystore: new, Accepted=True, Enforced=True\n"
        ),
        "{text}"
    );
    assert!(!text.contains("descriptors["), "{text}");
}

#[test]
fn diff_names_a_policy_that_becomes_overridden_and_counters_as_written() {
    // A Gateway policy with overrides replaces the route's limits: the route policy becomes
    // Enforced=False, reason Overridden, message "%s is overridden by %s"
    // (internal/kuadrant/errors.go ErrOverridden at v1.4.6 and v1.5.2).
    let dir = tour_rl_with(GATEWAY_RLP);
    for format in ["stat", "markdown"] {
        let text = stdout(&[
            "diff",
            "-f",
            dir.path().to_str().unwrap(),
            "--base",
            TOUR_RL,
            "-o",
            format,
        ]);
        assert!(
            text.contains(
                "  RateLimitPolicy toystore/toystore: Enforced True → False (Overridden) — RateLimitPolicy is overridden by [api-gateway/gw-rlp]\n"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "  RateLimitPolicy api-gateway/gw-rlp overrides.limits.global: 100 per 1m, counters auth.identity.userid\n"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "limits removed:\n  RateLimitPolicy toystore/toystore limits.alice-limit"
            ),
            "{text}"
        );
    }
    let json: serde_json::Value = serde_json::from_str(&stdout(&[
        "diff",
        "-f",
        dir.path().to_str().unwrap(),
        "--base",
        TOUR_RL,
        "-o",
        "json",
    ]))
    .unwrap();
    assert!(
        json["impact"]["policy_status"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l.as_str().unwrap().contains("(Overridden)")),
        "{json}"
    );
}

#[test]
fn diff_names_authconfigs_by_the_route_rule_they_protect() {
    // The operator annotates each AuthConfig with the route rule it serves
    // (internal/controller/authconfigs_reconciler.go at both tags: the annotation key is the rule's
    // kind and group, its value the rule's locator).
    let empty = tempfile::tempdir().unwrap();
    let against = empty.path().to_str().unwrap();
    let text = stdout(&["diff", "-f", TOUR_AUTH, "--against", against, "-o", "stat"]);
    let line = text
        .lines()
        .find(|l| l.starts_with("created   AuthConfig kuadrant-system/"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains(" (protects HTTPRoute toystore/toystore#rule-1) "),
        "{line}"
    );
    let json: serde_json::Value = serde_json::from_str(&stdout(&[
        "diff",
        "-f",
        TOUR_AUTH,
        "--against",
        against,
        "-o",
        "json",
    ]))
    .unwrap();
    let auth = json["objects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["kind"] == "AuthConfig")
        .unwrap();
    assert_eq!(auth["protects"], "HTTPRoute toystore/toystore#rule-1");
}

// ------------------------------------------------------------------ 6. route-side conditions

#[test]
fn status_routes_predicts_the_affected_conditions_on_the_route_parents() {
    // kuadrant-operator v1.5.2 internal/controller/route_policy_discoverability_reconciler.go (v1.4.6
    // httproute_policy_discoverability_reconciler.go) and common.go: per kind in the order AuthPolicy,
    // RateLimitPolicy, TokenRateLimitPolicy, TLSPolicy, DNSPolicy, the accepted policies of the
    // route's path; type kuadrant.io/<Kind>Affected, True, reason Accepted, message
    // "Object affected by <Kind> [ns/name]", on a parent entry per Gateway with controllerName
    // kuadrant.io/policy-controller.
    for version in ["1.4", "1.5"] {
        let text = stdout(&[
            "status",
            "-f",
            TOUR_RL,
            "--routes",
            "--kuadrant-version",
            version,
        ]);
        assert_eq!(
            text,
            "NAMESPACE   KIND        NAME       GATEWAY                CONDITION                             STATUS   MESSAGE\n\
             toystore    HTTPRoute   toystore   api-gateway/external   kuadrant.io/AuthPolicyAffected        True     Object affected by AuthPolicy [toystore/toystore]\n\
             toystore    HTTPRoute   toystore   api-gateway/external   kuadrant.io/RateLimitPolicyAffected   True     Object affected by RateLimitPolicy [toystore/toystore]\n",
            "{version}"
        );
    }
    let yaml = stdout(&["status", "-f", TOUR_RL, "--routes", "-o", "yaml"]);
    for want in [
        "kind: HTTPRoute\n",
        "  parents:\n  - conditions:\n    - message: Object affected by AuthPolicy [toystore/toystore]\n      reason: Accepted\n      status: \"True\"\n      type: kuadrant.io/AuthPolicyAffected\n",
        "    controllerName: kuadrant.io/policy-controller\n    parentRef:\n      kind: Gateway\n      name: external\n      namespace: api-gateway\n",
    ] {
        assert!(yaml.contains(want), "missing {want:?} in\n{yaml}");
    }
    // The path is the route, its listeners and their gateways (getRoutePath): route policies first,
    // then the gateway's, each by creation time (PoliciesInPath).
    let dir = tour_rl_with(GATEWAY_RLP);
    let text = stdout(&["status", "-f", dir.path().to_str().unwrap(), "--routes"]);
    assert!(
        text.contains(
            "Object affected by RateLimitPolicy [toystore/toystore api-gateway/gw-rlp]\n"
        ),
        "{text}"
    );
}

#[test]
fn route_conditions_leave_out_rule_targeted_and_not_accepted_policies() {
    // getRoutePath holds the route, listeners and gateways but no route rules: the simple
    // rate-limiting guide's policy targets the rule create-toy, so the route gets no condition.
    let text = stdout(&["status", "-f", SIMPLE_RL, "--routes"]);
    assert_eq!(text.lines().count(), 1, "{text}");
    // Only accepted policies are listed (IsPolicyAccepted): one whose target is missing is not.
    let dir = tour_rl_with(
        &GATEWAY_RLP
            .replace("name: external", "name: missing")
            .replace("gw-rlp", "gw-missing"),
    );
    let text = stdout(&["status", "-f", dir.path().to_str().unwrap(), "--routes"]);
    assert!(!text.contains("gw-missing"), "{text}");
    assert!(
        text.contains("Object affected by RateLimitPolicy [toystore/toystore]\n"),
        "{text}"
    );
}

#[test]
fn grpcroutes_get_route_conditions_on_1_5_only() {
    // v1.5.2 extractDiscoverableRoutes takes HTTPRoutes and GRPCRoutes; v1.4.6's reconciler filters
    // HTTPRoutes only (and 1.4 has no GRPCRoutes in its topology).
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        format!("{TOUR_AUTH}00-gateway.yaml"),
        dir.path().join("00-gateway.yaml"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("10-grpc.yaml"),
        "apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata:
  name: grpcstore
  namespace: toystore
spec:
  parentRefs:
  - name: external
    namespace: api-gateway
  hostnames:
  - grpc.toystore.com
  rules:
  - matches:
    - method:
        service: toystore.Toystore
    backendRefs:
    - name: grpcstore
      port: 9000
---
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata:
  name: grpcstore
  namespace: toystore
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: GRPCRoute
    name: grpcstore
  limits:
    per-client:
      rates:
      - limit: 2
        window: 10s
",
    )
    .unwrap();
    let path = dir.path().to_str().unwrap();
    let on_15 = stdout(&[
        "status",
        "-f",
        path,
        "--routes",
        "--kuadrant-version",
        "1.5",
    ]);
    assert!(
        on_15.contains("toystore    GRPCRoute   grpcstore   api-gateway/external   kuadrant.io/RateLimitPolicyAffected   True     Object affected by RateLimitPolicy [toystore/grpcstore]"),
        "{on_15}"
    );
    let on_14 = stdout(&[
        "status",
        "-f",
        path,
        "--routes",
        "--kuadrant-version",
        "1.4",
    ]);
    assert_eq!(on_14.lines().count(), 1, "{on_14}");
}

#[test]
fn a_valid_tls_policy_on_the_gateway_marks_its_routes_and_an_invalid_one_does_not() {
    // common.go IsPolicyAccepted: a TLSPolicy counts when IsTLSPolicyValid (the validator's verdict),
    // so one whose Issuer is missing (Accepted=False, tlspolicies_validator.go isIssuerFound) is not
    // listed; TLSPolicyAffected comes after the RateLimitPolicy kinds (policyGroupKinds).
    let route = "apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: toystore
  namespace: toystore
spec:
  parentRefs:
  - name: prod-web
    namespace: my-gateways
  hostnames:
  - api.toystore.local
  rules:
  - backendRefs:
    - name: toystore
      port: 80
";
    for (issuer, listed) in [(true, true), (false, false)] {
        let dir = gateway_tls_with(|p| p, issuer);
        std::fs::write(dir.path().join("30-route.yaml"), route).unwrap();
        if !issuer {
            // The Issuer is absent but another one is in the input, so it is not assumed.
            std::fs::write(
                dir.path().join("10-other-issuer.yaml"),
                std::fs::read_to_string(format!("{GATEWAY_TLS}10-issuer.yaml"))
                    .unwrap()
                    .replace("name: selfsigned-issuer", "name: other-issuer"),
            )
            .unwrap();
        }
        let text = stdout(&["status", "-f", dir.path().to_str().unwrap(), "--routes"]);
        let row = "toystore    HTTPRoute   toystore   my-gateways/prod-web   kuadrant.io/TLSPolicyAffected   True     Object affected by TLSPolicy [my-gateways/prod-web]";
        assert_eq!(text.contains(row), listed, "issuer {issuer}:\n{text}");
    }
}

#[test]
fn diff_names_a_policy_that_stops_being_accepted() {
    // A typo in the guide's targetRef: Accepted=False, reason TargetNotFound, message
    // "%s target %s was not found" (internal/kuadrant/errors.go ErrTargetNotFound at v1.4.6 and
    // v1.5.2), and no Enforced condition any more.
    let dir = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(TOUR_RL).unwrap() {
        let e = e.unwrap();
        let text = std::fs::read_to_string(e.path()).unwrap();
        let text = if e.file_name() == "30-ratelimitpolicy.yaml" {
            text.replace("    name: toystore\n", "    name: toystore-typo\n")
        } else {
            text
        };
        std::fs::write(dir.path().join(e.file_name()), text).unwrap();
    }
    let text = stdout(&[
        "diff",
        "-f",
        dir.path().to_str().unwrap(),
        "--base",
        TOUR_RL,
        "-o",
        "stat",
    ]);
    assert!(
        text.contains(
            "policies whose predicted status changes:\n  RateLimitPolicy toystore/toystore: Accepted True → False (TargetNotFound), Enforced True → absent — RateLimitPolicy target toystore-typo was not found\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("limits removed:\n  RateLimitPolicy toystore/toystore limits.alice-limit"),
        "{text}"
    );
}

#[test]
fn route_lists_its_own_policy_and_the_parent_policies_as_the_operator_tests_say() {
    // kuadrant-operator tests/common/discoverability/policy_discoverability_reconciler_test.go (v1.4.6
    // and v1.5.2), "route should list it's own policy and the parent policies": a Gateway with two
    // listeners, a route attached to both, AuthPolicies on the Gateway (gateway-ap), on the listener
    // test-listener-toystore-com (section-ap) and on the route (route-ap): the route's condition
    // names all three. The route's own comes first (getRoutePath starts at the route); the operator
    // test checks each name with ContainsSubstring, as the listeners' order is a Go map's.
    let dir = tempfile::tempdir().unwrap();
    let ap = |name: &str, kind: &str, target: &str, section: &str| {
        format!(
            "apiVersion: kuadrant.io/v1
kind: AuthPolicy
metadata:
  name: {name}
  namespace: test
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: {kind}
    name: {target}
{section}  defaults:
    rules:
      authentication:
        anonymous:
          anonymous: {{}}
---
"
        )
    };
    let estate = format!(
        "apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: test-placed-gateway
  namespace: test
spec:
  gatewayClassName: istio
  listeners:
  - name: test-listener-toystore-com
    hostname: '*.toystore-abc.com'
    port: 80
    protocol: HTTP
  - name: test-listener-2
    hostname: '*.toystore-abc.com'
    port: 88
    protocol: HTTP
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: toystore-route
  namespace: test
spec:
  parentRefs:
  - name: test-placed-gateway
  hostnames:
  - api.toystore-abc.com
  rules:
  - backendRefs:
    - name: toystore
      port: 80
---
{}{}{}",
        ap("gateway-ap", "Gateway", "test-placed-gateway", ""),
        ap(
            "section-ap",
            "Gateway",
            "test-placed-gateway",
            "    sectionName: test-listener-toystore-com\n"
        ),
        ap("route-ap", "HTTPRoute", "toystore-route", ""),
    );
    std::fs::write(dir.path().join("estate.yaml"), estate).unwrap();
    for version in ["1.4", "1.5"] {
        let text = stdout(&[
            "status",
            "-f",
            dir.path().to_str().unwrap(),
            "--routes",
            "--kuadrant-version",
            version,
        ]);
        let rows: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(
            rows.len(),
            1,
            "{version}: one parent Gateway, one kind\n{text}"
        );
        assert!(
            rows[0].starts_with(
                "test        HTTPRoute   toystore-route   test/test-placed-gateway   kuadrant.io/AuthPolicyAffected   True     Object affected by AuthPolicy [test/route-ap "
            ),
            "{version}\n{text}"
        );
        for name in ["test/gateway-ap", "test/section-ap"] {
            assert!(rows[0].contains(name), "{version}: {name}\n{text}");
        }
    }
}
