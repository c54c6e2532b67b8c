//! `Sp<T>`: a value with the span of the YAML/JSON text it was read from.

use crate::source::Span;

/// A deserialised value plus the absolute span of its source text (for scalars: the raw token,
/// including quotes; for mappings and sequences: the start only).
#[derive(Clone, Debug, Default)]
pub struct Sp<T> {
    pub value: T,
    pub span: Span,
}

impl<T> Sp<T> {
    pub fn new(value: T, span: Span) -> Self {
        Sp { value, span }
    }
}

impl<T: PartialEq> PartialEq for Sp<T> {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl<T: Eq> Eq for Sp<T> {}

impl<T> std::ops::Deref for Sp<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl Sp<String> {
    pub fn as_str(&self) -> &str {
        &self.value
    }
}
