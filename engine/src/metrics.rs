//! Metrics, defined once for the TUI and the headless commands alike.
//!
//! JCT = finish − submit; wait = first start − submit; slowdown = JCT / run
//! time (a run time of 0 counts as 1 s); bounded slowdown = max(1, JCT /
//! max(run time, τ)), τ = 10 s (the HPC convention); makespan = last finish − first
//! submit; gpu_util = busy GPU-seconds / (GPUs × makespan). Percentiles
//! interpolate linearly between closest ranks, as numpy's default does.

use serde::Serialize;
use tracetui_model::Secs;

/// The run time below which bounded slowdown counts a job as this long:
/// 10 s, the convention of the HPC scheduling literature (Feitelson).
pub(crate) const BOUNDED_SLOWDOWN_TAU: Secs = 10;

/// mean, p50, p95, p99 of one quantity; `None` when there is nothing to summarise.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct Summary {
    /// The mean.
    pub mean: Option<f64>,
    /// The median (50th percentile).
    pub p50: Option<f64>,
    /// The 95th percentile.
    pub p95: Option<f64>,
    /// The 99th percentile.
    pub p99: Option<f64>,
}

/// The `q`-th percentile (0–100) of sorted values, numpy's "linear" method.
pub fn percentile_sorted(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let pos = (sorted.len() - 1) as f64 * q / 100.0;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    let frac = pos - lo as f64;
    Some(sorted[lo] + (sorted[hi] - sorted[lo]) * frac)
}

impl Summary {
    /// The summary of `values`, in any order (copied only when not sorted).
    pub fn of(values: &[f64]) -> Summary {
        if values.is_empty() {
            return Summary::default();
        }
        // Copied only when not sorted already (see `Engine::final_report_sorted`).
        let copy;
        let v = if values.is_sorted_by(|a, b| a.total_cmp(b).is_le()) {
            values
        } else {
            let mut c = values.to_vec();
            c.sort_unstable_by(f64::total_cmp);
            copy = c;
            &copy[..]
        };
        // Sum in sorted order so the mean does not depend on completion order.
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        Summary {
            mean: Some(mean),
            p50: percentile_sorted(v, 50.0),
            p95: percentile_sorted(v, 95.0),
            p99: percentile_sorted(v, 99.0),
        }
    }
}

/// What the engine accumulates as jobs finish.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    /// Each finished job's JCT, seconds.
    pub jct: Vec<f64>,
    /// Each started job's wait (first start − submit), seconds.
    pub wait: Vec<f64>,
    /// Each finished job's slowdown: JCT ÷ its own run time (at least 1 s).
    pub slowdown: Vec<f64>,
    /// Each finished job's bounded slowdown: max(1, JCT ÷ max(run time, τ)).
    pub bounded_slowdown: Vec<f64>,
    /// Sum of wait over every job that has started (finished or not).
    pub started_wait_sum: i64,
    /// Jobs started (a preempted job once).
    pub started: u64,
    /// Milli-GPU-seconds of GPUs released so far.
    pub busy_finished: u128,
    /// Recorded holds that did not fit their machine and were replayed anyway.
    pub overflow_segments: u64,
    /// The earliest submit time of the jobs arrived, trace seconds.
    pub first_submit: Option<Secs>,
    /// The latest finish so far, trace seconds.
    pub last_finish: Option<Secs>,
    /// Jobs rejected on arrival: they need more than the cluster could ever give.
    pub rejected: u64,
    /// Jobs the policy declined (they never ran).
    pub dropped: u64,
    /// Times a running elastic job's GPUs changed.
    pub resizes: u64,
    /// Jobs ended at an end their policy held before the end their work
    /// gives (they count done, as the policy planned).
    pub cut_short: u64,
    /// The longest the queue has been.
    pub peak_queue: u64,
    /// Times a running job lost its GPUs to another.
    pub preemptions: u64,
    /// Milli-GPU-seconds spent restarting preempted jobs (part of `busy_finished`).
    pub overhead_busy: u128,
    /// Finished jobs that had a deadline, and those that met it.
    pub deadlines: u64,
    /// Of those, the jobs that finished by their deadline.
    pub deadlines_met: u64,
    /// Jobs arrived (rejected ones too) and the sum of their submit times.
    pub arrived: u64,
    /// The sum of the arrived jobs' submit times, trace seconds.
    pub arrived_submit_sum: i128,
    /// The sums of submit times of the rejected and of the finished jobs:
    /// with `arrived_submit_sum`, the time in system so far of every job
    /// still in it, without a walk over them (`Tally::in_system`).
    pub rejected_submit_sum: i128,
    /// The sum of the finished jobs' submit times, trace seconds.
    pub done_submit_sum: i128,
    /// The sum of the finished jobs' JCTs, whole seconds.
    pub done_jct_sum: i128,
    /// The submit times of the jobs the policy dropped (their waits go on).
    pub dropped_submits: Vec<Secs>,
    /// The cluster's fragmentation over time, where it is measured.
    pub frag: Option<super::frag_tally::FragTally>,
}

