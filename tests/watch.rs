//! `watch`: the incremental state equals a fresh `compute` of the same files after every edit
//! (property test on the library state), a file that stops parsing keeps its last good state, and
//! the binary's `watch` prints a cycle after a file is edited.

use crate::common;
use policyctl::LoadOptions;
use policyctl::{Watch, WatchOptions, fresh_snapshot};
use proptest::prelude::*;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::time::Duration;

const GATEWAY: &str = "apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: prod-web
  namespace: gateway-system
spec:
  gatewayClassName: istio
  listeners:
  - name: api
    hostname: \"*.example.com\"
    port: 80
    protocol: HTTP
    allowedRoutes:
      namespaces:
        from: All
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: internal
  namespace: gateway-system
spec:
  gatewayClassName: istio
  listeners:
  - name: api
    hostname: \"*.example.com\"
    port: 80
    protocol: HTTP
    allowedRoutes:
      namespaces:
        from: All
---
apiVersion: kuadrant.io/v1
kind: AuthPolicy
metadata:
  name: internal-auth
  namespace: gateway-system
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: Gateway
    name: internal
  defaults:
    rules:
      authentication:
        key:
          apiKey:
            selector:
              matchLabels:
                app: internal
---
apiVersion: kuadrant.io/v1beta1
kind: Kuadrant
metadata:
  name: kuadrant
  namespace: kuadrant-system
spec: {}
";

/// Route `r{i}`: attached to `prod-web` (i % 3 == 0), to `internal` (1) or to both (2), so
/// that a change reaches one gateway, the other, or both.
fn route(i: u8) -> String {
    let parents = match i % 3 {
        0 => "  - name: prod-web\n    namespace: gateway-system\n",
        1 => "  - name: internal\n    namespace: gateway-system\n",
        _ => {
            "  - name: prod-web\n    namespace: gateway-system\n  - name: internal\n    namespace: gateway-system\n"
        }
    };
    format!(
        "apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: r{i}
  namespace: team{t}
spec:
  parentRefs:
{parents}  hostnames:
  - h{i}.example.com
  rules:
  - matches:
    - path:
        type: PathPrefix
        value: /p{i}
    backendRefs:
    - name: svc
      port: 80
",
        t = i % 3
    )
}

fn rate_limit(i: u8, limit: u16) -> String {
    format!(
        "apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata:
  name: rl{i}
  namespace: team{t}
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: r{i}
  limits:
    per-route:
      rates:
      - limit: {limit}
        window: 10s
",
        t = i % 3
    )
}

fn auth(i: u8) -> String {
    format!(
        "apiVersion: kuadrant.io/v1
kind: AuthPolicy
metadata:
  name: ap{i}
  namespace: team{t}
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: r{i}
  rules:
    authentication:
      key:
        apiKey:
          selector:
            matchLabels:
              app: a{i}
",
        t = i % 3
    )
}

fn gateway_policy(limit: u16) -> String {
    format!(
        "apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata:
  name: gw
  namespace: gateway-system
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: Gateway
    name: prod-web
  overrides:
    limits:
      global:
        rates:
        - limit: {limit}
          window: 1m
"
    )
}

/// A file's text from a small vocabulary: a route with or without policies, a gateway policy, an
/// invalid policy (a finding), an AuthPolicy alone, or a second copy of an object another file may
/// hold (duplicates).
fn text(kind: u8, i: u8, limit: u16) -> String {
    match kind % 7 {
        0 => route(i),
        1 => format!("{}---\n{}", route(i), rate_limit(i, limit)),
        2 => rate_limit(i, limit),
        3 => format!("{}---\n{}", auth(i), rate_limit(i, limit)),
        4 => gateway_policy(limit),
        // A policy without a target name: rejected with a finding.
        5 => rate_limit(i, limit).replace(&format!("    name: r{i}\n"), ""),
        // An AuthPolicy alone whose selector follows `limit`: a change that reaches AuthConfigs only.
        _ => auth(i).replace(&format!("app: a{i}"), &format!("app: a{i}-{limit}")),
    }
}

#[derive(Clone, Debug)]
enum Edit {
    /// Write (create or replace) file `slot` with a text.
    Write {
        slot: u8,
        kind: u8,
        i: u8,
        limit: u16,
    },
    Delete {
        slot: u8,
    },
    Rename {
        slot: u8,
        to: u8,
    },
    /// Change the limit of the gateway policy file, the "one policy changes" edit.
    Policy {
        limit: u16,
    },
    /// Rename the sub-folder (with every file in it).
    RenameDir,
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        4 => (0..8u8, 0..7u8, 0..5u8, 1..500u16)
            .prop_map(|(slot, kind, i, limit)| Edit::Write { slot, kind, i, limit }),
        1 => (0..8u8).prop_map(|slot| Edit::Delete { slot }),
        1 => (0..8u8, 0..8u8).prop_map(|(slot, to)| Edit::Rename { slot, to }),
        2 => (1..500u16).prop_map(|limit| Edit::Policy { limit }),
        1 => Just(Edit::RenameDir),
    ]
}

