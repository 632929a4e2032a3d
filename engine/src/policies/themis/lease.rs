//! The leases of `themis` as ElasticFlow's simulator runs them
//! (`themis_sim_jobs`, `scheduler.py:2316-2547`; notes:
//! `../shared/peers/elasticflow-figures.md` §5.4). Leases fall on a grid
//! a slot (`--rounds`) apart from the first arrival; a job arriving
//! between two is taken at the next. One lease at t:
//!
//! 1. Ends: the jobs that finished in the last lease leave (on time if
//!    their end is by their deadline).
//! 2. Arrivals due join the back of the job list. A lease with ends or
//!    arrivals is an event; t is then the event time the fairness counts
//!    from (in leases without one it keeps its old value, as there).
//! 3. Shares (`share.rs`): for each job, with n jobs on N GPUs and its
//!    trace's g GPUs, the isolated share f = min(1, ⌈N/n⌉ / g); its
//!    isolated time so far grows by the iterations done since its last
//!    lease ÷ the f of then (ElasticFlow's units); its fairness with
//!    share x is [(event time − submit) + iterations left ÷ (rate on g ×
//!    x)] ÷ [isolated time so far + iterations left ÷ f].
//! 4. The list is sorted by share, largest first (shares equal to 1e-6
//!    keep the list's order: where the optimum is not unique that is the
//!    tie rule), and walked: a job runs if its g GPUs are still free, and
//!    the walk stops when none are. Where every job fits, every job runs
//!    whatever the shares, and none are worked out (the list keeps its
//!    order).
//! 5. Progress, for each job that runs: its end would be t + the time
//!    its trace duration has left; that time drops by a slot, its
//!    iterations left by a slot × its rate; once they run out its end is
//!    t + a slot. An end by t + a slot ends it then (at the next lease).
//!
//! There is no overhead (ElasticFlow's stays 0 in `themis`).

use super::share::{shares, Terms};
use rustc_hash::FxHashMap;
use tracetui_model::Secs;

#[derive(Debug, Clone)]
pub(super) struct Job {
    pub(super) gpus: u32,
    /// Iterations per second on its `gpus` (its table's column).
    rate: f64,
    submit: Secs,
    pub(super) iter_left: f64,
    /// Seconds its trace duration has left (ElasticFlow's `remaining_time`).
    remaining: i64,
    /// Isolated time so far, and the iterations left and isolated share
    /// at its last lease.
    cum_iso: f64,
    prev: Option<(f64, f64)>,
    /// Its end, once a lease found it.
    pub(super) end: Option<Secs>,
}

impl Job {
    pub(super) fn new(gpus: u32, rate: f64, submit: Secs, iters: f64, duration: i64) -> Job {
        Job {
            gpus,
            rate,
            submit,
            iter_left: iters,
            remaining: duration,
            cum_iso: 0.0,
            prev: None,
            end: None,
        }
    }

    /// Its end if it ran in every lease from `t` on (shown while it runs;
    /// each lease works it out again).
    fn end_if_kept(&self, t: Secs, slot: Secs) -> Secs {
        let per = slot as f64 * self.rate;
        let by_iters = ((self.iter_left / per).ceil() as i64).max(1);
        let by_time = ((self.remaining - slot) as f64 / slot as f64)
            .ceil()
            .max(0.0) as i64;
        if by_iters - 1 <= by_time {
            t + by_iters * slot
        } else {
            t + self.remaining
        }
    }
}

/// What a lease asks of the engine: the jobs to run until the next, in
/// the order to place them (most GPUs first), each with its end.
#[derive(Debug, Default)]
pub(super) struct Lease {
    pub(super) run: Vec<(u32, Secs)>,
}

#[derive(Debug, Clone)]
pub(super) struct State {
    pub(super) slot: Secs,
    pub(super) n: u32,
    /// The grid's first lease.
    pub(super) origin: Secs,
    pub(super) jobs: FxHashMap<u32, Job>,
    /// The job list, in ElasticFlow's `runnable_jobs` order.
    pub(super) runnable: Vec<u32>,
    /// Jobs that finish in the current lease, ending at the next.
    ending: Vec<u32>,
    event_time: Secs,
}

