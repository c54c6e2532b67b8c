//! Independent work on the available cores, with results in input order, so that the output never
//! depends on the number of cores. The one place that starts threads.

use std::ops::Range;

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

/// `f` on a thread with the main thread's 8 MiB stack, whatever the caller's (a test's thread has
/// 2 MiB): the YAML reader builds a document's tree recursively, and its depth budget is sized for
/// 8 MiB. Runs on the calling thread if no thread can start.
pub(crate) fn with_stack<R: Send>(f: impl Fn() -> R + Sync) -> R {
    let f = &f;
    std::thread::scope(|scope| {
        match std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn_scoped(scope, f)
        {
            Ok(h) => h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)),
            Err(_) => f(),
        }
    })
}

/// `a` on a thread of its own (with the main thread's stack) while `b` runs on the calling thread,
/// for two independent pieces of work. On one core, or if no thread can start, `a` runs after `b`
/// on the calling thread; a panic in `a` (a bug) is raised again here.
pub(crate) fn join<A: Send, B>(a: impl Fn() -> A + Sync, b: impl FnOnce() -> B) -> (A, B) {
    if cores() < 2 {
        let y = b();
        return (a(), y);
    }
    let a = &a;
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn_scoped(scope, a);
        let y = b();
        let x = match spawned {
            Ok(h) => h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)),
            Err(_) => a(),
        };
        (x, y)
    })
}

/// [`join`] when `parallel`, else `a` then `b` on the calling thread: for work whose size decides
/// whether a thread pays for itself.
pub(crate) fn join_if<A: Send, B>(
    parallel: bool,
    a: impl Fn() -> A + Sync,
    b: impl FnOnce() -> B,
) -> (A, B) {
    if parallel { join(a, b) } else { (a(), b()) }
}

/// `f` on every range, each on a thread of its own, the results in range order. One range runs on
/// the calling thread. Threads get the main thread's 8 MiB stack (the YAML parser's depth budget is
/// sized for it: `load::yaml`); a thread that cannot start leaves its range to the calling thread,
/// and a panic in `f` (a bug) is raised again here.
pub(crate) fn map_ranges<R: Send>(
    ranges: Vec<Range<usize>>,
    f: impl Fn(Range<usize>) -> R + Sync,
) -> Vec<R> {
    if ranges.len() <= 1 {
        return with_stack(|| ranges.iter().cloned().map(&f).collect());
    }
    let f = &f;
    std::thread::scope(|scope| {
        let started: Vec<_> = ranges
            .into_iter()
            .map(|r| {
                let spawned = std::thread::Builder::new()
                    .stack_size(8 << 20)
                    .spawn_scoped(scope, {
                        let r = r.clone();
                        move || f(r)
                    });
                (r, spawned)
            })
            .collect();
        started
            .into_iter()
            .map(|(r, spawned)| match spawned {
                Ok(h) => h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)),
                Err(_) => f(r),
            })
            .collect()
    })
}

