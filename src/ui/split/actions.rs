//! What the split's actions do to the app: open it (B from the start
//! engine with A's switches, then the picked policy), close it, and bring
//! B to A's time after every move.

use super::Split;
use crate::sim::{Policy, Replay, Switch};
use crate::trace::Secs;
use crate::ui::app::App;
use crate::ui::figures::Figures;
use crate::ui::popups::Popup;

impl App {
    /// `A`: closes the split, or opens the picker for B's policy.
    pub(in crate::ui) fn toggle_split(&mut self) {
        if self.sim.split.take().is_some() {
            self.view.flash = Some("split closed: one replay again".into());
            return;
        }
        let live = self.sim.replay.policy_to_be();
        let all = self.sim.policies.all();
        // The first other policy after the live one that this trace supports.
        let from = all.iter().position(|p| *p == live).unwrap_or(0);
        let at = (1..=all.len())
            .map(|k| (from + k) % all.len())
            .find(|&i| all[i] != live && all[i].available(self.trace()).is_ok())
            .unwrap_or(0);
        self.view.split_placement = None;
        self.view.popup = Some(Popup::Picker { at, split: true });
    }

    /// `o` in the split's picker: B's placement, the next after the one
    /// chosen (A's rule means none of its own).
    pub(in crate::ui) fn next_split_placement(&mut self) {
        let a = self.engine().placement();
        let to = self.view.split_placement.unwrap_or(a).next();
        self.view.split_placement = (to != a).then_some(to);
    }

    /// Opens the split with `p` on the B side, from now.
    pub(in crate::ui) fn open_split(&mut self, p: Policy) {
        if !self.policy_available(p) {
            return;
        }
        let live = self.sim.replay.policy_to_be();
        let place = self.view.split_placement.take();
        if p == live && place.is_none() {
            self.view.flash = Some(format!(
                "{} is the live policy: pick another for the B side, or o for another placement",
                p.label()
            ));
            return;
        }
        let a = &self.sim.replay;
        let now = a.now();
        // B is A up to now (its switches so far), then the picked policy.
        let mut switches: Vec<(Secs, Switch)> = a
            .switches()
            .iter()
            .filter(|s| s.0 <= now)
            .copied()
            .collect();
        if p != live {
            switches.push((now, Switch::Policy(p)));
        }
        if let Some(pl) = place {
            switches.push((now, Switch::Placement(pl)));
        }
        let mut b = Replay::new(a.start_engine().forked());
        b.schedule(switches);
        self.sim.split = Some(Box::new(Split {
            replay: b,
            figures: Figures::default(),
            since: now,
            policy: p,
            placement: place,
            timeline: self.sim.timeline.until(now),
        }));
        self.sync_split();
        let at = self.clock(now);
        let b = match place {
            Some(pl) => format!("{p} placing by {}", pl.name()),
            None => p.to_string(),
        };
        self.info(format!(
            "{at} split: A {live} (live) beside B {b}, in lockstep"
        ));
        self.view.flash = Some(format!("split: B runs {b} from {at} · A closes"));
    }

    /// Brings B to A's time and its figures up to date.
    pub(in crate::ui) fn sync_split(&mut self) {
        let now = self.sim.replay.now();
        let Some(s) = self.sim.split.as_mut() else {
            return;
        };
        if s.replay.now() != now || s.replay.target() != now {
            s.replay.seek(now);
        }
        s.replay.engine_mut().take_events();
        s.figures.update(s.replay.engine());
    }

    /// Whether B waits for an external policy's answer.
    pub(in crate::ui) fn split_waiting(&self) -> bool {
        self.sim.split.as_ref().is_some_and(|s| s.replay.waiting())
    }

    /// The split's second replay, when the screen is split.
    pub fn split(&self) -> Option<&Split> {
        self.sim.split.as_deref()
    }
}
