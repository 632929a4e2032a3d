//! `las` (Tiresias's discretised 2D-LAS): queues by attained GPU-service,
//! demotion the moment a running job crosses a boundary, and the starvation
//! guard's promotion, as timed wake-ups.

use crate::sim::engine::{Engine, Resume};
use crate::sim::policy::{Books, Rule, Walk};
use crate::trace::model::Secs;
use std::collections::BTreeSet;

pub(super) struct Las;

impl Rule for Las {
    fn name(&self) -> &str {
        "las"
    }

    fn describe(&self) -> &str {
        "Tiresias 2D-LAS: least attained GPU-service first, discretised queues, preemptive"
    }

    fn walk(&self) -> Walk {
        Walk::Preemptive
    }

    fn books(&self, _e: &Engine) -> Box<dyn Books> {
        Box::<LasBooks>::default()
    }
}

const DEMOTE: u8 = 0;
const PROMOTE: u8 = 1;

#[derive(Debug, Clone, Default)]
struct LasBooks {
    /// Timed priority changes: (time, job, DEMOTE | PROMOTE).
    wakeups: BTreeSet<(Secs, u32, u8)>,
}

impl LasBooks {
    /// A job's queue: by attained service (counting the current run when
    /// `running`), or the first queue once promoted.
    fn queue_of(e: &Engine, job: u32, running: bool) -> u8 {
        let r = e.policy_resume(job);
        if r.promoted {
            return 0;
        }
        let att = if running {
            e.policy_attained(job)
        } else {
            r.attained
        };
        e.tuning().las_queue(att)
    }

    fn schedule_demotion(&mut self, e: &Engine, job: u32, milli: u64) {
        if milli == 0 || e.policy_resume(job).promoted {
            return;
        }
        let att = e.policy_attained(job);
        if let Some(t) = e.tuning().next_threshold(att) {
            let dt = (t - att).div_ceil(milli as u128);
            let at = e.now() + (dt.min(i64::MAX as u128 / 4) as Secs).max(1);
            self.wakeups.insert((at, job, DEMOTE));
        }
    }

    /// A demotion due now: the running job moves to its new queue.
    fn demote(&mut self, e: &mut Engine, job: u32) -> bool {
        let Some(old) = e.policy_priority(job) else {
            return false;
        };
        let new = self.running_key(e, job);
        e.policy_reprioritize(job, old, new);
        let milli = e.running()[&job].iter().map(|g| g.milli as u64).sum();
        self.schedule_demotion(e, job, milli);
        new != old
    }

    /// A promotion due at `t`: the starved job goes back to the first queue,
    /// and is kept there to the end: a job demoted again after each
    /// promotion would be preempted over and over (each time paying the
    /// restart) on a busy cluster.
    fn promote(&mut self, e: &mut Engine, job: u32, t: Secs) -> bool {
        let Some(r) = e.policy_preempted_before(job) else {
            return false;
        };
        if starve_time(e, &r) != Some(t) || r.promoted {
            return false;
        }
        let old = self.queued_key(e, job);
        e.policy_promote(job);
        let new = self.queued_key(e, job);
        e.policy_requeue(job, old, new);
        true
    }
}

/// When a preempted job counts as starved: it has waited `las_starve` times
/// what it has held.
fn starve_time(e: &Engine, r: &Resume) -> Option<Secs> {
    let s = e.tuning().las_starve;
    (s > 0.0 && r.held > 0).then(|| r.since + ((r.held as f64 * s).ceil() as Secs).max(1))
}

impl Books for LasBooks {
    fn clone_box(&self) -> Box<dyn Books> {
        Box::new(self.clone())
    }

    fn queued_key(&self, e: &Engine, job: u32) -> u64 {
        LasBooks::queue_of(e, job, false) as u64
    }

    fn running_key(&self, e: &Engine, job: u32) -> u64 {
        LasBooks::queue_of(e, job, true) as u64
    }

    fn started(&mut self, e: &mut Engine, job: u32, milli: u64) {
        self.schedule_demotion(e, job, milli);
    }

    fn preempted(&mut self, e: &Engine, job: u32) {
        if let Some(r) = e.policy_preempted_before(job) {
            if let Some(t) = starve_time(e, &r) {
                self.wakeups.insert((t.max(e.now() + 1), job, PROMOTE));
            }
        }
    }

    fn next_wakeup(&self) -> Option<Secs> {
        self.wakeups.first().map(|w| w.0)
    }

    fn wake(&mut self, e: &mut Engine, t: Secs) -> bool {
        let mut woke = false;
        while let Some(&(at, job, kind)) = self.wakeups.first() {
            if at != t {
                break;
            }
            self.wakeups.pop_first();
            let phase = e.job_state(job).phase;
            if kind == DEMOTE && phase == crate::sim::Phase::Running {
                woke |= self.demote(e, job);
            } else if kind == PROMOTE && phase == crate::sim::Phase::Queued {
                woke |= self.promote(e, job, t);
            }
        }
        woke
    }
}
