//! What a policy sees of a simulation, and what it may do to it.
//!
//! A policy's books never hold the engine: the engine lends them a
//! read-only [`View`] (time, the trace and the knobs, each job's state and
//! carried work, the queue in order, the running jobs and their GPUs, free
//! GPUs per machine) and takes back what they do as [`Acts`] (a job's key
//! changed, victims may have grown, a job promoted), applied when the hook
//! returns. A policy that decides at a scheduling point answers with an
//! [`Answer`], checked whole ([`View::check`]) into a [`Checked`] before
//! the engine applies any of it. Nothing here names the engine: policies
//! depend on this module, the engine implements it.

use super::ask::Question;
use super::cluster::Grant;
use super::job::{JobState, Resume};
use super::placement::Placement;
use super::tuning::Tuning;
use tracetui_model::{Secs, Trace};

/// A simulation as a policy sees it: read-only.
pub trait View {
    /// The simulated time now.
    fn now(&self) -> Secs;
    /// The trace being replayed.
    fn trace(&self) -> &Trace;
    /// The knobs of this run (preemption cost, `las` queues, `fair`'s owners, …).
    fn tuning(&self) -> &Tuning;
    /// The placement rule starts go by.
    fn placement(&self) -> Placement;
    /// Where `job` is in its life, and its current (or last) run.
    fn job(&self, job: u32) -> JobState;
    /// The GPUs `job` holds, while it runs.
    fn held(&self, job: u32) -> Option<&[Grant]>;
    /// The running jobs, in job order.
    fn running_jobs(&self) -> Vec<u32>;
    /// Up to `limit` waiting jobs, in the policy's order.
    fn queue_in_order(&self, limit: usize) -> Vec<u32>;
    /// Whole GPUs free on `machine`.
    fn free_gpus(&self, machine: u32) -> u32;
    /// The job's run time under the current power limit, as `--estimate`
    /// tells it (the truth for the oracle).
    fn runtime(&self, job: u32) -> Option<Secs>;
    /// Seconds the job still needs if it (re)starts now, restart cost
    /// included, as `--estimate` tells it.
    fn time_left(&self, job: u32) -> Option<Secs>;
    /// When a running job is expected to end, as `--estimate` tells it
    /// (its end for the oracle; now for a job past its estimate).
    fn expected_end(&self, job: u32) -> Secs;
    /// `time_left` as it truly is, for a policy that plans from the
    /// trace's own durations whatever the estimate (gandiva, as
    /// ElasticFlow's simulator runs it).
    fn true_time_left(&self, job: u32) -> Option<Secs>;
    /// GPU-service attained so far, milli-GPU-seconds (the current run included).
    fn attained(&self, job: u32) -> u128;
    /// The work a job carries (the default for a job never preempted).
    fn resume(&self, job: u32) -> Resume;
    /// The work a job carries, if it was ever preempted.
    fn preempted_before(&self, job: u32) -> Option<Resume>;
    /// A running job's priority as indexed for victim search.
    fn priority(&self, job: u32) -> Option<u64>;
    /// The job's place in arrival order (submit, then trace order).
    fn rank(&self, job: u32) -> u32;
    /// The job at a place in arrival order.
    fn job_at_rank(&self, rank: u32) -> u32;
    /// Iterations `job` has left now (a running job's current run
    /// counted), when it runs from throughput tables.
    fn work_left(&self, job: u32) -> Option<f64>;
    /// Iterations per second of `job` on `gpus` GPUs of the slowest GPU
    /// type of the cluster (a plan that holds on any of them).
    fn rate(&self, job: u32, gpus: u32) -> Option<f64>;
    /// Whether `job` may be preempted: running on GPUs the simulation gave
    /// it (a recorded hold keeps its recorded end).
    fn preemptable(&self, job: u32) -> bool;
    /// Whether `job` could ever be placed, on the whole cluster empty: the
    /// engine rejects on arrival a job that could not.
    fn fits_ever(&self, job: u32) -> bool;
    /// Checks an answer against the state now: jobs exist and are in the
    /// state each action needs, none is started twice, and every start
    /// fits — on the GPUs it names or where the placement rule puts it.
    fn check(&self, a: &Answer) -> Result<Checked, crate::error::Refused>;
}

/// One thing a policy's hook did, applied by the engine when the hook returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Act {
    /// A waiting job's key changed from `old` to `new`.
    Requeue {
        /// The waiting job, by its index in the trace.
        job: u32,
        /// Its key as the queue holds it now.
        old: u64,
        /// Its key from now on.
        new: u64,
    },
    /// A running job's priority changed from `old` to `new`.
    Reprioritize {
        /// The running job, by its index in the trace.
        job: u32,
        /// Its priority as the victim index holds it now.
        old: u64,
        /// Its priority from now on.
        new: u64,
    },
    /// Jobs that could not preempt before may be able to now.
    VictimsMayGrow,
    /// The job keeps the first priority to the end (`las`'s starvation
    /// guard), carried across policy switches like the rest of its work.
    Promote {
        /// The job promoted, by its index in the trace.
        job: u32,
    },
}

/// Where a hook says what it did, in order: the simulation's own list,
/// lent for the hook beside its view (and applied when the hook returns).
pub struct Acts<'a>(&'a ActList);

