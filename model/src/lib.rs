#![warn(unreachable_pub)]
#![warn(missing_docs)]
//! tracetui's model: loading traces, one module per released format, all
//! into one model (`Trace`), with the speed tables and cluster specs that
//! go with them. It knows no engine, terminal or command line. Beside it,
//! the leaves every layer takes from: `text` (terminal safety), and at the
//! root numbers for people (`human_secs`), work over cores (`pool`,
//! `both`), seeded randomness (`Rng`) and the trace compiled into the
//! binary (`sample_itp`). Everything other crates use is re-exported here.

mod fmt;
mod par;
mod rng;
mod sample;
// `text` stays a public module: a namespace of many small terminal-safety
// and column helpers (`text::width`, `text::fit`, `text::sanitize`, …) that
// every layer uses together, and whose names say little without it.
pub mod text;

mod acme;
pub(crate) mod archive;
mod clock;
mod cluster_spec;
mod detail;
mod energy;
#[cfg(test)]
mod fast_check;
pub(crate) mod fields;
pub(crate) mod format;
pub(crate) mod gzseek;
mod input;
mod itp;
pub(crate) mod job_id;
pub(crate) mod key_table;
mod limits;
pub(crate) mod lines;
mod model;
mod native;
mod pai;
pub(crate) mod parts;
mod philly;
pub(crate) mod reader;
mod resample;
pub(crate) mod seen;
mod sizing;
pub(crate) mod slots;
mod speed;
pub(crate) mod symbols;
pub(crate) mod tar;
mod texts;
mod throughput;
mod type_speed;
mod xz;
mod zeus;

// The model: a trace, its jobs, machines, demands and times.
pub use job_id::JobId;
pub use model::{
    Cluster, Demand, Excluded, Job, JobStatus, Machine, MaybeSecs, Milli, Secs, Segment, Sym,
    Symbols, Trace, TypeId, Unit, Zone, MILLI_PER_GPU,
};

// Loading: the formats, a load's report and its errors, the limits it keeps.
pub use format::{Format, FormatSpec};
pub use input::{Damaged, InputError, LoadReport};
pub use limits::{MAX_GPUS, MAX_LINE, MAX_SECS};

// Each format's own loader (renamed here: every format module has a `load`).
/// Acme's loader (`acme::load`).
pub use acme::load as load_acme;
/// ITP's loader (`itp::load`).
pub use itp::load as load_itp;
/// ITP's loader from a reader (`itp::load_from`).
pub use itp::load_from as load_itp_from;
/// PAI's loader (`pai::load`).
pub use pai::load as load_pai;
/// Philly's loader (`philly::load`).
pub use philly::load as load_philly;
/// Zeus's loader (`zeus::load`).
pub use zeus::load as load_zeus;

// Format specifics: the generators' schemas and the tests' views of a format.
pub use acme::{KALOS, SEREN};
/// One PAI job's joined drill-down (`pai::detail::job_detail`; every format
/// module has a `job_detail`).
pub use pai::detail::job_detail as pai_job_detail;
/// The side-table rows of some PAI workers (`pai::detail::side_rows`).
pub use pai::detail::side_rows as pai_side_rows;
/// The workers of a PAI job (`pai::detail::workers_of`).
pub use pai::detail::workers_of as pai_workers_of;
/// Builds the index of PAI's side tables (`pai::side::build`).
pub use pai::side::build as pai_side_index;
/// PAI's tables, each with its columns (`pai::tables::ALL`).
pub use pai::tables::ALL as PAI_TABLES;
pub use pai::PaiTables;
/// One job's detail in Philly's own terms (`philly::job_detail`; every
/// format module has a `job_detail`).
pub use philly::job_detail as philly_job_detail;
/// One of Philly's per-minute utilisation files (`philly::util::UtilFile`).
pub use philly::util::UtilFile as PhillyUtilFile;
pub use philly::{format_local, parse_local, util::parse_zoned, PhillyTables};
/// Philly's file names (`philly::JOB_LOG`, …), named for their format here.
pub use philly::{
    CPU_UTIL as PHILLY_CPU_UTIL, GPU_UTIL as PHILLY_GPU_UTIL, JOB_LOG as PHILLY_JOB_LOG,
    MACHINES as PHILLY_MACHINES, MEM_UTIL as PHILLY_MEM_UTIL,
};

// A format's own tables behind the model, and a job's detail from them.
/// A job's detail by id (`detail::by_id`).
pub use detail::by_id as detail_by_id;
/// A job's detail (`detail::of_job`).
pub use detail::of_job as detail_of_job;
pub use native::{BenchProbe, MachineSample, MachineValues, NativeTables};

// The cluster: a spec file, sizing to a load, resampled arrivals.
/// A cluster spec file's loader (`cluster_spec::load`).
pub use cluster_spec::load as load_cluster_spec;
pub use resample::resample_arrivals;
pub use sizing::{offered_load_gpus, size_for_load};

// Time: the clock shown, durations and moments typed.
pub use clock::{
    clock, clock_shown, dated, parse_duration, parse_when, weekday_time, zone_abbrev, WhenError,
    PAI_ZONE,
};

// Speed: per-type factors, throughput tables, and the speeds they give.
/// Attaches throughput tables to a trace (`speed::attach`).
pub use speed::attach as attach_speeds;
/// `attach_speeds`, with a report of each job's fit (`speed::attach_with`).
pub use speed::attach_with as attach_speeds_with;
pub use speed::Speeds;
/// `--throughputs [TYPE=]DIR` as given (`throughput::parse_spec`).
pub use throughput::parse_spec as parse_throughput_spec;
/// One model's throughput table (`throughput::parse_table`).
pub use throughput::parse_table as parse_throughput_table;
pub use throughput::rate_on;
/// Throughput tables read from a directory (`throughput::Tables`).
pub use throughput::Tables as ThroughputTables;
pub use type_speed::{attach_factors, parse_factors};

// Energy: the power profiles released with Zeus.
pub use energy::{load_profiles, Profile, DEFAULT_BATCH, WORKLOADS};

// Interned texts: the key of a message's text (`texts::key`).
/// The key of a text (`texts::key`).
pub use texts::key as text_key;

// The embedded sample trace.
/// The embedded sample trace (`sample::itp`).
pub use sample::itp as sample_itp;
/// The GPUs of the embedded sample's cluster (`sample::ITP_GPUS`).
pub use sample::ITP_GPUS as SAMPLE_ITP_GPUS;

// Numbers for people, work over cores, seeded randomness.
pub use fmt::{count, human_secs, json_text};
pub use par::{both, cores, pool, Panicked};
pub use rng::Rng;

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
