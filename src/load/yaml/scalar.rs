//! What an untagged plain scalar (one written without quotes) means, as serde-saphyr reads one into
//! an untyped value with the options `yaml/mod.rs` gives it (`legacy_octal_numbers`, YAML 1.1
//! booleans): null, a boolean, an integer, a float or the text itself. Keys that serde-saphyr takes
//! as the same integer (`1`, `0x1`, `01`) are found here too.
//!
//! serde-saphyr 2.1.1 `src/parse_scalars.rs` and the typeless path of `src/de/deserializer.rs`
//! (`deserialize_any`) are the reference; `tests` below and the property tests of `events.rs`
//! compare this reading with serde-saphyr's own on random scalars.

/// A plain scalar's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Plain {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    /// The text itself.
    Str,
}

/// The value of a plain scalar, or `None` for one the tree builder leaves to serde-saphyr (a
/// non-finite number: `.inf`, `.nan`, `1e999`, which serde-saphyr refuses as an untyped value).
pub(super) fn resolve(text: &str) -> Option<Plain> {
    if is_null(text) {
        return Some(Plain::Null);
    }
    let t = trim(text);
    let Some(&first) = t.as_bytes().first() else {
        return Some(Plain::Str);
    };
    // Most scalars are names: what starts with a letter is a boolean or text (numbers start with
    // a digit, a sign or a dot; serde-saphyr reads no alphabetic number such as `inf` or `nan`).
    if first.is_ascii_alphabetic() {
        if !b"yYnNtTfFoO".contains(&first) {
            return Some(Plain::Str);
        }
        return Some(yaml11_bool(t).map_or(Plain::Str, Plain::Bool));
    }
    if let Some(b) = yaml11_bool(t) {
        return Some(Plain::Bool(b));
    }
    if let Some(v) = integer(t) {
        return Some(match v {
            Int::Signed(i) => Plain::Int(i),
            Int::Unsigned(u) => i64::try_from(u).map_or(Plain::Float(u as f64), Plain::Int),
        });
    }
    float(t)
}

/// The integer a plain key stands for, as serde-saphyr compares keys to find a repeated one (sign,
/// magnitude; zero is never negative). `None` if the key is not an integer.
pub(super) fn key_integer(text: &str) -> Option<(bool, u128)> {
    let t = trim(text);
    let (negative, rest) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let magnitude = digits_in_radix(rest)?;
    Some((negative && magnitude != 0, magnitude))
}

/// Whether a plain scalar is null (the only plain scalars [`resolve`] reads as null): what a
/// key must not be.
pub(super) fn is_null(text: &str) -> bool {
    matches!(text, "" | "~" | "null" | "Null" | "NULL")
}

/// The ASCII padding serde-saphyr trims before reading a number or a boolean (a scalar that
/// neither starts nor ends with it, as almost all do, is not searched).
fn trim(s: &str) -> &str {
    let pad = |c: &u8| matches!(c, b' ' | b'\t' | b'\r' | b'\n');
    let b = s.as_bytes();
    if b.first().is_some_and(|c| !pad(c)) && b.last().is_some_and(|c| !pad(c)) {
        return s;
    }
    s.trim_matches([' ', '\t', '\r', '\n'])
}

/// A YAML 1.1 boolean (`y`, `yes`, `on`, `true` and their negations, in any case), as serde-saphyr
/// reads one without `strict_booleans`.
fn yaml11_bool(t: &str) -> Option<bool> {
    const TRUE: [&str; 4] = ["y", "yes", "on", "true"];
    const FALSE: [&str; 4] = ["n", "no", "off", "false"];
    if TRUE.iter().any(|w| t.eq_ignore_ascii_case(w)) {
        Some(true)
    } else if FALSE.iter().any(|w| t.eq_ignore_ascii_case(w)) {
        Some(false)
    } else {
        None
    }
}

enum Int {
    Signed(i64),
    Unsigned(u64),
}

/// An integer as serde-saphyr's untyped reader takes one: with a leading `-` as an `i64`, otherwise
/// as a `u64` (an optional `+`); decimal, `0x`, `0o`, `0b`, or octal after a leading `0`.
fn integer(t: &str) -> Option<Int> {
    match t.strip_prefix('-') {
        Some(rest) => {
            let magnitude = digits_in_radix(rest)?;
            // i64::MIN's magnitude is one more than i64::MAX.
            if magnitude <= i64::MAX as u128 {
                Some(Int::Signed(-(magnitude as i64)))
            } else if magnitude == i64::MAX as u128 + 1 {
                Some(Int::Signed(i64::MIN))
            } else {
                None
            }
        }
        None => {
            let rest = t.strip_prefix('+').unwrap_or(t);
            u64::try_from(digits_in_radix(rest)?)
                .ok()
                .map(Int::Unsigned)
        }
    }
}

/// The magnitude written by `rest` (the text after a sign), in the radix its prefix names.
fn digits_in_radix(rest: &str) -> Option<u128> {
    let prefixed = |p: [&str; 2]| {
        rest.strip_prefix(p[0])
            .or_else(|| rest.strip_prefix(p[1]))
            // With legacy octal numbers, one `_` may follow the prefix.
            .map(|d| d.strip_prefix('_').unwrap_or(d))
    };
    let (radix, digits) = if let Some(d) = prefixed(["0x", "0X"]) {
        (16, d)
    } else if let Some(d) = prefixed(["0o", "0O"]) {
        (8, d)
    } else if let Some(d) = prefixed(["0b", "0B"]) {
        (2, d)
    } else if rest == "0" {
        (8, rest)
    } else if let Some(d) = rest.strip_prefix('0') {
        (8, d.strip_prefix('_').unwrap_or(d))
    } else {
        (10, rest)
    };
    digits_value(digits, radix)
}

