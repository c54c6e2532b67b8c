//! The operator's merge of policies along one path (`docs/semantics/merge.md`;
//! kuadrant-operator v1.5.2 `api/v1/merge_strategies.go`).
//!
//! Policies are folded right to left: the accumulator starts as the most specific (last) policy, and
//! each step calls the *source* policy's strategy with the accumulator as *target*. Every rule keeps the
//! policy it was written in. Each step also reports which rules it dropped, so `explain` and the
//! tie-break warning can say why a rule lost.

use super::{AuthSection, EffectiveRule, KeyOf, RuleKey, RuleValue};
use crate::model::{Block, Policy, PolicyBody, Strategy};
use serde::Serialize;
use std::borrow::Borrow;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// The strategy a policy applies when it is folded in as the source of a merge step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum MergeStrategy {
    AtomicDefaults,
    MergeDefaults,
    AtomicOverrides,
    MergeOverrides,
}

impl MergeStrategy {
    /// `GetMergeStrategy`: defaults first, then overrides, bare rules are atomic defaults.
    pub fn of(block: Block, strategy: Strategy) -> Self {
        match (block, strategy) {
            (Block::Implicit, _) => MergeStrategy::AtomicDefaults,
            (Block::Defaults, Strategy::Atomic) => MergeStrategy::AtomicDefaults,
            (Block::Defaults, Strategy::Merge) => MergeStrategy::MergeDefaults,
            (Block::Overrides, Strategy::Atomic) => MergeStrategy::AtomicOverrides,
            (Block::Overrides, Strategy::Merge) => MergeStrategy::MergeOverrides,
        }
    }
}

/// The block and strategy of a mergeable policy (`None` for DNS/TLS).
pub(crate) fn block_and_strategy(p: &Policy) -> Option<(Block, Strategy)> {
    match &p.body {
        PolicyBody::RateLimit(s) | PolicyBody::TokenRateLimit(s) => Some((s.block, s.strategy)),
        PolicyBody::Auth(s) => Some((s.block, s.strategy)),
        PolicyBody::Direct(_) => None,
    }
}

/// The merge strategy of a mergeable policy.
pub(crate) fn strategy_of(p: &Policy) -> Option<MergeStrategy> {
    block_and_strategy(p).map(|(b, s)| MergeStrategy::of(b, s))
}

/// The operator's `Rules()` of a policy: rule key → value, from the block that is used (`Proper()`).
pub(crate) fn policy_rules(p: &Policy) -> BTreeMap<RuleKey, RuleValue> {
    let mut out = BTreeMap::new();
    visit_rules(p, true, |k, v| {
        if let Some(v) = v {
            out.insert(k, v);
        }
    });
    out
}

/// The keys of [`policy_rules`], in its order, without copying the rules' values (an AuthPolicy's
/// rules are JSON trees).
pub(crate) fn policy_rule_keys(p: &Policy) -> Vec<RuleKey> {
    let mut out = Vec::new();
    visit_rules(p, false, |k, _| out.push(k));
    out.sort();
    out.dedup();
    out
}

/// Each rule of [`policy_rules`] to `add`, in the order it inserts them: its key, and with
/// `values` its value.
fn visit_rules(p: &Policy, values: bool, mut add: impl FnMut(RuleKey, Option<RuleValue>)) {
    match &p.body {
        PolicyBody::RateLimit(s) | PolicyBody::TokenRateLimit(s) => {
            if !s.when.is_empty() {
                add(
                    RuleKey::top_level_predicates(),
                    values.then(|| RuleValue::When(s.when.clone())),
                );
            }
            for (name, limit) in &s.limits {
                add(
                    RuleKey::limit(name),
                    values.then(|| RuleValue::Limit(limit.clone())),
                );
            }
        }
        PolicyBody::Auth(s) => {
            let auth = |section, v: &serde_json::Value| {
                values.then(|| RuleValue::Auth(section, Arc::new(v.clone())))
            };
            for (name, v) in &s.patterns {
                let section = AuthSection::Patterns;
                add(RuleKey::auth(section, name), auth(section, v));
            }
            if !s.when.is_empty() {
                add(
                    RuleKey::auth_conditions(),
                    values.then(|| RuleValue::When(s.when.clone())),
                );
            }
            if let Some(r) = &s.rules {
                let sections = [
                    (AuthSection::Authentication, &r.authentication),
                    (AuthSection::Metadata, &r.metadata),
                    (AuthSection::Authorization, &r.authorization),
                    (AuthSection::Callbacks, &r.callbacks),
                    (AuthSection::SuccessHeaders, &r.success_headers),
                    (AuthSection::SuccessMetadata, &r.success_filters),
                ];
                for (section, map) in sections {
                    for (name, v) in map {
                        add(RuleKey::auth(section, name), auth(section, v));
                    }
                }
                for (section, v) in [
                    (AuthSection::Unauthenticated, &r.unauthenticated),
                    (AuthSection::Unauthorized, &r.unauthorized),
                ] {
                    if let Some(v) = v {
                        add(RuleKey::auth(section, ""), auth(section, v));
                    }
                }
            }
        }
        PolicyBody::Direct(_) => {}
    }
}