impl Tally {
    /// A tally with room for `jobs` jobs' figures, so that growing never
    /// copies them.
    pub(crate) fn for_jobs(jobs: usize) -> Tally {
        Tally {
            jct: Vec::with_capacity(jobs),
            wait: Vec::with_capacity(jobs),
            slowdown: Vec::with_capacity(jobs),
            bounded_slowdown: Vec::with_capacity(jobs),
            ..Tally::default()
        }
    }

    /// Books a job submitted at `submit` and rejected on arrival.
    pub fn on_reject(&mut self, submit: Secs) {
        self.rejected += 1;
        self.rejected_submit_sum += submit as i128;
    }

    /// Books a waiting job submitted at `submit` that the policy dropped.
    pub fn on_drop(&mut self, submit: Secs) {
        self.dropped += 1;
        self.dropped_submits.push(submit);
    }

    /// The jobs arrived and not rejected, and the sum of their times in
    /// the system at `now`: a finished job's JCT, any other's time since
    /// it was submitted (waiting, running or dropped). The same set of jobs
    /// under any policy, so its mean compares policies honestly.
    pub fn in_system(&self, now: Secs) -> (u64, i128) {
        let jobs = self.arrived - self.rejected;
        let open = jobs.saturating_sub(self.jct.len() as u64) as i128;
        let open_submits =
            self.arrived_submit_sum - self.rejected_submit_sum - self.done_submit_sum;
        (jobs, open * now as i128 - open_submits + self.done_jct_sum)
    }

    /// The per-job figures in value order (their order carries nothing the
    /// summaries use): for the end of a run, so the report copies nothing.
    pub fn sort(&mut self) {
        for v in [
            &mut self.jct,
            &mut self.wait,
            &mut self.slowdown,
            &mut self.bounded_slowdown,
        ] {
            v.sort_unstable_by(f64::total_cmp);
        }
    }

    pub(crate) fn on_start(&mut self, submit: Secs, start: Secs) {
        self.started += 1;
        self.started_wait_sum += start - submit;
        self.wait.push((start - submit) as f64);
    }

    /// Books a job submitted at `submit` that finished at `finish`, after
    /// `runtime` seconds of its own run time: its JCT and slowdown.
    pub fn on_finish(&mut self, submit: Secs, runtime: Secs, finish: Secs) {
        let jct = finish - submit;
        self.done_submit_sum += submit as i128;
        self.done_jct_sum += jct as i128;
        self.jct.push(jct as f64);
        self.slowdown.push(jct as f64 / runtime.max(1) as f64);
        self.bounded_slowdown
            .push((jct as f64 / runtime.max(BOUNDED_SLOWDOWN_TAU) as f64).max(1.0));
        self.last_finish = Some(self.last_finish.map_or(finish, |l| l.max(finish)));
    }

    /// Books a job arriving, submitted at `submit`.
    pub fn on_arrival(&mut self, submit: Secs) {
        self.arrived += 1;
        self.arrived_submit_sum += submit as i128;
        self.first_submit = Some(self.first_submit.map_or(submit, |f| f.min(submit)));
    }

    pub(crate) fn makespan(&self) -> Option<Secs> {
        Some(self.last_finish? - self.first_submit?)
    }
}

