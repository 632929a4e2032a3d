//! A job's speed, part of the one model: the work a job carries (its
//! iterations) and its rate — iterations per second — for a GPU count and
//! a GPU type, from throughput tables (`throughput.rs`). A job with a speed
//! runs for `ceil(work left ÷ rate)` seconds on the GPUs it holds; a job
//! without one (no work column, no table row for its model and batch size
//! on some GPU type of the cluster) keeps its recorded duration.

use super::input::InputError;
use super::model::{Cluster, Secs, Trace, TypeId};
use super::throughput::{rate_on, Tables};
use std::sync::Arc;

/// A profiled row: (GPU count, iterations/s), counts ascending.
type Row = Box<[(u32, f64)]>;

/// No curve: the job keeps its recorded duration.
const NONE: u32 = u32::MAX;

/// The speeds of a trace's jobs, in job order.
#[derive(Debug, Clone)]
pub struct Speeds {
    tables: Arc<Vec<Tables>>,
    /// Per job: its iterations, and its curve (`NONE`: no speed).
    work: Vec<f64>,
    curve: Vec<u32>,
    /// Per curve, per table: the profiled row (empty: none).
    rows: Vec<Vec<Row>>,
    /// Per curve: its global batch size.
    batch: Vec<u32>,
    /// GPU type (`Cluster::gpu_types`) → the table its jobs run from.
    type_table: Vec<u32>,
    /// Per-type speed factors (`--gpu-speed`), when the speeds come from
    /// them rather than from tables: every job is then rigid.
    factors: Option<Arc<[(String, f64)]>>,
}

impl Speeds {
    /// The job's iterations, when it runs from the tables.
    pub fn work(&self, job: u32) -> Option<f64> {
        let j = job as usize;
        (self.curve.get(j).is_some_and(|&c| c != NONE)).then(|| self.work[j])
    }

    /// Iterations per second of `job` on `gpus` GPUs of type `ty`.
    pub fn rate(&self, job: u32, gpus: u32, ty: TypeId) -> Option<f64> {
        let c = *self.curve.get(job as usize)?;
        let t = *self.type_table.get(ty as usize)?;
        let row = self.rows.get(c as usize)?.get(t as usize)?;
        rate_on(row, gpus)
    }

    /// Seconds `job` needs for `left` iterations at `rate`: whole seconds,
    /// rounded up (as ElasticFlow's simulator plans a finish).
    pub fn seconds(left: f64, rate: f64) -> Secs {
        let s = (left.max(0.0) / rate).ceil();
        if s.is_finite() {
            s.min(i64::MAX as f64 / 4.0) as Secs
        } else {
            i64::MAX / 4
        }
    }

    /// The fastest `job` can go on at most `max_gpus` GPUs of any type:
    /// the best profiled rate at a count up to it (full scale-out).
    pub fn best_rate(&self, job: u32, max_gpus: u32) -> Option<f64> {
        let c = *self.curve.get(job as usize)?;
        let rows = self.rows.get(c as usize)?;
        self.type_table
            .iter()
            .filter_map(|&t| rows.get(t as usize))
            .flat_map(|r| r.iter().filter(|&&(n, _)| n <= max_gpus).map(|&(_, r)| r))
            .fold(None, |best: Option<f64>, r| {
                Some(best.map_or(r, |b| b.max(r)))
            })
    }

    /// The GPU counts an elastic `job` may hold, ascending: those profiled
    /// on every GPU type of the cluster, at most its global batch size (a
    /// GPU takes one sample at least). Never empty for a job with a speed:
    /// 1 when nothing else qualifies.
    pub fn levels(&self, job: u32) -> Vec<u32> {
        if self.factors.is_some() {
            return Vec::new();
        }
        let Some(&c) = self.curve.get(job as usize).filter(|&&c| c != NONE) else {
            return Vec::new();
        };
        let (rows, batch) = (&self.rows[c as usize], self.batch[c as usize]);
        let mut tables = self.type_table.iter().filter_map(|&t| rows.get(t as usize));
        let mut levels: Vec<u32> = match tables.next() {
            Some(first) => first
                .iter()
                .map(|&(n, _)| n)
                .filter(|&n| n <= batch)
                .collect(),
            None => Vec::new(),
        };
        for row in tables {
            levels.retain(|n| row.iter().any(|&(m, _)| m == *n));
        }
        if levels.is_empty() {
            levels.push(1);
        }
        levels
    }

