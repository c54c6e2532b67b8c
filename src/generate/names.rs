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
/// unicode.IsDigit(r) || r == '_'` keeps the code point; anything else becomes `_`
/// (kuadrant-operator v1.5.2 internal/controller/ratelimit_workflow_helpers.go), with Go's classes
/// (`crate::gounicode`).
fn sanitised(name: &str) -> impl Iterator<Item = char> + '_ {
    use crate::gounicode::{is_digit, is_letter};
    name.chars().map(|c| {
        if is_letter(c) || is_digit(c) || c == '_' {
            c
        } else {
            '_'
        }
    })
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
        // Marks of every script, not only the common ones: U+11C92 MARCHEN SUBJOINED LETTER KA is
        // Mn (and Alphabetic for Rust), so Go writes `_`.
        assert_eq!(sanitise("a\u{11C92}"), "a_");
        // Unicode 15.0.0, the edition of Go's tables: U+10D50 GARAY CAPITAL LETTER A is a letter
        // from Unicode 16.0 on, unassigned for Go; U+1E4F0 NAG MUNDARI DIGIT ZERO (15.0) is Nd.
        assert_eq!(sanitise("\u{10D50}"), "_");
        assert_eq!(sanitise("\u{1E4F0}"), "\u{1E4F0}");
        // Unassigned and private-use code points, separators and format characters.
        assert_eq!(sanitise("\u{378}\u{E000}\u{A0}\u{200B}"), "____");
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