/// A simulation's list of acts, empty between hooks (its room kept). A
/// hook pushes through a shared borrow while the view is lent; between
/// hooks the engine reads it through `&mut`, without locking.
#[derive(Debug, Default)]
pub(crate) struct ActList(std::sync::Mutex<Vec<Act>>);

impl Clone for ActList {
    /// A copy's list starts empty, as every list is between hooks.
    fn clone(&self) -> ActList {
        ActList::default()
    }
}

impl<'a> Acts<'a> {
    pub(crate) fn on(list: &'a ActList) -> Acts<'a> {
        Acts(list)
    }

    fn push(&mut self, act: Act) {
        let mut list = self.0 .0.lock().unwrap_or_else(|p| p.into_inner());
        list.push(act);
    }

    pub(crate) fn requeue(&mut self, job: u32, old: u64, new: u64) {
        self.push(Act::Requeue { job, old, new });
    }

    pub(crate) fn reprioritize(&mut self, job: u32, old: u64, new: u64) {
        self.push(Act::Reprioritize { job, old, new });
    }

    pub(crate) fn victims_may_grow(&mut self) {
        self.push(Act::VictimsMayGrow);
    }

    pub(crate) fn promote(&mut self, job: u32) {
        self.push(Act::Promote { job });
    }
}

impl ActList {
    pub(crate) fn is_empty(&mut self) -> bool {
        self.list().is_empty()
    }

    fn list(&mut self) -> &mut Vec<Act> {
        self.0
            .get_mut()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The acts in order, leaving the list empty (its room kept).
    pub(crate) fn take(&mut self) -> Vec<Act> {
        std::mem::take(self.list())
    }

    /// The list's room back after its acts were applied.
    pub(crate) fn give_back(&mut self, mut room: Vec<Act>) {
        room.clear();
        *self.list() = room;
    }
}

/// What a deciding policy does at a scheduling point, checked whole
/// against the engine's state before any of it is applied.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Answer {
    /// Key changes: (job, old key, new key), for waiting or running jobs.
    pub rekey: Vec<(u32, u64, u64)>,
    /// Running jobs to preempt (back to the queue with their work).
    pub preempt: Vec<u32>,
    /// Waiting jobs to start, in order, on the GPUs given (checked) or,
    /// without any, where the placement rule puts them.
    pub start: Vec<(u32, Option<Vec<Grant>>)>,
    /// Waiting jobs to start after `start`, in order, where the placement
    /// rule puts them — each only if it fits then; the rest are skipped.
    pub start_if_fits: Vec<u32>,
    /// Elastic jobs and the GPUs each is to hold (a gang of that many
    /// whole GPUs), applied after `preempt` and before `start`: a running
    /// job is resized (the same count keeps its GPUs where it can), a
    /// waiting one starts. Every running job named lets its GPUs go first;
    /// then each is placed in the order given (largest first packs best).
    pub scale: Vec<(u32, u32)>,
    /// Waiting jobs the policy declines: they leave the queue and never run.
    pub drop: Vec<u32>,
    /// A scaling that does not fit takes the largest of the job's levels
    /// below it that does (`Speeds::levels`); with none, a waiting job
    /// stays waiting and a running one is preempted. Without this, it is
    /// refused, and the answer with it.
    pub scale_down_to_fit: bool,
    /// Ends the policy holds: (job, time) for jobs that run after this
    /// answer (kept running, scaled or started by it). The job ends then,
    /// whatever work its speed model says it has left — a policy that
    /// plans finishes itself (ElasticFlow's slot-aligned ends with their
    /// overheads). Applied last.
    pub ends: Vec<(u32, Secs)>,
    /// Waiting jobs that ran before (preempted) and that the policy holds
    /// done, work left or not, each at its time: not before it last
    /// stopped running, not after now (ElasticFlow's `edf-accessctrl` ends
    /// a job it preempted at the end it kept, which may have passed while
    /// it waited for a round). Each is counted cut short.
    pub finish: Vec<(u32, Secs)>,
}

/// Why a deciding policy gave nothing to apply.
#[derive(Debug, Clone)]
pub enum NoAnswer {
    /// It failed (the reason, naming the policy and the time): the engine
    /// falls back to the policy before, or halts.
    Failed(String),
    /// The answer is an external program's to give: the engine stands at
    /// this question until resumed with the reply (`Engine::answer`), then
    /// asks the hook again.
    Ask(Box<Question>),
}

impl From<crate::error::ProtocolError> for NoAnswer {
    fn from(why: crate::error::ProtocolError) -> NoAnswer {
        NoAnswer::Failed(why.to_string())
    }
}

/// An answer that passed its check: every start with its GPUs.
#[derive(Debug, Clone, Default)]
pub struct Checked {
    pub(crate) rekey: Vec<(u32, u64, u64)>,
    pub(crate) preempt: Vec<u32>,
    pub(crate) start: Vec<(u32, Vec<Grant>)>,
    /// Elastic jobs with the GPUs each gets (running: resized; waiting: started).
    pub(crate) scale: Vec<(u32, Vec<Grant>)>,
    pub(crate) drop: Vec<u32>,
    pub(crate) ends: Vec<(u32, Secs)>,
    pub(crate) finish: Vec<(u32, Secs)>,
}
