//! `Sp<T>`: a value with the span of the YAML/JSON text it was read from; [`int`]: integer fields
//! read as the API server reads them, with or without a span.

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

/// Integer fields read as the API server reads them (`type: integer` in a CRD, `int32`/`int64` in a
/// built-in type): a YAML number, never a quoted one (`"5"` is a string to the API server, refused
/// in an integer field); a number with a decimal point only when it is integral (`5.0`), as
/// kube-openapi's type check accepts a float64 that is a JSON integer (`swag.IsFloat64AJSONInteger`:
/// integral and within ±(2^53 − 1)).
pub(crate) mod int {
    use super::Sp;
    use serde::de::{self, Deserialize, Deserializer, Visitor};
    use std::fmt;

    /// The largest magnitude of a float the API server takes as an integer.
    const MAX_JSON_INTEGER: f64 = 9_007_199_254_740_991.0;

    pub(crate) struct Int(pub i64);

    impl<'de> Deserialize<'de> for Int {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'v> Visitor<'v> for V {
                type Value = Int;
                fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                    f.write_str("an integer")
                }
                fn visit_str<E: de::Error>(self, v: &str) -> Result<Int, E> {
                    Err(E::custom(if v.trim().parse::<f64>().is_ok() {
                        format!(
                            "expected an integer, found the string {v:?}: the API server refuses a quoted number in an integer field; remove the quotes"
                        )
                    } else {
                        format!("expected an integer, found `{v}`")
                    }))
                }
                fn visit_i64<E: de::Error>(self, v: i64) -> Result<Int, E> {
                    Ok(Int(v))
                }
                fn visit_u64<E: de::Error>(self, v: u64) -> Result<Int, E> {
                    i64::try_from(v)
                        .map(Int)
                        .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
                }
                fn visit_f64<E: de::Error>(self, v: f64) -> Result<Int, E> {
                    if v.is_finite() && v.fract() == 0.0 && v.abs() <= MAX_JSON_INTEGER {
                        // Exact: integral and within 2^53.
                        Ok(Int(v as i64))
                    } else {
                        Err(E::custom(format!(
                            "expected an integer, found `{v}`: not a whole number the API server takes as an integer (at most 2^53 - 1 in magnitude)"
                        )))
                    }
                }
            }
            d.deserialize_any(V)
        }
    }

    pub(crate) fn opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
        Ok(Option::<Int>::deserialize(d)?.map(|i| i.0))
    }

    pub(crate) fn opt_sp<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Sp<i64>>, D::Error> {
        Ok(Option::<Sp<Int>>::deserialize(d)?.map(|s| Sp::new(s.value.0, s.span)))
    }
}
