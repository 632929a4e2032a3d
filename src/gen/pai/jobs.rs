//! Drawing the jobs, their tasks and instances.

use super::GenOptions;
use crate::gen::dist::{exact_categorical, lognormal_matching, shuffle};
use crate::trace::Rng;
use std::ops::Range;

/// Monday 00:00:00 in Asia/Shanghai, in the release's shifted seconds (its
/// own example 4550879 is Monday 00:07:59).
pub(super) const BASE: i64 = 4_550_400;
/// Published: 1,260,920 jobs over the two months of July and August 2020.
pub(super) const JOBS_PER_SECOND: f64 = 1_260_920.0 / (61.0 * 86_400.0);
/// Relative submission rate per hour of the day, Asia/Shanghai.
pub(super) const HOURLY: [f64; 24] = [
    0.55, 0.45, 0.35, 0.30, 0.30, 0.30, 0.35, 0.50, 0.80, 1.20, 1.45, 1.50, 1.30, 1.35, 1.50, 1.55,
    1.50, 1.40, 1.20, 1.10, 1.10, 1.15, 1.00, 0.80,
];
pub(super) const GPU_JOB_SHARE: f64 = 1_037_085.0 / 1_260_920.0;
pub(super) const RUNTIME: (f64, f64, f64) = (480.667, 4_787.109, 626_371.0); // median, mean, max
pub(super) const QUEUE: (f64, f64) = (9.0, 401.742); // median, mean

/// GPUs per GPU job and their shares: mean 0.674, median 0.5.
pub(super) const GPU_SHARES: [(f64, f64); 6] = [
    (0.25, 0.18),
    (0.5, 0.50),
    (1.0, 0.285),
    (2.0, 0.027),
    (4.0, 0.006),
    (8.0, 0.002),
];

pub(super) const WORKLOADS: [&str; 8] = [
    "bert",
    "ctr",
    "graphlearn",
    "nmt",
    "resnet",
    "inception",
    "vgg",
    "rl",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Terminated,
    Failed,
    Running,
    Waiting,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Terminated => "Terminated",
            Status::Failed => "Failed",
            Status::Running => "Running",
            Status::Waiting => "Waiting",
        }
    }
}

#[derive(Debug, Clone)]
pub struct GJob {
    pub submit: i64,
    /// When its instances start (`None`: Waiting).
    pub start: Option<i64>,
    /// When they end (`None`: still running, or never started).
    pub end: Option<i64>,
    pub status: Status,
    pub user: u32,
    pub group: u32,
    pub workload: Option<&'static str>,
    /// Index into the cluster's types when the job asked for a GPU type.
    pub type_spec: Option<u8>,
    pub tasks: Range<u32>,
}

#[derive(Debug, Clone)]
pub struct GTask {
    pub job: u32,
    pub name: &'static str,
    pub inst_num: u32,
    /// Percent of one GPU per instance; `None` for CPU tasks.
    pub plan_gpu: Option<u32>,
    pub plan_cpu: u32,
    pub plan_mem: f64,
    /// Index into the cluster's types of the GPUs it got (set by placement).
    pub gpu_type: Option<u8>,
    pub insts: Range<u32>,
}

#[derive(Debug, Clone)]
pub struct GInst {
    pub task: u32,
    pub machine: Option<u32>,
}

/// A generated trace in memory.
#[derive(Debug, Clone)]
pub struct Generated {
    pub seed: u64,
    pub jobs: Vec<GJob>,
    pub tasks: Vec<GTask>,
    pub insts: Vec<GInst>,
    /// The cluster: its GPU types and machines.
    pub cluster: super::GenCluster,
    /// GPU instances that found no room at their recorded start.
    pub overflow: u64,
}

