//! Generated objects. Most are small trees (`serde_json::Value`, keys sorted). The two kinds whose size
//! grows with the number of paths keep their repeated parts typed and shared instead: the wasm
//! carrier's action sets (the merged actions of a route and its effective policies are shared by the
//! sets of all its paths, the auth action's scope kept per path; a rule's predicates are shared by its
//! sets) and the AuthConfigs (one encoded spec per distinct effective AuthPolicy, shared by all its
//! paths; only `hosts` differs). That way a large estate is written without building a tree per path.
//!
//! [`Object::to_value`] gives the tree for every consumer that needs one (diff, `--out-dir`, JSON);
//! the YAML writer (`render::objects`) writes the typed parts directly, through their `Serialize`
//! (its serializer), and a test checks that both give the same text. A typed part's `Serialize` is
//! the one place its fields become text: the YAML writer, `watch`'s carrier digest and serde_json
//! all go through it.

use super::actions::{AUTH_SERVICE, Action};
use super::names::HexDigest;
use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq, SerializeTupleStruct, Serializer};
use serde_json::{Map, Value};
use std::sync::Arc;

/// One wasm action set.
#[derive(Clone, Debug)]
pub struct ActionSet {
    pub name: HexDigest,
    /// `routeRuleConditions.hostnames` (always one hostname); shared by the sets of one hostname.
    pub hostname: Arc<str>,
    /// `routeRuleConditions.predicates` (omitted when empty); shared by the sets of one rule match.
    pub predicates: Arc<[String]>,
    /// The path's actions. They depend only on the path's route and effective policies, so paths
    /// share them, except for the auth action's scope, which is the path's own AuthConfig name:
    /// that one is `auth_scope`, and the auth action in the list has an empty scope.
    pub actions: Arc<[Action]>,
    /// The scope of the auth action (empty when there is none); shared by the path's sets.
    pub auth_scope: Arc<str>,
    /// Typed actions extension policies append after `actions` (a ThreatPolicy's, see
    /// `super::threat`); shared by the gateway's sets.
    pub typed: Arc<[Value]>,
}

#[cfg(test)]
impl ActionSet {
    /// A set named `name` (hashed) for `hostname` with `actions`, no predicates, auth scope or
    /// typed actions, for tests: the one place besides the generator that lists the fields.
    pub(crate) fn for_tests(name: &str, hostname: &str, actions: Arc<[Action]>) -> Self {
        ActionSet {
            name: HexDigest::of(name),
            hostname: Arc::from(hostname),
            predicates: Arc::from(Vec::new()),
            actions,
            auth_scope: Arc::from(""),
            typed: Arc::from(Vec::new()),
        }
    }
}

impl ActionSet {
    /// The scope `a` (one of `actions`) has in this set.
    pub fn scope_of<'a>(&'a self, a: &'a Action) -> &'a str {
        if a.service == AUTH_SERVICE {
            &self.auth_scope
        } else {
            &a.scope
        }
    }
}

/// The actions of a set, each with its scope in that set.
struct SetActions<'a>(&'a ActionSet);

impl SetActions<'_> {
    /// What the text of the list is a function of: the addresses and lengths of the action list,
    /// of the auth scope when the list has an auth action (paths share lists, not auth scopes),
    /// and of the typed actions; all of them shared parts that live as long as the set.
    fn identity(&self) -> SharedId {
        let set = self.0;
        let scope: &str = if set.actions.iter().any(|a| a.service == AUTH_SERVICE) {
            &set.auth_scope
        } else {
            ""
        };
        // An empty part is the same whatever its address (each set may have its own).
        let at = |ptr: usize, len: usize| if len == 0 { [0, 0] } else { [ptr, len] };
        let [a, b] = at(set.actions.as_ptr() as usize, set.actions.len());
        let [c, d] = at(scope.as_ptr() as usize, scope.len());
        let [e, f] = at(set.typed.as_ptr() as usize, set.typed.len());
        let words = [a, b, c, d, e, f];
        let mut id = [0u8; 48];
        for (chunk, w) in id.chunks_exact_mut(8).zip(words) {
            chunk.copy_from_slice(&(w as u64).to_le_bytes());
        }
        id
    }

    /// Whether other sets hold the same list (and auth scope): what a writer may keep the text of.
    fn shared(&self) -> bool {
        let set = self.0;
        if set.actions.iter().any(|a| a.service == AUTH_SERVICE) {
            Arc::strong_count(&set.auth_scope) > 1
        } else {
            Arc::strong_count(&set.actions) > 1
        }
    }
}

