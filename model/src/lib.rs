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
pub(crate) mod cache;
mod clock;
mod cluster_spec;
mod detail;
mod energy;
mod excluded;
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
mod openb;
mod pai;
pub(crate) mod parts;
mod philly;
mod pod;
pub(crate) mod reader;
mod resample;
pub(crate) mod seen;
mod sizing;
pub(crate) mod slots;
mod slurm;
mod speed;
mod swf;
pub(crate) mod symbols;
pub(crate) mod tar;
mod texts;
mod throughput;
mod type_speed;
mod xz;
mod zeus;

// The model: a trace, its jobs, machines, demands and times.
pub use cache::{CacheSpec, CacheWrite, KEEP as CACHE_KEEP};
pub use job_id::JobId;
pub use model::{
    Cluster, Demand, Excluded, Job, JobStatus, Machine, MaybeSecs, Milli, Secs, Segment, Sym,
    Symbols, Trace, TypeId, Unit, Zone, MILLI_PER_GPU,
};

// Loading: the formats, a load's report and its errors, the limits it keeps.
pub use format::{Format, FormatSpec};
pub use input::{Damaged, InputError, LoadReport};
pub use limits::{MAX_GPUS, MAX_LINE, MAX_SECS};
pub use pod::Pod;

// Each format's own loader, named for its format (every format module has a `load`).
/// Renamed from `acme::load`: Acme's loader.
pub use acme::load as load_acme;
/// Renamed from `itp::load`: ITP's loader.
pub use itp::load as load_itp;
/// Renamed from `itp::load_from`: ITP's loader, from a reader.
pub use itp::load_from as load_itp_from;
/// Renamed from `openb::load`: the openb pod list's loader.
pub use openb::load as load_openb;
/// Renamed from `pai::load`: PAI's loader.
pub use pai::load as load_pai;
/// Renamed from `philly::load`: Philly's loader.
pub use philly::load as load_philly;
/// Renamed from `slurm::live::live`: a Slurm cluster now, from
/// `scontrol show node -o` and `squeue --json`.
pub use slurm::live::live as slurm_now;
/// Renamed from `slurm::load`: the sacct output loader.
pub use slurm::load as load_slurm;
/// Renamed from `swf::load`: the Standard Workload Format's loader.
pub use swf::load as load_swf;
/// Renamed from `zeus::load`: Zeus's loader.
pub use zeus::load as load_zeus;

// Format specifics (the generators' schemas, the tests' views), named for their format.
pub use acme::{KALOS, SEREN};
/// Renamed from `pai::detail::job_detail` (every format module has a
/// `job_detail`): one PAI job's joined drill-down.
pub use pai::detail::job_detail as pai_job_detail;
/// Renamed from `pai::detail::side_rows`: the side-table rows of some PAI workers.
pub use pai::detail::side_rows as pai_side_rows;
/// Renamed from `pai::detail::workers_of`: the workers of a PAI job.
pub use pai::detail::workers_of as pai_workers_of;
/// Renamed from `pai::read_machine_spec`: a PAI machine spec read alone.
pub use pai::read_machine_spec as read_pai_machine_spec;
/// Renamed from `pai::side::build`: the index of PAI's side tables, built.
pub use pai::side::build as pai_side_index;
/// Renamed from `pai::tables::ALL`: PAI's tables, each with its columns.
pub use pai::tables::ALL as PAI_TABLES;
pub use pai::PaiTables;
pub use pai::{SpecRow as PaiSpecRow, MOST_SPEC_MACHINES};
/// Renamed from `philly::job_detail` (every format module has a
/// `job_detail`): one job's detail in Philly's own terms.
pub use philly::job_detail as philly_job_detail;
/// Renamed from `philly::util::UtilFile`: one of Philly's per-minute
/// utilisation files.
pub use philly::util::UtilFile as PhillyUtilFile;
pub use philly::{format_local, parse_local, util::parse_zoned, PhillyTables};
/// Renamed from `philly::JOB_LOG`, `philly::MACHINES`, …: Philly's file names.
pub use philly::{
    CPU_UTIL as PHILLY_CPU_UTIL, GPU_UTIL as PHILLY_GPU_UTIL, JOB_LOG as PHILLY_JOB_LOG,
    MACHINES as PHILLY_MACHINES, MEM_UTIL as PHILLY_MEM_UTIL,
};

