//! The CRD schemas of the emulated release and their validation, as the API server applies them
//! to an object created with `kubectl apply`: defaults (seen by the rules, not written into the
//! input), strict field validation (unknown fields), the structural OpenAPI v3 checks and the
//! `x-kubernetes-validations` CEL rules ([`cel`]).
//!
//! The schemas are data generated from the upstream CRDs by `schemas/generate.py` (one file per
//! release, embedded in the binary); each schema node is compiled once per run, the first time an
//! object reaches it ([`Sub`]). Must not know about the model: it walks a [`Node`] tree and returns
//! [`Finding`]s, each with the API server's message and the span of the offending field.

pub(crate) mod cel;
mod check;
pub(crate) mod meta;
mod verdicts;

use super::node::Node;
use crate::model::KuadrantVersion;
use crate::source::Span;
use serde_json::Value as Json;
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

pub(crate) use check::{FindingKind, prune, validate};

/// How unknown fields are treated, as kubectl's `--validate`: `strict` (the default of `kubectl
/// apply`: server-side strict field validation refuses the object), `warn` (the API server drops
/// them and says so), `ignore` (dropped silently).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FieldValidation {
    #[default]
    Strict,
    Warn,
    Ignore,
}

impl FieldValidation {
    /// The value of `--validate` / `validate:` in the settings file (`true` and `false` as kubectl
    /// reads them: strict and ignore).
    pub fn parse(s: &str) -> Option<FieldValidation> {
        match s {
            "strict" | "true" => Some(FieldValidation::Strict),
            "warn" => Some(FieldValidation::Warn),
            "ignore" | "false" => Some(FieldValidation::Ignore),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            FieldValidation::Strict => "strict",
            FieldValidation::Warn => "warn",
            FieldValidation::Ignore => "ignore",
        }
    }
}

/// The JSON type a schema requires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    Any,
    Object,
    Array,
    String,
    Integer,
    Number,
    Boolean,
}

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::Any => "",
            Ty::Object => "object",
            Ty::Array => "array",
            Ty::String => "string",
            Ty::Integer => "integer",
            Ty::Number => "number",
            Ty::Boolean => "boolean",
        }
    }
}

/// `x-kubernetes-list-type`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ListType {
    Atomic,
    Set,
    Map(Vec<String>),
}

/// A schema of a property, an array's items or a map's values, compiled the first time it is
/// read: an object uses a few branches of its kind's schema (an AuthPolicy one of `defaults`,
/// `overrides` and `rules`, and a few of the auth methods), and compiling the whole schema took
/// half of the schema check's time on kuadrant-operator #1085's shape.
#[derive(Debug)]
pub(crate) struct Sub {
    /// The schema's JSON text in the embedded data (`None`: already compiled).
    raw: Option<&'static str>,
    compiled: OnceLock<Schema>,
}

impl Sub {
    fn lazy(raw: &'static RawValue) -> Sub {
        Sub {
            raw: Some(raw.get()),
            compiled: OnceLock::new(),
        }
    }

    fn ready(s: Schema) -> Sub {
        Sub {
            raw: None,
            compiled: OnceLock::from(s),
        }
    }

    /// The compiled schema.
    pub(crate) fn get(&self) -> &Schema {
        self.compiled
            .get_or_init(|| self.raw.map_or_else(Schema::any, Schema::compile))
    }
}

/// One compiled schema node.
#[derive(Debug)]
pub(crate) struct Schema {
    pub ty: Ty,
    pub nullable: bool,
    pub int_or_string: bool,
    pub preserve_unknown: bool,
    pub embedded: bool,
    /// A Gateway API field of a newer standard channel than the release installs: the version of
    /// the CRDs that declare it (`x-policyctl-since`, see `schemas/generate.py`).
    pub since: Option<String>,
    /// Sorted by name.
    pub properties: Vec<(String, Sub)>,
    /// The properties' [`fingerprint`]s with their index in `properties`, sorted: a name is
    /// looked up by comparing integers, and its text compared once at most.
    index: Vec<(u64, u32)>,
    additional: Option<Box<Sub>>,
    pub required: Vec<String>,
    items: Option<Box<Sub>>,
    pub enum_values: Vec<Json>,
    /// The pattern as written, and compiled when first used ([`Schema::pattern`]).
    pattern: Option<(String, OnceLock<Option<regex::Regex>>)>,
    pub format: Option<String>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
    pub min_properties: Option<u64>,
    pub max_properties: Option<u64>,
    pub minimum: Option<(f64, bool)>,
    pub maximum: Option<(f64, bool)>,
    pub default: Option<Node>,
    pub list_type: ListType,
    pub rules: Vec<cel::Rule>,
    /// The rules compiled together for evaluation, when a value first reaches them.
    rule_set: OnceLock<cel::Rules>,
    /// `anyOf`, `oneOf`, `allOf`, `not`: value validation only (structural schemas declare no
    /// fields in them).
    pub any_of: Vec<Schema>,
    pub one_of: Vec<Schema>,
    pub all_of: Vec<Schema>,
    pub not: Option<Box<Schema>>,
}

