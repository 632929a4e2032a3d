//! ElasticFlow's hand-out of the GPUs its plans leave free now
//! (`allocate_free_gpus`): one level at a time, to the job whose plan
//! gains most per GPU added — the drop in its planned GPU-seconds — with
//! jobs holding none first; every job is weighed again after each step.

use super::maps::{given_back, gpu_secs};
use super::plan::plan;
use super::round::{no_plan, Failed};
use super::state::State;
use crate::trace::model::Secs;
use std::cmp::Ordering;

/// ElasticFlow's sentinel weights (its `sys.maxsize`).
const MAX: f64 = i64::MAX as f64;

impl State {
    /// Hands out the GPUs free at `t` after the plans.
    pub(super) fn hand_out(&mut self, t: Secs) -> Result<(), Failed> {
        let mut used = 0i64;
        for j in &self.runnable {
            let job = self.jobs.get_mut(j).expect("a runnable job has books");
            job.probe.next = job.next_level(job.gpus);
            used += job.gpus as i64;
        }
        let mut free = self.n as i64 - used;
        if free <= 0 {
            return Ok(());
        }
        for j in self.runnable.clone() {
            self.weigh(j, free, t)?;
        }
        self.sort_by_gain();
        let mut grew = true;
        while free > 0 && grew {
            grew = false;
            for j in self.runnable.clone() {
                let job = &self.jobs[&j];
                let more = job.probe.next as i64 - job.gpus as i64;
                if more > free || more == 0 {
                    continue;
                }
                let job = self.jobs.get_mut(&j).expect("a runnable job has books");
                let p = std::mem::take(&mut job.probe);
                // Its weight stays until it is weighed again.
                job.probe.marginal = p.marginal;
                let old = (job.gpus, job.end);
                job.alloc = p.alloc;
                job.gpus = p.next;
                job.end = p.end;
                job.real_end = p.real_end;
                job.probe.next = job.next_level(job.gpus);
                self.free = p.free;
                if self.pending.contains(&j) {
                    self.start_job(j);
                }
                self.move_end_event(j, old.1);
                free -= p.next as i64 - old.0 as i64;
                grew = true;
                break;
            }
            for j in self.runnable.clone() {
                let job = &self.jobs[&j];
                if job.probe.next > job.gpus {
                    self.weigh(j, free, t)?;
                }
            }
            self.sort_by_gain();
        }
        Ok(())
    }

    /// Most gain first; ties keep their order.
    fn sort_by_gain(&mut self) {
        let jobs = &self.jobs;
        self.runnable.sort_by(|a, b| {
            let (ga, gb) = (jobs[a].probe.marginal, jobs[b].probe.marginal);
            gb.partial_cmp(&ga).unwrap_or(Ordering::Equal)
        });
    }

    /// Weighs growing `j` one level with `free` GPUs free now
    /// (ElasticFlow's `get_marginal`): its plan with the GPUs it holds
    /// given back, probed from the next level now.
    fn weigh(&mut self, j: u32, free: i64, t: Secs) -> Result<(), Failed> {
        let n = self.n;
        let job = &self.jobs[&j];
        let more = job.probe.next as i64 - job.gpus as i64;
        if more > free || more == 0 {
            self.jobs.get_mut(&j).expect("books").probe.marginal = -MAX;
            return Ok(());
        }
        let tmp = given_back(&self.free, &job.alloc, job.end, n as i64);
        let p = plan(job, t, n, &tmp, Some(job.probe.next)).ok_or_else(|| no_plan(j, t))?;
        let marginal = if job.gpus == 0 {
            MAX
        } else if p.beyond && more == 0 {
            -MAX
        } else {
            (gpu_secs(&p.alloc, p.end) - gpu_secs(&job.alloc, job.end)) as f64 / more as f64
        };
        let job = self.jobs.get_mut(&j).expect("books");
        job.probe.marginal = marginal;
        job.probe.alloc = p.alloc;
        job.probe.free = p.free;
        job.probe.end = p.end;
        job.probe.real_end = p.real_end;
        Ok(())
    }

    /// A pending job starts at `t` (the engine keeps its start time).
    pub(super) fn start_job(&mut self, j: u32) {
        self.pending.retain(|&x| x != j);
        self.running.push(j);
        if !self.jobs[&j].best_effort() {
            self.accepted += 1;
        }
    }
}
