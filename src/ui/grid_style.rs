//! A grid cell's colour: by job, by user, by measured (or allocated)
//! utilisation, or by power; dimmed outside the lists' filter.

use super::app::{App, ColorBy};
use ratatui::style::Style;

/// The style of a cell held by `job` (the largest holder) at `frac` full,
/// with the GPUs' measured utilisation where known.
pub(super) fn holder_style(app: &App, job: Option<u32>, frac: f64, gpu_util: Option<f64>) -> Style {
    let t = app.theme();
    let trace = app.trace();
    // Outside the lists' filter: dimmed, whatever the colouring.
    if let (Some(f), Some(j)) = (&app.view.filter, job) {
        if !f.matches(app.trace(), app.engine(), j) {
            return t.dim;
        }
    }
    let fg = match (app.view.color_by, job) {
        (_, None) => return t.free,
        (ColorBy::Job, Some(j)) => t.palette(j as u64),
        (ColorBy::User, Some(j)) => match trace.jobs[j as usize].user {
            Some(u) => t.palette(u.index() as u64 ^ 0xA5A5_5A5A),
            None => t.palette(j as u64),
        },
        (ColorBy::Util, Some(j)) => {
            // Per GPU: a sensor reads per instance (100 = one GPU), so an
            // instance of 4 GPUs reading 342 % keeps each at 85 %.
            let job_util = app
                .sim
                .measured
                .job_util_of(&trace.jobs[j as usize])
                .map(|(u, per)| u / per.max(1.0));
            let u = gpu_util.or(job_util);
            t.util_color(u.map_or(frac, |u| u / 100.0))
        }
        (ColorBy::Power, Some(j)) => {
            let e = app.engine();
            match (e.draw_of(j), e.max_watts()) {
                (Some(d), Some(max)) if max > 0.0 => t.util_color(d.watts / max),
                _ => t.util_color(frac),
            }
        }
    };
    let mut s = t.text.fg(fg);
    if job.is_some() && job == app.view.selection.selected() {
        // Bold and underlined, keeping the cell's colour (which carries meaning).
        s = s.add_modifier(t.selected.add_modifier);
    }
    s
}
