//! Results as data: `sim --jobs-out FILE` (one row per job) and
//! `--timeline-out FILE` (one row per tick), CSV or, for a `.jsonl` name,
//! JSON Lines — for pandas, polars and DuckDB. Written atomically.

use crate::outfile::write_atomic;
use crate::sim::{Engine, Phase, Switch};
use crate::trace::Secs;
use color_eyre::eyre::{bail, eyre, Result};
use serde::Serialize;
use std::io::Write;
use std::ops::ControlFlow;
use std::path::Path;

/// An amount written as a whole number where it is one (`1`, not `1.0`).
#[derive(Serialize)]
#[serde(untagged)]
enum Amount {
    Whole(u64),
    Part(f64),
}

impl Amount {
    fn of(x: f64) -> Amount {
        if x.fract() == 0.0 && (0.0..9e15).contains(&x) {
            Amount::Whole(x as u64)
        } else {
            Amount::Part(x)
        }
    }
}

/// One job's life in the run.
#[derive(Serialize)]
struct JobRow<'a> {
    /// Index in the trace (trace order).
    job: u32,
    id: &'a str,
    /// The run's policy (its label), so files of several runs concatenate.
    policy: &'a str,
    user: Option<&'a str>,
    group: Option<&'a str>,
    gpus: Amount,
    /// `done`, `rejected` (larger than the cluster), `dropped` (declined
    /// by the policy), or where it was when the run stopped.
    state: &'static str,
    submit_s: Secs,
    /// First start, end (trace seconds); empty where it never started or ended.
    start_s: Option<Secs>,
    end_s: Option<Secs>,
    /// first start − submit; finish − submit.
    wait_s: Option<Secs>,
    jct_s: Option<Secs>,
    preemptions: u32,
    machines: Option<u16>,
    /// The GPU types of the machines it ran on (`A100`, `A100+T4`), and
    /// the machines' names (`n0000;n0001`), every run's.
    gpu_types: String,
    machine_names: String,
    /// The run time the job needs (the trace's, or from the throughput
    /// tables on the GPUs it asks for), and the GPU-seconds it
    /// held (every run, restarts included): their sum over the jobs is
    /// the busy time `gpu_util` divides.
    runtime_s: Option<Secs>,
    gpu_seconds: Amount,
    /// Its deadline (trace seconds), and whether it finished by it (a job
    /// that never finished missed it).
    deadline_s: Option<Secs>,
    met: Option<bool>,
    /// With an energy model.
    energy_j: Option<f64>,
}

fn job_row<'a>(e: &'a Engine, policy: &'a str, job: u32) -> JobRow<'a> {
    let t = e.trace();
    let j = &t.jobs[job as usize];
    let st = e.job_state(job);
    let started = matches!(st.phase, Phase::Running | Phase::Done);
    let done = st.phase == Phase::Done;
    JobRow {
        job,
        id: &j.id,
        policy,
        user: j.user.map(|s| t.symbols.get(s)),
        group: j.group.map(|s| t.symbols.get(s)),
        gpus: Amount::of(j.gpus_display()),
        state: match st.phase {
            Phase::Done => "done",
            Phase::Rejected => "rejected",
            Phase::Dropped => "dropped",
            Phase::Running => "running",
            Phase::Queued => "queued",
            Phase::Future => "future",
        },
        submit_s: j.submit,
        start_s: started.then_some(st.start),
        end_s: done.then_some(st.end),
        wait_s: started.then_some(st.start - j.submit),
        jct_s: done.then_some(st.end - j.submit),
        preemptions: e.preemptions_of(job),
        machines: started.then_some(st.machines),
        gpu_types: ran_on(e, job).0,
        machine_names: ran_on(e, job).1,
        runtime_s: e.speed_runtime(job).or(j.runtime.get()),
        gpu_seconds: Amount::of(e.held_gpu_seconds(job).unwrap_or(0.0)),
        deadline_s: j.deadline.get(),
        met: j.deadline.get().map(|d| done && st.end <= d),
        energy_j: e.job_power(job).map(|p| p.joules),
    }
}

