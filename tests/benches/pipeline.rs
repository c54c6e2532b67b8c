//! Stage benchmarks (issue 7): parse-only, load, topology + paths, effective policies, generation,
//! status and YAML rendering, on synthetic estates built in-process by tests/synth/synth.rs.
//!
//! ```text
//! cargo bench --bench pipeline                         # divan: every stage, two estate sizes and #1085
//! POLICYCTL_STAGES=estate.yaml cargo bench --bench pipeline   # one timed run per stage on a file
//! ```
//!
//! Never run in CI: a 2-core box shared with other jobs gives noisy numbers.

#[path = "../synth/synth.rs"]
#[allow(dead_code)]
mod synth;

use divan::Bencher;
use policyctl::GenerateOptions;
use policyctl::Topology;
use policyctl::{Input, LoadOptions, Loaded};
use std::time::Instant;

/// (name, routes, gateways, listeners): the estates the divan benches run on.
const SIZES: &[(&str, usize, usize, usize)] =
    &[("estate-1k", 1000, 10, 10), ("estate-4k", 4000, 10, 10)];

fn input(name: &str) -> Vec<Input> {
    let text = match name {
        "issue1085" => synth::issue1085_text(1).0,
        _ => {
            let &(_, routes, gateways, listeners) =
                SIZES.iter().find(|s| s.0 == name).expect("a known estate");
            synth::estate_text(gateways, listeners, routes, 1).0
        }
    };
    vec![Input::Text {
        name: format!("{name}.yaml"),
        bytes: text.into_bytes(),
    }]
}

fn loaded(inputs: &[Input]) -> Loaded {
    let l = policyctl::load(inputs, &LoadOptions::default());
    assert!(
        !l.diagnostics.has_errors(),
        "the synthetic estate must load cleanly"
    );
    l
}

const ESTATES: &[&str] = &["issue1085", "estate-1k", "estate-4k"];

#[divan::bench(args = ESTATES, sample_count = 5)]
fn parse_only(b: Bencher, name: &str) {
    let inputs = input(name);
    b.bench(|| policyctl::parse_only(&inputs));
}

#[divan::bench(args = ESTATES, sample_count = 5)]
fn load_model(b: Bencher, name: &str) {
    let inputs = input(name);
    b.bench(|| policyctl::load(&inputs, &LoadOptions::default()));
}

#[divan::bench(args = ESTATES, sample_count = 5)]
fn topology_and_paths(b: Bencher, name: &str) {
    let l = loaded(&input(name));
    b.bench(|| {
        let t = Topology::build(&l.model);
        t.path_list().len()
    });
}

#[divan::bench(args = ESTATES, sample_count = 5)]
fn effective(b: Bencher, name: &str) {
    let l = loaded(&input(name));
    let t = Topology::build(&l.model);
    t.path_list();
    b.bench(|| policyctl::effective(&t));
}

#[divan::bench(args = ESTATES, sample_count = 5)]
fn generate_objects(b: Bencher, name: &str) {
    let l = loaded(&input(name));
    let t = Topology::build(&l.model);
    let eff = policyctl::effective(&t);
    let opts = GenerateOptions::default();
    b.bench(|| policyctl::generate(&t, &eff, &opts));
}

#[divan::bench(args = ESTATES, sample_count = 5)]
fn predicted_status(b: Bencher, name: &str) {
    let l = loaded(&input(name));
    let t = Topology::build(&l.model);
    let eff = policyctl::effective(&t);
    let g = policyctl::generate(&t, &eff, &GenerateOptions::default());
    b.bench(|| {
        let s = policyctl::status(
            &t,
            &eff,
            &g.cel_issues,
            Some(&g.components),
            &Default::default(),
        );
        policyctl::status_diagnostics(&t, &s).len()
    });
}

#[divan::bench(args = ESTATES, sample_count = 5)]
fn analyze_and_render(b: Bencher, name: &str) {
    let l = loaded(&input(name));
    b.bench(|| {
        let a = policyctl::analyze(
            &l.model,
            &l.diagnostics,
            &GenerateOptions::default(),
            &Default::default(),
        );
        policyctl::render::objects::yaml_objects(&a.generated.objects).map(|s| s.len())
    });
}

