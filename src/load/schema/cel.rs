//! The CRDs' `x-kubernetes-validations` rules: parsed once (the `cel` crate's parser, cel-go's
//! grammar and macros), compiled into a small tree evaluated directly over the input's [`Node`]s,
//! with the semantics of the Kubernetes CEL environment as far as the rules of the emulated
//! releases use it.
//!
//! What the rules use (every rule of the generated schemas, checked by a test): `self`, field
//! selection (with `__namespace__` for a property named `namespace`), `has()`, `size()`,
//! `all`, `exists`, `exists_one`, `filter`, `in`, indexing, `matches` (RE2), `contains`,
//! `startsWith`, `endsWith`, `split` (the Kubernetes strings library), `duration`, the logical,
//! comparison and arithmetic operators, list literals and `?:`. Errors are values, absorbed by
//! `&&`, `||`, `all` and `exists` as cel-go absorbs them. A property absent from the input but
//! defaulted by the schema reads as its default, as the API server defaults before validating.
//! Transition rules (those reading `oldSelf`) are not evaluated: an object is created.

use super::{Schema, Ty};
use crate::load::node::{Node, Value};
use ::cel::common::ast::{Expr, IdedExpr, LiteralValue};
use serde_json::Value as Json;
use std::borrow::Cow;
use std::rc::Rc;
use std::sync::{Arc, Mutex};

/// One `x-kubernetes-validations` entry. Its expression is parsed the first time the rule is
/// evaluated: a kind's schema holds up to 154 rules, most on fields a given input never sets, and
/// parsing them all took a sixth of `compute`'s CPU on kuadrant-operator #1085's shape.
#[derive(Debug)]
pub(crate) struct Rule {
    /// The rule as written.
    pub source: String,
    /// Its message (the rule itself when it has none, as the API server says).
    pub message: String,
    compiled: std::sync::OnceLock<Arc<Compiled>>,
}

/// A rule's parsed expression, and whether it is a transition rule. It is also what
/// `schemas/rules.json` keeps for every rule of the embedded schemas ([`precompiled`]).
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Compiled {
    program: Result<E, String>,
    /// A transition rule (reads `oldSelf`): not evaluated on create.
    transition: bool,
}

impl Rule {
    /// The rule of an `x-kubernetes-validations` entry (its expression parsed when first used).
    pub(super) fn compile(j: &Json) -> Option<Rule> {
        let source = j.get("rule")?.as_str()?.to_string();
        let message = j
            .get("message")
            .and_then(Json::as_str)
            .map(|m| m.trim().to_string())
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| source.trim().to_string());
        Some(Rule {
            source,
            message,
            compiled: std::sync::OnceLock::new(),
        })
    }

    fn compiled(&self) -> &Compiled {
        self.compiled.get_or_init(|| {
            // The same rule is written at many places of a schema (HTTPRoute's 154 rules are 44
            // texts): parsed once per run whatever place asks first.
            type Parsed = std::collections::HashMap<String, Arc<Compiled>>;
            static PARSED: std::sync::OnceLock<Mutex<Parsed>> = std::sync::OnceLock::new();
            let parsed = PARSED.get_or_init(Mutex::default);
            if let Some(c) = parsed
                .lock()
                .ok()
                .and_then(|m| m.get(&self.source).cloned())
            {
                return c;
            }
            let mut compiled =
                precompiled(&self.source).unwrap_or_else(|| Compiled::parse(&self.source));
            if let Ok(program) = &mut compiled.program {
                memoize(program);
            }
            let compiled = Arc::new(compiled);
            if let Ok(mut m) = parsed.lock() {
                m.insert(self.source.clone(), compiled.clone());
            }
            compiled
        })
    }

    /// The rule's compiled form, as shared by every place of the schemas that writes its text.
    fn shared(&self) -> Arc<Compiled> {
        self.compiled();
        self.compiled.get().cloned().unwrap_or_else(|| {
            Arc::new(Compiled {
                program: Err("not compiled".into()),
                transition: false,
            })
        })
    }

    /// The compiled expression, or why it could not be compiled.
    #[cfg(test)]
    pub(crate) fn program(&self) -> &Result<E, String> {
        &self.compiled().program
    }
}

impl Compiled {
    /// Parse a rule with the `cel` crate's parser (cel-go's ANTLR grammar and macros) and compile
    /// it.
    fn parse(source: &str) -> Compiled {
        let mut c = Compiler { scopes: vec![] };
        let mut transition = false;
        let program = match ::cel::parser::Parser::new().parse(source) {
            Ok(ast) => c.expr(&ast, &mut transition),
            Err(e) => Err(e.to_string()),
        };
        Compiled {
            program,
            transition,
        }
    }
}

/// The rules of both releases' schemas, compiled ahead: `schemas/rules.json` maps each rule's text
/// to its [`Compiled`] form, as JSON. The ANTLR parser costs about a third of a millisecond per
/// rule, and a Gateway and an HTTPRoute meet about eighty distinct rules; reading their compiled
/// form costs a few microseconds. The file is written by a test from the parser's own output
/// (`precompiled_rules_are_the_parsers`), which fails when it is stale; a text it lacks is parsed.
const PRECOMPILED: &str = include_str!("../../../schemas/rules.json");

/// The compiled form of a rule of the embedded schemas, if `schemas/rules.json` has it.
fn precompiled(source: &str) -> Option<Compiled> {
    type Index = std::collections::HashMap<String, &'static serde_json::value::RawValue>;
    static INDEX: std::sync::OnceLock<Index> = std::sync::OnceLock::new();
    let raw = INDEX
        .get_or_init(|| serde_json::from_str(PRECOMPILED).unwrap_or_default())
        .get(source)?;
    serde_json::from_str(raw.get()).ok()
}

