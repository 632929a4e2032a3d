//! The discrete-event engine: integer seconds, one instant at a time
//! (completions, then arrivals, then one scheduling pass).

use super::backfill::Reservation;
use super::cluster::{ClusterState, Grant};
use super::metrics::{Report, Summary, Tally};
use super::placement::{place, Placement};
use super::policy::{Policy, Walk};
use super::queue::{MinTree, Queue, Shapes};
use crate::trace::model::{Secs, Trace};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Where a job is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Not submitted yet.
    Future,
    Queued,
    Running,
    Done,
    /// Needs more than the cluster could ever give it.
    Rejected,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobState {
    pub phase: Phase,
    pub start: Secs,
    pub end: Secs,
}

/// Something that happened, for the TUI's log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    Started { job: u32, at: Secs, machines: u32 },
    Finished { job: u32, at: Secs },
    Rejected { job: u32, at: Secs },
    PolicySwitched { at: Secs, to: Policy },
}

/// A deterministic simulation of one trace on one cluster.
#[derive(Debug, Clone)]
pub struct Engine {
    trace: Arc<Trace>,
    shapes: Arc<Shapes>,
    /// class → whether a job of that shape can ever fit this cluster.
    feasible: Arc<Vec<bool>>,
    placement: Placement,
    policy: Policy,
    policy_since: Secs,
    now: Secs,
    next_arrival: usize,
    jobs: Vec<JobState>,
    running: BTreeMap<u32, Box<[Grant]>>,
    completions: BTreeSet<(Secs, u32)>,
    cluster: ClusterState,
    queue: Queue,
    /// Bumped whenever capacity is released; a class that failed to fit in
    /// this epoch cannot fit until the next one.
    epoch: u64,
    tally: Tally,
    reservation: Option<Reservation>,
    switches: Vec<(Secs, Policy)>,
    record_events: bool,
    events: Vec<Event>,
}

impl Engine {
    pub fn new(trace: Arc<Trace>, policy: Policy, placement: Placement) -> Engine {
        let shapes = Arc::new(Shapes::new(&trace));
        let mut empty = ClusterState::new(&trace.cluster);
        let feasible = shapes
            .shapes
            .iter()
            .map(|(d, f)| place(&mut empty, placement, d, *f).is_some())
            .collect();
        let cluster = empty;
        let now = trace.first_submit().unwrap_or(0);
        let n = trace.jobs.len();
        let classes = shapes.shapes.len();
        let mut e = Engine {
            trace,
            shapes,
            feasible: Arc::new(feasible),
            placement,
            policy: Policy::FirstFit,
            policy_since: now,
            now,
            next_arrival: 0,
            jobs: vec![
                JobState {
                    phase: Phase::Future,
                    start: 0,
                    end: 0
                };
                n
            ],
            running: BTreeMap::new(),
            completions: BTreeSet::new(),
            cluster,
            queue: Queue::new(classes),
            epoch: 0,
            tally: Tally::default(),
            reservation: None,
            switches: Vec::new(),
            record_events: false,
            events: Vec::new(),
        };
        e.policy = policy;
        e.rebuild_queue();
        e
    }

    pub fn trace(&self) -> &Arc<Trace> {
        &self.trace
    }

    pub fn now(&self) -> Secs {
        self.now
    }

    pub fn policy(&self) -> Policy {
        self.policy
    }

    pub fn policy_since(&self) -> Secs {
        self.policy_since
    }

    pub fn placement(&self) -> Placement {
        self.placement
    }

    pub fn switches(&self) -> &[(Secs, Policy)] {
        &self.switches
    }

    pub fn cluster(&self) -> &ClusterState {
        &self.cluster
    }

    pub fn job_state(&self, job: u32) -> JobState {
        self.jobs[job as usize]
    }

