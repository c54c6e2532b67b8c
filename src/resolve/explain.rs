//! `explain`: for every path through a target, the policies in merge order and, per rule key, the
//! winner and every loser with the reason (from the fold's record, [`super::merge::Loss`]).

use super::effective;
use super::merge::{self, LossReason, MergeStrategy};
use super::status;
use super::{AuthSection, KeyOf, RuleKey, RuleValue};
use crate::model::{Block, GATEWAY_API_GROUP, Locator, PolicyKind, RefError, RefKind};
use crate::topology::Topology;
use serde::Serialize;
use std::collections::BTreeMap;

/// How the winner and a loser were ordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum DecidedBy {
    /// They are attached at different levels of the path.
    Specificity,
    /// Same target, different creationTimestamps.
    Timestamp,
    /// Same target, equal (or missing) creationTimestamps: `namespace/name` order.
    Name,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicyEntry {
    pub kind: &'static str,
    /// `namespace/name`.
    pub policy: String,
    /// The targetable it is attached to, `Kind namespace/name[#section]`.
    pub attached_to: String,
    pub block: Block,
    pub strategy: MergeStrategy,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub creation_timestamp: Option<String>,
    /// The extension policy whose controller created this policy, `Kind namespace/name`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_by: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Loser {
    pub policy: String,
    pub reason: LossReason,
    /// The policy whose strategy decided the step.
    pub step: String,
    /// The policies that hold the key (or every rule source when the key vanished) after the step.
    pub beaten_by: Vec<String>,
    pub decided_by: DecidedBy,
    /// One sentence for people.
    pub explanation: String,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleEntry {
    /// The operator's rule key (`create-toy`, `authentication#api-key-users`, `conditions#`).
    pub key: String,
    /// Where the rule is written in the policy that holds it (the winner's; the first loser's when
    /// every candidate lost): `limits.create-toy`, `defaults.when`,
    /// `rules.authentication.api-key-users`, `rules.response.success.filters.identity`.
    pub field: String,
    /// `namespace/name` of the policy whose rule is effective; `None` when every candidate lost.
    pub winner: Option<String>,
    /// What the effective rule does, as its policy writes it; `None` when every candidate lost.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<RuleContent>,
    pub losers: Vec<Loser>,
}

/// The content of an effective rule in the policy's own vocabulary.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleContent {
    /// A limit's rates, `<limit> per <window>` (`5 per 10s`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rates: Vec<String>,
    /// The `when` predicates of a limit, or of the policy when the rule is its top-level `when`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub when: Vec<String>,
    /// A limit's counters (CEL expressions).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub counters: Vec<String>,
    /// An AuthPolicy section (pattern, authentication, metadata, authorization, callback, response
    /// entry) as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spec: Option<serde_json::Value>,
}

impl RuleContent {
    pub fn of(value: &RuleValue) -> Self {
        let texts = |v: &[crate::model::Sp<String>]| v.iter().map(|p| p.value.clone()).collect();
        match value {
            RuleValue::Limit(l) => RuleContent {
                rates: l
                    .rates
                    .iter()
                    .map(|r| format!("{} per {}", r.limit, r.window))
                    .collect(),
                when: texts(&l.when),
                counters: texts(&l.counters),
                spec: None,
            },
            RuleValue::When(w) => RuleContent {
                when: texts(w),
                ..Default::default()
            },
            RuleValue::Auth(_, v) => RuleContent {
                spec: Some((**v).clone()),
                ..Default::default()
            },
        }
    }
}

