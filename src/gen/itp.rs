//! Synthetic ITP traces that resemble the released clusters.
//!
//! Calibrated on the five released ITP clusters (29,815 jobs, pooled):
//! - submissions: a Poisson process whose rate follows the hour-of-day
//!   profile below (submission seconds mod 86,400);
//! - GPUs per job: the released shares of 1, 2, 4, 8, 16, 32 and 64 GPUs;
//! - run time: log-normal per GPU count, with that count's released median
//!   and the pooled log-space spread (σ = 1.22), clipped to the released
//!   range (600 s … 1,240,000 s).
//!
//! ElasticFlow columns follow the released generator's ranges: a model and
//! batch size from the released pairs, iterations from a per-model rate, and a
//! deadline of submit + run time × U(0.5, 1.5).

use crate::trace::{Rng, Secs};
use std::io::Write;

/// Relative submission rate for each hour of the day (mean 1).
pub const HOURLY: [f64; 24] = [
    0.95, 0.85, 1.03, 1.10, 1.20, 1.02, 0.86, 1.04, 1.01, 0.88, 0.93, 0.86, 0.76, 0.93, 0.80, 0.92,
    0.93, 0.96, 1.16, 1.27, 0.99, 1.15, 1.34, 1.06,
];

/// (GPUs, share of jobs).
pub const GPU_SHARES: [(u32, f64); 7] = [
    (1, 0.7671),
    (2, 0.0125),
    (4, 0.0294),
    (8, 0.1674),
    (16, 0.0107),
    (32, 0.0109),
    (64, 0.0021),
];

/// Median run time (s) for each entry of `GPU_SHARES`.
pub const RUNTIME_MEDIAN: [f64; 7] = [7609.0, 3001.0, 7790.0, 14794.0, 47031.0, 82579.0, 31372.0];
pub const RUNTIME_SIGMA: f64 = 1.22;
pub const RUNTIME_RANGE: (f64, f64) = (600.0, 1_240_000.0);
/// Mean gap between submissions without `--load`, as in the largest cluster (cluster04).
pub const DEFAULT_GAP: f64 = 325.0;

/// (model, batch sizes, iterations per second).
const MODELS: [(&str, &[u32], f64); 6] = [
    ("bert", &[64, 128], 6.03),
    ("deepspeech2", &[32, 64], 3.02),
    ("gpt2", &[128, 256], 7.31),
    ("inception3", &[64, 128], 4.82),
    ("resnet50", &[64, 128, 256], 3.66),
    ("vgg16", &[64, 128, 256], 2.62),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Schema {
    Raw,
    Elasticflow,
}

#[derive(Debug, Clone)]
pub struct GenOptions {
    pub jobs: u64,
    pub seed: u64,
    pub schema: Schema,
    /// Scale arrivals so the offered load on `gpus` GPUs is `load`.
    pub target: Option<(u32, f64)>,
}

pub struct GenJob {
    pub id: String,
    pub submit: Secs,
    pub duration: Secs,
    pub gpus: u32,
}

/// Each job's GPUs and run time, drawn in turn from one stream.
struct Sizes {
    rng: Rng,
    weights: [f64; GPU_SHARES.len()],
}

impl Sizes {
    fn new(seed: u64) -> Sizes {
        Sizes {
            rng: Rng::new(seed),
            weights: GPU_SHARES.map(|g| g.1),
        }
    }

    fn next(&mut self) -> (u32, Secs) {
        let k = self.rng.weighted(&self.weights);
        let rt = self
            .rng
            .lognormal(RUNTIME_MEDIAN[k], RUNTIME_SIGMA)
            .clamp(RUNTIME_RANGE.0, RUNTIME_RANGE.1);
        (GPU_SHARES[k].0, rt.round() as Secs)
    }
}

/// The jobs, in submission order, made one at a time: memory does not grow
/// with `--jobs`.
///
/// Every size is drawn before any arrival (the arrival rate depends on the
/// mean work when a load is asked for), so a first pass draws the sizes and
/// keeps only their total work and the stream's state after them; the
/// second draws them again, one per job, beside the arrivals.
pub(crate) fn generate(opts: &GenOptions) -> impl Iterator<Item = GenJob> {
    let mut first = Sizes::new(opts.seed);
    let mut work = 0.0f64;
    for _ in 0..opts.jobs {
        let (g, r) = first.next();
        work += g as f64 * r as f64;
    }
    let rate = match opts.target {
        Some((gpus, load)) => {
            let mean_work = work / opts.jobs.max(1) as f64;
            load * gpus as f64 / mean_work.max(1.0)
        }
        None => 1.0 / DEFAULT_GAP,
    };
    let peak = HOURLY.iter().cloned().fold(0.0, f64::max);
    let mut sizes = Sizes::new(opts.seed);
    let mut rng = first.rng;
    let mut t = 0.0f64;
    (0..opts.jobs).map(move |_| {
        let (gpus, duration) = sizes.next();
        // Thinning: candidates at the peak rate, kept with the hour's share.
        loop {
            t += rng.exponential(rate * peak);
            let hour = ((t as i64).rem_euclid(86_400) / 3600) as usize;
            if rng.uniform() * peak < HOURLY[hour] {
                break;
            }
        }
        GenJob {
            id: rng.uuid(),
            submit: t.floor() as Secs,
            duration,
            gpus,
        }
    })
}

/// Writes the trace in the chosen schema.
pub fn write(opts: &GenOptions, w: &mut impl Write) -> std::io::Result<()> {
    // A separate stream for the ElasticFlow columns keeps the raw columns
    // identical between the two schemas for the same seed.
    let mut extra = Rng::new(opts.seed ^ 0x5EED_E1A5_71CF_1011);
    match opts.schema {
        Schema::Raw => writeln!(w, "job_id,submission_time,duration,num_gpu")?,
        Schema::Elasticflow => writeln!(
            w,
            "job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration"
        )?,
    }
    for j in generate(opts) {
        match opts.schema {
            Schema::Raw => writeln!(w, "{},{},{},{}", j.id, j.submit, j.duration, j.gpus)?,
            Schema::Elasticflow => {
                let (model, batches, rate) = MODELS[extra.below(MODELS.len() as u64) as usize];
                let batch = batches[extra.below(batches.len() as u64) as usize];
                let iters = (j.duration as f64 * rate * extra.range(0.8, 1.25))
                    .round()
                    .max(1.0);
                let deadline =
                    j.submit + (j.duration as f64 * extra.range(0.5, 1.5)).round() as Secs;
                writeln!(
                    w,
                    "{},{},{},{},{},{},{},{}",
                    j.id, j.submit, iters as u64, model, deadline, batch, j.gpus, j.duration
                )?
            }
        }
    }
    Ok(())
}