    /// Running jobs and their GPUs, by job index.
    pub fn running(&self) -> &BTreeMap<u32, Box<[Grant]>> {
        &self.running
    }

    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }

    /// The first `limit` waiting jobs in the current policy's order.
    pub fn queue_in_order(&self, limit: usize) -> Vec<u32> {
        self.queue
            .in_order(limit)
            .into_iter()
            .map(|r| self.shapes.arrival[r as usize])
            .collect()
    }

    pub fn jobs_done(&self) -> u64 {
        self.tally.jct.len() as u64
    }

    pub fn jobs_rejected(&self) -> u64 {
        self.tally.rejected
    }

    pub fn tally(&self) -> &Tally {
        &self.tally
    }

    /// Turns on collection of `Event`s (for the TUI's log); drain with `take_events`.
    pub fn set_record_events(&mut self, on: bool) {
        self.record_events = on;
    }

    pub fn take_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.events)
    }

    fn emit(&mut self, e: Event) {
        if self.record_events {
            self.events.push(e);
        }
    }

    /// The time of the next thing that will happen, if anything will.
    pub fn next_event_time(&self) -> Option<Secs> {
        let arrival = self
            .shapes
            .arrival
            .get(self.next_arrival)
            .map(|&j| self.trace.jobs[j as usize].submit);
        let completion = self.completions.first().map(|&(t, _)| t);
        match (arrival, completion) {
            (Some(a), Some(c)) => Some(a.min(c)),
            (a, c) => a.or(c),
        }
    }

    /// Processes every instant up to and including `t`, then sets the clock to `t`.
    /// Times before the clock are ignored (the engine only goes forward).
    pub fn advance_to(&mut self, t: Secs) {
        while let Some(next) = self.next_event_time() {
            if next > t {
                break;
            }
            self.process_instant(next);
        }
        self.now = self.now.max(t);
    }

    /// Runs until nothing is left to happen.
    pub fn run_to_end(&mut self) {
        while let Some(next) = self.next_event_time() {
            self.process_instant(next);
        }
    }

    fn process_instant(&mut self, t: Secs) {
        self.now = t;
        let mut released = false;
        while let Some(&(end, job)) = self.completions.first() {
            if end != t {
                break;
            }
            self.completions.pop_first();
            self.finish(job);
            released = true;
        }
        let mut arrived = false;
        while let Some(&job) = self.shapes.arrival.get(self.next_arrival) {
            if self.trace.jobs[job as usize].submit != t {
                break;
            }
            self.next_arrival += 1;
            self.arrive(job);
            arrived = true;
        }
        if released {
            self.epoch += 1;
        }
        if released || arrived {
            self.pass();
        }
        self.tally.peak_queue = self.tally.peak_queue.max(self.queue.len() as u64);
    }

    fn arrive(&mut self, job: u32) {
        let submit = self.trace.jobs[job as usize].submit;
        self.tally.on_arrival(submit);
        let class = self.shapes.class_of[job as usize];
        if !self.feasible[class as usize] {
            self.jobs[job as usize].phase = Phase::Rejected;
            self.tally.rejected += 1;
            if self.tally.rejected <= 5 {
                let j = &self.trace.jobs[job as usize];
                log::warn!(
                    "rejected job {}: needs {} GPUs{}, more than the cluster can ever give",
                    crate::trace::input::sanitize(&j.id),
                    j.gpus_display(),
                    j.gpu_type
                        .map(|t| format!(" of type {}", self.trace.cluster.gpu_types[t as usize]))
                        .unwrap_or_default()
                );
            }
            self.emit(Event::Rejected { job, at: self.now });
            return;
        }
        self.jobs[job as usize].phase = Phase::Queued;
        self.enqueue(job);
    }

    fn key(&self, job: u32) -> u64 {
        self.policy.key(&self.trace.jobs[job as usize])
    }

    fn enqueue(&mut self, job: u32) {
        let class = self.shapes.class_of[job as usize];
        let rank = self.shapes.rank[job as usize];
        self.queue.insert(class, self.key(job), rank);
        if let Some(t) = &mut self.queue.classes[class as usize].short {
            t.set(
                self.shapes.pos[job as usize] as usize,
                runtime_key(&self.trace, job),
            );
        }
    }

    fn dequeue(&mut self, job: u32) {
        let class = self.shapes.class_of[job as usize];
        let rank = self.shapes.rank[job as usize];
        self.queue.remove(class, self.key(job), rank);
        if let Some(t) = &mut self.queue.classes[class as usize].short {
            t.set(self.shapes.pos[job as usize] as usize, u64::MAX);
        }
    }

    fn start(&mut self, job: u32, grants: Vec<Grant>) {
        self.dequeue(job);
        self.cluster.acquire(job, &grants);
        let j = &self.trace.jobs[job as usize];
        let (submit, runtime) = (j.submit, j.runtime);
        let st = &mut self.jobs[job as usize];
        st.phase = Phase::Running;
        st.start = self.now;
        if let Some(rt) = runtime {
            st.end = self.now + rt.max(0);
            self.completions.insert((st.end, job));
        }
        self.tally.on_start(submit, self.now);
        let mut machines: Vec<u32> = grants.iter().map(|g| g.machine).collect();
        machines.dedup();
        self.emit(Event::Started {
            job,
            at: self.now,
            machines: machines.len() as u32,
        });
        self.running.insert(job, grants.into_boxed_slice());
    }

    fn finish(&mut self, job: u32) {
        if let Some(grants) = self.running.remove(&job) {
            self.cluster.release(job, &grants);
        }
        let j = &self.trace.jobs[job as usize];
        let (submit, runtime, milli) = (j.submit, j.runtime.unwrap_or(0), j.demand.total_milli());
        let st = &mut self.jobs[job as usize];
        st.phase = Phase::Done;
        st.end = self.now;
        self.tally.on_finish(submit, runtime, self.now, milli);
        self.emit(Event::Finished { job, at: self.now });
    }

    /// Switches the policy now: the queue is reordered at once and a
    /// scheduling pass runs at the current time.
    pub fn set_policy(&mut self, policy: Policy) {
        if policy == self.policy {
            return;
        }
        self.policy = policy;
        self.policy_since = self.now;
        self.switches.push((self.now, policy));
        self.emit(Event::PolicySwitched {
            at: self.now,
            to: policy,
        });
        log::info!("policy switched to {policy} at {}", self.now);
        self.rebuild_queue();
        self.pass();
    }

    fn rebuild_queue(&mut self) {
        let waiting: Vec<u32> = self
            .queue
            .entries()
            .map(|(_, _, r)| self.shapes.arrival[r as usize])
            .collect();
        self.queue.clear();
        self.reservation = None;
        if self.policy.walk() == Walk::Backfill {
            for (c, members) in self.shapes.members.iter().enumerate() {
                self.queue.classes[c].short = Some(MinTree::new(members.len()));
            }
        }
        for job in waiting {
            self.enqueue(job);
        }
    }

    fn pass(&mut self) {
        match self.policy.walk() {
            Walk::Strict => self.walk_strict(),
            Walk::Greedy => self.walk_greedy(),
            Walk::Backfill => {
                self.walk_strict();
                if !self.queue.is_empty() {
                    self.backfill();
                }
            }
            Walk::Recorded => {}
        }
    }

    /// The placement for class `c` now, remembering a failure for this epoch.
    fn try_class(&mut self, c: u32) -> Option<Vec<Grant>> {
        if self.queue.classes[c as usize].failed_epoch == Some(self.epoch) {
            return None;
        }
        let (demand, filter) = &self.shapes.shapes[c as usize];
        let got = place(&mut self.cluster, self.placement, demand, *filter);
        if got.is_none() {
            self.queue.classes[c as usize].failed_epoch = Some(self.epoch);
        }
        got
    }

    /// The first waiting job in policy order: (key, rank, class).
    fn global_head(&self, skip_failed: bool) -> Option<(u64, u32, u32)> {
        self.queue
            .active
            .iter()
            .filter(|&&c| {
                !skip_failed || self.queue.classes[c as usize].failed_epoch != Some(self.epoch)
            })
            .filter_map(|&c| self.queue.head(c).map(|(k, r)| (k, r, c)))
            .min()
    }

    fn walk_strict(&mut self) {
        while let Some((_, rank, class)) = self.global_head(false) {
            match self.try_class(class) {
                Some(g) => self.start(self.shapes.arrival[rank as usize], g),
                None => break,
            }
        }
    }

    fn walk_greedy(&mut self) {
        while let Some((_, rank, class)) = self.global_head(true) {
            if let Some(g) = self.try_class(class) {
                self.start(self.shapes.arrival[rank as usize], g);
            }
        }
    }

    fn backfill(&mut self) {
        let Some((_, head_rank, _)) = self.global_head(false) else {
            return;
        };
        let head = self.shapes.arrival[head_rank as usize];
        if self.reservation.as_ref().is_none_or(|r| r.head != head) {
            self.reservation = Some(Reservation::compute(
                head,
                &self.trace.jobs[head as usize].demand,
                self.shapes.shapes[self.shapes.class_of[head as usize] as usize].1,
                self.placement,
                &mut self.cluster,
                &self.completions,
                &self.running,
            ));
        }
        // One walk in arrival order behind the head: each job is looked at
        // once, in the state the jobs started before it left.
        let mut cursor = head_rank;
        loop {
            let mut best: Option<(u32, Vec<Grant>)> = None;
            let active: Vec<u32> = self.queue.active.iter().copied().collect();
            for c in active {
                let Some(g) = self.try_class(c) else { continue };
                let res = self.reservation.as_ref().expect("computed above");
                let class = &self.queue.classes[c as usize];
                let rank = if res.admits(&g, &self.cluster) {
                    class.order.range((0, cursor + 1)..).next().map(|&(_, r)| r)
                } else if res.shadow >= self.now {
                    let members = &self.shapes.members[c as usize];
                    let from = members.partition_point(|&r| r <= cursor);
                    let tree = class.short.as_ref().expect("backfill trees");
                    tree.first_at_most(from, (res.shadow - self.now) as u64)
                        .map(|p| members[p])
                } else {
                    None
                };
                if let Some(r) = rank {
                    if best.as_ref().is_none_or(|(b, _)| r < *b) {
                        best = Some((r, g));
                    }
                }
            }
            let Some((rank, g)) = best else { break };
            cursor = rank;
            let job = self.shapes.arrival[rank as usize];
            let ends = self.trace.jobs[job as usize]
                .runtime
                .map(|r| self.now + r.max(0));
            let res = self.reservation.as_mut().expect("computed above");
            if ends.is_none_or(|e| e > res.shadow) {
                res.consume(&g, &self.cluster);
            }
            self.start(job, g);
        }
    }

    /// The headline numbers so far.
    pub fn report(&self) -> Report {
        let c = &self.trace.cluster;
        let makespan = self.tally.makespan();
        let gpus = c.total_gpus();
        Report {
            policy: self.policy.name().to_string(),
            placement: self.placement.name().to_string(),
            gpus,
            gpus_per_node: c.per_node,
            jobs: self.trace.jobs.len() as u64,
            jobs_done: self.jobs_done(),
            jobs_rejected: self.tally.rejected,
            makespan_s: makespan,
            jct_s: Summary::of(&self.tally.jct),
            wait_s: Summary::of(&self.tally.wait),
            slowdown: Summary::of(&self.tally.slowdown),
            peak_queue: self.tally.peak_queue,
            gpu_util: makespan
                .filter(|&m| m > 0 && gpus > 0)
                .map(|m| self.tally.busy_finished as f64 / 1000.0 / (gpus as f64 * m as f64)),
        }
    }
}

fn runtime_key(trace: &Trace, job: u32) -> u64 {
    trace.jobs[job as usize]
        .runtime
        .map_or(u64::MAX - 1, |r| r.max(0) as u64)
}
