//! How the wasm-shim runs a rate-limit or auth action once its action set is chosen, release by
//! release (`super::shim` says what each release does): whether the action runs, and what its
//! rate-limit request carries.

use super::request::Request;
use super::shim::{self, RequestData};
use super::shimcel::{Activation, Failure};
use super::{Carrier, Entry, Simulation};
use crate::generate::actions::Action;
use serde_json::Value;

impl Simulation<'_> {
    /// Whether a 1.5 action runs: the one predicate the shim builds for it ([`shim::action_predicate`]
    /// for an auth action, [`shim::ratelimit_predicate`] for a rate-limit one), `(A) && (B1 || B2 …)`,
    /// where an error on one side of `&&` or `||` is absorbed when the other side decides. Its
    /// parts are evaluated in the interpreter's order, each once, and joined as cel 0.14.0 joins
    /// them ([`and`], [`or`]); the blocks' values are kept in `conditions` for the message. When it
    /// does not hold, what the trace names: the first of the action's predicates, then of its
    /// blocks', that is false on its own, else the whole predicate.
    pub(super) fn typed_predicate(
        &self,
        a: &Action,
        act: &Activation,
        conditions: &mut Conditions,
    ) -> Result<Option<String>, Failure> {
        let auth = a.service == crate::generate::actions::AUTH_SERVICE;
        let data = |conditions: &mut Conditions| {
            if auth {
                Ok(true)
            } else {
                self.data_predicate(a, act, conditions)
            }
        };
        let held = if a.predicates.is_empty() {
            data(conditions)
        } else {
            match self
                .shim_cel
                .predicate(&shim::action_predicate(&a.predicates), act)
            {
                Ok(false) => Ok(false),
                left => and(left, data(conditions)),
            }
        };
        if held? {
            return Ok(None);
        }
        let blocks = a.conditional_data.iter().flat_map(|cd| &cd.predicates);
        let named = (a.predicates.iter().chain(blocks))
            .find(|p| self.shim_cel.predicate(p, act) == Ok(false))
            .cloned();
        Ok(Some(named.unwrap_or_else(|| {
            if auth {
                shim::action_predicate(&a.predicates)
            } else {
                shim::ratelimit_predicate(&a.predicates, &a.conditional_data)
            }
        })))
    }

    /// The data blocks' part of a 1.5 rate-limit predicate: `true` when there is no block or one
    /// has no predicates, else their conditions joined with `||`, left to right, evaluated until
    /// one holds.
    fn data_predicate(
        &self,
        a: &Action,
        act: &Activation,
        conditions: &mut Conditions,
    ) -> Result<bool, Failure> {
        let blocks = &a.conditional_data;
        if blocks.is_empty() || blocks.iter().any(|b| b.predicates.is_empty()) {
            return Ok(true);
        }
        let mut held: Option<Result<bool, Failure>> = None;
        for i in 0..blocks.len() {
            let right = self.condition(a, i, act, conditions);
            let now = match held {
                None => right,
                Some(left) => or(left, right),
            };
            if now == Ok(true) {
                return now;
            }
            held = Some(now);
        }
        held.unwrap_or(Ok(true))
    }

    /// Whether block `i`'s predicates, joined with `&&` ([`shim::block_condition`]), hold: evaluated
    /// once a request, the value kept in `conditions`.
    fn condition(
        &self,
        a: &Action,
        i: usize,
        act: &Activation,
        conditions: &mut Conditions,
    ) -> Result<bool, Failure> {
        if conditions.len() < a.conditional_data.len() {
            conditions.resize(a.conditional_data.len(), None);
        }
        if let Some(v) = &conditions[i] {
            return v.clone();
        }
        let v = match shim::block_condition(&a.conditional_data[i]) {
            Some(c) => self.shim_cel.predicate(&c, act),
            None => Ok(true),
        };
        conditions[i] = Some(v.clone());
        v
    }

    /// The 1.4 shim's rate-limit request (wasm-shim v0.12.3 src/kuadrant/pipeline/tasks/ratelimit.rs,
    /// src/services/rate_limit.rs): the entries of the blocks whose predicates all hold, in order,
    /// each value written as text by the shim; the domain and hits addend set by such a block;
    /// then the `requestData` values that are strings, those that are not (or fail) left out.
    pub(super) fn message_1_4(
        &self,
        a: &Action,
        scope: &str,
        carrier: &Carrier,
        req: &Request,
        act: &Activation,
    ) -> Result<Message, Stop> {
        let report = a.service == crate::generate::actions::RATELIMIT_REPORT_SERVICE;
        let mut m = Message::new(scope);
        for cd in &a.conditional_data {
            match self.shim_cel.all(&cd.predicates, act) {
                Ok(None) => {}
                Ok(Some(_)) => continue,
                Err(e) => return Err(Stop::Failed(e)),
            }
            for (key, value) in &cd.data {
                if report && key == "ratelimit.hits_addend" {
                    unknown_usage(value, scope, req)?;
                }
                let text = if shim::KNOWN_ATTRIBUTES.contains(&key.as_str()) {
                    self.shim_cel.scalar(value, act)
                } else {
                    self.shim_cel.entry_value(value, act)
                };
                match text {
                    Ok(v) if key == "ratelimit.domain" => m.domain = v,
                    Ok(v) if key == "ratelimit.hits_addend" => match v.parse() {
                        Ok(n) => m.hits = n,
                        Err(_) if report => {
                            return Err(Stop::NotReported(format!(
                                "{value}: {v} is not a token count; nothing is reported"
                            )));
                        }
                        Err(_) => m.hits = 1,
                    },
                    Ok(v) => m.entries.push(Entry {
                        key: key.clone(),
                        value: v,
                    }),
                    Err(e) => return Err(Stop::Failed(e)),
                }
            }
        }
        if !m.entries.is_empty() {
            for d in &carrier.request_data {
                if let Ok(Some(Value::String(v))) = self.shim_cel.json(&d.expression, act) {
                    m.request_data.push(Entry {
                        key: d.entry_key(),
                        value: v,
                    });
                }
            }
        }
        Ok(m)
    }

    /// The 1.5 shim's rate-limit message (wasm-shim v0.14.1 legacy_translation.rs
    /// `build_ratelimit_message_builder`), once the action's predicate held: the domain and the
    /// hits addend (`uint(value)`) from the first block that has them, whatever its predicates;
    /// the entries of each block whose predicates, joined with `&&`, hold, each `string(value)`;
    /// then every `requestData` value, `string(expression)` (for the check and the plain rate
    /// limit, those that read the response are left out). Any error fails the whole message.
    pub(super) fn message_1_5(
        &self,
        a: &Action,
        scope: &str,
        carrier: &Carrier,
        req: &Request,
        act: &Activation,
        conditions: &mut Conditions,
    ) -> Result<Message, Stop> {
        let report = a.service == crate::generate::actions::RATELIMIT_REPORT_SERVICE;
        let blocks = &a.conditional_data;
        let mut m = Message::new(scope);
        // The labels that do not read the response are evaluated first: one that fails fails the
        // message whatever the response (and a report with it, its usage unknown or not). Those
        // that read it are the report's only, evaluated once its usage is known.
        let mut data: Vec<Option<String>> = vec![None; carrier.request_data.len()];
        for (d, value) in carrier.request_data.iter().zip(&mut data) {
            if !d.reads_response() {
                *value = Some(self.request_data_value(d, act)?);
            }
        }
        if let Some(v) = shim::known_attribute(blocks, "ratelimit.domain") {
            m.domain = self.shim_cel.scalar(v, act).map_err(Stop::Failed)?;
        }
        if let Some(v) = shim::known_attribute(blocks, "ratelimit.hits_addend") {
            if report {
                unknown_usage(v, scope, req)?;
            }
            match self.shim_cel.scalar(&format!("uint({v})"), act) {
                Ok(n) => m.hits = n.parse().unwrap_or(1),
                // The shim waits for the response's field, then fails the action: nothing is
                // reported.
                Err(e) if report => {
                    return Err(Stop::NotReported(format!(
                        "uint({v}): {}; nothing is reported",
                        e.message()
                    )));
                }
                Err(e) => return Err(Stop::Failed(e)),
            }
        }
        for (i, cd) in blocks.iter().enumerate() {
            let mut items = (cd.data.iter())
                .filter(|(k, _)| !shim::KNOWN_ATTRIBUTES.contains(&k.as_str()))
                .peekable();
            if items.peek().is_none() {
                continue;
            }
            if !self
                .condition(a, i, act, conditions)
                .map_err(Stop::Failed)?
            {
                continue;
            }
            for (key, value) in items {
                let v = self
                    .shim_cel
                    .entry_value(value, act)
                    .map_err(Stop::Failed)?;
                m.entries.push(Entry {
                    key: key.clone(),
                    value: v,
                });
            }
        }
        for (d, value) in carrier.request_data.iter().zip(&mut data) {
            if report && d.reads_response() {
                *value = Some(self.request_data_value(d, act)?);
            }
        }
        // In the shim's order (its entries sorted by domain and field).
        m.request_data = (carrier.request_data.iter().zip(data))
            .filter_map(|(d, value)| {
                Some(Entry {
                    key: d.entry_key(),
                    value: value?,
                })
            })
            .collect();
        Ok(m)
    }

    /// A `requestData` entry's value in a 1.5 request, `string(expression)`; its failure fails
    /// the request.
    fn request_data_value(&self, d: &RequestData, act: &Activation) -> Result<String, Stop> {
        (self.shim_cel.entry_value(&d.expression, act))
            .map_err(|e| Stop::Failed(request_data_failure(d, e)))
    }
}

