//! The GPU grid: every machine, grouped by GPU type, one cell per GPU (or
//! one per machine when zoomed out), a glyph for how full a cell is, a
//! colour by job, user or utilisation, and never state by colour alone.

use super::app::{App, Zoom};
use super::layout;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

/// Cell glyphs: free, ≤¼, ≤½, <1, full, over capacity, cursor marker.
pub struct Glyphs {
    pub free: char,
    pub shades: [char; 4],
    pub over: char,
    pub marker: char,
}

pub const UNICODE: Glyphs = Glyphs {
    free: '·',
    shades: ['░', '▒', '▓', '█'],
    over: '!',
    marker: '▸',
};
pub const ASCII: Glyphs = Glyphs {
    free: '.',
    shades: ['-', '+', '*', '#'],
    over: '!',
    marker: '>',
};

pub fn glyphs(ascii: bool) -> &'static Glyphs {
    if ascii {
        &ASCII
    } else {
        &UNICODE
    }
}

/// The glyph for `used` thousandths of `cap` thousandths.
pub(crate) fn shade(g: &Glyphs, used: u64, cap: u64) -> char {
    if used == 0 || cap == 0 {
        g.free
    } else if used > cap {
        g.over
    } else if used * 4 <= cap {
        g.shades[0]
    } else if used * 2 <= cap {
        g.shades[1]
    } else if used < cap {
        g.shades[2]
    } else {
        g.shades[3]
    }
}

/// A machine's place: index into `App::machines`, column, and row from the top.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placed {
    pub pos: usize,
    pub x: u16,
    pub row: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GridLayout {
    pub cells: Vec<Placed>,
    /// (row, group index)
    pub labels: Vec<(usize, usize)>,
    pub rows: usize,
    /// Columns per GPU cell (2 when the cluster is small enough to use the space).
    pub cell_w: u16,
}

impl GridLayout {
    /// Whether everything fits in `height` rows.
    pub fn fits(&self, height: u16) -> bool {
        self.rows <= height as usize
    }

    pub(crate) fn row_of(&self, pos: usize) -> Option<usize> {
        self.cells.get(pos).map(|p| p.row)
    }

    /// The machine drawn at a screen cell of the grid's inner area.
    pub(crate) fn machine_at(
        &self,
        app: &App,
        inner: Rect,
        scroll: usize,
        column: u16,
        row: u16,
    ) -> Option<usize> {
        if !inner.contains((column, row).into()) {
            return None;
        }
        // Rows drawn taller in `L` take as many lines each.
        let tall = tall_rows(app, self.rows, inner.height);
        let r = (row - inner.y) as usize / tall + scroll;
        let c = column - inner.x;
        self.cells
            .iter()
            .find(|p| p.row == r && c >= p.x && c < p.x + width(app, p.pos, self.cell_w))
            .map(|p| p.pos)
    }
}

/// Columns one machine takes: a marker column and its GPUs, or one cell.
fn width(app: &App, pos: usize, cell_w: u16) -> u16 {
    match app.view.zoom {
        Zoom::Gpus => {
            1 + cell_w
                * app.trace().cluster.machines[app.sim.facts.machines()[pos] as usize].gpus as u16
        }
        Zoom::Machines => 1,
    }
}

/// Flows each group's machines into rows under a label line, with `gap`
/// blank rows between machine rows.
fn flow(app: &App, inner: Rect, cell_w: u16, gap: usize) -> GridLayout {
    let mut out = GridLayout {
        cell_w,
        ..GridLayout::default()
    };
    out.cells.reserve(app.sim.facts.machines().len());
    let mut row = 0;
    for (gi, (_, range)) in app.sim.facts.groups().iter().enumerate() {
        out.labels.push((row, gi));
        row += 1;
        let mut x = 0u16;
        for pos in range.clone() {
            let w = width(app, pos, cell_w);
            if x > 0 && x + w > inner.width {
                row += 1 + gap;
                x = 0;
            }
            out.cells.push(Placed { pos, x, row });
            x += w;
        }
        row += 1 + gap;
    }
    out.rows = row;
    out
}