/// `matches` with a constant pattern keeps its compiled regular expression; `rules.json` keeps the
/// pattern (or the error it gave), and reading it compiles the pattern again.
mod pattern {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub(super) fn serialize<S: Serializer>(
        re: &Result<regex::Regex, String>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match re {
            Ok(re) => Ok::<&str, &str>(re.as_str()),
            Err(e) => Err(e.as_str()),
        }
        .serialize(s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Result<regex::Regex, String>, D::Error> {
        Ok(match Result::<String, String>::deserialize(d)? {
            Ok(p) => regex::Regex::new(&p).map_err(|e| e.to_string()),
            Err(e) => Err(e),
        })
    }
}

/// A compiled expression.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) enum E {
    Lit(Lit),
    /// A variable: 0 is `self`, then comprehension variables by depth.
    Var(usize),
    Select(Box<E>, String),
    Has(Box<E>, String),
    Call(F, Vec<E>),
    /// `matches` with a constant pattern, compiled once.
    Matches(
        Box<E>,
        #[serde(with = "pattern")] Result<regex::Regex, String>,
    ),
    List(Vec<E>),
    /// `x in [literals]`, without building the list.
    InLits(Box<E>, Vec<Lit>),
    Comp(Box<Comp>),
    /// A field (or a chain of fields, or `has`) of a variable bound outside the comprehension
    /// whose loop reads it: evaluated the first time the loop reads it, kept in its slot until
    /// the comprehension ends ([`memoize`]). Also a part of a schema node's rules that reads
    /// nothing but `self` and is written in more than one place of them: evaluated the first
    /// time a rule reads it, kept until the node's rules are done ([`Rules`]).
    Memo(usize, Box<E>),
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Comp {
    range: E,
    iter: usize,
    accu: usize,
    init: E,
    cond: E,
    step: E,
    result: E,
    /// The slots of the loop-invariant fields read in the loop ([`memoize`]), emptied when the
    /// comprehension starts.
    #[serde(skip)]
    memos: Vec<usize>,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) enum Lit {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Double(f64),
    Str(Box<str>),
}

/// The functions and operators the rules call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) enum F {
    And,
    Or,
    Not,
    Cond,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Neg,
    Index,
    In,
    NotStrictlyFalse,
    Size,
    Contains,
    StartsWith,
    EndsWith,
    Matches,
    Split,
    Duration,
}

struct Compiler {
    /// Comprehension variables in scope, innermost last: (name, slot).
    scopes: Vec<(String, usize)>,
}

impl Compiler {
    fn expr(&mut self, e: &IdedExpr, transition: &mut bool) -> Result<E, String> {
        Ok(match &e.expr {
            Expr::Literal(l) => E::Lit(match l {
                LiteralValue::Boolean(b) => Lit::Bool(*b.inner()),
                LiteralValue::Int(i) => Lit::Int(*i.inner()),
                LiteralValue::UInt(u) => Lit::UInt(*u.inner()),
                LiteralValue::Double(d) => Lit::Double(*d.inner()),
                LiteralValue::String(s) => Lit::Str(Box::from(s.inner())),
                LiteralValue::Null => Lit::Null,
                LiteralValue::Bytes(_) => return Err("bytes literals are not supported".into()),
            }),
            Expr::Ident(name) => {
                if let Some((_, slot)) = self.scopes.iter().rev().find(|(n, _)| n == name) {
                    E::Var(*slot)
                } else if name == "self" {
                    E::Var(0)
                } else if name == "oldSelf" {
                    *transition = true;
                    E::Lit(Lit::Null)
                } else {
                    return Err(format!("undeclared reference to '{name}'"));
                }
            }
            Expr::Select(s) => {
                let operand = Box::new(self.expr(&s.operand, transition)?);
                let field = unescape(&s.field);
                if s.test {
                    E::Has(operand, field)
                } else {
                    E::Select(operand, field)
                }
            }
            Expr::List(l) => E::List(
                l.elements
                    .iter()
                    .map(|x| self.expr(x, transition))
                    .collect::<Result<_, _>>()?,
            ),
            Expr::Comprehension(c) => {
                let range = self.expr(&c.iter_range, transition)?;
                let base = self.scopes.len() + 1;
                let init = self.expr(&c.accu_init, transition)?;
                self.scopes.push((c.accu_var.clone(), base));
                self.scopes.push((c.iter_var.clone(), base + 1));
                let cond = self.expr(&c.loop_cond, transition)?;
                let step = self.expr(&c.loop_step, transition)?;
                self.scopes.pop();
                let result = self.expr(&c.result, transition)?;
                self.scopes.pop();
                E::Comp(Box::new(Comp {
                    range,
                    iter: base + 1,
                    accu: base,
                    init,
                    cond,
                    step,
                    result,
                    memos: vec![],
                }))
            }
            Expr::Call(call) => {
                let f = match call.func_name.as_str() {
                    "_&&_" => F::And,
                    "_||_" => F::Or,
                    "!_" => F::Not,
                    "_?_:_" => F::Cond,
                    "_==_" => F::Eq,
                    "_!=_" => F::Ne,
                    "_<_" => F::Lt,
                    "_<=_" => F::Le,
                    "_>_" => F::Gt,
                    "_>=_" => F::Ge,
                    "_+_" => F::Add,
                    "_-_" => F::Sub,
                    "_*_" => F::Mul,
                    "_/_" => F::Div,
                    "_%_" => F::Mod,
                    "-_" => F::Neg,
                    "_[_]" => F::Index,
                    "@in" => F::In,
                    "@not_strictly_false" => F::NotStrictlyFalse,
                    "size" => F::Size,
                    "contains" => F::Contains,
                    "startsWith" => F::StartsWith,
                    "endsWith" => F::EndsWith,
                    "matches" => F::Matches,
                    "split" => F::Split,
                    "duration" => F::Duration,
                    other => return Err(format!("function {other} is not supported")),
                };
                let mut args = Vec::new();
                if let Some(t) = &call.target {
                    args.push(self.expr(t, transition)?);
                }
                for a in &call.args {
                    args.push(self.expr(a, transition)?);
                }
                if f == F::In
                    && args.len() == 2
                    && let E::List(items) = &args[1]
                    && items.iter().all(|x| matches!(x, E::Lit(_)))
                {
                    let lits = items
                        .iter()
                        .filter_map(|x| match x {
                            E::Lit(l) => Some(l.clone()),
                            _ => None,
                        })
                        .collect();
                    let target = args.swap_remove(0);
                    return Ok(E::InLits(Box::new(target), lits));
                }
                if f == F::Matches
                    && args.len() == 2
                    && let E::Lit(Lit::Str(p)) = &args[1]
                {
                    let re = regex::Regex::new(p).map_err(|e| e.to_string());
                    let target = args.swap_remove(0);
                    return Ok(E::Matches(Box::new(target), re));
                }
                E::Call(f, args)
            }
            Expr::Map(_) | Expr::Struct(_) | Expr::Unspecified => {
                return Err("map and message literals are not supported".into());
            }
        })
    }
}

/// Mark the loop-invariant fields of each comprehension's loop: a chain of field selections or
/// `has` tests that starts from a variable bound outside the comprehension (`self`, or an outer
/// comprehension's variable) reads the same value at every turn of the loop, so it is evaluated
/// once per run of the comprehension, when the loop first reads it. Gateway's listener rules
/// compare every listener with every other (`self.all(l1, self.exists_one(l2, l1.name ==
/// l2.name))`): `l1`'s fields were read again for each `l2`. The rules are pure and their
/// errors are values, so the verdicts are those of the rule as written.
fn memoize(program: &mut E) {
    fn children(e: &mut E) -> Vec<&mut E> {
        match e {
            E::Lit(_) | E::Var(_) => vec![],
            E::Select(o, _) | E::Has(o, _) | E::Matches(o, _) | E::InLits(o, _) => vec![&mut **o],
            E::Memo(_, x) => vec![&mut **x],
            E::Call(_, args) | E::List(args) => args.iter_mut().collect(),
            E::Comp(c) => {
                let c = &mut **c;
                vec![
                    &mut c.range,
                    &mut c.init,
                    &mut c.cond,
                    &mut c.step,
                    &mut c.result,
                ]
            }
        }
    }
    fn max_slot(e: &mut E) -> usize {
        let own = match e {
            E::Var(j) | E::Memo(j, _) => *j,
            E::Comp(c) => c.iter,
            _ => 0,
        };
        children(e).into_iter().map(max_slot).fold(own, usize::max)
    }
    /// The variable a chain of selections and `has` tests starts from.
    fn root(e: &E) -> Option<usize> {
        match e {
            E::Var(j) => Some(*j),
            E::Select(o, _) | E::Has(o, _) => root(o),
            _ => None,
        }
    }
    /// Wrap the largest chains of `e` that start from a variable below `limit`.
    fn wrap(e: &mut E, limit: usize, next: &mut usize, memos: &mut Vec<usize>) {
        if matches!(e, E::Select(..) | E::Has(..)) && root(e).is_some_and(|j| j < limit) {
            let chain = std::mem::replace(e, E::Lit(Lit::Null));
            *e = E::Memo(*next, Box::new(chain));
            memos.push(*next);
            *next += 1;
            return;
        }
        if matches!(e, E::Memo(..)) {
            return;
        }
        for c in children(e) {
            wrap(c, limit, next, memos);
        }
    }
    fn visit(e: &mut E, next: &mut usize) {
        if let E::Comp(c) = e {
            let c = &mut **c;
            let mut memos = vec![];
            wrap(&mut c.cond, c.accu, next, &mut memos);
            wrap(&mut c.step, c.accu, next, &mut memos);
            c.memos = memos;
        }
        for c in children(e) {
            visit(c, next);
        }
    }
    let mut next = max_slot(program) + 1;
    visit(program, &mut next);
}

/// The rules of one schema node, ready to be evaluated one after the other on a value: each
/// rule's program (`None` for a transition rule or one that does not compile), with the parts
/// that read only `self` and are written more than once across the node's rules evaluated once
/// per value. HTTPRoute's path rules test `self.type in ['Exact','PathPrefix']` and read
/// `self.value` in ten rules each; its rule on `spec.rules` reads `self.size()` sixteen times;
/// RateLimitPolicy's six rules on `spec` test the same three fields. Such a part is evaluated the
/// first time a rule reads it and kept in a slot until the value's rules are done. The rules are
/// pure and their errors are values, so each verdict is that of the rule as written.
#[derive(Debug, Default)]
pub(crate) struct Rules {
    programs: Vec<Option<Program>>,
    /// Per rule: the uniqueness it states, when it is one of [`Unique`]'s.
    unique: Vec<Option<Unique>>,
    /// The slots of the shared parts (above every slot a rule uses).
    shared: std::ops::Range<usize>,
    /// This rule set among those compiled in the process (from 1; 0 for none compiled), for
    /// `super::verdicts`.
    id: usize,
}

/// A rule's program: as compiled for its text when no part of it is shared, else rewritten.
#[derive(Debug)]
enum Program {
    Whole(Arc<Compiled>),
    Rewritten(E),
}

impl Program {
    fn get(&self) -> Option<&E> {
        match self {
            Program::Whole(c) => c.program.as_ref().ok(),
            Program::Rewritten(e) => Some(e),
        }
    }
}

/// A place of a rule outside its loops, in the order [`survey`] meets them.
struct Place {
    digest: u64,
    /// Whether the place reads only `self` and is more than a literal or `self` itself.
    shareable: bool,
    /// How many places its part spans (itself included).
    len: usize,
}

impl Rules {
    /// The rules of a schema node, compiled together.
    pub(super) fn compile(rules: &[Rule]) -> Rules {
        let compiled: Vec<Option<Arc<Compiled>>> = (rules.iter())
            .map(|r| {
                let c = r.shared();
                (!c.transition && c.program.is_ok()).then_some(c)
            })
            .collect();
        // Every place outside the rules' loops, once, with its digest computed from its parts'.
        let mut places = vec![];
        let mut refs = vec![];
        let mut starts = vec![];
        for c in &compiled {
            starts.push(places.len());
            if let Some(Ok(p)) = c.as_ref().map(|c| &c.program) {
                survey(p, &mut places, &mut refs);
            }
        }
        // The distinct shareable parts by digest (the place of the first of each) and how many
        // times each is written.
        let mut found: std::collections::HashMap<u64, Vec<(usize, usize)>> = Default::default();
        for (i, place) in places.iter().enumerate() {
            if !place.shareable {
                continue;
            }
            let parts = found.entry(place.digest).or_default();
            match parts.iter_mut().find(|(j, _)| same_expr(refs[*j], refs[i])) {
                Some((_, n)) => *n += 1,
                None => parts.push((i, 1)),
            }
        }
        // In the order of their first places: the slots are the same from run to run.
        let mut shared: Vec<usize> = (found.into_values().flatten())
            .filter(|(_, n)| *n > 1)
            .map(|(i, _)| i)
            .collect();
        shared.sort_unstable();
        let slot_of: Vec<Option<usize>> = (places.iter().enumerate())
            .map(|(i, place)| {
                if !place.shareable {
                    return None;
                }
                (shared.iter())
                    .position(|j| places[*j].digest == place.digest && same_expr(refs[*j], refs[i]))
            })
            .collect();
        let first = (compiled.iter().flatten())
            .filter_map(|c| c.program.as_ref().ok())
            .map(slots_used)
            .max()
            .unwrap_or(0)
            + 1;
        let ends = starts.iter().skip(1).copied().chain([places.len()]);
        let programs = (compiled.into_iter().zip(starts.iter().copied().zip(ends)))
            .map(|(c, (from, to))| {
                let c = c?;
                if slot_of
                    .get(from..to)
                    .is_none_or(|s| s.iter().all(Option::is_none))
                {
                    return Some(Program::Whole(c));
                }
                let mut e = c.program.as_ref().ok()?.clone();
                let mut at = from;
                rewrite(&mut e, &mut at, &places, &slot_of, first);
                Some(Program::Rewritten(e))
            })
            .collect();
        static COMPILED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(1);
        Rules {
            programs,
            unique: rules.iter().map(|r| Unique::of(&r.source)).collect(),
            shared: first..first + shared.len(),
            id: COMPILED.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        }
    }