/// One timed run of every stage on the files named by `POLICYCTL_STAGES` (`:`-separated).
fn stages(files: &str) {
    let inputs: Vec<Input> = files.split(':').map(|f| Input::Path(f.into())).collect();
    let clock = Instant::now();
    let mut last = clock;
    let mut last_cpu = cpu_ms();
    let mut lap = |what: &str| {
        let now = Instant::now();
        let cpu = cpu_ms();
        eprintln!(
            "{what:<24} {:>9.1} ms {:>7} ms CPU {:>6} MiB resident {:>6} MiB live {:>6} MiB peak",
            now.duration_since(last).as_secs_f64() * 1e3,
            cpu.zip(last_cpu)
                .map_or_else(|| "?".to_string(), |(c, l)| (c - l).to_string()),
            resident_mib().map_or_else(|| "?".to_string(), |m| m.to_string()),
            HEAP.current_usage() >> 20,
            HEAP.peak_usage() >> 20,
        );
        HEAP.reset_peak_usage();
        last = now;
        last_cpu = cpu;
    };
    let docs = policyctl::parse_only(&inputs);
    lap(&format!("parse only ({docs} docs)"));
    let l = policyctl::load(&inputs, &LoadOptions::default());
    lap("load (parse + model)");
    let t = Topology::build(&l.model);
    lap("topology");
    let n = t.path_list().len();
    lap(&format!("paths ({n})"));
    let eff = policyctl::effective(&t);
    lap("effective");
    let g = policyctl::generate(&t, &eff, &GenerateOptions::default());
    lap("generate");
    let s = policyctl::status(
        &t,
        &eff,
        &g.cel_issues,
        Some(&g.components),
        &Default::default(),
    );
    lap("status");
    let d = policyctl::status_diagnostics(&t, &s);
    lap("status diagnostics");
    let lint = policyctl::lint(&t);
    lap("topology lint");
    // Every finding, sorted and drawn for people as the CLI's default output does (a code with
    // thousands of findings summarised).
    let mut all = l.diagnostics.clone();
    all.extend(lint.clone());
    all.extend(d.clone());
    for x in &g.diagnostics {
        all.push(x.clone());
    }
    all.sort();
    let style = policyctl::render::Style::plain(100);
    let drawn = policyctl::render::diagnostics::human_all(&all, &l.sources, style, "");
    lap(&format!(
        "findings ({}, {} KB drawn)",
        all.len(),
        drawn.len() / 1000
    ));
    // As `compute` does: streamed in batches, never the whole text in memory.
    let mut out = Counted(0);
    let _ = policyctl::render::objects::write_yaml_objects(&g.objects, &mut out);
    lap(&format!("render ({} MB)", out.0 / 1_000_000));
    drop((drawn, all, lint, d, s, g, eff, t));
    drop(l);
    lap("drop");
    eprintln!(
        "{:<24} {:>9.1} ms",
        "total (load twice)",
        clock.elapsed().as_secs_f64() * 1e3
    );
}

/// Heap accounting for the stage table: resident memory alone hides what the allocator keeps after
/// a free.
#[global_allocator]
static HEAP: peak_alloc::PeakAlloc = peak_alloc::PeakAlloc;

/// A sink that counts the bytes written to it.
struct Counted(usize);

impl std::io::Write for Counted {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The CPU time the process has used so far, on every thread, user and system (Linux
/// `/proc/self/stat`, in ticks of 10 ms), in ms; `None` elsewhere. On a shared box it varies far
/// less than the wall time.
fn cpu_ms() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name (which may hold spaces) start after its `)`.
    let mut fields = stat.rsplit_once(')')?.1.split_whitespace();
    let utime: u64 = fields.nth(11)?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some((utime + stime) * 10)
}

/// The process's resident set now (Linux `/proc/self/status`), in MiB; `None` elsewhere.
fn resident_mib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

fn main() {
    match std::env::var("POLICYCTL_STAGES") {
        Ok(files) if !files.is_empty() => stages(&files),
        _ => divan::main(),
    }
}