/// The grid's layout: in GPU mode, wide spaced cells when a small cluster
/// leaves room for them, else one column per GPU.
pub fn layout(app: &App, inner: Rect) -> GridLayout {
    if app.view.zoom == Zoom::Gpus {
        // The lecture layout tries cells three wide first: seen from the back.
        // The lecture layout scales the cells up to fill the pane (seen
        // from the back of the room): the widest that fits.
        let wide: &[(u16, usize)] = if app.view.lecture.on {
            &[
                (8, 1),
                (6, 1),
                (5, 1),
                (4, 1),
                (3, 1),
                (3, 0),
                (2, 1),
                (2, 0),
            ]
        } else {
            &[(2, 1), (2, 0)]
        };
        for &(cell_w, gap) in wide {
            let l = flow(app, inner, cell_w, gap);
            // Every machine whole on its row, and every row on screen.
            let widest = (0..app.sim.facts.machines().len())
                .map(|p| width(app, p, cell_w))
                .max();
            if l.fits(inner.height) && widest.is_none_or(|w| w <= inner.width) {
                return l;
            }
        }
    }
    flow(app, inner, 1, 0)
}

/// Lines each grid row takes: in `L`, as many as `height` holds for all
/// `rows` (one to eight); else one.
pub(crate) fn tall_rows(app: &App, rows: usize, height: u16) -> usize {
    if !app.view.lecture.on || rows == 0 {
        return 1;
    }
    (height as usize / rows).clamp(1, 8)
}

fn largest(holders: &[(u32, u16)]) -> Option<u32> {
    holders
        .iter()
        .max_by_key(|h| (h.1, std::cmp::Reverse(h.0)))
        .map(|h| h.0)
}

/// Draws the grid (a bordered block) into `area`: the frame, a label line
/// per GPU type, the cells of each machine, and how far it is scrolled.
pub fn draw(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme();
    frame(app, area, buf);
    let inner = layout::inner(area);
    let lay = layout(app, inner);
    let scroll = app
        .view
        .selection
        .grid_scroll()
        .min(lay.rows.saturating_sub(1));
    // In `L` each row is drawn as many lines tall as the pane allows (up
    // to eight), so a small cluster fills the screen seen from the back.
    let tall = tall_rows(app, lay.rows, inner.height);
    let visible = |row: usize| row >= scroll && (row - scroll + 1) * tall <= inner.height as usize;
    let y_of = |row: usize| inner.y + ((row - scroll) * tall) as u16;
    for &(row, gi) in &lay.labels {
        if visible(row) {
            super::grid_title::group_label(
                app,
                gi,
                Rect::new(inner.x, y_of(row), inner.width, 1),
                buf,
            );
        }
    }
    if lay.labels.is_empty() {
        buf.set_stringn(
            inner.x,
            inner.y,
            "no machines with GPUs",
            inner.width as usize,
            t.dim,
        );
    }
    let cursor_m = app.sim.facts.machine(app.view.selection.cursor());
    // Backfill's reservation: its machines marked `R`.
    let reserved = app.engine().reserved().map_or(Vec::new(), |r| r.machines);
    for p in &lay.cells {
        if !visible(p.row) {
            continue;
        }
        let m = app.sim.facts.machines()[p.pos];
        for line in 0..tall as u16 {
            let at = At {
                machine: m,
                x: inner.x + p.x,
                y: y_of(p.row) + line,
                cursor: Some(m) == cursor_m,
                reserved: reserved.contains(&m),
            };
            match app.view.zoom {
                Zoom::Gpus => gpu_cells(app, &at, lay.cell_w, inner.x + inner.width, buf),
                Zoom::Machines => machine_cell(app, &at, buf),
            }
        }
    }
    if lay.rows > inner.height as usize && inner.height > 0 {
        let more = format!(
            " ↓ {}/{} rows ",
            (scroll + inner.height as usize).min(lay.rows),
            lay.rows
        );
        let x = area.x
            + area
                .width
                .saturating_sub(crate::text::width(&more) as u16 + 1);
        buf.set_string(x, area.y, more, t.dim);
    }
}

