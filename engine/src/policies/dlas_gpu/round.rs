//! The rounds of `dlas-gpu` as ElasticFlow's simulator runs them
//! (`dlas_sim_jobs(gputime=True)`; `../shared/peers/elasticflow-semantics.md`
//! §3.4–3.5, `elasticflow-figures.md` §5.5). One round:
//!
//! 1. The round's event: the earliest of the next arrivals, the one
//!    pending end event (every job that ends first, together) and the next
//!    queue jump; arrivals and ends due at one time are one event, with
//!    the ends first. A jump alone makes a round with neither.
//! 2. Ends: each job of the end event leaves, at the end it was given
//!    (ElasticFlow counts it on time if that end is by its deadline).
//! 3. Arrivals join queue 0, in arrival order.
//! 4. Progress: a running job adds the seconds since its last round, less
//!    the overhead it was charged, to its service (whole seconds, rounded
//!    down); once its service × GPUs reaches its queue's limit (3,250 GPU-s
//!    for queue 0, 7,200 for queue 1) it moves to the next queue's back.
//!    Queue 2 is the last; no job goes back up.
//! 5. Queues 0, 1, 2 in turn, each in its order: a job runs if its GPUs
//!    are still free (one that does not fit is passed over, not waited
//!    for); a running job that does not fit is preempted. A job that
//!    starts is charged ElasticFlow's overhead (uncached: 2 s + 2·(log₂
//!    GPUs + 1) s, 7 s base on 256+ GPUs; +27 s, or +47 s, in every slot-th
//!    round, "restart" rounds, where every running job is charged).
//! 6. Jobs that wait move to the back of their queue; running jobs are
//!    reordered by GPUs, most first (a stable sort of the runnable list).
//! 7. Ends: each running job ends at this round plus the time its
//!    duration still needs (plus the overhead in a restart round); the
//!    earliest of those, raised to a slot after this round, is the end
//!    event, with every job that ends then.
//! 8. The next queue jump: for each running job below the last queue,
//!    this round + ⌈(limit − service) ÷ GPUs⌉ s (ElasticFlow mixes units
//!    there), at least a slot away.
//! 9. Arrivals within a slot of this round are moved to a slot after it,
//!    together, unless only one arrival time is left.
//!
//! One departure: when an end event falls on the time of the next
//! arrivals, ElasticFlow folds its jobs into the arrival event and keeps
//! them there even if a queue jump comes first and moves their ends; the
//! arrival round then ends them at the ends they were last given, and
//! frees their GPUs at once. Here such a job (still running, its end
//! later) runs on to that end on its GPUs, and the rounds before it count
//! them as taken (raw ITP cluster04: one job; none on the traces of the
//! fidelity tests).

use rustc_hash::FxHashMap;
use std::collections::VecDeque;
use tracetui_model::Secs;

/// GPU-seconds of service after which a job leaves queue 0, then queue 1
/// (ElasticFlow's `queue_limit`, `jobs.py:106-108`).
pub(super) const LIMITS: [i64; 2] = [3250, 7200];
const QUEUES: usize = 3;

#[derive(Debug, Clone)]
pub(super) struct Job {
    pub(super) gpus: u32,
    duration: i64,
    /// Seconds run in all (ElasticFlow's `total_executed_time`) and
    /// counted for its queue (`executed_time`: the same, as no job is
    /// ever promoted).
    total: i64,
    executed: i64,
    overhead: f64,
    last_check: Secs,
    pub(super) queue: usize,
    pub(super) running: bool,
    /// The end it was last given (when an end event was made with it).
    pub(super) end: i64,
}

impl Job {
    pub(super) fn new(gpus: u32, duration: i64, submit: Secs) -> Job {
        Job {
            gpus,
            duration,
            total: 0,
            executed: 0,
            overhead: 0.0,
            last_check: submit,
            queue: 0,
            running: false,
            end: 0,
        }
    }
}

/// Arrivals due at one time; `ends` once an end event due at the same
/// time was folded into it (ElasticFlow keeps that list on the arrival
/// event even when a queue jump comes first).
#[derive(Debug, Clone)]
pub(super) struct Arrivals {
    pub(super) at: Secs,
    pub(super) jobs: Vec<u32>,
    ends: Vec<u32>,
}

impl Arrivals {
    pub(super) fn new(at: Secs, jobs: Vec<u32>) -> Arrivals {
        Arrivals {
            at,
            jobs,
            ends: Vec::new(),
        }
    }
}

