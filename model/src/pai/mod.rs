//! Alibaba PAI 2020 (cluster-trace-gpu-v2020): seven headerless tables in a
//! directory, each as `NAME.csv` (its header row prepended or not), the
//! released `NAME.tar.gz`, or that archive split into parts.
//!
//! The instance table (≈2 GB) is parsed on its own thread while the job,
//! task, group-tag and machine tables are read on this one; the instance
//! thread waits only for the job and machine indices it joins against.

pub(crate) mod build;
mod cached;
mod cached_rows;
pub(crate) mod detail;
mod inst_texts;
mod instances;
mod join;
mod loading;
pub(crate) use loading::{finish, finish_shared, read_tables, Loaded};
mod native;
mod recent;
mod release;
mod row_offsets;
mod spec_file;
pub(crate) use join::JoinIndex;
pub(crate) use release::read_table;
pub(crate) mod side;
pub(crate) mod tables;
mod workers;

use super::archive::Source;
use super::cache;
use super::input::{InputError, LoadReport};
use super::key_table::KeyTable;
use super::model::{Symbols, Trace};
use super::texts::{key, Texts};
use super::LoadOptions;
use std::path::{Path, PathBuf};

use tables::*;

pub(crate) use inst_texts::{InstText, InstTexts};
pub use spec_file::{read_machine_spec, MOST_SPEC_MACHINES};
pub use tables::SpecRow;

/// `pai` on the command line.
pub(crate) const FORMAT: super::Format = super::Format::new(&super::FormatSpec {
    name: "pai",
    aliases: &[],
    help: "Alibaba PAI 2020: a directory of the released tables (.csv or .tar.gz)",
    path_help: "The PAI 2020 directory (pai_job_table.csv and the other tables, .csv or .tar.gz)",
    replay_about: "Replay an Alibaba PAI 2020 directory full screen",
    load,
    load_text: None,
    energy_beside: None,
    reads: release::reads,
    slot: "GPU",
});

/// The released tables as indexed at load, for the replay and the drill-down.
#[derive(Debug, Default)]
pub struct PaiTables {
    /// The directory loaded.
    pub dir: PathBuf,
    /// Where each of the seven tables was found.
    pub sources: Vec<(&'static str, Option<Source>)>,
    /// The job table's `job_name`s and `inst_id`s and the group tags' `group`s,
    /// packed.
    pub texts: Texts,
    /// `pai_job_table`, in file order: `Job::native_row` indexes it (CPU jobs
    /// too).
    pub jobs: Vec<JobRow>,
    /// Each job's place by the key of its name (over `job_keys`).
    pub job_index: KeyTable,
    /// job → the key of its name (the other way round from `job_index`).
    pub job_keys: Vec<u128>,
    /// `pai_task_table`, in file order.
    pub tasks: Vec<TaskRow>,
    /// Task rows grouped by job: `tasks_of[job]` indexes `task_order`.
    pub task_order: Vec<u32>,
    /// Per job: its range of `task_order` (start, end).
    pub tasks_of: Vec<(u32, u32)>,
    /// The instances' `inst_id`, `inst_name` and `worker_name`: held, or
    /// found again in the file.
    pub inst_texts: InstTexts,
    /// Task names and statuses as written in the instance table.
    pub inst_symbols: Symbols,
    /// `pai_instance_table`, in file order (empty when the table is absent).
    pub instances: Vec<InstanceRow>,
    /// Instance rows grouped by job: `insts_of[job]` indexes `inst_order`.
    pub inst_order: Vec<u32>,
    /// Per job: its range of `inst_order` (start, end).
    pub insts_of: Vec<(u32, u32)>,
    /// `pai_group_tag_table`: the first tag of each job that has one (tags of
    /// no job are not kept).
    pub group_tags: Vec<GroupTagRow>,
    /// job → its group tag row (`NONE_IDX` when none), joined by `inst_id`.
    pub job_tag: Vec<u32>,
    /// `pai_machine_spec`, in file order: the first machines of
    /// `Cluster::machines` (empty when the table is absent).
    pub spec: Vec<SpecRow>,
    /// Machines the instance table names but the spec does not.
    pub unknown_machines: Vec<String>,
    /// Whether bad rows stop the load (also for the side tables, indexed later).
    pub strict: bool,
    side: std::sync::OnceLock<Result<side::SideIndex, InputError>>,
    /// Bytes of the side tables' files indexed so far (CSV files).
    side_scanned: std::sync::atomic::AtomicU64,
}

impl PaiTables {
    /// The sensor and machine-metric index, built on first use (call from a
    /// background thread to have it ready).
    pub(crate) fn side_index(&self) -> &Result<side::SideIndex, InputError> {
        self.side.get_or_init(|| side::build(self, self.strict))
    }

