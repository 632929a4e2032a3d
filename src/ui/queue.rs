//! The queue in the current policy's order, and the running jobs.

use super::app::{App, Focus};
use super::layout;
use super::queue_column::QueueColumn;
use crate::text::sanitized;
use crate::trace::human_secs;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

/// The part of a list of `n` rows a pane of `h` rows shows, keeping the
/// cursor (`c`, if it is in this list) in view. A row says how many are
/// above (`↑ 3 more`) or below (`↓ 12 more`) when the list is cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Window {
    /// The first row shown.
    pub start: usize,
    /// Rows of jobs shown.
    pub count: usize,
    pub above: bool,
    pub below: bool,
}

impl Window {
    pub(crate) fn of(n: usize, h: usize, c: Option<usize>) -> Window {
        if n <= h || h < 3 {
            return Window {
                start: 0,
                count: n.min(h),
                above: false,
                below: false,
            };
        }
        let c = c.unwrap_or(0).min(n - 1);
        if c < h - 1 {
            return Window {
                start: 0,
                count: h - 1,
                above: false,
                below: true,
            };
        }
        if c >= n - (h - 1) {
            return Window {
                start: n - (h - 1),
                count: h - 1,
                above: true,
                below: false,
            };
        }
        // The cursor on the last job row, with a row of "more" either side.
        Window {
            start: c + 3 - h,
            count: h - 2,
            above: true,
            below: true,
        }
    }

    /// The screen row (from the list's first) of list row `i`, if shown.
    pub(crate) fn row_of(&self, i: usize) -> Option<usize> {
        (i >= self.start && i < self.start + self.count)
            .then(|| i - self.start + self.above as usize)
    }

    /// The list row at screen row `r` (from the list's first), if a job is there.
    pub(crate) fn at(&self, r: usize) -> Option<usize> {
        let r = r.checked_sub(self.above as usize)?;
        (r < self.count).then_some(self.start + r)
    }
}

/// Where the side pane's two lists are: their windows (the cursor counted
/// across the queue, then the running list) and their first rows.
pub(crate) struct Side {
    pub queue: Window,
    pub running: Window,
    /// Screen rows of each list's first row.
    pub queue_y: u16,
    pub running_y: u16,
    pub queued: usize,
    pub running_n: usize,
}

impl Side {
    pub(crate) fn of(app: &App, inner: Rect) -> Side {
        let l = app.lists(0);
        let (queued, running_n) = (l.queued_n, l.running_n);
        let (qh, rh) = split(inner.height, queued);
        let pos = app.view.selection.queue_pos();
        let (qc, rc) = if pos < queued {
            (Some(pos), None)
        } else {
            (None, Some(pos - queued))
        };
        Side {
            queue: Window::of(queued, qh as usize, qc),
            running: Window::of(running_n, rh as usize, rc),
            queue_y: inner.y + 1,
            running_y: inner.y + 2 + qh,
            queued,
            running_n,
        }
    }

    /// The list position (queue, then running) of the job at screen row `y`.
    pub(crate) fn pos_at(&self, y: u16) -> Option<usize> {
        if let Some(i) = y
            .checked_sub(self.queue_y)
            .and_then(|r| self.queue.at(r as usize))
        {
            return (y < self.running_y - 1).then_some(i);
        }
        let r = y.checked_sub(self.running_y)?;
        self.running.at(r as usize).map(|i| self.queued + i)
    }
}

/// `s` made safe, in exactly `n` columns (cut with `…`).
pub(super) fn clip(s: &str, n: usize) -> String {
    crate::text::fit_padded(&sanitized(s), n)
}

/// `s` made safe, in exactly `n` columns, cut from the left (`…_10238`):
/// for ids that differ only at their end.
pub(super) fn clip_left(s: &str, n: usize) -> String {
    crate::text::fit_left_padded(&sanitized(s), n)
}

/// Rows for the queue list and the running list out of the pane's inner
/// height (two header lines): the queue gets what it needs up to half,
/// at least 3; the running list the rest.
pub(crate) fn split(inner_h: u16, queued: usize) -> (u16, u16) {
    let avail = inner_h.saturating_sub(2);
    let queue_h = (queued.max(1) as u16).clamp(3.min(avail), (avail / 2).max(3.min(avail)));
    (queue_h, avail.saturating_sub(queue_h))
}

