//! What version 2 of the policy protocol adds to the messages
//! (docs/policy-protocol.md, "Version 2"): each job's work and speed, the
//! cluster's speed tables and shape, and the arrival times to come.

use crate::view::View;
use serde::Serialize;
use std::collections::BTreeMap;
use tracetui_model::{Demand, Secs};

/// A job's work and speed, for a job that runs from the tables (all
/// `null`, and no levels, for one that does not).
#[derive(Serialize)]
pub(super) struct SpeedInfo<'a> {
    pub work: Option<f64>,
    pub work_left: Option<f64>,
    pub batch_size: Option<u32>,
    /// The GPU counts it may be resized to, ascending.
    pub levels: Vec<u32>,
    /// Per GPU type: the profiled row, (GPU count, iterations/s).
    pub rates: Option<BTreeMap<&'a str, &'a [(u32, f64)]>>,
    /// The run time the trace recorded (ITP's `duration`), which ElasticFlow's
    /// baselines run for where `runtime` is the tables' (`dlas-gpu`).
    pub recorded: Option<Secs>,
}

pub(super) fn speed_info(e: &dyn View, job: u32) -> SpeedInfo<'_> {
    let t = e.trace();
    let none = SpeedInfo {
        work: None,
        work_left: None,
        batch_size: None,
        levels: Vec::new(),
        rates: None,
        recorded: None,
    };
    let Some(sp) = t.speeds.as_deref() else {
        return none;
    };
    let Some(work) = sp.work(job) else {
        return none;
    };
    let gang = matches!(t.jobs[job as usize].demand, Demand::Gang { .. });
    let mut rates = BTreeMap::new();
    let mut batch = None;
    for (ty, name) in t.cluster.gpu_types.iter().enumerate() {
        if let Some((row, b)) = sp.row(job, ty as u16) {
            rates.insert(name.as_str(), row);
            batch = Some(b);
        }
    }
    SpeedInfo {
        work: Some(work),
        work_left: e.work_left(job),
        batch_size: batch,
        levels: if gang { sp.levels(job) } else { Vec::new() },
        rates: (!rates.is_empty()).then_some(rates),
        recorded: t.jobs[job as usize].runtime.get(),
    }
}

/// What `start` says of the cluster's shape and speeds, in version 2.
#[derive(Serialize)]
pub(super) struct StartV2<'a> {
    pub rescale_cost: Secs,
    /// ElasticFlow's scheduling slot (`--rounds`), for a policy that
    /// decides in its rounds.
    pub rounds: Secs,
    pub per_node: Option<u32>,
    pub switches: u32,
    pub speeds: Option<SpeedTables<'a>>,
}

#[derive(Serialize)]
pub(super) struct SpeedTables<'a> {
    /// Per GPU type of the cluster, in its order: the table it runs from.
    pub tables: Vec<TableName<'a>>,
    pub factors: Option<&'a [(String, f64)]>,
}

#[derive(Serialize)]
pub(super) struct TableName<'a> {
    pub gpu_type: &'a str,
    /// The type given with the table (`T4=DIR`), else its directory's name.
    pub table: String,
}

pub(super) fn start_v2(e: &dyn View) -> StartV2<'_> {
    let t = e.trace();
    let speeds = t.speeds.as_deref().map(|sp| SpeedTables {
        tables: t
            .cluster
            .gpu_types
            .iter()
            .enumerate()
            .filter_map(|(ty, name)| {
                let tb = sp.table_of(ty as u16)?;
                let table = tb.gpu_type.clone().unwrap_or_else(|| {
                    tb.dir
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default()
                });
                Some(TableName {
                    gpu_type: name,
                    table,
                })
            })
            .collect(),
        factors: sp.factors(),
    });
    StartV2 {
        rescale_cost: e.tuning().rescale_cost,
        rounds: e.tuning().rounds,
        per_node: t.cluster.per_node,
        switches: t.cluster.switches,
        speeds,
    }
}

/// The next `n` distinct submit times after `now`, ascending.
pub(super) fn coming(e: &dyn View, n: u32) -> Vec<Secs> {
    let t = e.trace();
    let now = e.now();
    let submit = |rank: u32| t.jobs[e.job_at_rank(rank) as usize].submit;
    let total = t.jobs.len() as u32;
    let (mut lo, mut hi) = (0u32, total);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if submit(mid) <= now {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    let mut out: Vec<Secs> = Vec::new();
    for rank in lo..total {
        if out.len() == n as usize {
            break;
        }
        let s = submit(rank);
        if out.last() != Some(&s) {
            out.push(s);
        }
    }
    out
}
