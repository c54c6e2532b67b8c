//! The last state's Limitador, kept for `watch`'s incremental cycles (`docs/architecture.md`,
//! "watch: incremental cycles").
//!
//! A large estate's Limitador is one object of a hundred thousand limits and one file of tens of
//! megabytes. An incremental cycle replaces the limits of the routes it computed again: the kept
//! limits are ordered as `generate` orders them (its canonical order, `docs/output-conventions.md`)
//! and grouped by route, each with its text, so that a cycle renders only the limits it adds and
//! joins the file's text from its parts.

use crate::generate::limit_order;
use crate::generate::object::{LimitadorLimit, Object};
use crate::outdir::{Parts, Text};
use std::cmp::Ordering;
use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// A limit, ordered as `generate` orders the Limitador's limits. Two limits that compare equal
/// have equal fields, so they are written alike.
#[derive(Clone, Debug)]
struct Ordered(Arc<LimitadorLimit>);

impl PartialEq for Ordered {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Ordered {}

impl PartialOrd for Ordered {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ordered {
    fn cmp(&self, other: &Self) -> Ordering {
        limit_order(&self.0, &other.0)
    }
}

/// The Limitador of the last state, in parts.
pub(super) struct LimitadorState {
    /// Its file name and its object (`Kind namespace/name`).
    pub file: (String, String),
    /// The column of the items' dashes.
    col: usize,
    /// The file's text, shared with the last [`Text`] handed out (copied when it is changed while
    /// that text is still held; `watch` writes and drops it within its cycle).
    text: Arc<Limits>,
    /// The limits of each route (their `namespace`), as often as they occur.
    by_route: HashMap<Arc<str>, Vec<Ordered>>,
}

/// The Limitador's file text in parts.
#[derive(Clone)]
struct Limits {
    /// The text before the limits (`outdir`'s marker line first) and after them.
    head: String,
    tail: String,
    /// The limits in order, each once: how many times it occurs, and its item's text.
    items: BTreeMap<Ordered, (usize, String)>,
}

/// The head, each limit's item as often as it occurs, the tail.
impl Parts for Limits {
    fn parts(&self) -> Box<dyn Iterator<Item = &str> + '_> {
        let items = (self.items.values()).flat_map(|(n, item)| std::iter::repeat_n(&**item, *n));
        Box::new(
            std::iter::once(&*self.head)
                .chain(items)
                .chain(std::iter::once(&*self.tail)),
        )
    }
}

/// Not its tens of thousands of items.
impl std::fmt::Debug for Limits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Limits")
            .field("items", &self.items.len())
            .finish_non_exhaustive()
    }
}

impl LimitadorState {
    /// The parts of `o`, a Limitador with limits, checked against its text written whole;
    /// `None` for anything else.
    pub(super) fn of(o: &Object) -> Option<Self> {
        use crate::render::objects::{limitador_frame, yaml_objects};
        let Object::Limitador(l) = o else { return None };
        let (head, col, tail) = limitador_frame(l).ok()?;
        let (file, object) =
            crate::outdir::object_file_names(std::slice::from_ref(o))?.pop_first()?;
        let mut state = LimitadorState {
            file: (file, object),
            col,
            text: Arc::new(Limits {
                head: crate::outdir::file_text(&head),
                tail,
                items: BTreeMap::new(),
            }),
            by_route: HashMap::new(),
        };
        state.add(l.limits.clone())?;
        let whole = yaml_objects(std::slice::from_ref(o)).ok()?;
        (!state.is_empty() && state.content() == crate::outdir::file_text(&whole)).then_some(state)
    }

    /// Remove the limits of the routes `gone` (their `namespace`), then add `added`; whether the
    /// limits changed, `None` when a limit cannot be written (the state is then not to be used). A
    /// limit both removed and added stays as it is: most of a route's limits are the same after a
    /// change, and only the others are rendered.
    pub(super) fn replace<'a>(
        &mut self,
        gone: impl IntoIterator<Item = &'a str>,
        mut added: Vec<LimitadorLimit>,
    ) -> Option<bool> {
        let mut removed = Vec::new();
        for route in gone {
            removed.extend(self.by_route.remove(route).unwrap_or_default());
        }
        // Both in order, walked side by side: equal pairs are kept.
        removed.sort();
        added.sort_by(limit_order);
        let items = &mut Arc::make_mut(&mut self.text).items;
        let mut removed = removed.into_iter().peekable();
        let mut fresh = Vec::new();
        let mut changed = false;
        for l in added {
            while let Some(r) = removed.next_if(|r| limit_order(&r.0, &l) == Ordering::Less) {
                remove(items, r);
                changed = true;
            }
            match removed.next_if(|r| limit_order(&r.0, &l) == Ordering::Equal) {
                Some(same) => self
                    .by_route
                    .entry(Arc::clone(&same.0.namespace))
                    .or_default()
                    .push(same),
                None => fresh.push(l),
            }
        }
        for r in removed {
            remove(items, r);
            changed = true;
        }
        changed |= !fresh.is_empty();
        self.add(fresh).map(|()| changed)
    }

    fn add(&mut self, added: Vec<LimitadorLimit>) -> Option<()> {
        let col = self.col;
        let rendered = crate::par::map(&added, 512, |l| crate::render::objects::limit_item(l, col))
            .into_iter()
            .collect::<Result<Vec<String>, String>>()
            .ok()?;
        let items = &mut Arc::make_mut(&mut self.text).items;
        for (l, item) in added.into_iter().zip(rendered) {
            let l = Ordered(Arc::new(l));
            self.by_route
                .entry(Arc::clone(&l.0.namespace))
                .or_default()
                .push(l.clone());
            items.entry(l).or_insert((0, item)).0 += 1;
        }
        Some(())
    }

    /// Whether no limit is left (the object then has another shape).
    pub(super) fn is_empty(&self) -> bool {
        self.text.items.is_empty()
    }

    /// The file's text (`outdir`'s marker line first), in parts, shared.
    pub(super) fn text(&self) -> Text {
        Text::Parts(Arc::clone(&self.text) as Arc<dyn Parts>)
    }

    /// The file's text, joined.
    pub(super) fn content(&self) -> String {
        self.text().into_string()
    }
}

