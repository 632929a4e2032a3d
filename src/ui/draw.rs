//! Drawing the whole screen: pure functions of the app state.

use super::app::{App, Focus, Tick, SPEEDS};

use super::layout::{self, too_small};
use super::timeline::Series;
use super::{grid, popups, queue};
use crate::fmt::human_secs;
use crate::text::sanitized;
use crate::trace::clock;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Sparkline, Widget};
use ratatui::Frame;

/// Sparkline bars drawn with ASCII characters (`--ascii`).
const ASCII_BARS: ratatui::symbols::bar::Set = ratatui::symbols::bar::Set {
    full: "#",
    seven_eighths: "#",
    three_quarters: "=",
    five_eighths: "=",
    half: "-",
    three_eighths: "-",
    one_quarter: ".",
    one_eighth: ".",
    empty: " ",
};

pub fn draw(frame: &mut Frame, app: &App) {
    let area = frame.area();
    render(app, area, frame.buffer_mut());
}

/// The whole screen into a buffer (tests and exports use this directly).
pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    render_views(app, area, buf);
    super::ascii::scrub(buf, area);
    if app.view.ascii {
        super::ascii::make_ascii(buf, area);
    }
}

fn render_views(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme();
    // A theme made for a background paints it (light, high-contrast).
    buf.set_style(area, t.text.bg(t.background));
    if too_small(area) {
        let msg = format!(
            "terminal too small: tracetui needs {}×{}, this is {}×{}",
            layout::MIN_WIDTH,
            layout::MIN_HEIGHT,
            area.width,
            area.height
        );
        Paragraph::new(msg)
            .style(t.warn)
            .wrap(ratatui::widgets::Wrap { trim: true })
            .render(area, buf);
        return;
    }
    let a = app.areas_in(area);
    header(app, a.header, buf);
    caption(app, a.caption, buf);
    match &app.view.timeline {
        Some(v) => super::timeline::view::draw(app, v, a.grid.union(a.side), buf),
        None if app.sim.split.is_some() => super::split_view::draw(app, a.grid.union(a.side), buf),
        None => {
            grid::draw(app, a.grid, buf);
            queue::draw(app, a.side, buf);
        }
    }
    // The lecture layout has no metrics strip, log or hint bar.
    if a.metrics.height > 0 {
        metrics(app, a.metrics, buf);
    }
    if a.log.height > 0 {
        log_pane(app, a.log, buf);
    }
    if a.hints.height > 0 {
        super::hints::draw(app, a.hints, buf);
    }
    popups::view::draw(app, area, buf);
}

/// A lesson's caption for the current time: one line, or a box in the lecture layout.
fn caption(app: &App, area: Rect, buf: &mut Buffer) {
    let Some(text) = app.caption() else { return };
    if area.height == 0 {
        return;
    }
    let t = app.theme();
    let text = crate::text::guarded(text);
    if !app.view.lecture.on {
        buf.set_style(area, t.cursor);
        let lines = crate::text::wrap_words(&text, area.width.saturating_sub(3) as usize, 0);
        for (i, line) in lines.iter().take(area.height as usize).enumerate() {
            let lead = if i == 0 { " ▶ " } else { "   " };
            let y = area.y + i as u16;
            buf.set_stringn(
                area.x,
                y,
                format!("{lead}{line}"),
                area.width as usize,
                t.cursor,
            );
        }
        return;
    }
    let block = app.chrome().pane(true);
    Paragraph::new(text)
        .style(t.title.add_modifier(Modifier::BOLD))
        .wrap(ratatui::widgets::Wrap { trim: true })
        .block(block)
        .render(area, buf);
}

