//! Wasm actions of one path (`docs/semantics/generated-objects.md`, "Wasm actions"): build the auth, rate-limit and
//! token-rate-limit specs, place them around auth, merge same-scope rate-limit specs, and encode them
//! in the legacy `{service, scope, predicates, conditionalData, sources}` format.

use super::names;
use crate::model::{KuadrantVersion, Model};
use crate::resolve::{Effective, PathEffective};
use foldhash::HashMap;
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use std::sync::Arc;

/// Limit identifiers ([`names::limit_identifier`]) by token or not, source policy and limit name,
/// each computed once: a limit's wasm actions and its Limitador limits both carry it.
#[derive(Default)]
pub(crate) struct LimitIds<'e>(HashMap<(bool, usize, &'e str), Arc<str>>);

impl<'e> LimitIds<'e> {
    pub(crate) fn get(
        &mut self,
        m: &Model,
        token: bool,
        source: usize,
        name: &'e str,
    ) -> &Arc<str> {
        self.0.entry((token, source, name)).or_insert_with(|| {
            let p = &m.policies[source];
            names::limit_identifier(token, &p.meta.namespace, &p.meta.name, name).into()
        })
    }
}

pub(crate) const AUTH_SERVICE: &str = "auth-service";
pub(crate) const RATELIMIT_SERVICE: &str = "ratelimit-service";
pub(crate) const RATELIMIT_CHECK_SERVICE: &str = "ratelimit-check-service";
pub(crate) const RATELIMIT_REPORT_SERVICE: &str = "ratelimit-report-service";

/// One `conditionalData` entry: predicates and `expression` data items `(key, value)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConditionalData {
    pub predicates: Vec<String>,
    pub data: Vec<(String, String)>,
}

/// A legacy wasm action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Action {
    pub service: &'static str,
    pub scope: String,
    pub predicates: Vec<String>,
    pub conditional_data: Vec<ConditionalData>,
    pub sources: Vec<String>,
}

impl Action {
    /// `HasAuthAccess`: `auth.` in a conditionalData predicate or in an expression value.
    pub fn has_auth_access(&self) -> bool {
        self.conditional_data.iter().any(|cd| {
            cd.predicates.iter().any(|p| p.contains("auth."))
                || cd.data.iter().any(|(_, v)| v.contains("auth."))
        })
    }
}

/// The legacy JSON with keys sorted: `conditionalData`, `predicates`, `scope`, `service`, `sources`
/// (empty lists omitted, as the operator's `omitempty`).
impl Serialize for Action {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.with_scope(&self.scope).serialize(s)
    }
}

/// An action serialised with another scope (see `object::ActionSet::auth_scope`).
pub struct WithScope<'a>(&'a Action, &'a str);

impl Action {
    pub fn with_scope<'a>(&'a self, scope: &'a str) -> WithScope<'a> {
        WithScope(self, scope)
    }
}

impl Serialize for WithScope<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let WithScope(a, scope) = *self;
        let mut m = s.serialize_map(None)?;
        if !a.conditional_data.is_empty() {
            m.serialize_entry("conditionalData", &a.conditional_data)?;
        }
        if !a.predicates.is_empty() {
            m.serialize_entry("predicates", &a.predicates)?;
        }
        m.serialize_entry("scope", scope)?;
        m.serialize_entry("service", a.service)?;
        if !a.sources.is_empty() {
            m.serialize_entry("sources", &a.sources)?;
        }
        m.end()
    }
}

/// `{"data": [{"expression": {"key": k, "value": v}}...], "predicates": [...]}`.
impl Serialize for ConditionalData {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Expression<'a>(&'a str, &'a str);
        impl Serialize for Expression<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut e = s.serialize_map(Some(2))?;
                e.serialize_entry("key", self.0)?;
                e.serialize_entry("value", self.1)?;
                e.end()
            }
        }
        struct Item<'a>(&'a str, &'a str);
        impl Serialize for Item<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut x = s.serialize_map(Some(1))?;
                x.serialize_entry("expression", &Expression(self.0, self.1))?;
                x.end()
            }
        }
        let mut m = s.serialize_map(None)?;
        if !self.data.is_empty() {
            let items: Vec<Item<'_>> = self.data.iter().map(|(k, v)| Item(k, v)).collect();
            m.serialize_entry("data", &items)?;
        }
        if !self.predicates.is_empty() {
            m.serialize_entry("predicates", &self.predicates)?;
        }
        m.end()
    }
}

fn strings(w: &[crate::model::Sp<String>]) -> Vec<String> {
    w.iter().map(|p| p.value.clone()).collect()
}

/// The auth spec of a path with an effective AuthPolicy. Its scope is the path's AuthConfig name
/// (`names::auth_config_name(path_id)`), which the caller fills in.
pub(crate) fn auth_action(eff: &Effective) -> Action {
    Action {
        service: AUTH_SERVICE,
        scope: String::new(),
        predicates: strings(eff.top_level_when()),
        conditional_data: vec![],
        sources: eff.sources.iter().map(|l| l.to_string()).collect(),
    }
}

/// One spec per limit (by name, the canonical order at both versions), each with one conditionalData.
fn rate_limit_actions<'e>(
    model: &Model,
    scope: &str,
    eff: &'e Effective,
    ids: &mut LimitIds<'e>,
) -> Vec<Action> {
    let top = strings(eff.top_level_when());
    eff.limits()
        .map(|(name, limit, source)| {
            let p = &model.policies[source];
            let id = ids.get(model, false, source, name).to_string();
            let mut predicates = top.clone();
            predicates.extend(strings(&limit.when));
            let mut data = vec![(id, "1".to_string())];
            data.extend(
                limit
                    .counters
                    .iter()
                    .map(|c| (c.value.clone(), c.value.clone())),
            );
            Action {
                service: RATELIMIT_SERVICE,
                scope: scope.into(),
                predicates: vec![],
                conditional_data: vec![ConditionalData { predicates, data }],
                sources: vec![p.locator().to_string()],
            }
        })
        .collect()
}

