//! Placeholder: filled by the table work.
