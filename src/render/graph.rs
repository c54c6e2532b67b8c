//! Placeholder: filled by the graph work.
