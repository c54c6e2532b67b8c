//! Limitador's decision, by the `limitador` crate configured with the generated limits.
//!
//! The crate decides which limits of a namespace apply to a request (each limit's `conditions`,
//! CEL over the `descriptors` the shim sends) and which counter each one hits (one per distinct
//! value of its `variables`). Its in-memory storage reads the system clock, so a sequence of
//! requests `--interval` apart could not be played without waiting; the counters live instead in
//! [`SimulatedCounters`], a `limitador::storage::CounterStorage` of ours that reads a simulated
//! clock and keeps Limitador's fixed windows as its in-memory storage does (limitador 0.14.0
//! `storage/in_memory.rs`, `storage/atomic_expiring_value.rs`): a counter's window starts with its
//! first admitted hit and lasts `seconds`; once it has passed the counter starts again from zero;
//! a request is refused when one applying counter would go over `max_value`, and then no counter
//! is touched. A test compares it with the crate's own in-memory storage on requests made at one
//! instant.

use limitador::RateLimiter;
use limitador::counter::Counter;
use limitador::limit::{Context, Expression, Limit, Namespace, Predicate};
use limitador::storage::{Authorization, CounterStorage, StorageErr};
use serde::Serialize;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The simulated clock, in microseconds since the start of the simulation.
#[derive(Clone, Default)]
pub(super) struct Clock(Arc<AtomicU64>);

impl Clock {
    pub(super) fn set(&self, at: Duration) {
        self.0.store(
            u64::try_from(at.as_micros()).unwrap_or(u64::MAX),
            Ordering::SeqCst,
        );
    }

    fn now(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
}

impl Limitador {
    /// Whole seconds since the first request, on the simulated clock.
    pub(super) fn clock_secs(&self) -> u64 {
        self.clock.now() / 1_000_000
    }
}

/// Counter values and window ends (µs), keyed by the counter (limit and variable values).
type Values = Arc<Mutex<HashMap<Counter, (u64, u64)>>>;

/// Counter values and window ends (µs), keyed by the counter (limit and variable values).
#[derive(Default)]
pub(super) struct SimulatedCounters {
    clock: Clock,
    values: Values,
    /// The number of counters at which those whose window has ended are dropped (they read as
    /// absent anyway), as Limitador's in-memory storage lets them expire: a sequence of millions of
    /// requests from distinct clients holds only the counters of live windows.
    prune_at: AtomicU64,
}

/// The fewest counters [`SimulatedCounters`] keeps before it drops the expired ones.
const PRUNE_AT: u64 = 4096;

impl SimulatedCounters {
    pub(super) fn new(clock: Clock, values: Values) -> Self {
        SimulatedCounters {
            clock,
            values,
            prune_at: AtomicU64::new(PRUNE_AT),
        }
    }

    fn window_us(c: &Counter) -> u64 {
        u64::try_from(c.window().as_micros()).unwrap_or(u64::MAX)
    }

    /// The value and time left of `c` at `now`: zero and a full window once its window has passed.
    fn state(values: &HashMap<Counter, (u64, u64)>, c: &Counter, now: u64) -> (u64, u64) {
        match values.get(c) {
            Some(&(v, end)) if end > now => (v, end - now),
            _ => (0, Self::window_us(c)),
        }
    }

    /// Annotate every counter with its remaining hits and time left; the name of the first (in
    /// the canonical order of [`sort_counters`]) that `delta` more would put over its limit.
    fn evaluate(&self, counters: &mut [Counter], delta: u64) -> Option<Option<String>> {
        sort_counters(counters);
        let now = self.clock.now();
        let values = self.values.lock().unwrap_or_else(|e| e.into_inner());
        let mut limited = None;
        for c in counters.iter_mut() {
            let (value, left) = Self::state(&values, c, now);
            c.set_remaining(c.max_value().saturating_sub(value));
            c.set_expires_in(Duration::from_micros(left));
            if limited.is_none() && c.max_value() < value.saturating_add(delta) {
                limited = Some(c.limit().name().map(str::to_owned));
            }
        }
        limited
    }

