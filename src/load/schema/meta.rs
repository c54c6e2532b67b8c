//! `metadata` as the API server checks it on create (apimachinery v0.33.3
//! `pkg/api/validation/objectmeta.go` `ValidateObjectMetaAccessor`, `pkg/apis/meta/v1/validation`
//! `ValidateLabels`, `pkg/util/validation` `IsQualifiedName`, `IsValidLabelValue`): its fields
//! and their types (strict decoding: an unknown field is refused), label keys and values,
//! annotation keys and their total size, finalizer names, `generateName`. The name and the
//! namespace are checked with the kind's own rule in `validate/names.rs`.

use super::check::{Finding, FindingKind};
use crate::gofmt::quote;
use crate::load::node::{Node, Value};

/// `TotalAnnotationSizeLimitB`: the most bytes of annotation keys and values an object may have.
pub(crate) const ANNOTATIONS_MAX_BYTES: usize = 256 * 1024;

const QUALIFIED_NAME_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";

/// The fields of ObjectMeta and the JSON type each takes.
const FIELDS: &[(&str, &str)] = &[
    ("name", "string"),
    ("generateName", "string"),
    ("namespace", "string"),
    ("selfLink", "string"),
    ("uid", "string"),
    ("resourceVersion", "string"),
    ("generation", "integer"),
    ("creationTimestamp", "string"),
    ("deletionTimestamp", "string"),
    ("deletionGracePeriodSeconds", "integer"),
    ("labels", "object"),
    ("annotations", "object"),
    ("ownerReferences", "array"),
    ("finalizers", "array"),
    ("managedFields", "array"),
];

fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    let mut s = format!("{msg} (e.g. ");
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            s.push_str(" or ");
        }
        s.push_str(&format!("'{e}', "));
    }
    s.push_str(&format!("regex used for validation is '{fmt}')"));
    s
}

