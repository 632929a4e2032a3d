//! The policy protocol's messages (docs/policy-protocol.md), versions 1
//! and 2: what tracetui sends, and the answer it reads back made the
//! engine's (the hello is `ask::hello`, an answer's fields `ask::answer`;
//! what version 2 adds to a message is in `wire2.rs`).

use super::spec::Params;
use super::wire2::{self, SpeedInfo, StartV2};
use crate::ask::answer::{Decision, StartItem};
use crate::cluster::Grant;
use crate::job::Phase;
use crate::view::{Answer, View};
use serde::Serialize;
use tracetui_model::{Demand, Secs, Trace, Zone};

/// A job as a policy sees it.
#[derive(Serialize)]
pub(super) struct JobInfo<'a> {
    pub job: u32,
    pub id: &'a str,
    pub user: Option<&'a str>,
    pub group: Option<&'a str>,
    pub submit: Secs,
    /// Whole GPUs (a gang), or null for per-machine instances (see `instances`).
    pub gpus: Option<u32>,
    /// (count, milli-GPUs each) per instance unit, for PAI's instances.
    pub instances: Option<Vec<(u32, u32)>>,
    pub milli: u64,
    pub gpu_type: Option<&'a str>,
    /// The run time it will have in this replay (as the oracle policies know it).
    pub runtime: Option<Secs>,
    pub deadline: Option<Secs>,
    pub model: Option<&'a str>,
    /// CPU (milli-cores) and memory (MiB) it asks of each machine it runs
    /// on (openb's pods); absent where it asks none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<(u32, u32)>,
    /// Its key now (in a snapshot; 0 unless set).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<i64>,
    /// Work carried from earlier runs (in a snapshot, for preempted jobs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub carried: Option<Carried>,
    /// Version 2: its work and speed.
    #[serde(flatten)]
    pub speed: Option<SpeedInfo<'a>>,
}

#[derive(Serialize)]
pub(super) struct Carried {
    pub preemptions: u32,
    /// Milli-GPU-seconds of service before the current run.
    pub attained: u128,
    /// Seconds held before the current run (restart costs included).
    pub held: Secs,
    pub preempted_at: Secs,
    pub promoted: bool,
}

pub(super) fn job_info(
    e: &dyn View,
    job: u32,
    priority: Option<i64>,
    snapshot: bool,
    v2: bool,
) -> JobInfo<'_> {
    let t: &Trace = e.trace();
    let j = &t.jobs[job as usize];
    let (gpus, instances) = match &j.demand {
        Demand::Gang { gpus } => (Some(*gpus), None),
        Demand::Instances(u) => (None, Some(u.iter().map(|u| (u.count, u.milli)).collect())),
    };
    let carried = snapshot
        .then(|| e.preempted_before(job))
        .flatten()
        .map(|r| Carried {
            preemptions: r.preemptions,
            attained: r.attained,
            held: r.held,
            preempted_at: r.since,
            promoted: r.promoted,
        });
    JobInfo {
        job,
        id: &j.id,
        user: j.user.map(|s| t.symbols.get(s)),
        group: j.group.map(|s| t.symbols.get(s)),
        submit: j.submit,
        gpus,
        instances,
        milli: j.demand.total_milli(),
        gpu_type: j.gpu_type.map(|g| t.cluster.gpu_types[g as usize].as_str()),
        runtime: e.runtime(job),
        deadline: j.deadline.get(),
        model: j.model.map(|s| t.symbols.get(s)),
        host: (j.cpu_milli > 0 || j.mem_mib > 0).then_some((j.cpu_milli, j.mem_mib)),
        priority,
        carried,
        speed: (v2 && t.speeds.is_some()).then(|| wire2::speed_info(e, job)),
    }
}

/// GPUs as `[machine, gpu, milli]`.
pub(super) fn gpus(g: &[Grant]) -> Vec<(u32, u16, u16)> {
    g.iter()
        .filter(|g| g.has_gpu())
        .map(|g| (g.machine, g.gpu, g.milli))
        .collect()
}

#[derive(Serialize)]
pub(super) struct Machine<'a> {
    pub name: &'a str,
    pub gpu_type: &'a str,
    pub gpus: u32,
}

#[derive(Serialize)]
pub(super) struct Running<'a> {
    #[serde(flatten)]
    pub job: JobInfo<'a>,
    pub start: Secs,
    pub run_from: Secs,
    pub gpus_held: Vec<(u32, u16, u16)>,
    /// False for a job held as the trace recorded it: it keeps its GPUs to
    /// its recorded end (no preemption), and its end comes as `finished`.
    pub preemptable: bool,
    /// Version 2: the seconds from `run_from` without progress.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overhead: Option<Secs>,
}

/// The state when a policy takes over: the cluster and who waits and runs.
#[derive(Serialize)]
pub(super) struct Start<'a> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub time: Secs,
    pub format: &'a str,
    pub source: &'a str,
    /// IANA zone, `+HH:MM`, or `relative` (seconds from the trace's start).
    pub zone: String,
    pub jobs: usize,
    pub placement: &'static str,
    pub preempt_cost: Secs,
    pub las_thresholds: &'a [u64],
    pub las_starve: f64,
    pub fair_by: &'static str,
    pub gpu_types: &'a [String],
    /// The `key=value` parameters it was named with (`name[k=v]`).
    pub params: &'a Params,
    pub machines: Vec<Machine<'a>>,
    pub queue: Vec<JobInfo<'a>>,
    pub running: Vec<Running<'a>>,
    #[serde(flatten)]
    pub v2: Option<StartV2<'a>>,
}