fn header(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme();
    let e = app.engine();
    let trace = app.trace();
    buf.set_style(area, t.header);
    let first = app.sim.first;
    let now = e.now().max(first - 1);
    // The policy comes first; then the trace's label, which gives way on
    // narrow screens, but not all of it: since when the policy is in force
    // (once it is not the one the replay began with) goes first.
    let since = if e.policy_since() <= app.replay().start_time() {
        String::new()
    } else {
        format!(
            " since {}",
            clock::clock_shown(trace.zone, first, e.policy_since())
        )
    };
    let policy = |since: &str| {
        Span::styled(
            format!("· {}{since} ", e.policy().label().to_uppercase()),
            t.header.add_modifier(Modifier::BOLD),
        )
    };
    let mut left = vec![
        Span::styled(" tracetui ", t.header.add_modifier(Modifier::BOLD)),
        policy(""),
    ];
    if let Some(p) = e.power_policy() {
        // After the policy, before the label (which gives way first).
        left.push(Span::styled(
            format!("· {} power ", p.name()),
            t.header.add_modifier(Modifier::BOLD),
        ));
    }
    let zone = clock::zone_abbrev(trace.zone, now);
    let state = if app.waiting() && app.sim.waited >= 0.5 {
        // An external policy has not answered yet: the clock stands.
        Span::styled(format!(" WAIT {:.1}s ", app.sim.waited), t.paused)
    } else if app.sim.paused {
        Span::styled(" PAUSED ", t.paused)
    } else {
        Span::styled(" ▶ ", t.playing)
    };
    let speed = match app.tick_size() {
        Tick::NextEvent => format!("{:.0} ev/s", (SPEEDS[app.sim.speed] / 60.0).max(1.0)),
        Tick::Secs(_) => format!("x{}", SPEEDS[app.sim.speed]),
    };
    // The speed in fewer words where the trace's name would not show.
    let left_w: usize = left.iter().map(|s| s.width()).sum();
    let tick = app.tick_size().label();
    let clock_text = format!("{} {zone} ", clock::clock_shown(trace.zone, first, now));
    let long =
        crate::text::width(&clock_text) + state.width() + format!(" {speed} tick {tick} ").len();
    let narrow = (area.width as usize) < long + left_w + 1 + 3 + 8;
    let speed_text = match narrow {
        true => format!(" {speed} {tick} "),
        false => format!(" {speed} tick {tick} "),
    };
    let right = vec![
        Span::styled(clock_text, t.header.add_modifier(Modifier::BOLD)),
        state,
        Span::styled(speed_text, t.header),
    ];
    // The clock and state on the right always show; the label gives way.
    let rw = right
        .iter()
        .map(|s| s.width())
        .sum::<usize>()
        .min(area.width as usize) as u16;
    let used: usize = left.iter().map(|s| s.width()).sum();
    let room = (area.width as usize).saturating_sub(rw as usize + 1 + used + 3);
    let whole = sanitized(&app.sim.label);
    // `since …` where the label keeps at least its file's name (or 12 columns).
    let keep = crate::text::width(&fit_label(&whole, 0))
        .max(12)
        .min(crate::text::width(&whole));
    let since_w = crate::text::width(&since);
    let room = if !since.is_empty() && room >= since_w + keep {
        left[1] = policy(&since);
        room - since_w
    } else {
        room
    };
    let mut label = fit_label(&whole, room);
    if app.view.ascii {
        // `~/name` would read as a home directory.
        label = label.replace("…/", ".../");
    }
    if !label.is_empty() {
        left.push(Span::styled(format!("· {label} "), t.header));
    }
    buf.set_line(
        area.x,
        area.y,
        &Line::from(left),
        area.width.saturating_sub(rw + 1),
    );
    buf.set_line(area.x + area.width - rw, area.y, &Line::from(right), rw);
}