/// The value of each data block's condition of the action being run, once evaluated.
pub(super) type Conditions = Vec<Option<Result<bool, Failure>>>;

/// An error `e` chosen over `other`, undecided when `other` is: what the undecided side would
/// have been might have decided instead.
fn settled(e: Failure, other: &Result<bool, Failure>) -> Failure {
    match (e, other) {
        (Failure::Error(_), Err(u @ Failure::Undecided(_))) => u.clone(),
        (e, _) => e,
    }
}

/// `left && right` as cel 0.14.0 evaluates it (src/objects.rs, `LOGICAL_AND`), `left` not false
/// (the right side is then not evaluated): the right side's error first, then true and the
/// right side, an error and false, or an error and true (the left side's error).
fn and(left: Result<bool, Failure>, right: Result<bool, Failure>) -> Result<bool, Failure> {
    logical(false, left, right)
}

/// `left || right` as cel 0.14.0 evaluates it (`LOGICAL_OR`), the mirror of [`and`].
fn or(left: Result<bool, Failure>, right: Result<bool, Failure>) -> Result<bool, Failure> {
    logical(true, left, right)
}

/// [`and`] (`decides` false) or [`or`] (`decides` true): a side that is `decides` decides, the
/// left one without the right being evaluated; else the right side's error, else the right side
/// when the left holds a value, else the left side's error.
fn logical(
    decides: bool,
    left: Result<bool, Failure>,
    right: Result<bool, Failure>,
) -> Result<bool, Failure> {
    match (&left, right) {
        (Ok(l), _) if *l == decides => Ok(decides),
        (_, Err(e)) => Err(settled(e, &left)),
        (Ok(_), right) => right,
        (Err(_), Ok(r)) if r == decides => Ok(decides),
        (Err(e), Ok(_)) => Err(e.clone()),
    }
}