    /// The most GPUs an elastic `job` may hold (the largest of its levels).
    pub fn max_gpus(&self, job: u32) -> Option<u32> {
        self.levels(job).last().copied()
    }

    /// The profiled row `job` runs from on GPU type `ty`: (GPU count,
    /// iterations/s), counts ascending; and its global batch size.
    pub fn row(&self, job: u32, ty: TypeId) -> Option<(&[(u32, f64)], u32)> {
        let c = *self.curve.get(job as usize).filter(|&&c| c != NONE)?;
        let t = *self.type_table.get(ty as usize)?;
        let row = self.rows.get(c as usize)?.get(t as usize)?;
        Some((row, self.batch[c as usize]))
    }

    /// The table directory GPU type `ty` runs from.
    pub fn table_of(&self, ty: TypeId) -> Option<&Tables> {
        let t = *self.type_table.get(ty as usize)?;
        self.tables.get(t as usize)
    }

    /// How many jobs run from the tables.
    pub fn jobs_with_speed(&self) -> usize {
        self.curve.iter().filter(|&&c| c != NONE).count()
    }

    /// The throughput tables the speeds come from, one per `--throughputs`
    /// directory.
    pub fn tables(&self) -> &[Tables] {
        &self.tables
    }

    /// The per-type speed factors the speeds come from, if they do.
    pub fn factors(&self) -> Option<&[(String, f64)]> {
        self.factors.as_deref()
    }

    /// Speeds from per-type factors (`type_speed.rs`): per job its work
    /// (recorded seconds) and curve; per curve, per GPU type, its rate.
    pub(super) fn from_factors(
        factors: Vec<(String, f64)>,
        work: Vec<f64>,
        curve: Vec<Option<u32>>,
        rates: Vec<Vec<f64>>,
    ) -> Speeds {
        let types = rates.first().map_or(0, |r| r.len());
        Speeds {
            tables: Arc::new(Vec::new()),
            work,
            curve: curve.into_iter().map(|c| c.unwrap_or(NONE)).collect(),
            batch: vec![0; rates.len()],
            rows: rates
                .into_iter()
                .map(|per_type| per_type.into_iter().map(|r| vec![(1, r)].into()).collect())
                .collect(),
            type_table: (0..types as u32).collect(),
            factors: Some(factors.into()),
        }
    }
}

/// Gives `trace`'s jobs their speeds from `tables`; the lines that say
/// what was done. A trace without a work column is an error: the tables
/// would change nothing.
pub fn attach(trace: &mut Trace, tables: Vec<Tables>) -> Result<Vec<String>, InputError> {
    let work: Vec<Option<(u64, u32)>> = trace
        .jobs
        .iter()
        .map(|j| trace.native.as_ref().and_then(|n| n.work(j)))
        .collect();
    attach_with(trace, tables, &work)
}

/// `attach`, with each job's work given (iterations, global batch size),
/// in job order, rather than read from the format's tables.
pub fn attach_with(
    trace: &mut Trace,
    tables: Vec<Tables>,
    work_of: &[Option<(u64, u32)>],
) -> Result<Vec<String>, InputError> {
    check_tables(&trace.source, &tables)?;
    let type_table = bind(&trace.cluster, &tables)?;
    let n = trace.jobs.len();
    let mut curves = Curves::default();
    let (mut work, mut curve) = (vec![0.0; n], vec![NONE; n]);
    let mut without = std::collections::BTreeMap::<String, u64>::new();
    let mut any_work = false;
    for (i, job) in trace.jobs.iter().enumerate() {
        let Some((iters, batch_size)) = work_of.get(i).copied().flatten() else {
            continue;
        };
        any_work = true;
        let Some(model) = job.model else { continue };
        let name = trace.symbols.get(model);
        let c = curves.of(model.index(), name, batch_size, &tables, &type_table);
        if c == NONE {
            let key = format!(
                "{} at batch {batch_size}{}",
                crate::text::sanitize(name),
                lacking(&trace.cluster, &tables, &type_table, name, batch_size)
            );
            *without.entry(key).or_default() += 1;
            continue;
        }
        work[i] = iters as f64;
        curve[i] = c;
    }
    if !any_work {
        return Err(InputError::file(
            &trace.source,
            "--throughputs: this trace carries no work (iterations, model, batch size) to run from the tables",
        ));
    }
    past_the_bound(trace, &work, &curve, &curves, &type_table)?;
    let speeds = Speeds {
        tables: Arc::new(tables),
        work,
        curve,
        rows: curves.rows,
        batch: curves.batch,
        type_table,
        factors: None,
    };
    let mut said = vec![format!(
        "speed model: {} of {} jobs run from throughput tables ({}); between profiled GPU counts: linear, flat past the largest, proportional below the smallest",
        speeds.jobs_with_speed(),
        n,
        tables_said(&speeds.tables, &trace.cluster),
    )];
    said.extend(without_said(&without));
    trace.speeds = Some(Arc::new(speeds));
    Ok(said)
}

