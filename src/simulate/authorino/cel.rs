//! Authorino's CEL (authorino `pkg/expressions/cel`, cel-go): the standard library and the whole
//! strings extension, over the authorization JSON, metered as [`crate::simulate::cost`] says. The
//! shim's CEL is another interpreter (`crate::simulate::shimcel`).

use crate::simulate::cost;
use cel::{Context, Env, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// The environment, and the expressions compiled in it.
pub(crate) struct Cel {
    env: Arc<Env>,
    programs: std::sync::Mutex<HashMap<String, Arc<cost::Metered>>>,
}

impl Default for Cel {
    fn default() -> Self {
        let mut env = Env::stdlib();
        // Registering the extension and the cost guards on a fresh standard environment cannot
        // clash: the guards' names are no CEL identifier.
        let _ = cel::extensions::strings(&mut env);
        let _ = cost::register(&mut env);
        Cel {
            env: Arc::new(env),
            programs: Default::default(),
        }
    }
}

/// The variables of one request, bound once in a context every expression of the request is
/// evaluated in (binding converts the values, which costs more than most evaluations).
pub(crate) struct Activation {
    ctx: Context<'static, 'static>,
}

fn s(v: &str) -> Value {
    Value::String(Arc::new(v.to_string()))
}

impl Activation {
    /// Variables bound from JSON values, as Authorino binds its authorization JSON: every number a
    /// double, as in a `google.protobuf.Struct` (authorino `pkg/expressions/cel`, `AuthJsonToCel`).
    pub(crate) fn from_json(cel: &Cel, vars: &[(&str, &serde_json::Value)]) -> Activation {
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
pub(crate) fn cel_to_json(v: &Value) -> Option<serde_json::Value> {
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
pub(crate) fn json_to_cel(v: &serde_json::Value) -> Value {
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

impl Cel {
    fn program(&self, src: &str) -> Result<Arc<cost::Metered>, String> {
        let mut cache = self.programs.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = cache.get(src) {
            return Ok(Arc::clone(p));
        }
        let parsed = self
            .env
            .parser()
            .parse(src)
            .map_err(|e| format!("{src}: does not parse: {e}"))?;
        let p = Arc::new(cost::instrument(
            parsed,
            &crate::simulate::attributes::ROOTS,
        ));
        cache.insert(src.to_string(), Arc::clone(&p));
        Ok(p)
    }

    /// Whether `src` compiles (cel-go would refuse the AuthConfig holding one that does not).
    pub(crate) fn compiles(&self, src: &str) -> Result<(), String> {
        self.program(src).map(|_| ())
    }

    /// Evaluate `src` over the request's variables, within its cost budget
    /// ([`cost`]).
    pub(crate) fn eval(&self, src: &str, act: &Activation) -> Result<Value, String> {
        let p = self.program(src)?;
        cost::metered(p.fixed, src, || {
            Value::resolve(&p.expr, &act.ctx).map_err(|e| e.to_string())
        })
        .map_err(|e| format!("{src}: {e}"))
    }
}
