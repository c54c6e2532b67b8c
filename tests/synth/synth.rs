//! Deterministic synthetic estate generator for the performance work (issue 7).
//!
//! ```text
//! cargo run --release --example synth -- --gateways 100 --listeners 10 --routes 40000 --seed 1 > estate.yaml
//! cargo run --release --example synth -- --shape issue1085 > issue1085.yaml
//! ```
//!
//! The output is one multi-document YAML stream that loads without error diagnostics. The default shape
//! mixes what large estates hold: gateway-level RateLimitPolicy defaults and overrides and AuthPolicy
//! defaults, route- and rule-level policies, AuthPolicies, routes with several parentRefs and several
//! hostnames, and routes attached to whole gateways (every listener). Services back every route so that
//! Rule → ServicePort links exist. With the default options, about 2.5 objects are written per route
//! (`--routes 40000` gives about 100,000 objects). The same arguments always give the same bytes; the
//! object count goes to stderr.
//!
//! `--shape issue1085` is kuadrant-operator #1085: one Gateway with 63 listeners and 63 HTTPRoutes
//! attached to the whole gateway, each with a RateLimitPolicy and an AuthPolicy.
//!
//! `--shape tenants` is the multi-tenant platform (issue 33): the default shape's gateways, policies and
//! Services, but every route is attached to its whole Gateway (no sectionName) and has one hostname,
//! under one of the Gateway's listeners (all of distinct hostnames). Under the Gateway API each route
//! attaches to that one listener only; the operator still counts a path through each of the others.

use std::fmt::Write as _;
use std::io::Write as _;

/// splitmix64 (Steele, Lea, Flood 2014): tiny, fast, and good enough to pick shapes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0); the modulo bias is irrelevant here.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// True with probability `percent` / 100.
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

struct Args {
    gateways: usize,
    listeners: usize,
    routes: usize,
    namespaces: usize,
    seed: u64,
    shape: Shape,
}

#[derive(PartialEq)]
enum Shape {
    Estate,
    Issue1085,
    Tenants,
}

const USAGE: &str = "usage: synth [--gateways N] [--listeners N] [--routes N] [--namespaces N] [--seed N] [--shape estate|issue1085|tenants]";

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        gateways: 100,
        listeners: 10,
        routes: 40_000,
        namespaces: 200,
        seed: 1,
        shape: Shape::Estate,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "-h" || flag == "--help" {
            return Err(USAGE.into());
        }
        let value = it
            .next()
            .ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))?;
        let num = || -> Result<u64, String> {
            value
                .parse::<u64>()
                .map_err(|_| format!("{flag}: `{value}` is not a number\n{USAGE}"))
        };
        match flag.as_str() {
            "--gateways" => a.gateways = num()?.max(1) as usize,
            "--listeners" => a.listeners = num()?.max(1) as usize,
            "--routes" => a.routes = num()? as usize,
            "--namespaces" => a.namespaces = num()?.max(1) as usize,
            "--seed" => a.seed = num()?,
            "--shape" => {
                a.shape = match value.as_str() {
                    "estate" => Shape::Estate,
                    "issue1085" => Shape::Issue1085,
                    "tenants" => Shape::Tenants,
                    _ => return Err(format!("unknown shape `{value}`\n{USAGE}")),
                }
            }
            _ => return Err(format!("unknown option `{flag}`\n{USAGE}")),
        }
    }
    Ok(a)
}

/// The output stream plus an object counter.
struct Out {
    text: String,
    objects: usize,
}

impl Out {
    fn doc(&mut self) -> &mut String {
        if self.objects > 0 {
            self.text.push_str("---\n");
        }
        self.objects += 1;
        &mut self.text
    }
}

