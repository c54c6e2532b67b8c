//! The walk of an object's tree against its schema: what the API server's structural validation
//! (kube-openapi's validators, converted to field errors by apiextensions-apiserver v0.33
//! `pkg/apiserver/validation/validation.go`), its strict field validation and its CEL validation
//! (`pkg/apiserver/schema/cel/validation.go`) report, with their messages.

use super::cel::{self, V};
use super::verdicts::{self, Verdict};
use super::{ListType, Schema, Ty};
use crate::gofmt::quote;
use crate::load::node::{Entry, Node, Value, is_json_integer};
use crate::source::Span;
use std::fmt::Write as _;

/// What kind of rejection a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FindingKind {
    /// A field the schema does not declare (strict field validation).
    UnknownField,
    /// A value of the wrong JSON type.
    Type,
    /// A required field is missing.
    Required,
    /// A value outside an enum, a pattern, a length, a bound, a format, a list's uniqueness.
    Invalid,
    /// An `x-kubernetes-validations` rule.
    Rule,
    /// A Gateway API field the CRDs the release installs do not declare, but newer ones do.
    Newer,
}

/// One rejection: the API server's message (`spec.x: Invalid value: …`), the field's path, and the
/// span of the offending field (its key when it has one).
#[derive(Clone, Debug)]
pub(crate) struct Finding {
    pub kind: FindingKind,
    pub path: String,
    pub message: String,
    pub span: Span,
    /// A declared field close to an unknown one ("did you mean").
    pub suggestion: Option<String>,
}

/// One step of a path.
#[derive(Clone, Copy)]
enum Seg<'a> {
    Key(&'a str),
    /// A key of a map (`additionalProperties`): `.key` in schema errors, `[key]` in rule errors.
    MapKey(&'a str),
    Index(usize),
}

struct Walk<'a> {
    path: Vec<Seg<'a>>,
    out: Vec<Finding>,
    /// The rules' scratch space, kept from value to value.
    vars: Vec<V<'a>>,
}

impl Walk<'_> {
    /// The path as kube-openapi names it (`spec.limits.x.rates[0]`), or as the CEL validator does
    /// (`spec.limits[x].rates[0]`).
    fn path(&self, cel_style: bool) -> String {
        let mut s = String::new();
        for seg in &self.path {
            match seg {
                Seg::Key(k) => {
                    if !s.is_empty() {
                        s.push('.');
                    }
                    s.push_str(k);
                }
                Seg::MapKey(k) if cel_style => {
                    let _ = write!(s, "[{k}]");
                }
                Seg::MapKey(k) => {
                    if !s.is_empty() {
                        s.push('.');
                    }
                    s.push_str(k);
                }
                Seg::Index(i) => {
                    let _ = write!(s, "[{i}]");
                }
            }
        }
        s
    }

    fn push(&mut self, kind: FindingKind, span: Span, message: String) {
        let path = self.path(false);
        self.out.push(Finding {
            kind,
            path,
            message,
            span,
            suggestion: None,
        });
    }
}

/// Validate an object (the whole document: `apiVersion`, `kind`, `metadata`, `spec`, …) against
/// its kind's schema. `metadata` is not walked (ObjectMeta is checked on its own); `status` is not
/// when the CRD has a status subresource (the API server ignores it on create).
pub(crate) fn validate<'a>(
    root: &'a Node,
    schema: &'a Schema,
    status_subresource: bool,
) -> Vec<Finding> {
    let mut w = Walk {
        path: vec![],
        out: vec![],
        vars: vec![],
    };
    let Value::Map(entries) = &root.value else {
        return w.out;
    };
    for e in entries {
        let k = e.key.value.as_str();
        if k == "metadata" || (k == "status" && status_subresource) {
            continue;
        }
        w.path.push(Seg::Key(k));
        match schema.property(k) {
            Some(s) => node(&mut w, &e.value, s, e.key.span),
            None => unknown(&mut w, e, schema),
        }
        w.path.pop();
    }
    required(&mut w, root, schema, root.span);
    rules(&mut w, root, schema, root.span);
    w.out
}

fn unknown<'a>(w: &mut Walk<'a>, e: &'a Entry, parent: &'a Schema) {
    let path = w.path(false);
    let suggestion = super::did_you_mean(
        &e.key.value,
        parent.properties.iter().map(|(n, _)| n.as_str()),
    )
    .map(String::from);
    w.out.push(Finding {
        kind: FindingKind::UnknownField,
        message: format!("unknown field {}", quote(&path)),
        path,
        span: e.key.span,
        suggestion,
    });
}