/// Whether a rule key counts towards the operator's `Empty()` (RLP/TRLP: limits; AuthPolicy: anything
/// in the auth scheme, i.e. not patterns and not the top-level conditions).
fn counts_for_emptiness(key: &RuleKey) -> bool {
    match key.of() {
        KeyOf::Limit => true,
        KeyOf::Auth(section) => section != AuthSection::Patterns,
        KeyOf::TopLevelPredicates | KeyOf::AuthConditions => false,
    }
}

/// Why a rule dropped out of the accumulated policy in a merge step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum LossReason {
    /// The source's atomic defaults were discarded whole: the more specific (or newer) side already
    /// had rules.
    AtomicDefaultsDiscarded,
    /// The source's merge defaults did not fill this key: the more specific (or newer) side has it.
    MergeDefaultKeyTaken,
    /// The source's atomic overrides replaced everything accumulated so far.
    DiscardedByAtomicOverride,
    /// The source's merge overrides replaced this key.
    OverriddenByMergeOverride,
    /// The accumulated policy had no rules of substance, so the source's atomic defaults replaced it.
    ReplacedByAtomicDefaults,
}

/// One rule that left the accumulated policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loss {
    pub key: RuleKey,
    /// The policy the losing rule was written in (index into `Model::policies`).
    pub loser: usize,
    pub reason: LossReason,
    /// The policy whose strategy decided this step (the source).
    pub step_source: usize,
    /// Policies that hold the key (or, when the key vanished, every rule source) after the step.
    pub beaten_by: Vec<usize>,
}

/// One mergeable policy in fold order.
#[derive(Clone, Debug)]
pub(crate) struct FoldInput {
    pub policy: usize,
    pub strategy: MergeStrategy,
    pub rules: BTreeMap<RuleKey, RuleValue>,
}

impl FoldInput {
    pub(crate) fn of(index: usize, p: &Policy) -> Option<Self> {
        Some(FoldInput {
            policy: index,
            strategy: strategy_of(p)?,
            rules: policy_rules(p),
        })
    }
}

/// The result of folding the policies of one path.
#[derive(Clone, Debug, Default)]
pub struct Folded {
    pub rules: BTreeMap<RuleKey, EffectiveRule>,
    /// Every rule that was dropped on the way, in step order.
    pub losses: Vec<Loss>,
}

type Acc = BTreeMap<RuleKey, EffectiveRule>;

fn stamp(input: &FoldInput) -> Acc {
    input
        .rules
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                EffectiveRule {
                    key: k.clone(),
                    source: input.policy,
                    value: v.clone(),
                },
            )
        })
        .collect()
}

/// One merge step: `source`'s strategy applied to the accumulated `target`.
fn step(source: &FoldInput, target: Acc) -> Acc {
    match source.strategy {
        MergeStrategy::AtomicDefaults => {
            if target.keys().any(counts_for_emptiness) {
                target
            } else {
                stamp(source)
            }
        }
        MergeStrategy::AtomicOverrides => stamp(source),
        MergeStrategy::MergeDefaults => {
            let mut out = target;
            for (k, v) in &source.rules {
                out.entry(k.clone()).or_insert_with(|| EffectiveRule {
                    key: k.clone(),
                    source: source.policy,
                    value: v.clone(),
                });
            }
            out
        }
        MergeStrategy::MergeOverrides => {
            let mut out = stamp(source);
            for (k, r) in target {
                out.entry(k).or_insert(r);
            }
            out
        }
    }
}

