//! What `L` and a lesson's captions do to the app.

use crate::ui::app::App;

impl App {
    /// The caption for the current time: the last one due, or (before the
    /// first) the first.
    pub fn caption(&self) -> Option<&str> {
        self.view.lecture.caption(self.sim.replay.now())
    }

    /// `L`: grid and queue take the screen, high-contrast theme, captions large.
    pub(in crate::ui) fn toggle_lecture(&mut self) {
        let l = &mut self.view.lecture;
        l.on = !l.on;
        if l.on {
            l.theme_before = Some(self.view.theme);
            if let Some(i) = self
                .view
                .themes
                .iter()
                .position(|t| t.name == "high-contrast")
            {
                self.view.theme = i;
            }
            self.view.flash = Some("lecture layout: L goes back".into());
        } else if let Some(i) = l.theme_before.take() {
            self.view.theme = i;
        }
    }
}
