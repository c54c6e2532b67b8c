//! Input that is not a regular file, and where settings come from (issue 16, classes 4 and 5): pipes,
//! FIFOs, process substitution and `/dev/stdin` are read as streams with a bound; devices are
//! refused; `--config` never blocks; settings are searched for only inside the repository.

use crate::common;
use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn gateway_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/examples/toystore/00-gateway.yaml")
}

fn policyctl(dir: &Path) -> Command {
    let mut c = common::policyctl();
    c.current_dir(dir)
        .env("NO_COLOR", "1")
        .env("COLUMNS", "100");
    c
}

/// Exit code, stdout, and stdout followed by stderr (diagnostics go to stdout, messages to stderr).
fn run(c: &mut Command) -> (i32, String, String) {
    let out = c.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let all = format!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), stdout, all)
}

/// The summary line of `lint`.
fn summary(err: &str) -> &str {
    err.lines()
        .find(|l| l.starts_with("Summary:"))
        .unwrap_or("")
}

#[test]
fn process_substitution_is_read() {
    let bin = assert_cmd::cargo::cargo_bin("policyctl");
    let script = format!(
        "{} lint -f <(cat {})",
        bin.display(),
        gateway_file().display()
    );
    let (code, _, err) = run(
        Command::from_std(common::scrub_std(std::process::Command::new("bash")))
            .args(["-c", &script])
            .env("NO_COLOR", "1"),
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        summary(&err).starts_with("Summary: 1 files, 3 documents, 3 objects"),
        "{err}"
    );
}

#[test]
fn dev_stdin_from_a_pipe_is_read() {
    let text = std::fs::read(gateway_file()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = run(policyctl(dir.path())
        .args(["lint", "-f", "/dev/stdin"])
        .write_stdin(text));
    assert_eq!(code, 0, "{err}");
    assert!(summary(&err).contains("3 objects"), "{err}");
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let ok = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap()
        .success();
    assert!(ok, "mkfifo failed");
}

#[cfg(unix)]
#[test]
fn fifo_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("in.yaml");
    mkfifo(&fifo);
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let text = std::fs::read(gateway_file()).unwrap();
            std::fs::write(&fifo, text).unwrap();
        })
    };
    let (code, _, err) = run(policyctl(dir.path()).args(["lint", "-f", fifo.to_str().unwrap()]));
    writer.join().unwrap();
    assert_eq!(code, 0, "{err}");
    assert!(summary(&err).contains("3 objects"), "{err}");
}

#[test]
fn devices_are_refused_and_null_is_empty() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = run(policyctl(dir.path()).args(["lint", "-f", "/dev/zero"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("PCTL1005") && err.contains("device"), "{err}");
    let (code, _, err) = run(policyctl(dir.path()).args(["lint", "-f", "/dev/null"]));
    assert_eq!(code, 0, "{err}");
    assert!(
        summary(&err).starts_with("Summary: 1 files, 0 documents"),
        "{err}"
    );
}

#[test]
fn an_endless_stream_is_cut_at_the_bound_with_a_message() {
    let bin = assert_cmd::cargo::cargo_bin("policyctl");
    for arg in ["-", "/dev/stdin"] {
        let script = format!(
            "head -c 300000000 /dev/zero | {} lint -f {arg}",
            bin.display()
        );
        let (code, _, err) = run(
            Command::from_std(common::scrub_std(std::process::Command::new("bash")))
                .args(["-c", &script])
                .env("NO_COLOR", "1"),
        );
        assert_eq!(code, 2, "{arg}: {err}");
        assert!(
            err.contains("more than 256 MiB") && err.contains("write the text to a file"),
            "{arg}: {err}"
        );
    }
}

#[cfg(unix)]
#[test]
fn config_on_a_fifo_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("settings.yaml");
    mkfifo(&fifo);
    let start = std::time::Instant::now();
    let (code, _, err) = run(policyctl(dir.path())
        .args(["lint", "--config", fifo.to_str().unwrap(), "-f"])
        .arg(gateway_file())
        .timeout(std::time::Duration::from_secs(20)));
    assert!(start.elapsed().as_secs() < 20, "blocked on the FIFO");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("PCTL4002") && err.contains("not a regular file"),
        "{err}"
    );
    // The null device is an empty settings file.
    let (code, _, err) = run(policyctl(dir.path())
        .args(["lint", "-v", "--config", "/dev/null", "-f"])
        .arg(gateway_file()));
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("settings: /dev/null"), "{err}");
}

