//! Preemption, for `srtf`, `las`, `fair` and `edf`.
//!
//! A pass walks the queue in the policy's order. A job that fits starts; one
//! that does not may take the GPUs of running jobs of strictly lower
//! priority: their GPUs are freed lowest first until a placement exists (or
//! none are taken, if even all of them would not do), and only the jobs
//! whose GPUs the placement uses are preempted. Then every waiting job that
//! still fits starts. A preempted job goes back to the queue keeping the
//! work it has done and pays `preempt_cost` seconds when it resumes.
//!
//! Victims are strictly lower in priority than the job that preempts them
//! and go back to the queue behind it, so a pass never preempts a job it
//! started and always ends.

use super::{Engine, Event, Phase, Resume};
use crate::policy::Walk;
use tracetui_model::Secs;

impl Engine {
    /// The work `job` carries if it was ever preempted (no hash lookup
    /// while no job ever was, as under a policy that never preempts).
    #[inline]
    pub(super) fn resumed(&self, job: u32) -> Option<&Resume> {
        match self.resumes.is_empty() {
            true => None,
            false => self.resumes.get(&job),
        }
    }

    #[inline]
    pub(super) fn resume(&self, job: u32) -> Resume {
        self.resumed(job).copied().unwrap_or(Resume {
            run_from: self.jobs[job as usize].start,
            ..Resume::default()
        })
    }

    /// Seconds the job still needs if it (re)starts now: its run time less
    /// the work done, plus the restart cost if it was preempted.
    #[inline]
    pub(super) fn time_left(&self, job: u32) -> Option<Secs> {
        self.time_left_on(job, None)
    }

    /// The same on `grants` (a job with a speed runs at theirs), or with
    /// none on what it asks for.
    pub(super) fn time_left_on(
        &self,
        job: u32,
        grants: Option<&[crate::cluster::Grant]>,
    ) -> Option<Secs> {
        if let Some(rate) = self.speed_rate(job, grants) {
            let cost = self.resumed(job).map_or(0, |_| self.restart_cost(job));
            return Some(self.secs_at(job, rate)? + cost);
        }
        let rt = self.runtime_of(job)?;
        Some(match self.resumed(job) {
            Some(r) => (rt - r.done).max(0) + self.tuning.preempt_cost,
            None => rt,
        })
    }

    /// Seconds a preempted `job` pays when it runs again: the rescale cost
    /// for an elastic job under a policy that places jobs itself (it comes
    /// back from none GPUs as a scaling, as ElasticFlow charges it), else
    /// the preemption cost.
    pub(super) fn restart_cost(&self, job: u32) -> Secs {
        if self.seat.walk == Walk::Explicit && self.elastic_range(job).is_some() {
            self.tuning.rescale_cost
        } else {
            self.tuning.preempt_cost
        }
    }

    /// Attained service now, milli-GPU-seconds (running jobs included).
    #[inline]
    pub(super) fn attained(&self, job: u32) -> u128 {
        let r = self.resume(job);
        match (self.jobs[job as usize].phase, self.running.get(&job)) {
            (Phase::Running, Some(g)) => {
                let milli: u128 = g.iter().map(|g| g.milli as u128).sum();
                r.attained + milli * (self.now - r.run_from).max(0) as u128
            }
            _ => r.attained,
        }
    }

    /// Book-keeping when a job starts under a preemptive policy (or any
    /// policy, for a resumed job).
    pub(super) fn on_preemptive_start(&mut self, job: u32, milli: u64) {
        if !self.resumes.is_empty() {
            let cost = self.restart_cost(job);
            if let Some(r) = self.resumes.get_mut(&job) {
                r.run_from = self.now;
                r.overhead = cost;
            }
        }
        if self.seat.walk == Walk::Preemptive {
            self.track_running(job);
        }
        if !self.seat.passive {
            self.with_books(|b, v, a| b.started(v, a, job, milli));
        }
    }

    pub(super) fn track_running(&mut self, job: u32) {
        self.pre.vepoch += 1;
        if self.books().ranks_running() {
            let k = self.books().running_key(self, job);
            self.pre.by_key.insert((k, self.shapes.rank[job as usize]));
            self.pre.key_of.insert(job, k);
        }
    }

    /// A running job stops (finishes or is preempted): forget its priority.
    pub(super) fn untrack_running(&mut self, job: u32, milli: u64) {
        if !self.pre.key_of.is_empty() {
            if let Some(k) = self.pre.key_of.remove(&job) {
                let rank = self.shapes.rank[job as usize];
                self.pre.by_key.remove(&(k, rank));
            }
        }
        if !self.seat.passive {
            self.with_books(|b, v, a| b.stopped(v, a, job, milli));
        }
    }

