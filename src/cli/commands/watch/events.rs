//! File-system events, gathered into one batch per quiet period.
//!
//! An editor's save is several events (a temporary file written, then renamed over the old one), and
//! a `git checkout` thousands. The events go into a batch that is handed to the loop once no change
//! has come for `--debounce` milliseconds: at that moment exactly, since the thread waits for the
//! next event or for the batch's deadline, whichever comes first (nothing is polled while the
//! folder is quiet). A batch that keeps growing is handed over at the latest
//! [`LONGEST`] quiet periods after its first event, so that a file written without a pause cannot
//! hold every cycle back.

use super::Wake;
use notify::event::{AccessKind, AccessMode, EventKind};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How many quiet periods a batch waits at most after its first event.
pub(super) const LONGEST: u32 = 20;

/// The changes since the last batch was handed over.
#[derive(Debug, Default)]
pub(super) struct Batch {
    paths: BTreeSet<PathBuf>,
    /// The system lost events (its queue overflowed): every file is read again.
    rescan: bool,
    errors: Vec<String>,
    first: Option<Instant>,
    last: Option<Instant>,
}

impl Batch {
    /// Take `event`, received at `now`. Events that cannot change a file (opens and reads, which
    /// `watch`'s own reading causes) and paths under `ignored` (the `--out-dir` folder, which
    /// `watch` writes) are left out and do not delay the batch.
    pub(super) fn add(
        &mut self,
        event: notify::Result<notify::Event>,
        now: Instant,
        ignored: Option<&Path>,
    ) {
        match event {
            Ok(e) if e.need_rescan() => self.rescan = true,
            Ok(e) => {
                if !is_change(&e.kind) {
                    return;
                }
                let before = self.paths.len();
                self.paths.extend(
                    e.paths
                        .into_iter()
                        .filter(|p| !ignored.is_some_and(|d| p.starts_with(d))),
                );
                if self.paths.len() == before {
                    return;
                }
            }
            Err(e) => self.errors.push(e.to_string()),
        }
        self.first.get_or_insert(now);
        self.last = Some(now);
    }

    /// When the batch is to be handed over: `quiet` after its last event, at the latest
    /// [`LONGEST`] times `quiet` after its first; `None` while it is empty.
    pub(super) fn due(&self, quiet: Duration) -> Option<Instant> {
        Some((self.last? + quiet).min(self.first? + quiet * LONGEST))
    }

    /// What the batch asks of the loop, and an empty batch in its place: the errors (the loop
    /// recomputes everything), or every root when events were lost, or the changed paths.
    pub(super) fn take(&mut self, roots: &[PathBuf]) -> Wake {
        let b = std::mem::take(self);
        if !b.errors.is_empty() {
            Wake::Failed(b.errors.join("; "))
        } else if b.rescan {
            Wake::Changed(roots.to_vec())
        } else {
            Wake::Changed(b.paths.into_iter().collect())
        }
    }
}

/// Whether an event may change a file's text: not the opens and reads, but a write being closed
/// is.
fn is_change(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        _ => true,
    }
}

