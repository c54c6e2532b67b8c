//! The bodies of the fuzz targets `request_file`, `test_file` and `cel_eval`: what `simulate
//! --requests FILE`, `test CASES` and a simulated request's CEL evaluation do with hostile bytes.
//! Shared, as a module included by path, by the targets (`fuzz_targets/*.rs`, nightly, cargo-fuzz)
//! and by the stable test that runs each body over the committed seeds (`tests/fuzz_seeds.rs`), so
//! that a change of the library that breaks a target breaks `cargo test` first.
//!
//! Each body returns what it did, and asserts what must hold whatever the input: a refusal points
//! into the file it refuses, a run never simulates more requests than its budget, an evaluation
//! that ends within its budget cost no more than the budget, an exceeded budget names the budget
//! in force, and every report holds only characters its format allows.

#![allow(dead_code)]

use policyctl::render::{junit, terminal};
use policyctl::simulate::cost::{Budget, Exceeded, Limits};
use policyctl::simulate::request::{Request, parse_source};
use policyctl::simulate::{Simulation, cases, schedule, text};
use policyctl::{GenerateOptions, Input, LoadOptions, Object, SourceMap, Topology};
use std::sync::OnceLock;
use std::time::Duration;

/// The most requests one input may simulate (a file or its cases together; `--max-requests` of
/// the run), small so that an execution stays short: more is refused as the CLI refuses it.
pub const MAX_REQUESTS: u64 = 256;

/// The evaluation budgets of the simulations (the defaults of `--cel-cost-limit` and
/// `--request-cost-limit`).
pub const LIMITS: Limits = Limits {
    expression: policyctl::simulate::cost::DEFAULT_EXPRESSION_LIMIT,
    request: policyctl::simulate::cost::DEFAULT_REQUEST_LIMIT,
};

/// The budgets of `cel_eval`: a hundredth of the defaults, so that the fuzzer spends its time on
/// many expressions rather than on a few costly ones (the budget's mechanism is the same).
pub const CEL_LIMITS: Limits = Limits {
    expression: 10_000,
    request: 100_000,
};

/// The fixed estates the files are played against (the guide estates of `testdata/guides/`, each
/// at release 1.5), picked by the input's first byte (see [`with_simulation`]).
pub const ESTATES: [(&str, &str); 10] = [
    (
        "simple-rl-simulate",
        include_str!("../../testdata/guides/simple-rl-simulate/estate.yaml"),
    ),
    (
        "app-id-app-key",
        include_str!("../../testdata/guides/app-id-app-key/estate.yaml"),
    ),
    (
        "anonymous-access",
        include_str!("../../testdata/guides/anonymous-access/estate.yaml"),
    ),
    (
        "auth-for-app-devs",
        include_str!("../../testdata/guides/auth-for-app-devs/estate.yaml"),
    ),
    (
        "authenticated-rl",
        include_str!("../../testdata/guides/authenticated-rl/estate.yaml"),
    ),
    (
        "grpc",
        include_str!("../../testdata/guides/grpc/estate.yaml"),
    ),
    (
        "jwt-k8s-authnz",
        include_str!("../../testdata/guides/jwt-k8s-authnz/estate.yaml"),
    ),
    (
        "planpolicy",
        include_str!("../../testdata/guides/planpolicy/estate.yaml"),
    ),
    (
        "secure-protect-connect",
        include_str!("../../testdata/guides/secure-protect-connect/estate.yaml"),
    ),
    (
        "token-rate-limiting",
        include_str!("../../testdata/guides/token-rate-limiting/estate.yaml"),
    ),
];

/// The JWKS the jwt-k8s-authnz cases verify tokens against (`--jwks`).
const JWKS: &str = include_str!("../../testdata/tests/guides/keycloak-jwks.json");

/// A fixed simulated clock, so that a JWT's expiry decides the same way on every run.
const EPOCH: i64 = 1_767_225_600; // 2026-01-01T00:00:00Z

