//! `policyctl audit` on the bundled example, the guide-shaped estates and one estate per finding
//! class (`testdata/audit/*`, each with a comment saying what it holds and why). Expected values
//! are worked out by hand from the manifests, as each test's comments say: which policies reach a
//! path (targetRefs and the merge rules of kuadrant-operator v1.4.6 / v1.5.2), which predicates
//! the operator puts on the action sets (internal/wasm/utils.go: `request.method == 'GET'`,
//! `request.url_path.startsWith('/toys')`, ...), and Limitador's counting (limitador 2.3 / 2.4
//! `check_and_update` of the in-memory storage: a request that some counter refuses updates none).

use crate::common;
use serde_json::Value;

const VERSIONS: [&str; 2] = ["1.4", "1.5"];

/// `policyctl audit -o json` with `args`: the output and the exit code.
fn audit(args: &[&str], version: &str) -> (Value, i32) {
    let out = common::policyctl()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["audit", "--kuadrant-version", version, "-o", "json"])
        .args(args)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {text}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (v, out.status.code().unwrap())
}

/// `route rule listener hostname`, auth state, auth policies, rate-limit state, its policies.
type RowText = (String, String, Vec<String>, String, Vec<String>);

/// The rows of `-o json`, as [`RowText`].
fn rows(v: &Value) -> Vec<RowText> {
    let strings = |x: &Value| -> Vec<String> {
        x.as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect()
    };
    v["coverage"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                format!(
                    "{} {} {} {}",
                    r["route"].as_str().unwrap(),
                    r["rule"].as_str().unwrap(),
                    r["listener"].as_str().unwrap(),
                    r["hostname"].as_str().unwrap_or("-")
                ),
                r["authCoverage"]["state"].as_str().unwrap().to_string(),
                strings(&r["auth"]),
                r["rateLimitCoverage"]["state"]
                    .as_str()
                    .unwrap()
                    .to_string(),
                strings(&r["rateLimit"]),
            )
        })
        .collect()
}

/// `CODE object` of every finding, sorted.
fn findings(v: &Value) -> Vec<String> {
    let mut f: Vec<String> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            format!(
                "{} {}",
                d["code"].as_str().unwrap(),
                d["object"].as_str().unwrap_or("-")
            )
        })
        .collect();
    f.sort();
    f
}

fn messages(v: &Value, code: &str) -> Vec<String> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == code)
        .map(|d| d["message"].as_str().unwrap().to_string())
        .collect()
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

/// testdata/examples/toystore: `storefront` (no sectionName) attaches to both listeners, and its
/// hostname www.toystore.example.com is within `*.toystore.example.com` and equal to `web`'s; no
/// AuthPolicy targets it or the Gateway, and only `gw-defaults` (merge defaults on the Gateway)
/// limits it. `toystore` attaches to listener `api` only; its own AuthPolicy and RateLimitPolicy
/// are in effect (the route policy's `per-route` wins the key over the Gateway default's, so
/// `gw-defaults` is not a source there). No `when` anywhere: every action runs on every request.
#[test]
fn toystore_coverage() {
    for v in VERSIONS {
        let (out, code) = audit(&["-f", "testdata/examples/toystore"], v);
        assert_eq!(code, 0, "{v}");
        let gw = |p: &str| s(&[p]);
        assert_eq!(
            rows(&out),
            vec![
                (
                    "storefront/storefront rule-1 api www.toystore.example.com".into(),
                    "none".into(),
                    vec![],
                    "full".into(),
                    gw("RateLimitPolicy gateway-system/gw-defaults")
                ),
                (
                    "toystore/toystore rule-1 api api.toystore.example.com".into(),
                    "full".into(),
                    gw("AuthPolicy toystore/toystore"),
                    "full".into(),
                    gw("RateLimitPolicy toystore/toystore")
                ),
                (
                    "toystore/toystore rule-2 api api.toystore.example.com".into(),
                    "full".into(),
                    gw("AuthPolicy toystore/toystore"),
                    "full".into(),
                    gw("RateLimitPolicy toystore/toystore")
                ),
                (
                    "storefront/storefront rule-1 web www.toystore.example.com".into(),
                    "none".into(),
                    vec![],
                    "full".into(),
                    gw("RateLimitPolicy gateway-system/gw-defaults")
                ),
            ],
            "{v}"
        );
        // The matches as the rules write them: GET PathPrefix /toys, Exact /admin, none (`/`).
        let matches: Vec<&Value> = out["coverage"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| &r["matches"])
            .collect();
        assert_eq!(
            matches,
            [
                &serde_json::json!(["/*"]),
                &serde_json::json!(["GET /toys*"]),
                &serde_json::json!(["/admin"]),
                &serde_json::json!(["/*"])
            ]
        );
        // The one finding is the operator's own: gw-defaults' per-route is overridden on toystore
        // (Enforced, "partially enforced", PCTL3002). No audit finding: per-route (10 per 10s, no
        // qualifier) bounds per-user (5 per 1m per username) only at 7 x 10 = 70 > 5, and each
        // route is on one Gateway with one hostname.
        assert_eq!(
            findings(&out),
            s(&["PCTL3002 RateLimitPolicy gateway-system/gw-defaults"]),
            "{v}"
        );
        assert_eq!(out["summary"]["auth"]["none"], 2);
        assert_eq!(out["summary"]["rateLimit"]["full"], 4);
    }
}

