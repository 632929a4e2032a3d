#![warn(unreachable_pub)]
#![warn(missing_docs)]
//! tracetui's model: loading traces, one module per released format, all
//! into one model (`Trace`), with the speed tables and cluster specs that
//! go with them. It knows no engine, terminal or command line. Beside it,
//! the leaves every layer takes from: `text` (terminal safety), `fmt`
//! (numbers for people), `par` (work over cores), `rng` (seeded
//! randomness) and `sample` (the trace compiled into the binary).

pub mod fmt;
pub mod par;
pub mod rng;
pub mod sample;
pub mod text;

pub mod acme;
pub(crate) mod archive;
pub mod clock;
pub mod cluster_spec;
pub mod detail;
pub mod energy;
#[cfg(test)]
mod fast_check;
pub(crate) mod fields;
pub(crate) mod format;
pub(crate) mod gzseek;
pub mod input;
pub mod itp;
pub(crate) mod job_id;
pub(crate) mod key_table;
pub mod limits;
pub(crate) mod lines;
pub mod model;
pub mod native;
pub mod pai;
pub(crate) mod parts;
pub mod philly;
pub(crate) mod reader;
pub mod resample;
pub(crate) mod seen;
pub mod sizing;
pub(crate) mod slots;
pub mod speed;
pub(crate) mod symbols;
pub(crate) mod tar;
pub mod texts;
pub mod throughput;
pub mod type_speed;
mod xz;
pub mod zeus;

pub use input::{InputError, LoadReport};
pub use job_id::JobId;
pub use model::{
    Cluster, Demand, Job, JobStatus, Machine, MaybeSecs, Milli, Secs, Segment, Trace, Unit, Zone,
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
    /// Whether a bad row stops the load (`--strict`) rather than being skipped
    /// and counted.
    pub strict: bool,
    /// Cluster size for traces without a machine list.
    pub gpus: Option<u32>,
    /// GPUs per machine for a cluster tracetui sizes (`--gpus-per-node`, 8 by
    /// default).
    pub gpus_per_node: u32,
    /// Whether jobs that ask for no GPU are replayed too
    /// (`--include-cpu-jobs`); by default they are counted and left out.
    pub include_cpu_jobs: bool,
    /// How jobs submitted at the same second are ordered.
    pub ties: Ties,
}

/// The order of jobs submitted at the same second, which every policy
/// sees as arrival order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ties {
    /// As the file lists them (the default).
    #[default]
    File,
    /// By job id, numerically where ids are numbers: the Alibaba PAI
    /// simulator's order, to reproduce its figures exactly.
    Id,
}

impl Ties {
    /// Both, in the order lists show them.
    pub const ALL: [Ties; 2] = [Ties::File, Ties::Id];

    /// Its value for `--ties` (`file`, `id`).
    pub fn name(self) -> &'static str {
        match self {
            Ties::File => "file",
            Ties::Id => "id",
        }
    }

    /// One line on the order, for help.
    pub fn about(self) -> &'static str {
        match self {
            Ties::File => "As the file lists them (the default)",
            Ties::Id => {
                "By job id, numerically where ids are numbers: the Alibaba PAI simulator's \
                 order, to reproduce its figures exactly"
            }
        }
    }
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            strict: false,
            gpus: None,
            gpus_per_node: 8,
            include_cpu_jobs: false,
            ties: Ties::File,
        }
    }
}

/// Loads a trace of `format` from `path`.
pub fn load(
    format: Format,
    path: &Path,
    opts: &LoadOptions,
) -> Result<(Trace, LoadReport), InputError> {
    let (mut trace, mut report) = format.load(path, opts)?;
    if opts.ties == Ties::Id {
        let moved = order_ties_by_id(&mut trace.jobs);
        report.note(format!(
            "--ties id: jobs submitted at the same second in job-id order ({moved} moved from file order)"
        ));
    }
    Ok((trace, report))
}

/// Orders jobs by submission, ties by id (digits-only ids as numbers, as
/// the PAI simulator reads them); returns how many changed place. A job's
/// segments and native row go with it, so nothing else needs renumbering.
pub(crate) fn order_ties_by_id(jobs: &mut [model::Job]) -> usize {
    fn key(id: &str) -> (bool, usize, &str) {
        let digits = !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit());
        let t = if digits {
            id.trim_start_matches('0')
        } else {
            id
        };
        (!digits, if digits { t.len() } else { 0 }, t)
    }
    let before: Vec<u32> = jobs.iter().map(|j| j.native_row).collect();
    jobs.sort_by(|a, b| {
        a.submit
            .cmp(&b.submit)
            .then_with(|| key(&a.id).cmp(&key(&b.id)))
    });
    jobs.iter()
        .zip(&before)
        .filter(|(j, &r)| j.native_row != r)
        .count()
}
