//! What wasm-shim does with the CEL text of a wasm configuration (PCTL3008, PCTL3029).
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
//! policyctl parses with the parser of the cel release the shim embeds, cel 0.12.0 or 0.14.0 (the
//! commit d23d0a7 was released as), so the verdict and the message are that parser's.

use super::paths::ShimActions;
use super::predicates;
use crate::diag::{Code, Diagnostic};
use crate::model::{KeyValueMatch, KuadrantVersion, RuleMatches, Sp};
use crate::resolve::{Effective, RuleValue};
use crate::source::Span;
use crate::topology::Topology;
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

/// The findings so far, by field and expression, and the parse result of every expression seen by
/// the shim of `version`.
struct Findings {
    version: KuadrantVersion,
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
                .or_insert_with(|| parse(expr, self.version)),
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
/// configuration and that the shim cannot parse, and PCTL3029 for every `queryParams` match that
/// does; one diagnostic per field, naming the gateways. `rules` may leave out rules in which there
/// is nothing to check ([`checks_rule`]). Also the gateways whose configuration is refused (those
/// the PCTL3008 diagnostics name).
pub(super) fn diagnostics(
    t: &Topology<'_>,
    rules: &[(usize, usize, usize)],
    actions: &[ShimActions<'_>],
) -> (Vec<Diagnostic>, BTreeSet<usize>) {
    let m = t.model;
    let mut findings = Findings {
        version: t.version(),
        memo: HashMap::default(),
        found: BTreeMap::new(),
    };
    // The queryParams matches that reach a configuration, by field: the route, what, the
    // predicate, the gateways.
    let mut queries: BTreeMap<Span, (usize, String, String, BTreeSet<usize>)> = BTreeMap::new();
    for &(gateway, route, rule) in rules {
        let r = &m.routes[route];
        let object = || format!("{} {}", r.spec.kind.kind(), r.meta.key());
        let matches = &r.spec.rules[rule].matches;
        for (span, what, expr) in route_fields(matches) {
            findings.check(span, (&object, &|| what.clone()), &expr, true, gateway);
        }
        for (span, what, expr) in query_fields(matches) {
            queries
                .entry(span)
                .or_insert_with(|| (route, what, expr, BTreeSet::new()))
                .3
                .insert(gateway);
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
    let mut diagnostics: Vec<Diagnostic> = findings
        .found
        .into_iter()
        .map(|((span, _), f)| diagnostic(t, shim, span, f))
        .collect();
    diagnostics.extend(queries.into_iter().map(|(span, (route, what, expr, gateways))| {
        let r = &m.routes[route];
        let gateways: Vec<String> = gateways
            .iter()
            .map(|&g| m.gateways[g].meta.key())
            .collect();
        Diagnostic::new(
            Code::QueryMapUndeclared,
            format!(
                "{what} becomes the route predicate `{expr}`: {shim} registers `queryMap` only in its test builds, so evaluating the predicate fails (Undeclared reference to 'queryMap') and the shim answers 500 to every request to Gateway {} that reaches it (its match's method, path and headers hold)",
                gateways.join(", ")
            ),
        )
        .object(format!("{} {}", r.spec.kind.kind(), r.meta.key()))
        .at(span, "the shim cannot evaluate this match")
        .help("the shim cannot match query parameters: keep queryParams matches out of rules a Kuadrant policy reaches (route on a path or header instead, or move the rule to an HTTPRoute no policy targets); `policyctl simulate` shows what such a request gets")
    }));
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

/// Whether [`diagnostics`] has something to check in a rule's matches: a value that may break the
/// CEL string it is copied into ([`route_fields`]), or a `queryParams` match.
pub(super) fn checks_rule(matches: &RuleMatches) -> bool {
    !route_fields(matches).is_empty() || !query_fields(matches).is_empty()
}

/// The `queryParams` matches of a rule, the first of each name in each match as the operator
/// writes them (`predicates::http`): (span, what, the route predicate built from it).
fn query_fields(matches: &RuleMatches) -> Vec<(Span, String, String)> {
    let RuleMatches::Http(ms) = matches else {
        return vec![];
    };
    let mut fields = Vec::new();
    for h in ms {
        let mut seen = BTreeSet::new();
        for q in &h.query_params {
            if seen.insert(q.name.as_str()) {
                fields.push((
                    q.span,
                    format!("query parameter `{}` value `{}`", q.name, q.value),
                    predicates::query_predicate(&q.name, &q.value),
                ));
            }
        }
    }
    fields
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

/// Whether the shim of `version` parses `expr`: with the parser of the cel release it embeds (cel
/// 0.12.0 in wasm-shim v0.12.3, cel 0.14.0 in v0.14.1), optional syntax on, as the shim parses;
/// `Err` carries that parser's message.
pub(crate) fn parse(expr: &str, version: KuadrantVersion) -> Result<(), String> {
    let parsed = match version {
        KuadrantVersion::V1_4 => cel_shim_1_4::parser::Parser::new()
            .enable_optional_syntax(true)
            .parse(expr)
            .map(drop)
            .map_err(|e| e.to_string()),
        KuadrantVersion::V1_5 => cel_shim_1_5::parser::Parser::new()
            .enable_optional_syntax(true)
            .parse(expr)
            .map(drop)
            .map_err(|e| e.to_string()),
    };
    parsed.map_err(|e| e.trim_end().to_string())
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
            for v in [KuadrantVersion::V1_4, KuadrantVersion::V1_5] {
                assert_eq!(parse(ok, v), Ok(()), "{v:?} {ok}");
            }
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
            for v in [KuadrantVersion::V1_4, KuadrantVersion::V1_5] {
                assert!(parse(bad, v).is_err(), "{v:?} {bad}");
            }
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
            for v in [KuadrantVersion::V1_4, KuadrantVersion::V1_5] {
                assert_eq!(parse(&e, v), Ok(()), "{v:?} {e}");
            }
        }
    }

    /// The error is the shim's parser's own: the lexer stops at the string the regex broke.
    #[test]
    fn error_text() {
        for v in [KuadrantVersion::V1_4, KuadrantVersion::V1_5] {
            let e = parse(r"request.url_path.matches('.*\.png$')", v).unwrap_err();
            assert!(
                e.starts_with(
                    "ERROR: <input>:1:26: Syntax error: token recognition error at: ''.*\\.'"
                ),
                "{v:?} {e}"
            );
        }
    }
}
