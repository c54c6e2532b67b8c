//! The type checker: a port of the decisions of cel-go v0.23.2 checker/checker.go (identifier and
//! qualified-name resolution, field selection, overload resolution with fresh type variables,
//! aggregate literals joined to `dyn`, comprehension ranges and loop types) and, once a check
//! succeeds, ext/formatting.go's `stringFormatValidator` (the check-time validation of
//! `'<literal>'.format([...])`). Errors are recorded in cel-go's order with the expression id whose
//! start position locates them.

use std::collections::HashMap;

use ::cel::common::ast::{
    ComprehensionExpr, EntryExpr, Expr, IdedExpr, ListExpr, LiteralValue, MapExpr, StructExpr,
};

use super::env::{functions, global_ident};
use super::types::{Mapping, Type, assignable, assignable_list, most_general, substitute};

/// An error: the expression id that locates it and the message.
pub(crate) type Found = (u64, String);

pub(crate) struct Checker {
    auth: bool,
    ratelimit: bool,
    types: HashMap<u64, Type>,
    mappings: Mapping,
    scopes: Vec<Vec<(String, Type)>>,
    counter: usize,
    pub errors: Vec<Found>,
}

impl Checker {
    pub(crate) fn new(auth: bool, ratelimit: bool) -> Self {
        Checker {
            auth,
            ratelimit,
            types: HashMap::new(),
            mappings: Mapping::default(),
            scopes: Vec::new(),
            counter: 0,
            errors: Vec::new(),
        }
    }

    fn fresh(&mut self) -> Type {
        let t = Type::Param(format!("_var{}", self.counter));
        self.counter += 1;
        t
    }

    fn set(&mut self, e: &IdedExpr, t: Type) {
        self.types.entry(e.id).or_insert(t);
    }

    fn get(&self, e: &IdedExpr) -> Type {
        self.types.get(&e.id).cloned().unwrap_or(Type::Error)
    }

    /// The checked type after the final substitution (unbound variables become `dyn`).
    fn final_type(&self, e: &IdedExpr) -> Type {
        substitute(&self.mappings, &self.get(e), true)
    }

    fn is_assignable(&mut self, t1: &Type, t2: &Type) -> bool {
        match assignable(&self.mappings, t1, t2) {
            Some(m) => {
                self.mappings = m;
                true
            }
            None => false,
        }
    }

    fn lookup_ident(&self, name: &str) -> Option<Type> {
        let name = name.strip_prefix('.').unwrap_or(name);
        for scope in self.scopes.iter().rev() {
            if let Some((_, t)) = scope.iter().rev().find(|(n, _)| n == name) {
                return Some(t.clone());
            }
        }
        global_ident(name, self.auth, self.ratelimit)
    }

    fn undeclared(&mut self, e: &IdedExpr, name: &str) {
        self.errors.push((
            e.id,
            format!("undeclared reference to '{name}' (in container '')"),
        ));
    }

    fn mismatch(&mut self, id: u64, expected: &Type, actual: &Type) {
        self.errors.push((
            id,
            format!("expected type '{expected}' but found '{actual}'"),
        ));
    }

    pub(crate) fn check(&mut self, e: &IdedExpr) {
        match &e.expr {
            Expr::Unspecified => self.set(e, Type::Error),
            Expr::Literal(l) => {
                let t = match l {
                    LiteralValue::Boolean(_) => Type::Bool,
                    LiteralValue::Bytes(_) => Type::Bytes,
                    LiteralValue::Double(_) => Type::Double,
                    LiteralValue::Int(_) => Type::Int,
                    LiteralValue::Null => Type::Null,
                    LiteralValue::String(_) => Type::String,
                    LiteralValue::UInt(_) => Type::Uint,
                };
                self.set(e, t);
            }
            Expr::Ident(name) => match self.lookup_ident(name) {
                Some(t) => self.set(e, t),
                None => {
                    self.set(e, Type::Error);
                    self.undeclared(e, name);
                }
            },
            Expr::Select(s) => {
                if !s.test
                    && let Some(q) = qualified_name(e)
                    && let Some(t) = self.lookup_ident(&q)
                {
                    self.set(e, t);
                    return;
                }
                let mut result = self.select_field(e, &s.operand);
                if s.test {
                    result = Type::Bool;
                }
                let t = substitute(&self.mappings, &result, false);
                self.set(e, t);
            }
            Expr::Call(c) => self.check_call(e, &c.func_name, c.target.as_deref(), &c.args),
            Expr::List(l) => self.check_list(e, l),
            Expr::Map(m) => self.check_map(e, m),
            Expr::Struct(s) => self.check_struct(e, s),
            Expr::Comprehension(c) => self.check_comprehension(e, c),
        }
    }

