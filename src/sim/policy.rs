//! Scheduling policies as an open set.
//!
//! A policy is a [`Rule`] (its name, what it is, which walk it uses, whether a
//! trace supports it) that makes fresh [`Books`] for each replay: the state it
//! keeps and the keys it orders jobs by. The built-in rules live one per file
//! in `super::policies` and are registered there; more can be registered at
//! run time ([`Policy::register`]). A [`Policy`] is a small copyable handle
//! naming a registered rule, so events, schedules and switches stay cheap.

use super::error::ArgError;
use super::view::{Acts, Checked, NoAnswer, View};
use crate::trace::model::{Secs, Trace};
use std::fmt;
use std::str::FromStr;

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
    fn walk(&self) -> Walk;
    /// Whether it may take a running job's GPUs (a preemptive walk, or a
    /// deciding policy that preempts in its answers).
    fn preempts(&self) -> bool {
        self.walk() == Walk::Preemptive
    }
    /// What its queue keys mean, to show a waiting job's key.
    fn key_meaning(&self) -> KeyMeaning {
        KeyMeaning::Number
    }
    /// What a user should know before running it on `trace` with `tuning`,
    /// though it runs (`fair` on a trace without users).
    fn caveat(&self, _trace: &Trace, _tuning: &crate::sim::Tuning) -> Option<String> {
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
    fn answered(&mut self, _reply: crate::sim::policies::exec::Reply) {}
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

/// A registered policy. The built-ins have named handles (`Policy::Fifo`
/// …), declared with their list in `policies/mod.rs`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Policy(u16);

impl Policy {
    /// The handle of the registration at `index` (the registry's own).
    pub(super) const fn at(index: u16) -> Policy {
        Policy(index)
    }

    pub fn rule(self) -> &'static dyn Rule {
        super::policies::rule(self.0)
    }

    /// Every registered policy: the built-ins in their order, then any registered since.
    pub fn all() -> Vec<Policy> {
        (0..super::policies::count()).map(Policy).collect()
    }

    /// Every policy that simulates (all but `recorded`).
    pub fn simulated() -> impl Iterator<Item = Policy> {
        Policy::all()
            .into_iter()
            .filter(|p| p.walk() != Walk::Recorded)
    }

    /// The simulated policies that never preempt.
    pub fn non_preemptive() -> impl Iterator<Item = Policy> {
        Policy::simulated().filter(|p| !p.preempts())
    }

    /// The policies `trace` supports, in registration order.
    pub fn available_on(trace: &Trace) -> Vec<Policy> {
        Policy::all()
            .into_iter()
            .filter(|p| p.available(trace).is_ok())
            .collect()
    }

    /// Adds a policy to the registry (e.g. one defined outside the program);
    /// a rule with a name already registered gets that registration back.
    pub fn register(rule: Box<dyn Rule>) -> Policy {
        Policy(super::policies::register(rule))
    }

    pub fn name(self) -> &'static str {
        self.rule().name()
    }

    pub fn describe(self) -> &'static str {
        self.rule().describe()
    }

    /// The name results show: a built-in's name, an external policy's
    /// label (the name its hello gave, unique among the policies).
    pub fn title(self) -> &'static str {
        match self.rule().command() {
            Some(_) => self.rule().label(),
            None => self.rule().name(),
        }
    }

    /// The program behind an external policy.
    pub fn command(self) -> Option<&'static str> {
        self.rule().command()
    }

    /// The name an external policy gave itself (its label may be another,
    /// from config.toml or made unique).
    pub fn hello_name(self) -> Option<&'static str> {
        self.rule().hello_name()
    }

    pub fn label(self) -> &'static str {
        self.rule().label()
    }

    pub fn walk(self) -> Walk {
        self.rule().walk()
    }

    pub fn key_meaning(self) -> KeyMeaning {
        self.rule().key_meaning()
    }

    pub fn preempts(self) -> bool {
        self.rule().preempts()
    }

    /// What to know before running it on `trace` (it runs all the same).
    pub fn caveat(self, trace: &Trace, tuning: &crate::sim::Tuning) -> Option<String> {
        self.rule().caveat(trace, tuning)
    }

    pub fn available(self, trace: &Trace) -> Result<(), Unavailable> {
        self.rule().available(trace)
    }

    /// Refuses a policy `trace` cannot support, saying what is missing and
    /// what would do instead.
    pub fn check(self, trace: &Trace) -> Result<(), ArgError> {
        let Err(u) = self.available(trace) else {
            return Ok(());
        };
        let others: Vec<&str> = Policy::available_on(trace)
            .into_iter()
            .filter(|p| p.walk() != Walk::Recorded)
            .map(|p| p.name())
            .collect();
        Err(ArgError::Unavailable {
            policy: self.name().to_string(),
            lacks: u.lacks.to_string(),
            format: trace.format.to_string(),
            hint: u.hint.map(|h| format!(" ({h})")).unwrap_or_default(),
            others: others.join(", "),
        })
    }
}

impl fmt::Debug for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Policy({})", self.name())
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Policy {
    type Err = ArgError;

    /// A built-in's name (or alias), any registered name, or `exec:CMD`,
    /// which registers the program CMD as a policy (asking it who it is).
    fn from_str(s: &str) -> Result<Policy, ArgError> {
        if let Some(cmd) = s.trim().strip_prefix("exec:") {
            return super::drive::register(cmd);
        }
        if let Some(p) = Policy::all().into_iter().find(|p| p.name() == s.trim()) {
            return Ok(p);
        }
        let s = s.trim().to_ascii_lowercase();
        Policy::all()
            .into_iter()
            .find(|p| p.name() == s || p.rule().aliases().contains(&s.as_str()))
            .ok_or_else(|| ArgError::UnknownPolicy {
                name: s.clone(),
                known: Policy::all()
                    .iter()
                    .map(|p| p.name())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }
}

/// Deadlines in key order; a job without one comes after every job with one.
pub(crate) fn deadline_key(d: Option<Secs>) -> u64 {
    d.map_or(u64::MAX, |d| (d as u64) ^ (1 << 63))
}

/// A comma-separated list of policies, for `compare --policies`.
pub(crate) fn parse_list(s: &str) -> Result<Vec<Policy>, ArgError> {
    let v: Result<Vec<Policy>, ArgError> = s
        .split(',')
        .filter(|p| !p.trim().is_empty())
        .map(str::parse)
        .collect();
    let v = v?;
    if v.is_empty() {
        return Err(ArgError::NoPolicies);
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in Policy::all() {
            assert_eq!(p.name().parse::<Policy>().unwrap(), p);
        }
        assert_eq!("backfill".parse::<Policy>().unwrap(), Policy::FifoBackfill);
        assert!("lifo"
            .parse::<Policy>()
            .unwrap_err()
            .to_string()
            .contains("choose from"));
        assert_eq!(
            parse_list("fifo, sjf").unwrap(),
            vec![Policy::Fifo, Policy::Sjf]
        );
        assert!(parse_list(",").is_err());
    }

    #[test]
    fn built_in_handles_name_their_rules() {
        let names: Vec<&str> = Policy::all().iter().take(10).map(|p| p.name()).collect();
        assert_eq!(
            names,
            [
                "recorded",
                "fifo",
                "first-fit",
                "fifo-backfill",
                "sjf",
                "sgf",
                "srtf",
                "las",
                "fair",
                "edf"
            ]
        );
        assert_eq!(Policy::Las.name(), "las");
        assert!(Policy::Fair.preempts() && !Policy::Sjf.preempts());
    }
}