// A format's own tables behind the model, and a job's detail from them.
/// Renamed from `detail::by_id`: a job's detail, by its id.
pub use detail::by_id as detail_by_id;
/// Renamed from `detail::of_job`: a job's detail.
pub use detail::of_job as detail_of_job;
pub use native::{BenchProbe, MachineSample, MachineValues, NativeTables};

// The cluster: a spec file, sizing to a load, resampled arrivals.
/// Renamed from `cluster_spec::load` (every format module has a `load`):
/// a cluster spec file's loader.
pub use cluster_spec::load as load_cluster_spec;
pub use resample::resample_arrivals;
pub use sizing::{offered_load_gpus, size_for_load};

// Time: the clock shown, durations and moments typed.
pub use clock::{
    clock, clock_shown, dated, parse_duration, parse_when, tick_boundary, utc_offset, weekday_time,
    zone_abbrev, WhenError, PAI_ZONE,
};

// Speed: per-type factors, throughput tables, and the speeds they give.
/// Renamed from `speed::attach`: throughput tables, attached to a trace.
pub use speed::attach as attach_speeds;
/// Renamed from `speed::attach_with`: `attach_speeds`, with each job's fit.
pub use speed::attach_with as attach_speeds_with;
pub use speed::Speeds;
/// Renamed from `throughput::parse_spec`: `--throughputs [TYPE=]DIR` as given.
pub use throughput::derived_spec as derived_throughput_spec;
pub use throughput::parse_spec as parse_throughput_spec;
/// Renamed from `throughput::parse_table`: one model's throughput table.
pub use throughput::parse_table as parse_throughput_table;
pub use throughput::rate_on;
/// Renamed from `throughput::Tables`: throughput tables read from a directory.
pub use throughput::Tables as ThroughputTables;
pub use type_speed::{attach_factors, parse_factors};

// Energy: the power profiles released with Zeus.
pub use energy::{load_profiles, Profile, DEFAULT_BATCH, WORKLOADS};

// Interned texts.
/// Renamed from `texts::key`: the key of a text.
pub use texts::key as text_key;

// The embedded sample trace.
/// Renamed from `sample::itp`: the embedded sample trace.
pub use sample::itp as sample_itp;
/// Renamed from `sample::ITP_GPUS`: the GPUs of the embedded sample's cluster.
pub use sample::ITP_GPUS as SAMPLE_ITP_GPUS;

// Numbers for people, work over cores, seeded randomness.
pub use fmt::{count, human_secs, json_text};
pub use par::{both, cores, pool, Panicked};
pub use rng::Rng;

use std::path::Path;

/// Every format tracetui reads, in the order help lists them: the one
/// registration a format needs (the command line and the loader dispatch
/// follow this list).
pub static FORMATS: [Format; 8] = [
    itp::FORMAT,
    pai::FORMAT,
    philly::FORMAT,
    acme::FORMAT,
    zeus::FORMAT,
    swf::FORMAT,
    slurm::FORMAT,
    openb::FORMAT,
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
    /// Whether PAI instances ask their tasks' `plan_cpu` and `plan_mem` of
    /// their machines (`--cpu-mem`): placement then never over-commits a
    /// machine's `cap_cpu` and `cap_mem`, and instances without GPUs (a
    /// job's parameter servers) hold a machine too. Off: GPUs alone, as
    /// before.
    pub cpu_mem: bool,
    /// How jobs submitted at the same second are ordered.
    pub ties: Ties,
    /// Where slow loads are cached (`None`: no cache, as `--no-cache`).
    pub cache: Option<CacheSpec>,
    /// The zone a trace's local times are in (Slurm's `sacct` prints the
    /// site's local time without a zone): `--tz`; none: UTC.
    pub tz: Option<chrono_tz::Tz>,
    /// The machines, from a file of the cluster's own tools (Slurm:
    /// `scontrol show node -o` or `sinfo` output): `--nodes`.
    pub nodes: Option<std::path::PathBuf>,
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
            cpu_mem: false,
            ties: Ties::File,
            cache: None,
            tz: None,
            nodes: None,
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
