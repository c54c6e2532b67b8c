//! Raw → validated: the checks the API server would run (CRD schema and CEL rules), the CRD defaults,
//! and the conversion into model types.
//!
//! An invalid object is reported and left out; everything else goes on. Messages of CEL rules are the
//! CRDs' own (kuadrant-operator v1.4.6 / v1.5.2 `config/crd/bases/kuadrant.io_*.yaml`).

use super::raw::*;
use super::{LoadOptions, RawDocument, RawSpec, RawStatus};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::span::Sp;
use crate::model::*;
use crate::source::Span;
use indexmap::IndexMap;
use serde_json::Value;
use std::sync::Arc;

mod assemble;
mod gateway_api;
mod names;
mod policies;
mod schema_pass;

pub(crate) use assemble::sort_model;
use gateway_api::*;
pub use names::dns1123_label;
pub(crate) use names::dns1123_subdomain_chars;
use names::*;
pub(super) use policies::target_ref;
use policies::*;
use schema_pass::*;

/// A validated object of any modelled kind.
#[derive(Clone, Debug)]
pub(crate) enum Validated {
    GatewayClass(Obj<GatewayClass>),
    Gateway(Obj<Gateway>),
    Route(Obj<Route>),
    Namespace(Obj<()>),
    Service(Obj<Service>),
    Policy(Box<Policy>),
    Kuadrant(Obj<Value>),
    Limitador(Obj<Value>),
    Authorino(Obj<Value>),
    Issuer(Obj<()>),
    ClusterIssuer(Obj<()>),
    Extension(Box<extension::Extension>),
    /// A kind policyctl does not model; a v1 Secret keeps its `data` (with `stringData` merged
    /// in, as the API server stores it) and `type`, for `simulate`.
    Skipped {
        meta: Meta,
        kind: String,
        secret: Option<Box<Value>>,
    },
}

impl Validated {
    pub(crate) fn meta(&self) -> &Meta {
        match self {
            Validated::GatewayClass(o) => &o.meta,
            Validated::Gateway(o) => &o.meta,
            Validated::Route(o) => &o.meta,
            Validated::Namespace(o) => &o.meta,
            Validated::Service(o) => &o.meta,
            Validated::Policy(p) => &p.meta,
            Validated::Kuadrant(o) | Validated::Limitador(o) | Validated::Authorino(o) => &o.meta,
            Validated::Issuer(o) | Validated::ClusterIssuer(o) => &o.meta,
            Validated::Extension(e) => &e.meta,
            Validated::Skipped { meta, .. } => meta,
        }
    }

    pub(crate) fn meta_mut(&mut self) -> &mut Meta {
        match self {
            Validated::GatewayClass(o) => &mut o.meta,
            Validated::Gateway(o) => &mut o.meta,
            Validated::Route(o) => &mut o.meta,
            Validated::Namespace(o) => &mut o.meta,
            Validated::Service(o) => &mut o.meta,
            Validated::Policy(p) => &mut p.meta,
            Validated::Kuadrant(o) | Validated::Limitador(o) | Validated::Authorino(o) => {
                &mut o.meta
            }
            Validated::Issuer(o) | Validated::ClusterIssuer(o) => &mut o.meta,
            Validated::Extension(e) => &mut e.meta,
            Validated::Skipped { meta, .. } => meta,
        }
    }

    fn kind(&self) -> &str {
        match self {
            Validated::GatewayClass(_) => "GatewayClass",
            Validated::Gateway(_) => "Gateway",
            Validated::Route(r) => r.spec.kind.kind(),
            Validated::Namespace(_) => "Namespace",
            Validated::Service(_) => "Service",
            Validated::Policy(p) => p.kind.kind(),
            Validated::Kuadrant(_) => "Kuadrant",
            Validated::Limitador(_) => "Limitador",
            Validated::Authorino(_) => "Authorino",
            Validated::Issuer(_) => "Issuer",
            Validated::ClusterIssuer(_) => "ClusterIssuer",
            Validated::Extension(e) => e.kind.kind(),
            Validated::Skipped { kind, .. } => kind,
        }
    }

    /// (group, kind, namespace, name).
    pub(crate) fn identity(&self) -> (&str, &str, &str, &str) {
        let m = self.meta();
        let group = m.api_version.rsplit_once('/').map_or("", |(g, _)| g);
        (group, self.kind(), &m.namespace, &m.name)
    }

    /// Which of the model's lists the object goes to (see [`Validated::into_model`]).
    fn list(&self) -> usize {
        match self {
            Validated::GatewayClass(_) => 0,
            Validated::Gateway(_) => 1,
            Validated::Route(_) => 2,
            Validated::Namespace(_) => 3,
            Validated::Service(_) => 4,
            Validated::Policy(_) => 5,
            Validated::Kuadrant(_) => 6,
            Validated::Limitador(_) => 7,
            Validated::Authorino(_) => 8,
            Validated::Skipped { .. } => 9,
            Validated::Issuer(_) => 10,
            Validated::ClusterIssuer(_) => 11,
            Validated::Extension(_) => 12,
        }
    }

