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
//! Expressions are evaluated by the interpreter the shim embeds (`super::shimcel`).

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
}
