//! Elastic jobs and admission control: a deciding policy may resize a
//! running job (its gang grows, shrinks or moves as one), start a waiting
//! one on a GPU count of its choosing, or decline a waiting one.
//!
//! A job is elastic when it is a gang that runs from throughput tables
//! (`trace::speed`): it may hold 1 to `Speeds::max_gpus` whole GPUs. A
//! resize settles the work done on the old GPUs (in iterations, as a
//! preemption does), lets them go, places the new count by the placement
//! rule (keeping the old GPUs when the count is unchanged and they are
//! still free), and charges `Tuning::rescale_cost` seconds without progress
//! before the job goes on at the new GPUs' rate. Rigid jobs stay rigid.

use super::{Engine, Event, Phase, Resume};
use crate::cluster::{ClusterState, Grant};
use crate::error::Refused;
use crate::placement::place;
use crate::view::{Answer, Checked, View};
use rustc_hash::FxHashSet;
use tracetui_model::{Demand, Secs, MILLI_PER_GPU};

impl Engine {
    /// The GPU counts `job` may hold, if it is elastic.
    pub(super) fn elastic_range(&self, job: u32) -> Option<(u32, u32)> {
        let speeds = self.trace.speeds.as_deref()?;
        speeds.work(job)?;
        matches!(self.trace.jobs[job as usize].demand, Demand::Gang { .. })
            .then(|| speeds.max_gpus(job).map(|max| (1, max)))
            .flatten()
    }

    /// Checks an answer's drops and scalings on `scratch` (the cluster
    /// after its preemptions), into `out`; `started` are the jobs this
    /// answer starts (a job is started or scaled once).
    pub(super) fn check_elastic(
        &self,
        a: &Answer,
        scratch: &mut Option<ClusterState>,
        out: &mut Checked,
        started: &mut FxHashSet<u32>,
    ) -> Result<(), Refused> {
        let mut dropped = FxHashSet::default();
        for &j in &a.drop {
            let waiting = self.jobs.get(j as usize).map(|s| s.phase) == Some(Phase::Queued);
            if !waiting || !dropped.insert(j) {
                return Err(Refused::Drop { job: j });
            }
            out.drop.push(j);
        }
        if a.scale.is_empty() {
            return Ok(());
        }
        let s = scratch.get_or_insert_with(|| self.cluster.clone());
        let mut named = FxHashSet::default();
        for &(j, gpus) in &a.scale {
            let phase = self.jobs.get(j as usize).map(|s| s.phase);
            let ok = match phase {
                Some(Phase::Queued) => !dropped.contains(&j),
                Some(Phase::Running) => !out.preempt.contains(&j) && self.preemptable(j),
                _ => false,
            };
            if !ok || !named.insert(j) || !started.insert(j) {
                return Err(Refused::Scale { job: j });
            }
            let (min, max) = self
                .elastic_range(j)
                .ok_or(Refused::NotElastic { job: j })?;
            if !(min..=max).contains(&gpus) {
                return Err(Refused::ScaleRange {
                    job: j,
                    gpus,
                    min,
                    max,
                });
            }
            if phase == Some(Phase::Running) {
                s.release(j, &self.running[&j]);
            }
        }
        for &(j, gpus) in &a.scale {
            let mut g = self.scaled_grants(s, j, gpus);
            if g.is_none() && a.scale_down_to_fit {
                let levels = self.trace.speeds.as_deref().map(|sp| sp.levels(j));
                g = levels
                    .unwrap_or_default()
                    .iter()
                    .rev()
                    .filter(|&&k| k < gpus)
                    .find_map(|&k| self.scaled_grants(s, j, k));
            }
            match g {
                Some(g) => {
                    s.acquire(j, &g);
                    out.scale.push((j, g));
                }
                None if !a.scale_down_to_fit => {
                    return Err(Refused::ScaleNoFit {
                        job: j,
                        gpus,
                        placement: self.placement.name(),
                        free: s.free_gpus(crate::cluster::TypeFilter::Any),
                    })
                }
                None if self.running.get(&j).is_some() => out.preempt.push(j),
                None => {}
            }
        }
        Ok(())
    }

