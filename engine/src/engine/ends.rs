//! When the running jobs end: a binary min-heap of (end, job) for the clock
//! (a push and a pop per job, no tree to rebalance), with the same entries
//! in order only while a backfill walk needs them for its reservation.

use rustc_hash::FxHashMap;
use std::collections::BTreeSet;
use tracetui_model::Secs;

#[derive(Debug, Clone, Default)]
pub(super) struct Ends {
    /// Ends from `base` to 2^32 s after it, as `(end - base) << 32 | job`:
    /// a min-heap of one integer per entry, in (end, job) order.
    heap: MinHeap,
    base: Secs,
    /// Ends outside that span (a hostile trace's run times), in order.
    far: BTreeSet<(Secs, u32)>,
    /// Entries taken out (a preemption) but still in the heap, with how
    /// many times (a job may be taken out twice with the same end); dropped
    /// when they reach its top, which is never one of them.
    cancelled: FxHashMap<(Secs, u32), u32>,
    /// Bit `job` set while the job has an entry that is not cancelled.
    live: Vec<u64>,
    /// The entries in order, kept while a backfill walk is in force.
    ordered: Option<BTreeSet<(Secs, u32)>>,
}

impl Ends {
    /// Ends for `n` jobs, none before `base` (the engine's clock at its start).
    pub(super) fn for_jobs(n: usize, base: Secs) -> Ends {
        Ends {
            live: vec![0; n.div_ceil(64)],
            base,
            ..Ends::default()
        }
    }

    pub(super) fn push(&mut self, end: Secs, job: u32) {
        match self.pack(end, job) {
            Some(k) => self.heap.push(k),
            None => {
                self.far.insert((end, job));
            }
        }
        self.live[job as usize / 64] |= 1 << (job % 64);
        if let Some(o) = &mut self.ordered {
            o.insert((end, job));
        }
    }

    /// Bytes held (the ordered and far copies counted by entries).
    pub(super) fn held_bytes(&self) -> usize {
        self.heap.0.capacity() * 8
            + self.cancelled.capacity() * 24
            + self.live.capacity() * 8
            + (self.far.len() + self.ordered.as_ref().map_or(0, |o| o.len())) * 24
    }

    /// Whether `job` has an end here (a job the engine started with a
    /// known run time, not a recorded hold).
    pub(super) fn has(&self, job: u32) -> bool {
        self.live[job as usize / 64] & (1 << (job % 64)) != 0
    }

    /// The first end, if any.
    pub(super) fn first(&self) -> Option<(Secs, u32)> {
        let near = self.heap.peek().map(|k| self.unpack(k));
        match self.far.first() {
            Some(&f) if near.is_none_or(|n| f < n) => Some(f),
            _ => near,
        }
    }

    /// Takes the first end if it is at `t`.
    pub(super) fn pop_at(&mut self, t: Secs) -> Option<u32> {
        // Ends all within 2^32 s of the start: the heap alone.
        let first = if self.far.is_empty() {
            self.heap.peek().map(|k| self.unpack(k))
        } else {
            self.first()
        };
        let (end, job) = first.filter(|&(end, _)| end == t)?;
        if !self.far.is_empty() && self.far.first() == Some(&(end, job)) {
            self.far.pop_first();
        } else {
            self.heap.pop();
        }
        self.forget(end, job);
        if !self.cancelled.is_empty() {
            self.drop_cancelled();
        }
        Some(job)
    }

    /// Takes `job`'s end (at `end`) out.
    pub(super) fn remove(&mut self, end: Secs, job: u32) {
        if !self.has(job) {
            return;
        }
        self.forget(end, job);
        if self.far.remove(&(end, job)) {
            return;
        }
        *self.cancelled.entry((end, job)).or_default() += 1;
        self.drop_cancelled();
    }

    fn forget(&mut self, end: Secs, job: u32) {
        self.live[job as usize / 64] &= !(1 << (job % 64));
        if let Some(o) = &mut self.ordered {
            o.remove(&(end, job));
        }
    }

    fn drop_cancelled(&mut self) {
        while let Some(top) = self.heap.peek().map(|k| self.unpack(k)) {
            if !uncancel(&mut self.cancelled, top) {
                break;
            }
            self.heap.pop();
        }
    }