/// The identity of a part action sets share ([`SHARED`]).
pub(crate) type SharedId = [u8; 48];

/// The name of the tuple struct a part the action sets share is serialised as for policyctl's own
/// serializers, which say they are not human-readable: the YAML writer (`render::objects`) and the
/// carrier digest (`watch::memo`). Its fields: the part's identity (bytes, equal for two parts only
/// when they are the same part), whether other sets hold it (a bool), then the part itself. They
/// write or digest a part once and reuse the result. Every other serializer (serde_json, the
/// trees) gets the part itself.
pub(crate) const SHARED: &str = "$policyctl::SharedPart";

impl Serialize for SetActions<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            return Plain(self).serialize(s);
        }
        let mut t = s.serialize_tuple_struct(SHARED, 3)?;
        t.serialize_field(&Bytes(&self.identity()))?;
        t.serialize_field(&self.shared())?;
        t.serialize_field(&Plain(self))?;
        t.end()
    }
}

/// Bytes serialised with `serialize_bytes` (a slice of `u8` would be a sequence).
struct Bytes<'a>(&'a [u8]);

impl Serialize for Bytes<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}

/// The list itself.
struct Plain<'a, 'b>(&'a SetActions<'b>);

impl Serialize for Plain<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let set = self.0.0;
        let mut seq = s.serialize_seq(Some(set.actions.len() + set.typed.len()))?;
        for a in set.actions.iter() {
            seq.serialize_element(&a.with_scope(set.scope_of(a)))?;
        }
        for t in set.typed.iter() {
            seq.serialize_element(t)?;
        }
        seq.end()
    }
}

/// `{"hostnames": [h], "predicates": [...]}`.
pub struct RouteRuleConditions<'a> {
    pub hostname: &'a str,
    pub predicates: &'a [String],
}

impl Serialize for RouteRuleConditions<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("hostnames", &[self.hostname])?;
        if !self.predicates.is_empty() {
            m.serialize_entry("predicates", self.predicates)?;
        }
        m.end()
    }
}

impl ActionSet {
    pub fn route_rule_conditions(&self) -> RouteRuleConditions<'_> {
        RouteRuleConditions {
            hostname: &self.hostname,
            predicates: &self.predicates,
        }
    }
}

impl Serialize for ActionSet {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("actions", &SetActions(self))?;
        m.serialize_entry("name", &self.name)?;
        m.serialize_entry("routeRuleConditions", &self.route_rule_conditions())?;
        m.end()
    }
}

/// A gateway's wasm plugin configuration: `actionSets`, then the other keys (`observability`,
/// `services`), which sort after it.
#[derive(Clone, Debug)]
pub struct WasmConfig {
    pub action_sets: Vec<ActionSet>,
    /// Keys sorted, every key after `actionSets`.
    pub rest: Map<String, Value>,
}

