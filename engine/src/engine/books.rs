//! The engine's side of the policy interface: the [`View`] it lends a
//! policy's books, the acts it takes back from them, and the check and
//! application of a deciding policy's answer.

use super::{Engine, Event, Phase, PolicyFailure};
use crate::cluster::{ClusterState, Grant, TypeFilter};
use crate::error::Refused;
use crate::job::{JobState, Resume};
use crate::placement::{place_asking, Placement};
use crate::policy::{Books, Policy};
use crate::tuning::Tuning;
use crate::view::{Act, Acts, Answer, Checked, View};
use rustc_hash::FxHashSet;
use tracetui_model::{Demand, Secs, Trace};

impl View for Engine {
    fn now(&self) -> Secs {
        self.now
    }

    fn trace(&self) -> &Trace {
        &self.trace
    }

    fn tuning(&self) -> &Tuning {
        &self.tuning
    }

    fn placement(&self) -> Placement {
        self.placement
    }

    fn job(&self, job: u32) -> JobState {
        self.jobs[job as usize]
    }

    fn held(&self, job: u32) -> Option<&[Grant]> {
        self.running.get(&job)
    }

    fn running_jobs(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self.running.keys().copied().collect();
        v.sort_unstable();
        v
    }

    fn queue_in_order(&self, limit: usize) -> Vec<u32> {
        Engine::queue_in_order(self, limit)
    }

    fn free_gpus(&self, machine: u32) -> u32 {
        self.cluster.free(machine)
    }

    fn runtime(&self, job: u32) -> Option<Secs> {
        self.estimated_runtime(job)
    }

    fn expected_end(&self, job: u32) -> Secs {
        Engine::expected_end(self, job)
    }

    fn true_time_left(&self, job: u32) -> Option<Secs> {
        Engine::time_left(self, job)
    }

    fn work_left(&self, job: u32) -> Option<f64> {
        self.work_left_now(job)
    }

    fn rate(&self, job: u32, gpus: u32) -> Option<f64> {
        self.rate_slowest(job, gpus)
    }

    fn time_left(&self, job: u32) -> Option<Secs> {
        self.estimated_left_on(job, None)
    }

    fn attained(&self, job: u32) -> u128 {
        Engine::attained(self, job)
    }

    fn resume(&self, job: u32) -> Resume {
        Engine::resume(self, job)
    }

    fn preempted_before(&self, job: u32) -> Option<Resume> {
        self.resumed(job).copied()
    }

    fn priority(&self, job: u32) -> Option<u64> {
        self.pre.key_of.get(&job).copied()
    }

    fn rank(&self, job: u32) -> u32 {
        self.shapes.rank[job as usize]
    }

    fn job_at_rank(&self, rank: u32) -> u32 {
        self.shapes.arrival[rank as usize]
    }

    fn fits_ever(&self, job: u32) -> bool {
        self.feasible[self.shapes.class_of[job as usize] as usize]
    }

    fn preemptable(&self, job: u32) -> bool {
        let st = self.jobs[job as usize];
        st.phase == Phase::Running && self.completions.has(job)
    }

    fn check(&self, a: &Answer) -> Result<Checked, Refused> {
        self.check_answer(a)
    }
}

impl Engine {
    /// Applies what the last hook did, in order, leaving the list empty.
    fn apply_acts(&mut self) {
        let acts = self.acts.take();
        for &act in &acts {
            match act {
                Act::Requeue { job, old, new } => self.requeue(job, old, new),
                Act::Reprioritize { job, old, new } => self.reprioritize(job, old, new),
                Act::VictimsMayGrow => self.pre.vepoch += 1,
                Act::Promote { job } => {
                    if let Some(r) = self.resumes.get_mut(&job) {
                        r.promoted = true;
                    }
                }
            }
        }
        self.acts.give_back(acts);
    }

    /// A waiting job's key changed from `old` to `new`.
    fn requeue(&mut self, job: u32, old: u64, new: u64) {
        let class = self.shapes.class_of[job as usize];
        let rank = self.shapes.rank[job as usize];
        self.queue.remove(class, old, rank);
        self.queue.insert(class, new, rank);
    }

    /// A running job's priority changed from `old` to `new`.
    fn reprioritize(&mut self, job: u32, old: u64, new: u64) {
        let rank = self.shapes.rank[job as usize];
        self.pre.by_key.remove(&(old, rank));
        self.pre.by_key.insert((new, rank));
        self.pre.key_of.insert(job, new);
        self.pre.vepoch += 1;
    }

    /// A copy that goes its own way (a what-if row on another thread): its
    /// policy shares nothing with this engine's (an external policy starts
    /// its own process), and it waits for answers as long as they take.
    pub fn fork(&self) -> Engine {
        self.clone().forked()
    }