/// Two specs per TokenRateLimitPolicy limit: check (`hits_addend` 0) then report (the response's
/// `usage.total_tokens`).
fn token_rate_limit_actions<'e>(
    model: &Model,
    scope: &str,
    eff: &'e Effective,
    ids: &mut LimitIds<'e>,
) -> Vec<Action> {
    let top = strings(eff.top_level_when());
    let mut out = Vec::new();
    for (name, limit, source) in eff.limits() {
        let p = &model.policies[source];
        let id = ids.get(model, true, source, name).to_string();
        let mut predicates = top.clone();
        predicates.extend(strings(&limit.when));
        for (service, hits) in [
            (RATELIMIT_CHECK_SERVICE, "0"),
            (
                RATELIMIT_REPORT_SERVICE,
                "responseBodyJSON(\"/usage/total_tokens\")",
            ),
        ] {
            let mut data = vec![(id.clone(), "1".to_string())];
            data.extend(
                limit
                    .counters
                    .iter()
                    .map(|c| (c.value.clone(), c.value.clone())),
            );
            data.push(("ratelimit.hits_addend".into(), hits.into()));
            out.push(Action {
                service,
                scope: scope.into(),
                predicates: vec![],
                conditional_data: vec![ConditionalData {
                    predicates: predicates.clone(),
                    data,
                }],
                sources: vec![p.locator().to_string()],
            });
        }
    }
    out
}

/// The specs of a path in the operator's order: `[auth]`, then the rate-limit specs appended when any
/// reads `auth.` data, else prepended; then the token-rate-limit specs by the same rule.
pub(crate) fn path_actions<'e>(
    model: &Model,
    route_scope: &str,
    eff: &'e PathEffective,
    ids: &mut LimitIds<'e>,
) -> Vec<Action> {
    let mut list: Vec<Action> = eff.auth.iter().map(|a| auth_action(a)).collect();
    let place = |specs: Vec<Action>, list: &mut Vec<Action>| {
        if specs.iter().any(Action::has_auth_access) {
            list.extend(specs);
        } else {
            let rest = std::mem::take(list);
            list.extend(specs);
            list.extend(rest);
        }
    };
    if let Some(rl) = &eff.rate_limit {
        place(rate_limit_actions(model, route_scope, rl, ids), &mut list);
    }
    if let Some(trl) = &eff.token_rate_limit {
        place(
            token_rate_limit_actions(model, route_scope, trl, ids),
            &mut list,
        );
    }
    list
}

/// `mergeAndVerify`: fold each spec into the last kept one when scope and service match and the service
/// is not auth (conditionalData appended, sources unioned and sorted). On 1.5 the merged conditionalData
/// is re-sorted by the `|`-joined predicates after every fold (a stable sort; see the module docs of
/// `generate` for the pdqsort caveat beyond 12 entries).
pub(crate) fn merge(specs: Vec<Action>, version: KuadrantVersion) -> Vec<Action> {
    let mut out: Vec<Action> = Vec::new();
    for s in specs {
        if let Some(last) = out.last_mut()
            && last.service != AUTH_SERVICE
            && last.service == s.service
            && last.scope == s.scope
        {
            last.conditional_data.extend(s.conditional_data);
            last.sources.extend(s.sources);
            last.sources.sort();
            last.sources.dedup();
            if version == KuadrantVersion::V1_5 {
                last.conditional_data
                    .sort_by_key(|cd| cd.predicates.join("|"));
            }
            continue;
        }
        out.push(s);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rl(scope: &str, preds: &[&str], key: &str, src: &str) -> Action {
        Action {
            service: RATELIMIT_SERVICE,
            scope: scope.into(),
            predicates: vec![],
            conditional_data: vec![ConditionalData {
                predicates: preds.iter().map(|s| s.to_string()).collect(),
                data: vec![(key.into(), "1".into())],
            }],
            sources: vec![src.into()],
        }
    }

    #[test]
    fn merge_folds_same_scope_and_sorts_on_1_5() {
        let a = rl("ns/r", &["z"], "limit.a", "p2");
        let b = rl("ns/r", &["a"], "limit.b", "p1");
        let c = rl("ns/other", &[], "limit.c", "p1");
        let m4 = merge(vec![a.clone(), b.clone(), c.clone()], KuadrantVersion::V1_4);
        assert_eq!(m4.len(), 2);
        assert_eq!(m4[0].conditional_data[0].data[0].0, "limit.a");
        assert_eq!(m4[0].sources, vec!["p1", "p2"]);
        let m5 = merge(vec![a, b, c], KuadrantVersion::V1_5);
        assert_eq!(m5[0].conditional_data[0].data[0].0, "limit.b");
    }

    #[test]
    fn auth_actions_never_merge() {
        let auth = Action {
            service: AUTH_SERVICE,
            scope: "x".into(),
            predicates: vec![],
            conditional_data: vec![],
            sources: vec![],
        };
        assert_eq!(
            merge(vec![auth.clone(), auth.clone()], KuadrantVersion::V1_5).len(),
            2
        );
    }

    #[test]
    fn auth_access_looks_at_predicates_and_values_only() {
        let mut a = rl("s", &["request.x == 1"], "limit.a", "p");
        assert!(!a.has_auth_access());
        a.conditional_data[0]
            .data
            .push(("auth.identity.x".into(), "static".into()));
        assert!(!a.has_auth_access());
        a.conditional_data[0]
            .data
            .push(("k".into(), "auth.identity.x".into()));
        assert!(a.has_auth_access());
    }
}