/// Whether a mapping has `key` for the API server: a value that is not null (a null in a field
/// that is not nullable is dropped before validation), or a default.
fn present(entries: &[Entry], key: &str, s: &Schema) -> bool {
    let p = s.property(key);
    entries.iter().any(|e| {
        cel::same(&e.key.value, key)
            && (!matches!(e.value.value, Value::Null) || p.is_some_and(|p| p.nullable))
    }) || p.is_some_and(|p| p.default.is_some())
}

fn required<'a>(w: &mut Walk<'a>, n: &'a Node, s: &'a Schema, at: Span) {
    let Value::Map(entries) = &n.value else {
        return;
    };
    for r in &s.required {
        if !present(entries, r, s) {
            w.path.push(Seg::Key(r));
            let path = w.path(false);
            w.path.pop();
            w.out.push(Finding {
                kind: FindingKind::Required,
                message: format!("{path}: Required value"),
                path,
                span: at,
                suggestion: None,
            });
        }
    }
}

fn type_ok(n: &Node, s: &Schema) -> bool {
    let int = |n: &Node| match n.value {
        Value::Int(_) => true,
        Value::Float(f) => is_json_integer(f),
        _ => false,
    };
    if s.int_or_string {
        return int(n) || matches!(n.value, Value::Str(_));
    }
    match s.ty {
        Ty::Any => true,
        Ty::Object => matches!(n.value, Value::Map(_)),
        Ty::Array => matches!(n.value, Value::Seq(_)),
        Ty::String => matches!(n.value, Value::Str(_)),
        Ty::Integer => int(n),
        Ty::Number => matches!(n.value, Value::Int(_) | Value::Float(_)),
        Ty::Boolean => matches!(n.value, Value::Bool(_)),
    }
}

/// A value as Go's `%v` / `%q` prints it in a field error (strings quoted).
fn shown(n: &Node) -> String {
    match &n.value {
        Value::Str(s) => quote(s),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => number(*f),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".into(),
        Value::Seq(_) | Value::Map(_) => quote(&n.to_json().to_string()),
    }
}

/// A float as the API server prints it: an integral one below 1e21 went through JSON as an integer
/// (`65535`), any other is a float64 printed by Go's `%v` (`0.5`, `1.5e+06`, `1e+21`).
fn number(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e21 {
        format!("{}", f as i64)
    } else {
        crate::gofmt::float_g(f)
    }
}

fn node<'a>(w: &mut Walk<'a>, n: &'a Node, s: &'a Schema, key: Span) {
    if matches!(n.value, Value::Null) {
        // A null is dropped (not nullable) or allowed (nullable): nothing to validate.
        return;
    }
    // A scalar's findings point at the value, a mapping's or a list's at its key.
    let at = match n.value {
        Value::Map(_) | Value::Seq(_) => key,
        _ => n.span,
    };
    let path = |w: &Walk| w.path(false);
    if !type_ok(n, s) {
        let p = path(w);
        let want = if s.int_or_string {
            "integer,string"
        } else {
            s.ty.name()
        };
        let found = n.type_name();
        w.push(
            FindingKind::Type,
            at,
            format!(
                "{p}: Invalid value: \"{found}\": {p} in body must be of type {want}: \"{found}\""
            ),
        );
        return;
    }
    let before = blocking(w);
    match &n.value {
        Value::Map(entries) => object(w, n, entries, s, at),
        Value::Seq(items) => array(w, items, s, at),
        Value::Str(v) => string(w, n, v, s, at),
        Value::Int(_) | Value::Float(_) => numeric(w, n, s, at),
        _ => {}
    }
    if !s.enum_values.is_empty() && !s.enum_values.iter().any(|e| equals_json(n, e)) {
        {
            let allowed: Vec<String> = s
                .enum_values
                .iter()
                .map(|e| match e {
                    serde_json::Value::String(x) => quote(x),
                    other => quote(&other.to_string()),
                })
                .collect();
            let p = w.path(false);
            w.push(
                FindingKind::Invalid,
                at,
                format!(
                    "{p}: Unsupported value: {}: supported values: {}",
                    shown(n),
                    allowed.join(", ")
                ),
            );
        }
    }
    combinators(w, n, s, at);
    // The rules of a value are evaluated when its own checks passed (a rule reads the value
    // through its schema).
    if blocking(w) == before {
        rules(w, n, s, at);
    }
}

