//! ElasticFlow's EDF planner, as its `edf-accessctrl` plans with it
//! (`scheduler.py` `edf_sim_allocation`, 766–926, and
//! `EDF_estimate_all_jobs`, 1063–1071). Every job is planned in deadline
//! order against the reservations of the jobs before it, from one empty
//! cluster at the round's time:
//! - a job walks the reservations' steps from now; at each it takes its
//!   most GPUs (its largest table column, at most the cluster's) if that
//!   many are free there, else the largest column that is (at least 1),
//!   else none;
//! - where its finish at that rate (now + iterations left / rate, rounded
//!   up) falls by the next step, it stops: its GPUs are reserved up to
//!   that finish, and the step after it (on the slot grid from now) is
//!   set to what was free before — as ElasticFlow does, even where a step
//!   was already there;
//! - otherwise it runs the step at that rate and walks on; past the last
//!   step it takes its most GPUs on an empty cluster, and the last step is
//!   set so;
//! - it is late if that finish is after its deadline, or if its walk
//!   passed the deadline on the way.

use super::job::Job;
use super::maps::{align, ceil_secs, Free};
use rustc_hash::FxHashMap;
use tracetui_model::Secs;

/// One job's plan: the GPUs it holds at the plan's time, its planned
/// finish (to the second), and whether it keeps its deadline.
#[derive(Debug, Clone, Copy)]
pub(super) struct EdfPlan {
    pub(super) now: u32,
    pub(super) end: Secs,
    pub(super) ok: bool,
}

/// Plans every job of `list` at `t` on an empty cluster of `n` GPUs,
/// sorting `list` by deadline (stable) first: each job's plan, and
/// whether every one keeps its deadline. None where ElasticFlow's own
/// simulator stops (a reservation below zero; a rate its table lacks).
pub(super) fn plan_all(
    jobs: &FxHashMap<u32, Job>,
    list: &mut [u32],
    t: Secs,
    n: u32,
) -> Option<(FxHashMap<u32, EdfPlan>, bool)> {
    list.sort_by_key(|j| jobs[j].ddl);
    let mut free = Free::from([(t, n as i64)]);
    let mut plans = FxHashMap::default();
    let mut ok = true;
    for &j in list.iter() {
        let p = plan(&jobs[&j], t, n, &mut free)?;
        ok &= p.ok;
        plans.insert(j, p);
    }
    Some((plans, ok))
}

/// The rate of `job` on `g` GPUs, where its table has that column.
fn rate(job: &Job, g: u32) -> Option<f64> {
    job.levels.iter().find(|l| l.0 == g).map(|l| l.1)
}

/// Plans `job` from `start` on the reservations `free`, which take its
/// plan (`edf_sim_allocation`).
fn plan(job: &Job, start: Secs, n: u32, free: &mut Free) -> Option<EdfPlan> {
    let old = free.clone();
    let mut walk = Walk {
        job,
        start,
        n,
        new: free.clone(),
        et: start,
        left: job.iter_left,
        now: 0,
        ok: true,
    };
    walk.new.drop_before(start);
    let mut avail = walk.new.get(start)?;
    let base = job.max_gpu().min(n);
    for (fe, fv) in old.iter() {
        if fe <= walk.et {
            avail = fv;
            continue;
        }
        let dur = (fe - walk.et) as f64;
        // Its most GPUs if free; else the largest column that is (and then,
        // unlike the first case, now's step is set even where it ends).
        let take = if avail >= base as i64 && base > 0 {
            Some((base, rate(job, base)?, false))
        } else if avail >= 1 && base > 0 {
            let fit = job.levels.iter().take_while(|l| l.0 as i64 <= avail);
            let (g, tp) = fit.last().copied()?;
            Some((g, tp, true))
        } else {
            None
        };
        match take {
            Some((g, tp, always)) => {
                walk.set(g);
                let est = ceil_secs(walk.et as f64 + walk.left / tp);
                if fe >= est {
                    return walk.finish(&old, (g, est, avail), always, free);
                }
                walk.left -= dur * tp;
                walk.take_now(g)?;
            }
            None if avail < 1 => walk.set(0),
            None => {}
        }
        avail = walk.new.get(fe)?;
        walk.et = fe;
        if walk.et > job.ddl {
            walk.ok = false;
        }
    }
    walk.beyond(base, free)
}

/// A job's walk over the reservations.
struct Walk<'a> {
    job: &'a Job,
    start: Secs,
    n: u32,
    /// The reservations as this plan changes them.
    new: Free,
    /// The step it stands at, and the iterations it has left there.
    et: Secs,
    left: f64,
    /// The GPUs it holds at `start`.
    now: u32,
    ok: bool,
}