impl Schema {
    pub(crate) fn property(&self, name: &str) -> Option<&Schema> {
        let f = fingerprint(name);
        let from = self.index.partition_point(|(x, _)| *x < f);
        self.index[from..]
            .iter()
            .take_while(|(x, _)| *x == f)
            .filter_map(|(_, i)| self.properties.get(*i as usize))
            // A fingerprint is the whole name when the name is short.
            .find(|(n, _)| name.len() < 8 || n == name)
            .map(|(_, s)| s.get())
    }

    /// The schema of a mapping's value under `key`: a declared property, else
    /// `additionalProperties`.
    pub(crate) fn child(&self, key: &str) -> Option<&Schema> {
        self.property(key).or_else(|| self.additional())
    }

    /// `additionalProperties`: the schema of a map's values.
    pub(crate) fn additional(&self) -> Option<&Schema> {
        self.additional.as_deref().map(Sub::get)
    }

    /// `items`: the schema of an array's items.
    pub(crate) fn items(&self) -> Option<&Schema> {
        self.items.as_deref().map(Sub::get)
    }

    /// The schema's `x-kubernetes-validations` rules compiled together ([`cel::Rules`]).
    pub(crate) fn rule_set(&self) -> &cel::Rules {
        self.rule_set
            .get_or_init(|| cel::Rules::compile(&self.rules))
    }

    /// The pattern as written, and compiled (`None` if the `regex` crate cannot read it). Each
    /// pattern is compiled once per run, the first time a value is checked against it.
    pub(crate) fn pattern(&self) -> Option<(&str, Option<&regex::Regex>)> {
        let (p, re) = self.pattern.as_ref()?;
        let re = re.get_or_init(|| {
            type Compiled = HashMap<String, Option<regex::Regex>>;
            static COMPILED: OnceLock<Mutex<Compiled>> = OnceLock::new();
            let compiled = COMPILED.get_or_init(Mutex::default);
            if let Some(re) = compiled.lock().ok().and_then(|m| m.get(p).cloned()) {
                return re;
            }
            let re = regex::Regex::new(p).ok();
            if let Ok(mut m) = compiled.lock() {
                m.insert(p.clone(), re.clone());
            }
            re
        });
        Some((p, re.as_ref()))
    }

    pub(crate) fn any() -> Schema {
        Schema {
            ty: Ty::Any,
            nullable: false,
            int_or_string: false,
            preserve_unknown: true,
            embedded: false,
            since: None,
            properties: vec![],
            index: vec![],
            additional: None,
            required: vec![],
            items: None,
            enum_values: vec![],
            pattern: None,
            format: None,
            min_length: None,
            max_length: None,
            min_items: None,
            max_items: None,
            min_properties: None,
            max_properties: None,
            minimum: None,
            maximum: None,
            default: None,
            list_type: ListType::Atomic,
            rules: vec![],
            rule_set: OnceLock::new(),
            any_of: vec![],
            one_of: vec![],
            all_of: vec![],
            not: None,
        }
    }

