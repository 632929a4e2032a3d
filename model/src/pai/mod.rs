//! Alibaba PAI 2020 (cluster-trace-gpu-v2020): seven headerless tables in a
//! directory, each as `NAME.csv` (its header row prepended or not), the
//! released `NAME.tar.gz`, or that archive split into parts.
//!
//! The instance table (≈2 GB) is parsed on its own thread while the job,
//! task, group-tag and machine tables are read on this one; the instance
//! thread waits only for the job and machine indices it joins against.

pub(crate) mod build;
pub(crate) mod detail;
mod inst_texts;
mod instances;
mod join;
mod native;
mod release;
mod row_offsets;
mod spec_file;
pub(crate) use join::JoinIndex;
pub(crate) use release::read_table;
pub(crate) mod side;
pub(crate) mod tables;
mod workers;

use super::archive::{self, Source};
use super::input::{InputError, LoadReport};
use super::key_table::KeyTable;
use super::model::{Symbols, Trace};
use super::texts::{key, Texts};
use super::LoadOptions;
use rustc_hash::FxHashMap;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc};
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

fn missing_required(dir: &Path, table: &str) -> InputError {
    InputError::file(
        &dir.display().to_string(),
        format!(
            "missing {table}.csv (or {table}.tar.gz, or its parts {table}.tar.gz.partaa, …); a PAI directory holds the released tables: {}",
            ALL.map(|t| t.0).join(", ")
        ),
    )
}

/// The load in progress: the tables so far, and what the report will say.
struct Loading {
    t: PaiTables,
    symbols: Symbols,
    report: LoadReport,
    /// Rows read per table, in reading order.
    counts: Vec<(&'static str, u64)>,
    began: std::time::Instant,
    strict: bool,
}

impl Loading {
    /// `pai_machine_spec`, where present: the machines and their index by name.
    fn machine_spec(&mut self) -> Result<FxHashMap<u128, u32>, InputError> {
        let mut machine_index = FxHashMap::default();
        let Some(src) = self.t.source(MACHINE_SPEC.0).cloned() else {
            return Ok(machine_index);
        };
        let t = &mut self.t;
        let (n, skips) = read_table(&src, MACHINE_SPEC.0, self.strict, |row| {
            let r = parse_spec(row)?;
            let k = key(r.machine.as_bytes());
            if machine_index.contains_key(&k) {
                return Err(row.error("machine", format!("duplicate machine '{}'", r.machine)));
            }
            machine_index.insert(k, t.spec.len() as u32);
            t.spec.push(r);
            Ok(())
        })?;
        self.counts.push((MACHINE_SPEC.0, n));
        self.report.skips.push(skips);
        Ok(machine_index)
    }

    /// `pai_job_table`: the jobs, indexed by name; returns each job's `inst_id` key.
    fn job_table(&mut self, src: &Source) -> Result<Vec<u128>, InputError> {
        let (t, symbols) = (&mut self.t, &mut self.symbols);
        let mut job_inst_ids = Vec::new();
        let (n, skips) = read_table(src, JOB.0, self.strict, |row| {
            let name = row.bytes(0, "job_name")?;
            let k = key(name);
            if let Some(first) = t.job_index.find(&t.job_keys, k) {
                let line = t.jobs[first as usize].line;
                let name = crate::text::sanitize(&String::from_utf8_lossy(name));
                return Err(row.error(
                    "job_name",
                    format!("duplicate job '{name}' (first on line {line})"),
                ));
            }
            let r = parse_job(row, &mut t.texts, symbols)?;
            t.job_keys.push(k);
            let _ = t.job_index.insert(&t.job_keys, t.jobs.len() as u32);
            job_inst_ids.push(key(row.bytes(1, "inst_id")?));
            t.jobs.push(r);
            Ok(())
        })?;
        self.counts.push((JOB.0, n));
        self.report.skips.push(skips);
        self.report.time("job table", self.began);
        Ok(job_inst_ids)
    }

    /// `pai_group_tag_table`, where present: each job's first tag, joined by `inst_id`.
    fn group_tags(&mut self, by_inst: &JoinIndex) -> Result<(), InputError> {
        self.t.job_tag = vec![NONE_IDX; self.t.jobs.len()];
        let Some(src) = self.t.source(GROUP_TAG.0).cloned() else {
            return Ok(());
        };
        let (t, symbols) = (&mut self.t, &mut self.symbols);
        let mut guess = 0;
        let (n, skips) = read_table(&src, GROUP_TAG.0, self.strict, |row| {
            let r = parse_group_tag(row, &mut t.texts, symbols)?;
            // Tags of no job are checked but not kept: nothing can reach them.
            if let Some(j) = by_inst.find(key(row.bytes(0, "inst_id")?), &mut guess) {
                if t.job_tag[j as usize] == NONE_IDX {
                    t.job_tag[j as usize] = t.group_tags.len() as u32;
                    t.group_tags.push(r);
                }
            }
            Ok(())
        })?;
        self.counts.push((GROUP_TAG.0, n));
        self.report.skips.push(skips);
        Ok(())
    }