/// `--require auth` makes storefront's rule (no authentication on either listener) a finding and
/// the exit code 1; a settings-file `ignore:` entry silences it like any other finding.
#[test]
fn require_auth_is_a_finding_that_suppressions_silence() {
    for v in VERSIONS {
        let (out, code) = audit(
            &["-f", "testdata/examples/toystore", "--require", "auth"],
            v,
        );
        assert_eq!(code, 1, "{v}");
        assert_eq!(
            findings(&out),
            s(&[
                "PCTL3002 RateLimitPolicy gateway-system/gw-defaults",
                "PCTL6001 HTTPRoute storefront/storefront"
            ])
        );
        let msg = &messages(&out, "PCTL6001")[0];
        assert!(
            msg.contains("listener api (www.toystore.example.com)")
                && msg.contains("listener web (www.toystore.example.com)")
                && msg.ends_with("no AuthPolicy"),
            "{msg}"
        );
        // The finding points at the rule (30-storefront.yaml: `rules:` then `- backendRefs:` on
        // line 14).
        let f = &out["findings"].as_array().unwrap()[1];
        assert_eq!(f["file"], "testdata/examples/toystore/30-storefront.yaml");
        assert_eq!(f["line"], 14);
        // Rate limiting is full everywhere: `--require ratelimit` finds nothing.
        let (out, code) = audit(
            &["-f", "testdata/examples/toystore", "--require", "ratelimit"],
            v,
        );
        assert_eq!(code, 0);
        assert!(messages(&out, "PCTL6002").is_empty());
    }
    let dir = tempfile::tempdir().unwrap();
    let settings = dir.path().join("settings.yaml");
    std::fs::write(
        &settings,
        "ignore:\n- code: PCTL6001\n  object: HTTPRoute storefront/*\n  reason: the storefront is public\n",
    )
    .unwrap();
    let settings = settings.to_str().unwrap();
    let (out, code) = audit(
        &[
            "-f",
            "testdata/examples/toystore",
            "--require",
            "auth",
            "--config",
            settings,
        ],
        "1.5",
    );
    assert_eq!(code, 0);
    assert!(messages(&out, "PCTL6001").is_empty());
    // SARIF keeps the silenced finding, marked as suppressed, with the reason.
    let sarif = common::policyctl()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "audit",
            "-f",
            "testdata/examples/toystore",
            "--require",
            "auth",
        ])
        .args(["--config", settings, "-o", "sarif"])
        .output()
        .unwrap();
    assert_eq!(sarif.status.code(), Some(0));
    let sarif: Value = serde_json::from_slice(&sarif.stdout).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let r = results
        .iter()
        .find(|r| r["ruleId"] == "PCTL6001")
        .expect("the silenced finding");
    assert_eq!(
        r["suppressions"][0]["justification"],
        "the storefront is public"
    );
}

