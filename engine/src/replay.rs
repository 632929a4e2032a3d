//! A replay that can go back in time: periodic engine checkpoints plus
//! deterministic re-simulation, with the live policy switches as part of
//! the replay. Going back to t and forward again reapplies the switches
//! made after t; a new switch made after going back replaces them.

use super::ask::{Question, Reply};
use super::engine::snapshot::Snapshot;
use super::engine::{Engine, Switch};
use super::policy::Policy;
use tracetui_model::Secs;

/// Checkpoints are kept within this many bytes, as each one measures what
/// it holds; when full, every other one is dropped and the next ones are
/// spaced twice as wide.
const CHECKPOINT_BUDGET: usize = 192 << 20;
/// At most this many checkpoints, so a step back re-simulates at most
/// 1/128th of the trace (before any thinning).
const MAX_CHECKPOINTS: usize = 256;

/// A replay that can go back in time: the live engine, its checkpoints
/// and every switch made or scheduled.
#[derive(Debug, Clone)]
pub struct Replay {
    engine: Engine,
    /// The start, as a snapshot (the jobs not arrived, no figures).
    start: Snapshot,
    /// Snapshots after processing their time, oldest first (see
    /// `engine::Snapshot`: each holds only what the live history does not).
    checkpoints: Vec<Snapshot>,
    /// Their bytes, measured.
    held: usize,
    /// Trace seconds between checkpoints.
    interval: Secs,
    /// Every switch of this replay, in time order: (time, policy).
    switches: Vec<(Secs, Switch)>,
    /// Where the replay was last asked to go (it stops short while an
    /// external policy owes an answer; `answer` goes on).
    target: Secs,
}

impl Replay {
    /// A replay of `engine` from where it stands, which becomes its start
    /// (an engine that has not run yet: `Engine::new`'s, or `start_engine`'s).
    pub fn new(mut engine: Engine) -> Replay {
        let trace = engine.trace().clone();
        let first = trace.first_submit().unwrap_or(0);
        let span = trace
            .jobs
            .iter()
            .map(|j| j.submit + j.runtime.get().unwrap_or(0))
            .max()
            .unwrap_or(first)
            .saturating_sub(first)
            .max(1);
        Replay {
            interval: (span / (MAX_CHECKPOINTS / 2) as Secs).max(60),
            start: engine.snapshot(),
            checkpoints: Vec::new(),
            held: 0,
            target: engine.now(),
            engine,
            switches: Vec::new(),
        }
    }

    /// The live engine, at the replay's time.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The engine, for queries that need `&mut` (none change the replay).
    pub fn engine_mut(&mut self) -> &mut Engine {
        &mut self.engine
    }

    /// The replay's time, in trace seconds.
    pub fn now(&self) -> Secs {
        self.engine.now()
    }

    /// Every switch of this replay, made or still ahead, in time order:
    /// (trace second, switch).
    pub fn switches(&self) -> &[(Secs, Switch)] {
        &self.switches
    }

    /// Switches still ahead of the replay (a schedule's).
    pub fn ahead(&self) -> &[(Secs, Switch)] {
        let done = self.engine.applied_switches().min(self.switches.len());
        &self.switches[done..]
    }

    /// When the replay begins (just before the first submission).
    pub fn start_time(&self) -> Secs {
        self.start.now()
    }

    /// The replay at its start (policies as they began).
    pub fn start_engine(&self) -> Engine {
        self.engine.restored(&self.start)
    }

    /// The policies in force at the start: (policy, power-limit policy).
    pub fn start_policies(&self) -> (Policy, Option<crate::energy::PowerPolicy>) {
        (self.start.policy(), self.start.power_policy())
    }

    /// Switches to make as the replay reaches their times (a policy
    /// schedule; each must change something). A live switch drops the
    /// scheduled ones after it.
    pub fn schedule(&mut self, switches: Vec<(Secs, Switch)>) {
        let now = self.now();
        self.switches.extend(switches);
        self.switches.sort_by_key(|s| s.0);
        self.forward(now);
    }

    /// Checkpoints held, the start included.
    pub fn checkpoint_count(&self) -> usize {
        1 + self.checkpoints.len()
    }

    /// The bytes the checkpoints after the start hold, measured.
    pub fn checkpoint_bytes(&self) -> usize {
        self.held
    }

    /// Switches the policy now; switches recorded later than now (from
    /// before a step back) are dropped, as are checkpoints after now.
    pub fn set_policy(&mut self, policy: Policy) {
        if policy != self.policy_to_be() {
            self.switch(Switch::Policy(policy));
        }
    }

