//! The discrete-event engine: integer seconds, one instant at a time
//! (completions, then arrivals, then one scheduling pass).

mod arrivals;
mod books;
mod clock;
mod elastic;
mod ends;
mod estimated;
mod held_ends;
mod holds;
mod named_gpus;
mod placed;
mod power;
mod power_meter;
mod preempt;
mod preemption;
mod queries;
mod recorded;
mod rounds_gate;
mod seat;
pub(crate) mod snapshot;
mod speed;
mod switch;
mod victims;
mod waiting;
mod walks;
mod why;

pub use crate::switch::Switch;
pub use crate::waits::{Blocked, QueuePlace};

pub(crate) use crate::job::{JobState, Phase, Resume};
pub(crate) use crate::running::Running;

use super::ask::Question;
use super::backfill::Reservation;
use super::cluster::{ClusterState, Grant};
use super::metrics::Tally;
use super::placement::{place_asking, Placement};
use super::policy::{Policy, Walk};
use super::queue::{MinTree, Queue, Shapes};
use super::tuning::Tuning;
use rustc_hash::FxHashMap;
use std::sync::Arc;
use tracetui_model::{Secs, Trace};

/// Something that happened, for the TUI's log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A job started running: its first start, a resume after preemption,
    /// or (under `recorded`) its first recorded hold.
    Started {
        /// The job, by its index in the trace.
        job: u32,
        /// When, in trace seconds.
        at: Secs,
        /// Machines its GPUs span (a recorded hold: 1 on a named machine,
        /// else 0).
        machines: u32,
        /// Milli-GPUs it started on (an elastic start may differ from its demand).
        milli: u64,
    },
    /// A job's work is done: it left the cluster.
    Finished {
        /// The job, by its index in the trace.
        job: u32,
        /// When, in trace seconds.
        at: Secs,
    },
    /// A job needs more than the cluster can ever give: it never runs.
    Rejected {
        /// The job, by its index in the trace.
        job: u32,
        /// When, in trace seconds.
        at: Secs,
    },
    /// A running elastic job's GPUs changed: `from` GPUs to `to`.
    Resized {
        /// The job, by its index in the trace.
        job: u32,
        /// When, in trace seconds.
        at: Secs,
        /// Whole GPUs it held before.
        from: u32,
        /// Whole GPUs it holds now (the same count when it only moved).
        to: u32,
    },
    /// The policy declined a waiting job: it never runs.
    Dropped {
        /// The job, by its index in the trace.
        job: u32,
        /// When, in trace seconds.
        at: Secs,
    },
    /// A running job lost its GPUs to a job of higher priority.
    Preempted {
        /// The job that lost them, by its index in the trace.
        job: u32,
        /// When, in trace seconds.
        at: Secs,
    },
    /// A live or scheduled switch put another policy in force (a fallback
    /// after a failure is `PolicyFailed` instead).
    PolicySwitched {
        /// When, in trace seconds.
        at: Secs,
        /// The policy in force from then.
        to: Policy,
    },
    /// The power-limit policy changed (only with an energy model).
    PowerSwitched {
        /// When, in trace seconds.
        at: Secs,
        /// The power-limit policy in force from then.
        to: crate::energy::PowerPolicy,
    },
    /// The placement rule changed: later starts are placed by it.
    PlacementSwitched {
        /// When, in trace seconds.
        at: Secs,
        /// The placement rule in force from then.
        to: crate::placement::Placement,
    },
    /// The policy failed (see `Engine::failures`); the engine fell back to
    /// the policy before, or halted.
    PolicyFailed {
        /// The scheduling point it failed at, in trace seconds.
        at: Secs,
        /// The policy that failed.
        policy: Policy,
    },
}

/// A policy that failed at a scheduling point, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyFailure {
    /// The scheduling point it failed at, in trace seconds.
    pub at: Secs,
    /// The policy that failed.
    pub policy: Policy,
    /// What went wrong, one line (the report's `failed` gives the first).
    pub why: String,
    /// The policy the engine fell back to (None: it halted).
    pub fell_back_to: Option<Policy>,
}

