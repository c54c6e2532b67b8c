//! The wasm-shim's CEL, evaluated by the interpreter the shim itself embeds: cel 0.12.0 for
//! wasm-shim v0.12.3 (Kuadrant 1.4) and cel 0.14.0 for v0.14.1 (Kuadrant 1.5, which locks cel-rust
//! at d23d0a7, the commit the 0.14.0 release was cut from). A look-alike interpreter gives other
//! answers at the edges: a string's `size` counts bytes in both releases, `int` and `uint` do not
//! mix in arithmetic, a comprehension does not absorb an error, and only the functions the shim
//! registers exist beside the standard library. Those functions are ours, written to behave as
//! wasm-shim v0.12.3 / v0.14.1 src/data/cel/strings.rs behaves (the same in both releases):
//!
//! - `indexOf` and `lastIndexOf` count bytes, give a `uint` when found and the `int` -1 when not,
//!   and `lastIndexOf(t, base)` gives the offset within `s[base..]`;
//! - `charAt` past the end is an error;
//! - `join`, `lowerAscii`, `upperAscii`, `trim`, `replace`, `split` and `substring` as Rust's
//!   string functions of the same names behave.
//!
//! There is no `queryMap`, `format`, `strings.quote` or `reverse`: the shim registers `queryMap`
//! only in its test builds (`Predicate::route_rule` is `#[cfg(test)]` in both releases), so the
//! predicate the operator writes for a `queryParams` match (kuadrant-operator v1.5.2
//! internal/wasm/utils.go `predicateFromQueryParam`) fails with `Undeclared reference to
//! 'queryMap'`. Where the shim would panic (an index inside a multi-byte character, or a panic of
//! its interpreter: [`guarded`]), or where an expression reads what Envoy gives the shim and a
//! simulated request lacks (`request.time`, the source address when none is given; [`Read`]), the
//! evaluation is [`Failure::Undecided`].
//!
//! Every evaluation is metered as [`super::cost`] describes: the tree each release parses goes
//! through the same weaver, and the guards are registered on each release's context.

use super::request::Request;
use crate::model::KuadrantVersion;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

// The two releases' crates share an API but not their types: `interp.rs` is written once and
// compiled in each module, where `cel` names that module's release.

/// Kuadrant 1.4: wasm-shim v0.12.3, cel 0.12.0.
mod v0_12 {
    use cel_shim_1_4 as cel;

    /// The shim converts a descriptor entry's value itself.
    const ENTRY_VALUE_IS_CEL_STRING: bool = false;

    /// The shim builds `auth` for each expression from the fields it names, each read on its own
    /// (`interp.rs`, `auth_by_fields`).
    const AUTH_BY_FIELDS: bool = true;

    /// An `int` literal as this release's tree writes one.
    fn int_literal(v: i64) -> ast::Expr {
        ast::Expr::Literal(cel::common::value::CelVal::Int(v))
    }

    include!("interp.rs");
}

/// Kuadrant 1.5: wasm-shim v0.14.1, cel 0.14.0.
mod v0_14 {
    use cel_shim_1_5 as cel;

    /// The shim builds its rate-limit request with CEL, an entry's value as `string(value)`.
    const ENTRY_VALUE_IS_CEL_STRING: bool = true;

    /// The shim binds what the auth action stored as one map (null before it).
    const AUTH_BY_FIELDS: bool = false;

    /// An `int` literal as this release's tree writes one.
    fn int_literal(v: i64) -> ast::Expr {
        ast::Expr::Literal(ast::LiteralValue::Int(v.into()))
    }

    include!("interp.rs");
}

thread_local! {
    /// Whether a panic on this thread is one [`guarded`] catches, which is not reported.
    static GUARDED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Run `f`, a parse or an evaluation by one of the shim's interpreters, catching a panic of the
/// interpreter (cel 0.14.0 panics on `x.value()` when `x` is not an optional:
/// src/common/types/optional.rs, an `expect`): `Err` with its message. The shim, built from the
/// same code, would panic there too. The panic is not reported on stderr: the process-wide hook
/// is wrapped, once, to stay quiet for the panics caught here and to report every other.
fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !GUARDED.with(std::cell::Cell::get) {
                previous(info);
            }
        }));
    });
    let outer = GUARDED.with(|g| g.replace(true));
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    GUARDED.with(|g| g.set(outer));
    out.map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".into())
    })
}

