//! Overlays over the replay: help, the drill-down (a job's or a machine's
//! lines), the policy picker, the what-if table, and the prompts (`/`, `g`,
//! `f`).
//!
//! Their state here (what is open, where it is scrolled), and how far a
//! drill-down scrolls on a screen; drawn in `view.rs`.

pub(crate) mod view;

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

/// How far a drill-down of `lines` can scroll on a `size` screen: its last
/// line at the bottom of the box, never into blank pages.
pub(crate) fn detail_scroll_max(size: (u16, u16), lines: usize) -> usize {
    let r = detail_box(Rect::new(0, 0, size.0, size.1));
    lines.saturating_sub(r.height.saturating_sub(2) as usize)
}
