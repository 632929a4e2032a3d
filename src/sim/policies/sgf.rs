//! `sgf`: shortest GPU-time (run time × GPUs) first (oracle).

use super::Keyed;
use crate::sim::engine::Engine;
use crate::sim::policy::{Books, Rule, Walk};

pub(super) struct Sgf;

impl Rule for Sgf {
    fn name(&self) -> &str {
        "sgf"
    }

    fn describe(&self) -> &str {
        "shortest GPU-time (run time × GPUs) first (oracle)"
    }

    fn walk(&self) -> Walk {
        Walk::Greedy
    }

    fn books(&self, _e: &Engine) -> Box<dyn Books> {
        Box::new(Keyed(|e, job| {
            let runtime = e.policy_runtime(job).map_or(u64::MAX, |r| r.max(0) as u64);
            runtime.saturating_mul(e.trace().jobs[job as usize].demand.total_milli())
        }))
    }
}
