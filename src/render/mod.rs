//! Render: turn values into text. Every function returns a `String`; nothing here prints, checks for a
//! terminal or computes anything about policies. Colour and width are passed in by the caller.

pub mod audit;

pub mod diagnostics;

/// How to draw text for a human.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub color: bool,
    /// Columns to wrap to; `usize::MAX` never wraps.
    pub width: usize,
    /// Unicode box drawing (else ASCII).
    pub unicode: bool,
}

impl Style {
    /// No colour, Unicode, fixed width: what tests snapshot.
    pub fn plain(width: usize) -> Self {
        Style {
            color: false,
            width,
            unicode: true,
        }
    }
}

pub mod explain;

pub mod graph;

pub mod junit;

pub mod objects;

pub mod table;

pub mod terminal;
