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
    Ok(e)
}

impl Policies {
    /// Evaluate the policy `key` (written `rego`) on `input`: `Some(result)` when `allow` is true,
    /// `None` when it is not; `Err` when regorus cannot parse or evaluate it.
    pub(crate) fn evaluate(
        &self,
        key: &str,
        rego: &str,
        all_values: bool,
        input: &Value,
    ) -> Result<Option<Value>, String> {
        let mut engines = self.engines.lock().unwrap_or_else(|e| e.into_inner());
        let entry = engines
            .entry(key.to_string())
            .or_insert_with(|| engine(rego));
        let e = entry.as_mut().map_err(|m| m.clone())?;
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
}