fn qualified_chars(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

fn dns1123_subdomain_errors(s: &str) -> Vec<String> {
    let mut errs = vec![];
    if s.len() > 253 {
        errs.push("must be no more than 253 characters".to_string());
    }
    if !crate::load::validate::dns1123_subdomain_chars(s) {
        errs.push(regex_error(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

/// apimachinery `IsQualifiedName`.
pub(crate) fn qualified_name_errors(value: &str) -> Vec<String> {
    const MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
    let mut errs = vec![];
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                errs.extend(
                    dns1123_subdomain_errors(prefix)
                        .into_iter()
                        .map(|m| format!("prefix part {m}")),
                );
            }
            name
        }
        _ => {
            return vec![format!(
                "a qualified name {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(MSG, QUALIFIED_NAME_FMT, &["MyName", "my.name", "123-abc"])
            )];
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push("name part must be no more than 63 characters".to_string());
    }
    if !qualified_chars(name) {
        errs.push(format!(
            "name part {}",
            regex_error(MSG, QUALIFIED_NAME_FMT, &["MyName", "my.name", "123-abc"])
        ));
    }
    errs
}

/// apimachinery `IsValidLabelValue`.
fn label_value_errors(value: &str) -> Vec<String> {
    let mut errs = vec![];
    if value.len() > 63 {
        errs.push("must be no more than 63 characters".to_string());
    }
    if !(value.is_empty() || qualified_chars(value)) {
        errs.push(regex_error(
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
            &format!("({QUALIFIED_NAME_FMT})?"),
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

fn push(out: &mut Vec<Finding>, kind: FindingKind, path: &str, at: &Node, message: String) {
    out.push(Finding {
        kind,
        path: path.to_string(),
        message,
        span: at.span,
        suggestion: None,
    });
}

/// The findings of an object's `metadata` (absent metadata is the name check's).
pub(crate) fn validate(meta: &Node) -> Vec<Finding> {
    let mut out = vec![];
    let Value::Map(entries) = &meta.value else {
        if !matches!(meta.value, Value::Null) {
            let found = meta.type_name();
            push(
                &mut out,
                FindingKind::Type,
                "metadata",
                meta,
                format!(
                    "metadata: Invalid value: \"{found}\": metadata in body must be of type object: \"{found}\""
                ),
            );
        }
        return out;
    };
    for e in entries {
        let k = e.key.value.as_str();
        let path = format!("metadata.{k}");
        let Some((_, want)) = FIELDS.iter().find(|(f, _)| *f == k) else {
            out.push(Finding {
                kind: FindingKind::UnknownField,
                message: format!("unknown field {}", quote(&path)),
                suggestion: super::did_you_mean(k, FIELDS.iter().map(|(f, _)| *f))
                    .map(String::from),
                path,
                span: e.key.span,
            });
            continue;
        };
        let v = &e.value;
        let found = v.type_name();
        let nullable = matches!(v.value, Value::Null);
        if found != *want && !nullable {
            push(
                &mut out,
                FindingKind::Type,
                &path,
                v,
                format!(
                    "{path}: Invalid value: \"{found}\": {path} in body must be of type {want}: \"{found}\""
                ),
            );
            continue;
        }
        match k {
            "labels" | "annotations" => string_map(&mut out, k, v, e.key.span),
            "finalizers" => finalizers(&mut out, v),
            "generateName" => {
                // The name rule of custom resources, for a prefix: a trailing '-' is allowed.
                if let Some(g) = v.as_str() {
                    let masked = g
                        .strip_suffix('-')
                        .map_or(g.to_string(), |p| format!("{p}a"));
                    for m in dns1123_subdomain_errors(&masked) {
                        push(
                            &mut out,
                            FindingKind::Invalid,
                            &path,
                            v,
                            format!("metadata.generateName: Invalid value: {}: {m}", quote(g)),
                        );
                    }
                }
            }
            "generation" | "deletionGracePeriodSeconds" => {}
            _ => {}
        }
    }
    out
}

/// Drop the fields of `metadata` ObjectMeta does not have (`--validate=warn|ignore`).
pub(crate) fn prune(object: &mut Node) {
    if let Value::Map(entries) = &mut object.value
        && let Some(m) = entries.iter_mut().find(|e| e.key.value == "metadata")
        && let Value::Map(fields) = &mut m.value.value
    {
        fields.retain(|e| FIELDS.iter().any(|(f, _)| *f == e.key.value));
    }
}

fn string_map(out: &mut Vec<Finding>, field: &str, v: &Node, key: crate::source::Span) {
    let Value::Map(entries) = &v.value else {
        return;
    };
    let path = format!("metadata.{field}");
    let mut size = 0usize;
    for e in entries {
        let key = &e.key.value;
        let value = match &e.value.value {
            Value::Str(s) => s.as_str(),
            Value::Null => "",
            _ => {
                let found = e.value.type_name();
                let p = format!("{path}.{key}");
                push(
                    out,
                    FindingKind::Type,
                    &p,
                    &e.value,
                    format!(
                        "{p}: Invalid value: \"{found}\": {p} in body must be of type string: \"{found}\" (quote it)"
                    ),
                );
                continue;
            }
        };
        size += key.len() + value.len();
        let key_errors = if field == "annotations" {
            qualified_name_errors(&key.to_lowercase())
        } else {
            qualified_name_errors(key)
        };
        for m in key_errors {
            out.push(Finding {
                kind: FindingKind::Invalid,
                path: path.clone(),
                message: format!("{path}: Invalid value: {}: {m}", quote(key)),
                span: e.key.span,
                suggestion: None,
            });
        }
        if field == "labels" {
            for m in label_value_errors(value) {
                push(
                    out,
                    FindingKind::Invalid,
                    &path,
                    &e.value,
                    format!("{path}: Invalid value: {}: {m}", quote(value)),
                );
            }
        }
    }
    if field == "annotations" && size > ANNOTATIONS_MAX_BYTES {
        out.push(Finding {
            kind: FindingKind::Invalid,
            path: path.clone(),
            message: format!(
                "{path}: Too long: may not be more than {ANNOTATIONS_MAX_BYTES} bytes"
            ),
            span: key,
            suggestion: None,
        });
    }
}

fn finalizers(out: &mut Vec<Finding>, v: &Node) {
    let Value::Seq(items) = &v.value else {
        return;
    };
    for x in items {
        let Some(f) = x.as_str() else {
            let found = x.type_name();
            push(
                out,
                FindingKind::Type,
                "metadata.finalizers",
                x,
                format!(
                    "metadata.finalizers: Invalid value: \"{found}\": metadata.finalizers in body must be of type string: \"{found}\""
                ),
            );
            continue;
        };
        for m in qualified_name_errors(f) {
            push(
                out,
                FindingKind::Invalid,
                "metadata.finalizers",
                x,
                format!("metadata.finalizers: Invalid value: {}: {m}", quote(f)),
            );
        }
    }
    let has = |n: &str| items.iter().any(|x| x.as_str() == Some(n));
    if has("orphan") && has("foregroundDeletion") {
        push(
            out,
            FindingKind::Invalid,
            "metadata.finalizers",
            v,
            "metadata.finalizers: Invalid value: []string{\"orphan\", \"foregroundDeletion\"}: finalizer orphan and foregroundDeletion cannot be both set".to_string(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qualified_names() {
        assert!(qualified_name_errors("app.kubernetes.io/name").is_empty());
        assert!(qualified_name_errors("MyName").is_empty());
        assert_eq!(
            qualified_name_errors("a/b/c").len(),
            1,
            "more than one slash"
        );
        assert_eq!(
            qualified_name_errors(&"x".repeat(64)),
            ["name part must be no more than 63 characters"]
        );
        assert!(!qualified_name_errors("-a").is_empty());
        assert!(label_value_errors("").is_empty());
        assert_eq!(
            label_value_errors(&"v".repeat(64)),
            ["must be no more than 63 characters"]
        );
    }
}
