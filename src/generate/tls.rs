//! The cert-manager `Certificate`s the operator creates for TLSPolicies (identical at v1.4.6 and
//! v1.5.2: kuadrant-operator `internal/controller/effective_tls_policies_reconciler.go`).
//!
//! For every listener of every Gateway:
//! - the listener must pass `validateGatewayListenerBlock`: a hostname, a `tls` block with mode
//!   `Terminate` and at least one certificateRef, each of group `core` or `""`, kind `Secret` or `""`,
//!   and no namespace other than the Gateway's. Otherwise the operator skips it (a debug log line);
//!   policyctl says so with `PCTL3017` when the listener has a `tls` block and a valid TLSPolicy
//!   applies to it (a plain HTTP listener next to an HTTPS one is not worth a word).
//! - the TLSPolicies that apply are those targeting the listener (`sectionName`), or, when there are
//!   none, those targeting its Gateway; only the valid ones (predicted `Accepted`) get Certificates.
//! - one Certificate per certificateRef and policy: name `<gateway>-<listener>`, namespace the
//!   ref's (the Gateway's), the operator's common labels, an owner reference to the policy (written
//!   when its `metadata.uid` is in the input), and the spec: `dnsNames: [<listener hostname>]`,
//!   `secretName`, the policy's `issuerRef`, `usages` (cert-manager's defaults `digital signature`,
//!   `key encipherment` unless the policy sets them), then `commonName`, `duration`, `renewBefore`,
//!   `revisionHistoryLimit` and `privateKey` from the policy (`translatePolicy`).
//!
//! Several Certificates of one listener (two certificateRefs, or two valid policies) share the
//! name: the operator creates the first and the others fail, then rewrites its spec on each
//! reconcile. policyctl keeps the first and says so (`PCTL3018`).
//!
//! The operator's common labels are `CommonLabels()` of `internal/controller/common.go` (both tags).

use crate::diag::{Code, Diagnostic};
use crate::model::{DirectSpec, Gateway, Listener, Model, Obj, PolicyBody, PolicyKind};
use serde_json::{Map, Value, json};
use std::collections::{BTreeSet, HashMap};

use super::object::Object;

pub(crate) const CERTIFICATE_API_VERSION: &str = "cert-manager.io/v1";
const GATEWAY_GROUP: &str = "gateway.networking.k8s.io";

/// `CommonLabels()` of kuadrant-operator `internal/controller/common.go` (v1.4.6 and v1.5.2).
pub(crate) fn common_labels() -> Value {
    json!({
        "app": "kuadrant",
        "app.kubernetes.io/component": "kuadrant",
        "app.kubernetes.io/instance": "kuadrant",
        "app.kubernetes.io/managed-by": "kuadrant-operator",
        "app.kubernetes.io/name": "kuadrant",
        "app.kubernetes.io/part-of": "kuadrant",
    })
}

/// The policies of one kind that target a Gateway (no `sectionName`) or one of its listeners, by
/// target: indices into `m.policies`, in model order. Built in one pass over the policies, so that a
/// model with many policies and many listeners is not scanned once per listener.
pub(crate) struct GatewayTargets<'m> {
    by_target: HashMap<(&'m str, &'m str, Option<&'m str>), Vec<usize>>,
}

impl<'m> GatewayTargets<'m> {
    pub(crate) fn of(m: &'m Model, kind: PolicyKind) -> Self {
        let mut by_target: HashMap<_, Vec<usize>> = HashMap::new();
        for (pi, p) in m.policies.iter().enumerate() {
            if p.kind == kind
                && p.target.group.value == GATEWAY_GROUP
                && p.target.kind.value == "Gateway"
            {
                let section = p.target.section_name.as_ref().map(|s| s.value.as_str());
                by_target
                    .entry((
                        p.meta.namespace.as_str(),
                        p.target.name.value.as_str(),
                        section,
                    ))
                    .or_default()
                    .push(pi);
            }
        }
        GatewayTargets { by_target }
    }

    /// The policies targeting `g` (`section` `None`) or its listener `section`.
    pub(crate) fn on(&self, g: &'m Obj<Gateway>, section: Option<&'m str>) -> Vec<usize> {
        self.by_target
            .get(&(g.meta.namespace.as_str(), g.meta.name.as_str(), section))
            .cloned()
            .unwrap_or_default()
    }
}

/// Why the operator skips this listener for Certificates, in the words of its field errors.
fn unusable(l: &Listener, gw_namespace: &str) -> Option<String> {
    let mut why = Vec::new();
    if l.hostname.as_ref().is_none_or(|h| h.value.is_empty()) {
        why.push("it has no hostname".to_string());
    }
    let Some(tls) = &l.tls else {
        why.push("it has no tls block".to_string());
        return Some(why.join(", "));
    };
    if tls.certificate_refs.is_empty() {
        why.push("it has no tls.certificateRefs".to_string());
    }
    for (i, r) in tls.certificate_refs.iter().enumerate() {
        if r.group != "core" && !r.group.is_empty() {
            why.push(format!(
                "certificateRefs[{i}].group {:?} is not core",
                r.group
            ));
        }
        if r.kind != "Secret" && !r.kind.is_empty() {
            why.push(format!(
                "certificateRefs[{i}].kind {:?} is not Secret",
                r.kind
            ));
        }
        if let Some(ns) = &r.namespace
            && ns != gw_namespace
        {
            why.push(format!(
                "certificateRefs[{i}].namespace {ns:?} is not the Gateway's (cross-namespace secret references are not allowed)"
            ));
        }
    }
    if tls.mode != "Terminate" {
        why.push(format!("tls.mode is {:?}, not Terminate", tls.mode));
    }
    (!why.is_empty()).then(|| why.join(", "))
}

