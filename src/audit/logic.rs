//! Predicates as propositions, for the questions `audit` asks of them: can these predicates all
//! hold on one request (a limit's `when` against the route rule it is on), and does one list
//! imply another (a limit that counts whenever another does).
//!
//! Only the common CEL forms are understood: `==` and `!=` between an attribute and a literal,
//! `in` with a list of literals, `startsWith` with a literal, `&&`, `||`, `!` and the literals
//! `true` and `false`. Every other expression is an opaque proposition, known only by its text:
//! the same text twice is the same proposition, anything more is not assumed. Each answer is
//! "proved" or "not proved": an expression too large to reason about (more than [`MAX_TERMS`]
//! alternatives) proves nothing, so callers say nothing rather than guess.
//!
//! Attributes are compared by their selection path: `request.headers.x` and
//! `request.headers['x']` are the same attribute (CEL reads a map's key either way). An
//! expression that fails to evaluate (an absent key) is not true; [`implies`] therefore also
//! requires that every attribute the implied predicates read is known to be present whenever
//! the premises hold.

use cel::common::ast::{Expr, IdedExpr, LiteralValue};
use std::collections::BTreeSet;

/// The largest number of alternatives (terms of the disjunctive normal form) reasoned about.
const MAX_TERMS: usize = 256;

/// Attributes the wasm-shim sets on every HTTP request (wasm-shim v0.12.3 / v0.14.1 well-known
/// attributes from the request's pseudo-headers), so that reading them never fails.
const ALWAYS_PRESENT: [&str; 5] = [
    "request.method",
    "request.url_path",
    "request.path",
    "request.host",
    "request.scheme",
];

/// A literal value. Numbers are kept as their decimal text, so that `80`, `80u` and `80.0`, which
/// CEL compares as equal, are one value.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Lit {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    Bytes(Vec<u8>),
}

/// An attribute: the segments of its selection path, root first.
type Attr = Vec<String>;

/// An elementary proposition.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Atom {
    /// `attr == lit`.
    Eq(Attr, Lit),
    /// `attr in [lit, ...]`.
    In(Attr, BTreeSet<Lit>),
    /// `attr.startsWith('prefix')`.
    Prefix(Attr, String),
    /// Any other expression, by its canonical text.
    Opaque(String),
}

impl Atom {
    fn attr(&self) -> Option<&Attr> {
        match self {
            Atom::Eq(a, _) | Atom::In(a, _) | Atom::Prefix(a, _) => Some(a),
            Atom::Opaque(_) => None,
        }
    }
}

/// A predicate as a proposition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Formula {
    Const(bool),
    Atom(Atom),
    Not(Box<Formula>),
    And(Vec<Formula>),
    Or(Vec<Formula>),
}

impl Formula {
    /// The proposition a CEL predicate states; text that does not parse is one opaque atom.
    pub(crate) fn parse(expr: &str) -> Formula {
        if let Some(f) = generated(expr) {
            return f;
        }
        match cel::parser::Parser::new().parse(expr) {
            Ok(ast) => formula(&ast),
            Err(_) => Formula::Atom(Atom::Opaque(expr.trim().to_string())),
        }
    }
}

/// The route predicates the operator writes (kuadrant-operator v1.4.6 / v1.5.2
/// `internal/wasm/utils.go`), read without the parser: there is one per route match of the estate,
/// and parsing dominated the audit of large estates. A value holding a quote or a backslash, which
/// the operator copies unescaped, goes to the parser like any other text.
pub(super) fn generated(expr: &str) -> Option<Formula> {
    let quoted = |rest: &str| -> Option<String> {
        let v = rest.strip_suffix('\'')?;
        (!v.contains(['\'', '\\'])).then(|| v.to_string())
    };
    let attr = |a: &str| a.split('.').map(str::to_string).collect::<Attr>();
    if let Some(rest) = expr.strip_prefix("request.url_path.startsWith('") {
        let v = quoted(rest.strip_suffix(')')?)?;
        return Some(Formula::Atom(Atom::Prefix(attr("request.url_path"), v)));
    }
    for a in ["request.url_path", "request.method"] {
        if let Some(rest) = expr.strip_prefix(a).and_then(|r| r.strip_prefix(" == '")) {
            return Some(Formula::Atom(Atom::Eq(attr(a), Lit::Str(quoted(rest)?))));
        }
    }
    None
}

