//! `gandiva`: Gandiva's time-slicing as ElasticFlow's simulator runs it
//! (`--schedule=gandiva --scheme=gandiva`, the baseline of its Figure 8).
//! Its rules, with citations: docs/peers/elasticflow-gandiva.md.
//!
//! The rules (each in its file):
//! - Node sets (`sets.rs`): per job size, sets of whole nodes; a job goes
//!   to the least-used set of its size with room, else to new free
//!   nodes, else time-slices on a set of its size over its capacity,
//!   else waits. Sets are rebalanced between sizes by demand every round.
//! - Rounds (`round.rs`): at arrivals (those within a slot — `--rounds`,
//!   60 s — of a round taken together a slot after it) and every slot after
//!   the last arrival. In each set the first `cap` jobs run; they rotate in
//!   rounds at a multiple of 60 s (whatever the slot, as there). A job runs
//!   its recorded duration (no throughput model), less ElasticFlow's
//!   per-round overhead (4–16 s by size, more on 256+ GPUs and in every
//!   slot-th round) each round it runs; it ends the moment its duration is
//!   reached. Waiting jobs are retried only when a set empties.
//! - A job whose size is not one of the sizes ElasticFlow's gandiva knows
//!   (1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 56, 64, 72, 88, 128, 256 GPUs), or
//!   that needs more nodes than the cluster has, is dropped on arrival
//!   (ElasticFlow's simulator stops there, or waits forever).

mod round;
mod sets;

use super::edf_elastic::gpus_of;
use crate::job::Phase;
use crate::rule::{Books, Rule, Unavailable, Walk};
use crate::view::{Answer, Checked, NoAnswer, View};
use round::{Job, State};
use rustc_hash::FxHashMap;
use sets::{Sets, CLASSES};
use std::collections::VecDeque;
use tracetui_model::{Secs, Trace};

pub(super) struct Gandiva;

impl Rule for Gandiva {
    fn name(&self) -> &str {
        "gandiva"
    }

    fn describe(&self) -> &str {
        "Gandiva as ElasticFlow runs it: node sets per job size, time-slicing when over capacity, rebalanced by demand"
    }

    fn walk(&self) -> Walk {
        Walk::Explicit
    }

    fn preempts(&self) -> bool {
        true
    }

    fn whole_machines(&self) -> bool {
        true
    }

    fn in_rounds(&self) -> bool {
        true
    }

    fn available(&self, trace: &Trace) -> Result<(), Unavailable> {
        super::edf_elastic::needs_alike_machines(
            trace,
            "give --gpus and --gpus-per-node, or an ElasticFlow --cluster spec",
        )?;
        super::edf_elastic::needs_whole_machines(trace)?;
        super::edf_elastic::needs_run_times(trace)
    }

    fn books(&self, v: &dyn View) -> Box<dyn Books> {
        Box::new(GandivaBooks {
            state: books_at(v),
            to_start: Vec::new(),
        })
    }
}

/// The books of a run at `v.now()`: jobs waiting or running arrive now
/// (with the time they still need), later ones at their submission.
fn books_at(v: &dyn View) -> State {
    let trace = v.trace();
    let machines = trace.cluster.machines.len() as u32;
    let gpn = trace.cluster.per_node.unwrap_or(1).max(1);
    let sets = Sets::new(machines, gpn);
    let mut jobs = FxHashMap::default();
    let mut events: VecDeque<(Secs, Vec<u32>)> = VecDeque::new();
    for rank in 0..trace.jobs.len() as u32 {
        let j = v.job_at_rank(rank);
        let tj = &trace.jobs[j as usize];
        let (at, duration) = match v.job(j).phase {
            Phase::Future => (tj.submit, tj.runtime.get()),
            Phase::Queued | Phase::Running => (v.now(), super::edf_elastic::true_left_now(v, j)),
            _ => continue,
        };
        let gpus = gpus_of(trace, j);
        let fits = CLASSES.contains(&gpus) && gpus.div_ceil(gpn) <= machines;
        if fits {
            jobs.insert(j, Job::new(gpus, duration.unwrap_or(0) as f64));
        }
        // A job it cannot place still arrives, to be dropped then.
        match events.back_mut() {
            Some(e) if e.0 == at => e.1.push(j),
            _ => events.push_back((at, vec![j])),
        }
    }
    State::new(sets, jobs, events, v.tuning().rounds)
}