/// What a rate-limit action sends Limitador.
pub(super) struct Message {
    /// The descriptor's entries.
    pub(super) entries: Vec<Entry>,
    /// The limit namespace.
    pub(super) domain: String,
    pub(super) hits: u64,
    /// The `requestData` descriptor's entries.
    pub(super) request_data: Vec<Entry>,
}

impl Message {
    /// Nothing yet, to the limit namespace `scope`, one hit.
    fn new(scope: &str) -> Message {
        Message {
            entries: vec![],
            domain: scope.to_string(),
            hits: 1,
            request_data: vec![],
        }
    }
}

/// Why a rate-limit action sends nothing.
pub(super) enum Stop {
    /// Building the request failed: the failure mode decides.
    Failed(Failure),
    /// A token report whose usage is not a count: nothing is reported, with why.
    NotReported(String),
    /// A token report whose usage nobody gave: the counters grew by an unknown amount.
    Unknown(String),
}

/// A token report's usage, read from the upstream response by `value`: unknown when the request
/// gives neither the response nor its token count.
fn unknown_usage(value: &str, scope: &str, req: &Request) -> Result<(), Stop> {
    if req.tokens.is_none() && req.response_body.is_none() {
        return Err(Stop::Unknown(format!(
            "{value}: the upstream response is unknown (pass --tokens or --response-body); the counters of {scope} may have grown by any amount"
        )));
    }
    Ok(())
}

/// The failure of a `requestData` expression, naming its entry.
pub(super) fn request_data_failure(d: &RequestData, e: Failure) -> Failure {
    let name = if d.domain.is_empty() {
        d.field.clone()
    } else {
        format!("{}.{}", d.domain, d.field)
    };
    let say = |m: &str| format!("requestData {name} = string({}): {m}", d.expression);
    match e {
        Failure::Error(m) => Failure::Error(say(&m)),
        Failure::Undecided(m) => Failure::Undecided(say(&m)),
    }
}

#[cfg(test)]
mod tests {
    use super::super::cost;
    use super::super::shimcel::ShimCel;
    use super::*;

    /// What an outcome is, its message aside: a value, an error, or undecided.
    fn class(r: &Result<bool, Failure>) -> String {
        match r {
            Ok(b) => b.to_string(),
            Err(Failure::Error(_)) => "error".into(),
            Err(Failure::Undecided(_)) => "undecided".into(),
        }
    }

    /// [`and`] and [`or`] over the parts' outcomes give what the 1.5 shim's interpreter gives for
    /// the whole `(l) && (r)` / `(l) || (r)`, for every pair of true, false, an error (a missing
    /// header), a value that is not a bool, and a read of what a simulated request lacks.
    #[test]
    fn and_and_or_join_as_cel_0_14_does() {
        let parts = [
            "true",
            "false",
            "request.headers['x-missing'] == 'a'",
            "1",
            "request.time.getHours() > 1",
        ];
        let cel = ShimCel::new(crate::model::KuadrantVersion::V1_5);
        let req = Request::parse("GET", "http://x/", &[]).unwrap();
        let act = cel.activation(&req, None);
        cost::begin_request(cost::Limits::default());
        for l in parts {
            for r in parts {
                let part = |p: &str| cel.predicate(p, &act);
                let whole = |op: &str| cel.predicate(&format!("({l}) {op} ({r})"), &act);
                let joined = match part(l) {
                    Ok(false) => Ok(false),
                    left => and(left, part(r)),
                };
                assert_eq!(class(&joined), class(&whole("&&")), "({l}) && ({r})");
                let joined = match part(l) {
                    Ok(true) => Ok(true),
                    left => or(left, part(r)),
                };
                assert_eq!(class(&joined), class(&whole("||")), "({l}) || ({r})");
            }
        }
        cost::end_request();
    }
}
