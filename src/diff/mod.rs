//! Diff: desired objects against current ones (committed output, a `kubectl get -o yaml` dump, or the
//! output of another input tree), matched by group, kind, namespace and name.
//!
//! Before comparing, both sides are normalised the same way: server-side fields are dropped, JSON
//! carried in strings (the 1.5 `EnvoyFilter` wasm configuration) is parsed, keys are sorted, and the
//! lists the operator itself orders non-deterministically are put in a canonical order. Owns the
//! comparison and the unified text diff (`similar`); must not read files or choose exit codes.

pub mod text;

use crate::generate::object::{AUTH_CONFIG_API_VERSION, Object};
use serde_json::Value;
use similar::TextDiff;
use std::borrow::Cow;

/// Identity of an object. Ordered by group, kind, namespace, then name (the field order).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectKey {
    /// The API group (`""` for the core group).
    pub group: String,
    pub kind: String,
    /// `""` for cluster-scoped objects.
    pub namespace: String,
    pub name: String,
}

/// What happens to one object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    /// Desired but not current: the operator would create it.
    Created,
    /// Both, with differences: the operator would update it (drift when current is live).
    Updated,
    /// Current but not desired: the operator would delete it.
    Deleted,
    Unchanged,
}

impl Change {
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Created => "created",
            Change::Updated => "updated",
            Change::Deleted => "deleted",
            Change::Unchanged => "unchanged",
        }
    }
}

/// The comparison of one object.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ObjectDiff {
    pub group: String,
    pub kind: String,
    pub namespace: String,
    pub name: String,
    pub change: Change,
    /// Unified diff of the normalised YAML (empty when unchanged).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub unified: String,
    pub added_lines: usize,
    pub removed_lines: usize,
    /// For an AuthConfig: the route rule it protects, `HTTPRoute namespace/name#rule` (from its
    /// `<RuleKind>.gateway.networking.k8s.io` annotation), since its name is a hash.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protects: Option<String>,
}

impl ObjectDiff {
    /// `Kind namespace/name` (an AuthConfig followed by ` (protects <route rule>)`), control
    /// characters escaped for a terminal.
    pub fn display(&self) -> String {
        let mut d = if self.namespace.is_empty() {
            format!("{} {}", self.kind, self.name)
        } else {
            format!("{} {}/{}", self.kind, self.namespace, self.name)
        };
        if let Some(p) = &self.protects {
            d.push_str(&format!(" (protects {p})"));
        }
        crate::render::terminal::line(&d).into_owned()
    }
}

/// The route rule an AuthConfig's annotation names, `HTTPRoute namespace/name#rule`: the key is
/// `<RuleKind>.gateway.networking.k8s.io` and the value the rule's locator
/// (`httproute.gateway.networking.k8s.io:ns/name#rule`).
pub(crate) fn protected_rule(v: &Value) -> Option<String> {
    if v.get("kind").and_then(Value::as_str) != Some("AuthConfig") {
        return None;
    }
    let annotations = v.pointer("/metadata/annotations")?.as_object()?;
    annotations.iter().find_map(|(k, x)| {
        let kind = k.strip_suffix("Rule.gateway.networking.k8s.io")?;
        let (_, rule) = x.as_str()?.split_once(':')?;
        Some(format!("{kind} {rule}"))
    })
}

/// The identity of an object value; `None` when it has no kind or name.
pub fn key_of(v: &Value) -> Option<ObjectKey> {
    let api = v.get("apiVersion")?.as_str()?;
    let kind = v.get("kind")?.as_str()?;
    let meta = v.get("metadata")?;
    let name = meta.get("name")?.as_str()?;
    let ns = meta.get("namespace").and_then(Value::as_str).unwrap_or("");
    let group = api.rsplit_once('/').map(|(g, _)| g).unwrap_or("");
    Some(ObjectKey {
        group: group.into(),
        kind: kind.into(),
        namespace: ns.into(),
        name: name.into(),
    })
}

