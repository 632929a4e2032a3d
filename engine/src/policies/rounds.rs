//! Scheduling rounds at least a slot apart, as ElasticFlow's simulator
//! holds them (`scheduler.py`, the merge at the end of each round; notes in
//! `shared/peers/elasticflow-semantics.md` §3.4). Not a fixed grid: after a
//! round at `t`, the next is at the first thing due (an arrival, or a
//! running job's end) if that is more than a slot away, else at `t + slot`,
//! where everything due by then is handled together. When a single event
//! is left it keeps its own time even if it is nearer (the peer's merge
//! needs two). The first round is at the first arrival.
//!
//! Between rounds the policy changes nothing: a job that arrives waits for
//! the round, and the GPUs of a job that ends stay idle until it (the peer
//! frees them only then; the job's end time is still its own).

use crate::view::View;
use tracetui_model::Secs;

/// Where the rounds stand.
#[derive(Debug, Clone, Default)]
pub(crate) struct Rounds {
    /// The next round (None before the first).
    next: Option<Secs>,
    /// The arrival rank of the first job not yet submitted at the last round.
    next_rank: u32,
}

impl Rounds {
    /// Whether a pass at `v.now()` is a round (the first pass is).
    pub(crate) fn is_round(&self, v: &dyn View) -> bool {
        self.next.is_none_or(|n| n <= v.now())
    }

    /// When the policy wants to be woken (the next round).
    pub(crate) fn wakeup(&self) -> Option<Secs> {
        self.next
    }

    /// After a round at `v.now()` whose decisions the engine has applied:
    /// sets the next round from what is then due.
    pub(crate) fn plan_next(&mut self, v: &dyn View) {
        let t = v.now();
        let trace = v.trace();
        let n = trace.jobs.len() as u32;
        let submit = |rank: u32| trace.jobs[v.job_at_rank(rank) as usize].submit;
        while self.next_rank < n && submit(self.next_rank) <= t {
            self.next_rank += 1;
        }
        // Distinct event times, as the peer keys its events by time: the
        // next two arrival times, every running job's end, and one for each
        // started job held at none (its end event lies past some running
        // job's end, so it only counts).
        let mut times: Vec<Secs> = Vec::new();
        let mut rank = self.next_rank;
        while rank < n && times.len() < 2 {
            let s = submit(rank);
            if times.last() != Some(&s) {
                times.push(s);
            }
            rank += 1;
        }
        times.extend(v.running_jobs().iter().map(|&j| v.job(j).end));
        times.sort_unstable();
        times.dedup();
        let Some(&first) = times.first() else {
            self.next = None;
            return;
        };
        let two = times.len() > 1 || {
            let queue = v.queue_in_order(usize::MAX);
            queue.iter().any(|&j| v.preempted_before(j).is_some())
        };
        let slot = v.tuning().rounds;
        self.next = Some(if two { first.max(t + slot) } else { first });
    }
}