#[derive(Debug, Clone)]
pub(super) struct State {
    pub(super) slot: Secs,
    /// The cluster's GPUs.
    n: u32,
    pub(super) jobs: FxHashMap<u32, Job>,
    /// Jobs that arrived and have not ended, in ElasticFlow's list order.
    runnable: Vec<u32>,
    queues: [Vec<u32>; QUEUES],
    pub(super) arrivals: VecDeque<Arrivals>,
    /// The one pending end event.
    end_event: Option<(Secs, Vec<u32>)>,
    next_jump: Option<Secs>,
    /// Jobs ended before their end (`end`): (that end, their GPUs), held
    /// until then.
    lingering: Vec<(Secs, u32)>,
    /// Rounds held (ElasticFlow's `schedule_count`).
    counted: u64,
}

/// ElasticFlow's overhead without its cache (`utils.estimate_overhead`).
pub(super) fn overhead(n: u32, g: u32, restart: bool) -> f64 {
    let big = n >= 256;
    let mut o = if big { 7.0 } else { 2.0 };
    if restart {
        o += if big { 47.0 } else { 27.0 };
    }
    o + ((g.max(1) as f64).log2() + 1.0) * 2.0
}

/// What one round decided.
#[derive(Debug, Default)]
pub(super) struct Outcome {
    /// Arrivals it has no books for (they never fit): to be dropped.
    pub(super) refused: Vec<u32>,
    /// Running jobs it ended at this round before the end they were
    /// given: they run on to that end.
    pub(super) early: Vec<(u32, Secs)>,
    /// Jobs that hold GPUs until the next round, with the end each is to
    /// keep until then.
    pub(super) hold: Vec<(u32, Secs)>,
}

impl State {
    pub(super) fn new(
        slot: Secs,
        n: u32,
        jobs: FxHashMap<u32, Job>,
        arrivals: VecDeque<Arrivals>,
    ) -> State {
        State {
            slot: slot.max(1),
            n,
            jobs,
            runnable: Vec::new(),
            queues: Default::default(),
            arrivals,
            end_event: None,
            next_jump: None,
            lingering: Vec::new(),
            counted: 0,
        }
    }

    /// The next round: the earliest of the next arrivals, the end event and
    /// the next queue jump; none once nothing is left to happen.
    pub(super) fn next(&self) -> Option<Secs> {
        let due = [
            self.arrivals.front().map(|a| a.at),
            self.end_event.as_ref().map(|e| e.0),
            self.next_jump,
        ];
        if self.arrivals.is_empty() && self.end_event.is_none() {
            // Nothing can start or end (ElasticFlow: "not large enough").
            return None;
        }
        due.into_iter().flatten().min()
    }

    /// The round at `t` (`next()`).
    pub(super) fn round(&mut self, t: Secs) -> Outcome {
        let mut out = Outcome::default();
        let (ends, arrivals) = self.take_event(t);
        for j in ends {
            self.end(j, t, &mut out);
        }
        self.lingering.retain(|&(end, _)| end > t);
        for j in arrivals {
            if self.jobs.contains_key(&j) {
                self.runnable.push(j);
                self.queues[0].push(j);
            } else {
                out.refused.push(j);
            }
        }
        self.progress(t);
        let restart = self.counted > 0 && self.counted.is_multiple_of(self.slot as u64);
        self.counted += 1;
        self.schedule(restart);
        self.set_ends(t, restart, &mut out);
        self.set_jump(t);
        self.merge_arrivals(t);
        out
    }

    /// The event of the round at `t`: the ends it takes and its arrivals.
    fn take_event(&mut self, t: Secs) -> (Vec<u32>, Vec<u32>) {
        let start = self.arrivals.front().map_or(Secs::MAX, |a| a.at);
        let end = self.end_event.as_ref().map_or(Secs::MAX, |e| e.0);
        if end == start && end != Secs::MAX {
            // The end event folds into the arrivals (and stays there).
            let ends = self.end_event.as_ref().expect("due").1.clone();
            self.arrivals[0].ends = ends;
        }
        let at = start.min(end);
        if self.next_jump.is_some_and(|j| j < at) || at != t {
            return (Vec::new(), Vec::new());
        }
        if end < start {
            let (_, ends) = self.end_event.take().expect("due");
            return (ends, Vec::new());
        }
        let a = self.arrivals.pop_front().expect("due");
        (a.ends, a.jobs)
    }

