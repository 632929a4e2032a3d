//! How a scheduling pass walks the queue: the engine implements each
//! walk, a policy picks one (its hello names it, for a program).

/// How a scheduling pass walks the queue (the engine implements each walk;
/// a policy picks one and supplies the order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Walk {
    /// Stop at the first job that does not fit.
    Strict,
    /// Start every job that fits, in order.
    Greedy,
    /// Strict for the head, then EASY backfill behind it.
    Backfill,
    /// No walk: jobs start at their recorded times.
    Recorded,
    /// Every job that fits starts, in order; one that does not may preempt
    /// running jobs of strictly lower priority.
    Preemptive,
    /// No walk: only the jobs the policy starts itself at a scheduling point.
    Explicit,
}

impl Walk {
    /// Its name (`strict`, `preemptive`, …): what a program's hello says,
    /// and how its terms show it.
    pub fn name(self) -> &'static str {
        match self {
            Walk::Strict => "strict",
            Walk::Greedy => "greedy",
            Walk::Backfill => "backfill",
            Walk::Recorded => "recorded",
            Walk::Preemptive => "preemptive",
            Walk::Explicit => "explicit",
        }
    }
}
