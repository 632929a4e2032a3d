//! Gandiva's rounds as ElasticFlow's simulator runs them
//! (`gandiva_sim_jobs`; rules G2, G5–G8 of docs/peers/elasticflow-gandiva.md):
//! rebalance, progress (the first `cap` jobs of each set advance by the
//! seconds since the last round less their overhead; slices rotate in
//! rounds at a multiple of 60 s), arrivals placed, waiting jobs retried
//! when a set emptied, overheads set, the next round found by
//! ElasticFlow's merge rule. The progress up to the next round is worked
//! out at the end of this one, so the engine knows now which jobs hold
//! GPUs until then and when those that finish end.

use super::sets::{Sets, CLASSES};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;
use tracetui_model::Secs;

#[derive(Debug, Clone)]
pub(super) struct Job {
    pub(super) gpus: u32,
    duration: f64,
    executed: f64,
    overhead: f64,
    /// Ever waited (ElasticFlow's runnable list): its overhead is zeroed
    /// every round after progress.
    ever_pending: bool,
}

impl Job {
    pub(super) fn new(gpus: u32, duration: f64) -> Job {
        Job {
            gpus,
            duration,
            executed: 0.0,
            overhead: 0.0,
            ever_pending: false,
        }
    }
}

#[derive(Debug, Clone)]
pub(super) struct State {
    pub(super) sets: Sets,
    pub(super) jobs: FxHashMap<u32, Job>,
    pending: Vec<u32>,
    running: Vec<u32>,
    /// Arrivals: (time, jobs in arrival order), merged as rounds pass.
    pub(super) events: VecDeque<(Secs, Vec<u32>)>,
    /// Rounds that set overheads (ElasticFlow's `schedule_count`).
    counted: u64,
    /// ElasticFlow's scheduling slot (`--rounds`).
    slot: Secs,
    /// The next round, and the seconds from this one to it.
    pub(super) next: Option<Secs>,
    td: Secs,
    /// Progress to the next round, worked out ahead: a set emptied.
    released: bool,
    pub(super) first: bool,
}

/// What the engine is to do until the next round.
#[derive(Debug, Default)]
pub(super) struct Plan {
    /// Jobs that hold GPUs until the next round, when each ends (its
    /// finish where it finishes by then; else a time past that round), and
    /// the machines of its set.
    pub(super) hold: Vec<(u32, Secs, Vec<u32>)>,
}

/// ElasticFlow's per-round overhead without its cache (G7).
fn overhead(n: u32, g: u32, restart: bool) -> f64 {
    let big = n >= 256;
    let mut o = if big { 7.0 } else { 2.0 };
    if restart {
        o += if big { 47.0 } else { 27.0 };
    }
    o + ((g as f64).ln() / 2f64.ln() + 1.0) * 2.0
}

impl State {
    pub(super) fn new(
        sets: Sets,
        jobs: FxHashMap<u32, Job>,
        events: VecDeque<(Secs, Vec<u32>)>,
        slot: Secs,
    ) -> State {
        State {
            slot: slot.max(1),
            sets,
            jobs,
            pending: Vec::new(),
            running: Vec::new(),
            next: events.front().map(|e| e.0),
            events,
            counted: 0,
            td: 0,
            released: false,
            first: true,
        }
    }

    /// The class index of a job, if its size is one.
    fn class(&self, j: u32) -> usize {
        let g = self.jobs[&j].gpus;
        CLASSES
            .iter()
            .position(|&c| c == g)
            .expect("placed jobs have a class")
    }

