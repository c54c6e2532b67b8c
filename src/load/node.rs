//! A parsed document as a tree of spanned values, and its conversion into the typed raw shapes.
//!
//! `yaml.rs` parses a document's text into a [`Node`]; the schema pass (`schema/`) walks the tree
//! (types, unknown fields, CEL rules) without knowing YAML; the typed shapes of `raw.rs` are then
//! read from the tree through [`NodeDe`], a serde deserializer, so that every `Sp<T>` keeps the span
//! of its value. Must not know about kinds, schemas or the model.

use crate::model::span::Sp;
use crate::source::Span;
use serde::Deserialize;
use serde::de::{
    self, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor,
};
use std::cell::Cell;
use std::fmt;

/// One value of a document, with the span of its text (a scalar's token, quotes included; the
/// start of a mapping or a sequence).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Node {
    pub span: Span,
    pub value: Value,
}

/// A JSON value, as the API server receives it (kubectl converts YAML to JSON).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    /// Entries in the order written (keys are unique: the YAML reader refuses a repeated key).
    Map(Vec<Entry>),
}

/// One key of a mapping, with the span of the key and its value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Entry {
    pub key: Sp<String>,
    pub value: Node,
}

impl Node {
    /// The value of `key` in a mapping.
    pub(crate) fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Value::Map(m) => m.iter().find(|e| e.key.value == key).map(|e| &e.value),
            _ => None,
        }
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The JSON type name the API server reports for this value (kube-openapi's names).
    pub(crate) fn type_name(&self) -> &'static str {
        match &self.value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Int(_) => "integer",
            Value::Float(f) if is_json_integer(*f) => "integer",
            Value::Float(_) => "number",
            Value::Str(_) => "string",
            Value::Seq(_) => "array",
            Value::Map(_) => "object",
        }
    }

    /// The value as JSON (spans dropped).
    pub(crate) fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match &self.value {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) => J::from(*i),
            Value::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
            Value::Str(s) => J::String(s.clone()),
            Value::Seq(v) => J::Array(v.iter().map(Node::to_json).collect()),
            Value::Map(m) => J::Object(
                m.iter()
                    .map(|e| (e.key.value.clone(), e.value.to_json()))
                    .collect(),
            ),
        }
    }

    /// A node of a JSON value (a schema's default), every span `at`.
    pub(crate) fn from_json(v: &serde_json::Value, at: Span) -> Node {
        use serde_json::Value as J;
        let value = match v {
            J::Null => Value::Null,
            J::Bool(b) => Value::Bool(*b),
            J::Number(n) => match n.as_i64() {
                Some(i) => Value::Int(i),
                None => Value::Float(n.as_f64().unwrap_or(0.0)),
            },
            J::String(s) => Value::Str(s.clone()),
            J::Array(a) => Value::Seq(a.iter().map(|x| Node::from_json(x, at)).collect()),
            J::Object(m) => Value::Map(
                m.iter()
                    .map(|(k, x)| Entry {
                        key: Sp::new(k.clone(), at),
                        value: Node::from_json(x, at),
                    })
                    .collect(),
            ),
        };
        Node { span: at, value }
    }
}

/// Whether a float is one kube-openapi takes as an integer (`swag.IsFloat64AJSONInteger`: integral
/// and within ±(2^53 − 1)).
pub(crate) fn is_json_integer(f: f64) -> bool {
    f.is_finite() && f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_991.0
}

// ---------------------------------------------------------------- reading a tree

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = Sp::<Value>::deserialize(d)?;
        Ok(Node {
            span: s.span,
            value: s.value,
        })
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a YAML or JSON value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(i64::try_from(v).map_or(Value::Float(v as f64), Value::Int))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        Ok(i64::try_from(v).map_or(Value::Float(v as f64), Value::Int))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        Ok(i64::try_from(v).map_or(Value::Float(v as f64), Value::Int))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Str(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::Str(v))
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Value, E> {
        Ok(Value::Str(String::from_utf8_lossy(v).into_owned()))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(2).min(64));
        while let Some(n) = seq.next_element::<Node>()? {
            out.push(n);
        }
        Ok(Value::Seq(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Vec::with_capacity(map.size_hint().unwrap_or(4).min(64));
        // A key is read as a string, as written (`y`, `on`, `1`), as policyctl always read keys.
        while let Some(key) = map.next_key::<Sp<String>>()? {
            let value = map.next_value::<Node>()?;
            out.push(Entry { key, value });
        }
        Ok(Value::Map(out))
    }
}

// ---------------------------------------------------------------- typed shapes from a tree

