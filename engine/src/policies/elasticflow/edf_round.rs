//! One `edf-accessctrl` round: EDF with per-job admission, as ElasticFlow's
//! simulator runs it (`scheduler.py` `one_queue_edf_sim_jobs_access_control`,
//! 1399–1627; notes: `shared/peers/elasticflow-figures.md` §5.2). At each
//! round, in this order:
//! - progress since the last round (up to each job's planned finish, less
//!   the overhead charged then), and every placement let go;
//! - the jobs whose end is due end, late if that end is after their
//!   deadline (declined then, and no longer counted accepted);
//! - each arrival in turn is planned with every job kept, all in deadline
//!   order (`edf_plan.rs`); if any of them would miss its deadline, the
//!   arrival is declined and never runs; else it is kept and that plan is
//!   taken at once: every job holds what the plan gives it now, with the
//!   plan's finish as its end, and waiting jobs given GPUs start;
//! - if an arrival was kept, the jobs holding GPUs are placed in the order
//!   of the job list (not by size; ElasticFlow's own run stops where that
//!   fails); else every job is planned again in deadline order and takes
//!   that plan, but a running job planned no GPUs keeps its old end (it
//!   makes no progress and, unless a later round gives it GPUs again, ends
//!   there, work left, as ElasticFlow's simulator ends it: `Answer::finish`);
//! - every running job with GPUs pays ElasticFlow's cached overhead (as
//!   `elasticflow`'s, `nodes.rs`), which moves its end — unless nothing is
//!   left to come.

use super::edf_plan::{plan_all, EdfPlan};
use super::round::{no_plan, Failed, Outcome};
use super::state::State;
use crate::view::View;
use rustc_hash::FxHashMap;
use tracetui_model::Secs;

impl State {
    /// The `edf-accessctrl` round at `v.now()`.
    pub(super) fn edf_round(&mut self, v: &dyn View) -> Result<Outcome, Failed> {
        let t = v.now();
        self.progress(t, t - self.last);
        for j in self.runnable.clone() {
            let job = self.jobs.get_mut(&j).expect("books");
            job.overhead = 0;
            if let Some(id) = job.node_set.take() {
                let g = job.gpus;
                self.nodes.release(id, j, g);
            }
        }
        let mut due = self.events.remove(&t).unwrap_or_default();
        due.start.extend(self.take_arrivals(v, t));
        let mut out = Outcome::default();
        for j in due.end {
            self.end_edf(j, &mut out);
        }
        if self.admit_each(v, t, due.start, &mut out)? {
            for j in self.runnable.clone() {
                if self.jobs[&j].gpus > 0 {
                    self.put(j)?;
                }
            }
        } else {
            self.replan_edf(t)?;
        }
        for (j, hit) in self.nodes.cache_hits() {
            if let Some(job) = self.jobs.get_mut(&j) {
                job.in_cache = hit;
            }
        }
        if !self.events.is_empty() || self.next_arrival(v).is_some() {
            self.charge_overheads();
        }
        self.advance(v, t);
        self.last = t;
        Ok(self.outcome(t, out))
    }

    /// A job whose end is due ends: late (declined, no longer accepted) if
    /// its end is after its deadline. One that holds no GPUs (preempted,
    /// its old end kept) ends all the same, work left, as ElasticFlow's
    /// simulator ends it.
    fn end_edf(&mut self, j: u32, out: &mut Outcome) {
        let Some(job) = self.jobs.remove(&j) else {
            return;
        };
        self.running.retain(|&x| x != j);
        self.runnable.retain(|&x| x != j);
        self.pending.retain(|&x| x != j);
        if job.end > job.ddl {
            self.declined += 1;
            self.accepted -= 1;
        }
        if job.gpus == 0 {
            out.finished.push((j, job.end));
        }
    }

    /// Each arrival in turn: kept if every job kept and it can still be
    /// planned to meet its deadline, and that plan taken at once; else
    /// declined. Whether any was kept.
    fn admit_each(
        &mut self,
        v: &dyn View,
        t: Secs,
        arrivals: Vec<u32>,
        out: &mut Outcome,
    ) -> Result<bool, Failed> {
        let mut kept = false;
        for j in arrivals {
            if !self.arrive(v, j) {
                self.declined += 1;
                out.declined.push(j);
                continue;
            }
            let mut all: Vec<u32> = self.runnable.iter().copied().chain([j]).collect();
            let (plans, ok) =
                plan_all(&self.jobs, &mut all, t, self.n).ok_or_else(|| no_plan(j, t))?;
            if !ok {
                self.jobs.remove(&j);
                self.declined += 1;
                out.declined.push(j);
                continue;
            }
            kept = true;
            self.pending.push(j);
            self.runnable.push(j);
            self.take_plans(&plans);
        }
        Ok(kept)
    }

    /// Every job takes its plan: the GPUs it gives now and its finish as
    /// the end; waiting jobs given GPUs start.
    fn take_plans(&mut self, plans: &FxHashMap<u32, EdfPlan>) {
        for j in self.running.clone() {
            let p = plans[&j];
            let job = self.jobs.get_mut(&j).expect("books");
            job.gpus = p.now;
            let old = std::mem::replace(&mut job.end, p.end);
            self.move_end_event(j, old);
        }
        let mut starts = Vec::new();
        for &j in &self.pending {
            let p = plans[&j];
            let job = self.jobs.get_mut(&j).expect("books");
            job.gpus = p.now;
            job.end = p.end;
            if p.now > 0 {
                starts.push(j);
            }
        }
        for j in starts {
            self.start_job(j);
            self.add_end_event(j);
        }
    }

    /// No arrival kept: every job planned again in deadline order (the job
    /// list sorted so), placed in that order; a waiting job given GPUs
    /// starts, a running one takes its new end — but one planned none
    /// keeps its old end.
    fn replan_edf(&mut self, t: Secs) -> Result<(), Failed> {
        let mut all = std::mem::take(&mut self.runnable);
        let planned = plan_all(&self.jobs, &mut all, t, self.n);
        self.runnable = all;
        let first = self.runnable.first().copied().unwrap_or(0);
        let (plans, _) = planned.ok_or_else(|| no_plan(first, t))?;
        for j in self.runnable.clone() {
            let p = plans[&j];
            let job = self.jobs.get_mut(&j).expect("books");
            job.gpus = p.now;
            if p.now == 0 {
                continue;
            }
            self.put(j)?;
            let waiting = self.pending.contains(&j);
            let job = self.jobs.get_mut(&j).expect("books");
            let old = std::mem::replace(&mut job.end, p.end);
            if waiting {
                self.start_job(j);
                self.add_end_event(j);
            } else {
                self.move_end_event(j, old);
            }
        }
        Ok(())
    }
}
