//! Property tests: determinism under reordering, YAML round trips, and clean random valid estates.
//!
//! Estates are either a fixture from `testdata/` or a small random but valid Gateway API + Kuadrant
//! estate. Case counts are fixed in each `ProptestConfig` (independent of `PROPTEST_CASES`) so the suite
//! stays fast in a debug build.

use crate::common;
use common::load_docs;
use policyctl::GenerateOptions;
use policyctl::KuadrantVersion;
use policyctl::Loaded;
use policyctl::diag::Severity;
use policyctl::{Analysis, analyze};
use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------------------------------
// Random valid estates.

/// One Gateway of the estate: its namespace index and its listener names.
#[derive(Debug, Clone)]
struct GatewaySpec {
    ns: usize,
    listeners: usize,
}

#[derive(Debug, Clone)]
struct RouteSpec {
    /// Index into the gateways; the route lives in that gateway's namespace.
    gateway: usize,
    rules: usize,
    named_rules: bool,
    grpc: bool,
}

#[derive(Debug, Clone)]
enum Target {
    Gateway(usize),
    Listener(usize, usize),
    Route(usize),
    Rule(usize, usize),
}

#[derive(Debug, Clone)]
struct PolicySpec {
    auth: bool,
    target: Target,
    /// 0: plain rules, 1: defaults, 2: overrides.
    placement: u8,
    /// 1 or 2 with `atomic` strategy; 0 with `merge`.
    atomic: bool,
    limits: Vec<(u32, u8)>,
    when: bool,
}

#[derive(Debug, Clone)]
struct Estate {
    gateways: Vec<GatewaySpec>,
    routes: Vec<RouteSpec>,
    policies: Vec<PolicySpec>,
}

const NAMESPACES: &[&str] = &["alpha", "beta"];
const WINDOWS: &[&str] = &["10s", "1m", "5m", "1h", "24h"];

fn estate() -> impl Strategy<Value = Estate> {
    let gateways = prop::collection::vec(
        (0..NAMESPACES.len(), 1usize..3).prop_map(|(ns, listeners)| GatewaySpec { ns, listeners }),
        1..3,
    );
    gateways.prop_flat_map(|gateways| {
        let g = gateways.len();
        let routes = prop::collection::vec(
            (0..g, 1usize..3, any::<bool>(), prop::bool::weighted(0.2)).prop_map(
                |(gateway, rules, named_rules, grpc)| RouteSpec {
                    gateway,
                    rules,
                    named_rules,
                    grpc,
                },
            ),
            0..4,
        );
        (Just(gateways), routes).prop_flat_map(|(gateways, routes)| {
            let policies = prop::collection::vec(policy(&gateways, &routes), 0..5);
            (Just(gateways), Just(routes), policies).prop_map(|(gateways, routes, policies)| {
                Estate {
                    gateways,
                    routes,
                    policies,
                }
            })
        })
    })
}

fn policy(
    gateways: &[GatewaySpec],
    routes: &[RouteSpec],
) -> impl Strategy<Value = PolicySpec> + use<> {
    let mut targets: Vec<Target> = Vec::new();
    for (i, g) in gateways.iter().enumerate() {
        targets.push(Target::Gateway(i));
        for l in 0..g.listeners {
            targets.push(Target::Listener(i, l));
        }
    }
    // Kuadrant 1.4 policies may target Gateways and HTTPRoutes only: GRPCRoutes stay unattached.
    for (i, r) in routes.iter().enumerate().filter(|(_, r)| !r.grpc) {
        targets.push(Target::Route(i));
        // Operator 1.4 ignores rule names: a rule is targeted by its position (`rule-N`), which the
        // generator also uses as the rule's name when it names rules.
        for k in 0..r.rules {
            targets.push(Target::Rule(i, k));
        }
    }
    (
        any::<bool>(),
        prop::sample::select(targets),
        0u8..3,
        any::<bool>(),
        prop::collection::vec((1u32..1000, 0..WINDOWS.len() as u8), 1..3),
        any::<bool>(),
    )
        .prop_map(
            |(auth, target, placement, atomic, limits, when)| PolicySpec {
                auth,
                target,
                placement,
                atomic,
                limits,
                when,
            },
        )
}