/// The `--throughputs` directories must be some, at most one naming no GPU type.
fn check_tables(source: &str, tables: &[Tables]) -> Result<(), InputError> {
    if tables.is_empty() {
        return Err(InputError::file(source, "--throughputs: no tables given"));
    }
    if let Some(second) = tables.iter().filter(|t| t.gpu_type.is_none()).nth(1) {
        return Err(InputError::file(
            &second.dir.display().to_string(),
            "two --throughputs directories name no GPU type: name each (A100=DIR, T4=DIR)",
        ));
    }
    Ok(())
}

/// The curves found so far: per curve its rows and batch size, and which
/// curve each (model, batch size) has.
#[derive(Default)]
struct Curves {
    rows: Vec<Vec<Row>>,
    batch: Vec<u32>,
    keys: rustc_hash::FxHashMap<(u32, u32), u32>,
}

impl Curves {
    /// The curve of `model` at `batch_size` (`NONE`: some GPU type has no row).
    #[inline]
    fn of(
        &mut self,
        model: u32,
        name: &str,
        batch_size: u32,
        tables: &[Tables],
        type_table: &[u32],
    ) -> u32 {
        let key = (model, batch_size);
        if let Some(&c) = self.keys.get(&key) {
            return c;
        }
        let r: Vec<Row> = tables
            .iter()
            .map(|t| t.row(name, batch_size).unwrap_or_default().into())
            .collect();
        let usable = type_table.iter().all(|&t| !r[t as usize].is_empty());
        let c = if usable { self.rows.len() as u32 } else { NONE };
        if usable {
            self.rows.push(r);
            self.batch.push(batch_size);
        }
        self.keys.insert(key, c);
        c
    }
}

/// Refuses a job the tables would run past the time bound (the year
/// 2100) even on all the GPUs it asks for, fastest type: an error naming
/// it, never a run time clamped.
fn past_the_bound(
    trace: &Trace,
    work: &[f64],
    curve: &[u32],
    curves: &Curves,
    type_table: &[u32],
) -> Result<(), InputError> {
    for (i, job) in trace.jobs.iter().enumerate() {
        let Some(rows) = curves.rows.get(curve[i] as usize) else {
            continue;
        };
        let gpus = job.demand.gpus_ceil().max(1) as u32;
        let rate = type_table
            .iter()
            .filter_map(|&t| rate_on(rows.get(t as usize)?, gpus))
            .fold(0.0f64, f64::max);
        let ends = job.submit as f64 + work[i] / rate;
        // NaN (no rate) is no end past the bound.
        let past = ends.partial_cmp(&(super::limits::MAX_SECS as f64))
            == Some(std::cmp::Ordering::Greater);
        if rate > 0.0 && (past || ends.is_infinite()) {
            return Err(InputError::file(
                &trace.source,
                format!(
                    "--throughputs: job {} ({} iterations at {rate} per second on {gpus} GPUs) would run past the year 2100: not a run time tracetui takes",
                    crate::text::sanitize(job.id.as_str()),
                    work[i]
                ),
            ));
        }
    }
    Ok(())
}

