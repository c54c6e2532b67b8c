//! Independent work on the available cores, with results in input order, so that the output never
//! depends on the number of cores. The one place that starts threads: a pool of them, one a core,
//! started once (rayon's), takes every parallel stage's work.

use rayon::prelude::*;
use std::ops::Range;

/// The pool of the cores' threads, with the main thread's 8 MiB stack (the YAML reader builds a
/// document's tree recursively, and its depth budget is sized for 8 MiB). Started the first time
/// work is handed to it; `None` if no thread could start, and the work then runs on the calling
/// thread.
fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(cores())
            .stack_size(8 << 20)
            .thread_name(|i| format!("policyctl-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// The number of cores to use. Asked once: on Linux the answer reads the cgroup's CPU quota from
/// files, and a `watch` cycle asks dozens of times.
pub(crate) fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `len` items cut into at most `parts` contiguous ranges of about the same length (none when
/// `len` is 0).
pub(crate) fn even_ranges(len: usize, parts: usize) -> Vec<Range<usize>> {
    let per = len.div_ceil(parts.max(1)).max(1);
    (0..len)
        .step_by(per)
        .map(|s| s..(s + per).min(len))
        .collect()
}

/// Items of the given weights cut into contiguous ranges of at least `per` weight each (at least
/// one item each; the last range takes what is left), with their weights: [`even_ranges`] for
/// items that cost differently.
pub(crate) fn weighted_ranges(
    weights: impl IntoIterator<Item = usize>,
    per: usize,
) -> Vec<(Range<usize>, usize)> {
    let mut out = Vec::new();
    let (mut start, mut acc, mut len) = (0, 0, 0);
    for (i, w) in weights.into_iter().enumerate() {
        acc += w;
        len = i + 1;
        if acc >= per {
            out.push((start..len, acc));
            (start, acc) = (len, 0);
        }
    }
    if start < len {
        out.push((start..len, acc));
    }
    out
}

/// `f` over `items` in order, on up to [`cores`] threads when every thread gets at least
/// `min_per_thread` items; small inputs stay on the calling thread.
pub(crate) fn map<T: Sync, R: Send>(
    items: &[T],
    min_per_thread: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let threads = cores().min(items.len() / min_per_thread.max(1)).max(1);
    map_ranges(even_ranges(items.len(), threads), |r| {
        items[r].iter().map(&f).collect::<Vec<R>>()
    })
    .into_iter()
    .flatten()
    .collect()
}

/// `f` on each item of `items` with the item of `others` at the same index (`others` no longer
/// than `items`), on the pool's threads when there are at least `min_per_thread` items for each.
pub(crate) fn zip_mut<A: Send, B: Send>(
    items: &mut [A],
    others: Vec<B>,
    min_per_thread: usize,
    f: impl Fn(&mut A, B) + Sync + Send,
) {
    let parallel = items.len() >= 2 * min_per_thread.max(1);
    match pool().filter(|_| parallel && cores() >= 2) {
        Some(p) => p.install(|| {
            (items.par_iter_mut().zip(others.into_par_iter()))
                .with_min_len(min_per_thread.max(1))
                .for_each(|(a, b)| f(a, b))
        }),
        None => items.iter_mut().zip(others).for_each(|(a, b)| f(a, b)),
    }
}

/// `f` over `items` in order, on at most `runs` contiguous runs of them at once, each run with a
/// state of its own made by `init` (the first item of a run meets a fresh state). The results are
/// written in place in the list returned, not gathered from lists of runs. Without threads, or
/// with one run, every item meets one state on the calling thread.
pub(crate) fn map_with<T: Sync, S, R: Send>(
    items: &[T],
    runs: usize,
    init: impl Fn() -> S + Sync + Send,
    f: impl Fn(&mut S, &T) -> R + Sync + Send,
) -> Vec<R> {
    let per = items.len().div_ceil(runs.max(1)).max(1);
    match pool().filter(|_| cores() >= 2 && runs >= 2) {
        Some(p) => {
            let mut out = Vec::with_capacity(items.len());
            p.install(|| {
                (items.par_iter().with_min_len(per))
                    .map_init(&init, &f)
                    .collect_into_vec(&mut out)
            });
            out
        }
        None => {
            let mut state = init();
            items.iter().map(|x| f(&mut state, x)).collect()
        }
    }
}

/// `f` on each `chunk`-long part of `items` (the last one shorter) with its index, the parts
/// on the pool's threads at once; in order on the calling thread on one core or without a pool.
/// The results in part order.
pub(crate) fn chunks_mut<T: Send, R: Send>(
    items: &mut [T],
    chunk: usize,
    f: impl Fn(usize, &mut [T]) -> R + Sync,
) -> Vec<R> {
    let chunk = chunk.max(1);
    match pool().filter(|_| cores() >= 2 && items.len() > chunk) {
        Some(p) => p.install(|| {
            (items.par_chunks_mut(chunk).enumerate())
                .with_max_len(1)
                .map(|(i, c)| f(i, c))
                .collect()
        }),
        None => (items.chunks_mut(chunk).enumerate())
            .map(|(i, c)| f(i, c))
            .collect(),
    }
}

/// `f` on a thread of the pool, with its 8 MiB stack, whatever the caller's (a test's thread has
/// 2 MiB); on the calling thread when called from the pool, or if no thread can start.
pub(crate) fn with_stack<R: Send>(f: impl Fn() -> R + Sync) -> R {
    match pool() {
        Some(p) => p.install(&f),
        None => f(),
    }
}

/// `f` on a thread of the pool, in the background: for work done ahead of a later stage that
/// needs its result from a shared place (a cache built once). Nothing waits for it; on one core,
/// or if no thread can start, it is not done at all.
pub(crate) fn spawn(f: impl FnOnce() + Send + 'static) {
    if let Some(p) = pool().filter(|_| cores() >= 2) {
        p.spawn(f);
    }
}

/// Free `x` on a thread of the pool, in the background, when it holds at least `min` items (a
/// large map of keys whose freeing would hold up the calling thread); else, on one core, or if no
/// thread can start, here and now (a thread woken for a small job costs more than the job).
pub(crate) fn drop_later<T: Send + 'static>(x: T, items: usize, min: usize) {
    match pool().filter(|_| cores() >= 2 && items >= min) {
        Some(p) => p.spawn(move || drop(x)),
        None => drop(x),
    }
}

/// `a` and `b` at the same time on the pool's threads, for two independent pieces of work. On one
/// core, or if no thread can start, `a` runs after `b` on the calling thread; a panic in either (a
/// bug) is raised again here.
pub(crate) fn join<A: Send, B: Send>(
    a: impl Fn() -> A + Sync,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    match pool() {
        Some(p) if cores() >= 2 => p.join(&a, b),
        _ => {
            let y = b();
            (a(), y)
        }
    }
}

/// `a` and `b` at the same time on the pool's threads when `parallel` (and there are two cores),
/// else `a` then `b` on the calling thread: for work whose size decides whether a thread pays for
/// itself. Each runs once, so either may move what it holds or change data of its own.
pub(crate) fn join_if<A: Send, B: Send>(
    parallel: bool,
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    match pool().filter(|_| parallel && cores() >= 2) {
        Some(p) => p.join(a, b),
        None => (a(), b()),
    }
}

/// `f` on every range, each a task of the pool's threads, the results in range order. A panic in
/// `f` (a bug) is raised again here; without threads, the ranges are mapped on the calling thread.
pub(crate) fn map_ranges<R: Send>(
    ranges: Vec<Range<usize>>,
    f: impl Fn(Range<usize>) -> R + Sync,
) -> Vec<R> {
    if ranges.len() <= 1 {
        return with_stack(|| ranges.iter().cloned().map(&f).collect());
    }
    match pool() {
        Some(p) => p.install(|| ranges.into_par_iter().with_max_len(1).map(&f).collect()),
        None => ranges.into_iter().map(f).collect(),
    }
}

/// `f` over `items` in order, like [`map`], for items whose costs differ widely (a gateway's wasm
/// configuration beside thousands of small objects): the pool's threads take chunks of `chunk`
/// items one after another (each chunk a task) until none is left, so none waits idle while another
/// has a long run to go. Like [`map_ranges`], every item is mapped with an 8 MiB stack.
pub(crate) fn map_chunked<T: Sync, R: Send>(
    items: &[T],
    chunk: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let chunk = chunk.max(1);
    if cores() < 2 || items.len() <= chunk {
        // With the stack the pool's threads have (the YAML reader's and the writers' recursion).
        return with_stack(|| items.iter().map(&f).collect());
    }
    let Some(p) = pool() else {
        return items.iter().map(f).collect();
    };
    let parts: Vec<Vec<R>> = p.install(|| {
        items
            .par_chunks(chunk)
            .with_max_len(1)
            .map(|c| c.iter().map(&f).collect())
            .collect()
    });
    parts.into_iter().flatten().collect()
}

/// [`map_chunked`] over owned items: each item is moved into `f` on the thread that takes it.
pub(crate) fn map_owned<T: Send, R: Send>(
    items: Vec<T>,
    chunk: usize,
    f: impl Fn(T) -> R + Sync,
) -> Vec<R> {
    let chunk = chunk.max(1);
    match pool() {
        Some(p) if cores() >= 2 && items.len() > chunk => {
            p.install(|| items.into_par_iter().with_max_len(chunk).map(&f).collect())
        }
        // One chunk, or one core: in order, with the stack the pool's threads have.
        Some(p) => p.install(|| items.into_iter().map(&f).collect()),
        None => items.into_iter().map(f).collect(),
    }
}

/// `produce` of every item, each a task of the pool's threads taken in item order, and `consume`
/// of the results in item order on the calling thread as soon as each is ready: at most `window`
/// items are produced ahead of the one consumed, so the cores produce while the caller waits in
/// `consume` (writing into a pipe drained by another process) and what the results hold stays
/// bounded. The first error of `consume` stops the producing: items not started are skipped, and
/// the call returns once the started ones are done. A panic in `produce` (a bug) is raised again
/// here. On one core, on a thread of the pool, or if no thread can start, the two alternate on
/// the calling thread.
pub(crate) fn stream<T: Sync, R: Send, E>(
    items: &[T],
    window: usize,
    produce: impl Fn(&T) -> R + Sync,
    mut consume: impl FnMut(R) -> Result<(), E>,
) -> Result<(), E> {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Condvar, Mutex, PoisonError};
    // From a thread of the pool (a task that streams), the caller would block a thread the tasks
    // need: the two alternate there.
    let pool = match pool() {
        Some(p) if cores() >= 2 && items.len() >= 2 && rayon::current_thread_index().is_none() => p,
        _ => {
            return items
                .iter()
                .try_for_each(|x| consume(with_stack(|| produce(x))));
        }
    };
    // Each item's result (or its panic) once produced; the consumer waits on `ready` for the next.
    let done: Mutex<Vec<Option<std::thread::Result<R>>>> =
        Mutex::new(std::iter::repeat_with(|| None).take(items.len()).collect());
    let ready = Condvar::new();
    let stop = AtomicBool::new(false);
    let (produce, done, ready, stop) = (&produce, &done, &ready, &stop);
    let window = window.max(1);
    enum End<E> {
        Done,
        Failed(E),
        Panicked(Box<dyn std::any::Any + Send>),
    }
    let end = pool.in_place_scope(|scope| {
        let start = |i: usize| {
            scope.spawn(move |_| {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let r =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| produce(&items[i])));
                done.lock().unwrap_or_else(PoisonError::into_inner)[i] = Some(r);
                ready.notify_one();
            });
        };
        (0..window.min(items.len())).for_each(start);
        for i in 0..items.len() {
            let mut d = done.lock().unwrap_or_else(PoisonError::into_inner);
            let r = loop {
                if let Some(r) = d[i].take() {
                    break r;
                }
                d = ready.wait(d).unwrap_or_else(PoisonError::into_inner);
            };
            drop(d);
            let failed = match r {
                Ok(r) => consume(r).err().map(End::Failed),
                Err(panic) => Some(End::Panicked(panic)),
            };
            if let Some(end) = failed {
                stop.store(true, Ordering::Relaxed);
                return end;
            }
            if i + window < items.len() {
                start(i + window);
            }
        }
        End::Done
    });
    match end {
        End::Done => Ok(()),
        End::Failed(e) => Err(e),
        End::Panicked(panic) => std::panic::resume_unwind(panic),
    }
}

