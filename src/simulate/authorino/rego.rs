//! Authorino's inline OPA policies (authorino `pkg/evaluators/authorization/opa.go`) by regorus.
//!
//! Authorino strips any `package` line from the policy, wraps it as
//! `package authorino.authz["<uid>"]` with `default allow = false`, parses it with OPA's v0 Rego
//! syntax (its `github.com/open-policy-agent/opa/rego` package, OPA v1.4.0), and asks for `allow`:
//! access is granted only when `allow` is `true`. With `allValues`, the value of every rule of the
//! policy is the rule's result (published as `auth.authorization.<name>`); without it, `{"allow":
//! true}`. Here the package is `policyctl.authz` (the name is invisible to the policy), and each
//! policy is parsed once.

use regorus::Engine;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Mutex;

/// The policies parsed so far, by `<AuthConfig>/<rule>`.
#[derive(Default)]
pub(crate) struct Policies {
    engines: Mutex<HashMap<String, Result<Engine, String>>>,
}

const PACKAGE: &str = "policyctl.authz";

/// authorino `cleanUpRegoDocument`: `(\s)*package.*[;\n]+` removed.
fn clean(rego: &str) -> String {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = RE.get_or_init(|| {
        regex::Regex::new(r"(\s)*package.*[;\n]+").unwrap_or_else(|_| unreachable!())
    });
    re.replace_all(rego, "").into_owned()
}

fn engine(rego: &str) -> Result<Engine, String> {
    let mut e = Engine::new();
    e.set_rego_v0(true);
    let text = format!("package {PACKAGE}\ndefault allow = false\n{}", clean(rego));
    e.add_policy("policy.rego".into(), text)
        .map_err(|e| e.to_string())?;
    bounded_builtins(&mut e)?;
    Ok(e)
}

/// The builtins whose result can be far larger than their arguments (a range of a billion
/// numbers, a replacement that repeats a long string at every character) are given their cost in
/// work units before they build it, as the evaluation's budget allows (regorus checks its timer
/// between steps, not inside a builtin). They shadow regorus's own, which they reproduce (regorus
/// 0.14.1 `src/builtins/numbers.rs` `range`, `src/builtins/strings.rs` `replace`, `replace_n`).
fn bounded_builtins(e: &mut Engine) -> Result<(), String> {
    use regorus::Value as V;
    fn number(v: &V) -> Option<i64> {
        match v {
            V::Number(n) => n.as_i64(),
            _ => None,
        }
    }
    fn string(v: &V, f: &str) -> anyhow::Result<std::sync::Arc<str>> {
        match v {
            V::String(s) => Ok(s.clone()),
            _ => Err(anyhow::anyhow!("`{f}` expects string argument")),
        }
    }
    let range = |args: Vec<V>| -> anyhow::Result<V> {
        let (Some(a), Some(b)) = (args.first().and_then(number), args.get(1).and_then(number))
        else {
            // Not integers: undefined, as regorus's non-strict builtins answer.
            return Ok(V::Undefined);
        };
        let n = b.abs_diff(a).saturating_add(1);
        crate::simulate::cost::rego::charge(n).map_err(anyhow::Error::msg)?;
        let step = if b >= a { 1 } else { -1 };
        let values: Vec<V> = (0..n)
            .map(|k| V::from(a + step * i64::try_from(k).unwrap_or(0)))
            .collect();
        Ok(V::from(values))
    };
    let replace = |args: Vec<V>| -> anyhow::Result<V> {
        let [s, old, new] = args.as_slice() else {
            return Err(anyhow::anyhow!("`replace` expects 3 arguments"));
        };
        let (s, old, new) = (
            string(s, "replace")?,
            string(old, "replace")?,
            string(new, "replace")?,
        );
        crate::simulate::cost::rego::charge(replaced_len(&s, &old, &new).div_ceil(10))
            .map_err(anyhow::Error::msg)?;
        Ok(V::String(s.replace(old.as_ref(), new.as_ref()).into()))
    };
    let replace_n = |args: Vec<V>| -> anyhow::Result<V> {
        let [patterns, s] = args.as_slice() else {
            return Err(anyhow::anyhow!("`strings.replace_n` expects 2 arguments"));
        };
        let V::Object(patterns) = patterns else {
            return Err(anyhow::anyhow!(
                "`strings.replace_n` expects object argument"
            ));
        };
        let mut s = string(s, "strings.replace_n")?;
        for (k, v) in patterns.iter() {
            let (V::String(k), V::String(v)) = (k, v) else {
                return Err(anyhow::anyhow!(
                    "`strings.replace_n` expects string keys and values in pattern object."
                ));
            };
            crate::simulate::cost::rego::charge(replaced_len(&s, k, v).div_ceil(10))
                .map_err(anyhow::Error::msg)?;
            s = s.replace(k.as_ref(), v.as_ref()).into();
        }
        Ok(V::String(s))
    };
    let add = |e: &mut Engine, name: &str, n: u8, f: Box<dyn regorus::Extension>| {
        e.add_extension(name.into(), n, f)
            .map_err(|m| m.to_string())
    };
    add(e, "numbers.range", 2, Box::new(range))?;
    add(e, "replace", 3, Box::new(replace))?;
    add(e, "strings.replace_n", 2, Box::new(replace_n))?;
    Ok(())
}

