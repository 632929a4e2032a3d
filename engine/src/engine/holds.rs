//! The recorded holds in play (the `recorded` policy, and holds replayed
//! from a trace's records): when each starts and ends, the GPUs each
//! holds while it runs, and how many of a job's holds are still to end.

use crate::cluster::Grant;
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;
use tracetui_model::Secs;

/// A timeline entry's kind: a hold ends (first at an instant) or starts.
const END: u8 = 0;
const START: u8 = 1;

/// The recorded holds, owned apart from the rest of the engine's state.
#[derive(Debug, Clone, Default)]
pub(super) struct Holds {
    /// (time, `END` | `START`, job, segment), in time order; at one
    /// instant the ends come before the starts.
    timeline: BTreeSet<(Secs, u8, u32, u32)>,
    /// Segments holding GPUs: segment → (when it began here, its GPUs).
    held: FxHashMap<u32, (Secs, Box<[Grant]>)>,
    /// job → its segments not yet ended.
    left: FxHashMap<u32, u32>,
}

impl Holds {
    /// When the next hold starts or ends.
    pub(super) fn next_at(&self) -> Option<Secs> {
        self.timeline.first().map(|e| e.0)
    }

    /// `job`'s holds, each (segment, when it starts), to start then.
    pub(super) fn schedule(
        &mut self,
        job: u32,
        starts: impl ExactSizeIterator<Item = (u32, Secs)>,
    ) {
        let n = starts.len() as u32;
        for (seg, at) in starts {
            self.timeline.insert((at, START, job, seg));
        }
        if n > 0 {
            self.left.insert(job, n);
        }
    }

    /// The next hold to end at `t` (job, segment), taken off the timeline.
    pub(super) fn next_end(&mut self, t: Secs) -> Option<(u32, u32)> {
        self.next_of(t, END)
    }

    /// The next hold to start at `t` (job, segment), taken off the timeline.
    pub(super) fn next_start(&mut self, t: Secs) -> Option<(u32, u32)> {
        self.next_of(t, START)
    }

    fn next_of(&mut self, t: Secs, kind: u8) -> Option<(u32, u32)> {
        let &(at, k, job, seg) = self.timeline.first()?;
        if at != t || k != kind {
            return None;
        }
        self.timeline.pop_first();
        Some((job, seg))
    }

    /// Segment `seg` holds `grants` from `now`.
    pub(super) fn hold(&mut self, seg: u32, now: Secs, grants: Box<[Grant]>) {
        self.held.insert(seg, (now, grants));
    }

    /// `job`'s segment `seg` ends at `at`.
    pub(super) fn end_at(&mut self, at: Secs, job: u32, seg: u32) {
        self.timeline.insert((at, END, job, seg));
    }

    /// The GPUs `seg` held and since when, let go.
    pub(super) fn release(&mut self, seg: u32) -> Option<(Secs, Box<[Grant]>)> {
        self.held.remove(&seg)
    }

    /// One of `job`'s holds ended: whether it was its last.
    pub(super) fn one_ended(&mut self, job: u32) -> bool {
        let left = self.left.get_mut(&job).map(|l| {
            *l -= 1;
            *l
        });
        if left == Some(0) {
            self.left.remove(&job);
            return true;
        }
        false
    }

    /// Forgets the holds still to start of the jobs `waiting` says wait
    /// (they go to another policy's queue).
    pub(super) fn forget_waiting(&mut self, waiting: impl Fn(u32) -> bool) {
        let gone: Vec<(Secs, u8, u32, u32)> = self
            .timeline
            .iter()
            .filter(|e| e.1 == START && waiting(e.2))
            .copied()
            .collect();
        for e in gone {
            self.timeline.remove(&e);
            self.left.remove(&e.2);
        }
    }

    /// The jobs with holds still to end.
    pub(super) fn jobs(&self) -> impl Iterator<Item = u32> + '_ {
        self.left.keys().copied()
    }

    /// The bytes held, by entries.
    pub(super) fn held_bytes(&self) -> usize {
        let held: usize = self.held.values().map(|g| 32 + g.1.len() * 8).sum();
        held + self.left.capacity() * 8 + self.timeline.len() * 40
    }
}
