//! `policyctl version` (and `--version`): policyctl's version, the operator releases it emulates and
//! the data-plane components those releases ship.
//!
//! Sources, read at the tags named:
//! - wasm-shim image: kuadrant-operator v1.4.6 / v1.5.2 `config/manager/manager.yaml`
//!   (`RELATED_IMAGE_WASMSHIM`), the same image as `policyctl::WASM_IMAGE_1_4` / `_1_5`.
//! - limitador-operator and authorino-operator: kuadrant-operator v1.4.6 / v1.5.2
//!   `bundle/metadata/dependencies.yaml` (the OLM dependencies; also the `?ref=` of
//!   `config/dependencies/{limitador,authorino}/kustomization.yaml`). The Limitador server image
//!   is chosen by limitador-operator, not by the Kuadrant operator.

use crate::cli::common::{CliError, Outcome, Ui};
use clap::Args;

/// The text after `policyctl ` for `--version` and `policyctl version`.
pub const LONG: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    "\n",
    "emulated Kuadrant operator releases (--kuadrant-version):\n",
    "  1.4  kuadrant-operator v1.4.6: wasm-shim quay.io/kuadrant/wasm-shim:v0.12.3,\n",
    "       limitador-operator v0.17.3 (deploys Limitador), authorino-operator v0.23.4\n",
    "  1.5  kuadrant-operator v1.5.2: wasm-shim quay.io/kuadrant/wasm-shim:v0.14.1,\n",
    "       limitador-operator v0.18.3 (deploys Limitador), authorino-operator v0.25.2",
);

/// Print the version, the emulated operator releases and what they ship.
#[derive(Args, Debug)]
#[command(after_help = "Example:\n  policyctl version")]
pub struct VersionArgs {}

pub fn run(_: VersionArgs, ui: &Ui) -> Result<Outcome, CliError> {
    ui.out(&format!("policyctl {LONG}\n"))?;
    Ok(Outcome::Clean)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The images named here are the ones `compute` writes.
    #[test]
    fn names_the_images_compute_writes() {
        assert!(LONG.contains(policyctl::WASM_IMAGE_1_4));
        assert!(LONG.contains(policyctl::WASM_IMAGE_1_5));
        assert!(LONG.starts_with(env!("CARGO_PKG_VERSION")));
    }
}
