//! Go's text forms of values, where the operator, the API server or Authorino write them and
//! policyctl must write the same bytes: `strconv.Quote` (`%q`), the shortest `'g'` form of a
//! float64 (`%v`), and `fmt`'s `%v` and `encoding/json`'s `Marshal` of a value decoded from JSON.
//! The character classes they read are in `crate::gounicode`.

use serde_json::Value;
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

/// Go's `encoding/json` `Marshal` of a value decoded from JSON into `interface{}` (Go 1.22 or
/// later): object keys sorted, numbers as float64 ([`json_float`]), strings with the default HTML
/// escaping (`<`, `>`, `&` as `\u003c` …) and U+2028 / U+2029 escaped.
pub(crate) fn json_marshal(v: &Value) -> String {
    let mut out = String::new();
    write_json(v, &mut out);
    out
}

fn write_json(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&json_float(n.as_f64().unwrap_or(0.0))),
        Value::String(s) => json_string(s, out),
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(x, out);
            }
            out.push(']');
        }
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json_string(k, out);
                out.push(':');
                write_json(&m[k], out);
            }
            out.push('}');
        }
    }
}

/// A string as `encoding/json` writes it with its default HTML escaping.
fn json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || matches!(c, '<' | '>' | '&' | '\u{2028}' | '\u{2029}') => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Go's `fmt.Sprintf("%v", v)` of a value decoded from JSON (numbers are float64; a map's keys
/// are printed sorted).
pub(crate) fn sprint(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "<nil>".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => float_g(n.as_f64().unwrap_or(0.0)),
        Value::Array(a) => format!("[{}]", a.iter().map(sprint).collect::<Vec<_>>().join(" ")),
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let items: Vec<String> = (keys.into_iter())
                .map(|k| format!("{k}:{}", sprint(&m[k])))
                .collect();
            format!("map[{}]", items.join(" "))
        }
    }
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

    // Go's formatting of values decoded from JSON, as Authorino writes them into headers and
    // denial bodies: `fmt.Sprintf("%v", v)` for plain values (strconv's 'g' with the shortest
    // precision decides with precision 6: strconv/ftoa.go `formatDigits`), `json.Marshal` for
    // JSON values (encoding/json/encode.go: `floatEncoder` switches to exponent form below 1e-6
    // and from 1e21 and writes `e-9`, not `e-09`; `appendString` escapes `<`, `>`, `&`, U+2028
    // and U+2029 and writes `\b` and `\f` from Go 1.22; a map's keys are sorted).
    #[test]
    fn values_decoded_from_json_are_written_as_go_writes_them() {
        for (f, want) in [
            (0.0, "0"),
            (42.0, "42"),
            (0.5, "0.5"),
            (123456.0, "123456"),
            (999999.0, "999999"),
            (1e6, "1e+06"),
            (123456789.0, "1.23456789e+08"),
            (1685557675.0, "1.685557675e+09"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-2.5e-7, "-2.5e-07"),
            (1e21, "1e+21"),
            (1e100, "1e+100"),
        ] {
            assert_eq!(float_g(f), want, "%v of {f}");
        }
        for (f, want) in [
            (0.0, "0"),
            (1e6, "1000000"),
            (1685557675.0, "1685557675"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (0.000001, "0.000001"),
            (1e-7, "1e-7"),
            (-1.5e-10, "-1.5e-10"),
            (0.1, "0.1"),
        ] {
            assert_eq!(json_float(f), want, "json of {f}");
        }
        let v = serde_json::json!({"z": 1, "a": {"y": [true, null, "<b>&\u{2028}\u{8}\u{c}\u{1}"], "b": 1e6}});
        assert_eq!(
            json_marshal(&v),
            r#"{"a":{"b":1000000,"y":[true,null,"\u003cb\u003e\u0026\u2028\b\f\u0001"]},"z":1}"#
        );
        assert_eq!(
            sprint(&v),
            "map[a:map[b:1e+06 y:[true <nil> <b>&\u{2028}\u{8}\u{c}\u{1}]] z:1]"
        );
    }
}
