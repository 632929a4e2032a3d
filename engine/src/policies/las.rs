//! `las` (Tiresias's discretised 2D-LAS): queues by attained GPU-service,
//! demotion the moment a running job crosses a boundary, and the starvation
//! guard's promotion, as timed wake-ups.

use crate::job::Resume;
use crate::rule::{Books, KeyMeaning, Rule, Walk};
use crate::view::{Acts, View};
use std::collections::BTreeSet;
use tracetui_model::Secs;

pub(super) struct Las;

impl Rule for Las {
    fn name(&self) -> &str {
        "las"
    }

    fn describe(&self) -> &str {
        "2D-LAS after Tiresias: least attained GPU-service first, discretised queues, preemptive (tracetui's own, not ElasticFlow's dlas-gpu)"
    }

    fn walk(&self) -> Walk {
        Walk::Preemptive
    }

    fn key_meaning(&self) -> KeyMeaning {
        KeyMeaning::Level
    }

    fn books(&self, _v: &dyn View) -> Box<dyn Books> {
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
    fn queue_of(v: &dyn View, job: u32, running: bool) -> u8 {
        let r = v.resume(job);
        if r.promoted {
            return 0;
        }
        let att = if running { v.attained(job) } else { r.attained };
        v.tuning().las_queue(att)
    }

    fn schedule_demotion(&mut self, v: &dyn View, job: u32, milli: u64) {
        if milli == 0 || v.resume(job).promoted {
            return;
        }
        let att = v.attained(job);
        if let Some(t) = v.tuning().next_threshold(att) {
            let dt = (t - att).div_ceil(milli as u128);
            let at = v.now() + (dt.min(i64::MAX as u128 / 4) as Secs).max(1);
            self.wakeups.insert((at, job, DEMOTE));
        }
    }

    /// A demotion due now: the running job moves to its new queue.
    fn demote(&mut self, v: &dyn View, acts: &mut Acts<'_>, job: u32) -> bool {
        let Some(old) = v.priority(job) else {
            return false;
        };
        let new = self.running_key(v, job);
        acts.reprioritize(job, old, new);
        let milli = v
            .held(job)
            .unwrap_or_default()
            .iter()
            .map(|g| g.milli as u64)
            .sum();
        self.schedule_demotion(v, job, milli);
        new != old
    }

    /// A promotion due at `t`: the starved job goes back to the first queue,
    /// and is kept there to the end: a job demoted again after each
    /// promotion would be preempted over and over (each time paying the
    /// restart) on a busy cluster.
    fn promote(&mut self, v: &dyn View, acts: &mut Acts<'_>, job: u32, t: Secs) -> bool {
        let Some(r) = v.preempted_before(job) else {
            return false;
        };
        if starve_time(v, &r) != Some(t) || r.promoted {
            return false;
        }
        let old = self.queued_key(v, job);
        acts.promote(job);
        // A promoted job is in the first queue.
        acts.requeue(job, old, 0);
        true
    }
}

/// When a preempted job counts as starved: it has waited `las_starve` times
/// what it has held.
fn starve_time(v: &dyn View, r: &Resume) -> Option<Secs> {
    let s = v.tuning().las_starve;
    // Saturating: a long hold times a large factor waits for ever, never wraps.
    (s > 0.0 && r.held > 0).then(|| {
        r.since
            .saturating_add(((r.held as f64 * s).ceil() as Secs).max(1))
    })
}

impl Books for LasBooks {
    fn clone_box(&self) -> Box<dyn Books> {
        Box::new(self.clone())
    }

    fn queued_key(&self, v: &dyn View, job: u32) -> u64 {
        LasBooks::queue_of(v, job, false) as u64
    }

    fn running_key(&self, v: &dyn View, job: u32) -> u64 {
        LasBooks::queue_of(v, job, true) as u64
    }

    fn started(&mut self, v: &dyn View, _acts: &mut Acts<'_>, job: u32, milli: u64) {
        self.schedule_demotion(v, job, milli);
    }

    fn preempted(&mut self, v: &dyn View, job: u32) {
        if let Some(r) = v.preempted_before(job) {
            if let Some(t) = starve_time(v, &r) {
                self.wakeups.insert((t.max(v.now() + 1), job, PROMOTE));
            }
        }
    }

    fn next_wakeup(&self) -> Option<Secs> {
        self.wakeups.first().map(|w| w.0)
    }

    fn wake(&mut self, v: &dyn View, acts: &mut Acts<'_>, t: Secs) -> bool {
        let mut woke = false;
        // Those due by now: at their time, or (held in --rounds' rounds,
        // whose wake-ups wait for them) at the first instant after it.
        while let Some(&(at, job, kind)) = self.wakeups.first() {
            if at > t {
                break;
            }
            self.wakeups.pop_first();
            let phase = v.job(job).phase;
            if kind == DEMOTE && phase == crate::job::Phase::Running {
                woke |= self.demote(v, acts, job);
            } else if kind == PROMOTE && phase == crate::job::Phase::Queued {
                woke |= self.promote(v, acts, job, at);
            }
        }
        woke
    }
}