/// A deterministic simulation of one trace on one cluster.
#[derive(Debug, Clone)]
pub struct Engine {
    trace: Arc<Trace>,
    shapes: Arc<Shapes>,
    /// class → whether a job of that shape can ever fit this cluster.
    feasible: Arc<Vec<bool>>,
    placement: Placement,
    /// The policy in force, its books, and the one before it.
    seat: seat::Seat,
    /// Policies that failed, and whether a failure stops the run.
    failing: seat::Failing,
    now: Secs,
    /// The jobs still to arrive, in arrival order.
    arrivals: arrivals::Arrivals,
    jobs: Vec<JobState>,
    running: Running,
    /// Where a pass's placement puts its grants (kept: no allocation per start).
    placed: Vec<Grant>,
    /// The recorded holds in play: their timeline, GPUs and counts.
    holds: holds::Holds,
    /// Milli-GPU-seconds each job has held (every run, restarts and
    /// recorded holds included), when asked for (`track_held`).
    held: Option<Vec<u64>>,
    /// Where jobs ran (`placed.rs`).
    placed_on: placed::Placed,
    /// When the jobs this engine started end.
    completions: ends::Ends,
    cluster: ClusterState,
    queue: Queue,
    /// Bumped whenever capacity is released; a class that failed to fit in
    /// this epoch cannot fit until the next one.
    epoch: u64,
    tally: Tally,
    reservation: Option<Reservation>,
    /// The energy model and its accounts, when one is given.
    power: Option<power_meter::Power>,
    tuning: Arc<Tuning>,
    /// Jobs preempted at least once: the work they carry.
    resumes: FxHashMap<u32, Resume>,
    /// Running jobs whose end their policy holds (`hold_end`), each with
    /// the end its work gives: let go when the policy is left.
    held_ends: held_ends::HeldEnds,
    /// The preemptive walk's index of running jobs by priority.
    pre: preemption::Preemption,
    /// The events the engine tells of, when it is asked to keep them.
    journal: Journal,
    /// The question the engine stands at: an external policy's program is
    /// to answer before the current instant's pass goes on (`answer`).
    asking: Option<Asking>,
    /// How many switches of the plan it follows it has made (`make_due`).
    applied: usize,
    /// What the books' last hook did (kept empty between hooks, its room reused).
    acts: crate::view::ActList,
    /// How a sharing placement ranked the machines for each job it placed
    /// (the first `MAX_RANKINGS`).
    rankings: FxHashMap<u32, Box<crate::sharing::Ranking>>,
    /// Where `--rounds` holds every other policy's rounds.
    gate: rounds_gate::Gate,
}

/// Jobs whose placement's ranking is kept: the card of each says why it
/// went where it went; past these, none more is kept.
const MAX_RANKINGS: usize = 200_000;

/// The events an engine tells of (a replay shows them in its log), kept
/// only when asked for: a headless run keeps none.
#[derive(Debug, Clone, Default)]
struct Journal {
    on: bool,
    events: Vec<Event>,
}

impl Journal {
    fn emit(&mut self, e: Event) {
        if self.on {
            self.events.push(e);
        }
    }
}

/// A question the engine stands at, and the hook that asked it (asked
/// again once the reply is in).
#[derive(Debug, Clone)]
struct Asking {
    question: Question,
    hook: Hook,
}

/// The hooks of a pass that may ask a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hook {
    /// `decide`, before the walk: the whole pass is still to come.
    Decide,
    /// `after_pass`, after the walk.
    AfterPass,
}