/// The proposition of an expression.
fn formula(e: &IdedExpr) -> Formula {
    if let Expr::Literal(LiteralValue::Boolean(b)) = &e.expr {
        return Formula::Const(*b.inner());
    }
    if let Some(a) = attr(e) {
        // A bare attribute used as a condition: `attr == true`.
        return Formula::Atom(Atom::Eq(a, Lit::Bool(true)));
    }
    let Expr::Call(c) = &e.expr else {
        return opaque(e);
    };
    let args = &c.args;
    match (c.func_name.as_str(), c.target.as_deref(), args.len()) {
        ("_&&_", None, _) => Formula::And(args.iter().map(formula).collect()),
        ("_||_", None, _) => Formula::Or(args.iter().map(formula).collect()),
        ("!_", None, 1) => Formula::Not(Box::new(formula(&args[0]))),
        ("_==_", None, 2) => equality(e, &args[0], &args[1]),
        ("_!=_", None, 2) => Formula::Not(Box::new(equality(e, &args[0], &args[1]))),
        ("@in", None, 2) => membership(e, &args[0], &args[1]),
        ("startsWith", Some(t), 1) => match (attr(t), lit(&args[0])) {
            (Some(a), Some(Lit::Str(p))) => Formula::Atom(Atom::Prefix(a, p)),
            _ => opaque(e),
        },
        _ => opaque(e),
    }
}

/// `l == r`: an attribute against a literal (either side), two literals, or opaque.
fn equality(e: &IdedExpr, l: &IdedExpr, r: &IdedExpr) -> Formula {
    match (attr(l), lit(l), attr(r), lit(r)) {
        (Some(a), _, _, Some(v)) | (_, Some(v), Some(a), _) => Formula::Atom(Atom::Eq(a, v)),
        (_, Some(x), _, Some(y)) => Formula::Const(x == y),
        _ => opaque(e),
    }
}

/// `x in [..]`: an attribute in a list of literals, a literal in one, or opaque.
fn membership(e: &IdedExpr, x: &IdedExpr, list: &IdedExpr) -> Formula {
    let Expr::List(l) = &list.expr else {
        return opaque(e);
    };
    let values: Option<BTreeSet<Lit>> = l.elements.iter().map(lit).collect();
    match (values, attr(x), lit(x)) {
        (Some(vs), Some(a), _) if l.optional_indices.is_empty() => Formula::Atom(Atom::In(a, vs)),
        (Some(vs), _, Some(v)) if l.optional_indices.is_empty() => Formula::Const(vs.contains(&v)),
        _ => opaque(e),
    }
}

fn opaque(e: &IdedExpr) -> Formula {
    let mut s = String::new();
    canon(e, &mut s);
    Formula::Atom(Atom::Opaque(s))
}

/// The selection path of an attribute: an identifier, then fields or constant string keys.
fn attr(e: &IdedExpr) -> Option<Attr> {
    match &e.expr {
        Expr::Ident(n) => Some(vec![n.clone()]),
        Expr::Select(s) if !s.test => {
            let mut a = attr(&s.operand)?;
            a.push(s.field.clone());
            Some(a)
        }
        Expr::Call(c) if c.func_name == "_[_]" && c.target.is_none() && c.args.len() == 2 => {
            let mut a = attr(&c.args[0])?;
            match &c.args[1].expr {
                Expr::Literal(LiteralValue::String(k)) => a.push(k.inner().to_string()),
                _ => return None,
            }
            Some(a)
        }
        _ => None,
    }
}

/// A scalar literal.
fn lit(e: &IdedExpr) -> Option<Lit> {
    let Expr::Literal(l) = &e.expr else {
        return None;
    };
    Some(match l {
        LiteralValue::Null => Lit::Null,
        LiteralValue::Boolean(b) => Lit::Bool(*b.inner()),
        LiteralValue::Int(i) => Lit::Num(i.inner().to_string()),
        LiteralValue::UInt(u) => Lit::Num(u.inner().to_string()),
        LiteralValue::Double(d) => {
            let d = *d.inner();
            if d.fract() == 0.0 && d.abs() < 1e18 {
                Lit::Num(format!("{}", d as i64))
            } else {
                Lit::Num(format!("{d:?}"))
            }
        }
        LiteralValue::String(s) => Lit::Str(s.inner().to_string()),
        LiteralValue::Bytes(b) => Lit::Bytes(b.inner().to_vec()),
    })
}

