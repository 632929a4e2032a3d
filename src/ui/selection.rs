//! Where the user points: the grid's cursor (a machine) and how far the
//! grid is scrolled, the lists' cursor, and the job selected — the
//! largest holder under the grid's cursor, or the job at the lists'.

use super::keymap::Command;

/// The cursors and the selected job.
pub(super) struct Selection {
    /// Index into the machines in display order (`Facts::machines`).
    cursor: usize,
    /// The grid's first row shown.
    grid_scroll: usize,
    selected: Option<u32>,
    /// Position in the lists (queue, then running).
    queue_pos: usize,
}

impl Selection {
    /// The same cursors, the selected job by its number in a view built
    /// anew (the live view's newer answer, of the same machines, whose
    /// jobs are numbered afresh): `selected`, none where it is gone.
    pub(super) fn carried(&self, selected: Option<u32>) -> Selection {
        Selection { selected, ..*self }
    }

    /// Both cursors at the top, nothing selected.
    pub(super) fn new() -> Selection {
        Selection {
            cursor: 0,
            grid_scroll: 0,
            selected: None,
            queue_pos: 0,
        }
    }

    /// The grid cursor's place in the machines' display order.
    pub(super) fn cursor(&self) -> usize {
        self.cursor
    }

    /// The grid's first row shown.
    pub(super) fn grid_scroll(&self) -> usize {
        self.grid_scroll
    }

    pub(super) fn selected(&self) -> Option<u32> {
        self.selected
    }

    /// The lists' cursor: a position in the queue, then the running jobs.
    pub(super) fn queue_pos(&self) -> usize {
        self.queue_pos
    }

    /// The grid's cursor to place `pos`.
    pub(super) fn cursor_to(&mut self, pos: usize) {
        self.cursor = pos;
    }

    pub(super) fn select(&mut self, job: u32) {
        self.selected = Some(job);
    }

    /// The lists' cursor to `pos`, selecting `job`, the one listed there.
    pub(super) fn list_to(&mut self, pos: usize, job: Option<u32>) {
        self.queue_pos = pos;
        self.selected = job;
    }

    /// The lists' cursor to their top (their order or filter changed).
    pub(super) fn lists_to_top(&mut self) {
        self.queue_pos = 0;
    }

    /// Where a cursor key `c` moves the lists' cursor among `n` jobs (at
    /// least one).
    pub(super) fn list_pos_after(&self, c: Command, n: usize) -> usize {
        match c {
            Command::Up => self.queue_pos.saturating_sub(1),
            Command::Down => (self.queue_pos + 1).min(n - 1),
            Command::PageUp => self.queue_pos.saturating_sub(10),
            Command::PageDown => (self.queue_pos + 10).min(n - 1),
            Command::Home => 0,
            Command::End => n - 1,
            _ => self.queue_pos,
        }
    }

    /// Where the wheel's `d` lines move the lists' cursor among `n` jobs
    /// (at least one).
    pub(super) fn list_pos_by(&self, d: i32, n: usize) -> usize {
        (self.queue_pos as i64 + d as i64).clamp(0, n as i64 - 1) as usize
    }

    /// The grid from its first row (its layout changed).
    pub(super) fn grid_to_top(&mut self) {
        self.grid_scroll = 0;
    }

    /// The grid scrolled so that `row` shows among the `h` rows shown,
    /// with the row above it where it can.
    pub(super) fn grid_to_show(&mut self, row: usize, h: usize) {
        if row < self.grid_scroll + 1 {
            self.grid_scroll = row.saturating_sub(1);
        } else if row >= self.grid_scroll + h {
            self.grid_scroll = row + 1 - h;
        }
    }

    /// The grid scrolled by `d` rows, from its first row to `last`.
    pub(super) fn scroll_grid(&mut self, d: i32, last: usize) {
        self.grid_scroll = (self.grid_scroll as i64 + d as i64).clamp(0, last as i64) as usize;
    }
}
