//! Names as the API server accepts them: DNS-1123 labels and subdomains, the name rule of each kind,
//! and `metadata` read into the model's `Meta`.

use super::*;

/// One label of a DNS name as Kubernetes writes it: lower-case letters, digits and `-`, starting and
/// ending with a letter or digit (no length check).
pub(super) fn label_chars(l: &str) -> bool {
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

/// Which name rule a kind's `metadata.name` follows on the API server: a Namespace's is a DNS-1123
/// label (apimachinery `ValidateNamespaceName`), a Service's a DNS-1035 label (`ValidateServiceName`:
/// starts with a letter), and a custom resource's (every Gateway API and Kuadrant kind) a DNS-1123
/// subdomain (apiextensions-apiserver validates custom resource names with `NameIsDNSSubdomain`).
pub(super) fn name_rule(kind: ObjectKind) -> (&'static str, fn(&str) -> bool) {
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
pub(super) fn looks_like_placeholder(s: &str) -> bool {
    s.contains('$') || s.contains("{{")
}

/// An invalid `metadata.name` or `metadata.namespace` (`PCTL1012`), with a hint for a placeholder.
pub(super) fn bad_name(c: &mut Check, at: Span, field: &str, value: &str, rule: &str) {
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

pub(super) fn meta(
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
