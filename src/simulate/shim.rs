//! The wasm shim's part, on the configuration `compute` prints (wasm-shim v0.12.3 and v0.14.1,
//! `src/kuadrant/pipeline/factory.rs`, `blueprint.rs`, `tasks/ratelimit.rs`, `src/data/cel.rs`):
//!
//! - an action set is chosen by hostname first: each set's hostnames are indexed reversed (`*.`
//!   dropped for a wildcard, `$` marking an exact name) and the request's host, without its port,
//!   takes the sets of the *longest* indexed key it starts with. Only those: when none of their
//!   route predicates holds, no set applies, shorter wildcards are not tried;
//! - among those sets, in configuration order, the first whose `routeRuleConditions.predicates`
//!   all hold;
//! - its actions run in order; an action whose `predicates` do not all hold is skipped;
//! - a rate-limit action builds one descriptor from the `conditionalData` entries whose predicates
//!   hold, each `expression` item evaluated to a scalar and written as text (`ratelimit.domain` and
//!   `ratelimit.hits_addend` are not entries); with no entry it sends nothing; the domain is the
//!   action's scope, the limit namespace.
//!
//! Expressions are evaluated with the `cel` crate's interpreter (the lineage of the one the shim
//! embeds) and the strings extension (`lowerAscii` and the like), over the shim's variables:
//! `request.{method,scheme,host,path,url_path,query,protocol,headers,useragent,referer}`,
//! `source.{address,port}`, `destination.port` and `auth.identity`.