/// How a GPU job's GPUs split into tasks of instances: (task, instances, percent each).
pub type GpuShape = Vec<(&'static str, u32, u32)>;

fn shape(gpus: f64, rng: &mut Rng) -> GpuShape {
    let single = *["tensorflow", "tensorflow", "worker", "PyTorchWorker"]
        .get(rng.below(4) as usize)
        .unwrap_or(&"worker");
    let (n, each) = match gpus {
        g if g <= 0.25 => (1, 25),
        g if g <= 0.5 => {
            if rng.chance(0.8) {
                (1, 50)
            } else {
                (2, 25)
            }
        }
        g if g <= 1.0 => {
            if rng.chance(0.75) {
                (1, 100)
            } else {
                (2, 50)
            }
        }
        g if g <= 2.0 => {
            if rng.chance(0.5) {
                (1, 200)
            } else {
                (2, 100)
            }
        }
        g if g <= 4.0 => {
            if rng.chance(0.4) {
                (1, 400)
            } else {
                (4, 100)
            }
        }
        _ => match rng.below(4) {
            0 | 1 => (1, 800),
            2 => (8, 100),
            _ => (2, 400),
        },
    };
    vec![(if n > 1 { "worker" } else { single }, n, each)]
}

/// The GPUs of the released cluster.
pub(super) const RELEASED_GPUS: u32 = 6_742;

/// Submission times: Poisson at `pace` times the released rate, thinned by
/// the hour-of-day curve.
fn submissions(n: usize, rng: &mut Rng, pace: f64) -> Vec<i64> {
    let mean_w = HOURLY.iter().sum::<f64>() / 24.0;
    let peak = HOURLY.iter().cloned().fold(0.0, f64::max) / mean_w;
    let mut t = 0.0f64;
    (0..n)
        .map(|_| loop {
            t += rng.exponential(JOBS_PER_SECOND * pace * peak);
            let hour = ((t as i64).rem_euclid(86_400) / 3600) as usize;
            if rng.uniform() * peak < HOURLY[hour] / mean_w {
                break BASE + t as i64;
            }
        })
        .collect()
}

/// The stratified draws the jobs take in turn, so the marginals hit the
/// published ones: GPU or CPU job, then each kind's run time, queueing and size.
struct Marginals {
    /// 0: a GPU job, 1: a CPU job.
    kinds: Vec<usize>,
    runtimes: Vec<i64>,
    queues: Vec<i64>,
    /// Index into `GPU_SHARES`.
    gpus: Vec<usize>,
    cpu_runtimes: Vec<i64>,
    cpu_queues: Vec<i64>,
    cpu_insts: Vec<i64>,
    /// GPU and CPU jobs taken so far.
    taken: (usize, usize),
}

impl Marginals {
    fn draw(n: usize, rng: &mut Rng) -> Marginals {
        let kinds = exact_categorical(n, &[GPU_JOB_SHARE, 1.0 - GPU_JOB_SHARE], rng);
        let n_gpu = kinds.iter().filter(|&&k| k == 0).count();
        let runtimes = lognormal_matching(n_gpu, RUNTIME.0, RUNTIME.1, 1.0, RUNTIME.2, rng);
        let queues = lognormal_matching(n_gpu, QUEUE.0, QUEUE.1, 0.0, 30.0 * 86_400.0, rng);
        let gpus = exact_categorical(n_gpu, &GPU_SHARES.map(|g| g.1), rng);
        let cpu_n = n - n_gpu;
        let cpu_runtimes = lognormal_matching(cpu_n, 200.0, 1_200.0, 1.0, 3.0 * 86_400.0, rng);
        let cpu_queues = lognormal_matching(cpu_n, 2.0, 30.0, 0.0, 86_400.0, rng);
        let cpu_insts = lognormal_matching(cpu_n, 12.0, 28.0, 1.0, 500.0, rng);
        Marginals {
            kinds,
            runtimes,
            queues,
            gpus,
            cpu_runtimes,
            cpu_queues,
            cpu_insts,
            taken: (0, 0),
        }
    }

    /// The next job's (run time, queueing, tasks); a GPU job's shape draws from `rng`.
    fn next(&mut self, is_gpu: bool, rng: &mut Rng) -> (i64, i64, GpuShape) {
        let (gi, ci) = &mut self.taken;
        if is_gpu {
            let g = GPU_SHARES[self.gpus[*gi]].0;
            let s = shape(g, rng);
            *gi += 1;
            (self.runtimes[*gi - 1], self.queues[*gi - 1], s)
        } else {
            *ci += 1;
            (
                self.cpu_runtimes[*ci - 1],
                self.cpu_queues[*ci - 1],
                vec![("worker", self.cpu_insts[*ci - 1] as u32, 0)],
            )
        }
    }
}

/// Tasks of job `j` from its shape, each with its (unplaced) instances.
fn push_tasks(
    j: usize,
    spec: GpuShape,
    tasks: &mut Vec<GTask>,
    insts: &mut Vec<GInst>,
    rng: &mut Rng,
) {
    for (name, count, pct) in spec {
        let i0 = insts.len() as u32;
        insts.extend((0..count).map(|_| GInst {
            task: tasks.len() as u32,
            machine: None,
        }));
        tasks.push(GTask {
            job: j as u32,
            name,
            inst_num: count,
            plan_gpu: (pct > 0).then_some(pct),
            plan_cpu: [100, 200, 400, 600, 800][rng.below(5) as usize],
            plan_mem: [2.0, 4.0, 8.0, 16.0, 29.296875][rng.below(5) as usize],
            gpu_type: None,
            insts: i0..insts.len() as u32,
        });
    }
}

/// A few jobs of the last hour are cut by the trace's end: running or waiting.
fn cut_at_end(jobs: &mut [GJob], last: i64, rng: &mut Rng) {
    let n = jobs.len();
    let mut recent: Vec<usize> = (0..n).filter(|&j| jobs[j].submit >= last - 3600).collect();
    shuffle(&mut recent, rng);
    let running = (n as f64 * 0.002).round() as usize;
    let waiting = (n as f64 * 0.001).round() as usize;
    for (k, &j) in recent.iter().take(running + waiting).enumerate() {
        let job = &mut jobs[j];
        job.end = None;
        if k < running {
            job.status = Status::Running;
        } else {
            job.status = Status::Waiting;
            job.start = None;
        }
    }
}

pub(crate) fn generate(opts: &GenOptions) -> Result<Generated, super::SpecError> {
    let scale = opts.gpus.map_or(1.0, |g| g as f64 / RELEASED_GPUS as f64);
    let cluster = match &opts.spec {
        Some(rows) => super::GenCluster::of_spec(rows.clone())?,
        None => super::GenCluster::released(scale),
    };
    // Thinned by the hour of day, arrivals keep the released mean rate:
    // n jobs over `days` days is this pace.
    let pace = opts
        .days
        .map_or(1.0, |d| opts.jobs as f64 / (JOBS_PER_SECOND * d * 86_400.0));
    Ok(generate_at(opts, cluster, pace))
}

fn generate_at(opts: &GenOptions, cluster: super::GenCluster, pace: f64) -> Generated {
    let askable = [cluster.askable(false), cluster.askable(true)];
    let n = opts.jobs as usize;
    let stream = |k: u64| Rng::new(opts.seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ k);
    let submits = submissions(n, &mut stream(1), pace);
    let mut m = Marginals::draw(n, &mut stream(2));
    let mut r3 = stream(3);
    let last = submits.last().copied().unwrap_or(BASE);
    let users = (n / 1000).clamp(5, 1300) as u64;
    let groups = (n / 5).max(1) as u64;
    let mut jobs = Vec::with_capacity(n);
    let mut tasks: Vec<GTask> = Vec::with_capacity(n + n / 8);
    let mut insts: Vec<GInst> = Vec::new();
    for (j, &submit) in submits.iter().enumerate() {
        let is_gpu = m.kinds[j] == 0;
        let (runtime, queue, mut spec) = m.next(is_gpu, &mut r3);
        if is_gpu && r3.chance(0.12) {
            spec.insert(0, ("ps", 1 + r3.below(4) as u32, 0));
        }
        // Zipf-like users: a few submit most jobs.
        let user = ((r3.uniform().powi(3)) * users as f64) as u32;
        let status = if r3.chance(0.18) {
            Status::Failed
        } else {
            Status::Terminated
        };
        let t0 = tasks.len() as u32;
        push_tasks(j, spec, &mut tasks, &mut insts, &mut r3);
        let needs_8 = tasks[t0 as usize..]
            .iter()
            .any(|t| t.plan_gpu.unwrap_or(0) > 200);
        let askable = &askable[usize::from(needs_8)];
        let type_spec = (is_gpu && r3.chance(0.3) && !askable.is_empty())
            .then(|| askable[r3.below(askable.len() as u64) as usize]);
        jobs.push(GJob {
            submit,
            start: Some(submit + queue),
            end: Some(submit + queue + runtime),
            status,
            user,
            group: r3.below(groups) as u32,
            workload: r3
                .chance(0.09)
                .then(|| WORKLOADS[r3.below(WORKLOADS.len() as u64) as usize]),
            type_spec,
            tasks: t0..tasks.len() as u32,
        });
    }
    cut_at_end(&mut jobs, last, &mut r3);
    let mut g = Generated {
        seed: opts.seed,
        jobs,
        tasks,
        insts,
        cluster,
        overflow: 0,
    };
    super::place::place(&mut g, &mut stream(4));
    g
}
