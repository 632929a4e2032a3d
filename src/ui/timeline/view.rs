//! The `T` view: the samples drawn with ratatui's Chart in place of the
//! grid and lists, over the window `TimelineView` says.

use super::TimelineView;
use crate::trace::Secs;
use crate::ui::app::App;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::symbols::Marker;
use ratatui::text::Line;
use ratatui::widgets::{Axis, Chart, Dataset, GraphType, Widget};

/// A chart: its name, A's values, the floor of its y axis, B's values.
type ChartOf<'a> = (&'a str, &'a [f64], f64, Option<&'a [f64]>);
/// A series' (time, value) points.
type Points = Vec<(f64, f64)>;

/// Draws the timeline in `area` (the grid and queue's place).
pub(crate) fn draw(app: &App, view: &TimelineView, area: Rect, buf: &mut Buffer) {
    let now = app.sim.replay.now();
    let (from, to) = view.window(app.sim.facts.first(), now);
    let inner = pane(app, view, area, buf);
    let s = &app.sim.timeline;
    let charts = charts_shown(app, inner.height);
    let n = charts.len() as u16;
    let plot_rows = inner.height.saturating_sub(1);
    let each = plot_rows / n.max(1);
    let width = label_width(app, &charts, (from, to));
    let names = app.sim.split.as_ref().map(|sp| {
        (
            app.engine().policy().label().to_string(),
            sp.policy().label().to_string(),
        )
    });
    for (i, (name, values, floor, bv)) in charts.iter().enumerate() {
        let h = if i as u16 + 1 == n {
            plot_rows - each * (n - 1)
        } else {
            each
        };
        let r = Rect::new(inner.x, inner.y + each * i as u16, inner.width, h);
        let data = s.series(values, from, to);
        let other = b_points(app, *bv, (from, to));
        let title = match (&names, bv.is_some()) {
            (Some((a, b)), true) => format!("{name} · A {a} ⠒ · B {b} ∘"),
            _ => name.to_string(),
        };
        chart(
            app,
            r,
            buf,
            (&title, data, other, *floor),
            (from, to, now),
            width,
        );
    }
    // The time axis once, under the last chart, in the trace's local time.
    let x0 = inner.x + width as u16 + 1;
    let room = inner.right().saturating_sub(x0) as usize;
    time_axis(app, (from, to), (x0, inner.y + plot_rows), room, buf);
}

/// The view's pane, titled with its span and keys: the area inside it.
fn pane(app: &App, view: &TimelineView, area: Rect, buf: &mut Buffer) -> Rect {
    let follow = if view.back == 0 {
        "follows now"
    } else {
        "← earlier · → later"
    };
    let title = format!(
        " Timeline · {} · {follow} · z zoom · T close ",
        view.span_name()
    );
    let c = app.chrome();
    let block = c.pane(true).title(c.focus_title(true, title));
    let inner = block.inner(area);
    block.render(area, buf);
    inner
}

/// The charts shown, as many as `height` has room for: utilisation,
/// queue, running jobs, and power where the samples have it.
fn charts_shown(app: &App, height: u16) -> Vec<ChartOf<'_>> {
    let s = &app.sim.timeline;
    // With the split open, B's utilisation and queue over A's.
    let b = app.sim.split.as_ref().map(|sp| &sp.timeline);
    let mut charts: Vec<ChartOf> = vec![
        ("util %", &s.util, 100.0, b.map(|b| &b.util[..])),
        ("queue", &s.queue, 1.0, b.map(|b| &b.queue[..])),
        ("running", &s.running, 1.0, None),
    ];
    if !s.frag.is_empty() && s.frag.len() == s.t.len() {
        let b_frag = b
            .map(|b| &b.frag[..])
            .filter(|f| f.len() == b.map_or(0, |b| b.t.len()));
        charts.push(("frag %", &s.frag, 1.0, b_frag));
    }
    if !s.watts.is_empty() && s.watts.len() == s.t.len() {
        charts.push(("power W", &s.watts, 1.0, None));
    }
    let n = charts.len() as u16;
    if height < n * 2 + 1 {
        charts.truncate(((height.saturating_sub(1)) / 2).max(1) as usize);
    }
    charts
}

