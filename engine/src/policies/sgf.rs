//! `sgf`: shortest GPU-time (run time × GPUs) first (oracle).

use super::keyed::Keyed;
use crate::rule::{Books, KeyMeaning, Rule, Walk};
use crate::view::View;

pub(super) struct Sgf;

impl Rule for Sgf {
    fn name(&self) -> &str {
        "sgf"
    }

    fn describe(&self) -> &str {
        "shortest GPU-time (run time × GPUs) first (oracle)"
    }

    fn orders_by_runtime(&self) -> bool {
        true
    }

    fn walk(&self) -> Walk {
        Walk::Greedy
    }

    fn key_meaning(&self) -> KeyMeaning {
        KeyMeaning::GpuTime
    }

    fn books(&self, _v: &dyn View) -> Box<dyn Books> {
        Box::new(Keyed(|v, job| {
            let runtime = v.runtime(job).map_or(u64::MAX, |r| r.max(0) as u64);
            runtime.saturating_mul(v.trace().jobs[job as usize].demand.total_milli())
        }))
    }
}
