//! For teaching: a lesson's captions and the lecture layout (`L`: grid and
//! queue take the screen, high-contrast, captions large).
//!
//! The feature's state here (`Lecture`), what `L` does to the app in
//! `actions.rs`; the layout itself is the screen's (`layout.rs`, `draw.rs`).

mod actions;
pub(crate) mod view;

use crate::trace::Secs;

/// The lecture layout and a lesson's captions.
#[derive(Debug, Default)]
pub(crate) struct Lecture {
    /// The lecture layout is on.
    pub(crate) on: bool,
    /// The theme to go back to when it goes off.
    pub(crate) theme_before: Option<usize>,
    /// A lesson's captions: (from this trace second, text), in time order.
    pub(crate) captions: Vec<(Secs, String)>,
}

impl Lecture {
    /// The caption at `now`: the last one due, or (before the first) the
    /// first.
    pub(crate) fn caption(&self, now: Secs) -> Option<&str> {
        let i = self.captions.partition_point(|c| c.0 <= now);
        self.captions.get(i.saturating_sub(1)).map(|c| c.1.as_str())
    }

    /// `captions` in time order.
    pub(crate) fn with_captions(mut captions: Vec<(Secs, String)>) -> Lecture {
        captions.sort_by_key(|c| c.0);
        Lecture {
            captions,
            ..Lecture::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_caption_is_the_last_due_or_the_first() {
        let l = Lecture::with_captions(vec![(20, "b".into()), (10, "a".into())]);
        assert_eq!(l.caption(0), Some("a"));
        assert_eq!(l.caption(10), Some("a"));
        assert_eq!(l.caption(19), Some("a"));
        assert_eq!(l.caption(20), Some("b"));
        assert_eq!(Lecture::default().caption(5), None);
    }
}
