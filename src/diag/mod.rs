//! Diagnostics: the values every stage reports problems with.
//!
//! Owns [`Diagnostic`] (code, severity, message, labelled spans, help), the [`Code`] enum and the
//! [`Diagnostics`] collector. Must not render, colour or decide exit codes: see `render` and the CLI.

mod code;

pub use code::Code;

use crate::source::{SourceId, Span};

/// How serious a finding is. `Info` covers notes and advice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// A span with a message; the primary label is the cause, secondary ones give context.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub span: Span,
    pub message: String,
    pub primary: bool,
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    pub message: String,
    /// The object the finding is about, as `Kind namespace/name` (or `Kind name`).
    pub object: Option<String>,
    pub labels: Vec<Label>,
    pub help: Option<String>,
}

impl Diagnostic {
    /// A diagnostic with the code's own severity.
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity: code.severity(),
            message: message.into(),
            object: None,
            labels: Vec::new(),
            help: None,
        }
    }

    pub fn at(mut self, span: Span, message: impl Into<String>) -> Self {
        self.labels.push(Label {
            span,
            message: message.into(),
            primary: true,
        });
        self
    }

    pub fn also(mut self, span: Span, message: impl Into<String>) -> Self {
        self.labels.push(Label {
            span,
            message: message.into(),
            primary: false,
        });
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn object(mut self, object: impl Into<String>) -> Self {
        self.object = Some(object.into());
        self
    }

    pub fn severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    /// The primary span, if any.
    pub fn primary_span(&self) -> Option<Span> {
        self.labels
            .iter()
            .find(|l| l.primary)
            .or(self.labels.first())
            .map(|l| l.span)
    }
}

/// An ordered collection of diagnostics.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, d: Diagnostic) {
        self.items.push(d);
    }

    pub fn extend(&mut self, other: Diagnostics) {
        self.items.extend(other.items);
    }

    pub fn iter(&self) -> std::slice::Iter<'_, Diagnostic> {
        self.items.iter()
    }

    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, Diagnostic> {
        self.items.iter_mut()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn has_errors(&self) -> bool {
        self.items.iter().any(|d| d.severity == Severity::Error)
    }

    pub fn has_trouble(&self) -> bool {
        self.items.iter().any(|d| d.code.is_trouble())
    }

    pub fn count(&self, severity: Severity) -> usize {
        self.items.iter().filter(|d| d.severity == severity).count()
    }

    /// Sort by source position, then code, so output does not depend on the order stages ran in.
    pub fn sort(&mut self) {
        // The order of a stable sort by (position, code, message), found on indices with each
        // position read once (an audit of a large estate has tens of thousands of findings), then
        // applied moving each finding once.
        let items = &self.items;
        let mut order: Vec<(Option<(SourceId, usize)>, usize)> = (items.iter().enumerate())
            .map(|(i, d)| (d.primary_span().map(|s| (s.source, s.offset)), i))
            .collect();
        order.sort_unstable_by(|(ka, a), (kb, b)| {
            let (x, y) = (&items[*a], &items[*b]);
            ka.cmp(kb)
                .then(x.code.cmp(&y.code))
                .then_with(|| x.message.cmp(&y.message))
                .then(a.cmp(b))
        });
        let mut slots: Vec<Option<Diagnostic>> = std::mem::take(&mut self.items)
            .into_iter()
            .map(Some)
            .collect();
        self.items = order.iter().filter_map(|&(_, i)| slots[i].take()).collect();
        self.items.dedup();
    }

    pub fn into_vec(self) -> Vec<Diagnostic> {
        self.items
    }
}

impl<'a> IntoIterator for &'a Diagnostics {
    type Item = &'a Diagnostic;
    type IntoIter = std::slice::Iter<'a, Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sort gives a stable sort's order by (position, code, message), with equal findings
    /// merged: findings with no position, equal positions, codes and messages, and labels that are
    /// not the primary one first.
    #[test]
    fn findings_sort_as_a_stable_sort_by_position_code_and_message() {
        let mut seed = 5u64;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for len in [0, 1, 2, 7, 50, 400] {
            let mut ds = Diagnostics::new();
            for _ in 0..len {
                let code = Code::ALL[next(4) as usize];
                let mut d = Diagnostic::new(code, format!("m{}", next(3)));
                match next(3) {
                    0 => {}
                    1 => {
                        let span = Span::new(SourceId(next(2) as u32), next(5) as usize, 1);
                        d = d.at(span, "here");
                    }
                    _ => {
                        let other = Span::new(SourceId(0), next(5) as usize, 1);
                        let span = Span::new(SourceId(next(2) as u32), next(5) as usize, 1);
                        d = d.also(other, "there").at(span, "here");
                    }
                }
                // Tell equal keys apart by where they came from.
                d.object = Some(format!("{}", next(2)));
                ds.push(d);
            }
            let mut want = ds.items.clone();
            want.sort_by(|a, b| {
                let ka = a.primary_span().map(|s| (s.source, s.offset));
                let kb = b.primary_span().map(|s| (s.source, s.offset));
                ka.cmp(&kb)
                    .then(a.code.cmp(&b.code))
                    .then(a.message.cmp(&b.message))
            });
            want.dedup();
            ds.sort();
            assert_eq!(ds.items, want, "{len} findings");
        }
    }
}
