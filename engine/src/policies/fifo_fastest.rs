//! `fifo-fastest`: first come, first served on a cluster of several GPU
//! types, each job on the type it runs fastest on — Gavel's
//! heterogeneity-aware FIFO (its `FIFO_Perf`: the head job takes the
//! worker type with the highest throughput for it among the types with
//! room, one type per job, no backfill).
//!
//! The rules:
//! - Jobs start in arrival order; a job that fits on no type now blocks
//!   the ones behind it (as `fifo`). A job larger than every type it may
//!   use (all their GPUs) could never start: it is declined (dropped).
//! - It runs on a cluster of several GPU types (on one, it is `fifo`).
//! - A job runs on one GPU type, never across types: of the types with
//!   enough free GPUs for all of it, the one its throughput table gives
//!   the most iterations per second at its GPU count (a job without a
//!   table row, or a trace without tables, runs as fast on any: the first
//!   type with room, in the cluster's order). A job that asks for a type
//!   (PAI's `gpu_type_spec`) takes that one.
//! - Within the type: the machine with the fewest free GPUs that holds it
//!   whole (then the lowest index), else the machines with the most free
//!   GPUs first; the lowest free GPU indices of each.

use crate::cluster::Grant;
use crate::rule::{Books, KeyMeaning, Rule, Unavailable, Walk};
use crate::view::{Answer, Checked, NoAnswer, View};
use tracetui_model::{Demand, Trace, MILLI_PER_GPU};

pub(super) struct FifoFastest;

impl Rule for FifoFastest {
    fn name(&self) -> &str {
        "fifo-fastest"
    }

    fn describe(&self) -> &str {
        "FIFO on mixed GPU types (Gavel's FIFO with throughputs): each job on the type it runs fastest on, among the types with room for all of it"
    }

    fn walk(&self) -> Walk {
        Walk::Explicit
    }

    fn key_meaning(&self) -> KeyMeaning {
        KeyMeaning::Arrival
    }

    fn available(&self, trace: &Trace) -> Result<(), Unavailable> {
        if trace.cluster.gpu_types.len() < 2 {
            return Err(Unavailable {
                lacks: "GPUs of several types (on one type it is fifo)".into(),
                short: "one GPU type".into(),
                hint: Some("give --cluster a spec with a row per GPU type".into()),
            });
        }
        if trace
            .jobs
            .iter()
            .any(|j| !matches!(j.demand, Demand::Gang { .. }))
        {
            return Err(Unavailable {
                lacks: "jobs that ask for whole GPUs (a gang)".into(),
                short: "shared GPUs".into(),
                hint: None,
            });
        }
        Ok(())
    }

    fn books(&self, _v: &dyn View) -> Box<dyn Books> {
        Box::new(FastestBooks)
    }
}

#[derive(Debug, Clone, Copy)]
struct FastestBooks;

impl Books for FastestBooks {
    fn clone_box(&self) -> Box<dyn Books> {
        Box::new(*self)
    }

    /// Arrival order: ties break by submit time, then trace order.
    fn queued_key(&self, _v: &dyn View, _job: u32) -> u64 {
        0
    }

    fn decide(&mut self, v: &dyn View) -> Result<Option<Checked>, NoAnswer> {
        let mut free = Free::now(v);
        let mut a = Answer::default();
        let mut blocked = false;
        for job in v.queue_in_order(usize::MAX) {
            if never_fits(v.trace(), job) {
                a.drop.push(job);
                continue;
            }
            if blocked {
                continue;
            }
            match free.take_fastest(v, job) {
                Some(grants) => a.start.push((job, Some(grants))),
                None => blocked = true,
            }
        }
        if a.start.is_empty() && a.drop.is_empty() {
            return Ok(None);
        }
        v.check(&a)
            .map(Some)
            .map_err(|e| NoAnswer::Failed(format!("fifo-fastest at {}: {e}", v.now())))
    }
}