/// A lone carriage return is a line break (YAML 1.2): the file reads like its LF twin, and positions
/// count CR-separated lines.
#[test]
fn cr_only_line_endings_are_line_breaks() {
    let lf = std::fs::read_to_string(gateway_file()).unwrap();
    let cr = lf.replace('\n', "\r");
    let load = |t: &str| {
        policyctl::load(
            &[policyctl::Input::Text {
                name: "x.yaml".into(),
                bytes: t.as_bytes().to_vec(),
            }],
            &policyctl::LoadOptions::default(),
        )
    };
    let (a, b) = (load(&lf), load(&cr));
    assert!(b.diagnostics.is_empty(), "{:?}", b.diagnostics);
    assert_eq!(format!("{:?}", a.model), format!("{:?}", b.model));
    // A bad value on line 3 is reported on line 3.
    let bad = "apiVersion: gateway.networking.k8s.io/v1\rkind: Gateway\rmetadata: [unclosed\r";
    let l = load(bad);
    let d = l.diagnostics.iter().next().expect("a diagnostic");
    let pos = l.sources.position(d.labels[0].span).unwrap();
    assert_eq!(pos.line, 3, "{d:?}");
}

/// A repository checked out below a folder holding a hostile settings file: the file above the
/// repository root is not used; one inside the repository (above the current folder) is.
#[test]
fn settings_are_not_searched_above_the_repository_root() {
    let top = tempfile::tempdir().unwrap();
    std::fs::write(
        top.path().join(".policyctl.yaml"),
        "failOn: never\nkuadrantVersion: \"1.5\"\n",
    )
    .unwrap();
    let repo = top.path().join("checkout");
    let sub = repo.join("deploy");
    std::fs::create_dir_all(&sub).unwrap();
    // `.git` as a file, as in a worktree or submodule.
    std::fs::write(repo.join(".git"), "gitdir: /nowhere\n").unwrap();
    let bad = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/invalid/target-not-found.yaml");
    let (code, _, err) = run(policyctl(&sub).args(["lint", "-v", "-f"]).arg(&bad));
    assert_eq!(
        code, 1,
        "the settings above the repository were used: {err}"
    );
    assert!(err.contains("settings: no .policyctl.yaml"), "{err}");
    // Inside the repository, above the current folder: used, and named by -v.
    std::fs::write(repo.join(".policyctl.yaml"), "kuadrantVersion: \"1.5\"\n").unwrap();
    let (_, _, err) = run(policyctl(&sub).args(["lint", "-v", "-f"]).arg(&bad));
    let want = format!("settings: {}", repo.join(".policyctl.yaml").display());
    assert!(err.contains(&want), "{err}");
}

/// Outside any repository only the current folder is searched.
#[test]
fn outside_a_repository_only_the_current_folder_is_searched() {
    let top = tempfile::tempdir().unwrap();
    std::fs::write(
        top.path().join(".policyctl.yaml"),
        "kuadrantNamespace: evil/../../x\n",
    )
    .unwrap();
    let sub = top.path().join("a");
    std::fs::create_dir_all(&sub).unwrap();
    let (code, _, err) = run(policyctl(&sub)
        .args(["lint", "-v", "-f"])
        .arg(gateway_file()));
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("settings: no .policyctl.yaml"), "{err}");
    // In that folder it is read, and the namespace is refused.
    let (code, _, err) = run(policyctl(top.path())
        .args(["lint", "-f"])
        .arg(gateway_file()));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("PCTL4002") && err.contains("DNS-1123 label"),
        "{err}"
    );
}

#[test]
fn kuadrant_namespace_flag_is_a_namespace_name() {
    let dir = tempfile::tempdir().unwrap();
    for bad in ["evil/../../x", "a\nb", "Upper", &"a".repeat(64)] {
        let (code, _, err) = run(policyctl(dir.path())
            .args(["lint", "-n", bad, "-f"])
            .arg(gateway_file()));
        assert_eq!(code, 2, "-n {bad:?}: {err}");
        assert!(
            err.contains("--namespace must be a namespace name"),
            "{err}"
        );
        let (code, _, err) = run(policyctl(dir.path())
            .args(["compute", "--kuadrant-namespace", bad, "-f"])
            .arg(gateway_file()));
        assert_eq!(code, 2, "{bad:?}: {err}");
        assert!(
            err.contains("--kuadrant-namespace must be a namespace name"),
            "{err}"
        );
    }
}

