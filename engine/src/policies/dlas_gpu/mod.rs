//! `dlas-gpu`: Tiresias' discretised two-dimensional LAS as ElasticFlow's
//! simulator runs it (`--schedule=dlas-gpu`, `dlas_sim_jobs(gputime=True)`,
//! the Tiresias column of its Figures 8, 10 and 11). Its rules, with
//! citations: `../shared/peers/elasticflow-semantics.md` §3.5 and
//! `elasticflow-figures.md` §5.5; the round, step by step, in `round.rs`.
//!
//! In short: three queues; a job joins queue 0 and moves down once its
//! service in GPU-seconds reaches 3,250 (queue 0) or 7,200 (queue 1);
//! no job moves back up (ElasticFlow runs it without starvation
//! handling). Each round the queues are scanned in order, running jobs
//! first, and every job whose GPUs are still free runs; a running job
//! that no longer fits is preempted. A job runs its trace duration (no
//! throughput model), less ElasticFlow's uncached overhead each time it
//! starts or resumes and in every slot-th round. Rounds are at arrivals,
//! at the first end and at the next queue jump, at least a slot
//! (`--rounds`, 60 s) apart.
//!
//! How it differs from tracetui's own `las`: `las` re-ranks at every
//! event by attained GPU time in queues of its own thresholds and pays
//! no overhead; it is not ElasticFlow's Tiresias (`docs/fidelity.md`).
//!
//! Placement does not change a job's progress there; here a gang takes
//! one machine where it fits (the fullest that does), else whole free
//! machines and the rest on the fullest machine it fits, else any free
//! GPUs. A job asking more GPUs than the cluster has is dropped on
//! arrival (ElasticFlow's simulator stops there).

mod round;

use super::edf_elastic::gpus_of;
use crate::cluster::Grant;
use crate::job::Phase;
use crate::rule::{Books, KeyMeaning, Rule, Unavailable, Walk};
use crate::view::{Answer, Checked, NoAnswer, View};
use round::{Arrivals, Job, State};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::VecDeque;
use tracetui_model::{Demand, Secs, Trace};

pub(super) struct DlasGpu;

impl Rule for DlasGpu {
    fn name(&self) -> &str {
        "dlas-gpu"
    }

    fn describe(&self) -> &str {
        "Tiresias' 2D-LAS as ElasticFlow runs it: three queues by GPU-seconds served (3250, 7200), each job its trace GPUs, rounds a slot apart"
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
        KeyMeaning::Level
    }

    fn available(&self, trace: &Trace) -> Result<(), Unavailable> {
        super::edf_elastic::needs_alike_machines(
            trace,
            "give --gpus and --gpus-per-node, or an ElasticFlow --cluster spec",
        )?;
        super::edf_elastic::needs_run_times(trace)
    }

    fn books(&self, v: &dyn View) -> Box<dyn Books> {
        let state = books_at(v);
        Box::new(DlasBooks {
            next: state.next(),
            state,
        })
    }
}

/// The books of a run at `v.now()`: jobs waiting or running arrive now
/// (with the time they still need, in queue 0), later ones at their
/// submission.
fn books_at(v: &dyn View) -> State {
    let trace = v.trace();
    let n: u32 = trace.cluster.machines.iter().map(|m| m.gpus).sum();
    let mut jobs = FxHashMap::default();
    let mut arrivals: VecDeque<Arrivals> = VecDeque::new();
    for rank in 0..trace.jobs.len() as u32 {
        let j = v.job_at_rank(rank);
        let tj = &trace.jobs[j as usize];
        let (at, duration) = match v.job(j).phase {
            Phase::Future => (tj.submit, tj.runtime.get()),
            Phase::Queued | Phase::Running => (v.now(), super::edf_elastic::true_left_now(v, j)),
            _ => continue,
        };
        let gpus = gpus_of(trace, j);
        if gpus <= n {
            jobs.insert(j, Job::new(gpus, duration.unwrap_or(0), at));
        }
        // A job that never fits still arrives, to be dropped then.
        match arrivals.back_mut() {
            Some(a) if a.at == at => a.jobs.push(j),
            _ => arrivals.push_back(Arrivals::new(at, vec![j])),
        }
    }
    State::new(v.tuning().rounds, n, jobs, arrivals)
}

#[derive(Debug, Clone)]
struct DlasBooks {
    state: State,
    next: Option<Secs>,
}

impl Books for DlasBooks {
    fn clone_box(&self) -> Box<dyn Books> {
        Box::new(self.clone())
    }

    /// Its queue (0, 1 or 2).
    fn queued_key(&self, _v: &dyn View, job: u32) -> u64 {
        self.state.jobs.get(&job).map_or(0, |j| j.queue as u64)
    }

    fn ranks_running(&self) -> bool {
        false
    }

    fn next_wakeup(&self) -> Option<Secs> {
        self.next
    }

    fn wake(&mut self, _v: &dyn View, _acts: &mut crate::view::Acts<'_>, t: Secs) -> bool {
        self.next == Some(t)
    }

    /// The round: arrivals that never fit dropped, running jobs that no
    /// longer run preempted, the others started; every job that holds
    /// GPUs keeps the end this round gave it.
    fn decide(&mut self, v: &dyn View) -> Result<Option<Checked>, NoAnswer> {
        let t = v.now();
        if self.next != Some(t) {
            return Ok(None);
        }
        let mut out = self.state.round(t);
        self.next = self.state.next();
        out.hold.extend(out.early.iter().copied());
        let a = rigid_answer(v, out.refused, out.hold, t);
        let fail = |why: String| NoAnswer::Failed(format!("dlas-gpu at {t}: {why}"));
        v.check(&a).map(Some).map_err(|why| fail(why.to_string()))
    }
}