/// The pane: the queue in the policy's order, then the running jobs (most
/// recently started first).
pub(crate) fn draw(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme();
    let e = app.engine();
    let trace = app.trace();
    let focused = app.view.focus == Focus::Queue;
    let c = app.chrome();
    // EASY backfill's reservation, said under the lists (R marks its head).
    let reserved = e.reserved();
    let foot = reserved.as_ref().map(|r| {
        let from = r
            .from
            .map_or("an end no one knows".into(), |t| app.clock(t));
        let short = from.rsplit(' ').next().unwrap_or("").to_string();
        let room = area.width.saturating_sub(2) as usize;
        let text = [
            format!(" R: head reserved from {from} "),
            format!(" R: reserved from {from} "),
            format!(" R: reserved from {short} "),
        ]
        .into_iter()
        .find(|x| crate::text::width(x) <= room)
        .unwrap_or_else(|| crate::text::fit(" R: reserved ", room));
        Line::from(Span::styled(text, t.dim))
    });
    let mut pane = c
        .pane(focused)
        .title(c.focus_title(focused, title(app, area.width as usize)));
    if let Some(f) = foot {
        pane = pane.title_bottom(f);
    }
    pane.render(area, buf);
    let inner = layout::inner(area);
    if inner.height < 4 || inner.width < 20 {
        return;
    }
    let side = Side::of(app, inner);
    let (q, r) = (side.queue, side.running);
    let l = app.lists((q.start + q.count).max(r.start + r.count));
    let (queued, running) = (l.queued, l.running);
    let table = Table::new(app, inner, focused);
    let column = QueueColumn::of(e);
    table.header(app, buf, inner.y, "job", ("waited", column.head()));
    let now = e.now();
    table.more(app, buf, side.queue_y, q, side.queued);
    for (i, &j) in queued.iter().enumerate().skip(q.start).take(q.count) {
        let second = column.value(trace, e, j);
        let waited = human_secs(super::queue_column::waited(trace, e, j) as f64);
        let y = side.queue_y + q.row_of(i).unwrap_or(0) as u16;
        table.job(app, buf, y, j, format!("{waited:>8} {second:>8}"), i);
    }
    if queued.is_empty() {
        buf.set_stringn(inner.x, side.queue_y, "  (empty)", table.w, t.dim);
    }
    table.header(
        app,
        buf,
        side.running_y - 1,
        "running",
        ("started", "ends in"),
    );
    table.more(app, buf, side.running_y, r, side.running_n);
    for (i, &j) in running.iter().enumerate().skip(r.start).take(r.count) {
        let st = e.job_state(j);
        let ends = trace.jobs[j as usize]
            .runtime
            .get()
            .map_or("open".into(), |_| human_secs((st.end - now).max(0) as f64));
        let started = human_secs((now - super::queue_column::run_began(e, j)) as f64);
        let right = format!("{started:>8} {ends:>8}");
        let y = side.running_y + r.row_of(i).unwrap_or(0) as u16;
        table.job(app, buf, y, j, right, side.queued + i);
    }
}

/// `Queue 12 · order fifo · 3 running`; sorted or filtered, it says so
/// (`Queue 2/12 · by GPUs · filter alice · 1/3 running`), in fewer words
/// where the pane is narrow.
fn title(app: &App, width: usize) -> Vec<Span<'static>> {
    let t = app.theme();
    let e = app.engine();
    let (all_q, all_r) = (e.queue_len(), e.running().len());
    let (q, r) = match &app.view.filter {
        Some(_) => {
            let l = app.lists(0);
            (
                format!("{}/{all_q}", l.queued_n),
                format!("{}/{all_r}", l.running_n),
            )
        }
        None => (all_q.to_string(), all_r.to_string()),
    };
    let order = match app.view.sort {
        super::filter::Sort::Policy => format!("order {}", e.policy().label()),
        s => format!("by {}", s.name()),
    };
    let f = app
        .view
        .filter
        .as_ref()
        .map(|f| sanitized(&f.text).into_owned());
    let head = format!(" Queue {q} ");
    let short = match app.view.sort {
        super::filter::Sort::Policy => e.policy().label().to_string(),
        s => format!("by {}", s.name()),
    };
    let with_filter = |body: &str| match &f {
        Some(f) => format!("{body} · {f}"),
        None => body.to_string(),
    };
    let rest = [
        match &f {
            Some(f) => format!("· {order} · filter {f} · {r} running "),
            None => format!("· {order} · {r} running "),
        },
        format!("· {} · {r} running ", with_filter(&short)),
        format!("· {} · {r} run ", with_filter(&short)),
        match &f {
            Some(f) => format!("· {f} · {r} run "),
            None => format!("· {r} run "),
        },
    ];
    // Inside the corners, after the focus mark; a trailing space may go.
    let mark = usize::from(app.view.focus == Focus::Queue);
    let room = width.saturating_sub(crate::text::width(&head) + 2 + mark);
    let rest = rest
        .iter()
        .find(|s| crate::text::width(s.trim_end()) <= room)
        .unwrap_or(&rest[3])
        .clone();
    vec![Span::styled(head, t.title), Span::styled(rest, t.dim)]
}

