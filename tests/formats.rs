//! Diagnostics in every output format (text, json, github, sarif, junit): snapshots on the example
//! estate, the invalid fixtures and the suppression fixture; SARIF read back through serde-sarif's
//! types with the locations `lint -o json` reports; the exit code the same for every format; and
//! `--diagnostics-format` of the other commands printing what `lint -o` prints.

use crate::common;
use serde_sarif::sarif::Sarif;
use std::collections::BTreeSet;

/// File, line and column.
type Place = (String, i64, i64);

const FORMATS: [&str; 5] = ["text", "json", "github", "sarif", "junit"];

/// `policyctl ARGS` from the repository root, with a fixed width and no colour; stdout and the
/// exit code.
fn run(args: &[&str]) -> (String, i32) {
    let out = common::policyctl()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("COLUMNS", "100")
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        out.status.code().unwrap_or(-1),
    )
}

/// The inputs every format is snapshotted on: the example estate, all invalid fixtures, and the
/// suppression fixture with its settings file.
const INPUTS: [(&str, &[&str]); 3] = [
    ("examples", &["-f", "testdata/examples/"]),
    ("invalid", &["-f", "testdata/invalid/"]),
    (
        "suppress",
        &[
            "--config",
            "testdata/suppress/settings.yaml",
            "-v",
            "-f",
            "testdata/suppress/annotated.yaml",
        ],
    ),
];

/// Check a SARIF log against the OASIS SARIF 2.1.0 schema (with errata, vendored in
/// `testdata/sarif/`), formats included (`uri`: the `helpUri`s are absolute), and against what
/// GitHub code scanning documents it needs ("SARIF support for code scanning", docs.github.com):
/// version 2.1.0, a tool name, every result with a `ruleId`, a `message.text` and a physical
/// location whose `region.startLine` is set, every relative `uri` resolved against the repository
/// root (`%SRCROOT%`, which code scanning reads relative paths against), and one fingerprint.
pub(crate) fn assert_code_scanning_accepts(text: &str, what: &str) {
    let instance: serde_json::Value =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{what}: not JSON: {e}"));
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/testdata/sarif/sarif-schema-2.1.0.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    compiler.enable_format_assertions();
    compiler
        .add_resource("file:///sarif-schema-2.1.0.json", schema)
        .unwrap();
    let index = compiler
        .compile("file:///sarif-schema-2.1.0.json", &mut schemas)
        .unwrap_or_else(|e| panic!("the schema compiles: {e:#}"));
    if let Err(e) = schemas.validate(&instance, index) {
        panic!("{what}: not SARIF 2.1.0:\n{e:#}");
    }
    assert_eq!(instance["version"], "2.1.0", "{what}");
    let run = &instance["runs"][0];
    assert!(run["tool"]["driver"]["name"].is_string(), "{what}");
    for rule in run["tool"]["driver"]["rules"].as_array().unwrap() {
        let uri = rule["helpUri"]
            .as_str()
            .unwrap_or_else(|| panic!("{what}: {rule} has no helpUri"));
        assert!(uri.contains("docs/diagnostics.md#pctl"), "{what}: {uri}");
    }
    assert!(run["originalUriBaseIds"]["%SRCROOT%"].is_object(), "{what}");
    for r in run["results"].as_array().unwrap() {
        assert!(
            r["ruleId"].is_string() && r["message"]["text"].is_string(),
            "{what}: {r}"
        );
        // A file that could not be read at all (exit 2) has no place (see below).
        if r["locations"].is_null() && r["ruleId"] == "PCTL1005" {
            continue;
        }
        let physical = &r["locations"][0]["physicalLocation"];
        assert!(
            physical["region"]["startLine"].as_i64() >= Some(1),
            "{what}: {r}"
        );
        let location = &physical["artifactLocation"];
        let uri = location["uri"].as_str().unwrap();
        if !uri.starts_with("file:///") {
            assert_eq!(location["uriBaseId"], "%SRCROOT%", "{what}: {uri}");
            assert!(
                !uri.starts_with('/') && !uri.split('/').any(|p| p == ".." || p == "."),
                "{what}: {uri}"
            );
        }
        assert!(
            r["partialFingerprints"]["policyctl/v1"].is_string(),
            "{what}: {r}"
        );
    }
}

