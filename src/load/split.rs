//! Splitting a YAML stream into documents while keeping byte offsets.
//!
//! A line that starts with `---` (followed by nothing, a space or a tab) begins a new document; YAML
//! forbids such lines inside any scalar, so this split is exact. Chunks that hold only comments,
//! blank lines, directives or document markers are dropped.

/// A document's byte range in its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Chunk {
    pub offset: usize,
    pub len: usize,
}

fn is_marker(line: &str, marker: &str) -> bool {
    line.strip_prefix(marker)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t', '\r', '\n']))
}

/// The non-empty documents of a stream.
pub(super) fn documents(text: &str) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    let mut start = 0;
    // Only a line that starts with `---` can begin a document: the text's first line, and each
    // `---` after a line feed (found by a substring search, not line by line).
    let later = memchr::memmem::find_iter(text.as_bytes(), b"\n---").map(|i| i + 1);
    for pos in std::iter::once(0).chain(later) {
        // Slice: `pos` is 0 or just after a line feed, a char boundary.
        if pos != start && is_marker(&text[pos..], "---") {
            push(text, start, pos, &mut chunks);
            start = pos;
        }
    }
    push(text, start, text.len(), &mut chunks);
    chunks
}

fn push(text: &str, start: usize, end: usize, chunks: &mut Vec<Chunk>) {
    // Slice: the splitter only passes line-start offsets and `text.len()`, all char boundaries.
    let body = &text[start..end];
    let has_content = body.lines().any(|l| {
        let t = l.trim();
        !(t.is_empty()
            || t.starts_with('#')
            || t.starts_with('%')
            // Slice: `is_marker` checked that `t` starts with the three ASCII bytes `---`.
            || is_marker(t, "---") && t[3..].trim_start().starts_with('#')
            || t == "---"
            || t == "...")
    });
    if has_content {
        chunks.push(Chunk {
            offset: start,
            len: end - start,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<&str> {
        documents(s)
            .into_iter()
            .map(|c| &s[c.offset..c.offset + c.len])
            .collect()
    }

    #[test]
    fn splits_on_markers_only_at_line_start() {
        let s = "a: 1\n---\nb: '---'\n  ---x\n--- \n# only a comment\n---\nc: 3\n";
        assert_eq!(
            texts(s),
            vec!["a: 1\n", "---\nb: '---'\n  ---x\n", "---\nc: 3\n"]
        );
    }

    /// The split by substring search finds the documents a walk line by line finds, on texts
    /// made of the pieces that matter (markers, line ends, carriage returns, comments).
    #[test]
    fn the_search_finds_what_a_line_walk_finds() {
        fn by_lines(text: &str) -> Vec<Chunk> {
            let (mut chunks, mut start, mut pos) = (Vec::new(), 0, 0);
            for line in text.split_inclusive('\n') {
                if pos != start && is_marker(line, "---") {
                    push(text, start, pos, &mut chunks);
                    start = pos;
                }
                pos += line.len();
            }
            push(text, start, text.len(), &mut chunks);
            chunks
        }
        let pieces = [
            "---", "\n", "\r\n", " ", "\t", "a: 1", "#", "...", "--", "-", "\r", "é",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..20_000 {
            let mut text = String::new();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            for k in 0..(seed % 24) {
                let i = (seed >> (k % 40)) as usize ^ (k as usize * 7);
                text.push_str(pieces[i % pieces.len()]);
            }
            assert_eq!(documents(&text), by_lines(&text), "{text:?}");
        }
    }

    #[test]
    fn empty_documents_are_skipped() {
        assert!(documents("---\n---\n# x\n...\n").is_empty());
        assert_eq!(texts("--- {a: 1}\n"), vec!["--- {a: 1}\n"]);
    }
}
