//! What the engine answers about the replay: the clock, the policy, who
//! holds what, the queue in order, the tally and the headline report.

use super::{Engine, Event, JobState, Phase};
use crate::cluster::ClusterState;
use crate::metrics::{Report, Summary, Tally};
use crate::placement::Placement;
use crate::policy::Policy;
use crate::tuning::Tuning;
use crate::waits::QueuePlace;
use std::sync::Arc;
use tracetui_model::{Secs, Trace};

impl Engine {
    /// The knobs this run goes by (preemption cost, `las` queues, `fair`'s owners, …).
    pub fn tuning(&self) -> &Tuning {
        &self.tuning
    }

    /// The trace being replayed.
    pub fn trace(&self) -> &Arc<Trace> {
        &self.trace
    }

    /// The simulated clock, in trace seconds: one second before the first
    /// submission at the start, then where the replay has gone to.
    pub fn now(&self) -> Secs {
        self.now
    }

    /// The policy in force now.
    pub fn policy(&self) -> Policy {
        self.seat.policy
    }

    /// The share of the cluster's GPUs held now, in percent (0–100; the
    /// one place the replay's utilisation is computed).
    pub fn busy_percent(&self) -> f64 {
        let gpus = self.trace.cluster.total_gpus().max(1);
        self.cluster.allocated_milli() as f64 / (gpus as f64 * 10.0)
    }

    /// When the policy in force took over, in trace seconds (the start,
    /// unless a switch or a fallback put it in force since).
    pub fn policy_since(&self) -> Secs {
        self.seat.since
    }

    /// The placement rule starts go by now.
    pub fn placement(&self) -> Placement {
        self.placement
    }

    /// Who holds which GPUs now.
    pub fn cluster(&self) -> &ClusterState {
        &self.cluster
    }

    /// How a sharing placement ranked the machines when it placed `job`
    /// (where it went first), if one did.
    pub fn ranking(&self, job: u32) -> Option<&crate::sharing::Ranking> {
        self.rankings.get(&job).map(|r| &**r)
    }

    /// Where `job` (its index in the trace) is in its life, and its
    /// current (or last) run; panics past the trace's end.
    pub fn job_state(&self, job: u32) -> JobState {
        self.jobs[job as usize]
    }

    /// Running jobs and their GPUs, by job index; listed in an order that
    /// follows starts and ends, so anything whose order shows sorts what it
    /// takes from it.
    pub fn running(&self) -> &super::Running {
        &self.running
    }

    /// How many jobs wait in the queue now.
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

    /// A waiting job's place in the current policy's order: its key and
    /// how many wait before it (`None` unless it waits in the queue).
    pub fn queue_place(&self, job: u32) -> Option<QueuePlace> {
        if self.jobs.get(job as usize)?.phase != Phase::Queued
            || self.seat.walk == crate::policy::Walk::Recorded
        {
            return None;
        }
        let key = self.key(job);
        let rank = self.shapes.rank[job as usize];
        Some(QueuePlace {
            key,
            ahead: self.queue.before(key, rank),
            waiting: self.queue.len(),
        })
    }

    /// The waits so far of the jobs arrived that have not started: those
    /// waiting that never ran, and those the policy dropped (a preempted
    /// job's wait was counted when it first started).
    pub fn unserved_waits(&self) -> Vec<Secs> {
        let now = self.now;
        let trace = &self.trace;
        let waiting = self.queue.entries().filter_map(|(_, _, r)| {
            let j = self.shapes.arrival[r as usize];
            (!self.resumes.contains_key(&j)).then(|| now - trace.jobs[j as usize].submit)
        });
        let dropped = self.tally.dropped_submits.iter().map(|&s| now - s);
        waiting.chain(dropped).collect()
    }

    /// Jobs finished so far.
    pub fn jobs_done(&self) -> u64 {
        self.tally.jct.len() as u64
    }

    /// Jobs rejected so far: larger than the cluster can ever give.
    pub fn jobs_rejected(&self) -> u64 {
        self.tally.rejected
    }

    /// The per-job figures and counters so far.
    pub fn tally(&self) -> &Tally {
        &self.tally
    }

    /// Turns on collection of `Event`s (for the TUI's log); drain with `take_events`.
    pub fn set_record_events(&mut self, on: bool) {
        self.journal.on = on;
    }