#[test]
fn every_format_on_every_input() {
    for (name, input) in INPUTS {
        let mut codes = BTreeSet::new();
        for format in FORMATS {
            let mut args = vec!["lint", "-o", format];
            args.extend_from_slice(input);
            let (out, code) = run(&args);
            codes.insert(code);
            if format == "sarif" {
                assert_code_scanning_accepts(&out, name);
            }
            // The helpUris of a build without POLICYCTL_DOCS_URL name the checkout it was built in.
            let out = out.replace(env!("CARGO_MANIFEST_DIR"), "[ROOT]");
            insta::assert_snapshot!(format!("lint-{name}-{format}"), out);
        }
        // The exit code never depends on -o.
        assert_eq!(codes.len(), 1, "{name}: exit codes {codes:?}");
    }
}

/// Every SARIF log parses as SARIF 2.1.0 and carries, result for result, the file, line and column
/// `lint -o json` reports.
#[test]
fn sarif_reads_back_with_the_json_locations() {
    let mut inputs: Vec<String> = vec!["testdata/examples/".into(), "testdata/invalid/".into()];
    for dir in [
        "testdata/invalid",
        "testdata/invalid/schema",
        "testdata/hostile",
    ] {
        let mut files: Vec<String> =
            std::fs::read_dir(format!("{}/{dir}", env!("CARGO_MANIFEST_DIR")))
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
                .map(|p| format!("{dir}/{}", p.file_name().unwrap().to_string_lossy()))
                .collect();
        files.sort();
        inputs.extend(files);
    }
    let mut checked = 0;
    for input in &inputs {
        let (sarif_text, _) = run(&["lint", "-o", "sarif", "-f", input]);
        assert_code_scanning_accepts(&sarif_text, input);
        let log: Sarif =
            serde_json::from_str(&sarif_text).unwrap_or_else(|e| panic!("{input}: {e}"));
        assert_eq!(log.version, serde_json::json!("2.1.0"));
        assert_eq!(log.runs.len(), 1);
        let run0 = &log.runs[0];
        let rules = run0.tool.driver.rules.as_ref().unwrap();
        assert_eq!(rules.len(), policyctl::diag::Code::ALL.len());
        let (json_text, _) = run(&["lint", "-o", "json", "-f", input]);
        let json: serde_json::Value = serde_json::from_str(&json_text).unwrap();
        let want: Vec<(String, Option<Place>)> = json["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                let at = d["file"].as_str().map(|f| {
                    (
                        f.to_string(),
                        d["line"].as_i64().unwrap(),
                        d["column"].as_i64().unwrap(),
                    )
                });
                (d["code"].as_str().unwrap().to_string(), at)
            })
            .collect();
        let results = run0.results.as_ref().unwrap();
        assert_eq!(results.len(), want.len(), "{input}");
        for (r, (code, at)) in results.iter().zip(&want) {
            assert_eq!(r.rule_id.as_deref(), Some(code.as_str()), "{input}");
            let index = r.rule_index.unwrap() as usize;
            assert_eq!(rules[index].id, *code, "{input}: ruleIndex");
            // Only a finding about an input that could not be read at all (it exits 2) has no
            // place: GitHub code scanning refuses a log with a result without a location.
            let Some(locations) = r.locations.as_ref() else {
                assert!(
                    at.is_none() && code == "PCTL1005",
                    "{input} {code}: no location"
                );
                continue;
            };
            let physical = locations[0].physical_location.as_ref().unwrap();
            let uri = physical.artifact_location.as_ref().unwrap().uri.clone();
            let region = physical.region.as_ref().unwrap();
            match at {
                Some((file, line, column)) => {
                    assert_eq!(uri.as_deref(), Some(file.as_str()), "{input} {code}");
                    assert_eq!(region.start_line, Some(*line), "{input} {code}");
                    assert_eq!(region.start_column, Some(*column), "{input} {code}");
                }
                // A finding about the whole input sits at the start of the first input.
                None => {
                    assert_eq!(region.start_line, Some(1), "{input} {code}");
                    assert_eq!(region.start_column, Some(1), "{input} {code}");
                }
            }
            let fp = r.partial_fingerprints.as_ref().unwrap();
            assert_eq!(fp["policyctl/v1"].len(), 64);
            checked += 1;
        }
    }
    assert!(checked > 20, "only {checked} results compared");
}