    /// A list literal: its element types joined (`checkCreateList`).
    fn check_list(&mut self, e: &IdedExpr, l: &ListExpr) {
        let mut elems: Option<Type> = None;
        for x in &l.elements {
            self.check(x);
            let t = self.get(x);
            elems = Some(self.join(elems, t));
        }
        let t = match elems {
            Some(t) => t,
            None => self.fresh(),
        };
        self.set(e, Type::list(t));
    }

    /// A map literal: its key and value types joined (`checkCreateMap`).
    fn check_map(&mut self, e: &IdedExpr, m: &MapExpr) {
        let mut keys: Option<Type> = None;
        let mut values: Option<Type> = None;
        for en in &m.entries {
            if let EntryExpr::MapEntry(me) = &en.expr {
                self.check(&me.key);
                let k = self.get(&me.key);
                keys = Some(self.join(keys, k));
                self.check(&me.value);
                let v = self.get(&me.value);
                values = Some(self.join(values, v));
            }
        }
        let (k, v) = match (keys, values) {
            (Some(k), Some(v)) => (k, v),
            _ => (self.fresh(), self.fresh()),
        };
        self.set(e, Type::map(k, v));
    }

    /// A message construction (`checkCreateStruct`).
    fn check_struct(&mut self, e: &IdedExpr, s: &StructExpr) {
        // Message construction: only the well-known types exist in this environment.
        match self.lookup_ident(&s.type_name) {
            None => {
                self.undeclared(e, &s.type_name);
                self.set(e, Type::Error);
            }
            Some(Type::TypeOf(Some(inner))) => {
                // `checkCreateStruct`: well-known types may be built by their protobuf name;
                // other types are not messages.
                let result = if s.type_name.starts_with("google.protobuf.")
                    || matches!(*inner, Type::Object(_))
                {
                    *inner
                } else {
                    self.errors.push((
                        e.id,
                        format!("'{}' is not a message type", inner.type_name()),
                    ));
                    Type::Error
                };
                self.set(e, result);
            }
            Some(other) => {
                self.errors
                    .push((e.id, format!("'{}' is not a type", other.type_name())));
                self.set(e, Type::Error);
            }
        }
        for en in &s.entries {
            if let EntryExpr::StructField(f) = &en.expr {
                self.check(&f.value);
            }
        }
    }

    /// A comprehension: its range, accumulator, loop variables and loop types
    /// (`checkComprehension`).
    fn check_comprehension(&mut self, e: &IdedExpr, c: &ComprehensionExpr) {
        self.check(&c.iter_range);
        self.check(&c.accu_init);
        let range = substitute(&self.mappings, &self.get(&c.iter_range), false);
        let accu = self.get(&c.accu_init);
        self.scopes.push(vec![(c.accu_var.clone(), accu.clone())]);
        let (var, var2) = match &range {
            Type::List(elem) => {
                if c.iter_var2.is_some() {
                    (Type::Int, Some((**elem).clone()))
                } else {
                    ((**elem).clone(), None)
                }
            }
            Type::Map(k, v) => ((**k).clone(), Some((**v).clone())),
            Type::Dyn | Type::Error | Type::Param(_) => {
                self.is_assignable(&Type::Dyn, &range);
                (Type::Dyn, Some(Type::Dyn))
            }
            other => {
                self.errors.push((
                    c.iter_range.id,
                    format!(
                        "expression of type '{other}' cannot be range of a comprehension (must be list, map, or dynamic)"
                    ),
                ));
                (Type::Error, Some(Type::Error))
            }
        };
        let mut block = vec![(c.iter_var.clone(), var)];
        if let (Some(v2), Some(t2)) = (&c.iter_var2, var2) {
            block.push((v2.clone(), t2));
        }
        self.scopes.push(block);
        self.check(&c.loop_cond);
        let cond = self.get(&c.loop_cond);
        if !self.is_assignable(&Type::Bool, &cond) {
            self.mismatch(c.loop_cond.id, &Type::Bool, &cond);
        }
        self.check(&c.loop_step);
        let step = self.get(&c.loop_step);
        if !self.is_assignable(&accu, &step) {
            self.mismatch(c.loop_step.id, &accu, &step);
        }
        self.scopes.pop();
        self.check(&c.result);
        self.scopes.pop();
        let t = substitute(&self.mappings, &self.get(&c.result), false);
        self.set(e, t);
    }

