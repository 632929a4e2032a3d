//! `srtf`: preemptive shortest remaining time first (oracle run times).

use crate::rule::{Books, KeyMeaning, Rule, Walk};
use crate::view::View;

pub(super) struct Srtf;

impl Rule for Srtf {
    fn name(&self) -> &str {
        "srtf"
    }

    fn describe(&self) -> &str {
        "preemptive shortest remaining time first (oracle)"
    }

    fn orders_by_runtime(&self) -> bool {
        true
    }

    fn walk(&self) -> Walk {
        Walk::Preemptive
    }

    fn key_meaning(&self) -> KeyMeaning {
        KeyMeaning::Seconds("time left")
    }

    fn books(&self, _v: &dyn View) -> Box<dyn Books> {
        Box::new(SrtfBooks)
    }
}

#[derive(Debug, Clone, Copy)]
struct SrtfBooks;

impl Books for SrtfBooks {
    fn clone_box(&self) -> Box<dyn Books> {
        Box::new(*self)
    }

    /// The time the job still needs if it (re)starts now.
    fn queued_key(&self, v: &dyn View, job: u32) -> u64 {
        v.time_left(job).map_or(u64::MAX, |r| r.max(0) as u64)
    }

    /// Running jobs are kept by end time: remaining time is end − now, the
    /// same order, without re-keying as time passes.
    fn running_key(&self, v: &dyn View, job: u32) -> u64 {
        v.expected_end(job) as u64 ^ (1 << 63)
    }

    /// Remaining time now against the waiting job's time left.
    fn below(&self, v: &dyn View, victim: u32, _running: u64, waiting: u64) -> bool {
        (v.expected_end(victim) - v.now()).max(0) as u64 > waiting
    }

    fn passive(&self) -> bool {
        true
    }
}
