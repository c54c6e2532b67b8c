//! The wasm shim's part, on the configuration `compute` prints (wasm-shim v0.12.3 and v0.14.1,
//! `src/kuadrant/pipeline/factory.rs`, `blueprint.rs`, `tasks/ratelimit.rs`, `src/data/cel.rs`):
//!
//! - an action set is chosen by hostname first: each set's hostnames are indexed reversed (`*.`
//!   dropped for a wildcard, `$` marking an exact name) and the request's host, without its port,
//!   takes the sets of the *longest* indexed key it starts with. Only those: when none of their
//!   route predicates holds, no set applies, shorter wildcards are not tried;
//! - among those sets, in configuration order, the first whose `routeRuleConditions.predicates`
//!   all hold;
//! - its actions run in order. On 1.4 (v0.12.3) an action whose `predicates` do not all hold, in
//!   order, is skipped; a rate-limit action builds one descriptor from the `conditionalData`
//!   entries whose predicates hold, each `expression` item evaluated to a scalar and written as
//!   text (`ratelimit.domain` and `ratelimit.hits_addend` are not entries); with no entry it sends
//!   nothing; the domain is the action's scope, the limit namespace. The `requestData` values that
//!   are strings go in a second descriptor; the others are left out;
//! - on 1.5 (v0.14.1, src/configuration/legacy_translation.rs) each action becomes a typed action:
//!   one CEL predicate joining the action's predicates with `&&` and, for a rate-limit action, the
//!   data blocks' with `||` ([`ratelimit_predicate`]), so that an error on one side is absorbed when
//!   the other decides (cel 0.14.0 `LOGICAL_AND` / `LOGICAL_OR`); and one CEL message. Each block's
//!   entries are taken when its predicates, joined with `&&`, hold, each value `string(value)`;
//!   the domain and hits addend come from the first block that has them, whatever its predicates;
//!   each `requestData` expression is `string(expression)` in a second descriptor (the auth
//!   action's message evaluates those that do not name `auth.`). An error anywhere in the message
//!   fails the action: its service's failure mode decides.
//!
//! Expressions are evaluated by the interpreter the shim embeds (`super::shimcel`).

use crate::generate::actions::ConditionalData;
use crate::generate::object::{self, ActionSet};

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

    /// The `requestData` entries, as the shim reads them: each key cut into a domain and a field
    /// ([`domain_and_field_name`]), sorted by both, with its CEL expression (those the shim's parser
    /// refuses are left out by the caller, as the shim leaves them out).
    pub(super) fn request_data(&self) -> Vec<RequestData> {
        let mut out: Vec<RequestData> = self
            .generated
            .rest
            .get("requestData")
            .and_then(serde_json::Value::as_object)
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| {
                let (domain, field) = domain_and_field_name(k);
                Some(RequestData {
                    domain: domain.to_string(),
                    field: field.to_string(),
                    expression: v.as_str()?.to_string(),
                })
            })
            .collect();
        out.sort_by(|a, b| (&a.domain, &a.field).cmp(&(&b.domain, &b.field)));
        out
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

/// One `requestData` entry of a gateway's configuration (the metric labels of TelemetryPolicies).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct RequestData {
    pub domain: String,
    pub field: String,
    pub expression: String,
}

/// Whether a `requestData` expression reads the upstream response: the 1.5 shim's own test, on the
/// text (wasm-shim v0.14.1 legacy_translation.rs: `expr.contains("responseBodyJSON(")`). Such an
/// entry is left out of the requests built before the response (the auth request, the rate-limit
/// check).
pub(super) fn reads_response(expression: &str) -> bool {
    expression.contains("responseBodyJSON(")
}

impl RequestData {
    /// [`reads_response`] of its expression.
    pub(super) fn reads_response(&self) -> bool {
        reads_response(&self.expression)
    }

    /// Whether the 1.5 auth request carries it as a value: it does not name `auth.` (the shim's
    /// test on the text, legacy_translation.rs `build_request_data_value_cel`; such an entry goes
    /// as its text) nor read the response.
    pub(super) fn evaluated_for_auth(&self) -> bool {
        !self.expression.contains("auth.") && !self.reads_response()
    }

    /// The key of its rate-limit descriptor entry: the field alone for the domain `metrics.labels`
    /// or none, else `domain.field` (wasm-shim v0.12.3 src/services/rate_limit.rs `build_request`,
    /// v0.14.1 legacy_translation.rs `build_ratelimit_message_builder`).
    pub(super) fn entry_key(&self) -> String {
        if self.domain.is_empty() || self.domain == "metrics.labels" {
            self.field.clone()
        } else {
            format!("{}.{}", self.domain, self.field)
        }
    }
}

/// A `requestData` key cut where the shim cuts it (wasm-shim v0.12.3 / v0.14.1
/// src/kuadrant/pipeline/factory.rs `domain_and_field_name`): at the last `.` before the last
/// letter, with no domain when there is no such dot, or it is the key's first or last character.
pub(super) fn domain_and_field_name(name: &str) -> (&str, &str) {
    let last_letter = name
        .char_indices()
        .rfind(|(_, c)| c.is_alphabetic())
        .map_or(0, |(i, _)| i);
    match name[..last_letter].rfind('.') {
        Some(i) if i != 0 && i + 1 != name.len() => (&name[..i], &name[i + 1..]),
        _ => ("", name),
    }
}

/// The attributes a rate-limit action's data may set instead of sending them as entries.
pub(super) const KNOWN_ATTRIBUTES: [&str; 2] = ["ratelimit.domain", "ratelimit.hits_addend"];

