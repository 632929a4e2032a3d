//! Moving the cursor, selecting jobs, finding, going to a time, the mouse,
//! and opening the drill-downs.

use super::app::{App, Effect, Focus, Popup, PromptKind, Zoom};
use super::keymap::Command;
use super::layout::inner;
use super::{grid, queue};
use crate::trace::Secs;
use ratatui::layout::Rect;
use serde_json::Value;

impl App {
    fn grid_inner(&self) -> Rect {
        inner(self.areas().grid)
    }

    /// Chooses one cell per machine when one per GPU would not fit (at the first size known).
    pub(super) fn fit_zoom(&mut self) {
        let inner = self.grid_inner();
        let saved = self.view.zoom;
        self.view.zoom = Zoom::Gpus;
        let fits = grid::layout(self, inner).fits(inner.height);
        self.view.zoom = if fits { Zoom::Gpus } else { Zoom::Machines };
        if saved != self.view.zoom {
            self.view.selection.grid_to_top();
        }
    }

    pub(super) fn navigate(&mut self, c: Command) {
        match self.view.focus {
            Focus::Grid => self.move_cursor(c),
            Focus::Queue => {
                let n = self.listed_len();
                if n == 0 {
                    return;
                }
                let pos = self.view.selection.list_pos_after(c, n);
                let job = self.listed_at(pos);
                self.view.selection.list_to(pos, job);
            }
            Focus::Log => {}
        }
    }

    /// How many jobs the side pane lists (queue, then running): every one
    /// is reachable with the cursor.
    pub(super) fn listed_len(&self) -> usize {
        let l = self.lists(0);
        l.queued_n + l.running_n
    }

    /// The job at list position `pos` (queue, then running).
    pub(super) fn listed_at(&self, pos: usize) -> Option<u32> {
        let l = self.lists(usize::MAX);
        if pos < l.queued_n {
            l.queued.get(pos).copied()
        } else {
            l.running.get(pos - l.queued_n).copied()
        }
    }

    /// `f`: only the jobs that match (of the lists; the grid dims the rest).
    pub(super) fn set_filter(&mut self, text: &str) {
        match super::filter::Filter::parse(text) {
            Ok(f) => {
                let l = {
                    self.view.filter = Some(f);
                    self.lists(0)
                };
                self.view.selection.lists_to_top();
                let shown = self.cursor_to_a_match();
                self.view.flash = Some(format!(
                    "filter '{}': {} waiting, {} running{shown}",
                    crate::text::sanitize(text),
                    l.queued_n,
                    l.running_n
                ));
            }
            Err(e) => {
                self.warn(e.to_string());
                self.view.flash = Some(e.to_string());
            }
        }
    }

    fn move_cursor(&mut self, c: Command) {
        let n = self.sim.facts.machines().len();
        if n == 0 {
            return;
        }
        let inner = self.grid_inner();
        let lay = grid::layout(self, inner);
        let cur = lay.cells[self.view.selection.cursor().min(n - 1)];
        let target = match c {
            Command::Left => self.view.selection.cursor().saturating_sub(1),
            Command::Right => (self.view.selection.cursor() + 1).min(n - 1),
            Command::Home => 0,
            Command::End => n - 1,
            Command::Up | Command::Down | Command::PageUp | Command::PageDown => {
                let rows = match c {
                    Command::Up => -1,
                    Command::Down => 1,
                    Command::PageUp => -(inner.height as i64).max(1),
                    _ => (inner.height as i64).max(1),
                };
                let want = (cur.row as i64 + rows).clamp(0, lay.rows as i64) as usize;
                // The machine nearest in column on the wanted row (or the nearest row with machines).
                lay.cells
                    .iter()
                    .min_by_key(|p| {
                        (
                            (p.row as i64 - want as i64).abs(),
                            (p.x as i64 - cur.x as i64).abs(),
                        )
                    })
                    .map_or(self.view.selection.cursor(), |p| p.pos)
            }
            _ => self.view.selection.cursor(),
        };
        self.view.selection.cursor_to(target);
        self.scroll_to_cursor();
        self.follow_cursor_job();
    }

