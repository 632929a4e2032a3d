//! The books of the policies that keep no state: the order key is one
//! function of the simulation's view and the job.

use crate::rule::Books;
use crate::view::View;

/// The order key of the policies that keep no state: one function of the
/// simulation's view and the job.
#[derive(Debug, Clone, Copy)]
pub(super) struct Keyed(pub fn(&dyn View, u32) -> u64);

impl Books for Keyed {
    fn clone_box(&self) -> Box<dyn Books> {
        Box::new(*self)
    }

    fn queued_key(&self, v: &dyn View, job: u32) -> u64 {
        (self.0)(v, job)
    }

    fn passive(&self) -> bool {
        true
    }
}