    /// Compile a schema node of the generated data. Its subschemas are kept as text, compiled
    /// when first read ([`Sub`]); the other keywords are read as JSON values.
    fn compile(raw: &'static str) -> Schema {
        /// The keywords of a schema node, subschemas as text.
        #[derive(serde::Deserialize, Default)]
        #[serde(default)]
        struct Keywords<'a> {
            #[serde(rename = "type")]
            ty: Option<Json>,
            nullable: Option<Json>,
            #[serde(rename = "x-kubernetes-int-or-string")]
            int_or_string: Option<Json>,
            #[serde(rename = "x-kubernetes-preserve-unknown-fields")]
            preserve_unknown: Option<Json>,
            #[serde(rename = "x-kubernetes-embedded-resource")]
            embedded: Option<Json>,
            #[serde(rename = "x-policyctl-since")]
            since: Option<Json>,
            #[serde(borrow)]
            properties: Props<'a>,
            #[serde(rename = "additionalProperties", borrow)]
            additional: Option<&'a RawValue>,
            required: Option<Json>,
            #[serde(borrow)]
            items: Option<&'a RawValue>,
            #[serde(rename = "enum")]
            enum_values: Option<Json>,
            pattern: Option<Json>,
            format: Option<Json>,
            #[serde(rename = "minLength")]
            min_length: Option<Json>,
            #[serde(rename = "maxLength")]
            max_length: Option<Json>,
            #[serde(rename = "minItems")]
            min_items: Option<Json>,
            #[serde(rename = "maxItems")]
            max_items: Option<Json>,
            #[serde(rename = "minProperties")]
            min_properties: Option<Json>,
            #[serde(rename = "maxProperties")]
            max_properties: Option<Json>,
            minimum: Option<Json>,
            maximum: Option<Json>,
            #[serde(rename = "exclusiveMinimum")]
            exclusive_minimum: Option<Json>,
            #[serde(rename = "exclusiveMaximum")]
            exclusive_maximum: Option<Json>,
            default: Option<Json>,
            #[serde(rename = "x-kubernetes-list-type")]
            list_type: Option<Json>,
            #[serde(rename = "x-kubernetes-list-map-keys")]
            list_map_keys: Option<Json>,
            #[serde(rename = "x-kubernetes-validations")]
            validations: Option<Json>,
            #[serde(rename = "anyOf", borrow)]
            any_of: Option<&'a RawValue>,
            #[serde(rename = "oneOf", borrow)]
            one_of: Option<&'a RawValue>,
            #[serde(rename = "allOf", borrow)]
            all_of: Option<&'a RawValue>,
            #[serde(borrow)]
            not: Option<&'a RawValue>,
        }
        let mut s = Schema::any();
        // Only an object is a schema (the embedded data has no other), and its keys are unique.
        if !raw.trim_start().starts_with('{') {
            return s;
        }
        let Ok(m) = serde_json::from_str::<Keywords<'static>>(raw) else {
            return s;
        };
        let u = |v: &Option<Json>| v.as_ref().and_then(Json::as_u64);
        let flag = |v: &Option<Json>| v.as_ref().and_then(Json::as_bool).unwrap_or(false);
        let text = |v: &Option<Json>| v.as_ref().and_then(Json::as_str).map(String::from);
        s.ty = match m.ty.as_ref().and_then(Json::as_str) {
            Some("object") => Ty::Object,
            Some("array") => Ty::Array,
            Some("string") => Ty::String,
            Some("integer") => Ty::Integer,
            Some("number") => Ty::Number,
            Some("boolean") => Ty::Boolean,
            _ => Ty::Any,
        };
        s.nullable = flag(&m.nullable);
        s.int_or_string = flag(&m.int_or_string);
        s.embedded = flag(&m.embedded);
        s.since = text(&m.since);
        s.properties = (m.properties.0.into_iter())
            .map(|(k, v)| (k, Sub::lazy(v)))
            .collect();
        s.index = (s.properties.iter().enumerate())
            .map(|(i, (n, _))| (fingerprint(n), i as u32))
            .collect();
        s.index.sort_unstable();
        if let Some(a) = m.additional {
            let text = a.get().trim_start();
            if text.starts_with('{') {
                s.additional = Some(Box::new(Sub::lazy(a)));
            } else if matches!(serde_json::from_str(text), Ok(Json::Bool(true))) {
                s.additional = Some(Box::new(Sub::ready(Schema::any())));
            }
        }
        if let Some(Json::Array(r)) = &m.required {
            s.required = r
                .iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect();
        }
        s.items = m.items.map(|i| Box::new(Sub::lazy(i)));
        if let Some(Json::Array(e)) = m.enum_values {
            s.enum_values = e;
        }
        s.pattern = text(&m.pattern).map(|p| (p, OnceLock::new()));
        s.format = text(&m.format);
        s.min_length = u(&m.min_length);
        s.max_length = u(&m.max_length);
        s.min_items = u(&m.min_items);
        s.max_items = u(&m.max_items);
        s.min_properties = u(&m.min_properties);
        s.max_properties = u(&m.max_properties);
        s.minimum = (m.minimum.as_ref())
            .and_then(Json::as_f64)
            .map(|v| (v, flag(&m.exclusive_minimum)));
        s.maximum = (m.maximum.as_ref())
            .and_then(Json::as_f64)
            .map(|v| (v, flag(&m.exclusive_maximum)));
        s.default = m.default.map(|d| Node::from_json(&d, Span::default()));
        s.list_type = match m.list_type.as_ref().and_then(Json::as_str) {
            Some("set") => ListType::Set,
            Some("map") => ListType::Map(match &m.list_map_keys {
                Some(Json::Array(a)) => a
                    .iter()
                    .filter_map(|x| x.as_str().map(String::from))
                    .collect(),
                _ => vec![],
            }),
            _ => ListType::Atomic,
        };
        if let Some(Json::Array(rules)) = &m.validations {
            s.rules = rules.iter().filter_map(cel::Rule::compile).collect();
        }
        let list = |v: Option<&'static RawValue>| -> Vec<Schema> {
            v.and_then(|v| serde_json::from_str::<Vec<&'static RawValue>>(v.get()).ok())
                .map(|a| a.into_iter().map(|r| Schema::compile(r.get())).collect())
                .unwrap_or_default()
        };
        s.any_of = list(m.any_of);
        s.one_of = list(m.one_of);
        s.all_of = list(m.all_of);
        s.not = m.not.map(|n| Box::new(Schema::compile(n.get())));
        // A schema's own keywords decide what it checks; only a schema without a type and
        // without properties lets anything through (`x-kubernetes-preserve-unknown-fields` or
        // int-or-string).
        s.preserve_unknown = flag(&m.preserve_unknown);
        s
    }
}

