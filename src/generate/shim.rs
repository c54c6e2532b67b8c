//! What wasm-shim does with the CEL text of a wasm configuration (PCTL3008).
//!
//! When Envoy hands the shim its plugin configuration, the shim compiles every action set before it
//! accepts any: each route predicate, each action predicate, each `conditionalData` predicate and each
//! data expression is parsed with the `cel` crate's parser (`Parser::new().enable_optional_syntax(true)`;
//! wasm-shim v0.12.3 src/data/cel.rs `Expression::new_expression`, cel 0.12.0; v0.14.1 the same, cel-rust
//! git rev d23d0a7, after `src/configuration/legacy_translation.rs` wrapped the legacy actions in larger
//! expressions). The first parse error fails `PipelineFactory::try_from` (src/kuadrant/pipeline/
//! factory.rs, `Blueprint::compile` with `?`), `on_configure` returns false (src/filter/root_context.rs)
//! and the whole configuration is refused: every Kuadrant policy on that gateway stops working.
//!
//! The operator validates action predicates with cel-go (`crate::cel`; kuadrant-operator v1.5.2
//! internal/cel/kuadrant_validator.go), so the ones that reach the shim parse; route predicates and
//! counter expressions are never checked. Route
//! predicates interpolate the HTTPRoute's values unescaped into single-quoted CEL strings
//! (kuadrant-operator v1.4.6 / v1.5.2 internal/wasm/utils.go): a regex such as `.*\.png$` becomes
//! `request.url_path.matches('.*\.png$')`, and `\.` is not an escape CEL's string grammar accepts
//! (cel-spec doc/langdef.md "String and Bytes Values": `\a \b \f \n \r \t \v \\ \? \" \' \``, octal,
//! `\x`, `\u`, `\U`).
//!
//! policyctl parses with the `cel` crate's ANTLR grammar (the same `CEL.g4` lexer as cel 0.12.0 and
//! rev d23d0a7) and then re-reads every quoted string literal the way those versions decode it: they
//! accept `\x`, `\u`, `\U` and octal escapes but not `\X`, and their bytes literals only octal and
//! `\x`, where cel 0.15 follows the spec.

use super::paths::ShimActions;
use super::predicates;
use crate::diag::{Code, Diagnostic};
use crate::model::{KeyValueMatch, KuadrantVersion, RuleMatches, Sp};
use crate::resolve::{Effective, RuleValue};
use crate::source::Span;
use crate::topology::Topology;
use cel::common::ast::{EntryExpr, Expr, IdedExpr};
use foldhash::HashMap;
use std::collections::{BTreeMap, BTreeSet};

/// Whether a value interpolated into a single-quoted CEL string can break it: only a backslash, a
/// quote or a line break can (the lexer takes any other character inside `'…'`), so predicates built
/// from other values are not parsed at all.
fn may_break(value: &str) -> bool {
    // Bytewise: in UTF-8 these ASCII bytes only ever stand for themselves.
    value
        .bytes()
        .any(|b| matches!(b, b'\\' | b'\'' | b'\n' | b'\r'))
}

/// One field whose CEL text the shim cannot parse, and the gateways whose configuration carries it.
struct Finding {
    object: String,
    what: String,
    expr: String,
    error: String,
    route_field: bool,
    gateways: BTreeSet<usize>,
}

/// The findings so far, by field and expression, and the parse result of every expression seen.
#[derive(Default)]
struct Findings {
    memo: HashMap<String, Result<(), String>>,
    found: BTreeMap<(Span, String), Finding>,
}

impl Findings {
    /// Record `expr` of the field at `span` for `gateway` if the shim cannot parse it; `object`
    /// and `what` name the field (only asked for a finding).
    fn check(
        &mut self,
        span: Span,
        (object, what): (&dyn Fn() -> String, &dyn Fn() -> String),
        expr: &str,
        route_field: bool,
        gateway: usize,
    ) {
        let parsed = match self.memo.get(expr) {
            Some(parsed) => parsed,
            None => self
                .memo
                .entry(expr.to_string())
                .or_insert_with(|| parse(expr)),
        };
        let Err(error) = parsed else {
            return;
        };
        let error = error.clone();
        self.found
            .entry((span, expr.to_string()))
            .or_insert_with(|| Finding {
                object: object(),
                what: what(),
                expr: expr.to_string(),
                error,
                route_field,
                gateways: BTreeSet::new(),
            })
            .gateways
            .insert(gateway);
    }
}