/// One analysed estate, kept for the life of the process (the fuzzer's or the test's).
type Analysed = (&'static Topology<'static>, &'static [Object]);

static ANALYSED: [OnceLock<Analysed>; ESTATES.len()] = [const { OnceLock::new() }; ESTATES.len()];

/// Load and analyse estate `pick` (its low six bits) of [`ESTATES`] on its first use; a fresh simulation of
/// it each call, verifying JWT signatures against [`JWKS`] when bit 6 is set.
fn with_simulation<T>(pick: u8, f: impl FnOnce(&mut Simulation<'_>) -> T) -> T {
    let i = usize::from(pick & 0x3f) % ESTATES.len();
    let (topology, objects) = *ANALYSED[i].get_or_init(|| analyse(ESTATES[i].0, ESTATES[i].1));
    let mut sim = Simulation::new(topology, objects).expect("a guide estate simulates");
    sim.epoch = EPOCH;
    sim.budget = LIMITS;
    if pick & 0x40 != 0 {
        let jwks: serde_json::Value = serde_json::from_str(JWKS).expect("the JWKS is JSON");
        sim.jwks = std::sync::Arc::new(vec![(None, jwks)]);
    }
    f(&mut sim)
}

fn analyse(name: &str, text: &str) -> Analysed {
    let loaded = policyctl::load(
        &[Input::Text {
            name: format!("{name}.yaml"),
            bytes: text.as_bytes().to_vec(),
        }],
        &LoadOptions::default(),
    );
    assert!(!loaded.diagnostics.has_trouble(), "{name} loads");
    let loaded: &'static policyctl::Loaded = Box::leak(Box::new(loaded));
    let a = policyctl::analyze(
        &loaded.model,
        &loaded.diagnostics,
        &GenerateOptions::default(),
        &Default::default(),
    );
    let a: &'static policyctl::Analysis<'static> = Box::leak(Box::new(a));
    (&a.topology, &a.generated.objects)
}

/// What a body did with its input.
#[derive(Debug, Default, PartialEq)]
pub struct Ran {
    /// The input was refused (a diagnostic or a message, as the CLI would print it).
    pub refused: Option<String>,
    /// Requests simulated.
    pub requests: u64,
    /// Cases with a broken expectation.
    pub failed: u64,
    /// The budget that stopped the run.
    pub exceeded: Option<Exceeded>,
}

/// An exceeded budget names the budget in force.
fn check_exceeded(e: &Exceeded, limits: Limits) {
    let limit = match e.budget {
        Budget::Expression => limits.expression,
        Budget::Request => limits.request,
    };
    assert_eq!(e.limit, limit, "{e:?}");
    assert!(e.message().contains(e.flag()), "{}", e.message());
}

/// Whether XML 1.0 allows `c` (§2.2 `Char`).
fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// The estate byte and the rest of `data` as text read as the CLI reads a file (UTF-8, lone
/// carriage returns as line breaks); what the body reports when there is none.
fn picked_text(data: &[u8]) -> Result<(u8, String), Ran> {
    let Some((&pick, bytes)) = data.split_first() else {
        return Err(Ran::default());
    };
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Err(Ran {
            refused: Some("not UTF-8 text".into()),
            ..Ran::default()
        });
    };
    Ok((pick, policyctl::line_feeds(text)))
}

/// `simulate --requests FILE` against estate `data[0]`: the rest of the bytes are the file, read
/// as the CLI reads it (UTF-8, lone carriage returns as line breaks; `.yaml` or, when bit 7 of the
/// first byte is set, `.jsonl`), played request by request and written as text and JSON.
pub fn request_file(data: &[u8]) -> Ran {
    let (pick, text) = match picked_text(data) {
        Ok(x) => x,
        Err(ran) => return ran,
    };
    let name = if pick & 0x80 != 0 {
        "requests.jsonl"
    } else {
        "requests.yaml"
    };
    let mut sources = SourceMap::default();
    let id = sources.add(name, text.as_str());
    let plan = match schedule::parse(
        id,
        name,
        &text,
        &schedule::Defaults::default(),
        MAX_REQUESTS,
    ) {
        Ok(plan) => plan,
        Err(d) => {
            if let Some(span) = d.primary_span() {
                assert!(sources.position(span).is_some(), "{d:?} points outside");
            }
            return Ran {
                refused: Some(d.message.clone()),
                ..Ran::default()
            };
        }
    };
    assert!(plan.len() <= MAX_REQUESTS, "{} requests", plan.len());
    with_simulation(pick, |sim| {
        let mut ran = Ran::default();
        let single = plan.len() == 1;
        for (at, req) in plan.iter() {
            match sim.request(at, req) {
                Ok(t) => {
                    ran.requests += 1;
                    let out = if single {
                        text::tree(&t)
                    } else {
                        text::line(ran.requests, &t)
                    };
                    assert!(!out.is_empty());
                    let json = serde_json::to_string_pretty(&t).expect("a trace is JSON");
                    let json = terminal::json(json);
                    assert!(!json.chars().any(|c| c == '\u{1b}'), "{json}");
                }
                Err(e) => {
                    check_exceeded(&e, LIMITS);
                    ran.exceeded = Some(e);
                    break;
                }
            }
        }
        ran
    })
}

/// `test CASES` against estate `data[0]`: the rest of the bytes are one case file, read as the
/// CLI reads it, every case run on fresh counters, the outcomes written as text and JUnit.
pub fn test_file(data: &[u8]) -> Ran {
    let (pick, text) = match picked_text(data) {
        Ok(x) => x,
        Err(ran) => return ran,
    };
    let cs = match cases::parse(&text) {
        Ok(cs) => cs,
        Err(m) => {
            return Ran {
                refused: Some(m),
                ..Ran::default()
            };
        }
    };
    let total = cs.iter().fold(0u64, |n, c| n.saturating_add(c.plan.count));
    if total > MAX_REQUESTS {
        return Ran {
            refused: Some(format!("{total} requests, more than {MAX_REQUESTS}")),
            ..Ran::default()
        };
    }
    with_simulation(pick, |sim| {
        let mut ran = Ran::default();
        let mut outcomes = Vec::new();
        for c in &cs {
            match cases::run_case(sim, c) {
                Ok(o) => {
                    ran.requests += c.plan.count;
                    ran.failed += u64::from(!o.failures.is_empty());
                    assert!(o.failures.len() <= cases::LISTED + 1);
                    assert!(o.undecided.len() <= cases::LISTED + 1);
                    for line in o.failures.iter().chain(&o.undecided) {
                        assert!(!terminal::line(line).contains('\u{1b}'));
                    }
                    outcomes.push(o);
                }
                Err(e) => {
                    check_exceeded(&e, LIMITS);
                    ran.exceeded = Some(e);
                    break;
                }
            }
        }
        let suite = junit::Suite {
            name: "cases.yaml".into(),
            cases: outcomes
                .iter()
                .map(|o| junit::Case {
                    classname: "policyctl.test.cases".into(),
                    name: o.name.clone(),
                    file: Some("cases.yaml".into()),
                    verdict: match o.failures.first() {
                        None => junit::Verdict::Passed,
                        Some(f) => junit::Verdict::Failed {
                            message: f.clone(),
                            kind: "expectation".into(),
                            details: o.failures.join("\n"),
                        },
                    },
                    output: Vec::new(),
                })
                .collect(),
        };
        let xml = junit::report("policyctl", &[suite]);
        assert!(xml.chars().all(xml_char), "{xml:?}");
        ran
    })
}

/// A CEL expression parsed, checked and evaluated as a simulated request evaluates a `when`
/// predicate or a counter, under [`CEL_LIMITS`]. The bytes, split on NUL: the expression, then
/// the request's method, path, an `X-Fuzz` header's value, `auth.identity.username` and
/// `source.address` (each optional; a value the request cannot hold is left out). The first byte
/// picks the checker's environment (bit 0: `auth`, bit 1: `ratelimit`) and the shim's interpreter
/// (bit 2: Kuadrant 1.4's, else 1.5's).
pub fn cel_eval(data: &[u8]) -> Result<policyctl::simulate::Evaluated, Exceeded> {
    let (flags, rest) = data.split_first().unwrap_or((&0, &[]));
    let mut parts = rest.split(|b| *b == 0).map(String::from_utf8_lossy);
    let expr = parts.next().unwrap_or_default();
    let method = parts.next().filter(|m| !m.is_empty());
    let method = method.as_deref().unwrap_or("GET");
    let path = parts.next().unwrap_or_default();
    let header = parts.next().map(|v| format!("X-Fuzz: {v}"));
    let username = parts.next();
    let source = parts.next();
    let url = format!("http://api.toystore.com/{}", path.trim_start_matches('/'));
    let headers: Vec<String> = header.into_iter().collect();
    let mut req = Request::parse(method, &url, &headers)
        .or_else(|_| Request::parse(method, &url, &[]))
        .or_else(|_| Request::parse("GET", &url, &[]))
        .or_else(|_| Request::parse("GET", "http://api.toystore.com/", &[]))
        .expect("a plain request parses");
    req.identity = username.map(|u| serde_json::json!({"username": u, "groups": [u, "dev"]}));
    req.source = source.and_then(|s| parse_source(&s).ok());
    let env = policyctl::CelEnv {
        auth: flags & 1 != 0,
        ratelimit: flags & 2 != 0,
    };
    // The check is the operator's (`lint` refuses what it refuses); the shim evaluates whatever
    // reaches it, so the evaluation runs either way.
    let _ = policyctl::validate(&expr, env);
    let version = if flags & 4 != 0 {
        policyctl::KuadrantVersion::V1_4
    } else {
        policyctl::KuadrantVersion::V1_5
    };
    let out = policyctl::simulate::evaluate(&expr, &req, version, CEL_LIMITS);
    match &out {
        Ok(ev) => assert!(
            ev.cost <= CEL_LIMITS.expression,
            "{expr:?} cost {}",
            ev.cost
        ),
        Err(e) => check_exceeded(e, CEL_LIMITS),
    }
    out
}

/// The time a body may take on one seed in the stable test (a debug build on a loaded machine,
/// the estate analysed on its first use included): far more than any needs, far less than a hang.
pub const SEED_TIME: Duration = Duration::from_secs(10);
