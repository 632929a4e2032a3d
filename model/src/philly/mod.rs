//! Microsoft Philly (msr-fiddle/philly-traces): `cluster_job_log` (one JSON
//! array, parsed streaming), `cluster_machine_list`, and the per-minute
//! utilisation files, indexed by time rather than loaded.

mod evidence;
pub(crate) mod joblog;
mod machines;
mod native;
mod source;
pub(crate) mod tarball;
pub(crate) mod util;

use super::clock;
use super::input::{InputError, LoadReport};
use super::model::{Cluster, Demand, Job, JobStatus, Secs, Segment, Symbols, Trace, Zone};
use super::LoadOptions;
use chrono::{NaiveDateTime, TimeZone};
use rustc_hash::FxHashMap;
use std::path::{Path, PathBuf};

/// `philly` on the command line.
pub(crate) const FORMAT: super::Format = super::Format::new(&super::FormatSpec {
    name: "philly",
    aliases: &[],
    help: "Microsoft Philly: a directory with cluster_job_log and cluster_machine_list, or trace-data.tar.gz",
    path_help: "The Philly directory (cluster_job_log, cluster_machine_list, utilisation files), or the release's trace-data.tar.gz, read in place",
    replay_about: "Replay a Microsoft Philly directory full screen",
    load,
    load_text: None,
    energy_beside: None,
    reads: |path| match source::archive_at(path) {
        Some(archive) => vec![archive],
        None => [JOB_LOG, MACHINES, GPU_UTIL, CPU_UTIL, MEM_UTIL]
            .map(|f| path.join(f))
            .to_vec(),
    },
    slot: "GPU",
});

/// Philly's clock: America/Los_Angeles, daylight time included.
pub(crate) const ZONE: Zone = Zone::Tz(chrono_tz::America::Los_Angeles);
/// The job log: one JSON array of jobs with their attempts.
pub const JOB_LOG: &str = "cluster_job_log";
/// The machine list: `machineId`, number of GPUs, single GPU memory.
pub const MACHINES: &str = "cluster_machine_list";
/// Per-minute GPU utilisation, one value per GPU of each machine.
pub const GPU_UTIL: &str = "cluster_gpu_util";
/// Per-minute CPU utilisation of each machine.
pub const CPU_UTIL: &str = "cluster_cpu_util";
/// Per-minute memory use of each machine.
pub const MEM_UTIL: &str = "cluster_mem_util";

/// One attempt: when, and which GPUs of which machines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    /// `start_time`, Unix seconds; `None` where the log has none (a logging
    /// error).
    pub start: Option<Secs>,
    /// `end_time`, Unix seconds; `None` while the last attempt runs, or where
    /// the log lost it.
    pub end: Option<Secs>,
    /// (machine index, GPU bit set)
    pub detail: Vec<(u32, u64)>,
}

/// A `cluster_job_log` entry, as logged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhillyJob {
    /// `jobid`: the application id.
    pub jobid: String,
    /// `status` as logged (`Pass`, `Killed`, `Failed`).
    pub status: String,
    /// `vc`: the virtual cluster it ran in (its group in the model).
    pub vc: String,
    /// `user`, as logged.
    pub user: String,
    /// `submitted_time`, Unix seconds.
    pub submitted: Secs,
    /// Its attempts in order: the first run, then each retry.
    pub attempts: Vec<Attempt>,
}

impl PhillyJob {
    /// (first attempt start, last attempt end) when both are known.
    pub(crate) fn span(&self) -> (Option<Secs>, Option<Secs>) {
        (
            self.attempts.first().and_then(|a| a.start),
            self.attempts.last().and_then(|a| a.end),
        )
    }
}

