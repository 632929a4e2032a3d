//! The metrics strip under the grid: utilisation, queue and (with a power
//! model) power as sparklines of the timeline's samples, the replay's
//! figures and counts beside them.

use super::app::{App, Tick};
use super::timeline::Series;
use crate::trace::human_secs;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::{Sparkline, Widget};

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

/// Columns of a sparkline's label.
const LABEL_W: u16 = 12;

/// The strip (the lecture layout's headline in its place): a sparkline a
/// row, the figures beside the first, the counts beside the second.
pub(super) fn draw(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme();
    if app.view.lecture.on {
        return super::lecture::view::headline(app, area, buf);
    }
    let e = app.engine();
    let util = e.busy_percent();
    let spark_w = (area.width / 4).max(10);
    let util_row = (format!("util {util:>5.1}%"), Series::Util, Some(100));
    spark_row(app, (area.x, area.y), spark_w, util_row, buf);
    let frag = e.cluster().fragmentation();
    let queue_row = match frag {
        // Two rows (80×24) and a trace of pods: its fragmentation in the
        // queue's place (the queue's title counts it).
        Some(f) if area.height < 3 => (
            format!("frag {:>6.1}%", f.percent()),
            Series::Frag,
            Some(100),
        ),
        _ => (format!("queue {:>6}", e.queue_len()), Series::Queue, None),
    };
    spark_row(app, (area.x, area.y + 1), spark_w, queue_row, buf);
    let x = area.x + LABEL_W + spark_w + 2;
    let w = area.width.saturating_sub(LABEL_W + spark_w + 2) as usize;
    if let (Some(watts), Some(j)) = (e.watts(), e.joules()) {
        let power_row = (
            format!("power {:>6}", human_watts(watts)),
            Series::Watts,
            None,
        );
        spark_row(app, (area.x, area.y + 2), spark_w, power_row, buf);
        let pol = e.power_policy().map_or("", |p| p.name());
        let line = format!(
            "energy {} so far  ·  {pol} power limits (P switches)",
            human_energy(j)
        );
        buf.set_stringn(x, area.y + 2, &line, w, t.text);
    } else if let Some(f) = frag {
        // A trace of pods: FGD's fragmentation, and what is free.
        let frag_row = (
            format!("frag {:>6.1}%", f.percent()),
            Series::Frag,
            Some(100),
        );
        spark_row(app, (area.x, area.y + 2), spark_w, frag_row, buf);
        let line = format!(
            "{:.1} GPUs free, {:.0}% of it fragmented  ·  placement {} (o switches)",
            f.free_gpus(),
            f.of_free(),
            e.placement().name()
        );
        buf.set_stringn(x, area.y + 2, &line, w, t.text);
    }
    let done = figures_line(app, w);
    buf.set_stringn(x, area.y, &done, w, t.text);
    let counts = counts_with_notes(app, w);
    buf.set_stringn(x, area.y + 1, &counts, w, t.dim);
}

/// A labelled sparkline at `(x, y)`, `spark_w` bars wide: the label, the
/// series it draws and its top (none: the highest bar).
fn spark_row(
    app: &App,
    (x, y): (u16, u16),
    spark_w: u16,
    (label, of, max): (String, Series, Option<u64>),
    buf: &mut Buffer,
) {
    let t = app.theme();
    // A bar a tick of trace time (a minute in next-event mode), from the
    // timeline's samples: what the replay was at each, never its future.
    let step = match app.tick_size() {
        Tick::Secs(s) => s,
        Tick::NextEvent => 60,
    };
    buf.set_stringn(x, y, &label, LABEL_W as usize, t.dim);
    let v = app
        .sim
        .timeline
        .bars(of, app.engine().now(), step, spark_w as usize);
    let mut s = Sparkline::default().data(&v).style(t.accent);
    if app.view.look.ascii() {
        s = s.bar_set(ASCII_BARS);
    }
    if let Some(m) = max {
        s = s.max(m);
    }
    s.render(Rect::new(x + LABEL_W, y, spark_w, 1), buf);
}

/// The notes after the counts in three wordings (long, short, fewest):
/// background indexes of the big side files, while they build (a per-job
/// result, once in, means the index is done), and the recorded holds
/// replayed over capacity.
fn count_notes(app: &App) -> [String; 3] {
    let indexing = app.trace().native.as_ref().and_then(|n| n.indexing());
    let indexing = indexing
        .filter(|_| app.sim.measured.job_util().is_none())
        .map(|i| {
            let p = i
                .progress
                .map_or("…".to_string(), |p| format!(" {:.0} %", p * 100.0));
            (
                format!("  ·  indexing {}{p}", i.what),
                format!(" · indexing{p}"),
            )
        });
    let n = app.engine().tally().overflow_segments;
    let overflow = (n > 0).then(|| {
        (
            format!("  ·  recorded overflow {n}"),
            format!(" · overflow {n}"),
        )
    });
    // With deadlines, how many are met of those decided so far (as `L`'s
    // headline counts them).
    let deadlines = app
        .engine()
        .deadline_counts()
        .filter(|_| app.sim.facts.has_deadlines())
        .map(|(met, counted)| {
            (
                format!("  ·  deadlines met {met} of {counted}"),
                format!(" · met {met} of {counted}"),
            )
        });
    let longs: String = [&deadlines, &overflow, &indexing]
        .iter()
        .filter_map(|p| p.as_ref().map(|p| p.0.clone()))
        .collect();
    let shorts: String = [&deadlines, &overflow, &indexing]
        .iter()
        .filter_map(|p| p.as_ref().map(|p| p.1.clone()))
        .collect();
    let few: String = [&deadlines, &overflow]
        .iter()
        .filter_map(|p| p.as_ref().map(|p| p.1.clone()))
        .collect();
    [longs, shorts, few]
}

