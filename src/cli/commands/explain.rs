//! `policyctl explain` (placeholder until its issue lands).

use crate::cli::common::{CliError, InputArgs, Outcome, Ui};
use clap::Args;

/// Placeholder.
#[derive(Args, Debug)]
pub struct ExplainArgs {
    #[command(flatten)]
    pub input: InputArgs,
}

pub fn run(_a: ExplainArgs, _ui: &Ui) -> Result<Outcome, CliError> {
    Err(CliError::Usage("not implemented yet".into()))
}
