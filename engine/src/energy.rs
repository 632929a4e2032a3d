//! Zeus (ml-energy/zeus, NSDI '23) as an energy model for any replay.
//!
//! Each job is one of the six Zeus workloads, trained at one batch size
//! (the profiles `trace::energy` reads from the power traces):
//! - the workload comes from the job's model or workload name where the
//!   trace has one (`WORKLOAD_NAMES`), else from its GPU-time
//!   (`GPU_TIME_BUCKETS`);
//! - the power limit: `max` takes the highest limit the power trace has (no
//!   slowdown); `zeus` the one minimising η·energy + (1−η)·max_power·time
//!   per epoch, η = `--eta`.
//!
//! A job's run time scales by `time_per_epoch(limit) / time_per_epoch(max)`,
//! and it draws `average_power(limit)` watts per GPU while it runs.

use std::collections::BTreeMap;
use std::path::Path;
use tracetui_model::{InputError, Job, Profile, Trace, WORKLOADS};

/// Trace model / workload names (ITP ElasticFlow `model_name`, PAI group-tag
/// `workload`, Zeus `dataset`) → workload index.
pub(crate) const WORKLOAD_NAMES: [(&str, usize); 17] = [
    ("cifar100", 0),
    ("shufflenetv2", 0),
    ("imagenet", 1),
    ("resnet50", 1),
    ("resnet", 1),
    ("inception3", 1),
    ("inception", 1),
    ("vgg16", 1),
    ("vgg", 1),
    ("librispeech", 2),
    ("deepspeech2", 2),
    ("movielens-1m", 3),
    ("ctr", 3),
    ("squad", 4),
    ("bert", 4),
    ("sentiment140", 5),
    ("gpt2", 5),
];

/// Jobs without a name, by GPU-hours (run time × GPUs): below each bound, that workload.
pub(crate) const GPU_TIME_BUCKETS: [(f64, usize); 6] = [
    (1.0, 0),
    (4.0, 3),
    (16.0, 5),
    (64.0, 4),
    (256.0, 2),
    (f64::INFINITY, 1),
];

/// How a replay with an energy model sets the GPUs' power limit
/// (`--power`, or a schedule's `power=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PowerPolicy {
    /// The highest power limit: no slowdown.
    #[default]
    Max,
    /// Zeus's choice per workload: minimise η·energy + (1−η)·max_power·time.
    Zeus,
}

impl PowerPolicy {
    /// Both, in the order lists show them.
    pub const ALL: [PowerPolicy; 2] = [PowerPolicy::Max, PowerPolicy::Zeus];

    /// One line on what it does, for help.
    pub fn about(self) -> &'static str {
        match self {
            PowerPolicy::Max => "The highest power limit: no slowdown",
            PowerPolicy::Zeus => {
                "Zeus's choice per workload: minimise η·energy + (1−η)·max_power·time"
            }
        }
    }

    /// Its name on the command line and in schedules: `max`, `zeus`.
    pub fn name(self) -> &'static str {
        match self {
            PowerPolicy::Max => "max",
            PowerPolicy::Zeus => "zeus",
        }
    }
}

/// The limit a policy picks for a workload's profile.
pub(crate) fn choose(profile: &Profile, p: PowerPolicy, eta: f64) -> u32 {
    let max = profile.max_limit();
    match p {
        PowerPolicy::Max => max,
        PowerPolicy::Zeus => profile
            .limits
            .iter()
            .map(|&(l, t, w)| (eta * w * t + (1.0 - eta) * max as f64 * t, l))
            .min_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)))
            .map_or(max, |x| x.1),
    }
}

/// What a job gets under a power policy: run-time factor and watts per GPU.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Draw {
    /// The power limit, W.
    pub limit: u32,
    /// Run time at this limit ÷ run time at the highest limit (1: no slowdown).
    pub time_factor: f64,
    /// Average watts per GPU while the job runs at this limit.
    pub watts: f64,
}

/// Zeus's profiles for one GPU, and what each power policy gives each workload.
#[derive(Debug, Clone, PartialEq)]
pub struct EnergyModel {
    /// The GPU whose power trace it was read from (`summary_power_<gpu>.csv`).
    pub gpu: String,
    /// Zeus's η (`--eta`, 0–1): the weight of energy against time in the
    /// `zeus` policy's cost.
    pub eta: f64,
    /// One profile per workload, in `WORKLOADS` order.
    pub profiles: Vec<Profile>,
    /// Per policy, per workload.
    draws: BTreeMap<PowerPolicy, Vec<Draw>>,
}

