//! One Kubernetes object as read from a document: header fields plus a spec/status typed by kind.
//!
//! The document is read as a tree first (`node.rs`), so `apiVersion` and `kind` are known before the
//! spec is read, whatever the order of the keys; the typed spec keeps its spans.

use super::node::{self, DeError, Node, Value};
use super::raw::*;
use crate::model::span::Sp;
use crate::model::{KindMatch, ObjectKind};
use serde_json::Value as Value_;

// Transient (one per document, consumed by validation right away): boxing would only add allocations.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Default)]
pub(crate) enum RawSpec {
    #[default]
    None,
    // Boxed: the specs are large (kilobytes inline), and documents are moved between threads and
    // held all at once before validation; inline they cost the largest spec's size each.
    GatewayClass(Box<GatewayClassSpec>),
    Gateway(Box<GatewaySpec>),
    HttpRoute(Box<HttpRouteSpec>),
    GrpcRoute(Box<GrpcRouteSpec>),
    Service(Box<ServiceSpec>),
    RateLimit(Box<RateLimitPolicySpec>),
    Auth(Box<AuthPolicySpec>),
    Direct(Box<DirectPolicySpec>),
    /// PlanPolicy, OIDCPolicy, TelemetryPolicy, ThreatPolicy.
    Extension(Box<ExtensionPolicySpec>),
    Opaque(Value_),
    /// Present but not read (unknown kind, or the kind was not known yet).
    Skipped,
}

#[derive(Debug, Default)]
pub(crate) enum RawStatus {
    #[default]
    None,
    Gateway(GatewayStatus),
    Route(RouteStatus),
    Opaque(Value_),
    Skipped,
}

#[derive(Debug, Default)]
pub(crate) struct RawDocument {
    pub api_version: Option<Sp<String>>,
    pub kind: Option<Sp<String>>,
    pub metadata: Option<Sp<RawMeta>>,
    pub spec: RawSpec,
    pub status: RawStatus,
}

/// Whether a document is a list of objects, as kubectl tells one (apimachinery
/// `Unstructured.IsList`): its `items` is a sequence, whatever its `kind` (`List`, `GatewayList`, …).
pub(crate) fn is_list(node: &Node) -> bool {
    matches!(node.get("items").map(|n| &n.value), Some(Value::Seq(_)))
}

/// The objects of a list document, as kubectl's `FlattenListVisitor` gives them: breadth first, the
/// items of a list within the list after the list's other items (an object's position in a List,
/// `Origin::item`, is its index in this order).
pub(crate) fn flatten(node: Node) -> Vec<Node> {
    let mut queue = std::collections::VecDeque::from([node]);
    let mut out = Vec::new();
    while let Some(n) = queue.pop_front() {
        if !is_list(&n) {
            out.push(n);
            continue;
        }
        if let Value::Map(entries) = n.value {
            for e in entries {
                if e.key.value == "items"
                    && let Value::Seq(items) = e.value.value
                {
                    queue.extend(items);
                }
            }
        }
    }
    out
}

/// [`flatten`] of a document read as JSON (an object re-read from its text).
pub(crate) fn flatten_json(v: &Value_) -> Vec<&Value_> {
    let mut queue = std::collections::VecDeque::from([v]);
    let mut out = Vec::new();
    while let Some(n) = queue.pop_front() {
        match n.get("items").and_then(Value_::as_array) {
            Some(items) => queue.extend(items),
            None => out.push(n),
        }
    }
    out
}

/// The string of a header field (`apiVersion`, `kind`).
fn header(n: Node, field: &str) -> Result<Sp<String>, DeError> {
    match n.value {
        Value::Str(s) => Ok(Sp::new(s, n.span)),
        _ => Err(DeError {
            message: format!("{field} must be a string, found {}", n.type_name()),
            span: Some(n.span),
        }),
    }
}

/// The typed shapes of one object document (a mapping): its header, metadata, and the spec and
/// status of its kind.
pub(crate) fn from_node(node: Node) -> Result<RawDocument, DeError> {
    let Value::Map(entries) = node.value else {
        return Err(DeError {
            message: "the document is not a mapping".into(),
            span: Some(node.span),
        });
    };
    let text = |k: &str| {
        entries
            .iter()
            .find(|e| e.key.value == k)
            .and_then(|e| e.value.as_str())
    };
    let known = match (text("apiVersion"), text("kind")) {
        (Some(a), Some(k)) => served_kind(Some(ObjectKind::classify(a, k))),
        _ => None,
    };
    let mut doc = RawDocument::default();
    for e in entries {
        match e.key.value.as_str() {
            "apiVersion" => doc.api_version = Some(header(e.value, "apiVersion")?),
            "kind" => doc.kind = Some(header(e.value, "kind")?),
            "metadata" => doc.metadata = Some(node::read(e.value)?),
            "spec" => {
                doc.spec = match known {
                    Some(k) => read_spec(k, e.value)?,
                    None => RawSpec::Skipped,
                }
            }
            "status" => {
                doc.status = match known {
                    Some(k) => read_status(k, e.value)?,
                    None => RawStatus::Skipped,
                }
            }
            _ => {}
        }
    }
    Ok(doc)
}

fn served_kind(m: Option<KindMatch>) -> Option<ObjectKind> {
    match m {
        Some(KindMatch::Served(k)) => Some(k),
        _ => None,
    }
}

fn read_spec(k: ObjectKind, n: Node) -> Result<RawSpec, DeError> {
    use ObjectKind as K;
    Ok(match k {
        K::GatewayClass => RawSpec::GatewayClass(node::read(n)?),
        K::Gateway => RawSpec::Gateway(node::read(n)?),
        K::HttpRoute => RawSpec::HttpRoute(node::read(n)?),
        K::GrpcRoute => RawSpec::GrpcRoute(node::read(n)?),
        K::Service => RawSpec::Service(node::read(n)?),
        K::RateLimitPolicy | K::TokenRateLimitPolicy => RawSpec::RateLimit(node::read(n)?),
        K::AuthPolicy => RawSpec::Auth(node::read(n)?),
        K::DnsPolicy | K::TlsPolicy => RawSpec::Direct(node::read(n)?),
        K::Kuadrant | K::Limitador | K::Authorino => RawSpec::Opaque(n.to_json()),
        K::PlanPolicy | K::OidcPolicy | K::TelemetryPolicy | K::ThreatPolicy => {
            RawSpec::Extension(node::read(n)?)
        }
        K::Namespace | K::Issuer | K::ClusterIssuer => RawSpec::Skipped,
    })
}

fn read_status(k: ObjectKind, n: Node) -> Result<RawStatus, DeError> {
    use ObjectKind as K;
    Ok(match k {
        K::Gateway => RawStatus::Gateway(node::read(n)?),
        K::HttpRoute | K::GrpcRoute => RawStatus::Route(node::read(n)?),
        K::Limitador | K::Authorino | K::Kuadrant => RawStatus::Opaque(n.to_json()),
        _ => RawStatus::Skipped,
    })
}