impl Engine {
    /// A replay of `trace` under `policy`, starts placed by `placement`,
    /// standing one second before the first submission (nothing happened yet).
    pub fn new(trace: Arc<Trace>, policy: Policy, placement: Placement) -> Engine {
        let shapes = Arc::new(Shapes::new(&trace));
        let inputs = Arc::new(crate::ledger::Inputs::new(trace.clone()));
        let mut empty = ClusterState::new(&trace.cluster).with_inputs(inputs);
        let feasible = shapes
            .shapes
            .iter()
            .zip(&shapes.asks)
            .map(|((d, f), a)| place_asking(&mut empty, placement, d, *f, *a).is_some())
            .collect();
        let mut cluster = empty;
        // A trace of pods (openb) shows its fragmentation from the start.
        if trace.native.as_ref().and_then(|n| n.pods()).is_some() {
            cluster.ensure_ledger();
        }
        // Nothing has happened yet: every event is strictly after `now`.
        // (The first to arrive has the first submit: no pass over the jobs.)
        let first = shapes
            .arrival
            .first()
            .map(|&j| trace.jobs[j as usize].submit);
        let now = first.unwrap_or(0) - 1;
        let n = trace.jobs.len();
        let classes = shapes.shapes.len();
        let arrivals = arrivals::Arrivals::new(&shapes.arrival, &trace);
        let mut e = Engine {
            trace,
            shapes,
            feasible: Arc::new(feasible),
            placement,
            seat: seat::Seat::new(policy, now),
            failing: seat::Failing::default(),
            now,
            arrivals,
            jobs: JobState::futures(n),
            running: Running::for_jobs(n),
            placed: Vec::new(),
            holds: holds::Holds::default(),
            held: None,
            placed_on: placed::Placed::default(),
            completions: ends::Ends::for_jobs(n, now),
            cluster,
            queue: Queue::new(classes),
            epoch: 0,
            tally: Tally::for_jobs(n),
            reservation: None,
            power: None,
            tuning: Arc::new(Tuning::default()),
            resumes: FxHashMap::default(),
            held_ends: held_ends::HeldEnds::default(),
            pre: preemption::Preemption::default(),
            journal: Journal::default(),
            asking: None,
            applied: 0,
            acts: crate::view::ActList::default(),
            rankings: FxHashMap::default(),
            gate: rounds_gate::Gate::default(),
        };
        e.enter_policy();
        e.rebuild_queue();
        e
    }

    /// Sets the preemptive policies' knobs (before the replay starts).
    pub fn with_tuning(mut self, tuning: Arc<Tuning>) -> Engine {
        self.tuning = tuning;
        self.enter_policy();
        self.rebuild_queue();
        self
    }

    fn emit(&mut self, e: Event) {
        self.journal.emit(e);
    }

    fn start(&mut self, job: u32, grants: &[Grant]) {
        self.dequeue(job);
        self.launch(job, grants);
    }

    /// Runs `job`, out of the queue already, on `grants`.
    fn launch(&mut self, job: u32, grants: &[Grant]) {
        let carried = self.carrying_asks(job, grants);
        let grants = carried.as_deref().unwrap_or(grants);
        self.cluster.acquire(job, grants);
        // The ranking of the placement that chose these grants, if one did.
        if let Some(r) = self.cluster.take_ranking() {
            let here = grants.first().map(|g| g.machine);
            if r.best.first().map(|b| b.0) == here && self.rankings.len() < MAX_RANKINGS {
                self.rankings.insert(job, r);
            }
        }
        let j = &self.trace.jobs[job as usize];
        let (submit, no_deadline) = (j.submit, j.deadline.get().is_none());
        let runtime = self.time_left_on(job, Some(grants));
        let resumed = self.resumed(job).is_some();
        let milli: u64 = grants.iter().map(|g| g.milli as u64).sum();
        self.power_on(job as u64, job, milli as f64 / 1000.0, false);
        let st = &mut self.jobs[job as usize];
        st.phase = Phase::Running;
        if !resumed {
            // Wait counts to the first start; a resumed job keeps it.
            st.start = self.now;
            self.tally.on_start(submit, self.now);
        }
        self.held_ends.forget(job);
        let st = &mut self.jobs[job as usize];
        if let Some(rt) = runtime {
            st.end = self.now + rt.max(0);
            st.wait_note = wait_note(st.start - submit, no_deadline);
            self.completions.push(st.end, job);
        }
        // Grants come grouped by machine: count the runs.
        let machines = grants
            .iter()
            .enumerate()
            .filter(|&(i, g)| i == 0 || grants[i - 1].machine != g.machine)
            .count();
        self.jobs[job as usize].machines = machines.min(u16::MAX as usize) as u16;
        self.note_placed(job, grants);
        self.emit(Event::Started {
            job,
            at: self.now,
            machines: machines as u32,
            milli,
        });
        self.running.insert(job, grants);
        self.on_preemptive_start(job, milli);
    }

