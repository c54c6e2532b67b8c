//! The `DNSRecord`s (`kuadrant.io/v1alpha1`, dns-operator) the operator creates for DNSPolicies
//! (identical at v1.4.6 and v1.5.2, which pin the same dns-operator commit f74008dc171c:
//! kuadrant-operator `internal/controller/effective_dnspolicies_reconciler.go` and
//! `dnspolicy_dnsrecords.go`, dns-operator `pkg/builder/endpoints.go`, `api/v1alpha1/dnsrecord_types.go`).
//!
//! A valid (predicted `Accepted`) DNSPolicy covers the listener it targets by `sectionName`, or, when
//! it targets the Gateway, every listener of it that no DNSPolicy targets by `sectionName`. For each
//! covered listener with a hostname, one record: name `<gateway>-<listener>`, the policy's
//! namespace, the operator's common labels plus `kuadrant.io/listener-name`, an owner reference to
//! the policy (when its UID is in the input), and the spec: `rootHost` (the listener hostname),
//! `providerRef` (the policy's first `providerRefs`), `healthCheck` (with its CRD defaults: port 443,
//! protocol HTTPS, interval 5m, failureThreshold 5), `delegate` when true, and `endpoints`.
//!
//! The endpoints come from the Gateway's `status.addresses` (minus the policy's `excludeAddresses`,
//! exact values or CIDRs): one `A` record of the IP addresses and one `CNAME` of the host names, TTL
//! 60. The operator creates the record only when there are endpoints and the listener has attached
//! routes (`status.listeners[].attachedRoutes`). Manifests kept in git have no status: then nothing
//! is printed, as the operator would create nothing, and `PCTL3016` says what is missing. A policy
//! with `loadBalancing` needs the cluster's ID (the UID of the `kube-system` namespace) for its
//! endpoint names and is not predicted either (`PCTL3016`).

use super::object::Object;
use super::tls::{GatewayTargets, common_labels, policy_owner};
use crate::diag::{Code, Diagnostic};
use crate::model::{DirectSpec, Gateway, Listener, Model, Obj, PolicyBody, PolicyKind};
use serde_json::{Map, Value, json};
use std::net::IpAddr;

pub(crate) const DNS_RECORD_API_VERSION: &str = "kuadrant.io/v1alpha1";
/// dns-operator `pkg/builder` `DefaultTTL` (the operator's `DNS_DEFAULT_TTL` is not set by its
/// release manifests).
const DEFAULT_TTL: i64 = 60;

/// Go `net.ParseCIDR` + `Contains` for the address forms Gateway status carries.
fn cidr_contains(cidr: &str, ip: &str) -> Option<bool> {
    let (net, bits) = cidr.split_once('/')?;
    let net: IpAddr = net.parse().ok()?;
    let bits: u32 = bits.parse().ok()?;
    let Ok(ip) = ip.parse::<IpAddr>() else {
        return Some(false);
    };
    let canonical = |a: IpAddr| match a {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(a, IpAddr::V4),
        v4 => v4,
    };
    Some(match (canonical(net), canonical(ip)) {
        (IpAddr::V4(n), IpAddr::V4(i)) => {
            if bits > 32 {
                return None;
            }
            let mask = u32::MAX.checked_shl(32 - bits).unwrap_or(0);
            u32::from(n) & mask == u32::from(i) & mask
        }
        (IpAddr::V6(n), IpAddr::V6(i)) => {
            if bits > 128 {
                return None;
            }
            let mask = u128::MAX.checked_shl(128 - bits).unwrap_or(0);
            u128::from(n) & mask == u128::from(i) & mask
        }
        _ => false,
    })
}

/// dns-operator's `HostnameRegex`: characters of `[\w\-.~:/?#[\]@!$&'()*+,;=]` around a dot.
fn builder_hostname_ok(h: &str) -> bool {
    let allowed = |c: char| c.is_ascii_alphanumeric() || "_-.~:/?#[]@!$&'()*+,;=".contains(c);
    h.chars().all(allowed) && h.len() >= 3 && h[1..h.len() - 1].contains('.')
}

