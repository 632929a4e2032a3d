//! Reading the release's tables into `PaiTables`: the instance table on a
//! thread of its own, joined to the jobs as the other tables give them.

use super::tables::*;
use super::{build, instances, join, read_table, release, JoinIndex, PaiTables};
use crate::archive::{self, Source};
use crate::input::{InputError, LoadReport};
use crate::model::{Symbols, Trace};
use crate::texts::key;
use crate::LoadOptions;
use rustc_hash::FxHashMap;
use std::path::Path;
use std::sync::{mpsc, Arc};

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
        let (t, mut symbols) = (&mut self.t, Syms::new(&mut self.symbols));
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
            let r = parse_job(row, &mut t.texts, &mut symbols)?;
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
        let (t, mut symbols) = (&mut self.t, Syms::new(&mut self.symbols));
        let mut guess = 0;
        let (n, skips) = read_table(&src, GROUP_TAG.0, self.strict, |row| {
            let r = parse_group_tag(row, &mut t.texts, &mut symbols)?;
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
        let (t, mut symbols) = (&mut self.t, Syms::new(&mut self.symbols));
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
            t.tasks.push(parse_task(row, job, &mut symbols)?);
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

/// The tables as read, before the jobs are given their instances.
pub(crate) struct Loaded {
    pub(crate) t: PaiTables,
    pub(crate) symbols: Symbols,
    pub(crate) report: LoadReport,
}

/// The trace of tables read.
pub(crate) fn finish(
    l: Loaded,
    pending: build::Pending,
    opts: &LoadOptions,
    began: std::time::Instant,
) -> Result<(Trace, LoadReport), InputError> {
    finish_shared(Arc::new(l.t), l.symbols, l.report, pending, opts, began)
}

/// The trace of tables read, shared with the cache's writer.
pub(crate) fn finish_shared(
    t: Arc<PaiTables>,
    symbols: Symbols,
    mut report: LoadReport,
    pending: build::Pending,
    opts: &LoadOptions,
    began: std::time::Instant,
) -> Result<(Trace, LoadReport), InputError> {
    let trace = build::trace(t, symbols, pending, opts, &mut report)?;
    report.time("model built", began);
    Ok((trace, report))
}

/// Reads the release's tables (the instance table beside the others) and
/// builds the jobs from them.
pub(crate) fn read_tables(
    dir: &Path,
    opts: &LoadOptions,
    began: std::time::Instant,
) -> Result<(Loaded, build::Pending), InputError> {
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
        t, symbols, report, ..
    } = l;
    Ok((Loaded { t, symbols, report }, pending))
}