    pub(crate) fn into_model(self, model: &mut Model) {
        match self {
            Validated::GatewayClass(o) => model.gateway_classes.push(o),
            Validated::Gateway(o) => model.gateways.push(o),
            Validated::Route(o) => model.routes.push(o),
            Validated::Namespace(o) => model.namespaces.push(o),
            Validated::Service(o) => model.services.push(o),
            Validated::Policy(p) => model.policies.push(*p),
            Validated::Kuadrant(o) => model.kuadrants.push(o),
            Validated::Limitador(o) => model.limitadors.push(o),
            Validated::Authorino(o) => model.authorinos.push(o),
            Validated::Issuer(o) => model.issuers.push(o),
            Validated::ClusterIssuer(o) => model.cluster_issuers.push(o),
            Validated::Extension(e) => model.extensions.push(*e),
            Validated::Skipped { meta, kind, secret } => {
                model
                    .skipped
                    .push((meta.api_version.clone(), kind, meta.key()));
                if let Some(secret) = secret {
                    model.secrets.push(Obj {
                        meta,
                        spec: *secret,
                    });
                }
            }
        }
    }
}

/// `v` without spare capacity. The model holds every object until the process ends, and most of its
/// lists have one to three items: a vector grown by pushes (or collected from the parser's) keeps room
/// for four or more, which was half of a route's memory.
fn tight<T>(mut v: Vec<T>) -> Vec<T> {
    v.shrink_to_fit();
    v
}
/// Collects problems for one object; any error leaves the object out.
pub(super) struct Check<'a> {
    diags: &'a mut Diagnostics,
    object: String,
    doc: Span,
    failed: bool,
}

impl Check<'_> {
    fn push(&mut self, d: Diagnostic) {
        if d.severity == crate::diag::Severity::Error {
            self.failed = true;
        }
        self.diags.push(d.object(self.object.clone()));
    }

    pub(super) fn error(
        &mut self,
        code: Code,
        span: Span,
        msg: impl Into<String>,
        label: &str,
        help: &str,
    ) {
        self.push(Diagnostic::new(code, msg).at(span, label).help(help));
    }

    pub(super) fn missing(&mut self, at: Span, field: &str) {
        self.error(
            Code::MissingField,
            at,
            format!("{field} is required"),
            "missing here",
            &format!("add {field}; the object is left out until it is valid"),
        );
    }

    pub(super) fn schema(&mut self, span: Span, msg: impl Into<String>, help: &str) {
        self.error(Code::SchemaViolation, span, msg, "invalid value", help);
    }

    pub(super) fn required<'s>(
        &mut self,
        v: &'s Option<Str>,
        at: Span,
        field: &str,
    ) -> Option<&'s Str> {
        match v {
            Some(s) => Some(s),
            None => {
                self.missing(at, field);
                None
            }
        }
    }
}

/// Whether a document is a core `v1` Secret.
fn is_secret(node: &super::node::Node) -> bool {
    node.get("apiVersion").and_then(|n| n.as_str()) == Some("v1")
        && node.get("kind").and_then(|n| n.as_str()) == Some("Secret")
}

/// A Secret's `data` and `type` as the API server stores them: `stringData` is write-only, merged into
/// `data` (base64-encoded, its keys winning over `data`'s; `k8s.io/kubernetes`
/// pkg/apis/core/v1/conversion.go `Convert_v1_Secret_To_core_Secret`). Values that are not strings
/// are left out, as the API server would refuse them.
fn secret_object(node: &super::node::Node) -> Value {
    use data_encoding::BASE64;
    let field = |k: &str| node.get(k).map(super::node::Node::to_json);
    let mut data: serde_json::Map<String, Value> = match field("data") {
        Some(Value::Object(m)) => m.into_iter().filter(|(_, v)| v.is_string()).collect(),
        _ => Default::default(),
    };
    if let Some(Value::Object(m)) = field("stringData") {
        for (k, v) in m {
            if let Value::String(s) = v {
                data.insert(k, Value::String(BASE64.encode(s.as_bytes())));
            }
        }
    }
    let mut out = serde_json::Map::new();
    out.insert("data".into(), Value::Object(data));
    if let Some(t @ Value::String(_)) = field("type") {
        out.insert("type".into(), t);
    }
    Value::Object(out)
}

