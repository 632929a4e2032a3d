//! How the screen looks: the themes to cycle through, the one worn, and
//! whether everything is drawn in ASCII (`--ascii`).

use super::theme::Theme;

/// The themes and glyphs the screen is drawn with.
#[derive(Clone)]
pub(super) struct Look {
    themes: Vec<Theme>,
    /// Index into `themes`.
    theme: usize,
    ascii: bool,
}

impl Look {
    /// The first of `themes` (at least one), in Unicode.
    pub(super) fn new(themes: Vec<Theme>) -> Look {
        Look {
            themes,
            theme: 0,
            ascii: false,
        }
    }

    /// The theme worn.
    pub(super) fn theme(&self) -> &Theme {
        &self.themes[self.theme]
    }

    /// Which of the themes is worn (to put it back later).
    pub(super) fn worn(&self) -> usize {
        self.theme
    }

    /// Wears theme `i` (the last if there are fewer).
    pub(super) fn wear(&mut self, i: usize) {
        self.theme = i.min(self.themes.len().saturating_sub(1));
    }

    /// Wears the next theme (after the last, the first).
    pub(super) fn next_theme(&mut self) {
        self.theme = (self.theme + 1) % self.themes.len();
    }

    /// Which of the themes is called `name`, if one is.
    pub(super) fn named(&self, name: &str) -> Option<usize> {
        self.themes.iter().position(|t| t.name == name)
    }

    /// Whether glyphs and borders are ASCII.
    pub(super) fn ascii(&self) -> bool {
        self.ascii
    }

    pub(super) fn set_ascii(&mut self, ascii: bool) {
        self.ascii = ascii;
    }
}
