//! Jobs that run at the speed of their GPUs (`trace::speed`): a job with
//! work runs `ceil(work left ÷ rate)` seconds, its rate that of the GPUs it
//! holds — their count, and the slowest of their types (a gang moves as
//! one) — slowed by its power limit where an energy model is given. What
//! it has done is kept in iterations, so a job preempted on one GPU type
//! and resumed on another goes on from where it was.

use super::Engine;
use crate::cluster::Grant;
use crate::policy::Walk;
use tracetui_model::{Demand, Secs, Speeds, MILLI_PER_GPU};

impl Engine {
    /// Iterations per second of `job` on `grants`, or — with none — on
    /// what it asks for, on the fastest GPU type of the cluster (what a
    /// policy may expect of it). None: it keeps its recorded duration.
    pub(super) fn speed_rate(&self, job: u32, grants: Option<&[Grant]>) -> Option<f64> {
        if self.seat.walk == Walk::Recorded {
            return None;
        }
        let speeds = self.trace.speeds.as_deref()?;
        speeds.work(job)?;
        let rate = match grants {
            Some(g) => {
                let milli: u64 = g.iter().map(|g| g.milli as u64).sum();
                let gpus = (milli / MILLI_PER_GPU as u64).max(1) as u32;
                let machines = &self.trace.cluster.machines;
                g.iter()
                    .filter_map(|g| machines.get(g.machine as usize))
                    .map(|m| speeds.rate(job, gpus, m.gpu_type))
                    .try_fold(f64::INFINITY, |lo, r| r.map(|r| lo.min(r)))?
            }
            None => {
                let gpus = match &self.trace.jobs[job as usize].demand {
                    Demand::Gang { gpus } => *gpus,
                    d => d.gpus_ceil().max(1) as u32,
                };
                let types = self.trace.cluster.gpu_types.len() as u16;
                (0..types)
                    .filter_map(|t| speeds.rate(job, gpus, t))
                    .fold(f64::NAN, f64::max)
            }
        };
        let factor = self.draw_of(job).map_or(1.0, |d| d.time_factor);
        let rate = rate / factor;
        (rate.is_finite() && rate > 0.0).then_some(rate)
    }

    /// Iterations `job` still has to do, when it runs from the tables.
    pub(super) fn work_left(&self, job: u32) -> Option<f64> {
        let work = self.trace.speeds.as_deref()?.work(job)?;
        Some((work - self.resumed(job).map_or(0.0, |r| r.work_done)).max(0.0))
    }

    /// Seconds `job` needs at `rate` for the work it has left.
    pub(super) fn secs_at(&self, job: u32, rate: f64) -> Option<Secs> {
        Some(Speeds::seconds(self.work_left(job)?, rate))
    }
}

impl Engine {
    /// The run time `job` needs from the throughput tables: its work on
    /// the GPUs it asks for, on the fastest GPU type (None: it has no
    /// speed, and its run time is the trace's).
    pub fn speed_runtime(&self, job: u32) -> Option<Secs> {
        let rate = self.speed_rate(job, None)?;
        Some(Speeds::seconds(
            self.trace.speeds.as_deref()?.work(job)?,
            rate,
        ))
    }
}

/// A job's progress under the speed model, now.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    /// Its work: iterations (throughput tables), or seconds of its
    /// recorded run (GPU-type factors: `iterations` false).
    pub work: f64,
    /// What is left of it.
    pub left: f64,
    pub iterations: bool,
    /// Running: its rate on the GPUs it holds, and how many.
    pub rate: Option<f64>,
    pub gpus: u32,
}

impl Engine {
    /// `job`'s progress under the speed model (None: it runs for its
    /// recorded duration, or the replay walks the record).
    pub fn progress(&self, job: u32) -> Option<Progress> {
        let speeds = self.trace.speeds.as_deref()?;
        let work = speeds.work(job)?;
        if self.seat.walk == Walk::Recorded {
            return None;
        }
        let left = self.work_left_now(job)?;
        let (rate, gpus) = match self.running.get(&job) {
            Some(g) => {
                let milli: u64 = g.iter().map(|g| g.milli as u64).sum();
                let gpus = (milli / MILLI_PER_GPU as u64) as u32;
                (self.speed_rate(job, Some(g)), gpus)
            }
            None => (None, 0),
        };
        Some(Progress {
            work,
            left,
            iterations: speeds.factors().is_none(),
            rate,
            gpus,
        })
    }

    /// Seconds until `job` ends: running, at its end now; waiting, if it
    /// started now on what it asks for (fastest type), restart cost and
    /// work done counted. None: done, dropped, or with no known end.
    pub fn secs_to_end(&self, job: u32) -> Option<Secs> {
        let st = &self.jobs[job as usize];
        match st.phase {
            crate::job::Phase::Running => self.trace.jobs[job as usize]
                .runtime
                .get()
                .or(self.speed_runtime(job))
                .map(|_| (st.end - self.now).max(0)),
            crate::job::Phase::Queued => self.time_left(job),
            _ => None,
        }
    }
}