/// kuadrant-operator v1.5.2 doc/user-guides/ratelimiting/authenticated-rl-for-app-developers.md:
/// alice's and bob's limits each have a `when` on `auth.identity.userid`: every other user is not
/// limited, so rate limiting is partial, under either predicate. The AuthPolicy has no `when`.
#[test]
fn authenticated_rl_guide_is_partially_rate_limited() {
    for v in VERSIONS {
        let (out, code) = audit(&["-f", "testdata/guides/authenticated-rl"], v);
        assert_eq!(code, 0);
        let row = &out["coverage"][0];
        assert_eq!(row["authCoverage"]["state"], "full");
        assert_eq!(row["rateLimitCoverage"]["state"], "partial");
        assert_eq!(
            row["rateLimitCoverage"]["when"],
            serde_json::json!([
                "auth.identity.userid == 'alice'",
                "auth.identity.userid == 'bob'"
            ])
        );
        assert_eq!(findings(&out), Vec::<String>::new());
    }
}

/// kuadrant-operator v1.5.2 doc/user-guides/ratelimiting/simple-rl-for-app-developers.md (rule names
/// need 1.5): the limit's `when` (`request.method == 'POST'`) holds on every request of the POST-only
/// rule it targets, so `create-toy` is fully rate limited, not "partially"; `get-toys` is not
/// limited; nothing is authenticated. The estate where no finding may appear.
#[test]
fn simple_rl_guide_has_no_finding() {
    let (out, code) = audit(&["-f", "testdata/guides/simple-rl"], "1.5");
    assert_eq!(code, 0);
    let got: Vec<(String, String)> = rows(&out)
        .into_iter()
        .map(|(k, _, _, rl, _)| (k, rl))
        .collect();
    assert_eq!(
        got,
        vec![
            (
                "default/toystore create-toy http api.toystore.com".into(),
                "full".into()
            ),
            (
                "default/toystore get-toys http api.toystore.com".into(),
                "none".into()
            ),
        ]
    );
    assert_eq!(out["findings"], serde_json::json!([]));
    let table = common::policyctl()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["audit", "-f", "testdata/guides/simple-rl"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8(table.stdout)
            .unwrap()
            .ends_with("No findings.\n")
    );
}

