//! `policyctl simulate`: what one request, or a sequence of them, would get from the estate's
//! gateways, Authorino and Limitador, computed offline from the generated objects.

use crate::cli::common::{CliError, InputArgs, Outcome, Ui};
use clap::{Args, ValueEnum};
use policyctl::SourceMap;
use policyctl::diag::{Code, Diagnostic};
use policyctl::simulate::cost::{self, Exceeded};
use policyctl::simulate::request::{self, Request};
use policyctl::simulate::{Plan, Planned, Simulation, Trace, schedule, text};
use std::io::Write;
use std::time::Duration;

/// The budgets of a run of `simulate` or `test`.
#[derive(Args, Debug, Clone)]
pub struct BudgetArgs {
    /// The most one evaluation of a CEL expression or a Rego policy may cost (cel-go's cost units;
    /// regorus's work units for Rego) before the run stops with PCTL5013.
    #[arg(long, value_name = "N", default_value_t = cost::DEFAULT_EXPRESSION_LIMIT)]
    pub cel_cost_limit: u64,
    /// The most every evaluation of one simulated request may cost together before the run stops
    /// with PCTL5013.
    #[arg(long, value_name = "N", default_value_t = cost::DEFAULT_REQUEST_LIMIT)]
    pub request_cost_limit: u64,
    /// The most requests one run simulates (counts included); more is PCTL5014.
    #[arg(long, value_name = "N", default_value_t = MAX_REQUESTS)]
    pub max_requests: u64,
}

/// The default of `--max-requests`.
pub const MAX_REQUESTS: u64 = 10_000_000;

impl BudgetArgs {
    pub fn limits(&self) -> cost::Limits {
        cost::Limits {
            expression: self.cel_cost_limit,
            request: self.request_cost_limit,
        }
    }

    /// PCTL5014 when `n` requests are more than `--max-requests`.
    pub fn check(&self, n: u64, ui: &Ui) -> Option<Outcome> {
        if n <= self.max_requests {
            return None;
        }
        let d = Diagnostic::new(
            Code::RequestBudget,
            format!(
                "the run asks for {n} requests, more than its budget of {} (--max-requests)",
                self.max_requests
            ),
        )
        .help("simulate fewer requests, or raise the budget with --max-requests N");
        Some(ui.trouble(d))
    }
}

/// PCTL5013: request `number` (from 1) exceeded an evaluation budget; the run stops.
pub fn over_budget(ui: &Ui, number: u64, e: &Exceeded) -> Outcome {
    let d = Diagnostic::new(
        Code::EvaluationBudget,
        format!("request {number}: {}", e.message()),
    )
    .help(format!(
        "its verdict is unknown; raise the budget with {} N if the expression is meant to be that costly",
        e.flag()
    ));
    ui.trouble(d)
}

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
Authorino is simulated on the generated AuthConfigs: API keys are looked up in the input's Secrets,\n\
patterns, CEL and inline Rego are evaluated. What needs a live server (a TokenReview, a\n\
SubjectAccessReview, an external policy, metadata) makes the request undecided, unless\n\
--identity or --assume states its outcome. The exit code is 0 whatever the verdicts, 2 on trouble.")]
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
    /// Token usage reported after each response, for TokenRateLimitPolicies: the response's
    /// usage.total_tokens (without it, or --response-body, token counters become undecided).
    #[arg(long, value_name = "N", conflicts_with = "response_body")]
    pub tokens: Option<u64>,
    /// The upstream response's JSON body, which responseBodyJSON reads (token usage): JSON, or
    /// @FILE holding it.
    #[arg(long, value_name = "JSON|@FILE")]
    pub response_body: Option<String>,
    /// State the outcome of a rule that needs a live server: SECTION/NAME=VALUE, SECTION one of
    /// authentication, authorization, metadata; VALUE true, false or JSON (an identity, a
    /// metadata object). Repeatable.
    #[arg(long, value_name = "SECTION/NAME=VALUE")]
    pub assume: Vec<String>,
    /// A JWKS document (JSON, {"keys": [...]}) JWT signatures are verified against, for the
    /// issuerUrl or jwksUrl URL names, or for every JWT rule without one of its own. Without it a
    /// JWT's claims are decoded and its signature is not verified. Repeatable.
    #[arg(long, value_name = "[URL=]FILE")]
    pub jwks: Vec<String>,
    /// As curl: send a request for HOST1:PORT1 to HOST2:PORT2 (empty parts: any host or port, or
    /// unchanged), e.g. localhost:9081::80 for a port-forward to the gateway's port 80. Repeatable.
    #[arg(long, value_name = "HOST1:PORT1:HOST2:PORT2")]
    pub connect_to: Vec<String>,
    /// Send the request N times (at most --max-requests).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub count: u64,
    /// Time between two requests of --count (e.g. 500ms, 1s) [default: 0, all at one instant].
    #[arg(long, value_name = "DURATION")]
    pub interval: Option<String>,
    /// The gateway (NAMESPACE/NAME) to send to when several listen on the URL's port.
    #[arg(long, value_name = "NS/NAME")]
    pub gateway: Option<String>,
    /// Output: text (a tree for one request, a line per request for several) or json.
    #[arg(short, long, value_enum, default_value_t = SimulateFormat::Text)]
    pub output: SimulateFormat,
    #[command(flatten)]
    pub budget: BudgetArgs,
}