/// The released files as read, for drill-down and utilisation.
#[derive(Debug, Default)]
pub struct PhillyTables {
    /// The directory, or the release tarball, loaded.
    pub dir: PathBuf,
    /// The job log, every job in file order (those without GPUs too):
    /// `Job::native_row` indexes it.
    pub jobs: Vec<PhillyJob>,
    /// Row in `jobs` by `jobid`.
    pub by_id: FxHashMap<String, u32>,
    /// Machine names in `cluster_machine_list` order: `Attempt::detail`
    /// indexes them.
    pub machine_names: Vec<String>,
    /// `cluster_gpu_util`, indexed on first use; `None` when absent.
    pub gpu_util: Option<util::UtilFile>,
    /// `cluster_cpu_util`, indexed on first use; `None` when absent.
    pub cpu_util: Option<util::UtilFile>,
    /// `cluster_mem_util`, indexed on first use; `None` when absent.
    pub mem_util: Option<util::UtilFile>,
}

/// `2017-10-07 01:11:39` in America/Los_Angeles, as Unix seconds. The job
/// log writes local times without a zone, so in the hour that repeats when
/// daylight time ends (Nov 5 2017, 01:00–02:00) a time has two readings:
/// the first (daylight) one is taken unless it would fall before
/// `not_before` (the time the record says came earlier), in which case the
/// second (standard) one is. Elapsed times across the change stay real.
pub(crate) fn parse_local_after(s: &str, not_before: Option<Secs>) -> Option<Secs> {
    let ndt = NaiveDateTime::parse_from_str(s.trim(), "%Y-%m-%d %H:%M:%S").ok()?;
    match chrono_tz::America::Los_Angeles.from_local_datetime(&ndt) {
        chrono::LocalResult::Single(d) => Some(d.timestamp()),
        chrono::LocalResult::Ambiguous(a, b) => {
            let (a, b) = (a.timestamp(), b.timestamp());
            Some(if not_before.is_some_and(|n| a < n) {
                b
            } else {
                a
            })
        }
        chrono::LocalResult::None => None,
    }
}

/// `2017-10-07 01:11:39` in America/Los_Angeles as Unix seconds (in a repeated
/// hour, the daylight reading); `None` when not such a time.
pub fn parse_local(s: &str) -> Option<Secs> {
    parse_local_after(s, None)
}

/// The released text of a time (`2017-10-07 01:11:39`).
pub fn format_local(t: Secs) -> String {
    chrono::DateTime::from_timestamp(t, 0)
        .map(|d| {
            d.with_timezone(&chrono_tz::America::Los_Angeles)
                .format("%Y-%m-%d %H:%M:%S")
                .to_string()
        })
        .unwrap_or_default()
}

/// Loads a Philly directory, or the release tarball (see `source`).
pub fn load(path: &Path, opts: &LoadOptions) -> Result<(Trace, LoadReport), InputError> {
    let mut report = LoadReport::default();
    let began = std::time::Instant::now();
    let src = source::Source::open(path, opts.strict, &mut report)?;
    let shown = path.display().to_string();
    if let Some(why) = src.missing(MACHINES) {
        return Err(InputError::file(&shown, format!("{why} (the Philly layout: {JOB_LOG}, {MACHINES}, and optionally {GPU_UTIL}, {CPU_UTIL}, {MEM_UTIL}; or the release's {})", tarball::RELEASE)));
    }
    let ml = src.open_member(MACHINES)?;
    let cluster = machines::read(ml, src.shown(MACHINES), opts.strict, &mut report)?;
    let names: FxHashMap<&str, u32> = cluster
        .machines
        .iter()
        .enumerate()
        .map(|(i, m)| (m.name.as_str(), i as u32))
        .collect();
    if let Some(why) = src.missing(JOB_LOG) {
        return Err(InputError::file(&shown, why));
    }
    let log = src.open_member(JOB_LOG)?;
    let (jobs, skips, seen) = joblog::read(log, src.shown(JOB_LOG), &cluster, &names, opts.strict)?;
    report.skips.push(skips);
    let gpu_head = src.open_member(GPU_UTIL).ok();
    let util_seen = evidence::util_gpus(gpu_head, &names, cluster.machines.len());
    let mut cluster = cluster;
    evidence::correct(&mut cluster, &seen, &util_seen, &mut report);
    report.time("job log", began);
    let mut t = PhillyTables {
        dir: path.to_path_buf(),
        machine_names: cluster.machines.iter().map(|m| m.name.clone()).collect(),
        ..Default::default()
    };
    t.by_id = jobs
        .iter()
        .enumerate()
        .map(|(i, j)| (j.jobid.clone(), i as u32))
        .collect();
    t.jobs = jobs;
    t.gpu_util = src.util(GPU_UTIL, &t.machine_names, opts.strict);
    t.cpu_util = src.util(CPU_UTIL, &t.machine_names, opts.strict);
    t.mem_util = src.util(MEM_UTIL, &t.machine_names, opts.strict);
    report.note(format!("{}: {} jobs", src.shown(JOB_LOG), t.jobs.len()));
    let trace = build(t, cluster, opts, &mut report)?;
    report.time("model built", began);
    Ok((trace, report))
}

