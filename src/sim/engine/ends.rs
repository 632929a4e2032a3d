//! When the running jobs end: a binary heap of (end, job) for the clock
//! (a push and a pop per job, no tree to rebalance), with the same entries
//! in order only while a backfill walk needs them for its reservation.

use crate::trace::model::Secs;
use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

#[derive(Debug, Clone, Default)]
pub(super) struct Ends {
    /// (end, job) packed into one number in the same order (`pack`): a
    /// sift compares two integers instead of a pair.
    heap: BinaryHeap<Reverse<u128>>,
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
    pub fn for_jobs(n: usize) -> Ends {
        Ends {
            live: vec![0; n.div_ceil(64)],
            ..Ends::default()
        }
    }

    #[cfg(test)]
    pub fn push(&mut self, end: Secs, job: u32) {
        self.push_noted(end, job, 0);
    }

    /// `push`, with a note the clock gets back with the job when it ends
    /// (the engine's: the job's wait, so its record need not be read then).
    pub fn push_noted(&mut self, end: Secs, job: u32, note: u32) {
        self.heap.push(Reverse(pack(end, job) | note as u128));
        self.live[job as usize / 64] |= 1 << (job % 64);
        if let Some(o) = &mut self.ordered {
            o.insert((end, job));
        }
    }

    /// Bytes held (the ordered copy counted by entries).
    pub fn held_bytes(&self) -> usize {
        self.heap.capacity() * 16
            + self.cancelled.capacity() * 24
            + self.live.capacity() * 8
            + self.ordered.as_ref().map_or(0, |o| o.len() * 24)
    }

    /// Whether `job` has an end here (a job the engine started with a
    /// known run time, not a recorded hold).
    pub fn has(&self, job: u32) -> bool {
        self.live[job as usize / 64] & (1 << (job % 64)) != 0
    }

    /// The first end, if any.
    pub fn first(&self) -> Option<(Secs, u32)> {
        self.heap.peek().map(|r| unpack(r.0))
    }

    /// Takes the first end if it is at `t`.
    #[cfg(test)]
    pub fn pop_at(&mut self, t: Secs) -> Option<u32> {
        self.pop_noted_at(t).map(|(job, _)| job)
    }

    /// `pop_at`, with the note pushed with the job (0 if none).
    pub fn pop_noted_at(&mut self, t: Secs) -> Option<(u32, u32)> {
        let (end, job) = self.first().filter(|&(end, _)| end == t)?;
        let note = self.heap.pop().map_or(0, |r| r.0 as u32);
        self.forget(end, job);
        self.drop_cancelled();
        Some((job, note))
    }

    /// Takes `job`'s end (at `end`) out.
    pub fn remove(&mut self, end: Secs, job: u32) {
        if !self.has(job) {
            return;
        }
        self.forget(end, job);
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
        while let Some(top) = self.first() {
            if !uncancel(&mut self.cancelled, top) {
                break;
            }
            self.heap.pop();
        }
    }

    /// Keeps (or stops keeping) the entries in order.
    pub fn keep_ordered(&mut self, on: bool) {
        if !on {
            self.ordered = None;
        } else if self.ordered.is_none() {
            let mut live: Vec<(Secs, u32)> = self.heap.iter().map(|r| unpack(r.0)).collect();
            live.sort_unstable();
            // A cancelled entry may sit beside a live twin (same end, job
            // started again): count each cancellation once.
            let mut cancelled = self.cancelled.clone();
            live.retain(|&e| !uncancel(&mut cancelled, e));
            self.ordered = Some(live.into_iter().collect());
        }
    }

    /// The entries in order; only while kept (see `keep_ordered`).
    pub fn ordered(&self) -> &BTreeSet<(Secs, u32)> {
        self.ordered
            .as_ref()
            .expect("ends are kept in order while a backfill walk is in force")
    }
}

/// (end, job) as one number ordered as the pair is, with 32 low bits left
/// for a note.
fn pack(end: Secs, job: u32) -> u128 {
    (((end as u64) ^ (1 << 63)) as u128) << 64 | (job as u128) << 32
}

fn unpack(k: u128) -> (Secs, u32) {
    ((((k >> 64) as u64) ^ (1 << 63)) as Secs, (k >> 32) as u32)
}

/// Counts one cancellation of `e` off; whether there was one.
fn uncancel(cancelled: &mut FxHashMap<(Secs, u32), u32>, e: (Secs, u32)) -> bool {
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
        let mut e = Ends::for_jobs(200);
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