    /// Keeps (or stops keeping) the entries in order.
    pub(super) fn keep_ordered(&mut self, on: bool) {
        if !on {
            self.ordered = None;
        } else if self.ordered.is_none() {
            let mut live: Vec<(Secs, u32)> = self.heap.0.iter().map(|&k| self.unpack(k)).collect();
            live.sort_unstable();
            // A cancelled entry may sit beside a live twin (same end, job
            // started again): count each cancellation once.
            let mut cancelled = self.cancelled.clone();
            live.retain(|&e| !uncancel(&mut cancelled, e));
            live.extend(self.far.iter().copied());
            self.ordered = Some(live.into_iter().collect());
        }
    }

    /// The entries in order; only while kept (see `keep_ordered`).
    pub(super) fn ordered(&self) -> &BTreeSet<(Secs, u32)> {
        self.ordered
            .as_ref()
            .expect("ends are kept in order while a backfill walk is in force")
    }

    /// (end, job) as one number ordered as the pair is, if the end is in
    /// the heap's span.
    fn pack(&self, end: Secs, job: u32) -> Option<u64> {
        let off = u32::try_from(end.checked_sub(self.base)?).ok()?;
        Some((off as u64) << 32 | job as u64)
    }

    fn unpack(&self, k: u64) -> (Secs, u32) {
        (self.base + (k >> 32) as Secs, k as u32)
    }
}

/// A binary min-heap of integers. A pop walks the hole down the smaller
/// children to a leaf (one comparison a level, no branch on it) and then
/// lifts the last entry into it, which rarely climbs: the bottom-up pop.
#[derive(Debug, Clone, Default)]
struct MinHeap(Vec<u64>);

impl MinHeap {
    fn peek(&self) -> Option<u64> {
        self.0.first().copied()
    }

    fn push(&mut self, k: u64) {
        self.0.push(k);
        let hole = self.0.len() - 1;
        lift(&mut self.0, hole, k);
    }

    fn pop(&mut self) -> Option<u64> {
        let last = self.0.pop()?;
        let v = &mut self.0[..];
        let Some(&top) = v.first() else {
            return Some(last);
        };
        let n = v.len();
        let (mut hole, mut child) = (0, 1);
        while child + 1 < n {
            child += (v[child + 1] < v[child]) as usize;
            v[hole] = v[child];
            hole = child;
            child = 2 * hole + 1;
        }
        if child < n {
            v[hole] = v[child];
            hole = child;
        }
        lift(v, hole, last);
        Some(top)
    }
}

/// Puts `k` into the heap `v` at the hole `hole`, moving it up past the
/// parents greater than it.
#[inline(always)]
fn lift(v: &mut [u64], mut hole: usize, k: u64) {
    while hole > 0 {
        let parent = (hole - 1) / 2;
        if v[parent] <= k {
            break;
        }
        v[hole] = v[parent];
        hole = parent;
    }
    v[hole] = k;
}

/// Counts one cancellation of `e` off; whether there was one.
fn uncancel(cancelled: &mut FxHashMap<(Secs, u32), u32>, e: (Secs, u32)) -> bool {
    if cancelled.is_empty() {
        return false;
    }
    match cancelled.get_mut(&e) {
        Some(1) => cancelled.remove(&e).is_some(),
        Some(n) => {
            *n -= 1;
            true
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cancelled entry never comes out, even beside a live twin, and the
    /// order kept for the backfill equals the heap's.
    #[test]
    fn ends_come_out_in_order_without_cancelled_ones() {
        // Ends below the base go to the far set, the rest to the heap.
        let mut e = Ends::for_jobs(200, 0);
        let mut model: BTreeSet<(Secs, u32)> = BTreeSet::new();
        let mut x: u64 = 7;
        for step in 0..2000u32 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let job = ((x >> 33) % 200) as u32;
            let end = ((x >> 20) % 50) as Secs - 25; // negative times too
            if step == 700 {
                e.keep_ordered(true);
            }
            if let Some(&(t, _)) = model.iter().find(|&&(_, j)| j == job) {
                e.remove(t, job);
                model.remove(&(t, job));
                assert!(!e.has(job));
            } else if x.is_multiple_of(3) {
                // Restart with the same end it may have had before.
                e.push(end, job);
                model.insert((end, job));
            }
            if x.is_multiple_of(5) {
                if let Some(&(t, j)) = model.first() {
                    assert_eq!(e.pop_at(t), Some(j));
                    model.remove(&(t, j));
                }
            }
            assert_eq!(e.first(), model.first().copied());
            if step >= 700 {
                assert_eq!(e.ordered(), &model);
            }
        }
        e.keep_ordered(false);
        while let Some((t, j)) = e.first() {
            assert_eq!(e.pop_at(t), Some(j));
            assert_eq!(model.pop_first(), Some((t, j)));
        }
        assert!(model.is_empty());
    }
}
