//! Placeholder: filled by the explain work.