/// The estate's folder: fixed files at the top, slots 0-3 at the top, 4-7 in a sub-folder whose
/// name changes with `RenameDir`.
struct Estate {
    root: PathBuf,
    sub: &'static str,
}

impl Estate {
    fn new(root: &Path) -> Self {
        std::fs::write(root.join("00-gateway.yaml"), GATEWAY).unwrap();
        std::fs::write(root.join("10-gw-policy.yaml"), gateway_policy(100)).unwrap();
        std::fs::create_dir(root.join("sub-a")).unwrap();
        Estate {
            root: root.to_path_buf(),
            sub: "sub-a",
        }
    }

    fn slot(&self, s: u8) -> PathBuf {
        if s < 4 {
            self.root.join(format!("f{s}.yaml"))
        } else {
            self.root.join(self.sub).join(format!("f{s}.yaml"))
        }
    }

    /// Carry out an edit; the paths it touched, as change events would name them.
    fn apply(&mut self, e: &Edit) -> Vec<PathBuf> {
        match *e {
            Edit::Write {
                slot,
                kind,
                i,
                limit,
            } => {
                let p = self.slot(slot);
                std::fs::write(&p, text(kind, i, limit)).unwrap();
                vec![p]
            }
            Edit::Delete { slot } => {
                let p = self.slot(slot);
                let _ = std::fs::remove_file(&p);
                vec![p]
            }
            Edit::Rename { slot, to } => {
                let (from, to) = (self.slot(slot), self.slot(to));
                if from.exists() {
                    std::fs::rename(&from, &to).unwrap();
                }
                vec![from, to]
            }
            Edit::Policy { limit } => {
                let p = self.root.join("10-gw-policy.yaml");
                std::fs::write(&p, gateway_policy(limit)).unwrap();
                vec![p]
            }
            Edit::RenameDir => {
                let from = self.root.join(self.sub);
                self.sub = if self.sub == "sub-a" {
                    "sub-b"
                } else {
                    "sub-a"
                };
                let to = self.root.join(self.sub);
                std::fs::rename(&from, &to).unwrap();
                vec![from, to]
            }
        }
    }
}

/// How many files the touched paths stand for: a folder counts as the files in it, anything else
/// (a file, or a path that no longer exists) as one.
fn files_under(touched: &[PathBuf]) -> usize {
    touched
        .iter()
        .map(|p| match std::fs::read_dir(p) {
            Ok(entries) => entries
                .filter(|e| e.as_ref().is_ok_and(|e| e.path().is_file()))
                .count(),
            Err(_) => 1,
        })
        .sum()
}

