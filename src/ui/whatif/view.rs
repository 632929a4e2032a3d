//! The what-if table: a row per run, columns by priority to fit, and
//! each row's CDFs (`cdf.rs`).

use super::WhatIf;
use crate::sim::{Report, WhatIfRun};
use crate::trace::human_secs;
use crate::ui::app::App;
use crate::ui::layout::centered;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;

/// A column of the table: its header, width, the order in which columns
/// give way on narrow screens (lower stays longer), and its figure.
struct Col {
    head: &'static str,
    width: usize,
    rank: u8,
    value: fn(&Report) -> String,
}

fn secs(v: Option<f64>) -> String {
    v.map_or("-".to_string(), human_secs)
}

/// Every column, in the order shown.
const COLS: [Col; 12] = [
    Col {
        head: "JCT mean",
        width: 9,
        rank: 0,
        value: |r| secs(r.jct_s.mean),
    },
    Col {
        head: "p50 JCT",
        width: 9,
        rank: 9,
        value: |r| secs(r.jct_s.p50),
    },
    Col {
        head: "p99 JCT",
        width: 9,
        rank: 7,
        value: |r| secs(r.jct_s.p99),
    },
    Col {
        head: "wait mean",
        width: 10,
        rank: 1,
        value: |r| secs(r.wait_s.mean),
    },
    Col {
        head: "p99 wait",
        width: 9,
        rank: 2,
        value: |r| secs(r.wait_s.p99),
    },
    Col {
        head: "makespan",
        width: 10,
        rank: 3,
        value: |r| r.makespan_s.map_or("-".into(), |m| human_secs(m as f64)),
    },
    Col {
        head: "util",
        width: 7,
        rank: 4,
        value: |r| {
            r.gpu_util
                .map_or("-".into(), |u| format!("{:.1}%", u * 100.0))
        },
    },
    Col {
        head: "preempt",
        width: 8,
        rank: 6,
        value: |r| r.preemptions.to_string(),
    },
    Col {
        head: "dl met",
        width: 8,
        rank: 5,
        value: |r| {
            r.deadline_met
                .map_or("-".into(), |d| format!("{:.1}%", d * 100.0))
        },
    },
    Col {
        head: "unfin",
        width: 7,
        rank: 1,
        value: |r| r.jobs_unfinished.to_string(),
    },
    Col {
        head: "drop",
        width: 6,
        rank: 1,
        value: |r| r.jobs_dropped.to_string(),
    },
    Col {
        head: "kWh",
        width: 9,
        rank: 5,
        value: |r| r.energy_kwh.map_or("-".into(), |e| format!("{e:.1}")),
    },
];

/// The width of a row's name (marker, live dot, label).
const NAME_W: usize = 16;

/// The columns that fit `width` (the optional ones only where some result
/// has them), most telling first, shown in table order; and how many were
/// left out for want of room.
fn columns(w: &WhatIf, width: usize) -> (Vec<&'static Col>, usize) {
    let any = |f: fn(&Report) -> bool| w.rows.iter().any(|r| r.1.as_ref().is_some_and(f));
    let (deadlines, energy, unfinished, dropped) = (
        any(|r| r.deadline_met.is_some()),
        any(|r| r.energy_kwh.is_some()),
        any(|r| r.jobs_unfinished > 0),
        any(|r| r.jobs_dropped > 0),
    );
    let mut by_rank: Vec<(usize, &Col)> = COLS
        .iter()
        .enumerate()
        .filter(|(_, c)| match c.head {
            "dl met" => deadlines,
            "kWh" => energy,
            "unfin" => unfinished,
            "drop" => dropped,
            _ => true,
        })
        .collect();
    by_rank.sort_by_key(|(i, c)| (c.rank, *i));
    let available = by_rank.len();
    let mut used = NAME_W;
    let mut chosen: Vec<(usize, &Col)> = Vec::new();
    for (i, c) in by_rank {
        if used + c.width <= width {
            used += c.width;
            chosen.push((i, c));
        }
    }
    chosen.sort_by_key(|(i, _)| *i);
    let left_out = available - chosen.len();
    (chosen.into_iter().map(|(_, c)| c).collect(), left_out)
}

/// The comparison table, one row per run.
pub(crate) fn draw(app: &App, area: Rect, buf: &mut Buffer, at: usize, charts: bool) {
    let Some(w) = &app.sim.whatif else { return };
    if charts {
        return draw_charts(app, w, area, buf, at);
    }
    let t = app.theme();
    let full: usize = NAME_W
        + columns(w, usize::MAX)
            .0
            .iter()
            .map(|c| c.width)
            .sum::<usize>();
    let box_w = area.width.saturating_sub(4).min(full as u16 + 2);
    let (cols, hidden) = columns(w, box_w.saturating_sub(2) as usize);
    let foot = foot_lines(app, w, hidden, box_w.saturating_sub(2) as usize);
    let table_h = w.rows.len() as u16 + 4 + foot.len() as u16;
    // The CDFs under the table where the screen has room for them.
    let room = area.height.saturating_sub(table_h + 2);
    let charts_h = if room > crate::ui::cdf::MIN_HEIGHT {
        room.min(22)
    } else {
        0
    };
    let r = centered(area, box_w, table_h + charts_h);
    let title = format!(
        "what if from {} · enter switches · esc closes (runs go on)",
        app.clock(w.at)
    );
    let inner = app.chrome().popup(r, buf, &title);
    buf.set_stringn(inner.x, inner.y, head(&cols), inner.width as usize, t.dim);
    draw_rows(app, w, &cols, inner, buf, at);
    for (k, line) in foot.iter().enumerate() {
        let y = inner.y + w.rows.len() as u16 + 2 + k as u16;
        if y < inner.bottom() {
            buf.set_stringn(inner.x, y, line, inner.width as usize, t.dim);
        }
    }
    if charts_h > 0 {
        let y = inner.y + w.rows.len() as u16 + 3 + foot.len() as u16;
        let below = Rect::new(inner.x, y, inner.width, inner.bottom().saturating_sub(y));
        crate::ui::cdf::draw(app, w, below, buf, at);
    }
}

