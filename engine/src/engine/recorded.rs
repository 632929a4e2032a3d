//! The `recorded` policy: every recorded hold takes its GPUs on its recorded
//! machine from its recorded start to its recorded end, whatever else runs
//! there (overflow is counted, not refused).

use super::{Engine, Event, Phase};
use crate::cluster::{Grant, TypeFilter};
use crate::placement::{place, Placement};
use tracetui_model::{Demand, Secs, Segment, Unit, MILLI_PER_GPU};

impl Engine {
    /// Puts `job`'s recorded holds on the timeline, shifted later by `shift`
    /// seconds and never before now.
    pub(super) fn schedule_segments(&mut self, job: u32, shift: Secs) {
        let (trace, now) = (&self.trace, self.now);
        let range = trace.jobs[job as usize].segments.clone();
        let starts = range.map(|seg| {
            let s = &trace.segments[seg as usize];
            (seg, (s.start + shift).max(now))
        });
        self.holds.schedule(job, starts);
    }

    /// Segment ends at `t`; whether any capacity was released.
    pub(super) fn recorded_ends(&mut self, t: Secs) -> bool {
        let mut released = false;
        while let Some((job, seg)) = self.holds.next_end(t) {
            self.segment_end(job, seg);
            released = true;
        }
        released
    }

    /// Segment starts at `t`.
    pub(super) fn recorded_starts(&mut self, t: Secs) {
        while let Some((job, seg)) = self.holds.next_start(t) {
            self.segment_start(job, seg);
        }
    }

    /// The GPUs for one recorded hold: on its machine, lowest index with room;
    /// `true` when it did not fit and was placed over capacity.
    fn recorded_grants(&mut self, s: &Segment) -> (Vec<Grant>, bool) {
        if s.milli == 0 {
            return (Vec::new(), false);
        }
        let Some(m) = s.machine.get() else {
            // A record with no machine (Acme): any free GPUs, fullest machines
            // first; whole GPUs may span machines, a fraction stays on one.
            let d = if s.milli.is_multiple_of(MILLI_PER_GPU) {
                Demand::Gang {
                    gpus: s.milli / MILLI_PER_GPU,
                }
            } else {
                Demand::Instances(vec![Unit::gpus(1, s.milli)].into_boxed_slice())
            };
            return match place(&mut self.cluster, Placement::Pack, &d, TypeFilter::Any) {
                Some(g) => (g, false),
                None => (Vec::new(), true),
            };
        };
        if s.gpus != 0 {
            // The exact GPUs the record names (Philly).
            let cap = self.cluster.cap(m);
            let base = self.cluster.first_gpu(m);
            let mut over = false;
            let grants = (0..64u16)
                .filter(|g| s.gpus & (1 << g) != 0 && (*g as u32) < cap)
                .map(|gpu| {
                    over |= self.cluster.used_milli(base + gpu as usize) > 0;
                    Grant {
                        machine: m,
                        gpu,
                        milli: MILLI_PER_GPU as u16,
                        ..Grant::default()
                    }
                })
                .collect();
            return (grants, over);
        }
        self.cluster.grants_on(m, s.milli)
    }

    fn segment_start(&mut self, job: u32, seg: u32) {
        let s = self.trace.segments[seg as usize].clone();
        let (grants, over) = self.recorded_grants(&s);
        if over {
            self.tally.overflow_segments += 1;
            if self.tally.overflow_segments <= 3 {
                let name = s.machine.get().map_or("(none)".to_string(), |m| {
                    self.trace.cluster.machines[m as usize].name.clone()
                });
                self.tuning.warn.say(&format!(
                    "recorded hold of job {} on machine {name} exceeds its free GPUs at {}; replayed anyway",
                    tracetui_model::text::sanitize(&self.trace.jobs[job as usize].id),
                    self.now
                ));
            }
        }
        self.note_machines(job, &grants);
        self.cluster.acquire(job, &grants);
        self.running.extend(job, &grants);
        let gpus = grants.iter().map(|g| g.milli as f64).sum::<f64>() / 1000.0;
        self.holds.hold(seg, self.now, grants.into_boxed_slice());
        // Recorded holds ran as recorded: at the highest power limit.
        self.power_on(1 << 32 | seg as u64, job, gpus, true);
        if self.jobs[job as usize].phase == Phase::Queued {
            self.dequeue(job);
            let named: std::collections::BTreeSet<u32> = self
                .trace
                .job_segments(&self.trace.jobs[job as usize])
                .iter()
                .filter_map(|s| s.machine.get())
                .collect();
            let st = &mut self.jobs[job as usize];
            st.phase = Phase::Running;
            st.start = self.now;
            st.wait_note = 0;
            st.machines = named.len().min(u16::MAX as usize) as u16;
            self.tally
                .on_start(self.trace.jobs[job as usize].submit, self.now);
            let machines = s.machine.get().map_or(0, |_| 1);
            self.emit(Event::Started {
                job,
                at: self.now,
                machines,
                milli: self.trace.jobs[job as usize].demand.total_milli(),
            });
        }
        if let Some(end) = s.end.get() {
            // The recorded duration, from when the hold actually began here.
            let began = self.now;
            let dur = (end - s.start).max(0);
            self.holds.end_at(began + dur, job, seg);
            // What the queue pane shows as "ends in": the latest end of its holds.
            let st = &mut self.jobs[job as usize];
            st.end = st.end.max(began + dur);
        }
    }

    fn segment_end(&mut self, job: u32, seg: u32) {
        self.power_off(1 << 32 | seg as u64);
        if let Some((began, grants)) = self.holds.release(seg) {
            self.cluster.release(job, &grants);
            let milli: u64 = grants.iter().map(|g| g.milli as u64).sum();
            self.tally.busy_finished += milli as u128 * (self.now - began).max(0) as u128;
            self.add_held(job, milli, (self.now - began).max(0));
            self.running.drop_each(job, &grants);
        }
        if self.holds.one_ended(job) {
            self.running.remove(&job);
            self.mark_done_at(job, self.now);
            self.with_view(|b, v| b.hold_ended(v, job));
        }
    }

    /// Leaving `recorded`: holds already running finish in place; jobs still
    /// waiting for their recorded start go to the new policy's queue.
    pub(super) fn leave_recorded(&mut self) {
        let jobs = &self.jobs;
        self.holds
            .forget_waiting(|job| jobs[job as usize].phase == Phase::Queued);
        // Waiting jobs that could never fit a simulated placement are rejected now.
        let queued: Vec<u32> = self
            .queue
            .entries()
            .map(|(_, _, r)| self.shapes.arrival[r as usize])
            .collect();
        for job in queued {
            let class = self.shapes.class_of[job as usize];
            if !self.feasible[class as usize] {
                // Keyed by `recorded`'s books (arrival order: 0).
                self.queue.remove(class, 0, self.shapes.rank[job as usize]);
                self.admit(job);
            }
        }
    }

    /// Entering `recorded` later than the start: waiting jobs start at their
    /// recorded times, or now if those have passed (keeping the recorded durations).
    pub(super) fn enter_recorded(&mut self) {
        let queued: Vec<u32> = self
            .queue
            .entries()
            .map(|(_, _, r)| self.shapes.arrival[r as usize])
            .collect();
        for job in queued {
            let first = self
                .trace
                .job_segments(&self.trace.jobs[job as usize])
                .iter()
                .map(|s| s.start)
                .min();
            if let Some(first) = first {
                self.schedule_segments(job, (self.now - first).max(0));
            }
        }
    }
}
