//! `A`: the A/B split replay. B is a second replay of the same trace that
//! follows the live replay's policy switches up to the moment the split
//! opened and then runs the picked policy; it moves in lockstep with the
//! live replay (A) on its clock: playing, stepping, stepping back and going
//! to a time move A, and B is brought to A's time after every move.

//!
//! Its state here; what its actions do to the app in `actions.rs`; the
//! panes in `split_view.rs`.

mod actions;

use super::figures::Figures;
use crate::sim::{Phase, Policy, Replay};
use crate::trace::Secs;

/// The second replay, and what is derived from it.
pub struct Split {
    pub(in crate::ui) replay: Replay,
    pub(in crate::ui) figures: Figures,
    /// When B's policy took over from the live replay's.
    pub(in crate::ui) since: Secs,
    /// B's policy (its replay may fall back after a failure; this is what was picked).
    pub(in crate::ui) policy: Policy,
    /// B's placement rule, where the split compares placements.
    pub(in crate::ui) placement: Option<crate::sim::Placement>,
    /// B's figures by trace time (A's up to `since`), for `T`'s overlay.
    pub(in crate::ui) timeline: super::timeline::Samples,
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

    /// B's samples: (time, allocated GPUs in percent).
    pub fn timeline_util(&self) -> Vec<(Secs, f64)> {
        self.timeline.util_at().collect()
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
