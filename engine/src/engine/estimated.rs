//! What policies are told of run times under `--estimate`
//! (`crate::estimate`): each job's true run time, time left and end,
//! shifted by its estimate's error. The engine itself runs the truth.

use super::Engine;
use crate::cluster::Grant;
use std::collections::BTreeSet;
use tracetui_model::Secs;

impl Engine {
    /// The run time a policy is told (the truth for the oracle).
    pub(super) fn estimated_runtime(&self, job: u32) -> Option<Secs> {
        let truth = self.runtime_of(job);
        self.tuning.estimate.of(&self.trace, job, truth)
    }

    /// Seconds the job's estimate differs from its true run time now.
    fn estimate_error(&self, job: u32) -> Secs {
        let truth = self.runtime_of(job);
        match (self.tuning.estimate.of(&self.trace, job, truth), truth) {
            (Some(e), Some(t)) => e - t,
            _ => 0,
        }
    }

    /// Seconds a policy is told the job still needs if it (re)starts now
    /// (on `grants`): its estimate less the work done, never less than the
    /// restart cost it pays.
    pub(super) fn estimated_left_on(&self, job: u32, grants: Option<&[Grant]>) -> Option<Secs> {
        let left = self.time_left_on(job, grants)?;
        if self.tuning.estimate.is_oracle() {
            return Some(left);
        }
        let cost = self.resumed(job).map_or(0, |_| self.restart_cost(job));
        Some((left + self.estimate_error(job)).max(cost))
    }

    /// When a policy expects a running job to end: its end shifted by its
    /// estimate's error, never before now (a job past its estimate is
    /// expected to end now).
    pub(super) fn expected_end(&self, job: u32) -> Secs {
        let end = self.jobs[job as usize].end;
        if self.tuning.estimate.is_oracle() {
            return end;
        }
        (end + self.estimate_error(job)).max(self.now)
    }

    /// The running jobs by expected end, as a backfill reservation reads
    /// them; none for the oracle (the kept ends are the truth).
    pub(super) fn expected_ends(&self) -> Option<BTreeSet<(Secs, u32)>> {
        if self.tuning.estimate.is_oracle() {
            return None;
        }
        let ends = self
            .running
            .keys()
            .map(|&j| (self.expected_end(j), j))
            .collect();
        Some(ends)
    }
}