    /// This engine made a fork (see `fork`), without a copy.
    pub fn forked(mut self) -> Engine {
        self.seat.books = Some(self.books().fork_box());
        // It follows a plan of its own (a what-if row's, B's).
        self.applied = 0;
        // Its own books ask their own question (of their own program).
        self.ask_again(None);
        self
    }

    pub(super) fn books(&self) -> &dyn Books {
        self.seat
            .books
            .as_deref()
            .expect("books are lent out only inside a hook")
    }

    /// Lends the engine's view to its policy's books for a hook, then
    /// applies what the hook did (its `Acts`, in order).
    pub(super) fn with_books<R>(
        &mut self,
        f: impl FnOnce(&mut dyn Books, &dyn View, &mut Acts) -> R,
    ) -> R {
        let mut b = self.seat.books.take().expect("books are not lent twice");
        let r = f(&mut *b, &*self, &mut Acts::on(&self.acts));
        self.seat.books = Some(b);
        if !self.acts.is_empty() {
            self.apply_acts();
        }
        r
    }

    /// Lends the engine's view to its policy's books for a hook that only
    /// reads it (and changes the books themselves).
    pub(super) fn with_view<R>(&mut self, f: impl FnOnce(&mut dyn Books, &dyn View) -> R) -> R {
        let mut b = self.seat.books.take().expect("books are not lent twice");
        let r = f(&mut *b, &*self);
        self.seat.books = Some(b);
        r
    }

    /// A job's demand and the GPU types it may use.
    pub(super) fn shape_of(&self, job: u32) -> &(Demand, TypeFilter) {
        &self.shapes.shapes[self.shapes.class_of[job as usize] as usize]
    }

    /// The CPU and memory a job asks of its machine.
    pub(super) fn asks_of(&self, job: u32) -> crate::shape_classes::Asks {
        self.shapes.asks[self.shapes.class_of[job as usize] as usize]
    }

    /// Checks `a` against the state now: jobs exist and are in the state
    /// each action needs, none is started twice, and every start fits —
    /// on the GPUs it names (after this answer's preemptions and earlier
    /// starts) or where the placement rule puts it. Of the jobs to start
    /// if they fit, those that fit then are started; the rest are skipped.
    fn check_answer(&self, a: &Answer) -> Result<Checked, Refused> {
        self.check_rekeys(a)?;
        let mut scratch: Option<ClusterState> = None;
        // Every key is checked, changed or not; the changes are applied.
        let mut out = Checked {
            rekey: a.rekey.iter().filter(|(_, o, k)| o != k).copied().collect(),
            ..Checked::default()
        };
        let mut seen = FxHashSet::default();
        for &v in &a.preempt {
            if !self.preemptable(self.known(v)?) || !seen.insert(v) {
                return Err(Refused::Preempt { job: v });
            }
            let s = scratch.get_or_insert_with(|| self.cluster.clone());
            s.release(v, &self.running[&v]);
            out.preempt.push(v);
        }
        let mut started = FxHashSet::default();
        self.check_elastic(a, &mut scratch, &mut out, &mut started)?;
        for (j, gpus) in &a.start {
            let j = self.startable(*j, &out, &mut started)?;
            let s = scratch.get_or_insert_with(|| self.cluster.clone());
            let g = match gpus {
                Some(g) => self.check_grants(s, j, g.clone())?,
                None => {
                    let (d, f) = self.shape_of(j);
                    place_asking(s, self.placement, d, *f, self.asks_of(j)).ok_or(
                        Refused::NoFit {
                            job: j,
                            placement: self.placement.name(),
                            free: s.free_gpus(*f),
                        },
                    )?
                }
            };
            s.acquire(j, &g);
            out.start.push((j, g));
        }
        for &j in &a.start_if_fits {
            let j = self.startable(j, &out, &mut started)?;
            let s = scratch.get_or_insert_with(|| self.cluster.clone());
            let (d, f) = self.shape_of(j);
            if let Some(g) = place_asking(s, self.placement, d, *f, self.asks_of(j)) {
                s.acquire(j, &g);
                out.start.push((j, g));
            }
        }
        out.ends = self.check_ends(a, &out)?;
        out.finish = self.check_finish(a, &out, &started)?;
        Ok(out)
    }