    /// The events recorded since the last take, oldest first (none unless
    /// `set_record_events` turned them on).
    pub fn take_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.journal.events)
    }

    /// Counts the GPU-seconds each job holds from now on (for per-job
    /// results: their sum is the busy time utilisation counts).
    pub fn track_held(&mut self) {
        self.held = Some(vec![0; self.trace.jobs.len()]);
    }

    pub(super) fn add_held(&mut self, job: u32, milli: u64, secs: Secs) {
        if let Some(h) = self.held.as_mut().and_then(|h| h.get_mut(job as usize)) {
            *h = h.saturating_add(milli.saturating_mul(secs.max(0) as u64));
        }
    }

    /// GPU-seconds `job` has held and released (see `track_held`).
    pub fn held_gpu_seconds(&self, job: u32) -> Option<f64> {
        let h = self.held.as_ref()?.get(job as usize)?;
        Some(*h as f64 / 1000.0)
    }

    /// Jobs with a deadline, and how many of those met it, counting every
    /// job with a deadline once the run is over (an unstarted, unfinished
    /// or rejected job missed it), and while it runs the finished ones and
    /// those already past their deadline.
    fn deadline_share(&self) -> Option<f64> {
        let (met, counted) = self.deadline_counts()?;
        (counted > 0).then(|| met as f64 / counted as f64)
    }

    /// (met, counted) of `deadline_share`: the jobs with a deadline that
    /// met it, and those counted so far (finished, rejected, dropped or
    /// past their deadline; every one once the run is over). None without
    /// deadlines.
    pub fn deadline_counts(&self) -> Option<(u64, u64)> {
        let over = self.next_event_time().is_none();
        let (mut with, mut counted) = (0u64, 0u64);
        for (j, st) in self.trace.jobs.iter().zip(&self.jobs) {
            let Some(d) = j.deadline.get() else {
                continue;
            };
            with += 1;
            counted += (over
                || matches!(st.phase, Phase::Done | Phase::Rejected | Phase::Dropped)
                || d < self.now) as u64;
        }
        (with > 0).then_some((self.tally.deadlines_met, counted))
    }

    /// The report at the end of a run, summarised without copies or sorts
    /// where it can be (the per-job figures are left reordered; see
    /// `Tally::summarise_reordering`).
    pub fn final_report(&mut self) -> Report {
        let summaries = self.tally.summarise_reordering();
        self.report_of(summaries)
    }

    /// As `final_report`, the per-job figures left sorted, for reading
    /// their distributions after (`Dists::of` then copies nothing).
    pub(crate) fn final_report_sorted(&mut self) -> Report {
        self.tally.sort();
        self.report()
    }

    /// The headline numbers so far.
    pub fn report(&self) -> Report {
        let t = &self.tally;
        self.report_of([&t.jct, &t.wait, &t.slowdown, &t.bounded_slowdown].map(|v| Summary::of(v)))
    }

    /// The report with [JCT, wait, slowdown, bounded slowdown] summarised already.
    fn report_of(&self, [jct, wait, slowdown, bounded_slowdown]: [Summary; 4]) -> Report {
        let c = &self.trace.cluster;
        let makespan = self.tally.makespan();
        let gpus = c.total_gpus();
        Report {
            policy: self.seat.policy.title().to_string(),
            command: self.seat.policy.command().map(str::to_string),
            placement: self.placement.name().to_string(),
            rounds_s: self
                .in_rounds(self.seat.policy)
                .then_some(self.tuning.rounds),
            cpu_mem: self.shapes.ask_host() && self.seat.walk != crate::policy::Walk::Recorded,
            estimate: (!self.tuning.estimate.is_oracle()).then(|| self.tuning.estimate.to_string()),
            speed_model: self.trace.speeds.is_some(),
            gpus,
            gpus_per_node: c.per_node,
            offered_load_gpus: tracetui_model::offered_load_gpus(&self.trace.jobs),
            jobs: self.trace.jobs.len() as u64,
            jobs_done: self.jobs_done(),
            jobs_rejected: self.tally.rejected,
            jobs_dropped: self.tally.dropped,
            jobs_across_types: self.jobs_across_types(),
            jobs_unfinished: (self.trace.jobs.len() as u64)
                .saturating_sub(self.jobs_done() + self.tally.rejected + self.tally.dropped),
            makespan_s: makespan,
            jct_s: jct,
            wait_s: wait,
            slowdown,
            bounded_slowdown,
            peak_queue: self.tally.peak_queue,
            overflow_segments: self.tally.overflow_segments,
            gpu_util: makespan
                .filter(|&m| m > 0 && gpus > 0)
                .map(|m| self.tally.busy_finished as f64 / 1000.0 / (gpus as f64 * m as f64)),
            preemptions: self.tally.preemptions,
            resizes: self.tally.resizes,
            jobs_cut_short: self.tally.cut_short,
            deadline_met: self.deadline_share(),
            deadline_admitted: self
                .seat
                .books
                .as_ref()
                .and_then(|b| b.own_deadline_count())
                .filter(|&(_, of)| of > 0)
                .map(|(on, of)| on as f64 / of as f64),
            energy_kwh: self.joules().map(crate::energy::kwh),
            failed: self.failing.failures.first().map(|f| f.why.clone()),
            avg_power_w: self
                .joules()
                .zip(makespan.filter(|&m| m > 0))
                .map(|(j, m)| j / m as f64),
            fragmentation: self.tally.fragmented(),
        }
    }
}