    fn add(&self, c: &Counter, delta: u64) {
        let now = self.clock.now();
        let mut values = self.values.lock().unwrap_or_else(|e| e.into_inner());
        if values.len() as u64 >= self.prune_at.load(Ordering::Relaxed) {
            values.retain(|_, (_, end)| *end > now);
            self.prune_at
                .store((values.len() as u64 * 2).max(PRUNE_AT), Ordering::Relaxed);
        }
        let w = Self::window_us(c);
        let key = Counter::clone(c);
        let e = values.entry(key).or_insert((0, 0));
        if e.1 <= now {
            *e = (delta, now.saturating_add(w));
        } else {
            e.0 = e.0.saturating_add(delta);
        }
    }
}

/// Counters in a fixed order (namespace, name, window, max value, variables), so that the limit
/// reported for a refusal does not depend on hashing.
pub(super) fn sort_counters(counters: &mut [Counter]) {
    counters.sort_by(|a, b| {
        let key = |c: &Counter| {
            (
                c.namespace().as_ref().to_string(),
                c.limit().name().map(str::to_owned),
                c.limit().seconds(),
                c.max_value(),
                c.set_variables().clone(),
            )
        };
        key(a).cmp(&key(b))
    });
}

impl CounterStorage for SimulatedCounters {
    fn is_within_limits(&self, counter: &Counter, delta: u64) -> Result<bool, StorageErr> {
        let mut one = [counter.clone()];
        Ok(self.evaluate(&mut one, delta).is_none())
    }

    fn add_counter(&self, _limit: &Limit) -> Result<(), StorageErr> {
        Ok(())
    }

    fn update_counter(&self, counter: &Counter, delta: u64) -> Result<(), StorageErr> {
        self.add(counter, delta);
        Ok(())
    }

    fn check(&self, counters: &mut Vec<Counter>, delta: u64) -> Result<Authorization, StorageErr> {
        Ok(match self.evaluate(counters, delta) {
            Some(name) => Authorization::Limited(name),
            None => Authorization::Ok,
        })
    }

    fn check_and_update(
        &self,
        counters: &mut Vec<Counter>,
        delta: u64,
    ) -> Result<Authorization, StorageErr> {
        if let Some(name) = self.evaluate(counters, delta) {
            return Ok(Authorization::Limited(name));
        }
        for c in counters.iter() {
            self.add(c, delta);
        }
        Ok(Authorization::Ok)
    }

    fn get_counters(&self, limits: &HashSet<Arc<Limit>>) -> Result<HashSet<Counter>, StorageErr> {
        let now = self.clock.now();
        let values = self.values.lock().unwrap_or_else(|e| e.into_inner());
        Ok(values
            .iter()
            .filter(|(c, (_, end))| *end > now && limits.iter().any(|l| **l == *c.limit()))
            .map(|(c, (v, end))| {
                let mut c = c.clone();
                c.set_remaining(c.max_value().saturating_sub(*v));
                c.set_expires_in(Duration::from_micros(end - now));
                c
            })
            .collect())
    }

    fn delete_counters(&self, limits: &HashSet<Arc<Limit>>) -> Result<(), StorageErr> {
        let mut values = self.values.lock().unwrap_or_else(|e| e.into_inner());
        values.retain(|c, _| !limits.iter().any(|l| **l == *c.limit()));
        Ok(())
    }

    fn clear(&self) -> Result<(), StorageErr> {
        self.values
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        Ok(())
    }
}

/// One generated limit, as the Limitador CR lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LimitSpec {
    pub namespace: String,
    pub name: String,
    pub max_value: i64,
    pub seconds: i64,
    pub conditions: Vec<String>,
    pub variables: Vec<String>,
}

/// A counter a request hit.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct CounterState {
    /// The limit's name as the user wrote it (empty when the generated limit has none).
    pub limit: String,
    pub namespace: String,
    pub max_value: u64,
    pub seconds: u64,
    /// The counter's key: the limit's namespace and name, then `variable=value` for each of its
    /// variables (one counter per distinct set of values).
    pub key: String,
    /// Hits left in the window after this request.
    pub remaining: u64,
    /// Milliseconds until the window resets.
    pub resets_in_ms: u64,
}

/// What Limitador answered for one descriptor.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Decision {
    pub limited: bool,
    /// The refusing limit's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<String>,
    pub counters: Vec<CounterState>,
}

/// Limitador with the generated limits and the simulated clock.
pub(super) struct Limitador {
    limiter: RateLimiter,
    pub clock: Clock,
    /// The counters of the storage, shared with it: [`Limitador::reset`] empties them.
    values: Values,
    /// Limitador's evaluation context per descriptor. Building one registers the CEL standard
    /// library anew, which cost more than the rest of a check; a sequence sends the same few
    /// descriptors again and again. Emptied when it reaches [`CONTEXTS`] entries.
    contexts: RefCell<HashMap<Vec<(String, String)>, Context<'static>>>,
}

/// The most evaluation contexts [`Limitador`] keeps.
const CONTEXTS: usize = 4096;