fn gateway_name(i: usize) -> String {
    format!("gw-{i}")
}

fn route_name(i: usize) -> String {
    format!("route-{i}")
}

/// The estate as YAML documents (no `---`), in a canonical order.
fn documents(e: &Estate) -> Vec<String> {
    let mut docs = vec![
        "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata:\n  name: istio\nspec:\n  controllerName: istio.io/gateway-controller\n".to_string(),
    ];
    for (i, g) in e.gateways.iter().enumerate() {
        let mut d = format!(
            "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  name: {}\n  namespace: {}\nspec:\n  gatewayClassName: istio\n  listeners:\n",
            gateway_name(i),
            NAMESPACES[g.ns]
        );
        for l in 0..g.listeners {
            d.push_str(&format!(
                "  - name: l{l}\n    port: {}\n    protocol: HTTP\n",
                8000 + l
            ));
        }
        docs.push(d);
    }
    for (i, r) in e.routes.iter().enumerate() {
        let g = &e.gateways[r.gateway];
        let kind = if r.grpc { "GRPCRoute" } else { "HTTPRoute" };
        let mut d = format!(
            "apiVersion: gateway.networking.k8s.io/v1\nkind: {kind}\nmetadata:\n  name: {}\n  namespace: {}\nspec:\n  parentRefs:\n  - name: {}\n  hostnames: [\"r{i}.example.com\"]\n  rules:\n",
            route_name(i),
            NAMESPACES[g.ns],
            gateway_name(r.gateway)
        );
        for k in 0..r.rules {
            let name = if r.named_rules {
                format!("    name: rule-{}\n", k + 1)
            } else {
                String::new()
            };
            if r.grpc {
                d.push_str(&format!(
                    "  - matches:\n    - method: {{service: svc{i}, method: M{k}}}\n{name}"
                ));
            } else {
                d.push_str(&format!(
                    "  - matches:\n    - path: {{type: PathPrefix, value: /p{k}}}\n      method: GET\n{name}"
                ));
            }
        }
        docs.push(d);
    }
    for (i, p) in e.policies.iter().enumerate() {
        let (ns, kind, name, section) = match p.target {
            Target::Gateway(g) => (e.gateways[g].ns, "Gateway", gateway_name(g), None),
            Target::Listener(g, l) => (
                e.gateways[g].ns,
                "Gateway",
                gateway_name(g),
                Some(format!("l{l}")),
            ),
            Target::Route(r) => (
                e.gateways[e.routes[r].gateway].ns,
                if e.routes[r].grpc {
                    "GRPCRoute"
                } else {
                    "HTTPRoute"
                },
                route_name(r),
                None,
            ),
            Target::Rule(r, k) => (
                e.gateways[e.routes[r].gateway].ns,
                if e.routes[r].grpc {
                    "GRPCRoute"
                } else {
                    "HTTPRoute"
                },
                route_name(r),
                Some(format!("rule-{}", k + 1)),
            ),
        };
        let section = section
            .map(|s| format!(", sectionName: {s}"))
            .unwrap_or_default();
        let policy_kind = if p.auth {
            "AuthPolicy"
        } else {
            "RateLimitPolicy"
        };
        let mut d = format!(
            "apiVersion: kuadrant.io/v1\nkind: {policy_kind}\nmetadata:\n  name: policy-{i}\n  namespace: {}\nspec:\n  targetRef: {{group: gateway.networking.k8s.io, kind: {kind}, name: {name}{section}}}\n",
            NAMESPACES[ns]
        );
        // Section-targeted policies cannot use defaults/overrides in every version: keep them plain.
        let (indent, strategy) = match p.placement {
            1 if section.is_empty() => {
                d.push_str("  defaults:\n");
                ("    ", p.atomic)
            }
            2 if section.is_empty() => {
                d.push_str("  overrides:\n");
                ("    ", p.atomic)
            }
            _ => ("  ", false),
        };
        if indent.len() == 4 {
            let s = if strategy { "atomic" } else { "merge" };
            d.push_str(&format!("{indent}strategy: {s}\n"));
        }
        if p.when {
            d.push_str(&format!(
                "{indent}when:\n{indent}- predicate: \"request.method == 'GET'\"\n"
            ));
        }
        if p.auth {
            d.push_str(&format!(
                "{indent}rules:\n{indent}  authentication:\n{indent}    key-{i}:\n{indent}      apiKey:\n{indent}        selector:\n{indent}          matchLabels: {{app: a{i}}}\n{indent}      credentials:\n{indent}        authorizationHeader: {{prefix: APIKEY}}\n"
            ));
        } else {
            d.push_str(&format!("{indent}limits:\n"));
            for (j, (limit, w)) in p.limits.iter().enumerate() {
                d.push_str(&format!(
                    "{indent}  limit-{j}:\n{indent}    rates: [{{limit: {limit}, window: {}}}]\n",
                    WINDOWS[*w as usize]
                ));
            }
        }
        docs.push(d);
    }
    docs
}

