//! The PAI tables behind `NativeTables`: the joined drill-down, the sensor
//! and machine-metric index built in the background, and its timings.

use super::detail::{detail_with, job_texts, side_rows, workers_in, SideRows};
use super::tables::{InstanceRow, NONE_TIME};
use super::PaiTables;
use crate::input::{Damaged, InputError};
use crate::model::{Job, Secs, Trace};
use crate::native::{BenchProbe, Indexing, MachineSample, NativeTables};
use serde_json::Value;
use std::any::Any;
use std::collections::BTreeMap;
use std::time::Instant;

impl NativeTables for PaiTables {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn job_detail(&self, trace: &Trace, job: &Job, side: bool) -> Value {
        let row = job.native_row;
        // The instances' names, read once for the workers and the rows.
        let texts = match job_texts(self, row) {
            Ok(t) => t,
            Err(e) => {
                return serde_json::json!({ "note": format!("the job's rows cannot be shown: {e}") })
            }
        };
        let (rows, damaged) = if side || self.side_ready() {
            match side_rows(self, &workers_in(self, row, &texts)) {
                Ok(rows) => (rows, None),
                Err(e) => (SideRows::default(), Some(e)),
            }
        } else {
            (SideRows::default(), None)
        };
        let mut v = detail_with(self, &trace.symbols, row, &rows, &texts);
        if let Some(e) = damaged {
            v["note"] = Value::from(format!(
                "sensor and machine-metric rows: none shown, the table is damaged: {e}"
            ));
        }
        if !side && !self.side_ready() {
            v["note"] = Value::from(
                "sensor and machine-metric rows: still being indexed in the background",
            );
        }
        v
    }

    fn job_by_id(
        &self,
        trace: &Trace,
        id: &str,
    ) -> Result<Option<(Value, Vec<String>)>, InputError> {
        let Some(row) = self.job_by_name(id) else {
            return Ok(None);
        };
        let texts = job_texts(self, row)?;
        let side = side_rows(self, &workers_in(self, row, &texts))?;
        let mut warnings = Vec::new();
        for s in side.skips.iter().filter(|s| s.count > 0) {
            warnings.push(format!("{}: skipped {} bad rows", s.file, s.count));
            warnings.extend(s.first.iter().map(|r| format!("  {r}")));
        }
        Ok(Some((
            detail_with(self, &trace.symbols, row, &side, &texts),
            warnings,
        )))
    }

    fn status_counts(&self, trace: &Trace) -> Option<BTreeMap<String, u64>> {
        let mut by_status = BTreeMap::new();
        for r in &self.jobs {
            let s = r
                .status
                .map_or("(empty)".to_string(), |s| trace.symbols.get(s).to_string());
            *by_status.entry(s).or_insert(0) += 1;
        }
        Some(by_status)
    }

    /// The bytes in use, by table (lengths, not spare capacity).
    fn held_bytes(&self) -> Vec<(&'static str, usize)> {
        fn of<T>(v: &[T]) -> usize {
            std::mem::size_of_val(v)
        }
        let keys = of(&self.job_keys) + self.job_index.held_bytes();
        vec![
            ("job rows", of(&self.jobs) + keys + of(&self.job_tag)),
            ("job texts", self.texts.bytes_used()),
            (
                "task rows",
                of(&self.tasks) + of(&self.task_order) + of(&self.tasks_of),
            ),
            ("instance rows", of(&self.instances)),
            ("instance order", of(&self.inst_order) + of(&self.insts_of)),
            ("instance texts", self.inst_texts.bytes_used()),
            ("group tags", of(&self.group_tags)),
        ]
    }