    /// Where `job` goes on `gpus` whole GPUs in `s`: its own GPUs if it
    /// holds that many and they are free there, else where the placement
    /// rule puts a gang of that size on the types it may use.
    fn scaled_grants(&self, s: &mut ClusterState, job: u32, gpus: u32) -> Option<Vec<Grant>> {
        if let Some(old) = self.running.get(&job) {
            let free = old.iter().filter(|g| g.has_gpu()).all(|g| {
                s.used_milli(s.first_gpu(g.machine) + g.gpu as usize) + g.milli as u32 <= 1000
            });
            if gpus_of(old) == gpus && free {
                return Some(old.to_vec());
            }
        }
        let filter = self.shapes.shapes[self.shapes.class_of[job as usize] as usize].1;
        place(s, self.placement, &Demand::Gang { gpus }, filter)
    }

    /// Applies checked drops and scalings (after preemptions, before starts).
    pub(super) fn apply_elastic(&mut self, drop: Vec<u32>, scale: Vec<(u32, Vec<Grant>)>) {
        for j in drop {
            self.drop_job(j);
        }
        let moving: Vec<(u32, Vec<Grant>)> = scale
            .into_iter()
            .filter(|(j, g)| self.running.get(j).is_none_or(|old| old != g.as_slice()))
            .collect();
        // Every resized job lets its GPUs go before any is placed again.
        let mut resized = Vec::new();
        for (j, _) in &moving {
            if let Some(old) = self.running.get(j) {
                let old = old.to_vec();
                self.cluster.release(*j, &old);
                resized.push((*j, gpus_of(&old)));
            }
        }
        if !resized.is_empty() {
            self.epoch += 1;
        }
        for (j, g) in moving {
            match resized.iter().find(|(r, _)| *r == j) {
                Some(&(_, from)) => self.resize(j, from, &g),
                None => self.start(j, &g),
            }
        }
    }

    /// Checks the ends an answer holds against what it does (`out`): each
    /// for a job that runs after it, later than now, named once.
    pub(super) fn check_ends(
        &self,
        a: &Answer,
        out: &Checked,
    ) -> Result<Vec<(u32, Secs)>, Refused> {
        let mut named = FxHashSet::default();
        let mut ends = Vec::with_capacity(a.ends.len());
        for &(j, at) in &a.ends {
            let scaled = out.scale.iter().any(|(s, _)| *s == j);
            // A resize that found no level to fit left it without GPUs:
            // its end goes with it.
            let shrunk_away =
                a.scale_down_to_fit && !scaled && a.scale.iter().any(|(s, _)| *s == j);
            let running = self.jobs.get(j as usize).map(|s| s.phase) == Some(Phase::Running)
                && !out.preempt.contains(&j);
            let runs = running || scaled || out.start.iter().any(|(s, _)| *s == j);
            if !(runs || shrunk_away) || at <= self.now || !named.insert(j) {
                return Err(Refused::End { job: j, at });
            }
            if !shrunk_away {
                ends.push((j, at));
            }
        }
        Ok(ends)
    }

    /// `job` ends at `at`, as its policy holds (the end its work gives
    /// kept, to go back to when the policy is left).
    pub(super) fn hold_end(&mut self, job: u32, at: Secs) {
        let st = &self.jobs[job as usize];
        if st.phase != Phase::Running || st.end == at {
            return;
        }
        self.held_ends.hold(job, st.end);
        self.move_end(job, at);
    }

    /// Moves running `job`'s end to `at`.
    fn move_end(&mut self, job: u32, at: Secs) {
        let st = &mut self.jobs[job as usize];
        self.completions.remove(st.end, job);
        st.end = at;
        self.completions.push(at, job);
    }

    /// Leaving a policy that held ends: each job it held ends when its
    /// work gives, not at an end the policy held (a slot grid, a plan) —
    /// which no policy after it would ever move. A job whose work ran out
    /// by now ends now, before the policy entered plans: left running, the
    /// next policy could preempt it with no work left, and a job queued
    /// with none was never started again.
    pub(super) fn release_held_ends(&mut self) {
        for (job, natural) in self.held_ends.release() {
            let st = &self.jobs[job as usize];
            if st.phase != Phase::Running {
                continue;
            }
            if natural <= self.now {
                self.completions.remove(st.end, job);
                self.finish(job);
                self.epoch += 1;
            } else if st.end != natural {
                self.move_end(job, natural);
            }
        }
    }

