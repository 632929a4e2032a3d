//! `las` (Tiresias's discretised 2D-LAS): queues by attained service,
//! demotion the moment a running job crosses a boundary, and the
//! starvation guard's promotion, as timed wake-ups.

use super::preempt::Resume;
use super::{Engine, Phase};
use crate::sim::policy::Policy;
use crate::trace::model::Secs;

pub(super) const DEMOTE: u8 = 0;
pub(super) const PROMOTE: u8 = 1;

impl Engine {
    /// A job's `las` queue: by attained service (counting the current run
    /// when `running`), or the first queue once promoted.
    pub(super) fn las_queue_of(&self, job: u32, running: bool) -> u8 {
        let r = self.resume(job);
        if r.promoted {
            return 0;
        }
        let att = if running {
            self.attained(job)
        } else {
            r.attained
        };
        self.tuning.las_queue(att)
    }

    pub(super) fn schedule_demotion(&mut self, job: u32, milli: u64) {
        if milli == 0 || self.resume(job).promoted {
            return;
        }
        let att = self.attained(job);
        if let Some(t) = self.tuning.next_threshold(att) {
            let dt = (t - att).div_ceil(milli as u128);
            let at = self.now + (dt.min(i64::MAX as u128 / 4) as Secs).max(1);
            self.wakeups.insert((at, job, DEMOTE));
        }
    }

    /// Timed changes of priority (`las`): demotions when a running job's
    /// service crosses a threshold, promotions of starved jobs. Whether any happened.
    pub(super) fn wake(&mut self, t: Secs) -> bool {
        let mut woke = false;
        while let Some(&(at, job, kind)) = self.wakeups.first() {
            if at != t {
                break;
            }
            self.wakeups.pop_first();
            if self.policy != Policy::Las {
                continue;
            }
            let st = self.jobs[job as usize];
            if kind == DEMOTE && st.phase == Phase::Running {
                let Some(&old) = self.prio_key.get(&job) else {
                    continue;
                };
                let new = self.running_key(job);
                let rank = self.shapes.rank[job as usize];
                self.prio.remove(&(old, rank));
                self.prio.insert((new, rank));
                self.prio_key.insert(job, new);
                self.vepoch += 1;
                let milli = self.running[&job].iter().map(|g| g.milli as u64).sum();
                self.schedule_demotion(job, milli);
                woke |= new != old;
            } else if kind == PROMOTE && st.phase == Phase::Queued {
                let Some(r) = self.resumes.get(&job).copied() else {
                    continue;
                };
                if self.starve_time(&r) != Some(t) || r.promoted {
                    continue;
                }
                self.dequeue(job);
                // Back to the first queue, and kept there to the end: a job
                // demoted again after each promotion would be preempted over
                // and over (each time paying the restart) on a busy cluster.
                self.resumes.get_mut(&job).expect("checked").promoted = true;
                self.enqueue(job);
                woke = true;
            }
        }
        woke
    }

    pub(super) fn starve_time(&self, r: &Resume) -> Option<Secs> {
        let s = self.tuning.las_starve;
        (s > 0.0 && r.held > 0).then(|| r.since + ((r.held as f64 * s).ceil() as Secs).max(1))
    }
}