/// The border, titled with the zoom and the colouring, and the cursor's
/// machine at the bottom.
fn frame(app: &App, area: Rect, buf: &mut Buffer) {
    let t = app.theme();
    let g = glyphs(app.view.look.ascii());
    let cluster = app.engine().cluster();
    let trace = app.trace();
    let mut status = String::new();
    if let Some(m) = app.sim.facts.machine(app.view.selection.cursor()) {
        let mach = &trace.cluster.machines[m as usize];
        let base = cluster.first_gpu(m);
        let used: u32 = (0..mach.gpus as usize)
            .map(|k| cluster.used_milli(base + k))
            .sum();
        // The figures whole; the machine's name gives way.
        let rest = format!(
            " · {} · {:.2} in use ",
            crate::trace::count(mach.gpus as u64, app.trace().slot()),
            used as f64 / 1000.0
        );
        let room = (area.width as usize)
            .saturating_sub(2 + 3 + crate::text::width(&rest))
            .max(4);
        let name = crate::text::fit(&crate::text::sanitized(&mach.name), room);
        status = format!(" {} {name}{rest}", g.marker);
    }
    let focused = app.view.focus == super::app::Focus::Grid;
    let c = app.chrome();
    c.pane(focused)
        .title(c.focus_title(
            focused,
            // Within the corners, and the focus mark.
            super::grid_title::spans(app, area.width.saturating_sub(4) as usize),
        ))
        .title_bottom(
            // Within the border: the corners stay.
            Line::from(Span::styled(
                crate::text::fit(&status, area.width.saturating_sub(2) as usize),
                t.dim,
            ))
            .right_aligned(),
        )
        .render(area, buf);
}

/// Where a machine is drawn, and whether the cursor is on it.
struct At {
    machine: u32,
    x: u16,
    y: u16,
    cursor: bool,
    /// In the backfill reservation's plan.
    reserved: bool,
}

/// One machine, one cell per GPU (`cell_w` columns each) after a marker
/// column, clipped at column `right`.
fn gpu_cells(app: &App, at: &At, cell_w: u16, right: u16, buf: &mut Buffer) {
    let t = app.theme();
    let g = glyphs(app.view.look.ascii());
    let cluster = app.engine().cluster();
    let base = cluster.first_gpu(at.machine);
    let marker = match (at.cursor, at.reserved) {
        (true, _) => g.marker,
        (false, true) => 'R',
        _ => ' ',
    };
    buf.set_string(
        at.x,
        at.y,
        marker.to_string(),
        if at.cursor {
            t.accent.add_modifier(Modifier::BOLD)
        } else {
            t.text
        },
    );
    for k in 0..cluster.cap(at.machine) as usize {
        let flat = base + k;
        let used = cluster.used_milli(flat) as u64;
        let ch = shade(g, used, 1000);
        let mut style = if used > 1000 {
            t.error
        } else {
            super::grid_style::holder_style(
                app,
                largest(cluster.holders(flat)),
                used as f64 / 1000.0,
                app.sim.measured.gpu_mean(flat, 1),
            )
        };
        if at.cursor {
            style = cursor_style(style);
        }
        let cx = at.x + 1 + cell_w * k as u16;
        if cx + cell_w <= right {
            let text = cell_text(
                app,
                ch,
                cell_w,
                flat,
                k + 1 < cluster.cap(at.machine) as usize,
            );
            buf.set_string(cx, at.y, text, style);
        }
    }
    if app.view.lecture.on && cell_w >= 4 {
        label_runs(app, at, cell_w, right, buf);
    }
}