/// The answer of a policy that runs each job on its trace GPUs
/// (ElasticFlow's rigid baselines: `dlas-gpu`, `themis`): `refused` jobs
/// dropped, running jobs not in `hold` preempted, the others started, each
/// holding its end (at least `earliest`). A gang starts where `place` puts
/// it — but where running jobs go back to their trace GPUs, the engine
/// places them, and the starts after them.
pub(super) fn rigid_answer(
    v: &dyn View,
    refused: Vec<u32>,
    hold: Vec<(u32, Secs)>,
    earliest: Secs,
) -> Answer {
    let runs: FxHashSet<u32> = hold.iter().map(|h| h.0).collect();
    let mut a = Answer {
        drop: refused
            .into_iter()
            .filter(|&j| v.job(j).phase == Phase::Queued)
            .collect(),
        preempt: v
            .running_jobs()
            .into_iter()
            .filter(|j| !runs.contains(j) && v.preemptable(*j))
            .collect(),
        ..Answer::default()
    };
    a.scale = back_to_trace_gpus(v, hold.iter().map(|h| h.0));
    let mut busy = busy_gpus(v, &a.preempt);
    for (j, end) in hold {
        match v.job(j).phase {
            Phase::Queued if !a.scale.is_empty() => a.start.push((j, None)),
            Phase::Queued => a.start.push((j, place(v, j, &mut busy))),
            Phase::Running => {}
            _ => continue,
        }
        a.ends.push((j, end.max(earliest)));
    }
    a
}

/// Of the running jobs in `runs`, those holding other than their trace's
/// GPUs (an elastic policy before this one resized them), with their
/// trace's count: they go back to it (ElasticFlow's rigid baselines run
/// every job on its trace GPUs).
fn back_to_trace_gpus(v: &dyn View, runs: impl Iterator<Item = u32>) -> Vec<(u32, u32)> {
    let trace = v.trace();
    runs.filter_map(|j| {
        let held = v.held(j)?;
        let have = held
            .iter()
            .map(|g| g.milli as u64)
            .sum::<u64>()
            .div_ceil(1000) as u32;
        let want = gpus_of(trace, j);
        (have != want).then_some((j, want))
    })
    .collect()
}

/// The GPUs held by running jobs that are not preempted now.
fn busy_gpus(v: &dyn View, preempt: &[u32]) -> FxHashSet<(u32, u16)> {
    v.running_jobs()
        .into_iter()
        .filter(|j| !preempt.contains(j))
        .flat_map(|j| v.held(j).unwrap_or(&[]).to_vec())
        .filter(|g| g.has_gpu())
        .map(|g| (g.machine, g.gpu))
        .collect()
}

/// Where a starting gang goes (see the module's note); other demands go
/// where the placement rule puts them.
fn place(v: &dyn View, j: u32, busy: &mut FxHashSet<(u32, u16)>) -> Option<Vec<Grant>> {
    let trace = v.trace();
    let Demand::Gang { gpus } = trace.jobs[j as usize].demand else {
        return None;
    };
    let machines = &trace.cluster.machines;
    let free_on = |busy: &FxHashSet<(u32, u16)>, m: u32| -> Vec<u16> {
        (0..machines[m as usize].gpus as u16)
            .filter(|&g| !busy.contains(&(m, g)))
            .collect()
    };
    let frees: Vec<Vec<u16>> = (0..machines.len() as u32)
        .map(|m| free_on(busy, m))
        .collect();
    let fullest_fit = |want: usize, skip: &[u32]| {
        (0..frees.len())
            .filter(|&m| frees[m].len() >= want && !skip.contains(&(m as u32)))
            .min_by_key(|&m| frees[m].len())
            .map(|m| m as u32)
    };
    let mut picks: Vec<(u32, usize)> = Vec::new();
    let want = gpus as usize;
    if let Some(m) = fullest_fit(want, &[]) {
        picks.push((m, want));
    } else {
        let whole: Vec<u32> = (0..frees.len() as u32)
            .filter(|&m| {
                let total = machines[m as usize].gpus as usize;
                total > 0 && frees[m as usize].len() == total
            })
            .collect();
        let mut left = want;
        for m in whole {
            let k = frees[m as usize].len();
            if k <= left {
                picks.push((m, k));
                left -= k;
            }
        }
        let taken: Vec<u32> = picks.iter().map(|p| p.0).collect();
        match (left, fullest_fit(left, &taken)) {
            (0, _) => {}
            (_, Some(m)) => picks.push((m, left)),
            // Any free GPUs, in machine order.
            _ => {
                picks.clear();
                let mut left = want;
                for (m, f) in frees.iter().enumerate() {
                    let k = f.len().min(left);
                    if k > 0 {
                        picks.push((m as u32, k));
                        left -= k;
                    }
                }
            }
        }
    }
    let mut grants = Vec::with_capacity(want);
    for (m, k) in picks {
        for &gpu in frees[m as usize].iter().take(k) {
            busy.insert((m, gpu));
            grants.push(Grant {
                machine: m,
                gpu,
                milli: 1000,
                ..Grant::default()
            });
        }
    }
    Some(grants)
}
