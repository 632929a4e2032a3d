//! `edf-elastic`: earliest deadline first with elastic jobs, as
//! ElasticFlow's simulator runs its `edf` baseline (`scheduler.py`
//! `one_queue_edf_sim_jobs`; notes in `shared/peers/elasticflow-semantics.md`).
//!
//! It decides in rounds at least 60 s apart, as the peer does
//! (`rounds.rs`). At each round every job that waits or runs is taken in
//! deadline order (no deadline: last; ties by arrival). An elastic job (a
//! gang that runs from throughput tables) asks for its most GPUs (the
//! largest of its levels, `Speeds::levels`, at most the cluster's) and gets
//! them if that many are still unclaimed, else the largest of its levels
//! that is, else none. A rigid job gets what it asks for or none. A running
//! job left with none is preempted; a waiting one waits. There is no
//! admission control: every job runs to the end, late or not. Placement:
//! the jobs given GPUs are placed largest first; one that does not fit
//! where the placement rule puts it takes the next smaller level that does.

use super::rounds::Rounds;
use crate::rule::{deadline_key, Books, KeyMeaning, Rule, Unavailable, Walk};
use crate::view::{Acts, Answer, Checked, NoAnswer, View};
use rustc_hash::FxHashSet;
use std::collections::BTreeSet;
use tracetui_model::{Demand, Secs, Trace, MILLI_PER_GPU};

pub(super) struct EdfElastic;

impl Rule for EdfElastic {
    fn name(&self) -> &str {
        "edf-elastic"
    }

    fn describe(&self) -> &str {
        "earliest deadline first, each job on as many GPUs as it can use (ElasticFlow's edf)"
    }

    fn walk(&self) -> Walk {
        Walk::Explicit
    }

    fn preempts(&self) -> bool {
        true
    }

    fn in_rounds(&self) -> bool {
        true
    }

    fn key_meaning(&self) -> KeyMeaning {
        KeyMeaning::Deadline
    }

    fn available(&self, trace: &Trace) -> Result<(), Unavailable> {
        needs_tables(trace)
    }

    fn books(&self, v: &dyn View) -> Box<dyn Books> {
        let mut b = EdfElasticBooks::default();
        for j in v
            .running_jobs()
            .into_iter()
            .chain(v.queue_in_order(usize::MAX))
        {
            b.order.insert(order_key(v, j));
        }
        Box::new(b)
    }
}

#[derive(Debug, Clone, Default)]
struct EdfElasticBooks {
    rounds: Rounds,
    /// Every job waiting or running, in deadline order (then arrival).
    order: BTreeSet<(u64, u32, u32)>,
}

/// Where `job` stands in deadline order.
fn order_key(v: &dyn View, job: u32) -> (u64, u32, u32) {
    let deadline = v.trace().jobs[job as usize].deadline.get();
    (deadline_key(deadline), v.rank(job), job)
}

impl Books for EdfElasticBooks {
    fn clone_box(&self) -> Box<dyn Books> {
        Box::new(self.clone())
    }

    fn queued_key(&self, v: &dyn View, job: u32) -> u64 {
        deadline_key(v.trace().jobs[job as usize].deadline.get())
    }

    fn ranks_running(&self) -> bool {
        false
    }

    fn joined(&mut self, v: &dyn View, _acts: &mut Acts<'_>, job: u32) {
        self.order.insert(order_key(v, job));
    }

    fn left(&mut self, v: &dyn View, _acts: &mut Acts<'_>, job: u32) {
        self.order.remove(&order_key(v, job));
    }

    fn next_wakeup(&self) -> Option<Secs> {
        self.rounds.wakeup()
    }

    fn wake(&mut self, _v: &dyn View, _acts: &mut Acts<'_>, t: Secs) -> bool {
        self.rounds.wakeup() == Some(t)
    }

    fn decide(&mut self, v: &dyn View) -> Result<Option<Checked>, NoAnswer> {
        if !self.rounds.is_round(v) {
            return Ok(None);
        }
        let answer = plan(v, &self.order);
        v.check(&answer)
            .map(Some)
            .map_err(|why| NoAnswer::Failed(format!("edf-elastic at {}: {why}", v.now())))
    }

    fn after_pass(&mut self, v: &dyn View) -> Result<Option<Checked>, NoAnswer> {
        if self.rounds.is_round(v) {
            self.rounds.plan_next(v);
        }
        Ok(None)
    }
}

/// What edf-elastic does now (see the module notes), taking the jobs of
/// `order` in turn until no GPU is left; every running job not reached
/// then is preempted.
fn plan(v: &dyn View, order: &BTreeSet<(u64, u32, u32)>) -> Answer {
    let trace = v.trace();
    let running = v.running_jobs();
    let machines = trace.cluster.machines.len() as u32;
    let mut free: u64 = (0..machines).map(|m| v.free_gpus(m) as u64).sum();
    // GPUs held by the jobs planned here are theirs to plan again.
    for &j in running.iter().filter(|&&j| v.preemptable(j)) {
        free += v.held(j).map_or(0, held_gpus);
    }
    let total = free;
    let mut a = Answer {
        scale_down_to_fit: true,
        ..Answer::default()
    };
    let speeds = trace.speeds.as_deref();
    let mut elastic: Vec<(u32, u32)> = Vec::new();
    let mut kept = FxHashSet::default();
    for &(_, _, j) in order {
        if free == 0 {
            break;
        }
        let is_running = v.held(j).is_some();
        if is_running && !v.preemptable(j) {
            continue;
        }
        let levels = match (speeds, &trace.jobs[j as usize].demand) {
            (Some(s), Demand::Gang { .. }) if s.work(j).is_some() => s.levels(j),
            _ => Vec::new(),
        };
        if !levels.is_empty() {
            let base = levels.iter().copied().rfind(|&l| l as u64 <= total);
            let got = base
                .filter(|&b| b as u64 <= free)
                .or_else(|| levels.iter().copied().rfind(|&l| l as u64 <= free));
            if let Some(g) = got {
                free -= g as u64;
                elastic.push((j, g));
                kept.insert(j);
            }
            continue;
        }
        let need = trace.jobs[j as usize].demand.gpus_ceil();
        if need <= free {
            free -= need;
            kept.insert(j);
            if !is_running {
                a.start_if_fits.push(j);
            }
        }
    }
    a.preempt = running
        .into_iter()
        .filter(|&j| v.preemptable(j) && !kept.contains(&j))
        .collect();
    a.preempt.sort_unstable_by_key(|&j| order_key(v, j));
    // Largest first packs best; ties keep the deadline order.
    elastic.sort_by_key(|&(_, g)| std::cmp::Reverse(g));
    a.scale = elastic;
    a
}

