//! `--rounds` for every policy: given on the command line, ElasticFlow's
//! round model holds any policy that has no rounds of its own (built-in or
//! external), so that it is compared with ElasticFlow's schedulers on
//! their terms (`elasticflow-semantics.md` §3.4; `policies/rounds.rs`):
//!
//! - Decisions only at rounds: the first at the first event; after a round
//!   at `t`, the next at the first thing due (an arrival, a running job's
//!   end) if that is more than a slot away, else at `t + slot`, where
//!   everything due by then is taken together (a lone last event keeps its
//!   own time). Between rounds jobs arrive and end, and nothing starts,
//!   stops or is preempted: a policy's wake-ups wait for the round.
//! - Overheads as ElasticFlow charges a policy that holds its gang (its
//!   `dlas-gpu` and `gandiva`): a job that starts or resumes at a round
//!   makes no progress for 2 + 2·(log₂ GPUs + 1) s (7 s base on 256 GPUs
//!   or more), rounded up to a whole second; in every slot-th round every
//!   running job pays 27 s more (47 s on 256+) on top.
//!
//! The policy's own rules are untouched: only when it decides, and what a
//! start costs, change.

use super::{Engine, Phase};
use crate::policies::rounds::Rounds;
use crate::policy::Policy;
use crate::view::View;
use tracetui_model::Secs;

/// Where the rounds stand.
#[derive(Debug, Clone, Default)]
pub(super) struct Gate {
    rounds: Rounds,
    /// Rounds held (ElasticFlow's `schedule_count`).
    counted: u64,
    /// A round's pass stands at a question: it closes when the pass ends.
    open: bool,
}

/// ElasticFlow's overhead without its cache (`utils.estimate_overhead`),
/// seconds, rounded up: for a start on `g` GPUs of a cluster of `n`, and
/// in a restart round.
fn overhead(n: u32, g: u32, restart: bool) -> Secs {
    let big = n >= 256;
    let mut o = if big { 7.0 } else { 2.0 };
    if restart {
        o += if big { 47.0 } else { 27.0 };
    }
    (o + ((g.max(1) as f64).log2() + 1.0) * 2.0).ceil() as Secs
}

impl Engine {
    /// Whether `--rounds` holds the policy in force.
    pub(super) fn gated(&self) -> bool {
        self.tuning.rounds_every
            && !self.seat.policy.in_rounds()
            && self.seat.policy != Policy::Recorded
    }

    /// Whether `--rounds` puts `policy` in ElasticFlow's rounds (its own
    /// or the gate's).
    pub(super) fn in_rounds(&self, policy: Policy) -> bool {
        policy.in_rounds() || (self.tuning.rounds_every && policy != Policy::Recorded)
    }

    /// The next round, while the gate holds the policy.
    pub(super) fn gate_wakeup(&self) -> Option<Secs> {
        self.gated().then(|| self.gate.rounds.wakeup()).flatten()
    }

    /// Whether the instant now is a round of the gate's.
    pub(super) fn round_due(&self) -> bool {
        self.gate.rounds.is_round(self)
    }

    /// A pass, where the policy decides now: at once if the gate does not
    /// hold it, else only at a round (the round's overheads and the next
    /// round follow the pass, or the answer it stands at).
    pub(super) fn pass_or_round(&mut self) {
        if !self.gated() {
            self.pass();
        } else if self.round_due() {
            self.gate.open = true;
            self.pass();
            if self.asking.is_none() {
                self.close_round();
            }
        }
    }

    /// After a round's pass: the overheads it costs, and the next round.
    pub(super) fn close_round(&mut self) {
        if !std::mem::take(&mut self.gate.open) {
            return;
        }
        let slot = self.tuning.rounds.max(1) as u64;
        let restart = self.gate.counted > 0 && self.gate.counted.is_multiple_of(slot);
        self.gate.counted += 1;
        let n = self.trace.cluster.total_gpus() as u32;
        for job in self.running_jobs() {
            let started = self.resume(job).run_from == self.now;
            if !(started || restart) {
                continue;
            }
            let gpus = self
                .running
                .get(&job)
                .map_or(0, |g| g.iter().filter(|g| g.has_gpu()).count() as u32);
            self.charge(job, overhead(n, gpus, restart));
        }
        let mut rounds = std::mem::take(&mut self.gate.rounds);
        rounds.plan_next(self);
        self.gate.rounds = rounds;
    }

    /// Running `job` makes no progress for `secs` more seconds: its end
    /// moves as far, and the run's overhead counts them.
    fn charge(&mut self, job: u32, secs: Secs) {
        if secs <= 0 || self.jobs[job as usize].phase != Phase::Running {
            return;
        }
        let r = self.resume(job);
        self.resumes.entry(job).or_insert(r).overhead += secs;
        let st = &mut self.jobs[job as usize];
        self.completions.remove(st.end, job);
        st.end += secs;
        self.completions.push(st.end, job);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn overheads_are_elasticflows_uncached_ones_rounded_up() {
        use super::overhead;
        assert_eq!(overhead(64, 1, false), 4);
        assert_eq!(overhead(64, 8, false), 10);
        assert_eq!(overhead(64, 3, false), 8); // 7.17 s
        assert_eq!(overhead(64, 1, true), 31);
        assert_eq!(overhead(512, 8, false), 15);
        assert_eq!(overhead(512, 8, true), 62);
    }
}
