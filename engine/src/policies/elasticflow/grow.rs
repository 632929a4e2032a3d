//! ElasticFlow's hand-out of the GPUs its plans leave free now
//! (`allocate_free_gpus`): one level at a time, to the job whose plan
//! gains most per GPU added — the drop in its planned GPU-seconds — with
//! jobs holding none first; every job is weighed again after each step.
//!
//! Weighing again is where its time goes, and after a step most weights
//! are what they were: a job's probe is kept, not planned again, while
//! the reservations it read are the same (`still_holds`). A plan never
//! reads the free count at the round's time, only steps after it: the
//! first, and those from where its share starts to its `reach` (`Plan`).
//! Each step notes the spans where the reservations' values changed
//! (`Steps::changes_after`); a probe that read one is stale. A count at
//! the round's time that moved leaves the steps it read the same if the
//! first of them, with its own plan given back, stays where it was.
//! Debug builds plan every kept probe again and check it.

use super::maps::{at, given_back, given_back_into, gpu_secs};
use super::plan::{plan, probe, Plan};
use super::round::{no_plan, Failed};
use super::state::State;
use std::cmp::Ordering;
use tracetui_model::Secs;

/// ElasticFlow's sentinel weights (its `sys.maxsize`).
const MAX: f64 = i64::MAX as f64;

impl State {
    /// Hands out the GPUs free at `t` after the plans.
    pub(super) fn hand_out(&mut self, t: Secs) -> Result<(), Failed> {
        let mut used = 0i64;
        for j in &self.runnable {
            let job = self.jobs.get_mut(j).expect("a runnable job has books");
            job.probe.next = job.next_level(job.gpus);
            job.probe.own = gpu_secs(&job.alloc, job.end);
            // Last round's probe read other reservations.
            job.probe.stale = true;
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
                free -= self.grow(j, t)?;
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

    /// Grows `j` one level as its probe says; the GPUs it took.
    fn grow(&mut self, j: u32, t: Secs) -> Result<i64, Failed> {
        let p = self.probe_plan(j, t)?;
        let before = std::mem::replace(&mut self.free, p.free);
        before.changes_after(&self.free, t, &mut self.changes);
        for job in self.jobs.values_mut() {
            let pr = &mut job.probe;
            pr.stale = pr.stale || self.changes.iter().any(|&c| pr.reads(c));
        }
        let job = self.jobs.get_mut(&j).expect("a runnable job has books");
        debug_assert_eq!(
            (&job.probe.alloc, job.probe.end, job.probe.real_end),
            (&p.alloc, p.end, p.real_end),
            "job {j}: its kept probe is its plan"
        );
        let old = (job.gpus, job.end);
        job.alloc = p.alloc;
        job.probe.own = p.secs;
        job.gpus = job.probe.next;
        job.end = p.end;
        job.real_end = p.real_end;
        job.probe.next = job.next_level(job.gpus);
        // Its weight stays until it is weighed again, which it must be.
        job.probe.stale = true;
        let took = job.gpus as i64 - old.0 as i64;
        if self.pending.contains(&j) {
            self.start_job(j);
        }
        self.move_end_event(j, old.1);
        Ok(took)
    }

    /// Most gain first; ties keep their order.
    /// (Sorted as gain and job pairs: the same order, one look-up a job.)
    fn sort_by_gain(&mut self) {
        let jobs = &self.jobs;
        let order = &mut self.order;
        order.clear();
        order.extend(self.runnable.iter().map(|j| (jobs[j].probe.marginal, *j)));
        order.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(Ordering::Equal));
        self.runnable.clear();
        self.runnable.extend(order.iter().map(|o| o.1));
    }

    /// `j`'s plan from its next level now, with the GPUs it holds given
    /// back (ElasticFlow's probe in `get_marginal`).
    fn probe_plan(&self, j: u32, t: Secs) -> Result<Plan, Failed> {
        let job = &self.jobs[&j];
        let tmp = given_back(&self.free, &job.alloc, job.end, self.n as i64);
        plan(job, t, self.n, &tmp, Some(job.probe.next)).ok_or_else(|| no_plan(j, t))
    }

    /// Weighs growing `j` one level with `free` GPUs free now
    /// (ElasticFlow's `get_marginal`): its probe's drop in planned
    /// GPU-seconds per GPU added.
    fn weigh(&mut self, j: u32, free: i64, t: Secs) -> Result<(), Failed> {
        let job = self.jobs.get_mut(&j).expect("books");
        let more = job.probe.next as i64 - job.gpus as i64;
        if more > free || more == 0 {
            job.probe.marginal = -MAX;
            job.probe.stale = true;
            return Ok(());
        }
        if self.still_holds(j, t) {
            if cfg!(debug_assertions) {
                let p = self.probe_plan(j, t)?;
                let pr = &self.jobs[&j].probe;
                assert_eq!(
                    (&pr.alloc, pr.end, pr.real_end),
                    (&p.alloc, p.end, p.real_end),
                    "job {j} at {t}: a kept probe differs from its plan"
                );
            }
            return Ok(());
        }
        let job = &self.jobs[&j];
        given_back_into(
            &self.free,
            &job.alloc,
            job.end,
            self.n as i64,
            &mut self.given,
        );
        let p = probe(job, t, self.n, &self.given, job.probe.next, &mut self.bufs)
            .ok_or_else(|| no_plan(j, t))?;
        let free_now = self.free.get(t).unwrap_or(i64::MIN);
        let second = self.free.key_after(t);
        let job = self.jobs.get_mut(&j).expect("books");
        debug_assert_eq!(job.probe.own, gpu_secs(&job.alloc, job.end));
        let marginal = if job.gpus == 0 {
            MAX
        } else if p.beyond && more == 0 {
            -MAX
        } else {
            (p.secs - job.probe.own) as f64 / more as f64
        };
        let pr = &mut job.probe;
        pr.marginal = marginal;
        // The probe's alloc is kept; its room goes back for the next.
        self.bufs.alloc = std::mem::replace(&mut pr.alloc, p.alloc);
        self.bufs.free = p.free;
        pr.end = p.end;
        pr.real_end = p.real_end;
        pr.reach = p.reach;
        pr.first = p.first;
        pr.from = p.from;
        pr.free_now = free_now;
        pr.second = second;
        pr.stale = p.reach == Secs::MAX || p.first.is_none();
        Ok(())
    }

    /// Whether `j`'s probe is its plan on today's reservations: none of
    /// the steps it read after `t` changed since (`Probe::reads`), and if
    /// the count at `t` did, the first step after `t` of the reservations
    /// with its own plan given back is the reservations' own, as it was,
    /// and still a step.
    fn still_holds(&self, j: u32, t: Secs) -> bool {
        let job = &self.jobs[&j];
        let pr = &job.probe;
        if pr.stale {
            return false;
        }
        let Some(now) = self.free.get(t) else {
            return false;
        };
        if now == pr.free_now {
            return true;
        }
        let Some((k1, f1)) = self.free.since(t.saturating_add(1)).first().copied() else {
            return false;
        };
        let held = |k: Secs| {
            if k < job.end {
                at(&job.alloc, k).unwrap_or(0) as i64
            } else {
                0
            }
        };
        pr.first == Some(k1) && pr.second == Some(k1) && now + held(t) != f1 + held(k1)
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