impl State {
    pub(super) fn new(slot: Secs, n: u32, origin: Secs) -> State {
        State {
            slot,
            n,
            origin,
            jobs: FxHashMap::default(),
            runnable: Vec::new(),
            ending: Vec::new(),
            event_time: origin,
        }
    }

    /// The first lease at or after `at`.
    pub(super) fn lease_at(&self, at: Secs) -> Secs {
        let d = (at - self.origin).max(0);
        self.origin + (d + self.slot - 1) / self.slot * self.slot
    }

    /// Whether any job is left to lease.
    pub(super) fn busy(&self) -> bool {
        !self.runnable.is_empty()
    }

    /// The lease at `t`, with `arrivals` (in arrival order) joining now.
    pub(super) fn lease(&mut self, t: Secs, arrivals: Vec<(u32, Job)>) -> Lease {
        let ended = std::mem::take(&mut self.ending);
        if !ended.is_empty() || !arrivals.is_empty() {
            self.event_time = t;
        }
        for j in ended {
            self.jobs.remove(&j);
            self.runnable.retain(|&x| x != j);
        }
        for (j, job) in arrivals {
            self.jobs.insert(j, job);
            self.runnable.push(j);
        }
        if self.runnable.is_empty() {
            return Lease::default();
        }
        let chosen = self.choose();
        let mut run: Vec<(u32, Secs)> = chosen.iter().map(|&j| (j, self.progress(j, t))).collect();
        let jobs = &self.jobs;
        run.sort_by_key(|&(j, _)| std::cmp::Reverse(jobs[&j].gpus));
        Lease { run }
    }

    /// Step 3 and 4: the jobs that run this lease.
    fn choose(&mut self) -> Vec<u32> {
        let want: u64 = self.runnable.iter().map(|j| self.jobs[j].gpus as u64).sum();
        let terms = self.terms();
        if want > self.n as u64 {
            if let Some(x) = shares(&terms, self.n) {
                let key: FxHashMap<u32, i64> = self
                    .runnable
                    .iter()
                    .zip(&x)
                    .map(|(&j, &x)| (j, (x * 1e6).round() as i64))
                    .collect();
                self.runnable.sort_by_key(|j| std::cmp::Reverse(key[j]));
            }
        }
        let mut free = self.n as i64;
        let mut chosen = Vec::new();
        for &j in &self.runnable {
            if free <= 0 {
                break;
            }
            let g = self.jobs[&j].gpus as i64;
            if g <= free {
                chosen.push(j);
                free -= g;
            }
        }
        chosen
    }

    /// Every job's fairness terms (step 3), its isolated time brought up
    /// to now.
    fn terms(&mut self) -> Vec<Terms> {
        let count = self.runnable.len() as f64;
        let even = (self.n as f64 / count).ceil();
        let mut out = Vec::with_capacity(self.runnable.len());
        for j in &self.runnable {
            let job = self.jobs.get_mut(j).expect("books");
            let f = (even / job.gpus as f64).min(1.0);
            if let Some((iters, f0)) = job.prev {
                job.cum_iso += (iters - job.iter_left) / f0;
            }
            job.prev = Some((job.iter_left, f));
            let isolated = job.cum_iso + job.iter_left / f;
            let waited = (self.event_time - job.submit) as f64;
            out.push(Terms {
                alpha: waited / isolated,
                beta: job.iter_left / job.rate / isolated,
                gpus: job.gpus,
            });
        }
        out
    }

    /// Step 5 for a job that runs at `t`: its end (kept if by the next
    /// lease, else the end it would have if it ran on).
    fn progress(&mut self, j: u32, t: Secs) -> Secs {
        let slot = self.slot;
        let job = self.jobs.get_mut(&j).expect("books");
        let mut end = t + job.remaining;
        job.remaining = (job.remaining - slot).max(0);
        job.iter_left -= slot as f64 * job.rate;
        if job.iter_left <= 0.0 {
            job.remaining = 0;
            end = t + slot;
        }
        if end <= t + slot {
            job.end = Some(end);
            self.ending.push(j);
            return end;
        }
        job.end_if_kept(t + slot, slot)
    }
}
