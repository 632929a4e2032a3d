//! What the what-if fork's actions do to the app: open the table (a fork
//! from now), take its rows' progress and results, switch to a row.

use super::WhatIf;
use crate::sim::{Dists, Report, WhatIfRun};
use crate::ui::app::{App, Effect, Popup, WhatIfStart};

impl App {
    /// `w`: opens the table, starting a fork from now unless one from now exists.
    pub(in crate::ui) fn open_what_if(&mut self) {
        let now = self.sim.replay.now();
        if self.sim.whatif.as_ref().is_none_or(|w| w.at != now) {
            let e = self.sim.replay.engine();
            let runs = crate::sim::runs_for(e, self.sim.replay.ahead(), &self.sim.policies);
            let base = Box::new(e.clone());
            self.sim.whatif = Some(WhatIf {
                at: now,
                rows: vec![(0.0, None); runs.len()],
                dists: vec![None; runs.len()],
                runs: runs.clone(),
            });
            self.emit(Effect::StartWhatIf(WhatIfStart { base, runs }));
        }
        self.view.popup = Some(Popup::WhatIf {
            at: 0,
            charts: false,
        });
    }

    /// A row's progress arrived; whether it is shown.
    pub(in crate::ui) fn what_if_progress(&mut self, row: usize, progress: f64) -> bool {
        match self.sim.whatif.as_mut().and_then(|w| w.rows.get_mut(row)) {
            Some(r) => {
                r.0 = progress;
                true
            }
            None => false,
        }
    }

    /// A row's result arrived, `secs` after the fork started; logged when it is the last.
    pub(in crate::ui) fn what_if_done(
        &mut self,
        row: usize,
        report: Report,
        dists: Dists,
        secs: f64,
    ) -> bool {
        let Some(w) = self.sim.whatif.as_mut().filter(|w| row < w.rows.len()) else {
            return false;
        };
        let was_done = w.done();
        let failed = report.failed.clone();
        w.rows[row] = (1.0, Some(report));
        w.dists[row] = Some(dists);
        if let Some(why) = failed {
            self.warn(format!("what-if row {}: {why}", row + 1));
        }
        let Some(w) = self.sim.whatif.as_mut() else {
            return true;
        };
        if w.done() && !was_done {
            let text = format!("what-if: all {} runs done in {secs:.1} s", w.rows.len());
            self.info(text);
        }
        true
    }

    /// Enter on a row: switch the live replay to its policy.
    pub(in crate::ui) fn what_if_choose(&mut self, at: usize) {
        let Some(run) = self
            .sim
            .whatif
            .as_ref()
            .and_then(|w| w.runs.get(at).cloned())
        else {
            return;
        };
        self.view.popup = None;
        match run {
            WhatIfRun::Policy(p) => self.switch_policy(p),
            WhatIfRun::Schedule(_) => {
                self.view.flash = Some("already following the schedule".into())
            }
        }
    }
}