    /// Ends `job` now.
    fn finish(&mut self, job: u32) {
        let released = self.running.end(job).map(|grants| {
            self.cluster.release(job, grants);
            grants.iter().map(|g| g.milli as u64).sum::<u64>()
        });
        if let Some(milli) = released {
            self.untrack_running(job, milli);
            let (from, overhead) = match self.done_before(job) {
                Some((_, from, overhead)) => (from, overhead),
                None => (self.jobs[job as usize].start, 0),
            };
            let held = (self.now - from).max(0);
            self.tally.busy_finished += milli as u128 * held as u128;
            self.add_held(job, milli, held);
            self.tally.overhead_busy += milli as u128 * held.min(overhead) as u128;
        }
        if !self.seat.passive {
            self.with_books(|b, v, a| b.left(v, a, job));
        }
        self.power_off(job as u64);
        self.mark_done_at(job, self.now);
    }

    /// Books a job finished at `at` (now, or for one waiting, when its
    /// policy holds it done): its phase, end, and metrics.
    pub(super) fn mark_done_at(&mut self, job: u32, at: Secs) {
        let (submit, deadline) = match note_wait(self.jobs[job as usize].wait_note) {
            Some(wait) => (self.jobs[job as usize].start - wait, None),
            None => {
                let j = &self.trace.jobs[job as usize];
                (j.submit, j.deadline.get())
            }
        };
        // A preempted job's run time is its own, not first start to finish.
        let own = self
            .resumed(job)
            .is_some()
            .then(|| self.runtime_of(job))
            .flatten();
        self.held_ends.forget(job);
        let st = &mut self.jobs[job as usize];
        st.phase = Phase::Done;
        st.end = at;
        let runtime = own.unwrap_or(st.end - st.start);
        self.tally.on_finish(submit, runtime, at);
        if let Some(d) = deadline {
            self.tally.deadlines += 1;
            self.tally.deadlines_met += (at <= d) as u64;
        }
        self.emit(Event::Finished { job, at });
    }

    fn rebuild_queue(&mut self) {
        let waiting: Vec<u32> = self
            .queue
            .entries()
            .map(|(_, _, r)| self.shapes.arrival[r as usize])
            .collect();
        self.queue.clear();
        self.reservation = None;
        self.completions
            .keep_ordered(self.seat.walk == Walk::Backfill);
        if self.seat.walk == Walk::Backfill {
            for (c, members) in self.shapes.members().of.iter().enumerate() {
                self.queue.classes[c].short = Some(MinTree::new(members.len()));
            }
        }
        for job in waiting {
            self.enqueue(job);
        }
    }
}

/// A job's wait (first start − submit) as its state keeps it,
/// when it has no deadline and the wait fits in 31 bits; else 0 (none).
fn wait_note(wait: Secs, no_deadline: bool) -> u32 {
    match u32::try_from(wait) {
        Ok(w) if no_deadline && w < 1 << 31 => w | 1 << 31,
        _ => 0,
    }
}

/// The wait a note from `wait_note` holds, if it holds one.
fn note_wait(note: u32) -> Option<Secs> {
    (note >> 31 == 1).then_some((note & !(1 << 31)) as Secs)
}

#[cfg(test)]
mod note_tests {
    use super::{note_wait, wait_note, JobState, Phase};

    #[test]
    fn job_states_start_zeroed_as_not_submitted() {
        let future = JobState {
            phase: Phase::Future,
            machines: 0,
            wait_note: 0,
            start: 0,
            end: 0,
        };
        for n in [0, 1, 3, 100_000] {
            let states = JobState::futures(n);
            assert_eq!((states.len(), states.capacity()), (n, n));
            assert!(states.iter().all(|s| *s == future), "{n} states");
        }
    }

    #[test]
    fn a_wait_note_round_trips_and_refuses_what_it_cannot_hold() {
        for w in [0, 1, 59, (1 << 31) - 1] {
            assert_eq!(note_wait(wait_note(w, true)), Some(w));
        }
        for (w, no_deadline) in [(1 << 31, true), (-1, true), (5, false)] {
            assert_eq!(wait_note(w, no_deadline), 0);
            assert_eq!(note_wait(0), None);
        }
    }
}
