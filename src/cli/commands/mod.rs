//! One module per subcommand: its clap arguments and its `run`.

pub mod audit;
pub mod completions;
pub mod compute;
pub mod diff;
pub mod explain;
pub mod graph;
pub mod lint;
pub mod simulate;
pub mod status;
pub mod test;
pub mod version;
pub mod watch;