/// Fingerprints do not move when the finding's lines move.
#[test]
fn sarif_fingerprints_survive_added_lines() {
    let dir = tempfile::tempdir().unwrap();
    let src = std::fs::read_to_string(format!(
        "{}/testdata/invalid/target-not-found.yaml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let a = dir.path().join("a.yaml");
    std::fs::write(&a, &src).unwrap();
    let fingerprints = |cwd: &std::path::Path| {
        let out = common::policyctl()
            .current_dir(cwd)
            .args(["lint", "-o", "sarif", "-f", "a.yaml"])
            .output()
            .unwrap();
        let log: Sarif = serde_json::from_slice(&out.stdout).unwrap();
        log.runs[0]
            .results
            .as_ref()
            .unwrap()
            .iter()
            .map(|r| {
                let line = r.locations.as_ref().unwrap()[0]
                    .physical_location
                    .as_ref()
                    .unwrap()
                    .region
                    .as_ref()
                    .unwrap()
                    .start_line;
                (r.partial_fingerprints.clone().unwrap(), line)
            })
            .collect::<Vec<_>>()
    };
    let before = fingerprints(dir.path());
    std::fs::write(&a, format!("# a comment\n# another\n{src}")).unwrap();
    let after = fingerprints(dir.path());
    assert_eq!(before.len(), after.len());
    let moved = before
        .iter()
        .zip(&after)
        .filter(|(b, a)| b.1 != a.1)
        .count();
    assert!(moved > 0, "the lines did not move");
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(b.0, a.0);
    }
}

/// `--diagnostics-format` of compute, status, explain, graph and diff goes through the renderers
/// `lint -o` uses: for the findings all of them see, the same report; the exit code is unchanged.
#[test]
fn other_commands_render_with_the_same_renderers() {
    let input = ["-f", "testdata/invalid/target-not-found.yaml"];
    let (lint, _) = run(&["lint", "-o", "sarif", input[0], input[1]]);
    for cmd in ["compute", "status", "explain"] {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("d.sarif");
        let file_arg = file.to_str().unwrap();
        let mut base = vec![cmd, input[0], input[1]];
        if cmd == "explain" {
            base.push("gateway/gateway-system/gw");
        }
        let (_, plain) = run(&base);
        let mut args = base.clone();
        args.extend([
            "--diagnostics-format",
            "sarif",
            "--diagnostics-file",
            file_arg,
        ]);
        let (_, code) = run(&args);
        assert_eq!(code, plain, "{cmd}: the exit code depends on the format");
        let written = std::fs::read_to_string(&file).unwrap();
        assert_eq!(written, lint, "{cmd}");
    }
    // graph runs only part of the analysis: its SARIF still parses, with the same locations
    // for the findings it has.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("g.xml");
    let (_, code) = run(&[
        "graph",
        input[0],
        input[1],
        "--diagnostics-format",
        "junit",
        "--diagnostics-file",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    let xml = std::fs::read_to_string(&file).unwrap();
    assert!(xml.starts_with("<?xml"), "{xml}");
    assert!(xml.contains("PCTL2001"), "{xml}");
}

/// A suppressed finding no longer fails the run; an error named in a suppression still does.
#[test]
fn suppressions_change_the_exit_code_only_for_what_may_be_silenced() {
    let dir = tempfile::tempdir().unwrap();
    let src = std::fs::read_to_string(format!(
        "{}/testdata/invalid/parentref-gateway-not-found.yaml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    std::fs::write(dir.path().join("in.yaml"), &src).unwrap();
    let lint = |settings: &str| {
        std::fs::write(dir.path().join("s.yaml"), settings).unwrap();
        let out = common::policyctl()
            .current_dir(dir.path())
            .args(["lint", "--config", "s.yaml", "-f", "in.yaml", "-o", "json"])
            .args(["--fail-on", "warning"])
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (v, out.status.code().unwrap())
    };
    let (v, code) = lint("failOn: warning\n");
    assert_eq!(code, 1, "{v}");
    assert!(v.to_string().contains("PCTL2003"), "{v}");
    let (v, code) = lint(
        "ignore:\n  - code: PCTL2003\n    object: \"HTTPRoute *\"\n    reason: the gateway is in another repository\n",
    );
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["summary"]["suppressed"], 1, "{v}");
    // Without a reason the file is refused (exit 2).
    std::fs::write(dir.path().join("s.yaml"), "ignore:\n  - code: PCTL2003\n").unwrap();
    let out = common::policyctl()
        .current_dir(dir.path())
        .args(["lint", "--config", "s.yaml", "-f", "in.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("PCTL4002"));
}

#[test]
fn errors_stay_when_named_in_a_suppression() {
    let dir = tempfile::tempdir().unwrap();
    let src = std::fs::read_to_string(format!(
        "{}/testdata/invalid/target-not-found.yaml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    // The annotation goes on the policy whose target is missing.
    let annotated = src.replacen(
        "kind: RateLimitPolicy\nmetadata:\n",
        "kind: RateLimitPolicy\nmetadata:\n  annotations:\n    policyctl.kuadrant.io/ignore: PCTL2001\n",
        1,
    );
    assert_ne!(annotated, src);
    std::fs::write(dir.path().join("in.yaml"), annotated).unwrap();
    std::fs::write(
        dir.path().join("s.yaml"),
        "ignore:\n  - code: PCTL2001\n    reason: not allowed\n",
    )
    .unwrap();
    let out = common::policyctl()
        .current_dir(dir.path())
        .args(["lint", "--config", "s.yaml", "-f", "in.yaml", "-o", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let codes: Vec<&str> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"PCTL2001"), "{codes:?}");
    // The annotation and the settings entry are both refused, in the report like every finding.
    assert_eq!(
        codes.iter().filter(|c| **c == "PCTL4010").count(),
        2,
        "the annotation and the entry are refused: {codes:?}"
    );
    assert!(v["summary"].get("suppressed").is_none());
}

#[test]
fn version_names_the_emulated_releases() {
    for args in [&["version"][..], &["--version"][..]] {
        let (out, code) = run(args);
        assert_eq!(code, 0);
        assert!(out.starts_with(&format!("policyctl {}\n", env!("CARGO_PKG_VERSION"))));
        // kuadrant-operator v1.4.6 / v1.5.2: config/manager/manager.yaml (RELATED_IMAGE_WASMSHIM)
        // and bundle/metadata/dependencies.yaml.
        for fact in [
            "kuadrant-operator v1.4.6",
            "quay.io/kuadrant/wasm-shim:v0.12.3",
            "limitador-operator v0.17.3",
            "kuadrant-operator v1.5.2",
            "quay.io/kuadrant/wasm-shim:v0.14.1",
            "limitador-operator v0.18.3",
        ] {
            assert!(out.contains(fact), "{args:?} lacks {fact}:\n{out}");
        }
    }
}

/// `lint -v` lists the silenced findings with the reason the input gave; a control character in that
/// reason (here an ANSI colour escape) is escaped, never written to the terminal.
#[test]
fn suppressed_lines_escape_the_inputs_control_characters() {
    let dir = tempfile::tempdir().unwrap();
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/examples/toystore");
    for e in std::fs::read_dir(&src).unwrap() {
        let p = e.unwrap().path();
        let text = std::fs::read_to_string(&p).unwrap().replace(
            "  name: gw-defaults\n  namespace: gateway-system\n",
            "  name: gw-defaults\n  namespace: gateway-system\n  annotations:\n    policyctl.kuadrant.io/ignore: PCTL3002\n    policyctl.kuadrant.io/ignore-reason: \"known\\e[31m red\"\n",
        );
        std::fs::write(dir.path().join(p.file_name().unwrap()), text).unwrap();
    }
    let out = common::policyctl()
        .args(["lint", "-v", "-f"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let line = stdout
        .lines()
        .find(|l| l.starts_with("suppressed: "))
        .unwrap_or_else(|| panic!("no suppressed line in {stdout}"));
    assert!(line.contains("info[PCTL3002]"), "{line}");
    assert!(
        line.ends_with("[by annotation: known\\e[31m red]"),
        "{line}"
    );
    assert!(!stdout.contains('\u{1b}'), "{stdout:?}");
}