    /// `checkSelectField` without optionals (the parser rejects `.?`).
    fn select_field(&mut self, e: &IdedExpr, operand: &IdedExpr) -> Type {
        self.check(operand);
        let t = substitute(&self.mappings, &self.get(operand), false);
        match &t {
            Type::Map(_, v) => (**v).clone(),
            Type::Param(_) => {
                self.is_assignable(&Type::Dyn, &t);
                Type::Dyn
            }
            other => {
                if !other.is_dyn_or_error() {
                    self.errors.push((
                        e.id,
                        format!("type '{other}' does not support field selection"),
                    ));
                }
                Type::Dyn
            }
        }
    }

    /// `joinTypes` with dynamic aggregate literal element types (cel-go's default).
    fn join(&mut self, previous: Option<Type>, current: Type) -> Type {
        match previous {
            None => current,
            Some(p) => {
                if self.is_assignable(&p, &current) {
                    most_general(&p, &current)
                } else {
                    Type::Dyn
                }
            }
        }
    }

    fn check_call(
        &mut self,
        e: &IdedExpr,
        name: &str,
        target: Option<&IdedExpr>,
        args: &[IdedExpr],
    ) {
        for a in args {
            self.check(a);
        }
        let fns = functions();
        let Some(target) = target else {
            let lookup = name.strip_prefix('.').unwrap_or(name);
            match fns.get_key_value(lookup) {
                None => {
                    self.undeclared(e, name);
                    self.set(e, Type::Error);
                }
                Some((fname, _)) => self.resolve(e, fname, None, args),
            }
            return;
        };
        if let Some(prefix) = qualified_name(target) {
            let q = format!("{}.{name}", prefix.strip_prefix('.').unwrap_or(&prefix));
            if let Some((fname, _)) = fns.get_key_value(q.as_str()) {
                self.resolve(e, fname, None, args);
                return;
            }
        }
        self.check(target);
        match fns.get_key_value(name) {
            Some((fname, _)) => self.resolve(e, fname, Some(target), args),
            None => {
                self.set(e, Type::Error);
                self.undeclared(e, name);
            }
        }
    }

    /// `resolveOverload`.
    fn resolve(
        &mut self,
        e: &IdedExpr,
        fname: &'static str,
        target: Option<&IdedExpr>,
        args: &[IdedExpr],
    ) {
        let overloads = &functions()[fname];
        let mut arg_types: Vec<Type> = Vec::new();
        if let Some(t) = target {
            arg_types.push(self.get(t));
        }
        arg_types.extend(args.iter().map(|a| self.get(a)));
        let mut result: Option<Type> = None;
        for o in overloads {
            if o.member != target.is_some() {
                continue;
            }
            if fname == "_&&_" || fname == "_||_" {
                let mut failed = false;
                for (i, t) in arg_types.iter().enumerate() {
                    if !self.is_assignable(t, &Type::Bool) {
                        self.mismatch(args[i].id, &Type::Bool, t);
                        failed = true;
                    }
                }
                self.set(e, if failed { Type::Error } else { Type::Bool });
                return;
            }
            let (params, ret) = if o.is_generic() {
                let mut subs = Mapping::default();
                for p in ["A", "B"] {
                    if mentions(o, p) {
                        let v = self.fresh();
                        subs.add(&Type::param(p), v);
                    }
                }
                (
                    o.params
                        .iter()
                        .map(|t| substitute(&subs, t, false))
                        .collect::<Vec<_>>(),
                    substitute(&subs, &o.result, false),
                )
            } else {
                (o.params.clone(), o.result.clone())
            };
            if let Some(m) = assignable_list(&self.mappings, &arg_types, &params) {
                self.mappings = m;
                let r = substitute(&self.mappings, &ret, false);
                result = Some(match result {
                    None => r,
                    Some(prev) if !prev.is_dyn() && prev != r => Type::Dyn,
                    Some(prev) => prev,
                });
            }
        }
        match result {
            Some(t) => self.set(e, t),
            None => {
                let shown: Vec<String> = arg_types
                    .iter()
                    .map(|t| substitute(&self.mappings, t, true).to_string())
                    .collect();
                let sig = if target.is_some() {
                    format!("{}.({})", shown[0], shown[1..].join(", "))
                } else {
                    format!("({})", shown.join(", "))
                };
                self.errors.push((
                    e.id,
                    format!("found no matching overload for '{fname}' applied to '{sig}'"),
                ));
                self.set(e, Type::Error);
            }
        }
    }

