//! The grid's title: what a cell is, what its colour means, and for the
//! colour modes that have a scale (utilisation, power) the scale itself —
//! in the longest wording that fits, the colour mode always named.

use super::app::{App, ColorBy, Zoom};
use ratatui::style::Style;
use ratatui::text::Span;

/// The title's spans within `room` columns.
pub(crate) fn spans(app: &App, room: usize) -> Vec<Span<'static>> {
    let t = app.theme();
    let mode = match app.view.zoom {
        Zoom::Gpus => "one cell per GPU",
        Zoom::Machines => "one cell per machine",
    };
    let (by, short) = match app.view.color_by {
        ColorBy::Job => ("job", "job"),
        ColorBy::User => ("user", "user"),
        ColorBy::Util if app.sim.gpu_util.is_some() => {
            ("utilisation (measured)", "util (measured)")
        }
        ColorBy::Util if app.sim.job_util.is_some() => ("utilisation (sensor)", "util (sensor)"),
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
    let head = " GPUs ";
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
