//! What elasticflow keeps between rounds: its jobs and their plans, its
//! event list (arrivals from the trace, and the ends and plan changes it
//! set), the reservations, the placement and the counts it reports.

use super::job::Job;
use super::maps::Free;
use super::nodes::Nodes;
use super::plan::Bufs;
use crate::view::View;
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use tracetui_model::Secs;

/// The jobs due at one time: arrivals and planned ends.
#[derive(Debug, Clone, Default)]
pub(super) struct Due {
    pub(super) start: Vec<u32>,
    pub(super) end: Vec<u32>,
}

#[derive(Debug, Clone)]
pub(super) struct State {
    /// ElasticFlow's admission control (`ef-accessctrl`); without it,
    /// `ef`: every arrival is planned and run.
    pub(super) admission: bool,
    /// `edf-accessctrl`: EDF plans, each arrival admitted alone
    /// (`edf_round.rs`).
    pub(super) edf: bool,
    /// ElasticFlow's scheduling slot (`--rounds`): rounds at least this
    /// far apart, every this-many-th one clearing the overhead cache.
    pub(super) slot: Secs,
    pub(super) n: u32,
    pub(super) gpn: u32,
    /// Every job admitted and not ended.
    pub(super) jobs: FxHashMap<u32, Job>,
    /// Those jobs, in the policy's order; and of them, those that never
    /// started, and those that did.
    pub(super) runnable: Vec<u32>,
    pub(super) pending: Vec<u32>,
    pub(super) running: Vec<u32>,
    /// Events besides the arrivals still in the trace ahead.
    pub(super) events: BTreeMap<Secs, Due>,
    /// The first job (in arrival order) not yet in an event or taken.
    pub(super) next_rank: u32,
    pub(super) free: Free,
    pub(super) nodes: Nodes,
    /// Rounds held (ElasticFlow's `schedule_count`).
    pub(super) rounds: u64,
    /// The next round, and the one before it.
    pub(super) next: Option<Secs>,
    pub(super) last: Secs,
    /// Jobs started and not (yet) found late by their plan; jobs declined
    /// at arrival or found late by their plan when they ended.
    pub(super) accepted: i64,
    pub(super) declined: u64,
    /// Room the hand-out's probes plan in (`grow.rs`).
    pub(super) bufs: Bufs,
    pub(super) given: Free,
    /// Where a hand-out step changed the reservations' values.
    pub(super) changes: Vec<(Secs, Secs)>,
    /// Room to sort the runnable jobs by gain in (`grow.rs`).
    pub(super) order: Vec<(f64, u32)>,
}

impl State {
    /// The books of a run at `v.now()`: every waiting or running job
    /// counts as admitted, not started; the first round is at the first
    /// arrival, or now if any job waits or runs.
    pub(super) fn new(v: &dyn View, admission: bool, edf: bool) -> State {
        let trace = v.trace();
        let machines = trace.cluster.machines.len() as u32;
        let n: u32 = trace.cluster.machines.iter().map(|m| m.gpus).sum();
        let gpn = trace.cluster.per_node.unwrap_or(1).max(1);
        let mut s = State {
            admission,
            edf,
            slot: v.tuning().rounds,
            n,
            gpn,
            jobs: FxHashMap::default(),
            runnable: Vec::new(),
            pending: Vec::new(),
            running: Vec::new(),
            events: BTreeMap::new(),
            next_rank: 0,
            free: Free::from([(0, n as i64)]),
            nodes: Nodes::new(machines, gpn, trace.cluster.switches),
            rounds: 0,
            next: None,
            last: v.now(),
            accepted: 0,
            declined: 0,
            bufs: Bufs::default(),
            given: Free::new(),
            changes: Vec::new(),
            order: Vec::new(),
        };
        let total = trace.jobs.len() as u32;
        while s.next_rank < total {
            let j = v.job_at_rank(s.next_rank);
            let phase = v.job(j).phase;
            if phase == crate::job::Phase::Future {
                break;
            }
            if matches!(
                phase,
                crate::job::Phase::Queued | crate::job::Phase::Running
            ) {
                if let Some(job) = super::admit::job_of(v, j, edf) {
                    s.jobs.insert(j, job);
                    s.runnable.push(j);
                    s.pending.push(j);
                }
            }
            s.next_rank += 1;
        }
        s.next = if s.runnable.is_empty() {
            s.next_arrival(v)
        } else {
            Some(v.now())
        };
        s
    }