/// A schema's `properties`, each property's schema as text, sorted by name (the last of a repeated
/// name kept, as a JSON object keeps it); a value that is not an object declares none. Read in the
/// same pass as the schema's other keywords.
#[derive(Default)]
struct Props<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for Props<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
        struct Read<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for Read<'a> {
            type Value = Props<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut m: M) -> Result<Props<'a>, M::Error> {
                let mut out = std::collections::BTreeMap::new();
                while let Some((k, v)) = m.next_entry::<String, &'de RawValue>()? {
                    out.insert(k, v);
                }
                Ok(Props(out.into_iter().collect()))
            }
            fn visit_seq<S: SeqAccess<'de>>(self, mut q: S) -> Result<Props<'a>, S::Error> {
                while q.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Props::default())
            }
            fn visit_bool<E>(self, _: bool) -> Result<Props<'a>, E> {
                Ok(Props::default())
            }
            fn visit_i64<E>(self, _: i64) -> Result<Props<'a>, E> {
                Ok(Props::default())
            }
            fn visit_u64<E>(self, _: u64) -> Result<Props<'a>, E> {
                Ok(Props::default())
            }
            fn visit_f64<E>(self, _: f64) -> Result<Props<'a>, E> {
                Ok(Props::default())
            }
            fn visit_str<E>(self, _: &str) -> Result<Props<'a>, E> {
                Ok(Props::default())
            }
            fn visit_unit<E>(self) -> Result<Props<'a>, E> {
                Ok(Props::default())
            }
        }
        d.deserialize_any(Read(std::marker::PhantomData))
    }
}

/// A name's length (capped at 255) and its first seven bytes in one integer: equal names have
/// equal fingerprints, and names shorter than eight bytes are equal when their fingerprints are.
pub(crate) fn fingerprint(name: &str) -> u64 {
    let b = name.as_bytes();
    let mut f = (b.len().min(255) as u64) << 56;
    for (i, c) in b.iter().take(7).enumerate() {
        f |= u64::from(*c) << (8 * i);
    }
    f
}

/// One version of a kind, as its CRD declares it.
pub(crate) struct Version {
    pub name: String,
    pub served: bool,
    /// Whether the CRD has a status subresource (then the API server ignores `status` on create).
    pub status_subresource: bool,
    /// The schema's JSON text, compiled only for a kind the input holds.
    raw: Option<&'static str>,
    compiled: OnceLock<Schema>,
}

