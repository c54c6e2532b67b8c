//! Text from the input made safe for a terminal: names, paths and messages are printed with their
//! control characters escaped, so a hostile name cannot move the cursor, change colours, set the
//! window title or hide text (ANSI escape sequences start with ESC, or with the C1 control CSI).

use std::borrow::Cow;

/// Whether `c` must not reach a terminal or a report as is: C0 controls, DEL, C1 controls, the
/// Unicode bidirectional overrides and isolates, which reorder what is shown, and the
/// noncharacters U+FFFE and U+FFFF, which XML 1.0 (its `Char` production) and YAML 1.2 (its
/// printable set) do not allow anywhere in a document: every report format escapes the same
/// characters.
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FFFE}' | '\u{FFFF}'
        )
}

/// One line of text (a name, a path, a message): every control character escaped, line breaks too
/// (`\n`, `\r`, `\t`, `\e`, otherwise `\u{..}`).
pub fn line(s: &str) -> Cow<'_, str> {
    escape(s, false)
}

/// Text of several lines: as [`line()`], but line breaks and tabs are kept.
pub fn text(s: &str) -> Cow<'_, str> {
    escape(s, true)
}

fn escape(s: &str, keep_breaks: bool) -> Cow<'_, str> {
    let keep = |c: char| keep_breaks && (c == '\n' || c == '\t');
    if !s.chars().any(|c| is_unsafe(c) && !keep(c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if !is_unsafe(c) || keep(c) {
            out.push(c);
            continue;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{1b}' => out.push_str("\\e"),
            c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    Cow::Owned(out)
}

/// JSON text made safe for a terminal: serde_json escapes C0 controls in strings but writes DEL,
/// the C1 controls (CSI, U+009B, starts an escape sequence) and the bidirectional overrides as
/// they are; they are written as `\uXXXX` escapes instead, which read back as the same string.
/// Line breaks are kept: outside strings they are the layout, and inside they are escaped already.
pub fn json(s: String) -> String {
    let bad = |c: char| is_unsafe(c) && c != '\n';
    if !s.chars().any(bad) {
        return s;
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if bad(c) {
            // Every character `is_unsafe` names is in the Basic Multilingual Plane.
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_text_has_no_raw_control_characters() {
        let v = serde_json::json!({"file": "a\u{9b}31m\u{1b}\u{202e}\u{7f}\u{ffff}.yaml"});
        let s = json(serde_json::to_string_pretty(&v).unwrap());
        assert!(!s.chars().any(|c| is_unsafe(c) && c != '\n'), "{s}");
        let back: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(back, v);
        let plain = serde_json::to_string_pretty(&serde_json::json!({"a": "b ü"})).unwrap();
        assert_eq!(json(plain.clone()), plain);
    }

    #[test]
    fn control_characters_and_escape_sequences_are_escaped() {
        assert_eq!(line("gw\u{1b}[2J\u{7}x"), "gw\\e[2J\\u{7}x");
        assert_eq!(line("a\nb\r\tc"), "a\\nb\\r\\tc");
        assert_eq!(line("\u{9b}31m\u{202e}"), "\\u{9b}31m\\u{202e}");
        assert_eq!(text("a\n\tb\u{1b}]0;t\u{7}"), "a\n\tb\\e]0;t\\u{7}");
        assert!(matches!(line("plain-name.v1 ünï"), Cow::Borrowed(_)));
        // Not allowed in XML 1.0 nor YAML 1.2 (XML 1.0 §2.2 `Char`, YAML 1.2 §5.1 `c-printable`).
        assert_eq!(line("a\u{fffe}b\u{ffff}"), "a\\u{fffe}b\\u{ffff}");
        assert_eq!(text("\u{fffd}"), "\u{fffd}");
    }
}
