//! One module per subcommand: its clap arguments and its `run`.

pub mod completions;
pub mod lint;
