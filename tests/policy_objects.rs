//! The objects the operator generates for TLSPolicies (cert-manager `Certificate`s) and DNSPolicies
//! (`DNSRecord`s), through the whole pipeline as `compute` runs it, at both emulated versions. The
//! TLS and DNS controllers are the same at kuadrant-operator v1.4.6 and v1.5.2 (`git diff v1.4.6
//! v1.5.2 -- internal/controller/effective_tls_policies_reconciler.go
//! internal/controller/effective_dnspolicies_reconciler.go internal/controller/dnspolicy_dnsrecords.go`
//! is empty, and both pin dns-operator f74008dc171c), so every case runs on both and expects the same.
//! Expected values come from that Go source and the operator's tests, cited per test.

use crate::common;
use common::load_docs;
use policyctl::KuadrantVersion;
use policyctl::StatusOptions;
use policyctl::diag::{Code, Diagnostics};
use policyctl::{Family, GenerateOptions};
use serde_json::{Value, json};

const VERSIONS: [KuadrantVersion; 2] = [KuadrantVersion::V1_4, KuadrantVersion::V1_5];

struct Run {
    objects: Vec<Value>,
    codes: Vec<(Code, String)>,
}

fn run_opts(text: &str, version: KuadrantVersion, opts: &GenerateOptions) -> Run {
    let docs: Vec<String> = text.split("\n---\n").map(str::to_string).collect();
    let l = load_docs(&docs, version);
    assert!(!l.diagnostics.has_errors(), "{:?}", l.diagnostics);
    let a = policyctl::analyze(
        &l.model,
        &Diagnostics::new(),
        opts,
        &StatusOptions::default(),
    );
    Run {
        objects: policyctl::object_values(&a.generated.objects),
        codes: a
            .diagnostics
            .iter()
            .map(|d| (d.code, d.message.clone()))
            .collect(),
    }
}

fn run(text: &str, version: KuadrantVersion) -> Run {
    run_opts(text, version, &GenerateOptions::default())
}

fn of_kind<'a>(r: &'a Run, kind: &str) -> Vec<&'a Value> {
    r.objects
        .iter()
        .filter(|o| o["kind"] == kind)
        .collect::<Vec<_>>()
}