    /// Whether the side index is built yet.
    pub(crate) fn side_ready(&self) -> bool {
        self.side.get().is_some()
    }

    /// How far the side index has got, 0–1 (None: its tables are archives
    /// or parts, read as streams, with no size to count against).
    pub(crate) fn side_progress(&self) -> Option<f64> {
        let mut total = 0u64;
        for name in [side::SENSOR_T.name, side::METRIC_T.name] {
            match self.source(name) {
                Some(Source::Csv(p)) => total += std::fs::metadata(p).ok()?.len(),
                Some(_) => return None,
                None => {}
            }
        }
        let done = self.side_scanned.load(std::sync::atomic::Ordering::Relaxed);
        (total > 0).then(|| (done as f64 / total as f64).min(1.0))
    }

    /// `n` more bytes of a side table indexed.
    pub(crate) fn side_scanned(&self, n: u64) {
        self.side_scanned
            .fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    }

    /// Where `table` was found; `None` when it was not.
    pub fn source(&self, table: &str) -> Option<&Source> {
        self.sources
            .iter()
            .find(|(n, _)| *n == table)
            .and_then(|(_, s)| s.as_ref())
    }

    /// The job-table row of the job called `name`.
    pub fn job_by_name(&self, name: &str) -> Option<u32> {
        let row = self.job_index.find(&self.job_keys, key(name.as_bytes()))?;
        (self.texts.get(self.jobs[row as usize].job_name) == name).then_some(row)
    }

    pub(crate) fn tasks_of(&self, job: u32) -> impl Iterator<Item = &TaskRow> {
        let (a, b) = self.tasks_of[job as usize];
        self.task_order[a as usize..b as usize]
            .iter()
            .map(|&i| &self.tasks[i as usize])
    }

    /// The instances of `job` with their numbers.
    pub(crate) fn instances_of_indexed(
        &self,
        job: u32,
    ) -> impl Iterator<Item = (u32, &InstanceRow)> {
        let (a, b) = self.insts_of[job as usize];
        self.inst_order[a as usize..b as usize]
            .iter()
            .map(|&i| (i, &self.instances[i as usize]))
    }

    pub(crate) fn instances_of(&self, job: u32) -> impl Iterator<Item = &InstanceRow> {
        self.instances_of_indexed(job).map(|(_, r)| r)
    }

    /// The first start of any instance of `job`.
    pub(crate) fn first_instance_start(&self, job: u32) -> Option<super::model::Secs> {
        self.instances_of(job)
            .filter_map(|i| opt_time(i.start_time))
            .min()
    }

    /// When `job` ran: (first start, last end, whether anything is still
    /// open), from its instances, or from its tasks where no instance started.
    pub(crate) fn run_span(
        &self,
        job: u32,
    ) -> (Option<super::model::Secs>, Option<super::model::Secs>, bool) {
        let span = |items: &mut dyn Iterator<
            Item = (Option<super::model::Secs>, Option<super::model::Secs>),
        >| {
            let (mut first, mut last, mut open) = (None, None, false);
            for (s, e) in items {
                let Some(s) = s else { continue };
                first = Some(first.map_or(s, |f: super::model::Secs| f.min(s)));
                match e {
                    Some(e) => last = Some(last.map_or(e, |l: super::model::Secs| l.max(e))),
                    None => open = true,
                }
            }
            (first, last, open)
        };
        let from_instances = span(
            &mut self
                .instances_of(job)
                .map(|i| (opt_time(i.start_time), opt_time(i.end_time))),
        );
        if from_instances.0.is_some() {
            return from_instances;
        }
        span(&mut self.tasks_of(job).map(|t| (t.start_time, t.end_time)))
    }

    pub(crate) fn group_tag_of(&self, job: u32) -> Option<&GroupTagRow> {
        opt_idx(*self.job_tag.get(job as usize)?).map(|i| &self.group_tags[i as usize])
    }
}

/// Loads a PAI directory (through the load cache where the options name one).
pub fn load(dir: &Path, opts: &LoadOptions) -> Result<(Trace, LoadReport), InputError> {
    if let Some(spec) = &opts.cache {
        if cache::input_bytes(&release::reads(dir)) >= spec.min_bytes {
            return cached::load(dir, opts, spec);
        }
    }
    crate::reader::open_dir(dir, "the PAI release's tables")?;
    let began = std::time::Instant::now();
    let (loaded, pending) = read_tables(dir, opts, began)?;
    finish(loaded, pending, opts, began)
}
