//! A job's state in a simulation: where it is in its life, when its
//! current run started and ends, and the work it carries across
//! preemptions. What the engine keeps per job and policies read.

use tracetui_model::Secs;

/// Where a job is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Phase {
    /// Not submitted yet (0: a state of zero bytes is a job not submitted).
    Future = 0,
    /// Submitted and waiting in the queue (a preempted job waits here again).
    Queued,
    /// Holding GPUs: started by the simulation, or on a recorded hold.
    Running,
    /// Finished: its run, or its last recorded hold, ended.
    Done,
    /// Needs more than the cluster could ever give it.
    Rejected,
    /// Declined by the policy (admission control): it never runs.
    Dropped,
}

/// What the engine keeps of one job, indexed as the trace lists jobs:
/// where it is in its life and the times of its run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobState {
    /// Where it is in its life.
    pub phase: Phase,
    /// How many machines its current (or last) run holds GPUs on; for a
    /// recorded run, the machines its recorded segments name.
    pub machines: u16,
    /// Its wait as `wait_note` packs it (0: none), so that finishing it
    /// need not read its record (a cache miss at completion order).
    pub(crate) wait_note: u32,
    /// When it first started, trace seconds: a preempted job keeps its
    /// first start, so its wait counts to it.
    pub start: Secs,
    /// When its current run is due to end, trace seconds (a recorded job:
    /// the latest end of its holds); once done, when it finished.
    pub end: Secs,
}

impl JobState {
    /// `n` jobs not submitted yet, in memory the allocator gives zeroed
    /// (fresh pages for a large list: nothing is written until a job
    /// arrives, where `vec![..; n]` would write 24 bytes a job first).
    pub(crate) fn futures(n: usize) -> Vec<JobState> {
        let Ok(layout) = std::alloc::Layout::array::<JobState>(n) else {
            panic!("{n} job states do not fit in memory");
        };
        if layout.size() == 0 {
            return Vec::new();
        }
        // SAFETY: the layout is of `n` states and not empty; a null block
        // is an allocation failure, reported as such. Zero bytes are a
        // valid `JobState` (every field an integer, or `Phase` whose
        // `Future` is 0 under `repr(u8)`), and the block comes from the
        // global allocator with this layout, as `Vec` frees it.
        unsafe {
            let p = std::alloc::alloc_zeroed(layout).cast::<JobState>();
            if p.is_null() {
                std::alloc::handle_alloc_error(layout);
            }
            Vec::from_raw_parts(p, n, n)
        }
    }
}

/// What a preempted job carries back to the queue, across policy switches.
#[derive(Debug, Clone, Copy, Default)]
pub struct Resume {
    /// Seconds of useful work done before the current run.
    pub done: Secs,
    /// Seconds held before the current run (useful or not), for the starvation guard.
    pub held: Secs,
    /// Attained service before the current run, milli-GPU-seconds.
    pub attained: u128,
    /// Promoted by `las`'s starvation guard: in the first queue to the end.
    pub promoted: bool,
    /// When the current run began, and the restart cost it pays first.
    pub run_from: Secs,
    /// Seconds at the start of the current run that make no progress: the
    /// restart (or rescale) cost.
    pub overhead: Secs,
    /// When it was last preempted.
    pub since: Secs,
    /// Times it has been preempted.
    pub preemptions: u32,
    /// Iterations done before the current run (a job with a speed model).
    pub work_done: f64,
}
