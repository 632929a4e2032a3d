//! Synthetic AcmeTrace files (`trace_seren.csv`, `trace_kalos.csv`) in the
//! released columns, calibrated to the published Seren and Kalos rows of
//! cluster_summary.csv: the GPU-job share; GPU jobs' run time, queueing
//! delay and GPUs per job (mean and median, by stratified sampling); the
//! completed / cancelled / failed shares; CPU jobs' run time and queueing.
//! Times carry the cluster's offset (+08:00 Seren, +00:00 Kalos).

use super::dist::{StreamedCategorical, StreamedLognormal};
use crate::trace::{Rng, KALOS, SEREN};
use std::io::{self, Write};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AcmeCluster {
    Seren,
    Kalos,
}

/// What one cluster's published row says (and the generator aims at).
pub struct Profile {
    pub gpu_share: f64,
    /// (median, mean, max) run time of GPU jobs
    pub runtime: (f64, f64, f64),
    /// (median, mean) queueing of GPU jobs
    pub queue: (f64, f64),
    /// (GPUs, weight): mean and median as published
    pub gpus: &'static [(u32, f64)],
    /// completed, cancelled, failed (the rest TIMEOUT / NODE_FAIL)
    pub states: [f64; 3],
    pub cpu_runtime: (f64, f64),
    pub cpu_queue: (f64, f64),
    pub offset: &'static str,
    pub start: &'static str,
    pub jobs_per_day: f64,
}

pub const SEREN_PROFILE: Profile = Profile {
    gpu_share: 663_813.0 / 1_031_550.0,
    runtime: (122.0, 1_414.335, 1_209_604.0),
    queue: (1.0, 445.984),
    gpus: &[
        (1, 0.74),
        (2, 0.05),
        (4, 0.06),
        (8, 0.10),
        (16, 0.02),
        (32, 0.015),
        (64, 0.01),
        (128, 0.006),
        (256, 0.003),
        (512, 0.0008),
        (1024, 0.0003),
    ],
    states: [0.497, 0.075, 0.429],
    cpu_runtime: (14.0, 733.894),
    cpu_queue: (1.0, 4.813),
    offset: "+08:00",
    start: "2023-03-01 00:00:00",
    jobs_per_day: 1_031_550.0 / 184.0,
};

pub const KALOS_PROFILE: Profile = Profile {
    gpu_share: 19_907.0 / 62_413.0,
    runtime: (124.0, 1_259.689, 625_740.0),
    queue: (17.0, 214.179),
    gpus: &[
        (1, 0.62),
        (2, 0.03),
        (4, 0.04),
        (8, 0.15),
        (16, 0.05),
        (32, 0.04),
        (64, 0.03),
        (128, 0.02),
        (256, 0.02),
        (512, 0.012),
        (1024, 0.0075),
    ],
    states: [0.541, 0.062, 0.397],
    cpu_runtime: (22.0, 118.352),
    cpu_queue: (9.0, 88.401),
    offset: "+00:00",
    start: "2023-05-17 00:00:00",
    jobs_per_day: 62_413.0 / 107.0,
};

pub const TYPES: [&str; 6] = ["Evaluation", "Pretrain", "SFT", "MLLM", "Debug", "Other"];

#[derive(Debug, Clone)]
pub struct GenOptions {
    pub jobs: u64,
    pub seed: u64,
    pub cluster: AcmeCluster,
    /// Recorded starts from a first-come-first-served pool of this many
    /// GPUs (queueing follows; a job's GPUs capped at it); None: queueing
    /// drawn from the published marginal.
    pub gpus: Option<u32>,
    /// Submissions spread over about this many days; None: the released rate.
    pub days: Option<f64>,
}

/// A first-come-first-served pool of GPUs: when each job, in submission
/// order, could start.
struct Pool {
    free: u32,
    running: std::collections::BinaryHeap<std::cmp::Reverse<(i64, u32)>>,
    last_start: i64,
}

impl Pool {
    fn new(gpus: u32) -> Pool {
        Pool {
            free: gpus,
            running: Default::default(),
            last_start: i64::MIN,
        }
    }

    /// The start of a job of `gpus` GPUs (at most the pool's) submitted at
    /// `submit` for `runtime` seconds: no earlier than the one before it.
    fn start(&mut self, submit: i64, gpus: u32, runtime: i64) -> i64 {
        let mut t = submit.max(self.last_start);
        loop {
            while let Some(&std::cmp::Reverse((end, g))) = self.running.peek() {
                if end > t {
                    break;
                }
                self.running.pop();
                self.free += g;
            }
            if self.free >= gpus {
                break;
            }
            match self.running.peek() {
                Some(&std::cmp::Reverse((end, _))) => t = end,
                None => break,
            }
        }
        self.free = self.free.saturating_sub(gpus);
        self.running
            .push(std::cmp::Reverse((t + runtime.max(0), gpus)));
        self.last_start = t;
        t
    }
}

