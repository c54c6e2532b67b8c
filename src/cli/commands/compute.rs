//! `policyctl compute`: the objects the operator would apply.

use crate::cli::common::{CliError, FailOn, InputArgs, Outcome, Ui, outcome};
use clap::{Args, ValueEnum};
use policyctl::diag::Diagnostics;
use policyctl::generate::{self, Family, GenerateOptions};
use policyctl::render;
use policyctl::topology::Topology;
use std::collections::BTreeSet;

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum ComputeFormat {
    #[default]
    Yaml,
    Json,
}

/// Print the objects the operator would generate.
#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  policyctl compute -f manifests/\n  policyctl compute -f manifests/ --kuadrant-version 1.5 --only wasm,limitador -o json\n  policyctl compute -f manifests/ --gateway gateway-system/external"
)]
pub struct ComputeArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format: yaml (multi-document, kubectl style) or json (a v1 List).
    #[arg(short, long, value_enum, default_value_t = ComputeFormat::Yaml)]
    pub output: ComputeFormat,
    /// Only these object families (comma-separated): wasm, envoyfilter, limitador, authconfig, envoygateway.
    #[arg(long, value_delimiter = ',', value_name = "FAMILY")]
    pub only: Vec<String>,
    /// Only paths through this gateway.
    #[arg(long, value_name = "NS/NAME")]
    pub gateway: Option<String>,
    /// sha256 of the wasm module the 1.5 operator serves (written into the wasm EnvoyFilter).
    #[arg(long, value_name = "HEX", default_value = generate::WASM_SHA256_PLACEHOLDER)]
    pub wasm_sha256: String,
    /// wasm-shim image (default: the image of the emulated operator release).
    #[arg(long, value_name = "URL")]
    pub wasm_image: Option<String>,
    /// Namespace used when the input has no Kuadrant object.
    #[arg(long, value_name = "NS", default_value = generate::DEFAULT_KUADRANT_NAMESPACE)]
    pub kuadrant_namespace: String,
    /// GatewayClass controller names handled as Istio (comma-separated; the default is appended).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub istio_controller_names: Vec<String>,
    /// GatewayClass controller names handled as Envoy Gateway (comma-separated; the default is appended).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub envoy_gateway_controller_names: Vec<String>,
    /// The lowest severity that makes the exit code 1.
    #[arg(long, value_enum, default_value_t = FailOn::Error)]
    pub fail_on: FailOn,
}

pub fn run(a: ComputeArgs, ui: &Ui) -> Result<Outcome, CliError> {
    let mut only = BTreeSet::new();
    for f in &a.only {
        let f = f.trim();
        only.insert(Family::parse(f).ok_or_else(|| {
            CliError::Usage(format!(
                "--only: unknown family {f:?} (expected wasm, envoyfilter, limitador, authconfig, envoygateway)"
            ))
        })?);
    }
    let gateway = match &a.gateway {
        None => None,
        Some(g) => match g.split_once('/') {
            Some((ns, name)) if !ns.is_empty() && !name.is_empty() => {
                Some((ns.to_string(), name.to_string()))
            }
            _ => {
                return Err(CliError::Usage(format!(
                    "--gateway must be NAMESPACE/NAME, got {g:?}"
                )));
            }
        },
    };
    let sha_ok = a.wasm_sha256.is_empty()
        || (a.wasm_sha256.len() == 64 && a.wasm_sha256.bytes().all(|b| b.is_ascii_hexdigit()));
    if !sha_ok {
        return Err(CliError::Usage(
            "--wasm-sha256 must be 64 hexadecimal characters".into(),
        ));
    }
    let version = a.input.version();
    let loaded = a.input.load()?;
    let opts = GenerateOptions {
        version,
        kuadrant_namespace: a.kuadrant_namespace.clone(),
        wasm_image: a.wasm_image.clone(),
        wasm_sha256: a.wasm_sha256.to_lowercase(),
        istio_controllers: generate::controller_names(
            &a.istio_controller_names,
            generate::ISTIO_CONTROLLER,
        ),
        envoy_gateway_controllers: generate::controller_names(
            &a.envoy_gateway_controller_names,
            generate::ENVOY_GATEWAY_CONTROLLER,
        ),
        only: (!only.is_empty()).then_some(only),
        gateway,
        ..GenerateOptions::default()
    };
    let topology = Topology::build(&loaded.model, version);
    let effective = policyctl::resolve::effective(&topology);
    let generated = generate::generate(&topology, &effective, &opts);

    let mut diags: Diagnostics = loaded.diagnostics.clone();
    for d in generated.diagnostics {
        diags.push(d);
    }
    diags.sort();
    ui.diagnostics(&loaded, &diags);
    let text = match a.output {
        ComputeFormat::Yaml => render::objects::yaml(&generated.objects).map_err(CliError::Io)?,
        ComputeFormat::Json => render::objects::json_list(&generated.objects),
    };
    ui.out(&text)?;
    Ok(outcome(&diags, a.fail_on))
}