/// A canonical text of an expression (the same for the same expression wherever it is written).
fn canon(e: &IdedExpr, out: &mut String) {
    match &e.expr {
        Expr::Unspecified => out.push('?'),
        Expr::Ident(n) => out.push_str(n),
        Expr::Literal(_) => out.push_str(&format!("{:?}", lit(e))),
        Expr::Select(s) => {
            canon(&s.operand, out);
            out.push_str(if s.test { ".?has " } else { "." });
            out.push_str(&s.field);
        }
        Expr::Call(c) => {
            if let Some(t) = &c.target {
                canon(t, out);
                out.push('.');
            }
            out.push_str(&c.func_name);
            out.push('(');
            for (i, a) in c.args.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canon(a, out);
            }
            out.push(')');
        }
        Expr::List(l) => {
            out.push('[');
            for (i, x) in l.elements.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if l.optional_indices.contains(&i) {
                    out.push('?');
                }
                canon(x, out);
            }
            out.push(']');
        }
        Expr::Map(m) => {
            out.push('{');
            for x in &m.entries {
                if let cel::common::ast::EntryExpr::MapEntry(me) = &x.expr {
                    canon(&me.key, out);
                    out.push(':');
                    canon(&me.value, out);
                    out.push(',');
                }
            }
            out.push('}');
        }
        Expr::Struct(s) => {
            out.push_str(&s.type_name);
            out.push('{');
            for x in &s.entries {
                if let cel::common::ast::EntryExpr::StructField(f) = &x.expr {
                    out.push_str(&f.field);
                    out.push(':');
                    canon(&f.value, out);
                    out.push(',');
                }
            }
            out.push('}');
        }
        Expr::Comprehension(c) => {
            out.push_str("comprehension(");
            out.push_str(&c.iter_var);
            if let Some(v) = &c.iter_var2 {
                out.push(',');
                out.push_str(v);
            }
            out.push(';');
            for x in [
                &c.iter_range,
                &c.accu_init,
                &c.loop_cond,
                &c.loop_step,
                &c.result,
            ] {
                canon(x, out);
                out.push(';');
            }
            out.push_str(&c.accu_var);
            out.push(')');
        }
    }
}

/// A literal of a term: an atom, true when `.0`, false otherwise.
type Literal<'f> = (bool, &'f Atom);

/// The terms of a disjunctive normal form, each a conjunction of literals.
type Terms<'f> = Vec<Vec<Literal<'f>>>;

/// The disjunctive normal form of `f` (negated when `neg`). `None` when it would have more than
/// [`MAX_TERMS`] terms.
fn dnf(f: &Formula, neg: bool) -> Option<Terms<'_>> {
    match f {
        Formula::Const(b) => Some(if *b != neg { vec![vec![]] } else { vec![] }),
        Formula::Atom(a) => Some(vec![vec![(!neg, a)]]),
        Formula::Not(x) => dnf(x, !neg),
        Formula::And(xs) if !neg => product(xs.iter().map(|x| dnf(x, false))),
        Formula::Or(xs) if neg => product(xs.iter().map(|x| dnf(x, true))),
        Formula::And(xs) | Formula::Or(xs) => {
            let mut out = Vec::new();
            for x in xs {
                out.extend(dnf(x, neg)?);
                if out.len() > MAX_TERMS {
                    return None;
                }
            }
            Some(out)
        }
    }
}

/// The terms of the conjunction of some forms.
fn product<'f>(parts: impl Iterator<Item = Option<Terms<'f>>>) -> Option<Terms<'f>> {
    let parts: Vec<Option<Terms<'f>>> = parts.collect();
    // A part that never holds decides the conjunction, however large the others are.
    if parts.iter().any(|p| p.as_ref().is_some_and(Vec::is_empty)) {
        return Some(vec![]);
    }
    let mut acc: Terms<'f> = vec![vec![]];
    for terms in parts {
        let terms = terms?;
        if terms.len() == 1 {
            for a in &mut acc {
                a.extend_from_slice(&terms[0]);
            }
            continue;
        }
        if acc.len().saturating_mul(terms.len()) > MAX_TERMS {
            return None;
        }
        let mut next = Vec::with_capacity(acc.len() * terms.len());
        for a in &acc {
            for t in &terms {
                let mut c = a.clone();
                c.extend_from_slice(t);
                next.push(c);
            }
        }
        acc = next;
    }
    Some(acc)
}

