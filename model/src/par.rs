//! Work on every core, one way: scoped threads (`std::thread::scope`),
//! results always in the order the work was given, a panicking worker
//! reported as its item's `Err` rather than taking the caller down.
//!
//! The loaders read a file's parts with [`each`]; runs of the engine
//! (`compare`, `--plot`) go through [`pool`]; two halves of one job
//! through [`both`]. Long-lived workers that stream (the decompressors'
//! pumps, the replay's background what-if and utilisation threads, an
//! external policy's pipe readers) are threads of their own, not this.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// A worker panicked on this item (its payload dropped: callers say
/// which item in their own words).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Panicked;

/// The cores there are to use (1 when the system will not say).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `f` on every item, each on a thread of its own (for a handful of
/// items: a file's parts, a table's shards); results in item order.
pub(crate) fn each<T: Send, R: Send>(
    items: Vec<T>,
    f: impl Fn(T) -> R + Sync,
) -> Vec<Result<R, Panicked>> {
    if items.len() <= 1 {
        return items.into_iter().map(|t| caught(|| f(t))).collect();
    }
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = items.into_iter().map(|t| s.spawn(move || f(t))).collect();
        handles
            .into_iter()
            .map(|h| h.join().map_err(|_| Panicked))
            .collect()
    })
}

/// `f` on every item on at most `workers` threads, each taking the next
/// item as it finishes one (a slow item holds up no others); results in
/// item order. Fewer threads where no more can be made.
pub fn pool<T: Sync, R: Send>(
    items: &[T],
    workers: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<Result<R, Panicked>> {
    let workers = workers.clamp(1, items.len().max(1));
    if workers == 1 {
        return items.iter().map(|t| caught(|| f(t))).collect();
    }
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<Option<Result<R, Panicked>>>> =
        Mutex::new((0..items.len()).map(|_| None).collect());
    let (f, next, done_ref) = (&f, &next, &done);
    let work = move || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(item) = items.get(i) else { return };
        let r = caught(|| f(item));
        done_ref.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(r);
    };
    std::thread::scope(|s| {
        // A thread that cannot be made (a pid or memory limit) leaves the
        // items to those that were; with none, this thread does them all.
        let started = (0..workers)
            .take_while(|_| std::thread::Builder::new().spawn_scoped(s, work).is_ok())
            .count();
        if started == 0 {
            work();
        }
    });
    done.into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .into_iter()
        .map(|r| r.unwrap_or(Err(Panicked)))
        .collect()
}

/// `a` on another thread while `b` runs on this one; `a`'s result is
/// `Err` if it panicked (`b`'s panic is the caller's, as any call's).
pub fn both<A: Send, B>(
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B,
) -> (Result<A, Panicked>, B) {
    std::thread::scope(|s| {
        let other = s.spawn(a);
        let mine = b();
        (other.join().map_err(|_| Panicked), mine)
    })
}

/// `f`'s result, or `Panicked` if it panicked (as a worker thread's
/// would be), so one item run here fails as it would on a thread.
fn caught<R>(f: impl FnOnce() -> R) -> Result<R, Panicked> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|_| Panicked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_keeps_the_order_and_reports_a_panic_in_its_place() {
        let got = each(vec![1, 2, 3, 4], |x| {
            assert!(x != 3, "three");
            x * 10
        });
        assert_eq!(got, vec![Ok(10), Ok(20), Err(Panicked), Ok(40)]);
        assert_eq!(each(vec![5], |x| x + 1), vec![Ok(6)]);
        assert!(each(Vec::<u8>::new(), |x| x).is_empty());
    }

    #[test]
    fn pool_keeps_the_order_whatever_finishes_first() {
        let items: Vec<u64> = (0..40).collect();
        for workers in [1, 2, 3, 8, 100] {
            let got = pool(&items, workers, |&x| {
                // The early items take longest, so later ones finish first.
                std::thread::sleep(std::time::Duration::from_millis(40u64.saturating_sub(x)));
                x * x
            });
            let want: Vec<_> = items.iter().map(|x| Ok(x * x)).collect();
            assert_eq!(got, want, "{workers} workers");
        }
    }

    #[test]
    fn pool_reports_a_panic_in_its_place_and_runs_the_rest() {
        let items: Vec<u32> = (0..6).collect();
        let got = pool(&items, 2, |&x| {
            assert!(x != 2, "two");
            x
        });
        assert_eq!(got[2], Err(Panicked));
        assert_eq!(got.iter().filter(|r| r.is_ok()).count(), 5);
    }

    #[test]
    fn pool_uses_no_more_threads_than_asked() {
        use std::sync::atomic::AtomicUsize;
        let (now, most) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let items: Vec<u8> = (0..12).collect();
        pool(&items, 3, |_| {
            let n = now.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(n, Ordering::SeqCst);
            std::thread::sleep(std::time::Duration::from_millis(10));
            now.fetch_sub(1, Ordering::SeqCst);
        });
        let most = most.load(Ordering::SeqCst);
        assert!((1..=3).contains(&most), "{most} at once");
    }

    #[test]
    fn both_runs_the_two_and_reports_the_other_halfs_panic() {
        assert_eq!(both(|| 1, || 2), (Ok(1), 2));
        let (a, b) = both(|| -> u8 { panic!("other") }, || "mine");
        assert_eq!((a, b), (Err(Panicked), "mine"));
    }
}