/// Digits in `radix` with single `_` between them; at least one digit.
fn digits_value(digits: &str, radix: u32) -> Option<u128> {
    let b = digits.as_bytes();
    let mut value: u128 = 0;
    let mut any = false;
    for (i, &c) in b.iter().enumerate() {
        if c == b'_' {
            let between = i > 0 && b[i - 1] != b'_' && b.get(i + 1).is_some_and(|&n| n != b'_');
            if !between {
                return None;
            }
            continue;
        }
        let d = match c {
            b'0'..=b'9' => u32::from(c - b'0'),
            b'a'..=b'f' if radix > 10 => u32::from(c - b'a') + 10,
            b'A'..=b'F' if radix > 10 => u32::from(c - b'A') + 10,
            _ => return None,
        };
        if d >= radix {
            return None;
        }
        value = value
            .checked_mul(u128::from(radix))?
            .checked_add(u128::from(d))?;
        any = true;
    }
    any.then_some(value)
}

/// A float (Rust's decimal syntax, finite), the text itself, or `None` for a non-finite number.
fn float(t: &str) -> Option<Plain> {
    let unsigned = match t.strip_prefix('-') {
        Some(r) => r,
        None => t.strip_prefix('+').unwrap_or(t),
    };
    if matches!(
        unsigned,
        ".nan" | ".NaN" | ".NAN" | ".inf" | ".Inf" | ".INF"
    ) {
        return None;
    }
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() => Some(Plain::Float(v)),
        // A numeral too large for a float is infinite: serde-saphyr refuses it. `inf`, `NaN` and
        // `infinity`, which Rust also reads, are text.
        Ok(v) if v.is_infinite() && unsigned.as_bytes().first().is_some_and(u8::is_ascii_digit) => {
            None
        }
        _ => Some(Plain::Str),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values from serde-saphyr 2.1.1's own tests (`src/parse_scalars.rs`) and its reading rules:
    /// YAML 1.1 booleans, legacy octal, prefixes with one `_` after them, underscores between
    /// digits only.
    #[test]
    fn scalars_read_as_serde_saphyr_reads_them() {
        use Plain::*;
        let cases: &[(&str, Option<Plain>)] = &[
            ("", Some(Null)),
            ("~", Some(Null)),
            ("NULL", Some(Null)),
            ("nULL", Some(Str)),
            ("Yes", Some(Bool(true))),
            ("OFF", Some(Bool(false))),
            ("n", Some(Bool(false))),
            ("TRUE", Some(Bool(true))),
            ("maybe", Some(Str)),
            ("0", Some(Int(0))),
            ("00077", Some(Int(0o77))),
            ("0_10", Some(Int(0o10))),
            ("+0_10", Some(Int(0o10))),
            ("-0_10", Some(Int(-0o10))),
            ("0x_10", Some(Int(0x10))),
            ("0x7_fF", Some(Int(0x7ff))),
            ("0b1010_1010", Some(Int(0b1010_1010))),
            ("1000_1000", Some(Int(10_001_000))),
            ("_1", Some(Str)),
            ("1000_", Some(Str)),
            ("1__0", Some(Str)),
            ("08", Some(Float(8.0))),
            ("-9223372036854775808", Some(Int(i64::MIN))),
            (
                "9223372036854775808",
                Some(Float(9_223_372_036_854_775_808.0)),
            ),
            (
                "18446744073709551616",
                Some(Float(18_446_744_073_709_551_616.0)),
            ),
            ("1.5", Some(Float(1.5))),
            ("1e3", Some(Float(1000.0))),
            ("-0.0", Some(Float(-0.0))),
            (".5", Some(Float(0.5))),
            (".inf", None),
            ("-.Inf", None),
            ("+.nan", None),
            ("1e999", None),
            ("inf", Some(Str)),
            ("NaN", Some(Str)),
            ("-Infinity", Some(Str)),
            ("1_000.5", Some(Str)),
            ("0755", Some(Int(0o755))),
            ("0o17", Some(Int(0o17))),
            ("-+5", Some(Str)),
            // Words that start as booleans, numbers or nulls do, and are text (the booleans are
            // the YAML 1.1 words only; Rust's `inf` and `nan` are text, as `NaN` is above).
            ("no", Some(Bool(false))),
            ("nope", Some(Str)),
            ("nan", Some(Str)),
            ("Infinity", Some(Str)),
            ("on_", Some(Str)),
            ("y1", Some(Str)),
            ("nulls", Some(Str)),
            ("e5", Some(Str)),
        ];
        for (text, want) in cases {
            assert_eq!(resolve(text), *want, "{text:?}");
        }
    }

    #[test]
    fn integer_keys_compare_by_value() {
        assert_eq!(key_integer("1"), key_integer("0x1"));
        assert_eq!(key_integer("01"), key_integer("+1"));
        assert_eq!(key_integer("-0"), key_integer("0"));
        assert_ne!(key_integer("-1"), key_integer("1"));
        assert_eq!(key_integer("a"), None);
    }
}