/// What a term says about one attribute.
#[derive(Default)]
struct Constraints<'a> {
    /// Values it must be among (each `==` or `in`): all must hold.
    among: Vec<BTreeSet<&'a Lit>>,
    prefixes: Vec<&'a str>,
    not_values: BTreeSet<&'a Lit>,
    not_prefixes: Vec<&'a str>,
}

impl Constraints<'_> {
    /// Whether some value meets them all.
    fn satisfiable(&self) -> bool {
        let starts = |v: &Lit, p: &str| matches!(v, Lit::Str(s) if s.starts_with(p));
        if let Some((first, rest)) = self.among.split_first() {
            return first.iter().any(|v| {
                rest.iter().all(|s| s.contains(v))
                    && self.prefixes.iter().all(|p| starts(v, p))
                    && !self.not_values.contains(v)
                    && !self.not_prefixes.iter().any(|p| starts(v, p))
            });
        }
        // Only prefixes and exclusions: the prefixes must lie on one chain; then infinitely many
        // strings start with the longest one, and a finite set of values cannot exclude them all.
        let longest = self.prefixes.iter().max_by_key(|p| p.len()).copied();
        match longest {
            Some(l) => {
                self.prefixes.iter().all(|p| l.starts_with(p))
                    && !self.not_prefixes.iter().any(|q| l.starts_with(q))
            }
            // `!x.startsWith('')` never holds on a string.
            None => !self.not_prefixes.contains(&""),
        }
    }
}