/// A controller owner reference to a policy, when its UID is known.
pub(crate) fn policy_owner(kind: &str, name: &str, uid: Option<&str>) -> Option<Value> {
    uid.map(|uid| {
        json!({"apiVersion": "kuadrant.io/v1", "kind": kind, "name": name, "uid": uid,
               "blockOwnerDeletion": true, "controller": true})
    })
}

fn certificate_spec(hostname: &str, secret: &str, p: &DirectSpec) -> Value {
    let mut spec = Map::new();
    spec.insert("dnsNames".into(), json!([hostname]));
    spec.insert("secretName".into(), json!(secret));
    spec.insert(
        "issuerRef".into(),
        Value::Object(
            p.issuer_ref
                .clone()
                .unwrap_or_else(|| Map::from_iter([("name".to_string(), json!(""))])),
        ),
    );
    let usages = p
        .usages
        .clone()
        .unwrap_or_else(|| vec!["digital signature".into(), "key encipherment".into()]);
    if !usages.is_empty() {
        spec.insert("usages".into(), json!(usages));
    }
    if !p.common_name.is_empty() {
        spec.insert("commonName".into(), json!(p.common_name));
    }
    if let Some(d) = &p.duration {
        spec.insert("duration".into(), json!(d));
    }
    if let Some(d) = &p.renew_before {
        spec.insert("renewBefore".into(), json!(d));
    }
    if let Some(n) = p.revision_history_limit {
        spec.insert("revisionHistoryLimit".into(), json!(n));
    }
    if let Some(k) = &p.private_key {
        spec.insert("privateKey".into(), Value::Object(k.clone()));
    }
    Value::Object(spec)
}

/// The Certificates of every valid TLSPolicy (`accepted[policy]`), per Gateway in model order (or
/// only `gateway`), listener order, certificateRef order, then policy order; keys sorted.
pub(crate) fn certificates(
    m: &Model,
    accepted: &[bool],
    gateway: Option<&(String, String)>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Object> {
    let mut out = Vec::new();
    let targets = GatewayTargets::of(m, PolicyKind::Tls);
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
            if policies.is_empty() {
                continue;
            }
            let name = format!("{}-{}", g.meta.name, l.name.value);
            let valid = policies
                .iter()
                .find(|&&pi| accepted.get(pi).copied().unwrap_or(false));
            if let Some(why) = unusable(l, &g.meta.namespace) {
                // A listener without a tls block is plainly not a TLS listener: no word about it.
                let Some(&pi) = valid.filter(|_| l.tls.is_some()) else {
                    continue;
                };
                let p = &m.policies[pi];
                diags.push(
                    Diagnostic::new(
                        Code::NoCertificate,
                        format!(
                            "listener {} of Gateway {} gets no Certificate from {}: {why}",
                            l.name.value,
                            g.meta.key(),
                            p.display()
                        ),
                    )
                    .object(format!("Gateway {}", g.meta.key()))
                    .at(l.name.span, "this listener is skipped by the operator")
                    .help("give the listener a hostname and a tls block with mode Terminate and a certificateRef to a Secret in the Gateway's namespace"),
                );
                continue;
            }
            let Some(tls) = &l.tls else { continue };
            let hostname = l.hostname.as_ref().map_or("*", |h| h.value.as_str());
            let mut made: BTreeSet<&str> = BTreeSet::new();
            for r in &tls.certificate_refs {
                let namespace = r.namespace.as_deref().unwrap_or(&g.meta.namespace);
                for &pi in &policies {
                    if !accepted.get(pi).copied().unwrap_or(false) {
                        continue;
                    }
                    let p = &m.policies[pi];
                    let PolicyBody::Direct(spec) = &p.body else {
                        continue;
                    };
                    if !made.insert(namespace) {
                        diags.push(
                            Diagnostic::new(
                                Code::GeneratedNameClash,
                                format!(
                                    "Certificate {namespace}/{name} would be generated more than once (listener {} has {} certificateRef(s) and {} applies): the operator keeps one name per listener, so only the first (secret {}) is printed",
                                    l.name.value,
                                    tls.certificate_refs.len(),
                                    p.display(),
                                    tls.certificate_refs[0].name,
                                ),
                            )
                            .object(format!("Gateway {}", g.meta.key()))
                            .at(l.name.span, "one Certificate name for this listener")
                            .help("give the listener one certificateRef, and let one TLSPolicy apply to it"),
                        );
                        continue;
                    }
                    let mut meta = json!({
                        "name": name,
                        "namespace": namespace,
                        "labels": common_labels(),
                    });
                    if let Some(o) = policy_owner("TLSPolicy", &p.meta.name, p.meta.uid.as_deref())
                    {
                        meta["ownerReferences"] = json!([o]);
                    }
                    out.push(Object::Tree(super::sort_keys(json!({
                        "apiVersion": CERTIFICATE_API_VERSION,
                        "kind": "Certificate",
                        "metadata": meta,
                        "spec": certificate_spec(hostname, &r.name, spec),
                    }))));
                }
            }
        }
    }
    out
}