/// B's points of values `v` (the split's) in the window; none without them.
fn b_points(app: &App, v: Option<&[f64]>, (from, to): (Secs, Secs)) -> Points {
    let b = app.sim.split.as_ref().map(|sp| &sp.timeline);
    match (b, v) {
        (Some(b), Some(v)) => b.series(v, from, to),
        _ => Vec::new(),
    }
}

/// The width of the widest y label: every chart's labels as wide, so
/// their time axes line up.
fn label_width(app: &App, charts: &[ChartOf], (from, to): (Secs, Secs)) -> usize {
    let s = &app.sim.timeline;
    let tops: Vec<String> = charts
        .iter()
        .map(|(_, v, floor, bv)| {
            let b = b_points(app, *bv, (from, to));
            let top = top_of(&s.series(v, from, to), *floor).max(top_of(&b, *floor));
            top_label(top, *floor)
        })
        .collect();
    tops.iter().map(|l| l.chars().count()).max().unwrap_or(1)
}

/// The window's start and end under the charts from `(x, y)`, `room`
/// wide, in the trace's local time (the end alone where both do not fit).
fn time_axis(
    app: &App,
    (from, to): (Secs, Secs),
    (x, y): (u16, u16),
    room: usize,
    buf: &mut Buffer,
) {
    let t = app.theme();
    let clock = |at: Secs| crate::trace::clock_shown(app.trace().zone, app.sim.facts.first(), at);
    let (a, b) = (clock(from), clock(to));
    let line = if a.chars().count() + b.chars().count() < room {
        format!(
            "{a}{}{b}",
            " ".repeat(room - a.chars().count() - b.chars().count())
        )
    } else {
        b
    };
    buf.set_stringn(x, y, line, room, t.dim);
}

fn top_of(data: &[(f64, f64)], floor: f64) -> f64 {
    data.iter().map(|p| p.1).fold(floor, f64::max).max(1.0)
}

fn top_label(top: f64, floor: f64) -> String {
    if floor >= 100.0 || top < 10_000.0 {
        format!("{top:.0}")
    } else {
        format!("{:.0}k", top / 1000.0)
    }
}

/// One chart: its series in the window, the time shown as a vertical mark,
/// y labels `width` wide.
fn chart(
    app: &App,
    r: Rect,
    buf: &mut Buffer,
    (name, data, other, floor): (&str, Points, Points, f64),
    (from, to, now): (Secs, Secs, Secs),
    width: usize,
) {
    let t = app.theme();
    let top = top_of(&data, floor).max(top_of(&other, floor));
    // Never colour alone: the series in braille (`.` in ASCII), the time
    // shown as a column of `•` (`#` in ASCII).
    // In the lecture layout, lines a projector shows: half blocks, not
    // one-dot braille.
    let (marker, now_marker) = match (app.view.look.ascii(), app.view.lecture.on) {
        (true, _) => (Marker::Dot, Marker::Block),
        (false, true) => (Marker::HalfBlock, Marker::Dot),
        (false, false) => (Marker::Braille, Marker::Dot),
    };
    // B's series (the split's), in a glyph of its own: `∘`, `o` in ASCII.
    let b_glyph = if app.view.look.ascii() { 'o' } else { '∘' };
    let now_line = [(now as f64, 0.0), (now as f64, top)];
    let mut sets = vec![Dataset::default()
        .marker(marker)
        .graph_type(GraphType::Line)
        .style(t.accent)
        .data(&data)];
    if !other.is_empty() {
        sets.push(
            Dataset::default()
                .marker(Marker::Custom(b_glyph))
                .graph_type(GraphType::Scatter)
                .style(t.warn)
                .data(&other),
        );
    }
    if (from..=to).contains(&now) {
        sets.push(
            Dataset::default()
                .marker(now_marker)
                .graph_type(GraphType::Line)
                .style(t.warn.add_modifier(Modifier::BOLD))
                .data(&now_line),
        );
    }
    let x_axis = Axis::default()
        .bounds([from as f64, to as f64])
        .style(t.dim);
    let pad = |s: &str| format!("{s:>width$}");
    let y_axis = Axis::default()
        .title(Line::styled(name.to_string(), t.title))
        .bounds([0.0, top])
        .labels(vec![
            Line::from(pad("0")),
            Line::from(pad(&top_label(top, floor))),
        ])
        .style(t.dim);
    Chart::new(sets)
        .x_axis(x_axis)
        .y_axis(y_axis)
        .style(Style::default())
        .render(r, buf);
}