impl Serialize for WasmConfig {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("actionSets", &self.action_sets)?;
        for (k, v) in &self.rest {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl WasmConfig {
    /// The configuration as compact JSON (what `serde_json::to_string` gives). A gateway of a large
    /// estate has thousands of action sets, megabytes of JSON: they are written in parts on every
    /// core and joined.
    pub(crate) fn to_json(&self) -> String {
        self.to_json_in(self.json_parts())
    }

    /// In how many parts [`WasmConfig::json_with`] writes this configuration: one per core, of
    /// 1,024 action sets or more each (about a megabyte of text).
    pub(crate) fn json_parts(&self) -> usize {
        const PART: usize = 1024;
        crate::par::cores().min(self.action_sets.len() / PART)
    }

    /// A room for the JSON of `sets` action sets and the other entries that is rarely too small:
    /// the text is megabytes for a large gateway, and a buffer grown by doubling copies it and
    /// touches fresh pages (each a page fault) several times over. Room never written costs
    /// address space only.
    fn json_capacity(sets: usize) -> usize {
        4096 + 1024 * sets
    }

    /// [`WasmConfig::to_json`] with the action sets written in `parts` parts (one or none: in one go).
    pub(super) fn to_json_in(&self, parts: usize) -> String {
        let out = self.json_with(Compact, parts).unwrap_or_default();
        // serde_json writes UTF-8.
        String::from_utf8(out).unwrap_or_default()
    }

    /// The configuration's compact JSON written through `style`, for a caller that wants the text
    /// in another form (YAML's rendering writes it already escaped inside double quotes): what
    /// [`WasmConfig::json_into`] writes, in a buffer of its own.
    pub(crate) fn json_with<F: JsonStyle>(
        &self,
        style: F,
        parts: usize,
    ) -> std::io::Result<Vec<u8>> {
        let mut out = Vec::with_capacity(Self::json_capacity(self.action_sets.len()));
        self.json_into(style, parts, &mut out)?;
        Ok(out)
    }

    /// The configuration's compact JSON written through `style` into `w`. The action sets of a
    /// large configuration are written in `parts` parts on every core: the first straight into
    /// `w`, each other into its own buffer, written after it in order; with one part (or none)
    /// everything goes straight into `w`. An error of `style` or of `w` stops the writing, and `w`
    /// then holds a part of the text.
    pub(crate) fn json_into<F: JsonStyle>(
        &self,
        style: F,
        parts: usize,
        w: &mut (impl std::io::Write + Send),
    ) -> std::io::Result<()> {
        let sets = &self.action_sets;
        let mut rest = Vec::new();
        json_of(&self.rest, style, &mut rest)?;
        // `{"actionSets":[…]` then the other entries, as the mapping of `rest` writes them.
        let mut head = vec![b'{'];
        style.literal(b"\"actionSets\"", &mut head);
        head.extend_from_slice(b":[");
        w.write_all(&head)?;
        if parts < 2 {
            sets_into(sets, style, w)?;
        } else {
            let mut ranges = crate::par::even_ranges(sets.len(), parts);
            let head = ranges.remove(0);
            // The first part is written where the text goes while the others fill buffers of their
            // own: a megabyte less copied, and a megabyte less of fresh memory.
            let (head_written, texts) = crate::par::join_if(
                true,
                || sets_into(&sets[head.clone()], style, w),
                || {
                    crate::par::map_ranges(ranges, |r| {
                        let mut buf = Vec::with_capacity(Self::json_capacity(r.len()));
                        sets_into(&sets[r], style, &mut buf)?;
                        Ok::<_, std::io::Error>(buf)
                    })
                },
            );
            head_written?;
            // A part without action sets (more parts than sets) adds nothing.
            let mut first = head.is_empty();
            for t in texts {
                let t = t?;
                if t.is_empty() {
                    continue;
                }
                if !first {
                    w.write_all(b",")?;
                }
                first = false;
                w.write_all(&t)?;
            }
        }
        w.write_all(b"]")?;
        match rest.strip_prefix(b"{") {
            Some(b"}") | None => w.write_all(b"}"),
            Some(entries) => {
                w.write_all(b",")?;
                w.write_all(entries)
            }
        }
    }
}

/// The compact JSON of `sets` through `style` into `w`, comma-separated, as serde_json writes
/// them ([`ActionSet`]'s `Serialize`). The text of an action in a list that other sets share (the
/// sets of one route's paths, hostnames and matches) is written once and copied after, and so is
/// a typed action's: the actions are most of a configuration's text. The auth action's scope is
/// each path's own, so that action is written every time.
fn sets_into<F: JsonStyle>(
    sets: &[ActionSet],
    style: F,
    w: &mut impl std::io::Write,
) -> std::io::Result<()> {
    // The keys, as the mapping writes them: `{"actions":`, `,"name":`, `,"routeRuleConditions":`.
    let key = |open: u8, name: &[u8]| {
        let mut k = vec![open];
        style.literal(name, &mut k);
        k.push(b':');
        k
    };
    let (actions, name, conditions) = (
        key(b'{', b"\"actions\""),
        key(b',', b"\"name\""),
        key(b',', b"\"routeRuleConditions\""),
    );
    // An action's text by its address: the sets that share a list share its actions.
    let mut written: foldhash::HashMap<usize, Vec<u8>> = foldhash::HashMap::default();
    let mut f = style;
    for (i, set) in sets.iter().enumerate() {
        if i > 0 {
            w.write_all(b",")?;
        }
        w.write_all(&actions)?;
        f.begin_array(w)?;
        let (shared, typed_shared) = (
            Arc::strong_count(&set.actions) > 1,
            Arc::strong_count(&set.typed) > 1,
        );
        for (k, a) in set.actions.iter().enumerate() {
            f.begin_array_value(w, k == 0)?;
            if shared && a.service != AUTH_SERVICE {
                w.write_all(once(&mut written, std::ptr::from_ref(a) as usize, |t| {
                    json_of(&a.with_scope(&a.scope), style, t)
                })?)?;
            } else {
                json_of(&a.with_scope(set.scope_of(a)), style, w)?;
            }
            f.end_array_value(w)?;
        }
        for (k, t) in set.typed.iter().enumerate() {
            f.begin_array_value(w, k == 0 && set.actions.is_empty())?;
            if typed_shared {
                w.write_all(once(&mut written, std::ptr::from_ref(t) as usize, |b| {
                    json_of(t, style, b)
                })?)?;
            } else {
                json_of(t, style, w)?;
            }
            f.end_array_value(w)?;
        }
        f.end_array(w)?;
        w.write_all(&name)?;
        json_of(&set.name, style, w)?;
        w.write_all(&conditions)?;
        json_of(&set.route_rule_conditions(), style, w)?;
        w.write_all(b"}")?;
    }
    Ok(())
}

/// The text `write` gives, written the first time `at` is asked for and kept in `written`.
fn once(
    written: &mut foldhash::HashMap<usize, Vec<u8>>,
    at: usize,
    write: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>,
) -> std::io::Result<&[u8]> {
    Ok(match written.entry(at) {
        std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
        std::collections::hash_map::Entry::Vacant(e) => {
            let mut text = Vec::new();
            write(&mut text)?;
            e.insert(text)
        }
    })
}

/// `value`'s compact JSON through `style` into `w`.
fn json_of<F: JsonStyle>(
    value: &impl Serialize,
    style: F,
    w: &mut impl std::io::Write,
) -> std::io::Result<()> {
    value
        .serialize(&mut serde_json::Serializer::with_formatter(w, style))
        .map_err(std::io::Error::other)
}

/// How [`WasmConfig::json_with`] writes JSON: a serde_json formatter, which also says how a piece
/// of literal compact JSON (a quoted key) is written.
pub(crate) trait JsonStyle: serde_json::ser::Formatter + Copy + Send + Sync {
    fn literal(&self, json: &[u8], out: &mut Vec<u8>);
}

/// serde_json's compact output (the trait's own defaults), as a [`JsonStyle`].
#[derive(Clone, Copy)]
pub(crate) struct Compact;

impl serde_json::ser::Formatter for Compact {}

impl JsonStyle for Compact {
    fn literal(&self, json: &[u8], out: &mut Vec<u8>) {
        out.extend_from_slice(json);
    }
}

/// A gateway's wasm carrier: the object without its configuration (`shell`, with `null` at `at`),
/// and the configuration, which goes at `at` as `embed` says. Kept typed until it is written: a
/// large gateway's configuration is megabytes of JSON, and `watch` tells an unchanged carrier from
/// its digest without writing it (`watch::memo`).
#[derive(Clone, Debug)]
pub struct WasmCarrier {
    pub shell: Value,
    /// JSON pointer of the configuration inside `shell`.
    pub at: &'static str,
    pub embed: Embed,
    pub config: WasmConfig,
}

/// How a carrier holds its configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Embed {
    /// As a mapping: 1.4 `WasmPlugin`'s `pluginConfig`, `EnvoyExtensionPolicy`'s `config`.
    Mapping,
    /// As its compact JSON text, a string: 1.5 wasm `EnvoyFilter`'s `configuration.value`
    /// (a `google.protobuf.StringValue`).
    Json,
}

impl WasmCarrier {
    /// The namespace and name of the Gateway it configures: its own namespace, and its name
    /// `kuadrant-<gateway>` (the name the operator gives every carrier).
    pub fn gateway(&self) -> Option<(&str, &str)> {
        let ns = self.shell.pointer("/metadata/namespace")?.as_str()?;
        let name = self.shell.pointer("/metadata/name")?.as_str()?;
        Some((ns, name.strip_prefix("kuadrant-")?))
    }