impl Limitador {
    /// `Err`: a limit the crate cannot read (its conditions or variables do not parse).
    pub(super) fn new(limits: &[LimitSpec]) -> Result<Limitador, String> {
        let clock = Clock::default();
        let values = Values::default();
        let limiter = RateLimiter::new_with_storage(Box::new(SimulatedCounters::new(
            clock.clone(),
            Arc::clone(&values),
        )));
        for l in limits {
            limiter.add_limit(to_limit(l)?);
        }
        Ok(Limitador {
            limiter,
            clock,
            values,
            contexts: RefCell::default(),
        })
    }

    /// Fresh counters, the clock at 0.
    pub(super) fn reset(&self) {
        self.values
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        self.clock.set(Duration::ZERO);
    }

    /// Run `f` with Limitador's context for the descriptors the shim sends: the `descriptors`
    /// list holding `entries`, then `extra` when it has entries (the `requestData` one). The
    /// contexts of single descriptors are kept: a sequence sends the same few again and again.
    fn with_context<T>(
        &self,
        entries: &[(String, String)],
        extra: &[(String, String)],
        f: impl FnOnce(&Context) -> T,
    ) -> T {
        let descriptor =
            |e: &[(String, String)]| -> HashMap<String, String> { e.iter().cloned().collect() };
        if !extra.is_empty() {
            let mut ctx = Context::default();
            ctx.list_binding(
                "descriptors".into(),
                vec![descriptor(entries), descriptor(extra)],
            );
            return f(&ctx);
        }
        if let Some(ctx) = self.contexts.borrow().get(entries) {
            return f(ctx);
        }
        let mut ctx = Context::default();
        ctx.list_binding("descriptors".into(), vec![descriptor(entries)]);
        let out = f(&ctx);
        let mut cache = self.contexts.borrow_mut();
        if cache.len() >= CONTEXTS {
            cache.clear();
        }
        cache.insert(entries.to_vec(), ctx);
        out
    }

    /// Check the descriptor `entries` (and the `requestData` descriptor `extra`, as the shim sends
    /// them) against namespace `domain`, adding `delta` hits when every counter admits them.
    pub(super) fn check(
        &self,
        domain: &str,
        entries: &[(String, String)],
        extra: &[(String, String)],
        delta: u64,
        update: bool,
    ) -> Result<Decision, String> {
        let ns = Namespace::from(domain);
        let res = self
            .with_context(entries, extra, |ctx| {
                if update {
                    self.limiter.check_rate_limited_and_update(&ns, ctx, delta)
                } else {
                    self.limiter.is_rate_limited(&ns, ctx, delta)
                }
            })
            .map_err(|e| format!("Limitador: {e}"))?;
        let mut counters = res.counters;
        sort_counters(&mut counters);
        Ok(Decision {
            limited: res.limited,
            limit: res
                .limited
                .then(|| res.limit_name.clone().unwrap_or_default()),
            counters: counters.iter().map(counter_state).collect(),
        })
    }

    /// Add `delta` hits to the counters that apply (token usage reported after the response).
    pub(super) fn report(
        &self,
        domain: &str,
        entries: &[(String, String)],
        extra: &[(String, String)],
        delta: u64,
    ) -> Result<(), String> {
        let ns = Namespace::from(domain);
        self.with_context(entries, extra, |ctx| {
            self.limiter.update_counters(&ns, ctx, delta)
        })
        .map_err(|e| format!("Limitador: {e}"))
    }
}

fn counter_state(c: &Counter) -> CounterState {
    let name = c.limit().name().unwrap_or_default().to_string();
    let vars: BTreeMap<&String, &String> = c.set_variables().iter().collect();
    let mut key = format!("{}/{}", c.namespace().as_ref(), name);
    for (k, v) in vars {
        key.push_str(&format!(" {k}={v}"));
    }
    CounterState {
        limit: name,
        namespace: c.namespace().as_ref().to_string(),
        max_value: c.max_value(),
        seconds: c.limit().seconds(),
        key,
        remaining: c.remaining().unwrap_or(c.max_value()),
        resets_in_ms: c
            .expires_in()
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0),
    }
}