    /// Which rule set this is among those compiled in the process (0: none was).
    pub(super) fn id(&self) -> usize {
        self.id
    }

    /// Each rule's verdict on `this`, in the order of the rules (`None` for a rule not
    /// evaluated); `vars` is scratch space kept between values.
    pub(crate) fn eval<'a>(
        &'a self,
        this: &'a Node,
        schema: &'a Schema,
        vars: &mut Vec<V<'a>>,
        mut verdict: impl FnMut(usize, V<'a>),
    ) {
        vars.clear();
        vars.push(of_node(this, schema));
        if !self.shared.is_empty() {
            vars.resize(self.shared.start, V::Null);
            vars.resize(self.shared.end, V::Unset);
        }
        for (i, p) in self.programs.iter().enumerate() {
            if let Some(p) = p.as_ref().and_then(Program::get) {
                let known = self.unique.get(i).copied().flatten();
                match known.and_then(|u| u.verdict(this, schema)) {
                    Some(unique) => verdict(i, V::Bool(unique)),
                    None => verdict(i, ev(p, vars)),
                }
            }
        }
    }
}

/// Gateway's listener rules (gateway-api v1.2.1 and v1.4.1 standard channel CRDs,
/// `spec.listeners`): names are unique, and so are port, protocol and hostname together.
const LISTENER_NAMES: &str = "self.all(l1, self.exists_one(l2, l1.name == l2.name))";
const LISTENER_ADDRESSES: &str = "self.all(l1, self.exists_one(l2, l1.port == l2.port && l1.protocol == l2.protocol \
    && (has(l1.hostname) && has(l2.hostname) ? l1.hostname == l2.hostname \
    : !has(l1.hostname) && !has(l2.hostname))))";

/// Rules of the embedded schemas that say every item of a list has a key no other item has,
/// written as CEL says it: each item against every other (`self.all(l1, self.exists_one(l2,
/// …))`), as many evaluations as the square of the items (3,969 for #1085's Gateway of 63
/// listeners, twice). When every item's key reads without an error, the rule holds exactly when
/// the keys are distinct, which a set of them tells in one pass; otherwise the rule is evaluated
/// as written (an error in one item's key is the rule's error, whatever the others).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unique {
    /// Gateway `spec.listeners`: `name`.
    ListenerName,
    /// Gateway `spec.listeners`: `port`, `protocol` and `hostname` (or its absence).
    ListenerAddress,
}

impl Unique {
    /// The uniqueness `source` states, if it is one of these rules (gateway-api v1.2.1 and v1.4.1
    /// standard channel CRDs, `Gateway.spec.listeners`).
    fn of(source: &str) -> Option<Unique> {
        match source {
            LISTENER_NAMES => Some(Unique::ListenerName),
            LISTENER_ADDRESSES => Some(Unique::ListenerAddress),
            _ => None,
        }
    }

    /// Whether the items of `this` have distinct keys, read as the rule reads them (fields
    /// through their schema, `has` with defaults); `None` when a key is not read as a plain value
    /// of the type the rule compares (a field missing, another type): the rule is then evaluated
    /// as written.
    fn verdict(self, this: &Node, schema: &Schema) -> Option<bool> {
        let Value::Seq(items) = &this.value else {
            return None;
        };
        let item_schema = schema
            .items()
            .unwrap_or_else(|| ANY.get_or_init(Schema::any));
        let mut keys = std::collections::HashSet::with_capacity(items.len());
        let mut distinct = true;
        for item in items {
            let v = of_node(item, item_schema);
            let key = match self {
                Unique::ListenerName => match select(&v, "name") {
                    V::Str(name) => (0, name, None),
                    _ => return None,
                },
                Unique::ListenerAddress => {
                    let (V::Int(port), V::Str(protocol)) =
                        (select(&v, "port"), select(&v, "protocol"))
                    else {
                        return None;
                    };
                    let hostname = match has(&v, "hostname") {
                        V::Bool(false) => None,
                        V::Bool(true) => match select(&v, "hostname") {
                            V::Str(h) => Some(h),
                            _ => return None,
                        },
                        _ => return None,
                    };
                    (port, protocol, hostname)
                }
            };
            // Every key is read (an error in a later one decides), then the verdict is given.
            distinct &= keys.insert(key);
        }
        Some(distinct)
    }
}

/// The places of a rule outside its loops (a loop's own fields of outer variables are kept per
/// run of the loop by [`memoize`]); its range is read once per rule.
fn outside_loops(e: &E) -> Vec<&E> {
    match e {
        E::Lit(_) | E::Var(_) | E::Memo(..) => vec![],
        E::Select(o, _) | E::Has(o, _) | E::Matches(o, _) | E::InLits(o, _) => vec![&**o],
        E::Call(_, args) | E::List(args) => args.iter().collect(),
        E::Comp(c) => vec![&c.range],
    }
}

fn outside_loops_mut(e: &mut E) -> Vec<&mut E> {
    match e {
        E::Lit(_) | E::Var(_) | E::Memo(..) => vec![],
        E::Select(o, _) | E::Has(o, _) | E::Matches(o, _) | E::InLits(o, _) => vec![&mut **o],
        E::Call(_, args) | E::List(args) => args.iter_mut().collect(),
        E::Comp(c) => vec![&mut c.range],
    }
}

