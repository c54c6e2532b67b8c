//! Go's `time.Duration` text form, as a `metav1.Duration` field goes through the operator: the
//! TLSPolicy's `duration` / `renewBefore` strings are parsed with `time.ParseDuration` when the
//! operator decodes the policy, and written to the Certificate with `Duration.String()` (so `2160h`
//! becomes `2160h0m0s`). Both follow Go 1.23 `src/time/format.go` and `time.go`, including the
//! float arithmetic of fractional parts and the overflow limits.

const MAX: u64 = 1 << 63;

/// Nanoseconds of `s`, or `None` where `time.ParseDuration` returns an error.
pub(crate) fn parse(s: &str) -> Option<i64> {
    let mut s = s.as_bytes();
    let mut neg = false;
    if let Some(&c) = s.first()
        && (c == b'-' || c == b'+')
    {
        neg = c == b'-';
        s = &s[1..];
    }
    if s == b"0" {
        return Some(0);
    }
    if s.is_empty() {
        return None;
    }
    let mut d: u64 = 0;
    while !s.is_empty() {
        if !(s[0] == b'.' || s[0].is_ascii_digit()) {
            return None;
        }
        let before = s.len();
        let (mut v, rest) = leading_int(s)?;
        s = rest;
        let pre = before != s.len();
        let mut post = false;
        let (mut f, mut scale) = (0u64, 1.0f64);
        if s.first() == Some(&b'.') {
            s = &s[1..];
            let before = s.len();
            let (ff, sc, rest) = leading_fraction(s);
            (f, scale, s) = (ff, sc, rest);
            post = before != s.len();
        }
        if !pre && !post {
            return None;
        }
        let i = s
            .iter()
            .position(|&c| c == b'.' || c.is_ascii_digit())
            .unwrap_or(s.len());
        if i == 0 {
            return None;
        }
        let unit: u64 = match &s[..i] {
            b"ns" => 1,
            // `us`, `µs` (U+00B5) and `μs` (U+03BC), as UTF-8.
            b"us" | [0xc2, 0xb5, b's'] | [0xce, 0xbc, b's'] => 1_000,
            b"ms" => 1_000_000,
            b"s" => 1_000_000_000,
            b"m" => 60_000_000_000,
            b"h" => 3_600_000_000_000,
            _ => return None,
        };
        s = &s[i..];
        if v > MAX / unit {
            return None;
        }
        v *= unit;
        if f > 0 {
            // Go: v += uint64(float64(f) * (float64(unit) / scale))
            v += (f as f64 * (unit as f64 / scale)) as u64;
            if v > MAX {
                return None;
            }
        }
        d = d.checked_add(v)?;
        if d > MAX {
            return None;
        }
    }
    if neg {
        return Some((d as i64).wrapping_neg());
    }
    if d > MAX - 1 {
        return None;
    }
    Some(d as i64)
}

fn leading_int(s: &[u8]) -> Option<(u64, &[u8])> {
    let mut x: u64 = 0;
    let mut i = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        if x > MAX / 10 {
            return None;
        }
        x = x * 10 + u64::from(s[i] - b'0');
        if x > MAX {
            return None;
        }
        i += 1;
    }
    Some((x, &s[i..]))
}

fn leading_fraction(s: &[u8]) -> (u64, f64, &[u8]) {
    let mut x: u64 = 0;
    let mut scale = 1.0f64;
    let mut overflow = false;
    let mut i = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        let c = u64::from(s[i] - b'0');
        i += 1;
        if overflow {
            continue;
        }
        if x > (MAX - 1) / 10 {
            overflow = true;
            continue;
        }
        let y = x * 10 + c;
        if y > MAX {
            overflow = true;
            continue;
        }
        x = y;
        scale *= 10.0;
    }
    (x, scale, &s[i..])
}

