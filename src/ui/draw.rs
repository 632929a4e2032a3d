//! Drawing the whole screen: pure functions of the app state.

use super::app::{App, Focus, Tick};

use super::layout::{self, too_small};
use super::{grid, popups, queue};
use crate::text::sanitized;
use crate::trace::{clock_shown, zone_abbrev};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use ratatui::Frame;

pub fn draw(frame: &mut Frame, app: &App) {
    let area = frame.area();
    render(app, area, frame.buffer_mut());
}

/// The whole screen into a buffer (tests and exports use this directly).
pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    render_views(app, area, buf);
    super::ascii::scrub(buf, area);
    if app.view.look.ascii() {
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
        super::metrics_strip::draw(app, a.metrics, buf);
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
    let Some(text) = app.caption_shown() else {
        return;
    };
    if area.height == 0 {
        return;
    }
    let t = app.theme();
    let text = crate::text::guarded(&text);
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
    // Wrapped as `areas_in` measured it, so the box holds every line.
    let block = app.chrome().pane(true);
    let inner = block.inner(area);
    block.render(area, buf);
    let style = t.title.add_modifier(Modifier::BOLD);
    let lines = crate::text::wrap_words(&text, inner.width as usize, 0);
    for (i, line) in lines.iter().take(inner.height as usize).enumerate() {
        buf.set_stringn(
            inner.x,
            inner.y + i as u16,
            line,
            inner.width as usize,
            style,
        );
    }
}

/// The top line: tracetui, the policy (and power limits) and the trace's
/// label on the left; the clock, the state and the speed on the right.
fn header(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme();
    buf.set_style(area, t.header);
    // The policy comes first; then the trace's label, which gives way on
    // narrow screens, but not all of it: since when the policy is in force
    // (once it is not the one the replay began with) goes first.
    let mut left = vec![
        Span::styled(" tracetui ", t.header.add_modifier(Modifier::BOLD)),
        header_policy(app, ""),
    ];
    // The placement where it is not the default, or in a lesson.
    let placement = app.engine().placement();
    let lesson = !app.view.lecture.captions.is_empty();
    if placement != crate::sim::Placement::Consolidate || lesson {
        left.push(Span::styled(
            format!("· {} ", placement.name()),
            t.header.add_modifier(Modifier::BOLD),
        ));
    }
    if let Some(p) = app.engine().power_policy() {
        // After the policy, before the label (which gives way first).
        left.push(Span::styled(
            format!("· {} power ", p.name()),
            t.header.add_modifier(Modifier::BOLD),
        ));
    }
    let left_w: usize = left.iter().map(|s| s.width()).sum();
    let right = header_clock(app, area.width, left_w);
    // The clock and state on the right always show; the label gives way.
    let rw = right
        .iter()
        .map(|s| s.width())
        .sum::<usize>()
        .min(area.width as usize) as u16;
    let mut room = (area.width as usize).saturating_sub(rw as usize + 1 + left_w + 3);
    // Where the label would be cut, the program's name goes first.
    let label_w = crate::text::width(&sanitized(&app.sim.label));
    let named = label_w <= room;
    if !named {
        // ` tracetui ` goes, and the policy loses its `· ` for a space.
        room = room + left[0].width() + 1;
        left.remove(0);
        left[0] = unled(left[0].clone());
    }
    header_label(app, room, &mut left, named);
    buf.set_line(
        area.x,
        area.y,
        &Line::from(left),
        area.width.saturating_sub(rw + 1),
    );
    buf.set_line(area.x + area.width - rw, area.y, &Line::from(right), rw);
}

/// A header part first on the line: ` FIFO ` rather than `· FIFO `.
fn unled(s: Span<'static>) -> Span<'static> {
    let text = format!(" {}", s.content.trim_start_matches("· "));
    Span::styled(text, s.style)
}

/// The policy in force, in capitals, and since when (`since`: none, or
/// ` since …`).
fn header_policy(app: &App, since: &str) -> Span<'static> {
    let t = app.theme();
    Span::styled(
        format!("· {}{since} ", app.engine().policy().label().to_uppercase()),
        t.header.add_modifier(Modifier::BOLD),
    )
}

/// ` since …` once the policy in force is not the one the replay began
/// with; else nothing.
fn policy_since(app: &App) -> String {
    let e = app.engine();
    if e.policy_since() <= app.replay().start_time() {
        String::new()
    } else {
        format!(
            " since {}",
            clock_shown(app.trace().zone, app.sim.facts.first(), e.policy_since())
        )
    }
}