/// Print a malformed request argument as diagnostic PCTL5001 (the caller exits 2).
pub fn bad_request(ui: &Ui, msg: String) -> Outcome {
    let d = policyctl::diag::Diagnostic::new(policyctl::diag::Code::BadRequest, msg)
        .help("see `policyctl simulate --help` for the request flags");
    ui.trouble(d)
}

/// `--identity JSON|@FILE`.
pub fn read_identity(arg: &str) -> Result<serde_json::Value, String> {
    let v = read_json("--identity", arg)?;
    if !v.is_object() {
        return Err("--identity: expected a JSON object, e.g. {\"username\":\"alice\"}".into());
    }
    Ok(v)
}

/// A flag's `JSON|@FILE` value (at most 64 MiB).
fn read_json(flag: &str, arg: &str) -> Result<serde_json::Value, String> {
    let text = match arg.strip_prefix('@') {
        Some(path) => {
            let bytes =
                policyctl::read_bounded_file(std::path::Path::new(path), schedule::MAX_BYTES)
                    .map_err(|e| match e {
                        policyctl::StreamError::Io(e) => {
                            format!("{flag} @{path}: cannot read: {e}")
                        }
                        policyctl::StreamError::TooLarge(_) => {
                            format!("{flag} @{path}: more than 64 MiB")
                        }
                    })?;
            String::from_utf8(bytes).map_err(|_| format!("{flag} @{path}: not UTF-8 text"))?
        }
        None => arg.to_string(),
    };
    serde_json::from_str(&text).map_err(|e| format!("{flag}: not JSON: {e}"))
}

/// `--jwks [URL=]FILE`, each read and checked to be a JWK set.
pub fn read_jwks(args: &[String]) -> Result<Vec<(Option<String>, serde_json::Value)>, String> {
    let mut out = Vec::new();
    for a in args {
        // A URL has `://`; a file name may hold `=`: only `URL=FILE` with a URL splits.
        let (url, file) = match a.split_once('=') {
            Some((u, f)) if u.contains("://") => (Some(u.to_string()), f),
            _ => (None, a.as_str()),
        };
        let v = read_json("--jwks", &format!("@{file}"))?;
        let keys = v.get("keys").and_then(serde_json::Value::as_array);
        if keys.is_none_or(|k| k.is_empty()) {
            return Err(format!(
                "--jwks {file}: not a JWK set (a JSON object with a non-empty \"keys\" list)"
            ));
        }
        out.push((url, v));
    }
    Ok(out)
}