impl Walk<'_> {
    fn set(&mut self, g: u32) {
        if self.et == self.start {
            self.now = g;
        }
    }

    /// Its `g` GPUs reserved at the step it stands at.
    fn take_now(&mut self, g: u32) -> Option<()> {
        let v = self.new.at_or_insert(self.et, self.n as i64);
        *v -= g as i64;
        (*v >= 0).then_some(())
    }

    /// It finishes at `est` on `g` GPUs from the step it stands at: its
    /// GPUs reserved on every step up to `est`, the step after set to what
    /// was free before it; `avail` free at the step, less its GPUs, is
    /// what the step keeps (`always`: even where it finishes there).
    fn finish(
        mut self,
        old: &Free,
        (g, est, avail): (u32, Secs, i64),
        always: bool,
        free: &mut Free,
    ) -> Option<EdfPlan> {
        let mut last = self.n as i64;
        for (k, _) in old.since(self.et).iter().take_while(|e| e.0 < est) {
            let v = self.new.at_or_insert(*k, 0);
            last = *v;
            *v -= g as i64;
            if *v < 0 {
                return None;
            }
        }
        if always || self.et != est {
            self.new.insert(self.et, avail - g as i64);
        }
        if self.new.get(self.et)? < 0 {
            return None;
        }
        if !old.contains_key(est) {
            self.new.insert(align(self.job.slot, self.start, est), last);
        }
        self.done(est, free)
    }

    /// Past the last step: its most GPUs on an empty cluster.
    fn beyond(mut self, base: u32, free: &mut Free) -> Option<EdfPlan> {
        let tp = rate(self.job, base)?;
        self.set(base);
        let est = ceil_secs(self.et as f64 + self.left / tp);
        self.new.insert(self.et, (self.n - base) as i64);
        self.new
            .insert(align(self.job.slot, self.start, est), self.n as i64);
        self.done(est, free)
    }

    fn done(self, est: Secs, free: &mut Free) -> Option<EdfPlan> {
        *free = self.new.merged();
        Some(EdfPlan {
            now: self.now,
            end: est,
            ok: self.ok && est <= self.job.ddl,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn job(ddl: Secs, iters: f64) -> Job {
        let levels: Arc<[(u32, f64)]> = Arc::from(vec![(1, 1.0), (2, 2.0), (4, 4.0), (8, 8.0)]);
        Job::new(ddl, iters, levels, 60)
    }

    #[test]
    fn jobs_are_planned_by_deadline_each_after_the_last_step_of_the_one_before() {
        // 8 GPUs: b (deadline 130) first, all 8 for 50 s; its GPUs come back
        // on the 60-s grid, so a (deadline 1,000) waits until 60 and ends
        // at 60 + 800 / 8.
        let jobs: FxHashMap<u32, Job> = [(0, job(1_000, 800.0)), (1, job(130, 400.0))]
            .into_iter()
            .collect();
        let mut list = vec![0, 1];
        let (plans, ok) = plan_all(&jobs, &mut list, 0, 8).unwrap();
        assert_eq!(list, vec![1, 0]);
        assert!(ok);
        assert_eq!((plans[&1].now, plans[&1].end), (8, 50));
        assert_eq!((plans[&0].now, plans[&0].end), (0, 160));
        // With a deadline before 160, a's plan is late, and so the whole.
        let jobs: FxHashMap<u32, Job> = [(0, job(150, 800.0)), (1, job(130, 400.0))]
            .into_iter()
            .collect();
        let (plans, ok) = plan_all(&jobs, &mut list, 0, 8).unwrap();
        assert!(!ok && plans[&1].ok && !plans[&0].ok);
    }

    #[test]
    fn a_job_takes_the_largest_column_that_is_free_where_its_most_is_not() {
        // 6 GPUs free now (2 held until 60): the largest column that fits
        // is 4; 100 iterations at 4/s end at 25, before the next step.
        let jobs: FxHashMap<u32, Job> = [(0, job(1_000, 100.0))].into_iter().collect();
        let mut free = Free::from([(0, 6), (60, 8)]);
        let p = plan(&jobs[&0], 0, 8, &mut free).unwrap();
        assert_eq!((p.now, p.end, p.ok), (4, 25, true));
        // Its 4 GPUs are held to its end; the step after it (on the grid
        // from now: 60) is set to what was free before it, 6, though 8 are
        // free from then: ElasticFlow's `edf_sim_allocation` does so.
        assert_eq!(free, Free::from([(0, 2), (60, 6)]));
    }
}
