// One release of the shim's CEL, written once against the API cel 0.12 and cel 0.14 share and
// included by `super::v0_12` and `super::v0_14`, where `cel` names that release's crate and
// `int_literal` / `literal_kind` are defined. Everything here is that crate's interpreter
// evaluating the expression; what is ours is the functions the shim registers on it (written to
// behave as wasm-shim v0.12.3 / v0.14.1 src/data/cel/strings.rs behaves, which is the same in both
// releases), the variables, and the cost guards.

use super::{Failure, Read, Vars};
use crate::simulate::cost;
use cel::common::ast;
use cel::extractors::{Arguments, This};
use cel::objects::Key;
use cel::{Context, ExecutionError, ResolveResult, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

/// An expression parsed by this release's parser and instrumented for its cost.
pub(crate) struct Program {
    expr: ast::IdedExpr,
    /// The cost of its nodes no guard charges ([`cost::instrument`]).
    fixed: u64,
    /// Whether it calls `requestBodyJSON`.
    pub(crate) reads_request_body: bool,
    /// The fields of Envoy's attributes it reads.
    pub(crate) reads: Vec<Read>,
    /// Whether every name it reads is `auth` or a variable of one of its comprehensions.
    pub(crate) reads_only_auth: bool,
    /// Whether it names `auth`, and the fields of `auth` it selects as the 1.4 shim finds them
    /// ([`chains`]), shortest first.
    names_auth: bool,
    auth_fields: Vec<Vec<String>>,
}

/// Parse `src` as the shim parses it (optional syntax on: wasm-shim v0.12.3 / v0.14.1
/// src/data/cel.rs `Expression::new_expression`) and instrument it.
pub(crate) fn compile(src: &str) -> Result<Program, String> {
    let parsed = super::guarded(|| {
        cel::parser::Parser::new()
            .enable_optional_syntax(true)
            .parse(src)
    })
    .map_err(|panic| format!("{src}: the shim's parser panics: {panic}"))?
    .map_err(|e| format!("{src}: does not parse: {e}"))?;
    let mut found = Found::default();
    scan(&parsed, &mut found);
    let mut all = Vec::new();
    chains(&parsed, &mut all, &mut Vec::new());
    let mut auth_fields: Vec<Vec<String>> = all
        .into_iter()
        .filter(|c| c.first().is_some_and(|r| r == "auth"))
        .collect();
    auth_fields.sort_by_key(Vec::len);
    // The weaver works on this crate's own tree (`::cel`, the newest release); the tree goes
    // there and back, its literals kept aside as they are.
    let mut literals = Vec::new();
    let metered = cost::instrument(
        to_current(parsed, &mut literals),
        &crate::simulate::attributes::ROOTS,
    );
    Ok(Program {
        expr: from_current(metered.expr, &literals),
        fixed: metered.fixed,
        reads_request_body: found.request_body,
        reads: found.reads,
        reads_only_auth: (found.names.iter()).all(|n| n == "auth" || found.bound.contains(n)),
        names_auth: found.names.iter().any(|n| n == "auth"),
        auth_fields,
    })
}

/// What [`scan`] finds in an expression.
#[derive(Default)]
struct Found {
    /// The fields of `request`, `source` and `destination` it selects (`request.time`,
    /// `has(source.address)`), as the shim collects the attributes an expression needs (wasm-shim
    /// v0.14.1 src/data/cel.rs `properties`).
    reads: Vec<Read>,
    /// Whether it calls `requestBodyJSON` (a literal spelling the name is no call).
    request_body: bool,
    /// Every name it reads (`auth` in `auth.identity`, `g` in `l.exists(g, g > 1)`).
    names: Vec<String>,
    /// The variables its comprehensions bind.
    bound: Vec<String>,
}

/// Walk `e` once for what [`Found`] holds.
fn scan(e: &ast::IdedExpr, out: &mut Found) {
    use ast::{EntryExpr, Expr};
    let entry = |x: &ast::IdedEntryExpr, out: &mut Found| match &x.expr {
        EntryExpr::MapEntry(me) => {
            scan(&me.key, out);
            scan(&me.value, out);
        }
        EntryExpr::StructField(sf) => scan(&sf.value, out),
    };
    match &e.expr {
        Expr::Ident(name) => out.names.push(name.clone()),
        Expr::Select(s) => match &s.operand.expr {
            Expr::Ident(root) => {
                out.names.push(root.clone());
                if let Some(root) = super::read_root(root) {
                    out.reads.push(Read {
                        root,
                        field: s.field.clone(),
                        presence: s.test,
                    });
                }
            }
            _ => scan(&s.operand, out),
        },
        Expr::Call(c) => {
            out.request_body |= c.func_name == "requestBodyJSON";
            if let Some(t) = &c.target {
                scan(t, out);
            }
            for a in &c.args {
                scan(a, out);
            }
        }
        Expr::Comprehension(c) => {
            out.bound.push(c.iter_var.clone());
            out.bound.extend(c.iter_var2.clone());
            out.bound.push(c.accu_var.clone());
            for x in parts(c) {
                scan(x, out);
            }
        }
        Expr::List(l) => {
            for x in &l.elements {
                scan(x, out);
            }
        }
        Expr::Map(m) => {
            for x in &m.entries {
                entry(x, out);
            }
        }
        Expr::Struct(st) => {
            for x in &st.entries {
                entry(x, out);
            }
        }
        _ => {}
    }
}

/// A comprehension's expressions, in the order the shim's walks take them.
fn parts(c: &ast::ComprehensionExpr) -> [&ast::IdedExpr; 5] {
    [
        &c.iter_range,
        &c.accu_init,
        &c.loop_cond,
        &c.loop_step,
        &c.result,
    ]
}

/// The chains of fields an expression selects from a variable (`auth.identity.userid` gives
/// `[auth, identity, userid]`), found as wasm-shim v0.12.3 src/data/cel.rs `properties` finds the
/// attributes it reads: a selection adds its field in front of the chain under way, a variable
/// ends it (and keeps it when it has a field), a call on a target goes on into the target, and a
/// call without one drops the chain under way before its arguments (so `auth.identity['userid']`
/// selects `[auth, identity]`).
fn chains(e: &ast::IdedExpr, all: &mut Vec<Vec<String>>, path: &mut Vec<String>) {
    use ast::{EntryExpr, Expr};
    match &e.expr {
        Expr::Call(c) => {
            match &c.target {
                Some(t) => chains(t, all, path),
                None => path.clear(),
            }
            for a in &c.args {
                chains(a, all, path);
            }
        }
        Expr::Select(s) => {
            path.insert(0, s.field.clone());
            chains(&s.operand, all, path);
        }
        Expr::Ident(name) if !path.is_empty() => {
            path.insert(0, name.clone());
            all.push(std::mem::take(path));
        }
        Expr::List(l) => {
            for x in &l.elements {
                chains(x, all, path);
            }
        }
        Expr::Map(m) => {
            for x in &m.entries {
                match &x.expr {
                    EntryExpr::MapEntry(me) => {
                        chains(&me.key, all, path);
                        chains(&me.value, all, path);
                    }
                    EntryExpr::StructField(sf) => chains(&sf.value, all, path),
                }
            }
        }
        Expr::Struct(st) => {
            for x in &st.entries {
                if let EntryExpr::StructField(sf) = &x.expr {
                    chains(&sf.value, all, path);
                }
            }
        }
        Expr::Comprehension(c) => {
            for x in parts(c) {
                chains(x, all, path);
            }
        }
        _ => {}
    }
}

/// A JSON value as it comes out of a protobuf `google.protobuf.Struct`, as Authorino's dynamic
/// metadata reaches the shim: every number a double.
fn struct_value(v: &serde_json::Value) -> Value {
    converted(v, true)
}

/// `auth` as the 1.4 shim binds it for an expression that selects `fields` (shortest first) of
/// it: wasm-shim v0.12.3 stores what Authorino returned leaf by leaf, each value that is not an
/// object at its own path (src/kuadrant/pipeline/tasks/auth.rs `process_metadata`), and reads each
/// selected chain from there (src/kuadrant/context.rs `fetch_attribute`), null when nothing is
/// stored at it: an object, a field that is absent, or nothing stored yet. The chains are placed
/// in a tree as src/data/cel.rs `AttributeMap::new` places them: a chain that passes through a
/// shorter one already placed stops there. Numbers are doubles, as protobuf's `Struct` carries
/// Authorino's metadata. Null when the expression selects no field of `auth`.
fn auth_by_fields(fields: &[Vec<String>], stored: &serde_json::Value) -> Value {
    use serde_json::Value as J;
    #[derive(Debug)]
    enum Node {
        Leaf(J),
        Tree(Vec<(String, Node)>),
    }
    fn place(node: &mut Vec<(String, Node)>, tokens: &[String], leaf: J) {
        let Some((first, rest)) = tokens.split_first() else {
            return;
        };
        let at = node.iter().position(|(k, _)| k == first);
        if rest.is_empty() {
            match at {
                Some(i) => node[i].1 = Node::Leaf(leaf),
                None => node.push((first.clone(), Node::Leaf(leaf))),
            }
            return;
        }
        let i = match at {
            Some(i) => i,
            None => {
                node.push((first.clone(), Node::Tree(vec![])));
                node.len() - 1
            }
        };
        match &mut node[i].1 {
            Node::Tree(t) => place(t, rest, leaf),
            // A value was placed on this path: it stands for what lies below.
            Node::Leaf(_) => {}
        }
    }
    fn to_value(node: &[(String, Node)]) -> Value {
        let m: HashMap<Key, Value> = node
            .iter()
            .map(|(k, n)| {
                let v = match n {
                    Node::Leaf(j) => struct_value(j),
                    Node::Tree(t) => to_value(t),
                };
                (Key::String(Arc::new(k.clone())), v)
            })
            .collect();
        m.into()
    }
    let mut root: Vec<(String, Node)> = Vec::new();
    for chain in fields {
        let mut at = Some(stored);
        for t in &chain[1..] {
            at = at.and_then(|v| v.get(t));
        }
        let leaf = match at {
            Some(J::Object(_)) | None => J::Null,
            Some(v) => v.clone(),
        };
        place(&mut root, chain, leaf);
    }
    match root.into_iter().next() {
        Some((_, Node::Tree(t))) => to_value(&t),
        Some((_, Node::Leaf(j))) => struct_value(&j),
        None => Value::Null,
    }
}

/// `e` as a tree of the newest release; each literal becomes `uint(i)`, `i` its place in
/// `literals` (the weaver only ever adds `int` literals, so the two cannot be confused).
fn to_current(e: ast::IdedExpr, literals: &mut Vec<ast::Expr>) -> ::cel::common::ast::IdedExpr {
    use ::cel::common::ast as cur;
    let mut go = |x: ast::IdedExpr| to_current(x, literals);
    let expr = match e.expr {
        ast::Expr::Unspecified => cur::Expr::Unspecified,
        ast::Expr::Ident(n) => cur::Expr::Ident(n),
        ast::Expr::Call(c) => cur::Expr::Call(cur::CallExpr {
            func_name: c.func_name,
            target: c.target.map(|t| Box::new(go(*t))),
            args: c.args.into_iter().map(&mut go).collect(),
        }),
        ast::Expr::Select(s) => cur::Expr::Select(cur::SelectExpr {
            operand: Box::new(go(*s.operand)),
            field: s.field,
            test: s.test,
        }),
        ast::Expr::List(l) => cur::Expr::List(cur::ListExpr {
            elements: l.elements.into_iter().map(&mut go).collect(),
            optional_indices: l.optional_indices,
        }),
        ast::Expr::Map(m) => cur::Expr::Map(cur::MapExpr {
            entries: m
                .entries
                .into_iter()
                .map(|x| entry_to_current(x, literals))
                .collect(),
        }),
        ast::Expr::Struct(s) => cur::Expr::Struct(cur::StructExpr {
            type_name: s.type_name,
            entries: s
                .entries
                .into_iter()
                .map(|x| entry_to_current(x, literals))
                .collect(),
        }),
        ast::Expr::Comprehension(c) => {
            let c = *c;
            cur::Expr::Comprehension(Box::new(cur::ComprehensionExpr {
                iter_range: go(c.iter_range),
                iter_var: c.iter_var,
                iter_var2: c.iter_var2,
                accu_var: c.accu_var,
                accu_init: go(c.accu_init),
                loop_cond: go(c.loop_cond),
                loop_step: go(c.loop_step),
                result: go(c.result),
            }))
        }
        lit @ ast::Expr::Literal(_) => {
            literals.push(lit);
            cur::Expr::Literal(cur::LiteralValue::UInt((literals.len() as u64 - 1).into()))
        }
    };
    cur::IdedExpr { id: e.id, expr }
}

fn entry_to_current(
    x: ast::IdedEntryExpr,
    literals: &mut Vec<ast::Expr>,
) -> ::cel::common::ast::IdedEntryExpr {
    use ::cel::common::ast as cur;
    let expr = match x.expr {
        ast::EntryExpr::MapEntry(me) => cur::EntryExpr::MapEntry(cur::MapEntryExpr {
            key: to_current(me.key, literals),
            value: to_current(me.value, literals),
            optional: me.optional,
        }),
        ast::EntryExpr::StructField(f) => cur::EntryExpr::StructField(cur::StructFieldExpr {
            field: f.field,
            value: to_current(f.value, literals),
            optional: f.optional,
        }),
    };
    cur::IdedEntryExpr { id: x.id, expr }
}

/// [`to_current`] undone: the literals back in their places, and the weaver's `int` literals as
/// this release writes an `int`.
fn from_current(e: ::cel::common::ast::IdedExpr, literals: &[ast::Expr]) -> ast::IdedExpr {
    use ::cel::common::ast as cur;
    let mut go = |x: cur::IdedExpr| from_current(x, literals);
    let expr = match e.expr {
        cur::Expr::Unspecified => ast::Expr::Unspecified,
        cur::Expr::Ident(n) => ast::Expr::Ident(n),
        cur::Expr::Call(c) => ast::Expr::Call(ast::CallExpr {
            func_name: c.func_name,
            target: c.target.map(|t| Box::new(go(*t))),
            args: c.args.into_iter().map(&mut go).collect(),
        }),
        cur::Expr::Select(s) => ast::Expr::Select(ast::SelectExpr {
            operand: Box::new(go(*s.operand)),
            field: s.field,
            test: s.test,
        }),
        cur::Expr::List(l) => ast::Expr::List(ast::ListExpr {
            elements: l.elements.into_iter().map(&mut go).collect(),
            optional_indices: l.optional_indices,
        }),
        cur::Expr::Map(m) => ast::Expr::Map(ast::MapExpr {
            entries: m
                .entries
                .into_iter()
                .map(|x| entry_from_current(x, literals))
                .collect(),
        }),
        cur::Expr::Struct(s) => ast::Expr::Struct(ast::StructExpr {
            type_name: s.type_name,
            entries: s
                .entries
                .into_iter()
                .map(|x| entry_from_current(x, literals))
                .collect(),
        }),
        cur::Expr::Comprehension(c) => {
            let c = *c;
            ast::Expr::Comprehension(Box::new(ast::ComprehensionExpr {
                iter_range: go(c.iter_range),
                iter_var: c.iter_var,
                iter_var2: c.iter_var2,
                accu_var: c.accu_var,
                accu_init: go(c.accu_init),
                loop_cond: go(c.loop_cond),
                loop_step: go(c.loop_step),
                result: go(c.result),
            }))
        }
        // A literal may come back more than once: the weaver copies the arguments of `replace`,
        // `split` and `join` into their guard.
        cur::Expr::Literal(cur::LiteralValue::UInt(i)) => usize::try_from(*i.inner())
            .ok()
            .and_then(|i| literals.get(i))
            .cloned()
            .unwrap_or_else(|| int_literal(0)),
        cur::Expr::Literal(cur::LiteralValue::Int(v)) => int_literal(*v.inner()),
        // The weaver writes no other literal; an unspecified node would make the interpreter
        // panic, so none is ever written.
        cur::Expr::Literal(_) => int_literal(0),
    };
    ast::IdedExpr { id: e.id, expr }
}

fn entry_from_current(
    x: ::cel::common::ast::IdedEntryExpr,
    literals: &[ast::Expr],
) -> ast::IdedEntryExpr {
    use ::cel::common::ast as cur;
    let expr = match x.expr {
        cur::EntryExpr::MapEntry(me) => ast::EntryExpr::MapEntry(ast::MapEntryExpr {
            key: from_current(me.key, literals),
            value: from_current(me.value, literals),
            optional: me.optional,
        }),
        cur::EntryExpr::StructField(f) => ast::EntryExpr::StructField(ast::StructFieldExpr {
            field: f.field,
            value: from_current(f.value, literals),
            optional: f.optional,
        }),
    };
    ast::IdedEntryExpr { id: x.id, expr }
}

thread_local! {
    /// The functions of every evaluation on this thread: the release's standard library, the
    /// shim's and the guards. Registered once (a context registers its standard library anew);
    /// each request's variables live in a scope under it. Leaked: one per thread that simulates.
    static ROOT: &'static Context<'static> = Box::leak(Box::new(root()));
    /// The upstream response's body while an expression of a request that has one is evaluated.
    static BODY: RefCell<Option<Arc<serde_json::Value>>> = const { RefCell::new(None) };
    /// Why the shim itself would have panicked in the evaluation under way.
    static TRAP: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn root() -> Context<'static> {
    let mut ctx = Context::default();
    // What wasm-shim v0.12.3 / v0.14.1 src/data/cel.rs `add_string_extensions` registers. Not
    // `queryMap`: the shim registers it only for `Predicate::route_rule`, which both releases
    // compile for their tests alone (`#[cfg(test)]`); a route rule's predicates are
    // `Predicate::new`, so `queryMap` is undeclared there. Not `requestBodyJSON` either: a
    // request that reaches it is undecided before evaluation (the 1.5 shim waits for the body).
    ctx.add_function("charAt", char_at);
    ctx.add_function("indexOf", index_of);
    ctx.add_function("join", join);
    ctx.add_function("lastIndexOf", last_index_of);
    ctx.add_function("lowerAscii", lower_ascii);
    ctx.add_function("upperAscii", upper_ascii);
    ctx.add_function("trim", trim);
    ctx.add_function("replace", replace);
    ctx.add_function("split", split);
    ctx.add_function("substring", substring);
    ctx.add_function("responseBodyJSON", response_body_json);
    ctx.add_function(cost::VALUE, guard_value);
    ctx.add_function(cost::RANGE, guard_range);
    ctx.add_function(cost::STEP, guard_step);
    ctx.add_function(cost::PRE_REPLACE, guard_pre_replace);
    ctx.add_function(cost::PRE_SPLIT, guard_pre_split);
    ctx.add_function(cost::PRE_JOIN, guard_pre_join);
    ctx
}

fn function_error(function: &str, message: String) -> ExecutionError {
    ExecutionError::FunctionError {
        function: function.to_string(),
        message,
    }
}

/// An integer argument as the shim reads one: `int` or `uint`, cast to `usize` (a negative `int`
/// wraps to a huge index).
fn index_arg(v: &Value) -> Option<usize> {
    match v {
        Value::Int(i) => Some(*i as usize),
        Value::UInt(u) => Some(*u as usize),
        _ => None,
    }
}

/// `s.charAt(i)`: the `i`th character; past the end an error (cel-go gives `''` at the end).
fn char_at(This(this): This<Arc<String>>, i: i64) -> ResolveResult {
    match this.chars().nth(i as usize) {
        Some(c) => Ok(c.to_string().into()),
        None => Err(function_error(
            "String.charAt",
            format!("No index {i} on `{this}`"),
        )),
    }
}

/// `s.indexOf(t[, base])` and `s.lastIndexOf(t[, base])` as the shim computes them: byte offsets,
/// a `uint` when found and the `int` -1 when not; with `base`, the search runs in `s[base..]`,
/// and `lastIndexOf` gives the offset within that part. A `base` inside a multi-byte character
/// makes the shim panic (Rust refuses to slice there): the evaluation is then a trap.
fn find(this: &str, needle: &str, args: &[Value], last: bool) -> ResolveResult {
    let name = if last {
        "String.lastIndexOf"
    } else {
        "String.indexOf"
    };
    let search = |hay: &str| {
        if last {
            hay.rfind(needle)
        } else {
            hay.find(needle)
        }
    };
    match args.len() {
        1 => Ok(search(this).map_or(Value::Int(-1), |i| Value::UInt(i as u64))),
        2 => {
            let Some(base) = index_arg(&args[1]) else {
                return Err(function_error(
                    name,
                    format!("Expects 2nd argument to be an Integer, got `{:?}`", args[1]),
                ));
            };
            if base >= this.len() {
                return Ok(Value::Int(-1));
            }
            if !this.is_char_boundary(base) {
                let why = format!(
                    "{name}: byte index {base} is not a char boundary of {this:?}: the shim panics"
                );
                TRAP.with(|t| *t.borrow_mut() = Some(why.clone()));
                return Err(function_error(name, why));
            }
            Ok(match search(&this[base..]) {
                None => Value::Int(-1),
                Some(i) if last => Value::UInt(i as u64),
                Some(i) => Value::UInt((base + i) as u64),
            })
        }
        _ => Err(function_error(
            name,
            format!("Expects 2 arguments at most, got `{args:?}`!"),
        )),
    }
}

/// The needle is read as the shim reads it, by the interpreter's own argument extractor; the
/// arguments again, the needle first, decide between the one- and two-argument forms.
fn index_of(
    This(this): This<Arc<String>>,
    needle: Arc<String>,
    Arguments(args): Arguments,
) -> ResolveResult {
    find(&this, &needle, &args, false)
}

fn last_index_of(
    This(this): This<Arc<String>>,
    needle: Arc<String>,
    Arguments(args): Arguments,
) -> ResolveResult {
    find(&this, &needle, &args, true)
}

fn lower_ascii(This(this): This<Arc<String>>) -> ResolveResult {
    Ok(this.to_ascii_lowercase().into())
}

fn upper_ascii(This(this): This<Arc<String>>) -> ResolveResult {
    Ok(this.to_ascii_uppercase().into())
}

/// Rust's `trim`: Unicode white space at both ends.
fn trim(This(this): This<Arc<String>>) -> ResolveResult {
    Ok(this.trim().to_string().into())
}

/// `list.join([sep])`: strings only.
fn join(This(this): This<Arc<Vec<Value>>>, Arguments(args): Arguments) -> ResolveResult {
    let sep = match args.first() {
        None => "",
        Some(Value::String(s)) => s.as_str(),
        Some(v) => {
            return Err(function_error(
                "List.join",
                format!("Expects seperator to be a String, got `{v:?}`!"),
            ));
        }
    };
    let mut parts = Vec::with_capacity(this.len());
    for v in this.iter() {
        match v {
            Value::String(s) => parts.push(s.as_str()),
            _ => {
                return Err(function_error(
                    "List.join",
                    "Expects a list of String values!".to_string(),
                ));
            }
        }
    }
    Ok(parts.join(sep).into())
}

/// `s.replace(from, to[, n])`: at most `n` replacements (a negative `n` wraps to all).
fn replace(This(this): This<Arc<String>>, Arguments(args): Arguments) -> ResolveResult {
    if !(2..=3).contains(&args.len()) {
        return Err(function_error(
            "String.replace",
            format!("Expects 2 or 3 arguments, got {args:?}"),
        ));
    }
    let Value::String(from) = &args[0] else {
        return Err(function_error(
            "String.replace",
            format!(
                "First argument of type String expected, got `{:?}`",
                args[0]
            ),
        ));
    };
    let Value::String(to) = &args[1] else {
        return Err(function_error(
            "String.replace",
            format!(
                "Second argument of type String expected, got `{:?}`",
                args[1]
            ),
        ));
    };
    match args.get(2) {
        None => Ok(this.replace(from.as_str(), to).into()),
        Some(n) => match index_arg(n) {
            Some(n) => Ok(this.replacen(from.as_str(), to, n).into()),
            None => Err(function_error(
                "String.replace",
                format!("Third argument of type Integer expected, got `{n:?}`"),
            )),
        },
    }
}

/// `s.split(sep[, n])`: at most `n` parts (a negative `n` wraps to all, 0 gives none).
fn split(This(this): This<Arc<String>>, Arguments(args): Arguments) -> ResolveResult {
    if !(1..=2).contains(&args.len()) {
        return Err(function_error(
            "String.split",
            format!("Expects at most 2 arguments, got {args:?}"),
        ));
    }
    let Value::String(sep) = &args[0] else {
        return Err(function_error(
            "String.split",
            format!(
                "Expects a first argument of type String, got `{:?}`",
                args[0]
            ),
        ));
    };
    let part = |p: &str| Value::String(Arc::new(p.to_string()));
    let parts: Vec<Value> = match args.get(1) {
        None => this.split(sep.as_str()).map(part).collect(),
        Some(n) => match index_arg(n) {
            Some(n) => this.splitn(n, sep.as_str()).map(part).collect(),
            None => {
                return Err(function_error(
                    "String.split",
                    format!("Expects a second argument of type Integer, got `{n:?}`"),
                ));
            }
        },
    };
    Ok(parts.into())
}

/// `s.substring(start[, end])`, in characters; an `end` before `start` is an error. A bad second
/// argument is reported with the first, as the shim reports it.
fn substring(This(this): This<Arc<String>>, Arguments(args): Arguments) -> ResolveResult {
    if !(1..=2).contains(&args.len()) {
        return Err(function_error(
            "String.substring",
            format!("Expects at most 2 arguments, got {args:?}"),
        ));
    }
    let Some(start) = index_arg(&args[0]) else {
        return Err(function_error(
            "String.substring",
            format!(
                "Expects a first argument of type Integer, got `{:?}`",
                args[0]
            ),
        ));
    };
    let end = match args.get(1) {
        None => this.chars().count(),
        Some(e) => index_arg(e).ok_or_else(|| {
            function_error(
                "String.substring",
                format!(
                    "Expects a second argument of type Integer, got `{:?}`",
                    args[0]
                ),
            )
        })?,
    };
    if end < start {
        return Err(function_error(
            "String.substring",
            format!("Can't have end be before the start: `{end} < {start}"),
        ));
    }
    Ok(this
        .chars()
        .skip(start)
        .take(end - start)
        .collect::<String>()
        .into())
}

/// `responseBodyJSON(pointer)`: the value at that JSON pointer in the upstream response's body,
/// null when absent; undeclared when the request has no body (the operator declares the function
/// for the shim: kuadrant-operator v1.5.2 internal/cel).
fn response_body_json(pointer: Arc<String>) -> ResolveResult {
    BODY.with(|b| match &*b.borrow() {
        Some(body) => Ok(body.pointer(&pointer).map_or(Value::Null, json_value)),
        None => Err(ExecutionError::UndeclaredReference(Arc::new(
            "responseBodyJSON".to_string(),
        ))),
    })
}

fn over() -> ExecutionError {
    function_error("cost", cost::COST_ERROR.to_string())
}

fn charge(n: u64) -> Result<(), ExecutionError> {
    if cost::charge_units(n) {
        Ok(())
    } else {
        Err(over())
    }
}

/// A value's size, as [`cost`] charges it.
fn size(v: &Value) -> u64 {
    match v {
        Value::String(s) => (s.len() as u64).div_ceil(10),
        Value::Bytes(b) => (b.len() as u64).div_ceil(10),
        Value::List(l) => l.len() as u64,
        Value::Map(m) => m.map.len() as u64,
        _ => 0,
    }
}

/// The last argument, which every guard gives back.
fn last(args: &[Value]) -> Value {
    args.last().cloned().unwrap_or(Value::Null)
}

fn guard_value(Arguments(args): Arguments) -> ResolveResult {
    let v = last(&args);
    charge(1 + size(&v))?;
    Ok(v)
}

fn guard_range(Arguments(args): Arguments) -> ResolveResult {
    charge(1)?;
    Ok(last(&args))
}

fn guard_step(Arguments(args): Arguments) -> ResolveResult {
    let k = match args.first() {
        Some(Value::Int(k)) => u64::try_from(*k).unwrap_or(0),
        _ => 0,
    };
    charge(1 + k)?;
    Ok(last(&args))
}

fn str_arg(args: &[Value], i: usize) -> Option<&str> {
    match args.get(i) {
        Some(Value::String(s)) => Some(s.as_str()),
        _ => None,
    }
}

fn int_arg(args: &[Value], i: usize) -> Option<i64> {
    match args.get(i) {
        Some(Value::Int(n)) => Some(*n),
        _ => None,
    }
}

fn first(args: &[Value]) -> Value {
    args.first().cloned().unwrap_or(Value::Null)
}

fn guard_pre_replace(Arguments(args): Arguments) -> ResolveResult {
    if let (Some(s), Some(from), Some(to)) =
        (str_arg(&args, 0), str_arg(&args, 1), str_arg(&args, 2))
    {
        charge(cost::replace_cost(s, from, to, int_arg(&args, 3)))?;
    }
    Ok(first(&args))
}

fn guard_pre_split(Arguments(args): Arguments) -> ResolveResult {
    if let (Some(s), Some(sep)) = (str_arg(&args, 0), str_arg(&args, 1)) {
        charge(cost::split_cost(s, sep, int_arg(&args, 2)))?;
    }
    Ok(first(&args))
}

fn guard_pre_join(Arguments(args): Arguments) -> ResolveResult {
    if let Some(Value::List(items)) = args.first() {
        let bytes = items
            .iter()
            .map(|i| match i {
                Value::String(s) => s.len() as u64,
                _ => 0,
            })
            .sum();
        charge(cost::join_cost(
            items.len(),
            bytes,
            str_arg(&args, 1).unwrap_or_default(),
        ))?;
    }
    Ok(first(&args))
}

/// A JSON value as the shim's variables hold it: numbers an `int` when integral, else a `uint`
/// when they fit one, else a `double`.
fn json_value(v: &serde_json::Value) -> Value {
    converted(v, false)
}

/// [`json_value`], or [`struct_value`] with `doubles`.
fn converted(v: &serde_json::Value, doubles: bool) -> Value {
    use serde_json::Value as J;
    match v {
        J::Null => Value::Null,
        J::Bool(b) => Value::Bool(*b),
        J::Number(n) if doubles => Value::Float(n.as_f64().unwrap_or(0.0)),
        J::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Value::Int(i),
            (None, Some(u)) => Value::UInt(u),
            _ => Value::Float(n.as_f64().unwrap_or(0.0)),
        },
        J::String(s) => Value::String(Arc::new(s.clone())),
        J::Array(a) => Value::List(Arc::new(a.iter().map(|x| converted(x, doubles)).collect())),
        J::Object(o) => {
            let m: HashMap<Key, Value> = o
                .iter()
                .map(|(k, v)| (Key::String(Arc::new(k.clone())), converted(v, doubles)))
                .collect();
            m.into()
        }
    }
}