/// Gather the events of `raw` into batches sent to `wakes`, until either channel closes.
pub(super) fn run(
    raw: mpsc::Receiver<notify::Result<notify::Event>>,
    quiet: Duration,
    roots: Vec<PathBuf>,
    ignored: Option<PathBuf>,
    wakes: mpsc::Sender<Wake>,
) {
    let mut batch = Batch::default();
    loop {
        let next = match batch.due(quiet) {
            None => raw.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected),
            Some(due) => raw.recv_timeout(due.saturating_duration_since(Instant::now())),
        };
        match next {
            Ok(e) => batch.add(e, Instant::now(), ignored.as_deref()),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => return,
        }
        if batch.due(quiet).is_some_and(|due| due <= Instant::now())
            && wakes.send(batch.take(&roots)).is_err()
        {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{CreateKind, ModifyKind, RenameMode};

    fn event(kind: EventKind, paths: &[&str]) -> notify::Result<notify::Event> {
        let mut e = notify::Event::new(kind);
        e.paths = paths.iter().map(PathBuf::from).collect();
        Ok(e)
    }

    fn rename(paths: &[&str]) -> notify::Result<notify::Event> {
        event(EventKind::Modify(ModifyKind::Name(RenameMode::Both)), paths)
    }

    const QUIET: Duration = Duration::from_millis(50);

    #[test]
    fn a_batch_is_due_a_quiet_period_after_its_last_change() {
        let t0 = Instant::now();
        let ms = |n| t0 + Duration::from_millis(n);
        let mut b = Batch::default();
        assert_eq!(b.due(QUIET), None);
        b.add(
            event(EventKind::Create(CreateKind::File), &["/r/a.tmp"]),
            ms(0),
            None,
        );
        assert_eq!(b.due(QUIET), Some(ms(50)));
        b.add(rename(&["/r/a.tmp", "/r/a.yaml"]), ms(30), None);
        assert_eq!(b.due(QUIET), Some(ms(80)));
        let Wake::Changed(paths) = b.take(&[]) else {
            panic!("a change expected");
        };
        assert_eq!(
            paths,
            [PathBuf::from("/r/a.tmp"), PathBuf::from("/r/a.yaml")]
        );
        assert_eq!(b.due(QUIET), None, "an empty batch is left");
    }

    #[test]
    fn a_batch_that_keeps_growing_is_due_at_the_latest_after_longest_periods() {
        let t0 = Instant::now();
        let mut b = Batch::default();
        for i in 0..100u64 {
            let p = format!("/r/{i}.yaml");
            b.add(
                event(EventKind::Create(CreateKind::File), &[&p]),
                t0 + Duration::from_millis(40 * i),
                None,
            );
        }
        assert_eq!(b.due(QUIET), Some(t0 + QUIET * LONGEST));
    }

    #[test]
    fn reads_and_the_output_folder_neither_count_nor_delay() {
        let t0 = Instant::now();
        let mut b = Batch::default();
        let out = Path::new("/r/out");
        b.add(
            event(
                EventKind::Access(AccessKind::Open(AccessMode::Read)),
                &["/r/a.yaml"],
            ),
            t0,
            Some(out),
        );
        b.add(
            event(
                EventKind::Access(AccessKind::Close(AccessMode::Read)),
                &["/r/a.yaml"],
            ),
            t0,
            Some(out),
        );
        b.add(
            event(EventKind::Create(CreateKind::File), &["/r/out/x.yaml"]),
            t0,
            Some(out),
        );
        assert_eq!(b.due(QUIET), None);
        b.add(
            event(
                EventKind::Access(AccessKind::Close(AccessMode::Write)),
                &["/r/a.yaml"],
            ),
            t0,
            Some(out),
        );
        b.add(
            event(EventKind::Create(CreateKind::File), &["/r/out/y.yaml"]),
            t0 + QUIET,
            Some(out),
        );
        assert_eq!(
            b.due(QUIET),
            Some(t0 + QUIET),
            "the output folder's write does not delay it"
        );
        assert!(matches!(b.take(&[]), Wake::Changed(p) if p == [PathBuf::from("/r/a.yaml")]));
    }

    #[test]
    fn lost_events_read_every_root_again_and_errors_recompute_everything() {
        let t0 = Instant::now();
        let roots = [PathBuf::from("/r"), PathBuf::from("/s/f.yaml")];
        let mut b = Batch::default();
        b.add(
            event(EventKind::Create(CreateKind::File), &["/r/a.yaml"]),
            t0,
            None,
        );
        b.add(
            Ok(notify::Event::new(EventKind::Other).set_flag(notify::event::Flag::Rescan)),
            t0,
            None,
        );
        assert_eq!(b.due(QUIET), Some(t0 + QUIET));
        assert!(matches!(b.take(&roots), Wake::Changed(p) if p == roots));
        b.add(Err(notify::Error::generic("too many watches")), t0, None);
        assert!(matches!(b.take(&roots), Wake::Failed(m) if m.contains("too many watches")));
    }

    #[test]
    fn the_thread_hands_over_one_batch_per_quiet_period_and_stops_with_its_channel() {
        let (raw_tx, raw_rx) = mpsc::channel();
        let (tx, rx) = mpsc::channel();
        // Both sent before the thread starts: however slow the machine, they are a burst.
        for p in ["/r/a.yaml", "/r/b.yaml"] {
            raw_tx
                .send(event(EventKind::Create(CreateKind::File), &[p]))
                .unwrap();
        }
        let quiet = Duration::from_millis(20);
        let t = std::thread::spawn(move || run(raw_rx, quiet, Vec::new(), None, tx));
        let got = rx.recv_timeout(Duration::from_secs(10)).unwrap();
        assert!(
            matches!(&got, Wake::Changed(p) if p.len() == 2),
            "both events in one batch"
        );
        drop(raw_tx);
        t.join().unwrap();
        assert!(rx.recv().is_err(), "nothing else was sent");
    }
}
