//! The queue in the current policy's order, and the running jobs.

use super::app::{App, Focus};
use super::layout;
use crate::fmt::human_secs;
use crate::trace::input::sanitized;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

/// The jobs the side pane lists, in order: queue first, then running
/// (most recently started first). `limit` caps each list.
pub fn rows(app: &App, limit: usize) -> (Vec<u32>, Vec<u32>) {
    let e = app.engine();
    let queued = e.queue_in_order(limit);
    let mut running: Vec<(i64, u32)> = e
        .running()
        .keys()
        .map(|&j| (e.job_state(j).start, j))
        .collect();
    running.sort_unstable_by(|a, b| b.cmp(a));
    running.truncate(limit);
    (queued, running.into_iter().map(|r| r.1).collect())
}

fn clip(s: &str, n: usize) -> String {
    let s = sanitized(s);
    if s.chars().count() <= n {
        format!("{s:<n$}")
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// Rows for the queue list and the running list out of the pane's inner
/// height (two header lines): the queue gets what it needs up to half,
/// at least 3; the running list the rest.
pub fn split(inner_h: u16, queued: usize) -> (u16, u16) {
    let avail = inner_h.saturating_sub(2);
    let queue_h = (queued.max(1) as u16).clamp(3.min(avail), (avail / 2).max(3.min(avail)));
    (queue_h, avail.saturating_sub(queue_h))
}

/// The pane: the queue in the policy's order, then the running jobs (most
/// recently started first).
pub fn draw(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme();
    let e = app.engine();
    let trace = app.trace();
    let focused = app.view.focus == Focus::Queue;
    super::draw::pane(app, focused)
        .title(Line::from(vec![
            Span::styled(format!(" Queue {} ", e.queue_len()), t.title),
            Span::styled(
                format!(
                    "· order {} · {} running ",
                    e.policy().label(),
                    e.running().len()
                ),
                t.dim,
            ),
        ]))
        .render(area, buf);
    let inner = layout::inner(area);
    if inner.height < 4 || inner.width < 20 {
        return;
    }
    let (qh, rh) = split(inner.height, e.queue_len());
    let (queued, running) = rows(app, (qh.max(rh)) as usize);
    let table = Table::new(app, inner, focused);
    table.header(app, buf, inner.y, "job", ("waited", "runtime"));
    let now = e.now();
    let mut y = inner.y + 1;
    for (i, &j) in queued.iter().take(qh as usize).enumerate() {
        let job = &trace.jobs[j as usize];
        let rt = job.runtime.map_or("?".into(), |r| human_secs(r as f64));
        let waited = human_secs((now - job.submit) as f64);
        table.job(app, buf, y, j, format!("{waited:>8} {rt:>8}"), i);
        y += 1;
    }
    if queued.is_empty() {
        buf.set_stringn(inner.x, y, "  (empty)", table.w, t.dim);
    }
    let ry = inner.y + 1 + qh;
    table.header(app, buf, ry, "running", ("started", "ends in"));
    let base = queued.len().min(qh as usize);
    for (i, &j) in running.iter().take(rh as usize).enumerate() {
        let st = e.job_state(j);
        let ends = trace.jobs[j as usize]
            .runtime
            .map_or("open".into(), |_| human_secs((st.end - now).max(0) as f64));
        let started = human_secs((now - st.start) as f64);
        let right = format!("{started:>8} {ends:>8}");
        table.job(app, buf, ry + 1 + i as u16, j, right, base + i);
    }
}

/// The lists' columns: job id, user (dropped on narrow panes), GPUs, and two
/// times.
struct Table {
    x: u16,
    w: usize,
    id_w: usize,
    user_w: usize,
    focused: bool,
    marker: char,
}

impl Table {
    fn new(app: &App, inner: Rect, focused: bool) -> Table {
        let w = inner.width as usize;
        // Narrow panes drop the user column before the job id gets too short.
        let user_w = if w >= 48 { 9 } else { 0 };
        Table {
            x: inner.x,
            w,
            id_w: w.saturating_sub(user_w + 6 + 9 + 9 + 2).clamp(6, 36),
            user_w,
            focused,
            marker: super::grid::glyphs(app.view.ascii).marker,
        }
    }

    /// A list's header line: its name in the id column, then the time columns.
    fn header(&self, app: &App, buf: &mut Buffer, y: u16, name: &str, times: (&str, &str)) {
        let (user_h, user_w) = (if self.user_w > 0 { "user" } else { "" }, self.user_w);
        let line = format!(
            " {} {user_h:<user_w$}{:>6} {:>8} {:>8}",
            clip(name, self.id_w),
            "GPUs",
            times.0,
            times.1
        );
        let style = app.theme().dim.add_modifier(Modifier::BOLD);
        buf.set_stringn(self.x, y, line, self.w, style);
    }

    /// A job's line, then `right`; marked when selected or under the queue
    /// cursor (at list position `pos`).
    fn job(&self, app: &App, buf: &mut Buffer, y: u16, j: u32, right: String, pos: usize) {
        let t = app.theme();
        let trace = app.trace();
        let job = &trace.jobs[j as usize];
        let user = if self.user_w > 0 {
            clip(trace.sym(job.user), self.user_w - 1) + " "
        } else {
            String::new()
        };
        let text = format!(
            "{} {user}{:>6} {right}",
            clip(&job.id, self.id_w),
            fmt_gpus(job.gpus_display())
        );
        let selected = Some(j) == app.view.selected;
        let cursor = self.focused && app.view.queue_pos == pos;
        let mut style = t.text;
        if selected {
            style = style.patch(t.selected);
        }
        if cursor {
            style = style.patch(t.cursor);
        }
        let lead = if cursor || selected { self.marker } else { ' ' };
        buf.set_stringn(self.x, y, format!("{lead}{text}"), self.w, style);
    }
}

pub fn fmt_gpus(g: f64) -> String {
    if g.fract() == 0.0 {
        format!("{g:.0}")
    } else {
        format!("{g:.2}")
    }
}