/// A value as JSON: `None` for what JSON cannot hold (a function, a duration, an opaque value).
fn to_json(v: &Value) -> Option<serde_json::Value> {
    use serde_json::Value as J;
    Some(match v {
        Value::Null => J::Null,
        Value::Bool(b) => J::Bool(*b),
        Value::Int(i) => J::from(*i),
        Value::UInt(u) => J::from(*u),
        Value::Float(f) => serde_json::Number::from_f64(*f).map(J::Number)?,
        Value::String(s) => J::String(s.to_string()),
        Value::Bytes(b) => J::String(data_encoding::BASE64.encode(b)),
        Value::List(l) => J::Array(l.iter().map(to_json).collect::<Option<Vec<_>>>()?),
        Value::Map(m) => {
            let mut entries: Vec<(String, &Value)> = m
                .map
                .iter()
                .map(|(k, v)| {
                    let k = match k {
                        Key::String(s) => s.to_string(),
                        Key::Int(i) => i.to_string(),
                        Key::Uint(u) => u.to_string(),
                        Key::Bool(b) => b.to_string(),
                    };
                    (k, v)
                })
                .collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            let mut out = serde_json::Map::new();
            for (k, v) in entries {
                out.insert(k, to_json(v)?);
            }
            J::Object(out)
        }
        _ => return None,
    })
}

