//! Everything the PAI release knows about one job, joined: job → tasks →
//! instances (each with its sensor row, machine spec and machine-metric row)
//! → group tag. Field names exactly as the released headers; every time
//! field `X` also as `X_local` in Asia/Shanghai.

use super::side::{WorkerRows, METRIC_T, SENSOR_T};
use super::tables::{opt_idx, opt_time, InstanceRow, JobRow, MACHINE_METRIC, SENSOR};
use super::{InstText, PaiTables};
use crate::clock::{clock, PAI_ZONE};
use crate::input::{InputError, Skips};
use crate::model::{Secs, Sym, Symbols};
use rustc_hash::FxHashMap;

use serde_json::{json, Map, Value};

/// Sensor and machine-metric rows of some workers, as released text.
#[derive(Debug, Default)]
pub struct SideRows {
    /// Sensor rows by the join key of their `worker_name`, each as its released
    /// fields.
    pub sensor: FxHashMap<u128, Vec<String>>,
    /// Machine-metric rows by the join key of their `worker_name`, each as its
    /// released fields.
    pub metric: FxHashMap<u128, Vec<String>>,
    /// Rows skipped while the two tables were indexed (sensor, then machine
    /// metric).
    pub skips: Vec<Skips>,
}

/// `X` as released and `X_local`: `Mon 00:07:59 day 3` in Asia/Shanghai,
/// days counted from the trace's first submission at `first`.
fn put_time(m: &mut Map<String, Value>, name: &str, t: Option<Secs>, first: Secs) {
    m.insert(name.into(), t.map_or(Value::Null, |x| json!(x)));
    m.insert(
        format!("{name}_local"),
        t.map_or(Value::Null, |x| json!(clock(PAI_ZONE, first, x))),
    );
}

fn put_sym(m: &mut Map<String, Value>, name: &str, symbols: &Symbols, s: Option<Sym>) {
    m.insert(
        name.into(),
        s.map_or(Value::Null, |s| json!(symbols.get(s))),
    );
}

fn put_text(m: &mut Map<String, Value>, name: &str, s: String) {
    m.insert(
        name.into(),
        if s.is_empty() { Value::Null } else { json!(s) },
    );
}

fn put_num(m: &mut Map<String, Value>, name: &str, v: Option<f64>) {
    m.insert(name.into(), v.map_or(Value::Null, |x| json!(x)));
}

/// A released side row as JSON: numbers as numbers, times also local.
fn side_json(columns: &[&str], fields: &[String], text_columns: usize, first: Secs) -> Value {
    let mut m = Map::new();
    for (i, c) in columns.iter().enumerate() {
        let f = fields.get(i).map(String::as_str).unwrap_or("");
        if *c == "start_time" || *c == "end_time" {
            put_time(
                &mut m,
                c,
                f.parse::<f64>().ok().map(|x| x.round() as Secs),
                first,
            );
        } else if i >= text_columns {
            put_num(&mut m, c, f.parse::<f64>().ok().filter(|x| x.is_finite()));
        } else {
            put_text(&mut m, c, f.to_string());
        }
    }
    Value::Object(m)
}

fn job_json(t: &PaiTables, symbols: &Symbols, r: &JobRow, first: Secs) -> Value {
    let mut m = Map::new();
    put_text(&mut m, "job_name", t.texts.get(r.job_name));
    put_text(&mut m, "inst_id", t.texts.get(r.inst_id));
    put_sym(&mut m, "user", symbols, r.user);
    put_sym(&mut m, "status", symbols, r.status);
    put_time(&mut m, "start_time", Some(r.start_time), first);
    put_time(&mut m, "end_time", r.end_time, first);
    Value::Object(m)
}

/// The task rows of job-table row `job`, as released.
fn tasks_json(
    t: &PaiTables,
    symbols: &Symbols,
    job: u32,
    job_name: &str,
    first: Secs,
) -> Vec<Value> {
    t.tasks_of(job)
        .map(|task| {
            let mut m = Map::new();
            put_text(&mut m, "job_name", job_name.to_string());
            put_sym(&mut m, "task_name", symbols, task.task_name);
            put_num(&mut m, "inst_num", Some(task.inst_num));
            put_sym(&mut m, "status", symbols, task.status);
            put_time(&mut m, "start_time", task.start_time, first);
            put_time(&mut m, "end_time", task.end_time, first);
            put_num(&mut m, "plan_cpu", task.plan_cpu);
            put_num(&mut m, "plan_mem", task.plan_mem);
            put_num(&mut m, "plan_gpu", task.plan_gpu);
            put_sym(&mut m, "gpu_type", symbols, task.gpu_type);
            Value::Object(m)
        })
        .collect()
}

/// The name of machine `i`: the spec's, then those only the instances name.
fn machine_name(t: &PaiTables, i: u32) -> String {
    let n = t.spec.len() as u32;
    if i < n {
        t.spec[i as usize].machine.clone()
    } else {
        t.unknown_machines
            .get((i - n) as usize)
            .cloned()
            .unwrap_or_default()
    }
}