/// The findings that stop a value's rules from being evaluated: all but unknown fields (which the
/// API server prunes before it validates).
fn blocking(w: &Walk) -> usize {
    w.out
        .iter()
        .filter(|f| !matches!(f.kind, FindingKind::UnknownField | FindingKind::Newer))
        .count()
}

/// Whether a value equals a JSON value (an enum's), numbers compared as numbers, without building
/// the value's JSON.
fn equals_json(n: &Node, j: &serde_json::Value) -> bool {
    use serde_json::Value as J;
    match (&n.value, j) {
        (Value::Str(a), J::String(b)) => a == b,
        (Value::Int(a), J::Number(b)) => b.as_f64() == Some(*a as f64),
        (Value::Float(a), J::Number(b)) => b.as_f64() == Some(*a),
        (Value::Bool(a), J::Bool(b)) => a == b,
        (Value::Null, J::Null) => true,
        (Value::Seq(_) | Value::Map(_), _) => n.to_json() == *j,
        _ => false,
    }
}

fn object<'a>(w: &mut Walk<'a>, n: &'a Node, entries: &'a [Entry], s: &'a Schema, at: Span) {
    for e in entries {
        let k = e.key.value.as_str();
        if let Some(c) = s.property(k) {
            w.path.push(Seg::Key(k));
            if let Some(since) = &c.since {
                let path = w.path(false);
                w.out.push(Finding {
                    kind: FindingKind::Newer,
                    message: since.clone(),
                    path,
                    span: e.key.span,
                    suggestion: None,
                });
            }
            node(w, &e.value, c, e.key.span);
            w.path.pop();
        } else if let Some(c) = s.additional() {
            w.path.push(Seg::MapKey(k));
            node(w, &e.value, c, e.key.span);
            w.path.pop();
        } else if !s.preserve_unknown && !s.embedded && s.ty == Ty::Object {
            w.path.push(Seg::Key(k));
            unknown(w, e, s);
            w.path.pop();
        }
    }
    required(w, n, s, at);
    let count = entries.len() as u64;
    counted(
        w,
        at,
        count,
        (s.min_properties, s.max_properties),
        "properties",
    );
}

/// `minProperties`/`maxProperties` or `minItems`/`maxItems`: the API server's messages for a count
/// out of bounds (`field.TooMany`, and the OpenAPI validator's "should have at least").
fn counted(
    w: &mut Walk<'_>,
    at: Span,
    count: u64,
    (min, max): (Option<u64>, Option<u64>),
    unit: &str,
) {
    if let Some(max) = max
        && count > max
    {
        let p = w.path(false);
        w.push(
            FindingKind::Invalid,
            at,
            format!("{p}: Too many: {count}: must have at most {max} items"),
        );
    }
    if let Some(min) = min
        && count < min
    {
        let p = w.path(false);
        w.push(
            FindingKind::Invalid,
            at,
            format!("{p}: Invalid value: {count}: {p} in body should have at least {min} {unit}"),
        );
    }
}

fn array<'a>(w: &mut Walk<'a>, items: &'a [Node], s: &'a Schema, at: Span) {
    let count = items.len() as u64;
    counted(w, at, count, (s.min_items, s.max_items), "items");
    if let Some(item) = s.items() {
        for (i, x) in items.iter().enumerate() {
            w.path.push(Seg::Index(i));
            node(w, x, item, x.span);
            w.path.pop();
        }
    }
    // x-kubernetes-list-type: set items and map keys are unique
    // (apiextensions-apiserver `pkg/apiserver/schema/listtype`).
    match &s.list_type {
        ListType::Atomic => {}
        ListType::Set => {
            // Each item's JSON built once (it was built again for every pair).
            let values: Vec<serde_json::Value> = items.iter().map(Node::to_json).collect();
            for (i, x) in items.iter().enumerate() {
                if values[..i].contains(&values[i]) {
                    w.path.push(Seg::Index(i));
                    let p = w.path(false);
                    w.path.pop();
                    w.push(
                        FindingKind::Invalid,
                        x.span,
                        format!("{p}: Duplicate value: {}", shown(x)),
                    );
                }
            }
        }
        ListType::Map(keys) => {
            let key_of = |x: &Node| -> Vec<(String, serde_json::Value)> {
                keys.iter()
                    .map(|k| {
                        let v = x.get(k).map(Node::to_json).or_else(|| item_default(s, k));
                        (k.clone(), v.unwrap_or(serde_json::Value::Null))
                    })
                    .collect()
            };
            // Each item's key built once (it was built again for every pair: a Gateway's 64
            // listeners took 4,000 keys).
            let item_keys: Vec<_> = items.iter().map(key_of).collect();
            for (i, x) in items.iter().enumerate() {
                let kx = &item_keys[i];
                if item_keys[..i].contains(kx) {
                    w.path.push(Seg::Index(i));
                    let p = w.path(false);
                    w.path.pop();
                    let shown: Vec<String> = kx
                        .iter()
                        .map(|(k, v)| match v {
                            serde_json::Value::String(s) => format!("{}:{}", quote(k), quote(s)),
                            other => format!("{}:{other}", quote(k)),
                        })
                        .collect();
                    w.push(
                        FindingKind::Invalid,
                        x.span,
                        format!(
                            "{p}: Duplicate value: map[string]interface {{}}{{{}}}",
                            shown.join(", ")
                        ),
                    );
                }
            }
        }
    }
}