/// On a cluster of several GPU types, the types whose table has no row for
/// `model` at `batch` (` on T4`); nothing on one type.
fn lacking(
    cluster: &Cluster,
    tables: &[Tables],
    type_table: &[u32],
    model: &str,
    batch: u32,
) -> String {
    if cluster.gpu_types.len() < 2 {
        return String::new();
    }
    let types: Vec<String> = cluster
        .gpu_types
        .iter()
        .zip(type_table)
        .filter(|&(_, &t)| tables[t as usize].row(model, batch).is_none())
        .map(|(g, _)| crate::text::sanitize(g))
        .collect();
    format!(" on {}", types.join(", "))
}

/// The line on the jobs with no table row, which keep their recorded durations.
fn without_said(without: &std::collections::BTreeMap<String, u64>) -> Option<String> {
    if without.is_empty() {
        return None;
    }
    let left: u64 = without.values().sum();
    let mut named: Vec<String> = without
        .iter()
        .take(4)
        .map(|(m, k)| format!("{m} ×{k}"))
        .collect();
    if without.len() > 4 {
        named.push(format!("{} more", without.len() - 4));
    }
    Some(format!(
        "speed model: {left} jobs keep their recorded durations — no table row for {}",
        named.join(", ")
    ))
}

/// Binds the speeds to `trace`'s cluster again (after it was rebuilt).
pub(crate) fn rebind(trace: &mut Trace) -> Result<(), InputError> {
    let Some(s) = trace.speeds.as_ref() else {
        return Ok(());
    };
    if s.factors.is_some() {
        return Err(InputError::file(
            &trace.source,
            "--gpu-speed: the cluster was rebuilt after the speeds were given; give --gpu-speed with a trace that lists its machines",
        ));
    }
    let mut s = Speeds::clone(s);
    s.type_table = bind(&trace.cluster, &s.tables)?;
    trace.speeds = Some(Arc::new(s));
    Ok(())
}

/// GPU type → the table its jobs run from: the one naming the type
/// (case-insensitively), else the one naming none.
fn bind(cluster: &Cluster, tables: &[Tables]) -> Result<Vec<u32>, InputError> {
    for t in tables {
        if let Some(name) = &t.gpu_type {
            if !cluster
                .gpu_types
                .iter()
                .any(|g| g.eq_ignore_ascii_case(name))
            {
                return Err(InputError::file(
                    &t.dir.display().to_string(),
                    format!(
                        "--throughputs {}=: this cluster has no GPU of that type (its types: {}); give the directory alone to use it for every type",
                        crate::text::sanitize(name),
                        crate::text::sanitize(&cluster.gpu_types.join(", "))
                    ),
                ));
            }
        }
    }
    cluster
        .gpu_types
        .iter()
        .map(|g| {
            let named = tables
                .iter()
                .position(|t| t.gpu_type.as_ref().is_some_and(|n| n.eq_ignore_ascii_case(g)));
            named
                .or_else(|| tables.iter().position(|t| t.gpu_type.is_none()))
                .map(|i| i as u32)
                .ok_or_else(|| {
                    InputError::file(
                        &tables[0].dir.display().to_string(),
                        format!(
                            "--throughputs: no table for GPU type {} (name one TYPE=DIR for each type, or give one directory for all)",
                            crate::text::sanitize(g)
                        ),
                    )
                })
        })
        .collect()
}

fn tables_said(tables: &[Tables], cluster: &Cluster) -> String {
    let named = tables.iter().any(|t| t.gpu_type.is_some());
    tables
        .iter()
        .map(|t| {
            let dir = crate::text::sanitize(&t.dir.display().to_string());
            let shown = |s: &str| crate::text::sanitize(s);
            match (&t.gpu_type, &t.derived) {
                (Some(ty), Some((from, f))) => {
                    format!(
                        "{} = {} × {f} (derived, not profiled)",
                        shown(ty),
                        shown(from)
                    )
                }
                (Some(ty), None) => format!("{} on {dir}", shown(ty)),
                (None, _) if cluster.gpu_types.len() > 1 && named => {
                    format!("{dir} for the other types")
                }
                (None, _) if cluster.gpu_types.len() > 1 => format!("{dir} for every type"),
                (None, _) => dir,
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}