/// `time.Duration(ns).String()`.
pub(crate) fn format(ns: i64) -> String {
    let neg = ns < 0;
    let mut u = ns.unsigned_abs();
    // Built backwards, as Go does.
    let mut out: Vec<char> = Vec::with_capacity(32);
    if u < 1_000_000_000 {
        out.push('s');
        let prec = match u {
            0 => {
                out.push('0');
                return "0s".into();
            }
            u if u < 1_000 => {
                out.push('n');
                0
            }
            u if u < 1_000_000 => {
                out.push('\u{b5}');
                3
            }
            _ => {
                out.push('m');
                6
            }
        };
        u = frac(&mut out, u, prec);
        int(&mut out, u);
    } else {
        out.push('s');
        u = frac(&mut out, u, 9);
        int(&mut out, u % 60);
        u /= 60;
        if u > 0 {
            out.push('m');
            int(&mut out, u % 60);
            u /= 60;
            if u > 0 {
                out.push('h');
                int(&mut out, u);
            }
        }
    }
    if neg {
        out.push('-');
    }
    out.iter().rev().collect()
}

/// The `prec` low decimal digits of `v` as a fraction (trailing zeros and a bare `.` dropped), pushed
/// backwards; returns `v` without them.
fn frac(out: &mut Vec<char>, mut v: u64, prec: usize) -> u64 {
    let mut print = false;
    for _ in 0..prec {
        let digit = v % 10;
        print = print || digit != 0;
        if print {
            out.push(char::from(b'0' + digit as u8));
        }
        v /= 10;
    }
    if print {
        out.push('.');
    }
    v
}

fn int(out: &mut Vec<char>, mut v: u64) {
    if v == 0 {
        out.push('0');
        return;
    }
    while v > 0 {
        out.push(char::from(b'0' + (v % 10) as u8));
        v /= 10;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cases of Go 1.23 `src/time/time_test.go` (`durationTests`, `parseDurationTests`).
    #[test]
    fn go_string_cases() {
        for (ns, want) in [
            (0, "0s"),
            (1, "1ns"),
            (1_100, "1.1\u{b5}s"),
            (2_200_000, "2.2ms"),
            (3_300_000_000, "3.3s"),
            (4 * 60_000_000_000 + 5_000_000_000, "4m5s"),
            (4 * 60_000_000_000 + 5_001_000_000, "4m5.001s"),
            (
                5 * 3_600_000_000_000 + 6 * 60_000_000_000 + 7_001_000_000,
                "5h6m7.001s",
            ),
            (8 * 60_000_000_000 + 1, "8m0.000000001s"),
            (i64::MAX, "2562047h47m16.854775807s"),
            (i64::MIN, "-2562047h47m16.854775808s"),
        ] {
            assert_eq!(format(ns), want, "{ns}");
        }
    }

    #[test]
    fn go_parse_cases() {
        for (s, want) in [
            ("0", 0),
            ("5s", 5_000_000_000),
            ("-5s", -5_000_000_000),
            ("+5s", 5_000_000_000),
            ("1.5h", 5_400_000_000_000),
            ("1h30m", 5_400_000_000_000),
            (".5s", 500_000_000),
            ("5.s", 5_000_000_000),
            ("1\u{b5}s", 1_000),
            ("1\u{3bc}s", 1_000),
            ("9223372036854775807ns", i64::MAX),
            ("-9223372036854775808ns", i64::MIN),
            ("0.100000000000000000000h", 360_000_000_000),
        ] {
            assert_eq!(parse(s), Some(want), "{s}");
        }
        for s in [
            "",
            "3",
            "-",
            "s",
            ".",
            "-.",
            ".s",
            "+.s",
            "1d",
            "9223372036854775808ns",
        ] {
            assert_eq!(parse(s), None, "{s}");
        }
    }

    /// What the operator writes for the values of its own tests and guides.
    #[test]
    fn round_trip_as_the_operator_writes_it() {
        let f = |s: &str| format(parse(s).unwrap());
        assert_eq!(f("2160h"), "2160h0m0s");
        assert_eq!(f("120m"), "2h0m0s");
        assert_eq!(f("1h"), "1h0m0s");
        assert_eq!(f("90s"), "1m30s");
    }
}