pub(super) fn zone_name(z: &Zone) -> String {
    match z {
        Zone::Relative => "relative".into(),
        Zone::Tz(tz) => tz.name().into(),
        Zone::Fixed(s) => {
            let sign = if *s < 0 { '-' } else { '+' };
            format!("{sign}{:02}:{:02}", s.abs() / 3600, s.abs() % 3600 / 60)
        }
    }
}

pub(super) fn start<'a>(
    e: &'a dyn View,
    params: &'a Params,
    priority: impl Fn(u32) -> i64,
    v2: bool,
    arriving: impl Fn(u32) -> bool,
) -> Start<'a> {
    let t = e.trace();
    let queue = e
        .queue_in_order(usize::MAX)
        .into_iter()
        .filter(|&j| !arriving(j))
        .map(|j| job_info(e, j, Some(priority(j)), true, v2))
        .collect();
    // In job order.
    let running = e
        .running_jobs()
        .into_iter()
        .filter(|&j| e.job(j).phase == Phase::Running)
        .map(|j| Running {
            job: job_info(e, j, Some(priority(j)), true, v2),
            start: e.job(j).start,
            run_from: e.resume(j).run_from,
            gpus_held: gpus(e.held(j).unwrap_or_default()),
            preemptable: e.preemptable(j),
            overhead: v2.then(|| e.resume(j).overhead),
        })
        .collect();
    let tuning = e.tuning();
    Start {
        kind: "start",
        time: e.now(),
        format: t.format,
        source: &t.source,
        zone: zone_name(&t.zone),
        jobs: t.jobs.len(),
        placement: e.placement().name(),
        preempt_cost: tuning.preempt_cost,
        las_thresholds: &tuning.las_thresholds,
        las_starve: tuning.las_starve,
        fair_by: tuning.fair_by.name(),
        gpu_types: &t.cluster.gpu_types,
        params,
        machines: t
            .cluster
            .machines
            .iter()
            .map(|m| Machine {
                name: &m.name,
                gpu_type: &t.cluster.gpu_types[m.gpu_type as usize],
                gpus: m.gpus,
            })
            .collect(),
        queue,
        running,
        v2: v2.then(|| wire2::start_v2(e)),
    }
}

/// Something that happened to a job since the last scheduling point.
/// (`work_left` and `overhead` are version 2's: absent in version 1,
/// `work_left` null for a job without a speed.)
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "lowercase")]
pub(super) enum Change {
    Started {
        job: u32,
        at: Secs,
        gpus: Vec<(u32, u16, u16)>,
        #[serde(skip_serializing_if = "Option::is_none")]
        work_left: Option<Option<f64>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        overhead: Option<Secs>,
    },
    Finished {
        job: u32,
        at: Secs,
    },
    Preempted {
        job: u32,
        at: Secs,
        #[serde(skip_serializing_if = "Option::is_none")]
        work_left: Option<Option<f64>>,
    },
    /// Version 2: a running job now holds `gpus` (it held `from` GPUs).
    Resized {
        job: u32,
        at: Secs,
        from: u32,
        gpus: Vec<(u32, u16, u16)>,
        work_left: Option<f64>,
        overhead: Secs,
    },
    /// Version 2: a waiting job the policy declined.
    Dropped {
        job: u32,
        at: Secs,
    },
}

/// A scheduling point: what changed since the last one, in the order it
/// happened, then the jobs that arrived at `time`.
#[derive(Serialize)]
pub(super) struct Schedule<'a> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub time: Secs,
    pub events: &'a [Change],
    pub arrived: Vec<JobInfo<'a>>,
    /// Whether this point is the wake-up the policy asked for.
    pub wakeup: bool,
    /// Version 2, with a lookahead: the next distinct submit times.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coming: Option<Vec<Secs>>,
}

/// Right after a pass that started or preempted jobs (for policies that asked).
#[derive(Serialize)]
pub(super) struct Passed<'a> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub time: Secs,
    pub events: &'a [Change],
}

/// A decision as the engine takes it, with each key's old key (every key the
/// policy sent, changed or not: the engine checks them all).
pub(super) fn answer(d: Decision, old: impl Fn(u32) -> i64) -> Answer {
    Answer {
        rekey: d
            .priority
            .into_iter()
            .map(|(j, k)| (j, engine_key(old(j)), engine_key(k)))
            .collect(),
        preempt: d.preempt,
        start: d
            .start
            .into_iter()
            .map(|s| match s {
                StartItem::Job(j) => (j, None),
                StartItem::Placed(p) => (
                    p.job,
                    Some(
                        p.gpus
                            .into_iter()
                            .map(|(machine, gpu, milli)| Grant {
                                machine,
                                gpu,
                                milli,
                                ..Grant::default()
                            })
                            .collect(),
                    ),
                ),
            })
            .collect(),
        start_if_fits: d.start_if_fits,
        scale: d.resize,
        drop: d.drop,
        scale_down_to_fit: d.shrink_to_fit,
        ends: d.ends,
        // (The protocol has no `finish`: a program's preempted job waits.)
        finish: Vec::new(),
    }
}

/// A protocol key (signed: lower first) as the engine's unsigned key, in
/// the same order.
pub(super) fn engine_key(k: i64) -> u64 {
    (k as u64) ^ (1 << 63)
}

/// An engine key back as the protocol's (`engine_key` undone).
pub(super) fn protocol_key(k: u64) -> i64 {
    (k ^ (1 << 63)) as i64
}
