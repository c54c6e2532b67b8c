//! Placeholder: filled by the objects work.
