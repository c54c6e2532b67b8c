//! Every fixture in `testdata/hostile/` ends in the documented diagnostics and exit code, and the
//! findings of fuzzing and of the hostile corpus stay fixed (one test per finding, named after it).
//! `tests/hostile/limits.sh` runs the same corpus against the release binary with time and memory
//! bounds.

use crate::common;
use common::found;
use policyctl::diag::Code;
use policyctl::{Input, LoadOptions, Loaded, load};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/hostile")
        .join(name)
}

fn load_fixture(name: &str) -> Loaded {
    load(&[Input::Path(fixture(name))], &LoadOptions::default())
}

fn lint_exit_code(path: &Path) -> i32 {
    let out = common::policyctl_std()
        .arg("lint")
        .arg("-f")
        .arg(path)
        .env("NO_COLOR", "1")
        .current_dir(std::env::temp_dir())
        .output()
        .unwrap();
    out.status.code().expect("policyctl was killed by a signal")
}

/// Fixture → (sorted `CODE line:col` of the loader's diagnostics, `policyctl lint` exit code).
/// `limits.sh` holds the same exit codes.
const EXPECTED: &[(&str, &[&str], i32)] = &[
    ("absurd-numbers.yaml", &["PCTL1007 15:16"], 1),
    ("alias-bomb.yaml", &["PCTL1011 22:18"], 2),
    ("alias-bomb-mutated.yaml", &["PCTL1011 22:18"], 2),
    ("alias-only-document.yaml", &["PCTL1001 2:1"], 2),
    ("crlf-line-endings.yaml", &[], 1), // its Gateway's class `missing` is PCTL2007, an error
    ("duplicate-keys-deep.yaml", &["PCTL1001 19:15"], 2),
    ("long-keys.yaml", &["PCTL1001 24:100007"], 2),
    ("nul-in-quoted-string.yaml", &["PCTL1005"], 2),
    ("utf8-bom.yaml", &[], 0),
    (
        "wrong-types-everywhere.yaml",
        &[
            // Every wrong type of an object, as the API server lists them (not only the first).
            "PCTL1006 30:1",
            "PCTL1006 32:1",
            "PCTL1007 13:3",
            "PCTL1007 14:14",
            "PCTL1007 15:10",
            "PCTL1007 22:14",
            "PCTL1007 23:3",
            "PCTL1007 27:11",
            "PCTL1007 34:13",
            "PCTL1007 5:9",
            "PCTL1007 6:7",
            "PCTL1008 28:1",
        ],
        1,
    ),
];

#[test]
fn every_hostile_fixture_has_its_diagnostics_and_exit_code() {
    let mut names: Vec<String> = std::fs::read_dir(fixture(""))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut listed: Vec<&str> = EXPECTED.iter().map(|(n, _, _)| *n).collect();
    listed.sort();
    assert_eq!(
        names, listed,
        "every fixture is listed here (and in limits.sh)"
    );
    for (name, codes, exit) in EXPECTED {
        let l = load_fixture(name);
        assert_eq!(found(&l), *codes, "{name}");
        assert_eq!(lint_exit_code(&fixture(name)), *exit, "{name}: exit code");
    }
}

/// Finding (fuzzing, `load` target): an alias bomb, intact or mangled, was refused only after a million
/// replayed events, costing seconds and ~350 MiB for a 1 KiB input. The budget is now 100,000 events.
#[test]
fn fuzz_alias_bomb_is_refused_within_100k_events() {
    for name in ["alias-bomb.yaml", "alias-bomb-mutated.yaml"] {
        let l = load_fixture(name);
        let d: Vec<_> = l.diagnostics.iter().collect();
        assert_eq!(d.len(), 1, "{name}: {:?}", found(&l));
        assert_eq!(d[0].code, Code::InputLimit);
        // The message names the limit in words (it used to be the YAML crate's debug print of
        // the count, `RecordedAnchorEvents { recorded_anchor_events: 100001 }`).
        assert!(
            d[0].message.contains("more than 100,000 values"),
            "{name}: {}",
            d[0].message
        );
    }
}

/// Finding (hostile corpus): the budget message kept half of a parenthesised location, ending in
/// "(used". Locations belong in the span, not the message.
#[test]
fn alias_budget_message_has_no_dangling_location() {
    let l = load_fixture("alias-bomb.yaml");
    let m = &l.diagnostics.iter().next().unwrap().message;
    assert!(!m.contains("(used") && !m.contains(" at line "), "{m}");
    assert!(!m.contains("(defined"), "{m}");
}

/// Finding (hostile corpus): a document that is only an alias to a missing anchor was reported as an
/// input limit (PCTL1011) because its message mentions "alias"; it is a YAML syntax error.
#[test]
fn alias_only_document_is_a_syntax_error_not_a_limit() {
    let l = load_fixture("alias-only-document.yaml");
    assert_eq!(found(&l), ["PCTL1001 2:1"]);
    let inline = load(
        &[Input::Text {
            name: "alias.yaml".into(),
            bytes: b"apiVersion: v1\nkind: Namespace\nmetadata: {name: *nope}\n".to_vec(),
        }],
        &LoadOptions::default(),
    );
    assert_eq!(found(&inline), ["PCTL1001 3:18"]);
}

#[test]
fn crlf_and_bom_inputs_load_like_plain_ones() {
    let l = load_fixture("crlf-line-endings.yaml");
    assert_eq!(l.model.namespaces.len(), 1);
    assert_eq!(l.model.gateways.len(), 1);
    assert_eq!(l.model.gateways[0].meta.name, "gw", "no trailing \\r");
    // Positions count CRLF as one line break: the warning lands on `missing`.
    let l = load(
        &[Input::Path(fixture("crlf-line-endings.yaml"))],
        &LoadOptions::default(),
    );
    let topo = policyctl::Topology::build(&l.model);
    let lint = policyctl::lint(&topo);
    let pos: Vec<String> = lint
        .iter()
        .filter(|d| d.code == Code::GatewayClassNotFound)
        .filter_map(|d| d.primary_span().and_then(|s| l.sources.position(s)))
        .map(|p| format!("{}:{}", p.line, p.column))
        .collect();
    assert_eq!(pos, ["13:21"]);

    let l = load_fixture("utf8-bom.yaml");
    assert!(l.diagnostics.is_empty(), "{:?}", found(&l));
    assert_eq!(l.model.namespaces.len(), 1);
    assert_eq!(l.model.namespaces[0].meta.name, "bom");
}

#[test]
fn long_keys_are_kept_or_reported() {
    let l = load_fixture("long-keys.yaml");
    assert_eq!(l.model.policies.len(), 1, "the explicit long key is read");
    assert_eq!(l.model.policies[0].meta.name, "long-explicit-key");
    // A plain key longer than 1024 characters is not YAML (YAML 1.2 §7.4: an implicit key is
    // restricted to 1024 characters): a syntax error where the parser gives up.
    assert_eq!(found(&l), ["PCTL1001 24:100007"]);
}