fn metrics(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme();
    if app.view.lecture.on {
        return super::lecture::view::headline(app, area, buf);
    }
    let e = app.engine();
    let util = e.busy_percent();
    let spark_w = (area.width / 4).max(10);
    let label_w = 12u16;
    // A bar a tick of trace time (a minute in next-event mode), from the
    // timeline's samples: what the replay was at each, never its future.
    let step = match app.tick_size() {
        Tick::Secs(s) => s,
        Tick::NextEvent => 60,
    };
    let row = |y: u16, label: String, of: Series, max: Option<u64>, buf: &mut Buffer| {
        buf.set_stringn(area.x, y, &label, label_w as usize, t.dim);
        let v = app.sim.timeline.bars(of, e.now(), step, spark_w as usize);
        let mut s = Sparkline::default().data(&v).style(t.accent);
        if app.view.ascii {
            s = s.bar_set(ASCII_BARS);
        }
        if let Some(m) = max {
            s = s.max(m);
        }
        s.render(Rect::new(area.x + label_w, y, spark_w, 1), buf);
    };
    row(
        area.y,
        format!("util {util:>5.1}%"),
        Series::Util,
        Some(100),
        buf,
    );
    row(
        area.y + 1,
        format!("queue {:>6}", e.queue_len()),
        Series::Queue,
        None,
        buf,
    );
    if let (Some(w), Some(j)) = (e.watts(), e.joules()) {
        row(
            area.y + 2,
            format!("power {:>6}", human_watts(w)),
            Series::Watts,
            None,
            buf,
        );
        let x = area.x + label_w + spark_w + 2;
        let w_txt = area.width.saturating_sub(label_w + spark_w + 2) as usize;
        let pol = e.power_policy().map_or("", |p| p.name());
        let line = format!(
            "energy {} so far  ·  {pol} power limits (P switches)",
            human_energy(j)
        );
        buf.set_stringn(x, area.y + 2, &line, w_txt, t.text);
    }
    let x = area.x + label_w + spark_w + 2;
    let w = area.width.saturating_sub(label_w + spark_w + 2) as usize;
    let done = figures_line(app, w);
    buf.set_stringn(x, area.y, &done, w, t.text);
    let tally = e.tally();
    // Background indexes of the big side files, while they build (a
    // per-job result, once in, means the index is done), and the recorded
    // holds replayed over capacity: whole phrases, in fewer words or left
    // out where the line is short, never cut.
    let indexing = app.trace().native.as_ref().and_then(|n| n.indexing());
    let indexing = indexing.filter(|_| app.sim.job_util.is_none()).map(|i| {
        let p = i
            .progress
            .map_or("…".to_string(), |p| format!(" {:.0} %", p * 100.0));
        (
            format!("  ·  indexing {}{p}", i.what),
            format!(" · indexing{p}"),
        )
    });
    let n = tally.overflow_segments;
    let overflow = (n > 0).then(|| {
        (
            format!("  ·  recorded overflow {n}"),
            format!(" · overflow {n}"),
        )
    });
    let longs: String = [&overflow, &indexing]
        .iter()
        .filter_map(|p| p.as_ref().map(|p| p.0.clone()))
        .collect();
    let shorts: String = [&overflow, &indexing]
        .iter()
        .filter_map(|p| p.as_ref().map(|p| p.1.clone()))
        .collect();
    let few = overflow.as_ref().map_or(String::new(), |p| p.1.clone());
    // The counts in their own longest wording with the longest tail that
    // fits; else the counts shorter, to keep a short tail; else the counts.
    let full = counts_line(app, w);
    let fw = crate::text::width(&full);
    let extra = [&longs, &shorts, &few]
        .into_iter()
        .find(|tail| fw + crate::text::width(tail) <= w)
        .map(|tail| format!("{full}{tail}"))
        .or_else(|| {
            [&shorts, &few].into_iter().find_map(|tail| {
                let tw = crate::text::width(tail);
                let head = counts_line(app, w.saturating_sub(tw));
                (crate::text::width(&head) + tw <= w).then(|| head + tail)
            })
        })
        .unwrap_or(full);
    buf.set_stringn(x, area.y + 1, &extra, w, t.dim);
}

fn log_pane(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme();
    let focused = app.view.focus == Focus::Log;
    let title = if focused {
        " Log · ↑↓ scroll, PgUp/PgDn, +/- level, Esc back "
    } else {
        " Log "
    };
    let c = app.chrome();
    let block = c
        .pane(focused)
        .title(c.focus_title(focused, Span::styled(title, t.title)));
    tui_logger::TuiLoggerWidget::default()
        .block(block)
        .formatter(Box::new(super::logfmt::WordWrap {
            wraps: app.view.log_wraps.clone(),
            text: t.text,
            warn: t.warn,
            error: t.error,
        }))
        .style(t.text)
        .style_warn(t.warn)
        .style_error(t.error)
        .style_info(t.text)
        .state(&app.view.log_state)
        .render(area, buf);
}

