//! Overlays over the replay: help, the drill-down (a job's or a machine's
//! lines), the policy picker, the what-if table, and the prompts (`/`, `g`,
//! `f`).
//!
//! Their state here (what is open, where it is scrolled), and how far a
//! drill-down scrolls on a screen; drawn in `view.rs`.

pub(crate) mod view;

use super::keymap::Command;
use super::layout::centered;
use ratatui::layout::Rect;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    Find,
    Goto,
    Filter,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Popup {
    Help {
        scroll: usize,
    },
    /// A drill-down (of a job or a machine): a title and rendered lines, scrolled.
    Detail {
        title: String,
        lines: Vec<String>,
        scroll: usize,
    },
    /// The policy picker: for a live switch, or (`split`) for the B side.
    Picker {
        at: usize,
        split: bool,
    },
    /// The what-if table, with the chosen row; `charts`: the CDFs alone,
    /// full size (they show under the table where there is room).
    WhatIf {
        at: usize,
        charts: bool,
    },
    Prompt {
        kind: PromptKind,
        input: String,
        /// Where typing goes: a character index into `input`.
        cursor: usize,
    },
}

/// The drill-down's box on a screen of `area`.
pub(super) fn detail_box(area: Rect) -> Rect {
    centered(
        area,
        area.width.saturating_sub(8).max(60),
        area.height.saturating_sub(4).max(10),
    )
}

/// A drill-down's page (the lines it shows) and how far it can scroll: its
/// last line at the bottom of the box, never into blank pages.
pub(crate) fn detail_pages(size: (u16, u16), lines: usize) -> (usize, usize) {
    let r = detail_box(Rect::new(0, 0, size.0, size.1));
    let page = r.height.saturating_sub(2).max(1) as usize;
    (page, lines.saturating_sub(page))
}

/// The help's page and how far it can scroll, for its `lines`.
pub(crate) fn help_pages(size: (u16, u16), lines: usize) -> (usize, usize) {
    let r = centered(Rect::new(0, 0, size.0, size.1), 50, lines as u16 + 2);
    let page = r.height.saturating_sub(2).max(1) as usize;
    (page, lines.saturating_sub(page))
}

/// The commands that scroll a popup's text.
pub(crate) fn is_scroll(c: Command) -> bool {
    matches!(
        c,
        Command::Up
            | Command::Down
            | Command::PageUp
            | Command::PageDown
            | Command::Home
            | Command::End
    )
}

/// `scroll` moved by `c`: a line, a page of `page` lines, or to an end,
/// within 0..=`max`.
pub(crate) fn scrolled(scroll: usize, c: Command, page: usize, max: usize) -> usize {
    match c {
        Command::Up => scroll.saturating_sub(1),
        Command::Down => scroll + 1,
        Command::PageUp => scroll.saturating_sub(page),
        Command::PageDown => scroll + page,
        Command::Home => 0,
        Command::End => max,
        _ => scroll,
    }
    .min(max)
}