/// Validate one object document.
pub(crate) fn object(
    node: super::node::Node,
    seq: usize,
    place: (Span, Option<usize>),
    opts: &LoadOptions,
    diags: &mut Diagnostics,
) -> Option<Validated> {
    let span = Span::new(node.span.source, node.span.offset, 0);
    let mut node = node;
    if opts.crd_validation && !schema_pass(&mut node, span, opts, diags) {
        return None;
    }
    // A Secret's data is read from the tree before it is typed: the raw document keeps no `data`.
    let secret = is_secret(&node).then(|| Box::new(secret_object(&node)));
    let doc = match super::document::from_node(node) {
        Ok(d) => d,
        Err(e) => {
            diags.push(typed_error(e, span));
            return None;
        }
    };
    let (api_version, kind) = type_meta(&doc, span, diags)?;
    let ok = match ObjectKind::classify(&api_version.value, &kind.value) {
        KindMatch::Served(k) => k,
        KindMatch::Unserved(k, to) => {
            diags.push(unserved(&doc, &api_version, k, to, opts));
            return None;
        }
        KindMatch::Unknown => {
            let meta = meta(
                &doc,
                span,
                seq,
                place,
                None,
                opts,
                &mut Check {
                    diags,
                    object: String::new(),
                    doc: span,
                    failed: false,
                },
            );
            diags.push(
                Diagnostic::new(
                    Code::UnknownKind,
                    format!(
                        "{} {} is not modelled; skipped",
                        api_version.value, kind.value
                    ),
                )
                .at(kind.span, "skipped kind"),
            );
            return meta.map(|m| Validated::Skipped {
                meta: m,
                kind: kind.value.clone(),
                secret,
            });
        }
    };
    let name = doc_name(&doc);
    if let Some(from) = super::extension::not_shipped(ok, opts.version) {
        diags.push(not_shipped(&doc, &kind, ok, from, opts));
        return None;
    }
    let mut c = Check {
        diags,
        object: format!("{} {name}", ok.kind()).trim_end().to_string(),
        doc: span,
        failed: false,
    };
    let meta = meta(&doc, span, seq, place, Some(ok), opts, &mut c)?;
    c.object = format!("{} {}", ok.kind(), meta.key());
    let v = by_kind(ok, meta, doc.spec, doc.status, span, opts, &mut c);
    if c.failed { None } else { v }
}

/// A value the typed shapes could not read (a wrong type the schema pass did not catch, on a kind
/// without a schema).
fn typed_error(e: super::node::DeError, doc: Span) -> Diagnostic {
    let (code, message) = if e.message.starts_with("missing field") {
        (Code::MissingField, e.message)
    } else {
        (Code::InvalidType, tidy_type_error(&e.message))
    };
    Diagnostic::new(code, message)
        .at(e.span.unwrap_or(doc), "here")
        .help("fix the value at this position; the object is left out")
}

/// serde's "invalid type: integer `5`, expected a string" as "expected a string, found integer `5`".
fn tidy_type_error(m: &str) -> String {
    if let Some(rest) = m.strip_prefix("invalid type: ")
        && let Some((found, expected)) = rest.split_once(", expected ")
    {
        return format!("expected {expected}, found {found}");
    }
    m.to_string()
}

/// The document's `apiVersion` and `kind`, or `NotAnObject`.
fn type_meta(
    doc: &RawDocument,
    span: Span,
    diags: &mut Diagnostics,
) -> Option<(Sp<String>, Sp<String>)> {
    match (&doc.api_version, &doc.kind) {
        (Some(a), Some(k)) => Some((a.clone(), k.clone())),
        (a, k) => {
            let missing = match (a, k) {
                (None, None) => "apiVersion and kind",
                (None, _) => "apiVersion",
                _ => "kind",
            };
            diags.push(
                Diagnostic::new(Code::NotAnObject, format!("document has no {missing}"))
                    .at(span, "this document")
                    .help("every manifest needs apiVersion and kind"),
            );
            None
        }
    }
}

/// The document's `metadata.name`, empty when unset.
fn doc_name(doc: &RawDocument) -> String {
    doc.metadata
        .as_ref()
        .and_then(|m| m.value.name.as_ref())
        .map(|n| n.value.clone())
        .unwrap_or_default()
}

/// `UnservedVersion`: kind `k` under an apiVersion the emulated operator does not serve (`to` is
/// the one it serves).
fn unserved(
    doc: &RawDocument,
    api_version: &Sp<String>,
    k: ObjectKind,
    to: &str,
    opts: &LoadOptions,
) -> Diagnostic {
    let name = doc_name(doc);
    Diagnostic::new(
        Code::UnservedVersion,
        format!(
            "{} {} is not served by the Kuadrant operator {}: use {}",
            api_version.value,
            k.kind(),
            opts.version.as_str(),
            to
        ),
    )
    .at(api_version.span, "unserved apiVersion")
    .object(format!("{} {name}", k.kind()))
    .help(format!(
        "migrate the object to apiVersion: {to} (see the Kuadrant upgrade notes); it is left out"
    ))
}