/// The lecture layout's wide cells: each run of whole GPUs one job holds
/// on the machine is labelled with the job's id, as much as fits, in
/// reverse video over its cells.
fn label_runs(app: &App, at: &At, cell_w: u16, right: u16, buf: &mut Buffer) {
    let c = app.engine().cluster();
    let (base, cap) = (c.first_gpu(at.machine), c.cap(at.machine) as usize);
    let whole = |k: usize| c.used_milli(base + k) == 1000;
    let mut k = 0;
    while k < cap {
        let job = largest(c.holders(base + k)).filter(|_| whole(k));
        let end = (k..cap)
            .find(|&i| !whole(i) || largest(c.holders(base + i)) != job)
            .unwrap_or(cap);
        if let Some(j) = job {
            let x = at.x + 1 + cell_w * k as u16;
            let w = ((end - k) as u16 * cell_w)
                .saturating_sub(1)
                .min(right.saturating_sub(x)) as usize;
            let id = crate::text::fit(&crate::text::sanitized(&app.trace().jobs[j as usize].id), w);
            let style = buf[(x, at.y)]
                .style()
                .add_modifier(Modifier::REVERSED | Modifier::BOLD);
            buf.set_stringn(x, at.y, id, w, style);
        }
        k = end.max(k + 1);
    }
}

/// A cell's style under the cursor: never what the cell shows changed —
/// its glyph, its job's colour and its background stay, so a busy GPU
/// still looks busy and a free one free, on a projector too (the theme's
/// cursor colours or reverse video turned busy block cells into blanks and
/// free ones into a solid bar). It is bold and underlined; the marker
/// column (`▸`) and the grid's title name the machine.
fn cursor_style(style: Style) -> Style {
    style.add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
}

/// A GPU cell's text. Without colour, where jobs cannot be told apart by
/// it, a wide whole-GPU cell ends in `▌` when the next GPU is not the same
/// job's: a 16-GPU job is one bar, sixteen 1-GPU jobs sixteen.
fn cell_text(app: &App, ch: char, cell_w: u16, flat: usize, more: bool) -> String {
    let g = glyphs(app.view.look.ascii());
    let t = app.theme();
    if t.colored || cell_w < 2 || ch != g.shades[3] {
        return ch.to_string().repeat(cell_w as usize);
    }
    let c = app.engine().cluster();
    let same_next = more && largest(c.holders(flat + 1)) == largest(c.holders(flat));
    let end = if app.view.look.ascii() { ']' } else { '▌' };
    let mut s = ch.to_string().repeat(cell_w as usize - 1);
    s.push(if same_next { ch } else { end });
    s
}

/// One machine as one cell, shaded by how much of it is in use, coloured
/// by its largest holder.
fn machine_cell(app: &App, at: &At, buf: &mut Buffer) {
    let t = app.theme();
    let g = glyphs(app.view.look.ascii());
    let cluster = app.engine().cluster();
    let base = cluster.first_gpu(at.machine);
    let gpus = cluster.cap(at.machine) as usize;
    let mut used = 0u64;
    let mut by_job: Vec<(u32, u64)> = Vec::new();
    for k in 0..gpus {
        used += cluster.used_milli(base + k) as u64;
        for &(j, mi) in cluster.holders(base + k) {
            match by_job.iter_mut().find(|e| e.0 == j) {
                Some(e) => e.1 += mi as u64,
                None => by_job.push((j, mi as u64)),
            }
        }
    }
    let cap = gpus as u64 * 1000;
    let ch = shade(g, used, cap);
    let top = by_job
        .iter()
        .max_by_key(|e| (e.1, std::cmp::Reverse(e.0)))
        .map(|e| e.0);
    let mut style = if used > cap {
        t.error
    } else {
        super::grid_style::holder_style(
            app,
            top,
            used as f64 / cap.max(1) as f64,
            app.sim.measured.gpu_mean(base, gpus),
        )
    };
    if app
        .view
        .selection
        .selected()
        .is_some_and(|s| by_job.iter().any(|e| e.0 == s))
    {
        style = style.add_modifier(t.selected.add_modifier);
    }
    if at.cursor {
        style = cursor_style(style);
    }
    buf.set_string(at.x, at.y, ch.to_string(), style);
}
