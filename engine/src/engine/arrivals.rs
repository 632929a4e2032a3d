//! The arrivals still to come: how far the engine has gone through the
//! jobs in arrival order, and when the next of them is submitted (the
//! clock reads it at every instant, so it is kept, not looked up).

use tracetui_model::{Secs, Trace};

/// Where the engine stands in the jobs' arrival order (`Shapes::arrival`).
#[derive(Debug, Clone)]
pub(super) struct Arrivals {
    /// Jobs arrived so far: the arrival rank of the next to arrive.
    next: usize,
    /// When the job at `next` is submitted (`Secs::MAX`: none left).
    next_submit: Secs,
}

impl Arrivals {
    /// None arrived yet, of the jobs in `order` (rank → job) of `trace`.
    pub(super) fn new(order: &[u32], trace: &Trace) -> Arrivals {
        Arrivals {
            next: 0,
            next_submit: submit_at(order, trace, 0),
        }
    }

    /// When the next job arrives (`Secs::MAX`: none left).
    pub(super) fn next_submit(&self) -> Secs {
        self.next_submit
    }

    /// How many jobs have arrived (the rank of the next to arrive).
    pub(super) fn arrived(&self) -> usize {
        self.next
    }

    /// The next job, if it is submitted at `t`: it has arrived then, and
    /// the one after it is next.
    pub(super) fn pop_at(&mut self, t: Secs, order: &[u32], trace: &Trace) -> Option<u32> {
        let &job = order.get(self.next)?;
        if trace.jobs[job as usize].submit != t {
            return None;
        }
        self.next += 1;
        self.next_submit = submit_at(order, trace, self.next);
        Some(job)
    }
}

/// When the job of arrival rank `rank` is submitted (`Secs::MAX`: none).
fn submit_at(order: &[u32], trace: &Trace, rank: usize) -> Secs {
    order
        .get(rank)
        .map_or(Secs::MAX, |&j| trace.jobs[j as usize].submit)
}