use super::request::Request;
use crate::generate::object::{self, ActionSet};
use cel::{Context, Env, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// A gateway's wasm configuration: the generated one itself (`generate::object::WasmConfig`, whose
/// serialisation is what `compute` prints), read through its typed fields.
#[derive(Debug)]
pub(super) struct WasmConfig {
    pub generated: object::WasmConfig,
    /// The index keys of every action set's hostname, `(key, set)` in configuration order,
    /// computed on the first request: a request then compares its key with them instead of
    /// encoding every hostname again (a gateway of the 10k-object estate has thousands).
    keys: std::sync::OnceLock<Vec<(String, usize)>>,
}

impl WasmConfig {
    pub(super) fn new(generated: object::WasmConfig) -> Self {
        WasmConfig {
            generated,
            keys: std::sync::OnceLock::new(),
        }
    }

    pub(super) fn action_sets(&self) -> &[ActionSet] {
        &self.generated.action_sets
    }

    /// The `services` entry (`failureMode` of each service), empty when there is none.
    pub(super) fn services(&self) -> serde_json::Map<String, serde_json::Value> {
        self.generated
            .rest
            .get("services")
            .and_then(serde_json::Value::as_object)
            .cloned()
            .unwrap_or_default()
    }

    fn keys(&self) -> &[(String, usize)] {
        self.keys.get_or_init(|| {
            self.action_sets()
                .iter()
                .enumerate()
                .map(|(si, set)| (index_key(&set.hostname), si))
                .collect()
        })
    }
}

/// What the simulator reads of a typed action (extension policies append them after the legacy
/// actions, see `object::ActionSet::typed`), which it does not run: its `type` and `sources`.
pub(super) fn typed_action(t: &serde_json::Value) -> (&str, Vec<&str>) {
    let kind = t
        .get("type")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("");
    let sources = t
        .get("sources")
        .and_then(serde_json::Value::as_array)
        .map(|s| s.iter().filter_map(serde_json::Value::as_str).collect())
        .unwrap_or_default();
    (kind, sources)
}

/// The shim's index key of a hostname.
fn index_key(hostname: &str) -> String {
    let mut s = hostname.to_string();
    s.push('.');
    if let Some(rest) = s.strip_prefix('*') {
        s = rest.to_string();
    } else {
        s.insert(0, '$');
    }
    s.chars().rev().collect()
}

/// The action sets the shim would consider for `host`: those of the longest indexed hostname key
/// that the host's key starts with, in configuration order (their positions); and that hostname.
pub(super) fn candidates(config: &WasmConfig, host: &str) -> (Option<String>, Vec<usize>) {
    let key = index_key(host);
    let keys = config.keys();
    let mut best: Option<(usize, usize)> = None;
    for (k, si) in keys {
        if key.starts_with(k.as_str()) && best.is_none_or(|(len, _)| k.len() > len) {
            best = Some((k.len(), *si));
        }
    }
    let Some((len, si)) = best else {
        return (None, vec![]);
    };
    // The keys are in configuration order, one a set: each set is taken once, in that order.
    let sets = keys
        .iter()
        .filter(|(k, _)| k.len() == len && key.starts_with(k.as_str()))
        .map(|(_, si)| *si)
        .collect();
    (Some(config.action_sets()[si].hostname.to_string()), sets)
}

/// The CEL environment of the shim: the standard library and the strings extension.
pub(super) struct Cel {
    env: Arc<Env>,
    programs: std::sync::Mutex<HashMap<String, Arc<Program>>>,
}

/// An expression compiled once: instrumented for its cost, and what its calls mean to the shim.
struct Program {
    metered: super::cost::Metered,
    /// The first function it calls that the shim does not define ([`shim_undefined`]).
    shim_undefined: Option<&'static str>,
    /// Whether it calls `requestBodyJSON`.
    reads_request_body: bool,
}

/// The variables the shim and Authorino bind: a name among them is a variable read (and charged
/// as one, see [`super::cost`]); another name is a type or a function's namespace.
const ROOTS: [&str; 6] = [
    "request",
    "source",
    "destination",
    "connection",
    "auth",
    "metadata",
];

impl Default for Cel {
    fn default() -> Self {
        let mut env = Env::stdlib();
        // Registering the extension and the cost guards on a fresh standard environment cannot
        // clash: the guards' names are no CEL identifier.
        let _ = cel::extensions::strings(&mut env);
        let _ = super::cost::register(&mut env);
        Cel {
            env: Arc::new(env),
            programs: Default::default(),
        }
    }
}

/// The variables of one request, bound once in a context every expression of the request is
/// evaluated in (binding converts the values, which costs more than most evaluations).
pub(super) struct Activation {
    ctx: Context<'static, 'static>,
}

fn map(entries: Vec<(&str, Value)>) -> Value {
    let m: HashMap<String, Value> = entries
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    Value::from(m)
}

fn s(v: &str) -> Value {
    Value::String(Arc::new(v.to_string()))
}

impl Activation {
    /// The shim's variables for `req`; `auth` is what the auth action stored (Authorino's dynamic
    /// metadata), absent before it.
    pub(super) fn new(
        req: &Request,
        cel: &Cel,
        auth: Option<&serde_json::Map<String, serde_json::Value>>,
    ) -> Activation {
        let mut headers: HashMap<String, String> = HashMap::new();
        for (n, v) in &req.headers {
            headers
                .entry(n.clone())
                .and_modify(|x| {
                    x.push(',');
                    x.push_str(v);
                })
                .or_insert_with(|| v.clone());
        }
        let authority = req.authority();
        headers
            .entry(":authority".into())
            .or_insert(authority.clone());
        let mut r = vec![
            ("method", s(&req.method)),
            ("scheme", s(&req.scheme)),
            ("host", s(&authority)),
            ("path", s(&req.full_path())),
            ("url_path", s(&req.path)),
            ("query", s(&req.query)),
            ("protocol", s("HTTP/1.1")),
        ];
        if let Some(ua) = req.header("user-agent") {
            r.push(("useragent", s(ua)));
        }
        if let Some(rf) = req.header("referer") {
            r.push(("referer", s(rf)));
        }
        let hv: HashMap<String, Value> = headers.into_iter().map(|(k, v)| (k, s(&v))).collect();
        r.push(("headers", Value::from(hv)));
        let source = match &req.source {
            Some((a, p)) => map(vec![("address", s(a)), ("port", Value::Int(i64::from(*p)))]),
            None => map(vec![]),
        };
        let destination = map(vec![("port", Value::Int(i64::from(req.port)))]);
        let auth = match auth {
            Some(m) => json_to_cel(&serde_json::Value::Object(m.clone())),
            None => map(vec![]),
        };
        let mut ctx = Context::with_env(Arc::clone(&cel.env));
        // The operator declares `responseBodyJSON` for the shim (kuadrant-operator v1.5.2
        // internal/cel): a JSON pointer into the upstream response's body, null when absent
        // (wasm-shim v0.14.1 src/data/cel.rs `response_body_json`). The body is the one given, or
        // `{"usage": {"total_tokens": N}}` for `--tokens N`.
        let body = req.response_body.clone().or_else(|| {
            req.tokens
                .map(|n| serde_json::json!({"usage": {"total_tokens": n}}))
        });
        if let Some(body) = body {
            let body = Arc::new(body);
            let _ = ctx.add_function("responseBodyJSON", move |ptr: Arc<String>| -> Value {
                body.pointer(&ptr).map(json_to_cel).unwrap_or(Value::Null)
            });
        }
        let _ = ctx.add_function("queryMap", query_map);
        ctx.add_variable_from_value("request", map(r));
        ctx.add_variable_from_value("source", source);
        ctx.add_variable_from_value("destination", destination);
        ctx.add_variable_from_value("auth", auth);
        Activation { ctx }
    }
}

/// The shim's `queryMap(query[, repeats])` (wasm-shim v0.12.3 and v0.14.1 src/data/cel.rs
/// `decode_query_string`): the query split on `&`, each part on `=` (a key without `=` has the
/// value `''`, and a value ends at its own next `=`), keys and values percent-decoded (left as
/// written when the result is not UTF-8); a repeated key keeps its first value, or, with `repeats`
/// true, every value in a list.
fn query_map(
    cel::extractors::This(s): cel::extractors::This<Arc<String>>,
    cel::extractors::Arguments(args): cel::extractors::Arguments,
) -> cel::ResolveResult {
    fn decoded(text: &str) -> String {
        urlencoding::decode(text).map_or_else(|_| text.to_string(), |c| c.into_owned())
    }
    let repeats = matches!(args.get(1), Some(Value::Bool(true)));
    let mut out: HashMap<String, Value> = HashMap::new();
    for part in s.split('&') {
        let mut kv = part.split('=');
        let key = decoded(kv.next().unwrap_or_default());
        let value = Value::String(Arc::new(decoded(kv.next().unwrap_or_default())));
        match out.get_mut(&key) {
            None => {
                out.insert(key, value);
            }
            Some(Value::List(list)) if repeats => {
                let mut items = list.as_ref().clone();
                items.push(value);
                *list = Arc::new(items);
            }
            Some(first) if repeats => {
                *first = Value::List(Arc::new(vec![first.clone(), value]));
            }
            Some(_) => {}
        }
    }
    Ok(Value::from(out))
}

impl Activation {
    /// Variables bound from JSON values, as Authorino binds its authorization JSON: every number a
    /// double, as in a `google.protobuf.Struct` (authorino `pkg/expressions/cel`, `AuthJsonToCel`).
    pub(super) fn from_json(cel: &Cel, vars: &[(&str, &serde_json::Value)]) -> Activation {
        let mut ctx = Context::with_env(Arc::clone(&cel.env));
        for (name, v) in vars {
            ctx.add_variable_from_value(*name, struct_to_cel(v));
        }
        Activation { ctx }
    }
}

/// A JSON value as a `google.protobuf.Struct` field reads in CEL: numbers are doubles.
fn struct_to_cel(v: &serde_json::Value) -> Value {
    match v {
        serde_json::Value::Number(n) => Value::Float(n.as_f64().unwrap_or(0.0)),
        serde_json::Value::Array(a) => Value::List(Arc::new(a.iter().map(struct_to_cel).collect())),
        serde_json::Value::Object(o) => {
            let m: HashMap<String, Value> = o
                .iter()
                .map(|(k, v)| (k.clone(), struct_to_cel(v)))
                .collect();
            Value::from(m)
        }
        other => json_to_cel(other),
    }
}

/// A CEL value as JSON (authorino `ValueToJSON` through `structpb.Value`): `None` for what JSON
/// cannot hold (a function, an opaque value).
pub(super) fn cel_to_json(v: &Value) -> Option<serde_json::Value> {
    use serde_json::Value as J;
    Some(match v {
        Value::Null => J::Null,
        Value::Bool(b) => J::Bool(*b),
        Value::Int(i) => J::from(*i),
        Value::UInt(u) => J::from(*u),
        Value::Float(f) => serde_json::Number::from_f64(*f).map(J::Number)?,
        Value::String(s) => J::String(s.to_string()),
        Value::Bytes(b) => J::String(data_encoding::BASE64.encode(b)),
        Value::List(l) => J::Array(l.iter().map(cel_to_json).collect::<Option<Vec<_>>>()?),
        Value::Map(m) => {
            let mut out = serde_json::Map::new();
            let mut entries: Vec<_> = m.map.iter().collect();
            entries.sort_by_key(|(k, _)| k.to_string());
            for (k, v) in entries {
                out.insert(k.to_string(), cel_to_json(v)?);
            }
            J::Object(out)
        }
        _ => return None,
    })
}

/// A JSON value as CEL sees it (numbers: int when integral, else double).
pub(super) fn json_to_cel(v: &serde_json::Value) -> Value {
    match v {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => n
                .as_u64()
                .map(Value::UInt)
                .unwrap_or_else(|| Value::Float(n.as_f64().unwrap_or(0.0))),
        },
        serde_json::Value::String(x) => s(x),
        serde_json::Value::Array(a) => Value::List(Arc::new(a.iter().map(json_to_cel).collect())),
        serde_json::Value::Object(o) => {
            let m: HashMap<String, Value> =
                o.iter().map(|(k, v)| (k.clone(), json_to_cel(v))).collect();
            Value::from(m)
        }
    }
}