/// One request's variables, in a scope of this thread's context.
pub(crate) struct Activation {
    ctx: Context<'static>,
    body: Option<Arc<serde_json::Value>>,
    /// What the auth action stored, for a release that reads it field by field, and the `auth`
    /// built from it for each list of fields met (a sequence repeats the same expressions).
    auth: serde_json::Value,
    auth_built: RefCell<Vec<(Vec<Vec<String>>, Value)>>,
}

pub(crate) fn activation(vars: &Vars) -> Activation {
    let root = ROOT.with(|r| *r);
    let mut ctx = root.new_inner_scope();
    ctx.add_variable_from_value("request", json_value(&vars.request));
    ctx.add_variable_from_value("source", json_value(&vars.source));
    ctx.add_variable_from_value("destination", json_value(&vars.destination));
    // What the auth action stored comes from Authorino's dynamic metadata, a protobuf `Struct`
    // (the 1.5 shim converts its reply with prost-reflect, src/services/dynamic/converters.rs).
    ctx.add_variable_from_value("auth", struct_value(&vars.auth));
    Activation {
        ctx,
        body: vars.response_body.clone(),
        auth: if AUTH_BY_FIELDS {
            vars.auth.clone()
        } else {
            serde_json::Value::Null
        },
        auth_built: RefCell::default(),
    }
}