/// `EffectivePolicyForPath`: fold `inputs` (least → most specific) right to left. `None` when empty.
pub(crate) fn fold<I: Borrow<FoldInput>>(inputs: &[I]) -> Option<Folded> {
    fold_tracking(inputs, true)
}

/// [`fold`] without the record of dropped rules (`losses` stays empty): what the effective
/// policies of the paths need, and half the work.
pub(crate) fn fold_rules<I: Borrow<FoldInput>>(inputs: &[I]) -> Option<Folded> {
    fold_tracking(inputs, false)
}

fn fold_tracking<I: Borrow<FoldInput>>(inputs: &[I], track: bool) -> Option<Folded> {
    let last = inputs.last()?.borrow();
    let mut acc = stamp(last);
    let mut losses = Vec::new();
    // The first step folds the last policy onto its own rules, which gives them back whatever its
    // strategy: only the record of losses (none) goes through it.
    let first = usize::from(!track);
    for source in inputs.iter().rev().skip(first).map(Borrow::borrow) {
        if !track {
            acc = step(source, acc);
            continue;
        }
        let next = step(source, acc.clone());
        let mut candidates: BTreeSet<(RuleKey, usize, bool)> = BTreeSet::new();
        for (k, r) in &acc {
            candidates.insert((k.clone(), r.source, true));
        }
        for k in source.rules.keys() {
            candidates.insert((k.clone(), source.policy, false));
        }
        let after_sources: Vec<usize> = next
            .values()
            .map(|r| r.source)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        for (key, loser, from_target) in candidates {
            if next.get(&key).is_some_and(|r| r.source == loser) {
                continue;
            }
            if !from_target && acc.get(&key).is_some_and(|r| r.source == loser) {
                continue;
            }
            let reason = match (source.strategy, from_target) {
                (MergeStrategy::AtomicDefaults, false) => LossReason::AtomicDefaultsDiscarded,
                (MergeStrategy::AtomicDefaults, true) => LossReason::ReplacedByAtomicDefaults,
                (MergeStrategy::MergeDefaults, _) => LossReason::MergeDefaultKeyTaken,
                (MergeStrategy::AtomicOverrides, _) => LossReason::DiscardedByAtomicOverride,
                (MergeStrategy::MergeOverrides, _) => LossReason::OverriddenByMergeOverride,
            };
            let beaten_by = match next.get(&key) {
                Some(r) => vec![r.source],
                None => after_sources.clone(),
            };
            losses.push(Loss {
                key,
                loser,
                reason,
                step_source: source.policy,
                beaten_by,
            });
        }
        acc = next;
    }
    Some(Folded { rules: acc, losses })
}

