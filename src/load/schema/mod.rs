//! The CRD schemas of the emulated release and their validation, as the API server applies them
//! to an object created with `kubectl apply`: defaults (seen by the rules, not written into the
//! input), strict field validation (unknown fields), the structural OpenAPI v3 checks and the
//! `x-kubernetes-validations` CEL rules ([`cel`]).
//!
//! The schemas are data generated from the upstream CRDs by `schemas/generate.py` (one file per
//! release, embedded in the binary); each kind is compiled once per run, the first time an object
//! of that kind is read. Must not know about the model: it walks a [`Node`] tree and returns
//! [`Finding`]s, each with the API server's message and the span of the offending field.

pub(crate) mod cel;
mod check;
pub(crate) mod meta;

use super::node::Node;
use crate::model::KuadrantVersion;
use crate::source::Span;
use serde_json::Value as Json;
use std::collections::HashMap;
use std::sync::OnceLock;

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
    pub properties: Vec<(String, Schema)>,
    pub additional: Option<Box<Schema>>,
    pub required: Vec<String>,
    pub items: Option<Box<Schema>>,
    pub enum_values: Vec<Json>,
    /// The pattern as written, and compiled (`None` if the `regex` crate cannot read it).
    pub pattern: Option<(String, Option<regex::Regex>)>,
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
    /// `anyOf`, `oneOf`, `allOf`, `not`: value validation only (structural schemas declare no
    /// fields in them).
    pub any_of: Vec<Schema>,
    pub one_of: Vec<Schema>,
    pub all_of: Vec<Schema>,
    pub not: Option<Box<Schema>>,
}

impl Schema {
    pub(crate) fn property(&self, name: &str) -> Option<&Schema> {
        self.properties
            .binary_search_by(|(n, _)| n.as_str().cmp(name))
            .ok()
            .map(|i| &self.properties[i].1)
    }