/// Record the places of `e` outside its loops, in order, each with its digest (equal parts have
/// equal digests), computed once from its parts'. Returns the digest of `e` and whether it reads
/// nothing but `self` (or nothing at all) and holds no loop: then its value is the same wherever
/// the rules of one value read it.
fn survey<'e>(e: &'e E, places: &mut Vec<Place>, refs: &mut Vec<&'e E>) -> (u64, bool) {
    let i = places.len();
    places.push(Place {
        digest: 0,
        shareable: false,
        len: 1,
    });
    refs.push(e);
    let mut h = Digest::default();
    h.word(discriminant_index(e));
    let mut only = match e {
        E::Lit(l) => {
            h.lit(l);
            true
        }
        E::Var(j) => {
            h.word(*j as u64);
            *j == 0
        }
        E::Select(_, f) | E::Has(_, f) => {
            h.text(f);
            true
        }
        E::Call(f, args) => {
            h.word(*f as u64);
            h.word(args.len() as u64);
            true
        }
        E::List(args) => {
            h.word(args.len() as u64);
            true
        }
        E::Matches(_, re) => {
            match re {
                Ok(re) => h.text(re.as_str()),
                Err(e) => h.text(e),
            }
            true
        }
        E::InLits(_, lits) => {
            lits.iter().for_each(|l| h.lit(l));
            true
        }
        E::Comp(_) | E::Memo(..) => false,
    };
    for c in outside_loops(e) {
        let (d, o) = survey(c, places, refs);
        h.word(d);
        only &= o;
    }
    let len = places.len() - i;
    if let Some(place) = places.get_mut(i) {
        *place = Place {
            digest: h.0,
            shareable: only && !matches!(e, E::Lit(_) | E::Var(_)),
            len,
        };
    }
    (h.0, only)
}

/// Wrap each place that has a slot in it (its parts are not visited), in [`survey`]'s order.
fn rewrite(e: &mut E, at: &mut usize, places: &[Place], slot_of: &[Option<usize>], first: usize) {
    let i = *at;
    if let Some(Some(k)) = slot_of.get(i) {
        *at += places.get(i).map_or(1, |p| p.len);
        let part = std::mem::replace(e, E::Lit(Lit::Null));
        *e = E::Memo(first + k, Box::new(part));
        return;
    }
    *at += 1;
    for c in outside_loops_mut(e) {
        rewrite(c, at, places, slot_of, first);
    }
}

/// A digest of a part's structure (FNV-1a over its words and texts).
struct Digest(u64);

impl Default for Digest {
    fn default() -> Self {
        Digest(0xcbf2_9ce4_8422_2325)
    }
}

impl Digest {
    fn byte(&mut self, b: u8) {
        self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    fn word(&mut self, w: u64) {
        w.to_le_bytes().into_iter().for_each(|b| self.byte(b));
    }
    fn text(&mut self, t: &str) {
        self.word(t.len() as u64);
        t.bytes().for_each(|b| self.byte(b));
    }
    fn lit(&mut self, l: &Lit) {
        let (kind, word, text) = lit_key(l);
        self.byte(kind);
        self.word(word);
        self.text(text);
    }
}

fn discriminant_index(e: &E) -> u64 {
    match e {
        E::Lit(_) => 0,
        E::Var(_) => 1,
        E::Select(..) => 2,
        E::Has(..) => 3,
        E::Call(..) => 4,
        E::Matches(..) => 5,
        E::List(_) => 6,
        E::InLits(..) => 7,
        E::Comp(_) => 8,
        E::Memo(..) => 9,
    }
}

/// A literal as a key for [`Digest`] and [`same_expr`] (a double by its bits).
fn lit_key(l: &Lit) -> (u8, u64, &str) {
    match l {
        Lit::Null => (0, 0, ""),
        Lit::Bool(b) => (1, u64::from(*b), ""),
        Lit::Int(i) => (2, *i as u64, ""),
        Lit::UInt(u) => (3, *u, ""),
        Lit::Double(d) => (4, d.to_bits(), ""),
        Lit::Str(s) => (5, 0, s),
    }
}

/// Whether two parts read only `self` and are written alike (loops are never shared).
fn same_expr(a: &E, b: &E) -> bool {
    match (a, b) {
        (E::Lit(x), E::Lit(y)) => lit_key(x) == lit_key(y),
        (E::Var(x), E::Var(y)) => x == y,
        (E::Select(x, f), E::Select(y, g)) | (E::Has(x, f), E::Has(y, g)) => {
            f == g && same_expr(x, y)
        }
        (E::Call(f, x), E::Call(g, y)) => {
            f == g && x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_expr(p, q))
        }
        (E::List(x), E::List(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_expr(p, q))
        }
        (E::Matches(x, r), E::Matches(y, q)) => {
            r.as_ref().map(regex::Regex::as_str) == q.as_ref().map(regex::Regex::as_str)
                && same_expr(x, y)
        }
        (E::InLits(x, l), E::InLits(y, m)) => {
            l.len() == m.len()
                && l.iter().zip(m).all(|(p, q)| lit_key(p) == lit_key(q))
                && same_expr(x, y)
        }
        _ => false,
    }
}

/// The highest slot an expression uses (variables, loop-invariant fields).
fn slots_used(e: &E) -> usize {
    let own = match e {
        E::Var(j) | E::Memo(j, _) => *j,
        E::Comp(c) => c.iter.max(c.accu),
        _ => 0,
    };
    let children: Vec<&E> = match e {
        E::Lit(_) | E::Var(_) => vec![],
        E::Select(o, _) | E::Has(o, _) | E::Matches(o, _) | E::InLits(o, _) | E::Memo(_, o) => {
            vec![&**o]
        }
        E::Call(_, args) | E::List(args) => args.iter().collect(),
        E::Comp(c) => vec![&c.range, &c.init, &c.cond, &c.step, &c.result],
    };
    children.into_iter().map(slots_used).fold(own, usize::max)
}

/// A property name as the rule writes it: Kubernetes escapes CEL reserved words as `__word__`
/// and `_`, `.`, `-`, `/` as `__underscores__`, `__dot__`, `__dash__`, `__slash__`.
fn unescape(field: &str) -> String {
    const RESERVED: &[&str] = &[
        "true",
        "false",
        "null",
        "in",
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
        "package",
        "namespace",
        "return",
        "var",
        "void",
        "while",
    ];
    if let Some(inner) = field.strip_prefix("__").and_then(|f| f.strip_suffix("__"))
        && RESERVED.contains(&inner)
    {
        return inner.to_string();
    }
    if !field.contains("__") {
        return field.to_string();
    }
    field
        .replace("__underscores__", "\u{0}")
        .replace("__dot__", ".")
        .replace("__dash__", "-")
        .replace("__slash__", "/")
        .replace('\u{0}', "__")
}

/// A value during evaluation.
#[derive(Clone, Debug)]
pub(crate) enum V<'a> {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Double(f64),
    Str(Cow<'a, str>),
    /// Nanoseconds.
    Duration(i128),
    /// A mapping or a sequence of the input (or of a schema default), with its schema.
    Node(&'a Node, &'a Schema),
    List(Rc<Vec<V<'a>>>),
    Err(Rc<str>),
    /// The slot of a loop-invariant field not read yet in this run of its comprehension (never
    /// the value of an expression).
    Unset,
}

fn err<'a>(m: impl Into<String>) -> V<'a> {
    V::Err(Rc::from(m.into()))
}

/// The value of a node read through its schema.
fn of_node<'a>(n: &'a Node, s: &'a Schema) -> V<'a> {
    match &n.value {
        Value::Null => V::Null,
        Value::Bool(b) => V::Bool(*b),
        Value::Int(i) if s.ty == Ty::Number => V::Double(*i as f64),
        Value::Int(i) => V::Int(*i),
        Value::Float(f) if s.ty == Ty::Integer && super::super::node::is_json_integer(*f) => {
            V::Int(*f as i64)
        }
        Value::Float(f) => V::Double(*f),
        Value::Str(x) => V::Str(Cow::Borrowed(x)),
        Value::Seq(_) | Value::Map(_) => V::Node(n, s),
    }
}

/// The evaluation of one rule against `self`; `vars` is scratch space kept between rules.
#[cfg(test)]
pub(crate) fn eval<'a>(
    e: &'a E,
    this: &'a Node,
    schema: &'a Schema,
    vars: &mut Vec<V<'a>>,
) -> V<'a> {
    vars.clear();
    vars.push(of_node(this, schema));
    ev(e, vars)
}

