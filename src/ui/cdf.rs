//! The what-if table's CDFs: the share of jobs (y) whose completion time,
//! or wait, is at most a time (x, log-scaled), one curve per finished row,
//! each drawn with its own glyph (never told apart by colour alone), the
//! live policy's on top and in bold. Drawn cell by cell so that mono,
//! NO_COLOR and `--ascii` read the same.

use super::app::App;
use super::whatif::WhatIf;
use crate::sim::Dists;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};

/// A glyph per row (cycled past ten): shapes, then their ASCII stand-ins.
const GLYPHS: [char; 10] = ['■', '▲', '◆', '○', '□', '△', '◇', '×', '+', '▼'];
const ASCII_GLYPHS: [char; 10] = ['o', '#', '^', '*', '@', '%', '&', '=', 'x', '+'];

/// Rows the charts need to be worth drawing (title, plot, axis, legend).
pub(super) const MIN_HEIGHT: u16 = 10;

pub(super) fn glyph(i: usize, ascii: bool) -> char {
    if ascii {
        ASCII_GLYPHS[i % ASCII_GLYPHS.len()]
    } else {
        GLYPHS[i % GLYPHS.len()]
    }
}

/// One curve: its glyph, style and distribution.
struct Series<'a> {
    glyph: char,
    style: Style,
    q: &'a [f64],
}

/// A finished row: its index, label, whether it is the live policy, and
/// its distributions.
type Row<'a> = (usize, String, bool, &'a Dists);

/// The JCT and wait CDFs side by side in `area`, the legend under them;
/// the chosen row's curve (`at`, ↑↓ in the table) drawn on top, so none
/// stays hidden under another.
pub(super) fn draw(app: &App, w: &WhatIf, area: Rect, buf: &mut Buffer, at: usize) {
    let t = app.theme();
    let ascii = app.view.look.ascii();
    let rows = finished_rows(app, w);
    if rows.is_empty() {
        let msg = "the CDFs draw as rows finish";
        buf.set_stringn(area.x, area.y, msg, area.width as usize, t.dim);
        return;
    }
    let items = legend_items(w, &rows, ascii);
    let lines = pack(&items, area.width as usize);
    let legend_h = (lines.len() as u16).min(area.height.saturating_sub(MIN_HEIGHT - 2));
    let charts_h = area.height.saturating_sub(legend_h);
    let order = drawing_order(w, &rows, at);
    let series = |pick: fn(&Dists) -> &[f64]| -> Vec<Series> {
        order
            .iter()
            .map(|(i, _, is_live, d)| Series {
                glyph: glyph(*i, ascii),
                style: curve_style(app, *i, *is_live),
                q: pick(d),
            })
            .collect()
    };
    let half = area.width.saturating_sub(1) / 2;
    let left = Rect::new(area.x, area.y, half, charts_h);
    let right = Rect::new(area.x + half + 1, area.y, area.width - half - 1, charts_h);
    chart(app, "JCT CDF", &series(|d| &d.jct_s), left, buf);
    chart(app, "wait CDF", &series(|d| &d.wait_s), right, buf);
    let shown = &lines[..lines.len().min(legend_h as usize)];
    legend(
        app,
        w,
        &rows,
        &items,
        shown,
        (area.x, area.y + charts_h),
        buf,
    );
}

/// The rows that are in, in table order: (row, label, live?, distributions).
fn finished_rows<'a>(app: &App, w: &'a WhatIf) -> Vec<Row<'a>> {
    let live = app.engine().policy();
    w.runs
        .iter()
        .enumerate()
        .filter_map(|(i, run)| {
            let d = w.dists.get(i)?.as_ref()?;
            let is_live = matches!(run, crate::sim::WhatIfRun::Policy(p) if *p == live);
            let label = match run {
                crate::sim::WhatIfRun::Policy(p) => p.label().to_string(),
                other => other.label(),
            };
            Some((i, label, is_live, d))
        })
        .collect()
}

/// Row `i`'s curve: the live policy's in bold accent, others each in a
/// colour of its own.
fn curve_style(app: &App, i: usize, is_live: bool) -> Style {
    let t = app.theme();
    if is_live {
        t.accent.add_modifier(Modifier::BOLD)
    } else {
        t.text.fg(t.palette(i as u64 * 7919 + 3))
    }
}

/// The legend's items: each row's glyph and label. A row with another's
/// very results is drawn once, under the other's glyph; the legend says so.
fn legend_items(w: &WhatIf, rows: &[Row], ascii: bool) -> Vec<String> {
    let label_of = |k: usize| {
        rows.iter()
            .find(|r| r.0 == k)
            .map_or(String::new(), |r| r.1.clone())
    };
    rows.iter()
        .map(|(i, l, is_live, _)| {
            let live = if *is_live { " (live)" } else { "" };
            match w.same_as(*i) {
                Some(k) => format!("{} {l}{live} = {}", glyph(k, ascii), label_of(k)),
                None => format!("{} {l}{live}", glyph(*i, ascii)),
            }
        })
        .collect()
}

/// The curves to draw, last on top: the live policy's over the others,
/// and the chosen row's (`at`) over all; a row the same as another's is
/// left out.
fn drawing_order<'r, 'a>(w: &WhatIf, rows: &'r [Row<'a>], at: usize) -> Vec<&'r Row<'a>> {
    let mut order: Vec<&Row> = rows.iter().filter(|r| w.same_as(r.0).is_none()).collect();
    let chosen = w.same_as(at).unwrap_or(at);
    order.sort_by_key(|r| (r.0 == chosen, r.2));
    order
}