/// testdata/audit/shadowed (its comment works the numbers out): `loose` (same requests and window
/// as `strict`), `burst` (bounded by `strict` at 2 x 5 = 10 per 1 s) and `per-minute` (bounded by
/// `burst` at 61 x 10 = 610 per 60 s) never refuse on their own; `strict` and `per-path` do.
#[test]
fn limits_that_never_decide() {
    for v in VERSIONS {
        let (out, code) = audit(&["-f", "testdata/audit/shadowed"], v);
        assert_eq!(code, 0);
        let mut got = messages(&out, "PCTL6003");
        got.sort();
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(
            got[0].starts_with("the rate 10 per 1s of limit `burst`"),
            "{}",
            got[0]
        );
        assert!(
            got[0].contains("limit `strict` of RateLimitPolicy shop/catalog (5 per 10s)")
                && got[0].contains("at most 10 of them pass in any 1s (2 of its 10s windows"),
            "{}",
            got[0]
        );
        assert!(got[1].starts_with("the rate 1000 per 60s of limit `per-minute`"));
        assert!(
            got[1].contains("limit `burst` of RateLimitPolicy shop/catalog (10 per 1s)")
                && got[1].contains("at most 610 of them pass in any 60s (61 of its 1s windows"),
            "{}",
            got[1]
        );
        assert!(got[2].starts_with("the rate 8 per 10s of limit `loose`"));
        assert!(
            got[2].contains("limit `strict` of RateLimitPolicy shop/catalog (5 per 10s) counts exactly the same requests"),
            "{}",
            got[2]
        );
        // Each points at the rate's `window:` (loose's is line 84 of the estate).
        let loose = out["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["message"].as_str().unwrap().contains("`loose`"))
            .unwrap();
        assert_eq!(loose["line"], 84);
    }
}

/// testdata/audit/dead-configuration: a limit for GET on a POST-only rule (PCTL6004), an
/// authentication rule for /admin on an /orders-only rule (PCTL6008), a Gateway default every
/// route overrides (PCTL3001, the operator's Overridden) and a policy on a Gateway without routes
/// (PCTL3003): audit lists the analysis's findings as they are, once.
#[test]
fn dead_configuration() {
    for v in VERSIONS {
        let (out, code) = audit(&["-f", "testdata/audit/dead-configuration"], v);
        assert_eq!(code, 0);
        assert_eq!(
            findings(&out),
            s(&[
                "PCTL3001 AuthPolicy gateway-system/gateway-auth",
                "PCTL3003 RateLimitPolicy gateway-system/unused",
                "PCTL6004 RateLimitPolicy shop/orders",
                "PCTL6008 AuthPolicy shop/orders",
            ])
        );
        let never = &messages(&out, "PCTL6004")[0];
        assert!(
            never.starts_with("limit `reads` of RateLimitPolicy shop/orders never applies")
                && never.contains("match `POST /orders`"),
            "{never}"
        );
        let rule = &messages(&out, "PCTL6008")[0];
        assert!(
            rule.starts_with("rule `authentication.admin-token` of AuthPolicy shop/orders"),
            "{rule}"
        );
        // The rule's predicate is found in the document (line 111: `- predicate: "…"`).
        let f = out["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["code"] == "PCTL6008")
            .unwrap();
        assert_eq!(f["line"], 111);
        // Rate limiting is still full: `writes` counts every request.
        assert_eq!(out["coverage"][0]["rateLimitCoverage"]["state"], "full");
    }
}

/// testdata/audit/auth-counter: a counter on `auth.identity.sub` without an AuthPolicy is kept by
/// the operator (counters are not validated) and reported once (PCTL6005); a predicate on `auth.`
/// without an AuthPolicy drops the action (PCTL3006, InvalidCelExpression, an error: exit 1), which
/// audit does not report again but gives as the reason in coverage.
#[test]
fn counters_without_identity() {
    for v in VERSIONS {
        let (out, code) = audit(&["-f", "testdata/audit/auth-counter"], v);
        assert_eq!(code, 1, "PCTL3006 is an error");
        assert_eq!(
            findings(&out),
            s(&["PCTL6005 RateLimitPolicy shop/catalog"])
        );
        assert!(messages(&out, "PCTL6005")[0].contains("counts by `auth.identity.sub`"));
        let reviews = &out["coverage"][1];
        assert_eq!(reviews["route"], "shop/reviews");
        assert_eq!(reviews["rateLimitCoverage"]["state"], "none");
        assert!(
            reviews["rateLimitCoverage"]["reason"]
                .as_str()
                .unwrap()
                .contains("PCTL3006"),
            "{reviews}"
        );
    }
}

/// testdata/audit/shared-counter: Limitador's namespace is the route, so `api` on two Gateways
/// shares its counters across them (even `per-host`: both serve api.example.com), and `shop`'s
/// `per-route` is shared by its two hostnames; `request.host` separates `shop`'s hostnames, and
/// `blog` has one Gateway and one hostname.
#[test]
fn shared_counters() {
    for v in VERSIONS {
        let (out, code) = audit(&["-f", "testdata/audit/shared-counter"], v);
        assert_eq!(code, 0);
        assert_eq!(
            findings(&out),
            s(&[
                "PCTL6006 RateLimitPolicy apps/api",
                "PCTL6006 RateLimitPolicy apps/api",
                "PCTL6007 RateLimitPolicy apps/shop",
            ])
        );
        let gws = messages(&out, "PCTL6006");
        assert!(gws.iter().all(|m| m.contains(
            "Gateways gateway-system/internal (api.example.com) and gateway-system/public (api.example.com)"
        )));
        assert!(
            gws.iter()
                .any(|m| m.starts_with("limit `per-host`") && m.contains("for each hostname"))
        );
        let hosts = &messages(&out, "PCTL6007")[0];
        assert!(
            hosts.starts_with("limit `per-route` of RateLimitPolicy apps/shop")
                && hosts.contains("hostnames shop.example.com, store.example.com"),
            "{hosts}"
        );
    }
}

/// testdata/audit/coverage (its comment gives each route's expected coverage).
#[test]
fn coverage_states_and_reasons() {
    for v in VERSIONS {
        let (out, _) = audit(&["-f", "testdata/audit/coverage"], v);
        let by_route = |route: &str| -> Value {
            out["coverage"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["route"] == route)
                .unwrap()
                .clone()
        };
        let orders = by_route("apps/orders");
        assert_eq!(orders["authCoverage"]["state"], "partial");
        assert_eq!(
            orders["authCoverage"]["notOn"],
            serde_json::json!(["GET /orders"])
        );
        assert_eq!(orders["rateLimitCoverage"]["state"], "full");
        let search = by_route("apps/search");
        assert_eq!(search["rateLimitCoverage"]["state"], "partial");
        assert_eq!(
            search["rateLimitCoverage"]["when"],
            serde_json::json!(["request.headers['x-tier'] == 'free'"])
        );
        let llm = by_route("apps/completions");
        assert_eq!(llm["rateLimitCoverage"]["state"], "full");
        assert_eq!(
            llm["rateLimitCoverage"]["kinds"],
            serde_json::json!(["TokenRateLimitPolicy"])
        );
        assert_eq!(by_route("apps/guest")["authCoverage"]["state"], "anonymous");
        let elsewhere = by_route("apps/elsewhere");
        assert_eq!(elsewhere["hostname"], Value::Null);
        assert!(
            elsewhere["authCoverage"]["reason"]
                .as_str()
                .unwrap()
                .starts_with("invalid path")
        );
        let old = by_route("apps/old");
        assert_eq!(old["gateway"], "gateway-system/legacy");
        assert!(
            old["authCoverage"]["reason"]
                .as_str()
                .unwrap()
                .contains("has no Kuadrant wasm configuration")
        );
        let public = by_route("apps/public");
        assert_eq!(public["authCoverage"]["reason"], "no AuthPolicy");
        assert_eq!(
            public["rateLimitCoverage"]["reason"],
            "no RateLimitPolicy or TokenRateLimitPolicy"
        );
    }
}

/// A path match the wasm-shim cannot parse (testdata/dataplane/regex-match: `\.` in a regex) makes
/// it refuse the gateway's whole configuration (PCTL3008): nothing on that gateway is enforced,
/// whatever the action sets say.
#[test]
fn refused_configuration_covers_nothing() {
    let (out, _) = audit(&["-f", "testdata/dataplane/regex-match"], "1.5");
    let rows = out["coverage"].as_array().unwrap();
    assert!(!rows.is_empty());
    for r in rows {
        for k in ["authCoverage", "rateLimitCoverage"] {
            assert_eq!(r[k]["state"], "none", "{r}");
            assert!(r[k]["reason"].as_str().unwrap().contains("PCTL3008"), "{r}");
        }
    }
}

/// Only the gateways whose configuration the shim refuses lose their coverage. The same estate
/// with the `reports` counter written as valid CEL (`request.headers['x-team']`): gateway
/// `internal` is no longer refused, so `reports` (on `internal` only) is rate limited by its own
/// RateLimitPolicy on every request (no `when`), while `prod` (the `assets` regexes) stays refused.
#[test]
fn only_refused_gateways_lose_coverage() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("testdata/dataplane/regex-match/input.yaml"))
        .unwrap()
        .replace("request.headers['x-team']]", "request.headers['x-team']");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("input.yaml");
    std::fs::write(&file, text).unwrap();
    for v in VERSIONS {
        let (out, _) = audit(&["-f", file.to_str().unwrap()], v);
        let rows = out["coverage"].as_array().unwrap();
        let (internal, prod): (Vec<&Value>, Vec<&Value>) = rows
            .iter()
            .partition(|r| r["gateway"] == "gateway-system/internal");
        assert_eq!(internal.len(), 1, "{v}: {rows:?}");
        assert_eq!(internal[0]["route"], "shop/reports");
        assert_eq!(internal[0]["rateLimitCoverage"]["state"], "full", "{v}");
        assert_eq!(
            internal[0]["rateLimit"],
            serde_json::json!(["RateLimitPolicy shop/reports"])
        );
        assert!(!prod.is_empty());
        for r in prod {
            assert_eq!(r["gateway"], "gateway-system/prod");
            let reason = r["rateLimitCoverage"]["reason"].as_str().unwrap();
            assert!(reason.contains("PCTL3008"), "{v}: {r}");
        }
    }
}