/// Why an evaluation gave no value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Failure {
    /// The interpreter's error, as the shim meets it (the failure mode decides).
    Error(String),
    /// What the shim would give is not known offline: it would panic (the Wasm VM traps, and what
    /// Envoy answers depends on the plugin's fail strategy and on the VM's restart), or the
    /// expression reads an attribute Envoy has and the simulated request does not.
    Undecided(String),
}

impl Failure {
    pub(crate) fn message(&self) -> &str {
        match self {
            Failure::Error(m) | Failure::Undecided(m) => m,
        }
    }
}

/// A field of a variable Envoy fills for the shim that an expression reads (`request.time`), or
/// tests the presence of (`has(request.time)`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Read {
    root: &'static str,
    field: String,
    presence: bool,
}

/// The roots whose fields are Envoy's attributes (wasm-shim v0.12.3 / v0.14.1 src/data/cel.rs binds
/// them from the host's properties).
fn read_root(name: &str) -> Option<&'static str> {
    super::attributes::ENVOY_ROOTS
        .into_iter()
        .find(|r| *r == name)
}

/// One request's variables, as JSON: `request`, `source`, `destination` and `auth`, and the
/// upstream response's body `responseBodyJSON` reads.
pub(crate) struct Vars {
    request: Value,
    source: Value,
    destination: Value,
    auth: Value,
    response_body: Option<Arc<Value>>,
    /// Whether the request says where it comes from (`--source`).
    source_given: bool,
}

impl Vars {
    /// The shim's variables for `req`: `request.{method,scheme,host,path,url_path,query,
    /// protocol,headers,useragent,referer}`, `source.{address,port}`, `destination.port`, and
    /// `auth`, what the auth action stored (Authorino's dynamic metadata): before it, null on 1.5
    /// and empty on 1.4.
    ///
    /// With `v1_5` (the 1.5 shim), a gRPC request's `request.grpc` holds the `service` and `method`
    /// of its path (wasm-shim v0.14.1 src/data/cel.rs `resolve_grpc`, src/data/grpc.rs:
    /// `content-type` starting with `application/grpc`, a path `/Service/Method`).
    pub(crate) fn new(req: &Request, auth: Option<&Map<String, Value>>, v1_5: bool) -> Vars {
        let headers = req.joined_headers();
        let authority = req.authority();
        let mut request = Map::new();
        for (k, v) in [
            ("method", req.method.clone()),
            ("scheme", req.scheme.clone()),
            ("host", authority),
            ("path", req.full_path()),
            ("url_path", req.path.clone()),
            ("query", req.query.clone()),
            // gRPC runs on HTTP/2 only; a plain request is taken as curl sends one.
            (
                "protocol",
                if req.is_grpc() { "HTTP/2" } else { "HTTP/1.1" }.to_string(),
            ),
        ] {
            request.insert(k.into(), Value::String(v));
        }
        if let Some(ua) = req.header("user-agent") {
            request.insert("useragent".into(), ua.into());
        }
        if let Some(rf) = req.header("referer") {
            request.insert("referer".into(), rf.into());
        }
        if v1_5
            && req.is_grpc()
            && let Some((service, method)) = super::request::grpc_service_method(&req.path)
        {
            request.insert("grpc".into(), json!({"service": service, "method": method}));
        }
        request.insert(
            "headers".into(),
            Value::Object(headers.into_iter().map(|(k, v)| (k, v.into())).collect()),
        );
        let source = match &req.source {
            Some((a, p)) => json!({"address": a, "port": p}),
            None => json!({}),
        };
        // The operator declares `responseBodyJSON` for the shim (kuadrant-operator v1.5.2
        // internal/cel): a JSON pointer into the upstream response's body. The body is the one
        // given, or `{"usage": {"total_tokens": N}}` for `--tokens N`.
        let response_body = req
            .response_body
            .clone()
            .or_else(|| req.tokens.map(|n| json!({"usage": {"total_tokens": n}})))
            .map(Arc::new);
        Vars {
            request: Value::Object(request),
            source,
            destination: json!({"port": req.port}),
            // Before the auth action stored anything, the 1.5 shim binds `auth` to null (v0.14.1
            // src/data/cel.rs `eval`: no stored `auth.` prefix, no value), so `auth.identity` and
            // `has(auth.identity)` both fail there; the 1.4 shim reads each field from the host.
            auth: match auth {
                Some(a) => Value::Object(a.clone()),
                None if v1_5 => Value::Null,
                None => Value::Object(Map::new()),
            },
            response_body,
            source_given: req.source.is_some(),
        }
    }
}