    /// `pai_task_table`: every task joined to its job by name, then grouped by job.
    fn task_table(&mut self, src: &Source) -> Result<(), InputError> {
        let (t, symbols) = (&mut self.t, &mut self.symbols);
        let jobs = JoinIndex {
            keys: std::mem::take(&mut t.job_keys),
            index: std::mem::take(&mut t.job_index),
        };
        let mut guess = 0;
        let (n, skips) = read_table(src, TASK.0, self.strict, |row| {
            let name = row.bytes(0, "job_name")?;
            let job = jobs.find(key(name), &mut guess).ok_or_else(|| {
                row.error(
                    "job_name",
                    format!(
                        "'{}' is not in pai_job_table",
                        String::from_utf8_lossy(name)
                    ),
                )
            })?;
            t.tasks.push(parse_task(row, job, symbols)?);
            Ok(())
        })?;
        self.counts.push((TASK.0, n));
        self.report.skips.push(skips);
        (t.job_keys, t.job_index) = (jobs.keys, jobs.index);
        (t.task_order, t.tasks_of) = group_by(t.tasks.iter().map(|r| r.job), t.jobs.len());
        self.report.time("group tags and tasks", self.began);
        Ok(())
    }

    /// The machine, job, group-tag and task tables; the joins the
    /// instance reader waits for sent on `to_instances` once the job
    /// table is read.
    fn tables(
        &mut self,
        job_src: &Source,
        task_src: &Source,
        to_instances: mpsc::Sender<Arc<instances::Joins>>,
    ) -> Result<(), InputError> {
        let machine_index = self.machine_spec()?;
        let job_inst_ids = self.job_table(job_src)?;
        let by_inst = JoinIndex::new(job_inst_ids.clone());
        let joins = Arc::new(instances::Joins {
            machine_index,
            spec_machines: self.t.spec.len() as u32,
            jobs: JoinIndex {
                keys: self.t.job_keys.clone(),
                index: self.t.job_index.clone(),
            },
            job_inst_ids,
        });
        let _ = to_instances.send(joins);
        self.group_tags(&by_inst)?;
        self.task_table(task_src)
    }

    /// The instance table as read (when it exists): instances
    /// linked to their tasks and grouped by job.
    fn instances(&mut self, read: Option<instances::Instances>) -> Result<(), InputError> {
        let t = &mut self.t;
        let Some(r) = read else {
            t.insts_of = vec![(0, 0); t.jobs.len()];
            return Ok(());
        };
        t.instances = r.rows;
        t.inst_texts = r.texts;
        t.inst_symbols = r.symbols;
        t.unknown_machines = r.unknown;
        self.counts
            .insert(self.counts.len() - 1, (INSTANCE.0, r.read));
        self.report.skips.push(r.skips);
        self.report.time("instance table", self.began);
        join::resolve_tasks(t, &self.symbols);
        (t.inst_order, t.insts_of) = group_by(t.instances.iter().map(|r| r.job), t.jobs.len());
        self.report.time("instances grouped by job", self.began);
        Ok(())
    }

    /// One line per table: where it was found and how many rows it had.
    fn note_sources(&mut self) {
        for (name, src) in &self.t.sources {
            if let Some(src) = src {
                release::note_parts(name, src, &mut self.report);
            }
            let line = match (src, self.counts.iter().find(|(n, _)| n == name)) {
                (Some(s), Some((_, n))) => {
                    format!("{}: {n} rows", s.display(&format!("{name}.csv")))
                }
                (Some(s), None) => format!(
                    "{}: found; read when a job is drilled into",
                    s.path().display()
                ),
                (None, _) => format!("{name}: not found"),
            };
            self.report.note(line);
        }
    }
}

/// Loads a PAI directory.
pub fn load(dir: &Path, opts: &LoadOptions) -> Result<(Trace, LoadReport), InputError> {
    crate::reader::open_dir(dir, "the PAI release's tables")?;
    let mut t = PaiTables {
        dir: dir.to_path_buf(),
        ..PaiTables::default()
    };
    t.sources = ALL
        .iter()
        .map(|(n, cols)| {
            release::check_header_file(dir, n, cols)?;
            Ok((*n, archive::find(dir, n)?))
        })
        .collect::<Result<_, InputError>>()?;
    let job_src = t
        .source(JOB.0)
        .cloned()
        .ok_or_else(|| missing_required(dir, JOB.0))?;
    let task_src = t
        .source(TASK.0)
        .cloned()
        .ok_or_else(|| missing_required(dir, TASK.0))?;

    let began = std::time::Instant::now();
    let (tx, rx) = mpsc::channel();
    let inst_src = t.source(INSTANCE.0).cloned();
    let strict = opts.strict;
    let mut l = Loading {
        t,
        symbols: Symbols::default(),
        report: LoadReport::default(),
        counts: Vec::new(),
        began,
        strict: opts.strict,
    };
    // The instance table is read beside the others, waiting for the
    // joins the job table gives it (and stopping if it fails); meanwhile
    // the jobs are built from the other tables.
    let (read, pending) = crate::par::both(
        move || inst_src.map(|src| instances::read(src, strict, rx)),
        || {
            l.tables(&job_src, &task_src, tx)?;
            let pending = build::jobs_of_tables(&l.t, &mut l.symbols, opts);
            l.report.time("jobs from the tables", l.began);
            Ok::<_, InputError>(pending)
        },
    );
    let pending = pending?;
    let read = read.map_err(|_| InputError::file(INSTANCE.0, "the instance reader panicked"))?;
    l.instances(read.transpose()?)?;
    if l.t.jobs.is_empty() {
        return Err(InputError::file(
            &job_src.display(&format!("{}.csv", JOB.0)),
            "no jobs",
        ));
    }
    l.note_sources();
    let Loading {
        t,
        symbols,
        mut report,
        ..
    } = l;
    let trace = build::trace(Arc::new(t), symbols, pending, opts, &mut report)?;
    report.time("model built", began);
    Ok((trace, report))
}