/// Expand `List` objects into their items.
pub(crate) fn flatten_lists(objs: Vec<Value>) -> Vec<Value> {
    let mut out = Vec::new();
    for o in objs {
        let is_list = o
            .get("kind")
            .and_then(Value::as_str)
            .is_some_and(|k| k == "List" || k.ends_with("List"))
            && o.get("items").is_some_and(Value::is_array);
        if is_list {
            if let Some(Value::Array(items)) = o.get("items").cloned() {
                out.extend(flatten_lists(items));
            }
        } else {
            out.push(o);
        }
    }
    out
}

const SERVER_METADATA: [&str; 8] = [
    "managedFields",
    "resourceVersion",
    "uid",
    "generation",
    "creationTimestamp",
    "selfLink",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
];

/// Normalise one object for comparison. `desired` is the other side's object, if any: fields the
/// offline computation cannot know (owner references without a known UID) are dropped from `current`
/// when `desired` lacks them.
pub fn normalize(v: &Value, desired: Option<&Value>) -> Value {
    normalize_owned(v.clone(), desired)
}

/// [`normalize`] of a value the caller no longer needs.
fn normalize_owned(mut v: Value, desired: Option<&Value>) -> Value {
    if let Value::Object(m) = &mut v {
        m.remove("status");
        if let Some(Value::Object(meta)) = m.get_mut("metadata") {
            for k in SERVER_METADATA {
                meta.remove(k);
            }
            if let Some(Value::Object(ann)) = meta.get_mut("annotations") {
                ann.remove("kubectl.kubernetes.io/last-applied-configuration");
                if ann.is_empty() {
                    meta.remove("annotations");
                }
            }
            let desired_has_owners = desired
                .and_then(|d| d.get("metadata"))
                .and_then(|m| m.get("ownerReferences"))
                .is_some();
            if !desired_has_owners {
                meta.remove("ownerReferences");
            }
            // Set by the controllers that act on the objects (dns-operator's `kuadrant.io/dns-record`
            // on DNSRecords), never by the Kuadrant operator.
            meta.remove("finalizers");
        }
    }
    parse_json_strings(&mut v);
    canonical_lists(&mut v, &mut Vec::new());
    crate::generate::sort_keys(v)
}

/// Strings that hold a JSON object are compared as parsed JSON.
fn parse_json_strings(v: &mut Value) {
    match v {
        Value::String(s) if s.trim_start().starts_with('{') => {
            if let Ok(mut parsed @ Value::Object(_)) = serde_json::from_str::<Value>(s) {
                parse_json_strings(&mut parsed);
                *v = parsed;
            }
        }
        Value::Array(a) => a.iter_mut().for_each(parse_json_strings),
        Value::Object(m) => m.values_mut().for_each(parse_json_strings),
        _ => {}
    }
}

/// Lists whose order the operator does not fix: Limitador `limits` (an ordered map filled from Go map
/// iteration), `conditionalData` of merged actions (1.4), and `sources`.
fn canonical_lists(v: &mut Value, path: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m.iter_mut() {
                path.push(k.clone());
                canonical_lists(v, path);
                path.pop();
            }
        }
        Value::Array(a) => {
            for x in a.iter_mut() {
                canonical_lists(x, path);
            }
            let last = path.last().map(String::as_str);
            let unordered = matches!(last, Some("conditionalData" | "sources"))
                || (last == Some("limits") && path.len() == 2 && path[0] == "spec");
            if unordered {
                // Stable, and each element's key is computed once.
                a.sort_by_cached_key(|x| {
                    serde_json::to_string(&crate::generate::sort_keys(x.clone()))
                        .unwrap_or_default()
                });
            }
        }
        _ => {}
    }
}

