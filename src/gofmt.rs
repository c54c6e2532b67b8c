//! Go's text forms of values, where the operator, the API server or Authorino write them and
//! policyctl must write the same bytes: `strconv.Quote` (`%q`), the shortest `'g'` form of a
//! float64 (`%v`), and `encoding/json`'s form of one. The character classes they read are in
//! `crate::gounicode`.

use std::fmt::Write as _;

/// Go's `strconv.Quote` (what `%q` prints for a string): `"` and `\` escaped, `\a \b \f \n \r \t \v`,
/// other ASCII control bytes as `\xNN`, non-printable non-ASCII characters as `\uNNNN` / `\UNNNNNNNN`.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if c.is_ascii() => out.push(c),
            c if !crate::gounicode::is_print(c) => {
                if (c as u32) < 0x10000 {
                    let _ = write!(out, "\\u{:04x}", c as u32);
                } else {
                    let _ = write!(out, "\\U{:08x}", c as u32);
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Go's `%v` of a float64, `strconv.FormatFloat(f, 'g', -1, 64)`: the shortest decimal, in
/// exponent form when the exponent is below -4 or at least 6 (`1e+06`, `1.685557675e+09`,
/// `1e-05`; the exponent has at least two digits).
pub(crate) fn float_g(f: f64) -> String {
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let (mantissa, exp) = shortest_scientific(f);
    if (-4..6).contains(&exp) {
        format!("{f}")
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.unsigned_abs())
    }
}

/// A float64 as `encoding/json` writes it: the shortest decimal, in exponent form below 1e-6 or
/// from 1e21 (an exponent written without leading zeros: `1e-7`, `1e+21`).
pub(crate) fn json_float(f: f64) -> String {
    let abs = f.abs();
    if abs == 0.0 || (1e-6..1e21).contains(&abs) {
        return format!("{f}");
    }
    let (mantissa, exp) = shortest_scientific(f);
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{}", exp.unsigned_abs())
}

/// The shortest scientific form of a finite, non-zero `f`: its mantissa's text (`-1.5`) and its
/// decimal exponent, both from Rust's shortest round-trip `{:e}` (an exponent computed with
/// `log10` can be one off at powers of ten).
fn shortest_scientific(f: f64) -> (String, i32) {
    let text = format!("{f:e}");
    match text.split_once('e') {
        Some((m, e)) => (m.to_string(), e.parse().unwrap_or(0)),
        None => (text, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quote_matches_strconv_quote() {
        assert_eq!(quote("Gateway\nns/gw"), r#""Gateway\nns/gw""#);
        assert_eq!(quote("a\"b\\c\u{1}\t"), r#""a\"b\\c\x01\t""#);
        assert_eq!(quote("é\u{a0}"), "\"é\\u00a0\"");
        assert_eq!(quote("#e5e5e5"), "\"#e5e5e5\"");
        // Go's own cases (strconv/quote_test.go): U+10FFFF is a noncharacter, the spaces are
        // separators; and what else `IsPrint` refuses: private use, format, line separator, an
        // unassigned code point, and a Unicode 16 letter Go's 15.0.0 tables do not have.
        assert_eq!(quote("\u{263a}"), "\"\u{263a}\"");
        assert_eq!(quote("\u{10ffff}"), r#""\U0010ffff""#);
        assert_eq!(
            quote("!\u{a0}!\u{2000}!\u{3000}!"),
            r#""!\u00a0!\u2000!\u3000!""#
        );
        assert_eq!(
            quote("\u{e000}\u{200b}\u{2028}\u{378}\u{10d50}\u{85}"),
            r#""\ue000\u200b\u2028\u0378\U00010d50\u0085""#
        );
        assert_eq!(quote("\u{11c92}\u{1e4f0}"), "\"\u{11c92}\u{1e4f0}\"");
    }
}
