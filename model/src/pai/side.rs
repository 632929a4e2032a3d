//! The sensor and machine-metric tables, indexed by worker for drill-down.
//!
//! A plain `.csv` is indexed once (per instance, the byte offset of its
//! worker's row; every row checked on the way), then each lookup is a seek
//! and one line. A `.tar.gz`
//! cannot be sought in, so its lookups stream the archive for the wanted
//! workers (seconds at released scale; gunzip the two tables for instant
//! drill-down).

use super::row_offsets::RowOffsets;
use super::tables::{MACHINE_METRIC, SENSOR};
use super::workers::{short, Workers};
use super::{read_table, PaiTables};
use crate::archive::Source;
use crate::fields::Row;
use crate::input::{InputError, RowPolicy, Skips};
use crate::lines::{Lines, Record};
use crate::text::sanitize;
use crate::texts::key;
use rustc_hash::{FxHashMap, FxHashSet};

use std::io::{BufReader, Seek, SeekFrom};
use std::path::PathBuf;

/// One of the two side tables: its columns, where the worker is, and how
/// many leading columns are text (the rest are numbers).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Table {
    /// The table's released name (`pai_sensor_table`).
    pub name: &'static str,
    /// Its columns, in file order.
    pub columns: &'static [&'static str],
    /// Which column holds `worker_name`, the key rows are found by.
    pub worker: usize,
    /// How many leading columns are text; the rest are numbers (times among
    /// them).
    pub text_columns: usize,
}

/// `pai_sensor_table`: per worker, its measured CPU, GPU, memory and I/O use.
pub(crate) const SENSOR_T: Table = Table {
    name: SENSOR.0,
    columns: SENSOR.1,
    worker: 2,
    text_columns: 6,
};
/// `pai_machine_metric`: per worker, its machine's load while it ran.
pub(crate) const METRIC_T: Table = Table {
    name: MACHINE_METRIC.0,
    columns: MACHINE_METRIC.1,
    worker: 0,
    text_columns: 2,
};

/// How one side table's rows are found.
#[derive(Debug)]
pub enum Index {
    /// Not in the directory.
    Absent,
    /// Per instance: the byte offset of its worker's first row (`NO_ROW`
    /// when none). Found by a 64-bit key: a collision is caught at lookup,
    /// where the row's own worker name is compared.
    Offsets {
        /// The plain `.csv` file.
        path: PathBuf,
        /// Per instance, the byte offset of its worker's first row.
        at: RowOffsets,
    },
    /// An archive: looked up by streaming it.
    Streamed(Source),
}

/// A job's workers to look up: (join key of the name, an instance on it).
pub(crate) type WorkerRows = [(u128, u32)];

/// The sensor and machine-metric tables, indexed for drill-down (built once, in
/// the background).
#[derive(Debug)]
pub struct SideIndex {
    /// How `pai_sensor_table` rows are found.
    pub sensor: Index,
    /// How `pai_machine_metric` rows are found.
    pub metric: Index,
    /// Rows skipped in each (sensor, then machine metric).
    pub skips: Vec<Skips>,
    /// Per job-table row: the mean `gpu_wrk_util` of its instances' sensor
    /// rows (NaN where none), for colouring the grid by utilisation.
    pub job_util: Option<Vec<f32>>,
}

/// Sums of `gpu_wrk_util` per job row, while the sensor table is read.
struct UtilSums(Vec<(f32, u32)>);

impl UtilSums {
    fn add(&mut self, job: u32, row: &Row<Record>) {
        if let Ok(Some(u)) = row.opt_float(7, "gpu_wrk_util") {
            let e = &mut self.0[job as usize];
            e.0 += u as f32;
            e.1 += 1;
        }
    }

    fn means(self) -> Vec<f32> {
        self.0
            .into_iter()
            .map(|(s, n)| if n == 0 { f32::NAN } else { s / n as f32 })
            .collect()
    }
}

/// Checks a row; its worker's key and first instance.
fn check_row(row: &Row<Record>, t: Table, known: &Workers) -> Result<(u128, u32), InputError> {
    row.expect_width(t.columns.len())?;
    for (i, c) in t.columns.iter().enumerate().skip(t.text_columns) {
        if *c != "start_time" && *c != "end_time" {
            row.opt_num(i, c, f64::MIN)?;
        } else {
            row.opt_time(i, c)?;
        }
    }
    let w = row.bytes(t.worker, "worker_name")?;
    let k = key(w);
    match known.find(short(k)) {
        Some(inst) => Ok((k, inst)),
        None => Err(row.error(
            "worker_name",
            format!(
                "'{}' is not in pai_instance_table",
                sanitize(&String::from_utf8_lossy(w))
            ),
        )),
    }
}