/// The GPU types (`A100+T4`) and names (`n0000;n0001`) of the machines
/// `job` ran on; empty where it never started.
fn ran_on(e: &Engine, job: u32) -> (String, String) {
    let Some(machines) = e.machines_of(job) else {
        return Default::default();
    };
    let c = &e.trace().cluster;
    let mut types: Vec<&str> = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    for m in machines.iter().filter_map(|&m| c.machines.get(m as usize)) {
        let ty = c.gpu_types[m.gpu_type as usize].as_str();
        if !types.contains(&ty) {
            types.push(ty);
        }
        names.push(&m.name);
    }
    (types.join("+"), names.join(";"))
}

/// The cluster at one tick.
pub(super) struct TimelineRow {
    pub(super) time_s: Secs,
    local: String,
    pub(super) util: f64,
    gpus_busy: f64,
    queue: u64,
    running: u64,
    done: u64,
    power_w: Option<f64>,
}

/// A timeline row as written: the run's policy, so the rows of several
/// runs (a comparison's) share a file.
#[derive(Serialize)]
struct TimelineOut<'a> {
    /// The run's policy (its label).
    policy: &'a str,
    time_s: Secs,
    /// The trace's clock (its zone), as the replay shows it.
    local: &'a str,
    /// Allocated GPUs / all GPUs.
    util: f64,
    gpus_busy: f64,
    queue: u64,
    running: u64,
    done: u64,
    power_w: Option<f64>,
}

impl TimelineRow {
    fn out<'a>(&'a self, policy: &'a str) -> TimelineOut<'a> {
        TimelineOut {
            policy,
            time_s: self.time_s,
            local: &self.local,
            util: self.util,
            gpus_busy: self.gpus_busy,
            queue: self.queue,
            running: self.running,
            done: self.done,
            power_w: self.power_w,
        }
    }
}

/// The cluster at `t`; `first` is the trace's first submission (its
/// local clock's day 1).
fn timeline_row(e: &Engine, first: Secs, t: Secs) -> TimelineRow {
    let trace = e.trace();
    let total = trace.cluster.total_gpus() as f64;
    let busy = e.cluster().allocated_milli() as f64 / 1000.0;
    TimelineRow {
        time_s: t,
        local: crate::trace::clock(trace.zone, first, t),
        util: if total > 0.0 { busy / total } else { 0.0 },
        gpus_busy: busy,
        queue: e.queue_len() as u64,
        running: e.running().len() as u64,
        done: e.jobs_done(),
        power_w: e.watts(),
    }
}

/// Runs `e` to the end, applying `switches` at their times and, with a
/// tick, sampling the timeline at every tick from the first submission.
pub(super) fn run_sampled(
    e: &mut Engine,
    switches: Vec<(Secs, Switch)>,
    tick: Option<Secs>,
) -> Result<Vec<TimelineRow>> {
    let mut rows = Vec::new();
    let trace = e.trace();
    let day_one = trace.first_submit().unwrap_or(0);
    if let Some(k) = tick {
        // The rows to the last submission at least: refused before the run.
        let least = (trace.last_submit().unwrap_or(day_one) - day_one) / k + 1;
        if least > MAX_TIMELINE_ROWS as i64 {
            bail!(
                "the timeline would have at least {least} rows (past {MAX_TIMELINE_ROWS}): choose a larger --timeline-tick"
            );
        }
    }
    let first = tick.map(|_| day_one);
    let flow =
        crate::sim::drive_schedule(e, &switches, first, &crate::driver::Driver, |e, reached| {
            let Some(s) = reached else {
                return ControlFlow::Continue(None);
            };
            if rows.len() >= MAX_TIMELINE_ROWS {
                return ControlFlow::Break(eyre!(
                "the timeline would pass {MAX_TIMELINE_ROWS} rows: choose a larger --timeline-tick"
            ));
            }
            rows.push(timeline_row(e, day_one, s));
            ControlFlow::Continue(tick.map(|k| s + k))
        });
    if let ControlFlow::Break(err) = flow {
        return Err(err);
    }
    if e.halted() {
        return Ok(rows);
    }
    if tick.is_some() {
        let end = e.now();
        if rows.last().is_none_or(|r| r.time_s < end) {
            rows.push(timeline_row(e, day_one, end));
        }
    }
    Ok(rows)
}

