//! Synthetic PAI 2020 traces: all seven tables, joinable, in the released
//! headerless layout, calibrated to the published PAI marginals
//! (../shared/traces/published/cluster_summary.csv) and the released machine
//! composition. Deterministic for a seed.
//!
//! - Machines: the released composition (CPU 83, MISC 280, P100 798, T4 497,
//!   V100 104, V100M32 135; 0, 2 or 8 GPUs; 6,742 GPUs), with fresh ids.
//! - 82.25 % GPU jobs (1,037,085 of 1,260,920 published).
//! - GPU jobs' run time: log-normal, median 480.667 s, mean 4,787 s, at most
//!   626,371 s; queueing delay (first instance start − submit): log-normal,
//!   median 9 s, mean 402 s; both stratified so the sample hits them (see `dist`).
//! - GPUs per GPU job: 0.25, 0.5, 1, 2, 4 or 8 with shares giving mean 0.68 and
//!   median 0.5, split into instances of fractional or whole GPUs; 12 % of GPU
//!   jobs also have a `ps` task of CPU instances.
//! - CPU jobs hold many instances (median 12), as the released instance table's
//!   size suggests.
//! - Submissions: about 20,700 a day, following a working-hours curve in
//!   Asia/Shanghai time (quiet 2–7 am, busiest 10 am–5 pm).
//! - 18 % Failed; a few jobs submitted in the last hour are still Running (no
//!   end) or Waiting (no start), with the empty fields the release has.
//! - Each instance is placed on a machine of its type at its start, best fit,
//!   by the engine's own cluster indices, so the record replays consistently.

mod cluster;
mod jobs;
mod place;
mod write;

pub use cluster::{GenCluster, SpecError};
pub use jobs::{Generated, GpuShape};
pub use write::write;

/// What `gen pai` is asked for.
#[derive(Debug, Clone)]
pub struct GenOptions {
    pub jobs: u64,
    pub seed: u64,
    pub tar_gz: bool,
    /// A cluster of about this many GPUs: each machine type scaled alike
    /// (at least one machine each); None: the released 6,742.
    pub gpus: Option<u32>,
    /// Submissions spread over about this many days, the day's rhythm
    /// kept; None: at the released rate.
    pub days: Option<f64>,
    /// The machines to generate for (`--machine-spec`: a `pai_machine_spec`
    /// of the release or your own), named and typed as it says; None: the
    /// released composition with fresh ids.
    pub spec: Option<Vec<crate::trace::PaiSpecRow>>,
}

impl GenOptions {
    /// `jobs` jobs at the released rate on the released cluster, as CSV.
    pub fn released(jobs: u64, seed: u64) -> GenOptions {
        GenOptions {
            jobs,
            seed,
            tar_gz: false,
            gpus: None,
            days: None,
            spec: None,
        }
    }
}

/// Machines of one type: (cap_cpu, cap_mem, how many).
pub type Caps = &'static [(u32, u32, u32)];

/// Machines by type as released: (type, machines, GPUs each, capacities).
pub const SPEC: [(&str, u32, u32, Caps); 6] = [
    ("CPU", 83, 0, &[(96, 512, 83)]),
    ("T4", 497, 2, &[(96, 512, 497)]),
    ("MISC", 280, 8, &[(96, 512, 280)]),
    ("P100", 798, 2, &[(64, 512, 798)]),
    ("V100", 104, 8, &[(96, 384, 45), (96, 512, 59)]),
    ("V100M32", 135, 8, &[(96, 384, 135)]),
];

/// A hex id derived from (seed, kind, index): the same job name or worker
/// name comes out in every table that joins on it, without storing it.
pub(crate) fn hex_id(seed: u64, kind: u64, index: u64, len: usize) -> String {
    let mut x =
        seed ^ kind.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03);
    let mut s = String::with_capacity(len + 16);
    while s.len() < len {
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        s.push_str(&format!("{z:016x}"));
    }
    s.truncate(len);
    s
}

/// Id kinds for `hex_id`.
pub mod kind {
    pub const JOB: u64 = 1;
    pub const INST_ID: u64 = 2;
    pub const USER: u64 = 3;
    pub const INST_NAME: u64 = 4;
    pub const WORKER: u64 = 5;
    pub const MACHINE: u64 = 6;
    pub const GROUP: u64 = 7;
}