#[derive(Debug, Clone)]
struct GandivaBooks {
    state: State,
    /// Jobs to start once this instant's preemptions are made: each with
    /// its end and its set's machines.
    to_start: Vec<(u32, Secs, Vec<u32>)>,
}

impl Books for GandivaBooks {
    fn clone_box(&self) -> Box<dyn Books> {
        Box::new(self.clone())
    }

    fn queued_key(&self, v: &dyn View, job: u32) -> u64 {
        v.rank(job) as u64
    }

    fn ranks_running(&self) -> bool {
        false
    }

    fn next_wakeup(&self) -> Option<Secs> {
        self.state.next
    }

    fn wake(&mut self, _v: &dyn View, _acts: &mut crate::view::Acts<'_>, t: Secs) -> bool {
        self.state.next == Some(t)
    }

    /// The round: drops, and every job that is not to run until the next
    /// round, or that its set moved to other machines, preempted; jobs that
    /// run on keep their GPUs and get their ends.
    fn decide(&mut self, v: &dyn View) -> Result<Option<Checked>, NoAnswer> {
        let t = v.now();
        if self.state.next != Some(t) {
            return Ok(None);
        }
        // Arrivals it cannot place leave before the round.
        let mut drop = Vec::new();
        if let Some(e) = self.state.events.front_mut().filter(|e| e.0 == t) {
            let jobs = &self.state.jobs;
            e.1.retain(|j| {
                let keep = jobs.contains_key(j);
                if !keep {
                    drop.push(*j);
                }
                keep
            });
        }
        let plan = self.state.round(t);
        let stays = |j: u32, ids: &[u32]| {
            v.held(j)
                .is_some_and(|g| g.iter().all(|x| ids.contains(&x.machine)))
        };
        let mut a = Answer {
            drop: drop
                .into_iter()
                .filter(|&j| v.job(j).phase == Phase::Queued)
                .collect(),
            ..Answer::default()
        };
        let holding: FxHashMap<u32, &[u32]> =
            plan.hold.iter().map(|h| (h.0, h.2.as_slice())).collect();
        a.preempt = v
            .running_jobs()
            .into_iter()
            .filter(|&j| v.preemptable(j) && !holding.get(&j).is_some_and(|ids| stays(j, ids)))
            .collect();
        self.to_start.clear();
        for (j, end, ids) in plan.hold {
            if stays(j, &ids) {
                a.ends.push((j, end));
            } else {
                self.to_start.push((j, end, ids));
            }
        }
        let fail = |why: String| NoAnswer::Failed(format!("gandiva at {t}: {why}"));
        v.check(&a).map(Some).map_err(|why| fail(why.to_string()))
    }

    /// The starts of the round, on free GPUs of each job's set, largest
    /// first.
    fn after_pass(&mut self, v: &dyn View) -> Result<Option<Checked>, NoAnswer> {
        if self.to_start.is_empty() {
            return Ok(None);
        }
        let t = v.now();
        let trace = v.trace();
        let mut busy: rustc_hash::FxHashSet<(u32, u16)> = v
            .running_jobs()
            .into_iter()
            .flat_map(|j| {
                v.held(j)
                    .unwrap_or(&[])
                    .iter()
                    .map(|g| (g.machine, g.gpu))
                    .collect::<Vec<_>>()
            })
            .collect();
        let mut starts = std::mem::take(&mut self.to_start);
        starts.sort_by_key(|s| std::cmp::Reverse(gpus_of(trace, s.0)));
        let mut a = Answer::default();
        for (j, end, ids) in starts {
            let mut want = gpus_of(trace, j);
            let mut grants = Vec::new();
            for &m in &ids {
                let per = trace.cluster.machines[m as usize].gpus;
                for gpu in 0..per as u16 {
                    if want > 0 && busy.insert((m, gpu)) {
                        grants.push(crate::cluster::Grant {
                            machine: m,
                            gpu,
                            milli: 1000,
                            ..crate::cluster::Grant::default()
                        });
                        want -= 1;
                    }
                }
            }
            a.start.push((j, Some(grants)));
            a.ends.push((j, end));
        }
        let fail = |why: String| NoAnswer::Failed(format!("gandiva at {t}: {why}"));
        v.check(&a).map(Some).map_err(|why| fail(why.to_string()))
    }
}
