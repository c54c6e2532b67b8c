//! `policyctl completions SHELL`.

use crate::cli::common::{CliError, Outcome, Ui};
use clap::{Args, CommandFactory};
use clap_complete::Shell;

/// Print shell completions (the files in completions/ are this output).
#[derive(Args, Debug)]
#[command(after_help = "Example:\n  policyctl completions bash > /etc/bash_completion.d/policyctl")]
pub struct CompletionsArgs {
    /// bash, zsh, fish, powershell or elvish.
    pub shell: Shell,
}

pub fn run(a: CompletionsArgs, ui: &Ui) -> Result<Outcome, CliError> {
    let mut cmd = crate::cli::Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, "policyctl", &mut buf);
    ui.out(&String::from_utf8_lossy(&buf))?;
    Ok(Outcome::Clean)
}
