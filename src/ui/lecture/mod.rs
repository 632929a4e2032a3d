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
    /// The caption at `now`: the last one due (none before the first's
    /// time: a caption never shows before its moment).
    pub(crate) fn caption(&self, now: Secs) -> Option<&str> {
        self.index_at(now).map(|i| self.captions[i].1.as_str())
    }

    /// Which caption is due at `now` (its index), if any.
    pub(crate) fn index_at(&self, now: Secs) -> Option<usize> {
        self.captions.partition_point(|c| c.0 <= now).checked_sub(1)
    }

    /// The next caption's time after `now`.
    pub(crate) fn next_after(&self, now: Secs) -> Option<Secs> {
        self.captions.iter().map(|c| c.0).find(|&t| t > now)
    }

    /// The time of the caption before the one due at `now` (the first's
    /// when only it is due): `<`'s slide.
    pub(crate) fn previous_before(&self, now: Secs) -> Option<Secs> {
        let due = self.index_at(now)?;
        let at = self.captions[due].0;
        // Past a caption's own moment, `<` goes back to it first.
        if now > at {
            return Some(at);
        }
        due.checked_sub(1).map(|i| self.captions[i].0)
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
    fn the_caption_is_the_last_due_and_none_before_its_moment() {
        let l = Lecture::with_captions(vec![(20, "b".into()), (10, "a".into())]);
        assert_eq!(l.caption(0), None);
        assert_eq!(l.caption(9), None);
        assert_eq!(l.caption(10), Some("a"));
        assert_eq!(l.caption(19), Some("a"));
        assert_eq!(l.caption(20), Some("b"));
        assert_eq!(Lecture::default().caption(5), None);
        assert_eq!(l.next_after(-1), Some(10));
        assert_eq!(l.next_after(10), Some(20));
        assert_eq!(l.next_after(20), None);
        assert_eq!(l.previous_before(20), Some(10));
        assert_eq!(l.previous_before(25), Some(20));
        assert_eq!(l.previous_before(10), None);
        assert_eq!(l.previous_before(5), None);
    }
}
