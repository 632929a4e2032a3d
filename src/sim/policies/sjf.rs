//! `sjf`: shortest run time first (oracle).

use super::Keyed;
use crate::sim::engine::Engine;
use crate::sim::policy::{Books, Rule, Walk};

pub(super) struct Sjf;

impl Rule for Sjf {
    fn name(&self) -> &str {
        "sjf"
    }

    fn describe(&self) -> &str {
        "shortest run time first (oracle)"
    }

    fn walk(&self) -> Walk {
        Walk::Greedy
    }

    fn books(&self, _e: &Engine) -> Box<dyn Books> {
        Box::new(Keyed(|e, job| {
            e.policy_runtime(job).map_or(u64::MAX, |r| r.max(0) as u64)
        }))
    }
}