fn lit(l: &Lit) -> V<'_> {
    match l {
        Lit::Null => V::Null,
        Lit::Bool(b) => V::Bool(*b),
        Lit::Int(i) => V::Int(*i),
        Lit::UInt(u) => V::UInt(*u),
        Lit::Double(d) => V::Double(*d),
        Lit::Str(s) => V::Str(Cow::Borrowed(s)),
    }
}

/// A field of a mapping: the input's value, else the schema's default, else an error.
fn select<'a>(v: &V<'a>, field: &str) -> V<'a> {
    match v {
        V::Node(n, s) => {
            let Value::Map(entries) = &n.value else {
                return err(format!("no such key: {field}"));
            };
            let found = entries.iter().find(|e| same(&e.key.value, field));
            // A string or a boolean reads the same whatever its schema: its schema is not
            // looked up.
            if let Some(e) = found {
                match &e.value.value {
                    Value::Str(x) => return V::Str(Cow::Borrowed(x)),
                    Value::Bool(b) => return V::Bool(*b),
                    _ => {}
                }
            }
            let declared = s.property(field);
            let child = declared.or_else(|| s.additional());
            match found {
                Some(e)
                    if !matches!(e.value.value, Value::Null)
                        || child.is_some_and(|c| c.nullable) =>
                {
                    of_node(
                        &e.value,
                        child.unwrap_or_else(|| ANY.get_or_init(super::Schema::any)),
                    )
                }
                _ => match declared.and_then(|p| p.default.as_ref().map(|d| (d, p))) {
                    Some((d, p)) => of_node(d, p),
                    None => err(format!("no such key: {field}")),
                },
            }
        }
        V::Err(_) => v.clone(),
        _ => err(format!("no such key: {field}")),
    }
}

/// Whether two names are equal, their lengths and first bytes compared before their text (the
/// keys of a mapping are short and often of the same length).
pub(super) fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.as_bytes().first() == b.as_bytes().first() && eq(a, b)
}

/// Whether two texts are equal: short ones compared eight bytes at a time in place, without a
/// call to the C library's `memcmp` (the names and literals the rules compare are short).
#[inline]
fn eq(a: &str, b: &str) -> bool {
    eq_bytes(a.as_bytes(), b.as_bytes())
}

#[inline]
fn eq_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if a.len() > 32 {
        return a == b;
    }
    let (mut x, mut y) = (a.chunks_exact(8), b.chunks_exact(8));
    for (p, q) in x.by_ref().zip(y.by_ref()) {
        if p != q {
            return false;
        }
    }
    x.remainder().iter().zip(y.remainder()).all(|(p, q)| p == q)
}

/// Whether `s` holds `t` (`contains`): positions where `t`'s first byte is found compared in
/// place (the rules look for a few bytes in short paths; the standard library's two-way search
/// is set up for each call). A byte match of UTF-8 texts is a match of their characters.
fn contains(s: &str, t: &str) -> bool {
    let (h, n) = (s.as_bytes(), t.as_bytes());
    let Some((&first, _)) = n.split_first() else {
        return true;
    };
    if h.len() > 256 || n.len() > 16 {
        return s.contains(t);
    }
    let Some(last) = h.len().checked_sub(n.len()) else {
        return false;
    };
    let mut from = 0;
    while let Some(at) = (h.get(from..=last)).and_then(|x| x.iter().position(|c| *c == first)) {
        let at = from + at;
        if h.get(at..at + n.len()).is_some_and(|w| eq_bytes(w, n)) {
            return true;
        }
        from = at + 1;
    }
    false
}

static ANY: std::sync::OnceLock<Schema> = std::sync::OnceLock::new();

fn has(v: &V<'_>, field: &str) -> V<'static> {
    match v {
        V::Node(n, s) => match &n.value {
            Value::Map(entries) => V::Bool(
                entries
                    .iter()
                    .any(|e| same(&e.key.value, field) && !matches!(e.value.value, Value::Null))
                    || s.property(field).is_some_and(|p| p.default.is_some()),
            ),
            _ => err("invalid type for field selection"),
        },
        V::Err(e) => V::Err(e.clone()),
        _ => err("invalid type for field selection"),
    }
}

fn truth(v: &V<'_>) -> Option<bool> {
    match v {
        V::Bool(b) => Some(*b),
        _ => None,
    }
}

/// The value of an operand: a literal, a variable or a part already read is taken here, without
/// a call to [`ev`] (whose frame every other expression sets up); most operands are one of them.
#[inline(always)]
fn arg<'a>(e: &'a E, vars: &mut Vec<V<'a>>) -> V<'a> {
    match e {
        E::Lit(l) => return lit(l),
        E::Var(i) | E::Memo(i, _) => match vars.get(*i) {
            Some(V::Unset) | None => {}
            Some(v) => return v.clone(),
        },
        _ => {}
    }
    ev(e, vars)
}

fn ev<'a>(e: &'a E, vars: &mut Vec<V<'a>>) -> V<'a> {
    match e {
        E::Lit(l) => lit(l),
        E::InLits(x, lits) => match arg(x, vars) {
            V::Err(e) => V::Err(e),
            v => V::Bool(lits.iter().any(|l| equal(&v, &lit(l)))),
        },
        E::Var(i) => vars
            .get(*i)
            .cloned()
            .unwrap_or_else(|| err("unbound variable")),
        // A field of a variable is read from the variable in place (not from a copy of it).
        E::Select(o, f) => match o.as_ref() {
            E::Var(i) => vars
                .get(*i)
                .map_or_else(|| err("unbound variable"), |v| select(v, f)),
            _ => select(&ev(o, vars), f),
        },
        E::Has(o, f) => match o.as_ref() {
            E::Var(i) => vars
                .get(*i)
                .map_or_else(|| err("unbound variable"), |v| has(v, f)),
            _ => has(&ev(o, vars), f),
        },
        E::List(items) => V::List(Rc::new(items.iter().map(|x| arg(x, vars)).collect())),
        E::Matches(t, re) => match (arg(t, vars), re) {
            (V::Str(s), Ok(re)) => V::Bool(re.is_match(&s)),
            (V::Err(e), _) => V::Err(e),
            (_, Err(e)) => err(e.clone()),
            _ => err("no such overload: matches"),
        },
        E::Comp(c) => comprehension(c, vars),
        E::Memo(slot, x) => match vars.get(*slot) {
            Some(V::Unset) => {
                let v = ev(x, vars);
                if let Some(m) = vars.get_mut(*slot) {
                    *m = v.clone();
                }
                v
            }
            Some(v) => v.clone(),
            None => ev(x, vars),
        },
        E::Call(f, args) => call(*f, args, vars),
    }
}

// Kept out of `ev` (called once per comprehension, not per node): inlined, it enlarged the frame
// every node's evaluation sets up (about 1 % of the evaluator's instructions on kuadrant-operator
// #1085's shape).
#[inline(never)]
fn comprehension<'a>(c: &'a Comp, vars: &mut Vec<V<'a>>) -> V<'a> {
    let range = ev(&c.range, vars);
    let len = match &range {
        V::Node(n, _) => match &n.value {
            Value::Seq(items) => items.len(),
            Value::Map(entries) => entries.len(),
            _ => return err("expression does not evaluate to a list or map"),
        },
        V::List(l) => l.len(),
        V::Err(_) => return range,
        _ => return err("expression does not evaluate to a list or map"),
    };
    // The i-th element of the range, read from the tree as it is reached (no list is built).
    let item = |i: usize| -> V<'a> {
        match &range {
            V::Node(n, s) => match &n.value {
                Value::Seq(items) => {
                    let schema = s.items().unwrap_or_else(|| ANY.get_or_init(Schema::any));
                    items.get(i).map_or(V::Null, |x| of_node(x, schema))
                }
                Value::Map(entries) => entries
                    .get(i)
                    .map_or(V::Null, |e| V::Str(Cow::Borrowed(e.key.value.as_str()))),
                _ => V::Null,
            },
            V::List(l) => l.get(i).cloned().unwrap_or(V::Null),
            _ => V::Null,
        }
    };
    let init = arg(&c.init, vars);
    let depth = vars.len();
    // The loop's variables, and the slots of its loop-invariant fields (above every other slot:
    // the vector only grows here, and is cut back to its length when the comprehension ends).
    let need = (c.memos.iter()).fold(c.iter + 1, |n, m| n.max(m + 1));
    if vars.len() < need {
        vars.resize(need, V::Null);
    }
    for m in &c.memos {
        vars[*m] = V::Unset;
    }
    vars[c.accu] = init;
    for i in 0..len {
        vars[c.iter] = item(i);
        let go = arg(&c.cond, vars);
        if matches!(go, V::Bool(false)) {
            break;
        }
        let next = arg(&c.step, vars);
        vars[c.accu] = next;
    }
    let out = arg(&c.result, vars);
    vars.truncate(depth);
    out
}

