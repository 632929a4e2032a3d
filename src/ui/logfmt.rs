//! How the log pane lays out a line: the level's letter, the message, and
//! continuation lines broken between words (a word longer than the pane
//! is cut; `text::wrap_words`), indented under the message. A message is
//! kept to `MAX_SHOWN` bytes as it enters the pane, and its wrapped lines
//! are remembered per width (`Wraps`, the view's own), so a redraw
//! (several a second, even paused) wraps nothing it has wrapped before.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};
use tui_logger::{ExtLogRecord, LogFormatter};

/// The longest message kept in the log pane, in bytes: a 1 MiB job id or a
/// 10 MB config key is cut here, saying how much was left out.
pub(super) const MAX_SHOWN: usize = 4096;

/// A record's text as the pane keeps it: guarded, and cut to `MAX_SHOWN`.
pub(super) fn kept(text: &str) -> Cow<'_, str> {
    if text.len() <= MAX_SHOWN {
        return crate::text::guarded(text);
    }

    let mut cut = MAX_SHOWN;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let shown = crate::text::guarded(&text[..cut]);
    Cow::Owned(format!("{shown}… ({} bytes more)", text.len() - cut))
}

type Wrapped = Arc<Vec<String>>;

/// Wrapped lines by (message, width), at most `CACHED` of them: the view
/// keeps one, and each frame's formatter shares it.
#[derive(Debug, Clone, Default)]
pub(super) struct Wraps(Arc<Mutex<HashMap<(u64, usize), Wrapped>>>);
const CACHED: usize = 512;

/// `msg` wrapped to `width`, from `wraps` when it was wrapped before.
fn wrapped(wraps: &Wraps, msg: &str, width: usize) -> Wrapped {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    msg.hash(&mut h);
    let key = (h.finish(), width);
    let Ok(mut map) = wraps.0.lock() else {
        return Arc::new(wrap(msg, width));
    };
    if let Some(lines) = map.get(&key) {
        return lines.clone();
    }
    if map.len() >= CACHED {
        map.clear();
    }
    let lines = Arc::new(wrap(msg, width));
    map.insert(key, lines.clone());
    lines
}

fn wrap(msg: &str, width: usize) -> Vec<String> {
    crate::text::wrap_words(&msg.replace('\n', " "), width.max(8), 2)
}

pub(super) struct WordWrap {
    pub wraps: Wraps,
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
        wrapped(&self.wraps, evt.msg(), width)
            .iter()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_message_is_cut_where_it_enters_the_pane() {
        let id = "x".repeat(1 << 20);
        let shown = kept(&id);
        assert!(shown.len() < MAX_SHOWN + 40, "{}", shown.len());
        assert!(shown.ends_with(&format!("… ({} bytes more)", (1 << 20) - MAX_SHOWN)));
        // A cut never splits a character, and what is kept is guarded.
        let wide = format!("\x1b{}", "作".repeat(3000));
        let shown = kept(&wide);
        assert!(shown.starts_with("\\x1b作"));
        assert!(!shown.chars().any(crate::text::is_unsafe));
    }

    #[test]
    fn wrapped_lines_are_remembered_per_width() {
        let msg = "a b c ".repeat(100);
        let wraps = Wraps::default();
        let first = wrapped(&wraps, &msg, 20);
        assert!(
            Arc::ptr_eq(&first, &wrapped(&wraps, &msg, 20)),
            "the second is the cached one"
        );
        assert!(!Arc::ptr_eq(&first, &wrapped(&wraps, &msg, 30)));
        assert_eq!(*first, wrap(&msg, 20));
        // Another view's lines are its own.
        let other = Wraps::default();
        assert!(!Arc::ptr_eq(&first, &wrapped(&other, &msg, 20)));
    }
}