    /// ext/formatting.go `stringFormatValidator.Validate`, run after a successful check.
    pub(crate) fn validate_formats(&mut self, e: &IdedExpr) {
        visit(e, &mut |x| {
            if let Expr::Call(c) = &x.expr
                && c.func_name == "format"
                && let Some(t) = c.target.as_deref()
                && let Expr::Literal(LiteralValue::String(s)) = &t.expr
                && c.args.len() == 1
                && let Expr::List(l) = &c.args[0].expr
            {
                let found = self.format_issue(x.id, s.inner().as_bytes(), &l.elements);
                self.errors.extend(found);
            }
        });
    }

    fn format_issue(&self, call: u64, fs: &[u8], args: &[IdedExpr]) -> Option<Found> {
        let mut i = 0;
        let mut index = 0usize;
        let mut requested = 0usize;
        while i < fs.len() {
            if fs[i] != b'%' {
                i += 1;
                continue;
            }
            if fs.get(i + 1) == Some(&b'%') {
                i += 2;
                continue;
            }
            requested += 1;
            if i + 1 >= fs.len() {
                return Some((call, "unexpected end of string".into()));
            }
            if index >= args.len() {
                return Some((call, format!("index {index} out of range")));
            }
            // parsePrecision
            let mut j = i + 1;
            if fs[j] == b'.' {
                j += 1;
                while j < fs.len() && fs[j].is_ascii_digit() {
                    j += 1;
                }
                if j >= fs.len() {
                    return Some((
                        call,
                        "could not parse formatting clause: error while parsing precision: could not find end of precision specifier".into(),
                    ));
                }
                if fs[i + 2..j].is_empty() {
                    return Some((
                        call,
                        "could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing \"\": invalid syntax".into(),
                    ));
                }
            }
            let verb = fs[j] as char;
            let arg = &args[index];
            let t = self.final_type(arg);
            let one_of = |valid: &[Type]| t == Type::Dyn || valid.iter().any(|v| v.same_kind(&t));
            use Type::*;
            let bad = |what: &str| -> Option<Found> {
                Some((
                    arg.id,
                    format!(
                        "error during formatting: {what}, was given {}",
                        t.type_name()
                    ),
                ))
            };
            match verb {
                's' => {
                    if let Some(bad_id) = self.verify_string(arg) {
                        let bt = self.final_type_by_id(bad_id);
                        return Some((
                            bad_id,
                            format!(
                                "error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given {}",
                                bt.type_name()
                            ),
                        ));
                    }
                }
                'd' if !one_of(&[Int, Uint]) => {
                    return bad("decimal clause can only be used on integers");
                }
                'f' if !one_of(&[Double, String]) => {
                    return bad("fixed-point clause can only be used on doubles");
                }
                'e' if !one_of(&[Double, String]) => {
                    return bad("scientific clause can only be used on doubles");
                }
                'b' if !one_of(&[Int, Uint, Bool]) => {
                    return bad("only integers and bools can be formatted as binary");
                }
                'x' | 'X' if !one_of(&[Int, Uint, String, Bytes]) => {
                    return bad("only integers, byte buffers, and strings can be formatted as hex");
                }
                'o' if !one_of(&[Int, Uint]) => {
                    return bad("octal clause can only be used on integers");
                }
                'd' | 'f' | 'e' | 'b' | 'x' | 'X' | 'o' => {}
                other => {
                    return Some((
                        call,
                        format!(
                            "could not parse formatting clause: unrecognized formatting clause \"{other}\""
                        ),
                    ));
                }
            }
            i = j + 1;
            index += 1;
        }
        if args.len() > requested {
            return Some((
                call,
                format!(
                    "too many arguments supplied to string.format (expected {requested}, got {})",
                    args.len()
                ),
            ));
        }
        None
    }