/// Jobs and attempts the replay leaves out or cannot end, for the report.
#[derive(Default)]
struct Tally {
    no_attempts: u64,
    no_start: u64,
    open: u64,
    no_gpus: u64,
}

impl Tally {
    fn notes(&self, report: &mut LoadReport) {
        let Tally {
            no_attempts,
            no_start,
            open,
            no_gpus,
        } = *self;
        if no_attempts > 0 {
            report.note(format!(
                "{no_attempts} jobs have no attempts (kept for stats and drill-down)"
            ));
        }
        if no_gpus > 0 {
            report.note(format!(
                "{no_gpus} jobs have no attempt with GPUs, so no GPU demand: left out of the replay"
            ));
        }
        if no_start > 0 {
            report.note(format!(
                "{no_start} attempts lack a start or end time (logging errors): not replayed"
            ));
        }
        if open > 0 {
            report.note(format!(
                "{open} jobs were still running when the trace was cut (no end time)"
            ));
        }
    }
}

/// GPUs of the first attempt that had any (0: none did).
fn gpus_of(pj: &PhillyJob) -> u32 {
    pj.attempts
        .iter()
        .map(|a| a.detail.iter().map(|d| d.1.count_ones()).sum::<u32>())
        .find(|&g| g > 0)
        .unwrap_or(0)
}

/// The recorded holds of a job's attempts: one per machine, on its exact
/// GPUs. Attempts without a start, or an earlier one without an end, are
/// logging errors and not replayed; the last may still be running.
fn push_attempts(pj: &PhillyJob, segments: &mut Vec<Segment>, tally: &mut Tally) {
    for (k, a) in pj.attempts.iter().enumerate() {
        let Some(start) = a.start else {
            tally.no_start += 1;
            continue;
        };
        if a.end.is_none() {
            if k + 1 == pj.attempts.len() {
                tally.open += 1;
            } else {
                tally.no_start += 1; // a logging error: an earlier attempt without an end
                continue;
            }
        }
        for &(m, mask) in &a.detail {
            segments.push(Segment {
                start,
                end: a.end.into(),
                machine: Some(m).into(),
                milli: mask.count_ones() * 1000,
                gpus: mask,
            });
        }
    }
}

/// The job's status: unfinished while its last attempt runs, else as logged.
fn status_of(pj: &PhillyJob) -> JobStatus {
    let still_running = pj
        .attempts
        .last()
        .is_some_and(|a| a.start.is_some() && a.end.is_none());
    match pj.status.as_str() {
        _ if still_running => JobStatus::Unfinished,
        "Pass" => JobStatus::Completed,
        "Killed" => JobStatus::Killed,
        "Failed" => JobStatus::Failed,
        _ => JobStatus::Unknown,
    }
}