    /// What goes at `at`.
    pub fn config_value(&self) -> Value {
        match self.embed {
            Embed::Mapping => to_value(&self.config),
            Embed::Json => Value::String(self.config.to_json()),
        }
    }
}

/// One entry of the Limitador CR's `spec.limits`. There is one per rate of every limit on every
/// route, so they are typed rather than trees (a tree mapping costs about a kilobyte).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LimitadorLimit {
    pub conditions: Vec<String>,
    pub max_value: i64,
    /// Omitted when empty.
    pub name: String,
    /// `<route namespace>/<route name>`, shared by the route's limits.
    pub namespace: Arc<str>,
    pub seconds: i64,
    pub variables: Vec<String>,
}

impl Serialize for LimitadorLimit {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // Keys sorted, as every generated mapping.
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("conditions", &self.conditions)?;
        m.serialize_entry("max_value", &self.max_value)?;
        if !self.name.is_empty() {
            m.serialize_entry("name", &self.name)?;
        }
        m.serialize_entry("namespace", &*self.namespace)?;
        m.serialize_entry("seconds", &self.seconds)?;
        m.serialize_entry("variables", &self.variables)?;
        m.end()
    }
}

/// The Limitador CR with limits: the object without them (`shell`, with `null` at `at`), and the
/// limits in their canonical order.
#[derive(Clone, Debug)]
pub struct LimitadorCarrier {
    pub shell: Value,
    /// JSON pointer of `spec.limits` inside `shell`.
    pub at: &'static str,
    pub limits: Vec<LimitadorLimit>,
}