    fn final_type_by_id(&self, id: u64) -> Type {
        substitute(
            &self.mappings,
            self.types.get(&id).unwrap_or(&Type::Error),
            true,
        )
    }

    /// `verifyString`: the id of the first argument (or nested literal element) `%s` cannot print.
    fn verify_string(&self, e: &IdedExpr) -> Option<u64> {
        use Type::*;
        let t = self.final_type(e);
        let ok = t == Dyn
            || [
                List(Box::new(Dyn)),
                Map(Box::new(Dyn), Box::new(Dyn)),
                Int,
                Uint,
                Double,
                Bool,
                String,
                Timestamp,
                Bytes,
                Duration,
                Type::TypeOf(None),
                Null,
            ]
            .iter()
            .any(|v| v.same_kind(&t));
        if !ok {
            return Some(e.id);
        }
        match &e.expr {
            Expr::List(l) => l.elements.iter().find_map(|x| self.verify_string(x)),
            Expr::Map(m) => m.entries.iter().find_map(|en| match &en.expr {
                EntryExpr::MapEntry(me) => self
                    .verify_string(&me.key)
                    .or_else(|| self.verify_string(&me.value)),
                EntryExpr::StructField(_) => None,
            }),
            _ => None,
        }
    }
}

fn mentions(o: &super::env::Overload, p: &str) -> bool {
    fn has(t: &Type, p: &str) -> bool {
        match t {
            Type::Param(n) => n == p,
            Type::List(e) => has(e, p),
            Type::Map(k, v) => has(k, p) || has(v, p),
            Type::TypeOf(Some(x)) => has(x, p),
            _ => false,
        }
    }
    o.params.iter().any(|t| has(t, p)) || has(&o.result, p)
}

/// Pre-order walk of every expression.
fn visit<'a>(e: &'a IdedExpr, f: &mut impl FnMut(&'a IdedExpr)) {
    f(e);
    match &e.expr {
        Expr::Select(s) => visit(&s.operand, f),
        Expr::Call(c) => {
            if let Some(t) = c.target.as_deref() {
                visit(t, f);
            }
            for a in &c.args {
                visit(a, f);
            }
        }
        Expr::List(l) => l.elements.iter().for_each(|x| visit(x, f)),
        Expr::Map(m) => {
            for en in &m.entries {
                if let EntryExpr::MapEntry(me) = &en.expr {
                    visit(&me.key, f);
                    visit(&me.value, f);
                }
            }
        }
        Expr::Struct(s) => {
            for en in &s.entries {
                if let EntryExpr::StructField(fe) = &en.expr {
                    visit(&fe.value, f);
                }
            }
        }
        Expr::Comprehension(c) => {
            visit(&c.iter_range, f);
            visit(&c.accu_init, f);
            visit(&c.loop_cond, f);
            visit(&c.loop_step, f);
            visit(&c.result, f);
        }
        Expr::Unspecified | Expr::Literal(_) | Expr::Ident(_) => {}
    }
}

/// containers.ToQualifiedName: `a.b.c` for an identifier or a select chain over one (no `has`).
pub(crate) fn qualified_name(e: &IdedExpr) -> Option<String> {
    match &e.expr {
        Expr::Ident(n) => Some(n.clone()),
        Expr::Select(s) if !s.test => {
            qualified_name(&s.operand).map(|q| format!("{q}.{}", s.field))
        }
        _ => None,
    }
}