/// Free `items` on up to [`cores`] threads when each gets at least `min_per_thread` of them (items
/// that own many allocations: freeing is most of their cost), else on the calling thread.
pub(crate) fn drop_in_parts<T: Send>(mut items: Vec<T>, min_per_thread: usize) {
    let threads = cores().min(items.len() / min_per_thread.max(1));
    if threads < 2 {
        return;
    }
    let per = items.len().div_ceil(threads);
    let mut parts = Vec::with_capacity(threads);
    while items.len() > per {
        parts.push(items.split_off(items.len() - per));
    }
    parts.push(items);
    map_owned(parts, 1, drop);
}

/// The parts of a [`map_ranges`] joined in order into the first: only the later parts are copied
/// (none when there is one), into the first part's spare room when it was made with room for all.
pub(crate) fn joined<T>(parts: Vec<Vec<T>>) -> Vec<T> {
    let later: usize = parts.iter().skip(1).map(Vec::len).sum();
    let mut parts = parts.into_iter();
    let mut out = parts.next().unwrap_or_default();
    out.reserve_exact(later);
    parts.for_each(|p| out.extend(p));
    out
}

/// `v` sorted (`sort_unstable`): with many items, on the pool's threads (rayon's parallel sort).
/// Items that compare equal may end in any order, as with `sort_unstable`: the callers' items that
/// compare equal are equal.
pub(crate) fn sort_unstable<T: Ord + Send>(v: &mut [T]) {
    sort_unstable_by(v, T::cmp);
}