fn item_default(s: &Schema, key: &str) -> Option<serde_json::Value> {
    s.items()?
        .property(key)?
        .default
        .as_ref()
        .map(Node::to_json)
}

fn string<'a>(w: &mut Walk<'a>, n: &'a Node, v: &str, s: &'a Schema, at: Span) {
    let chars = v.chars().count() as u64;
    if let Some(max) = s.max_length
        && chars > max
    {
        let p = w.path(false);
        w.push(
            FindingKind::Invalid,
            at,
            format!("{p}: Too long: may not be more than {max} bytes"),
        );
    }
    if let Some(min) = s.min_length
        && chars < min
    {
        let p = w.path(false);
        w.push(
            FindingKind::Invalid,
            at,
            format!(
                "{p}: Invalid value: {}: {p} in body should be at least {min} chars long",
                shown(n)
            ),
        );
    }
    if let Some((pattern, Some(re))) = s.pattern()
        && !re.is_match(v)
    {
        let p = w.path(false);
        w.push(
            FindingKind::Invalid,
            at,
            format!(
                "{p}: Invalid value: {}: {p} in body should match '{pattern}'",
                shown(n)
            ),
        );
    }
    if let Some(f) = &s.format
        && !format_ok(f, v)
    {
        let p = w.path(false);
        w.push(
            FindingKind::Invalid,
            at,
            format!(
                "{p}: Invalid value: {}: {p} in body must be of type {f}: {}",
                shown(n),
                shown(n)
            ),
        );
    }
}

/// The formats the API server checks that the schemas use (apiextensions' format whitelist:
/// `int32`, `int64` and unknown formats are not checked).
fn format_ok(f: &str, v: &str) -> bool {
    match f {
        "ipv4" => v.parse::<std::net::Ipv4Addr>().is_ok(),
        "ipv6" => v.parse::<std::net::Ipv6Addr>().is_ok(),
        "date-time" | "datetime" => crate::model::Instant::parse(v).is_some(),
        "byte" => base64_ok(v),
        _ => true,
    }
}

fn base64_ok(v: &str) -> bool {
    let b = v.as_bytes();
    b.len().is_multiple_of(4)
        && b.iter().enumerate().all(|(i, c)| {
            c.is_ascii_alphanumeric()
                || *c == b'+'
                || *c == b'/'
                || (*c == b'=' && i + 2 >= b.len())
        })
}

fn numeric<'a>(w: &mut Walk<'a>, n: &'a Node, s: &'a Schema, at: Span) {
    let v = match n.value {
        Value::Int(i) => i as f64,
        Value::Float(f) => f,
        _ => return,
    };
    if let Some((min, exclusive)) = s.minimum
        && (v < min || (exclusive && v == min))
    {
        let rel = if exclusive {
            "greater than"
        } else {
            "greater than or equal to"
        };
        let p = w.path(false);
        w.push(
            FindingKind::Invalid,
            at,
            format!(
                "{p}: Invalid value: {}: {p} in body should be {rel} {}",
                shown(n),
                number(min)
            ),
        );
    }
    if let Some((max, exclusive)) = s.maximum
        && (v > max || (exclusive && v == max))
    {
        let rel = if exclusive {
            "less than"
        } else {
            "less than or equal to"
        };
        let p = w.path(false);
        w.push(
            FindingKind::Invalid,
            at,
            format!(
                "{p}: Invalid value: {}: {p} in body should be {rel} {}",
                shown(n),
                number(max)
            ),
        );
    }
}

