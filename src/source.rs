//! Source files and byte spans.
//!
//! Owns the text of every input (files and stdin) so that any diagnostic, from any stage, can point at a
//! byte range and be turned into `file:line:column`. Knows nothing about YAML or Kubernetes.

use std::sync::Arc;

/// Index of a file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct SourceId(pub u32);

/// A byte range in one source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Span {
    pub source: SourceId,
    pub offset: usize,
    pub len: usize,
}

impl Span {
    pub fn new(source: SourceId, offset: usize, len: usize) -> Self {
        Span {
            source,
            offset,
            len,
        }
    }
}

/// The text of one input, shared by the map and the threads that parse it. Made from the `String`
/// the bytes were read into without copying it (an `Arc<str>` made from a `String` copies the text
/// into fresh memory: 46 MB and a page fault per 4 KiB for a large input).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceText(Arc<String>);

impl std::ops::Deref for SourceText {
    type Target = str;
    fn deref(&self) -> &str {
        self.0.as_str()
    }
}

impl From<String> for SourceText {
    fn from(s: String) -> Self {
        SourceText(Arc::new(s))
    }
}

impl From<&str> for SourceText {
    fn from(s: &str) -> Self {
        SourceText(Arc::new(s.to_owned()))
    }
}

/// One input: its display name (path, `<stdin>`, or a helm `# Source:` name) and its text.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub name: String,
    pub text: SourceText,
    /// Byte offset of the start of every line, computed the first time a position is asked for
    /// (most runs print no diagnostic; the index of a 50 MB input takes 20–40 MB).
    line_starts: std::sync::OnceLock<Vec<usize>>,
    /// Whether the text has a carriage return not followed by a line feed (a line break for some
    /// readers, not for `line_starts`).
    lone_cr: bool,
    /// With `lone_cr`: the start of every line when a lone carriage return breaks a line too (see
    /// [`SourceFile::break_index`]); computed on first use.
    break_starts: std::sync::OnceLock<Vec<usize>>,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<SourceText>) -> Self {
        let text: SourceText = text.into();
        let b = text.as_bytes();
        // Most inputs have no carriage return at all (a fast scan); look closer only if one has.
        let lone_cr = b.contains(&b'\r')
            && b.iter()
                .enumerate()
                .any(|(i, &c)| c == b'\r' && b.get(i + 1) != Some(&b'\n'));
        SourceFile {
            name: name.into(),
            text,
            line_starts: std::sync::OnceLock::new(),
            lone_cr,
            break_starts: std::sync::OnceLock::new(),
        }
    }

    fn line_starts(&self) -> &[usize] {
        self.line_starts.get_or_init(|| {
            let mut starts = vec![0];
            starts.extend(self.text.match_indices('\n').map(|(i, _)| i + 1));
            starts.shrink_to_fit();
            starts
        })
    }

    /// 0-based index of the line holding a byte offset (clamped to the end of the text).
    pub fn line_index(&self, offset: usize) -> usize {
        let offset = offset.min(self.text.len());
        match self.line_starts().binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1, // line_starts[0] == 0, so i >= 1 here
        }
    }

    /// Byte offset where the 0-based line `index` starts (the end of the text past the last line).
    pub fn line_start(&self, index: usize) -> usize {
        self.line_starts()
            .get(index)
            .copied()
            .unwrap_or(self.text.len())
    }

    /// Whether lines are broken by line feeds only (`\r\n` counts as one break, a lone `\r` does
    /// not exist), so [`line_index`](Self::line_index) counts every break.
    pub fn line_feeds_only(&self) -> bool {
        !self.lone_cr
    }

    /// The line starts when `\n`, `\r\n` and a lone `\r` each break a line, as miette counts lines
    /// (the line index itself when there is no lone `\r`).
    fn break_starts(&self) -> &[usize] {
        if !self.lone_cr {
            return self.line_starts();
        }
        self.break_starts.get_or_init(|| {
            let b = self.text.as_bytes();
            let mut starts = vec![0];
            for (i, &c) in b.iter().enumerate() {
                let ends_break = c == b'\n' || (c == b'\r' && b.get(i + 1) != Some(&b'\n'));
                if ends_break {
                    starts.push(i + 1);
                }
            }
            starts.shrink_to_fit();
            starts
        })
    }

    /// 0-based index of the line holding a byte offset, counting lines as miette does (`\n`,
    /// `\r\n` and a lone `\r` each end one); the same as [`line_index`](Self::line_index) when
    /// [`line_feeds_only`](Self::line_feeds_only).
    pub(crate) fn break_index(&self, offset: usize) -> usize {
        let offset = offset.min(self.text.len());
        match self.break_starts().binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1, // break_starts[0] == 0, so i >= 1 here
        }
    }

    /// Byte offset where the 0-based line `index` of [`break_index`](Self::break_index) starts (the
    /// end of the text past the last line).
    pub(crate) fn break_start(&self, index: usize) -> usize {
        self.break_starts()
            .get(index)
            .copied()
            .unwrap_or(self.text.len())
    }

    /// 1-based line and column (in characters) of a byte offset; offsets past the end clamp to it.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.line_index(offset);
        let start = self.line_start(line);
        let col = self
            .text
            .get(start..offset)
            .map(|s| s.chars().count())
            .unwrap_or(offset - start);
        (line + 1, col + 1)
    }
}

/// Every input read in one run, addressed by [`SourceId`].
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn add(&mut self, name: impl Into<String>, text: impl Into<SourceText>) -> SourceId {
        let id = SourceId(self.files.len() as u32);
        self.files.push(SourceFile::new(name, text));
        id
    }

    /// Give `id` a new name and text (`watch` keeps one id per file across its edits). An id not
    /// yet given out is left alone.
    pub fn replace(&mut self, id: SourceId, name: impl Into<String>, text: impl Into<SourceText>) {
        if let Some(f) = self.files.get_mut(id.0 as usize) {
            *f = SourceFile::new(name, text);
        }
    }

    pub fn get(&self, id: SourceId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }

    pub fn files(&self) -> impl Iterator<Item = (SourceId, &SourceFile)> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, f)| (SourceId(i as u32), f))
    }

    /// `file:line:column` of the start of a span.
    pub fn position(&self, span: Span) -> Option<Position> {
        let file = self.get(span.source)?;
        let (line, column) = file.line_col(span.offset);
        Some(Position {
            file: file.name.clone(),
            line,
            column,
        })
    }
}

/// A resolved human position.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    pub file: String,
    pub line: usize,
    pub column: usize,
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_characters() {
        let f = SourceFile::new("a.yaml", "a: 1\nbé: toystöre\n");
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(5), (2, 1));
        // "bé: " is 5 bytes, 4 characters
        assert_eq!(f.line_col(10), (2, 5));
        assert_eq!(f.line_col(10_000), (3, 1));
    }
}
