//! What a policy is ([`Rule`], registered once) and the state it keeps in
//! one replay ([`Books`]): the interface every policy file implements. It
//! names the simulation only through `view` (`View`, `Acts`); the handle
//! that names a registered rule is `policy::Policy`.

use super::ask::Reply;
use super::tuning::Tuning;
use super::view::{Acts, Checked, NoAnswer, View};
pub use super::walk::Walk;
use std::fmt;
use tracetui_model::{Secs, Trace};

/// `Unavailable::short` where the cluster asked for (`--gpus`) leaves a
/// machine smaller than the rest and the policy needs them alike: a
/// refusal of the options given, not of the trace.
pub(crate) const PART_MACHINE: &str = "a part machine";

/// `Unavailable::short` of a cluster of several GPU types where the policy
/// runs on one: a refusal of the cluster given, as `PART_MACHINE`.
pub(crate) const MIXED_TYPES: &str = "mixed GPU types";

/// `Unavailable::short` of machines of a size the policy cannot pack its
/// jobs into: a refusal of the cluster given, as `PART_MACHINE`.
pub(crate) const NODE_SIZE: &str = "machines it cannot pack";

/// Why a policy cannot run on a trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unavailable {
    /// What the trace lacks, as a noun: `recorded start times`, `deadlines`.
    pub lacks: String,
    /// A few words for a list of policies: `this trace records no starts`.
    pub short: String,
    /// Where to find traces that have it, if anywhere.
    pub hint: Option<String>,
}

/// What a policy's queue key is, for showing it (lower goes first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyMeaning {
    /// Every job has the same key: the order is arrival order.
    Arrival,
    /// Seconds of something (`run time`, `time left`); `u64::MAX` unknown.
    Seconds(&'static str),
    /// A trace time (a deadline), as `deadline_key` keeps it.
    Deadline,
    /// Milli-GPU-seconds of GPU time asked for; `u64::MAX` unknown.
    GpuTime,
    /// A priority queue's number (0 first).
    Level,
    /// Milli-GPUs held by the job's owner (user or group).
    OwnerShare,
    /// The signed integer an external policy gave, as the protocol says it.
    Signed,
    /// A plain number.
    Number,
}

/// What a policy is: the static half, registered once.
pub trait Rule: Send + Sync + 'static {
    /// The name on the command line, in schedules and in reports.
    fn name(&self) -> &str;
    /// One line for the picker and `--help`.
    fn describe(&self) -> &str;
    /// A short name for narrow places (the replay's header and queue
    /// title); the name unless the rule has a shorter one.
    fn label(&self) -> &str {
        self.name()
    }
    /// The program behind an external policy (`exec:CMD`'s CMD).
    fn command(&self) -> Option<&str> {
        None
    }
    /// The name an external policy gave itself in its hello.
    fn hello_name(&self) -> Option<&str> {
        None
    }
    /// Other names `--policy` accepts.
    fn aliases(&self) -> &[&str] {
        &[]
    }
    /// How its scheduling passes walk the queue (the engine implements
    /// each walk; the books supply the order).
    fn walk(&self) -> Walk;
    /// Whether it may take a running job's GPUs (a preemptive walk, or a
    /// deciding policy that preempts in its answers).
    fn preempts(&self) -> bool {
        self.walk() == Walk::Preemptive
    }
    /// Whether it orders jobs by their run time (time left, GPU-time):
    /// what `--estimate` tells it.
    fn orders_by_runtime(&self) -> bool {
        false
    }
    /// Whether it runs only on machines all of one size (its gangs take
    /// whole machines): `--load` then sizes the cluster in whole machines.
    fn whole_machines(&self) -> bool {
        false
    }
    /// Whether it decides in ElasticFlow's rounds, `--rounds` apart.
    fn in_rounds(&self) -> bool {
        false
    }
    /// What its queue keys mean, to show a waiting job's key.
    fn key_meaning(&self) -> KeyMeaning {
        KeyMeaning::Number
    }
    /// What a user should know before running it on `trace` with `tuning`,
    /// though it runs (`fair` on a trace without users).
    fn caveat(&self, _trace: &Trace, _tuning: &Tuning) -> Option<String> {
        None
    }
    /// Whether `trace` supports this policy: the one place that rule is written.
    fn available(&self, _trace: &Trace) -> Result<(), Unavailable> {
        Ok(())
    }
    /// The state this policy keeps for one replay, fresh (a live switch
    /// makes new books; the engine then tells them who waits and who runs).
    /// `v` is the simulation they are made for, at the time they take over.
    fn books(&self, v: &dyn View) -> Box<dyn Books>;
}