/// The statements, response body and port mappings of the flags, shared by every request.
pub struct Common {
    pub assume: std::collections::BTreeMap<String, serde_json::Value>,
    pub response_body: Option<serde_json::Value>,
    pub connect_to: Vec<request::ConnectTo>,
}

/// Read `--assume`, `--response-body` and `--connect-to`.
pub fn common_of(
    assume: &[String],
    response_body: Option<&str>,
    connect_to: &[String],
) -> Result<Common, String> {
    let mut c = Common {
        assume: Default::default(),
        response_body: None,
        connect_to: vec![],
    };
    for a in assume {
        let (k, v) = request::parse_assume(a)?;
        c.assume.insert(k, v);
    }
    if let Some(b) = response_body {
        c.response_body = Some(read_json("--response-body", b)?);
    }
    for t in connect_to {
        c.connect_to.push(request::parse_connect_to(t)?);
    }
    Ok(c)
}

pub fn run(a: SimulateArgs, ui: &Ui) -> Result<Outcome, CliError> {
    let plan = match &a.requests {
        Some(file) => match from_file(&a, file) {
            Ok(plan) => plan,
            Err(Bad::Request(m)) => return Ok(bad_request(ui, m)),
            Err(Bad::File(sources, d)) => {
                return Ok(ui.trouble_in(&sources, *d));
            }
        },
        None => match request_of(&a) {
            Ok((req, interval)) => {
                let planned = Planned {
                    start: Duration::ZERO,
                    count: a.count,
                    interval,
                    request: req,
                };
                if planned.last().is_none() {
                    return Ok(bad_request(
                        ui,
                        format!(
                            "--count {} --interval {}: the last request would be beyond the simulated clock ({})",
                            a.count,
                            a.interval.as_deref().unwrap_or("0"),
                            policyctl::simulate::MAX_TIME_TEXT
                        ),
                    ));
                }
                Plan {
                    entries: vec![planned],
                }
            }
            Err(m) => return Ok(bad_request(ui, m)),
        },
    };
    if let Some(o) = a.budget.check(plan.len(), ui) {
        return Ok(o);
    }
    let jwks = match read_jwks(&a.jwks) {
        Ok(j) => j,
        Err(m) => return Ok(bad_request(ui, m)),
    };
    let mut loaded = a.input.load()?;
    // The findings about the generated objects (the 1.5 wasm sha256 placeholder) are left out:
    // they do not matter to a simulation.
    let opts = a
        .input
        .run_options(&mut loaded.sources, a.input.generate_options());
    let analysis = policyctl::run(&loaded.model, &loaded.sources, &loaded.diagnostics, &opts);
    ui.diagnostics(&loaded, &analysis.findings.kept);
    if analysis.findings.kept.has_trouble() {
        return Ok(Outcome::Trouble);
    }
    let mut sim = match Simulation::new(&analysis.topology, &analysis.generated.objects) {
        Ok(s) => s,
        Err(m) => return Ok(unsupported(ui, m)),
    };
    sim.gateway = a.gateway.clone();
    sim.jwks = std::sync::Arc::new(jwks);
    sim.budget = a.budget.limits();
    let outcome = play(&sim, &plan, a.output, ui)?;
    std::mem::forget(analysis);
    std::mem::forget(loaded);
    Ok(outcome)
}