/// The first call in `e` (depth first, target before arguments) for which `f` says something.
fn find_call<T>(
    e: &cel::common::ast::IdedExpr,
    f: &impl Fn(&cel::common::ast::CallExpr) -> Option<T>,
) -> Option<T> {
    use cel::common::ast::{EntryExpr, Expr};
    let entry = |x: &cel::common::ast::IdedEntryExpr| match &x.expr {
        EntryExpr::MapEntry(me) => find_call(&me.key, f).or_else(|| find_call(&me.value, f)),
        EntryExpr::StructField(sf) => find_call(&sf.value, f),
    };
    match &e.expr {
        Expr::Call(c) => f(c)
            .or_else(|| c.target.as_deref().and_then(|t| find_call(t, f)))
            .or_else(|| c.args.iter().find_map(|a| find_call(a, f))),
        Expr::Comprehension(c) => [
            &c.iter_range,
            &c.accu_init,
            &c.loop_cond,
            &c.loop_step,
            &c.result,
        ]
        .into_iter()
        .find_map(|x| find_call(x, f)),
        Expr::List(l) => l.elements.iter().find_map(|x| find_call(x, f)),
        Expr::Map(m) => m.entries.iter().find_map(entry),
        Expr::Struct(st) => st.entries.iter().find_map(entry),
        Expr::Select(sel) => find_call(&sel.operand, f),
        _ => None,
    }
}