impl Version {
    /// The compiled schema (compiled the first time it is asked for).
    pub(crate) fn schema(&self) -> &Schema {
        // The embedded data is valid JSON (a test reads every schema of both releases).
        self.compiled
            .get_or_init(|| self.raw.map_or_else(Schema::any, Schema::compile))
    }
}

/// One kind of the generated data.
pub(crate) struct Kind {
    pub group: String,
    pub kind: String,
    pub namespaced: bool,
    pub versions: Vec<Version>,
}

/// The schemas of one release.
pub(crate) struct Release {
    kinds: Vec<Kind>,
    /// Every kind of each API group policyctl models, modelled or not.
    known: Vec<(String, Vec<String>)>,
    /// The kuadrant-operator tag and the Gateway API version it installs.
    pub operator: String,
    pub gateway_api: String,
}

impl Release {
    /// Read a release's data: the envelope on its first line, straight into its fields, and each
    /// version's schema kept as the text of its own line. Every run of every command reads this:
    /// the schemas' lines are only cut apart (scanning them as JSON took about a millisecond
    /// before any document was checked), and a kind's schema is read into a tree and compiled
    /// only when an object of that kind is read.
    fn parse(text: &'static str) -> Release {
        /// The envelope as `schemas/generate.py` writes it (fields policyctl does not read
        /// skipped).
        #[derive(serde::Deserialize, Default)]
        #[serde(default)]
        struct File {
            operator: String,
            #[serde(rename = "gatewayApi")]
            gateway_api: String,
            known: indexmap::IndexMap<String, Vec<String>>,
            kinds: indexmap::IndexMap<String, KindData>,
        }
        #[derive(serde::Deserialize, Default)]
        #[serde(default)]
        struct KindData {
            group: String,
            kind: String,
            scope: String,
            versions: Vec<VersionData>,
        }
        #[derive(serde::Deserialize, Default)]
        #[serde(default)]
        struct VersionData {
            name: String,
            served: bool,
            status: bool,
            /// The schema's line, counted from 0 after the envelope's.
            schema: Option<usize>,
        }
        let mut lines = text.split('\n');
        let file: File = serde_json::from_str(lines.next().unwrap_or_default()).unwrap_or_default();
        let schemas: Vec<&'static str> = lines.collect();
        Release {
            kinds: file
                .kinds
                .into_values()
                .map(|k| Kind {
                    namespaced: k.scope == "Namespaced",
                    group: k.group,
                    kind: k.kind,
                    versions: k
                        .versions
                        .into_iter()
                        .map(|v| Version {
                            name: v.name,
                            served: v.served,
                            status_subresource: v.status,
                            raw: v.schema.and_then(|i| schemas.get(i).copied()),
                            compiled: OnceLock::new(),
                        })
                        .collect(),
                })
                .collect(),
            known: file.known.into_iter().collect(),
            operator: file.operator,
            gateway_api: file.gateway_api,
        }
    }

    /// The schema data of a release.
    pub(crate) fn of(version: KuadrantVersion) -> &'static Release {
        static V1_4: OnceLock<Release> = OnceLock::new();
        static V1_5: OnceLock<Release> = OnceLock::new();
        match version {
            KuadrantVersion::V1_4 => V1_4.get_or_init(|| {
                Release::parse(include_str!("../../../schemas/kuadrant-1.4.jsonl"))
            }),
            KuadrantVersion::V1_5 => V1_5.get_or_init(|| {
                Release::parse(include_str!("../../../schemas/kuadrant-1.5.jsonl"))
            }),
        }
    }

    /// The kind of a group, if the data has its CRD.
    pub(crate) fn kind(&self, group: &str, kind: &str) -> Option<&Kind> {
        self.kinds
            .iter()
            .find(|k| k.group == group && k.kind == kind)
    }

    /// The kinds of `group` when policyctl models the group (its CRDs are known), else `None`.
    pub(crate) fn known_kinds(&self, group: &str) -> Option<&[String]> {
        self.known
            .iter()
            .find(|(g, _)| g == group)
            .map(|(_, k)| k.as_slice())
    }
}

impl Kind {
    pub(crate) fn version(&self, name: &str) -> Option<&Version> {
        self.versions.iter().find(|v| v.name == name)
    }
}