/// `--base`: the example estate without toystore's AuthPolicy leaves both toystore rules without
/// authentication (they had it), and its `per-user` counter (auth.identity.username) without an
/// identity (a new PCTL6005).
#[test]
fn base_says_what_a_change_takes_away() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let head = tempfile::tempdir().unwrap();
    for f in [
        "00-gateway.yaml",
        "10-gateway-policies.yaml",
        "30-storefront.yaml",
    ] {
        std::fs::copy(
            root.join("testdata/examples/toystore").join(f),
            head.path().join(f),
        )
        .unwrap();
    }
    let toystore =
        std::fs::read_to_string(root.join("testdata/examples/toystore/20-toystore.yaml")).unwrap();
    let kept: Vec<&str> = toystore
        .split("\n---\n")
        .filter(|d| !d.contains("kind: AuthPolicy"))
        .collect();
    std::fs::write(head.path().join("20-toystore.yaml"), kept.join("\n---\n")).unwrap();
    let head = head.path().to_str().unwrap();
    let (out, code) = audit(&["-f", head, "--base", "testdata/examples/toystore"], "1.5");
    assert_eq!(code, 0);
    let weakened: Vec<String> = out["change"]["authWeakened"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            format!(
                "{} {} {}→{}",
                d["route"].as_str().unwrap(),
                d["rule"].as_str().unwrap(),
                d["before"].as_str().unwrap(),
                d["after"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        weakened,
        s(&[
            "HTTPRoute toystore/toystore rule-1 full→none",
            "HTTPRoute toystore/toystore rule-2 full→none"
        ])
    );
    assert_eq!(out["change"]["rateLimitWeakened"], serde_json::json!([]));
    let added = out["change"]["findingsAdded"].as_array().unwrap();
    assert_eq!(added.len(), 1);
    assert!(
        added[0]
            .as_str()
            .unwrap()
            .starts_with("PCTL6005 RateLimitPolicy toystore/toystore")
    );
    let md = common::policyctl()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "audit",
            "-f",
            head,
            "--base",
            "testdata/examples/toystore",
            "-o",
            "markdown",
        ])
        .output()
        .unwrap();
    let md = String::from_utf8(md.stdout).unwrap();
    assert!(
        md.contains("This change leaves **2 route rules** without full authentication: `HTTPRoute toystore/toystore rule-1`, `HTTPRoute toystore/toystore rule-2`"),
        "{md}"
    );
    // The same tree as its own base: nothing changes.
    let (out, _) = audit(
        &[
            "-f",
            "testdata/examples/toystore",
            "--base",
            "testdata/examples/toystore",
        ],
        "1.5",
    );
    assert_eq!(out["change"]["authWeakened"], serde_json::json!([]));
    assert_eq!(out["change"]["findingsAdded"], serde_json::json!([]));
}

