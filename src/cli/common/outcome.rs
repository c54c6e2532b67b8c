//! What a run ends with: the outcome and exit code, `--fail-on`, and the CLI's errors.

use clap::ValueEnum;
use policyctl::config;
use policyctl::diag::{Diagnostics, Severity};
use std::process::ExitCode;

/// What a command found; mapped to the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Clean,
    Findings,
    Trouble,
}

impl Outcome {
    pub fn exit_code(self) -> ExitCode {
        match self {
            Outcome::Clean => ExitCode::SUCCESS,
            Outcome::Findings => ExitCode::from(1),
            Outcome::Trouble => ExitCode::from(2),
        }
    }

    pub fn worst(self, other: Outcome) -> Outcome {
        use Outcome::*;
        match (self, other) {
            (Trouble, _) | (_, Trouble) => Trouble,
            (Findings, _) | (_, Findings) => Findings,
            _ => Clean,
        }
    }
}

/// `--fail-on`: the lowest severity that makes the exit code 1.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum FailOn {
    #[default]
    Error,
    Warning,
    Never,
}

impl From<config::FailOn> for FailOn {
    fn from(f: config::FailOn) -> Self {
        match f {
            config::FailOn::Error => FailOn::Error,
            config::FailOn::Warning => FailOn::Warning,
            config::FailOn::Never => FailOn::Never,
        }
    }
}

/// Exit outcome of a set of diagnostics.
pub fn outcome(diags: &Diagnostics, fail_on: FailOn) -> Outcome {
    if diags.has_trouble() {
        return Outcome::Trouble;
    }
    let failing = match fail_on {
        FailOn::Error => diags.has_errors(),
        FailOn::Warning => diags
            .iter()
            .any(|d| matches!(d.severity, Severity::Error | Severity::Warning)),
        FailOn::Never => false,
    };
    if failing {
        Outcome::Findings
    } else {
        Outcome::Clean
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Io(String),
    #[error("broken pipe")]
    BrokenPipe,
}

impl CliError {
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, CliError::BrokenPipe)
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            CliError::BrokenPipe
        } else {
            CliError::Io(e.to_string())
        }
    }
}

/// A streamed writer's failure: a closed pipe stays [`CliError::BrokenPipe`].
impl From<policyctl::render::objects::WriteError> for CliError {
    fn from(e: policyctl::render::objects::WriteError) -> Self {
        match e {
            policyctl::render::objects::WriteError::Io(e) => CliError::from(e),
            policyctl::render::objects::WriteError::Render(m) => CliError::Io(m),
        }
    }
}