/// The closest candidate to `word` (a misspelling: edit distance at most a third of its length,
/// and at least 1), for a "did you mean" help.
pub(crate) fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let max = (word.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| (levenshtein(&word.to_lowercase(), &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= max)
        .min()
        .map(|(_, c)| c)
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every schema of both releases compiles: its patterns are regular expressions the `regex`
    /// crate reads, and its rules parse.
    #[test]
    fn every_schema_compiles() {
        for v in [KuadrantVersion::V1_4, KuadrantVersion::V1_5] {
            let r = Release::of(v);
            assert!(r.kinds.len() >= 17, "{} kinds", r.kinds.len());
            for k in &r.kinds {
                for ver in &k.versions {
                    // The text kept for later is a JSON object (read as such when compiled).
                    let raw = ver.raw.unwrap_or_default();
                    assert!(
                        matches!(serde_json::from_str(raw), Ok(Json::Object(_))),
                        "{}/{} {}: {raw:.80}",
                        k.group,
                        k.kind,
                        ver.name
                    );
                    // No keyword's value is null (a null reads as an absent keyword when
                    // compiled).
                    let mut bad = vec![];
                    no_nulls(&serde_json::from_str(raw).unwrap_or_default(), "", &mut bad);
                    check_compiled(ver.schema(), &mut bad);
                    assert!(
                        bad.is_empty(),
                        "{}/{} {}: {bad:?}",
                        k.group,
                        k.kind,
                        ver.name
                    );
                }
            }
        }
    }

    fn no_nulls(j: &Json, at: &str, bad: &mut Vec<String>) {
        match j {
            Json::Null => bad.push(format!("null at {at}")),
            Json::Array(a) => (a.iter()).for_each(|x| no_nulls(x, &format!("{at}[]"), bad)),
            Json::Object(m) => (m.iter()).for_each(|(k, x)| no_nulls(x, &format!("{at}.{k}"), bad)),
            _ => {}
        }
    }

    fn check_compiled(s: &Schema, bad: &mut Vec<String>) {
        if let Some((p, None)) = s.pattern() {
            bad.push(p.to_string());
        }
        for r in &s.rules {
            if let Err(e) = r.program() {
                bad.push(format!("{}: {e}", r.source));
            }
        }
        for (_, c) in &s.properties {
            check_compiled(c.get(), bad);
        }
        for c in s.items().into_iter().chain(s.additional()) {
            check_compiled(c, bad);
        }
    }

    /// A property is found by its name alone: names of the same length and the same first seven
    /// bytes (one fingerprint) are told apart, a short name is not confused with a longer one that
    /// starts like it, and a subschema compiled when first read is the one written under its name.
    #[test]
    fn properties_by_name() {
        let s = Schema::compile(
            r#"{"type": "object", "properties": {
                "listener": {"type": "string"}, "listenerA": {"type": "integer"},
                "listenerB": {"type": "boolean"}, "listen": {"type": "number"},
                "port": {"type": "array", "items": {"type": "integer"}}}}"#,
        );
        let ty = |name: &str| s.property(name).map(|p| p.ty);
        assert_eq!(ty("listener"), Some(Ty::String));
        assert_eq!(ty("listenerA"), Some(Ty::Integer));
        assert_eq!(ty("listenerB"), Some(Ty::Boolean));
        assert_eq!(ty("listen"), Some(Ty::Number));
        assert_eq!(ty("listenerC"), None);
        assert_eq!(ty("listene"), None);
        assert_eq!(ty(""), None);
        let port = s.property("port").unwrap();
        assert_eq!(port.ty, Ty::Array);
        assert_eq!(port.items().map(|i| i.ty), Some(Ty::Integer));
        // Names in order, for the suggestions of an unknown field.
        let names: Vec<&str> = s.properties.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            ["listen", "listener", "listenerA", "listenerB", "port"]
        );
    }

    #[test]
    fn suggestions() {
        assert_eq!(did_you_mean("limts", ["limits", "when"]), Some("limits"));
        assert_eq!(
            did_you_mean("RateLimitPolicie", ["RateLimitPolicy", "AuthPolicy"]),
            Some("RateLimitPolicy")
        );
        assert_eq!(did_you_mean("foo", ["limits"]), None);
    }
}
