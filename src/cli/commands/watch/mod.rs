//! `policyctl watch`: keep the computed state up to date while files change, and print each cycle.
//!
//! The file-system events (gathered in `events`), the timer, `--out-dir` writes and printing live
//! here; the state and what changed between two states are the library's (`policyctl::watch`).

mod events;

use crate::cli::common::{CliError, GenArgs, InputArgs, Outcome, Ui};
use clap::{Args, Subcommand};
use notify::{RecursiveMode, Watcher};
use policyctl::outdir;
use policyctl::render::terminal;
use policyctl::{CycleReport, Watch, WatchOptions};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Watch the input files and recompute on every change.
#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  policyctl watch -f manifests/\n  policyctl watch -f manifests/ --out-dir generated/\n  policyctl watch -f manifests/ status\n  policyctl watch -f manifests/ explain httproute/shop/toystore\n\n\
Each cycle prints the output objects created, updated and deleted, the policies whose predicted\n\
status changed, the findings that appeared or were resolved, and a summary line. Press Enter for a\n\
full recompute. Stop with Ctrl-C."
)]
pub struct WatchArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub gen_args: GenArgs,
    /// Keep this folder in sync with the generated objects, as `compute --out-dir` does (atomic
    /// writes, prune, marker line), writing only the files that changed.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// With --out-dir: seconds to wait for another policyctl run writing the same folder to finish
    /// (0: do not wait) [default: 300].
    #[arg(long, value_name = "SECS", requires = "out_dir")]
    pub lock_timeout: Option<u64>,
    /// Milliseconds without events before a cycle starts (an editor's save is several events; at
    /// most an hour).
    #[arg(long, value_name = "MS", default_value_t = 50,
          value_parser = clap::value_parser!(u64).range(0..=3_600_000))]
    pub debounce: u64,
    /// Also recompute everything from scratch every SECS seconds (the state must not change).
    #[arg(long, value_name = "SECS")]
    pub resync: Option<u64>,
    /// Stop after N cycles that recomputed (the first, initial one included); for scripts and tests.
    #[arg(long, value_name = "N")]
    pub cycles: Option<u64>,
    /// What to show after each cycle besides the changes.
    #[command(subcommand)]
    pub view: Option<View>,
}

#[derive(Subcommand, Debug)]
pub enum View {
    /// Every policy's predicted status after each cycle.
    Status,
    /// Every finding after each cycle.
    Lint,
    /// A target's paths after each cycle (TARGET as for `policyctl explain`).
    Explain {
        #[arg(value_name = "TARGET")]
        target: String,
        /// Only this policy kind (RateLimitPolicy, AuthPolicy, TokenRateLimitPolicy).
        #[arg(long, value_name = "KIND")]
        kind: Option<String>,
    },
}

/// What wakes the loop.
enum Wake {
    Changed(Vec<PathBuf>),
    Failed(String),
    Resync,
}