/// The field path of a rule key in a policy of `kind` whose rules sit in `block`: the top-level
/// `when` (RLP/TRLP key `###_TOP_LEVEL_PREDICATES_###`, AuthPolicy `conditions#`) is `when`, a limit
/// `limits.<name>`, an AuthPolicy `patterns#<name>` is `patterns.<name>` and `<section>#<name>` is
/// `rules.<section>.<name>`, where the operator's `response.success.metadata` section is the
/// policy's `response.success.filters` (kuadrant-operator v1.5.2 api/v1/authpolicy_types.go, the
/// `json` tags of `AuthPolicySpecProper`, `AuthSchemeSpec` and `MergeableWrappedSuccessResponseSpec`).
pub(crate) fn field_path(key: &RuleKey, block: Block) -> String {
    let prefix = match block {
        Block::Implicit => "",
        Block::Defaults => "defaults.",
        Block::Overrides => "overrides.",
    };
    let name = key.name();
    let rest = match key.of() {
        KeyOf::TopLevelPredicates | KeyOf::AuthConditions => "when".to_string(),
        KeyOf::Limit => format!("limits.{name}"),
        KeyOf::Auth(AuthSection::Patterns) => format!("patterns.{name}"),
        KeyOf::Auth(section) => {
            let section = match section {
                AuthSection::SuccessMetadata => "response.success.filters",
                s => s.as_str(),
            };
            if name.is_empty() {
                format!("rules.{section}")
            } else {
                format!("rules.{section}.{name}")
            }
        }
    };
    format!("{prefix}{rest}")
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KindEntry {
    pub kind: &'static str,
    /// Least → most specific; within a target by creationTimestamp, then namespace/name.
    pub policies: Vec<PolicyEntry>,
    pub rules: Vec<RuleEntry>,
    /// The operator's `SourcePolicies`.
    pub source_policies: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PathEntry {
    pub path_id: String,
    /// `None` when the path is valid; else the operator's message (status and generation skip it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invalid: Option<String>,
    pub kinds: Vec<KindEntry>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Explanation {
    pub target: String,
    pub paths: Vec<PathEntry>,
}

/// The kinds an `explain` TARGET takes.
const TARGET_KINDS: &[RefKind] = &[
    target_kind("gatewayclass", "GatewayClass", true, false),
    target_kind("gateway", "Gateway", false, false),
    target_kind("listener", "Gateway", false, true),
    target_kind("httproute", "HTTPRoute", false, false),
    target_kind("grpcroute", "GRPCRoute", false, false),
];

const fn target_kind(
    word: &'static str,
    kind: &'static str,
    cluster_scoped: bool,
    needs_section: bool,
) -> RefKind {
    RefKind {
        word,
        kind,
        group: GATEWAY_API_GROUP,
        cluster_scoped,
        needs_section,
    }
}

/// Parse a TARGET: `gatewayclass/NAME`, `gateway/NS/NAME`, `listener/NS/GW#LISTENER`,
/// `httproute/NS/NAME[#RULE]`, `grpcroute/NS/NAME[#RULE]` (kinds case-insensitive; `gateway/NS/GW#L` is
/// accepted for a listener too).
pub fn parse_target(s: &str) -> Result<Locator, String> {
    Locator::parse_ref(s, TARGET_KINDS).map_err(|e| match e {
        RefError::Syntax(None) => {
            format!("target {s:?}: expected KIND/NAMESPACE/NAME (or gatewayclass/NAME)")
        }
        RefError::Syntax(Some(kind)) => match kind.to_ascii_lowercase().as_str() {
            "gatewayclass" => format!("target {s:?}: expected gatewayclass/NAME"),
            kind => format!("target {s:?}: expected {kind}/NAMESPACE/NAME"),
        },
        RefError::NeedsSection(_) => {
            format!("target {s:?}: expected listener/NAMESPACE/GATEWAY#LISTENER")
        }
        RefError::EmptySection => format!("target {s:?}: empty section name"),
        RefError::UnknownKind(kind) => format!(
            "target {s:?}: unknown kind {:?} (use gatewayclass, gateway, listener, httproute or grpcroute)",
            kind.to_ascii_lowercase()
        ),
    })
}

fn decided_by(t: &Topology, loser: usize, winner: usize) -> DecidedBy {
    let m = t.model;
    let same_level =
        t.policy_target(loser).map(|n| &n.locator) == t.policy_target(winner).map(|n| &n.locator);
    if !same_level {
        DecidedBy::Specificity
    // Index: `loser`/`winner` are policy indices of this model (from the effective fold).
    } else if m.policies[loser].meta.created == m.policies[winner].meta.created {
        DecidedBy::Name
    } else {
        DecidedBy::Timestamp
    }
}

fn sentence(reason: LossReason, step: &str, by: DecidedBy) -> String {
    let rel = |specific: &str, same: &str| match by {
        DecidedBy::Specificity => specific.to_string(),
        DecidedBy::Timestamp => format!("{same} (by creationTimestamp)"),
        DecidedBy::Name => format!("{same} (equal creationTimestamps: by namespace/name)"),
    };
    match reason {
        LossReason::AtomicDefaultsDiscarded => format!(
            "atomic defaults discarded whole: a {} policy already sets rules",
            rel("more specific", "newer")
        ),
        LossReason::MergeDefaultKeyTaken => format!(
            "merge default not applied: a {} policy sets this key",
            rel("more specific", "newer")
        ),
        LossReason::DiscardedByAtomicOverride => format!(
            "discarded by the atomic overrides of {step}, a {} policy",
            rel("less specific", "older")
        ),
        LossReason::OverriddenByMergeOverride => format!(
            "overridden by the merge overrides of {step}, a {} policy",
            rel("less specific", "older")
        ),
        LossReason::ReplacedByAtomicDefaults => format!(
            "replaced by the atomic defaults of {step}: the {} side had no rules of substance",
            rel("more specific", "newer")
        ),
    }
}

/// The rules of one fold: every effective rule with its winner and content, and every rule that
/// lost, with the reason, in rule-key order.
fn rule_entries(t: &Topology, tr: &effective::Traced) -> Vec<RuleEntry> {
    let m = t.model;
    // Index: called with policy indices of this model only (from the effective fold).
    let key = |i: usize| m.policies[i].meta.key();
    let field = |rule: &RuleKey, i: usize| {
        let p = &m.policies[i];
        let block = merge::block_and_strategy(p).map_or(Block::Implicit, |(b, _)| b);
        field_path(rule, block)
    };
    let mut rules: BTreeMap<RuleKey, RuleEntry> = BTreeMap::new();
    for r in tr.folded.rules.values() {
        rules.insert(
            r.key.clone(),
            RuleEntry {
                key: r.key.to_string(),
                field: field(&r.key, r.source),
                winner: Some(key(r.source)),
                content: Some(RuleContent::of(&r.value)),
                losers: vec![],
            },
        );
    }
    for loss in &tr.folded.losses {
        let e = rules.entry(loss.key.clone()).or_insert_with(|| RuleEntry {
            key: loss.key.to_string(),
            field: field(&loss.key, loss.loser),
            winner: None,
            content: None,
            losers: vec![],
        });
        let rival = match loss.reason {
            LossReason::DiscardedByAtomicOverride
            | LossReason::OverriddenByMergeOverride
            | LossReason::ReplacedByAtomicDefaults => loss.step_source,
            _ => loss
                .beaten_by
                .iter()
                .copied()
                .find(|&b| decided_by(t, loss.loser, b) != DecidedBy::Specificity)
                .or(loss.beaten_by.first().copied())
                .unwrap_or(loss.step_source),
        };
        let by = decided_by(t, loss.loser, rival);
        let step = key(loss.step_source);
        e.losers.push(Loser {
            policy: key(loss.loser),
            reason: loss.reason,
            explanation: sentence(loss.reason, &step, by),
            step,
            beaten_by: loss.beaten_by.iter().map(|&b| key(b)).collect(),
            decided_by: by,
        });
    }
    rules.into_values().collect()
}

/// Why a target cannot be explained. The caller decides what to do: `explain` refuses the
/// command line, `watch explain` shows it after the cycle and keeps watching.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExplainError {
    /// No object of the topology has this locator.
    #[error("{target} is not in the topology")]
    NotInTopology { target: Locator },
    /// On 1.4, a route rule named `section` is known only by its position, `rule` (`rule-N`):
    /// `object` is the route's locator, `kind` its kind as a target spells it.
    #[error(
        "{target} is not in the topology: {section} is {rule} on 1.4 (operator 1.4 names rules only by position); explain {kind}/{name}#{rule}, or emulate operator 1.5, which honours rule names, with --kuadrant-version 1.5"
    )]
    PositionalRule {
        target: Locator,
        section: String,
        rule: String,
        kind: String,
        name: String,
    },
}

