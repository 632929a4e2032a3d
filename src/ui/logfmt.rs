//! How the log pane lays out a line: the level's letter, the message, and
//! continuation lines broken between words (a word longer than the pane
//! is cut), indented under the message.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use tui_logger::{ExtLogRecord, LogFormatter};

pub struct WordWrap {
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
        wrap_words(&msg, width.max(8), 2)
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

/// `text` in lines of at most `width` columns after an `indent` of
/// columns each, broken at spaces (a longer word is cut).
pub fn wrap_words(text: &str, width: usize, indent: usize) -> Vec<String> {
    let room = width.saturating_sub(indent).max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut len = 0;
    for word in text.split(' ') {
        let mut word: Vec<char> = word.chars().collect();
        loop {
            let gap = usize::from(len > 0);
            if len + gap + word.len() <= room {
                if gap == 1 {
                    line.push(' ');
                }
                line.extend(word.iter());
                len += gap + word.len();
                break;
            }
            if len > 0 {
                lines.push(std::mem::take(&mut line));
                len = 0;
                continue;
            }
            // A word longer than the line: as much as fits, the rest next.
            let rest = word.split_off(room);
            lines.push(word.iter().collect());
            word = rest;
        }
    }
    lines.push(line);
    lines
}

#[cfg(test)]
mod tests {
    use super::wrap_words;

    #[test]
    fn breaks_between_words_and_cuts_only_longer_ones() {
        assert_eq!(
            wrap_words("day 1 00:41:42 started abcdef on 2 machines", 20, 2),
            ["day 1 00:41:42", "started abcdef on", "2 machines"]
        );
        assert_eq!(wrap_words("abcdefghij", 6, 2), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap_words("", 10, 2), [""]);
    }
}
