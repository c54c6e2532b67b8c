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
    documents_upto(text, usize::MAX)
}

/// The first `limit` non-empty documents of a stream (the rest are not looked for: a stream of
/// tiny documents has tens of millions).
pub(super) fn documents_upto(text: &str, limit: usize) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    let mut start = 0;
    // Only a line that starts with `---` can begin a document: the text's first line, and each
    // `---` after a line feed (found by a substring search, not line by line).
    let later = memchr::memmem::find_iter(text.as_bytes(), b"\n---").map(|i| i + 1);
    for pos in std::iter::once(0).chain(later) {
        if chunks.len() >= limit {
            return chunks;
        }
        // Slice: `pos` is 0 or just after a line feed, a char boundary.
        if pos != start && is_marker(&text[pos..], "---") {
            push(text, start, pos, &mut chunks);
            start = pos;
        }
    }
    if chunks.len() < limit {
        push(text, start, text.len(), &mut chunks);
    }
    chunks
}

/// `text` cut into at most `parts` pieces that each begin with a document marker (but the first),
/// near even offsets: [`documents`] of the pieces, shifted by their starts, are the documents of
/// the whole (a marker begins a document wherever the stream is read from, and a piece ends where
/// a line does).
pub(super) fn pieces(text: &str, parts: usize) -> Vec<std::ops::Range<usize>> {
    let mut starts = vec![0];
    let per = text.len() / parts.max(1);
    for k in 1..parts.max(1) {
        let from = (k * per).max(starts.last().copied().unwrap_or(0));
        let marker = memchr::memmem::find_iter(&text.as_bytes()[from..], b"\n---")
            .map(|i| from + i + 1)
            // Slice: just after a line feed, a char boundary.
            .find(|&pos| is_marker(&text[pos..], "---"));
        match marker {
            Some(pos) if pos > starts.last().copied().unwrap_or(0) => starts.push(pos),
            Some(_) => {}
            None => break,
        }
    }
    let ends = starts.iter().skip(1).copied().chain([text.len()]);
    starts
        .iter()
        .copied()
        .zip(ends)
        .map(|(a, b)| a..b)
        .collect()
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

    /// The documents of the pieces are those of the whole stream, for every number of pieces,
    /// on streams whose markers sit near the cuts, at the start and at the end.
    #[test]
    fn pieces_split_as_the_whole() {
        let streams = [
            "a: 1\n---\nb: 2\n--- \nc: 3\n---\t# x\nd: '---'\n  ---\n---\n",
            "---\na: 1\n---\n---\n# only\n---\nb: 2",
            "a: 1\n---x\nb: 2\n----\nc: 3\n",
            "",
        ];
        for s in streams {
            let whole = documents(s);
            for parts in 1..=12 {
                let pieces = pieces(s, parts);
                assert!(pieces.len() <= parts.max(1), "{s:?} {parts}");
                assert_eq!(pieces.first().map(|r| r.start), Some(0));
                assert_eq!(pieces.last().map(|r| r.end), Some(s.len()));
                let got: Vec<Chunk> = (pieces.iter())
                    .flat_map(|r| {
                        documents(&s[r.clone()]).into_iter().map(|c| Chunk {
                            offset: c.offset + r.start,
                            len: c.len,
                        })
                    })
                    .collect();
                assert_eq!(got, whole, "{s:?} in {parts} pieces {pieces:?}");
            }
        }
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

    /// The first `limit` documents are those of the whole stream, the last of them whole (not cut
    /// where the next one would begin).
    #[test]
    fn documents_upto_are_the_first_documents() {
        let streams = [
            "a: 1\n---\nb: 2\n--- \nc: 3\n---\t# x\nd: '---'\n  ---\n---\n",
            "---\na: 1\n---\n---\n# only\n---\nb: 2",
            "{}\n---\n{}\n---\n{}\n",
        ];
        for s in streams {
            let whole = documents(s);
            for limit in 0..=whole.len() + 1 {
                let n = limit.min(whole.len());
                assert_eq!(documents_upto(s, limit), whole[..n], "{s:?} {limit}");
            }
        }
    }
}
