//! What `L` and a lesson's captions do to the app.

use crate::trace::Secs;
use crate::ui::app::App;

impl App {
    /// The caption for the current time: the last one due (none before
    /// the first's moment).
    pub fn caption(&self) -> Option<&str> {
        self.view.lecture.caption(self.sim.replay.now())
    }

    /// What the caption line shows: the caption due, or before the first
    /// how to start.
    pub(in crate::ui) fn caption_shown(&self) -> Option<String> {
        let l = &self.view.lecture;
        if l.captions.is_empty() {
            return None;
        }
        // PageDown steps only in `L` (elsewhere it scrolls lists): the
        // hint names the keys that work where it shows.
        let keys = if self.slides() { "> or PageDown" } else { ">" };
        Some(match self.caption() {
            Some(c) => c.to_string(),
            None => format!(
                "{} · {keys}: the first · space plays and stops at each",
                match l.captions.len() {
                    1 => "1 caption".to_string(),
                    n => format!("{n} captions"),
                }
            ),
        })
    }

    /// Whether PageDown/PageUp go through the captions: in `L`, with a lesson's.
    pub(in crate::ui) fn slides(&self) -> bool {
        self.view.lecture.on && !self.view.lecture.captions.is_empty()
    }

    /// `>` (PageDown in `L`): to the next caption's moment, paused there.
    pub(in crate::ui) fn next_caption(&mut self) {
        let to = self.view.lecture.next_after(self.sim.replay.now());
        self.slide(to, ">", "that was the last caption");
    }

    /// `<` (PageUp in `L`): back to the caption before, its moment restored.
    pub(in crate::ui) fn previous_caption(&mut self) {
        let to = self.view.lecture.previous_before(self.sim.replay.now());
        self.slide(to, "<", "that is the first caption");
    }

    /// To caption time `to`, paused (the slide's moment); else why not:
    /// no captions (`key` steps through a lesson's), or `end`.
    fn slide(&mut self, to: Option<Secs>, key: &str, end: &str) {
        let Some(t) = to else {
            self.view.flash = Some(match self.view.lecture.captions.is_empty() {
                true => format!("no captions: {key} steps through a lesson's"),
                false => end.to_string(),
            });
            return;
        };
        self.sim.playback.pause();
        self.move_to(t);
        self.view.flash = Some(self.caption_flash(t));
    }

    /// `caption 3 of 10 · < back · > next · space plays` (the header has
    /// the time).
    pub(in crate::ui) fn caption_flash(&self, t: Secs) -> String {
        let l = &self.view.lecture;
        let k = l.index_at(t).map_or(0, |i| i + 1);
        format!(
            "caption {k} of {} · < back · > next · space plays",
            l.captions.len()
        )
    }

    /// Playing or stepping from `now` towards `target`: where to stop
    /// instead — a caption's moment on the way (playing then pauses).
    pub(in crate::ui) fn caption_stop(&self, now: Secs, target: Secs) -> Option<Secs> {
        self.view.lecture.next_after(now).filter(|&t| t <= target)
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