/// The name of a function of the strings extension that the shim does not define, for a call of
/// one. cel-go's `ext.Strings()`, with which the operator checks predicates, also has `format`,
/// `strings.quote` and `reverse`; the shim registers only `charAt`, `indexOf`, `join`,
/// `lastIndexOf`, `lowerAscii`, `upperAscii`, `trim`, `replace`, `split` and `substring`
/// (wasm-shim v0.12.3 and v0.14.1 src/data/cel.rs `add_string_extensions`), so its cel-rust fails
/// on the others when it evaluates them. Authorino, whose cel-go has the whole extension,
/// evaluates them with [`Cel::eval`].
fn shim_undefined(c: &cel::common::ast::CallExpr) -> Option<&'static str> {
    use cel::common::ast::Expr;
    let on_strings = matches!(
        c.target.as_deref().map(|t| &t.expr),
        Some(Expr::Ident(n)) if n == "strings"
    );
    match c.func_name.as_str() {
        "format" => Some("format"),
        "reverse" => Some("reverse"),
        "strings.quote" => Some("strings.quote"),
        "quote" if on_strings => Some("strings.quote"),
        _ => None,
    }
}

impl Cel {
    fn program(&self, src: &str) -> Result<Arc<Program>, String> {
        let mut cache = self.programs.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = cache.get(src) {
            return Ok(Arc::clone(p));
        }
        let parsed = self
            .env
            .parser()
            .parse(src)
            .map_err(|e| format!("{src}: does not parse: {e}"))?;
        let p = Arc::new(Program {
            shim_undefined: find_call(&parsed, &shim_undefined),
            reads_request_body: find_call(&parsed, &|c| {
                (c.func_name == "requestBodyJSON").then_some(())
            })
            .is_some(),
            metered: super::cost::instrument(parsed, &ROOTS),
        });
        cache.insert(src.to_string(), Arc::clone(&p));
        Ok(p)
    }

    /// Drop the compiled expressions.
    pub(super) fn forget(&self) {
        self.programs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }

    /// Whether `src` compiles (cel-go would refuse the AuthConfig holding one that does not).
    pub(super) fn compiles(&self, src: &str) -> Result<(), String> {
        self.program(src).map(|_| ())
    }