fn stamp(t: i64, offset_s: i64, offset: &str) -> String {
    chrono::DateTime::from_timestamp(t + offset_s, 0)
        .map(|d| format!("{}{offset}", d.naive_utc().format("%Y-%m-%d %H:%M:%S")))
        .unwrap_or_default()
}

/// One job's drawn figures.
#[derive(Clone, Copy)]
struct Drawn {
    gpus: u32,
    runtime: i64,
    queue: i64,
    /// Index into completed, cancelled, failed, timeout or node failure.
    state: usize,
    /// False for the few cancelled jobs that never started (empty start,
    /// end, duration and queue, as released).
    started: bool,
}

/// Index of CANCELLED in `Drawn::state`.
const CANCELLED: usize = 1;
/// The share of cancelled jobs that never started.
const NEVER_STARTED: f64 = 0.1;

/// One kind's (GPU or CPU jobs') stratified draws: only jobs that start take
/// a run time and a queueing delay, so those of all started jobs together
/// are exactly the stratified values.
struct KindDraws {
    state: StreamedCategorical,
    /// Of the cancelled: 0 started, 1 never started.
    unstarted: StreamedCategorical,
    runtime: StreamedLognormal,
    queue: StreamedLognormal,
}

impl KindDraws {
    fn new(
        n: usize,
        states: &[f64],
        (runtime, runtime_clip): ((f64, f64), (f64, f64)),
        (queue, queue_clip): ((f64, f64), (f64, f64)),
        rng: &mut Rng,
    ) -> KindDraws {
        let state = StreamedCategorical::new(n, states);
        let unstarted = StreamedCategorical::new(
            state.count(CANCELLED),
            &[1.0 - NEVER_STARTED, NEVER_STARTED],
        );
        let started = n - unstarted.count(1);
        KindDraws {
            state,
            unstarted,
            runtime: StreamedLognormal::new(started, runtime, runtime_clip, rng),
            queue: StreamedLognormal::new(started, queue, queue_clip, rng),
        }
    }

    fn next(&mut self, gpus: u32, rng: &mut Rng) -> Drawn {
        let state = self.state.next_pick(rng);
        let started = state != CANCELLED || self.unstarted.next_pick(rng) == 0;
        let (runtime, queue) = if started {
            (self.runtime.next_value(), self.queue.next_value())
        } else {
            (0, 0)
        };
        Drawn {
            gpus,
            runtime,
            queue,
            state,
            started,
        }
    }
}

/// The stratified draws jobs take in turn, so the marginals hit the
/// published ones: GPU or CPU job, then each kind's GPUs, final state, run
/// time and queueing. Each is streamed (see `dist`): memory does not grow
/// with the number of jobs.
struct Draws {
    /// 0: a GPU job, 1: a CPU job.
    kinds: StreamedCategorical,
    /// Index into the profile's GPU counts.
    gpus: StreamedCategorical,
    gpu_jobs: KindDraws,
    cpu_jobs: KindDraws,
}

impl Draws {
    fn new(p: &Profile, n: usize, rng: &mut Rng) -> Draws {
        let kinds = StreamedCategorical::new(n, &[p.gpu_share, 1.0 - p.gpu_share]);
        let n_gpu = kinds.count(0);
        let timeout = (1.0 - p.states.iter().sum::<f64>()).max(0.0);
        let gpu_jobs = KindDraws::new(
            n_gpu,
            &[p.states[0], p.states[1], p.states[2], timeout],
            ((p.runtime.0, p.runtime.1), (1.0, p.runtime.2)),
            (p.queue, (0.0, 30.0 * 86_400.0)),
            rng,
        );
        let cpu_jobs = KindDraws::new(
            n - n_gpu,
            &[0.858, 0.039, 0.102],
            (p.cpu_runtime, (1.0, 7.0 * 86_400.0)),
            (p.cpu_queue, (0.0, 86_400.0)),
            rng,
        );
        Draws {
            gpus: StreamedCategorical::new(n_gpu, &p.gpus.iter().map(|g| g.1).collect::<Vec<_>>()),
            kinds,
            gpu_jobs,
            cpu_jobs,
        }
    }

