//! `sjf`: shortest run time first (oracle).

use super::keyed::Keyed;
use crate::rule::{Books, KeyMeaning, Rule, Walk};
use crate::view::View;

pub(super) struct Sjf;

impl Rule for Sjf {
    fn name(&self) -> &str {
        "sjf"
    }

    fn describe(&self) -> &str {
        "shortest run time first (oracle)"
    }

    fn orders_by_runtime(&self) -> bool {
        true
    }

    fn walk(&self) -> Walk {
        Walk::Greedy
    }

    fn key_meaning(&self) -> KeyMeaning {
        KeyMeaning::Seconds("run time")
    }

    fn books(&self, _v: &dyn View) -> Box<dyn Books> {
        Box::new(Keyed(|v, job| {
            v.runtime(job).map_or(u64::MAX, |r| r.max(0) as u64)
        }))
    }
}
