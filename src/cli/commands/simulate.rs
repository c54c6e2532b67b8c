//! `policyctl simulate`: what one request, or a sequence of them, would get from the estate's
//! gateways, Authorino and Limitador, computed offline from the generated objects.

use crate::cli::common::{CliError, InputArgs, Outcome, Ui};
use clap::{Args, ValueEnum};
use policyctl::SourceMap;
use policyctl::diag::{Code, Diagnostic};
use policyctl::simulate::request::{self, Request};
use policyctl::simulate::{Simulation, Timed, schedule, text};
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
    policyctl simulate -f manifests/ -H 'X-Tenant: acme' -o json https://api.example.com/v1/items\n  \
    policyctl simulate -f manifests/ --requests traffic.yaml\n\n\
Authorino is not run: --identity stands for what it would put under auth.identity; without it, a\n\
request that meets an AuthPolicy is refused unless a rule allows anonymous access. The exit code is\n\
0 whatever the verdicts, 2 on trouble.")]
pub struct SimulateArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// The request URL: [http|https://]HOST[:PORT][/PATH][?QUERY].
    #[arg(value_name = "URL", required_unless_present = "requests")]
    pub url: Option<String>,
    /// Play a timed list of requests from FILE (- for stdin): a YAML list or JSON Lines, each entry
    /// a url and optionally at/after, method, headers, identity, source, tokens, count, interval.
    /// -X, -H, --identity, --source and --tokens apply to every entry that does not say otherwise.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["url", "count", "interval"])]
    pub requests: Option<String>,
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
    let seq = match &a.requests {
        Some(file) => match from_file(&a, file) {
            Ok(seq) => seq,
            Err(Bad::Request(m)) => return Ok(bad_request(ui, m)),
            Err(Bad::File(sources, d)) => {
                let mut diags = policyctl::diag::Diagnostics::default();
                diags.push(*d);
                ui.diagnostics_in(&sources, &diags);
                return Ok(Outcome::Trouble);
            }
        },
        None => match request_of(&a) {
            Ok((req, interval)) => (0..a.count)
                .map(|i| Timed {
                    at: interval.saturating_mul(i),
                    request: req.clone(),
                })
                .collect(),
            Err(m) => return Ok(bad_request(ui, m)),
        },
    };
    let loaded = a.input.load()?;
    let analysis = policyctl::analyze(
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
    let traces = sim.run(&seq);
    let out = match a.output {
        SimulateFormat::Json => {
            // Serialised straight from the traces (no JSON tree built first).
            #[derive(serde::Serialize)]
            struct Out<'a> {
                requests: &'a [policyctl::simulate::Trace],
            }
            let mut s = policyctl::render::terminal::json(
                serde_json::to_string_pretty(&Out { requests: &traces })
                    .map_err(|e| CliError::Io(e.to_string()))?,
            );
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

/// Why the requests could not be read: a malformed flag (PCTL5001), or a diagnostic about the
/// request file, with the file in its source map.
enum Bad {
    Request(String),
    File(SourceMap, Box<Diagnostic>),
}

/// The sequence of `--requests FILE`, with the flags as defaults for every entry.
fn from_file(a: &SimulateArgs, file: &str) -> Result<Vec<Timed>, Bad> {
    let mut defaults = schedule::Defaults {
        method: a.method.clone(),
        headers: a.headers.clone(),
        identity: None,
        source: None,
        tokens: a.tokens,
    };
    if let Some(id) = &a.identity {
        defaults.identity = Some(read_identity(id).map_err(Bad::Request)?);
    }
    if let Some(s) = &a.source {
        defaults.source = Some(request::parse_source(s).map_err(Bad::Request)?);
    }
    // The flags alone must make a request: check them on a placeholder URL.
    Request::parse(&a.method, "http://localhost/", &a.headers).map_err(Bad::Request)?;
    if file == "-" && a.input.filenames.iter().any(|f| f == "-") {
        return Err(Bad::Request(
            "--requests - and -f - cannot both read stdin".into(),
        ));
    }
    let unreadable = |m: String, help: &str| {
        let d = Diagnostic::new(Code::RequestFileUnreadable, m).help(help.to_string());
        Bad::File(SourceMap::default(), Box::new(d))
    };
    let name = if file == "-" { "<stdin>" } else { file };
    let bytes = if file == "-" {
        policyctl::read_stream(std::io::stdin().lock(), schedule::MAX_BYTES)
    } else {
        std::fs::File::open(file)
            .map_err(|e| policyctl::StreamError::Io(e.to_string()))
            .and_then(|f| policyctl::read_stream(f, schedule::MAX_BYTES))
    };
    let bytes = bytes.map_err(|e| match e {
        policyctl::StreamError::Io(e) => unreadable(
            format!("cannot read the request file {name}: {e}"),
            "check the path and its permissions",
        ),
        policyctl::StreamError::TooLarge(max) => unreadable(
            format!(
                "the request file {name} holds more than {} MiB, the most policyctl reads",
                max / (1024 * 1024)
            ),
            "use `count` and `interval` in an entry to repeat a request instead of listing every one",
        ),
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        unreadable(
            format!(
                "the request file {name} is not UTF-8 text (byte {})",
                e.utf8_error().valid_up_to()
            ),
            "save it as UTF-8",
        )
    })?;
    let mut sources = SourceMap::default();
    let id = sources.add(name, text.as_str());
    schedule::parse(id, name, &text, &defaults).map_err(|d| Bad::File(sources, Box::new(d)))
}

/// The request and the interval of the flags.
fn request_of(a: &SimulateArgs) -> Result<(Request, Duration), String> {
    let url = a.url.as_deref().unwrap_or_default();
    let mut req = Request::parse(&a.method, url, &a.headers)?;
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