    /// The time of the first arrival not yet taken.
    pub(super) fn next_arrival(&self, v: &dyn View) -> Option<Secs> {
        self.arrival_at(v, self.next_rank)
    }

    fn arrival_at(&self, v: &dyn View, rank: u32) -> Option<Secs> {
        (rank < v.trace().jobs.len() as u32)
            .then(|| v.trace().jobs[v.job_at_rank(rank) as usize].submit)
    }

    /// Takes the arrivals due by `t`, in arrival order — but a job the
    /// engine rejects on arrival (it could never fit), which never reaches
    /// the policy.
    pub(super) fn take_arrivals(&mut self, v: &dyn View, t: Secs) -> Vec<u32> {
        let mut out = Vec::new();
        while self.arrival_at(v, self.next_rank).is_some_and(|s| s <= t) {
            let j = v.job_at_rank(self.next_rank);
            if v.fits_ever(j) {
                out.push(j);
            }
            self.next_rank += 1;
        }
        out
    }

    /// Puts `job`'s end event at its end time.
    pub(super) fn add_end_event(&mut self, job: u32) {
        let Some(end) = self.jobs.get(&job).map(|j| j.end) else {
            return;
        };
        let due = self.events.entry(end).or_default();
        if !due.end.contains(&job) {
            due.end.push(job);
        }
    }

    /// Moves `job`'s end event from `old` to its end time (nothing if
    /// they are the same, as ElasticFlow does, event or not).
    pub(super) fn move_end_event(&mut self, job: u32, old: Secs) {
        if self.jobs.get(&job).is_none_or(|j| j.end == old) {
            return;
        }
        if let Some(due) = self.events.get_mut(&old) {
            due.end.retain(|&x| x != job);
            if due.start.is_empty() && due.end.is_empty() {
                self.events.remove(&old);
            }
        }
        self.add_end_event(job);
    }

    /// After a round at `t`: the next one. Everything due within a slot
    /// is taken together a slot after `t`, unless it is the only thing
    /// left; later things keep their times.
    pub(super) fn advance(&mut self, v: &dyn View, t: Secs) {
        // The first two event times: of the events set, and the arrivals.
        let mut times: Vec<Secs> = self.events.keys().take(2).copied().collect();
        let (mut rank, mut arrivals) = (self.next_rank, 0);
        while let Some(s) = self.arrival_at(v, rank) {
            if !times.contains(&s) {
                if arrivals == 2 {
                    break;
                }
                times.push(s);
                arrivals += 1;
            }
            rank += 1;
        }
        times.sort_unstable();
        let Some(&first) = times.first() else {
            self.next = None;
            return;
        };
        if first - t > self.slot || times.len() < 2 {
            self.next = Some(first);
            return;
        }
        let edge = t + self.slot;
        let mut merged = Due::default();
        let due: Vec<Secs> = self.events.range(..=edge).map(|(&k, _)| k).collect();
        let mut arrivals = self.take_arrivals(v, edge).into_iter().peekable();
        for k in due {
            let d = self.events.remove(&k).unwrap_or_default();
            while let Some(&a) = arrivals.peek() {
                if v.trace().jobs[a as usize].submit >= k {
                    break;
                }
                merged.start.push(a);
                arrivals.next();
            }
            merged.start.extend(d.start);
            let same: Vec<u32> = std::iter::from_fn(|| {
                arrivals.next_if(|&a| v.trace().jobs[a as usize].submit == k)
            })
            .collect();
            merged.start.extend(same);
            merged.end.extend(d.end);
        }
        merged.start.extend(arrivals);
        self.events.insert(edge, merged);
        self.next = Some(edge);
    }
}
