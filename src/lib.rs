//! policyctl: compute offline what the Kuadrant operator would do with a set of manifests.
//!
//! The pipeline, one module per stage: `load` (files → [`Model`] with diagnostics) → `topology` →
//! `resolve` → `generate` → [`render`] / [`diff`]. The library never prints, never exits and never
//! reads the environment: the `policyctl` binary is a thin layer over it.
//!
//! The public API is what this file exports (see `docs/architecture.md`, "Public API"): the items of
//! each stage a caller needs, re-exported below, and eight modules that are API as a whole. Everything
//! else is crate-private (`unreachable_pub` keeps it so).
#![deny(clippy::print_stdout, clippy::print_stderr, clippy::dbg_macro)]
#![warn(unreachable_pub)]

mod analysis;
mod cel;
mod generate;
mod gofmt;
mod gounicode;
mod load;
mod model;
mod par;
mod pipeline;
mod resolve;
mod source;
mod topology;
mod watch;

pub mod audit;
pub mod config;
pub mod diag;
pub mod diff;
pub mod outdir;
pub mod render;
pub mod simulate;
pub mod suppress;

// Sources: the text of every input file, and positions in it.
pub use source::{SourceId, SourceMap, Span};

// Loading: files, folders and streams → a [`Model`] with diagnostics.
pub use load::validate::dns1123_label;
pub use load::{
    FieldValidation, Input, LoadOptions, Loaded, MAX_ACTION_SETS, MAX_DOCUMENTS, MAX_FILE_BYTES,
    MAX_INPUT_BYTES, MAX_PATHS, MAX_STREAM_BYTES, StreamError, line_feeds, load, object_value,
    parse_only, read_bounded_file, read_stream, values_in_windows, well_known_gateway_classes,
};

// The model: the objects read, and the emulated operator version.
pub use model::{
    KuadrantVersion, Meta, Model, PathMatchType, PolicyKind, RuleMatches, TargetRef, is_sha256_hex,
};

// Topology: the Gateway API and policy graph, and its lint.
pub use topology::lint::lint;
pub use topology::{EdgeKind, Node, Topology};

// Resolve: effective policies, status conditions, `explain`, and the policy changes between two states.
pub use resolve::changes::{Side, policy_changes};
pub use resolve::effective;
pub use resolve::explain::{DecidedBy, ExplainError, Explanation, explain, parse_target};
pub use resolve::extension::ExtensionStatus;
pub use resolve::merge::LossReason;
pub use resolve::routes::{
    GatewayConditions, ListenerConditions, gateway_conditions, route_conditions,
    with_predicted_gateway_status, with_predicted_parents,
};
pub use resolve::status::{
    Condition, PolicyStatus, StatusOptions, diagnostics as status_diagnostics, status,
};

// Generate: the data-plane objects the operator would write, and the names and defaults it uses.
pub use generate::names::{auth_config_name, limit_identifier};
pub use generate::object::{Object, values as object_values};
pub use generate::{
    DEFAULT_KUADRANT_NAMESPACE, ENVOY_GATEWAY_CONTROLLER, Family, GenerateOptions, Generated,
    ISTIO_CONTROLLER, WASM_IMAGE_1_4, WASM_IMAGE_1_5, WASM_SHA256_PLACEHOLDER, controller_names,
    generate, sort_keys,
};

// CEL: the operator's validation of predicate expressions.
pub use cel::{CelEnv, validate};

// The pipeline: every stage after loading, in order (`analysis`); a whole run with the audit and
// suppression; the objects `status` predicts.
pub use analysis::{Analysis, Mapped, analyze, map};
pub use pipeline::{
    Apart, Audited, Depth, Run, RunOptions, output_diagnostics, predicted_extension_objects,
    predicted_objects, run,
};

// Watch: the state kept between two runs of `watch`, and what changed.
pub use watch::{
    CycleReport, FileChange, Snapshot, StatusChange, Watch, WatchOptions, fresh_snapshot,
};