    /// The preemptive walk (see the module notes).
    pub(super) fn walk_preemptive(&mut self) {
        let mut cursor: Option<(u64, u32)> = None;
        // Classes whose member could not start even by preempting, in this
        // pass and capacity epoch: later members (walked in key order) have
        // fewer possible victims, so they cannot either. Jobs arriving later
        // may rank earlier, so this never outlives the pass.
        let mut failed: rustc_hash::FxHashSet<u32> = Default::default();
        let mut failed_epoch = self.epoch;
        loop {
            if failed_epoch != self.epoch {
                failed.clear();
                failed_epoch = self.epoch;
            }
            let next =
                self.queue
                    .active
                    .iter()
                    .filter(|c| !failed.contains(c))
                    .filter_map(|c| {
                        let order = &self.queue.classes[c as usize].order;
                        let e = match cursor {
                            None => order.first(),
                            Some(cur) => order.after(cur, false),
                        };
                        e.map(|(k, r)| (k, r, c))
                    })
                    // A class that failed at this key or lower, with neither
                    // capacity released nor new victims since, fails again.
                    .filter(|&(k, _, c)| {
                        self.pre.failed.get(&c).is_none_or(|&(e, v, fk)| {
                            e != self.epoch || v != self.pre.vepoch || k < fk
                        })
                    })
                    .min();
            let Some((key, rank, class)) = next else {
                break;
            };
            cursor = Some((key, rank));
            let job = self.shapes.arrival[rank as usize];
            if let Some(g) = self.try_class(class) {
                self.start(job, &g);
            } else if let Some(g) = self.preempt_for(job, class, key) {
                self.start(job, &g);
            } else {
                failed.insert(class);
                self.pre
                    .failed
                    .insert(class, (self.epoch, self.pre.vepoch, key));
            }
        }
        self.walk_greedy();
    }

    /// Takes a running job's GPUs (already released from the cluster) and
    /// puts it back in the queue with the work it has done.
    pub(super) fn preempt(&mut self, job: u32) {
        let mut r = self.stop_run(job);
        let now = self.now;
        r.since = now;
        r.preemptions += 1;
        r.overhead = 0;
        self.resumes.insert(job, r);
        let end = self.jobs[job as usize].end;
        self.completions.remove(end, job);
        self.power_off(job as u64);
        self.jobs[job as usize].phase = Phase::Queued;
        self.tally.preemptions += 1;
        self.emit(Event::Preempted { job, at: now });
        self.enqueue(job);
        self.with_view(|b, v| b.preempted(v, job));
    }

    /// Ends `job`'s current run (its GPUs released from the cluster
    /// already; out of the running set here): the books hear it stopped,
    /// its busy time is booked, and the work it did — seconds, and
    /// iterations at the rate of its GPUs — goes into the `Resume` it
    /// carries on (returned, not stored).
    pub(super) fn stop_run(&mut self, job: u32) -> Resume {
        let grants = self.running.remove(&job).expect("running job");
        self.held_ends.forget(job);
        let milli: u64 = grants.iter().map(|g| g.milli as u64).sum();
        self.untrack_running(job, milli);
        let mut r = self.resume(job);
        let held = (self.now - r.run_from).max(0);
        let overhead = held.min(r.overhead);
        self.tally.busy_finished += milli as u128 * held as u128;
        self.tally.overhead_busy += milli as u128 * overhead as u128;
        self.add_held(job, milli, held);
        if let Some(rate) = self.speed_rate(job, Some(&grants)) {
            r.work_done += (held - overhead) as f64 * rate;
        }
        r.done += held - overhead;
        r.held += held;
        r.attained += milli as u128 * held as u128;
        r
    }

    /// How many times a job has been preempted so far.
    pub fn preemptions_of(&self, job: u32) -> u32 {
        self.resumes.get(&job).map_or(0, |r| r.preemptions)
    }

    /// A preempted job its policy holds done at `at` (`Answer::finish`,
    /// checked: since it stopped, by now): it leaves the queue, cut short.
    pub(super) fn finish_waiting(&mut self, job: u32, at: Secs) {
        self.dequeue(job);
        self.tally.cut_short += 1;
        if !self.seat.passive {
            self.with_books(|b, v, a| b.left(v, a, job));
        }
        self.mark_done_at(job, at);
    }

    /// Useful seconds a preempted job has done before its current run.
    pub(super) fn done_before(&self, job: u32) -> Option<(Secs, Secs, Secs)> {
        self.resumed(job).map(|r| (r.done, r.run_from, r.overhead))
    }
}