/// A symbolic link found by the search is not followed out of the repository.
#[cfg(unix)]
#[test]
fn a_found_settings_symlink_is_refused() {
    let top = tempfile::tempdir().unwrap();
    let outside = top.path().join("outside.yaml");
    std::fs::write(&outside, "failOn: never\n").unwrap();
    let repo = top.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::os::unix::fs::symlink(&outside, repo.join(".policyctl.yaml")).unwrap();
    let (code, _, err) = run(policyctl(&repo).args(["lint", "-f"]).arg(gateway_file()));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("symbolic link"), "{err}");
}

/// The same files named with `-f` in any order give the same run, byte for byte: the files are
/// read, their documents counted and their findings listed in the order of their paths. Here each
/// file has a finding of its own, two files define the same Namespace alike (which one is kept is
/// named in `PCTL1003`), and the toystore example is spread over files whose names do not sort as
/// they are given.
#[test]
fn files_named_in_any_order_give_the_same_run() {
    let dir = tempfile::tempdir().unwrap();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/examples/toystore");
    let orphan = |n: &str| {
        format!(
            "apiVersion: kuadrant.io/v1\nkind: RateLimitPolicy\nmetadata: {{name: orphan-{n}, namespace: x}}\nspec:\n  targetRef: {{group: gateway.networking.k8s.io, kind: HTTPRoute, name: nope-{n}}}\n  limits:\n    l: {{rates: [{{limit: 1, window: 1s}}]}}\n"
        )
    };
    let namespace = "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n";
    let files = [
        ("z.yaml", "00-gateway.yaml"),
        ("m.yaml", "10-gateway-policies.yaml"),
        ("a.yaml", "20-toystore.yaml"),
        ("k.yaml", "30-storefront.yaml"),
    ];
    for (name, from) in files {
        let text = std::fs::read_to_string(example.join(from)).unwrap();
        let n = &name[..1];
        let text = format!("{text}\n---\n{}{namespace}", orphan(n));
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let names: Vec<&str> = files.iter().map(|(n, _)| *n).collect();
    let mut reversed = names.clone();
    reversed.reverse();
    for args in [
        &["compute"][..],
        &["lint"],
        &["lint", "-o", "json"],
        &["status"],
        &["graph"],
        &["compute", "--max-documents", "9"],
    ] {
        let with = |order: &[&str]| {
            let mut c = policyctl(dir.path());
            c.args(args);
            for n in order {
                c.args(["-f", n]);
            }
            let out = c.output().unwrap();
            (out.status.code(), out.stdout, out.stderr)
        };
        let given = with(&names);
        assert_eq!(with(&reversed), given, "{args:?}");
        let text =
            String::from_utf8_lossy(&given.1).into_owned() + &String::from_utf8_lossy(&given.2);
        if args == ["lint"] {
            // The first finding is of the file whose name sorts first, and the Namespace kept is
            // that file's.
            let first = text.find("orphan-a").unwrap();
            assert!(first < text.find("orphan-k").unwrap(), "{text}");
            assert!(text.contains("kept: a.yaml:"), "{text}");
        }
        if args.contains(&"--max-documents") {
            assert!(text.contains("PCTL1019"), "{text}");
        }
    }
    // `watch` reads its files in the same order: one cycle's findings and statuses are the same
    // (the cycle's own line ends with its duration).
    let watch = |order: &[&str]| {
        let mut c = policyctl(dir.path());
        c.args(["watch", "--cycles", "1"]);
        for n in order {
            c.args(["-f", n]);
        }
        c.arg("lint");
        let out = c.output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        let lines: Vec<String> = (text.lines())
            .filter(|l| !l.starts_with("cycle "))
            .map(str::to_owned)
            .collect();
        (out.status.code(), lines)
    };
    let given = watch(&names);
    assert!(given.1.iter().any(|l| l.contains("orphan-z")), "{given:?}");
    assert_eq!(watch(&reversed), given);
}