fn guide(path: &str) -> String {
    std::fs::read_to_string(format!("{}/testdata/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// `CommonLabels()` of kuadrant-operator `internal/controller/common.go` (v1.4.6, v1.5.2).
fn common_labels() -> Value {
    json!({
        "app": "kuadrant",
        "app.kubernetes.io/component": "kuadrant",
        "app.kubernetes.io/instance": "kuadrant",
        "app.kubernetes.io/managed-by": "kuadrant-operator",
        "app.kubernetes.io/name": "kuadrant",
        "app.kubernetes.io/part-of": "kuadrant",
    })
}

/// The guide `doc/user-guides/tls/gateway-tls.md` (v1.5.2), GatewayClass left out as the guide does.
/// `buildCertManagerCertificate` (`effective_tls_policies_reconciler.go`): name `certName(gateway,
/// listener)` = `prod-web-api`, the secretRef's namespace (the listener's, as the ref has none),
/// `CommonLabels()`, `dnsNames: [listener hostname]`, `secretName` the certificateRef's name, the
/// policy's `issuerRef`, `usages: certmanv1.DefaultKeyUsages()` (cert-manager
/// `pkg/apis/certmanager/v1/types.go`: digital signature, key encipherment). No owner reference: the
/// guide's policy has no UID. (The guide's sample `kubectl get certificates` output shows the name
/// `toystore-local-tls`, which the code at both tags does not produce.)
#[test]
fn tls_guide_certificate() {
    for v in VERSIONS {
        let r = run(&guide("guides/tls/input.yaml"), v);
        let certs = of_kind(&r, "Certificate");
        assert_eq!(
            certs,
            [&json!({
                "apiVersion": "cert-manager.io/v1",
                "kind": "Certificate",
                "metadata": {
                    "name": "prod-web-api",
                    "namespace": "my-gateways",
                    "labels": common_labels(),
                },
                "spec": {
                    "dnsNames": ["*.toystore.local"],
                    "issuerRef": {"group": "cert-manager.io", "kind": "Issuer", "name": "selfsigned-issuer"},
                    "secretName": "toystore-local-tls",
                    "usages": ["digital signature", "key encipherment"],
                },
            })],
            "{v:?}"
        );
        // Certificates come after every other generated object.
        assert_eq!(r.objects.last().unwrap()["kind"], "Certificate");
    }
}

const GATEWAY_3_HTTPS: &str = r#"apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: istio}
spec: {controllerName: istio.io/gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: test-gateway, namespace: test}
spec:
  gatewayClassName: istio
  listeners:
  - name: test1.example.com
    hostname: test1.example.com
    port: 443
    protocol: HTTPS
    tls: {mode: Terminate, certificateRefs: [{name: test-tls-secret, namespace: test}]}
  - name: test2.example.com
    hostname: test2.example.com
    port: 443
    protocol: HTTPS
    tls: {mode: Terminate, certificateRefs: [{name: test-tls-secret, namespace: test}]}
  - name: test3.example.com
    hostname: test3.example.com
    port: 443
    protocol: HTTPS
    tls: {mode: Terminate, certificateRefs: [{name: test2-tls-secret, namespace: test}]}
"#;

/// kuadrant-operator v1.5.2 (and v1.4.6) `tests/common/tlspolicy/tlspolicy_controller_test.go`, "with
/// multiple https listener and some shared secrets": three Certificates `test-gateway-test{1,2,3}
/// .example.com` with `dnsNames` `test{1,2,3}.example.com` (listeners built by `tests/commons.go`
/// `WithHTTPSListener`: name = hostname, certificateRef with the gateway's namespace).
#[test]
fn one_certificate_per_listener_even_with_shared_secrets() {
    let policy = r#"
---
apiVersion: kuadrant.io/v1
kind: TLSPolicy
metadata: {name: test-tls-policy, namespace: test}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: test-gateway}
  issuerRef: {group: cert-manager.io, kind: Issuer, name: testissuer}
"#;
    for v in VERSIONS {
        let r = run(&format!("{GATEWAY_3_HTTPS}{policy}"), v);
        let got: Vec<(&str, &Value, &str)> = of_kind(&r, "Certificate")
            .iter()
            .map(|c| {
                (
                    c["metadata"]["name"].as_str().unwrap(),
                    &c["spec"]["dnsNames"],
                    c["spec"]["secretName"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (
                    "test-gateway-test1.example.com",
                    &json!(["test1.example.com"]),
                    "test-tls-secret"
                ),
                (
                    "test-gateway-test2.example.com",
                    &json!(["test2.example.com"]),
                    "test-tls-secret"
                ),
                (
                    "test-gateway-test3.example.com",
                    &json!(["test3.example.com"]),
                    "test2-tls-secret"
                ),
            ]
        );
    }
}

/// `translatePolicy` (`effective_tls_policies_reconciler.go`) and the e2e case "with https listener
/// and multiple issuer configurations" (`tests/common/tlspolicy/tlspolicy_controller_test.go`):
/// commonName, duration 120m and renewBefore 60m (a `metav1.Duration`, written back by Go's
/// `Duration.String()`: `2h0m0s`, `1h0m0s`), privateKey (Always, PKCS1, ECDSA, 256), usages as
/// given, revisionHistoryLimit 1. With the policy's UID, `SetControllerReference` adds the owner
/// reference (`kuadrant.io/v1` TLSPolicy, controller and blockOwnerDeletion true).
#[test]
fn policy_fields_reach_the_certificate() {
    let policy = r#"
---
apiVersion: kuadrant.io/v1
kind: TLSPolicy
metadata: {name: test-tls-policy, namespace: test, uid: 0b6f5b4e-0000-4000-8000-000000000001}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: test-gateway, sectionName: test1.example.com}
  issuerRef: {group: cert-manager.io, kind: Issuer, name: testissuer}
  commonName: example.com
  duration: 120m
  renewBefore: 60m
  privateKey: {rotationPolicy: Always, encoding: PKCS1, algorithm: ECDSA, size: 256}
  usages: [digital signature, key encipherment, cert sign]
  revisionHistoryLimit: 1
"#;
    for v in VERSIONS {
        let r = run(&format!("{GATEWAY_3_HTTPS}{policy}"), v);
        let certs = of_kind(&r, "Certificate");
        // sectionName: only that listener.
        assert_eq!(certs.len(), 1);
        assert_eq!(
            certs[0],
            &json!({
                "apiVersion": "cert-manager.io/v1",
                "kind": "Certificate",
                "metadata": {
                    "name": "test-gateway-test1.example.com",
                    "namespace": "test",
                    "labels": common_labels(),
                    "ownerReferences": [{
                        "apiVersion": "kuadrant.io/v1", "kind": "TLSPolicy", "name": "test-tls-policy",
                        "uid": "0b6f5b4e-0000-4000-8000-000000000001",
                        "blockOwnerDeletion": true, "controller": true,
                    }],
                },
                "spec": {
                    "commonName": "example.com",
                    "dnsNames": ["test1.example.com"],
                    "duration": "2h0m0s",
                    "issuerRef": {"group": "cert-manager.io", "kind": "Issuer", "name": "testissuer"},
                    "privateKey": {"algorithm": "ECDSA", "encoding": "PKCS1", "rotationPolicy": "Always", "size": 256},
                    "renewBefore": "1h0m0s",
                    "revisionHistoryLimit": 1,
                    "secretName": "test-tls-secret",
                    "usages": ["digital signature", "key encipherment", "cert sign"],
                },
            })
        );
    }
}

/// `getTLSPoliciesForListener`: a listener's own (sectionName) policies replace the Gateway's;
/// `validateGatewayListenerBlock` skips a listener without a tls block (plain HTTP: no word), and one
/// with mode Passthrough (`PCTL3017`, with the operator's reason); only valid policies get
/// Certificates (`IsTLSPolicyValid`): of two on one target with timestamps, the younger is Conflicted
/// (`isConflict`, `tlspolicies_validator.go`) and gets none.
#[test]
fn which_listeners_and_policies_get_certificates() {
    let text = r#"apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: istio}
spec: {controllerName: istio.io/gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: ns}
spec:
  gatewayClassName: istio
  listeners:
  - {name: http, hostname: a.example.com, port: 80, protocol: HTTP}
  - name: https
    hostname: a.example.com
    port: 443
    protocol: HTTPS
    tls: {certificateRefs: [{name: a-tls}]}
  - name: own
    hostname: b.example.com
    port: 443
    protocol: HTTPS
    tls: {certificateRefs: [{name: b-tls}]}
  - name: passthrough
    hostname: c.example.com
    port: 8443
    protocol: TLS
    tls: {mode: Passthrough, certificateRefs: [{name: c-tls}]}
---
apiVersion: kuadrant.io/v1
kind: TLSPolicy
metadata: {name: gw-wide, namespace: ns, creationTimestamp: "2025-01-01T00:00:00Z"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  issuerRef: {kind: ClusterIssuer, name: le}
---
apiVersion: kuadrant.io/v1
kind: TLSPolicy
metadata: {name: a-younger, namespace: ns, creationTimestamp: "2025-02-01T00:00:00Z"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  issuerRef: {kind: ClusterIssuer, name: other}
---
apiVersion: kuadrant.io/v1
kind: TLSPolicy
metadata: {name: own, namespace: ns}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: own}
  issuerRef: {kind: Issuer, name: ns-issuer}
"#;
    for v in VERSIONS {
        let r = run(text, v);
        let got: Vec<(&str, &Value)> = of_kind(&r, "Certificate")
            .iter()
            .map(|c| {
                (
                    c["metadata"]["name"].as_str().unwrap(),
                    &c["spec"]["issuerRef"],
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("gw-https", &json!({"kind": "ClusterIssuer", "name": "le"})),
                ("gw-own", &json!({"kind": "Issuer", "name": "ns-issuer"})),
            ]
        );
        let no_cert: Vec<&String> = r
            .codes
            .iter()
            .filter(|(c, _)| *c == Code::NoCertificate)
            .map(|(_, m)| m)
            .collect();
        assert_eq!(no_cert.len(), 1, "{:?}", r.codes);
        assert!(!r.codes.iter().any(|(c, _)| *c == Code::GeneratedNameClash));
        assert!(
            no_cert[0].contains("listener passthrough"),
            "{}",
            no_cert[0]
        );
        assert!(no_cert[0].contains("\"Passthrough\", not Terminate"));
    }
}

/// Two certificateRefs on one listener: `certName` ignores the ref, so both Certificates are named
/// `<gateway>-<listener>`; the operator's create of the second fails. One is printed, with `PCTL3018`.
#[test]
fn two_refs_one_name() {
    let text = r#"apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: ns}
spec:
  gatewayClassName: istio
  listeners:
  - name: https
    hostname: a.example.com
    port: 443
    protocol: HTTPS
    tls: {certificateRefs: [{name: rsa}, {name: ecdsa}]}
---
apiVersion: kuadrant.io/v1
kind: TLSPolicy
metadata: {name: p, namespace: ns}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  issuerRef: {kind: Issuer, name: i}
"#;
    for v in VERSIONS {
        let r = run(text, v);
        let certs = of_kind(&r, "Certificate");
        assert_eq!(certs.len(), 1);
        assert_eq!(certs[0]["spec"]["secretName"], "rsa");
        assert!(r.codes.iter().any(|(c, _)| *c == Code::GeneratedNameClash));
    }
}

const DNS_GATEWAY: &str = r#"apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: istio}
spec: {controllerName: istio.io/gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: external, namespace: my-gateway-namespace}
spec:
  gatewayClassName: istio
  listeners:
  - {name: api, hostname: api.example.com, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}
  - {name: wildcard, hostname: "*.example.com", port: 80, protocol: HTTP}
  - {name: nohost, port: 8080, protocol: HTTP}
"#;

const DNS_STATUS: &str = r#"status:
  addresses:
  - {type: IPAddress, value: 1.1.1.1}
  - {type: Hostname, value: lb.example.net}
  - {type: IPAddress, value: 81.17.21.22}
  listeners:
  - {name: api, attachedRoutes: 1}
  - {name: wildcard, attachedRoutes: 0}
  - {name: nohost, attachedRoutes: 1}
"#;

/// The guide `doc/user-guides/dns/basic-dns-configuration.md` (v1.5.2) policy, with a health check
/// and an excluded CIDR.
const DNS_POLICY: &str = r#"
---
apiVersion: kuadrant.io/v1
kind: DNSPolicy
metadata: {name: basic-dnspolicy, namespace: my-gateway-namespace, uid: 5d0c2a8e-0000-4000-8000-000000000002}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: external}
  providerRefs:
  - name: aws-credentials
  excludeAddresses: [1.1.0.0/16]
  healthCheck: {path: /health}
"#;

/// Offline, a guide's Gateway has no status: the operator builds the endpoints from
/// `status.addresses` and creates no record without endpoints or attached routes
/// (`effective_dnspolicies_reconciler.go`), so nothing is printed and `PCTL3016` says why.
#[test]
fn dns_record_needs_the_gateways_addresses() {
    for v in VERSIONS {
        let r = run(&format!("{DNS_GATEWAY}{DNS_POLICY}"), v);
        assert!(of_kind(&r, "DNSRecord").is_empty());
        let why: Vec<&String> = r
            .codes
            .iter()
            .filter(|(c, _)| *c == Code::DnsRecordNotPredicted)
            .map(|(_, m)| m)
            .collect();
        // api and wildcard; nohost has no hostname (skipped by the operator, no word).
        assert_eq!(why.len(), 2, "{:?}", r.codes);
        assert!(why[0].contains("DNSRecord my-gateway-namespace/external-api"));
        assert!(why[0].contains("status.addresses"));
    }
}

/// With the Gateway's status: `desiredDNSRecord` (`dnspolicy_dnsrecords.go`): name `external-api`
/// (`dnsRecordName`), the policy's namespace, `CommonLabels()` + `kuadrant.io/listener-name`,
/// `rootHost` the listener hostname, `providerRef` the first providerRefs, `healthCheck` with the
/// DNSPolicy CRD defaults (`config/crd/bases/kuadrant.io_dnspolicies.yaml`: port 443, protocol HTTPS,
/// interval 5m → `5m0s`, failureThreshold 5); `RemoveExcludedStatusAddresses` drops 1.1.1.1 (CIDR
/// 1.1.0.0/16, as `dnspolicy_dnsrecords_test.go` "ensure addresses removed if CIDR is set"); the
/// dns-operator builder (`pkg/builder/endpoints.go`, f74008dc171c) makes one A record of the IPs and
/// one CNAME of the host names, TTL `DefaultTTL` 60 (as `dnspolicy_controller_single_cluster_test.go`
/// "simple routing strategy" expects: record type A, empty set identifier, TTL DefaultTTL). The
/// `wildcard` listener has no attached routes: no record (and `PCTL3016`).
#[test]
fn dns_record_with_the_gateways_status() {
    for v in VERSIONS {
        let r = run(&format!("{DNS_GATEWAY}{DNS_STATUS}{DNS_POLICY}"), v);
        let mut labels = common_labels();
        labels["kuadrant.io/listener-name"] = json!("api");
        assert_eq!(
            of_kind(&r, "DNSRecord"),
            [&json!({
                "apiVersion": "kuadrant.io/v1alpha1",
                "kind": "DNSRecord",
                "metadata": {
                    "name": "external-api",
                    "namespace": "my-gateway-namespace",
                    "labels": labels,
                    "ownerReferences": [{
                        "apiVersion": "kuadrant.io/v1", "kind": "DNSPolicy", "name": "basic-dnspolicy",
                        "uid": "5d0c2a8e-0000-4000-8000-000000000002",
                        "blockOwnerDeletion": true, "controller": true,
                    }],
                },
                "spec": {
                    "endpoints": [
                        {"dnsName": "api.example.com", "recordTTL": 60, "recordType": "A", "targets": ["81.17.21.22"]},
                        {"dnsName": "api.example.com", "recordTTL": 60, "recordType": "CNAME", "targets": ["lb.example.net"]},
                    ],
                    "healthCheck": {"failureThreshold": 5, "interval": "5m0s", "path": "/health", "port": 443, "protocol": "HTTPS"},
                    "providerRef": {"name": "aws-credentials"},
                    "rootHost": "api.example.com",
                },
            })],
            "{v:?}"
        );
        assert!(
            r.codes
                .iter()
                .any(|(c, m)| *c == Code::DnsRecordNotPredicted
                    && m.contains("external-wildcard")
                    && m.contains("no attached routes"))
        );
    }
}

/// `--only certificate` / `--only dnsrecord` keep one family; `--only wasm` drops both.
#[test]
fn only_filters_the_new_families() {
    let text = format!(
        "{DNS_GATEWAY}{DNS_STATUS}{DNS_POLICY}\n---\n{}",
        r#"apiVersion: kuadrant.io/v1
kind: TLSPolicy
metadata: {name: t, namespace: my-gateway-namespace}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: external}
  issuerRef: {kind: Issuer, name: i}"#
    );
    // The DNS gateway's listeners have no tls block: give one a tls block for a Certificate.
    let text = text.replace(
        "{name: api, hostname: api.example.com, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}",
        "{name: api, hostname: api.example.com, port: 443, protocol: HTTPS, tls: {certificateRefs: [{name: api-tls}]}}",
    );
    let kinds = |only: &[&str]| -> Vec<String> {
        let r = run_opts(
            &text,
            KuadrantVersion::V1_5,
            &GenerateOptions {
                only: Some(only.iter().map(|f| Family::parse(f).unwrap()).collect()),
                ..GenerateOptions::default()
            },
        );
        r.objects
            .iter()
            .map(|o| o["kind"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(kinds(&["certificate"]), ["Certificate"]);
    assert_eq!(kinds(&["dnsrecord"]), ["DNSRecord"]);
    assert_eq!(
        kinds(&["certificate", "dnsrecord"]),
        ["Certificate", "DNSRecord"]
    );
    assert!(kinds(&["wasm"]).is_empty());
}

/// A live dump's operator-made Certificates and DNSRecords are compared (their `CommonLabels()`);
/// a user's own Certificate is not.
#[test]
fn live_certificates_are_comparable() {
    let mut c = json!({"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
        "metadata": {"name": "gw-https", "namespace": "ns", "labels": common_labels()}});
    assert!(policyctl::diff::is_comparable(&c));
    c["kind"] = json!("DNSRecord");
    assert!(policyctl::diff::is_comparable(&c));
    c["metadata"]["labels"] = json!({"app": "mine"});
    assert!(!policyctl::diff::is_comparable(&c));
}

/// The guide's next step as a pull request: adding the TLSPolicy creates the Certificate in `diff`
/// (it said "0 created" before), and `compute --out-dir` writes it to its own file.
#[test]
fn diff_and_out_dir_show_the_certificate() {
    let dir = tempfile::tempdir().unwrap();
    let full = guide("guides/tls/input.yaml");
    let policy_at = full
        .find("apiVersion: kuadrant.io/v1\nkind: TLSPolicy")
        .unwrap();
    let end = policy_at + full[policy_at..].find("\n---\n").unwrap() + 5;
    let base = dir.path().join("base");
    std::fs::create_dir(&base).unwrap();
    std::fs::write(
        base.join("input.yaml"),
        format!("{}{}", &full[..policy_at], &full[end..]),
    )
    .unwrap();
    let out = common::policyctl()
        .env("NO_COLOR", "1")
        .args(["diff", "-f", "testdata/guides/tls/", "--base"])
        .arg(&base)
        .args(["-o", "stat"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("created   Certificate my-gateways/prod-web-api"),
        "{text}"
    );
    assert!(text.contains("1 created, 0 updated, 0 deleted"), "{text}");

    let gen_dir = dir.path().join("generated");
    let out = common::policyctl()
        .args(["compute", "-f", "testdata/guides/tls/", "--out-dir"])
        .arg(&gen_dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let file = gen_dir.join("cert-manager.io_v1_Certificate_my-gateways_prod-web-api.yaml");
    let written = std::fs::read_to_string(&file).unwrap();
    assert!(
        written.contains("secretName: toystore-local-tls"),
        "{written}"
    );
}

/// A TLSPolicy `duration` Go's `time.ParseDuration` rejects: the operator could not decode the policy
/// (`metav1.Duration` unmarshalling fails); policyctl reports it at the field and leaves the policy out.
#[test]
fn a_duration_go_cannot_parse_is_a_schema_error() {
    let text = r#"apiVersion: kuadrant.io/v1
kind: TLSPolicy
metadata: {name: p, namespace: ns}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  issuerRef: {kind: Issuer, name: i}
  duration: 90d
"#;
    let l = load_docs(&[text.to_string()], KuadrantVersion::V1_5);
    let d: Vec<_> = l.diagnostics.iter().collect();
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].code, Code::SchemaViolation);
    assert!(d[0].message.contains("\"90d\" is not a Go duration"));
    assert!(l.model.policies.is_empty());
}

/// The same manifests in the opposite document order give the same objects.
#[test]
fn document_order_does_not_matter() {
    let text = format!("{GATEWAY_3_HTTPS}{DNS_STATUS_FREE_POLICIES}");
    let mut docs: Vec<&str> = text.split("\n---\n").collect();
    let forward = run(&docs.join("\n---\n"), KuadrantVersion::V1_5).objects;
    docs.reverse();
    let backward = run(&docs.join("\n---\n"), KuadrantVersion::V1_5).objects;
    let certs: Vec<&Value> = forward
        .iter()
        .filter(|o| o["kind"] == "Certificate")
        .collect();
    assert_eq!(certs.len(), 3);
    // test2's own policy `b` replaced the Gateway's `a` there.
    assert_eq!(
        certs[1]["spec"]["issuerRef"],
        json!({"kind": "Issuer", "name": "b"})
    );
    assert_eq!(forward, backward);
}

const DNS_STATUS_FREE_POLICIES: &str = r#"
---
apiVersion: kuadrant.io/v1
kind: TLSPolicy
metadata: {name: b, namespace: test}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: test-gateway, sectionName: test2.example.com}
  issuerRef: {kind: Issuer, name: b}
---
apiVersion: kuadrant.io/v1
kind: TLSPolicy
metadata: {name: a, namespace: test}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: test-gateway}
  issuerRef: {kind: Issuer, name: a}
"#;
