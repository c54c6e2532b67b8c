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

impl Model {
    /// An empty model whose lists have room for exactly `objs` (growing them one push at a time
    /// would copy each list into fresh memory several times).
    pub(crate) fn with_room_for(objs: &[Validated]) -> Model {
        let mut n = [0usize; 13];
        for o in objs {
            n[o.list()] += 1;
        }
        Model {
            gateway_classes: Vec::with_capacity(n[0]),
            gateways: Vec::with_capacity(n[1]),
            routes: Vec::with_capacity(n[2]),
            namespaces: Vec::with_capacity(n[3]),
            services: Vec::with_capacity(n[4]),
            policies: Vec::with_capacity(n[5]),
            kuadrants: Vec::with_capacity(n[6]),
            limitadors: Vec::with_capacity(n[7]),
            authorinos: Vec::with_capacity(n[8]),
            issuers: Vec::with_capacity(n[10]),
            cluster_issuers: Vec::with_capacity(n[11]),
            extensions: Vec::with_capacity(n[12]),
            skipped: Vec::with_capacity(n[9]),
            secrets: Vec::new(),
            version: KuadrantVersion::default(),
            derived_objects: Vec::new(),
        }
    }
}

/// Canonical order: routes HTTP before GRPC; every list by namespace/name (policies by kind first).
pub(crate) fn sort_model(m: &mut Model) {
    // Compared in place (a key function would copy both strings on every comparison).
    fn by_key<T>(a: &Obj<T>, b: &Obj<T>) -> std::cmp::Ordering {
        (&a.meta.namespace, &a.meta.name).cmp(&(&b.meta.namespace, &b.meta.name))
    }
    sort_moving_once(&mut m.gateway_classes, by_key);
    sort_moving_once(&mut m.gateways, by_key);
    sort_moving_once(&mut m.routes, |a, b| {
        a.spec.kind.cmp(&b.spec.kind).then_with(|| by_key(a, b))
    });
    sort_moving_once(&mut m.namespaces, by_key);
    sort_moving_once(&mut m.services, by_key);
    sort_moving_once(&mut m.policies, |a, b| {
        (a.kind, &a.meta.namespace, &a.meta.name).cmp(&(b.kind, &b.meta.namespace, &b.meta.name))
    });
    sort_moving_once(&mut m.kuadrants, by_key);
    sort_moving_once(&mut m.limitadors, by_key);
    sort_moving_once(&mut m.authorinos, by_key);
    sort_moving_once(&mut m.issuers, by_key);
    sort_moving_once(&mut m.cluster_issuers, by_key);
    sort_moving_once(&mut m.secrets, by_key);
    sort_moving_once(&mut m.extensions, |a, b| {
        (a.kind, &a.meta.namespace, &a.meta.name).cmp(&(b.kind, &b.meta.namespace, &b.meta.name))
    });
    m.skipped.sort();
}