/// `ExtensionNotShipped`: kind `ok` is shipped from release `from`, not by the emulated one.
fn not_shipped(
    doc: &RawDocument,
    kind: &Sp<String>,
    ok: ObjectKind,
    from: &str,
    opts: &LoadOptions,
) -> Diagnostic {
    let name = doc_name(doc);
    let namespace = doc
        .metadata
        .as_ref()
        .and_then(|m| m.value.namespace.as_ref())
        .map(|n| n.value.clone())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| opts.default_namespace.clone());
    Diagnostic::new(
        Code::ExtensionNotShipped,
        format!(
            "{} is not shipped by the Kuadrant operator {}: it is shipped from {from}",
            ok.kind(),
            opts.version.as_str(),
        ),
    )
    .at(kind.span, "kind not shipped")
    .object(format!("{} {namespace}/{name}", ok.kind()))
    .help(format!(
        "run with --kuadrant-version 1.5 to emulate an operator that ships {}, or remove the object; it is left out",
        ok.kind()
    ))
}

/// The validated object of a served kind, by kind; a spec of the wrong shape is missing.
fn by_kind(
    ok: ObjectKind,
    meta: Meta,
    spec: RawSpec,
    status: RawStatus,
    span: Span,
    opts: &LoadOptions,
    c: &mut Check,
) -> Option<Validated> {
    match (ok, spec) {
        (ObjectKind::GatewayClass, RawSpec::GatewayClass(s)) => gateway_class(meta, *s, c),
        (ObjectKind::Gateway, RawSpec::Gateway(s)) => {
            let status = match status {
                RawStatus::Gateway(st) => Some(st),
                _ => None,
            };
            gateway(meta, *s, status, c)
        }
        (ObjectKind::HttpRoute, RawSpec::HttpRoute(s)) => {
            let status = route_status(status);
            http_route(meta, *s, status, c)
        }
        (ObjectKind::GrpcRoute, RawSpec::GrpcRoute(s)) => {
            let status = route_status(status);
            grpc_route(meta, *s, status, c)
        }
        (ObjectKind::Namespace, _) => Some(Validated::Namespace(Obj { meta, spec: () })),
        (ObjectKind::Issuer, _) => Some(Validated::Issuer(Obj { meta, spec: () })),
        (ObjectKind::ClusterIssuer, _) => Some(Validated::ClusterIssuer(Obj { meta, spec: () })),
        (ObjectKind::Service, RawSpec::Service(s)) => Some(Validated::Service(Obj {
            meta,
            spec: Service {
                ports: s
                    .ports
                    .unwrap_or_default()
                    .into_iter()
                    .map(|p| (p.name, p.port.unwrap_or(0)))
                    .collect(),
            },
        })),
        (ObjectKind::Service, RawSpec::None) => Some(Validated::Service(Obj {
            meta,
            spec: Service { ports: vec![] },
        })),
        (
            k @ (ObjectKind::RateLimitPolicy | ObjectKind::TokenRateLimitPolicy),
            RawSpec::RateLimit(s),
        ) => limits_policy(k, meta, *s, opts.version, c),
        (ObjectKind::AuthPolicy, RawSpec::Auth(s)) => auth_policy(meta, *s, opts.version, c),
        (k @ (ObjectKind::DnsPolicy | ObjectKind::TlsPolicy), RawSpec::Direct(s)) => {
            direct_policy(k, meta, *s, c)
        }
        (ObjectKind::Kuadrant, spec) => Some(Validated::Kuadrant(opaque(meta, spec, status))),
        (ObjectKind::Limitador, spec) => Some(Validated::Limitador(opaque(meta, spec, status))),
        (ObjectKind::Authorino, spec) => Some(Validated::Authorino(opaque(meta, spec, status))),
        (
            k @ (ObjectKind::PlanPolicy
            | ObjectKind::OidcPolicy
            | ObjectKind::TelemetryPolicy
            | ObjectKind::ThreatPolicy),
            RawSpec::Extension(s),
        ) => super::extension::validate(k, meta, *s, opts.version, c),
        (k, _) => {
            c.missing(span, "spec");
            let _ = k;
            None
        }
    }
}

/// Opaque objects keep `{spec, status}` as JSON.
fn opaque(meta: Meta, spec: RawSpec, status: RawStatus) -> Obj<Value> {
    let mut m = serde_json::Map::new();
    if let RawSpec::Opaque(s) = spec {
        m.insert("spec".into(), s);
    }
    if let RawStatus::Opaque(s) = status {
        m.insert("status".into(), s);
    }
    Obj {
        meta,
        spec: Value::Object(m),
    }
}

fn route_status(s: RawStatus) -> Option<RouteStatus> {
    match s {
        RawStatus::Route(r) => Some(r),
        _ => None,
    }
}