/// Explain every path through `target`, optionally for one policy kind. `Err` when the target is not in
/// the topology.
pub fn explain(
    t: &Topology,
    target: &Locator,
    kind: Option<PolicyKind>,
) -> Result<Explanation, ExplainError> {
    let m = t.model;
    if t.node(target).is_none() {
        if let (Some(rule), Some((object, section))) =
            (t.positional_rule(target), target.split_section())
        {
            return Err(ExplainError::PositionalRule {
                target: target.clone(),
                section: section.to_string(),
                rule: rule.to_string(),
                kind: object
                    .as_str()
                    .split(['.', ':'])
                    .next()
                    .unwrap_or_default()
                    .to_string(),
                name: object.name_part().to_string(),
            });
        }
        return Err(ExplainError::NotInTopology {
            target: target.clone(),
        });
    }
    let kinds: Vec<PolicyKind> = [
        PolicyKind::RateLimit,
        PolicyKind::Auth,
        PolicyKind::TokenRateLimit,
    ]
    .into_iter()
    .filter(|k| kind.is_none_or(|x| x == *k))
    .collect();
    // Index: called with policy indices of this model only (from the effective fold).
    let key = |i: usize| m.policies[i].meta.key();
    let mut out = Vec::new();
    for path in t.paths() {
        if !t.path_locators(&path).contains(target) {
            continue;
        }
        let mut entries = Vec::new();
        for &k in &kinds {
            let Some(tr) = effective::effective_for_path(t, &path, k) else {
                continue;
            };
            let policies = tr
                .effective
                .policies
                .iter()
                .map(|&i| {
                    let p = &m.policies[i];
                    let (block, _) = merge::block_and_strategy(p)
                        .unwrap_or((Block::Implicit, crate::model::Strategy::Atomic));
                    PolicyEntry {
                        kind: p.kind.kind(),
                        policy: key(i),
                        attached_to: t
                            .policy_target(i)
                            .map(|n| format!("{} {}", n.kind, n.name()))
                            .unwrap_or_default(),
                        block,
                        strategy: merge::strategy_of(p).unwrap_or(MergeStrategy::AtomicDefaults),
                        creation_timestamp: p.meta.creation_timestamp.clone(),
                        created_by: p.meta.derived_from.clone(),
                    }
                })
                .collect();
            let rules = rule_entries(t, &tr);
            entries.push(KindEntry {
                kind: k.kind(),
                policies,
                rules,
                source_policies: tr
                    .effective
                    .sources
                    .iter()
                    .map(|l| l.name_part().to_string())
                    .collect(),
            });
        }
        out.push(PathEntry {
            path_id: t.path_id(&path),
            invalid: status::path_validity(t, &path).err(),
            kinds: entries,
        });
    }
    Ok(Explanation {
        target: target.to_string(),
        paths: out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_paths_follow_the_policy_json_tags() {
        let f = field_path;
        assert_eq!(
            f(&RuleKey::limit("create-toy"), Block::Implicit),
            "limits.create-toy"
        );
        assert_eq!(
            f(&RuleKey::limit("x"), Block::Defaults),
            "defaults.limits.x"
        );
        assert_eq!(
            f(&RuleKey::top_level_predicates(), Block::Overrides),
            "overrides.when"
        );
        assert_eq!(f(&RuleKey::auth_conditions(), Block::Implicit), "when");
        let auth = |s, n| RuleKey::auth(s, n);
        assert_eq!(
            f(
                &auth(AuthSection::Authentication, "api-key-users"),
                Block::Implicit
            ),
            "rules.authentication.api-key-users"
        );
        assert_eq!(
            f(
                &auth(AuthSection::SuccessMetadata, "identity"),
                Block::Implicit
            ),
            "rules.response.success.filters.identity"
        );
        assert_eq!(
            f(
                &auth(AuthSection::SuccessHeaders, "x-user"),
                Block::Defaults
            ),
            "defaults.rules.response.success.headers.x-user"
        );
        assert_eq!(
            f(&auth(AuthSection::Unauthenticated, ""), Block::Implicit),
            "rules.response.unauthenticated"
        );
        assert_eq!(
            f(&auth(AuthSection::Patterns, "admin"), Block::Implicit),
            "patterns.admin"
        );
        // The operator's keys are written from the typed key.
        assert_eq!(
            auth(AuthSection::SuccessMetadata, "identity").as_str(),
            "response.success.metadata#identity"
        );
        assert_eq!(
            auth(AuthSection::Unauthorized, "").as_str(),
            "response.unauthorized#"
        );
        assert_eq!(auth(AuthSection::Metadata, "m").name(), "m");
    }

    #[test]
    fn targets_parse() {
        assert_eq!(
            parse_target("httproute/ns/r#rule-2").unwrap().as_str(),
            "httproute.gateway.networking.k8s.io:ns/r#rule-2"
        );
        assert_eq!(
            parse_target("listener/ns/gw#l").unwrap().as_str(),
            "gateway.gateway.networking.k8s.io:ns/gw#l"
        );
        assert_eq!(
            parse_target("GatewayClass/istio").unwrap().as_str(),
            "gatewayclass.gateway.networking.k8s.io:istio"
        );
        assert!(parse_target("listener/ns/gw").is_err());
        assert!(parse_target("service/ns/s").is_err());
        assert!(parse_target("gateway/gw").is_err());
    }
}