fn to_limit(l: &LimitSpec) -> Result<Limit, String> {
    let conditions = l
        .conditions
        .iter()
        .map(|c| Predicate::parse(c).map_err(|e| format!("limit condition {c:?}: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    let variables = l
        .variables
        .iter()
        .map(|v| Expression::parse(v).map_err(|e| format!("limit variable {v:?}: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    let mut limit = Limit::new(
        l.namespace.as_str(),
        u64::try_from(l.max_value).unwrap_or(0),
        u64::try_from(l.seconds).unwrap_or(0),
        conditions,
        variables,
    );
    if !l.name.is_empty() {
        limit.set_name(l.name.clone());
    }
    Ok(limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &str, max: i64, secs: i64, vars: &[&str]) -> LimitSpec {
        LimitSpec {
            namespace: "ns/route".into(),
            name: name.into(),
            max_value: max,
            seconds: secs,
            conditions: vec![format!("descriptors[0][\"limit.{name}\"] == \"1\"")],
            variables: vars.iter().map(|v| v.to_string()).collect(),
        }
    }

    fn entries(name: &str, user: Option<&str>) -> Vec<(String, String)> {
        let mut e = vec![(format!("limit.{name}"), "1".to_string())];
        if let Some(u) = user {
            e.push(("auth.identity.username".into(), u.into()));
        }
        e
    }

    #[test]
    fn windows_follow_the_simulated_clock() {
        let l = Limitador::new(&[spec("create", 5, 10, &[])]).unwrap();
        let e = entries("create", None);
        for i in 0..5 {
            l.clock.set(Duration::from_secs(i));
            let d = l.check("ns/route", &e, &[], 1, true).unwrap();
            assert!(!d.limited, "request {i}");
            assert_eq!(d.counters[0].remaining, 4 - i);
        }
        l.clock.set(Duration::from_secs(5));
        let d = l.check("ns/route", &e, &[], 1, true).unwrap();
        assert!(d.limited);
        assert_eq!(d.limit.as_deref(), Some("create"));
        assert_eq!(d.counters[0].resets_in_ms, 5_000);
        // The window began with the first hit, at 0 s: at 10 s it starts again.
        l.clock.set(Duration::from_secs(10));
        let d = l.check("ns/route", &e, &[], 1, true).unwrap();
        assert!(!d.limited);
        assert_eq!(d.counters[0].remaining, 4);
    }

    #[test]
    fn variables_make_one_counter_per_value() {
        let l = Limitador::new(&[spec(
            "per-user",
            2,
            10,
            &["descriptors[0][\"auth.identity.username\"]"],
        )])
        .unwrap();
        let alice = entries("per-user", Some("alice"));
        let bob = entries("per-user", Some("bob"));
        assert!(!l.check("ns/route", &alice, &[], 1, true).unwrap().limited);
        assert!(!l.check("ns/route", &alice, &[], 1, true).unwrap().limited);
        assert!(l.check("ns/route", &alice, &[], 1, true).unwrap().limited);
        let d = l.check("ns/route", &bob, &[], 1, true).unwrap();
        assert!(!d.limited);
        assert!(
            d.counters[0].key.ends_with("auth.identity.username\"]=bob"),
            "{}",
            d.counters[0].key
        );
        // Without the variable's value the limit does not apply at all.
        let d = l
            .check("ns/route", &entries("per-user", None), &[], 1, true)
            .unwrap();
        assert!(d.counters.is_empty());
        // Another namespace has no limits.
        assert!(
            l.check("other/route", &alice, &[], 1, true)
                .unwrap()
                .counters
                .is_empty()
        );
    }

    /// At one instant, the simulated storage decides as the crate's own in-memory storage.
    #[test]
    fn agrees_with_the_crates_in_memory_storage() {
        let specs = [
            spec("a", 3, 60, &[]),
            spec("b", 5, 60, &["descriptors[0][\"x\"]"]),
        ];
        let ours = Limitador::new(&specs).unwrap();
        let theirs = RateLimiter::new(1000);
        for s in &specs {
            theirs.add_limit(to_limit(s).unwrap());
        }
        let reqs: Vec<Vec<(String, String)>> = (0..12)
            .map(|i| {
                let mut e = vec![("limit.a".to_string(), "1".to_string())];
                if i % 2 == 0 {
                    e.push(("limit.b".into(), "1".into()));
                }
                e.push(("x".into(), format!("{}", i % 3)));
                e
            })
            .collect();
        for e in &reqs {
            let a = ours.check("ns/route", e, &[], 1, true).unwrap();
            let mut ctx = Context::default();
            ctx.list_binding("descriptors".into(), vec![e.iter().cloned().collect()]);
            let b = theirs
                .check_rate_limited_and_update(&Namespace::from("ns/route"), &ctx, 1)
                .unwrap();
            assert_eq!(a.limited, b.limited, "{e:?}");
            let mut bc = b.counters;
            sort_counters(&mut bc);
            let rem: Vec<_> = bc.iter().map(|c| c.remaining()).collect();
            let ours_rem: Vec<_> = a.counters.iter().map(|c| Some(c.remaining)).collect();
            assert_eq!(ours_rem, rem, "{e:?}");
        }
    }
}