/// A stable sort of `v` by `cmp` that moves each element a fixed number of times: the model's
/// objects are large, and a merge sort would move them about log n times each. The order is applied
/// in place, cycle by cycle, so no second vector of objects is allocated (fresh memory costs a page
/// fault per page).
fn sort_moving_once<T>(v: &mut [T], cmp: impl Fn(&T, &T) -> std::cmp::Ordering) {
    // order[i]: the index of the element that belongs at i.
    let mut order: Vec<usize> = (0..v.len()).collect();
    // Index: `order` holds indices of `v`.
    order.sort_by(|&a, &b| cmp(&v[a], &v[b]));
    let mut placed = vec![false; v.len()];
    for start in 0..v.len() {
        // Index: `order` is a permutation of `0..v.len()`, so every index below is in range.
        if placed[start] {
            continue;
        }
        // Follow the cycle through `start`: each swap puts the right element at `i`; the element
        // first at `start` travels along and ends where it belongs.
        let mut i = start;
        while order[i] != start {
            let next = order[i];
            v.swap(i, next);
            placed[i] = true;
            i = next;
        }
        placed[i] = true;
    }
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

/// One label of a DNS name as Kubernetes writes it: lower-case letters, digits and `-`, starting and
/// ending with a letter or digit (no length check).
fn label_chars(l: &str) -> bool {
    !l.is_empty()
        && l.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !l.starts_with('-')
        && !l.ends_with('-')
}

/// The characters of a DNS-1123 subdomain (no length check): labels as [`label_chars`] joined by
/// `.`.
pub(crate) fn dns1123_subdomain_chars(s: &str) -> bool {
    s.split('.').all(label_chars)
}

/// apimachinery's `IsDNS1123Subdomain`: at most 253 characters, labels as [`label_chars`] joined by
/// `.`. The name rule of custom resources (Gateway API kinds, Kuadrant policies) and of most
/// built-in kinds.
pub(crate) fn dns1123_subdomain(s: &str) -> bool {
    s.len() <= 253 && s.split('.').all(label_chars)
}

/// apimachinery's `IsDNS1123Label`: at most 63 characters, one label as `label_chars`. The rule of
/// namespaces (a Namespace's name and every object's `metadata.namespace`).
pub fn dns1123_label(s: &str) -> bool {
    s.len() <= 63 && label_chars(s)
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

/// The API server's validation of an object of a kind with a schema (its CRD at the emulated
/// release) and of a kind in a group policyctl models: unknown kinds refused, strict field
/// validation, the schema's checks and CEL rules. Fields the schema does not declare are dropped
/// from the tree when they are not refused (`--validate=warn|ignore`). `false` when the API server
/// refuses the object (reported).
fn schema_pass(
    node: &mut super::node::Node,
    doc: Span,
    opts: &LoadOptions,
    diags: &mut Diagnostics,
) -> bool {
    use super::schema::{FieldValidation, FindingKind, Release};
    let (Some(api_version), Some(kind)) = (
        node.get("apiVersion")
            .and_then(|n| n.as_str().map(|s| (s.to_string(), n.span))),
        node.get("kind")
            .and_then(|n| n.as_str().map(|s| (s.to_string(), n.span))),
    ) else {
        return true;
    };
    let (group, version) = api_version
        .0
        .rsplit_once('/')
        .unwrap_or(("", &api_version.0));
    let release = Release::of(opts.version);
    let object = |namespaced: bool| {
        let meta = node.get("metadata");
        let field = |f: &str| {
            meta.and_then(|m| m.get(f))
                .and_then(|n| n.as_str())
                .unwrap_or_default()
        };
        let name = field("name");
        let ns = match field("namespace") {
            "" => opts.default_namespace.as_str(),
            ns => ns,
        };
        match (name, namespaced) {
            ("", _) => kind.0.clone(),
            (_, true) => format!("{} {ns}/{name}", kind.0),
            (_, false) => format!("{} {name}", kind.0),
        }
    };
    let class = ObjectKind::classify(&api_version.0, &kind.0);
    let served = matches!(class, KindMatch::Served(_));
    let mut findings = match node.get("metadata") {
        Some(m) if served => super::schema::meta::validate(m),
        _ => vec![],
    };
    let schema = release.kind(group, &kind.0).and_then(|k| {
        let v = k.version(version).filter(|v| v.served)?;
        Some((k, v))
    });
    if let Some((_, v)) = schema {
        findings.extend(super::schema::validate(
            node,
            v.schema(),
            v.status_subresource,
        ));
    }
    let namespaced = match (schema, class) {
        (Some((k, _)), _) => k.namespaced,
        (None, KindMatch::Served(k)) => !k.cluster_scoped(),
        _ => true,
    };
    if schema.is_none() && !served {
        if let Some(known) = release.known_kinds(group)
            && !known.contains(&kind.0)
        {
            let suggestion = super::schema::did_you_mean(&kind.0, known.iter().map(String::as_str));
            let help = match suggestion {
                Some(s) => format!(
                    "did you mean {s}? The kinds of {group} are {}; the object is left out",
                    known.join(", ")
                ),
                None => format!(
                    "the kinds of {group} are {}; the object is left out",
                    known.join(", ")
                ),
            };
            diags.push(
                Diagnostic::new(
                    Code::UnknownKindInGroup,
                    format!(
                        "no matches for kind \"{}\" in version \"{}\"",
                        kind.0, api_version.0
                    ),
                )
                .at(kind.1, "no such kind")
                .object(object(true))
                .help(help),
            );
            return false;
        }
        return true;
    }
    let mut ok = true;
    let mut unknown = false;
    // On 1.4 a GRPCRoute target is refused by the CRDs' rules; from 1.5 it is accepted.
    if opts.version == KuadrantVersion::V1_4
        && let Some(k) = node
            .get("spec")
            .and_then(|s| s.get("targetRef"))
            .and_then(|t| t.get("kind"))
            .filter(|k| k.as_str() == Some("GRPCRoute"))
        && findings
            .iter()
            .any(|f| f.kind == FindingKind::Rule && f.path == "spec.targetRef")
    {
        diags.push(
            Diagnostic::new(
                Code::VersionDifference,
                "GRPCRoute targets are accepted from Kuadrant operator 1.5",
            )
            .at(k.span, "GRPCRoute")
            .object(object(namespaced))
            .help("run with --kuadrant-version 1.5 to emulate an operator that supports GRPCRoute"),
        );
    }
    for f in findings {
        let (code, label) = match f.kind {
            FindingKind::UnknownField => {
                unknown = true;
                match opts.validate {
                    FieldValidation::Strict => (Code::UnknownField, "unknown field"),
                    FieldValidation::Warn => (Code::UnknownFieldDropped, "unknown field, dropped"),
                    FieldValidation::Ignore => continue,
                }
            }
            FindingKind::Type => (Code::InvalidType, "wrong type"),
            FindingKind::Required => (Code::MissingField, "missing a required field"),
            FindingKind::Invalid if f.path.starts_with("metadata") => {
                (Code::InvalidMetadata, "invalid value")
            }
            FindingKind::Invalid => (Code::SchemaViolation, "invalid value"),
            FindingKind::Rule => (Code::CelRule, "rejected by the CRD validation rule"),
            FindingKind::Newer => {
                diags.push(
                    Diagnostic::new(
                        Code::NewerGatewayApiField,
                        format!(
                            "{}: not declared by Gateway API {}'s standard CRDs, which kuadrant-operator {} installs ({}'s declare it)",
                            f.path, release.gateway_api, release.operator, f.message
                        ),
                    )
                    .at(f.span, "newer Gateway API field")
                    .object(object(namespaced))
                    .help("with the CRDs the release installs the API server drops this field (or refuses it with kubectl apply's strict validation); policyctl keeps it, as a cluster with newer Gateway API CRDs does"),
                );
                continue;
            }
        };
        let help = match (f.kind, &f.suggestion) {
            (FindingKind::UnknownField, Some(s)) => format!(
                "did you mean {s}? The API server refuses a field its schema does not declare (kubectl apply validates strictly); --validate=warn drops it instead"
            ),
            (FindingKind::UnknownField, None) => "remove the field or fix its name: the API server refuses a field its schema does not declare (kubectl apply validates strictly); --validate=warn drops it instead".to_string(),
            (FindingKind::Type, _) => "write a value of the type the message names (quote a number meant as a string); the object is left out until the API server would take it".to_string(),
            (FindingKind::Required, _) => "add the field; the object is left out until the API server would take it".to_string(),
            (FindingKind::Rule, _) => "the CRD's validation rule refuses the object: change it as the rule's message says; it is left out until then".to_string(),
            _ => "change the value as the message says (the CRD's schema); the object is left out until the API server would take it".to_string(),
        };
        if code.severity() == crate::diag::Severity::Error {
            ok = false;
        }
        let _ = doc;
        diags.push(
            Diagnostic::new(code, f.message)
                .at(f.span, label)
                .object(object(namespaced))
                .help(help),
        );
    }
    if ok && unknown {
        if let Some((_, v)) = schema {
            super::schema::prune(node, v.schema(), v.status_subresource);
        }
        super::schema::meta::prune(node);
    }
    ok
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

/// Which name rule a kind's `metadata.name` follows on the API server: a Namespace's is a DNS-1123
/// label (apimachinery `ValidateNamespaceName`), a Service's a DNS-1035 label (`ValidateServiceName`:
/// starts with a letter), and a custom resource's (every Gateway API and Kuadrant kind) a DNS-1123
/// subdomain (apiextensions-apiserver validates custom resource names with `NameIsDNSSubdomain`).
fn name_rule(kind: ObjectKind) -> (&'static str, fn(&str) -> bool) {
    match kind {
        ObjectKind::Namespace => ("a DNS-1123 label (at most 63 characters)", dns1123_label),
        ObjectKind::Service => (
            "a DNS-1035 label (at most 63 characters, starting with a letter)",
            |s: &str| dns1123_label(s) && s.starts_with(|c: char| c.is_ascii_lowercase()),
        ),
        _ => (
            "a DNS-1123 subdomain (at most 253 characters)",
            dns1123_subdomain,
        ),
    }
}

/// A value that looks like a template placeholder left unexpanded (`${VAR}`, `$VAR`, `{{ .x }}`).
fn looks_like_placeholder(s: &str) -> bool {
    s.contains('$') || s.contains("{{")
}

/// An invalid `metadata.name` or `metadata.namespace` (`PCTL1012`), with a hint for a placeholder.
fn bad_name(c: &mut Check, at: Span, field: &str, value: &str, rule: &str) {
    let help = if looks_like_placeholder(value) {
        "this looks like a template placeholder that was not expanded: render the template (envsubst, helm template, kustomize) before passing it".to_string()
    } else {
        "use lower-case letters, digits and '-' (and '.' between labels in a subdomain), starting and ending with a letter or digit".to_string()
    };
    c.push(
        Diagnostic::new(
            Code::InvalidName,
            format!(
                "{field} {:?} is not a valid name: the API server requires {rule}",
                value
            ),
        )
        .at(at, "invalid name")
        .help(help),
    );
}

fn meta(
    doc: &RawDocument,
    span: Span,
    seq: usize,
    place: (Span, Option<usize>),
    kind: Option<ObjectKind>,
    opts: &LoadOptions,
    c: &mut Check,
) -> Option<Meta> {
    let cluster_scoped = kind.is_some_and(|k| k.cluster_scoped());
    let Some(m) = &doc.metadata else {
        c.missing(span, "metadata.name");
        return None;
    };
    let Some(name) = &m.value.name else {
        c.missing(m.span, "metadata.name");
        return None;
    };
    if name.value.is_empty() || name.value.len() > 253 {
        c.schema(
            name.span,
            format!("metadata.name {:?} must be 1-253 characters", name.value),
            "use a DNS subdomain name: lower-case letters, digits, '-' and '.'",
        );
        return None;
    }
    if let Some(kind) = kind {
        let (rule, valid) = name_rule(kind);
        if !valid(&name.value) {
            bad_name(c, name.span, "metadata.name", &name.value, rule);
            return None;
        }
    }
    let namespace = if cluster_scoped {
        String::new()
    } else {
        match &m.value.namespace {
            Some(ns) if !ns.value.is_empty() => {
                if kind.is_some() && !dns1123_label(&ns.value) {
                    bad_name(
                        c,
                        ns.span,
                        "metadata.namespace",
                        &ns.value,
                        "a DNS-1123 label (at most 63 characters)",
                    );
                    return None;
                }
                ns.value.clone()
            }
            _ => opts.default_namespace.clone(),
        }
    };
    Some(Meta {
        name: name.value.clone(),
        namespace,
        uid: m.value.uid.clone(),
        creation_timestamp: m.value.creation_timestamp.as_ref().map(|t| t.value.clone()),
        created: Instant::of_timestamp(
            m.value
                .creation_timestamp
                .as_ref()
                .map(|t| t.value.as_str()),
        ),
        generation: m.value.generation,
        labels: m.value.labels.clone().unwrap_or_default(),
        annotations: m.value.annotations.clone().unwrap_or_default(),
        api_version: doc
            .api_version
            .as_ref()
            .map(|a| a.value.clone())
            .unwrap_or_default(),
        origin: Origin {
            object: span,
            name: name.span,
            seq,
            document: place.0,
            item: place.1,
        },
        derived_from: None,
    })
    .inspect(|_| {
        let _ = c.doc;
    })
}

// ---------------------------------------------------------------- Gateway API

fn gateway_class(meta: Meta, s: GatewayClassSpec, c: &mut Check) -> Option<Validated> {
    let at = meta.origin.object;
    let ctrl = c.required(&s.controller_name, at, "spec.controllerName")?;
    Some(Validated::GatewayClass(Obj {
        spec: GatewayClass {
            controller_name: ctrl.value.clone(),
            assumed: false,
        },
        meta,
    }))
}

fn gateway(
    meta: Meta,
    s: GatewaySpec,
    status: Option<GatewayStatus>,
    c: &mut Check,
) -> Option<Validated> {
    let at = meta.origin.object;
    let class = c
        .required(&s.gateway_class_name, at, "spec.gatewayClassName")?
        .clone();
    let Some(raw_listeners) = s.listeners else {
        c.missing(at, "spec.listeners");
        return None;
    };
    let mut listeners: Vec<Listener> = Vec::new();
    for l in raw_listeners.value {
        let Some(name) = c
            .required(&l.name, raw_listeners.span, "spec.listeners[].name")
            .cloned()
        else {
            continue;
        };
        // The CRD's schema and rules (names, ports, protocols, hostnames, uniqueness) were checked
        // before (`schema_pass`).
        let port = l.port.map_or(0, |p| p.value);
        let protocol = l
            .protocol
            .as_ref()
            .map(|p| p.value.clone())
            .unwrap_or_default();
        let allowed_routes = allowed_routes(l.allowed_routes);
        // CRD defaults (Gateway API v1.2.1): mode Terminate, certificateRefs group "" and kind Secret.
        let tls = l.tls.map(|t| ListenerTls {
            mode: t.mode.unwrap_or_else(|| "Terminate".into()),
            certificate_refs: t
                .certificate_refs
                .unwrap_or_default()
                .into_iter()
                .map(|r| SecretRef {
                    group: r.group.unwrap_or_default(),
                    kind: r.kind.unwrap_or_else(|| "Secret".into()),
                    name: r.name.unwrap_or_default(),
                    namespace: r.namespace,
                })
                .collect(),
        });
        listeners.push(Listener {
            name,
            hostname: l.hostname,
            port,
            protocol,
            allowed_routes,
            tls,
        });
    }
    Some(Validated::Gateway(Obj {
        meta,
        spec: Gateway {
            class_name: class,
            listeners,
            status,
        },
    }))
}

fn allowed_routes(a: Option<RawAllowedRoutes>) -> AllowedRoutes {
    let a = a.unwrap_or_default();
    let ns = a.namespaces.unwrap_or_default();
    let from = match ns.from.as_ref().map(|f| f.value.as_str()) {
        None | Some("Same") => RoutesFrom::Same,
        Some("All") => RoutesFrom::All,
        Some("Selector") => {
            let sel = ns.selector.unwrap_or_default();
            RoutesFrom::Selector(LabelSelector {
                match_labels: sel.match_labels.unwrap_or_default(),
                match_expressions: sel
                    .match_expressions
                    .unwrap_or_default()
                    .into_iter()
                    .map(|e| {
                        (
                            e.key.unwrap_or_default(),
                            e.operator.map(|o| o.value).unwrap_or_default(),
                            e.values.unwrap_or_default(),
                        )
                    })
                    .collect(),
            })
        }
        // The CRD's enum: All, Same, Selector.
        Some(_) => RoutesFrom::Same,
    };
    AllowedRoutes {
        from,
        kinds: a
            .kinds
            .unwrap_or_default()
            .into_iter()
            .map(|k| {
                (
                    k.group.unwrap_or_else(|| GATEWAY_API_GROUP.into()),
                    k.kind.unwrap_or_default(),
                )
            })
            .collect(),
    }
}

fn parent_refs(refs: Option<Vec<Sp<RawParentRef>>>, c: &mut Check) -> Vec<ParentRef> {
    let refs = refs.unwrap_or_default();
    let mut out = Vec::new();
    for r in refs {
        let span = r.span;
        let r = r.value;
        let Some(name) = c.required(&r.name, span, "spec.parentRefs[].name").cloned() else {
            continue;
        };
        out.push(ParentRef {
            group: r
                .group
                .map(|g| g.value)
                .unwrap_or_else(|| GATEWAY_API_GROUP.into()),
            kind: r.kind.map(|k| k.value).unwrap_or_else(|| "Gateway".into()),
            namespace: r.namespace.map(|n| n.value),
            name: name.value,
            section_span: r.section_name.as_ref().map(|s| s.span),
            section_name: r.section_name.map(|s| s.value),
            port: r.port.map(|p| p.value),
            span,
            name_span: name.span,
        });
    }
    tight(out)
}

fn hostnames(h: Option<Vec<Str>>) -> Vec<Sp<String>> {
    tight(h.unwrap_or_default())
}

fn backend_refs(b: Option<Vec<RawBackendRef>>) -> Vec<BackendRef> {
    let refs = b
        .unwrap_or_default()
        .into_iter()
        .filter_map(|b| {
            Some(BackendRef {
                group: b.group.unwrap_or_default(),
                kind: b.kind.unwrap_or_else(|| "Service".into()),
                namespace: b.namespace,
                name: b.name?.value,
                port: b.port,
            })
        })
        .collect();
    tight(refs)
}

fn header_matches(
    h: Option<Vec<RawKeyValueMatch>>,
    what: &str,
    c: &mut Check,
    at: Span,
) -> Vec<KeyValueMatch> {
    let mut out = Vec::new();
    for m in h.unwrap_or_default() {
        let Some(name) = c.required(&m.name, at, &format!("{what}[].name")).cloned() else {
            continue;
        };
        let kind = m.type_.map(|t| t.value).unwrap_or_else(|| "Exact".into());
        let (value, span) = match m.value {
            Some(v) => (v.value, v.span),
            None => (String::new(), name.span),
        };
        out.push(KeyValueMatch {
            kind,
            name: name.value,
            value,
            span,
        });
    }
    tight(out)
}

fn http_match(m: Sp<RawHttpMatch>, c: &mut Check) -> HttpMatch {
    let at = m.span;
    let m = m.value;
    let path = match m.path {
        None => PathMatch {
            span: at,
            ..HttpMatch::default().path
        },
        Some(p) => {
            let kind = match p.type_.as_ref().map(|t| t.value.as_str()) {
                None | Some("PathPrefix") => PathMatchType::PathPrefix,
                Some("Exact") => PathMatchType::Exact,
                Some("RegularExpression") => PathMatchType::RegularExpression,
                // The CRD's enum: Exact, PathPrefix, RegularExpression.
                Some(_) => PathMatchType::PathPrefix,
            };
            let value = p
                .value
                .as_ref()
                .map(|v| v.value.clone())
                .unwrap_or_else(|| "/".into());
            let span = p.value.as_ref().map(|v| v.span).unwrap_or(at);
            PathMatch { kind, value, span }
        }
    };
    let method = m.method.map(|mm| mm.value);
    HttpMatch {
        path,
        headers: header_matches(m.headers, "headers", c, at),
        query_params: header_matches(m.query_params, "queryParams", c, at),
        method,
    }
}

fn http_route(
    meta: Meta,
    s: HttpRouteSpec,
    status: Option<RouteStatus>,
    c: &mut Check,
) -> Option<Validated> {
    let parent_refs = parent_refs(s.parent_refs, c);
    let hostnames = hostnames(s.hostnames);
    let rules: Vec<RouteRule> = match s.rules {
        // CRD default: one rule matching PathPrefix /.
        None => vec![RouteRule {
            name: None,
            matches: RuleMatches::Http(vec![HttpMatch::default()]),
            matches_explicit_empty: false,
            backend_refs: vec![],
            span: meta.origin.object,
        }],
        Some(rules) => {
            let rules = rules
                .into_iter()
                .map(|r| {
                    let span = r.span;
                    let r = r.value;
                    let explicit_empty = r.matches.as_ref().is_some_and(|m| m.is_empty());
                    let matches = match r.matches {
                        None => vec![HttpMatch::default()],
                        Some(ms) => tight(ms.into_iter().map(|m| http_match(m, c)).collect()),
                    };
                    RouteRule {
                        name: r.name,
                        matches: RuleMatches::Http(matches),
                        matches_explicit_empty: explicit_empty,
                        backend_refs: backend_refs(r.backend_refs),
                        span,
                    }
                })
                .collect();
            tight(rules)
        }
    };
    Some(Validated::Route(Obj {
        meta,
        spec: Route {
            kind: RouteKind::Http,
            parent_refs,
            hostnames,
            rules,
            status,
        },
    }))
}

fn grpc_route(
    meta: Meta,
    s: GrpcRouteSpec,
    status: Option<RouteStatus>,
    c: &mut Check,
) -> Option<Validated> {
    let parent_refs = parent_refs(s.parent_refs, c);
    let hostnames = hostnames(s.hostnames);
    let rules: Vec<RouteRule> = s
        .rules
        .unwrap_or_default()
        .into_iter()
        .map(|r| {
            let span = r.span;
            let r = r.value;
            let explicit_empty = r.matches.as_ref().is_some_and(|m| m.is_empty());
            let matches = r
                .matches
                .unwrap_or_default()
                .into_iter()
                .map(|m| {
                    let at = m.span;
                    let m = m.value;
                    let method = m.method.map(|mm| {
                        let kind = mm
                            .type_
                            .as_ref()
                            .map(|t| t.value.clone())
                            .unwrap_or_else(|| "Exact".into());
                        let span = mm
                            .service
                            .as_ref()
                            .or(mm.method.as_ref())
                            .map_or(at, |s| s.span);
                        GrpcMethodMatch {
                            kind,
                            service: mm.service.map(|s| s.value),
                            method: mm.method.map(|s| s.value),
                            span,
                        }
                    });
                    GrpcMatch {
                        method,
                        headers: header_matches(m.headers, "headers", c, at),
                    }
                })
                .collect();
            RouteRule {
                name: r.name,
                matches: RuleMatches::Grpc(tight(matches)),
                matches_explicit_empty: explicit_empty,
                backend_refs: backend_refs(r.backend_refs),
                span,
            }
        })
        .collect();
    let rules = tight(rules);
    Some(Validated::Route(Obj {
        meta,
        spec: Route {
            kind: RouteKind::Grpc,
            parent_refs,
            hostnames,
            rules,
            status,
        },
    }))
}

// ---------------------------------------------------------------- policies

pub(super) fn target_ref(
    kind: ObjectKind,
    t: Option<Sp<RawTargetRef>>,
    at: Span,
    version: KuadrantVersion,
    c: &mut Check,
) -> Option<TargetRef> {
    let Some(t) = t else {
        c.missing(at, "spec.targetRef");
        return None;
    };
    let span = t.span;
    let t = t.value;
    // The CRD's schema and rules (the group, the kinds each policy and release accept, the
    // name's length) were checked before (`schema_pass`).
    let _ = (kind, version);
    let group = c.required(&t.group, span, "spec.targetRef.group")?.clone();
    let k = c.required(&t.kind, span, "spec.targetRef.kind")?.clone();
    let name = c.required(&t.name, span, "spec.targetRef.name")?.clone();
    Some(TargetRef {
        group,
        kind: k,
        name,
        section_name: t.section_name,
        span,
    })
}

fn predicates(p: Option<Vec<RawPredicate>>, at: Span, c: &mut Check) -> Vec<Sp<String>> {
    let mut out = Vec::new();
    for x in p.unwrap_or_default() {
        match x.predicate {
            Some(s) => out.push(s),
            None => c.missing(at, "when[].predicate"),
        }
    }
    tight(out)
}

/// `strategy` (the CRD's enum: atomic, merge; default atomic).
fn strategy(s: &Option<Str>) -> Strategy {
    match s.as_ref().map(|s| s.value.as_str()) {
        Some("merge") => Strategy::Merge,
        _ => Strategy::Atomic,
    }
}

fn limits(
    raw: Option<Sp<IndexMap<String, RawLimit>>>,
    c: &mut Check,
) -> IndexMap<String, Arc<Limit>> {
    let mut out = IndexMap::new();
    let Some(raw) = raw else { return out };
    let at = raw.span;
    for (name, l) in raw.value {
        let when = predicates(l.when, at, c);
        let mut counters = Vec::new();
        for x in l.counters.unwrap_or_default() {
            match x.expression {
                Some(s) => counters.push(s),
                None => c.missing(at, "counters[].expression"),
            }
        }
        let mut rates = Vec::new();
        for r in l.rates.unwrap_or_default() {
            let (Some(limit), Some(window)) = (&r.limit, &r.window) else {
                c.missing(
                    at,
                    if r.limit.is_none() {
                        "rates[].limit"
                    } else {
                        "rates[].window"
                    },
                );
                continue;
            };
            rates.push(Rate {
                limit: limit.value,
                window: window.value.clone(),
                span: window.span,
            });
        }
        out.insert(
            name,
            Arc::new(Limit {
                when,
                counters: tight(counters),
                rates: tight(rates),
            }),
        );
    }
    out.shrink_to_fit();
    out
}

fn limits_policy(
    kind: ObjectKind,
    meta: Meta,
    s: RateLimitPolicySpec,
    version: KuadrantVersion,
    c: &mut Check,
) -> Option<Validated> {
    let at = meta.origin.object;
    let target = target_ref(kind, s.target_ref, at, version, c);
    // The CRD's rules (defaults, overrides and implicit limits exclusive, each non-empty) were
    // checked before (`schema_pass`).
    // Proper(): defaults > overrides > bare.
    let (block, strat, when, lims) = if let Some(df) = s.defaults {
        let st = strategy(&df.value.strategy);
        (
            Block::Defaults,
            st,
            predicates(df.value.when, df.span, c),
            limits(df.value.limits, c),
        )
    } else if let Some(ov) = s.overrides {
        let st = strategy(&ov.value.strategy);
        (
            Block::Overrides,
            st,
            predicates(ov.value.when, ov.span, c),
            limits(ov.value.limits, c),
        )
    } else {
        let wspan = s.when.as_ref().map(|w| w.span).unwrap_or(at);
        (
            Block::Implicit,
            Strategy::Atomic,
            predicates(s.when.map(|w| w.value), wspan, c),
            limits(s.limits, c),
        )
    };
    let spec = LimitsSpec {
        block,
        strategy: strat,
        when,
        limits: lims,
    };
    let (pk, body) = if kind == ObjectKind::TokenRateLimitPolicy {
        (PolicyKind::TokenRateLimit, PolicyBody::TokenRateLimit(spec))
    } else {
        (PolicyKind::RateLimit, PolicyBody::RateLimit(spec))
    };
    Some(Validated::Policy(Box::new(Policy {
        kind: pk,
        meta,
        target: target?,
        body,
    })))
}

fn auth_rules(r: Option<Sp<RawAuthRules>>) -> Option<Box<AuthRules>> {
    let r = r?.value;
    let resp = r.response.unwrap_or_default();
    let success = resp.success.unwrap_or_default();
    Some(Box::new(AuthRules {
        authentication: r.authentication.unwrap_or_default(),
        metadata: r.metadata.unwrap_or_default(),
        authorization: r.authorization.unwrap_or_default(),
        callbacks: r.callbacks.unwrap_or_default(),
        unauthenticated: resp.unauthenticated,
        unauthorized: resp.unauthorized,
        success_headers: success.headers.unwrap_or_default(),
        success_filters: success.filters.unwrap_or_default(),
    }))
}

fn auth_policy(
    meta: Meta,
    s: AuthPolicySpec,
    version: KuadrantVersion,
    c: &mut Check,
) -> Option<Validated> {
    let at = meta.origin.object;
    let target = target_ref(ObjectKind::AuthPolicy, s.target_ref, at, version, c);
    // The CRD's rules (defaults, overrides and implicit rules exclusive, each non-empty) were
    // checked before (`schema_pass`).
    let (block, strat, patterns, when, rules) = if let Some(df) = s.defaults {
        let st = strategy(&df.value.strategy);
        (
            Block::Defaults,
            st,
            df.value.patterns.unwrap_or_default(),
            predicates(df.value.when, df.span, c),
            auth_rules(df.value.rules),
        )
    } else if let Some(ov) = s.overrides {
        let st = strategy(&ov.value.strategy);
        (
            Block::Overrides,
            st,
            ov.value.patterns.unwrap_or_default(),
            predicates(ov.value.when, ov.span, c),
            auth_rules(ov.value.rules),
        )
    } else {
        let wspan = s.when.as_ref().map(|w| w.span).unwrap_or(at);
        (
            Block::Implicit,
            Strategy::Atomic,
            s.patterns.map(|p| p.value).unwrap_or_default(),
            predicates(s.when.map(|w| w.value), wspan, c),
            auth_rules(s.rules),
        )
    };
    Some(Validated::Policy(Box::new(Policy {
        kind: PolicyKind::Auth,
        meta,
        target: target?,
        body: PolicyBody::Auth(AuthSpec {
            block,
            strategy: strat,
            patterns,
            when,
            rules,
        }),
    })))
}

fn direct_policy(
    kind: ObjectKind,
    meta: Meta,
    mut s: DirectPolicySpec,
    c: &mut Check,
) -> Option<Validated> {
    let at = meta.origin.object;
    // DNS/TLS CRDs are identical across 1.4 and 1.5 for the checks below.
    let target = target_ref(kind, s.target_ref.take(), at, KuadrantVersion::V1_4, c);
    let pk = if kind == ObjectKind::DnsPolicy {
        PolicyKind::Dns
    } else {
        PolicyKind::Tls
    };
    let mut go_duration = |d: Option<Str>, field: &str| {
        let d = d?;
        match crate::model::duration::parse(&d.value) {
            Some(ns) => Some(crate::model::duration::format(ns)),
            None => {
                c.schema(
                    d.span,
                    format!("spec.{field} {:?} is not a Go duration", d.value),
                    "write it as Go's time.ParseDuration reads it, e.g. 2160h or 90m",
                );
                None
            }
        }
    };
    let duration = go_duration(s.duration, "duration");
    let renew_before = go_duration(s.renew_before, "renewBefore");
    let issuer = s.issuer_ref.as_ref().and_then(|ir| {
        Some(IssuerRef {
            name: ir.value.name.clone()?,
            kind: ir
                .value
                .kind
                .as_ref()
                .map(|k| k.value.clone())
                .unwrap_or_default(),
        })
    });
    let issuer_ref = s.issuer_ref.map(issuer_ref_map);
    let private_key = s.private_key.map(private_key_map);
    let body = DirectSpec {
        issuer_ref,
        common_name: s.common_name.unwrap_or_default(),
        duration,
        renew_before,
        usages: s.usages,
        revision_history_limit: s.revision_history_limit,
        private_key,
        provider_ref: s.provider_refs.and_then(|p| p.value.into_iter().next()),
        delegate: s.delegate == Some(true),
        health_check: s.health_check,
        exclude_addresses: s
            .exclude_addresses
            .map(|e| e.value.into_iter().map(|a| a.value).collect())
            .unwrap_or_default(),
        load_balancing: s.load_balancing.is_some(),
        issuer,
    };
    Some(Validated::Policy(Box::new(Policy {
        kind: pk,
        meta,
        target: target?,
        body: PolicyBody::Direct(Box::new(body)),
    })))
}

/// A TLSPolicy's `issuerRef` as the Certificate carries it (empty kind and group left out).
fn issuer_ref_map(r: Sp<RawIssuerRef>) -> serde_json::Map<String, Value> {
    let mut m = serde_json::Map::new();
    m.insert(
        "name".into(),
        Value::from(r.value.name.map(|n| n.value).unwrap_or_default()),
    );
    if let Some(k) = r.value.kind.filter(|k| !k.value.is_empty()) {
        m.insert("kind".into(), Value::from(k.value));
    }
    if let Some(g) = r.value.group.filter(|g| !g.is_empty()) {
        m.insert("group".into(), Value::from(g));
    }
    m
}

/// A TLSPolicy's `privateKey` as the Certificate carries it (empty fields left out).
fn private_key_map(k: RawPrivateKey) -> serde_json::Map<String, Value> {
    let mut m = serde_json::Map::new();
    let mut put = |key: &str, v: Option<String>| {
        if let Some(v) = v.filter(|v| !v.is_empty()) {
            m.insert(key.into(), Value::from(v));
        }
    };
    put("algorithm", k.algorithm);
    put("encoding", k.encoding);
    put("rotationPolicy", k.rotation_policy);
    if let Some(n) = k.size.filter(|n| *n != 0) {
        m.insert("size".into(), Value::from(n));
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The in-place sort gives `sort_by`'s stable order, on every length up to 40 and on inputs
    /// with many equal keys (each element tagged with its original index to see stability).
    #[test]
    fn sort_moving_once_is_a_stable_sort() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for len in 0..=40 {
            for _ in 0..20 {
                let v: Vec<(u64, usize)> = (0..len)
                    .map(|i| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        (seed % 5, i)
                    })
                    .collect();
                let mut expected = v.clone();
                expected.sort_by_key(|a| a.0);
                let mut got = v;
                sort_moving_once(&mut got, |a, b| a.0.cmp(&b.0));
                assert_eq!(got, expected);
            }
        }
    }
}
