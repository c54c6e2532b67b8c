//! The verdicts of a schema node's `x-kubernetes-validations` rules, kept by value.
//!
//! A rule's verdict is a function of the value it is evaluated on and of its schema (defaults
//! included) and of nothing else: the rules are pure, their errors are values, and a transition
//! rule is never evaluated offline (there is no old object). A large estate repeats small values
//! under the same rules: each HTTPRoute's `parentRefs` names one of a few Gateways and is checked
//! by two rules that compare every reference with every other; its `backendRefs` name Services
//! on the same ports. Each thread keeps the verdicts of the values it met, keyed by the rule set
//! and an encoding of the value that tells every two different values apart, and gives them again
//! for an equal value.
//!
//! A rule set whose values do not repeat (each route's own path) is evaluated directly once a
//! thread has met enough of its values to see that few repeat, and a value whose encoding is long
//! is not kept: the verdicts are the same either way, only the time differs. Enough is counted in
//! distinct values, not in values looked up: the `parentRefs` of an estate's routes may name a
//! hundred Gateways, each many times in the end, and a thread can meet a hundred routes before it
//! meets one of their Gateways again.

use super::Schema;
use super::cel::{Rules, V};
use crate::load::node::{Node, Value};
use foldhash::HashMap;
use std::cell::RefCell;
use std::rc::Rc;

/// A rule's verdict, apart from the value it was reached on.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Verdict {
    /// The rule evaluated to `true`.
    Holds,
    /// It evaluated to anything else: its message is the finding.
    Fails,
    /// Its evaluation ended in an error.
    Error(Rc<str>),
}

impl Verdict {
    fn of(v: V<'_>) -> Verdict {
        match v {
            V::Bool(true) => Verdict::Holds,
            V::Err(e) => Verdict::Error(e),
            _ => Verdict::Fails,
        }
    }
}

/// The longest encoding of a value kept (bytes): the repeated values are small mappings and
/// lists; a long one costs its encoding on every lookup and is rarely met twice.
const LONGEST: usize = 512;
/// The bytes of keys and verdicts one thread keeps; beyond them new values are evaluated and not
/// kept.
const MOST_KEPT: usize = 8 << 20;
/// Distinct values of a rule set a thread keeps before it judges whether they repeat enough: given
/// up from then on whenever fewer than one in four of the values looked up were met before.
const TRIAL: u64 = 256;

/// Each rule's verdict on a value, by rule (the rules evaluated).
type Verdicts = Box<[(usize, Verdict)]>;

/// What a thread knows of one rule set's values.
#[derive(Default)]
struct Trial {
    /// Values looked up, and found.
    looked: u64,
    hits: u64,
    /// The verdicts of the values kept, by their encoding; the bytes they count towards
    /// [`MOST_KEPT`].
    seen: HashMap<Box<[u8]>, Verdicts>,
    bytes: usize,
    /// Given up: its values are evaluated directly, and none is kept.
    direct: bool,
}

impl Trial {
    /// Whether the values looked up so far repeat too rarely to be worth keeping.
    fn gives_up(&self) -> bool {
        self.looked - self.hits > TRIAL && self.hits * 4 < self.looked
    }
}

#[derive(Default)]
struct Memo {
    /// The encoding of the value looked up (reused from value to value).
    key: Vec<u8>,
    /// By rule set (by its id, a small number).
    trials: Vec<Trial>,
    /// The bytes kept by every rule set.
    kept: usize,
}

thread_local! {
    static MEMO: RefCell<Memo> = RefCell::default();
}

