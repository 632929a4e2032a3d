//! What `L` and a lesson's captions do to the app.

use crate::ui::app::App;

impl App {
    /// The caption for the current time: the last one due, or (before the
    /// first) the first.
    pub fn caption(&self) -> Option<&str> {
        self.view.lecture.caption(self.sim.replay.now())
    }

    /// `>`: to the next caption's time (a lesson's next part).
    pub(in crate::ui) fn next_caption(&mut self) {
        let now = self.sim.replay.now();
        let next = self
            .view
            .lecture
            .captions
            .iter()
            .map(|c| c.0)
            .find(|&t| t > now);
        match next {
            Some(t) => {
                self.move_to(t);
                self.view.flash = Some(format!("at {} (> the next caption)", self.clock(t)));
            }
            None if self.view.lecture.captions.is_empty() => {
                self.view.flash = Some("no captions: > steps through a lesson's".into())
            }
            None => self.view.flash = Some("that was the last caption".into()),
        }
    }

    /// `.`: to the next moment worth a look, found ahead on a copy of the
    /// engine (at most a day ahead, a tick at a time).
    pub(in crate::ui) fn next_moment(&mut self) {
        use crate::sim::{next_moment, Moment};
        let step = match self.tick_size() {
            crate::ui::app::Tick::Secs(s) => s,
            crate::ui::app::Tick::NextEvent => 60,
        };
        let steps = (86_400 / step.max(1)).clamp(1, 20_000) as usize;
        let found = next_moment(self.engine(), self.sim.replay.switches(), step, steps);
        let Some(m) = found else {
            let why = match self.engine().policy().command() {
                Some(_) => "not under an external policy: it cannot be run ahead without asking it",
                None => "nothing ahead within a day: the queue stays empty",
            };
            self.view.flash = Some(format!("no moment found: {why}"));
            return;
        };
        let at = m.at();
        self.move_to(at);
        let when = self.clock(at);
        let what = match m {
            Moment::Preemptions { n, .. } => format!("{n} preemptions in ten minutes"),
            Moment::Starving { job, waited, .. } => format!(
                "{} starving: waited {}",
                crate::text::sanitize(&self.trace().jobs[job as usize].id),
                crate::trace::human_secs(waited as f64)
            ),
            Moment::QueuePeak { len, .. } => {
                format!("the queue's peak in the next day: {len} waiting")
            }
        };
        self.info(format!("{when} {what}"));
        self.view.flash = Some(format!("{when}: {what}"));
    }

    /// `L`: grid and queue take the screen, high-contrast theme, captions large.
    pub(in crate::ui) fn toggle_lecture(&mut self) {
        let l = &mut self.view.lecture;
        l.on = !l.on;
        if l.on {
            l.theme_before = Some(self.view.look.worn());
            if let Some(i) = self.view.look.named("high-contrast") {
                self.view.look.wear(i);
            }
            self.view.flash = Some("lecture layout: L goes back".into());
        } else if let Some(i) = l.theme_before.take() {
            self.view.look.wear(i);
        }
    }
}