    /// Evaluate `src` over the request's variables, within its cost budget
    /// ([`super::cost`]).
    pub(super) fn eval(&self, src: &str, act: &Activation) -> Result<Value, String> {
        let p = self.program(src)?;
        super::cost::metered(p.metered.fixed, src, || {
            Value::resolve(&p.metered.expr, &act.ctx).map_err(|e| e.to_string())
        })
        .map_err(|e| format!("{src}: {e}"))
    }

    /// [`Cel::eval`] as the shim evaluates: an expression calling a function the shim does not
    /// define fails as its cel-rust fails ([`shim_undefined`]).
    pub(super) fn shim_eval(&self, src: &str, act: &Activation) -> Result<Value, String> {
        if let Some(f) = self.program(src)?.shim_undefined {
            return Err(format!("{src}: Undeclared reference to '{f}'"));
        }
        self.eval(src, act)
    }

    /// Whether `src` calls `requestBodyJSON` (false when it does not parse: its evaluation says
    /// why).
    pub(super) fn reads_request_body(&self, src: &str) -> bool {
        self.program(src).is_ok_and(|p| p.reads_request_body)
    }

    /// Whether every predicate holds; the first that does not, or an evaluation error.
    pub(super) fn all(
        &self,
        predicates: &[String],
        act: &Activation,
    ) -> Result<Option<String>, String> {
        for p in predicates {
            match self.shim_eval(p, act)? {
                Value::Bool(true) => {}
                Value::Bool(false) => return Ok(Some(p.clone())),
                other => return Err(format!("{p}: is not a boolean but {other:?}")),
            }
        }
        Ok(None)
    }