    /// The jobs an answer finishes: each a preempted job waiting, not
    /// started, scaled or dropped by it, named once, at a time from its
    /// preemption to now.
    fn check_finish(
        &self,
        a: &Answer,
        out: &Checked,
        started: &FxHashSet<u32>,
    ) -> Result<Vec<(u32, Secs)>, Refused> {
        let mut named = FxHashSet::default();
        for &(j, at) in &a.finish {
            let waiting = self.jobs.get(j as usize).map(|s| s.phase) == Some(Phase::Queued);
            let acted = started.contains(&j)
                || out.drop.contains(&j)
                || out.scale.iter().any(|(s, _)| *s == j);
            let stopped = self.resumed(j).map(|r| r.since);
            let in_time = stopped.is_some_and(|s| s <= at && at <= self.now);
            if !waiting || !in_time || acted || !named.insert(j) {
                return Err(Refused::Finish { job: j, at });
            }
        }
        Ok(a.finish.clone())
    }

    /// `job`, if the trace has it.
    fn known(&self, job: u32) -> Result<u32, Refused> {
        let n = self.jobs.len() as u32;
        if job < n {
            Ok(job)
        } else {
            Err(Refused::NoSuchJob { job, n })
        }
    }

    /// The answer's new keys: each for a job that waits or runs, once.
    fn check_rekeys(&self, a: &Answer) -> Result<(), Refused> {
        let n = self.jobs.len() as u32;
        let mut keyed = FxHashSet::default();
        for &(j, _, _) in &a.rekey {
            if !keyed.insert(j) {
                return Err(Refused::KeyTwice { job: j });
            }
            if j >= n {
                return Err(Refused::KeyForNoJob { job: j, n });
            }
            let p = self.jobs[j as usize].phase;
            if p != Phase::Queued && p != Phase::Running {
                return Err(Refused::KeyPhase {
                    job: j,
                    phase: format!("{p:?}"),
                });
            }
        }
        Ok(())
    }

    /// `job` as a start of this answer: known, waiting, not dropped by it,
    /// and not started by it already (then counted as started).
    fn startable(
        &self,
        job: u32,
        out: &Checked,
        started: &mut FxHashSet<u32>,
    ) -> Result<u32, Refused> {
        let j = self.known(job)?;
        if self.jobs[j as usize].phase != Phase::Queued {
            return Err(Refused::NotWaiting { job: j });
        }
        if out.drop.contains(&j) {
            return Err(Refused::StartDropped { job: j });
        }
        if !started.insert(j) {
            return Err(Refused::StartTwice { job: j });
        }
        Ok(j)
    }

    /// Applies a checked answer: keys, then preemptions, then drops and
    /// scalings, then starts.
    pub(super) fn policy_apply(&mut self, c: Checked) {
        for (j, old, new) in c.rekey {
            match self.jobs[j as usize].phase {
                Phase::Queued => self.requeue(j, old, new),
                Phase::Running if self.pre.key_of.contains_key(&j) => {
                    self.reprioritize(j, old, new)
                }
                _ => {}
            }
        }
        if !c.preempt.is_empty() {
            for v in c.preempt {
                let g = self.running[&v].to_vec();
                self.cluster.release(v, &g);
                self.preempt(v);
            }
            self.epoch += 1;
        }
        if !c.drop.is_empty() || !c.scale.is_empty() {
            self.apply_elastic(c.drop, c.scale);
        }
        for (j, g) in c.start {
            self.start(j, &g);
        }
        for (j, at) in c.ends {
            self.hold_end(j, at);
        }
        for (j, at) in c.finish {
            self.finish_waiting(j, at);
        }
    }

    /// The policy failed at this scheduling point: recorded, and the engine
    /// falls back to the policy before (or `fifo`), or halts.
    pub(super) fn policy_failed(&mut self, why: String) {
        let failed = self.seat.policy;
        // Never back to a policy that failed at this instant (two failing
        // external policies would hand the replay to each other for ever).
        let now = self.now;
        let failed_now = |p: Policy| {
            p == failed
                || self
                    .failing
                    .failures
                    .iter()
                    .any(|f| f.at == now && f.policy == p)
        };
        let back = (!self.failing.halt).then(|| {
            self.seat
                .before
                .filter(|&p| !failed_now(p))
                .unwrap_or(Policy::Fifo)
        });
        self.failing.failures.push(PolicyFailure {
            at: self.now,
            policy: failed,
            why,
            fell_back_to: back,
        });
        self.emit(Event::PolicyFailed {
            at: self.now,
            policy: failed,
        });
        match back {
            // Not a switch: the failure says it.
            Some(p) => self.enter(p),
            None => self.failing.halted = true,
        }
    }

    /// Policies that failed so far.
    pub fn failures(&self) -> &[PolicyFailure] {
        &self.failing.failures
    }

    /// Whether a failing policy stops the run (headless) rather than falling back.
    pub fn set_halt_on_failure(&mut self, on: bool) {
        self.failing.halt = on;
    }

    /// Whether a failing policy stopped the run (`set_halt_on_failure`):
    /// nothing more happens then.
    pub fn halted(&self) -> bool {
        self.failing.halted
    }
}