/// `$f` of the release's module (`predicate`, `scalar`, …) on `$src` over `$act`, settled
/// ([`settle`]).
macro_rules! evaluate {
    ($self:ident, $src:ident, $act:ident, $f:ident) => {
        match ($self.program($src).map_err(Failure::Error)?, &$act.bound) {
            (Program::V0_12(p), Bound::V0_12(a)) => {
                settle($src, &p.reads, $act, v0_12::$f(&p, $src, a))
            }
            (Program::V0_14(p), Bound::V0_14(a)) => {
                settle($src, &p.reads, $act, v0_14::$f(&p, $src, a))
            }
            _ => Err(Failure::Error(mismatch($src))),
        }
    };
}

/// One request's variables bound for the release's interpreter.
pub(crate) struct Activation {
    bound: Bound,
    /// Whether the request says where it comes from (`--source`).
    source_given: bool,
}

enum Bound {
    V0_12(v0_12::Activation),
    V0_14(v0_14::Activation),
}

/// Why a field Envoy gives the shim has no value in the simulation ([`super::attributes`]).
fn missing(read: &Read, source_given: bool) -> Option<String> {
    super::attributes::missing(read.root, &read.field, source_given)
}

enum Programs {
    V0_12(Mutex<HashMap<String, Arc<v0_12::Program>>>),
    V0_14(Mutex<HashMap<String, Arc<v0_14::Program>>>),
}

/// The shim's CEL for one Kuadrant release, with the expressions it has compiled.
pub(crate) struct ShimCel {
    programs: Programs,
}

/// A compiled expression of either release.
enum Program {
    V0_12(Arc<v0_12::Program>),
    V0_14(Arc<v0_14::Program>),
}

fn cached<P>(
    cache: &Mutex<HashMap<String, Arc<P>>>,
    src: &str,
    compile: impl FnOnce(&str) -> Result<P, String>,
) -> Result<Arc<P>, String> {
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(p) = cache.get(src) {
        return Ok(Arc::clone(p));
    }
    let p = Arc::new(compile(src)?);
    cache.insert(src.to_string(), Arc::clone(&p));
    Ok(p)
}

impl ShimCel {
    /// The shim `version` deploys (wasm-shim v0.12.3 for 1.4, v0.14.1 for 1.5).
    pub(crate) fn new(version: KuadrantVersion) -> ShimCel {
        let programs = match version {
            KuadrantVersion::V1_4 => Programs::V0_12(Mutex::default()),
            KuadrantVersion::V1_5 => Programs::V0_14(Mutex::default()),
        };
        ShimCel { programs }
    }

    fn program(&self, src: &str) -> Result<Program, String> {
        Ok(match &self.programs {
            Programs::V0_12(c) => Program::V0_12(cached(c, src, v0_12::compile)?),
            Programs::V0_14(c) => Program::V0_14(cached(c, src, v0_14::compile)?),
        })
    }

    /// The variables of `req` (and `auth`), bound once for every expression of the request.
    pub(crate) fn activation(
        &self,
        req: &Request,
        auth: Option<&Map<String, Value>>,
    ) -> Activation {
        let vars = Vars::new(req, auth, matches!(self.programs, Programs::V0_14(_)));
        let bound = match &self.programs {
            Programs::V0_12(_) => Bound::V0_12(v0_12::activation(&vars)),
            Programs::V0_14(_) => Bound::V0_14(v0_14::activation(&vars)),
        };
        Activation {
            bound,
            source_given: vars.source_given,
        }
    }