fn call<'a>(f: F, args: &'a [E], vars: &mut Vec<V<'a>>) -> V<'a> {
    match f {
        F::And | F::Or => {
            let (Some(a), Some(b)) = (args.first(), args.get(1)) else {
                return err("arity");
            };
            let short = f == F::Or;
            let x = arg(a, vars);
            if truth(&x) == Some(short) {
                return V::Bool(short);
            }
            let y = arg(b, vars);
            if truth(&y) == Some(short) {
                return V::Bool(short);
            }
            match (truth(&x), truth(&y)) {
                (Some(_), Some(_)) => V::Bool(!short),
                _ => match (x, y) {
                    (V::Err(e), _) | (_, V::Err(e)) => V::Err(e),
                    _ => err("no such overload"),
                },
            }
        }
        F::Cond => {
            let (Some(c), Some(a), Some(b)) = (args.first(), args.get(1), args.get(2)) else {
                return err("arity");
            };
            match arg(c, vars) {
                V::Bool(true) => arg(a, vars),
                V::Bool(false) => arg(b, vars),
                V::Err(e) => V::Err(e),
                _ => err("no such overload"),
            }
        }
        F::NotStrictlyFalse => match args.first().map(|a| arg(a, vars)) {
            Some(V::Bool(false)) => V::Bool(false),
            _ => V::Bool(true),
        },
        _ => {
            // At most two arguments (a receiver and one argument, or two operands): no list is
            // built for them.
            let a = match args.first().map(|x| arg(x, vars)) {
                Some(e @ V::Err(_)) => return e,
                Some(v) => v,
                None => V::Null,
            };
            let b = match args.get(1).map(|x| arg(x, vars)) {
                Some(e @ V::Err(_)) => return e,
                Some(v) => v,
                None => V::Null,
            };
            apply(f, a, b)
        }
    }
}