/// Simulate the requests of `plan` one at a time, each written as soon as it is decided: a run of
/// millions holds one trace. A request that exceeds an evaluation budget ends the run (PCTL5013),
/// what was written before it kept (and JSON closed).
fn play(
    sim: &Simulation<'_>,
    plan: &Plan,
    format: SimulateFormat,
    ui: &Ui,
) -> Result<Outcome, CliError> {
    let single = plan.len() == 1;
    let mut stopped = None;
    ui.out_with(|o| {
        let mut w = std::io::BufWriter::with_capacity(1 << 16, o);
        let (mut allowed, mut undecided, mut n) = (0u64, 0u64, 0u64);
        if format == SimulateFormat::Json {
            w.write_all(b"{\n  \"requests\": [")?;
        }
        for (at, req) in plan.iter() {
            let trace = match sim.request(at, req) {
                Ok(t) => t,
                Err(e) => {
                    stopped = Some((n + 1, e));
                    break;
                }
            };
            n += 1;
            allowed += u64::from(trace.allowed);
            undecided += u64::from(trace.undecided.is_some());
            match format {
                SimulateFormat::Json => {
                    w.write_all(if n == 1 { b"\n" } else { b",\n" })?;
                    write_json(&mut w, &trace)?;
                }
                SimulateFormat::Text if single => w.write_all(text::tree(&trace).as_bytes())?,
                SimulateFormat::Text => w.write_all(text::line(n, &trace).as_bytes())?,
            }
        }
        match format {
            SimulateFormat::Json if n == 0 => w.write_all(b"]\n}\n")?,
            SimulateFormat::Json => w.write_all(b"\n  ]\n}\n")?,
            SimulateFormat::Text if single => {}
            SimulateFormat::Text => w.write_all(text::summary(n, allowed, undecided).as_bytes())?,
        }
        w.flush()?;
        Ok(())
    })?;
    Ok(match stopped {
        Some((number, e)) => over_budget(ui, number, &e),
        None => Outcome::Clean,
    })
}

/// One trace as an element of the `requests` list: pretty-printed, indented as serde_json
/// indents it inside `{"requests": [...]}`, control characters a terminal would act on escaped.
fn write_json(w: &mut impl Write, t: &Trace) -> Result<(), CliError> {
    let text = serde_json::to_string_pretty(t).map_err(|e| CliError::Io(e.to_string()))?;
    let text = policyctl::render::terminal::json(text);
    for (i, line) in text.lines().enumerate() {
        if i > 0 {
            w.write_all(b"\n")?;
        }
        w.write_all(b"    ")?;
        w.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// Why the requests could not be read: a malformed flag (PCTL5001), or a diagnostic about the
/// request file, with the file in its source map.
enum Bad {
    Request(String),
    File(SourceMap, Box<Diagnostic>),
}

/// The sequence of `--requests FILE`, with the flags as defaults for every entry.
fn from_file(a: &SimulateArgs, file: &str) -> Result<Plan, Bad> {
    let common =
        common_of(&a.assume, a.response_body.as_deref(), &a.connect_to).map_err(Bad::Request)?;
    let mut defaults = schedule::Defaults {
        method: a.method.clone(),
        headers: a.headers.clone(),
        identity: None,
        source: None,
        tokens: a.tokens,
        assume: common.assume,
        response_body: common.response_body,
        connect_to: common.connect_to,
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
        policyctl::read_bounded_file(std::path::Path::new(file), schedule::MAX_BYTES)
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
    // Lone carriage returns are line breaks, as in manifests.
    let text = String::from_utf8(bytes)
        .map(|t| policyctl::line_feeds(&t))
        .map_err(|e| {
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
    schedule::parse(id, name, &text, &defaults, a.budget.max_requests)
        .map_err(|d| Bad::File(sources, Box::new(d)))
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
    let common = common_of(&a.assume, a.response_body.as_deref(), &a.connect_to)?;
    req.assume = common.assume;
    req.response_body = common.response_body;
    req.connect_to(url, &common.connect_to);
    let interval = match &a.interval {
        Some(i) => request::parse_duration(i).map_err(|m| format!("--interval: {m}"))?,
        None => Duration::ZERO,
    };
    Ok((req, interval))
}

/// A generated object the simulation cannot evaluate: diagnostic PCTL5003 (exit 2).
pub fn unsupported(ui: &Ui, msg: String) -> Outcome {
    let d = policyctl::diag::Diagnostic::new(policyctl::diag::Code::SimulationUnsupported, msg);
    ui.trouble(d)
}