    /// The grid's cursor to the first machine (in the grid's order) where a
    /// job the filter keeps runs, scrolled into view: what to say of it.
    fn cursor_to_a_match(&mut self) -> String {
        let (Some(f), c) = (&self.view.filter, self.engine().cluster()) else {
            return String::new();
        };
        let (trace, e) = (self.trace(), self.engine());
        let pos = self.sim.facts.machines().iter().position(|&m| {
            let first = c.first_gpu(m);
            (first..first + c.cap(m) as usize)
                .any(|g| c.holders(g).iter().any(|h| f.matches(trace, e, h.0)))
        });
        let Some(pos) = pos else {
            return String::new();
        };
        let name = crate::text::sanitize(
            &trace.cluster.machines[self.sim.facts.machines()[pos] as usize].name,
        );
        self.view.selection.cursor_to(pos);
        self.scroll_to_cursor();
        self.follow_cursor_job();
        format!(" · the first on {name}")
    }

    pub(super) fn scroll_to_cursor(&mut self) {
        let inner = self.grid_inner();
        let lay = grid::layout(self, inner);
        if let Some(row) = lay.row_of(self.view.selection.cursor()) {
            let h = inner.height.max(1) as usize;
            self.view.selection.grid_to_show(row, h);
        }
    }

    /// The jobs holding GPUs on the grid cursor's machine, largest first.
    pub(super) fn jobs_on_cursor_machine(&self) -> Vec<u32> {
        let Some(m) = self.sim.facts.machine(self.view.selection.cursor()) else {
            return Vec::new();
        };
        let c = self.engine().cluster();
        let base = c.first_gpu(m);
        let mut held: Vec<(u32, u32)> = Vec::new();
        for k in 0..c.cap(m) as usize {
            for &(j, mi) in c.holders(base + k) {
                match held.iter_mut().find(|h| h.0 == j) {
                    Some(h) => h.1 += mi as u32,
                    None => held.push((j, mi as u32)),
                }
            }
        }
        held.sort_by_key(|&(j, mi)| (std::cmp::Reverse(mi), j));
        held.into_iter().map(|h| h.0).collect()
    }

    /// In a job's drill-down opened from the grid: the next (`d` = 1) or
    /// previous job on the same machine, its records asked for.
    pub(super) fn other_job_here(&mut self, d: i64) {
        let here = self.jobs_on_cursor_machine();
        let Some(i) = here
            .iter()
            .position(|&j| Some(j) == self.view.selection.selected())
        else {
            return;
        };
        if here.len() < 2 || self.view.focus != Focus::Grid {
            return;
        }
        let n = here.len() as i64;
        let job = here[(i as i64 + d).rem_euclid(n) as usize];
        self.view.selection.select(job);
        self.view.popup = None;
        let at = self.sim.replay.now();
        self.emit(Effect::ReadJobDetail { job, at });
    }

    /// On the grid, the selected job is the largest holder on the cursor's machine.
    pub(super) fn follow_cursor_job(&mut self) {
        if self.view.focus != Focus::Grid {
            return;
        }
        // The largest holder (of all its GPUs here), then the lower job index.
        if let Some(&j) = self.jobs_on_cursor_machine().first() {
            self.view.selection.select(j);
        }
    }

    /// Asks the runner for the selected job's records (`job_detail_read` opens its drill-down).
    pub(super) fn open_detail(&mut self) {
        let Some(job) = self.view.selection.selected() else {
            self.view.flash =
                Some("no job here: a busy machine has one, or Tab to the lists".into());
            return;
        };
        let at = self.sim.replay.now();
        self.emit(Effect::ReadJobDetail { job, at });
    }

    /// Asks the runner for the cursor machine's measurements (`machine_read` opens its drill-down).
    pub(super) fn open_machine(&mut self) {
        let Some(machine) = self.sim.facts.machine(self.view.selection.cursor()) else {
            return;
        };
        let at = self.sim.replay.now();
        self.emit(Effect::ReadMachine { machine, at });
    }

    /// Whether an answer asked for at `at` is still wanted: the replay has
    /// not moved and no popup opened meanwhile.
    pub(super) fn fresh(&self, at: Secs) -> bool {
        at == self.sim.replay.now() && self.view.popup.is_none()
    }