/// Each rule's verdict on `this` (`Rules::eval`), given again for a value met before.
pub(super) fn eval<'a>(
    rules: &'a Rules,
    this: &'a Node,
    schema: &'a Schema,
    vars: &mut Vec<V<'a>>,
    mut verdict: impl FnMut(usize, Verdict),
) {
    let id = rules.id();
    /// What the memo says of the value.
    enum Step {
        /// Not kept for this rule set (or too long to encode): evaluate.
        Direct,
        /// Met before: its verdicts were given again.
        Given,
        /// Not met before: evaluate, and keep the verdicts when there is room.
        Evaluate { keep: bool },
    }
    let step = MEMO.with_borrow_mut(|m| {
        let Memo { key, trials, kept } = m;
        if id == 0 {
            return Step::Direct;
        }
        if trials.len() <= id {
            trials.resize_with(id + 1, Trial::default);
        }
        let trial = &mut trials[id];
        if trial.direct {
            return Step::Direct;
        }
        if trial.gives_up() {
            // What it kept is let go, and leaves room for the others.
            trial.direct = true;
            *kept -= trial.bytes;
            trial.bytes = 0;
            trial.seen = HashMap::default();
            return Step::Direct;
        }
        trial.looked += 1;
        key.clear();
        if !encode(this, key) {
            return Step::Direct;
        }
        match trial.seen.get(key.as_slice()) {
            Some(verdicts) => {
                trial.hits += 1;
                for (i, v) in verdicts.iter() {
                    verdict(*i, v.clone());
                }
                Step::Given
            }
            None => Step::Evaluate {
                keep: *kept + key.len() <= MOST_KEPT,
            },
        }
    });
    match step {
        Step::Given => {}
        Step::Direct => rules.eval(this, schema, vars, |i, v| verdict(i, Verdict::of(v))),
        Step::Evaluate { keep } => {
            let mut got = Vec::new();
            rules.eval(this, schema, vars, |i, v| got.push((i, Verdict::of(v))));
            for (i, v) in &got {
                verdict(*i, v.clone());
            }
            if keep {
                MEMO.with_borrow_mut(|m| {
                    let bytes = m.key.len() + got.len() * std::mem::size_of::<(usize, Verdict)>();
                    let key: Box<[u8]> = m.key.as_slice().into();
                    m.kept += bytes;
                    let trial = &mut m.trials[id];
                    trial.bytes += bytes;
                    trial.seen.insert(key, got.into_boxed_slice());
                });
            }
        }
    }
}

