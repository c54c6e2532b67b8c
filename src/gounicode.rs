//! Go's `unicode` character classes, where the operator's or Authorino's output depends on them.
//!
//! Each is a set of general categories, read from the Unicode 15.0.0 tables Go has shipped since
//! Go 1.21 (the crate's version is pinned to that edition in Cargo.toml). Rust's own `char`
//! predicates answer other questions: `is_alphabetic` is the Alphabetic property (roman numerals
//! and combining vowel signs included), `is_control` is Cc only, and both follow the Unicode
//! edition of the Rust release that builds policyctl.

use unicode_general_category::{GeneralCategory as G, get_general_category};

/// `unicode.IsLetter`: categories Lu, Ll, Lt, Lm, Lo.
pub(crate) fn is_letter(c: char) -> bool {
    matches!(
        get_general_category(c),
        G::UppercaseLetter
            | G::LowercaseLetter
            | G::TitlecaseLetter
            | G::ModifierLetter
            | G::OtherLetter
    )
}

/// `unicode.IsDigit`: category Nd.
pub(crate) fn is_digit(c: char) -> bool {
    get_general_category(c) == G::DecimalNumber
}

/// `unicode.IsPrint` (and `strconv.IsPrint`, generated from the same tables): a letter, mark,
/// number, punctuation or symbol, or the ASCII space. Other separators (`U+00A0`, `U+2028`),
/// controls, format characters (`U+200B`, `U+FEFF`), private use and unassigned code points
/// (`U+10FFFF`) are not.
pub(crate) fn is_print(c: char) -> bool {
    c == ' '
        || !matches!(
            get_general_category(c),
            G::Control
                | G::Format
                | G::Surrogate
                | G::PrivateUse
                | G::Unassigned
                | G::SpaceSeparator
                | G::LineSeparator
                | G::ParagraphSeparator
        )
}

/// Whether Go's tables know the code point at all.
fn assigned(c: char) -> bool {
    get_general_category(c) != G::Unassigned
}

/// `unicode.ToUpper`: the simple mapping (UnicodeData.txt), one character for one. Rust's
/// `char::to_uppercase` is the full mapping, which SpecialCasing.txt makes longer for about a
/// hundred characters: `ß` stays `ß` for Go (not `SS`), and a Greek small letter with
/// ypogegrammeni becomes its titlecase letter with prosgegrammeni (`ᾳ` → `ᾼ`, not `ΑΙ`). A mapping
/// Go's 15.0.0 tables do not have yet (`ƛ` → `Ƛ`, Unicode 16.0) leaves the character as it is.
pub(crate) fn to_upper(c: char) -> char {
    let mut full = c.to_uppercase();
    let upper = match (full.next(), full.next()) {
        (Some(u), None) => u,
        _ => match c as u32 {
            // UnicodeData.txt's simple uppercase of these is the titlecase letter.
            0x1F80..=0x1F87 | 0x1F90..=0x1F97 | 0x1FA0..=0x1FA7 => char::from_u32(c as u32 + 8),
            0x1FB3 | 0x1FC3 | 0x1FF3 => char::from_u32(c as u32 + 9),
            _ => None,
        }
        .unwrap_or(c),
    };
    if assigned(c) && assigned(upper) {
        upper
    } else {
        c
    }
}

/// `unicode.ToLower`: the simple mapping, as [`to_upper`]. Only `İ` has a longer full mapping
/// (`i` and a combining dot above); its simple one is `i`. Character by character, so a final
/// `Σ` is `σ`, as for Go, where `str::to_lowercase` writes `ς`.
pub(crate) fn to_lower(c: char) -> char {
    let mut full = c.to_lowercase();
    let lower = match (full.next(), full.next()) {
        (Some(l), None) => l,
        _ if c == '\u{130}' => 'i',
        _ => c,
    };
    if assigned(c) && assigned(lower) {
        lower
    } else {
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Categories from the Unicode Character Database 15.0.0 (UnicodeData.txt).
    #[test]
    fn classes_follow_unicode_15_general_categories() {
        for c in ['a', 'Ü', 'ª', 'ʰ', 'ǅ', '日', '\u{1E4D0}'] {
            assert!(is_letter(c), "{c:?}");
        }
        // Nl, Mn (U+0915 U+094D, U+11C92), No, Nd, unassigned in 15.0 (a Garay letter from 16.0).
        for c in ['Ⅻ', '\u{94D}', '\u{11C92}', '½', '٣', '\u{10D50}', '_'] {
            assert!(!is_letter(c), "{c:?}");
        }
        for c in ['0', '٣', '\u{1E4F0}', '𝟎'] {
            assert!(is_digit(c), "{c:?}");
        }
        for c in ['½', 'Ⅻ', '²', 'a'] {
            assert!(!is_digit(c), "{c:?}");
        }
        for c in [' ', '~', 'é', '\u{94D}', '\u{263A}', '\u{1F600}'] {
            assert!(is_print(c), "{c:?}");
        }
        for c in [
            '\t',
            '\u{7F}',
            '\u{85}',
            '\u{A0}',
            '\u{2000}',
            '\u{3000}',
            '\u{2028}',
            '\u{2029}',
            '\u{200B}',
            '\u{FEFF}',
            '\u{E000}',
            '\u{378}',
            '\u{10FFFF}',
            '\u{10D50}',
        ] {
            assert!(!is_print(c), "{c:?}");
        }
    }

    // Simple case mappings from UnicodeData.txt (fields 12 and 13), where they differ from the full
    // ones of SpecialCasing.txt.
    #[test]
    fn case_mappings_are_the_simple_ones() {
        let upper = |s: &str| s.chars().map(to_upper).collect::<String>();
        let lower = |s: &str| s.chars().map(to_lower).collect::<String>();
        assert_eq!(upper("straße ŉ ﬁ"), "STRAßE ŉ ﬁ");
        assert_eq!(upper("ᾀᾗᾧᾳῃῳ ᾈ ᾲ"), "ᾈᾟᾯᾼῌῼ ᾈ ᾲ");
        assert_eq!(lower("ΟΔΟΣ İ"), "οδοσ i");
        assert_eq!(upper("ƛ"), "ƛ");
        assert_eq!(upper("éa"), "ÉA");
        assert_eq!(lower("ÉA"), "éa");
    }
}