#[cfg(test)]
impl LimitadorCarrier {
    /// The default Limitador (`kuadrant-system/limitador`) carrying `limits` as given, for tests.
    pub(crate) fn for_tests(limits: Vec<LimitadorLimit>) -> Self {
        LimitadorCarrier {
            shell: serde_json::json!({
                "apiVersion": "limitador.kuadrant.io/v1alpha1",
                "kind": "Limitador",
                "metadata": {"name": "limitador", "namespace": "kuadrant-system"},
                "spec": {"limits": null, "metricLabelsDefault": "descriptors[1]"},
            }),
            at: "/spec/limits",
            limits,
        }
    }
}

/// An AuthConfig.
#[derive(Clone, Debug)]
pub struct AuthConfig {
    /// The model's index of the gateway of its path (not written: what `watch` files it under).
    pub gateway: usize,
    pub name: String,
    /// The Kuadrant namespace (shared).
    pub namespace: Arc<str>,
    /// The one annotation: `<RuleKind>.gateway.networking.k8s.io` → `<route locator>#<rule name>`
    /// (shared by the paths through one route rule).
    pub annotation: Arc<(String, String)>,
    /// The encoded spec without `hosts` (which is `[name]`), keys sorted; shared by the paths of one
    /// effective AuthPolicy.
    pub spec: Arc<Map<String, Value>>,
}