    /// The round at `t`; what the engine is to do until the next.
    pub(super) fn round(&mut self, t: Secs) -> Plan {
        if self.first {
            self.first = false;
            self.ahead(t, 0);
        }
        // Those that ever waited: all are waiting or placed (a finished
        // job has no books), so only those lists are walked.
        for j in self.pending.iter().chain(&self.running) {
            let job = self.jobs.get_mut(j).expect("books");
            if job.ever_pending {
                job.overhead = 0.0;
            }
        }
        if self.events.front().is_some_and(|e| e.0 == t) {
            let (_, arrivals) = self.events.pop_front().expect("checked");
            for j in arrivals {
                let c = self.class(j);
                if self.sets.place(j, c) {
                    self.running.push(j);
                } else {
                    self.pending.push(j);
                    self.jobs.get_mut(&j).expect("books").ever_pending = true;
                }
            }
        }
        if self.released {
            // ElasticFlow's loop over the list it removes from: the job
            // after each one started is passed over this round.
            let mut i = 0;
            while i < self.pending.len() {
                let j = self.pending[i];
                let c = self.class(j);
                if self.sets.place(j, c) {
                    self.pending.remove(i);
                    self.running.push(j);
                }
                i += 1;
            }
        }
        self.set_next(t);
        if self.events.is_empty() && self.pending.is_empty() && self.running.is_empty() {
            self.next = None;
            return Plan::default();
        }
        let next = self.next.expect("a round follows");
        self.ahead(next, self.td)
    }

    /// Overheads for the next interval, and its time (G2 step 7).
    fn set_next(&mut self, t: Secs) {
        if self.events.is_empty() {
            self.next = Some(t + self.slot);
            self.td = self.slot;
            return;
        }
        let restart = self.counted > 0 && self.counted.is_multiple_of(self.slot as u64);
        self.counted += 1;
        let n = self.sets.n;
        for j in &self.running {
            let job = self.jobs.get_mut(j).expect("books");
            job.overhead = overhead(n, job.gpus, restart);
        }
        let slot = self.slot;
        while self.events.len() > 1 && self.events[0].0 - t <= slot {
            self.events[0].0 = t + slot;
            if self.events[1].0 - t > slot {
                break;
            }
            let (_, more) = self.events.remove(1).expect("two events");
            self.events[0].1.extend(more);
        }
        let at = self.events[0].0;
        self.td = at - t;
        self.next = Some(at);
    }

    /// Rebalancing and progress of the round at `t`, `td` after this one
    /// (G4, G5): who advances until then, and when those that finish end.
    fn ahead(&mut self, t: Secs, td: Secs) -> Plan {
        self.sets.adjust();
        // (ElasticFlow's rotation test is 60 s whatever the slot.)
        let rotate = t % 60 == 0;
        let mut plan = Plan::default();
        let mut released = false;
        for c in 0..CLASSES.len() {
            let mut gone = Vec::new();
            for (k, set) in self.sets.lists[c].iter_mut().enumerate() {
                let conc = set.jobs.len().min(set.cap as usize);
                let mut ended = Vec::new();
                for &j in set.jobs.iter().take(conc.max(1)) {
                    let job = self.jobs.get_mut(&j).expect("books");
                    job.executed += (td as f64 - job.overhead).max(0.0);
                    job.overhead = 0.0;
                    if job.executed >= job.duration {
                        let end = t as f64 - (job.executed - job.duration);
                        plan.hold.push((j, end.ceil() as Secs, set.ids.clone()));
                        ended.push(j);
                    } else {
                        let left = (job.duration - job.executed).ceil() as Secs;
                        plan.hold.push((j, t + left.max(1), set.ids.clone()));
                    }
                }
                if rotate && set.jobs.len() > conc {
                    set.jobs.rotate_left(conc);
                }
                set.jobs.retain(|j| !ended.contains(j));
                self.running.retain(|j| !ended.contains(j));
                for j in &ended {
                    self.jobs.remove(j);
                }
                if set.jobs.is_empty() {
                    gone.push(k);
                    released = true;
                }
            }
            for k in gone.into_iter().rev() {
                let s = self.sets.lists[c].remove(k);
                self.sets.release(&s.ids);
            }
        }
        self.released = released;
        plan
    }
}