/// Output does not depend on the order the documents come in.
#[test]
fn output_does_not_depend_on_document_order() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("testdata/audit/coverage/estate.yaml")).unwrap();
    let mut docs: Vec<&str> = text.split("\n---\n").collect();
    docs.reverse();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("estate.yaml");
    std::fs::write(&file, docs.join("\n---\n")).unwrap();
    let (a, _) = audit(&["-f", "testdata/audit/coverage"], "1.5");
    let (b, _) = audit(&["-f", file.to_str().unwrap()], "1.5");
    assert_eq!(a["coverage"], b["coverage"]);
    assert_eq!(findings(&a), findings(&b));
}

/// `-o json` keeps the shape issue 36 gives: `coverage` rows that start with `gateway`,
/// `listener`, `hostname`, `route`, `rule`, `auth` and `rateLimit` (lists of policies), and
/// `findings` with `code`, `severity`, `message`, `object`, `file` and `line`. One row per
/// hostname there; the table puts a path's hostnames on one line. testdata/audit/shared-counter:
/// `shop` has hostnames shop.example.com and store.example.com on Gateway `public` (one path, two
/// rows), `api` and `blog` one each: 5 rows, 4 paths.
#[test]
fn json_shape_and_table_lines() {
    let (out, _) = audit(&["-f", "testdata/audit/shared-counter"], "1.5");
    let keys = |v: &Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
    let rows = out["coverage"].as_array().unwrap();
    assert_eq!(rows.len(), 5);
    for r in rows {
        assert_eq!(
            keys(r)[..7],
            s(&[
                "gateway",
                "listener",
                "hostname",
                "route",
                "rule",
                "auth",
                "rateLimit"
            ])[..]
        );
        assert!(r["auth"].is_array() && r["rateLimit"].is_array());
    }
    for f in out["findings"].as_array().unwrap() {
        let k = keys(f);
        for want in ["code", "severity", "message", "object", "file", "line"] {
            assert!(k.iter().any(|x| x == want), "{want} missing in {f}");
        }
    }
    assert_eq!(out["summary"]["paths"], 4);
    let table = common::policyctl()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["audit", "-f", "testdata/audit/shared-counter"])
        .output()
        .unwrap();
    let table = String::from_utf8(table.stdout).unwrap();
    let shop: Vec<&str> = table
        .lines()
        .filter(|l| l.starts_with("gateway-system/") && l.contains("apps/shop"))
        .collect();
    assert_eq!(shop.len(), 1, "{table}");
    assert!(
        shop[0].contains("shop.example.com, store.example.com"),
        "{table}"
    );
    assert!(table.contains("authentication: 4 of 4 paths not fully covered (0 full, 4 none)"));
}

