//! The whole integration suite as one test binary (`autotests = false` in Cargo.toml): one link of the
//! library and its dependencies instead of one per file, which keeps a clean `cargo test` fast and its
//! target folder small. Each module covers one surface; `cargo test --test tests <module>::` runs one.

/// Shared helpers: the binary under test with a clean environment, fixtures, pipeline shortcuts.
mod common;

/// The GitHub Action's steps run against fakes: release download, build cache, sticky comment, forks.
mod action;
/// `audit`: coverage, findings and `--base` over the example, the guides and `testdata/audit`.
mod audit;
/// Every run is bounded: evaluation cost, requests, file sizes, finding sizes, report characters,
/// the out-dir lock, `watch` after its root is removed or its folder tampered with (issue 32).
mod bounds;
/// The CEL conformance corpus through the checker, against cel-go's recorded verdicts.
mod cel_corpus;
/// The binary's contract: exit codes, stdin, output formats.
mod cli;
/// The committed shell completions match what the CLI prints.
mod completions;
/// The `.policyctl.yaml` settings file, flags and `POLICYCTL_*` variables.
mod config;
/// Schema conformance: lint rejects exactly what the upstream CRD schemas reject (an independent
/// oracle's verdicts).
mod conformance;
/// What the data plane and the status updaters do with the generated objects.
mod dataplane;
/// `diff` and `compute --out-dir/--check`, the CI gate.
mod diff;
/// The GitHub Action, Dockerfile, krew manifest and the README's CI snippets.
mod distribution;
/// The README and CHANGELOG stay in step with the code (console examples are run).
mod docs;
/// `kubectl get -o yaml|json` dumps load like the same objects one per document.
mod dumps;
/// `explain` trees over the scenario fixtures.
mod explain;
/// Extension policies (PlanPolicy, TelemetryPolicy, OIDCPolicy, ThreatPolicy) at both versions.
mod extensions;
/// A new user's first commands and CI: quiet defaults, copyable text, reports CI ingests (issue 35).
mod first_use;
/// Diagnostics in every output format (insta snapshots).
mod formats;
/// The fuzz targets' bodies over their committed seeds (the targets themselves need nightly).
mod fuzz_seeds;
/// The golden cases: generated objects compared field by field with operator-derived values.
mod golden;
/// The topology graph and the topology lint.
mod graph;
/// Estates shaped like Kuadrant's user guides.
mod guides;
/// The hostile fixtures and the fuzzing findings.
mod hostile_inputs;
/// Streams, FIFOs, devices and where settings come from.
mod inputs;
/// Loading and validation against the invalid fixtures.
mod load;
/// `--out-dir` and `diff` against a hostile checkout.
mod outdir_safety;
/// Certificates and DNSRecords of TLSPolicies and DNSPolicies.
mod policy_objects;
/// Property tests: determinism, round trips, random valid estates.
mod properties;
/// `simulate` against guide-shaped estates.
mod simulate;
/// Property test of `simulate`'s action-set selection and limits.
mod simulate_properties;
/// `status` over the scenario fixtures.
mod status;
/// `watch`: the incremental state against a fresh compute after random edits, and the binary's cycles.
mod watch;
