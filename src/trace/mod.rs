//! Loading traces: one module per released format, all into one model.

pub mod acme;
pub mod archive;
pub mod clock;
pub mod detail;
pub mod energy;
pub mod fields;
pub mod format;
pub mod input;
pub mod itp;
pub mod limits;
pub mod lines;
pub mod model;
pub mod native;
pub mod pai;
pub mod philly;
pub mod reader;
pub mod sizing;
pub mod texts;
mod xz;
pub mod zeus;

pub use input::{InputError, LoadReport};
pub use model::{
    Cluster, Demand, Job, JobStatus, Machine, Milli, Secs, Segment, Trace, Unit, Zone,
};

pub use format::{Format, FormatSpec};

use std::path::Path;

/// Every format tracetui reads, in the order help lists them: the one
/// registration a format needs (the command line and the loader dispatch
/// follow this list).
pub static FORMATS: [Format; 5] = [
    itp::FORMAT,
    pai::FORMAT,
    philly::FORMAT,
    acme::FORMAT,
    zeus::FORMAT,
];

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
    format.load(path, opts)
}
