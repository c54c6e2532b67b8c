//! The command-line layer: arguments, reading stdin, colour and terminal decisions, writing to stdout
//! and stderr, exit codes. Contains no pipeline logic: every command calls the library and prints.

mod commands;
mod common;

use clap::{CommandFactory, Parser, Subcommand};
use std::process::ExitCode;

pub use common::Ui;

/// Compute offline what the Kuadrant operator would do with your manifests.
#[derive(Parser, Debug)]
#[command(name = "policyctl", version, about, long_about = None, propagate_version = true)]
#[command(
    after_help = "Exit codes: 0 clean, 1 findings (errors, differences, stale output), 2 trouble."
)]
pub struct Cli {
    #[command(flatten)]
    pub ui: common::UiArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print the objects the operator would generate (WasmPlugin/EnvoyFilter, Limitador, AuthConfigs, ...).
    Compute(commands::compute::ComputeArgs),
    /// Show what would change: generated objects against current ones, or between two input trees.
    Diff(commands::diff::DiffArgs),
    /// Draw the topology (DOT, Mermaid or JSON), policies included.
    Graph(commands::graph::GraphArgs),
    /// Predict every policy's Accepted and Enforced conditions.
    Status(commands::status::StatusArgs),
    /// Explain, for each path through a target, which policy rule won and why.
    Explain(commands::explain::ExplainArgs),
    /// Report every diagnostic: schema and CEL validation, references, merge outcomes.
    Lint(commands::lint::LintArgs),
    /// Print shell completions.
    Completions(commands::completions::CompletionsArgs),
}

/// The name the binary was invoked as (`kubectl-kuadrant_policy` when used as a kubectl plugin).
fn bin_name() -> String {
    std::env::args_os()
        .next()
        .and_then(|a| {
            std::path::Path::new(&a)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
        })
        .filter(|n| n.starts_with("kubectl-"))
        .map(|n| n.trim_start_matches("kubectl-").replace('_', "-"))
        .map(|n| format!("kubectl {n}"))
        .unwrap_or_else(|| "policyctl".into())
}

pub fn main() -> ExitCode {
    let mut cmd = Cli::command();
    let name = bin_name();
    if name != "policyctl" {
        cmd = cmd.bin_name(name);
    }
    let matches = match cmd.try_get_matches() {
        Ok(m) => m,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let cli = match <Cli as clap::FromArgMatches>::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(2);
        }
    };
    let ui = Ui::new(&cli.ui);
    let result = match cli.command {
        Command::Compute(a) => commands::compute::run(a, &ui),
        Command::Diff(a) => commands::diff::run(a, &ui),
        Command::Graph(a) => commands::graph::run(a, &ui),
        Command::Status(a) => commands::status::run(a, &ui),
        Command::Explain(a) => commands::explain::run(a, &ui),
        Command::Lint(a) => commands::lint::run(a, &ui),
        Command::Completions(a) => commands::completions::run(a, &ui),
    };
    match result {
        Ok(o) => o.exit_code(),
        Err(e) => {
            if e.is_broken_pipe() {
                return ExitCode::SUCCESS;
            }
            ui.error(&e.to_string());
            ExitCode::from(2)
        }
    }
}
