//! The ends a policy holds (`hold_end`): the running jobs whose end it
//! moved, each with the end its work gives, to go back to when the policy
//! is left (`release_held_ends`).

use rustc_hash::FxHashMap;
use tracetui_model::Secs;

/// Running jobs whose end their policy holds, with their own ends.
#[derive(Debug, Clone, Default)]
pub(super) struct HeldEnds(FxHashMap<u32, Secs>);

impl HeldEnds {
    /// `job`'s end is held; `natural` is the end its work gives (the first
    /// hold keeps it: a later one moves a held end again).
    pub(super) fn hold(&mut self, job: u32, natural: Secs) {
        self.0.entry(job).or_insert(natural);
    }

    /// `job` stopped, or started again: no end of its is held any more.
    pub(super) fn forget(&mut self, job: u32) {
        self.0.remove(&job);
    }

    /// The end `job`'s work gives, where its end is held.
    pub(super) fn natural(&self, job: u32) -> Option<Secs> {
        if self.0.is_empty() {
            return None;
        }
        self.0.get(&job).copied()
    }

    /// Every held end let go: (job, the end its work gives), by job.
    pub(super) fn release(&mut self) -> Vec<(u32, Secs)> {
        let mut held: Vec<(u32, Secs)> = self.0.drain().collect();
        held.sort_unstable();
        held
    }

    /// Bytes held (counted by the table's room).
    pub(super) fn held_bytes(&self) -> usize {
        self.0.capacity() * 16
    }
}