pub(crate) const AUTH_CONFIG_API_VERSION: &str = "authorino.kuadrant.io/v1beta3";
pub(crate) const AUTH_CONFIG_LABELS: [(&str, &str); 2] = [
    ("kuadrant.io/auth", "true"),
    ("kuadrant.io/managed", "true"),
];

/// `spec` with `hosts: [name]` in its sorted place.
pub(crate) struct AuthConfigSpec<'a>(pub &'a AuthConfig);

impl Serialize for AuthConfigSpec<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let a = self.0;
        let mut m = s.serialize_map(None)?;
        let mut hosts = false;
        for (k, v) in a.spec.iter() {
            if !hosts && k.as_str() > "hosts" {
                m.serialize_entry("hosts", &[&a.name])?;
                hosts = true;
            }
            m.serialize_entry(k, v)?;
        }
        if !hosts {
            m.serialize_entry("hosts", &[&a.name])?;
        }
        m.end()
    }
}

/// A mapping of string pairs, in the given order.
struct Entries<'a, K: AsRef<str>, V: AsRef<str>>(&'a [(K, V)]);

impl<K: AsRef<str>, V: AsRef<str>> Serialize for Entries<'_, K, V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            m.serialize_entry(k.as_ref(), v.as_ref())?;
        }
        m.end()
    }
}

/// `metadata` of an AuthConfig.
struct AuthConfigMetadata<'a>(&'a AuthConfig);

impl Serialize for AuthConfigMetadata<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let a = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry(
            "annotations",
            &Entries(&[(&a.annotation.0, &a.annotation.1)]),
        )?;
        m.serialize_entry("labels", &Entries(&AUTH_CONFIG_LABELS))?;
        m.serialize_entry("name", &a.name)?;
        m.serialize_entry("namespace", &*a.namespace)?;
        m.end()
    }
}

impl Serialize for AuthConfig {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("apiVersion", AUTH_CONFIG_API_VERSION)?;
        m.serialize_entry("kind", "AuthConfig")?;
        m.serialize_entry("metadata", &AuthConfigMetadata(self))?;
        m.serialize_entry("spec", &AuthConfigSpec(self))?;
        m.end()
    }
}

/// One generated object.
#[derive(Clone, Debug)]
pub enum Object {
    /// A small object as a tree, keys sorted.
    Tree(Value),
    Wasm(Box<WasmCarrier>),
    Limitador(Box<LimitadorCarrier>),
    AuthConfig(Box<AuthConfig>),
}

impl Object {
    /// The object as a tree (keys sorted), as `kubectl get -o json` would show it.
    pub fn to_value(&self) -> Value {
        match self {
            Object::Tree(v) => v.clone(),
            Object::Wasm(w) => filled(&w.shell, w.at, w.config_value()),
            Object::Limitador(l) => filled(&l.shell, l.at, to_value(&l.limits)),
            Object::AuthConfig(a) => to_value(&**a),
        }
    }

    /// `kind`.
    pub fn kind(&self) -> &str {
        match self {
            Object::Tree(v) => v.get("kind").and_then(Value::as_str).unwrap_or(""),
            Object::Wasm(w) => w.shell.get("kind").and_then(Value::as_str).unwrap_or(""),
            Object::Limitador(_) => "Limitador",
            Object::AuthConfig(_) => "AuthConfig",
        }
    }

    /// `metadata.namespace` and `metadata.name` of a wasm carrier or a plain tree (`None` for the
    /// Limitador and AuthConfigs, which callers name otherwise).
    pub fn namespace_name(&self) -> Option<(&str, &str)> {
        let tree = match self {
            Object::Tree(v) => v,
            Object::Wasm(w) => &w.shell,
            Object::Limitador(_) | Object::AuthConfig(_) => return None,
        };
        let meta = tree.get("metadata")?;
        Some((
            meta.get("namespace").and_then(Value::as_str).unwrap_or(""),
            meta.get("name")?.as_str()?,
        ))
    }