fn build(
    t: PhillyTables,
    cluster: Cluster,
    opts: &LoadOptions,
    report: &mut LoadReport,
) -> Result<Trace, InputError> {
    let mut symbols = Symbols::default();
    let mut jobs = Vec::with_capacity(t.jobs.len());
    let mut segments = Vec::new();
    let mut tally = Tally::default();
    for (i, pj) in t.jobs.iter().enumerate() {
        if pj.attempts.is_empty() {
            tally.no_attempts += 1;
        }
        let gpus = gpus_of(pj);
        if gpus == 0 && !opts.include_cpu_jobs {
            tally.no_gpus += 1;
            continue;
        }
        let seg_start = segments.len() as u32;
        push_attempts(pj, &mut segments, &mut tally);
        let runtime = match pj.span() {
            (Some(s), Some(e)) if e >= s => Some(e - s),
            _ => None,
        };
        jobs.push(Job {
            id: (&pj.jobid).into(),
            user: Some(symbols.intern(&pj.user)),
            group: Some(symbols.intern(&pj.vc)),
            submit: pj.submitted,
            runtime: runtime.into(),
            demand: Demand::Gang { gpus },
            gpu_type: None,
            status: status_of(pj),
            deadline: crate::model::MaybeSecs::NONE,
            model: None,
            segments: seg_start..segments.len() as u32,
            requested: crate::model::MaybeSecs::NONE,
            native_row: i as u32,
            cpu_milli: 0,
            mem_mib: 0,
            any_of_types: 0,
        });
    }
    tally.notes(report);
    if jobs.is_empty() {
        return Err(InputError::file(
            &t.dir.display().to_string(),
            "no jobs with GPUs",
        ));
    }
    let cluster = match opts.gpus {
        Some(_) => super::sizing::size_cluster(&jobs, opts, &t.dir.display().to_string())?,
        None => cluster,
    };
    report.note(cluster.origin.clone());
    let excluded = super::model::Excluded::new("jobs with no GPU attempt", tally.no_gpus, false);
    Ok(Trace {
        format: "philly",
        source: t.dir.display().to_string(),
        cluster,
        jobs,
        segments,
        symbols,
        zone: ZONE,
        excluded,
        native: Some(std::sync::Arc::new(t)),
        speeds: None,
    })
}

/// `tracetui job philly DIR JOBID`: the released job with every attempt.
pub fn job_detail(t: &PhillyTables, row: u32) -> serde_json::Value {
    use serde_json::json;
    let j = &t.jobs[row as usize];
    // `Tue 14:32:11 day 3`: days counted from the trace's first submission.
    let day1 = t
        .jobs
        .iter()
        .map(|j| j.submitted)
        .min()
        .unwrap_or(j.submitted);
    let local = |x: Option<Secs>| x.map(|v| clock::clock(ZONE, day1, v));
    let attempts: Vec<serde_json::Value> = j
        .attempts
        .iter()
        .map(|a| {
            let detail: Vec<serde_json::Value> = a
                .detail
                .iter()
                .map(|&(m, mask)| {
                    let gpus: Vec<String> = (0..64)
                        .filter(|g| mask & (1u64 << g) != 0)
                        .map(|g| format!("gpu{g}"))
                        .collect();
                    json!({"ip": t.machine_names[m as usize], "gpus": gpus})
                })
                .collect();
            json!({
                "start_time": a.start.map(format_local),
                "end_time": a.end.map(format_local),
                "start_time_local": local(a.start),
                "end_time_local": local(a.end),
                "detail": detail,
            })
        })
        .collect();
    let (first, last) = j.span();
    json!({
        "job": {
            "status": j.status,
            "vc": j.vc,
            "jobid": j.jobid,
            "submitted_time": format_local(j.submitted),
            "submitted_time_local": clock::clock(ZONE, day1, j.submitted),
            "user": j.user,
        },
        "attempts": attempts,
        "wait_s": first.map(|s| s - j.submitted),
        "runtime_s": match (first, last) { (Some(s), Some(e)) => Some(e - s), _ => None },
    })
}
