//! The `policyctl` binary: parse arguments, run one command, map the outcome to an exit code.
//! Exit codes: 0 clean, 1 findings (error diagnostics, differences, stale output), 2 trouble.

mod cli;

use std::process::ExitCode;

// mimalloc: less memory kept across threads and faster small allocations than the system's
// (figures in Cargo.toml and tests/benches/README.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    cli::main()
}