    /// The job's records read: its drill-down opens.
    pub(super) fn job_detail_read(&mut self, job: u32, at: Secs, record: Value) -> bool {
        if !self.fresh(at) {
            return false;
        }
        let lines = self.detail_lines(job, record);
        let id = crate::text::sanitize(&self.trace().jobs[job as usize].id);
        // From the grid, on a machine several jobs share: which one this is.
        let mut of = String::new();
        if self.view.focus == Focus::Grid {
            let here = self.jobs_on_cursor_machine();
            if let Some(i) = here
                .iter()
                .position(|&j| j == job)
                .filter(|_| here.len() > 1)
            {
                of = format!(" · {} of {} here, ←→ the others", i + 1, here.len());
            }
        }
        self.view.popup = Some(Popup::Detail {
            title: format!("job {id}{of}"),
            lines,
            scroll: 0,
            job: Some(job),
            picks: Vec::new(),
            pick: 0,
        });
        true
    }

    pub(super) fn submit_prompt(&mut self) {
        let Some(Popup::Prompt { kind, input, .. }) = self.view.popup.take() else {
            return;
        };
        let input = input.trim().to_string();
        if input.is_empty() {
            if kind == PromptKind::Filter && self.view.filter.take().is_some() {
                self.view.flash = Some("filter cleared".into());
            }
            return;
        }
        match kind {
            PromptKind::Goto => self.go_to_text(&input),
            PromptKind::Find => self.find(&input),
            PromptKind::Filter => self.set_filter(&input),
            PromptKind::Command => self.run_command_line(&input),
        }
    }

    /// `g`'s (and `:goto`'s) time read and gone to; a bad one said.
    pub(super) fn go_to_text(&mut self, input: &str) {
        let tr = self.trace().clone();
        let (first, now) = (self.sim.facts.first(), self.sim.replay.now());
        match crate::trace::parse_when(tr.zone, first, now, input) {
            Ok(t) => self.go_to(t),
            Err(e) => {
                self.warn(format!("go to: {e}"));
                self.view.flash = Some(e.to_string());
            }
        }
    }

    /// `g`'s move: to `t`, or where the trace begins or ends if `t` is
    /// beyond them (said, rather than a jump into nothing).
    fn go_to(&mut self, t: Secs) {
        let start = self.sim.facts.first() - 1;
        self.move_to(t.max(start));
        let e = self.engine();
        let end = e
            .tally()
            .last_finish
            .into_iter()
            .chain(self.trace().last_submit())
            .max();
        let past = match end {
            Some(end) if !self.waiting() && e.next_event_time().is_none() && t > end => Some(end),
            _ => None,
        };
        self.view.flash = Some(if let Some(end) = past {
            self.move_to(end);
            format!(
                "the trace ends at {}: nothing happens after",
                self.clock(end)
            )
        } else if t < start {
            format!("the trace begins at {}", self.clock(self.sim.replay.now()))
        } else {
            format!("at {}", self.clock(self.sim.replay.now()))
        });
    }

    /// A click: on the grid, the machine under it; on the lists, the job.
    pub(super) fn click(&mut self, column: u16, row: u16) -> bool {
        if !self.view.mouse || self.view.popup.is_some() || self.sim.split.is_some() {
            return false;
        }
        let inner = self.grid_inner();
        let lay = grid::layout(self, inner);
        if let Some(pos) =
            lay.machine_at(self, inner, self.view.selection.grid_scroll(), column, row)
        {
            self.view.selection.cursor_to(pos);
            self.view.focus = Focus::Grid;
            self.follow_cursor_job();
            return true;
        }
        let side = super::layout::inner(self.areas().side);
        if side.contains(ratatui::layout::Position::new(column, row)) {
            if let Some(pos) = queue::Side::of(self, side).pos_at(row) {
                self.view.focus = Focus::Queue;
                let job = self.listed_at(pos);
                self.view.selection.list_to(pos, job);
                return true;
            }
        }
        false
    }

    /// The wheel scrolls the pane under the pointer: the lists move their
    /// cursor, the grid its rows (never past its last screenful).
    pub(super) fn scroll(&mut self, column: u16, row: u16, d: i32) -> bool {
        if !self.view.mouse || self.view.popup.is_some() {
            return false;
        }
        let at = ratatui::layout::Position::new(column, row);
        if self.areas().side.contains(at) {
            let n = self.listed_len().max(1);
            self.view.focus = Focus::Queue;
            let pos = self.view.selection.list_pos_by(d, n);
            let job = self.listed_at(pos);
            self.view.selection.list_to(pos, job);
            return true;
        }
        if self.areas().grid.contains(at) {
            let inner = self.grid_inner();
            let rows = grid::layout(self, inner).rows;
            let last = rows.saturating_sub(inner.height as usize);
            self.view.selection.scroll_grid(d, last);
            return true;
        }
        false
    }
}
