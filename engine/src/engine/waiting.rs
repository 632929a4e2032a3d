//! Jobs joining and leaving the queue: arrival (or rejection when a job
//! could never fit), and the class queues' keys.

use super::{Engine, Event, Phase};
use crate::policy::Walk;

impl Engine {
    pub(super) fn arrive(&mut self, job: u32) {
        let submit = self.trace.jobs[job as usize].submit;
        self.tally.on_arrival(submit);
        if self.seat.walk == Walk::Recorded {
            self.jobs[job as usize].phase = Phase::Queued;
            self.enqueue(job);
            self.schedule_segments(job, 0);
            return;
        }
        if !self.admit(job) {
            return;
        }
        self.jobs[job as usize].phase = Phase::Queued;
        if !self.seat.passive {
            self.with_books(|b, v, a| b.joined(v, a, job));
        }
        self.enqueue(job);
    }

    /// Rejects `job` (counted, logged) if it could never fit; `true` if it can.
    pub(super) fn admit(&mut self, job: u32) -> bool {
        let class = self.shapes.class_of[job as usize];
        if !self.feasible[class as usize] {
            self.jobs[job as usize].phase = Phase::Rejected;
            let submit = self.trace.jobs[job as usize].submit;
            self.tally.on_reject(submit);
            if self.tally.rejected <= 5 {
                let j = &self.trace.jobs[job as usize];
                self.tuning.warn.say(&format!(
                    "rejected job {}: needs {} GPUs{}, more than the cluster can ever give",
                    tracetui_model::text::sanitize(&j.id),
                    j.gpus_display(),
                    j.gpu_type
                        .map(|t| format!(" of type {}", self.trace.cluster.gpu_types[t as usize]))
                        .unwrap_or_default()
                ));
            }
            self.emit(Event::Rejected { job, at: self.now });
            return false;
        }
        true
    }

    pub(super) fn key(&self, job: u32) -> u64 {
        self.books().queued_key(self, job)
    }

    pub(super) fn enqueue(&mut self, job: u32) {
        let class = self.shapes.class_of[job as usize];
        let rank = self.shapes.rank[job as usize];
        if !self.seat.passive {
            self.with_view(|b, v| b.waiting(v, job, true));
        }
        self.queue.insert(class, self.key(job), rank);
        // Run times are kept for a backfill walk only.
        if self.queue.classes[class as usize].short.is_some() {
            let short = self
                .estimated_left_on(job, None)
                .map_or(u64::MAX - 1, |r| r.max(0) as u64);
            if let Some(t) = &mut self.queue.classes[class as usize].short {
                t.set(self.shapes.members().pos[job as usize] as usize, short);
            }
        }
    }

    pub(super) fn dequeue(&mut self, job: u32) {
        self.dequeue_keyed(job, self.key(job));
    }

    /// `dequeue`, for a job waiting under key `key` (a walk read it from
    /// the queue: the policy is not asked again).
    pub(super) fn dequeue_keyed(&mut self, job: u32, key: u64) {
        let class = self.shapes.class_of[job as usize];
        let rank = self.shapes.rank[job as usize];
        self.queue.remove(class, key, rank);
        if !self.seat.passive {
            self.with_view(|b, v| b.waiting(v, job, false));
        }
        if let Some(t) = &mut self.queue.classes[class as usize].short {
            t.set(self.shapes.members().pos[job as usize] as usize, u64::MAX);
        }
    }
}