/// The trace's label in `room` columns: whole if it fits, else its path
/// down to the file's name, then without the parts between, then cut.
pub fn fit_label(label: &str, room: usize) -> String {
    let width = crate::text::width;
    if width(label) <= room {
        return label.to_string();
    }
    let mut parts: Vec<String> = label.split(" · ").map(str::to_string).collect();
    if let Some(last) = parts.last_mut() {
        if let Some((_, name)) = last.rsplit_once('/') {
            *last = format!("…/{name}");
        }
    }
    let joined = parts.join(" · ");
    if width(&joined) <= room {
        return joined;
    }
    if parts.len() > 2 {
        let ends = format!("{} · {}", parts[0], parts[parts.len() - 1]);
        if width(&ends) <= room {
            return ends;
        }
    }
    if room < 4 {
        return String::new();
    }
    crate::text::fit(&joined, room)
}

/// Jobs that will not finish: rejected, dropped, and — past the last
/// event — what still waits or runs; in fewer words where narrow.
fn counts_line(app: &App, w: usize) -> String {
    let e = app.engine();
    let tally = e.tally();
    let (r, d) = (tally.rejected, tally.dropped);
    let left = match e.next_event_time() {
        None => e.queue_len() as u64 + e.running().len() as u64,
        Some(_) => 0,
    };
    let line = |dropped: &str, unfinished: &str, sep: &str| {
        let mut l = format!("rejected {r}");
        if d > 0 {
            l.push_str(&format!("{sep}{dropped} {d}"));
        }
        if left > 0 {
            l.push_str(&format!("{sep}{unfinished}"));
        }
        l
    };
    // What the figures above count, where there is room to say it.
    let f = &app.sim.figures;
    let over = format!(
        " · JCT, wait: all {} arrived, {} not started so far",
        f.jobs, f.unserved
    );
    let short = format!(" · over all {} arrived", f.jobs);
    let full = line(
        "dropped",
        &format!("unfinished {left}: nothing more happens"),
        " · ",
    );
    [
        format!("{full}{over}"),
        format!("{full}{short}"),
        line(
            "dropped",
            &format!("unfinished {left}: nothing more happens"),
            "  ·  ",
        ),
        line(
            "dropped",
            &format!("unfinished {left}: no more events"),
            " · ",
        ),
        line("dropped", &format!("unfinished {left}"), " · "),
    ]
    .into_iter()
    .find(|l| crate::text::width(l) <= w)
    .unwrap_or_else(|| line("dropped", &format!("unfinished {left}"), " · "))
}

/// The replay's figures in the longest wording that fits `w` columns:
/// every figure shows at 80 columns. JCT and wait count every job arrived
/// (so far, for those not done or not started: `figures.rs`).
fn figures_line(app: &App, w: usize) -> String {
    let f = &app.sim.figures;
    let (jct, p99) = (
        f.mean_jct.map_or("-".into(), human_secs),
        f.p99_wait.map_or("-".into(), human_secs),
    );
    let (done, running) = (f.done, app.engine().running().len());
    [
        format!("done {done}  ·  running {running}  ·  JCT so far {jct}  ·  p99 wait {p99}"),
        format!("done {done} · running {running} · JCT so far {jct} · p99 wait {p99}"),
        format!("done {done} · run {running} · JCT so far {jct} · p99 wait {p99}"),
        format!("done {done} · run {running} · JCT {jct} · p99 wait {p99}"),
        format!("done {done} run {running} JCT {jct} p99w {p99}"),
    ]
    .into_iter()
    .find(|l| crate::text::width(l) <= w)
    .unwrap_or_default()
}

/// `950 W`, `12.3 kW`, `4.56 MW`.
fn human_watts(w: f64) -> String {
    if w >= 1e6 {
        format!("{:.2}MW", w / 1e6)
    } else if w >= 1e3 {
        format!("{:.1}kW", w / 1e3)
    } else {
        format!("{:.0}W", w)
    }
}

/// Joules as `850 Wh`, `21.4 kWh`, `3.25 MWh`.
fn human_energy(joules: f64) -> String {
    let wh = joules / 3600.0;
    if wh >= 1e6 {
        format!("{:.2} MWh", wh / 1e6)
    } else if wh >= 1e3 {
        format!("{:.1} kWh", wh / 1e3)
    } else {
        format!("{:.0} Wh", wh)
    }
}