/// Rows a timeline may have (a year at one minute is 527,040).
const MAX_TIMELINE_ROWS: usize = 5_000_000;

fn json_lines(path: &Path) -> bool {
    path.extension()
        .is_some_and(|x| x.eq_ignore_ascii_case("jsonl"))
}

/// A CSV writer's error as the I/O error it is (a closed pipe stays a
/// closed pipe), or wrapped when it is about the data.
fn csv_io(e: csv::Error) -> std::io::Error {
    if !matches!(e.kind(), csv::ErrorKind::Io(_)) {
        return std::io::Error::other(e);
    }
    match e.into_kind() {
        csv::ErrorKind::Io(io) => io,
        _ => unreachable!("checked to be an I/O error"),
    }
}

/// `rows` as the file `path` names has them: CSV with its header, or
/// JSON Lines for a `.jsonl` name.
fn rows_into<T: Serialize>(
    path: &Path,
    w: &mut dyn Write,
    rows: impl Iterator<Item = T>,
) -> std::io::Result<()> {
    if json_lines(path) {
        for r in rows {
            serde_json::to_writer(&mut *w, &r)?;
            w.write_all(b"\n")?;
        }
        Ok(())
    } else {
        let mut c = csv::Writer::from_writer(w);
        for r in rows {
            c.serialize(r).map_err(csv_io)?;
        }
        c.flush()
    }
}

fn write_rows<T: Serialize>(path: &Path, rows: impl Iterator<Item = T>) -> Result<()> {
    let shown = crate::text::sanitize(&path.display().to_string());
    write_atomic(path, |w| rows_into(path, w, rows)).map_err(|e| eyre!("{shown}: {e}"))
}

fn job_rows<'a>(e: &'a Engine, policy: &'a str) -> impl Iterator<Item = JobRow<'a>> {
    (0..e.trace().jobs.len() as u32).map(move |j| job_row(e, policy, j))
}

/// Every job of the run, in trace order.
pub(super) fn write_jobs(path: &Path, e: &Engine, policy: &str) -> Result<()> {
    write_rows(path, job_rows(e, policy))
}

/// Every job of the run as `write_jobs` writes them, kept (a
/// comparison's row, written with the others by `write_chunks`).
pub(super) fn jobs_bytes(path: &Path, e: &Engine, policy: &str) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    rows_into(path, &mut out, job_rows(e, policy))?;
    Ok(out)
}

/// Several runs' rows as one file: a CSV's header once (the first run's;
/// every run's is the same).
pub(super) fn write_chunks(path: &Path, chunks: &[&[u8]]) -> Result<()> {
    let shown = crate::text::sanitize(&path.display().to_string());
    let jsonl = json_lines(path);
    write_atomic(path, |w| {
        let mut header = false;
        for c in chunks.iter().filter(|c| !c.is_empty()) {
            let body = if jsonl || !header {
                &c[..]
            } else {
                // The header is the first line: its names hold no line break.
                let at = c
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(c.len(), |i| i + 1);
                &c[at..]
            };
            header = true;
            w.write_all(body)?;
        }
        Ok(())
    })
    .map_err(|e| eyre!("{shown}: {e}"))
}

/// One run's timeline as `write_timeline` writes it, kept (a comparison's
/// row, written with the others by `write_chunks`).
pub(super) fn timeline_bytes(path: &Path, policy: &str, rows: &[TimelineRow]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    rows_into(path, &mut out, rows.iter().map(|r| r.out(policy)))?;
    Ok(out)
}

/// The timelines of one or more runs, each row with its run's policy.
pub(super) fn write_timeline(path: &Path, runs: &[(&str, &[TimelineRow])]) -> Result<()> {
    write_rows(
        path,
        runs.iter()
            .flat_map(|&(policy, rows)| rows.iter().map(move |r| r.out(policy))),
    )
}
