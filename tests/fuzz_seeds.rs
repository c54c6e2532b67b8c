//! The fuzz targets' bodies (`tests/fuzz/bodies.rs`, which the nightly cargo-fuzz targets include
//! too) run over their committed seeds on the stable toolchain, so that the targets cannot rot
//! between fuzzing campaigns: each body returns, within a few seconds, and each seed still reaches
//! what it was written to reach (a simulation, an evaluation, a budget).

#[path = "fuzz/bodies.rs"]
mod bodies;

use std::path::PathBuf;
use std::time::Instant;

/// The seeds of one target, by file name.
fn seeds(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from("tests/fuzz/corpus").join(target);
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    out.sort();
    assert!(out.len() >= 4, "{}: {} seeds", dir.display(), out.len());
    out
}

/// Every request-file seed is read and played to its end: no refusal, no budget exceeded.
#[test]
fn request_file_seeds() {
    for (name, data) in seeds("request_file") {
        let start = Instant::now();
        let ran = bodies::request_file(&data);
        assert!(
            start.elapsed() < bodies::SEED_TIME,
            "{name}: {:?}",
            start.elapsed()
        );
        assert_eq!((&ran.refused, &ran.exceeded), (&None, &None), "{name}");
        assert!(
            ran.requests > 0 && ran.requests <= bodies::MAX_REQUESTS,
            "{name}: {ran:?}"
        );
    }
    // A file of more requests than the run's budget is refused before any is simulated.
    let over = format!(
        "\x00- url: http://10.0.0.1/\n  count: {}\n",
        bodies::MAX_REQUESTS + 1
    );
    let ran = bodies::request_file(over.as_bytes());
    assert_eq!(ran.requests, 0);
    assert!(ran.refused.unwrap().contains("--max-requests"));
}

/// Every case-file seed (a guide's cases, against its estate) runs and passes, as
/// `simulate::guide_cases_pass` has them pass through the binary.
#[test]
fn test_file_seeds() {
    for (name, data) in seeds("test_file") {
        let start = Instant::now();
        let ran = bodies::test_file(&data);
        assert!(
            start.elapsed() < bodies::SEED_TIME,
            "{name}: {:?}",
            start.elapsed()
        );
        assert_eq!((&ran.refused, &ran.exceeded), (&None, &None), "{name}");
        assert!(ran.requests > 0, "{name}");
        assert_eq!(ran.failed, 0, "{name}");
    }
}

/// Every CEL seed evaluates to a value, except those named `over-budget-…` (the two expressions of
/// issue 32: seven nested `all` over 20 items, nine nested tenfold `replace`), which exceed the
/// budget of one expression, as cel-go's runtime cost limit stops them, and those named
/// `does-not-parse-…`, which the shim's parser refuses: `does-not-parse-depth-below-zero` took
/// cel 0.12.0's depth count below zero, a panic with overflow checks, and overflowed a test
/// thread's stack unoptimised (both settled in Cargo.toml's profiles), and those named `panics-…`,
/// on which the shim's interpreter panics (cel 0.14.0 on `value()` of an int), which the
/// evaluation reports instead.
#[test]
fn cel_eval_seeds() {
    for (name, data) in seeds("cel_eval") {
        let start = Instant::now();
        let out = bodies::cel_eval(&data);
        assert!(
            start.elapsed() < bodies::SEED_TIME,
            "{name}: {:?}",
            start.elapsed()
        );
        if name.starts_with("over-budget-") {
            let e = out.unwrap_err();
            assert_eq!(e.limit, bodies::CEL_LIMITS.expression, "{name}");
        } else if name.starts_with("panics-") {
            let ev = out.unwrap();
            assert!(
                matches!(&ev.value, Err(e) if e.contains("the shim's interpreter panics")),
                "{name}: {ev:?}"
            );
        } else if name.starts_with("does-not-parse-") {
            let ev = out.unwrap();
            assert!(
                matches!(&ev.value, Err(e) if e.contains("does not parse")),
                "{name}: {ev:?}"
            );
        } else {
            let ev = out.unwrap();
            assert!(matches!(ev.value, Ok(Some(_))), "{name}: {ev:?}");
        }
    }
}