/// Whole GPUs a running job holds.
fn held_gpus(g: &[crate::cluster::Grant]) -> u64 {
    g.iter().map(|g| g.milli as u64).sum::<u64>() / MILLI_PER_GPU as u64
}

/// Whether `trace`'s cluster is one GPU type with every machine alike, as
/// ElasticFlow's simulator takes it (`elasticflow`, `gandiva`); `hint`
/// says how to give one.
pub(super) fn needs_alike_machines(trace: &Trace, hint: &str) -> Result<(), Unavailable> {
    let c = &trace.cluster;
    if c.gpu_types.len() > 1 {
        // ElasticFlow's simulator runs one GPU type per run (its
        // --gpu_type picks one table directory): a mixed cluster is no
        // cluster it runs, whatever spec gave it.
        return Err(Unavailable {
            lacks: format!(
                "one GPU type, as ElasticFlow's simulator runs one type per run, and this one has {}",
                tracetui_model::text::sanitize(&c.gpu_types.join(", "))
            ),
            short: crate::rule::MIXED_TYPES.into(),
            hint: Some(
                "run it on one type's machines, or use a policy that runs across types (fifo-fastest, edf-elastic, fifo, sjf)".into(),
            ),
        });
    }
    if c.per_node.is_none() {
        return Err(Unavailable {
            lacks: "a cluster of one GPU type, every machine alike".into(),
            short: "mixed machines".into(),
            hint: Some(hint.into()),
        });
    }
    Ok(())
}

/// The whole GPUs job `j` asks for (ElasticFlow's `num_gpu`).
pub(super) fn gpus_of(trace: &Trace, j: u32) -> u32 {
    trace.jobs[j as usize].demand.total_milli().div_ceil(1000) as u32
}

/// Refuses a trace where some job has no run time: ElasticFlow's baselines
/// (gandiva, dlas-gpu) run each job its recorded duration.
pub(super) fn needs_run_times(trace: &Trace) -> Result<(), Unavailable> {
    if trace.jobs.iter().any(|j| j.runtime.get().is_none()) {
        return Err(Unavailable {
            lacks: "every job's run time".into(),
            short: "run times".into(),
            hint: None,
        });
    }
    Ok(())
}

/// The seconds job `j` truly has left now, for a policy that takes over
/// mid-run from the trace's own durations (gandiva, dlas-gpu): a running
/// job's to its end as its run goes (its current run counted), a waiting
/// one's from a start now.
pub(super) fn true_left_now(v: &dyn View, j: u32) -> Option<Secs> {
    match v.job(j).phase {
        crate::job::Phase::Running => Some(v.job(j).end - v.now()),
        _ => v.true_time_left(j),
    }
}

/// Refuses a cluster of `--gpus` that is no multiple of the machine's
/// size, where a gang of whole machines fails on the smaller last one
/// (gandiva; `--load` sizes whole machines for it).
pub(super) fn needs_whole_machines(trace: &Trace) -> Result<(), Unavailable> {
    let c = &trace.cluster;
    let Some(g) = c.per_node else {
        return Ok(());
    };
    let Some(part) = c.machines.iter().find(|m| m.gpus != g) else {
        return Ok(());
    };
    let total: u64 = c.machines.iter().map(|m| m.gpus as u64).sum();
    let (down, up) = (
        total / g as u64 * g as u64,
        total.div_ceil(g as u64) * g as u64,
    );
    let ways: Vec<String> = [down, up]
        .iter()
        .filter(|&&n| n > 0)
        .map(u64::to_string)
        .collect();
    Err(Unavailable {
        lacks: format!(
            "every machine alike, and {total} GPUs in machines of {g} leave {} with {}",
            part.name, part.gpus
        ),
        short: crate::rule::PART_MACHINE.into(),
        hint: Some(format!(
            "give --gpus a multiple of {g}: {}",
            ways.join(" or ")
        )),
    })
}

/// Whether `trace`'s jobs run from throughput tables (not `--gpu-speed`
/// factors), as the elastic policies need.
pub(super) fn needs_tables(trace: &Trace) -> Result<(), Unavailable> {
    if trace
        .speeds
        .as_ref()
        .is_some_and(|s| s.factors().is_none() && s.jobs_with_speed() > 0)
    {
        return Ok(());
    }
    Err(Unavailable {
        lacks: "jobs that run from throughput tables".into(),
        short: "no --throughputs".into(),
        hint: Some("load an ITP trace in the ElasticFlow schema with --throughputs DIR".into()),
    })
}
