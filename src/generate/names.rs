//! Names the operator derives by hashing (`docs/semantics/generated-objects.md`).

use sha2::{Digest, Sha256};

/// A SHA-256 digest as its 64 lowercase hex digits, kept inline: there is one per action set
/// (hundreds of thousands on large estates), and a `String` would cost an allocation and 40 more
/// bytes each.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HexDigest([u8; 64]);

impl HexDigest {
    pub fn of(s: &str) -> Self {
        let mut h = Sha256::new();
        h.update(s.as_bytes());
        Self::of_digest(h)
    }

    /// The digest of what `h` was fed.
    fn of_digest(h: Sha256) -> Self {
        let mut buf = [0u8; 64];
        // Cannot fail: 32 bytes need exactly 64 hex digits.
        let _ = hex::encode_to_slice(h.finalize(), &mut buf);
        HexDigest(buf)
    }

    pub fn as_str(&self) -> &str {
        // Always ASCII hex digits.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

impl std::fmt::Debug for HexDigest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl serde::Serialize for HexDigest {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Lowercase hex SHA-256 of `s` (64 characters).
pub(crate) fn sha256_hex(s: &str) -> String {
    HexDigest::of(s).as_str().to_string()
}

/// Action-set name: `sha256("<PathID>|<matchIndex+1>|<hostname>")`. The digest input is fed in
/// pieces: there is one per action set, and the joined text is never needed. (The stages name a
/// path's sets through [`PathNames`]; the tests check both.)
#[cfg(test)]
pub(crate) fn action_set_name(path_id: &str, match_index: usize, hostname: &str) -> HexDigest {
    PathNames::new(path_id).action_set_name(match_index, hostname)
}

/// The names hashed from one PathID ([`auth_config_name`], [`action_set_name`]): the PathID's
/// text is fed to the digest once, and each name only adds what follows it.
#[derive(Clone)]
pub(crate) struct PathNames(Sha256);

impl PathNames {
    pub(crate) fn new(path_id: &str) -> Self {
        let mut h = Sha256::new();
        h.update(path_id.as_bytes());
        PathNames(h)
    }

    /// [`auth_config_name`] of the PathID.
    pub(crate) fn auth_config_name(&self) -> String {
        HexDigest::of_digest(self.0.clone()).as_str().to_string()
    }

    /// [`action_set_name`] of the PathID.
    pub(crate) fn action_set_name(&self, match_index: usize, hostname: &str) -> HexDigest {
        let mut h = self.0.clone();
        h.update(b"|");
        h.update(decimal(match_index.saturating_add(1), &mut [0u8; 20]));
        h.update(b"|");
        h.update(hostname.as_bytes());
        HexDigest::of_digest(h)
    }
}

/// The decimal digits of `n`, written at the end of `buf` (20 digits hold any `u64`).
fn decimal(mut n: usize, buf: &mut [u8; 20]) -> &[u8] {
    let mut at = buf.len();
    loop {
        at -= 1;
        // A digit: `n % 10` is below 10.
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 || at == 0 {
            break;
        }
    }
    &buf[at..]
}

/// AuthConfig name (and the auth action's scope): `sha256(PathID)`.
pub fn auth_config_name(path_id: &str) -> String {
    sha256_hex(path_id)
}

/// A limit name's characters as the operator sanitises them: Go's `unicode.IsLetter(r) ||
/// unicode.IsDigit(r) || r == '_'` keeps the code point; anything else becomes `_`. `IsDigit` is the Nd category only, which `char::is_numeric` over-approximates (it also
/// accepts Nl/No), so digits are tested through `is_decimal_digit`.
fn sanitised(name: &str) -> impl Iterator<Item = char> + '_ {
    name.chars().map(|c| {
        if c == '_' || c.is_alphabetic() && is_letter(c) || is_decimal_digit(c) {
            c
        } else {
            '_'
        }
    })
}

/// Unicode category L* (Go `unicode.IsLetter`). Rust's `is_alphabetic` is the `Alphabetic` property,
/// which also contains Nl (letter numbers such as `Ⅻ`) and Other_Alphabetic marks (Mn/Mc such as
/// combining vowel signs); those are not letters for Go.
fn is_letter(c: char) -> bool {
    // Alphabetic = Lu+Ll+Lt+Lm+Lo+Nl+Other_Alphabetic. Exclude Nl (numeric) and the combining marks
    // (which have a non-zero canonical combining class or are spacing/nonspacing marks); marks are
    // recognised by being alphabetic while not being a letter in the cased/uncased sense, which we
    // approximate with the `is_numeric` test for Nl and a mark-range table for the common scripts.
    !c.is_numeric() && !is_mark(c)
}

/// Combining-mark blocks where `Other_Alphabetic` marks live (Mn/Mc), so they are not taken as letters.
fn is_mark(c: char) -> bool {
    let u = c as u32;
    matches!(u,
        0x0300..=0x036F | 0x0483..=0x0489 | 0x0591..=0x05BD | 0x05BF | 0x05C1..=0x05C2 | 0x05C4..=0x05C5
        | 0x05C7 | 0x0610..=0x061A | 0x064B..=0x065F | 0x0670 | 0x06D6..=0x06DC | 0x06DF..=0x06E4
        | 0x06E7..=0x06E8 | 0x06EA..=0x06ED | 0x0711 | 0x0730..=0x074A | 0x07A6..=0x07B0
        | 0x0900..=0x0903 | 0x093A..=0x093C | 0x093E..=0x094F | 0x0951..=0x0957 | 0x0962..=0x0963
        | 0x0981..=0x0983 | 0x09BC | 0x09BE..=0x09CD | 0x09D7 | 0x09E2..=0x09E3
        | 0x0A01..=0x0A03 | 0x0A3C..=0x0A51 | 0x0A70..=0x0A71 | 0x0A75 | 0x0A81..=0x0A83 | 0x0ABC
        | 0x0ABE..=0x0ACD | 0x0AE2..=0x0AE3 | 0x0B01..=0x0B03 | 0x0B3C | 0x0B3E..=0x0B57 | 0x0B62..=0x0B63
        | 0x0B82 | 0x0BBE..=0x0BCD | 0x0BD7 | 0x0C00..=0x0C04 | 0x0C3E..=0x0C56 | 0x0C62..=0x0C63
        | 0x0C81..=0x0C83 | 0x0CBC | 0x0CBE..=0x0CD6 | 0x0CE2..=0x0CE3 | 0x0D00..=0x0D03 | 0x0D3B..=0x0D3C
        | 0x0D3E..=0x0D4D | 0x0D57 | 0x0D62..=0x0D63 | 0x0D81..=0x0D83 | 0x0DCA..=0x0DDF | 0x0DF2..=0x0DF3
        | 0x0E31 | 0x0E34..=0x0E3A | 0x0E47..=0x0E4E | 0x0EB1 | 0x0EB4..=0x0EBC | 0x0EC8..=0x0ECE
        | 0x0F18..=0x0F19 | 0x0F35 | 0x0F37 | 0x0F39 | 0x0F3E..=0x0F3F | 0x0F71..=0x0F84 | 0x0F86..=0x0F87
        | 0x0F8D..=0x0FBC | 0x102B..=0x103E | 0x1056..=0x1059 | 0x105E..=0x1060 | 0x1062..=0x1064
        | 0x1067..=0x106D | 0x1071..=0x1074 | 0x1082..=0x108D | 0x108F | 0x109A..=0x109D
        | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0x302A..=0x302F | 0x3099..=0x309A
        | 0xFE20..=0xFE2F)
}

/// Unicode category Nd (Go `unicode.IsDigit`): the decimal digit blocks, each a run of ten.
fn is_decimal_digit(c: char) -> bool {
    if c.is_ascii_digit() {
        return true;
    }
    if !c.is_numeric() {
        return false;
    }
    // Nd code points are always in runs of 10 starting at a code point whose value is 0; Nl/No are
    // not. `to_digit` does not help for non-ASCII, so test membership in the known Nd run starts.
    const ND_STARTS: &[u32] = &[
        0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6, 0x0C66, 0x0CE6,
        0x0D66, 0x0DE6, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0,
        0x1A80, 0x1A90, 0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0,
        0xAA50, 0xABF0, 0xFF10, 0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0,
        0x11450, 0x114D0, 0x11650, 0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0,
        0x11F50, 0x16A60, 0x16AC0, 0x16B50, 0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140,
        0x1E2F0, 0x1E4F0, 0x1E950, 0x1FBF0,
    ];
    let u = c as u32;
    ND_STARTS.iter().any(|&s| (s..s + 10).contains(&u))
}

/// Limit identifier: `limit.` (or `tokenlimit.`) + sanitised name + `__` + the first 8 hex of
/// `sha256("<policyNs>/<policyName>/<limitName>")` of the policy the limit was written in.
pub fn limit_identifier(token: bool, policy_ns: &str, policy_name: &str, limit: &str) -> String {
    let mut h = Sha256::new();
    for part in [policy_ns, "/", policy_name, "/", limit] {
        h.update(part.as_bytes());
    }
    let mut hash = [0u8; 8];
    // Cannot fail: 4 bytes need exactly 8 hex digits.
    let _ = hex::encode_to_slice(&h.finalize()[..4], &mut hash);
    let prefix = if token { "tokenlimit." } else { "limit." };
    let mut id = String::with_capacity(prefix.len() + limit.len() + 10);
    id.push_str(prefix);
    id.extend(sanitised(limit));
    id.push_str("__");
    // Always ASCII hex digits.
    id.push_str(std::str::from_utf8(&hash).unwrap_or_default());
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sanitise(name: &str) -> String {
        sanitised(name).collect()
    }

    #[test]
    fn g1_limit_identifiers() {
        let cases = [
            ("testNS", "rlpA", "foo", false, "limit.foo__1da6e70a"),
            ("testNS", "rlpB", "foo", false, "limit.foo__2c1520b6"),
            ("testNS", "rlpA", "", false, "limit.__6d5e49dc"),
            (
                "testNS",
                "rlpA",
                "my/limit-0",
                false,
                "limit.my_limit_0__a17b96ce",
            ),
            (
                "testNS",
                "rlpA",
                "my.limit",
                false,
                "limit.my_limit__e37c974b",
            ),
            ("testNS", "trlpA", "foo", true, "tokenlimit.foo__13adad8e"),
            (
                "gateway-system",
                "app-rlp",
                "toystore_assets_all_domains",
                false,
                "limit.toystore_assets_all_domains__b61ee8e6",
            ),
            (
                "gateway-system",
                "app-rlp",
                "toystore_v1_website_unauthenticated",
                false,
                "limit.toystore_v1_website_unauthenticated__377837ee",
            ),
        ];
        for (ns, name, limit, token, want) in cases {
            assert_eq!(
                limit_identifier(token, ns, name, limit),
                want,
                "{ns}/{name}/{limit}"
            );
        }
    }

    #[test]
    fn sanitise_follows_go_unicode_classes() {
        assert_eq!(sanitise("a-b.c/d e"), "a_b_c_d_e");
        assert_eq!(sanitise("Ünïcödé_1"), "Ünïcödé_1");
        assert_eq!(sanitise("٣x"), "٣x"); // Arabic-Indic digit three: Nd
        assert_eq!(sanitise("½"), "_"); // No, not a digit for Go
        assert_eq!(sanitise("Ⅻ"), "_"); // Nl: Alphabetic in Rust, not a letter in Go
        assert_eq!(sanitise("क्"), "क_"); // virama is a mark (Mn)
        assert_eq!(sanitise("日本"), "日本");
    }

    #[test]
    fn action_set_names_hash_the_joined_text() {
        // The pieces hash as the text `<PathID>|<matchIndex+1>|<hostname>` does
        // (kuadrant-operator v1.5.2 internal/wasm/utils.go `ActionSetNameForPath`).
        for (i, want) in [(0, "1"), (8, "9"), (9, "10"), (99, "100"), (12345, "12346")] {
            assert_eq!(
                action_set_name("a|b#c", i, "*.example.com"),
                HexDigest::of(&format!("a|b#c|{want}|*.example.com")),
            );
        }
        let names = PathNames::new("a|b#c");
        assert_eq!(names.auth_config_name(), auth_config_name("a|b#c"));
        assert_eq!(names.action_set_name(2, "x"), HexDigest::of("a|b#c|3|x"));
        assert_eq!(
            decimal(usize::MAX, &mut [0; 20]),
            usize::MAX.to_string().as_bytes()
        );
        assert_eq!(decimal(0, &mut [0; 20]), b"0");
    }

    #[test]
    fn action_set_and_auth_config_names() {
        let pid = "istio|test-ns/test-placed-gateway|test-ns/test-placed-gateway#default|test-ns/toystore-route|test-ns/toystore-route#rule-1";
        assert_eq!(
            action_set_name(pid, 0, "*.example.com").as_str(),
            "726e670b7a73feada4a490e60b86b4e186b322f5c3972cc4b5842348e46ed8a8"
        );
        assert_eq!(
            auth_config_name(pid),
            "2f74d3edcab68518ac40f03991f68b61ec83ac73c083410d5d9299c799b02536"
        );
    }
}