thread_local! {
    /// Set while typed shapes are read from a tree: `Sp<T>` then takes its span from the tree
    /// ([`SP_MARKER`]) rather than from the YAML reader.
    static FROM_TREE: Cell<bool> = const { Cell::new(false) };
    /// The span of the value an `Sp<T>` is about to read.
    static NEXT_SPAN: Cell<Span> = const { Cell::new(Span { source: crate::source::SourceId(0), offset: 0, len: 0 }) };
}

/// The newtype name through which `Sp<T>` asks a [`NodeDe`] for its value's span.
pub(crate) const SP_MARKER: &str = "__policyctl_spanned";

/// Whether typed shapes are being read from a tree (see `yaml.rs`'s `Sp<T>` reader).
pub(crate) fn reading_tree() -> bool {
    FROM_TREE.with(Cell::get)
}

/// Read an `Sp<T>` from a [`NodeDe`].
pub(crate) fn spanned<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
    d: D,
) -> Result<Sp<T>, D::Error> {
    struct V<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
        type Value = Sp<T>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a value")
        }
        fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Sp<T>, D::Error> {
            let span = NEXT_SPAN.with(Cell::get);
            Ok(Sp::new(T::deserialize(d)?, span))
        }
    }
    d.deserialize_newtype_struct(SP_MARKER, V(std::marker::PhantomData))
}

/// Read a typed shape from a tree.
pub(crate) fn read<T: de::DeserializeOwned>(node: Node) -> Result<T, DeError> {
    struct Guard(bool);
    impl Drop for Guard {
        fn drop(&mut self) {
            FROM_TREE.with(|f| f.set(self.0));
        }
    }
    let _guard = Guard(FROM_TREE.with(|f| f.replace(true)));
    T::deserialize(NodeDe(node))
}

/// A failure to read a typed shape from a tree: the message and the span of the value.
#[derive(Debug, Clone)]
pub(crate) struct DeError {
    pub message: String,
    pub span: Option<Span>,
}

impl DeError {
    fn at(mut self, span: Span) -> DeError {
        self.span.get_or_insert(span);
        self
    }
}

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DeError {}

impl de::Error for DeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        DeError {
            message: msg.to_string(),
            span: None,
        }
    }
}

/// A serde deserializer over an owned tree (its strings are moved into the typed shape).
pub(crate) struct NodeDe(pub Node);

impl<'de> Deserializer<'de> for NodeDe {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let span = self.0.span;
        let r = match self.0.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(b),
            Value::Int(i) => visitor.visit_i64(i),
            Value::Float(f) => visitor.visit_f64(f),
            Value::Str(s) => visitor.visit_string(s),
            Value::Seq(v) => {
                let len = v.len();
                let mut access = SeqDe(v.into_iter());
                let r = visitor.visit_seq(&mut access);
                if r.is_ok() && access.0.len() > 0 {
                    return Err(de::Error::invalid_length(len, &"fewer elements"));
                }
                r
            }
            Value::Map(m) => visitor.visit_map(MapDe {
                entries: m.into_iter(),
                value: None,
            }),
        };
        r.map_err(|e| e.at(span))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let span = self.0.span;
        match self.0.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
        .map_err(|e| e.at(span))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        if name == SP_MARKER {
            NEXT_SPAN.with(|s| s.set(self.0.span));
        }
        let span = self.0.span;
        visitor.visit_newtype_struct(self).map_err(|e| e.at(span))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple
        tuple_struct map struct enum identifier
    }
}

struct SeqDe(std::vec::IntoIter<Node>);

impl<'de> SeqAccess<'de> for &mut SeqDe {
    type Error = DeError;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        match self.0.next() {
            Some(n) => seed.deserialize(NodeDe(n)).map(Some),
            None => Ok(None),
        }
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

struct MapDe {
    entries: std::vec::IntoIter<Entry>,
    value: Option<Node>,
}

impl<'de> MapAccess<'de> for MapDe {
    type Error = DeError;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        match self.entries.next() {
            Some(e) => {
                self.value = Some(e.value);
                let span = e.key.span;
                seed.deserialize(KeyDe(e.key))
                    .map(Some)
                    .map_err(|err| err.at(span))
            }
            None => Ok(None),
        }
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        match self.value.take() {
            Some(n) => seed.deserialize(NodeDe(n)),
            None => Err(de::Error::custom("a value without its key")),
        }
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

/// A key: a string, with its span for an `Sp<String>` key.
struct KeyDe(Sp<String>);

impl<'de> Deserializer<'de> for KeyDe {
    type Error = DeError;
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        visitor.visit_string(self.0.value)
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        if name == SP_MARKER {
            NEXT_SPAN.with(|s| s.set(self.0.span));
        }
        visitor.visit_newtype_struct(self.0.value.into_deserializer())
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}
