//! The rankings table (`u`): a box over the replay, the name column then
//! the numbers right-aligned, the sorted column marked, the chosen row
//! marked with a glyph too (NO_COLOR).

use super::{window, RankBy, RankRow};
use crate::sim::MachineUses;
use crate::ui::app::App;
use crate::ui::layout::centered;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

/// The rankings of `by`, sorted by column `sort`, row `at` chosen: a box
/// over the replay, its header line, the rows that fit, where they stand.
pub(crate) fn draw(app: &App, area: Rect, buf: &mut Buffer, by: RankBy, sort: usize, at: usize) {
    let t = app.theme();
    let rows = app.rank_rows(by, sort);
    let high = (rows.len() as u16 + 5)
        .max(8)
        .min(area.height.saturating_sub(4));
    let r = centered(area, area.width.saturating_sub(4).min(100), high);
    let title = title(by, sort, r.width.saturating_sub(4) as usize);
    let inner = app.chrome().popup(r, buf, &title);
    let w = inner.width as usize;
    let cols = by.columns();
    // Numbers take 10 columns each (a machine's type 8); the name the rest.
    let widths: Vec<usize> = cols
        .iter()
        .map(|c| if *c == "type" { 8 } else { 9 })
        .collect();
    let name_w = w.saturating_sub(2 + widths.iter().sum::<usize>()).max(8);
    let line =
        |lead: &str, name: &str, cells: &[String]| row_text(lead, name, cells, &widths, name_w);
    let heads = heads(cols, by.sort_of(sort));
    let what = match by {
        RankBy::Users => "user",
        RankBy::Groups => "group",
        RankBy::Machines | RankBy::MachinesIn(_) => "machine",
    };
    buf.set_stringn(inner.x, inner.y, line(" ", what, &heads), w, t.title);
    if rows.is_empty() {
        buf.set_stringn(
            inner.x,
            inner.y + 2,
            if by.machines() {
                "  no such machine now"
            } else {
                "  nothing running or waiting now"
            },
            w,
            t.dim,
        );
        return;
    }
    let at = at.min(rows.len() - 1);
    let (first, shown) = window((area.width, area.height), rows.len(), at);
    let marker = crate::ui::grid::glyphs(app.view.look.ascii())
        .marker
        .to_string();
    for (k, row) in rows.iter().enumerate().skip(first).take(shown) {
        let y = inner.y + 1 + (k - first) as u16;
        let (lead, style) = if k == at {
            (marker.as_str(), t.cursor)
        } else {
            (" ", t.text)
        };
        buf.set_stringn(inner.x, y, line(lead, &row.name, &row.cells), w, style);
    }
    let uses = app.engine().cluster().machine_uses();
    let foot = foot(&rows, by, first, shown, uses);
    buf.set_stringn(inner.x, inner.bottom().saturating_sub(1), foot, w, t.dim);
}

/// The box's title in the most words that fit `room` columns: what is
/// ranked, by which column, and the keys.
fn title(by: RankBy, sort: usize, room: usize) -> String {
    let (col, turned) = by.sort_of(sort);
    let sorted = format!(
        "{}{}",
        by.columns().get(col).copied().unwrap_or(""),
        if turned { " ↑" } else { "" }
    );
    let enter = if by.machines() { "go there" } else { "filter" };
    let (sides, short) = match by {
        RankBy::MachinesIn(_) => ("idle, partly used, full", "idle/partly/full"),
        _ => ("users, groups, machines", "users/groups/machines"),
    };
    [
        format!(
            "{} by {sorted} · ←→ {sides} · s sorts · enter {enter} · esc",
            by.name()
        ),
        format!(
            "{} by {sorted} · ←→ {short} · s sort · enter {enter}",
            by.name()
        ),
        format!("{} by {sorted} · ←→ · s sort · enter {enter}", by.name()),
    ]
    .into_iter()
    .find(|t| crate::text::width(t) <= room)
    .unwrap_or_else(|| crate::text::fit(&format!("{} by {sorted}", by.name()), room))
}

/// The column heads, the sorted one marked `▼` (largest first) or `▲`.
fn heads(cols: &[&str], (sort, turned): (usize, bool)) -> Vec<String> {
    cols.iter()
        .enumerate()
        .map(|(i, c)| match (i == sort, turned) {
            (true, false) => format!("▼{c}"),
            (true, true) => format!("▲{c}"),
            _ => c.to_string(),
        })
        .collect()
}

/// A line of the table: its lead (the chosen row's marker), the name in
/// `name_w` columns, then each cell right-aligned in its width.
fn row_text(lead: &str, name: &str, cells: &[String], widths: &[usize], name_w: usize) -> String {
    let mut s = format!(
        "{lead} {}",
        crate::text::padded(crate::text::fit(name, name_w), name_w)
    );
    for (c, cw) in cells.iter().zip(widths) {
        s.push_str(&format!("{:>cw$}", crate::text::fit(c, cw - 1), cw = cw));
    }
    s
}

/// Where the list stands, what the trace has no names for, and the
/// machines by state.
fn foot(rows: &[RankRow], by: RankBy, first: usize, shown: usize, n: MachineUses) -> String {
    let end = (first + shown).min(rows.len());
    let mut s = format!("{}–{} of {} {}", first + 1, end, rows.len(), by.name());
    if !by.machines() && rows.len() == 1 && rows[0].name == "(none)" {
        s.push_str(&format!(" · this trace names no {}", by.name()));
    }
    if by.machines() {
        let of = if by.only().is_some() {
            format!(" · of {}:", n.total())
        } else {
            " ·".to_string()
        };
        s.push_str(&format!(
            "{of} {} idle, {} partly used, {} full",
            n.idle, n.partly, n.full
        ));
    }
    s
}