/// Append an encoding of `n`'s value to `out`: a tag per value, lengths before texts, lists and
/// mappings (entries in their order), so that two values have the same encoding only when they
/// are equal. False, with part of it appended, when it would be longer than [`LONGEST`].
fn encode(n: &Node, out: &mut Vec<u8>) -> bool {
    fn text(s: &str, out: &mut Vec<u8>) {
        out.extend_from_slice(&(s.len() as u64).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    if out.len() > LONGEST {
        return false;
    }
    match &n.value {
        Value::Null => out.push(0),
        Value::Bool(b) => out.push(1 + u8::from(*b)),
        Value::Int(i) => {
            out.push(3);
            out.extend_from_slice(&i.to_le_bytes());
        }
        Value::Float(f) => {
            out.push(4);
            out.extend_from_slice(&f.to_bits().to_le_bytes());
        }
        Value::Str(s) => {
            out.push(5);
            text(s, out);
        }
        Value::Seq(items) => {
            out.push(6);
            out.extend_from_slice(&(items.len() as u64).to_le_bytes());
            for item in items {
                if !encode(item, out) {
                    return false;
                }
            }
        }
        Value::Map(entries) => {
            out.push(7);
            out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
            for e in entries {
                text(&e.key.value, out);
                if !encode(&e.value, out) {
                    return false;
                }
            }
        }
    }
    out.len() <= LONGEST
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::schema::cel::Rule;
    use crate::source::Span;
    use serde_json::json;

    fn node(v: serde_json::Value) -> Node {
        Node::from_json(&v, Span::default())
    }

    fn key(n: &Node) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        encode(n, &mut out).then_some(out)
    }

    /// Values that differ have different encodings, including those a plain concatenation of
    /// their texts would not tell apart, and numbers of different types; an equal value has the
    /// same one; a long value has none.
    #[test]
    fn encodings_tell_values_apart() {
        let values = [
            json!(null),
            json!(true),
            json!(false),
            json!(1),
            json!(1.0),
            json!("1"),
            json!(""),
            json!([]),
            json!({}),
            json!(["ab", "c"]),
            json!(["a", "bc"]),
            json!(["abc"]),
            json!([["a"], "b"]),
            json!([["a", "b"]]),
            json!({"a": "b"}),
            json!({"ab": ""}),
            json!({"a": {"b": null}}),
            json!({"a": null, "b": null}),
            json!({"b": null, "a": null}),
            json!([{"name": "gw", "namespace": "ns"}]),
            json!([{"name": "gw", "namespace": "ns"}, {"name": "gw", "namespace": "ns"}]),
        ];
        let keys: Vec<Vec<u8>> = values
            .iter()
            .map(|v| key(&node(v.clone())).unwrap())
            .collect();
        for (i, a) in keys.iter().enumerate() {
            for (j, b) in keys.iter().enumerate() {
                assert_eq!(a == b, i == j, "{} and {}", values[i], values[j]);
            }
            assert_eq!(key(&node(values[i].clone())).as_ref(), Some(a));
        }
        assert_eq!(key(&node(json!("x".repeat(LONGEST)))), None);
        assert_eq!(key(&node(json!(vec!["abc"; LONGEST / 8]))), None);
    }

    /// Kept or not, the verdicts are those of the rules evaluated on the value: for values met
    /// again and again (given again), for values each met once, and for rules that hold, fail or
    /// end in an error.
    #[test]
    fn verdicts_given_again_are_the_rules_verdicts() {
        let rules: Vec<Rule> = [
            "self.all(p1, self.exists_one(p2, p1.name == p2.name))",
            "self.size() < 3",
            "self[0].port > 0",
        ]
        .iter()
        .filter_map(|r| Rule::compile(&json!({ "rule": r })))
        .collect();
        assert_eq!(rules.len(), 3);
        let set = Rules::compile(&rules);
        assert_ne!(set.id(), 0);
        let schema = Schema::any();
        let repeated = [
            json!([{"name": "a", "port": 1}]),
            json!([{"name": "a"}, {"name": "a"}]),
            json!([{"name": "a", "port": 0}, {"name": "b"}, {"name": "c"}]),
            json!([]),
        ];
        let once = (0..3 * TRIAL).map(|i| json!([{"name": format!("r{i}"), "port": i}]));
        let values: Vec<serde_json::Value> = (0..TRIAL as usize * 2)
            .map(|i| repeated[i % repeated.len()].clone())
            .chain(once)
            .collect();
        let mut found = std::collections::BTreeSet::new();
        for v in &values {
            let this = node(v.clone());
            let mut vars = Vec::new();
            let mut want = Vec::new();
            set.eval(&this, &schema, &mut vars, |i, v| {
                want.push((i, Verdict::of(v)))
            });
            let mut got = Vec::new();
            eval(&set, &this, &schema, &mut vars, |i, v| got.push((i, v)));
            assert_eq!(got, want, "{v}");
            found.extend(got.iter().map(|(_, v)| match v {
                Verdict::Holds => "holds",
                Verdict::Fails => "fails",
                Verdict::Error(_) => "error",
            }));
        }
        assert_eq!(found.len(), 3, "holds, fails and errors: {found:?}");
        let (looked, hits) =
            MEMO.with_borrow(|m| (m.trials[set.id()].looked, m.trials[set.id()].hits));
        assert!(
            hits as usize >= 2 * TRIAL as usize - repeated.len(),
            "{hits} found of {looked}"
        );
    }

    /// A rule set of one rule.
    fn rule_set(rule: &str) -> Rules {
        let rules: Vec<Rule> = Rule::compile(&json!({ "rule": rule }))
            .into_iter()
            .collect();
        assert_eq!(rules.len(), 1, "{rule}");
        Rules::compile(&rules)
    }

    /// A rule set's trial after `values` are looked up in turn on this thread: given up, and the
    /// values found.
    fn trial_after(set: &Rules, values: impl Iterator<Item = serde_json::Value>) -> (bool, u64) {
        let schema = Schema::any();
        for v in values {
            let this = node(v);
            eval(set, &this, &schema, &mut Vec::new(), |_, _| {});
        }
        MEMO.with_borrow(|m| (m.trials[set.id()].direct, m.trials[set.id()].hits))
    }

    /// Routes that name a hundred Gateways in turn: a thread meets each Gateway once before it
    /// meets one again, and keeps them all (judged on the first 64 values, none of which
    /// repeats, they were given up).
    #[test]
    fn a_hundred_values_met_in_turn_are_kept() {
        let set = rule_set("self.all(p1, self.exists_one(p2, p1.name == p2.name))");
        let parent =
            |i: usize| json!([{"name": format!("gw-{}", i % 100), "namespace": "ingress"}]);
        let (direct, hits) = trial_after(&set, (0..3000).map(parent));
        assert!(!direct);
        assert_eq!(hits, 3000 - 100);
    }

    /// Values that never repeat are given up once more than [`TRIAL`] of them are kept, and the
    /// bytes they were kept in are let go for the other rule sets.
    #[test]
    fn values_that_never_repeat_are_given_up_and_let_go() {
        let set = rule_set("self.size() < 3");
        let (direct, hits) = trial_after(&set, (0..TRIAL).map(|i| json!([format!("p{i}")])));
        assert!(!direct, "not judged before more than TRIAL values");
        assert_eq!(hits, 0);
        assert!(MEMO.with_borrow(|m| m.kept) > 0);
        let (direct, _) = trial_after(&set, (0..2).map(|i| json!([format!("q{i}")])));
        assert!(direct);
        assert_eq!(MEMO.with_borrow(|m| m.kept), 0);
    }
}
