//! The timeline view (`T`): utilisation, queue length, running jobs and
//! (with an energy model) power over the replay so far, one chart each —
//! never told apart by colour alone — with the time shown marked and the
//! axis in the trace's local time. `z` zooms the window, `←`/`→` scroll it.

use super::app::App;
use crate::trace::model::Secs;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::symbols::Marker;
use ratatui::text::Line;
use ratatui::widgets::{Axis, Chart, Dataset, GraphType, Widget};

/// Samples kept before every other one is dropped (the oldest keep their
/// shape, memory stays bounded however long the replay).
const MAX_SAMPLES: usize = 20_000;

/// What the replay looked like at each step, in time order.
#[derive(Debug, Clone, Default)]
pub(crate) struct Samples {
    t: Vec<Secs>,
    util: Vec<f64>,
    queue: Vec<f64>,
    running: Vec<f64>,
    watts: Vec<f64>,
}

/// One step's figures.
pub(crate) struct Sample {
    pub at: Secs,
    /// Allocated GPUs, percent.
    pub util: f64,
    pub queue: u64,
    pub running: u64,
    pub watts: Option<f64>,
}

impl Samples {
    /// Records a step; a step back first forgets what came after it.
    pub(crate) fn record(&mut self, s: Sample) {
        let keep = self.t.partition_point(|&x| x < s.at);
        if keep < self.t.len() {
            self.t.truncate(keep);
            self.util.truncate(keep);
            self.queue.truncate(keep);
            self.running.truncate(keep);
            self.watts.truncate(keep.min(self.watts.len()));
        }
        self.t.push(s.at);
        self.util.push(s.util);
        self.queue.push(s.queue as f64);
        self.running.push(s.running as f64);
        if let Some(w) = s.watts {
            self.watts.push(w);
        }
        if self.t.len() > MAX_SAMPLES {
            self.halve();
        }
    }

    /// Sampled times and utilisation (percent), in time order.
    pub(crate) fn util_at(&self) -> impl Iterator<Item = (Secs, f64)> + '_ {
        self.t.iter().copied().zip(self.util.iter().copied())
    }

    fn halve(&mut self) {
        fn every_other<T>(v: &mut Vec<T>) {
            let mut i = 0;
            v.retain(|_| {
                i += 1;
                i % 2 == 1
            });
        }
        every_other(&mut self.t);
        every_other(&mut self.util);
        every_other(&mut self.queue);
        every_other(&mut self.running);
        every_other(&mut self.watts);
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.t.len()
    }

    fn series(&self, of: &[f64], from: Secs, to: Secs) -> Vec<(f64, f64)> {
        self.t
            .iter()
            .zip(of)
            .filter(|(t, _)| (from..=to).contains(*t))
            .map(|(&t, &v)| (t as f64, v))
            .collect()
    }
}

/// The windows `z` cycles through (seconds; 0: everything so far).
pub(crate) const SPANS: [Secs; 6] = [3_600, 6 * 3_600, 86_400, 7 * 86_400, 30 * 86_400, 0];

/// How the timeline is looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct TimelineView {
    /// Index into `SPANS`.
    pub span: usize,
    /// How far the window's right edge is before the time shown (0: follows it).
    pub back: Secs,
}

impl TimelineView {
    pub(crate) fn zoom(&mut self) {
        self.span = (self.span + 1) % SPANS.len();
        self.back = 0;
    }

    /// Scrolls by a quarter of the window (earlier when `earlier`).
    pub(crate) fn scroll(&mut self, earlier: bool, shown_span: Secs) {
        let step = (shown_span / 4).max(60);
        self.back = if earlier {
            self.back.saturating_add(step)
        } else {
            (self.back - step).max(0)
        };
    }

    /// The window [from, to] at `now`, with `first` the trace's start.
    pub(crate) fn window(&self, first: Secs, now: Secs) -> (Secs, Secs) {
        let to = (now - self.back).max(first + 1);
        let span = SPANS[self.span];
        let from = if span == 0 {
            first
        } else {
            (to - span).max(first)
        };
        (from, to.max(from + 1))
    }

    pub(crate) fn span_name(&self) -> &'static str {
        ["1 hour", "6 hours", "1 day", "1 week", "30 days", "all"][self.span]
    }
}

