//! `themis`: Themis' finish-time fairness as ElasticFlow's simulator runs
//! it (`--schedule=themis`, `themis_sim_jobs`, the Themis column of its
//! Figure 8). The lease, step by step, in `lease.rs`; the optimisation in
//! `share.rs`; notes on the peer, with citations:
//! `../shared/peers/elasticflow-figures.md` §5.4 and
//! `docs/peers/elasticflow-themis.md`.
//!
//! In short: leases a slot (`--rounds`) apart; at each, every job gets a
//! share of its trace GPUs that minimises the worst finish-time fairness
//! (time so far and to go at that share ÷ time in isolation), and the jobs
//! run largest share first, each on its trace GPUs where they are still
//! free. A job runs its table's rate on those GPUs with no overhead and
//! ends at the end of the lease in which its iterations run out (or its
//! trace duration does, if first).
//!
//! Not to the job where the cluster is contended: the optimisation's
//! best shares are not unique there, and ElasticFlow's ECOS and the
//! solver here pick different ones (`docs/fidelity.md`). Placement does
//! not change progress; a gang goes where `dlas-gpu` puts it.

mod lease;
mod share;

use super::dlas_gpu::rigid_answer;
use super::edf_elastic::{gpus_of, true_left_now};
use crate::job::Phase;
use crate::rule::{Books, KeyMeaning, Rule, Unavailable, Walk};
use crate::view::{Acts, Checked, NoAnswer, View};
use lease::{Job, State};
use tracetui_model::{Secs, Trace};

pub(super) struct Themis;

impl Rule for Themis {
    fn name(&self) -> &str {
        "themis"
    }

    fn describe(&self) -> &str {
        "Themis as ElasticFlow runs it: leases a slot apart, the jobs of the fairest shares first, each on its trace GPUs"
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
        KeyMeaning::Arrival
    }

    fn available(&self, trace: &Trace) -> Result<(), Unavailable> {
        super::edf_elastic::needs_tables(trace)?;
        super::edf_elastic::needs_alike_machines(
            trace,
            "give an ElasticFlow --cluster spec, or --gpus and --gpus-per-node",
        )?;
        super::edf_elastic::needs_run_times(trace)
    }

    fn books(&self, v: &dyn View) -> Box<dyn Books> {
        let trace = v.trace();
        let n: u32 = trace.cluster.machines.iter().map(|m| m.gpus).sum();
        let mut b = ThemisBooks {
            state: State::new(v.tuning().rounds, n, v.now()),
            next_rank: 0,
            next: None,
            taken_over: Vec::new(),
        };
        while b.next_rank < trace.jobs.len() as u32 {
            let j = v.job_at_rank(b.next_rank);
            match v.job(j).phase {
                Phase::Future => break,
                Phase::Queued | Phase::Running => b.taken_over.push(j),
                _ => {}
            }
            b.next_rank += 1;
        }
        b.state.origin = match b.taken_over.is_empty() {
            true => b.next_arrival(v).unwrap_or(v.now()),
            false => v.now(),
        };
        b.next = (!b.taken_over.is_empty())
            .then_some(b.state.origin)
            .or_else(|| b.next_arrival(v));
        Box::new(b)
    }
}

#[derive(Debug, Clone)]
struct ThemisBooks {
    state: State,
    /// The first job (in arrival order) not yet taken.
    next_rank: u32,
    next: Option<Secs>,
    /// Jobs waiting or running when it took over, to join at its first lease.
    taken_over: Vec<u32>,
}

impl ThemisBooks {
    fn next_arrival(&self, v: &dyn View) -> Option<Secs> {
        let trace = v.trace();
        (self.next_rank < trace.jobs.len() as u32)
            .then(|| trace.jobs[v.job_at_rank(self.next_rank) as usize].submit)
    }

    /// The jobs joining at lease `t`: those taken over, then arrivals due
    /// by `t` (but a job the engine rejected, which never reaches the
    /// policy); and those it cannot run (no table column at their GPUs).
    fn arrivals(&mut self, v: &dyn View, t: Secs) -> (Vec<(u32, Job)>, Vec<u32>) {
        let mut due = std::mem::take(&mut self.taken_over);
        while self.next_arrival(v).is_some_and(|s| s <= t) {
            let j = v.job_at_rank(self.next_rank);
            if v.fits_ever(j) {
                due.push(j);
            }
            self.next_rank += 1;
        }
        let (mut join, mut refused) = (Vec::new(), Vec::new());
        for j in due {
            match job_of(v, j) {
                Some(job) => join.push((j, job)),
                None => refused.push(j),
            }
        }
        (join, refused)
    }
}

/// Job `j` as a lease counts it: its trace GPUs and its table's rate on
/// them, its work and the time its trace duration has left.
fn job_of(v: &dyn View, j: u32) -> Option<Job> {
    let trace = v.trace();
    let gpus = gpus_of(trace, j);
    let (row, _) = trace.speeds.as_deref()?.row(j, 0)?;
    let rate = row.iter().find(|l| l.0 == gpus)?.1;
    let iters = v.work_left(j)?;
    let left = true_left_now(v, j)?;
    (rate > 0.0 && iters > 0.0)
        .then(|| Job::new(gpus, rate, trace.jobs[j as usize].submit, iters, left))
}

impl Books for ThemisBooks {
    fn clone_box(&self) -> Box<dyn Books> {
        Box::new(self.clone())
    }

    /// Arrival order: a waiting job's key must hold while it waits, and
    /// its place in the job list (by share) moves every lease.
    fn queued_key(&self, _v: &dyn View, _job: u32) -> u64 {
        0
    }

    fn ranks_running(&self) -> bool {
        false
    }

    fn next_wakeup(&self) -> Option<Secs> {
        self.next
    }

    fn wake(&mut self, _v: &dyn View, _acts: &mut Acts<'_>, t: Secs) -> bool {
        self.next == Some(t)
    }

    /// The lease: jobs it cannot run dropped, running jobs that do not run
    /// on preempted, the others started; every job that runs holds the end
    /// the lease gave it.
    fn decide(&mut self, v: &dyn View) -> Result<Option<Checked>, NoAnswer> {
        let t = v.now();
        if self.next != Some(t) {
            return Ok(None);
        }
        let (join, refused) = self.arrivals(v, t);
        let lease = self.state.lease(t, join);
        self.next = match self.state.busy() {
            true => Some(t + self.state.slot),
            false => self.next_arrival(v).map(|s| self.state.lease_at(s)),
        };
        // (A job of no duration would end now: a second on.)
        let a = rigid_answer(v, refused, lease.run, t + 1);
        let fail = |why: String| NoAnswer::Failed(format!("themis at {t}: {why}"));
        v.check(&a).map(Some).map_err(|why| fail(why.to_string()))
    }
}
