//! The lecture layout's own line: the headline figures, bold and spaced
//! for the back of the room, where the metrics strip is otherwise.

use crate::trace::human_secs;
use crate::ui::app::App;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};

/// The lecture layout's headline: queue, mean wait and utilisation, bold
/// and spaced for the back of the room.
pub(crate) fn headline(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme();
    let (e, f) = (app.engine(), &app.sim.figures);
    let wait = f.mean_wait.map_or("-".into(), human_secs);
    let big = t.title.add_modifier(Modifier::BOLD);
    let mut parts = vec![
        ("QUEUE", e.queue_len().to_string()),
        ("MEAN WAIT", wait),
        ("UTIL", format!("{:.0} %", e.busy_percent())),
        ("DONE", f.done.to_string()),
    ];
    // With deadlines, how many are met of those decided so far.
    if let Some((met, counted)) = e
        .deadline_counts()
        .filter(|_| app.sim.facts.has_deadlines())
    {
        parts.push(("MET", format!("{met} of {counted}")));
    }
    let mut spans = Vec::new();
    for (k, v) in parts {
        spans.push(Span::styled(
            format!("  {k} "),
            t.dim.add_modifier(Modifier::BOLD),
        ));
        spans.push(Span::styled(
            format!("{v}  "),
            big.add_modifier(Modifier::REVERSED),
        ));
    }
    buf.set_line(area.x, area.y, &Line::from(spans), area.width);
}