impl EnergyModel {
    /// Reads `summary_train.csv` and `summary_power_<gpu>.csv` from `dir`,
    /// and what each power policy gives each workload.
    pub fn load(dir: &Path, gpu: &str, eta: f64) -> Result<EnergyModel, InputError> {
        let profiles = tracetui_model::load_profiles(dir, gpu)?;
        let mut draws = BTreeMap::new();
        for p in [PowerPolicy::Max, PowerPolicy::Zeus] {
            let v = profiles
                .iter()
                .map(|pr| {
                    let limit = choose(pr, p, eta);
                    let (t, w) = pr.at(limit);
                    let (tmax, _) = pr.at(pr.max_limit());
                    Draw {
                        limit,
                        time_factor: t / tmax,
                        watts: w,
                    }
                })
                .collect();
            draws.insert(p, v);
        }
        Ok(EnergyModel {
            gpu: gpu.to_string(),
            eta,
            profiles,
            draws,
        })
    }

    /// What power policy `p` gives a job of workload `workload` (an index
    /// into `WORKLOADS`).
    pub fn draw(&self, p: PowerPolicy, workload: usize) -> Draw {
        self.draws[&p][workload]
    }

    /// The most watts per GPU any workload draws at any limit (the colour scale's top).
    pub(crate) fn max_watts(&self) -> f64 {
        self.profiles
            .iter()
            .flat_map(|p| p.limits.iter().map(|l| l.2))
            .fold(0.0, f64::max)
    }
}

/// How a job was mapped to a workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mapped {
    /// By its model or workload name (`WORKLOAD_NAMES`).
    ByName,
    /// By its GPU-hours (`GPU_TIME_BUCKETS`): it has no name, or one the
    /// table does not know.
    ByGpuTime,
}

/// The workload of a job: by its model name where known, else by GPU-time.
pub fn workload_of(trace: &Trace, job: &Job) -> (usize, Mapped) {
    if let Some(m) = job.model {
        let name = trace.symbols.get(m).to_ascii_lowercase();
        if let Some(&(_, w)) = WORKLOAD_NAMES.iter().find(|(n, _)| *n == name) {
            return (w, Mapped::ByName);
        }
    }
    let hours = job.runtime.get().unwrap_or(0).max(0) as f64 * job.gpus_display() / 3600.0;
    let w = GPU_TIME_BUCKETS
        .iter()
        .find(|(b, _)| hours < *b)
        .map_or(1, |x| x.1);
    (w, Mapped::ByGpuTime)
}

/// Every job's workload, for the engine (computed once per trace).
pub(crate) fn workloads(trace: &Trace) -> Vec<u8> {
    trace
        .jobs
        .iter()
        .map(|j| workload_of(trace, j).0 as u8)
        .collect()
}

/// The mapping table `stats` shows: per workload, jobs mapped by name and by GPU-time.
pub(crate) fn mapping_table(trace: &Trace) -> Vec<(String, u64, u64)> {
    let mut t = vec![(0u64, 0u64); WORKLOADS.len()];
    for j in &trace.jobs {
        match workload_of(trace, j) {
            (w, Mapped::ByName) => t[w].0 += 1,
            (w, Mapped::ByGpuTime) => t[w].1 += 1,
        }
    }
    WORKLOADS
        .iter()
        .zip(t)
        .map(|((d, n), (a, b))| (format!("{d}/{n}"), a, b))
        .collect()
}

/// One row of the mapping table `stats --energy` shows.
#[derive(Debug, Clone, serde::Serialize)]
pub struct WorkloadRow {
    /// The workload as `dataset/network`.
    pub workload: String,
    /// Jobs mapped to it by name.
    pub jobs_by_name: u64,
    /// Jobs mapped to it by GPU-hours.
    pub jobs_by_gpu_time: u64,
    /// The batch size its profile is measured at.
    pub batch_size: u32,
    /// The highest power limit, W: the `max` policy's.
    pub max_limit_w: u32,
    /// The limit the `zeus` policy picks, W.
    pub zeus_limit_w: u32,
    /// Run time under the zeus limit ÷ run time at the highest limit.
    pub zeus_time_factor: f64,
    /// Average watts per GPU at the highest limit.
    pub max_watts: f64,
    /// Average watts per GPU at the `zeus` limit.
    pub zeus_watts: f64,
}

/// The mapping table, with what each policy gives each workload.
pub fn workload_table(trace: &Trace, m: &EnergyModel) -> Vec<WorkloadRow> {
    mapping_table(trace)
        .into_iter()
        .enumerate()
        .map(|(w, (name, a, b))| {
            let mx = m.draw(PowerPolicy::Max, w);
            let z = m.draw(PowerPolicy::Zeus, w);
            WorkloadRow {
                workload: name,
                jobs_by_name: a,
                jobs_by_gpu_time: b,
                batch_size: m.profiles[w].batch_size,
                max_limit_w: mx.limit,
                zeus_limit_w: z.limit,
                zeus_time_factor: (z.time_factor * 1e4).round() / 1e4,
                max_watts: (mx.watts * 10.0).round() / 10.0,
                zeus_watts: (z.watts * 10.0).round() / 10.0,
            }
        })
        .collect()
}

/// Joules to kWh.
pub fn kwh(joules: f64) -> f64 {
    joules / 3.6e6
}