fn index_csv(
    path: PathBuf,
    t: Table,
    pai: &PaiTables,
    known: &Workers,
    strict: bool,
    mut util: Option<&mut UtilSums>,
) -> Result<(Index, Skips), InputError> {
    let file = path.display().to_string();
    let f = crate::reader::open_file(&path)?;
    let file_len = f.metadata().map_or(u64::MAX, |m| m.len());
    let mut lines =
        Lines::new(BufReader::with_capacity(1 << 20, f), file.clone()).skipping_header(t.columns);
    let mut policy = RowPolicy::new(&file, strict);
    let mut rec = Record::default();
    let mut at = RowOffsets::new(pai.instances.len(), file_len);
    // Progress for the replay's drill-down, counted every few thousand rows.
    let mut counted = 0u64;
    while lines.next(&mut rec)? {
        if rec.line % 4096 == 0 {
            pai.side_scanned(rec.offset.saturating_sub(counted));
            counted = rec.offset;
        }
        let row = Row {
            file: &file,
            line: rec.line,
            record: &rec,
        };
        match check_row(&row, t, known) {
            Ok((_, inst)) => {
                at.set_first(inst, rec.offset);
                if let Some(u) = util.as_deref_mut() {
                    u.add(pai.instances[inst as usize].job, &row);
                }
            }
            Err(e) => policy.bad_row(e)?,
        }
    }
    // Every instance of a worker finds its row, not only the first.
    for i in 0..pai.instances.len() as u32 {
        let first = known.first_of(i);
        if first != i {
            at.copy(i, first);
        }
    }
    Ok((Index::Offsets { path, at }, policy.skips))
}

/// Builds the index of both side tables (each on its own thread).
pub fn build(t: &PaiTables, strict: bool) -> Result<SideIndex, InputError> {
    let known = Workers::of(t);
    let one =
        |table: Table, mut util: Option<&mut UtilSums>| -> Result<(Index, Skips), InputError> {
            match t.source(table.name) {
                None => Ok((Index::Absent, Skips::default())),
                Some(Source::Csv(p)) => index_csv(p.clone(), table, t, &known, strict, util),
                Some(src @ (Source::TarGz(_) | Source::Parts(_))) => {
                    // Check every row now; keep nothing (lookups stream the archive).
                    let (_, skips) = read_table(src, table.name, strict, |row| {
                        let (_, inst) = check_row(row, table, &known)?;
                        if let Some(u) = util.as_deref_mut() {
                            u.add(t.instances[inst as usize].job, row);
                        }
                        Ok(())
                    })?;
                    Ok((Index::Streamed(src.clone()), skips))
                }
            }
        };
    let mut util = UtilSums(vec![(0.0, 0); t.jobs.len()]);
    let (metric, sensor) =
        crate::par::both(|| one(METRIC_T, None), || one(SENSOR_T, Some(&mut util)));
    let metric =
        metric.unwrap_or_else(|_| Err(InputError::file(METRIC_T.name, "indexing panicked")));
    drop(known);
    let (sensor, s1) = sensor?;
    let (metric, s2) = metric?;
    let job_util =
        matches!(sensor, Index::Offsets { .. } | Index::Streamed(_)).then(|| util.means());
    Ok(SideIndex {
        sensor,
        metric,
        skips: vec![s1, s2],
        job_util,
    })
}

fn fields_of(rec: &Record, t: Table) -> Vec<String> {
    (0..t.columns.len())
        .map(|i| String::from_utf8_lossy(rec.get(i)).into_owned())
        .collect()
}

impl Index {
    /// The rows of `workers` (by their full join keys).
    pub(crate) fn lookup(
        &self,
        t: Table,
        workers: &WorkerRows,
    ) -> Result<FxHashMap<u128, Vec<String>>, InputError> {
        let mut out = FxHashMap::default();
        match self {
            Index::Absent => {}
            Index::Offsets { path, at } => {
                let file = path.display().to_string();
                let mut f = std::fs::File::open(path)
                    .map_err(|e| InputError::io(&file, "cannot open", e))?;
                for &(w, inst) in workers {
                    let Some(off) = at.get(inst) else {
                        continue;
                    };
                    f.seek(SeekFrom::Start(off))
                        .map_err(|e| InputError::io(&file, "cannot seek", e))?;
                    let mut lines =
                        Lines::new(BufReader::with_capacity(4096, &mut f), file.clone());
                    let mut rec = Record::default();
                    if lines.next(&mut rec)? && key(rec.get(t.worker)) == w {
                        out.insert(w, fields_of(&rec, t));
                    }
                }
            }
            Index::Streamed(src) => {
                let workers: FxHashSet<u128> = workers.iter().map(|w| w.0).collect();
                read_table(src, t.name, false, |row| {
                    let k = key(row.record.get(t.worker));
                    if workers.contains(&k)
                        && !out.contains_key(&k)
                        && row.record.len() == t.columns.len()
                    {
                        out.insert(k, fields_of(row.record, t));
                    }
                    Ok(())
                })?;
            }
        }
        Ok(out)
    }
}