/// Draws the timeline in `area` (the grid and queue's place).
pub(crate) fn draw(app: &App, view: &TimelineView, area: Rect, buf: &mut Buffer) {
    let t = app.theme();
    let now = app.sim.replay.now();
    let first = app.sim.first;
    let (from, to) = view.window(first, now);
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
    let s = &app.sim.timeline;
    let mut charts: Vec<(&str, &[f64], f64)> = vec![
        ("util %", &s.util, 100.0),
        ("queue", &s.queue, 1.0),
        ("running", &s.running, 1.0),
    ];
    if !s.watts.is_empty() && s.watts.len() == s.t.len() {
        charts.push(("power W", &s.watts, 1.0));
    }
    let n = charts.len() as u16;
    if inner.height < n * 2 + 1 {
        charts.truncate(((inner.height.saturating_sub(1)) / 2).max(1) as usize);
    }
    let n = charts.len() as u16;
    let plot_rows = inner.height.saturating_sub(1);
    let each = plot_rows / n.max(1);
    // Every chart's y labels as wide, so their time axes line up.
    let tops: Vec<String> = charts
        .iter()
        .map(|(_, v, floor)| top_label(top_of(&s.series(v, from, to), *floor), *floor))
        .collect();
    let width = tops.iter().map(|l| l.chars().count()).max().unwrap_or(1);
    for (i, (name, values, floor)) in charts.iter().enumerate() {
        let h = if i as u16 + 1 == n {
            plot_rows - each * (n - 1)
        } else {
            each
        };
        let r = Rect::new(inner.x, inner.y + each * i as u16, inner.width, h);
        chart(app, r, buf, (name, values, *floor), (from, to, now), width);
    }
    // The time axis once, under the last chart, in the trace's local time.
    let clock = |x: Secs| crate::trace::clock::clock(app.trace().zone, first, x);
    let y = inner.y + plot_rows;
    let x0 = inner.x + width as u16 + 1;
    let room = inner.right().saturating_sub(x0) as usize;
    let (a, b) = (clock(from), clock(to));
    let line = if a.chars().count() + b.chars().count() < room {
        format!(
            "{a}{}{b}",
            " ".repeat(room - a.chars().count() - b.chars().count())
        )
    } else {
        b
    };
    buf.set_stringn(x0, y, line, room, t.dim);
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
    (name, values, floor): (&str, &[f64], f64),
    (from, to, now): (Secs, Secs, Secs),
    width: usize,
) {
    let t = app.theme();
    let s = &app.sim.timeline;
    let data = s.series(values, from, to);
    let top = top_of(&data, floor);
    // Never colour alone: the series in braille (`.` in ASCII), the time
    // shown as a column of `•` (`#` in ASCII).
    let (marker, now_marker) = if app.view.ascii {
        (Marker::Dot, Marker::Block)
    } else {
        (Marker::Braille, Marker::Dot)
    };
    let now_line = [(now as f64, 0.0), (now as f64, top)];
    let mut sets = vec![Dataset::default()
        .marker(marker)
        .graph_type(GraphType::Line)
        .style(t.accent)
        .data(&data)];
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

#[cfg(test)]
mod tests {
    use super::*;

    fn at(t: Secs) -> Sample {
        Sample {
            at: t,
            util: t as f64,
            queue: 1,
            running: 2,
            watts: None,
        }
    }

    #[test]
    fn a_step_back_forgets_what_came_after_and_memory_stays_bounded() {
        let mut s = Samples::default();
        for t in 0..10 {
            s.record(at(t * 60));
        }
        s.record(at(180));
        assert_eq!(s.t, [0, 60, 120, 180]);
        for t in 0..(MAX_SAMPLES as i64 * 3) {
            s.record(at(1000 + t));
        }
        assert!(s.len() <= MAX_SAMPLES);
        assert!(s.t.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn windows_follow_scroll_and_zoom() {
        let mut v = TimelineView::default();
        assert_eq!(v.window(0, 10_000), (10_000 - 3_600, 10_000));
        v.scroll(true, 3_600);
        assert_eq!(v.window(0, 10_000), (10_000 - 900 - 3_600, 10_000 - 900));
        v.scroll(false, 3_600);
        assert_eq!(v.back, 0);
        for _ in 0..5 {
            v.zoom();
        }
        assert_eq!(v.span_name(), "all");
        assert_eq!(v.window(100, 10_000), (100, 10_000));
    }
}