// ---------------------------------------------------------------------------------------------------
// Fixture estates.

/// Every small fixture estate that loads without trouble, as documents.
fn fixtures() -> Vec<Vec<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut files: Vec<PathBuf> = Vec::new();
    for sub in ["cases", "golden", "topology"] {
        let Ok(rd) = std::fs::read_dir(root.join(sub)) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path().join("input.yaml");
            if p.exists() {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut toystore: Vec<PathBuf> = std::fs::read_dir(root.join("examples/toystore"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    toystore.sort();
    let mut out: Vec<Vec<String>> = files
        .iter()
        .map(|f| split_documents(&std::fs::read_to_string(f).unwrap()))
        .collect();
    out.push(
        toystore
            .iter()
            .flat_map(|f| split_documents(&std::fs::read_to_string(f).unwrap()))
            .collect(),
    );
    assert!(out.len() >= 10, "fixtures missing");
    out
}

fn split_documents(text: &str) -> Vec<String> {
    let mut docs = Vec::new();
    let mut cur = String::new();
    for line in text.lines() {
        if line.trim_end() == "---" {
            docs.push(std::mem::take(&mut cur));
        } else {
            cur.push_str(line);
            cur.push('\n');
        }
    }
    docs.push(cur);
    docs.into_iter()
        .filter(|d| {
            d.lines()
                .any(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------------
// Running the estate.

/// Write `docs` into `dir` as files: `layout[i]` is the file document `i` goes to, documents keep the
/// order given. File names come from `names`.
fn write_estate(dir: &Path, docs: &[String], layout: &[usize], names: &[String]) {
    let mut files: Vec<String> = vec![String::new(); names.len()];
    for (d, &f) in docs.iter().zip(layout) {
        files[f].push_str("---\n");
        files[f].push_str(d);
    }
    for (name, text) in names.iter().zip(files) {
        std::fs::write(dir.join(name), text).unwrap();
    }
}

/// Stdout of every output that must not depend on input order.
fn outputs(dir: &Path, cwd: &Path) -> Vec<(String, Vec<u8>)> {
    let live = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/diff/live-dump.yaml");
    let live = live.to_str().unwrap();
    let dir = dir.to_str().unwrap();
    let commands: Vec<Vec<&str>> = vec![
        vec!["compute", "-f", dir],
        vec!["compute", "-f", dir, "--kuadrant-version", "1.5"],
        vec!["graph", "-f", dir],
        vec!["status", "-f", dir],
        vec!["status", "-f", dir, "-o", "wide"],
        vec!["status", "-f", dir, "-o", "yaml"],
        vec!["diff", "-f", dir, "--against", live],
    ];
    commands
        .into_iter()
        .map(|args| {
            let out = common::policyctl_std()
                .args(&args)
                .current_dir(cwd)
                .env("NO_COLOR", "1")
                .env("COLUMNS", "120")
                .output()
                .unwrap();
            assert!(
                out.status.code().is_some_and(|c| c < 2),
                "{args:?} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            (args[0..1].join(" ") + &args[3..].join(" "), out.stdout)
        })
        .collect()
}

fn run(l: &Loaded) -> Analysis<'_> {
    analyze(
        &l.model,
        &l.diagnostics,
        &GenerateOptions::default(),
        &Default::default(),
    )
}

fn any_estate() -> impl Strategy<Value = Vec<String>> {
    prop_oneof![
        prop::sample::select(fixtures()),
        estate().prop_map(|e| documents(&e)),
    ]
}

/// An estate, a permutation of its documents, how they are spread over up to four files, and the
/// file names (shuffled so that directory order differs from creation order).
fn shuffled() -> impl Strategy<Value = (Vec<String>, Vec<usize>, Vec<usize>, Vec<String>)> {
    any_estate().prop_flat_map(|docs| {
        let n = docs.len();
        let order = Just((0..n).collect::<Vec<usize>>()).prop_shuffle();
        let layout = prop::collection::vec(0usize..4, n);
        let names = Just(
            ["a.yaml", "b.yml", "c.json.yaml", "z.yaml"]
                .map(String::from)
                .to_vec(),
        )
        .prop_shuffle();
        (Just(docs), order, layout, names)
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 10,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Spreading the documents over files in any order gives byte-identical compute, graph, status
    /// and diff output.
    #[test]
    fn shuffling_documents_and_files_is_byte_identical(
        (docs, order, layout, names) in shuffled()
    ) {
        let cwd = tempfile::tempdir().unwrap();
        let base = cwd.path().join("base");
        let shuf = cwd.path().join("shuffled");
        std::fs::create_dir(&base).unwrap();
        std::fs::create_dir(&shuf).unwrap();
        write_estate(&base, &docs, &vec![0; docs.len()], &["all.yaml".to_string()]);
        let permuted: Vec<String> = order.iter().map(|&i| docs[i].clone()).collect();
        write_estate(&shuf, &permuted, &layout, &names);
        let expected = outputs(&base, cwd.path());
        let got = outputs(&shuf, cwd.path());
        for ((cmd, e), (_, g)) in expected.iter().zip(&got) {
            prop_assert!(
                e == g,
                "{cmd} differs after shuffling\n--- one file:\n{}\n--- shuffled:\n{}",
                String::from_utf8_lossy(e),
                String::from_utf8_lossy(g)
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 24,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// The YAML `compute` prints is the tree writer's text and parses back to exactly the generated
    /// objects.
    #[test]
    fn compute_yaml_round_trips(docs in any_estate()) {
        let l = load_docs(&docs, KuadrantVersion::V1_4);
        let a = run(&l);
        let text = policyctl::render::objects::yaml_objects(&a.generated.objects).unwrap();
        let values = policyctl::object_values(&a.generated.objects);
        // The typed writer gives the tree writer's text.
        prop_assert_eq!(&text, &policyctl::render::objects::yaml(&values).unwrap());
        let back: Vec<serde_json::Value> = if text.is_empty() {
            Vec::new()
        } else {
            serde_saphyr::from_multiple(&text).unwrap()
        };
        prop_assert_eq!(back.len(), values.len());
        for (b, o) in back.iter().zip(&values) {
            prop_assert_eq!(b, o, "\n{}", text);
        }
    }

    /// `diff --against` compares a dump a batch at a time as it is parsed, building each desired tree
    /// only while compared (`diff::Comparison`): the same result as diffing all the trees at once.
    #[test]
    fn batched_comparison_is_diff_of_the_trees(
        docs in any_estate(),
        drop in 0usize..4,
        edit in 0usize..4,
        cut in 0usize..6,
    ) {
        let l = load_docs(&docs, KuadrantVersion::V1_4);
        let a = run(&l);
        let objects = &a.generated.objects;
        let values = policyctl::object_values(objects);
        let mut current = values.clone();
        if edit < current.len() {
            current[edit]["spec"]["edited"] = serde_json::json!(true);
        }
        if drop < current.len() {
            current.remove(drop);
        }
        // Not Kuadrant's: skipped. Kuadrant's but no longer generated: deleted.
        current.push(serde_json::json!({
            "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "mine", "namespace": "x"},
        }));
        current.push(serde_json::json!({
            "apiVersion": "security.istio.io/v1", "kind": "AuthorizationPolicy",
            "metadata": {"name": "stale", "namespace": "x", "labels": {"kuadrant.io/managed": "true"}},
        }));
        // What `diff --against` compares: Kuadrant's objects, the Limitador only in the fields the
        // operator owns (an edit elsewhere in its spec is the user's).
        let desired_by_key = policyctl::diff::by_key(&values);
        let comparable: Vec<serde_json::Value> = current
            .iter()
            .filter(|c| policyctl::diff::is_comparable(c))
            .map(|c| {
                let d = policyctl::diff::key_of(c).and_then(|k| desired_by_key.get(&k).copied());
                policyctl::diff::owned_projection(c.clone(), d)
            })
            .collect();
        let by_trees = policyctl::diff::diff(&values, &comparable, 3);
        let mut batched = policyctl::diff::Comparison::new(objects, 3);
        let cut = cut.min(current.len());
        let rest = current.split_off(cut);
        batched.add(current);
        batched.add(rest);
        prop_assert_eq!(
            serde_json::to_value(batched.finish()).unwrap(),
            serde_json::to_value(&by_trees).unwrap()
        );
        prop_assert!(by_trees.iter().any(|d| d.change != policyctl::diff::Change::Unchanged));
    }

    /// A random valid estate never produces an error diagnostic, and policies are accepted.
    #[test]
    fn random_valid_estates_have_no_errors(e in estate()) {
        let docs = documents(&e);
        let l = load_docs(&docs, KuadrantVersion::V1_4);
        let a = run(&l);
        let errors: Vec<String> = a
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(|d| format!("{} {}", d.code.as_str(), d.message))
            .collect();
        prop_assert!(errors.is_empty(), "{:?}\n{}", errors, docs.join("---\n"));
        prop_assert_eq!(l.model.policies.len(), e.policies.len());
        prop_assert_eq!(l.model.routes.len(), e.routes.len());
        prop_assert_eq!(l.model.gateways.len(), e.gateways.len());
    }
}

/// The generator itself: an estate with every kind of target renders the expected documents (so a
/// broken generator cannot make the property above vacuous).
#[test]
fn generator_produces_every_target_kind() {
    let e = Estate {
        gateways: vec![GatewaySpec {
            ns: 0,
            listeners: 2,
        }],
        routes: vec![RouteSpec {
            gateway: 0,
            rules: 2,
            named_rules: true,
            grpc: false,
        }],
        policies: vec![
            PolicySpec {
                auth: false,
                target: Target::Gateway(0),
                placement: 1,
                atomic: true,
                limits: vec![(5, 1)],
                when: true,
            },
            PolicySpec {
                auth: true,
                target: Target::Rule(0, 1),
                placement: 0,
                atomic: false,
                limits: vec![],
                when: false,
            },
            PolicySpec {
                auth: false,
                target: Target::Listener(0, 1),
                placement: 2,
                atomic: false,
                limits: vec![(7, 0)],
                when: false,
            },
        ],
    };
    let docs = documents(&e);
    assert_eq!(docs.len(), 6);
    let l = load_docs(&docs, KuadrantVersion::V1_4);
    assert_eq!(l.model.policies.len(), 3, "{:?}", l.diagnostics);
    let a = run(&l);
    assert!(!a.generated.objects.is_empty());
    assert!(!a.diagnostics.has_errors());
}