/// One occurrence of `l` less (its route's list is the caller's).
fn remove(items: &mut BTreeMap<Ordered, (usize, String)>, l: Ordered) {
    if let Entry::Occupied(mut e) = items.entry(l) {
        let (count, _) = e.get_mut();
        *count -= 1;
        if *count == 0 {
            e.remove();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::object::LimitadorCarrier;

    fn limit(route: &str, name: &str, max: i64) -> LimitadorLimit {
        LimitadorLimit {
            conditions: vec![format!("descriptors[0][\"{name}\"] == \"1\"")],
            max_value: max,
            name: name.to_string(),
            namespace: Arc::from(route),
            seconds: 60,
            variables: vec![],
        }
    }

    fn carrier(mut limits: Vec<LimitadorLimit>) -> Object {
        // `generate`'s order: a stable sort.
        limits.sort_by(limit_order);
        Object::Limitador(Box::new(LimitadorCarrier::for_tests(limits)))
    }

    fn text(o: &Object) -> String {
        crate::outdir::file_text(
            &crate::render::objects::yaml_objects(std::slice::from_ref(o)).unwrap(),
        )
    }

    /// Replacing a route's limits gives the text of the Limitador generated with the new ones,
    /// duplicates (equal limits) included.
    #[test]
    fn replacing_a_routes_limits_is_generating_them_again() {
        let a = |max| {
            vec![
                limit("ns/a", "x", max),
                limit("ns/a", "y", 5),
                limit("ns/a", "y", 5),
            ]
        };
        let b = vec![limit("ns/b", "x", 7), limit("ns/b", "z", 1)];
        let c = vec![limit("ns/c", "a", 3)];
        let before = carrier([a(10), b.clone(), c.clone()].concat());
        let mut state = LimitadorState::of(&before).expect("a state");
        assert_eq!(state.content(), text(&before));
        assert_eq!(state.file.1, "Limitador kuadrant-system/limitador");

        // Route a's limits change, route c's are gone, route d is new.
        let d = vec![limit("ns/d", "x", 1)];
        state
            .replace(["ns/a", "ns/c", "ns/d"], [a(20), d.clone()].concat())
            .unwrap();
        let after = carrier([a(20), b.clone(), d].concat());
        assert_eq!(state.content(), text(&after));
        assert_ne!(text(&after), text(&before));

        // Every limit gone: nothing left to write.
        state.replace(["ns/a", "ns/b", "ns/d"], Vec::new()).unwrap();
        assert!(state.is_empty());
    }

    /// A text handed out stays what it was when the state changes after it (the state's parts are
    /// then copied, not changed under it).
    #[test]
    fn a_text_handed_out_is_not_changed_by_a_later_replacement() {
        let before = carrier(vec![limit("ns/a", "x", 1), limit("ns/b", "y", 2)]);
        let mut state = LimitadorState::of(&before).expect("a state");
        let held = state.text();
        state
            .replace(["ns/a"], vec![limit("ns/a", "x", 5)])
            .unwrap();
        assert_eq!(held.joined(), text(&before));
        let after = carrier(vec![limit("ns/a", "x", 5), limit("ns/b", "y", 2)]);
        assert_eq!(state.content(), text(&after));
        assert_ne!(text(&after), text(&before));
    }

    /// Any replacement, with limits equal within and across routes and some kept as they were,
    /// gives the text of the Limitador generated afresh with the routes' new limits.
    mod replacing {
        use super::*;
        use proptest::prelude::*;

        /// Limits of routes `r0`..`r3` from a small alphabet, so that many are equal.
        fn limits() -> impl Strategy<Value = Vec<LimitadorLimit>> {
            prop::collection::vec((0..4u8, 0..3u8, 1..3i64), 0..12).prop_map(|v| {
                v.into_iter()
                    .map(|(r, n, max)| limit(&format!("ns/r{r}"), &format!("n{n}"), max))
                    .collect()
            })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]
            #[test]
            fn equals_generating_afresh(
                first in limits(),
                steps in prop::collection::vec((prop::collection::vec(0..4u8, 0..4), limits()), 1..4),
            ) {
                // At least one limit, so that there is a state.
                let first = [first, vec![limit("ns/base", "b", 1)]].concat();
                let mut state = LimitadorState::of(&carrier(first.clone())).expect("a state");
                let mut all = first;
                for (routes, added) in steps {
                    let routes: Vec<String> = routes.iter().map(|r| format!("ns/r{r}")).collect();
                    // The new limits of the routes replaced only.
                    let added: Vec<_> = added
                        .into_iter()
                        .filter(|l| routes.iter().any(|r| **r == *l.namespace))
                        .collect();
                    all.retain(|l| !routes.iter().any(|r| **r == *l.namespace));
                    all.extend(added.iter().cloned());
                    let before = state.content();
                    let changed = state.replace(routes.iter().map(String::as_str), added).unwrap();
                    prop_assert_eq!(state.content(), text(&carrier(all.clone())));
                    // What `watch` takes for "the file changed" (it writes the file then).
                    prop_assert_eq!(changed, state.content() != before);
                }
            }
        }
    }
}