/// The lists' columns: job id, user (dropped on narrow panes), GPUs, and two
/// times.
struct Table {
    x: u16,
    w: usize,
    id_w: usize,
    user_w: usize,
    /// Whether the second time column shows (a narrow pane sorted by user
    /// gives it to the user column).
    second: bool,
    focused: bool,
    marker: char,
    /// The job backfill reserves GPUs for (marked `R`).
    reserved: Option<u32>,
    ascii: bool,
}

impl Table {
    fn new(app: &App, inner: Rect, focused: bool) -> Table {
        let w = inner.width as usize;
        // Narrow panes drop the user column before the job id gets too short;
        // sorted by user, they keep it and drop the second time instead.
        let by_user = app.view.sort == super::filter::Sort::User;
        let (user_w, second) = match (w >= 48, by_user) {
            (true, _) => (9, true),
            (false, true) => (9, false),
            (false, false) => (0, true),
        };
        let times = if second { 9 + 9 } else { 9 };
        Table {
            x: inner.x,
            w,
            id_w: w.saturating_sub(user_w + 6 + times + 2).clamp(6, 36),
            user_w,
            second,
            reserved: app.engine().reserved().map(|r| r.head),
            ascii: app.view.look.ascii(),
            focused,
            marker: super::grid::glyphs(app.view.look.ascii()).marker,
        }
    }

    /// A list's header line: its name in the id column, then the time columns.
    fn header(&self, app: &App, buf: &mut Buffer, y: u16, name: &str, times: (&str, &str)) {
        let (user_h, user_w) = (if self.user_w > 0 { "user" } else { "" }, self.user_w);
        let second = if self.second {
            format!(" {:>8}", times.1)
        } else {
            String::new()
        };
        let line = format!(
            " {} {user_h:<user_w$}{:>6} {:>8}{second}",
            clip(name, self.id_w),
            "GPUs",
            times.0,
        );
        let style = app.theme().dim.add_modifier(Modifier::BOLD);
        buf.set_stringn(self.x, y, line, self.w, style);
    }

    /// The "more" rows of a cut list of `n` shown in `w` from row `y`.
    fn more(&self, app: &App, buf: &mut Buffer, y: u16, w: Window, n: usize) {
        let style = app.theme().dim;
        if w.above {
            let line = format!("  ↑ {} more", w.start);
            buf.set_stringn(self.x, y, line, self.w, style);
        }
        if w.below {
            let left = n - w.start - w.count;
            let at = y + (w.above as usize + w.count) as u16;
            buf.set_stringn(
                self.x,
                at,
                format!("  ↓ {left} more (Tab, ↓)"),
                self.w,
                style,
            );
        }
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
        let id = if app.sim.facts.ids_share_prefix() {
            clip_left(&job.id, self.id_w)
        } else {
            clip(&job.id, self.id_w)
        };
        // A running job shows what it holds (an elastic job's count changes).
        let gpus = crate::sim::View::held(app.engine(), j).map_or(job.gpus_display(), |g| {
            g.iter().map(|g| g.milli as f64).sum::<f64>() / 1000.0
        });
        let right = match self.second {
            true => right,
            false => right.chars().take(8).collect(),
        };
        let text = format!("{id} {user}{:>6} {right}", fmt_gpus(gpus));
        let selected = Some(j) == app.view.selection.selected();
        let cursor = self.focused && app.view.selection.queue_pos() == pos;
        let mut style = t.text;
        if selected {
            style = style.patch(t.selected);
        }
        if cursor {
            style = style.patch(t.cursor);
        }
        // Marks: the reservation's head (R), a job preempted before (↺).
        let preempted = crate::sim::View::resume(app.engine(), j).preemptions > 0;
        let lead = match (cursor || selected, self.reserved == Some(j), preempted) {
            (true, _, _) => self.marker,
            (_, true, _) => 'R',
            (_, _, true) if self.ascii => 'p',
            (_, _, true) => '↺',
            _ => ' ',
        };
        buf.set_stringn(self.x, y, format!("{lead}{text}"), self.w, style);
    }
}

pub(crate) fn fmt_gpus(g: f64) -> String {
    if g.fract() == 0.0 {
        format!("{g:.0}")
    } else {
        format!("{g:.2}")
    }
}
