//! Compact checkpoints for the replay: an engine state to go back to,
//! without the per-job records the live engine's own history already holds.
//!
//! A replay only ever goes back to a checkpoint it passed on its way to
//! now, and the engine is deterministic, so the live engine's per-job
//! figures (JCT, wait, slowdown, bounded slowdown, appended in order) start with the
//! checkpoint's, and its finished and rejected jobs finished the same way.
//! A snapshot keeps the lengths of the figures and the states of the jobs
//! that were waiting or running; going back truncates the figures, puts
//! those states back and makes the jobs that arrived since not arrived.
//! At released PAI scale that is a few MB a checkpoint instead of ~50.

use super::{Engine, JobState, Phase};
use tracetui_model::Secs;

/// An engine's state at one time, less what its future holds anyway.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// The engine with no per-job states and no figures.
    engine: Engine,
    /// Jobs waiting or running then, with their states.
    open: Vec<(u32, JobState)>,
    /// How many JCT, wait, slowdown and bounded slowdown figures there were.
    figures: [usize; 4],
    bytes: usize,
}

/// The per-job figures, taken out of `t`: JCT, wait, slowdown, bounded slowdown.
fn take_figures(t: &mut crate::metrics::Tally) -> [Vec<f64>; 4] {
    [
        std::mem::take(&mut t.jct),
        std::mem::take(&mut t.wait),
        std::mem::take(&mut t.slowdown),
        std::mem::take(&mut t.bounded_slowdown),
    ]
}

/// Puts `take_figures`' figures back into `t`.
fn put_figures(t: &mut crate::metrics::Tally, [j, w, s, b]: [Vec<f64>; 4]) {
    (t.jct, t.wait, t.slowdown, t.bounded_slowdown) = (j, w, s, b);
}

const NOT_ARRIVED: JobState = JobState {
    phase: Phase::Future,
    machines: 0,
    wait_note: 0,
    start: 0,
    end: 0,
};

impl Snapshot {
    /// The engine's time then, in trace seconds.
    pub fn now(&self) -> Secs {
        self.engine.now
    }

    /// The policy in force then.
    pub fn policy(&self) -> crate::policy::Policy {
        self.engine.seat.policy
    }

    /// The power-limit policy in force then (with an energy model).
    pub fn power_policy(&self) -> Option<crate::energy::PowerPolicy> {
        self.engine.power_policy()
    }

    /// Makes the per-job states of an engine whose history passed through
    /// this snapshot, and that has seen jobs up to arrival rank `arrived`,
    /// what they were then.
    fn put_back(&self, jobs: &mut [JobState], arrived: usize) {
        for &j in &self.engine.shapes.arrival[self.engine.arrivals.arrived()..arrived] {
            jobs[j as usize] = NOT_ARRIVED;
        }
        for &(j, st) in &self.open {
            jobs[j as usize] = st;
        }
    }

    /// Its size in bytes, measured from what it holds.
    pub fn held_bytes(&self) -> usize {
        self.bytes
    }
}

impl Engine {
    /// A snapshot of now (see the module's notes).
    pub fn snapshot(&mut self) -> Snapshot {
        let jobs = std::mem::take(&mut self.jobs);
        let places = self.running.take_places();
        // Events not yet taken are the live engine's to report, not part
        // of a state to go back to (a jump forward gathers millions).
        let events = std::mem::take(&mut self.journal.events);
        let t = &mut self.tally;
        let figures = [
            t.jct.len(),
            t.wait.len(),
            t.slowdown.len(),
            t.bounded_slowdown.len(),
        ];
        let kept = take_figures(t);
        let engine = self.clone();
        put_figures(&mut self.tally, kept);
        self.journal.events = events;
        self.jobs = jobs;
        self.running.give_places(places);
        let open: Vec<(u32, JobState)> = self
            .open_jobs()
            .into_iter()
            .map(|j| (j, self.jobs[j as usize]))
            .collect();
        let bytes = engine.held_bytes() + open.capacity() * std::mem::size_of::<(u32, JobState)>();
        Snapshot {
            engine,
            open,
            figures,
            bytes,
        }
    }