fn options(root: &Path) -> WatchOptions {
    WatchOptions {
        roots: vec![root.to_path_buf()],
        load: LoadOptions::default(),
        generate: Default::default(),
        status: Default::default(),
        ignore: Vec::new(),
        explain: None,
        out_dir: None,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// After every edit, the incremental state is the state a fresh `compute` of the same files
    /// gives: every output file's text (by SHA-256), every policy's status, every finding. Either
    /// release: their wasm carriers differ (1.4's `WasmPlugin` is typed, 1.5's `EnvoyFilter` a tree).
    ///
    /// Within budgets of documents and bytes small enough that edits move the first file or
    /// document over them, too (`docs/input.md`, "Bytes" and "Documents"): a file is left out, or
    /// parsed again when what the files before it admit changes, as `compute` reads them.
    #[test]
    fn incremental_state_equals_a_fresh_compute(
        edits in proptest::collection::vec(edit(), 1..12),
        v1_4 in any::<bool>(),
        max_documents in prop_oneof![3 => Just(None), 1 => (0..14usize).prop_map(Some)],
        max_input_bytes in prop_oneof![3 => Just(None), 1 => (0..4000u64).prop_map(Some)],
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut estate = Estate::new(dir.path());
        let mut opts = options(dir.path());
        if v1_4 {
            opts.load.version = policyctl::KuadrantVersion::V1_4;
        }
        if let Some(n) = max_documents {
            opts.load.max_documents = n;
        }
        if let Some(n) = max_input_bytes {
            opts.load.max_input_bytes = n;
        }
        let bounded = max_documents.is_some() || max_input_bytes.is_some();
        let mut w = Watch::new(opts.clone(), Default::default());
        let first = w.apply(&[]);
        prop_assert!(first.recomputed);
        prop_assert_eq!(w.snapshot(), fresh_snapshot(&opts));
        for e in &edits {
            let touched = estate.apply(e);
            let last = w.snapshot();
            let r = w.apply(&touched);
            let fresh = fresh_snapshot(&opts);
            prop_assert_eq!(&w.snapshot(), &fresh, "after {:?}", e);
            // The cycle reports exactly the findings that appeared and those that went, in order.
            let appeared: Vec<&String> = fresh.diagnostics.difference(&last.diagnostics).collect();
            let went: Vec<&String> = last.diagnostics.difference(&fresh.diagnostics).collect();
            prop_assert_eq!(r.new_diagnostics.iter().collect::<Vec<_>>(), appeared, "after {:?}", e);
            prop_assert_eq!(r.resolved_diagnostics.iter().collect::<Vec<_>>(), went, "after {:?}", e);
            // Only the files the edit touched were read again (a renamed folder: the files in it);
            // within a budget, files left out before may come back and are read.
            let allowed = files_under(&touched);
            prop_assert!(bounded || r.files_read <= allowed, "{} files read for {:?} ({} allowed)", r.files_read, e, allowed);
        }
        let before = w.snapshot();
        let r = w.resync();
        prop_assert!(r.recomputed);
        prop_assert_eq!(r.files_parsed, r.files_read);
        prop_assert_eq!(w.snapshot(), before);
        prop_assert!(r.created.is_empty() && r.updated.is_empty() && r.deleted.is_empty());
        prop_assert!(r.status_changes.is_empty());
        prop_assert!(r.new_diagnostics.is_empty() && r.resolved_diagnostics.is_empty());
    }
}

/// The state has output files at all, and a policy edit updates some of them and changes no
/// status: a guard that the property above compares something.
#[test]
fn a_policy_edit_updates_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let mut estate = Estate::new(dir.path());
    std::fs::write(estate.slot(0), text(1, 0, 10)).unwrap();
    let mut w = Watch::new(options(dir.path()), Default::default());
    let first = w.apply(&[]);
    assert!(first.created.len() >= 2, "{:?}", first.created);
    assert_eq!(first.files_read, 3);
    let touched = estate.apply(&Edit::Policy { limit: 7 });
    let r = w.apply(&touched);
    assert_eq!((r.files_read, r.files_parsed), (1, 1));
    // The gateway policy reaches the paths of one gateway of two: an incremental cycle.
    assert_eq!(r.incremental, Some(1));
    assert!(!r.updated.is_empty());
    assert!(r.created.is_empty() && r.deleted.is_empty());
    let limitador = r
        .updated
        .iter()
        .find(|c| c.object.starts_with("Limitador "))
        .expect("the Limitador changes");
    assert!(
        limitador
            .content
            .as_ref()
            .unwrap()
            .joined()
            .contains("max_value: 7")
    );
    // An event for a file whose text did not change recomputes nothing.
    let again = w.apply(&touched);
    assert!(!again.recomputed);
}

