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
    /// `:`, a typed command.
    Command,
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
        /// The job it shows (none: a machine's).
        job: Option<u32>,
        /// A machine's GPU rows, to pick with ↑↓ and open with Enter: the
        /// line of each and the job holding most of it (none: free).
        picks: Vec<(usize, Option<u32>)>,
        /// The picked one (an index into `picks`).
        pick: usize,
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
    /// The rankings (`u`): what is ranked, by which column, the chosen row.
    Rankings {
        by: crate::ui::rankings::by::RankBy,
        sort: usize,
        at: usize,
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

/// The columns a drill-down's text has in a terminal of `size`.
pub(crate) fn detail_width(size: (u16, u16)) -> usize {
    detail_box(Rect::new(0, 0, size.0, size.1))
        .width
        .saturating_sub(2) as usize
}

/// A drill-down's lines wrapped to `cols`: a line too long goes on in the
/// column its value starts in (after the label and its run of spaces), so
/// no value is cut at the edge.
pub(crate) fn wrap_detail(lines: &[String], cols: usize) -> Vec<String> {
    wrap_detail_rows(lines, cols).0
}

/// `wrap_detail`, with the first wrapped row of each line.
pub(crate) fn wrap_detail_rows(lines: &[String], cols: usize) -> (Vec<String>, Vec<usize>) {
    let mut out = Vec::with_capacity(lines.len());
    let mut first = Vec::with_capacity(lines.len());
    for line in lines {
        first.push(out.len());
        if crate::text::width(line) <= cols || cols < 8 {
            out.push(line.clone());
            continue;
        }
        let chars: Vec<char> = line.chars().collect();
        let lead = chars.iter().take_while(|c| **c == ' ').count();
        // The value: after the first run of two spaces past the label.
        let value_at = (lead..chars.len().saturating_sub(2))
            .find(|&i| chars[i] == ' ' && chars[i + 1] == ' ')
            .and_then(|i| (i..chars.len()).find(|&k| chars[k] != ' '));
        let text = |r: std::ops::Range<usize>| chars[r].iter().collect::<String>();
        // A word (a 60-character id) that would break beside the label but
        // fits whole under it goes under it.
        let widest = |k: usize| {
            let words = text(k..chars.len());
            words.split(' ').map(crate::text::width).max().unwrap_or(0)
        };
        let hangs = |k: usize| widest(k) <= cols - k || widest(k) > cols - lead - 2;
        let (head, value, indent) = match value_at {
            Some(k) if k <= cols / 2 && hangs(k) => (text(0..k), text(k..chars.len()), k),
            Some(k) => {
                // A label too wide to hang the value beside: the value below it.
                out.push(text(0..k).trim_end().to_string());
                (String::new(), text(k..chars.len()), lead + 2)
            }
            None => (text(0..lead), text(lead..chars.len()), lead),
        };
        let indent = indent.min(cols / 2);
        let room = cols - indent.max(crate::text::width(&head));
        for (i, piece) in crate::text::wrap_words(&value, room, 0)
            .into_iter()
            .enumerate()
        {
            match (i, head.is_empty()) {
                (0, false) => out.push(format!("{head}{piece}")),
                _ => out.push(format!("{}{piece}", " ".repeat(indent))),
            }
        }
    }
    (out, first)
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

#[cfg(test)]
mod tests {
    use super::wrap_detail;

    #[test]
    fn a_long_line_goes_on_under_its_value_and_nothing_is_cut() {
        let lines = vec![
            "waits for  its turn: it fits now, but fifo starts jobs in order".to_string(),
            "    job_id                 0123456789abcdef0123456789abcdef".to_string(),
            "short".to_string(),
        ];
        let rows = wrap_detail(&lines, 40);
        assert!(
            rows.iter().all(|r| crate::text::width(r) <= 40),
            "{rows:#?}"
        );
        assert_eq!(rows[0], "waits for  its turn: it fits now, but");
        assert_eq!(rows[1], "           fifo starts jobs in order");
        assert_eq!(rows[2], "    job_id");
        assert_eq!(rows[3], "      0123456789abcdef0123456789abcdef");
        let squeeze = |v: &[String]| v.concat().replace(' ', "");
        assert_eq!(squeeze(&rows), squeeze(&lines));
        assert_eq!(rows.last().unwrap(), "short");
    }

    #[test]
    fn an_id_that_fits_under_its_label_goes_there_whole() {
        let id = "0123456789abcdef".repeat(4);
        let lines = vec![format!("    inst_id         {id}")];
        let rows = wrap_detail(&lines, 70);
        assert_eq!(rows, vec!["    inst_id".to_string(), format!("      {id}")]);
        // Wider than any line: it is broken, nothing lost.
        let rows = wrap_detail(&lines, 40);
        assert_eq!(rows.concat().replace(' ', ""), format!("inst_id{id}"));
    }
}