/// The headline numbers of one run, in the shape `sim --format json` prints.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// A built-in's name, or an external policy's label (its hello name).
    pub policy: String,
    /// The program behind an external policy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The placement rule's name.
    pub placement: String,
    /// Seconds between rounds (`--rounds`), for a policy that decides in
    /// ElasticFlow's rounds (elasticflow, ef, edf-elastic).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rounds_s: Option<Secs>,
    /// Jobs asked CPU and memory of their machines, and placement held
    /// each to what its machine has (openb's pods; PAI with `--cpu-mem`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cpu_mem: bool,
    /// What the policies that order by run time were told of it
    /// (`--estimate`), where it was not the truth.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimate: Option<String>,
    /// Jobs ran from throughput tables (`--throughputs`): said in the rules.
    #[serde(skip)]
    pub speed_model: bool,
    /// GPUs in the cluster, every machine's.
    pub gpus: u64,
    /// GPUs per machine when every machine was made alike (`--gpus-per-node`).
    pub gpus_per_node: Option<u32>,
    /// GPUs the jobs ask for on average over the submit span (GPU-time
    /// submitted ÷ (last − first submit)); compare with `gpus`.
    pub offered_load_gpus: Option<f64>,
    /// Jobs in the trace.
    pub jobs: u64,
    /// Jobs finished.
    pub jobs_done: u64,
    /// Jobs rejected on arrival: they need more than the cluster could ever give.
    pub jobs_rejected: u64,
    /// Jobs the policy declined (admission control, an external policy's
    /// `drop`): they never ran. In every summary, with or without tables.
    pub jobs_dropped: u64,
    /// On a cluster of several GPU types, the jobs that held GPUs of two
    /// or more at once (each ran at the slowest of them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jobs_across_types: Option<u64>,
    /// Jobs not done, rejected or dropped: never started, or still waiting or
    /// running when the run ended (at the end of a run, what a policy left).
    pub jobs_unfinished: u64,
    /// Last finish − first submit, seconds (none until a job finishes).
    pub makespan_s: Option<Secs>,
    /// JCT (finish − submit) of the finished jobs, seconds.
    pub jct_s: Summary,
    /// Wait (first start − submit) of the started jobs, seconds.
    pub wait_s: Summary,
    /// Slowdown (JCT ÷ run time) of the finished jobs.
    pub slowdown: Summary,
    /// Bounded slowdown (max(1, JCT ÷ max(run time, 10 s))) of the
    /// finished jobs: the HPC literature's measure, which a job of a few
    /// seconds cannot blow up.
    pub bounded_slowdown: Summary,
    /// Busy GPU-seconds of the GPUs released so far ÷ (GPUs × makespan);
    /// none without a makespan.
    pub gpu_util: Option<f64>,
    /// Times a running job lost its GPUs to another (preemptive policies).
    pub preemptions: u64,
    /// Times a running elastic job's GPUs changed (elastic policies).
    #[serde(skip_serializing_if = "is_zero")]
    pub resizes: u64,
    /// Of the jobs done, those that ended at an end their policy held
    /// (`ends`, elasticflow's and gandiva's rounds) before the end their
    /// work gives: done by the policy's plan, with work left by
    /// tracetui's own count. Their JCT and deadlines are the policy's claim.
    #[serde(skip_serializing_if = "is_zero")]
    pub jobs_cut_short: u64,
    /// Share of the jobs with a deadline that finished by it (traces with
    /// deadlines); a job that never finished missed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadline_met: Option<f64>,
    /// The policy's own deadline ratio, where it keeps one (`elasticflow`:
    /// ElasticFlow's `ddl_satis_ratio`, jobs admitted and not late by their
    /// planned finish ÷ every job admitted or declined). It counts a job
    /// on time that ended after its deadline; `deadline_met` does not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadline_admitted: Option<f64>,
    /// Energy drawn (with `--energy`), and its mean power over the makespan.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub energy_kwh: Option<f64>,
    /// Mean power over the makespan, W: energy drawn ÷ makespan.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub avg_power_w: Option<f64>,
    /// The cluster's fragmentation against the trace's typical pods (FGD's
    /// measure), where it is measured: a trace of pods (openb), or a
    /// sharing placement's run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fragmentation: Option<super::frag_tally::Fragmented>,
    /// The longest the queue got (tables only; not part of the JSON contract).
    #[serde(skip)]
    pub peak_queue: u64,
    /// Recorded holds replayed beyond their machine's capacity (tables only).
    #[serde(skip)]
    pub overflow_segments: u64,
    /// Why the run's policy failed, if it did (the figures stop or fall
    /// back there); not part of the JSON contract.
    #[serde(skip)]
    pub failed: Option<String>,
}

/// Points a distribution keeps (quantiles, evenly spaced in rank).
pub(crate) const DIST_POINTS: usize = 257;

/// A run's JCT and wait distributions, as at most `DIST_POINTS` quantiles
/// each, ascending: what the what-if table's CDFs are drawn from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dists {
    /// JCT quantiles of the finished jobs, seconds.
    pub jct_s: Vec<f64>,
    /// Wait quantiles of the started jobs, seconds.
    pub wait_s: Vec<f64>,
}

impl Dists {
    /// The distributions of `t`'s figures (values not finite left out).
    pub fn of(t: &Tally) -> Dists {
        Dists {
            jct_s: quantiles(&t.jct),
            wait_s: quantiles(&t.wait),
        }
    }

    /// The share (0–1) of the distribution `q` at or below `x`.
    pub fn share_at(q: &[f64], x: f64) -> f64 {
        if q.is_empty() {
            return 0.0;
        }
        q.partition_point(|&v| v <= x) as f64 / q.len() as f64
    }
}

