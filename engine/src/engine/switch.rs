//! Switches: the one place the policy or the power-limit policy in force
//! changes. `switch` makes one now, for the replay (live or going forward
//! again), schedules, what-if rows and the split alike; `make_due` makes a
//! plan's switches as their times come (the engine counts how many of its
//! plan it has made, so a checkpoint knows); a failing policy's fallback
//! goes through `enter` without being a switch (it is a failure).

use super::{Engine, Event, Walk};
use crate::energy::PowerPolicy;
use crate::policy::Policy;
use crate::switch::Switch;
use tracetui_model::Secs;

impl Engine {
    /// Makes `s` now. A policy: the queue is reordered at once and a
    /// scheduling pass runs at the current time (a question the policy
    /// before stood at is dropped: the new policy's pass replaces it). A
    /// power-limit policy (with an energy model): jobs started from now on
    /// get its limits; running ones keep theirs. A switch to what is in
    /// force changes nothing.
    pub fn switch(&mut self, s: Switch) {
        self.switch_only(s);
        // What the new policy's pass made due now happens now (a job it
        // resized with no work left ends): the state shown after a switch
        // is the one a run through the instant gives.
        self.advance_to(self.now);
    }

    fn switch_only(&mut self, s: Switch) {
        match s {
            Switch::Policy(p) if p != self.seat.policy => {
                self.emit(Event::PolicySwitched {
                    at: self.now,
                    to: p,
                });
                self.enter(p);
            }
            Switch::Power(p) => {
                let Some(power) = self.power.as_mut() else {
                    return;
                };
                if power.policy == p {
                    return;
                }
                power.policy = p;
                self.emit(Event::PowerSwitched {
                    at: self.now,
                    to: p,
                });
                self.rebuild_queue();
                self.pass_or_round();
            }
            Switch::Placement(p) if p != self.placement => {
                self.placement = p;
                self.emit(Event::PlacementSwitched {
                    at: self.now,
                    to: p,
                });
                self.pass_or_round();
            }
            Switch::Policy(_) | Switch::Placement(_) => {}
        }
    }

    /// `switch` to a policy.
    pub fn set_policy(&mut self, policy: Policy) {
        self.switch(Switch::Policy(policy));
    }

    /// `switch` to a power-limit policy.
    pub fn set_power(&mut self, policy: PowerPolicy) {
        self.switch(Switch::Power(policy));
    }

    /// The next switch of `plan` this engine has not made (a plan it
    /// follows from its start, or from a fork).
    pub(crate) fn next_switch(&self, plan: &[(Secs, Switch)]) -> Option<(Secs, Switch)> {
        plan.get(self.applied).copied()
    }

    /// Makes the switches of `plan` due by now (in order; none while the
    /// engine stands at a question or has halted: they follow the answer).
    pub(crate) fn make_due(&mut self, plan: &[(Secs, Switch)]) {
        while let Some((t, s)) = self.next_switch(plan) {
            if t > self.now || self.asking.is_some() || self.failing.halted {
                break;
            }
            self.applied += 1;
            self.switch(s);
        }
    }

    /// How many switches of its plan the engine has made.
    pub(crate) fn applied_switches(&self) -> usize {
        self.applied
    }

    /// `policy` in force from now: the one path a switch and a fallback share.
    pub(super) fn enter(&mut self, policy: Policy) {
        self.asking = None;
        self.release_held_ends();
        if self.seat.walk != Walk::Recorded {
            // The recorded replay's waiting jobs keep their recorded holds.
            self.end_waiting_without_work();
        }
        let from = self.seat.walk;
        self.seat.before = Some(self.seat.policy);
        self.seat.policy = policy;
        self.seat.walk = policy.walk();
        self.seat.since = self.now;
        if from == Walk::Recorded {
            self.leave_recorded();
        }
        self.enter_policy();
        self.rebuild_queue();
        if self.seat.walk == Walk::Recorded {
            self.enter_recorded();
        }
        self.pass_or_round();
    }

    /// New books for the policy now in force; under a preemptive walk they
    /// are told who waits and who runs (called before the queue is rebuilt).
    pub(super) fn enter_policy(&mut self) {
        self.pre.failed.clear();
        self.pre.vepoch += 1;
        self.pre.by_key.clear();
        self.pre.key_of.clear();
        self.seat.books = Some(self.seat.policy.rule().books(self));
        self.seat.passive = self.books().passive();
        if self.seat.walk == Walk::Preemptive {
            self.tell_who_is_here();
        }
        if let Some(b) = self.seat.books.as_mut() {
            b.made();
        }
    }

    /// Tells books under a preemptive walk who waits and who runs.
    fn tell_who_is_here(&mut self) {
        let waiting: Vec<u32> = self
            .queue
            .entries()
            .map(|(_, _, r)| self.shapes.arrival[r as usize])
            .collect();
        for j in waiting {
            self.with_books(|b, v, a| b.joined(v, a, j));
        }
        // Jobs this engine started (not recorded holds) can be preempted;
        // told in job order (the map's own order is a hash's).
        let mut running: Vec<(u32, u64)> = self
            .running
            .iter()
            .filter(|(j, _)| self.completions.has(**j))
            .map(|(&j, g)| (j, g.iter().map(|g| g.milli as u64).sum()))
            .collect();
        running.sort_unstable();
        for (j, milli) in running {
            self.with_books(|b, v, a| b.joined(v, a, j));
            self.track_running(j);
            self.with_books(|b, v, a| b.started(v, a, j, milli));
        }
    }
}
