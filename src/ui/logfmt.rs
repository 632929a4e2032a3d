//! How the log pane lays out a line: the level's letter, the message, and
//! continuation lines broken between words (a word longer than the pane
//! is cut; `text::wrap_words`), indented under the message.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use tui_logger::{ExtLogRecord, LogFormatter};

pub(super) struct WordWrap {
    pub text: Style,
    pub warn: Style,
    pub error: Style,
}

impl LogFormatter for WordWrap {
    fn min_width(&self) -> u16 {
        8
    }

    fn format(&self, width: usize, evt: &ExtLogRecord) -> Vec<Line<'_>> {
        let (style, letter) = match evt.level {
            log::Level::Error => (self.error, "E"),
            log::Level::Warn => (self.warn, "W"),
            _ => (self.text, "I"),
        };
        let msg = evt.msg().replace('\n', " ");
        crate::text::wrap_words(&msg, width.max(8), 2)
            .into_iter()
            .enumerate()
            .map(|(i, l)| {
                let head = if i == 0 {
                    format!("{letter} ")
                } else {
                    "  ".into()
                };
                Line::from(Span::styled(format!("{head}{l}"), style))
            })
            .collect()
    }
}