/// Whether a value passes a schema's own value checks (type, enum, pattern, bounds), for
/// `anyOf` / `oneOf` / `not`.
fn passes<'a>(n: &'a Node, s: &'a Schema) -> bool {
    let mut w = Walk {
        path: vec![],
        out: vec![],
        vars: vec![],
    };
    node(&mut w, n, s, n.span);
    w.out
        .iter()
        .all(|f| matches!(f.kind, FindingKind::UnknownField | FindingKind::Newer))
}

fn combinators<'a>(w: &mut Walk<'a>, n: &'a Node, s: &'a Schema, at: Span) {
    if !s.any_of.is_empty() && !s.any_of.iter().any(|x| passes(n, x)) {
        let p = w.path(false);
        w.push(
            FindingKind::Invalid,
            at,
            format!(
                "{p}: Invalid value: {}: {p} in body must validate at least one schema (anyOf)",
                shown(n)
            ),
        );
    }
    if !s.one_of.is_empty() && s.one_of.iter().filter(|x| passes(n, x)).count() != 1 {
        let p = w.path(false);
        w.push(
            FindingKind::Invalid,
            at,
            format!(
                "{p}: Invalid value: {}: {p} in body must validate one and only one schema (oneOf)",
                shown(n)
            ),
        );
    }
    for x in &s.all_of {
        if !passes(n, x) {
            let p = w.path(false);
            w.push(
                FindingKind::Invalid,
                at,
                format!(
                    "{p}: Invalid value: {}: {p} in body must validate all the schemas (allOf)",
                    shown(n)
                ),
            );
        }
    }
    if let Some(x) = &s.not
        && passes(n, x)
    {
        let p = w.path(false);
        w.push(
            FindingKind::Invalid,
            at,
            format!(
                "{p}: Invalid value: {}: {p} in body must not validate the schema (not)",
                shown(n)
            ),
        );
    }
}

/// The `x-kubernetes-validations` rules of a value.
fn rules<'a>(w: &mut Walk<'a>, n: &'a Node, s: &'a Schema, at: Span) {
    if s.rules.is_empty() {
        return;
    }
    let mut vars = std::mem::take(&mut w.vars);
    verdicts::eval(s.rule_set(), n, s, &mut vars, |i, verdict| {
        let Some(r) = s.rules.get(i) else { return };
        let detail = match verdict {
            Verdict::Holds => return,
            Verdict::Error(e) => format!("{e} evaluating rule: {}", r.message),
            Verdict::Fails => r.message.clone(),
        };
        let p = w.path(true);
        let ty = if s.int_or_string { "" } else { s.ty.name() };
        w.out.push(Finding {
            kind: FindingKind::Rule,
            message: format!("{p}: Invalid value: \"{ty}\": {detail}"),
            path: p,
            span: at,
            suggestion: None,
        });
    });
    vars.clear();
    w.vars = vars;
}

/// Drop the fields the schema does not declare (the API server's pruning, with `--validate=warn`
/// or `ignore`); the nulls of fields that are not nullable too.
pub(crate) fn prune(root: &mut Node, schema: &Schema, status_subresource: bool) {
    let Value::Map(entries) = &mut root.value else {
        return;
    };
    entries.retain(|e| {
        let k = e.key.value.as_str();
        k == "metadata" || (k == "status" && status_subresource) || schema.property(k).is_some()
    });
    for e in entries.iter_mut() {
        let k = e.key.value.clone();
        if k == "metadata" || (k == "status" && status_subresource) {
            continue;
        }
        if let Some(s) = schema.property(&k) {
            prune_node(&mut e.value, s);
        }
    }
}

fn prune_node(n: &mut Node, s: &Schema) {
    match &mut n.value {
        Value::Map(entries) => {
            if s.preserve_unknown && s.properties.is_empty() && s.additional.is_none() {
                return;
            }
            let keep_unknown = s.preserve_unknown || s.embedded || s.ty != Ty::Object;
            entries.retain(|e| {
                let c = s.child(&e.key.value);
                (c.is_some() || keep_unknown)
                    && !(matches!(e.value.value, Value::Null) && c.is_some_and(|c| !c.nullable))
            });
            for e in entries.iter_mut() {
                if let Some(c) = s.child(&e.key.value) {
                    prune_node(&mut e.value, c);
                }
            }
        }
        Value::Seq(items) => {
            if let Some(item) = s.items() {
                for x in items {
                    prune_node(x, item);
                }
            }
        }
        _ => {}
    }
}