/// The endpoints of the simple (not load-balanced) builder; `Err` where the operator fails.
fn endpoints(g: &Obj<Gateway>, hostname: &str, p: &DirectSpec) -> Result<Vec<Value>, ()> {
    let addresses = g
        .spec
        .status
        .as_ref()
        .and_then(|s| s.addresses.as_ref())
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut ips = Vec::new();
    let mut hosts = Vec::new();
    for a in addresses {
        let value = a.value.as_deref().unwrap_or("");
        let mut excluded = false;
        for e in &p.exclude_addresses {
            if e.contains('/') && cidr_contains(e, value).ok_or(())? {
                excluded = true;
                break;
            }
            if e == value {
                excluded = true;
                break;
            }
        }
        if excluded {
            continue;
        }
        if a.type_.as_deref().unwrap_or("IPAddress") == "IPAddress" {
            ips.push(value.to_string());
        } else {
            hosts.push(value.to_string());
        }
    }
    if !builder_hostname_ok(hostname) {
        return Err(());
    }
    let record = |targets: Vec<String>, ty: &str| json!({"dnsName": hostname, "recordTTL": DEFAULT_TTL, "recordType": ty, "targets": targets});
    let mut out = Vec::new();
    if !ips.is_empty() {
        out.push(record(ips, "A"));
    }
    if !hosts.is_empty() {
        out.push(record(hosts, "CNAME"));
    }
    Ok(out)
}

/// `healthCheck` with the DNSPolicy CRD defaults the API server would have applied.
fn health_check(h: &Value) -> Value {
    let mut m = h.as_object().cloned().unwrap_or_default();
    m.entry("port").or_insert(json!(443));
    m.entry("protocol").or_insert(json!("HTTPS"));
    m.entry("failureThreshold").or_insert(json!(5));
    let interval = m
        .get("interval")
        .and_then(Value::as_str)
        .unwrap_or("5m")
        .to_string();
    if let Some(ns) = crate::model::duration::parse(&interval) {
        m.insert("interval".into(), json!(crate::model::duration::format(ns)));
    }
    if m.get("path").and_then(Value::as_str) == Some("") {
        m.remove("path");
    }
    Value::Object(m)
}

fn attached_routes(g: &Obj<Gateway>, l: &Listener) -> i64 {
    g.spec
        .status
        .as_ref()
        .and_then(|s| s.listeners.as_ref())
        .and_then(|ls| ls.iter().find(|s| s.name.as_deref() == Some(&l.name.value)))
        .and_then(|s| s.attached_routes)
        .unwrap_or(0)
}