    /// Job `j` leaves at the round at `t` (if it is still here). One that
    /// runs and was given a later end (ElasticFlow's quirk, in `take_event`)
    /// keeps its GPUs until then here, where ElasticFlow frees them now.
    fn end(&mut self, j: u32, t: Secs, out: &mut Outcome) {
        let Some(job) = self.jobs.remove(&j) else {
            return;
        };
        if job.running && job.end > t {
            self.lingering.push((job.end, job.gpus));
            out.early.push((j, job.end));
        }
        self.runnable.retain(|&x| x != j);
        self.queues[job.queue].retain(|&x| x != j);
    }

    /// Step 4: service since the last round, and demotions.
    fn progress(&mut self, t: Secs) {
        for &j in &self.runnable {
            let job = self.jobs.get_mut(&j).expect("runnable");
            let since = t - job.last_check;
            job.last_check = t;
            if !job.running {
                continue;
            }
            let run = (since as f64 - job.overhead).max(0.0);
            job.total = (job.total as f64 + run) as i64;
            job.executed = (job.executed as f64 + run) as i64;
            job.overhead = 0.0;
            let q = job.queue;
            if q + 1 < QUEUES && job.executed * job.gpus as i64 >= LIMITS[q] {
                job.queue = q + 1;
                self.queues[q + 1].push(j);
                self.queues[q].retain(|&x| x != j);
            }
        }
    }

    /// Steps 5 and 6: who runs, and the lists' new order.
    fn schedule(&mut self, restart: bool) {
        let held: u32 = self.lingering.iter().map(|l| l.1).sum();
        let mut free = self.n as i64 - held as i64;
        let mut start = Vec::new();
        let mut stop = Vec::new();
        for queue in &self.queues {
            for j in queue {
                let job = &self.jobs[j];
                if free >= job.gpus as i64 {
                    if !job.running {
                        start.push(*j);
                    }
                    free -= job.gpus as i64;
                } else if job.running {
                    stop.push(*j);
                }
            }
        }
        for j in stop {
            self.jobs.get_mut(&j).expect("runnable").running = false;
        }
        for j in start {
            let job = self.jobs.get_mut(&j).expect("runnable");
            job.running = true;
            job.overhead = overhead(self.n, job.gpus, restart);
        }
        let jobs = &self.jobs;
        self.runnable
            .sort_by_key(|j| std::cmp::Reverse(jobs[j].gpus));
        for queue in &mut self.queues {
            let (run, wait): (Vec<u32>, Vec<u32>) = queue.iter().partition(|j| jobs[j].running);
            *queue = run;
            queue.extend(wait);
        }
    }

    /// Step 7: every running job's end, and the end event.
    fn set_ends(&mut self, t: Secs, restart: bool, out: &mut Outcome) {
        let mut first: Option<(Secs, Vec<u32>)> = None;
        for &j in &self.runnable {
            let job = self.jobs.get_mut(&j).expect("runnable");
            if !job.running {
                continue;
            }
            let mut left = (job.duration - job.total) as f64;
            if restart {
                job.overhead = overhead(self.n, job.gpus, true);
                left += job.overhead;
            }
            let end = (t as f64 + left) as i64;
            let due = (t + self.slot).max(end);
            match &mut first {
                Some((at, ends)) if due == *at => {
                    job.end = end;
                    ends.push(j);
                }
                Some((at, _)) if due > *at => {}
                _ => {
                    job.end = end;
                    first = Some((due, vec![j]));
                }
            }
            out.hold.push((j, end));
        }
        self.end_event = first;
    }

    /// Step 8: the next queue jump.
    fn set_jump(&mut self, t: Secs) {
        let jump = self
            .runnable
            .iter()
            .map(|j| &self.jobs[j])
            .filter(|job| job.running && job.queue + 1 < QUEUES)
            .map(|job| {
                let left = (LIMITS[job.queue] - job.executed) as f64 / job.gpus.max(1) as f64;
                left.ceil() as i64 + t
            })
            .min();
        self.next_jump = jump.map(|j| j.max(t + self.slot));
    }

    /// Step 9: ElasticFlow's merge of arrivals near this round.
    fn merge_arrivals(&mut self, t: Secs) {
        let slot = self.slot;
        while self.arrivals.len() > 1 && self.arrivals[0].at - t <= slot {
            self.arrivals[0].at = t + slot;
            if self.arrivals[1].at - t > slot {
                break;
            }
            let more = self.arrivals.remove(1).expect("two");
            self.arrivals[0].jobs.extend(more.jobs);
        }
    }
}
