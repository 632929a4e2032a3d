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

pub fn draw(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme();
    let e = app.engine();
    let trace = app.trace();
    let focused = app.view.focus == Focus::Queue;
    super::draw::pane(app, focused)
        .title(Line::from(vec![
            Span::styled(format!(" Queue {} ", e.queue_len()), t.title),
            Span::styled(
                format!("· order {} · {} running ", e.policy(), e.running().len()),
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
    let w = inner.width as usize;
    // Narrow panes drop the user column before the job id gets too short.
    let user_w = if w >= 48 { 9 } else { 0 };
    let id_w = w.saturating_sub(user_w + 6 + 9 + 9 + 2).clamp(6, 36);
    let user_h = if user_w > 0 { "user" } else { "" };
    let header = format!(
        " {:<id_w$} {user_h:<user_w$}{:>6} {:>8} {:>8}",
        "job", "GPUs", "waited", "runtime"
    );
    buf.set_stringn(
        inner.x,
        inner.y,
        &header,
        w,
        t.dim.add_modifier(Modifier::BOLD),
    );
    let now = e.now();
    let marker = super::grid::glyphs(app.view.ascii).marker;
    let line = |j: u32, right: String| -> (String, bool) {
        let job = &trace.jobs[j as usize];
        let user = if user_w > 0 {
            clip(trace.sym(job.user), user_w - 1) + " "
        } else {
            String::new()
        };
        let text = format!(
            "{} {user}{:>6} {right}",
            clip(&job.id, id_w),
            fmt_gpus(job.gpus_display())
        );
        (text, Some(j) == app.view.selected)
    };
    let mut y = inner.y + 1;
    for (i, &j) in queued.iter().take(qh as usize).enumerate() {
        let job = &trace.jobs[j as usize];
        let rt = job.runtime.map_or("?".into(), |r| human_secs(r as f64));
        let (text, sel) = line(
            j,
            format!("{:>8} {:>8}", human_secs((now - job.submit) as f64), rt),
        );
        put(
            app,
            buf,
            inner.x,
            y,
            w,
            &text,
            sel,
            focused && app.view.queue_pos == i,
            marker,
        );
        y += 1;
    }
    if queued.is_empty() {
        buf.set_stringn(inner.x, y, "  (empty)", w, t.dim);
    }
    let ry = inner.y + 1 + qh;
    let title = clip("running", id_w);
    buf.set_stringn(
        inner.x,
        ry,
        format!(
            " {title} {user_h:<user_w$}{:>6} {:>8} {:>8}",
            "GPUs", "started", "ends in"
        ),
        w,
        t.dim.add_modifier(Modifier::BOLD),
    );
    let base = queued.len().min(qh as usize);
    for (i, &j) in running.iter().take(rh as usize).enumerate() {
        let st = e.job_state(j);
        let ends = trace.jobs[j as usize]
            .runtime
            .map_or("open".into(), |_| human_secs((st.end - now).max(0) as f64));
        let (text, sel) = line(
            j,
            format!("{:>8} {:>8}", human_secs((now - st.start) as f64), ends),
        );
        put(
            app,
            buf,
            inner.x,
            ry + 1 + i as u16,
            w,
            &text,
            sel,
            focused && app.view.queue_pos == base + i,
            marker,
        );
    }
}

#[allow(clippy::too_many_arguments)]
fn put(
    app: &App,
    buf: &mut Buffer,
    x: u16,
    y: u16,
    w: usize,
    text: &str,
    selected: bool,
    cursor: bool,
    marker: char,
) {
    let t = app.theme();
    let mut style = t.text;
    if selected {
        style = style.patch(t.selected);
    }
    if cursor {
        style = style.patch(t.cursor);
    }
    let lead = if cursor || selected { marker } else { ' ' };
    buf.set_stringn(x, y, format!("{lead}{text}"), w, style);
}

pub fn fmt_gpus(g: f64) -> String {
    if g.fract() == 0.0 {
        format!("{g:.0}")
    } else {
        format!("{g:.2}")
    }
}
