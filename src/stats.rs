//! Characterising a trace: what `tracetui stats` prints.

use crate::trace::{weekday_time, zone_abbrev, JobStatus, Trace, Zone};
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct MeanMedian {
    pub mean: Option<f64>,
    pub median: Option<f64>,
}

impl MeanMedian {
    pub fn of(values: &[f64]) -> MeanMedian {
        let s = crate::sim::Summary::of(values);
        MeanMedian {
            mean: s.mean,
            median: s.p50,
        }
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct JobCounts {
    /// Every job in the trace, CPU jobs included.
    pub all: u64,
    /// Jobs that ask for at least some GPU (those left out of the replay included).
    pub gpu: u64,
    /// Jobs left out of the replay, by reason (run times and queueing are
    /// over the others).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub left_out: BTreeMap<String, u64>,
    /// Jobs by status as the trace writes it (over all jobs).
    pub by_status: BTreeMap<String, u64>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MachineType {
    pub gpu_type: String,
    pub machines: u64,
    pub gpus: u64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Stats {
    pub format: String,
    pub source: String,
    pub jobs: JobCounts,
    pub machines: Vec<MachineType>,
    /// How the cluster was sized or corrected, where the trace's own list is
    /// not the whole story (`4 machines corrected`).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub cluster_note: String,
    /// GPUs the jobs ask for on average over the submit span (GPU-time
    /// submitted ÷ (last − first submit)); null for no jobs.
    pub offered_load_gpus: Option<f64>,
    /// Over GPU jobs with a known run time.
    pub runtime_s: MeanMedian,
    /// First recorded start − submit, over GPU jobs that started (null where the trace records no starts).
    pub queue_s: MeanMedian,
    pub gpus_per_job: MeanMedian,
    /// GPU job submissions per hour of the day, in the trace's zone.
    pub submissions_by_hour: [u64; 24],
    pub zone: String,
    /// Over jobs with a deadline (none: the trace has no deadlines).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadlines: Option<Deadlines>,
    /// Who held the GPUs, as recorded: each user's jobs and GPU-hours,
    /// most first (empty where the trace names no users).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gpu_hours_by_user: Vec<Holder>,
    /// The same by group (Slurm's account, Philly's virtual cluster, PAI's group).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gpu_hours_by_group: Vec<Holder>,
}

/// A user's or group's share of the recorded GPU time.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Holder {
    pub name: String,
    /// Its GPU jobs replayed.
    pub jobs: u64,
    /// GPU-hours: each recorded hold's GPUs × its length (holds still
    /// running when the trace was cut not counted); a job without recorded
    /// holds, its GPUs × its run time.
    pub gpu_hours: f64,
}

/// GPU-hours by user (or by group, `group`), most first, ties by name.
fn holders(trace: &Trace, group: bool) -> Vec<Holder> {
    let mut by: BTreeMap<&str, (u64, f64)> = BTreeMap::new();
    for j in &trace.jobs {
        let Some(who) = (if group { j.group } else { j.user }) else {
            continue;
        };
        let held = trace.job_segments(j);
        let milli_secs: f64 = if held.is_empty() {
            j.runtime.get().unwrap_or(0) as f64 * j.demand.total_milli() as f64
        } else {
            held.iter()
                .filter_map(|s| Some((s.end.get()? - s.start) as f64 * s.milli as f64))
                .sum()
        };
        let e = by.entry(trace.symbols.get(who)).or_default();
        e.0 += 1;
        e.1 += milli_secs / 1000.0 / 3600.0;
    }
    let mut out: Vec<Holder> = by
        .into_iter()
        .map(|(name, (jobs, gpu_hours))| Holder {
            name: name.to_string(),
            jobs,
            gpu_hours,
        })
        .collect();
    out.sort_by(|a, b| {
        b.gpu_hours
            .total_cmp(&a.gpu_hours)
            .then_with(|| a.name.cmp(&b.name))
    });
    out
}

/// How many deadlines no policy can meet.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Deadlines {
    pub jobs: u64,
    /// deadline < submit + recorded run time: missed at the recorded speed
    /// whatever the policy does.
    pub infeasible_at_recorded_speed: u64,
    /// deadline < submit + iterations ÷ the best rate on up to the
    /// cluster's GPUs (`--throughputs`; null without tables): missed even
    /// by a job started on arrival and scaled out as far as the tables go.
    pub infeasible_at_full_scale_out: Option<u64>,
}

/// Deadlines that cannot be met (see `Deadlines`).
fn deadlines(trace: &Trace) -> Option<Deadlines> {
    let with: Vec<(usize, &crate::trace::Job, i64)> = trace
        .jobs
        .iter()
        .enumerate()
        .filter_map(|(i, j)| j.deadline.get().map(|d| (i, j, d)))
        .collect();
    if with.is_empty() {
        return None;
    }
    let recorded = with
        .iter()
        .filter(|(_, j, d)| j.runtime.get().is_some_and(|r| j.submit + r > *d))
        .count() as u64;
    let all_gpus = trace.cluster.total_gpus().min(u32::MAX as u64) as u32;
    let scaled = trace.speeds.as_deref().map(|s| {
        with.iter()
            .filter(|(i, j, d)| {
                let i = *i as u32;
                let secs = match (s.work(i), s.best_rate(i, all_gpus)) {
                    (Some(w), Some(r)) => Some(crate::trace::Speeds::seconds(w, r)),
                    _ => j.runtime.get(),
                };
                secs.is_some_and(|r| j.submit + r > *d)
            })
            .count() as u64
    });
    Some(Deadlines {
        jobs: with.len() as u64,
        infeasible_at_recorded_speed: recorded,
        infeasible_at_full_scale_out: scaled,
    })
}

fn hour(zone: Zone, t: i64) -> usize {
    let s = weekday_time(zone, t);
    // "Mon 13:05:07" or "13:05:07": the hour is the two digits before the first ':'.
    s.find(':')
        .and_then(|i| s[i - 2..i].parse().ok())
        .unwrap_or(0)
}

/// What `tracetui stats` says of `trace`.
pub fn stats(trace: &Trace) -> Stats {
    let gpu_jobs: Vec<&crate::trace::Job> =
        trace.jobs.iter().filter(|j| !j.demand.is_zero()).collect();
    let runtimes: Vec<f64> = gpu_jobs
        .iter()
        .filter_map(|j| j.runtime.get())
        .map(|r| r as f64)
        .collect();
    let queues = queues(trace, &gpu_jobs);
    let gpus: Vec<f64> = gpu_jobs.iter().map(|j| j.gpus_display()).collect();
    let mut by_hour = [0u64; 24];
    for j in &gpu_jobs {
        by_hour[hour(trace.zone, j.submit)] += 1;
    }
    Stats {
        format: trace.format.to_string(),
        source: trace.source.clone(),
        jobs: job_counts(trace, gpu_jobs.len() as u64),
        machines: machine_types(trace),
        cluster_note: trace.cluster.sized_by.clone(),
        offered_load_gpus: crate::trace::offered_load_gpus(&trace.jobs),
        runtime_s: MeanMedian::of(&runtimes),
        queue_s: MeanMedian::of(&queues),
        gpus_per_job: MeanMedian::of(&gpus),
        submissions_by_hour: by_hour,
        deadlines: deadlines(trace),
        zone: zone_name(trace.zone),
        gpu_hours_by_user: holders(trace, false),
        gpu_hours_by_group: holders(trace, true),
    }
}

/// The jobs counted: all, GPU ones (`gpu_jobs` kept), left out, by status.
fn job_counts(trace: &Trace, gpu_jobs: u64) -> JobCounts {
    let excluded: u64 = trace.excluded.iter().map(|e| e.jobs).sum();
    let excluded_gpu: u64 = trace
        .excluded
        .iter()
        .filter(|e| e.gpu)
        .map(|e| e.jobs)
        .sum();
    JobCounts {
        all: trace.jobs.len() as u64 + excluded,
        gpu: gpu_jobs + excluded_gpu,
        by_status: by_status(trace),
        left_out: trace
            .excluded
            .iter()
            .map(|e| (e.reason.clone(), e.jobs))
            .collect(),
    }
}

/// Jobs by status: the format's own count, else by the model's status.
fn by_status(trace: &Trace) -> BTreeMap<String, u64> {
    let native = trace.native.as_ref().and_then(|n| n.status_counts(trace));
    native.unwrap_or_else(|| {
        let mut by_status = BTreeMap::new();
        // A format without a status column (ITP) gives none, not "unknown".
        if trace.jobs.iter().any(|j| j.status != JobStatus::Unknown) {
            for j in &trace.jobs {
                *by_status.entry(j.status.label().to_string()).or_insert(0) += 1;
            }
        }
        by_status
    })
}

/// The cluster's machines and GPUs by GPU type, types in name order.
fn machine_types(trace: &Trace) -> Vec<MachineType> {
    let mut types: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for m in &trace.cluster.machines {
        let e = types
            .entry(trace.cluster.gpu_types[m.gpu_type as usize].clone())
            .or_default();
        e.0 += 1;
        e.1 += m.gpus as u64;
    }
    types
        .into_iter()
        .map(|(gpu_type, (machines, gpus))| MachineType {
            gpu_type,
            machines,
            gpus,
        })
        .collect()
}

/// Each started GPU job's queueing: its first recorded start − submit.
fn queues(trace: &Trace, gpu_jobs: &[&crate::trace::Job]) -> Vec<f64> {
    gpu_jobs
        .iter()
        .filter_map(|j| {
            trace
                .job_segments(j)
                .iter()
                .map(|s| s.start)
                .min()
                .map(|s| (s - j.submit) as f64)
        })
        .collect()
}

/// The zone the hours of day are in, as `stats` names it.
fn zone_name(zone: Zone) -> String {
    match zone {
        Zone::Relative => "seconds from the trace's start".into(),
        Zone::Tz(tz) => tz.name().into(),
        Zone::Fixed(_) => zone_abbrev(zone, 0),
    }
}