/// The length of `s` with every `old` replaced by `new` (an empty `old` matches between every
/// character and at both ends).
fn replaced_len(s: &str, old: &str, new: &str) -> u64 {
    let count = if old.is_empty() {
        s.chars().count() as u64 + 1
    } else {
        s.matches(old).count() as u64
    };
    (s.len() as u64)
        .saturating_add(count.saturating_mul(new.len() as u64))
        .saturating_sub(count.saturating_mul(old.len() as u64))
}

impl Policies {
    /// Evaluate the policy `key` (written `rego`) on `input`: `Some(result)` when `allow` is true,
    /// `None` when it is not; `Err` when regorus cannot parse or evaluate it, or the evaluation
    /// exceeds its budget (recorded for the request, see `simulate::cost`).
    pub(crate) fn evaluate(
        &self,
        key: &str,
        rego: &str,
        all_values: bool,
        input: &Value,
    ) -> Result<Option<Value>, String> {
        use crate::simulate::cost;
        cost::rego::install();
        if cost::rego::exhausted() {
            return Err(cost::COST_ERROR.into());
        }
        let mut engines = self.engines.lock().unwrap_or_else(|e| e.into_inner());
        let entry = engines
            .entry(key.to_string())
            .or_insert_with(|| engine(rego));
        let e = entry.as_mut().map_err(|m| m.clone())?;
        let (timer, budget) = cost::rego::timer();
        e.set_execution_timer_config(timer);
        let limit = u64::try_from(timer.limit.as_nanos()).unwrap_or(u64::MAX);
        let before = cost::rego::units();
        let out = Self::run(e, all_values, input);
        let used = cost::rego::units().saturating_sub(before);
        if cost::rego::settle(used, used > limit, budget, key) {
            return Err(cost::COST_ERROR.into());
        }
        out
    }