    /// Leaving a policy: a waiting job with no work left ends now. A
    /// policy that holds jobs to its slots (elasticflow) may stop one whose
    /// work ran out and end it at a later slot of its own; no policy after
    /// it would start a job for no work, and it would wait for ever.
    pub(super) fn end_waiting_without_work(&mut self) {
        let done: Vec<u32> = self
            .queue
            .entries()
            .map(|(_, _, r)| self.shapes.arrival[r as usize])
            // Only jobs that ran and were stopped (a job that never started
            // starts as its policy says, whatever its work).
            .filter(|&j| self.resumed(j).is_some())
            .filter(|&j| self.work_left(j).is_some_and(|left| left <= 0.0))
            .collect();
        for job in done {
            self.dequeue(job);
            self.finish(job);
            self.epoch += 1;
        }
    }

    /// A waiting job declined by the policy: out of the queue for good.
    fn drop_job(&mut self, job: u32) {
        self.dequeue(job);
        self.jobs[job as usize].phase = Phase::Dropped;
        let submit = self.trace.jobs[job as usize].submit;
        self.tally.on_drop(submit);
        self.emit(Event::Dropped { job, at: self.now });
        if !self.seat.passive {
            self.with_books(|b, v, a| b.dropped(v, a, job));
        }
    }

    /// Moves running `job` (its old GPUs released already, `from` of
    /// them) onto `grants`: its work so far is settled in iterations, and
    /// it goes on after the rescale cost at the new GPUs' rate.
    fn resize(&mut self, job: u32, from: u32, grants: &[Grant]) {
        let mut r = self.stop_run(job);
        let now = self.now;
        r.run_from = now;
        r.overhead = self.tuning.rescale_cost;
        self.resumes.insert(job, r);
        let end = self.jobs[job as usize].end;
        self.completions.remove(end, job);
        self.power_off(job as u64);
        self.cluster.acquire(job, grants);
        let milli: u64 = grants.iter().map(|g| g.milli as u64).sum();
        self.power_on(job as u64, job, milli as f64 / 1000.0, false);
        let left = self
            .speed_rate(job, Some(grants))
            .and_then(|rate| self.secs_at(job, rate))
            .unwrap_or(0);
        let st = &mut self.jobs[job as usize];
        st.end = now + self.tuning.rescale_cost + left;
        st.machines = machines_of(grants).min(u16::MAX as usize) as u16;
        self.completions.push(st.end, job);
        self.note_placed(job, grants);
        self.running.insert(job, grants);
        self.tally.resizes += 1;
        self.emit(Event::Resized {
            job,
            at: now,
            from,
            to: gpus_of(grants),
        });
        self.on_resized(job, from, milli);
    }

    /// The books hear of a resized job (as a start, unless they care).
    fn on_resized(&mut self, job: u32, from: u32, milli: u64) {
        if self.seat.walk == crate::policy::Walk::Preemptive {
            self.track_running(job);
        }
        if !self.seat.passive {
            self.with_books(|b, v, a| b.resized(v, a, job, from, milli));
        }
    }

    /// Iterations `job` has left now, its current run counted.
    pub(super) fn work_left_now(&self, job: u32) -> Option<f64> {
        let left = self.work_left(job)?;
        let Some(g) = self.running.get(&job) else {
            return Some(left);
        };
        let Resume {
            run_from, overhead, ..
        } = self.resume(job);
        let ran = (self.now - run_from - overhead).max(0);
        let rate = self.speed_rate(job, Some(g)).unwrap_or(0.0);
        Some((left - ran as f64 * rate).max(0.0))
    }

    /// Iterations per second of `job` on `gpus` GPUs of the slowest type.
    pub(super) fn rate_slowest(&self, job: u32, gpus: u32) -> Option<f64> {
        let speeds = self.trace.speeds.as_deref()?;
        speeds.work(job)?;
        let types = self.trace.cluster.gpu_types.len().max(1) as u16;
        let rate = (0..types)
            .filter_map(|t| speeds.rate(job, gpus, t))
            .fold(f64::INFINITY, f64::min);
        let factor = self.draw_of(job).map_or(1.0, |d| d.time_factor);
        let rate = rate / factor;
        (rate.is_finite() && rate > 0.0).then_some(rate)
    }
}

/// Whole GPUs a set of grants adds up to.
fn gpus_of(g: &[Grant]) -> u32 {
    (g.iter().map(|g| g.milli as u64).sum::<u64>() / MILLI_PER_GPU as u64) as u32
}

/// Machines a set of grants (grouped by machine) spans.
fn machines_of(g: &[Grant]) -> usize {
    g.iter()
        .enumerate()
        .filter(|&(i, x)| i == 0 || g[i - 1].machine != x.machine)
        .count()
}