    /// Drop the compiled expressions.
    pub(crate) fn forget(&self) {
        match &self.programs {
            Programs::V0_12(c) => c.lock().unwrap_or_else(|e| e.into_inner()).clear(),
            Programs::V0_14(c) => c.lock().unwrap_or_else(|e| e.into_inner()).clear(),
        }
    }

    /// Whether `src` reads no variable but `auth` (comprehension variables aside), and no body:
    /// its value is the same for every request once `auth` is known. False when it does not
    /// parse.
    pub(crate) fn reads_only_auth(&self, src: &str) -> bool {
        match self.program(src) {
            Ok(Program::V0_12(p)) => p.reads_only_auth && !p.reads_request_body,
            Ok(Program::V0_14(p)) => p.reads_only_auth && !p.reads_request_body,
            Err(_) => false,
        }
    }

    /// Whether the shim's parser reads `src`.
    pub(crate) fn parses(&self, src: &str) -> bool {
        self.program(src).is_ok()
    }

    /// Whether `src` calls `requestBodyJSON` (false when it does not parse: its evaluation says
    /// why).
    pub(crate) fn reads_request_body(&self, src: &str) -> bool {
        match self.program(src) {
            Ok(Program::V0_12(p)) => p.reads_request_body,
            Ok(Program::V0_14(p)) => p.reads_request_body,
            Err(_) => false,
        }
    }

    /// Whether `src` holds over `act`.
    pub(crate) fn predicate(&self, src: &str, act: &Activation) -> Result<bool, Failure> {
        evaluate!(self, src, act, predicate)
    }

    /// Whether every predicate holds; the first that does not, or the failure of one.
    pub(crate) fn all(
        &self,
        predicates: &[String],
        act: &Activation,
    ) -> Result<Option<String>, Failure> {
        for p in predicates {
            if !self.predicate(p, act)? {
                return Ok(Some(p.clone()));
            }
        }
        Ok(None)
    }

    /// A descriptor entry's value, as text, as the release's shim writes it.
    pub(crate) fn entry_value(&self, src: &str, act: &Activation) -> Result<String, Failure> {
        evaluate!(self, src, act, entry_value)
    }

    /// A scalar as text (the rate-limit domain, the hits addend).
    pub(crate) fn scalar(&self, src: &str, act: &Activation) -> Result<String, Failure> {
        evaluate!(self, src, act, scalar)
    }

    /// The value as JSON (`None` when JSON cannot hold it).
    pub(crate) fn json(&self, src: &str, act: &Activation) -> Result<Option<Value>, Failure> {
        evaluate!(self, src, act, json)
    }
}

/// An evaluation's outcome once the fields it reads are known to have values: an error where the
/// expression reads a field Envoy has and the simulation lacks, or any result of a presence test
/// of one, is undecided (the shim reads the real value). A result computed without it stands:
/// `request.time.getHours() > 9 || true` is true whatever the time.
fn settle<T>(
    src: &str,
    reads: &[Read],
    act: &Activation,
    out: Result<T, Failure>,
) -> Result<T, Failure> {
    let why = |error: bool| {
        reads
            .iter()
            .filter(|r| error || r.presence)
            .find_map(|r| missing(r, act.source_given))
    };
    match out {
        Err(Failure::Error(e)) => match why(true) {
            Some(w) => Err(Failure::Undecided(format!("{src}: {w}"))),
            None => Err(Failure::Error(e)),
        },
        Ok(v) => match why(false) {
            Some(w) => Err(Failure::Undecided(format!("{src}: {w}"))),
            None => Ok(v),
        },
        other => other,
    }
}

/// An activation of one release given to the other: a bug of ours, said rather than hidden.
fn mismatch(src: &str) -> String {
    format!("{src}: internal error: variables bound for another release of the shim")
}

#[cfg(test)]
mod tests;