/// Whether the literals of a term can all be true together.
fn consistent(term: &[Literal<'_>]) -> bool {
    // Terms are short (a route match and a few predicates): lists searched in order.
    let mut by_attr: Vec<(&Attr, Constraints<'_>)> = Vec::new();
    let mut opaque: Vec<(&str, bool)> = Vec::new();
    fn of<'c, 'f>(
        v: &'c mut Vec<(&'f Attr, Constraints<'f>)>,
        a: &'f Attr,
    ) -> &'c mut Constraints<'f> {
        let i = match v.iter().position(|(x, _)| *x == a) {
            Some(i) => i,
            None => {
                v.push((a, Constraints::default()));
                v.len() - 1
            }
        };
        &mut v[i].1
    }
    for &(pos, atom) in term {
        match atom {
            Atom::Opaque(t) => match opaque.iter().find(|(x, _)| x == t) {
                Some((_, prev)) if *prev != pos => return false,
                Some(_) => {}
                None => opaque.push((t, pos)),
            },
            Atom::Eq(a, v) => {
                let c = of(&mut by_attr, a);
                if pos {
                    c.among.push(BTreeSet::from([v]));
                } else {
                    c.not_values.insert(v);
                }
            }
            Atom::In(a, vs) => {
                let c = of(&mut by_attr, a);
                if pos {
                    c.among.push(vs.iter().collect());
                } else {
                    c.not_values.extend(vs.iter());
                }
            }
            Atom::Prefix(a, p) => {
                let c = of(&mut by_attr, a);
                if pos {
                    c.prefixes.push(p);
                } else {
                    c.not_prefixes.push(p);
                }
            }
        }
    }
    by_attr.iter().all(|(_, c)| c.satisfiable())
}

/// Proved: the predicates (a conjunction) never all hold on one request.
pub(crate) fn never(preds: &[&Formula]) -> bool {
    product(preds.iter().map(|f| dnf(f, false)))
        .is_some_and(|terms| !terms.iter().any(|t| consistent(t)))
}

/// Proved: whenever the `premises` (a conjunction) all hold, so do the `conclusions`, and they
/// evaluate without error (every attribute they read is present then).
pub(crate) fn implies(premises: &[&Formula], conclusions: &[&Formula]) -> bool {
    if conclusions.is_empty() {
        return true;
    }
    let Some(p_terms) = product(premises.iter().map(|f| dnf(f, false))) else {
        return false;
    };
    let p_terms: Terms<'_> = p_terms.into_iter().filter(|t| consistent(t)).collect();
    // The atoms of the conclusions must be defined on every way the premises can hold: an
    // attribute always present, read by a literal of that term, or the same opaque expression.
    let mut q_atoms: Vec<&Atom> = Vec::new();
    for q in conclusions {
        atoms(q, &mut q_atoms);
    }
    for t in &p_terms {
        let defined = q_atoms.iter().all(|a| match a.attr() {
            Some(at) => {
                ALWAYS_PRESENT.iter().any(|p| attr_is(at, p))
                    || t.iter().any(|(_, x)| x.attr() == Some(at))
            }
            None => t.iter().any(|(_, x)| x == a),
        });
        if !defined {
            return false;
        }
    }
    // Premises and the negation of the conclusions (some conclusion false) never hold together.
    let mut negated: Terms<'_> = Vec::new();
    for q in conclusions {
        match dnf(q, true) {
            Some(t) => negated.extend(t),
            None => return false,
        }
        if negated.len() > MAX_TERMS {
            return false;
        }
    }
    if p_terms.len().saturating_mul(negated.len()) > MAX_TERMS * MAX_TERMS {
        return false;
    }
    !p_terms.iter().any(|p| {
        negated.iter().any(|n| {
            let mut t = p.clone();
            t.extend_from_slice(n);
            consistent(&t)
        })
    })
}

/// Every atom of a formula.
fn atoms<'f>(f: &'f Formula, out: &mut Vec<&'f Atom>) {
    match f {
        Formula::Const(_) => {}
        Formula::Atom(a) => out.push(a),
        Formula::Not(x) => atoms(x, out),
        Formula::And(xs) | Formula::Or(xs) => xs.iter().for_each(|x| atoms(x, out)),
    }
}

/// Whether an attribute is the dotted path `p`.
fn attr_is(a: &Attr, p: &str) -> bool {
    let mut parts = p.split('.');
    a.iter().all(|seg| parts.next() == Some(seg.as_str())) && parts.next().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(s: &str) -> Formula {
        Formula::parse(s)
    }

    fn never_all(ps: &[&str]) -> bool {
        let fs: Vec<Formula> = ps.iter().map(|p| f(p)).collect();
        never(&fs.iter().collect::<Vec<_>>())
    }

    fn imp(ps: &[&str], qs: &[&str]) -> bool {
        let p: Vec<Formula> = ps.iter().map(|x| f(x)).collect();
        let q: Vec<Formula> = qs.iter().map(|x| f(x)).collect();
        implies(&p.iter().collect::<Vec<_>>(), &q.iter().collect::<Vec<_>>())
    }

    #[test]
    fn equalities_on_one_attribute_contradict() {
        assert!(never_all(&[
            "request.method == 'GET'",
            "request.method == 'POST'"
        ]));
        assert!(!never_all(&[
            "request.method == 'GET'",
            "request.url_path == '/x'"
        ]));
        assert!(never_all(&[
            "request.method == 'GET'",
            "request.method != 'GET'"
        ]));
        assert!(never_all(&[
            "request.method == 'GET'",
            "!(request.method == 'GET')"
        ]));
        assert!(!never_all(&[
            "request.method != 'GET'",
            "request.method != 'POST'"
        ]));
        // Reversed operands and the two spellings of a map key.
        assert!(never_all(&[
            "'GET' == request.method",
            "request.method == 'PUT'"
        ]));
        assert!(never_all(&[
            "request.headers['x'] == '1'",
            "request.headers.x == '2'"
        ]));
    }

    #[test]
    fn membership_and_prefixes() {
        assert!(never_all(&[
            "request.method in ['GET', 'HEAD']",
            "request.method == 'POST'"
        ]));
        assert!(!never_all(&[
            "request.method in ['GET', 'HEAD']",
            "request.method != 'GET'"
        ]));
        assert!(never_all(&[
            "request.method in ['GET', 'HEAD']",
            "!(request.method in ['HEAD', 'GET'])"
        ]));
        assert!(never_all(&[
            "request.url_path.startsWith('/toys')",
            "request.url_path.startsWith('/admin')"
        ]));
        assert!(!never_all(&[
            "request.url_path.startsWith('/toys')",
            "request.url_path.startsWith('/toys/1')"
        ]));
        assert!(never_all(&[
            "request.url_path == '/admin'",
            "request.url_path.startsWith('/toys')"
        ]));
        assert!(never_all(&[
            "request.url_path.startsWith('/toys/1')",
            "!request.url_path.startsWith('/toys')"
        ]));
        assert!(!never_all(&[
            "request.url_path.startsWith('/toys')",
            "!request.url_path.startsWith('/toys/1')"
        ]));
        // Finitely many exclusions cannot empty a prefix.
        assert!(!never_all(&[
            "request.url_path.startsWith('/a')",
            "request.url_path != '/a'",
            "request.url_path != '/ab'"
        ]));
    }

    #[test]
    fn conjunctions_disjunctions_and_constants() {
        assert!(never_all(&[
            "request.method == 'GET' && request.url_path == '/a'",
            "request.url_path == '/b' || request.method == 'POST'"
        ]));
        assert!(!never_all(&[
            "request.method == 'GET' || request.url_path == '/a'",
            "request.method == 'POST'"
        ]));
        assert!(never_all(&["false"]));
        assert!(!never_all(&["true"]));
        assert!(never_all(&["1 == 2"]));
        assert!(never_all(&["'a' in ['b']"]));
        // Numbers of different types are one value.
        assert!(!never_all(&["source.port == 80", "source.port == 80u"]));
    }

    #[test]
    fn opaque_expressions_are_known_only_by_text() {
        let h = "request.headers.exists(h, h.lowerAscii() == 'x' && request.headers[h] == 'y')";
        assert!(never_all(&[h, &format!("!({h})")]));
        assert!(!never_all(&[
            h,
            "request.headers.exists(h, h.lowerAscii() == 'x' && request.headers[h] == 'z')"
        ]));
        assert!(!never_all(&[
            "request.url_path.matches('^/a$')",
            "request.url_path == '/b'"
        ]));
        // Text that does not parse is an opaque atom too.
        assert!(!never_all(&[
            "request.method ==",
            "request.method == 'GET'"
        ]));
        assert!(imp(&[h, "request.method == 'GET'"], &[h]));
    }

    #[test]
    fn implication_needs_the_attributes_defined() {
        assert!(imp(
            &["request.method == 'POST'"],
            &["request.method == 'POST'"]
        ));
        assert!(imp(
            &["request.method == 'POST'", "request.url_path == '/toys'"],
            &["request.method in ['POST', 'PUT']"]
        ));
        assert!(imp(
            &["request.url_path.startsWith('/toys/a')"],
            &["request.url_path.startsWith('/toys')"]
        ));
        assert!(!imp(
            &["request.url_path.startsWith('/toys')"],
            &["request.url_path.startsWith('/toys/a')"]
        ));
        assert!(!imp(
            &["request.method == 'POST'"],
            &["request.method == 'GET'"]
        ));
        // An attribute the premises do not read may be absent: not proved.
        assert!(!imp(
            &["request.method == 'POST'"],
            &["auth.identity.group != 'x'"]
        ));
        assert!(imp(
            &["auth.identity.group == 'a'"],
            &["auth.identity.group != 'x'"]
        ));
        // Headers are not always present.
        assert!(!imp(
            &["request.method == 'GET'"],
            &["request.headers.x != 'y'"]
        ));
        assert!(imp(&["request.method == 'GET'"], &[]));
        // A path that always starts with '/' still does not prove a prefix it does not read.
        assert!(imp(
            &["request.method == 'GET'"],
            &["request.url_path.startsWith('')"]
        ));
    }

    #[test]
    fn generated_route_predicates_read_like_parsed_ones() {
        for p in [
            "request.url_path.startsWith('/toys')",
            "request.url_path == '/admin'",
            "request.method == 'GET'",
            "request.url_path.startsWith('/a b')",
        ] {
            let fast = generated(p).unwrap();
            let parsed = formula(&cel::parser::Parser::new().parse(p).unwrap());
            assert_eq!(fast, parsed, "{p}");
        }
        // Quotes and backslashes go to the parser.
        assert_eq!(generated("request.url_path == 'a\\'b'"), None);
        assert_eq!(generated("request.url_path.matches('^/a$')"), None);
        assert_eq!(generated("request.method == 'GET' && true"), None);
    }

    #[test]
    fn large_expressions_prove_nothing() {
        let many: Vec<String> = (0..12)
            .map(|i| format!("(request.headers.a{i} == 'x' || request.headers.b{i} == 'y')"))
            .collect();
        let big = many.join(" && ");
        assert!(dnf(&f(&big), false).is_none());
        assert!(!never_all(&[&big, &format!("!({big})")]));
        // A false conjunct decides whatever the rest is.
        assert!(never_all(&[&big, "false"]));
    }
}
