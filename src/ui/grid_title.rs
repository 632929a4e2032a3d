//! The grid's words: its title — what a cell is, what its colour means,
//! and for the colour modes that have a scale (utilisation, power) the
//! scale itself, in the longest wording that fits, the colour mode always
//! named — and each GPU type's label line.

use super::app::{App, ColorBy, Zoom};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Span;

/// The title's spans within `room` columns.
pub(crate) fn spans(app: &App, room: usize) -> Vec<Span<'static>> {
    let t = app.theme();
    let slot = app.trace().slot();
    let mode = match app.view.zoom {
        Zoom::Gpus => format!("one cell per {slot}"),
        Zoom::Machines => "one cell per machine".to_string(),
    };
    let (by, short) = match app.view.color_by {
        ColorBy::Job => ("job", "job"),
        ColorBy::User => ("user", "user"),
        ColorBy::Util if app.sim.measured.gpu_util().is_some() => {
            ("utilisation (measured)", "util (measured)")
        }
        ColorBy::Util if app.sim.measured.job_util().is_some() => {
            ("utilisation (sensor)", "util (sensor)")
        }
        ColorBy::Util => ("utilisation (allocated)", "util (allocated)"),
        ColorBy::Power => ("power per GPU", "power"),
    };
    // The scale: a swatch in each of the three colours, where colour shows.
    let scale: Vec<(String, Style)> = match app.view.color_by {
        ColorBy::Util | ColorBy::Power if t.colored => {
            let words = match app.view.color_by {
                ColorBy::Util => ["<34", "<67", "≥67 %"],
                _ => ["<34", "<67", "≥67 % of max W"],
            };
            words
                .iter()
                .zip(t.util)
                .map(|(w, c)| (format!("■{w} "), Style::default().fg(c)))
                .collect()
        }
        _ => Vec::new(),
    };
    let candidates = [
        format!("· {mode} · colour: {by} "),
        format!("· colour: {by} "),
        format!("· {short} "),
    ];
    let scale_w: usize = scale.iter().map(|(s, _)| crate::text::width(s)).sum();
    // Processors (SWF) are the grid's slots.
    let head = if slot == "GPU" { " GPUs " } else { " Slots " };
    // The first wording that fits with the scale, else without it.
    for with_scale in [true, false] {
        let extra = if with_scale { scale_w } else { 0 };
        for c in &candidates {
            if crate::text::width(head) + crate::text::width(c) + extra <= room {
                let mut out = vec![Span::styled(head, t.title), Span::styled(c.clone(), t.dim)];
                if with_scale {
                    out.extend(scale.iter().map(|(s, st)| Span::styled(s.clone(), *st)));
                }
                return out;
            }
        }
    }
    vec![
        Span::styled(head, t.title),
        Span::styled(
            crate::text::fit(&candidates[2], room.saturating_sub(6)),
            t.dim,
        ),
    ]
}

/// A GPU type's line: how many machines, how many GPUs each, how busy.
pub(crate) fn group_label(app: &App, gi: usize, line: Rect, buf: &mut Buffer) {
    let t = app.theme();
    let cluster = app.engine().cluster();
    let trace = app.trace();
    let (ty, range) = &app.sim.facts.groups()[gi];
    let n = range.len();
    let per = trace.cluster.machines[app.sim.facts.machines()[range.start] as usize].gpus;
    let (used, cap): (u64, u64) = range.clone().fold((0, 0), |(u, c), pos| {
        let m = app.sim.facts.machines()[pos];
        let base = cluster.first_gpu(m);
        let gp = cluster.cap(m) as usize;
        (
            u + (0..gp)
                .map(|k| cluster.used_milli(base + k) as u64)
                .sum::<u64>(),
            c + gp as u64 * 1000,
        )
    });
    let name = crate::text::sanitized(&trace.cluster.gpu_types[*ty as usize]).into_owned();
    // In the longest wording that fits, never cut mid-word.
    let (machines, gpus) = (
        crate::trace::count(n as u64, "machine"),
        crate::trace::count(per as u64, trace.slot()),
    );
    let (u, c) = (used as f64 / 1000.0, cap / 1000);
    let label = [
        format!("{name} · {machines} × {gpus} · {u:.0}/{c} busy"),
        format!("{name} · {n} × {per} · {u:.0}/{c} busy"),
        format!("{name} {u:.0}/{c} busy"),
        format!("{name} {u:.0}/{c}"),
    ]
    .into_iter()
    .find(|l| crate::text::width(l) <= line.width as usize)
    .unwrap_or_else(|| crate::text::fit(&name, line.width as usize));
    buf.set_stringn(
        line.x,
        line.y,
        &label,
        line.width as usize,
        t.dim.add_modifier(Modifier::BOLD),
    );
}