/// Whether `job` asks for more GPUs than any one type it may use holds.
fn never_fits(trace: &Trace, job: u32) -> bool {
    let j = &trace.jobs[job as usize];
    let Demand::Gang { gpus } = j.demand else {
        return true;
    };
    let types = trace.cluster.gpu_types.len() as u16;
    !(0..types)
        .filter(|&t| j.gpu_type.is_none_or(|w| w == t))
        .any(|t| {
            let held: u64 = trace
                .cluster
                .machines
                .iter()
                .filter(|m| m.gpu_type == t && !m.recorded_only)
                .map(|m| m.gpus as u64)
                .sum();
            held >= gpus as u64
        })
}

/// The free GPUs of each machine now, by index.
struct Free {
    gpus: Vec<Vec<u16>>,
}

impl Free {
    fn now(v: &dyn View) -> Free {
        let machines = &v.trace().cluster.machines;
        let mut busy: Vec<Vec<bool>> = machines
            .iter()
            .map(|m| vec![m.recorded_only; m.gpus as usize])
            .collect();
        for j in v.running_jobs() {
            for g in v.held(j).unwrap_or(&[]) {
                if let Some(b) = busy
                    .get_mut(g.machine as usize)
                    .and_then(|m| m.get_mut(g.gpu as usize))
                {
                    *b = true;
                }
            }
        }
        let gpus = busy
            .iter()
            .map(|m| (0..m.len() as u16).filter(|&i| !m[i as usize]).collect())
            .collect();
        Free { gpus }
    }

    /// `job`'s GPUs on the fastest type with room, taken; none if no type
    /// has room for all of it.
    fn take_fastest(&mut self, v: &dyn View, job: u32) -> Option<Vec<Grant>> {
        let trace = v.trace();
        let j = &trace.jobs[job as usize];
        let Demand::Gang { gpus } = j.demand else {
            return None;
        };
        let types = trace.cluster.gpu_types.len() as u16;
        let rate = |t: u16| {
            let speeds = trace.speeds.as_deref()?;
            speeds.work(job)?;
            speeds.rate(job, gpus, t)
        };
        let mut best: Option<(u16, f64)> = None;
        for t in (0..types).filter(|&t| j.gpu_type.is_none_or(|w| w == t)) {
            if self.room(trace, t) < gpus as usize {
                continue;
            }
            let r = rate(t).unwrap_or(0.0);
            if best.is_none_or(|(_, b)| r > b) {
                best = Some((t, r));
            }
        }
        let (t, _) = best?;
        Some(self.take(trace, t, gpus))
    }

    /// Free GPUs on machines of type `t`.
    fn room(&self, trace: &Trace, t: u16) -> usize {
        trace
            .cluster
            .machines
            .iter()
            .zip(&self.gpus)
            .filter(|(m, _)| m.gpu_type == t)
            .map(|(_, f)| f.len())
            .sum()
    }

    /// `gpus` GPUs on machines of type `t` (room checked): one machine
    /// that holds them, the fullest such; else the emptiest first.
    fn take(&mut self, trace: &Trace, t: u16, gpus: u32) -> Vec<Grant> {
        let mut of_type: Vec<usize> = (0..self.gpus.len())
            .filter(|&m| trace.cluster.machines[m].gpu_type == t)
            .collect();
        let one = of_type
            .iter()
            .copied()
            .filter(|&m| self.gpus[m].len() >= gpus as usize)
            .min_by_key(|&m| (self.gpus[m].len(), m));
        if let Some(m) = one {
            of_type = vec![m];
        } else {
            of_type.sort_by_key(|&m| (std::cmp::Reverse(self.gpus[m].len()), m));
        }
        let mut grants = Vec::with_capacity(gpus as usize);
        for m in of_type {
            let want = gpus as usize - grants.len();
            let n = want.min(self.gpus[m].len());
            let took: Vec<u16> = self.gpus[m].drain(..n).collect();
            grants.extend(took.into_iter().map(|gpu| Grant {
                machine: m as u32,
                gpu,
                milli: MILLI_PER_GPU as u16,
                ..Grant::default()
            }));
            if grants.len() == gpus as usize {
                break;
            }
        }
        grants
    }
}
