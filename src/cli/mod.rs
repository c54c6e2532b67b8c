//! The command-line layer: arguments, reading stdin, colour and terminal decisions, writing to stdout
//! and stderr, exit codes. Contains no pipeline logic: every command calls the library and prints.

mod commands;
mod common;

use clap::{CommandFactory, Parser, Subcommand};
use std::process::ExitCode;

pub use common::Ui;

/// Compute offline what the Kuadrant operator would do with your manifests.
#[derive(Parser, Debug)]
#[command(name = "policyctl", version, long_version = commands::version::LONG, about, long_about = None, propagate_version = true)]
#[command(after_help = "Examples:\n  \
    policyctl compute -f manifests/\n  \
    policyctl status -f manifests/\n  \
    policyctl explain -f manifests/ httproute/toystore/toystore\n  \
    policyctl graph -f manifests/ | dot -Tsvg > topology.svg\n  \
    policyctl diff -f manifests/ --base ../main/manifests -o markdown\n  \
    policyctl audit -f manifests/ --require auth,ratelimit\n  \
    policyctl watch -f manifests/ --out-dir generated/\n\n\
    Settings: .policyctl.yaml in the current directory or the nearest parent, or --config FILE.\n\
    Exit codes: 0 clean, 1 findings (errors, differences, stale output), 2 trouble.")]
pub struct Cli {
    #[command(flatten)]
    pub ui: common::UiArgs,
    /// Settings file [default: .policyctl.yaml in the current directory or the nearest parent].
    /// Flags and POLICYCTL_* variables override its values.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<std::path::PathBuf>,
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
    /// Audit coverage: paths without authentication or rate limiting, limits that never decide,
    /// shared counters; with --base, what a change takes away.
    Audit(commands::audit::AuditArgs),
    /// Trace a request through gateway, route, wasm actions, AuthConfig and Limitador.
    Simulate(commands::simulate::SimulateArgs),
    /// Run test cases (requests and expected verdicts) against the simulated estate.
    Test(commands::test::TestArgs),
    /// Watch the input files: recompute on every change and print what changed (objects, status,
    /// findings); keep --out-dir in sync.
    Watch(commands::watch::WatchArgs),
    /// Print shell completions.
    Completions(commands::completions::CompletionsArgs),
    /// Print policyctl's version, the operator releases it emulates and what they ship.
    Version(commands::version::VersionArgs),
}

impl Command {
    /// The manifest flags of the command (every command but `completions`).
    fn input_mut(&mut self) -> Option<&mut common::InputArgs> {
        match self {
            Command::Compute(a) => Some(&mut a.input),
            Command::Diff(a) => Some(&mut a.input),
            Command::Graph(a) => Some(&mut a.input),
            Command::Status(a) => Some(&mut a.input),
            Command::Explain(a) => Some(&mut a.input),
            Command::Lint(a) => Some(&mut a.input),
            Command::Audit(a) => Some(&mut a.input),
            Command::Simulate(a) => Some(&mut a.input),
            Command::Test(a) => Some(&mut a.input),
            Command::Watch(a) => Some(&mut a.input),
            Command::Completions(_) | Command::Version(_) => None,
        }
    }

    /// Whether the command runs the pipeline ([`policyctl::run`]) and reports its findings (in a
    /// format of its own for most: text, JSON, SARIF, ...): the settings file's findings join
    /// them, silenced and counted as the run's.
    fn reports_findings(&self) -> bool {
        matches!(
            self,
            Command::Compute(_)
                | Command::Diff(_)
                | Command::Graph(_)
                | Command::Status(_)
                | Command::Explain(_)
                | Command::Lint(_)
                | Command::Simulate(_)
                | Command::Test(_)
                | Command::Audit(_)
        )
    }
}

