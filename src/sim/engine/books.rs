//! The engine's side of the policy interface: what a policy's books may
//! read and change, and how the engine lends them itself while they do.

use super::preempt::Resume;
use super::Engine;
use crate::sim::policy::Books;
use crate::trace::model::Secs;

impl Engine {
    /// The job's run time under the current power policy (oracle policies
    /// may know it).
    pub(crate) fn policy_runtime(&self, job: u32) -> Option<Secs> {
        self.runtime_of(job)
    }

    /// Seconds the job still needs if it (re)starts now, restart cost included.
    pub(crate) fn policy_time_left(&self, job: u32) -> Option<Secs> {
        self.time_left(job)
    }

    /// GPU-service attained so far, milli-GPU-seconds (the current run included).
    pub(crate) fn policy_attained(&self, job: u32) -> u128 {
        self.attained(job)
    }

    /// The work a job carries (default for a job never preempted).
    pub(crate) fn policy_resume(&self, job: u32) -> Resume {
        self.resume(job)
    }

    /// The work a job carries, if it was ever preempted.
    pub(crate) fn policy_preempted_before(&self, job: u32) -> Option<Resume> {
        self.resumes.get(&job).copied()
    }

    /// A running job's priority as indexed for victim search.
    pub(crate) fn policy_priority(&self, job: u32) -> Option<u64> {
        self.pre.key_of.get(&job).copied()
    }

    /// The job's place in arrival order (submit, then trace order).
    pub(crate) fn policy_rank(&self, job: u32) -> u32 {
        self.shapes.rank[job as usize]
    }

    pub(crate) fn policy_job_at_rank(&self, rank: u32) -> u32 {
        self.shapes.arrival[rank as usize]
    }

    /// A waiting job's key changed from `old` to `new`.
    pub(crate) fn policy_requeue(&mut self, job: u32, old: u64, new: u64) {
        let class = self.shapes.class_of[job as usize];
        let rank = self.shapes.rank[job as usize];
        self.queue.remove(class, old, rank);
        self.queue.insert(class, new, rank);
    }

    /// A running job's priority changed from `old` to `new`.
    pub(crate) fn policy_reprioritize(&mut self, job: u32, old: u64, new: u64) {
        let rank = self.shapes.rank[job as usize];
        self.pre.by_key.remove(&(old, rank));
        self.pre.by_key.insert((new, rank));
        self.pre.key_of.insert(job, new);
        self.pre.vepoch += 1;
    }

    /// Jobs that could not preempt before may be able to now.
    pub(crate) fn policy_victims_may_grow(&mut self) {
        self.pre.vepoch += 1;
    }

    /// The job keeps the first priority to the end (`las`'s starvation guard);
    /// carried across policy switches like the rest of its work.
    pub(crate) fn policy_promote(&mut self, job: u32) {
        if let Some(r) = self.resumes.get_mut(&job) {
            r.promoted = true;
        }
    }

    pub(super) fn books(&self) -> &dyn Books {
        self.books
            .as_deref()
            .expect("books are lent out only inside a hook")
    }

    /// Lends the engine to its policy's books for a hook. Inside it the
    /// books are out: a hook changes keys through `policy_requeue` and
    /// `policy_reprioritize`, never through `enqueue`.
    pub(super) fn with_books<R>(&mut self, f: impl FnOnce(&mut dyn Books, &mut Engine) -> R) -> R {
        let mut b = self.books.take().expect("books are not lent twice");
        let r = f(&mut *b, self);
        self.books = Some(b);
        r
    }
}