    fn run(e: &mut Engine, all_values: bool, input: &Value) -> Result<Option<Value>, String> {
        let input = regorus::Value::from_json_str(&input.to_string()).map_err(|m| m.to_string())?;
        e.set_input(input);
        let allow = e
            .eval_rule(format!("data.{PACKAGE}.allow"))
            .map_err(|m| m.to_string())?;
        if allow != regorus::Value::Bool(true) {
            return Ok(None);
        }
        if !all_values {
            return Ok(Some(serde_json::json!({"allow": true})));
        }
        let results = e
            .eval_query(format!("data.{PACKAGE}"), false)
            .map_err(|m| m.to_string())?;
        let doc = results
            .result
            .first()
            .and_then(|r| r.expressions.first())
            .map(|x| x.value.clone())
            .unwrap_or(regorus::Value::Undefined);
        let text = doc.to_json_str().map_err(|m| m.to_string())?;
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|m| m.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn v0_policies_as_authorino_wraps_them() {
        let p = Policies::default();
        // kuadrant-operator v1.5.2 doc/user-guides/auth/anonymous-access.md: a deny-all policy.
        assert_eq!(
            p.evaluate("a/deny-all", "allow = false", false, &json!({}))
                .unwrap(),
            None
        );
        // doc/user-guides/auth/auth-for-app-devs-and-platform-engineers.md: only admins.
        let admins = "groups := split(object.get(input.auth.identity.metadata.annotations, \"kuadrant.io/groups\", \"\"), \",\")\nallow { groups[_] == \"admins\" }\n";
        let admin = json!({"auth": {"identity": {"metadata": {"annotations": {"kuadrant.io/groups": "admins"}}}}});
        let user = json!({"auth": {"identity": {"metadata": {}}}});
        assert_eq!(
            p.evaluate("a/only-admins", admins, false, &admin).unwrap(),
            Some(json!({"allow": true}))
        );
        assert_eq!(
            p.evaluate("a/only-admins", admins, false, &user).unwrap(),
            None
        );
        // A `package` line is dropped (authorino opa_test.go writes policies with one).
        let pkg = "package my.policy\nallow { input.x == 1 }";
        assert!(
            p.evaluate("b/x", pkg, false, &json!({"x": 1}))
                .unwrap()
                .is_some()
        );
        // allValues: every rule's value.
        let all = p
            .evaluate(
                "c/all",
                "allow { true }\nuser := input.u",
                true,
                &json!({"u": "bob"}),
            )
            .unwrap()
            .unwrap();
        assert_eq!(
            (all["allow"].clone(), all["user"].clone()),
            (json!(true), json!("bob"))
        );
        assert!(p.evaluate("d/bad", "allow {", false, &json!({})).is_err());
    }

    #[test]
    fn bounded_builtins_answer_as_regorus_and_stop_at_the_budget() {
        let p = Policies::default();
        crate::simulate::cost::begin_request(crate::simulate::cost::Limits::default());
        let ok = |key: &str, rego: &str| p.evaluate(key, rego, false, &json!({})).unwrap();
        assert!(ok("r/range", "allow { numbers.range(1, 3) == [1, 2, 3] }").is_some());
        assert!(ok("r/down", "allow { numbers.range(3, 1) == [3, 2, 1] }").is_some());
        assert!(
            ok(
                "r/replace",
                "allow { replace(\"abca\", \"a\", \"x\") == \"xbcx\" }"
            )
            .is_some()
        );
        assert!(
            ok(
                "r/n",
                "allow { strings.replace_n({\"a\": \"1\", \"b\": \"2\"}, \"abc\") == \"12c\" }"
            )
            .is_some()
        );
        assert!(crate::simulate::cost::end_request().is_none());
        // A billion numbers, and nine nested replacements: refused before they are built.
        crate::simulate::cost::begin_request(crate::simulate::cost::Limits::default());
        assert_eq!(
            p.evaluate(
                "r/big",
                "allow { count(numbers.range(1, 1000000000)) > 0 }",
                false,
                &json!({})
            ),
            Err(crate::simulate::cost::COST_ERROR.into())
        );
        let e = crate::simulate::cost::end_request().unwrap();
        assert_eq!(e.subject, "Rego policy r/big");
        let mut r = "\"aaaaaaaaaa\"".to_string();
        for _ in 0..9 {
            r = format!("replace({r}, \"a\", \"aaaaaaaaaa\")");
        }
        crate::simulate::cost::begin_request(crate::simulate::cost::Limits::default());
        assert!(
            p.evaluate(
                "r/nest",
                &format!("allow {{ count({r}) > 0 }}"),
                false,
                &json!({})
            )
            .is_err()
        );
        assert!(crate::simulate::cost::end_request().is_some());
        // A loop over a long range is stopped by regorus's own timer, counted in work units.
        crate::simulate::cost::begin_request(crate::simulate::cost::Limits {
            expression: 10_000,
            request: 1_000_000,
        });
        let slow = "xs := [x | x := numbers.range(1, 5000)[_]]\nallow { count([y | y := xs[_]; z := xs[_]; y == z]) > 0 }";
        assert!(p.evaluate("r/slow", slow, false, &json!({})).is_err());
        assert!(crate::simulate::cost::end_request().is_some());
    }
}