/// Which cycles are incremental, and how many gateways they compute again: a route policy reaches
/// its route's gateways, a new file or a removed one makes a full cycle; every state is a fresh
/// compute's.
#[test]
fn policy_and_route_edits_are_incremental() {
    let dir = tempfile::tempdir().unwrap();
    let mut estate = Estate::new(dir.path());
    // Routes r0 (prod-web), r1 (internal), r2 (both) in slots 4-6; their policies in slots 0-2.
    for i in 0..3u8 {
        std::fs::write(estate.slot(4 + i), text(0, i, 10)).unwrap();
        std::fs::write(estate.slot(i), text(3, i, 10)).unwrap();
    }
    let opts = options(dir.path());
    let mut w = Watch::new(opts.clone(), Default::default());
    assert_eq!(w.apply(&[]).incremental, None);
    let mut step = |e: Edit, want: Option<usize>| {
        let touched = estate.apply(&e);
        let r = w.apply(&touched);
        assert_eq!(r.incremental, want, "{e:?}");
        assert_eq!(w.snapshot(), fresh_snapshot(&opts), "{e:?}");
        r
    };
    // r0's policies (prod-web, whose gateway policy overrides them), r1's (internal), r2's (both
    // gateways).
    step(
        Edit::Write {
            slot: 0,
            kind: 3,
            i: 0,
            limit: 20,
        },
        Some(1),
    );
    let r = step(
        Edit::Write {
            slot: 1,
            kind: 3,
            i: 1,
            limit: 20,
        },
        Some(1),
    );
    assert!(r.updated.iter().any(|c| c.object.starts_with("Limitador ")));
    step(
        Edit::Write {
            slot: 2,
            kind: 3,
            i: 2,
            limit: 20,
        },
        Some(2),
    );
    // Route r0 (prod-web) becomes r4 (internal): both gateways.
    step(
        Edit::Write {
            slot: 4,
            kind: 0,
            i: 4,
            limit: 0,
        },
        Some(2),
    );
    // A policy loses its target name (a finding instead of a policy), then gets it back.
    step(
        Edit::Write {
            slot: 1,
            kind: 5,
            i: 1,
            limit: 20,
        },
        Some(1),
    );
    step(
        Edit::Write {
            slot: 1,
            kind: 2,
            i: 1,
            limit: 30,
        },
        Some(1),
    );
    // r1's AuthPolicy alone, then only its selector changes: AuthConfigs, not the Limitador.
    step(
        Edit::Write {
            slot: 1,
            kind: 6,
            i: 1,
            limit: 7,
        },
        Some(1),
    );
    let r = step(
        Edit::Write {
            slot: 1,
            kind: 6,
            i: 1,
            limit: 8,
        },
        Some(1),
    );
    assert!(!r.updated.is_empty());
    assert!(!r.updated.iter().any(|c| c.object.starts_with("Limitador ")));
    // A new file, a removed one: full cycles.
    step(
        Edit::Write {
            slot: 3,
            kind: 1,
            i: 4,
            limit: 5,
        },
        None,
    );
    step(Edit::Delete { slot: 3 }, None);
    // The gateway policy on prod-web.
    step(Edit::Policy { limit: 9 }, Some(1));
}

/// A file saved half-written keeps its last good objects and shows its finding with PCTL4012;
/// when it parses again the state is a fresh compute's again.
#[test]
fn a_half_written_file_keeps_its_last_good_state() {
    let dir = tempfile::tempdir().unwrap();
    let estate = Estate::new(dir.path());
    let opts = options(dir.path());
    let p = estate.slot(0);
    std::fs::write(&p, text(1, 1, 10)).unwrap();
    let mut w = Watch::new(opts.clone(), Default::default());
    w.apply(&[]);
    let good = w.snapshot();
    let full = text(1, 1, 20);
    std::fs::write(&p, full[..full.len() / 2].replace("  ", "\t ")).unwrap();
    let r = w.apply(std::slice::from_ref(&p));
    assert_eq!(w.snapshot().files, good.files, "outputs kept");
    // No object changed: nothing but the findings is computed again.
    assert_eq!(r.incremental, Some(0));
    assert!(
        r.new_diagnostics.iter().any(|d| d.contains("[PCTL4012]")),
        "{:?}",
        r.new_diagnostics
    );
    assert!(
        r.new_diagnostics.iter().any(|d| d.contains("[PCTL1001]")),
        "{:?}",
        r.new_diagnostics
    );
    std::fs::write(&p, &full).unwrap();
    let r = w.apply(std::slice::from_ref(&p));
    assert_eq!(r.incremental, Some(1));
    assert_eq!(w.snapshot(), fresh_snapshot(&opts));
    assert!(
        r.resolved_diagnostics
            .iter()
            .any(|d| d.contains("[PCTL4012]"))
    );
    // Deleted and re-created.
    std::fs::remove_file(&p).unwrap();
    w.apply(std::slice::from_ref(&p));
    assert_eq!(w.snapshot(), fresh_snapshot(&opts));
    std::fs::write(&p, &full).unwrap();
    w.apply(std::slice::from_ref(&p));
    assert_eq!(w.snapshot(), fresh_snapshot(&opts));
}

/// Thousands of events at once (a checkout): one cycle, the same state as a fresh compute.
#[test]
fn thousands_of_events_make_one_cycle() {
    let dir = tempfile::tempdir().unwrap();
    let estate = Estate::new(dir.path());
    let opts = options(dir.path());
    let mut w = Watch::new(opts.clone(), Default::default());
    w.apply(&[]);
    let mut touched = Vec::new();
    for n in 0..2000u32 {
        let p = dir
            .path()
            .join(estate.sub)
            .join(format!("many-{n:04}.yaml"));
        let i = (n % 5) as u8;
        std::fs::write(&p, text((n % 4) as u8, i, (n % 300 + 1) as u16)).unwrap();
        touched.push(p);
    }
    let r = w.apply(&touched);
    assert_eq!(r.files_read, 2000);
    assert_eq!(w.snapshot(), fresh_snapshot(&opts));
}

