//! `drive`: the fuzz targets' bodies (`bodies.rs`) under a mutation loop, built with the stable
//! toolchain and without coverage instrumentation, for volume: many millions of executions in the
//! time libFuzzer's instrumented build needs for a few hundred thousand. It does not learn from
//! coverage; it mutates a corpus that a libFuzzer campaign grew (see docs/fuzzing.md), with
//! libFuzzer's kinds of mutation (bit and byte changes, insertions, deletions, copies, dictionary
//! tokens, splices).
//!
//! ```text
//! cargo build --release --manifest-path tests/fuzz/Cargo.toml --bin drive
//! tests/fuzz/target/release/drive TARGET RUNS SEED MAX_LEN DICT|- CORPUS_DIR...
//! ```
//!
//! A panic writes the input to `crash-TARGET-SEED` and exits 101 (the panic's own code); an
//! execution that takes more than ten seconds writes it to `timeout-TARGET-SEED` and exits 70.

#[path = "bodies.rs"]
mod bodies;

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The input being executed, for the panic hook and the watchdog.
static CURRENT: Mutex<Vec<u8>> = Mutex::new(Vec::new());
/// Executions finished so far.
static DONE: AtomicU64 = AtomicU64::new(0);

/// xorshift64*: a fixed sequence for a seed, so that a run can be repeated.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// The tokens of a libFuzzer dictionary: each line's text between its first and last quote, with
/// `\\`, `\"` and `\xNN` escapes.
fn dictionary(text: &str) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for line in text.lines() {
        let (Some(a), Some(b)) = (line.find('"'), line.rfind('"')) else {
            continue;
        };
        if line.trim_start().starts_with('#') || b <= a {
            continue;
        }
        let raw = &line.as_bytes()[a + 1..b];
        let mut tok = Vec::with_capacity(raw.len());
        let mut i = 0;
        while i < raw.len() {
            match raw[i] {
                b'\\' if raw.get(i + 1) == Some(&b'x') => {
                    let hex = std::str::from_utf8(raw.get(i + 2..i + 4).unwrap_or_default())
                        .ok()
                        .and_then(|h| u8::from_str_radix(h, 16).ok());
                    match hex {
                        Some(v) => {
                            tok.push(v);
                            i += 4;
                        }
                        None => {
                            tok.push(b'\\');
                            i += 1;
                        }
                    }
                }
                b'\\' if i + 1 < raw.len() => {
                    tok.push(raw[i + 1]);
                    i += 2;
                }
                c => {
                    tok.push(c);
                    i += 1;
                }
            }
        }
        out.push(tok);
    }
    out
}

const INTERESTING: [u8; 12] = [
    0, 0xff, 0x7f, 0x80, b'"', b'\'', b'\n', b'\r', b'(', b')', b'.', b'\\',
];

fn mutate(rng: &mut Rng, input: &mut Vec<u8>, corpus: &[Vec<u8>], dict: &[Vec<u8>], max: usize) {
    for _ in 0..=rng.below(4) {
        let len = input.len();
        match rng.below(9) {
            0 if len > 0 => {
                let i = rng.below(len);
                input[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                input[i] = rng.next() as u8;
            }
            2 => {
                let i = rng.below(len + 1);
                input.insert(i, rng.next() as u8);
            }
            3 if len > 1 => {
                let i = rng.below(len);
                let n = 1 + rng.below((len - i).min(8));
                input.drain(i..i + n);
            }
            4 if len > 1 => {
                let i = rng.below(len);
                let n = 1 + rng.below((len - i).min(16));
                let piece = input[i..i + n].to_vec();
                let at = rng.below(input.len() + 1);
                input.splice(at..at, piece);
            }
            5 if !dict.is_empty() => {
                let tok = &dict[rng.below(dict.len())];
                let at = rng.below(len + 1);
                input.splice(at..at, tok.iter().copied());
            }
            6 if !corpus.is_empty() => {
                let other = &corpus[rng.below(corpus.len())];
                let cut = rng.below(len + 1);
                let from = rng.below(other.len() + 1);
                input.truncate(cut);
                input.extend_from_slice(&other[from..]);
            }
            7 if len > 0 => {
                let i = rng.below(len);
                input[i] = INTERESTING[rng.below(INTERESTING.len())];
            }
            _ if len > 0 => {
                // A whole-token swap: an interesting byte inserted where the input breaks a token.
                let i = rng.below(len);
                input.insert(i, INTERESTING[rng.below(INTERESTING.len())]);
            }
            _ => input.push(rng.next() as u8),
        }
    }
    input.truncate(max);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 7 {
        eprintln!(
            "usage: drive request_file|test_file|cel_eval RUNS SEED MAX_LEN DICT|- CORPUS_DIR..."
        );
        std::process::exit(2);
    }
    let target = args[1].clone();
    let runs: u64 = args[2].parse().expect("RUNS is a number");
    let seed: u64 = args[3].parse().expect("SEED is a number");
    let max: usize = args[4].parse().expect("MAX_LEN is a number");
    let dict = match args[5].as_str() {
        "-" => Vec::new(),
        path => dictionary(&std::fs::read_to_string(path).expect("the dictionary reads")),
    };
    let mut corpus: Vec<Vec<u8>> = Vec::new();
    for dir in &args[6..] {
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .expect("a corpus folder reads")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        corpus.extend(files.iter().filter_map(|p| std::fs::read(p).ok()));
    }
    if corpus.is_empty() {
        corpus.push(Vec::new());
    }
    let body: fn(&[u8]) = match target.as_str() {
        "request_file" => |d| {
            let _ = bodies::request_file(d);
        },
        "test_file" => |d| {
            let _ = bodies::test_file(d);
        },
        "cel_eval" => |d| {
            let _ = bodies::cel_eval(d);
        },
        other => {
            eprintln!("drive: no target {other}");
            std::process::exit(2);
        }
    };
    let crash = format!("crash-{target}-{seed}");
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if let Ok(input) = CURRENT.lock() {
            let _ = std::fs::write(&crash, &*input);
        }
        hook(info);
        std::process::exit(101);
    }));
    let timeout = format!("timeout-{target}-{seed}");
    std::thread::spawn(move || {
        let mut last = (0, Instant::now());
        loop {
            std::thread::sleep(Duration::from_secs(1));
            let done = DONE.load(Ordering::Relaxed);
            if done != last.0 {
                last = (done, Instant::now());
            } else if last.1.elapsed() > Duration::from_secs(10) {
                if let Ok(input) = CURRENT.lock() {
                    let _ = std::fs::write(&timeout, &*input);
                }
                eprintln!("drive: an execution ran over 10 s; its input is in {timeout}");
                std::process::exit(70);
            }
        }
    });
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let start = Instant::now();
    let mut input = Vec::new();
    for n in 0..runs {
        input.clear();
        input.extend_from_slice(&corpus[rng.below(corpus.len())]);
        mutate(&mut rng, &mut input, &corpus, &dict, max);
        if let Ok(mut cur) = CURRENT.lock() {
            cur.clear();
            cur.extend_from_slice(&input);
        }
        body(&input);
        DONE.store(n + 1, Ordering::Relaxed);
        if (n + 1) % 1_000_000 == 0 {
            eprintln!(
                "{target}: {} runs, {:.0} s",
                n + 1,
                start.elapsed().as_secs_f64()
            );
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{target} seed {seed}: {runs} runs in {secs:.1} s ({:.0}/s) over {} corpus inputs, no crash, no timeout",
        runs as f64 / secs,
        corpus.len()
    );
}