/// Read the settings file (`--config`, else the nearest `.policyctl.yaml`) into the command's
/// flags, and print its findings. `Err` when the file cannot be used (exit 2).
fn settings(cli: &mut Cli, ui: &Ui) -> Result<(), ()> {
    let reports_findings = cli.command.reports_findings();
    let Some(input) = cli.command.input_mut() else {
        return Ok(());
    };
    let loaded = match &cli.config {
        Some(path) => policyctl::config::read(path),
        None => {
            let found = std::env::current_dir()
                .ok()
                .and_then(|d| policyctl::config::find(&d));
            match found {
                Some(path) => policyctl::config::read_found(&path),
                None => {
                    if ui.verbose {
                        ui.err("settings: no .policyctl.yaml in the current folder or above it up to the repository root\n");
                    }
                    return Ok(());
                }
            }
        }
    };
    if ui.verbose
        && let Some(path) = &loaded.settings.path
    {
        ui.err(&format!("settings: {}\n", path.display()));
    }
    if loaded.diagnostics.has_trouble() {
        ui.diagnostics_in(&loaded.sources, &loaded.diagnostics);
        return Err(());
    }
    // The file's other findings are the command's: reported in its format and counted by its
    // --fail-on; the commands without a report of findings print them here.
    if reports_findings {
        input.settings_diagnostics = loaded.diagnostics;
    } else {
        ui.diagnostics_in(&loaded.sources, &loaded.diagnostics);
    }
    input.settings = loaded.settings;
    input.settings_sources = loaded.sources;
    Ok(())
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

/// The command renamed for kubectl: the examples in every help text say `kubectl kuadrant-policy`.
fn as_plugin(cmd: clap::Command, name: &str) -> clap::Command {
    let cmd = match cmd.get_after_help().map(|h| h.to_string()) {
        Some(h) => cmd.after_help(h.replace("policyctl ", &format!("{name} "))),
        None => cmd,
    };
    cmd.mut_subcommands(|sub| as_plugin(sub, name))
}

pub fn main() -> ExitCode {
    let mut cmd = Cli::command();
    // Help follows the diagnostics' rule (`common::text_width`): wrapped to a terminal, whole when
    // written to a pipe or a file, unless COLUMNS is exported (clap reads it then).
    if !std::io::IsTerminal::is_terminal(&std::io::stdout())
        && std::env::var_os("COLUMNS").is_none()
    {
        cmd = cmd.term_width(0);
    }
    let name = bin_name();
    if name != "policyctl" {
        cmd = as_plugin(cmd.bin_name(&name), &name);
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
    let mut cli = cli;
    let ui = Ui::new(&cli.ui);
    if settings(&mut cli, &ui).is_err() {
        return ExitCode::from(2);
    }
    let result = match cli.command {
        Command::Compute(a) => commands::compute::run(a, &ui),
        Command::Diff(a) => commands::diff::run(a, &ui),
        Command::Graph(a) => commands::graph::run(a, &ui),
        Command::Status(a) => commands::status::run(a, &ui),
        Command::Explain(a) => commands::explain::run(a, &ui),
        Command::Lint(a) => commands::lint::run(a, &ui),
        Command::Audit(a) => commands::audit::run(a, &ui),
        Command::Simulate(a) => commands::simulate::run(a, &ui),
        Command::Test(a) => commands::test::run(a, &ui),
        Command::Watch(a) => commands::watch::run(a, &ui),
        Command::Completions(a) => commands::completions::run(a, &ui),
        Command::Version(a) => commands::version::run(a, &ui),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn every_command_shows_an_example() {
        let cmd = Cli::command();
        let top = cmd
            .get_after_help()
            .map(|h| h.to_string())
            .unwrap_or_default();
        assert!(top.contains("Examples:\n  policyctl "), "top-level help");
        for sub in cmd.get_subcommands() {
            let help = sub
                .get_after_help()
                .map(|h| h.to_string())
                .unwrap_or_default();
            assert!(
                help.contains("Example") && help.contains("policyctl "),
                "`policyctl {} --help` shows no example",
                sub.get_name()
            );
        }
    }

    #[test]
    fn plugin_help_names_kubectl() {
        let cmd = as_plugin(Cli::command(), "kubectl kuadrant-policy");
        let compute = cmd.find_subcommand("compute").unwrap();
        let help = compute.get_after_help().unwrap().to_string();
        assert!(help.contains("kubectl kuadrant-policy compute -f manifests/"));
        assert!(!help.contains("  policyctl "));
    }
}