    /// A descriptor entry value: scalars as text, as the shim writes them.
    pub(super) fn scalar(&self, src: &str, act: &Activation) -> Result<String, String> {
        match self.shim_eval(src, act)? {
            Value::Int(n) => Ok(n.to_string()),
            Value::UInt(n) => Ok(n.to_string()),
            Value::Float(n) => Ok(n.to_string()),
            Value::String(x) => Ok(x.to_string()),
            Value::Bool(b) => Ok(b.to_string()),
            Value::Null => Ok("null".into()),
            _ => Err(format!("{src}: only scalar values can be sent as data")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(hosts: &[&str]) -> WasmConfig {
        WasmConfig::new(object::WasmConfig {
            action_sets: hosts
                .iter()
                .enumerate()
                .map(|(i, h)| ActionSet::for_tests(&format!("set-{i}"), h, Arc::from(Vec::new())))
                .collect(),
            rest: serde_json::Map::new(),
        })
    }

    #[test]
    fn exact_beats_wildcard_and_longer_wildcards_win() {
        let c = config(&["*.example.com", "api.example.com", "*.b.example.com"]);
        let sets = |host| candidates(&c, host).1;
        assert_eq!(sets("api.example.com"), [1]);
        assert_eq!(sets("x.example.com"), [0]);
        assert_eq!(sets("a.b.example.com"), [2]);
        assert!(sets("example.com").is_empty());
        assert!(sets("api.example.org").is_empty());
        // Every set of the longest key, in configuration order; the hostname is that key's.
        let c = config(&["*.example.com", "a.example.com", "*.example.com"]);
        assert_eq!(
            candidates(&c, "b.example.com"),
            (Some("*.example.com".to_string()), vec![0, 2])
        );
    }

    #[test]
    fn predicates_see_the_shims_variables() {
        let mut req = Request::parse(
            "POST",
            "http://api.example.com:8080/toys?x=1",
            &["X-Tenant: acme".into()],
        )
        .unwrap();
        req.source = Some(("10.0.0.7".into(), 5000));
        let cel = Cel::default();
        let auth = serde_json::json!({"identity": {"username": "alice", "groups": ["a"]}});
        let act = Activation::new(&req, &cel, auth.as_object());
        for p in [
            "request.method == 'POST'",
            "request.url_path.startsWith('/toys')",
            "request.host == 'api.example.com:8080'",
            "request.path == '/toys?x=1'",
            "request.headers.exists(h, h.lowerAscii() == 'x-tenant' && request.headers[h] == 'acme')",
            "auth.identity.username == 'alice'",
            "'a' in auth.identity.groups",
            "source.port == 5000",
            "request.url_path.matches('^/to')",
        ] {
            assert_eq!(cel.eval(p, &act).unwrap(), Value::Bool(true), "{p}");
        }
        assert_eq!(cel.scalar("auth.identity.username", &act).unwrap(), "alice");
        assert!(cel.eval("auth.identity.nope", &act).is_err());
    }

    // wasm-shim v0.12.3 / v0.14.1 src/data/cel.rs `add_string_extensions`: the strings functions
    // the shim defines evaluate; the rest of cel-go's `ext.Strings`, which the operator accepts,
    // fails in the shim and still evaluates for Authorino.
    #[test]
    fn the_shim_defines_part_of_the_strings_extension() {
        let cel = Cel::default();
        let req = Request::parse("GET", "http://x/", &[]).unwrap();
        let act = Activation::new(&req, &cel, None);
        let shim = |p: &str| cel.all(&[p.to_string()], &act);
        for p in [
            "'abc'.charAt(1) == 'b' && ['a', 'b'].join('-') == 'a-b'",
            "' A '.trim().lowerAscii() == 'a' && 'a,b'.split(',').size() == 2",
            "'abc'.substring(1) == 'bc' && 'aa'.replace('a', 'b') == 'bb'",
            "'format' == 'format' && 'reverse'.upperAscii() == 'REVERSE'",
        ] {
            assert_eq!(shim(p), Ok(None), "{p}");
        }
        for (p, f) in [
            ("'%s'.format(['x']) == 'x'", "format"),
            ("'ab'.reverse() == 'ba'", "reverse"),
            ("strings.quote('a') != ''", "strings.quote"),
            ("[1].exists(x, 'a'.reverse() == 'a')", "reverse"),
        ] {
            let e = shim(p).unwrap_err();
            assert!(
                e.ends_with(&format!("Undeclared reference to '{f}'")),
                "{p}: {e}"
            );
        }
        assert_eq!(
            cel.eval("'ab'.reverse() == 'ba'", &act),
            Ok(Value::Bool(true))
        );
        // A call of `requestBodyJSON` is found in the expression's tree, not in its text.
        assert!(cel.reads_request_body("[1].all(x, requestBodyJSON('/m') == 'x')"));
        assert!(!cel.reads_request_body("'requestBodyJSON' == request.method"));
    }

    // wasm-shim v0.14.1 src/data/cel.rs `decodes_query_string`, and the predicate the operator
    // writes for a `queryParams` match (kuadrant-operator v1.5.2 internal/wasm/utils.go
    // `predicateFromQueryParam`).
    #[test]
    fn query_map_decodes_as_the_shim_does() {
        let cel = Cel::default();
        let with_query = |q: &str| {
            let mut req = Request::parse("GET", "http://x/", &[]).unwrap();
            req.query = q.to_string();
            Activation::new(&req, &cel, None)
        };
        let act = with_query(
            "param1=%F0%9F%91%BE%20&param2=Exterminate%21&%F0%9F%91%BE=123&%F0%9F%91%BE=456&%F0%9F%91%BE",
        );
        for p in [
            "queryMap(request.query, true)['param1'] == '\u{1F47E} ' && queryMap(request.query, true)['param2'] == 'Exterminate!' && queryMap(request.query, true)['\u{1F47E}'][0] == '123' && queryMap(request.query, true)['\u{1F47E}'][1] == '456' && queryMap(request.query, true)['\u{1F47E}'][2] == ''",
            "queryMap(request.query, false)['param2'] == 'Exterminate!' && queryMap(request.query, false)['\u{1F47E}'] == '123'",
        ] {
            assert_eq!(cel.eval(p, &act).unwrap(), Value::Bool(true), "{p}");
        }
        let act = with_query("%F0%9F%91%BE");
        assert_eq!(
            cel.eval("queryMap(request.query) == {'\u{1F47E}': ''}", &act)
                .unwrap(),
            Value::Bool(true)
        );
        let matches =
            "'v' in queryMap(request.query) ? queryMap(request.query)['v'] == '1' : false";
        for (q, want) in [
            ("v=1", true),
            ("a=2&v=1&v=2", true),
            ("v=2&v=1", false),
            ("x=1", false),
            ("v=%31", true),
            ("v=1=2", true),
        ] {
            assert_eq!(
                cel.eval(matches, &with_query(q)).unwrap(),
                Value::Bool(want),
                "{q}"
            );
        }
    }
}
