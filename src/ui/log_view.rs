//! The log pane's own state: tui-logger's (scrolled or following, the
//! level shown) and the lines it has wrapped, by message and width.

use super::logfmt::Wraps;
use tui_logger::{TuiWidgetEvent, TuiWidgetState};

/// How the log pane shows the log.
pub(super) struct LogView {
    state: TuiWidgetState,
    /// The pane's lines as wrapped, by message and width.
    wraps: Wraps,
}

impl LogView {
    /// Following new lines, at Info and above.
    pub(super) fn new() -> LogView {
        LogView {
            state: TuiWidgetState::new().set_default_display_level(log::LevelFilter::Info),
            wraps: Wraps::default(),
        }
    }

    /// A key for the pane: scroll, page, level.
    pub(super) fn key(&mut self, e: TuiWidgetEvent) {
        self.state.transition(e);
    }

    /// Out of its page mode, so it follows new lines again.
    pub(super) fn follow(&mut self) {
        self.state.transition(TuiWidgetEvent::EscapeKey);
    }

    /// tui-logger's state, for the widget.
    pub(super) fn state(&self) -> &TuiWidgetState {
        &self.state
    }

    /// The wrapped lines, shared with the formatter that fills them.
    pub(super) fn wraps(&self) -> Wraps {
        self.wraps.clone()
    }
}
