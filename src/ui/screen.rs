//! The terminal's size as the app last heard it (`Action::Resize`), for
//! moves that depend on the layout, and whether it has heard one yet.

use ratatui::layout::Rect;

/// The screen the app is laid out on.
pub(super) struct Screen {
    size: (u16, u16),
    /// A size has been told (the first fits the zoom).
    sized: bool,
}

impl Screen {
    /// 120×40 until told.
    pub(super) fn new() -> Screen {
        Screen {
            size: (120, 40),
            sized: false,
        }
    }

    /// (columns, rows).
    pub(super) fn size(&self) -> (u16, u16) {
        self.size
    }

    /// The whole screen, at the origin.
    pub(super) fn area(&self) -> Rect {
        Rect::new(0, 0, self.size.0, self.size.1)
    }

    /// The terminal is `w`×`h` now: whether this is the first size told.
    pub(super) fn resize(&mut self, w: u16, h: u16) -> bool {
        self.size = (w, h);
        !std::mem::replace(&mut self.sized, true)
    }
}
