//! The live switches: the policy, the power limits and the placement
//! rule, each from now on, kept in the replay's switches (so going back
//! and forth replays them), logged, and said in the flash.

use super::app::App;
use crate::sim::Policy;

impl App {
    /// Switches the policy live; logged, and refused where the trace cannot support it.
    pub(super) fn switch_policy(&mut self, p: Policy) {
        if !self.policy_available(p) {
            return;
        }
        let from = self.sim.replay.policy_to_be();
        if from == p {
            return;
        }
        let deciding = self.sim.replay.waiting().then(|| self.engine().policy());
        self.sim.replay.set_policy(p);
        let at = self.clock(self.sim.replay.now());
        self.info(format!("{at} policy {from} → {p}"));
        let caveat = p.caveat(self.trace(), self.engine().tuning());
        if let Some(c) = &caveat {
            self.info(format!("note: {p}: {c}"));
        }
        let flash = match deciding {
            Some(d) if self.sim.replay.waiting() => {
                format!("policy {p} once {} answers", d.label())
            }
            _ => format!("policy {p} from {at}"),
        };
        self.view.flash = Some(match caveat {
            Some(c) => format!("{flash} · note: {c}"),
            None => flash,
        });
        self.after_move();
    }

    /// Whether the trace supports `p`; if not, the flash line says why.
    pub(super) fn policy_available(&mut self, p: Policy) -> bool {
        let Err(u) = p.available(self.trace()) else {
            return true;
        };
        self.view.flash = Some(format!(
            "{} has no {}: {p} needs them{}",
            self.trace().format,
            u.lacks,
            u.hint.map(|h| format!(" ({h})")).unwrap_or_default()
        ));
        false
    }

    /// Switches the power-limit policy (max ↔ zeus) live, when there is an energy model.
    pub(super) fn toggle_power(&mut self) {
        use crate::sim::PowerPolicy;
        let Some(p) = self.engine().power_policy() else {
            self.view.flash = Some("no energy model: start with --energy DIR --gpu v100".into());
            return;
        };
        let to = if p == PowerPolicy::Max {
            PowerPolicy::Zeus
        } else {
            PowerPolicy::Max
        };
        self.sim.replay.set_power(to);
        let at = self.clock(self.sim.replay.now());
        self.info(format!("{at} power limits {} → {}", p.name(), to.name()));
        self.view.flash = Some(if self.engine().policy() == crate::sim::Policy::Recorded {
            format!(
                "power limits: {} from {at} (recorded holds keep the highest limit; p picks a simulated policy)",
                to.name()
            )
        } else {
            format!("power limits: {} from {at}", to.name())
        });
        self.after_move();
    }

    /// `o`: the next placement rule, now (as a policy switch is made: kept
    /// in the replay's switches, so going back and forth replays it).
    pub(super) fn next_placement(&mut self) {
        let to = self.engine().placement().next();
        self.set_placement(to);
    }

    /// The placement rule `to`, from now on.
    pub(super) fn set_placement(&mut self, to: crate::sim::Placement) {
        let from = self.engine().placement();
        self.sim.replay.set_placement(to);
        let at = self.clock(self.sim.replay.now());
        self.info(format!("{at} placement {} → {}", from.name(), to.name()));
        self.view.flash = Some(format!(
            "placement {} from {at}: jobs started from now on (o: the next)",
            to.name()
        ));
        self.after_move();
    }
}