    fn next(&mut self, p: &Profile, rng: &mut Rng) -> Drawn {
        if self.kinds.next_pick(rng) == 0 {
            let gpus = p.gpus[self.gpus.next_pick(rng)].0;
            self.gpu_jobs.next(gpus, rng)
        } else {
            self.cpu_jobs.next(0, rng)
        }
    }
}

/// What every row shares: the cluster imitated and its clock.
struct Rows<'a> {
    cluster: AcmeCluster,
    p: &'a Profile,
    /// The profile's UTC offset in seconds.
    offset_s: i64,
    users: u64,
}

impl Rows<'_> {
    fn stamp(&self, t: i64) -> String {
        stamp(t, self.offset_s, self.p.offset)
    }

    /// One job's row, its remaining fields drawn from `rng`.
    fn write(&self, w: &mut impl Write, rng: &mut Rng, submit: i64, job: Drawn) -> io::Result<()> {
        let Drawn {
            gpus,
            runtime,
            queue,
            state,
            started,
        } = job;
        let state = [
            "COMPLETED",
            "CANCELLED",
            "FAILED",
            if rng.chance(0.5) {
                "TIMEOUT"
            } else {
                "NODE_FAIL"
            },
        ][state];
        let (s_txt, e_txt, dur, que, gpu_time) = if started {
            let s = submit + queue;
            let e = s + runtime;
            (
                self.stamp(s),
                self.stamp(e),
                runtime.to_string(),
                queue.to_string(),
                (runtime * gpus as i64).to_string(),
            )
        } else {
            Default::default()
        };
        let id = format!("dlc{}", rng.hex(13));
        let user = format!("u{}", (rng.uniform().powi(2) * self.users as f64) as u64);
        let nodes = (gpus as u64).div_ceil(8).max(1);
        let cpus = if gpus > 0 {
            gpus as u64 * 16
        } else {
            1 + rng.below(64)
        };
        let ty = if gpus == 0 {
            "Other"
        } else {
            TYPES[rng.weighted(&[0.5, 0.08, 0.12, 0.1, 0.12, 0.08])]
        };
        let sub = self.stamp(submit);
        match self.cluster {
            AcmeCluster::Seren => writeln!(w, "{id},{user},{nodes},{gpus},{cpus},{ty},{state},{sub},{s_txt},{e_txt},{dur},{que},{gpu_time}"),
            AcmeCluster::Kalos => {
                let mem = if gpus > 0 { 1000 } else { 16 };
                let fail = if state == "FAILED" { e_txt.clone() } else { String::new() };
                let stop = if state == "CANCELLED" { e_txt.clone() } else { String::new() };
                writeln!(w, "{id},{user},{nodes},{gpus},{cpus},{mem},{},{ty},{state},{sub},{s_txt},{e_txt},{fail},{stop},{dur},{que},{gpu_time}", mem / 4)
            }
        }
    }
}

pub fn write(opts: &GenOptions, w: &mut impl Write) -> io::Result<()> {
    let p = match opts.cluster {
        AcmeCluster::Seren => &SEREN_PROFILE,
        AcmeCluster::Kalos => &KALOS_PROFILE,
    };
    let n = opts.jobs as usize;
    let mut rng = Rng::new(opts.seed ^ 0xAC3E);
    let offset_s: i64 = if p.offset.starts_with('+') { 1 } else { -1 }
        * (p.offset[1..3].parse::<i64>().unwrap_or(0) * 3600);
    let start = chrono::NaiveDateTime::parse_from_str(p.start, "%Y-%m-%d %H:%M:%S")
        .map_or(0, |d| d.and_utc().timestamp())
        - offset_s;
    let mut draws = Draws::new(p, n, &mut rng);
    let header: &[&str] = match opts.cluster {
        AcmeCluster::Seren => &SEREN,
        AcmeCluster::Kalos => &KALOS,
    };
    writeln!(w, "{}", header.join(","))?;
    let rate = opts.days.map_or(p.jobs_per_day, |d| n as f64 / d) / 86_400.0;
    let mut pool = opts.gpus.map(Pool::new);
    let mut t = 0.0f64;
    let rows = Rows {
        cluster: opts.cluster,
        p,
        offset_s,
        users: (n / 300).clamp(5, 400) as u64,
    };
    for _ in 0..n {
        t += rng.exponential(rate);
        let submit = start + t as i64;
        let mut job = draws.next(p, &mut rng);
        if let (Some(pool), Some(cap)) = (pool.as_mut(), opts.gpus) {
            job.gpus = job.gpus.min(cap);
            if job.gpus > 0 && job.started {
                job.queue = pool.start(submit, job.gpus, job.runtime) - submit;
            }
        }
        rows.write(w, &mut rng, submit, job)?;
    }
    Ok(())
}
