//! The `policyctl` binary: parse arguments, run one command, map the outcome to an exit code.
//! Exit codes: 0 clean, 1 findings (error diagnostics, differences, stale output), 2 trouble.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::main()
}