    /// A new engine at `s`, a snapshot this engine's history passed
    /// through (this one stays where it is).
    pub fn restored(&self, s: &Snapshot) -> Engine {
        let mut e = s.engine.clone();
        let mut jobs = self.jobs.clone();
        s.put_back(&mut jobs, self.arrivals.arrived());
        e.jobs = jobs;
        e.running
            .put_places(self.running.places_copy(), &self.running);
        let t = &self.tally;
        e.tally.jct = t.jct[..s.figures[0]].to_vec();
        e.tally.wait = t.wait[..s.figures[1]].to_vec();
        e.tally.slowdown = t.slowdown[..s.figures[2]].to_vec();
        e.tally.bounded_slowdown = t.bounded_slowdown[..s.figures[3]].to_vec();
        e
    }

    /// Goes back to `s`, a snapshot this engine's history passed through.
    pub(crate) fn restore(&mut self, s: &Snapshot) {
        let mut jobs = std::mem::take(&mut self.jobs);
        let mut figures = take_figures(&mut self.tally);
        let arrived = self.arrivals.arrived();
        let mut was = std::mem::take(&mut self.running);
        let places = was.take_places();
        *self = s.engine.clone();
        self.running.put_places(places, &was);
        s.put_back(&mut jobs, arrived);
        debug_assert!(
            figures.iter().zip(&s.figures).all(|(v, &n)| v.len() >= n),
            "a snapshot from this engine's past"
        );
        for (v, &n) in figures.iter_mut().zip(&s.figures) {
            v.truncate(n);
        }
        self.jobs = jobs;
        put_figures(&mut self.tally, figures);
    }

    /// The jobs waiting or running, ascending, from the queue and the
    /// running jobs (no scan of every job: a checkpoint of a million-job
    /// trace takes this many, not a million).
    fn open_jobs(&self) -> Vec<u32> {
        let mut open: Vec<u32> = self
            .queue
            .entries()
            .map(|(_, _, r)| self.shapes.arrival[r as usize])
            .chain(self.running.keys().copied())
            .chain(self.holds.jobs())
            .filter(|&j| matches!(self.jobs[j as usize].phase, Phase::Queued | Phase::Running))
            .collect();
        open.sort_unstable();
        open.dedup();
        open
    }

    /// Whether the waiting and running jobs found from the queue and the
    /// running jobs are every job in those phases (for tests).
    #[doc(hidden)]
    pub fn open_jobs_are_found(&self) -> bool {
        let scan: Vec<u32> = (0..self.jobs.len() as u32)
            .filter(|&j| matches!(self.jobs[j as usize].phase, Phase::Queued | Phase::Running))
            .collect();
        scan == self.open_jobs()
    }

    /// The bytes this engine holds, measured from its containers' sizes
    /// (tables and trees counted by entries; the trace is shared, not
    /// counted).
    pub fn held_bytes(&self) -> usize {
        use std::mem::size_of;
        let t = &self.tally;
        let figures = (t.jct.capacity()
            + t.wait.capacity()
            + t.slowdown.capacity()
            + t.bounded_slowdown.capacity())
            * 8;
        self.jobs.capacity() * size_of::<JobState>()
            + figures
            + self.running.held_bytes()
            + self.holds.held_bytes()
            + self.completions.held_bytes()
            + self.cluster.held_bytes()
            + self.queue.held_bytes()
            + self.resumes.capacity() * (size_of::<super::Resume>() + 8)
            + self.held_ends.held_bytes()
            + self.journal.events.capacity() * size_of::<super::Event>()
            + self.power.as_ref().map_or(0, |p| p.held_bytes())
    }
}