/// The trace's label in the `room` the header leaves it, after the policy
/// (which says since when where the label keeps its file's name beside it).
fn header_label(app: &App, room: usize, left: &mut Vec<Span<'static>>, named: bool) {
    let t = app.theme();
    let since = policy_since(app);
    let whole = sanitized(&app.sim.label);
    // `since …` where the label keeps at least its file's name (or 12 columns).
    let keep = crate::text::width(&fit_label(&whole, 0))
        .max(12)
        .min(crate::text::width(&whole));
    let since_w = crate::text::width(&since);
    let room = if !since.is_empty() && room >= since_w + keep {
        left[usize::from(named)] = match named {
            true => header_policy(app, &since),
            false => unled(header_policy(app, &since)),
        };
        room - since_w
    } else {
        room
    };
    let mut label = fit_label(&whole, room);
    if app.view.look.ascii() {
        // `~/name` would read as a home directory.
        label = label.replace("…/", ".../");
    }
    if !label.is_empty() {
        left.push(Span::styled(format!("· {label} "), t.header));
    }
}

/// The header's right: the clock and its zone, the state, the speed and
/// tick (in fewer words where the trace's label would not show beside
/// `left_w` columns of the left).
fn header_clock(app: &App, width: u16, left_w: usize) -> Vec<Span<'static>> {
    let t = app.theme();
    let trace = app.trace();
    let first = app.sim.facts.first();
    let now = app.engine().now().max(first - 1);
    let zone = zone_abbrev(trace.zone, now);
    let mut state = header_state(app);
    let speed = match app.tick_size() {
        Tick::NextEvent => format!("{:.0} ev/s", (app.sim.playback.speed() / 60.0).max(1.0)),
        Tick::Secs(_) => format!("x{}", app.sim.playback.speed()),
    };
    let tick = app.tick_size().label();
    let clock_text = format!("{} {zone} ", clock_shown(trace.zone, first, now));
    // Each part takes the columns it can grow to (the clock at the last
    // submission, the fastest speed, the longest tick of this mode), so
    // the line keeps its wording and width as the numbers grow.
    let last = app.sim.facts.last_submit().max(now);
    let last_clock = format!("{} {zone} ", clock_shown(trace.zone, first, last));
    let clock_w = crate::text::width(&clock_text).max(crate::text::width(&last_clock));
    let state_w = state.width().max(" PAUSED ".len());
    let (speed_w, tick_w) = match app.tick_size() {
        Tick::NextEvent => ("1440 ev/s".len(), "next event".len()),
        Tick::Secs(_) => ("x86400".len(), "15m".len()),
    };
    let long = clock_w + state_w + "  tick  ".len() + speed_w + tick_w;
    // The speed in fewer words where the trace's name would not show.
    let narrow = (width as usize) < long + left_w + 1 + 3 + 8;
    let speed_text = match narrow {
        true => format!(" {speed:>speed_w$} {tick:<tick_w$} "),
        false => format!(" {speed:>speed_w$} tick {tick:<tick_w$} "),
    };
    state.content = format!("{:<state_w$}", state.content).into();
    vec![
        Span::styled(
            format!("{clock_text:<clock_w$}"),
            t.header.add_modifier(Modifier::BOLD),
        ),
        state,
        Span::styled(speed_text, t.header),
    ]
}

/// Playing, paused, or waiting for an external policy's answer.
fn header_state(app: &App) -> Span<'static> {
    let t = app.theme();
    if app.waiting() && app.sim.playback.waited() >= 0.5 {
        // An external policy has not answered yet: the clock stands.
        Span::styled(
            format!(" WAIT {:.1}s ", app.sim.playback.waited()),
            t.paused,
        )
    } else if app.sim.playback.paused() {
        Span::styled(" PAUSED ", t.paused)
    } else {
        Span::styled(" ▶ ", t.playing)
    }
}

fn log_pane(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme();
    let focused = app.view.focus == Focus::Log;
    let title = if focused {
        " Log · ↑↓ or PgUp/PgDn: a page · Esc: back, following "
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
            wraps: app.view.log.wraps(),
            text: t.text,
            warn: t.warn,
            error: t.error,
        }))
        .style(t.text)
        .style_warn(t.warn)
        .style_error(t.error)
        .style_info(t.text)
        .state(app.view.log.state())
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
    // A lesson's name whole (without the word `lesson` where it must)
    // rather than all of it cut.
    if let Some(name) = parts[0].strip_prefix("lesson ").filter(|_| parts.len() > 1) {
        if width(&parts[0]) <= room {
            return parts[0].clone();
        }
        if width(name) <= room {
            return name.to_string();
        }
    }
    if room < 4 {
        return String::new();
    }
    crate::text::fit(&joined, room)
}