/// `v` sorted, thinned to `DIST_POINTS` values evenly spaced in rank (the
/// smallest and largest kept).
fn quantiles(v: &[f64]) -> Vec<f64> {
    let copy: Vec<f64>;
    let s: &[f64] = if v.is_sorted_by(|a, b| a.total_cmp(b).is_le()) {
        // Sorted already (a run's end): the finite values are one stretch.
        let from = v.partition_point(|x| x.total_cmp(&f64::NEG_INFINITY).is_le());
        let to = v.partition_point(|x| x.total_cmp(&f64::MAX).is_le());
        &v[from..to]
    } else {
        copy = {
            let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
            s.sort_by(f64::total_cmp);
            s
        };
        &copy
    };
    if s.len() <= DIST_POINTS {
        return s.to_vec();
    }
    (0..DIST_POINTS)
        .map(|i| s[i * (s.len() - 1) / (DIST_POINTS - 1)])
        .collect()
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sorted_tally_summarises_as_the_unsorted_one() {
        let jct: Vec<f64> = (0..1000)
            .map(|i| ((i * 7919) % 1009) as f64 * 0.37)
            .collect();
        let mut t = Tally {
            jct: jct.clone(),
            wait: jct.iter().rev().copied().collect(),
            ..Tally::default()
        };
        let before = (Summary::of(&t.jct), Summary::of(&t.wait));
        t.sort();
        assert!(t.jct.is_sorted_by(|a, b| a <= b));
        assert_eq!((Summary::of(&t.jct), Summary::of(&t.wait)), before);
    }

    /// Distributions of sorted figures (read in place) equal those of the
    /// same figures unsorted (copied), values that are not finite left out.
    #[test]
    fn a_sorted_tally_has_the_distributions_of_the_unsorted_one() {
        let mut wait: Vec<f64> = (0..3000)
            .map(|i| ((i * 7919) % 3001) as f64 - 5.0)
            .collect();
        wait.extend([f64::NAN, f64::INFINITY, -f64::INFINITY, -0.0, -f64::NAN]);
        let mut t = Tally {
            jct: wait.iter().map(|w| w * 2.0).collect(),
            wait,
            ..Tally::default()
        };
        let bits = |d: &Dists| {
            [&d.jct_s, &d.wait_s].map(|v| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>())
        };
        let before = bits(&Dists::of(&t));
        t.sort();
        assert_eq!(bits(&Dists::of(&t)), before);
        assert!(before[1].len() == DIST_POINTS);
    }

    #[test]
    fn dists_keep_the_ends_and_read_shares() {
        let t = Tally {
            jct: (1..=1000).map(|x| x as f64).collect(),
            wait: vec![0.0, 0.0, 5.0, 10.0],
            ..Tally::default()
        };
        let d = Dists::of(&t);
        assert_eq!(d.jct_s.len(), DIST_POINTS);
        assert_eq!((d.jct_s[0], *d.jct_s.last().unwrap()), (1.0, 1000.0));
        assert!(d.jct_s.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(d.wait_s, vec![0.0, 0.0, 5.0, 10.0]);
        assert_eq!(Dists::share_at(&d.wait_s, 0.0), 0.5);
        assert_eq!(Dists::share_at(&d.wait_s, 9.9), 0.75);
        assert_eq!(Dists::share_at(&d.wait_s, 10.0), 1.0);
        let half = Dists::share_at(&d.jct_s, 500.0);
        assert!((half - 0.5).abs() < 0.01, "{half}");
        assert_eq!(Dists::share_at(&[], 1.0), 0.0);
    }

    #[test]
    fn percentiles_match_numpy_linear() {
        // numpy.percentile([1, 2, 3, 4], [50, 95, 99]) = 2.5, 3.85, 3.97
        let s = Summary::of(&[4.0, 1.0, 3.0, 2.0]);
        assert_eq!(s.mean, Some(2.5));
        assert_eq!(s.p50, Some(2.5));
        assert!((s.p95.unwrap() - 3.85).abs() < 1e-12);
        assert!((s.p99.unwrap() - 3.97).abs() < 1e-12);
        let one = Summary::of(&[7.0]);
        assert_eq!((one.p50, one.p99), (Some(7.0), Some(7.0)));
        assert_eq!(Summary::of(&[]), Summary::default());
    }

    #[test]
    fn tally_makespan_and_slowdown() {
        let mut t = Tally::default();
        t.on_arrival(10);
        t.on_arrival(5);
        t.on_start(5, 7);
        t.on_finish(5, 0, 7);
        t.on_finish(10, 20, 40);
        assert_eq!(t.makespan(), Some(35));
        assert_eq!(t.slowdown, vec![2.0, 1.5]);
    }
}