/// `v` sorted by `cmp` ([`sort_unstable`] with a comparison): `cmp` must find equal only items
/// that are alike, so that the order they end in does not matter.
pub(crate) fn sort_unstable_by<T: Send>(
    v: &mut [T],
    cmp: impl Fn(&T, &T) -> std::cmp::Ordering + Sync,
) {
    const PER_THREAD: usize = 1 << 14;
    match pool() {
        Some(p) if cores() >= 2 && v.len() >= 2 * PER_THREAD => {
            p.install(|| v.par_sort_unstable_by(&cmp))
        }
        _ => v.sort_unstable_by(cmp),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Mapped with a state per run, the items give what a plain map gives, in order, whatever the
    /// number of runs, and the first item meets a fresh state.
    #[test]
    fn map_with_states_keeps_the_order() {
        let items: Vec<usize> = (0..50_000).collect();
        for runs in [0, 1, 2, 3, 8] {
            let got = map_with(
                &items,
                runs,
                || 0usize,
                |seen, &i| {
                    *seen += 1;
                    (i * 3 + 1, *seen)
                },
            );
            let values: Vec<usize> = got.iter().map(|g| g.0).collect();
            let want: Vec<usize> = items.iter().map(|&i| i * 3 + 1).collect();
            assert_eq!(values, want, "runs {runs}");
            assert_eq!(got.first().map(|g| g.1), Some(1), "runs {runs}");
        }
    }

    /// The chunked map gives the items' results in their order, whatever the lengths and chunk
    /// sizes (chunks of one, a last partial chunk, fewer items than threads).
    #[test]
    fn chunked_map_keeps_the_order() {
        for len in [0, 1, 2, 3, 7, 64, 100, 1000] {
            let items: Vec<usize> = (0..len).collect();
            for chunk in [0, 1, 3, 16, 64, 5000] {
                let got = map_chunked(&items, chunk, |&i| i * 3 + 1);
                let want: Vec<usize> = items.iter().map(|&i| i * 3 + 1).collect();
                assert_eq!(got, want, "len {len}, chunk {chunk}");
            }
        }
    }

    /// Owned items are each mapped once, in order, whatever the lengths and chunk sizes.
    #[test]
    fn owned_map_moves_each_item_once_in_order() {
        for len in [0, 1, 2, 7, 100] {
            for chunk in [1, 3, 64] {
                let items: Vec<String> = (0..len).map(|i| i.to_string()).collect();
                let got = map_owned(items, chunk, |s| s + "!");
                let want: Vec<String> = (0..len).map(|i| format!("{i}!")).collect();
                assert_eq!(got, want, "len {len}, chunk {chunk}");
            }
        }
    }

    /// Results are consumed in order, whatever the length and the window; an error stops the
    /// producing (it is not asked for every item) and comes back; a panic in `produce` comes back
    /// as a panic, not a wait for ever.
    #[test]
    fn streamed_results_come_in_order_and_stop_at_an_error() {
        for len in [0, 1, 2, 3, 50, 333] {
            for window in [0, 1, 2, 7, 1000] {
                let items: Vec<usize> = (0..len).collect();
                let mut got = Vec::new();
                let r: Result<(), ()> = stream(
                    &items,
                    window,
                    |&i| i * 2,
                    |x| {
                        got.push(x);
                        Ok(())
                    },
                );
                assert_eq!(r, Ok(()));
                let want: Vec<usize> = items.iter().map(|i| i * 2).collect();
                assert_eq!(got, want, "len {len}, window {window}");
            }
        }
        let items: Vec<usize> = (0..1000).collect();
        let produced = std::sync::atomic::AtomicUsize::new(0);
        let mut consumed = 0;
        let r = stream(
            &items,
            4,
            |&i| {
                produced.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                i
            },
            |i| {
                consumed += 1;
                if i == 10 { Err(i) } else { Ok(()) }
            },
        );
        assert_eq!(r, Err(10));
        assert_eq!(consumed, 11);
        // The items consumed and at most the window's beyond them.
        assert!(produced.into_inner() <= 11 + 4);
        let panicked = std::panic::catch_unwind(|| {
            stream(
                &items,
                8,
                |&i| {
                    assert!(i != 500, "item 500");
                    i
                },
                |_| Ok::<(), ()>(()),
            )
        });
        assert!(panicked.is_err());
        // From a task of the pool, on every thread of it at once: each alternates on its own.
        let sums = map_ranges(even_ranges(8, 8), |r| {
            let mut sum = 0;
            let r: Result<(), ()> = stream(
                &items,
                2,
                |&i| i + r.start,
                |x| {
                    sum += x;
                    Ok(())
                },
            );
            r.map(|()| sum)
        });
        let want: Vec<Result<usize, ()>> = (0..8).map(|k| Ok(499_500 + 1000 * k)).collect();
        assert_eq!(sums, want);
    }

    /// Work spawned in the background runs (with two cores or more), whatever waits on it.
    #[test]
    fn spawned_work_runs() {
        let (done, got) = std::sync::mpsc::channel();
        spawn(move || {
            let _ = done.send(7);
        });
        if cores() >= 2 {
            assert_eq!(got.recv_timeout(std::time::Duration::from_secs(60)), Ok(7));
        }
    }

    /// Every item is freed, whatever the length and the number of parts.
    #[test]
    fn dropped_in_parts_is_every_item() {
        let one = std::sync::Arc::new(());
        for len in [0, 1, 2, 3, 9, 100, 1001] {
            for min in [0, 1, 2, 50, 5000] {
                let items: Vec<_> = (0..len).map(|_| one.clone()).collect();
                drop_in_parts(items, min);
                assert_eq!(
                    std::sync::Arc::strong_count(&one),
                    1,
                    "len {len}, min {min}"
                );
            }
        }
    }

    /// The parallel sort gives `sort_unstable`'s order, for lengths around every cut.
    #[test]
    fn parallel_sort_is_the_sort() {
        let mut seed = 3u64;
        for len in [
            0,
            1,
            5,
            1 << 16,
            (1 << 17) - 1,
            1 << 17,
            (1 << 17) + 1,
            300_001,
        ] {
            let v: Vec<(u32, u32)> = (0..len)
                .map(|i| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    ((seed >> 40) as u32 % 1000, i as u32)
                })
                .collect();
            let mut want = v.clone();
            want.sort_unstable();
            let mut got = v;
            sort_unstable(&mut got);
            assert!(got == want, "{len} items");
        }
    }

    /// Weighted ranges cover every item once, in order; each ends at the first item that brings
    /// it to `per`, and the last takes what is left.
    #[test]
    fn weighted_ranges_cover_everything_in_order() {
        let weights = [3, 0, 9, 1, 1, 1, 12, 0, 2];
        assert_eq!(
            weighted_ranges(weights, 4),
            vec![(0..3, 12), (3..7, 15), (7..9, 2)]
        );
        assert_eq!(weighted_ranges([5, 5], 1), vec![(0..1, 5), (1..2, 5)]);
        assert_eq!(weighted_ranges([1, 1], 10), vec![(0..2, 2)]);
        assert_eq!(
            weighted_ranges([0; 3], 0),
            vec![(0..1, 0), (1..2, 0), (2..3, 0)]
        );
        assert!(weighted_ranges(std::iter::empty(), 4).is_empty());
    }

    #[test]
    fn ranges_cover_everything_in_order() {
        assert!(even_ranges(0, 3).is_empty());
        assert_eq!(even_ranges(10, 3), [0..4, 4..8, 8..10]);
        assert_eq!(even_ranges(2, 5), [0..1, 1..2]);
        assert_eq!(even_ranges(7, 0).len(), 1);
    }

    #[test]
    fn results_keep_the_input_order() {
        let items: Vec<usize> = (0..1000).collect();
        assert_eq!(
            map(&items, 1, |x| x * 2),
            items.iter().map(|x| x * 2).collect::<Vec<_>>()
        );
        let sums = map_ranges(even_ranges(1000, 4), |r| r.sum::<usize>());
        assert_eq!(sums.len(), 4);
        assert_eq!(sums.iter().sum::<usize>(), items.iter().sum::<usize>());
        assert!(sums.windows(2).all(|w| w[0] < w[1]));
    }
}