/// The lines under the table, wrapped to `width`: how many runs are done,
/// what the marks mean, the key for the CDFs, and each policy's caveat.
fn foot_lines(app: &App, w: &WhatIf, hidden: usize, width: usize) -> Vec<String> {
    let done = w.rows.iter().filter(|r| r.1.is_some()).count();
    let key = app.view.keymap.first(crate::ui::keymap::Command::ColorBy);
    // What a policy's row means on this trace (fair without users).
    let notes: String = w
        .runs
        .iter()
        .filter_map(|r| match r {
            crate::sim::WhatIfRun::Policy(p) => {
                let c = p.caveat(app.trace(), app.engine().tuning())?;
                Some(format!(" · {}: {c}", p.label()))
            }
            _ => None,
        })
        .collect();
    let foot = format!(
        "{done} of {} done · bold: lowest mean JCT · ● the live policy · each row runs from this state to the end · {key}: the JCT and wait CDFs (the chosen row's curve on top){}{notes}",
        w.rows.len(),
        if hidden > 0 { " · a wider window shows more columns" } else { "" }
    );
    crate::text::wrap_words(&foot, width, 0)
}

/// The table's rows under its header in `inner`: each run's progress or
/// figures, the lowest mean JCT in bold, the chosen row (`at`) marked.
fn draw_rows(app: &App, w: &WhatIf, cols: &[&Col], inner: Rect, buf: &mut Buffer, at: usize) {
    let t = app.theme();
    let best_jct = w
        .rows
        .iter()
        .filter_map(|r| r.1.as_ref().and_then(|r| r.jct_s.mean))
        .fold(None, |b: Option<f64>, x| Some(b.map_or(x, |b| b.min(x))));
    for (i, (run, (progress, rep))) in w.runs.iter().zip(&w.rows).enumerate() {
        let name = row_name(app, run, rep.as_ref(), i == at);
        let text = match (rep, w.same_as(i)) {
            (None, _) => progress_text(&name, *progress, app.view.look.ascii()),
            (Some(_), Some(k)) => format!(
                "{name}   = {}: the same results, job for job",
                label_of(&w.runs[k])
            ),
            (Some(r), None) => result_text(&name, r, cols),
        };
        let mut style = t.text;
        if rep
            .as_ref()
            .is_some_and(|r| r.jct_s.mean.is_some() && r.jct_s.mean == best_jct)
        {
            style = style.add_modifier(Modifier::BOLD);
        }
        if i == at {
            style = style.patch(t.cursor);
        }
        let y = inner.y + 1 + i as u16;
        buf.set_stringn(inner.x, y, text, inner.width as usize, style);
    }
}

/// A row's name column: the chosen row's marker, the live policy's dot,
/// the run's label (a failed one said so).
fn row_name(app: &App, run: &WhatIfRun, rep: Option<&Report>, chosen: bool) -> String {
    // A policy by its short label (an external one by the name it gave).
    let mut label = label_of(run);
    if rep.is_some_and(|r| r.failed.is_some()) {
        // Its figures are the fallback's from where it failed (logged).
        label.push_str(" (failed)");
    }
    let marker = crate::ui::grid::glyphs(app.view.look.ascii()).marker;
    let lead = if chosen { marker } else { ' ' };
    let current = app.engine().policy();
    let live = matches!(run, WhatIfRun::Policy(p) if *p == current);
    let now = if live { "●" } else { " " };
    format!("{lead}{now}{}", crate::text::padded(label, 14))
}

/// The CDFs alone, as big as the screen allows.
fn draw_charts(app: &App, w: &WhatIf, area: Rect, buf: &mut Buffer, at: usize) {
    let done = w.rows.iter().filter(|r| r.1.is_some()).count();
    let key = app.view.keymap.first(crate::ui::keymap::Command::ColorBy);
    let title = format!(
        "what if from {} · CDFs, {done} of {} runs · {key} table · esc closes",
        app.clock(w.at),
        w.rows.len()
    );
    let r = Rect::new(
        area.x + 1,
        area.y + 1,
        area.width.saturating_sub(2),
        area.height.saturating_sub(2),
    );
    let inner = app.chrome().popup(r, buf, &title);
    crate::ui::cdf::draw(app, w, inner, buf, at);
}

/// A run's name in the table.
fn label_of(run: &crate::sim::WhatIfRun) -> String {
    match run {
        crate::sim::WhatIfRun::Policy(p) => p.label().to_string(),
        other => other.label(),
    }
}

/// The header line.
fn head(cols: &[&Col]) -> String {
    let mut head = format!("  {:<14}", "policy");
    for c in cols {
        head.push_str(&format!("{:>w$}", c.head, w = c.width));
    }
    head
}

/// A row still running: a progress bar.
fn progress_text(name: &str, progress: f64, ascii: bool) -> String {
    let n = 30usize;
    let done = (progress * n as f64).round() as usize;
    let (full, empty) = if ascii { ('#', '.') } else { ('█', '·') };
    format!(
        "{name} {}{} {:>3.0} %",
        full.to_string().repeat(done),
        empty.to_string().repeat(n - done),
        progress * 100.0
    )
}

/// A finished row: its figures.
fn result_text(name: &str, r: &Report, cols: &[&Col]) -> String {
    let mut s = name.to_string();
    for c in cols {
        s.push_str(&format!("{:>w$}", (c.value)(r), w = c.width));
    }
    s
}
