//! cel-go's error text (common/errors.go `Errors.ToDisplayString`, common/error.go
//! `Error.ToDisplayString`): `ERROR: <input>:L:C: message`, then the source line (tabs shown as
//! spaces) and a caret line whose dots are full-width for multi-byte characters; the first 100 errors
//! reported, stably sorted by position, then `N more errors were truncated`.

/// The most errors cel-go prints.
const MAX_ERRORS: usize = 100;
/// Longer source lines are not shown (`maxSnippetLength`, in bytes).
const MAX_SNIPPET: usize = 16384;

/// One error: 1-based line, 0-based code-point column, message.
pub(crate) type Issue = (usize, usize, String);

/// 1-based line and 0-based code-point column of a byte offset.
pub(crate) fn location(src: &str, offset: usize) -> (usize, usize) {
    let mut line = 1;
    let mut col = 0;
    for (i, ch) in src.char_indices() {
        if i >= offset {
            break;
        }
        if ch == '\n' {
            line += 1;
            col = 0;
        } else {
            col += 1;
        }
    }
    (line, col)
}

/// The text of `issues`, given in the order they were reported.
pub(crate) fn render(src: &str, issues: &[Issue]) -> String {
    let mut kept: Vec<&Issue> = issues.iter().take(MAX_ERRORS).collect();
    kept.sort_by_key(|(l, c, _)| (*l, *c));
    let mut parts = Vec::new();
    for (line, col0, msg) in kept {
        let mut s = format!("ERROR: <input>:{line}:{}: {msg}", col0 + 1);
        if let Some(text) = src.split('\n').nth(line - 1)
            && !src.is_empty()
            && text.len() <= MAX_SNIPPET
        {
            let text = text.replace('\t', " ");
            s.push_str("\n | ");
            s.push_str(&text);
            s.push_str("\n | ");
            let mut chars = text.chars();
            for _ in 0..*col0 {
                match chars.next() {
                    Some(ch) => s.push(if ch.len_utf8() > 1 { '．' } else { '.' }),
                    None => break,
                }
            }
            s.push(if chars.next().is_some_and(|c| c.len_utf8() > 1) {
                '＾'
            } else {
                '^'
            });
        }
        parts.push(s);
    }
    if issues.len() > MAX_ERRORS {
        parts.push(format!(
            "{} more errors were truncated",
            issues.len() - MAX_ERRORS
        ));
    }
    parts.join("\n")
}