    /// The schema of a mapping's value under `key`: a declared property, else
    /// `additionalProperties`.
    pub(crate) fn child(&self, key: &str) -> Option<&Schema> {
        self.property(key).or(self.additional.as_deref())
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
            any_of: vec![],
            one_of: vec![],
            all_of: vec![],
            not: None,
        }
    }

    /// Compile a schema node of the generated data.
    fn compile(j: &Json, regexes: &mut HashMap<String, Option<regex::Regex>>) -> Schema {
        let mut s = Schema::any();
        let Some(m) = j.as_object() else {
            return s;
        };
        let u = |k: &str| m.get(k).and_then(Json::as_u64);
        s.ty = match m.get("type").and_then(Json::as_str) {
            Some("object") => Ty::Object,
            Some("array") => Ty::Array,
            Some("string") => Ty::String,
            Some("integer") => Ty::Integer,
            Some("number") => Ty::Number,
            Some("boolean") => Ty::Boolean,
            _ => Ty::Any,
        };
        let flag = |k: &str| m.get(k).and_then(Json::as_bool).unwrap_or(false);
        s.nullable = flag("nullable");
        s.int_or_string = flag("x-kubernetes-int-or-string");
        s.preserve_unknown = flag("x-kubernetes-preserve-unknown-fields");
        s.embedded = flag("x-kubernetes-embedded-resource");
        s.since = m
            .get("x-policyctl-since")
            .and_then(Json::as_str)
            .map(String::from);
        if let Some(p) = m.get("properties").and_then(Json::as_object) {
            s.properties = p
                .iter()
                .map(|(k, v)| (k.clone(), Schema::compile(v, regexes)))
                .collect();
            s.properties.sort_by(|a, b| a.0.cmp(&b.0));
        }
        match m.get("additionalProperties") {
            Some(Json::Bool(true)) => s.additional = Some(Box::new(Schema::any())),
            Some(v @ Json::Object(_)) => s.additional = Some(Box::new(Schema::compile(v, regexes))),
            _ => {}
        }
        if let Some(r) = m.get("required").and_then(Json::as_array) {
            s.required = r
                .iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect();
        }
        if let Some(i) = m.get("items") {
            s.items = Some(Box::new(Schema::compile(i, regexes)));
        }
        if let Some(e) = m.get("enum").and_then(Json::as_array) {
            s.enum_values = e.clone();
        }
        if let Some(p) = m.get("pattern").and_then(Json::as_str) {
            let re = regexes
                .entry(p.to_string())
                .or_insert_with(|| regex::Regex::new(p).ok())
                .clone();
            s.pattern = Some((p.to_string(), re));
        }
        s.format = m.get("format").and_then(Json::as_str).map(String::from);
        s.min_length = u("minLength");
        s.max_length = u("maxLength");
        s.min_items = u("minItems");
        s.max_items = u("maxItems");
        s.min_properties = u("minProperties");
        s.max_properties = u("maxProperties");
        s.minimum = m
            .get("minimum")
            .and_then(Json::as_f64)
            .map(|v| (v, flag("exclusiveMinimum")));
        s.maximum = m
            .get("maximum")
            .and_then(Json::as_f64)
            .map(|v| (v, flag("exclusiveMaximum")));
        s.default = m
            .get("default")
            .map(|d| Node::from_json(d, Span::default()));
        s.list_type = match m.get("x-kubernetes-list-type").and_then(Json::as_str) {
            Some("set") => ListType::Set,
            Some("map") => ListType::Map(
                m.get("x-kubernetes-list-map-keys")
                    .and_then(Json::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(|x| x.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default(),
            ),
            _ => ListType::Atomic,
        };
        if let Some(rules) = m.get("x-kubernetes-validations").and_then(Json::as_array) {
            s.rules = rules.iter().filter_map(cel::Rule::compile).collect();
        }
        let list = |k: &str, regexes: &mut HashMap<String, Option<regex::Regex>>| -> Vec<Schema> {
            m.get(k)
                .and_then(Json::as_array)
                .map(|a| a.iter().map(|x| Schema::compile(x, regexes)).collect())
                .unwrap_or_default()
        };
        s.any_of = list("anyOf", regexes);
        s.one_of = list("oneOf", regexes);
        s.all_of = list("allOf", regexes);
        s.not = m.get("not").map(|n| Box::new(Schema::compile(n, regexes)));
        // A schema's own keywords decide what it checks; only a schema without a type and
        // without properties lets anything through (`x-kubernetes-preserve-unknown-fields` or
        // int-or-string).
        if !flag("x-kubernetes-preserve-unknown-fields") {
            s.preserve_unknown = false;
        }
        s
    }
}

/// One version of a kind, as its CRD declares it.
pub(crate) struct Version {
    pub name: String,
    pub served: bool,
    /// Whether the CRD has a status subresource (then the API server ignores `status` on create).
    pub status_subresource: bool,
    /// The schema's JSON text, read into a tree and compiled only for a kind the input holds.
    raw: Option<Box<serde_json::value::RawValue>>,
    compiled: OnceLock<Schema>,
}

impl Version {
    /// The compiled schema (compiled the first time it is asked for).
    pub(crate) fn schema(&self) -> &Schema {
        self.compiled.get_or_init(|| {
            // The embedded data is valid JSON (a test reads every schema of both releases).
            let tree: Json = self
                .raw
                .as_ref()
                .and_then(|raw| serde_json::from_str(raw.get()).ok())
                .unwrap_or_default();
            Schema::compile(&tree, &mut HashMap::new())
        })
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
    /// Read a release's data. The envelope is read straight into its fields and each schema is
    /// kept as its JSON text: every run of every command reads this, and a kind's schema is read
    /// into a tree and compiled only when an object of that kind is read.
    fn parse(text: &str) -> Release {
        /// The file as `schemas/generate.py` writes it (fields policyctl does not read skipped).
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
            schema: Option<Box<serde_json::value::RawValue>>,
        }
        let file: File = serde_json::from_str(text).unwrap_or_default();
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
                            raw: v.schema,
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
            KuadrantVersion::V1_4 => V1_4
                .get_or_init(|| Release::parse(include_str!("../../../schemas/kuadrant-1.4.json"))),
            KuadrantVersion::V1_5 => V1_5
                .get_or_init(|| Release::parse(include_str!("../../../schemas/kuadrant-1.5.json"))),
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
                    let raw = ver.raw.as_ref().map(|raw| raw.get()).unwrap_or_default();
                    assert!(
                        matches!(serde_json::from_str(raw), Ok(Json::Object(_))),
                        "{}/{} {}: {raw:.80}",
                        k.group,
                        k.kind,
                        ver.name
                    );
                    let mut bad = vec![];
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

    fn check_compiled(s: &Schema, bad: &mut Vec<String>) {
        if let Some((p, None)) = &s.pattern {
            bad.push(p.clone());
        }
        for r in &s.rules {
            if let Err(e) = r.program() {
                bad.push(format!("{}: {e}", r.source));
            }
        }
        for (_, c) in &s.properties {
            check_compiled(c, bad);
        }
        for c in s.items.iter().chain(s.additional.iter()) {
            check_compiled(c, bad);
        }
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
