//! One Kubernetes object as read from a document: header fields plus a spec/status typed by kind.
//!
//! A hand-written visitor dispatches on `apiVersion`/`kind` while reading, so the typed spec keeps its
//! spans (serde's tagged/flatten enums buffer values and lose them). When `spec` comes before `kind`,
//! the document is read again with the kind known up front.

use super::raw::*;
use crate::model::span::Sp;
use crate::model::{KindMatch, ObjectKind};
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use std::fmt;

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
    Opaque(Value),
    /// Present but not read (unknown kind, or the kind was not known yet).
    Skipped,
}

#[derive(Debug, Default)]
pub(crate) enum RawStatus {
    #[default]
    None,
    Gateway(GatewayStatus),
    Route(RouteStatus),
    Opaque(Value),
    Skipped,
}

#[derive(Debug, Default)]
pub(crate) struct RawDocument {
    pub api_version: Option<Sp<String>>,
    pub kind: Option<Sp<String>>,
    pub metadata: Option<Sp<RawMeta>>,
    pub spec: RawSpec,
    pub status: RawStatus,
    /// `items` of a `List` / `*List`.
    pub items: Option<Vec<Sp<RawDocument>>>,
    /// `spec`/`status`/`items` appeared before `apiVersion`/`kind` and were skipped.
    pub needs_reread: bool,
    /// `data`, `stringData` and `type` of a v1 Secret (read whatever the kind, since `kubectl get -o
    /// yaml` writes `data` before `kind`; kept only for a Secret): Authorino's API keys, which
    /// `simulate` looks up.
    pub secret: Option<Box<serde_json::Map<String, Value>>>,
}

impl RawDocument {
    /// Whether the document is a core `v1` Secret.
    pub(crate) fn is_secret(&self) -> bool {
        self.api_version.as_ref().is_some_and(|a| a.value == "v1")
            && self.kind.as_ref().is_some_and(|k| k.value == "Secret")
    }
}

impl RawDocument {
    pub(crate) fn is_list(&self) -> bool {
        self.kind
            .as_ref()
            .is_some_and(|k| k.value == "List" || k.value.ends_with("List"))
    }
}

/// The kind to read a document as, when known before reading.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct DocSeed {
    pub hint: Option<KindMatch>,
}

impl<'de> DeserializeSeed<'de> for DocSeed {
    type Value = RawDocument;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<RawDocument, D::Error> {
        d.deserialize_map(DocVisitor { hint: self.hint })
    }
}

impl<'de> Deserialize<'de> for RawDocument {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        DocSeed::default().deserialize(d)
    }
}

struct DocVisitor {
    hint: Option<KindMatch>,
}

fn served_kind(m: Option<KindMatch>) -> Option<ObjectKind> {
    match m {
        Some(KindMatch::Served(k)) => Some(k),
        _ => None,
    }
}

impl<'de> Visitor<'de> for DocVisitor {
    type Value = RawDocument;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a Kubernetes object (a mapping with apiVersion and kind)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawDocument, A::Error> {
        let mut doc = RawDocument::default();
        let mut known = self.hint;
        while let Some(key) = map.next_key::<String>()? {
            if known.is_none()
                && let (Some(a), Some(k)) = (&doc.api_version, &doc.kind)
            {
                known = Some(ObjectKind::classify(&a.value, &k.value));
            }
            match key.as_str() {
                "apiVersion" => doc.api_version = Some(map.next_value()?),
                "kind" => doc.kind = Some(map.next_value()?),
                "metadata" => doc.metadata = Some(map.next_value()?),
                "data" | "stringData" | "type"
                    if known.is_none() || matches!(known, Some(KindMatch::Unknown)) =>
                {
                    let v: Value = map.next_value()?;
                    doc.secret
                        .get_or_insert_with(Default::default)
                        .insert(key, v);
                }
                "items" => {
                    let is_list = doc.is_list();
                    if is_list {
                        doc.items = Some(map.next_value()?);
                    } else {
                        if doc.kind.is_none() {
                            doc.needs_reread = true;
                        }
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                "spec" => {
                    doc.spec = match (known, served_kind(known)) {
                        (None, _) => {
                            doc.needs_reread = true;
                            map.next_value::<IgnoredAny>()?;
                            RawSpec::Skipped
                        }
                        (_, Some(k)) => read_spec(k, &mut map)?,
                        (Some(_), None) => {
                            map.next_value::<IgnoredAny>()?;
                            RawSpec::Skipped
                        }
                    }
                }
                "status" => {
                    doc.status = match (known, served_kind(known)) {
                        (None, _) => {
                            doc.needs_reread = true;
                            map.next_value::<IgnoredAny>()?;
                            RawStatus::Skipped
                        }
                        (_, Some(k)) => read_status(k, &mut map)?,
                        (Some(_), None) => {
                            map.next_value::<IgnoredAny>()?;
                            RawStatus::Skipped
                        }
                    }
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if !doc.is_secret() {
            doc.secret = None;
        }
        Ok(doc)
    }
}

fn read_spec<'de, A: MapAccess<'de>>(k: ObjectKind, map: &mut A) -> Result<RawSpec, A::Error> {
    use ObjectKind as K;
    Ok(match k {
        K::GatewayClass => RawSpec::GatewayClass(map.next_value()?),
        K::Gateway => RawSpec::Gateway(map.next_value()?),
        K::HttpRoute => RawSpec::HttpRoute(map.next_value()?),
        K::GrpcRoute => RawSpec::GrpcRoute(map.next_value()?),
        K::Service => RawSpec::Service(map.next_value()?),
        K::RateLimitPolicy | K::TokenRateLimitPolicy => RawSpec::RateLimit(map.next_value()?),
        K::AuthPolicy => RawSpec::Auth(map.next_value()?),
        K::DnsPolicy | K::TlsPolicy => RawSpec::Direct(map.next_value()?),
        K::Kuadrant | K::Limitador | K::Authorino => RawSpec::Opaque(map.next_value()?),
        K::PlanPolicy | K::OidcPolicy | K::TelemetryPolicy | K::ThreatPolicy => {
            RawSpec::Extension(map.next_value()?)
        }
        K::Namespace | K::Issuer | K::ClusterIssuer => {
            map.next_value::<IgnoredAny>()?;
            RawSpec::Skipped
        }
    })
}

fn read_status<'de, A: MapAccess<'de>>(k: ObjectKind, map: &mut A) -> Result<RawStatus, A::Error> {
    use ObjectKind as K;
    Ok(match k {
        K::Gateway => RawStatus::Gateway(map.next_value()?),
        K::HttpRoute | K::GrpcRoute => RawStatus::Route(map.next_value()?),
        K::Limitador | K::Authorino | K::Kuadrant => RawStatus::Opaque(map.next_value()?),
        _ => {
            map.next_value::<IgnoredAny>()?;
            RawStatus::Skipped
        }
    })
}

/// Helper so `de` is used (keeps the error type path explicit for readers).
#[allow(dead_code)]
fn _assert_error<E: de::Error>() {}