/// A policy's state in one replay, and the order it imposes. The engine
/// calls the hooks as jobs come and go, lending a read-only [`View`]; what
/// a hook changes (keys, promotions) it says through [`Acts`], which the
/// engine applies when the hook returns. Keys: lower goes first; ties
/// break by submit time, then trace order.
pub trait Books: fmt::Debug + Send + Sync {
    /// A boxed copy, state and all (an engine's copies and checkpoints
    /// carry their policy's books).
    fn clone_box(&self) -> Box<dyn Books>;
    /// A waiting job's place in the order.
    fn queued_key(&self, v: &dyn View, job: u32) -> u64;
    /// A running job's priority under a preemptive walk (a running job may be
    /// preempted by a waiting one of lower key).
    fn running_key(&self, v: &dyn View, job: u32) -> u64 {
        self.queued_key(v, job)
    }
    /// Whether running `victim`, kept at priority `running` (its
    /// `running_key` when it started or last changed), ranks strictly below a
    /// waiting job of key `waiting`.
    fn below(&self, _v: &dyn View, _victim: u32, running: u64, waiting: u64) -> bool {
        running > waiting
    }
    /// Whether running jobs are indexed by `running_key` for victim search;
    /// books that choose victims themselves say no.
    fn ranks_running(&self) -> bool {
        true
    }
    /// The jobs `job` may preempt, lowest priority first, for books that
    /// choose victims themselves.
    fn victims(&self, _v: &dyn View, _job: u32) -> Vec<u32> {
        Vec::new()
    }
    /// A job becomes active (it arrived, or waits or runs when the books are made).
    fn joined(&mut self, _v: &dyn View, _acts: &mut Acts<'_>, _job: u32) {}
    /// The books know who waits and runs (told by `joined` and
    /// `started` as they were made): a job that joins from now on arrives.
    fn made(&mut self) {}
    /// A job finished.
    fn left(&mut self, _v: &dyn View, _acts: &mut Acts<'_>, _job: u32) {}
    /// A job replayed as the trace recorded it (its GPUs were never the
    /// engine's to place or take) finished.
    fn hold_ended(&mut self, _v: &dyn View, _job: u32) {}
    /// A job joins (`true`) or leaves the queue.
    fn waiting(&mut self, _v: &dyn View, _job: u32, _joins: bool) {}
    /// A job started running on `milli` milli-GPUs.
    fn started(&mut self, _v: &dyn View, _acts: &mut Acts<'_>, _job: u32, _milli: u64) {}
    /// A running job was resized onto `milli` milli-GPUs (it held `from`
    /// whole GPUs before); heard as a start unless the books care.
    fn resized(&mut self, v: &dyn View, acts: &mut Acts<'_>, job: u32, _from: u32, milli: u64) {
        self.started(v, acts, job, milli)
    }
    /// A waiting job was declined by its policy; heard as leaving unless
    /// the books care.
    fn dropped(&mut self, v: &dyn View, acts: &mut Acts<'_>, job: u32) {
        self.left(v, acts, job)
    }
    /// A running job stopped (finished or preempted).
    fn stopped(&mut self, _v: &dyn View, _acts: &mut Acts<'_>, _job: u32, _milli: u64) {}
    /// A job was preempted and is back in the queue.
    fn preempted(&mut self, _v: &dyn View, _job: u32) {}
    /// The next time the books want to change a priority.
    fn next_wakeup(&self) -> Option<Secs> {
        None
    }
    /// Priority changes due at `t`; whether any happened.
    fn wake(&mut self, _v: &dyn View, _acts: &mut Acts<'_>, _t: Secs) -> bool {
        false
    }
    /// A scheduling point: a pass is about to run at `v.now()`. Books that
    /// decide here (an external policy) answer with key changes,
    /// preemptions and starts, checked whole by `View::check`; the engine
    /// applies them, then walks. A failure changes nothing (the books keep
    /// their state as it was) and the engine falls back to the policy
    /// before; `NoAnswer::Ask` stops the engine at a question for an
    /// external program, and the hook is asked again once `answered`.
    fn decide(&mut self, _v: &dyn View) -> Result<Option<Checked>, NoAnswer> {
        Ok(None)
    }
    /// After a pass's walk: books that decide may change keys (of any
    /// job) once they know what the walk started and preempted.
    fn after_pass(&mut self, _v: &dyn View) -> Result<Option<Checked>, NoAnswer> {
        Ok(None)
    }
    /// The reply to the question a hook asked (`NoAnswer::Ask`), given
    /// just before that hook is asked again.
    fn answered(&mut self, _reply: Reply) {}
    /// The books for a copy of the engine that goes its own way (a what-if
    /// row on another thread): like `clone_box`, but sharing nothing that
    /// another copy uses (an external policy starts its own process).
    fn fork_box(&self) -> Box<dyn Books> {
        self.clone_box()
    }
    /// Whether these books keep no state and answer nothing: every hook
    /// above is the default, only the keys (and `below`) are their own.
    /// The engine then skips the hooks (a few calls per job it would make
    /// for nothing). Say yes only when that is true.
    fn passive(&self) -> bool {
        false
    }
    /// The policy's own count of deadlines kept, where its peer reports one
    /// that differs from "ended by the deadline": (on time, of). ElasticFlow
    /// counts a job on time once admitted unless its planned finish is
    /// late, over every job it admitted or declined.
    fn own_deadline_count(&self) -> Option<(u64, u64)> {
        None
    }
}

impl Clone for Box<dyn Books> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// Deadlines in key order; a job without one comes after every job with one.
pub(crate) fn deadline_key(d: Option<Secs>) -> u64 {
    d.map_or(u64::MAX, |d| (d as u64) ^ (1 << 63))
}
