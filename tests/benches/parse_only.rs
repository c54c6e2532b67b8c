//! `parse_only FILE…`: read and parse every document of the inputs into the loader's spanned tree, with
//! its YAML crate, and nothing else: the floor `policyctl compute` is compared with (tests/benches/run.sh).

use policyctl::{Input, parse_only};

// The allocator `policyctl` itself uses, so the floor and the CLI are measured alike.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let inputs: Vec<Input> = std::env::args_os()
        .skip(1)
        .map(|p| Input::Path(p.into()))
        .collect();
    if inputs.is_empty() {
        eprintln!("usage: parse_only FILE_OR_DIR...");
        std::process::exit(2);
    }
    let docs = parse_only(&inputs);
    eprintln!("parse_only: {docs} documents parsed");
}