/// Evaluate `p` (the text `src`) over `act`, within its cost budget.
fn run(p: &Program, src: &str, act: &Activation) -> Result<Value, Failure> {
    BODY.with(|b| *b.borrow_mut() = act.body.clone());
    TRAP.with(|t| t.borrow_mut().take());
    // The 1.4 shim's `auth` depends on the fields the expression selects.
    let scope = (AUTH_BY_FIELDS && p.names_auth).then(|| {
        let mut built = act.auth_built.borrow_mut();
        let auth = match built.iter().find(|(f, _)| *f == p.auth_fields) {
            Some((_, v)) => v.clone(),
            None => {
                let v = auth_by_fields(&p.auth_fields, &act.auth);
                built.push((p.auth_fields.clone(), v.clone()));
                v
            }
        };
        let mut scope = act.ctx.new_inner_scope();
        scope.add_variable_from_value("auth", auth);
        scope
    });
    let ctx = scope.as_ref().unwrap_or(&act.ctx);
    let out = cost::metered(p.fixed, src, || {
        match super::guarded(|| Value::resolve(&p.expr, ctx)) {
            Ok(v) => v.map_err(|e| e.to_string()),
            Err(panic) => {
                let why = format!("the shim's interpreter panics ({panic})");
                TRAP.with(|t| *t.borrow_mut() = Some(why.clone()));
                Err(why)
            }
        }
    });
    BODY.with(|b| b.borrow_mut().take());
    if let Some(why) = TRAP.with(|t| t.borrow_mut().take()) {
        return Err(Failure::Undecided(format!("{src}: {why}")));
    }
    out.map_err(|e| Failure::Error(format!("{src}: {e}")))
}

