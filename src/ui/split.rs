//! `A`: the A/B split replay. B is a second replay of the same trace that
//! follows the live replay's policy switches up to the moment the split
//! opened and then runs the picked policy; it moves in lockstep with the
//! live replay (A) on its clock: playing, stepping, stepping back and going
//! to a time move A, and B is brought to A's time after every move.

use super::app::App;
use super::figures::Figures;
use super::state::Popup;
use crate::sim::engine::Switch;
use crate::sim::replay::Replay;
use crate::sim::{Phase, Policy};
use crate::trace::model::Secs;

/// The second replay, and what is derived from it.
pub struct Split {
    pub(super) replay: Replay,
    pub(super) figures: Figures,
    /// When B's policy took over from the live replay's.
    pub(super) since: Secs,
    /// B's policy (its replay may fall back after a failure; this is what was picked).
    pub(super) policy: Policy,
}

impl App {
    /// `A`: closes the split, or opens the picker for B's policy.
    pub(super) fn toggle_split(&mut self) {
        if self.sim.split.take().is_some() {
            self.view.flash = Some("split closed: one replay again".into());
            return;
        }
        let live = self.sim.replay.policy_to_be();
        let all = Policy::all();
        // The first other policy that this trace supports.
        let at = all
            .iter()
            .position(|p| *p != live && p.available(self.trace()).is_ok())
            .unwrap_or(0);
        self.view.popup = Some(Popup::Picker { at, split: true });
    }

    /// Opens the split with `p` on the B side, from now.
    pub(super) fn open_split(&mut self, p: Policy) {
        if !self.policy_available(p) {
            return;
        }
        let live = self.sim.replay.policy_to_be();
        if p == live {
            self.view.flash = Some(format!(
                "{} is the live policy: pick another for the B side",
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
        switches.push((now, Switch::Policy(p)));
        let mut b = Replay::new(a.start_engine().forked());
        b.schedule(switches);
        self.sim.split = Some(Box::new(Split {
            replay: b,
            figures: Figures::default(),
            since: now,
            policy: p,
        }));
        self.sync_split();
        let at = self.clock(now);
        self.info(format!(
            "{at} split: A {live} (live) beside B {p}, in lockstep"
        ));
        self.view.flash = Some(format!("split: B runs {} from {at} · A closes", p.label()));
    }

    /// Brings B to A's time and its figures up to date.
    pub(super) fn sync_split(&mut self) {
        let now = self.sim.replay.now();
        let Some(s) = self.sim.split.as_mut() else {
            return;
        };
        if s.replay.now() != now || s.replay.target() != now {
            s.replay.seek(now);
        }
        s.replay.engine_mut().take_events();
        s.figures.update(s.replay.engine().tally());
    }

    /// Whether B waits for an external policy's answer.
    pub(super) fn split_waiting(&self) -> bool {
        self.sim.split.as_ref().is_some_and(|s| s.replay.waiting())
    }

    /// The split's second replay, when the screen is split.
    pub fn split(&self) -> Option<&Split> {
        self.sim.split.as_deref()
    }
}

impl Split {
    pub fn replay(&self) -> &Replay {
        &self.replay
    }

    pub fn figures(&self) -> &Figures {
        &self.figures
    }

    pub fn policy(&self) -> Policy {
        self.policy
    }

    pub fn since(&self) -> Secs {
        self.since
    }
}

/// Running jobs of `here` that are not running in `there`.
pub fn running_only_here(here: &crate::sim::Engine, there: &crate::sim::Engine) -> Vec<u32> {
    let mut only: Vec<u32> = here
        .running()
        .keys()
        .copied()
        .filter(|&j| there.job_state(j).phase != Phase::Running)
        .collect();
    only.sort_unstable();
    only
}

/// Whether `job` is somewhere else in `there` than in `here`.
pub fn differs(job: u32, here: &crate::sim::Engine, there: &crate::sim::Engine) -> bool {
    here.job_state(job).phase != there.job_state(job).phase
}