/// PCTL3008 for every route match value and policy expression that reaches a gateway's wasm
/// configuration and that the shim cannot parse; one diagnostic per field, naming the gateways.
/// `rules` may leave out rules none of whose values may break a CEL string ([`may_break_rule`]).
/// Also the gateways whose configuration is refused (those the diagnostics name).
pub(super) fn diagnostics(
    t: &Topology<'_>,
    rules: &[(usize, usize, usize)],
    actions: &[ShimActions<'_>],
) -> (Vec<Diagnostic>, BTreeSet<usize>) {
    let m = t.model;
    let mut findings = Findings::default();
    for &(gateway, route, rule) in rules {
        let r = &m.routes[route];
        let object = || format!("{} {}", r.spec.kind.kind(), r.meta.key());
        for (span, what, expr) in route_fields(&r.spec.rules[rule].matches) {
            findings.check(span, (&object, &|| what.clone()), &expr, true, gateway);
        }
    }
    for a in actions {
        let kinds = [
            (&a.effective.rate_limit, a.kept[0]),
            (&a.effective.auth, a.kept[1]),
            (&a.effective.token_rate_limit, a.kept[2]),
        ];
        for (e, kept) in kinds {
            let Some(e) = e.as_deref().filter(|_| kept) else {
                continue;
            };
            for (source, what, sp) in expressions(e) {
                findings.check(
                    sp.span,
                    (&|| m.policies[source].display(), &|| {
                        format!("{what} `{}`", sp.value)
                    }),
                    &sp.value,
                    false,
                    a.gateway,
                );
            }
        }
    }
    let shim = match t.version() {
        KuadrantVersion::V1_4 => "wasm-shim v0.12.3 (operator 1.4)",
        KuadrantVersion::V1_5 => "wasm-shim v0.14.1 (operator 1.5)",
    };
    let rejected = findings
        .found
        .values()
        .flat_map(|f| f.gateways.iter().copied())
        .collect();
    let diagnostics = findings
        .found
        .into_iter()
        .map(|((span, _), f)| diagnostic(t, shim, span, f))
        .collect();
    (diagnostics, rejected)
}

/// The PCTL3008 diagnostic of one finding; `shim` names the wasm-shim release.
fn diagnostic(t: &Topology<'_>, shim: &str, span: Span, f: Finding) -> Diagnostic {
    let gateways: Vec<String> = f
        .gateways
        .iter()
        .map(|&g| t.model.gateways[g].meta.key())
        .collect();
    let first = f.error.lines().next().unwrap_or("").trim().to_string();
    let consequence = format!(
        "{shim} cannot parse it ({first}) and rejects the whole wasm configuration of Gateway {}: no Kuadrant policy on it is enforced",
        gateways.join(", ")
    );
    let (msg, help) = if f.route_field {
        (
            format!(
                "{} becomes the route predicate `{}`: {consequence}",
                f.what, f.expr
            ),
            "keep backslashes and quotes out of the value: the operator copies it unescaped into a CEL string (in a regex write [.] for \\. and [0-9] for \\d; doubling the backslash would change the gateway's own routing regex)",
        )
    } else {
        (
            format!("{}: {consequence}", f.what),
            "fix the expression: the operator never checks counters, and the shim parses every predicate and expression of the configuration",
        )
    };
    Diagnostic::new(Code::WasmShimRejects, msg)
        .object(f.object)
        .at(span, "the shim cannot parse this")
        .help(help)
}

/// A header match whose name or value may break the CEL string it is copied into.
fn header_field(x: &KeyValueMatch) -> Option<(Span, String, String)> {
    (may_break(&x.name) || may_break(&x.value)).then(|| {
        (
            x.span,
            format!("header `{}` value `{}`", x.name, x.value),
            predicates::header_predicate(&x.name, &x.value),
        )
    })
}

/// Whether a value of a rule's matches may break the CEL string it is copied into: whether
/// [`route_fields`] has any.
pub(super) fn may_break_rule(matches: &RuleMatches) -> bool {
    !route_fields(matches).is_empty()
}

/// The fields of a rule's matches whose values may break the CEL string they are copied into:
/// (span, what, the predicate built from them).
fn route_fields(matches: &RuleMatches) -> Vec<(Span, String, String)> {
    let mut fields: Vec<(Span, String, String)> = Vec::new();
    match matches {
        RuleMatches::Http(ms) => {
            for h in ms {
                if may_break(&h.path.value) {
                    fields.push((
                        h.path.span,
                        format!("path value `{}`", h.path.value),
                        predicates::path_predicate(h.path.kind, &h.path.value),
                    ));
                }
                fields.extend(h.headers.iter().filter_map(header_field));
                let mut seen = BTreeSet::new();
                for q in &h.query_params {
                    if seen.insert(q.name.as_str()) && (may_break(&q.name) || may_break(&q.value)) {
                        fields.push((
                            q.span,
                            format!("query parameter `{}` value `{}`", q.name, q.value),
                            predicates::query_predicate(&q.name, &q.value),
                        ));
                    }
                }
            }
        }
        RuleMatches::Grpc(ms) => {
            for g in ms {
                if let Some(mm) = &g.method
                    && (mm.service.as_deref().is_some_and(may_break)
                        || mm.method.as_deref().is_some_and(may_break))
                    && let Some(p) = predicates::grpc_method_predicate(mm)
                {
                    fields.push((
                        mm.span,
                        format!(
                            "method match (service `{}`, method `{}`)",
                            mm.service.as_deref().unwrap_or(""),
                            mm.method.as_deref().unwrap_or("")
                        ),
                        p,
                    ));
                }
                fields.extend(g.headers.iter().filter_map(header_field));
            }
        }
    }
    fields
}

/// The policy-written CEL of an effective policy that its wasm actions carry: the top-level `when`
/// predicates, each limit's `when` predicates and its counter expressions (data items), with the
/// policy each comes from.
fn expressions(e: &Effective) -> Vec<(usize, &'static str, &Sp<String>)> {
    let mut out = Vec::new();
    for r in e.rules.values() {
        match &r.value {
            RuleValue::When(w) => out.extend(w.iter().map(|p| (r.source, "predicate", p))),
            RuleValue::Limit(l) => {
                out.extend(l.when.iter().map(|p| (r.source, "predicate", p)));
                out.extend(
                    l.counters
                        .iter()
                        .map(|c| (r.source, "counter expression", c)),
                );
            }
            RuleValue::Auth(..) => {}
        }
    }
    out
}

/// Whether the shim's parser accepts `expr`; `Err` carries the parser's message.
pub(crate) fn parse(expr: &str) -> Result<(), String> {
    let parsed = cel::parser::Parser::new()
        .enable_optional_syntax(true)
        .parse_with_source_info(expr)
        .map_err(|e| e.to_string().trim_end().to_string())?;
    let (ast, info) = parsed;
    let mut bad = None;
    literals(&ast, &mut |id| {
        if bad.is_some() {
            return;
        }
        let Some((start, _)) = info.offset_for(id) else {
            return;
        };
        let start = usize::try_from(start).unwrap_or(usize::MAX);
        // The offset counts characters.
        let at = if expr.is_ascii() {
            Some(start)
        } else {
            expr.char_indices().nth(start).map(|(i, _)| i)
        };
        let Some(rest) = at.and_then(|i| expr.get(i..)) else {
            return;
        };
        if let Err(e) = literal_as_cel_0_12(rest) {
            bad = Some(e);
        }
    });
    bad.map_or(Ok(()), Err)
}

/// Calls `f` with the id of every string and bytes literal of the expression.
fn literals(e: &IdedExpr, f: &mut dyn FnMut(u64)) {
    match &e.expr {
        Expr::Literal(cel::common::ast::LiteralValue::String(_))
        | Expr::Literal(cel::common::ast::LiteralValue::Bytes(_)) => f(e.id),
        Expr::Literal(_) | Expr::Ident(_) | Expr::Unspecified => {}
        Expr::Select(s) => literals(&s.operand, f),
        Expr::Call(c) => {
            if let Some(t) = &c.target {
                literals(t, f);
            }
            for a in &c.args {
                literals(a, f);
            }
        }
        Expr::List(l) => {
            for x in &l.elements {
                literals(x, f);
            }
        }
        Expr::Map(m) => {
            for x in &m.entries {
                if let EntryExpr::MapEntry(me) = &x.expr {
                    literals(&me.key, f);
                    literals(&me.value, f);
                }
            }
        }
        Expr::Struct(s) => {
            for x in &s.entries {
                if let EntryExpr::StructField(sf) = &x.expr {
                    literals(&sf.value, f);
                }
            }
        }
        Expr::Comprehension(c) => {
            literals(&c.iter_range, f);
            literals(&c.accu_init, f);
            literals(&c.loop_cond, f);
            literals(&c.loop_step, f);
            literals(&c.result, f);
        }
    }
}

/// Re-reads the literal token at the start of `text` with the escapes cel 0.12.0 / rev d23d0a7 decode
/// (their `parse_string` / `parse_bytes`); the lexer already accepted the token.
fn literal_as_cel_0_12(text: &str) -> Result<(), String> {
    let mut rest = text;
    let mut raw = false;
    let mut bytes = false;
    for _ in 0..2 {
        match rest.as_bytes().first() {
            Some(b'r' | b'R') => {
                raw = true;
                rest = &rest[1..];
            }
            Some(b'b' | b'B') => {
                bytes = true;
                rest = &rest[1..];
            }
            _ => {}
        }
    }
    if raw {
        return Ok(());
    }
    let quote = match rest.as_bytes().first() {
        Some(&q @ (b'\'' | b'"')) => q as char,
        _ => return Ok(()),
    };
    let triple: String = std::iter::repeat_n(quote, 3).collect();
    let (body, close) = if rest.starts_with(&triple) {
        (&rest[3..], triple.as_str())
    } else {
        (&rest[1..], &rest[..1])
    };
    let mut chars = body.chars().peekable();
    let mut consumed = String::new();
    while let Some(c) = chars.next() {
        consumed.push(c);
        // Escaped quotes are consumed with their backslash below.
        if c == quote && consumed.ends_with(close) {
            break;
        }
        if c != '\\' {
            continue;
        }
        let Some(e) = chars.next() else { break };
        consumed.push(e);
        let ok = if bytes {
            matches!(e, 'x' | '0'..='3')
        } else {
            matches!(
                e,
                'a' | 'b' | 'f' | 'n' | 'r' | 't' | 'v' | '\\' | '?' | '\'' | '"' | '`'
            ) || matches!(e, 'x' | 'u' | 'U' | '0'..='3')
        };
        if !ok {
            return Err(format!(
                "invalid string literal: escape \\{e} is not accepted by the shim's CEL parser"
            ));
        }
        if !bytes && matches!(e, 'u' | 'U') {
            let n = if e == 'u' { 4 } else { 8 };
            let hex: String = (0..n).filter_map(|_| chars.next()).collect();
            consumed.push_str(&hex);
            let valid = u32::from_str_radix(&hex, 16)
                .ok()
                .and_then(char::from_u32)
                .is_some();
            if !valid {
                return Err(format!(
                    "invalid string literal: \\{e}{hex} is not a Unicode scalar value"
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The escapes of cel-spec doc/langdef.md pass; regex escapes do not.
    #[test]
    fn string_escapes() {
        for ok in [
            r"request.url_path.matches('.*[.]png$')",
            r"request.url_path.matches('^/a\\.b$')",
            r"'\a\b\f\n\r\t\v\\\?\'\`' == 'x'",
            "'\\\"' == 'x'",
            r"'\x41\u0041\U00000041\101' == 'AAAA'",
            r"r'\d+' == 'x'",
            r"request.path == '/it\'s'",
            r"b'\x41\101' == b'AA'",
            r#""""a\nb""" == 'x'"#,
            "request.headers['x'] == 'a'",
        ] {
            assert_eq!(parse(ok), Ok(()), "{ok}");
        }
        for bad in [
            r"request.url_path.matches('.*\.png$')",
            r"request.url_path.matches('^/\d+$')",
            r"'\w' == 'x'",
            r"'\/' == 'x'",
            r"'\X41' == 'A'",
            r"'\ud800' == 'x'",
            r"b'\n' == b'x'",
            "request.path == 'it's'",
            "request.path == 'a\nb'",
            "request.headers['x']]",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    /// Values without a backslash, quote or line break cannot break the operator's predicate
    /// templates (why `may_break` lets the others through unparsed).
    #[test]
    fn templates_parse_with_any_other_value() {
        use crate::model::{GrpcMethodMatch, PathMatchType};
        let v = "/a b/.*[0-9]+$^(x|y)?{}\"\t%é";
        assert!(!may_break(v));
        let mut exprs = vec![
            predicates::header_predicate(v, v),
            predicates::query_predicate(v, v),
        ];
        for k in [
            PathMatchType::Exact,
            PathMatchType::PathPrefix,
            PathMatchType::RegularExpression,
        ] {
            exprs.push(predicates::path_predicate(k, v));
        }
        for kind in ["Exact", "RegularExpression"] {
            for (s, m) in [(Some(v), Some(v)), (Some(v), None), (None, Some(v))] {
                exprs.extend(predicates::grpc_method_predicate(&GrpcMethodMatch {
                    kind: kind.into(),
                    service: s.map(Into::into),
                    method: m.map(Into::into),
                    span: Default::default(),
                }));
            }
        }
        for e in exprs {
            assert_eq!(parse(&e), Ok(()), "{e}");
        }
    }

    /// The error text names the problem.
    #[test]
    fn error_text() {
        let e = parse(r"request.url_path.matches('.*\.png$')").unwrap_err();
        assert!(!e.is_empty(), "{e}");
    }
}