    /// A `metadata.labels` entry.
    pub fn label(&self, key: &str) -> Option<&str> {
        let tree = match self {
            Object::Tree(v) => v,
            Object::Wasm(w) => &w.shell,
            Object::Limitador(l) => &l.shell,
            Object::AuthConfig(_) => {
                return AUTH_CONFIG_LABELS
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map(|(_, v)| *v);
            }
        };
        tree.get("metadata")?.get("labels")?.get(key)?.as_str()
    }
}

/// A carrier's shell with `part` at its placeholder `at`.
fn filled(shell: &Value, at: &str, part: Value) -> Value {
    let mut v = shell.clone();
    if let Some(slot) = v.pointer_mut(at) {
        *slot = part;
    }
    v
}

/// `serde_json::to_value` for our own types, whose serialisation cannot fail (string keys only).
fn to_value<T: Serialize>(t: &T) -> Value {
    t.serialize(serde_json::value::Serializer)
        .unwrap_or(Value::Null)
}

/// Trees of a list of objects.
pub fn values(objects: &[Object]) -> Vec<Value> {
    objects.iter().map(Object::to_value).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::actions::{ConditionalData, RATELIMIT_SERVICE};

    /// Action sets that share their action list (each with its own auth scope) and their typed
    /// actions, beside sets with lists of their own: the JSON written with each shared action's
    /// text kept and copied is serde_json's text of the same configuration, in one part or
    /// several, compact or escaped inside double quotes.
    #[test]
    fn shared_actions_written_once_are_serde_json_text() {
        let action = |service: &'static str, scope: &str, n: usize| Action {
            service,
            scope: scope.into(),
            predicates: vec![format!("request.method == 'GET{n}'")],
            conditional_data: vec![ConditionalData {
                predicates: vec!["auth.identity.x == \"y\"".into()],
                data: vec![(format!("limit.l{n}"), "1".into())],
            }],
            sources: vec![format!("ratelimitpolicy.kuadrant.io:ns/p{n}")],
        };
        let shared: Arc<[Action]> = Arc::from(vec![
            action(AUTH_SERVICE, "", 0),
            action(RATELIMIT_SERVICE, "ns/route", 1),
            action(RATELIMIT_SERVICE, "ns/route", 2),
        ]);
        let typed: Arc<[Value]> = Arc::from(vec![
            serde_json::json!({"service": "threat", "k": [1, "a\"b"]}),
        ]);
        let mut sets = Vec::new();
        for i in 0..40 {
            let own: Arc<[Action]> = Arc::from(vec![action(RATELIMIT_SERVICE, "ns/other", i)]);
            let mut set = ActionSet::for_tests(
                &format!("set-{i}"),
                &format!("h{}.example.com", i % 3),
                if i % 4 == 3 { own } else { Arc::clone(&shared) },
            );
            set.auth_scope = Arc::from(format!("scope-{}", i / 2));
            if i % 2 == 0 {
                set.typed = Arc::clone(&typed);
            }
            if i % 5 == 0 {
                set.actions = Arc::from(Vec::new());
            }
            sets.push(set);
        }
        let config = WasmConfig {
            action_sets: sets,
            rest: serde_json::from_str(r#"{"services": {"a": {"timeout": "100ms"}}}"#).unwrap(),
        };
        let whole = serde_json::to_string(&config).unwrap();
        for parts in [0, 1, 2, 3, 50] {
            assert_eq!(config.to_json_in(parts), whole, "{parts} parts");
            let escaped = String::from_utf8(
                config
                    .json_with(crate::render::objects::InDoubleQuotes, parts)
                    .unwrap(),
            )
            .unwrap();
            let mut unescaped = String::new();
            let mut chars = escaped.chars();
            while let Some(ch) = chars.next() {
                unescaped.extend(if ch == '\\' { chars.next() } else { Some(ch) });
            }
            assert_eq!(unescaped, whole, "{parts} parts, escaped");
        }
    }
}