    /// Switches the placement rule now (a later start is placed by it).
    pub fn set_placement(&mut self, p: crate::placement::Placement) {
        if p != self.engine.placement() {
            self.switch(Switch::Placement(p));
        }
    }

    /// The policy in force once the switches made while waiting for a
    /// policy's answer are applied (the engine's otherwise).
    pub fn policy_to_be(&self) -> Policy {
        let now = self.now();
        self.ahead()
            .iter()
            .take_while(|s| s.0 <= now)
            .filter_map(|s| match s.1 {
                Switch::Policy(p) => Some(p),
                Switch::Power(_) | Switch::Placement(_) => None,
            })
            .last()
            .unwrap_or(self.engine.policy())
    }

    /// Switches the power-limit policy now (with an energy model).
    pub fn set_power(&mut self, power: crate::energy::PowerPolicy) {
        if self.engine.power_policy().is_some_and(|p| p != power) {
            self.switch(Switch::Power(power));
        }
    }

    /// A switch now; while the instant's pass waits for a policy's answer
    /// it is made once the pass is done (as a switch at this time always
    /// is), so the replay stays what a schedule would replay.
    fn switch(&mut self, s: Switch) {
        let now = self.now();
        self.switches.retain(|&(t, _)| t <= now);
        self.checkpoints.retain(|c| c.now() <= now);
        self.held = self.checkpoints.iter().map(|c| c.held_bytes()).sum();
        self.switches.push((now, s));
        // Where it was going, it goes on to (a switch while waiting).
        self.target = self.target.max(now);
        self.forward(self.target);
    }

    /// Whether the replay waits for an external policy's answer (it stands
    /// short of where it was asked to go, at `question`; `answer` goes on).
    pub fn waiting(&self) -> bool {
        self.engine.question().is_some()
    }

    /// The question its engine stands at, if any.
    pub fn question(&self) -> Option<&Question> {
        self.engine.question()
    }

    /// Resumes with the reply to its question, and goes on toward where
    /// the replay was last asked to go (it may stand at the next question).
    pub fn answer(&mut self, reply: Reply) {
        self.engine.answer(reply);
        self.forward(self.target);
    }

    /// Where the replay was last asked to go.
    pub fn target(&self) -> Secs {
        self.target
    }

    /// Goes to `t`: forward by simulating (taking checkpoints and applying
    /// recorded switches on the way), back by restoring the last checkpoint
    /// at or before `t` and simulating from there.
    pub fn seek(&mut self, t: Secs) {
        self.target = t;
        if t < self.now() {
            match self.checkpoints.iter().rposition(|c| c.now() <= t) {
                Some(i) => self.engine.restore(&self.checkpoints[i]),
                None => self.engine.restore(&self.start),
            }
            self.engine.take_events();
        }
        self.forward(t);
    }

    /// The next of this replay's switches its engine has not made.
    fn next_switch(&self) -> Option<(Secs, Switch)> {
        self.engine.next_switch(&self.switches)
    }

    /// Makes the switches due at the engine's current instant.
    fn apply_due(&mut self) {
        self.engine.make_due(&self.switches);
    }

    /// Stops short while the engine stands at a question.
    fn forward(&mut self, t: Secs) {
        if self.waiting() {
            return;
        }
        self.apply_due();
        while self.now() < t && !self.waiting() {
            let last = self.last_checkpoint();
            let next_cp = last.saturating_add(self.interval);
            let mut stop = t.min(next_cp);
            if let Some((s, _)) = self.next_switch() {
                stop = stop.min(s);
            }
            self.engine.advance_to(stop);
            // Nothing is made due while the engine stands at a question.
            self.apply_due();
            if self.waiting() {
                return;
            }
            if stop >= next_cp {
                self.checkpoint();
            }
        }
    }

    fn last_checkpoint(&self) -> Secs {
        self.checkpoints
            .last()
            .map_or(self.start.now(), |c| c.now())
    }

    fn checkpoint(&mut self) {
        if self.last_checkpoint() == self.now() {
            return;
        }
        let s = self.engine.snapshot();
        self.held += s.held_bytes();
        self.checkpoints.push(s);
        while self.checkpoints.len() > 1
            && (self.checkpoints.len() > MAX_CHECKPOINTS || self.held > CHECKPOINT_BUDGET)
        {
            // Keep every other one; space the next ones wider.
            let mut i = 0;
            self.checkpoints.retain(|_| {
                i += 1;
                i % 2 == 0
            });
            self.held = self.checkpoints.iter().map(|c| c.held_bytes()).sum();
            self.interval *= 2;
        }
    }
}