    fn background_index(&self) -> Option<&'static str> {
        Some("side index")
    }

    /// The side index; the mean sensor GPU utilisation per job-table row.
    fn build_indexes(&self) -> Result<Option<Vec<f32>>, Damaged> {
        match self.side_index() {
            Ok(idx) => Ok(idx.job_util.clone()),
            Err(e) => Err(Damaged(vec![e.clone()])),
        }
    }

    /// What the sensor and machine-metric tables measured on `machine` at
    /// `t`: over the instances placed there then (by the instance table),
    /// their sensors' mean GPU utilisation, and the machine-metric row of
    /// the one that started last.
    fn machine_samples(
        &self,
        machine: u32,
        t: Secs,
        _max_age: Secs,
    ) -> Vec<(&'static str, MachineSample)> {
        if !self.side_ready() {
            let p = self.side_progress().unwrap_or(0.0);
            return vec![
                ("sensor", MachineSample::Indexing(p)),
                ("machine_metric", MachineSample::Indexing(p)),
            ];
        }
        let Ok(here) = instances_on(self, machine, t) else {
            return Vec::new();
        };
        if here.is_empty() {
            return vec![
                ("sensor", MachineSample::Missing),
                ("machine_metric", MachineSample::Missing),
            ];
        }
        let workers: Vec<(u128, u32)> = here.iter().map(|&(_, w, i)| (w, i)).collect();
        let Ok(rows) = side_rows(self, &workers) else {
            return Vec::new();
        };
        let sensor = sensor_sample(&rows, &workers, here.len(), t);
        let metric = metric_sample(&rows, &here);
        vec![("sensor", sensor), ("machine_metric", metric)]
    }

    fn indexing(&self) -> Option<Indexing> {
        (!self.side_ready()).then(|| Indexing {
            what: "sensor and metric tables",
            progress: self.side_progress(),
        })
    }

    /// The side index, then drill-downs into jobs spread over the table.
    fn bench(&self, trace: &Trace, probe: &mut BenchProbe) -> Result<(), InputError> {
        let s = Instant::now();
        if let Err(e) = self.side_index() {
            (probe.out)(format!("side index     failed: {e}"));
        }
        (probe.out)(format!(
            "side index     {:.2} s (sensor + machine metric); peak RSS {}",
            s.elapsed().as_secs_f64(),
            (probe.rss)()
        ));
        let n = self.jobs.len();
        let step = (n / probe.samples.max(1)).max(1);
        let mut times: Vec<f64> = Vec::new();
        for row in (0..n).step_by(step).take(probe.samples) {
            let s = Instant::now();
            let texts = job_texts(self, row as u32)?;
            let side = side_rows(self, &workers_in(self, row as u32, &texts))?;
            let v = detail_with(self, &trace.symbols, row as u32, &side, &texts);
            std::hint::black_box(v);
            times.push(s.elapsed().as_secs_f64() * 1000.0);
        }
        probe.timings("drill-down", "jobs", times);
        Ok(())
    }
}

/// The instances on `machine` at `t`, by start: (start, worker key, row)
/// (an error when the instance table, read again for the workers' names,
/// changed since the load).
fn instances_on(
    tables: &PaiTables,
    machine: u32,
    t: Secs,
) -> Result<Vec<(Secs, u128, u32)>, InputError> {
    let open = |r: &InstanceRow| {
        r.machine == machine
            && r.start_time != NONE_TIME
            && r.start_time <= t
            && (r.end_time == NONE_TIME || r.end_time > t)
    };
    let insts: Vec<u32> = (0..tables.instances.len() as u32)
        .filter(|&i| open(&tables.instances[i as usize]))
        .collect();
    let texts = tables.inst_texts(&insts)?;
    let mut here: Vec<(Secs, u128, u32)> = insts
        .iter()
        .zip(&texts)
        .map(|(&i, x)| (tables.instances[i as usize].start_time, x.worker_key(), i))
        .collect();
    here.sort_unstable();
    Ok(here)
}

/// Field `i` of a side-table row as a number, if it is one.
fn num(f: &[String], i: usize) -> Option<f32> {
    f.get(i).and_then(|x| x.parse::<f32>().ok())
}

/// The sensor sample at `t`: the mean gpu_wrk_util of the instances' `workers`.
fn sensor_sample(
    rows: &SideRows,
    workers: &[(u128, u32)],
    instances: usize,
    t: Secs,
) -> MachineSample {
    // Sensor: gpu_wrk_util (column 7) of each instance's row, averaged.
    let utils: Vec<f32> = workers
        .iter()
        .filter_map(|(w, _)| rows.sensor.get(w).and_then(|f| num(f, 7)))
        .filter(|u| u.is_finite())
        .collect();
    match utils.len() {
        0 => MachineSample::Missing,
        n => MachineSample::At {
            when: t,
            values: vec![
                ("instances".into(), Some(instances as f32)),
                ("with_sensor_rows".into(), Some(n as f32)),
                (
                    "gpu_wrk_util_mean".into(),
                    Some(utils.iter().sum::<f32>() / n as f32),
                ),
            ],
        },
    }
}

/// The machine-metric sample: the row of the latest instance in `here` with one.
fn metric_sample(rows: &SideRows, here: &[(Secs, u128, u32)]) -> MachineSample {
    // Machine metric: the latest instance's row, its numeric columns.
    let latest = here
        .iter()
        .rev()
        .find_map(|&(start, w, _)| rows.metric.get(&w).map(|f| (start, f)));
    match latest {
        None => MachineSample::Missing,
        Some((start, f)) => MachineSample::At {
            when: start,
            values: super::tables::MACHINE_METRIC
                .1
                .iter()
                .enumerate()
                .skip(4)
                .map(|(i, c)| (c.to_string(), num(f, i)))
                .collect(),
        },
    }
}