/// YAML for diffs and files: block style, one line per long string (better diffs).
pub fn to_yaml(v: &Value) -> String {
    crate::render::objects::yaml_document(v).unwrap_or_else(|e| format!("# unserialisable: {e}\n"))
}

/// Compare desired and current objects; the result is sorted by identity (group, kind, namespace,
/// name), so output is stable.
pub fn diff(desired: &[Value], current: &[Value], context: usize) -> Vec<ObjectDiff> {
    use std::collections::BTreeMap;
    let mut d: BTreeMap<ObjectKey, &Value> = BTreeMap::new();
    for v in desired {
        if let Some(k) = key_of(v) {
            d.insert(k, v);
        }
    }
    let mut c: BTreeMap<ObjectKey, &Value> = BTreeMap::new();
    for v in current {
        if let Some(k) = key_of(v) {
            c.insert(k, v);
        }
    }
    let mut keys: Vec<&ObjectKey> = d.keys().chain(c.keys()).collect();
    keys.sort();
    keys.dedup();
    // Objects compare independently: on every core (a large estate's objects hold hundreds of MB).
    crate::par::map(&keys, 16, |&k| {
        compare(
            k,
            d.get(k).map(|&v| Cow::Borrowed(v)),
            c.get(k).copied(),
            context,
        )
    })
}

/// The identity of a generated object, without building its tree.
fn key_of_object(o: &Object) -> Option<ObjectKey> {
    match o {
        Object::Tree(v) => key_of(v),
        Object::Wasm(w) => key_of(&w.shell),
        Object::Limitador(l) => key_of(&l.shell),
        Object::AuthConfig(a) => {
            let group = AUTH_CONFIG_API_VERSION
                .rsplit_once('/')
                .map_or("", |(g, _)| g);
            Some(ObjectKey {
                group: group.into(),
                kind: "AuthConfig".into(),
                namespace: a.namespace.to_string(),
                name: a.name.clone(),
            })
        }
    }
}

/// One object's comparison; `desired` and `current` are its two sides, either may be missing.
fn compare(
    k: &ObjectKey,
    desired: Option<Cow<'_, Value>>,
    current: Option<&Value>,
    context: usize,
) -> ObjectDiff {
    let cn = current.map(|v| normalize(v, desired.as_deref()));
    let protects = desired
        .as_deref()
        .and_then(protected_rule)
        .or_else(|| current.and_then(protected_rule));
    let sides = (desired.is_some(), current.is_some());
    let dn = desired.map(|t| normalize_owned(t.into_owned(), None));
    let change = match sides {
        (true, false) => Change::Created,
        (false, true) => Change::Deleted,
        _ if dn == cn => Change::Unchanged,
        _ => Change::Updated,
    };
    let (unified, added, removed) = if change == Change::Unchanged {
        (String::new(), 0, 0)
    } else {
        let dy = dn.as_ref().map(to_yaml).unwrap_or_default();
        let cy = cn.as_ref().map(to_yaml).unwrap_or_default();
        unified(
            &cy,
            &dy,
            &label(k, "current"),
            &label(k, "desired"),
            context,
        )
    };
    ObjectDiff {
        group: k.group.clone(),
        kind: k.kind.clone(),
        namespace: k.namespace.clone(),
        name: k.name.clone(),
        change,
        unified,
        added_lines: added,
        removed_lines: removed,
        protects,
    }
}

/// Generated objects compared with current objects read from a dump or committed output, fed a
/// batch at a time as they are parsed, so that a large dump is never held whole (a 478 MB dump
/// took 6 GB as trees). Each batch is prepared as `diff --against` needs it: `List`s expanded,
/// objects Kuadrant does not own skipped, the Limitador reduced to the fields the operator owns.
/// [`Comparison::finish`] gives what [`diff`] gives for the trees of `desired` and the prepared objects of all
/// batches (a later object with the same identity replaces an earlier one).
pub struct Comparison<'a> {
    desired: std::collections::BTreeMap<ObjectKey, &'a Object>,
    /// Trees of the desired Limitadors, which [`owned_projection`] reads.
    limitadors: std::collections::HashMap<ObjectKey, Value>,
    compared: std::collections::BTreeMap<ObjectKey, ObjectDiff>,
    context: usize,
    /// The prepared current objects, kept for an external differ ([`Comparison::keep_current`]).
    kept: Option<Vec<Value>>,
}