/// The counts and their notes in `w` columns: whole phrases, in fewer
/// words or left out where the line is short, never cut.
fn counts_with_notes(app: &App, w: usize) -> String {
    let [longs, shorts, few] = count_notes(app);
    // The counts in their own longest wording with the longest tail that
    // fits; else the counts shorter, to keep a short tail; else the counts.
    let full = counts_line(app, w);
    let fw = crate::text::width(&full);
    let line = [&longs, &shorts, &few]
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
    line
}

/// Jobs that will not finish: rejected, dropped, and — past the last
/// event — what still waits or runs; in fewer words where narrow. The
/// wording is chosen as if each count had all the digits it can grow to,
/// so it does not change as they grow.
fn counts_line(app: &App, w: usize) -> String {
    let e = app.engine();
    let tally = e.tally();
    let left = match e.next_event_time() {
        None => e.queue_len() as u64 + e.running().len() as u64,
        Some(_) => 0,
    };
    let f = &app.sim.figures;
    let real = [tally.rejected, tally.dropped, left, f.jobs, f.unserved];
    let (dw, _) = count_widths(app);
    let widest = real.map(|_| "9".repeat(dw));
    let wordings = counts_wordings(real.map(|n| n > 0), &widest);
    let chosen = wordings.iter().position(|l| crate::text::width(l) <= w);
    let shown = counts_wordings(real.map(|n| n > 0), &real.map(|n| n.to_string()));
    shown[chosen.unwrap_or(shown.len() - 1)].clone()
}

/// The counts line's wordings, longest first, with the counts `n`
/// (rejected, dropped, unfinished, arrived, not started) as text; `some`:
/// which are above 0 (dropped and unfinished show only then).
fn counts_wordings(some: [bool; 5], n: &[String; 5]) -> [String; 5] {
    let [r, d, left, jobs, unserved] = n;
    let line = |unfinished: &str, sep: &str| {
        let mut l = format!("rejected {r}");
        if some[1] {
            l.push_str(&format!("{sep}dropped {d}"));
        }
        if some[2] {
            l.push_str(&format!("{sep}{unfinished}"));
        }
        l
    };
    // What the figures above count, where there is room to say it.
    let over = format!(" · JCT, wait: all {jobs} arrived, {unserved} not started so far");
    let short = format!(" · over all {jobs} arrived");
    let full = line(&format!("unfinished {left}: nothing more happens"), " · ");
    [
        format!("{full}{over}"),
        format!("{full}{short}"),
        line(&format!("unfinished {left}: nothing more happens"), "  ·  "),
        line(&format!("unfinished {left}: no more events"), " · "),
        line(&format!("unfinished {left}"), " · "),
    ]
}

/// Columns a count takes: the digits of the most it can be (the trace's
/// jobs; running: the cluster's GPUs too, sharing aside), so a line keeps
/// its wording and width as the replay goes on.
pub(super) fn count_widths(app: &App) -> (usize, usize) {
    let digits = |n: u64| n.max(1).ilog10() as usize + 1;
    let jobs = app.trace().jobs.len() as u64;
    let gpus = app.trace().cluster.total_gpus();
    (digits(jobs), digits(jobs.min(gpus.max(1))))
}

/// Columns a duration takes (`45m03s`, `19h11m`, `1d13h`).
const SECS_W: usize = 6;

/// The replay's figures in the longest wording that fits `w` columns:
/// every figure shows at 80 columns. Each number takes the columns it can
/// grow to, and the wording is chosen by them, so the line never changes
/// wording or width as the numbers grow. JCT and wait count every job
/// arrived (so far, for those not done or not started: `figures.rs`).
fn figures_line(app: &App, w: usize) -> String {
    let f = &app.sim.figures;
    let (jct, p99) = (
        f.mean_jct.map_or("-".into(), human_secs),
        f.p99_wait.map_or("-".into(), human_secs),
    );
    let (done, running) = (f.done, app.engine().running().len());
    let (dw, rw) = count_widths(app);
    let (done, running) = (format!("{done:>dw$}"), format!("{running:>rw$}"));
    let (jct, p99) = (format!("{jct:>SECS_W$}"), format!("{p99:>SECS_W$}"));
    [
        format!("done {done}  ·  running {running}  ·  JCT so far {jct}  ·  p99 wait {p99}"),
        format!("done {done} · running {running} · JCT so far {jct} · p99 wait {p99}"),
        format!("done {done} · run {running} · JCT so far {jct} · p99 wait {p99}"),
        format!("done {done} · run {running} · JCT {jct} · p99 wait {p99}"),
        format!("done {done} run {running} JCT {jct} p99 wait {p99}"),
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
