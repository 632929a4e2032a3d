//! Moments worth a look, found ahead of the replay on a copy of its engine
//! (`.` in the replay): a burst of preemptions, a job starving, or else the
//! queue's peak. A query: the replay itself does not move.

use super::Engine;
use tracetui_model::Secs;

/// What happens at a moment found ahead.
#[derive(Debug, Clone, PartialEq)]
pub enum Moment {
    /// `n` preemptions within the ten minutes to `at`.
    Preemptions {
        /// The end of the window, in trace seconds.
        at: Secs,
        /// Preemptions in it (three or more).
        n: u64,
    },
    /// `job` has waited `waited` seconds, more than three times its run
    /// time and more than an hour.
    Starving {
        /// When it is first seen starving, in trace seconds.
        at: Secs,
        /// The waiting job, by its index in the trace.
        job: u32,
        /// Seconds since its submission.
        waited: Secs,
    },
    /// The queue is longest at `at`, `len` jobs, in the window looked at.
    QueuePeak {
        /// When the queue is longest (its first such step), in trace seconds.
        at: Secs,
        /// Jobs waiting then.
        len: usize,
    },
}

impl Moment {
    /// When it happens, in trace seconds: where the replay goes to show it.
    pub fn at(&self) -> Secs {
        match self {
            Moment::Preemptions { at, .. }
            | Moment::Starving { at, .. }
            | Moment::QueuePeak { at, .. } => *at,
        }
    }
}

/// Preemptions this many or more within `BURST_SECS` are a burst.
const BURST: u64 = 3;
const BURST_SECS: Secs = 600;
/// Waiting jobs looked at for starvation, per step (the queue's head).
const HEAD: usize = 1000;

/// The first moment after `e`'s time, stepping `step` seconds at a time
/// for at most `steps` steps: a preemption burst or a starving job as soon
/// as one is seen, else the queue's peak (none if the queue stays empty).
/// None for a replay an external policy decides (it cannot be run ahead
/// without asking it).
/// `plan`: the replay's switches (a lesson's schedule), made on the way.
pub fn next_moment(
    e: &Engine,
    plan: &[(Secs, super::engine::Switch)],
    step: Secs,
    steps: usize,
) -> Option<Moment> {
    if e.policy().command().is_some() {
        return None;
    }
    let mut ahead = e.clone();
    ahead.set_record_events(false);
    let step = step.max(1);
    let mut peak: Option<(Secs, usize)> = None;
    let mut preempts: Vec<(Secs, u64)> = Vec::new();
    let mut starving_before: Vec<u32> = starving(&ahead);
    for _ in 0..steps {
        if ahead.next_event_time().is_none() {
            break;
        }
        let t = ahead.now() + step;
        // Up to the next switch due on the way, then to `t`.
        while let Some((s, _)) = ahead.next_switch(plan).filter(|s| s.0 <= t) {
            let made = ahead.applied_switches();
            ahead.advance_to(s);
            ahead.make_due(plan);
            if ahead.applied_switches() == made {
                break; // none made (a halted engine): on to `t`
            }
        }
        ahead.advance_to(t);
        ahead.make_due(plan);
        preempts.push((t, ahead.tally().preemptions));
        preempts.retain(|p| p.0 >= t - BURST_SECS);
        let n = ahead.tally().preemptions - preempts.first().map_or(0, |p| p.1);
        if n >= BURST {
            return Some(Moment::Preemptions { at: t, n });
        }
        let now_starving = starving(&ahead);
        if let Some(&job) = now_starving.iter().find(|j| !starving_before.contains(j)) {
            let waited = t - ahead.trace().jobs[job as usize].submit;
            return Some(Moment::Starving { at: t, job, waited });
        }
        starving_before = now_starving;
        let len = ahead.queue_len();
        if len > 0 && peak.is_none_or(|p| len > p.1) {
            peak = Some((t, len));
        }
    }
    peak.map(|(at, len)| Moment::QueuePeak { at, len })
}

/// The waiting jobs (of the queue's head) that have waited more than an
/// hour and three times their run time.
fn starving(e: &Engine) -> Vec<u32> {
    let now = e.now();
    e.queue_in_order(HEAD)
        .into_iter()
        .filter(|&j| {
            let job = &e.trace().jobs[j as usize];
            let waited = now - job.submit;
            waited > 3600 && job.runtime.get().is_some_and(|r| waited > 3 * r)
        })
        .collect()
}