/// testdata/extensions/telemetry: a TelemetryPolicy label `user: auth.identity.userid` on a
/// Gateway whose route has a RateLimitPolicy and no AuthPolicy. The 1.5 shim writes the label into
/// every rate-limit request as `string(auth.identity.userid)` with `auth` null (wasm-shim v0.14.1
/// src/configuration/legacy_translation.rs, src/data/cel.rs), so each request fails and the
/// failure mode (allow) lets it through: the rule is not rate limited, and `--require ratelimit`
/// says so. The 1.4 shim leaves the label out: the limit holds.
#[test]
fn a_telemetry_label_that_fails_before_auth_leaves_rules_unlimited() {
    let args = ["-f", "testdata/extensions/telemetry/input.yaml"];
    let (v, code) = audit(&args, "1.5");
    assert_eq!(code, 0);
    let r = rows(&v);
    assert_eq!(
        r,
        [(
            "toystore/toystore rule-1 http api.toystore.com".into(),
            "none".into(),
            vec![],
            "none".into(),
            s(&["RateLimitPolicy toystore/toystore-rlp"]),
        )]
    );
    let reason = v["coverage"][0]["rateLimitCoverage"]["reason"]
        .as_str()
        .unwrap();
    assert!(
        reason.contains("label metrics.labels.user into each as string(auth.identity.userid)"),
        "{reason}"
    );
    let mut with_require = args.to_vec();
    with_require.extend(["--require", "ratelimit"]);
    let (v, code) = audit(&with_require, "1.5");
    assert_eq!(code, 1);
    assert_eq!(
        findings(&v),
        ["PCTL6002 HTTPRoute toystore/toystore"],
        "{v}"
    );
    let (v, code) = audit(&with_require, "1.4");
    assert_eq!(code, 0);
    assert_eq!(rows(&v)[0].3, "full");
}
