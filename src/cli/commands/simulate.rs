//! `policyctl simulate`: what one request, or a sequence of them, would get from the estate's
//! gateways, Authorino and Limitador, computed offline from the generated objects.

use crate::cli::common::{CliError, InputArgs, Outcome, Ui};
use clap::{Args, ValueEnum};
use policyctl::simulate::request::{self, Request};
use policyctl::simulate::{Simulation, Timed, text};
use std::time::Duration;

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum SimulateFormat {
    #[default]
    Text,
    Json,
}

/// Trace a request (or a sequence) through gateway, route, wasm actions, AuthConfig and Limitador.
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    policyctl simulate -f manifests/ -X POST http://api.toystore.com/toy\n  \
    policyctl simulate -f manifests/ --count 6 -X POST http://api.toystore.com/toy\n  \
    policyctl simulate -f manifests/ --identity '{\"username\":\"alice\"}' --count 6 --interval 1s http://api.toystore.com/toy\n  \
    policyctl simulate -f manifests/ -H 'X-Tenant: acme' -o json https://api.example.com/v1/items\n\n\
Authorino is not run: --identity stands for what it would put under auth.identity; without it, a\n\
request that meets an AuthPolicy is refused unless a rule allows anonymous access. The exit code is\n\
0 whatever the verdicts, 2 on trouble.")]
pub struct SimulateArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// The request URL: [http|https://]HOST[:PORT][/PATH][?QUERY].
    #[arg(value_name = "URL")]
    pub url: String,
    /// The request method.
    #[arg(
        short = 'X',
        long = "request",
        value_name = "METHOD",
        default_value = "GET"
    )]
    pub method: String,
    /// A request header, 'Name: value'. Repeatable.
    #[arg(short = 'H', long = "header", value_name = "HEADER")]
    pub headers: Vec<String>,
    /// What Authorino would put under auth.identity: JSON, or @FILE holding it.
    #[arg(long, value_name = "JSON|@FILE")]
    pub identity: Option<String>,
    /// The client's address (source.address, source.port): ADDRESS[:PORT].
    #[arg(long, value_name = "ADDRESS")]
    pub source: Option<String>,
    /// Token usage reported after each response, for TokenRateLimitPolicies.
    #[arg(long, value_name = "N")]
    pub tokens: Option<u64>,
    /// Send the request N times.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    pub count: u32,
    /// Time between two requests of --count (e.g. 500ms, 1s) [default: 0, all at one instant].
    #[arg(long, value_name = "DURATION")]
    pub interval: Option<String>,
    /// The gateway (NAMESPACE/NAME) to send to when several listen on the URL's port.
    #[arg(long, value_name = "NS/NAME")]
    pub gateway: Option<String>,
    /// Output: text (a tree for one request, a line per request for several) or json.
    #[arg(short, long, value_enum, default_value_t = SimulateFormat::Text)]
    pub output: SimulateFormat,
}

/// Print a malformed request argument as diagnostic PCTL5001 (the caller exits 2).
pub fn bad_request(ui: &Ui, msg: String) -> Outcome {
    let d = policyctl::diag::Diagnostic::new(policyctl::diag::Code::BadRequest, msg)
        .help("see `policyctl simulate --help` for the request flags");
    let mut diags = policyctl::diag::Diagnostics::default();
    diags.push(d);
    ui.diagnostics_in(&Default::default(), &diags);
    Outcome::Trouble
}

/// `--identity JSON|@FILE`.
pub fn read_identity(arg: &str) -> Result<serde_json::Value, String> {
    let text = match arg.strip_prefix('@') {
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| format!("--identity @{path}: cannot read: {e}"))?,
        None => arg.to_string(),
    };
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("--identity: not JSON: {e}"))?;
    if !v.is_object() {
        return Err("--identity: expected a JSON object, e.g. {\"username\":\"alice\"}".into());
    }
    Ok(v)
}

pub fn run(a: SimulateArgs, ui: &Ui) -> Result<Outcome, CliError> {
    let (req, interval) = match request_of(&a) {
        Ok(x) => x,
        Err(m) => return Ok(bad_request(ui, m)),
    };
    let loaded = a.input.load()?;
    let analysis = policyctl::pipeline::analyze(
        &loaded.model,
        &loaded.diagnostics,
        &a.input.generate_options(),
        &Default::default(),
    );
    // The 1.5 wasm sha256 placeholder does not matter to a simulation.
    let mut diags = policyctl::diag::Diagnostics::default();
    for d in analysis.diagnostics.iter() {
        if d.code != policyctl::diag::Code::RuntimeValueUnknown {
            diags.push(d.clone());
        }
    }
    ui.diagnostics(&loaded, &diags);
    if analysis.diagnostics.has_trouble() {
        return Ok(Outcome::Trouble);
    }
    let mut sim = match Simulation::new(&analysis.topology, &analysis.generated.objects) {
        Ok(s) => s,
        Err(m) => return Ok(unsupported(ui, m)),
    };
    sim.gateway = a.gateway.clone();
    let seq: Vec<Timed> = (0..a.count)
        .map(|i| Timed {
            at: interval.saturating_mul(i),
            request: req.clone(),
        })
        .collect();
    let traces = sim.run(&seq);
    let out = match a.output {
        SimulateFormat::Json => {
            let mut s = serde_json::to_string_pretty(&serde_json::json!({ "requests": traces }))
                .map_err(|e| CliError::Io(e.to_string()))?;
            s.push('\n');
            s
        }
        SimulateFormat::Text if traces.len() == 1 => text::tree(&traces[0]),
        SimulateFormat::Text => text::lines(&traces),
    };
    ui.out(&out)?;
    std::mem::forget(analysis);
    std::mem::forget(loaded);
    Ok(Outcome::Clean)
}

/// The request and the interval of the flags.
fn request_of(a: &SimulateArgs) -> Result<(Request, Duration), String> {
    let mut req = Request::parse(&a.method, &a.url, &a.headers)?;
    if let Some(id) = &a.identity {
        req.identity = Some(read_identity(id)?);
    }
    if let Some(s) = &a.source {
        req.source = Some(request::parse_source(s)?);
    }
    req.tokens = a.tokens;
    let interval = match &a.interval {
        Some(i) => request::parse_duration(i).map_err(|m| format!("--interval: {m}"))?,
        None => Duration::ZERO,
    };
    Ok((req, interval))
}

/// A generated object the simulation cannot evaluate: diagnostic PCTL5003 (exit 2).
pub fn unsupported(ui: &Ui, msg: String) -> Outcome {
    let d = policyctl::diag::Diagnostic::new(policyctl::diag::Code::SimulationUnsupported, msg);
    let mut diags = policyctl::diag::Diagnostics::default();
    diags.push(d);
    ui.diagnostics_in(&Default::default(), &diags);
    Outcome::Trouble
}