/// The DNSRecords of every valid DNSPolicy (`accepted[policy]`), per Gateway in model order (or only
/// `gateway`), listener order, then policy order; keys sorted.
pub(crate) fn dns_records(
    m: &Model,
    accepted: &[bool],
    gateway: Option<&(String, String)>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Object> {
    let mut out = Vec::new();
    let targets = GatewayTargets::of(m, PolicyKind::Dns);
    for g in &m.gateways {
        if gateway.is_some_and(|(ns, n)| *ns != g.meta.namespace || *n != g.meta.name) {
            continue;
        }
        let on_gateway = targets.on(g, None);
        for l in &g.spec.listeners {
            let mut policies = targets.on(g, Some(&l.name.value));
            if policies.is_empty() {
                policies = on_gateway.clone();
            }
            let Some(hostname) = l.hostname.as_ref().map(|h| h.value.as_str()) else {
                continue;
            };
            let name = format!("{}-{}", g.meta.name, l.name.value);
            for &pi in &policies {
                if !accepted.get(pi).copied().unwrap_or(false) {
                    continue;
                }
                let p = &m.policies[pi];
                let PolicyBody::Direct(spec) = &p.body else {
                    continue;
                };
                let not_printed = |why: &str, help: &str| {
                    Diagnostic::new(
                        Code::DnsRecordNotPredicted,
                        format!(
                            "DNSRecord {}/{name} of {} is not printed: {why}",
                            p.meta.namespace,
                            p.display()
                        ),
                    )
                    .object(p.display())
                    .at(p.meta.origin.name, "this DNSPolicy's record")
                    .help(help.to_string())
                };
                if spec.load_balancing {
                    diags.push(not_printed(
                        "with loadBalancing its endpoint names hash the cluster's ID (the UID of the kube-system namespace), only known in the cluster",
                        "see the record in the cluster with `kubectl get dnsrecord -n <namespace> -o yaml`",
                    ));
                    continue;
                }
                let Ok(endpoints) = endpoints(g, hostname, spec) else {
                    continue;
                };
                let attached = attached_routes(g, l);
                if endpoints.is_empty() || attached == 0 {
                    let why = if endpoints.is_empty() {
                        "its endpoints need the Gateway's status.addresses, which the input does not have (the operator creates no record without them)"
                    } else {
                        "the listener has no attached routes in the Gateway's status.listeners (the operator creates no record then)"
                    };
                    diags.push(not_printed(
                        why,
                        "add the Gateway with its status (`kubectl get gateway -o yaml`) to the input to see the record",
                    ));
                    continue;
                }
                let mut labels = common_labels();
                labels["kuadrant.io/listener-name"] = json!(l.name.value);
                let mut meta = json!({
                    "name": name,
                    "namespace": p.meta.namespace,
                    "labels": labels,
                });
                if let Some(o) = policy_owner("DNSPolicy", &p.meta.name, p.meta.uid.as_deref()) {
                    meta["ownerReferences"] = json!([o]);
                }
                let mut s = Map::new();
                s.insert("rootHost".into(), json!(hostname));
                s.insert("endpoints".into(), Value::Array(endpoints));
                if let Some(r) = &spec.provider_ref {
                    s.insert("providerRef".into(), r.clone());
                }
                if let Some(h) = &spec.health_check {
                    s.insert("healthCheck".into(), health_check(h));
                }
                if spec.delegate {
                    s.insert("delegate".into(), json!(true));
                }
                out.push(Object::Tree(super::sort_keys(json!({
                    "apiVersion": DNS_RECORD_API_VERSION,
                    "kind": "DNSRecord",
                    "metadata": meta,
                    "spec": s,
                }))));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Go `net.ParseCIDR(...).Contains(net.ParseIP(...))`.
    #[test]
    fn cidr() {
        assert_eq!(cidr_contains("10.0.0.0/8", "10.1.2.3"), Some(true));
        assert_eq!(cidr_contains("10.0.0.0/8", "11.1.2.3"), Some(false));
        assert_eq!(cidr_contains("0.0.0.0/0", "1.2.3.4"), Some(true));
        assert_eq!(cidr_contains("10.0.0.0/8", "::ffff:10.0.0.1"), Some(true));
        assert_eq!(cidr_contains("2001:db8::/32", "2001:db8::1"), Some(true));
        assert_eq!(cidr_contains("10.0.0.0/8", "lb.example.com"), Some(false));
        assert_eq!(cidr_contains("10.0.0.0/33", "10.0.0.1"), None);
        assert_eq!(cidr_contains("nonsense/8", "10.0.0.1"), None);
    }

    /// dns-operator `HostnameRegex`: a dot with something on both sides.
    #[test]
    fn hostname_regex() {
        assert!(builder_hostname_ok("api.example.com"));
        assert!(builder_hostname_ok("*.example.com"));
        assert!(!builder_hostname_ok("localhost"));
        assert!(!builder_hostname_ok(".com"));
        assert!(!builder_hostname_ok("example."));
    }
}