pub fn run(a: WatchArgs, ui: &Ui) -> Result<Outcome, CliError> {
    if a.input.filenames.iter().any(|f| f == "-") {
        return Err(CliError::Usage(
            "watch reads files and folders; -f - (stdin) cannot be watched".into(),
        ));
    }
    let opts = options(&a)?;
    let roots = opts.roots.clone();
    let mut state = Watch::new(opts, a.input.settings_sources.clone());
    let io = |e: outdir::OutDirError| CliError::Io(e.to_string());
    // Held for the whole session: a `compute --out-dir` on the same folder stops instead of
    // interleaving with our writes.
    let _lock = match &a.out_dir {
        Some(dir) => {
            outdir::prepare(dir).map_err(io)?;
            Some(crate::cli::common::lock_out_dir(ui, dir, true, a.lock_timeout).map_err(io)?)
        }
        None => None,
    };
    let (tx, rx) = mpsc::channel::<Wake>();
    let out_dir = a.out_dir.as_deref().map(absolute);
    // Dropped (and stopped) when the command returns.
    let dir_roots: Vec<PathBuf> = roots
        .iter()
        .map(|r| absolute(r))
        .filter(|r| r.is_dir())
        .collect();
    let mut watcher = watcher(
        &roots,
        Duration::from_millis(a.debounce),
        out_dir.clone(),
        tx.clone(),
    )?;
    // Enter on stdin asks for a full recompute.
    std::thread::spawn(move || {
        let mut line = String::new();
        while std::io::stdin().read_line(&mut line).is_ok_and(|n| n > 0) {
            line.clear();
            if tx.send(Wake::Resync).is_err() {
                break;
            }
        }
    });
    let mut cycles = 0u64;
    let pause = memory_returned_in_pauses();
    let mut woke = Instant::now();
    let mut deferred: Option<Wake> = None;
    let mut report = state.apply(&[]);
    let mut last_resync = Instant::now();
    // The whole folder is written on the first cycle and after a cycle whose writes failed
    // (counted, not listed), and on a resync (listed: what it repaired).
    let mut whole = true;
    let mut listed = false;
    // Folders among the roots that were removed: watched again once they are back.
    let mut gone: BTreeSet<PathBuf> = BTreeSet::new();
    loop {
        if report.recomputed {
            cycles += 1;
            let written = write(out_dir.as_deref(), &mut report, whole);
            show(
                ui,
                &a,
                &state,
                &report,
                !listed,
                written.as_deref(),
                woke.elapsed(),
            )?;
            whole = written.is_some();
            listed = !whole;
            if whole {
                state.forget_outputs();
            }
            let _ = pause.send(());
            if a.cycles.is_some_and(|n| cycles >= n) {
                return Ok(Outcome::Clean);
            }
            report.recomputed = false;
        }
        let wait = match a.resync {
            Some(s) => Duration::from_secs(s).saturating_sub(last_resync.elapsed()),
            None => Duration::from_secs(3600),
        };
        let received = match deferred.take() {
            Some(w) => Ok(w),
            None => rx.recv_timeout(wait),
        };
        woke = Instant::now();
        report = match received {
            Ok(Wake::Changed(mut paths)) => {
                // Coalesce the batches already waiting (a checkout that outlasted a long cycle);
                // anything else waiting is the next wake.
                loop {
                    match rx.try_recv() {
                        Ok(Wake::Changed(more)) => paths.extend(more),
                        Ok(other) => {
                            deferred = Some(other);
                            break;
                        }
                        Err(_) => break,
                    }
                }
                let back = rewatch(&mut watcher, &dir_roots, Some(&paths), &mut gone);
                paths.extend(back);
                if paths.is_empty() {
                    continue;
                }
                state.apply(&paths)
            }
            Ok(Wake::Failed(e)) => {
                ui.error(&format!("file watching: {e}; recomputing everything"));
                rewatch(&mut watcher, &dir_roots, None, &mut gone);
                state.resync()
            }
            Ok(Wake::Resync) | Err(mpsc::RecvTimeoutError::Timeout) => {
                last_resync = woke;
                rewatch(&mut watcher, &dir_roots, None, &mut gone);
                // The folder is compared with the whole state, not only with the last cycle's
                // changes: files edited by hand are written again, files planted with our
                // marker pruned.
                if out_dir.is_some() {
                    state.forget_outputs();
                    whole = true;
                    listed = true;
                }
                state.resync()
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(Outcome::Clean),
        };
    }
}

/// Watch again the folders among the roots that were removed and are back (a watch ends with its
/// folder): those an event names (their parent's watch sees them removed and created, or renamed
/// into place, even within one batch), those found gone at an earlier wake, and, on a resync
/// (`named` is `None`), every one. The roots watched again, whose files are all to be read. A root
/// now gone is noted.
fn rewatch(
    watcher: &mut notify::RecommendedWatcher,
    roots: &[PathBuf],
    named: Option<&[PathBuf]>,
    gone: &mut BTreeSet<PathBuf>,
) -> Vec<PathBuf> {
    let mut back = Vec::new();
    for root in roots {
        if !root.is_dir() {
            gone.insert(root.clone());
            continue;
        }
        if gone.contains(root) || named.is_none_or(|n| n.contains(root)) {
            let _ = watcher.unwatch(root);
            if watcher.watch(root, RecursiveMode::Recursive).is_ok() {
                gone.remove(root);
                back.push(root.clone());
            }
        }
    }
    back
}

/// A thread that, once no cycle has run for a while, lets the allocator hand the memory the cycles
/// freed back to the system; a cycle sends it `()` when it ends.
///
/// The binary's allocator (mimalloc, `src/main.rs`) returns freed memory to the system a second
/// after it is freed (its `purge_delay`, 1000 ms in its v3), from inside a later allocation or free
/// that looks at its arenas. In `watch` that is the next cycle, after the pause while the user
/// edits: the first incremental cycle returned what the first full cycle of the 100k estate
/// freed, about 45 ms of its ~210 (tests/benches/README.md, session 9). Here large blocks are freed
/// in the pause instead, and what has expired is returned then. One call returns the memory of
/// at most a quarter of the allocator's arenas, plus one (`mi_arenas_try_purge` in mimalloc
/// v3.3.2's `src/arena.c`): after one block, the first edit still spent ~37 ms returning the rest
/// (session 10), so blocks are freed until every arena has been visited.
fn memory_returned_in_pauses() -> mpsc::Sender<()> {
    // Longer than the allocator's delay.
    const PAUSE: Duration = Duration::from_millis(1200);
    let (tx, rx) = mpsc::channel::<()>();
    let purge = move || {
        while rx.recv().is_ok() {
            // Every cycle that ends starts the pause again.
            loop {
                match rx.recv_timeout(PAUSE) {
                    Ok(()) => {}
                    Err(mpsc::RecvTimeoutError::Timeout) => break,
                    Err(mpsc::RecvTimeoutError::Disconnected) => return,
                }
            }
            // Blocks of the size the allocator takes from its arenas, each freed at once (kept
            // from being optimised away); their pages are never touched. Each free visits the
            // next arenas; an arena with nothing expired costs a glance.
            for _ in 0..64 {
                drop(std::hint::black_box(Vec::<u8>::with_capacity(8 << 20)));
            }
        }
    };
    // Without the thread, the memory is returned as before, within a cycle.
    let _ = std::thread::Builder::new()
        .name("idle memory".into())
        .spawn(purge);
    tx
}

/// Watch the roots (folders recursively; a file through its folder) and send a batch of changed
/// paths to `events` after each quiet period of `quiet` (see `events`); changes under `ignored`
/// (the output folder) are left out. Watching stops when the returned watcher is dropped.
fn watcher(
    roots: &[PathBuf],
    quiet: Duration,
    ignored: Option<PathBuf>,
    events: mpsc::Sender<Wake>,
) -> Result<notify::RecommendedWatcher, CliError> {
    let (raw_tx, raw_rx) = mpsc::channel();
    let mut watcher = notify::recommended_watcher(raw_tx)
        .map_err(|e| CliError::Io(format!("cannot watch files: {e}")))?;
    for root in roots {
        // Watched as absolute paths, so that events name files as the output folder is named.
        let root = &absolute(root);
        let (path, mode) = if root.is_dir() {
            (root.clone(), RecursiveMode::Recursive)
        } else {
            // An editor replaces a file by renaming a new one over it: watch its folder.
            let parent = root.parent().filter(|p| !p.as_os_str().is_empty());
            (
                parent.unwrap_or(Path::new(".")).to_path_buf(),
                RecursiveMode::NonRecursive,
            )
        };
        watcher
            .watch(&path, mode)
            .map_err(|e| CliError::Io(format!("cannot watch {}: {e}", shown(&path))))?;
        // A folder's watch ends when the folder is removed: its parent is watched too, so that
        // the folder created again wakes the loop, which watches it again (`rewatch`).
        if mode == RecursiveMode::Recursive
            && let Some(parent) = root.parent()
        {
            let _ = watcher.watch(parent, RecursiveMode::NonRecursive);
        }
    }
    let roots = roots.to_vec();
    // The thread ends when the watcher, which holds the other end of `raw_rx`, is dropped.
    std::thread::Builder::new()
        .name("file events".into())
        .spawn(move || events::run(raw_rx, quiet, roots, ignored, events))
        .map_err(|e| CliError::Io(format!("cannot watch files: {e}")))?;
    Ok(watcher)
}

/// The library's options from the flags.
fn options(a: &WatchArgs) -> Result<WatchOptions, CliError> {
    let explain = match &a.view {
        Some(View::Explain { target, kind }) => {
            let kind = super::explain::kind_filter(kind.as_deref())?;
            let t = policyctl::parse_target(target).map_err(CliError::Usage)?;
            Some((t, kind))
        }
        _ => None,
    };
    Ok(WatchOptions {
        roots: a.input.filenames.iter().map(PathBuf::from).collect(),
        load: a.input.load_options()?,
        generate: a.gen_args.options(&a.input.settings)?,
        status: Default::default(),
        ignore: a.input.settings.ignore.clone(),
        explain,
        out_dir: a.out_dir.clone(),
    })
}

/// Bring `--out-dir` up to date with a cycle's changes (`whole`: the changes are every file, and
/// files of ours not among them are pruned). The error, if the folder could not be written. With a
/// folder, the report's lists become what was done to it: a file left as it was (a whole cycle's
/// unchanged files) is not counted, and after an error nothing is (a refused overwrite wrote
/// nothing; the next cycle writes the whole folder and counts what it does).
fn write(dir: Option<&Path>, r: &mut CycleReport, first: bool) -> Option<String> {
    // The texts are written, not shown: they are taken (a large Limitador's is tens of megabytes,
    // shared with the state, which would copy it to change it while they are held).
    let changes: Vec<_> = r
        .created
        .iter_mut()
        .chain(&mut r.updated)
        .chain(&mut r.deleted)
        .map(|c| (c.file.clone(), c.object.clone(), c.content.take()))
        .collect();
    let dir = dir?;
    let steps =
        outdir::plan_changes(dir, changes, first).and_then(|s| outdir::apply(dir, &s).map(|()| s));
    r.created.clear();
    r.updated.clear();
    r.deleted.clear();
    let steps = match steps {
        Ok(s) => s,
        Err(e) => return Some(e.to_string()),
    };
    for s in steps {
        let list = match s.action {
            outdir::Action::Created => &mut r.created,
            outdir::Action::Updated => &mut r.updated,
            outdir::Action::Pruned | outdir::Action::Leftover => &mut r.deleted,
            outdir::Action::Unchanged => continue,
        };
        list.push(policyctl::FileChange {
            file: s.file,
            object: s.object,
            content: None,
        });
    }
    None
}

/// Print one cycle.
fn show(
    ui: &Ui,
    a: &WatchArgs,
    state: &Watch,
    r: &CycleReport,
    whole: bool,
    written: Option<&str>,
    took: Duration,
) -> Result<(), CliError> {
    let mut out = String::new();
    let file = |f: &str| match &a.out_dir {
        Some(d) => shown(&d.join(f)),
        None => terminal::line(f).into_owned(),
    };
    // The first cycle (and one after failed writes) creates everything: counted, not listed.
    if !whole {
        for (verb, list) in [
            ("created", &r.created),
            ("updated", &r.updated),
            ("deleted", &r.deleted),
        ] {
            for c in list {
                out.push_str(&format!("{verb:<9}{} ({})\n", file(&c.file), c.object));
            }
        }
        for s in &r.status_changes {
            let now = s.after.as_deref().unwrap_or("(removed)");
            out.push_str(&format!("status   {}: {now}", terminal::line(&s.policy)));
            if let Some(b) = &s.before {
                out.push_str(&format!(" (was {b})"));
            }
            out.push('\n');
        }
    }
    for d in &r.new_diagnostics {
        out.push_str(&format!("new      {d}\n"));
    }
    for d in &r.resolved_diagnostics {
        out.push_str(&format!("resolved {d}\n"));
    }
    if let Some(e) = written {
        out.push_str(&format!(
            "error[{}]: --out-dir: {}; the next cycle writes the whole folder\n",
            policyctl::diag::Code::WatchOutDir.as_str(),
            terminal::line(e)
        ));
    }
    match &a.view {
        Some(View::Status) => {
            for (p, s) in state.statuses() {
                out.push_str(&format!("  {}: {s}\n", terminal::line(p)));
            }
        }
        Some(View::Lint) => {
            for d in state.diagnostics() {
                out.push_str(&format!("  {d}\n"));
            }
        }
        Some(View::Explain { .. }) => match &r.explain {
            Some(Ok(e)) => out.push_str(&policyctl::render::explain::text(e)),
            Some(Err(m)) => out.push_str(&format!("  {}\n", terminal::line(&m.to_string()))),
            None => {}
        },
        None => {}
    }
    out.push_str(&summary(r, took));
    ui.out(&out)?;
    if ui.verbose {
        let stages: Vec<String> = r
            .stages
            .iter()
            .map(|(name, d)| format!("{name} {:.1} ms", d.as_secs_f64() * 1000.0))
            .collect();
        ui.err(&format!(
            "cycle {} stages: {}\n",
            r.cycle,
            stages.join(", ")
        ));
    }
    Ok(())
}

/// `cycle 2: 1 of 40 files read, 1 parsed, paths of 1 gateway recomputed; 0 created, 1 updated, 0
/// deleted (212 objects); 1 status changed; 0 new, 1 resolved findings; 4.1 ms` (from the debounced
/// event to the files written). A full cycle says `everything recomputed`, one in which a file stopped
/// parsing `no object changed`.
fn summary(r: &CycleReport, took: Duration) -> String {
    format!(
        "cycle {}: {} of {} files read, {} parsed{}, {}; {} created, {} updated, {} deleted ({} objects); {} status changed; {} new, {} resolved findings; {:.1} ms\n",
        r.cycle,
        r.files_read,
        r.files,
        r.files_parsed,
        if r.files_removed > 0 {
            format!(", {} gone", r.files_removed)
        } else {
            String::new()
        },
        match r.incremental {
            Some(0) => "no object changed".to_string(),
            Some(1) => "paths of 1 gateway recomputed".to_string(),
            Some(n) => format!("paths of {n} gateways recomputed"),
            None => "everything recomputed".to_string(),
        },
        r.created.len(),
        r.updated.len(),
        r.deleted.len(),
        r.objects,
        r.status_changes.len(),
        r.new_diagnostics.len(),
        r.resolved_diagnostics.len(),
        took.as_secs_f64() * 1000.0
    )
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// A path for the terminal: control characters escaped.
fn shown(p: &Path) -> String {
    terminal::line(&p.display().to_string()).into_owned()
}