/// A predicate: `Some(false)`, `Some(true)`, or an error for any other value (the shim's
/// `Predicate::test`).
pub(crate) fn predicate(p: &Program, src: &str, act: &Activation) -> Result<bool, Failure> {
    match run(p, src, act)? {
        Value::Bool(b) => Ok(b),
        other => Err(Failure::Error(format!(
            "{src}: Expected boolean value, got {other:?}"
        ))),
    }
}

/// A descriptor entry's value, as the release writes it: `string(value)` evaluated by this
/// release's interpreter where the shim builds its request with CEL (wasm-shim v0.14.1
/// src/configuration/legacy_translation.rs `build_ratelimit_descriptor_entry_cel`: a `bool` or
/// `null` has no `string` overload in cel 0.14.0), else as [`scalar`] writes it.
pub(crate) fn entry_value(p: &Program, src: &str, act: &Activation) -> Result<String, Failure> {
    if !ENTRY_VALUE_IS_CEL_STRING {
        return scalar(p, src, act);
    }
    const VALUE: &str = "@pctl_entry_value";
    let v = match run(p, src, act)? {
        // What cel 0.14.0's `string` overloads give for these (src/common/types/string.rs
        // `string`: the string itself, the numbers as Rust writes them), without a scope and a
        // call for every entry of every request.
        Value::String(s) => return Ok(s.to_string()),
        Value::Int(n) => return Ok(n.to_string()),
        Value::UInt(n) => return Ok(n.to_string()),
        Value::Float(n) => return Ok(n.to_string()),
        v => v,
    };
    let mut scope = act.ctx.new_inner_scope();
    scope.add_variable_from_value(VALUE, v);
    let call = ast::IdedExpr {
        id: 1,
        expr: ast::Expr::Call(ast::CallExpr {
            func_name: "string".into(),
            target: None,
            args: vec![ast::IdedExpr {
                id: 2,
                expr: ast::Expr::Ident(VALUE.into()),
            }],
        }),
    };
    match Value::resolve(&call, &scope) {
        Ok(Value::String(s)) => Ok(s.to_string()),
        Ok(other) => Err(Failure::Error(format!("{src}: string() gave {other:?}"))),
        Err(e) => Err(Failure::Error(format!("{src}: {e}"))),
    }
}

/// A value as text where the shim converts it itself (wasm-shim v0.12.3
/// src/kuadrant/pipeline/tasks/ratelimit.rs, a descriptor entry's value; both releases, the
/// domain and the hits addend here): scalars only.
pub(crate) fn scalar(p: &Program, src: &str, act: &Activation) -> Result<String, Failure> {
    match run(p, src, act)? {
        Value::Int(n) => Ok(n.to_string()),
        Value::UInt(n) => Ok(n.to_string()),
        Value::Float(n) => Ok(n.to_string()),
        Value::String(x) => Ok(x.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Null => Ok("null".into()),
        _ => Err(Failure::Error(format!(
            "{src}: Only scalar values can be sent as data"
        ))),
    }
}

/// The value as JSON (`None` when JSON cannot hold it).
pub(crate) fn json(
    p: &Program,
    src: &str,
    act: &Activation,
) -> Result<Option<serde_json::Value>, Failure> {
    run(p, src, act).map(|v| to_json(&v))
}