/// `SourcePoliciesFromEffectivePolicy` as policy indices (sorting by locator happens in the caller).
pub(crate) fn rule_sources(rules: &BTreeMap<RuleKey, EffectiveRule>) -> BTreeSet<usize> {
    rules.values().map(|r| r.source).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Limit, Sp};

    /// A rate limit policy is empty when it has no limits, whatever the limits are called
    /// (kuadrant-operator v1.5.2 api/v1/ratelimitpolicy_types.go `Empty()`: `len(limits) == 0`);
    /// an AuthPolicy's named patterns and either policy's top-level conditions do not count
    /// (api/v1/authpolicy_types.go `Empty()`: the auth scheme only).
    #[test]
    fn a_limit_counts_for_emptiness_whatever_its_name() {
        assert!(counts_for_emptiness(&RuleKey::limit("patterns#admin")));
        assert!(counts_for_emptiness(&RuleKey::limit("conditions#")));
        assert!(!counts_for_emptiness(&RuleKey::auth(
            AuthSection::Patterns,
            "admin"
        )));
        assert!(counts_for_emptiness(&RuleKey::auth(
            AuthSection::Authentication,
            "api-key"
        )));
        assert!(!counts_for_emptiness(&RuleKey::top_level_predicates()));
        assert!(!counts_for_emptiness(&RuleKey::auth_conditions()));
    }

    fn limit() -> RuleValue {
        RuleValue::Limit(std::sync::Arc::new(Limit {
            when: vec![],
            counters: vec![],
            rates: vec![],
        }))
    }

    fn input(policy: usize, strategy: MergeStrategy, keys: &[&str]) -> FoldInput {
        FoldInput {
            policy,
            strategy,
            rules: keys.iter().map(|k| (RuleKey::limit(k), limit())).collect(),
        }
    }

    fn result(f: &Folded) -> Vec<(String, usize)> {
        f.rules
            .values()
            .map(|r| (r.key.to_string(), r.source))
            .collect()
    }

    fn kv(pairs: &[(&str, usize)]) -> Vec<(String, usize)> {
        pairs.iter().map(|(k, s)| (k.to_string(), *s)).collect()
    }

    /// The fold without the record of losses keeps the rules the full fold keeps, rule by rule
    /// and source by source, for every strategy at every place of lists of one to three policies
    /// (with a `when` rule, which does not count for emptiness, and without rules at all).
    #[test]
    fn fold_rules_keeps_what_fold_keeps() {
        use MergeStrategy::*;
        let strategies = [
            AtomicDefaults,
            MergeDefaults,
            AtomicOverrides,
            MergeOverrides,
        ];
        let keys: [&[&str]; 4] = [&["a", "b"], &["b", "c"], &[], &["a"]];
        let with_when = |mut i: FoldInput| {
            i.rules.insert(
                RuleKey::top_level_predicates(),
                RuleValue::When(vec![Sp::new("W".to_string(), Default::default())]),
            );
            i
        };
        let shown = |f: &Folded| -> Vec<(String, usize)> {
            f.rules
                .values()
                .map(|r| (r.key.to_string(), r.source))
                .collect()
        };
        let mut lists: Vec<Vec<FoldInput>> = Vec::new();
        for (i, &a) in strategies.iter().enumerate() {
            lists.push(vec![input(0, a, keys[i])]);
            for (j, &b) in strategies.iter().enumerate() {
                lists.push(vec![input(0, a, keys[i]), input(1, b, keys[j])]);
                lists.push(vec![with_when(input(0, a, keys[j])), input(1, b, keys[2])]);
                for (k, &c) in strategies.iter().enumerate() {
                    lists.push(vec![
                        input(0, a, keys[i]),
                        input(1, b, keys[j]),
                        input(2, c, keys[k]),
                    ]);
                }
            }
        }
        assert_eq!(lists.len(), 4 + 2 * 16 + 64);
        for list in &lists {
            let full = fold(list).unwrap();
            let refs: Vec<&FoldInput> = list.iter().collect();
            assert_eq!(shown(&fold_rules(&refs).unwrap()), shown(&full), "{list:?}");
            assert!(fold_rules(&refs).unwrap().losses.is_empty());
        }
    }

    const G: usize = 0;
    const R: usize = 1;

    // The merge table (docs/semantics/README.md), row by row (G on the gateway, R on the route).
    #[test]
    fn atomic_defaults_lose_entirely_to_route() {
        let f = fold(&[
            input(G, MergeStrategy::AtomicDefaults, &["a"]),
            input(R, MergeStrategy::AtomicDefaults, &["c"]),
        ])
        .unwrap();
        assert_eq!(result(&f), kv(&[("c", R)]));
        assert_eq!(f.losses.len(), 1);
        assert_eq!(f.losses[0].loser, G);
        assert_eq!(f.losses[0].reason, LossReason::AtomicDefaultsDiscarded);
        assert_eq!(f.losses[0].beaten_by, vec![R]);
    }

    #[test]
    fn lone_defaults_apply() {
        let f = fold(&[input(G, MergeStrategy::AtomicDefaults, &["a"])]).unwrap();
        assert_eq!(result(&f), kv(&[("a", G)]));
        assert!(f.losses.is_empty());
    }

    #[test]
    fn merge_defaults_fill_missing_keys() {
        let f = fold(&[
            input(G, MergeStrategy::MergeDefaults, &["a", "b"]),
            input(R, MergeStrategy::AtomicDefaults, &["b", "c"]),
        ])
        .unwrap();
        assert_eq!(result(&f), kv(&[("a", G), ("b", R), ("c", R)]));
        assert_eq!(f.losses.len(), 1);
        assert_eq!((f.losses[0].key.as_str(), f.losses[0].loser), ("b", G));
        assert_eq!(f.losses[0].reason, LossReason::MergeDefaultKeyTaken);
    }

    #[test]
    fn atomic_overrides_replace_everything() {
        let f = fold(&[
            input(G, MergeStrategy::AtomicOverrides, &["a"]),
            input(R, MergeStrategy::AtomicDefaults, &["c"]),
        ])
        .unwrap();
        assert_eq!(result(&f), kv(&[("a", G)]));
        assert_eq!(f.losses[0].reason, LossReason::DiscardedByAtomicOverride);
        assert_eq!(f.losses[0].loser, R);
    }

    #[test]
    fn merge_overrides_win_per_key() {
        let f = fold(&[
            input(G, MergeStrategy::MergeOverrides, &["a", "b"]),
            input(R, MergeStrategy::AtomicDefaults, &["b", "c"]),
        ])
        .unwrap();
        assert_eq!(result(&f), kv(&[("a", G), ("b", G), ("c", R)]));
        assert_eq!(f.losses.len(), 1);
        assert_eq!((f.losses[0].key.as_str(), f.losses[0].loser), ("b", R));
        assert_eq!(f.losses[0].reason, LossReason::OverriddenByMergeOverride);
    }

    #[test]
    fn top_level_when_leaks_under_merge_defaults() {
        let mut g = input(G, MergeStrategy::MergeDefaults, &["a"]);
        g.rules.insert(
            RuleKey::top_level_predicates(),
            RuleValue::When(vec![Sp::new("W".to_string(), Default::default())]),
        );
        let f = fold(&[g, input(R, MergeStrategy::AtomicDefaults, &["c"])]).unwrap();
        assert_eq!(
            result(&f),
            kv(&[
                (crate::resolve::TOP_LEVEL_PREDICATES_KEY, G),
                ("a", G),
                ("c", R)
            ])
        );
        assert!(f.losses.is_empty());
    }

    #[test]
    fn sources_survive_several_steps() {
        // Gateway merge-defaults {a}, listener merge-defaults {b}, route atomic {c}: each keeps its source.
        let f = fold(&[
            input(0, MergeStrategy::MergeDefaults, &["a"]),
            input(1, MergeStrategy::MergeDefaults, &["b", "c"]),
            input(2, MergeStrategy::AtomicDefaults, &["c"]),
        ])
        .unwrap();
        assert_eq!(result(&f), kv(&[("a", 0), ("b", 1), ("c", 2)]));
    }

    #[test]
    fn atomic_defaults_only_count_substantial_rules() {
        // A target holding only a top-level `when` is Empty(): atomic defaults replace it.
        let mut r = input(R, MergeStrategy::AtomicDefaults, &[]);
        r.rules.insert(
            RuleKey::top_level_predicates(),
            RuleValue::When(vec![Sp::new("W".to_string(), Default::default())]),
        );
        let f = fold(&[input(G, MergeStrategy::AtomicDefaults, &["a"]), r]).unwrap();
        assert_eq!(result(&f), kv(&[("a", G)]));
        assert_eq!(f.losses[0].reason, LossReason::ReplacedByAtomicDefaults);
    }

    /// The keys alone are the keys of the rules, in the same order, for every policy of every
    /// case estate (rate limits, top-level `when`, every AuthPolicy section) at both releases.
    #[test]
    fn rule_keys_are_the_rules_keys() {
        let mut cases = crate::generate::testdata_cases("cases");
        cases.push("examples/toystore".into());
        let mut seen = 0;
        for case in &cases {
            for version in [
                crate::model::KuadrantVersion::V1_4,
                crate::model::KuadrantVersion::V1_5,
            ] {
                let m = crate::generate::testdata_model(case, version);
                for p in &m.policies {
                    let want: Vec<RuleKey> = policy_rules(p).into_keys().collect();
                    seen += want.len();
                    assert_eq!(policy_rule_keys(p), want, "{case}: {}", p.display());
                }
            }
        }
        assert!(seen > 60, "{seen} rule keys");
    }
}