impl<'a> Comparison<'a> {
    pub fn new(desired: &'a [Object], context: usize) -> Self {
        let desired: std::collections::BTreeMap<ObjectKey, &Object> = desired
            .iter()
            .filter_map(|o| key_of_object(o).map(|k| (k, o)))
            .collect();
        let limitadors = desired
            .iter()
            .filter(|(_, o)| matches!(o, Object::Limitador(_)))
            .map(|(k, o)| (k.clone(), o.to_value()))
            .collect();
        Comparison {
            desired,
            limitadors,
            compared: Default::default(),
            context,
            kept: None,
        }
    }

    /// Also keep the prepared current objects (for [`Comparison::take_kept`]).
    pub fn keep_current(mut self) -> Self {
        self.kept = Some(Vec::new());
        self
    }

    /// The prepared current objects kept so far (empty unless [`Comparison::keep_current`]).
    pub fn take_kept(&mut self) -> Vec<Value> {
        self.kept.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Compare a batch of current objects (on every core).
    pub fn add(&mut self, batch: Vec<Value>) {
        let current: Vec<(ObjectKey, Value)> = flatten_lists(batch)
            .into_iter()
            .filter(is_comparable)
            .filter_map(|c| {
                let k = key_of(&c)?;
                let c = owned_projection(c, self.limitadors.get(&k));
                Some((k, c))
            })
            .collect();
        let diffs = crate::par::map(&current, 16, |(k, c)| {
            let desired = self.desired.get(k).map(|o| Cow::Owned(o.to_value()));
            compare(k, desired, Some(c), self.context)
        });
        for ((k, c), d) in current.into_iter().zip(diffs) {
            self.compared.insert(k, d);
            if let Some(kept) = &mut self.kept {
                kept.push(c);
            }
        }
    }

    /// Every object's comparison, sorted by identity: desired objects no batch held are created.
    pub fn finish(mut self) -> Vec<ObjectDiff> {
        let missing: Vec<(&ObjectKey, &&Object)> = self
            .desired
            .iter()
            .filter(|(k, _)| !self.compared.contains_key(*k))
            .collect();
        let created = crate::par::map(&missing, 16, |(k, o)| {
            compare(k, Some(Cow::Owned(o.to_value())), None, self.context)
        });
        let keys: Vec<ObjectKey> = missing.into_iter().map(|(k, _)| k.clone()).collect();
        self.compared.extend(keys.into_iter().zip(created));
        self.compared.into_values().collect()
    }
}

/// The objects of `values` by identity (the last one when two share it).
pub fn by_key(values: &[Value]) -> std::collections::HashMap<ObjectKey, &Value> {
    values
        .iter()
        .filter_map(|v| key_of(v).map(|k| (k, v)))
        .collect()
}

fn label(k: &ObjectKey, side: &str) -> String {
    let g = if k.group.is_empty() { "core" } else { &k.group };
    if k.namespace.is_empty() {
        format!("{side}/{g}/{}/{}", k.kind, k.name)
    } else {
        format!("{side}/{g}/{}/{}/{}", k.kind, k.namespace, k.name)
    }
}

/// A unified diff of two texts, with the counts of added and removed lines.
pub fn unified(
    old: &str,
    new: &str,
    old_name: &str,
    new_name: &str,
    context: usize,
) -> (String, usize, usize) {
    let td = TextDiff::from_lines(old, new);
    let mut added = 0;
    let mut removed = 0;
    for op in td.iter_all_changes() {
        match op.tag() {
            similar::ChangeTag::Insert => added += 1,
            similar::ChangeTag::Delete => removed += 1,
            similar::ChangeTag::Equal => {}
        }
    }
    let text = td
        .unified_diff()
        .context_radius(context)
        .header(old_name, new_name)
        .to_string();
    (text, added, removed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn limitador(limits: Value) -> Value {
        json!({"apiVersion": "limitador.kuadrant.io/v1alpha1", "kind": "Limitador",
               "metadata": {"name": "limitador", "namespace": "kuadrant-system"},
               "spec": {"limits": limits}})
    }

    #[test]
    fn reordered_limits_are_unchanged() {
        let a = limitador(json!([{"name": "a", "max_value": 1}, {"name": "b", "max_value": 2}]));
        let b = limitador(json!([{"max_value": 2, "name": "b"}, {"name": "a", "max_value": 1}]));
        let d = diff(&[a], &[b], 3);
        assert_eq!(d[0].change, Change::Unchanged);
    }

    #[test]
    fn json_strings_compare_parsed() {
        let mk = |s: &str| {
            json!({"apiVersion": "networking.istio.io/v1alpha3", "kind": "EnvoyFilter",
                   "metadata": {"name": "kuadrant-gw", "namespace": "ns"},
                   "spec": {"configuration": {"value": s}}})
        };
        let d = diff(
            &[mk(r#"{"a":1,"b":[1,2]}"#)],
            &[mk(r#"{ "b": [1, 2], "a": 1 }"#)],
            3,
        );
        assert_eq!(d[0].change, Change::Unchanged);
        let d = diff(&[mk(r#"{"a":1}"#)], &[mk(r#"{"a":2}"#)], 3);
        assert_eq!(d[0].change, Change::Updated);
        assert!(d[0].unified.contains("-      a: 2"), "{}", d[0].unified);
    }

    #[test]
    fn server_fields_are_ignored_and_drift_is_found() {
        let desired = limitador(json!([{"name": "a", "max_value": 1}]));
        let mut live = limitador(json!([{"name": "a", "max_value": 5}]));
        live["metadata"]["resourceVersion"] = json!("123");
        live["metadata"]["uid"] = json!("u");
        live["metadata"]["ownerReferences"] = json!([{"uid": "x"}]);
        live["status"] = json!({"ready": true});
        let d = diff(std::slice::from_ref(&desired), &[live.clone()], 3);
        assert_eq!(d[0].change, Change::Updated);
        assert_eq!((d[0].added_lines, d[0].removed_lines), (1, 1));
        live["spec"]["limits"][0]["max_value"] = json!(1);
        assert_eq!(diff(&[desired], &[live], 3)[0].change, Change::Unchanged);
    }

    #[test]
    fn created_and_deleted() {
        let a = limitador(json!([]));
        let mut b = a.clone();
        b["metadata"]["name"] = json!("other");
        let d = diff(&[a], &[b], 3);
        let changes: Vec<_> = d.iter().map(|x| (x.name.as_str(), x.change)).collect();
        assert_eq!(
            changes,
            [("limitador", Change::Created), ("other", Change::Deleted)]
        );
    }
}

/// The objects policyctl generates and would compare in a live dump: Kuadrant-managed objects
/// (`kuadrant.io/managed: "true"`), the Limitador CR, and the cert-manager `Certificate`s and
/// `DNSRecord`s the operator created (its common labels: `app.kubernetes.io/managed-by:
/// kuadrant-operator`). Everything else in a dump is not ours.
///
/// Objects of kind `Secret` are never compared, whatever their labels: policyctl generates none, and
/// comparing one would print its data (in every output of `diff --against`, a pull-request comment
/// included). They are skipped as `kubectl get` output of other kinds is.
pub fn is_comparable(v: &Value) -> bool {
    if v.get("kind").and_then(Value::as_str) == Some("Secret") {
        return false;
    }
    let managed = v
        .pointer("/metadata/labels/kuadrant.io~1managed")
        .and_then(Value::as_str)
        == Some("true");
    let kind = v.get("kind").and_then(Value::as_str);
    let limitador = kind == Some("Limitador");
    let by_operator = matches!(kind, Some("Certificate" | "DNSRecord"))
        && v.pointer("/metadata/labels/app.kubernetes.io~1managed-by")
            .and_then(Value::as_str)
            == Some("kuadrant-operator");
    managed || limitador || by_operator
}

/// The part of a current object the operator owns, given the desired one: for the Limitador CR only
/// `spec.limits`, `spec.metricLabelsDefault` and `spec.tracing` (the rest is the user's).
pub fn owned_projection(current: Value, desired: Option<&Value>) -> Value {
    if current.get("kind").and_then(Value::as_str) != Some("Limitador") {
        return current;
    }
    let mut out = serde_json::json!({
        "apiVersion": current.get("apiVersion").cloned().unwrap_or(Value::Null),
        "kind": "Limitador",
        "metadata": {
            "name": current.pointer("/metadata/name").cloned().unwrap_or(Value::Null),
            "namespace": current.pointer("/metadata/namespace").cloned().unwrap_or(Value::Null),
        },
        "spec": {},
    });
    if let Some(Value::Object(dm)) = desired.and_then(|d| d.pointer("/metadata")) {
        for (k, v) in dm {
            if k != "name" && k != "namespace" {
                if let Some(cv) = current.pointer(&format!("/metadata/{k}")) {
                    out["metadata"][k] = cv.clone();
                } else {
                    let _ = v;
                }
            }
        }
    }
    for k in ["limits", "metricLabelsDefault", "tracing"] {
        if let Some(v) = current.pointer(&format!("/spec/{k}")) {
            out["spec"][k] = v.clone();
        }
    }
    out
}

/// What a change between two generated states means for people: which gateways' data-plane objects,
/// which routes, and which Limitador limits change.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Impact {
    /// `namespace/name` of gateways whose wasm or cluster objects change.
    pub gateways: Vec<String>,
    /// `namespace/name` of routes whose limits, action sets or AuthConfigs change.
    pub routes: Vec<String>,
    /// Limits only in the new state: Limitador limits, or with both input trees at hand the effective
    /// limits as their policies write them ([`crate::policy_changes`]).
    pub limits_added: Vec<String>,
    /// Limits only in the old state (as `limits_added`).
    pub limits_removed: Vec<String>,
    /// Policies whose predicted status changes (with both input trees at hand).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub policy_status: Vec<String>,
}

fn gateway_of(v: &Value) -> Option<String> {
    let ns = v.pointer("/metadata/namespace")?.as_str()?;
    let name = v
        .pointer("/spec/targetRefs/0/name")
        .or_else(|| v.pointer("/spec/targetRef/name"))
        .and_then(Value::as_str)?;
    Some(format!("{ns}/{name}"))
}

fn limit_line(l: &Value) -> String {
    let s = |k: &str| {
        l.get(k)
            .map(|v| v.to_string().trim_matches('"').to_string())
            .unwrap_or_default()
    };
    format!(
        "{} on {}: {} per {}s{}",
        s("name"),
        s("namespace"),
        s("max_value"),
        s("seconds"),
        l.get("variables")
            .and_then(Value::as_array)
            .filter(|a| !a.is_empty())
            .map(|a| format!(
                " by {}",
                a.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
            .unwrap_or_default()
    )
}

/// Routes named by an object: rate-limit scopes of its action sets, Limitador limit namespaces, the
/// route of an AuthConfig's annotation.
fn routes_in(v: &Value, out: &mut std::collections::BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            if m.get("service")
                .and_then(Value::as_str)
                .is_some_and(|s| s.starts_with("ratelimit"))
                && let Some(scope) = m.get("scope").and_then(Value::as_str)
            {
                out.insert(scope.to_string());
            }
            for (k, x) in m {
                if k.ends_with("RouteRule.gateway.networking.k8s.io")
                    && let Some(s) = x.as_str()
                    && let Some((_, r)) = s.split_once(':')
                {
                    out.insert(r.split('#').next().unwrap_or(r).to_string());
                }
                routes_in(x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| routes_in(x, out)),
        _ => {}
    }
}

/// The impact of going from `old` to `new` generated objects.
pub fn impact(old: &[Value], new: &[Value]) -> Impact {
    use std::collections::BTreeSet;
    let diffs = diff(new, old, 0);
    let find = |set: &[Value], d: &ObjectDiff| {
        set.iter()
            .find(|v| {
                key_of(v).is_some_and(|k| {
                    k.group == d.group
                        && k.kind == d.kind
                        && k.namespace == d.namespace
                        && k.name == d.name
                })
            })
            .cloned()
    };
    let mut gateways = BTreeSet::new();
    let mut routes = BTreeSet::new();
    let mut added = BTreeSet::new();
    let mut removed = BTreeSet::new();
    for d in diffs.iter().filter(|d| d.change != Change::Unchanged) {
        let o = find(old, d);
        let n = find(new, d);
        if d.kind == "Limitador" {
            let lim = |v: &Option<Value>| -> BTreeSet<String> {
                v.as_ref()
                    .and_then(|v| v.pointer("/spec/limits"))
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .map(|l| {
                                serde_json::to_string(&crate::generate::sort_keys(l.clone()))
                                    .unwrap_or_default()
                            })
                            .collect()
                    })
                    .unwrap_or_default()
            };
            let (lo, ln) = (lim(&o), lim(&n));
            for l in ln.difference(&lo) {
                if let Ok(v) = serde_json::from_str::<Value>(l) {
                    added.insert(limit_line(&v));
                    if let Some(ns) = v.get("namespace").and_then(Value::as_str) {
                        routes.insert(ns.to_string());
                    }
                }
            }
            for l in lo.difference(&ln) {
                if let Ok(v) = serde_json::from_str::<Value>(l) {
                    removed.insert(limit_line(&v));
                    if let Some(ns) = v.get("namespace").and_then(Value::as_str) {
                        routes.insert(ns.to_string());
                    }
                }
            }
            continue;
        }
        for v in o.iter().chain(n.iter()) {
            if let Some(g) = gateway_of(v) {
                gateways.insert(g);
            }
        }
        // Routes: those named only on one side, or in action sets that differ.
        let sets = |v: &Option<Value>| -> BTreeSet<String> {
            let mut s = BTreeSet::new();
            if let Some(v) = v {
                let v = normalize(v, None);
                let arr = v
                    .pointer("/spec/pluginConfig/actionSets")
                    .or_else(|| v.pointer("/spec/configPatches/0/patch/value/typed_config/value/config/configuration/value/actionSets"))
                    .or_else(|| v.pointer("/spec/wasm/0/config/actionSets"));
                match arr.and_then(Value::as_array) {
                    Some(a) => s.extend(
                        a.iter()
                            .map(|x| serde_json::to_string(x).unwrap_or_default()),
                    ),
                    None => {
                        s.insert(serde_json::to_string(&v).unwrap_or_default());
                    }
                }
            }
            s
        };
        let (so, sn) = (sets(&o), sets(&n));
        for x in so.symmetric_difference(&sn) {
            if let Ok(v) = serde_json::from_str::<Value>(x) {
                routes_in(&v, &mut routes);
            }
        }
    }
    Impact {
        gateways: gateways.into_iter().collect(),
        routes: routes.into_iter().collect(),
        limits_added: added.into_iter().collect(),
        limits_removed: removed.into_iter().collect(),
        policy_status: Vec::new(),
    }
}