/// The legend's `lines` (of indices into `items`) from `(x, y)` down:
/// each glyph in its curve's style.
fn legend(
    app: &App,
    w: &WhatIf,
    rows: &[Row],
    items: &[String],
    lines: &[Vec<usize>],
    (x0, y0): (u16, u16),
    buf: &mut Buffer,
) {
    let t = app.theme();
    let ascii = app.view.look.ascii();
    for (k, line) in lines.iter().enumerate() {
        let y = y0 + k as u16;
        let mut x = x0;
        for &n in line {
            let (i, _, is_live, _) = rows[n];
            let text = &items[n];
            let drawn = w.same_as(i).unwrap_or(i);
            buf.set_string(
                x,
                y,
                glyph(drawn, ascii).to_string(),
                curve_style(app, drawn, is_live),
            );
            let rest: String = text.chars().skip(1).collect();
            let label = if is_live {
                t.text.add_modifier(Modifier::BOLD)
            } else {
                t.text
            };
            buf.set_string(x + 1, y, rest, label);
            x += crate::text::width(text) as u16 + 3;
        }
    }
}

/// Items packed on lines of `width`, three spaces apart, never split: the
/// indices of each line's items.
fn pack(items: &[String], width: usize) -> Vec<Vec<usize>> {
    let mut lines: Vec<(usize, Vec<usize>)> = Vec::new();
    for (n, item) in items.iter().enumerate() {
        let w = crate::text::width(item);
        match lines.last_mut() {
            Some((used, l)) if *used + 3 + w <= width => {
                *used += 3 + w;
                l.push(n);
            }
            _ => lines.push((w, vec![n])),
        }
    }
    lines.into_iter().map(|l| l.1).collect()
}

/// Where the time axis starts and ends, as powers of ten of seconds.
fn log_range(series: &[Series]) -> (f64, f64) {
    let positive = series
        .iter()
        .flat_map(|s| s.q.iter().copied())
        .filter(|&v| v >= 1.0);
    let (lo, hi) = positive.fold((f64::MAX, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if hi < 1.0 {
        return (0.0, 1.0);
    }
    let (lo, hi) = (lo.log10().floor(), hi.log10().ceil());
    (lo, hi.max(lo + 1.0))
}

/// Time labels for the axis, in seconds.
const TICKS: [(f64, &str); 10] = [
    (1.0, "1s"),
    (10.0, "10s"),
    (60.0, "1m"),
    (600.0, "10m"),
    (3600.0, "1h"),
    (36_000.0, "10h"),
    (86_400.0, "1d"),
    (864_000.0, "10d"),
    (8_640_000.0, "100d"),
    (86_400_000.0, "1000d"),
];

/// One chart in `area`: a title line, the plot with a y axis of shares
/// (0 %, 50 %, 100 %), and a time axis under it.
fn chart(app: &App, title: &str, series: &[Series], area: Rect, buf: &mut Buffer) {
    let t = app.theme();
    if area.height < 4 || area.width < 12 {
        return;
    }
    let head = format!("{title} (share of jobs, log time)");
    let head = crate::text::fit(&head, area.width as usize);
    buf.set_stringn(area.x, area.y, head, area.width as usize, t.title);
    let (lo, hi) = log_range(series);
    let axis_w = 5u16;
    let plot = Rect::new(
        area.x + axis_w,
        area.y + 1,
        area.width - axis_w,
        area.height - 2,
    );
    let (pw, ph) = (plot.width as usize, plot.height as usize);
    for (label, y) in [("100%", 0), (" 50%", (ph - 1) / 2), ("  0%", ph - 1)] {
        buf.set_stringn(area.x, plot.y + y as u16, label, 4, t.dim);
    }
    let edge = if app.view.look.ascii() { "|" } else { "│" };
    for y in 0..ph as u16 {
        buf.set_string(plot.x - 1, plot.y + y, edge, t.dim);
    }
    let x_of = |secs: f64| -> f64 { (secs.log10() - lo) / (hi - lo) * (pw - 1) as f64 };
    let mut labels = String::new();
    for (secs, label) in TICKS {
        let x = x_of(secs).round();
        if x < 0.0 || x > (pw - 1) as f64 {
            continue;
        }
        let x = x as usize;
        let at = x.saturating_sub(label.len() / 2);
        if at >= labels.chars().count() + usize::from(!labels.is_empty()) && at + label.len() <= pw
        {
            while labels.chars().count() < at {
                labels.push(' ');
            }
            labels.push_str(label);
        }
    }
    buf.set_stringn(plot.x, plot.bottom(), &labels, pw, t.dim);
    for s in series {
        let mut prev: Option<usize> = None;
        for x in 0..pw {
            let secs = 10f64.powf(lo + (hi - lo) * x as f64 / (pw - 1).max(1) as f64);
            let share = Dists::share_at(s.q, secs);
            let y = ((1.0 - share) * (ph - 1) as f64).round() as usize;
            // Steep rises drawn as a column, so a step reads as one.
            let (a, b) = match prev {
                Some(p) => (p.min(y), p.max(y)),
                None => (y, y),
            };
            for yy in a..=b {
                let cell = (plot.x + x as u16, plot.y + yy as u16);
                buf.set_string(cell.0, cell.1, s.glyph.to_string(), s.style);
            }
            prev = Some(y);
        }
    }
}
