//! The API server's validation of an object against its kind's schema (`schema_pass`).

use super::*;

/// The API server's validation of an object of a kind with a schema (its CRD at the emulated
/// release) and of a kind in a group policyctl models: unknown kinds refused, strict field
/// validation, the schema's checks and CEL rules. Fields the schema does not declare are dropped
/// from the tree when they are not refused (`--validate=warn|ignore`). `false` when the API server
/// refuses the object (reported).
pub(super) fn schema_pass(
    node: &mut crate::load::node::Node,
    doc: Span,
    opts: &LoadOptions,
    diags: &mut Diagnostics,
) -> bool {
    use crate::load::schema::{FieldValidation, FindingKind, Release};
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
        Some(m) if served => crate::load::schema::meta::validate(m),
        _ => vec![],
    };
    let schema = release.kind(group, &kind.0).and_then(|k| {
        let v = k.version(version).filter(|v| v.served)?;
        Some((k, v))
    });
    if let Some((_, v)) = schema {
        findings.extend(crate::load::schema::validate(
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
            let suggestion =
                crate::load::schema::did_you_mean(&kind.0, known.iter().map(String::as_str));
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
            crate::load::schema::prune(node, v.schema(), v.status_subresource);
        }
        crate::load::schema::meta::prune(node);
    }
    ok
}
