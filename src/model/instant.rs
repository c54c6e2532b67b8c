//! Creation instants: `metadata.creationTimestamp` parsed once, at load, into a value that orders
//! policies the way the operator does (`docs/semantics/merge.md`, "Which policies, in which order";
//! policy-machinery `controller/object.go` compares Go `time.Time`s).

/// A `creationTimestamp` as an instant: `(seconds since 1970, nanoseconds)`. A missing or unreadable
/// timestamp is Go's zero time, which sorts before every real one and ties with other zero times.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Instant(i64, u32);

impl Default for Instant {
    fn default() -> Self {
        ZERO_TIME
    }
}

/// Go's zero `time.Time` (0001-01-01T00:00:00Z).
pub(super) const ZERO_TIME: Instant = Instant(-62_135_596_800, 0);

impl Instant {
    /// Parse RFC 3339 (`2024-05-01T10:00:00Z`, fractional seconds and `±hh:mm` offsets allowed).
    pub fn parse(s: &str) -> Option<Self> {
        let b = s.as_bytes();
        if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't') {
            return None;
        }
        if b[13] != b':' || b[16] != b':' {
            return None;
        }
        let num = |r: std::ops::Range<usize>| -> Option<i64> {
            let t = s.get(r)?;
            if t.bytes().all(|c| c.is_ascii_digit()) {
                t.parse().ok()
            } else {
                None
            }
        };
        let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
        let (h, mi, se) = (num(11..13)?, num(14..16)?, num(17..19)?);
        if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || se > 60 {
            return None;
        }
        let mut i = 19;
        let mut nanos: u32 = 0;
        // Index: `b.len() >= 20` was checked above and `i` is 19.
        if b[i] == b'.' {
            i += 1;
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i == start {
                return None;
            }
            // Slice: `start..i` covers ASCII digits only, so both ends are char boundaries within `s`.
            let digits = &s[start..i.min(start + 9)];
            nanos = digits.parse::<u32>().ok()? * 10u32.pow(9 - digits.len() as u32);
        }
        let offset = match b.get(i)? {
            b'Z' | b'z' if i + 1 == b.len() => 0,
            c @ (b'+' | b'-') if i + 6 == b.len() && b[i + 3] == b':' => {
                let v = num(i + 1..i + 3)? * 3600 + num(i + 4..i + 6)? * 60;
                if *c == b'+' { v } else { -v }
            }
            _ => return None,
        };
        let days = days_from_civil(y, mo, d);
        Some(Instant(
            days * 86_400 + h * 3600 + mi * 60 + se - offset,
            nanos,
        ))
    }

    /// A `metadata.creationTimestamp` as the operator compares it: a missing or unreadable one is
    /// Go's zero time.
    pub fn of_timestamp(s: Option<&str>) -> Self {
        s.and_then(Instant::parse).unwrap_or(ZERO_TIME)
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_compare_as_instants() {
        let a = Instant::parse("2024-01-01T00:00:00Z").unwrap();
        let b = Instant::parse("2024-01-01T01:00:00+01:00").unwrap();
        assert_eq!(a, b);
        let c = Instant::parse("2024-01-01T00:00:00.5Z").unwrap();
        assert!(c > a);
        assert_eq!(Instant::parse("1970-01-01T00:00:00Z"), Some(Instant(0, 0)));
        assert!(ZERO_TIME < Instant::parse("0001-01-01T00:00:01Z").unwrap());
        assert_eq!(Instant::parse("0001-01-01T00:00:00Z"), Some(ZERO_TIME));
        assert_eq!(Instant::parse("yesterday"), None);
    }
}