/// `f` over `items` in order, like [`map`], for items whose costs differ widely (a gateway's wasm
/// configuration beside thousands of small objects): the threads take chunks of `chunk` items one
/// after another until none is left, so none waits idle while another has a long run to go. Like
/// [`map_ranges`], every item is mapped on a thread with the main thread's 8 MiB stack.
pub(crate) fn map_chunked<T: Sync, R: Send>(
    items: &[T],
    chunk: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let chunk = chunk.max(1);
    let chunks = items.len().div_ceil(chunk);
    let threads = cores().min(chunks).max(1);
    if threads == 1 {
        // With the stack the threads below get (the YAML reader's and the writers' recursion).
        return with_stack(|| items.iter().map(&f).collect());
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let taken = map_ranges(even_ranges(threads, threads), |_| {
        let mut got: Vec<(usize, Vec<R>)> = Vec::new();
        loop {
            let c = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if c >= chunks {
                return got;
            }
            let start = c * chunk;
            let end = (start + chunk).min(items.len());
            got.push((c, items[start..end].iter().map(&f).collect()));
        }
    });
    let mut taken: Vec<(usize, Vec<R>)> = taken.into_iter().flatten().collect();
    taken.sort_unstable_by_key(|(c, _)| *c);
    taken.into_iter().flat_map(|(_, r)| r).collect()
}

/// [`map_chunked`] over owned items: each item is moved into `f` on the thread that takes it.
pub(crate) fn map_owned<T: Send, R: Send>(
    items: Vec<T>,
    chunk: usize,
    f: impl Fn(T) -> R + Sync,
) -> Vec<R> {
    // Each item in a cell of its own, taken out once by the thread that maps it.
    let cells: Vec<std::sync::Mutex<Option<T>>> = items
        .into_iter()
        .map(|x| std::sync::Mutex::new(Some(x)))
        .collect();
    map_chunked(&cells, chunk, |cell| {
        cell.lock().ok().and_then(|mut x| x.take()).map(&f)
    })
    .into_iter()
    .flatten()
    .collect()
}

/// `produce` of every item, in order, on a thread of its own that runs one item ahead of
/// `consume`, which takes the results in order on the calling thread (at most one result waits
/// while another is consumed and a third is produced). The first error of `consume` stops both: the
/// producer stops at its next result. On one core, or if no thread can start, the two alternate on
/// the calling thread.
pub(crate) fn ahead<T: Sync, R: Send, E>(
    items: &[T],
    produce: impl Fn(&T) -> R + Sync,
    mut consume: impl FnMut(R) -> Result<(), E>,
) -> Result<(), E> {
    if items.len() < 2 || cores() < 2 {
        return items.iter().try_for_each(|x| consume(produce(x)));
    }
    let (ready, received) = std::sync::mpsc::sync_channel(1);
    let produce = &produce;
    std::thread::scope(|scope| {
        // The producer owns the sending end: when it is done, the consuming loop ends.
        let producer = std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn_scoped(scope, move || {
                for x in items {
                    // The consumer stopped (an error): nothing more is wanted.
                    if ready.send(produce(x)).is_err() {
                        return;
                    }
                }
            });
        if producer.is_err() {
            drop(received);
            return items.iter().try_for_each(|x| consume(produce(x)));
        }
        // `received` is dropped when this returns, before the scope waits for the producer: a
        // producer blocked on the full channel then finds the consumer gone and stops.
        consume_all(received, consume)
    })
}

/// [`ahead`]'s consuming loop, owning the receiving end.
fn consume_all<R, E>(
    received: std::sync::mpsc::Receiver<R>,
    mut consume: impl FnMut(R) -> Result<(), E>,
) -> Result<(), E> {
    received.into_iter().try_for_each(&mut consume)
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

/// The parts of a [`map_ranges`] joined in order; a single part is taken as it is, not copied.
pub(crate) fn joined<T: Clone>(mut parts: Vec<Vec<T>>) -> Vec<T> {
    if parts.len() == 1 {
        return parts.pop().unwrap_or_default();
    }
    parts.concat()
}

/// `v` sorted (`sort_unstable`): with many items, each core sorts a part of it, and the sorted
/// parts are merged. Items that compare equal may end in any order, as with `sort_unstable`.
pub(crate) fn sort_unstable<T: Ord + Send + Copy>(v: &mut Vec<T>) {
    const PER_THREAD: usize = 1 << 16;
    let threads = cores().min(v.len() / PER_THREAD);
    if threads < 2 {
        v.sort_unstable();
        return;
    }
    let per = v.len().div_ceil(threads);
    let every_part_sorted = std::thread::scope(|scope| {
        let mut rest: &mut [T] = v;
        while rest.len() > per {
            let (part, tail) = rest.split_at_mut(per);
            if std::thread::Builder::new()
                .spawn_scoped(scope, move || part.sort_unstable())
                .is_err()
            {
                return false;
            }
            rest = tail;
        }
        rest.sort_unstable();
        true
    });
    if !every_part_sorted {
        // A thread could not start: sort the whole on this thread.
        v.sort_unstable();
        return;
    }
    // Merge the sorted runs of `per` items, two at a time.
    let mut run = per;
    let mut buf: Vec<T> = Vec::with_capacity(v.len());
    while run < v.len() {
        buf.clear();
        for start in (0..v.len()).step_by(2 * run) {
            let mid = (start + run).min(v.len());
            let end = (start + 2 * run).min(v.len());
            let (mut a, mut b) = (&v[start..mid], &v[mid..end]);
            while let (Some(x), Some(y)) = (a.first(), b.first()) {
                if y < x {
                    buf.push(*y);
                    b = &b[1..];
                } else {
                    buf.push(*x);
                    a = &a[1..];
                }
            }
            buf.extend_from_slice(a);
            buf.extend_from_slice(b);
        }
        std::mem::swap(v, &mut buf);
        run *= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// Results ahead are consumed in order; an error stops the producer (it is not asked for every
    /// item), whatever the length.
    #[test]
    fn ahead_consumes_in_order_and_stops_at_an_error() {
        for len in [0, 1, 2, 3, 50] {
            let items: Vec<usize> = (0..len).collect();
            let mut got = Vec::new();
            let r: Result<(), ()> = ahead(
                &items,
                |&i| i * 2,
                |x| {
                    got.push(x);
                    Ok(())
                },
            );
            assert_eq!(r, Ok(()));
            assert_eq!(
                got,
                items.iter().map(|i| i * 2).collect::<Vec<_>>(),
                "{len}"
            );
        }
        let items: Vec<usize> = (0..1000).collect();
        let produced = std::sync::atomic::AtomicUsize::new(0);
        let mut consumed = 0;
        let r = ahead(
            &items,
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
        // At most the item consumed, one waiting, one being made and one refused.
        assert!(produced.into_inner() <= 14);
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