fn size(v: &V<'_>) -> V<'static> {
    match v {
        V::Str(s) => V::Int(s.chars().count() as i64),
        V::List(l) => V::Int(l.len() as i64),
        V::Node(n, _) => match &n.value {
            Value::Seq(x) => V::Int(x.len() as i64),
            Value::Map(x) => V::Int(x.len() as i64),
            _ => err("no such overload: size"),
        },
        _ => err("no such overload: size"),
    }
}

fn apply<'a>(f: F, a: V<'a>, b: V<'a>) -> V<'a> {
    match f {
        F::Not => match a {
            V::Bool(x) => V::Bool(!x),
            _ => err("no such overload: !_"),
        },
        F::Eq => V::Bool(equal(&a, &b)),
        F::Ne => V::Bool(!equal(&a, &b)),
        F::Lt | F::Le | F::Gt | F::Ge => match compare(&a, &b) {
            Some(o) => V::Bool(match f {
                F::Lt => o.is_lt(),
                F::Le => o.is_le(),
                F::Gt => o.is_gt(),
                _ => o.is_ge(),
            }),
            None => err("no such overload"),
        },
        F::Add | F::Sub | F::Mul | F::Div | F::Mod => arith(f, a, b),
        F::Neg => match a {
            V::Int(i) => i
                .checked_neg()
                .map_or_else(|| err("integer overflow"), V::Int),
            V::Double(d) => V::Double(-d),
            _ => err("no such overload: -_"),
        },
        F::Size => size(&a),
        F::Index => index(&a, &b),
        F::In => match &b {
            V::List(l) => V::Bool(l.iter().any(|x| equal(x, &a))),
            V::Node(n, s) => match &n.value {
                Value::Seq(items) => {
                    let item = s.items().unwrap_or_else(|| ANY.get_or_init(Schema::any));
                    V::Bool(items.iter().any(|x| equal(&of_node(x, item), &a)))
                }
                Value::Map(_) => match &a {
                    V::Str(k) => has(&b, k),
                    _ => V::Bool(false),
                },
                _ => err("no such overload: @in"),
            },
            _ => err("no such overload: @in"),
        },
        F::Contains | F::StartsWith | F::EndsWith => match (&a, &b) {
            (V::Str(s), V::Str(t)) => V::Bool(match f {
                F::Contains => contains(s, t),
                F::StartsWith => {
                    (s.as_bytes().get(..t.len())).is_some_and(|x| eq_bytes(x, t.as_bytes()))
                }
                _ => (s.len().checked_sub(t.len()))
                    .and_then(|from| s.as_bytes().get(from..))
                    .is_some_and(|x| eq_bytes(x, t.as_bytes())),
            }),
            _ => err("no such overload"),
        },
        F::Matches => match (&a, &b) {
            (V::Str(s), V::Str(p)) => match regex::Regex::new(p) {
                Ok(re) => V::Bool(re.is_match(s)),
                Err(e) => err(e.to_string()),
            },
            _ => err("no such overload: matches"),
        },
        F::Split => match (&a, &b) {
            (V::Str(s), V::Str(sep)) => V::List(Rc::new(
                s.split(sep.as_ref())
                    .map(|x| V::Str(Cow::Owned(x.to_string())))
                    .collect(),
            )),
            _ => err("no such overload: split"),
        },
        F::Duration => match &a {
            V::Str(s) => crate::model::duration::parse(s).map_or_else(
                || err(format!("invalid duration: {s}")),
                |ns| V::Duration(ns as i128),
            ),
            V::Duration(_) => a,
            _ => err("no such overload: duration"),
        },
        F::And | F::Or | F::Cond | F::NotStrictlyFalse => err("internal"),
    }
}

fn index<'a>(a: &V<'a>, b: &V<'a>) -> V<'a> {
    match (a, b) {
        (V::List(l), V::Int(i)) => usize::try_from(*i)
            .ok()
            .and_then(|i| l.get(i).cloned())
            .unwrap_or_else(|| err(format!("index out of bounds: {i}"))),
        (V::Node(n, s), V::Int(i)) => match &n.value {
            Value::Seq(items) => {
                let item = s.items().unwrap_or_else(|| ANY.get_or_init(Schema::any));
                usize::try_from(*i)
                    .ok()
                    .and_then(|x| items.get(x))
                    .map_or_else(
                        || err(format!("index out of bounds: {i}")),
                        |x| of_node(x, item),
                    )
            }
            _ => err("no such overload: _[_]"),
        },
        (V::Node(..), V::Str(k)) => select(a, k),
        _ => err("no such overload: _[_]"),
    }
}

fn arith<'a>(f: F, a: V<'a>, b: V<'a>) -> V<'a> {
    match (a, b) {
        (V::Int(x), V::Int(y)) => {
            let r = match f {
                F::Add => x.checked_add(y),
                F::Sub => x.checked_sub(y),
                F::Mul => x.checked_mul(y),
                F::Div if y == 0 => return err("division by zero"),
                F::Div => x.checked_div(y),
                F::Mod if y == 0 => return err("modulus by zero"),
                _ => x.checked_rem(y),
            };
            r.map_or_else(|| err("integer overflow"), V::Int)
        }
        (V::Double(x), V::Double(y)) => V::Double(match f {
            F::Add => x + y,
            F::Sub => x - y,
            F::Mul => x * y,
            F::Div => x / y,
            _ => return err("no such overload: _%_"),
        }),
        (V::Str(x), V::Str(y)) if f == F::Add => V::Str(Cow::Owned(format!("{x}{y}"))),
        (V::List(x), V::List(y)) if f == F::Add => {
            let mut out = x.as_ref().clone();
            out.extend(y.iter().cloned());
            V::List(Rc::new(out))
        }
        (V::Duration(x), V::Duration(y)) if matches!(f, F::Add | F::Sub) => {
            V::Duration(if f == F::Add { x + y } else { x - y })
        }
        _ => err("no such overload"),
    }
}

fn number(v: &V<'_>) -> Option<f64> {
    match v {
        V::Int(i) => Some(*i as f64),
        V::UInt(u) => Some(*u as f64),
        V::Double(d) => Some(*d),
        _ => None,
    }
}

fn compare(a: &V<'_>, b: &V<'_>) -> Option<std::cmp::Ordering> {
    match (a, b) {
        (V::Int(x), V::Int(y)) => Some(x.cmp(y)),
        (V::Str(x), V::Str(y)) => Some(x.cmp(y)),
        (V::Bool(x), V::Bool(y)) => Some(x.cmp(y)),
        (V::Duration(x), V::Duration(y)) => Some(x.cmp(y)),
        _ => number(a)?.partial_cmp(&number(b)?),
    }
}

/// CEL equality (heterogeneous: values of different types are unequal; numbers compare across
/// int, uint and double).
fn equal(a: &V<'_>, b: &V<'_>) -> bool {
    if let (Some(x), Some(y)) = (number(a), number(b)) {
        return x == y;
    }
    match (a, b) {
        (V::Null, V::Null) => true,
        (V::Bool(x), V::Bool(y)) => x == y,
        (V::Str(x), V::Str(y)) => eq(x, y),
        (V::Duration(x), V::Duration(y)) => x == y,
        (V::List(_) | V::Node(..), V::List(_) | V::Node(..)) => match (elements(a), elements(b)) {
            (Some(x), Some(y)) => x.len() == y.len() && x.iter().zip(&y).all(|(p, q)| equal(p, q)),
            (None, None) => match (a, b) {
                (V::Node(x, _), V::Node(y, _)) => x.value == y.value,
                _ => false,
            },
            _ => false,
        },
        _ => false,
    }
}

fn elements<'a>(v: &V<'a>) -> Option<Vec<V<'a>>> {
    match v {
        V::List(l) => Some(l.as_ref().clone()),
        V::Node(n, s) => match &n.value {
            Value::Seq(items) => {
                let item = s.items().unwrap_or_else(|| ANY.get_or_init(Schema::any));
                Some(items.iter().map(|x| of_node(x, item)).collect())
            }
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `schemas/rules.json` is what the parser and the compiler give for every rule of both
    /// releases' schemas, and reads back as written. Stale? Run
    /// `UPDATE_EXPECT=1 cargo test --lib precompiled_rules` to rewrite it, and review the diff.
    #[test]
    fn precompiled_rules_are_the_parsers() {
        use crate::model::KuadrantVersion;
        fn walk(s: &Schema, out: &mut std::collections::BTreeSet<String>) {
            out.extend(s.rules.iter().map(|r| r.source.clone()));
            for (_, c) in &s.properties {
                walk(c.get(), out);
            }
            for c in s.items().into_iter().chain(s.additional()) {
                walk(c, out);
            }
        }
        let mut sources = std::collections::BTreeSet::new();
        for v in [KuadrantVersion::V1_4, KuadrantVersion::V1_5] {
            for k in &super::super::Release::of(v).kinds {
                for version in &k.versions {
                    walk(version.schema(), &mut sources);
                }
            }
        }
        assert!(sources.len() > 80, "{} rules", sources.len());
        let mut text = String::from("{\n");
        for (i, source) in sources.iter().enumerate() {
            let compiled = serde_json::to_string(&Compiled::parse(source)).unwrap();
            // It reads back as it was written (a pattern compiled again gives its own text).
            let back: Compiled = serde_json::from_str(&compiled).unwrap();
            assert_eq!(serde_json::to_string(&back).unwrap(), compiled, "{source}");
            let sep = if i + 1 == sources.len() { "" } else { "," };
            text.push_str(&format!(
                "{}: {compiled}{sep}\n",
                serde_json::to_string(source).unwrap()
            ));
        }
        text.push_str("}\n");
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/schemas/rules.json");
        if std::env::var_os("UPDATE_EXPECT").is_some() && std::env::var_os("CI").is_none() {
            std::fs::write(path, &text).unwrap();
        }
        assert!(
            PRECOMPILED == text,
            "stale schemas/rules.json: run UPDATE_EXPECT=1 cargo test --lib precompiled_rules"
        );
        // Every rule is found there.
        for source in &sources {
            assert!(precompiled(source).is_some(), "{source}");
        }
    }

    /// A rule whose loops read fields of outer variables once per run of the loop gives what the
    /// rule as written gives (the same evaluator without [`memoize`]), on lists that pass and
    /// fail, with fields missing (errors) and defaulted.
    #[test]
    fn memoized_loops_agree_with_the_rule_as_written() {
        let rules = [
            // Gateway's listener rules.
            LISTENER_NAMES,
            LISTENER_ADDRESSES,
            // Outer fields in nested, sibling and filtering loops; a chain; errors kept and
            // absorbed.
            "self.all(a, self.all(b, a.t.p == b.t.p) && self.exists(c, c.name == a.name))",
            "self.exists_one(a, a.missing == 1) || self.all(a, self.all(b, a.port + b.port > 0))",
            "self.filter(a, self.exists(b, b.port == a.port + 1)).size() == 1",
            "self.all(a, self.exists(b, has(b.t) && has(a.t) && b.t.p == a.t.p))",
        ];
        let lists = [
            serde_json::json!([
                {"name": "a", "port": 80, "protocol": "HTTP", "hostname": "x", "t": {"p": 1}},
                {"name": "b", "port": 81, "protocol": "HTTP", "t": {"p": 1}},
                {"name": "c", "port": 80, "protocol": "HTTPS", "hostname": "y", "t": {"p": 1}}
            ]),
            serde_json::json!([
                {"name": "a", "port": 80, "protocol": "HTTP", "hostname": "x", "t": {"p": 1}},
                {"name": "a", "port": 80, "protocol": "HTTP", "hostname": "x", "t": {"p": 2}}
            ]),
            serde_json::json!([
                {"name": "a", "port": 80, "protocol": "HTTP"},
                {"name": "b", "port": 80, "protocol": "HTTP"},
                {"name": "c", "protocol": "HTTP", "t": {"q": 1}}
            ]),
            serde_json::json!([{"name": "a", "port": 1}]),
            serde_json::json!([]),
        ];
        let schema = Schema::any();
        let mut memoized = 0;
        for rule in rules {
            let plain = Compiled::parse(rule).program.unwrap();
            let mut memo = Compiled::parse(rule).program.unwrap();
            memoize(&mut memo);
            let text = format!("{memo:?}");
            memoized += usize::from(text.contains("Memo("));
            for list in &lists {
                let this = Node::from_json(list, crate::source::Span::default());
                let (mut v1, mut v2) = (Vec::new(), Vec::new());
                let want = format!("{:?}", eval(&plain, &this, &schema, &mut v1));
                let got = format!("{:?}", eval(&memo, &this, &schema, &mut v2));
                assert_eq!(got, want, "{rule} on {list}");
            }
        }
        // Every rule has a field of an outer variable in a loop.
        assert_eq!(memoized, rules.len());
    }

    /// The uniqueness rules decided from a set of keys give the verdict of the rule evaluated
    /// as written, on lists of listeners with distinct and repeated keys, fields missing, null,
    /// or of another type (where the set gives no verdict and the rule is evaluated).
    #[test]
    fn unique_keys_agree_with_the_rules_as_written() {
        let rules = [LISTENER_NAMES, LISTENER_ADDRESSES];
        let names = [
            json!("a"),
            json!("b"),
            json!("c"),
            json!(1),
            serde_json::Value::Null,
        ];
        let ports = [
            json!(80),
            json!(81),
            json!("80"),
            json!(80.5),
            serde_json::Value::Null,
        ];
        let protocols = [json!("HTTP"), json!("HTTPS"), json!(7)];
        let hostnames = [json!("x"), json!("y"), serde_json::Value::Null, json!(5)];
        let mut seed = 7u64;
        let mut pick = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        let schema = Schema::any();
        let (mut decided, mut distinct, mut repeated) = (0, 0, 0);
        for _ in 0..3000 {
            let len = pick(7);
            let list: Vec<serde_json::Value> = (0..len)
                .map(|_| {
                    let mut l = serde_json::Map::new();
                    // Mostly well-formed, sometimes a field missing or of another type.
                    let odd = pick(6) == 0;
                    for (key, values, absent) in [
                        ("name", &names[..], 5),
                        ("port", &ports[..], 5),
                        ("protocol", &protocols[..], 4),
                        ("hostname", &hostnames[..], 3),
                    ] {
                        let i = if odd { pick(values.len() + 1) } else { pick(2) };
                        if key == "hostname" && pick(absent) == 0 {
                            continue;
                        }
                        if let Some(v) = values.get(i) {
                            l.insert(key.into(), v.clone());
                        }
                    }
                    serde_json::Value::Object(l)
                })
                .collect();
            let this = Node::from_json(
                &serde_json::Value::Array(list.clone()),
                crate::source::Span::default(),
            );
            for rule in rules {
                let u = Unique::of(rule).unwrap();
                let program = Compiled::parse(rule).program.unwrap();
                let want = eval(&program, &this, &schema, &mut Vec::new());
                if let Some(got) = u.verdict(&this, &schema) {
                    assert_eq!(
                        format!("{:?}", V::Bool(got)),
                        format!("{want:?}"),
                        "{rule} on {list:?}"
                    );
                    decided += 1;
                    if got { distinct += 1 } else { repeated += 1 }
                }
            }
        }
        // Both verdicts are met, and most lists are decided from their keys.
        assert!(
            distinct > 500 && repeated > 500 && decided > 3000,
            "{decided} {distinct} {repeated}"
        );
    }

    /// A schema node's rules evaluated together, with the parts they share evaluated once per
    /// value, give each rule's verdict as written (each rule evaluated on its own), on values
    /// that pass, fail, lack fields (errors), and read defaults.
    #[test]
    fn shared_parts_agree_with_the_rules_as_written() {
        let sets: &[&[&str]] = &[
            // HTTPRoute's path rules (gateway-api v1.2.1 standard channel CRD,
            // spec.rules[].matches[].path).
            &[
                "(self.type in ['Exact','PathPrefix']) ? self.value.startsWith('/') : true",
                "(self.type in ['Exact','PathPrefix']) ? !self.value.contains('//') : true",
                "(self.type in ['Exact','PathPrefix']) ? !self.value.contains('%2F') : true",
                "(self.type in ['Exact','PathPrefix']) ? !self.value.endsWith('/..') : true",
                "self.type in ['Exact','PathPrefix'] || self.type == 'RegularExpression'",
                "(self.type in ['Exact','PathPrefix']) ? self.value.matches(r\"\"\"^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$\"\"\") : true",
            ],
            // RateLimitPolicy's rules on spec (kuadrant-operator v1.5.2 CRD).
            &[
                "!(has(self.defaults) && has(self.limits))",
                "!(has(self.defaults) && has(self.overrides))",
                "!(has(self.overrides) || has(self.defaults)) ? has(self.limits) && size(self.limits) > 0 : true",
                "has(self.defaults) ? has(self.defaults.limits) && size(self.defaults.limits) > 0 : true",
            ],
            // Shared parts beside loops, in a loop's range, and inside a loop (kept per run of
            // the loop, not shared); a part that fails.
            &[
                "(self.size() > 0 ? self[0].size() : 0) + (self.size() > 1 ? self[1].size() : 0) <= 3",
                "self.size() < 3 && self.all(x, x.size() <= self.size())",
                "self.filter(x, self.size() > 1).size() == self.size() || self[5].size() == 0",
                "self[5].size() == 0 || self.exists(x, x.size() == self.size())",
            ],
        ];
        let values = [
            serde_json::json!({"type": "PathPrefix", "value": "/a/b"}),
            serde_json::json!({"type": "Exact", "value": "/a//b%2F/.."}),
            serde_json::json!({"type": "RegularExpression", "value": "^/x"}),
            serde_json::json!({"type": "PathPrefix"}),
            serde_json::json!({"value": "/"}),
            serde_json::json!({"defaults": {"limits": {"a": 1}}, "limits": {}}),
            serde_json::json!({"overrides": {}, "defaults": {"limits": {}}}),
            serde_json::json!({"limits": {"x": {}}}),
            serde_json::json!({}),
            serde_json::json!([[1], [2, 3]]),
            serde_json::json!([[1, 2, 3], [], [4]]),
            serde_json::json!([]),
            serde_json::json!(["ab", [1]]),
        ];
        let schema = Schema::any();
        for set in sets {
            let rules: Vec<Rule> = (set.iter())
                .filter_map(|r| Rule::compile(&serde_json::json!({ "rule": r })))
                .collect();
            let together = Rules::compile(&rules);
            assert!(format!("{together:?}").contains("Memo("), "{set:?}");
            for value in &values {
                let this = Node::from_json(value, crate::source::Span::default());
                let mut want = vec![];
                let mut vars = Vec::new();
                for r in &rules {
                    let program = r.program().as_ref().unwrap();
                    want.push(format!("{:?}", eval(program, &this, &schema, &mut vars)));
                }
                let mut got = vec![];
                together.eval(&this, &schema, &mut vars, |i, v| {
                    got.push(format!("{i} {v:?}"));
                });
                let want: Vec<String> = (want.iter().enumerate())
                    .map(|(i, v)| format!("{i} {v}"))
                    .collect();
                assert_eq!(got, want, "{set:?} on {value}");
            }
        }
    }

    /// The text comparisons in place give what the standard library's give, on texts of
    /// several lengths and of characters of several bytes.
    #[test]
    fn text_comparisons_are_the_standard_librarys() {
        let texts = [
            "",
            "/",
            "//",
            "a",
            "/a/b",
            "/a//b",
            "%2F",
            "/..",
            "/.",
            "é",
            "/é/",
            "é/..",
            "aé",
            "/route-0/op0",
            "exactly-eight-byte",
            "abcdefghabcdefghabcdefghabcdefghabcdefgh!",
            "abcdefghabcdefghabcdefghabcdefghabcdefgh?",
        ];
        for s in texts {
            for t in texts {
                assert_eq!(eq(s, t), s == t, "{s:?} == {t:?}");
                assert_eq!(contains(s, t), s.contains(t), "{s:?} contains {t:?}");
                let (a, b) = (V::Str(Cow::Borrowed(s)), V::Str(Cow::Borrowed(t)));
                let starts = apply(F::StartsWith, a.clone(), b.clone());
                let ends = apply(F::EndsWith, a, b);
                assert!(
                    matches!(starts, V::Bool(x) if x == s.starts_with(t)),
                    "{s:?} {t:?}"
                );
                assert!(
                    matches!(ends, V::Bool(x) if x == s.ends_with(t)),
                    "{s:?} {t:?}"
                );
            }
        }
        let long = "ab".repeat(200);
        assert!(contains(&long, "ba") && !contains(&long, "aa"));
    }

    /// The evaluator's semantics on the functions and macros the CRDs' rules use. Each expected
    /// value is what Google's CEL (cel-cpp, through cel-expr-python 0.1.3, with its strings
    /// extension) gives for the same expression and `self`: errors absorbed by `&&`, `||` and
    /// `exists`, kept by `all` when nothing is false and by `exists_one`.
    #[test]
    fn agrees_with_cel_cpp() {
        let this = Node::from_json(
            &serde_json::json!({"a": [{"x": 1}, {"y": 2}], "s": "a/b/c", "n": 3}),
            crate::source::Span::default(),
        );
        let schema = Schema::any();
        let cases: &[(&str, Option<V<'static>>)] = &[
            ("self.missing == 1 && false", Some(V::Bool(false))),
            ("false && self.missing == 1", Some(V::Bool(false))),
            ("self.missing == 1 || true", Some(V::Bool(true))),
            ("self.a.all(e, e.x == 1)", None),
            ("self.a.all(e, e.x == 2)", Some(V::Bool(false))),
            ("self.a.exists(e, e.x == 1)", Some(V::Bool(true))),
            ("self.a.exists_one(e, e.x == 1)", None),
            ("self.s.split('/')[1] == 'b'", Some(V::Bool(true))),
            ("self.s.split('/').size()", Some(V::Int(3))),
            ("size(self.s)", Some(V::Int(5))),
            ("self.n in [1, 3]", Some(V::Bool(true))),
            ("self.n + 1 > 3", Some(V::Bool(true))),
            ("duration('1h30m') > duration('90m')", Some(V::Bool(false))),
            (
                "'abc'.contains('b') && 'abc'.startsWith('a') && 'abc'.endsWith('c')",
                Some(V::Bool(true)),
            ),
            ("self.a.filter(e, has(e.x)).size()", Some(V::Int(1))),
            ("has(self.a)", Some(V::Bool(true))),
            ("has(self.zz)", Some(V::Bool(false))),
        ];
        for (src, want) in cases {
            let rule = Rule::compile(&serde_json::json!({"rule": src})).unwrap();
            let program = rule.program().as_ref().unwrap();
            let mut vars = Vec::new();
            let got = eval(program, &this, &schema, &mut vars);
            match (want, &got) {
                (None, V::Err(_)) => {}
                (Some(w), g) => assert!(equal(w, g), "{src}: {g:?}"),
                (None, g) => panic!("{src}: {g:?}, expected an error"),
            }
        }
    }
}