/// Predicates joined as the 1.5 shim joins them: `true` for none, the one alone, else each in
/// parentheses between ` op `.
fn join(predicates: &[String], op: &str) -> String {
    match predicates {
        [] => "true".into(),
        [one] => one.clone(),
        many => many
            .iter()
            .map(|p| format!("({p})"))
            .collect::<Vec<_>>()
            .join(&format!(" {op} ")),
    }
}

/// The 1.5 predicate of an auth action: its predicates joined with `&&` (v0.14.1
/// legacy_translation.rs `build_action_predicate`).
pub(super) fn action_predicate(predicates: &[String]) -> String {
    join(predicates, "&&")
}

/// The 1.5 condition of one data block in the rate-limit message: its predicates joined with
/// `&&`; `None` when it has none (its entries are always taken).
pub(super) fn block_condition(block: &ConditionalData) -> Option<String> {
    (!block.predicates.is_empty()).then(|| join(&block.predicates, "&&"))
}

/// The 1.5 predicate of a rate-limit action (v0.14.1 legacy_translation.rs
/// `build_ratelimit_predicate`, `build_descriptor_predicate`): the action's predicates and the data
/// blocks' disjunction, `true` for a block without predicates; a block of several predicates in
/// parentheses, the blocks joined by ` || ` without them.
pub(super) fn ratelimit_predicate(predicates: &[String], blocks: &[ConditionalData]) -> String {
    let action = action_predicate(predicates);
    let data = if blocks.is_empty() || blocks.iter().any(|b| b.predicates.is_empty()) {
        "true".to_string()
    } else {
        blocks
            .iter()
            .map(|b| match b.predicates.as_slice() {
                [one] => one.clone(),
                many => format!("({})", join(many, "&&")),
            })
            .collect::<Vec<_>>()
            .join(" || ")
    };
    match (action.as_str(), data.as_str()) {
        ("true", _) => data,
        (_, "true") => action,
        _ => format!("({action}) && ({data})"),
    }
}

/// The value of the first data item named `key` in any block, whatever the block's predicates
/// (v0.12.3 tasks/ratelimit.rs `get_known_attributes`, v0.14.1 `find_ratelimit_known_attr_cel`).
pub(super) fn known_attribute<'a>(blocks: &'a [ConditionalData], key: &str) -> Option<&'a str> {
    blocks
        .iter()
        .flat_map(|b| &b.data)
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

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

    fn block(predicates: &[&str]) -> ConditionalData {
        ConditionalData {
            predicates: predicates.iter().map(|p| p.to_string()).collect(),
            data: vec![("limit".into(), "1".into())],
        }
    }

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|p| p.to_string()).collect()
    }

    /// wasm-shim v0.14.1 src/configuration/legacy_translation.rs, its tests
    /// `test_build_descriptor_predicate_*` and `test_translate_legacy_*`.
    #[test]
    fn predicates_are_joined_as_the_1_5_shim_joins_them() {
        let alice = "auth.identity.user == 'alice'";
        let post = "request.method == 'POST'";
        let admin = "auth.identity.role == 'admin'";
        let user = "auth.identity.role == 'user'";
        assert_eq!(ratelimit_predicate(&[], &[]), "true");
        assert_eq!(ratelimit_predicate(&[], &[block(&[])]), "true");
        assert_eq!(ratelimit_predicate(&[], &[block(&[alice])]), alice);
        assert_eq!(
            ratelimit_predicate(&[], &[block(&[alice, post])]),
            "((auth.identity.user == 'alice') && (request.method == 'POST'))"
        );
        assert_eq!(
            ratelimit_predicate(&[], &[block(&[admin]), block(&[user])]),
            "auth.identity.role == 'admin' || auth.identity.role == 'user'"
        );
        assert_eq!(
            ratelimit_predicate(&[], &[block(&[admin]), block(&[])]),
            "true"
        );
        let api = r#"request.path.startsWith("/api")"#;
        assert_eq!(
            ratelimit_predicate(&strings(&[api]), &[block(&[]), block(&[admin])]),
            api
        );
        // Both sides: each in parentheses (build_ratelimit_predicate's last arm).
        assert_eq!(
            ratelimit_predicate(&strings(&[api, post]), &[block(&[admin]), block(&[user])]),
            "((request.path.startsWith(\"/api\")) && (request.method == 'POST')) && (auth.identity.role == 'admin' || auth.identity.role == 'user')"
        );
        assert_eq!(action_predicate(&[]), "true");
        assert_eq!(block_condition(&block(&[])), None);
        assert_eq!(
            block_condition(&block(&[alice, post])).as_deref(),
            Some("(auth.identity.user == 'alice') && (request.method == 'POST')")
        );
    }

    /// wasm-shim v0.12.3 / v0.14.1 src/kuadrant/pipeline/factory.rs, its tests
    /// `domain_and_field_name_splits_correctly` and `domain_and_field_name_handles_edge_cases`.
    #[test]
    fn request_data_keys_are_cut_as_the_shim_cuts_them() {
        for (name, want) in [
            ("auth.identity.user", ("auth.identity", "user")),
            ("request.path", ("request", "path")),
            ("simple", ("", "simple")),
            (".field", ("", ".field")),
            ("field.", ("", "field.")),
            ("a.b.c.d", ("a.b.c", "d")),
            ("metrics.labels.user", ("metrics.labels", "user")),
        ] {
            assert_eq!(domain_and_field_name(name), want, "{name}");
        }
        let entry = |domain: &str, field: &str| RequestData {
            domain: domain.into(),
            field: field.into(),
            expression: String::new(),
        };
        assert_eq!(entry("metrics.labels", "user").entry_key(), "user");
        assert_eq!(entry("", "zone").entry_key(), "zone");
        assert_eq!(entry("a.b", "c").entry_key(), "a.b.c");
    }
}