/// A deterministic creationTimestamp (policies need one so that no tie is broken by name).
fn timestamp(rng: &mut Rng) -> String {
    let day = 1 + rng.below(28);
    let month = 1 + rng.below(12);
    let secs = rng.below(86_400);
    format!(
        "2024-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

fn header(o: &mut Out, api: &str, kind: &str, name: &str, ns: Option<&str>) {
    let t = o.doc();
    let _ = write!(
        t,
        "apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: {name}\n"
    );
    if let Some(ns) = ns {
        let _ = writeln!(t, "  namespace: {ns}");
    }
}

fn policy_header(o: &mut Out, rng: &mut Rng, kind: &str, name: &str, ns: &str) {
    header(o, "kuadrant.io/v1", kind, name, Some(ns));
    let ts = timestamp(rng);
    let _ = write!(o.text, "  creationTimestamp: \"{ts}\"\nspec:\n");
}

fn target_ref(o: &mut Out, kind: &str, name: &str, section: Option<&str>) {
    let _ = write!(
        o.text,
        "  targetRef:\n    group: gateway.networking.k8s.io\n    kind: {kind}\n    name: {name}\n"
    );
    if let Some(s) = section {
        let _ = writeln!(o.text, "    sectionName: {s}");
    }
}

/// `limits:` at `indent`, with `n` limits named after `prefix`.
fn limits(o: &mut Out, rng: &mut Rng, indent: &str, prefix: &str, n: u64, counters: bool) {
    let _ = writeln!(o.text, "{indent}limits:");
    for i in 0..n {
        let limit = 1 + rng.below(1000);
        let window = ["10s", "1m", "5m", "1h"][rng.below(4) as usize];
        let _ = write!(
            o.text,
            "{indent}  {prefix}-{i}:\n{indent}    rates:\n{indent}    - limit: {limit}\n{indent}      window: {window}\n"
        );
        if counters && i == 0 {
            let _ = write!(
                o.text,
                "{indent}    counters:\n{indent}    - expression: auth.identity.username\n"
            );
        }
        if rng.chance(25) {
            let _ = write!(
                o.text,
                "{indent}    when:\n{indent}    - predicate: \"request.method != 'OPTIONS'\"\n"
            );
        }
    }
}

fn auth_rules(o: &mut Out, rng: &mut Rng, indent: &str, app: &str) {
    let _ = write!(
        o.text,
        "{indent}rules:\n{indent}  authentication:\n{indent}    api-key:\n{indent}      apiKey:\n{indent}        selector:\n{indent}          matchLabels:\n{indent}            app: {app}\n{indent}      credentials:\n{indent}        authorizationHeader:\n{indent}          prefix: APIKEY\n"
    );
    if rng.chance(40) {
        let _ = write!(
            o.text,
            "{indent}  authorization:\n{indent}    only-get:\n{indent}      patternMatching:\n{indent}        patterns:\n{indent}        - predicate: \"request.method == 'GET'\"\n"
        );
    }
}

fn preamble(o: &mut Out) {
    header(
        o,
        "gateway.networking.k8s.io/v1",
        "GatewayClass",
        "istio",
        None,
    );
    o.text
        .push_str("spec:\n  controllerName: istio.io/gateway-controller\n");
    header(
        o,
        "kuadrant.io/v1beta1",
        "Kuadrant",
        "kuadrant",
        Some("kuadrant-system"),
    );
    o.text.push_str("spec: {}\n");
}

fn gateway(o: &mut Out, name: &str, ns: &str, listeners: usize, host: impl Fn(usize) -> String) {
    header(o, "gateway.networking.k8s.io/v1", "Gateway", name, Some(ns));
    o.text
        .push_str("spec:\n  gatewayClassName: istio\n  listeners:\n");
    for l in 0..listeners {
        let _ = write!(
            o.text,
            "  - name: l{l}\n    hostname: \"{}\"\n    port: 80\n    protocol: HTTP\n    allowedRoutes:\n      namespaces:\n        from: All\n",
            host(l)
        );
    }
}

/// One parentRef of a route: gateway index and, unless attached to the whole gateway, a listener.
struct Parent {
    gateway: usize,
    listener: Option<usize>,
}

fn estate(a: &Args, o: &mut Out) {
    let mut rng = Rng(a.seed);
    let gw_name = |g: usize| format!("gw-{g}");
    let gw_ns = |g: usize| format!("ingress-{}", g % 10);
    let listener_host = |g: usize, l: usize| format!("*.l{l}.gw{g}.example.com");
    preamble(o);
    for g in 0..a.gateways {
        let (name, ns) = (gw_name(g), gw_ns(g));
        gateway(o, &name, &ns, a.listeners, |l| listener_host(g, l));
    }
    // Gateway-level policies: defaults on every gateway, overrides on a quarter, auth defaults on half.
    for g in 0..a.gateways {
        let (name, ns) = (gw_name(g), gw_ns(g));
        policy_header(
            o,
            &mut rng,
            "RateLimitPolicy",
            &format!("{name}-defaults"),
            &ns,
        );
        target_ref(o, "Gateway", &name, None);
        let strategy = if rng.chance(50) { "merge" } else { "atomic" };
        let _ = writeln!(o.text, "  defaults:\n    strategy: {strategy}");
        limits(o, &mut rng, "    ", "gw", 2, false);
        if g % 4 == 0 {
            policy_header(
                o,
                &mut rng,
                "RateLimitPolicy",
                &format!("{name}-overrides"),
                &ns,
            );
            target_ref(o, "Gateway", &name, None);
            o.text.push_str("  overrides:\n    strategy: merge\n");
            limits(o, &mut rng, "    ", "gw-cap", 1, false);
        }
        if g % 2 == 0 {
            policy_header(o, &mut rng, "AuthPolicy", &format!("{name}-auth"), &ns);
            target_ref(o, "Gateway", &name, None);
            o.text.push_str("  defaults:\n");
            auth_rules(o, &mut rng, "    ", "platform");
        }
    }
    for r in 0..a.routes {
        // Two consecutive routes share a Service in the same namespace.
        let ns = format!("team-{}", (r / 2) % a.namespaces);
        let svc = format!("svc-{}", r / 2);
        if r % 2 == 0 {
            header(o, "v1", "Service", &svc, Some(&ns));
            o.text
                .push_str("spec:\n  ports:\n  - name: http\n    port: 8080\n    protocol: TCP\n");
        }
        let name = format!("route-{r}");
        let home = rng.below(a.gateways as u64) as usize;
        let shape = rng.below(100);
        let parents: Vec<Parent> = if a.shape == Shape::Tenants || shape < 10 {
            // The whole gateway: one path per listener.
            vec![Parent {
                gateway: home,
                listener: None,
            }]
        } else if shape < 30 && a.gateways > 1 {
            // Two gateways (e.g. internal and external), one listener each.
            let other = (home + 1 + rng.below(a.gateways as u64 - 1) as usize) % a.gateways;
            [home, other]
                .into_iter()
                .map(|g| Parent {
                    gateway: g,
                    listener: Some(rng.below(a.listeners as u64) as usize),
                })
                .collect()
        } else {
            vec![Parent {
                gateway: home,
                listener: Some(rng.below(a.listeners as u64) as usize),
            }]
        };
        header(
            o,
            "gateway.networking.k8s.io/v1",
            "HTTPRoute",
            &name,
            Some(&ns),
        );
        o.text.push_str("spec:\n  parentRefs:\n");
        for p in &parents {
            let _ = write!(
                o.text,
                "  - name: {}\n    namespace: {}\n",
                gw_name(p.gateway),
                gw_ns(p.gateway)
            );
            if let Some(l) = p.listener {
                let _ = writeln!(o.text, "    sectionName: l{l}");
            }
        }
        // Hostnames: 1-3 under each sectioned parent's listener; none for whole-gateway routes, so the
        // route takes every listener's hostname.
        let sectioned: Vec<(usize, usize)> = parents
            .iter()
            .filter_map(|p| p.listener.map(|l| (p.gateway, l)))
            .collect();
        if a.shape == Shape::Tenants {
            // One hostname, under one listener of the whole gateway.
            let l = rng.below(a.listeners as u64);
            let _ = write!(o.text, "  hostnames:\n  - r{r}.l{l}.gw{home}.example.com\n");
        } else if !sectioned.is_empty() {
            o.text.push_str("  hostnames:\n");
            for (g, l) in sectioned {
                for h in 0..1 + rng.below(3) {
                    let _ = writeln!(o.text, "  - r{r}-{h}.l{l}.gw{g}.example.com");
                }
            }
        }
        let rules = 1 + rng.below(4);
        o.text.push_str("  rules:\n");
        for x in 0..rules {
            let _ = write!(
                o.text,
                "  - matches:\n    - path:\n        type: PathPrefix\n        value: /{name}/op{x}\n"
            );
            if rng.chance(50) {
                o.text.push_str("      method: GET\n");
            }
            if rng.chance(20) {
                let _ = write!(
                    o.text,
                    "    - path:\n        type: Exact\n        value: /{name}/op{x}/health\n"
                );
            }
            let _ = write!(
                o.text,
                "    backendRefs:\n    - name: {svc}\n      port: 8080\n"
            );
        }
        let with_auth = rng.chance(30);
        if with_auth {
            policy_header(o, &mut rng, "AuthPolicy", &format!("{name}-auth"), &ns);
            target_ref(o, "HTTPRoute", &name, None);
            auth_rules(o, &mut rng, "  ", &name);
        }
        if rng.chance(60) {
            policy_header(o, &mut rng, "RateLimitPolicy", &format!("{name}-rl"), &ns);
            target_ref(o, "HTTPRoute", &name, None);
            if rng.chance(20) {
                o.text.push_str("  defaults:\n");
                let n = 1 + rng.below(2);
                limits(o, &mut rng, "    ", "route", n, with_auth);
            } else {
                let n = 1 + rng.below(3);
                limits(o, &mut rng, "  ", "route", n, with_auth);
            }
        }
        if rng.chance(10) {
            let rule = rng.below(rules) + 1;
            policy_header(o, &mut rng, "RateLimitPolicy", &format!("{name}-rule"), &ns);
            target_ref(o, "HTTPRoute", &name, Some(&format!("rule-{rule}")));
            limits(o, &mut rng, "  ", "rule", 1, false);
        }
    }
}

fn issue1085(a: &Args, o: &mut Out) {
    let mut rng = Rng(a.seed);
    let (gw, ns) = ("gw-1085", "ingress");
    preamble(o);
    gateway(o, gw, ns, 63, |l| format!("*.l{l}.example.com"));
    for r in 0..63 {
        let name = format!("route-{r}");
        header(
            o,
            "gateway.networking.k8s.io/v1",
            "HTTPRoute",
            &name,
            Some(ns),
        );
        let _ = write!(
            o.text,
            "spec:\n  parentRefs:\n  - name: {gw}\n  rules:\n  - matches:\n    - path:\n        type: PathPrefix\n        value: /{name}\n"
        );
        policy_header(o, &mut rng, "RateLimitPolicy", &format!("{name}-rl"), ns);
        target_ref(o, "HTTPRoute", &name, None);
        limits(o, &mut rng, "  ", "route", 1, true);
        policy_header(o, &mut rng, "AuthPolicy", &format!("{name}-auth"), ns);
        target_ref(o, "HTTPRoute", &name, None);
        auth_rules(o, &mut rng, "  ", &name);
    }
}

/// The estate for `--gateways`, `--listeners`, `--routes` and `--seed` (200 namespaces): the YAML text
/// and the number of objects. The benchmarks include this file to build their inputs in-process.
pub fn estate_text(gateways: usize, listeners: usize, routes: usize, seed: u64) -> (String, usize) {
    let a = Args {
        gateways: gateways.max(1),
        listeners: listeners.max(1),
        routes,
        namespaces: 200,
        seed,
        shape: Shape::Estate,
    };
    render(&a)
}

/// The multi-tenant shape (`--shape tenants`, see the module documentation) for the same arguments.
pub fn tenants_text(
    gateways: usize,
    listeners: usize,
    routes: usize,
    seed: u64,
) -> (String, usize) {
    let a = Args {
        gateways: gateways.max(1),
        listeners: listeners.max(1),
        routes,
        namespaces: 200,
        seed,
        shape: Shape::Tenants,
    };
    render(&a)
}

/// The #1085 shape (see the module documentation).
pub fn issue1085_text(seed: u64) -> (String, usize) {
    let a = Args {
        gateways: 1,
        listeners: 63,
        routes: 63,
        namespaces: 1,
        seed,
        shape: Shape::Issue1085,
    };
    render(&a)
}

fn render(a: &Args) -> (String, usize) {
    let mut o = Out {
        text: String::new(),
        objects: 0,
    };
    match a.shape {
        Shape::Estate | Shape::Tenants => estate(a, &mut o),
        Shape::Issue1085 => issue1085(a, &mut o),
    }
    (o.text, o.objects)
}

#[allow(dead_code)] // unused when the benchmarks include this file
fn main() {
    let a = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let (text, objects) = render(&a);
    let o = Out { text, objects };
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout
        .write_all(o.text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        eprintln!("synth: cannot write the output: {e}");
        std::process::exit(1);
    }
    eprintln!("synth: {} objects, {} bytes", o.objects, o.text.len());
}
