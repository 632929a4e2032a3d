//! Loading traces: one module per released format, all into one model.

pub mod acme;
pub mod archive;
pub mod clock;
pub mod detail;
pub mod energy;
pub mod fields;
pub mod input;
pub mod itp;
pub mod lines;
pub mod model;
pub mod native;
pub mod pai;
pub mod philly;
pub mod sizing;
pub mod texts;
pub mod zeus;

pub use input::{InputError, LoadReport};
pub use model::{
    Cluster, Demand, Job, JobStatus, Machine, Milli, Secs, Segment, Trace, Unit, Zone,
};

use std::path::Path;

/// The trace formats tracetui reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Microsoft ITP, raw or ElasticFlow schema (alias: elasticflow)
    #[value(alias = "elasticflow")]
    Itp,
    /// Alibaba PAI 2020: a directory of the released tables (.csv or .tar.gz)
    Pai,
    /// Microsoft Philly: a directory with cluster_job_log and cluster_machine_list
    Philly,
    /// AcmeTrace: trace_seren.csv or trace_kalos.csv
    Acme,
    /// Zeus: alibaba_groups.csv (or its directory, with the power traces)
    Zeus,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Itp => "itp",
            Format::Pai => "pai",
            Format::Philly => "philly",
            Format::Acme => "acme",
            Format::Zeus => "zeus",
        }
    }
}

/// What every loader needs to know besides the path.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    pub strict: bool,
    /// Cluster size for traces without a machine list.
    pub gpus: Option<u32>,
    pub gpus_per_node: u32,
    pub include_cpu_jobs: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            strict: false,
            gpus: None,
            gpus_per_node: 8,
            include_cpu_jobs: false,
        }
    }
}

/// Loads a trace of `format` from `path`.
pub fn load(
    format: Format,
    path: &Path,
    opts: &LoadOptions,
) -> Result<(Trace, LoadReport), InputError> {
    match format {
        Format::Itp => itp::load(path, opts),
        Format::Pai => pai::load(path, opts),
        Format::Philly => philly::load(path, opts),
        Format::Acme => acme::load(path, opts),
        Format::Zeus => zeus::load(path, opts),
    }
}
