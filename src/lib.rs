//! policyctl: compute offline what the Kuadrant operator would do with a set of manifests.
//!
//! The pipeline, one module per stage: [`load`] (files → [`model::Model`] with diagnostics) →
//! `topology` → `resolve` → `generate` → `render` / `diff`. The library never prints, never exits and
//! never reads the environment: the `policyctl` binary is a thin layer over it.
#![deny(clippy::print_stdout, clippy::print_stderr, clippy::dbg_macro)]

pub mod source;

pub mod diag;

pub mod model;

pub mod load;

pub mod topology;

pub mod resolve;

pub mod cel;

pub mod generate;

pub mod pipeline;

pub mod diff;

pub mod outdir;

pub mod render;

pub mod config;

pub mod simulate;
pub mod suppress;
pub mod watch;

mod par;