/// The binary: `watch --cycles 2` prints the first cycle, sees an edit, prints the second cycle
/// (with the updated Limitador written to --out-dir) and exits 0.
#[test]
fn the_binary_prints_a_cycle_after_an_edit() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    let mut estate = Estate::new(&input);
    std::fs::write(estate.slot(0), text(1, 0, 10)).unwrap();
    let out = dir.path().join("out");
    let mut child = common::policyctl_std()
        .args(["watch", "--cycles", "2", "--debounce", "50", "--out-dir"])
        .arg(&out)
        .arg("-f")
        .arg(&input)
        .current_dir(dir.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    let wait_for = |prefix: &str| -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            match rx.recv_timeout(Duration::from_secs(60)) {
                Ok(l) => {
                    let done = l.starts_with(prefix);
                    seen.push(l);
                    if done {
                        return seen;
                    }
                }
                Err(e) => panic!("no {prefix:?} line ({e}); saw {seen:?}"),
            }
        }
    };
    let first = wait_for("cycle 1:");
    assert!(
        first.last().unwrap().contains("3 of 3 files read"),
        "{first:?}"
    );
    // The inotify watch is in place before the first cycle; a moment for the folder listing.
    std::thread::sleep(Duration::from_millis(200));
    estate.apply(&Edit::Policy { limit: 9 });
    let second = wait_for("cycle 2:");
    let summary = second.last().unwrap();
    assert!(
        summary.contains("1 of 3 files read, 1 parsed"),
        "{second:?}"
    );
    assert!(
        second
            .iter()
            .any(|l| l.starts_with("updated") && l.contains("Limitador kuadrant-system/limitador")),
        "{second:?}"
    );
    let status = child.wait().unwrap();
    assert!(status.success());
    let written = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains("Limitador"))
        .expect("the Limitador file");
    assert!(
        std::fs::read_to_string(written)
            .unwrap()
            .contains("max_value: 9")
    );
}

/// `watch status`, `watch lint` and `watch explain TARGET` print their view after the cycle.
#[test]
fn the_views_print_after_a_cycle() {
    let run = |view: &[&str]| -> String {
        let out = common::policyctl_std()
            .args(["watch", "--cycles", "1", "-f", "testdata/examples/toystore"])
            .args(view)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let status = run(&["status"]);
    assert!(
        status.contains(
            "  RateLimitPolicy toystore/toystore: Accepted=True (Accepted), Enforced=True (Enforced)\n"
        ),
        "{status}"
    );
    let lint = run(&["lint"]);
    assert!(
        lint.contains("  testdata/examples/toystore/10-gateway-policies.yaml:5:9: info[PCTL3002]"),
        "{lint}"
    );
    let explain = run(&["explain", "httproute/toystore/toystore"]);
    assert!(explain.contains("toystore/toystore"), "{explain}");
    assert!(
        explain
            .lines()
            .last()
            .unwrap()
            .starts_with("cycle 1: 4 of 4 files read")
    );
}

/// A watched estate is the one `compute` computes, whatever the release and the inputs: 1.4's
/// wasm carrier is a `WasmPlugin` (1.5's an `EnvoyFilter`), and extension policies' controllers
/// create objects (a PlanPolicy's RateLimitPolicy, an OIDCPolicy's callback route).
#[test]
fn a_watched_estate_is_the_one_compute_computes() {
    use policyctl::KuadrantVersion::{V1_4, V1_5};
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let cases = [
        (
            "examples/toystore",
            V1_4,
            "extensions.istio.io_v1alpha1_WasmPlugin_",
        ),
        (
            "examples/toystore",
            V1_5,
            "networking.istio.io_v1alpha3_EnvoyFilter_",
        ),
        ("extensions/plan", V1_5, "kuadrant.io_v1_RateLimitPolicy_"),
        (
            "extensions/oidc",
            V1_4,
            "gateway.networking.k8s.io_v1_HTTPRoute_",
        ),
    ];
    for (dir, version, file) in cases {
        let mut opts = options(&root.join(dir));
        opts.load.version = version;
        let mut w = Watch::new(opts.clone(), Default::default());
        assert!(w.apply(&[]).recomputed);
        let state = w.snapshot();
        assert!(
            state.files.keys().any(|f| f.starts_with(file)),
            "{dir} {version:?}: no {file}* in {:?}",
            state.files.keys()
        );
        assert_eq!(state, fresh_snapshot(&opts), "{dir} {version:?}");
    }
}
