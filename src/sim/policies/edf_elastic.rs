//! `edf-elastic`: earliest deadline first with elastic jobs, as
//! ElasticFlow's simulator runs its `edf` baseline (`scheduler.py`
//! `one_queue_edf_sim_jobs`; notes in `shared/peers/elasticflow-semantics.md`).
//!
//! At every scheduling point every job that waits or runs is taken in
//! deadline order (no deadline: last; ties by arrival). An elastic job (a
//! gang that runs from throughput tables) asks for its most GPUs (the
//! largest of its levels, `Speeds::levels`, at most the cluster's) and gets
//! them if that many are still unclaimed, else the largest of its levels
//! that is, else none. A rigid job gets what it asks for or none. A running
//! job left with none is preempted; a waiting one waits. There is no
//! admission control: every job runs to the end, late or not. Placement:
//! the jobs given GPUs are placed largest first; one that does not fit
//! where the placement rule puts it takes the next smaller level that does.

use crate::sim::policy::{deadline_key, Books, KeyMeaning, Rule, Unavailable, Walk};
use crate::sim::view::{Answer, Checked, NoAnswer, View};
use crate::trace::model::{Demand, Trace, MILLI_PER_GPU};

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

    fn key_meaning(&self) -> KeyMeaning {
        KeyMeaning::Deadline
    }

    fn available(&self, trace: &Trace) -> Result<(), Unavailable> {
        if trace
            .speeds
            .as_ref()
            .is_some_and(|s| s.jobs_with_speed() > 0)
        {
            return Ok(());
        }
        Err(Unavailable {
            lacks: "jobs that run from throughput tables".into(),
            short: "no --throughputs".into(),
            hint: Some("load an ITP trace in the ElasticFlow schema with --throughputs DIR".into()),
        })
    }

    fn books(&self, _v: &dyn View) -> Box<dyn Books> {
        Box::new(EdfElasticBooks)
    }
}

#[derive(Debug, Clone, Copy)]
struct EdfElasticBooks;

impl Books for EdfElasticBooks {
    fn clone_box(&self) -> Box<dyn Books> {
        Box::new(*self)
    }

    fn queued_key(&self, v: &dyn View, job: u32) -> u64 {
        deadline_key(v.trace().jobs[job as usize].deadline.get())
    }

    fn ranks_running(&self) -> bool {
        false
    }

    fn decide(&mut self, v: &dyn View) -> Result<Option<Checked>, NoAnswer> {
        let answer = plan(v);
        v.check(&answer)
            .map(Some)
            .map_err(|why| NoAnswer::Failed(format!("edf-elastic at {}: {why}", v.now())))
    }
}

/// What edf-elastic does now (see the module notes).
fn plan(v: &dyn View) -> Answer {
    let trace = v.trace();
    let running = v.running_jobs();
    let mut jobs: Vec<u32> = running
        .iter()
        .copied()
        .filter(|&j| v.preemptable(j))
        .chain(v.queue_in_order(usize::MAX))
        .collect();
    jobs.sort_by_key(|&j| {
        (
            deadline_key(trace.jobs[j as usize].deadline.get()),
            v.rank(j),
        )
    });
    let machines = trace.cluster.machines.len() as u32;
    let mut free: u64 = (0..machines).map(|m| v.free_gpus(m) as u64).sum();
    // GPUs held by the jobs planned here are theirs to plan again.
    for &j in &jobs {
        free += v.held(j).map_or(0, held_gpus);
    }
    let total = free;
    let mut a = Answer {
        scale_down_to_fit: true,
        ..Answer::default()
    };
    let speeds = trace.speeds.as_deref();
    let mut elastic: Vec<(u32, u32)> = Vec::new();
    for j in jobs {
        let is_running = v.held(j).is_some();
        let levels = match (speeds, &trace.jobs[j as usize].demand) {
            (Some(s), Demand::Gang { .. }) if s.work(j).is_some() => s.levels(j),
            _ => Vec::new(),
        };
        if !levels.is_empty() {
            let base = levels.iter().copied().rfind(|&l| l as u64 <= total);
            let got = base
                .filter(|&b| b as u64 <= free)
                .or_else(|| levels.iter().copied().rfind(|&l| l as u64 <= free));
            match got {
                Some(g) => {
                    free -= g as u64;
                    elastic.push((j, g));
                }
                None if is_running => a.preempt.push(j),
                None => {}
            }
            continue;
        }
        let need = trace.jobs[j as usize].demand.gpus_ceil();
        if need <= free {
            free -= need;
            if !is_running {
                a.start_if_fits.push(j);
            }
        } else if is_running {
            a.preempt.push(j);
        }
    }
    // Largest first packs best; ties keep the deadline order.
    elastic.sort_by_key(|&(_, g)| std::cmp::Reverse(g));
    a.scale = elastic;
    a
}

/// Whole GPUs a running job holds.
fn held_gpus(g: &[crate::sim::cluster::Grant]) -> u64 {
    g.iter().map(|g| g.milli as u64).sum::<u64>() / MILLI_PER_GPU as u64
}