/// One instance row of job row `r`, with its sensor row, machine spec and
/// machine-metric row.
fn instance_json(
    t: &PaiTables,
    r: &JobRow,
    (inst, text): (&InstanceRow, InstText),
    job_name: &str,
    side: &SideRows,
    first: Secs,
) -> Value {
    let isym = |s: u32| {
        opt_idx(s)
            .map(|s| t.inst_symbols.get(Sym::new(s)).to_string())
            .unwrap_or_default()
    };
    let mut m = Map::new();
    let wk = text.worker_key();
    put_text(&mut m, "job_name", job_name.to_string());
    put_text(&mut m, "task_name", isym(inst.task_name));
    put_text(&mut m, "inst_name", text.inst_name);
    put_text(&mut m, "worker_name", text.worker_name);
    let inst_id = if text.inst_id.is_empty() {
        t.texts.get(r.inst_id)
    } else {
        text.inst_id
    };
    put_text(&mut m, "inst_id", inst_id);
    put_text(&mut m, "status", isym(inst.status));
    put_time(&mut m, "start_time", opt_time(inst.start_time), first);
    put_time(&mut m, "end_time", opt_time(inst.end_time), first);
    put_text(
        &mut m,
        "machine",
        opt_idx(inst.machine)
            .map(|i| machine_name(t, i))
            .unwrap_or_default(),
    );
    m.insert(
        "sensor".into(),
        side.sensor
            .get(&wk)
            .map_or(Value::Null, |f| side_json(SENSOR.1, f, 6, first)),
    );
    let spec = opt_idx(inst.machine).and_then(|i| t.spec.get(i as usize));
    m.insert(
        "machine_spec".into(),
        spec.map_or(Value::Null, |s| {
            json!({"machine": s.machine, "gpu_type": s.gpu_type, "cap_cpu": s.cap_cpu,
                   "cap_mem": s.cap_mem, "cap_gpu": s.cap_gpu})
        }),
    );
    m.insert(
        "machine_metric".into(),
        side.metric
            .get(&wk)
            .map_or(Value::Null, |f| side_json(MACHINE_METRIC.1, f, 2, first)),
    );
    Value::Object(m)
}

/// The joined drill-down of job-table row `job`, in the shape
/// `{"job", "tasks", "instances", "group_tag", "wait_s", "runtime_s"}`;
/// an error when the instance table, read again for its names, changed
/// since the load.
pub fn job_detail(
    t: &PaiTables,
    symbols: &Symbols,
    job: u32,
    side: &SideRows,
) -> Result<Value, InputError> {
    Ok(detail_with(t, symbols, job, side, &job_texts(t, job)?))
}

/// The names of job `job`'s instances, in `instances_of` order: read once
/// for a drill-down, its workers (`workers_in`) and its rows both.
pub(crate) fn job_texts(t: &PaiTables, job: u32) -> Result<Vec<InstText>, InputError> {
    let insts: Vec<u32> = t.instances_of_indexed(job).map(|(i, _)| i).collect();
    t.inst_texts(&insts)
}

/// `job_detail` with its instances' names (`job_texts`) read already.
pub(crate) fn detail_with(
    t: &PaiTables,
    symbols: &Symbols,
    job: u32,
    side: &SideRows,
    texts: &[InstText],
) -> Value {
    let r = &t.jobs[job as usize];
    let day1 = t.jobs.iter().map(|r| r.start_time).min().unwrap_or(0);
    let job_name = t.texts.get(r.job_name);
    let tasks = tasks_json(t, symbols, job, &job_name, day1);
    let instances: Vec<Value> = t
        .instances_of(job)
        .zip(texts.iter().cloned())
        .map(|inst| instance_json(t, r, inst, &job_name, side, day1))
        .collect();
    let group_tag = t.group_tag_of(job).map_or(Value::Null, |g| {
        let mut m = Map::new();
        put_text(&mut m, "inst_id", t.texts.get(r.inst_id));
        put_sym(&mut m, "user", symbols, g.user);
        put_sym(&mut m, "gpu_type_spec", symbols, g.gpu_type_spec);
        put_text(&mut m, "group", t.texts.get(g.group));
        put_sym(&mut m, "workload", symbols, g.workload);
        Value::Object(m)
    });
    let (first, last, open) = t.run_span(job);
    json!({
        "job": job_json(t, symbols, r, day1),
        "tasks": tasks,
        "instances": instances,
        "group_tag": group_tag,
        "wait_s": t.first_instance_start(job).map(|s| s - r.start_time),
        "runtime_s": match (first, last, open) { (Some(f), Some(l), false) => Some(l - f), _ => None },
    })
}

/// The sensor and machine-metric rows of `workers`, through the side index
/// (built on first use).
pub fn side_rows(t: &PaiTables, workers: &WorkerRows) -> Result<SideRows, InputError> {
    let idx = t.side_index().as_ref().map_err(Clone::clone)?;
    Ok(SideRows {
        sensor: idx.sensor.lookup(SENSOR_T, workers)?,
        metric: idx.metric.lookup(METRIC_T, workers)?,
        skips: idx.skips.clone(),
    })
}

/// The workers of job-table row `job`: the join key of each name, with an
/// instance on it, one per worker (an error when the instance table, read
/// again for the names, changed since the load).
pub fn workers_of(t: &PaiTables, job: u32) -> Result<Vec<(u128, u32)>, InputError> {
    Ok(workers_in(t, job, &job_texts(t, job)?))
}

/// The workers of job `job` from its instances' names (`job_texts`).
pub(crate) fn workers_in(t: &PaiTables, job: u32, texts: &[InstText]) -> Vec<(u128, u32)> {
    let mut v: Vec<(u128, u32)> = t
        .instances_of_indexed(job)
        .zip(texts)
        .map(|((i, _), x)| (x.worker_key(), i))
        .collect();
    v.sort_unstable();
    v.dedup_by_key(|w| w.0);
    v
}
