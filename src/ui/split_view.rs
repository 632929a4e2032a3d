//! Drawing the A/B split: two panes side by side, each with its policy,
//! headline figures, a compact grid (a cell per GPU, or per machine when
//! the cluster does not fit) and the head of its queue. A job in a
//! different state on the other side is marked with a glyph (never by
//! colour alone): on the grid, the GPUs of a job that runs only on this
//! side; in the queue, a job the other side has started or finished.

use super::app::App;
use super::grid::{glyphs, shade};
use super::split::{differs, running_only_here};
use crate::sim::{ClusterState, Engine};
use crate::trace::human_secs;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Span;
use ratatui::widgets::Widget;

/// The mark of a job in a different state on the other side.
pub(super) fn differ_glyph(ascii: bool) -> char {
    if ascii {
        'x'
    } else {
        '◆'
    }
}

/// One side: its engine, the other side's, and what its pane says.
struct Side<'a> {
    here: &'a Engine,
    there: &'a Engine,
    title: String,
    figures: &'a super::figures::Figures,
}

/// Both sides into `area` (the grid and the lists' place), A on the left.
pub(super) fn draw(app: &App, area: Rect, buf: &mut Buffer) {
    let Some(s) = app.split() else { return };
    let a = app.engine();
    let b = s.replay().engine();
    let left_w = area.width / 2;
    let left = Rect::new(area.x, area.y, left_w, area.height);
    let right = Rect::new(area.x + left_w, area.y, area.width - left_w, area.height);
    // Comparing placements, each side names its own.
    let placed = |e: &crate::sim::Engine| match s.placement {
        Some(_) => format!(" · {}", e.placement().name()),
        None => String::new(),
    };
    let a_title = format!("A · {}{} (live)", a.policy().label(), placed(a));
    let b_policy = if b.policy() == s.policy() {
        format!("{}{}", s.policy().label(), placed(b))
    } else {
        // It failed and fell back (logged).
        format!(
            "{} (now {}){}",
            s.policy().label(),
            b.policy().label(),
            placed(b)
        )
    };
    // The moment B took its own way, shortened to fit.
    let room = (left.width as usize).saturating_sub(4);
    let full = app.clock(s.since());
    // The time of day (`12:04:00`), wherever the clock puts it.
    let short = full
        .split(' ')
        .find(|w| w.contains(':'))
        .unwrap_or("")
        .to_string();
    let b_title = [
        format!("B · {b_policy} since {full}"),
        format!("B · {b_policy} since {short}"),
    ]
    .into_iter()
    .find(|t| crate::text::width(t) <= room)
    .unwrap_or(format!("B · {b_policy}"));
    let sides = [
        (
            left,
            Side {
                here: a,
                there: b,
                title: a_title,
                figures: &app.sim.figures,
            },
        ),
        (
            right,
            Side {
                here: b,
                there: a,
                title: b_title,
                figures: s.figures(),
            },
        ),
    ];
    for (r, side) in sides {
        pane(app, &side, r, buf);
    }
}

fn pane(app: &App, side: &Side, area: Rect, buf: &mut Buffer) {
    let t = app.theme();
    let title = crate::text::fit(&format!(" {} ", side.title), area.width as usize - 2);
    let block = app.chrome().pane(false).title(Span::styled(title, t.title));
    let inner = block.inner(area);
    block.render(area, buf);
    if inner.height < 3 || inner.width < 10 {
        return;
    }
    let w = inner.width as usize;
    let only_here = running_only_here(side.here, side.there);
    let mark = differ_glyph(app.view.look.ascii());
    let fit = Fit {
        width: w,
        counts: super::metrics_strip::count_widths(app),
        deadlines: app.sim.facts.has_deadlines(),
    };
    let lines = figure_lines(side, only_here.len(), mark, fit);
    for (i, line) in lines.iter().enumerate() {
        let text = crate::text::fit(line, w);
        buf.set_stringn(inner.x, inner.y + i as u16, text, w, t.text);
    }
    let top = lines.len() as u16;
    if inner.height < top + 2 {
        return;
    }
    // The grid gets what it needs up to all but four lines for the queue.
    let rest = inner.height.saturating_sub(top);
    let grid_h = rest.saturating_sub(4).max(1);
    let grid = Rect::new(inner.x, inner.y + top, inner.width, grid_h);
    let used = cells(app, side, &only_here, grid, buf);
    let q = Rect::new(
        inner.x,
        grid.y + used + 1,
        inner.width,
        inner.bottom().saturating_sub(grid.y + used + 1),
    );
    queue_head(app, side, q, buf);
}

/// The lines of headline figures (with the deadlines met and missed so
/// far, on a trace with deadlines), each whole: its wording chosen as if
/// every number had all the digits it can grow to, so none is squeezed or
/// changes words as the replay goes on; what does not fit a line goes to
/// the next.
fn figure_lines(side: &Side, only_here: usize, mark: char, fit: Fit) -> Vec<String> {
    let f = side.figures;
    let e = side.here;
    let secs = |v: Option<f64>| v.map_or("-".to_string(), human_secs);
    // Both sides count the same jobs: every one arrived, those not done
    // (not started) with their time in the system (wait) so far.
    let real = Numbers {
        arrived: f.jobs.to_string(),
        done: f.done.to_string(),
        run: e.running().len().to_string(),
        queue: e.queue_len().to_string(),
        busy: format!("{:.0}%", e.busy_percent()),
        only: only_here.to_string(),
        w99: secs(f.p99_wait),
        jct: secs(f.mean_jct),
    };
    let widest = Numbers {
        arrived: "9".repeat(fit.counts.0),
        done: "9".repeat(fit.counts.0),
        run: "9".repeat(fit.counts.1),
        queue: "9".repeat(fit.counts.0),
        busy: "100%".into(),
        only: "9".repeat(fit.counts.1),
        w99: "99h59m".into(),
        jct: "99h59m".into(),
    };
    let chosen = |of: fn(&Numbers, char) -> Vec<String>| {
        let i = of(&widest, mark)
            .iter()
            .position(|l| crate::text::width(l) <= fit.width);
        let lines = of(&real, mark);
        lines[i.unwrap_or(lines.len() - 1)].clone()
    };
    let counts = chosen(counts_wordings);
    let busy_shown = counts.contains("busy");
    let mut lines = vec![chosen(head_wordings), counts];
    lines.push(if busy_shown {
        format!("{mark} differs there · {} run only here", real.only)
    } else {
        chosen(legend_wordings)
    });
    if let Some((met, counted)) = e.deadline_counts().filter(|_| fit.deadlines) {
        let missed = counted - met;
        let line = format!("deadlines {met} met · {missed} missed");
        let long = format!("{line} (late, dropped or past due)");
        lines.push(if crate::text::width(&long) <= fit.width {
            long
        } else {
            line
        });
    }
    lines
}

/// What a side's headline lines fit: the pane's width, the columns its
/// counts can grow to (jobs, running), whether deadlines are counted.
#[derive(Clone, Copy)]
struct Fit {
    width: usize,
    counts: (usize, usize),
    deadlines: bool,
}

/// A side's figures as text.
struct Numbers {
    arrived: String,
    done: String,
    run: String,
    queue: String,
    busy: String,
    only: String,
    w99: String,
    jct: String,
}

fn head_wordings(n: &Numbers, _: char) -> Vec<String> {
    let (a, w99, jct) = (&n.arrived, &n.w99, &n.jct);
    vec![
        format!("over all {a} arrived: p99 wait {w99} · JCT so far {jct}"),
        format!("all {a} arrived: p99 wait {w99} · JCT so far {jct}"),
        format!("all {a}: p99 wait {w99} · JCT so far {jct}"),
        format!("all {a}: p99 wait {w99} · JCT {jct}"),
        format!("p99 wait {w99} · JCT {jct}"),
    ]
}

fn counts_wordings(n: &Numbers, _: char) -> Vec<String> {
    let (d, r, q, b) = (&n.done, &n.run, &n.queue, &n.busy);
    vec![
        format!("done {d} · run {r} · queue {q} · GPUs {b} busy"),
        format!("done {d} · run {r} · queue {q} · {b} busy"),
        format!("done {d} · run {r} · queue {q}"),
    ]
}

/// The legend line where the counts left the busy share out.
fn legend_wordings(n: &Numbers, mark: char) -> Vec<String> {
    let (b, k) = (&n.busy, &n.only);
    vec![
        format!("{b} busy · {mark} differs there · {k} run only here"),
        format!("{b} busy · {mark} differs · {k} run only here"),
        format!("{b} busy · {mark} differs · {k} only here"),
    ]
}

/// The grid in `area`: a cell per GPU (machines a gap apart) when that
/// fits, else a cell per machine; rows used.
fn cells(app: &App, side: &Side, only_here: &[u32], area: Rect, buf: &mut Buffer) -> u16 {
    let c = side.here.cluster();
    let machines = app.sim.facts.machines();
    let w = area.width as usize;
    let (cell_w, widths) = cell_width(c, machines, area);
    let by_gpu = cell_w > 0;
    let (mut x, mut y) = (0usize, 0u16);
    for (i, &m) in machines.iter().enumerate() {
        let width = if by_gpu { widths[i] } else { 1 };
        if x + width > w && x > 0 {
            x = 0;
            y += 1;
        }
        if y >= area.height {
            more_machines(app, machines.len() - i, area, buf);
            return area.height;
        }
        let base = c.first_gpu(m);
        let cap = c.cap(m) as usize;
        let cell_of = |range| cell_look(app, c, only_here, range);
        let (sx, sy) = (area.x + x as u16, area.y + y);
        if by_gpu {
            for k in 0..cap {
                let (ch, st) = cell_of(base + k..base + k + 1);
                let x = sx + (k * cell_w) as u16;
                buf.set_string(x, sy, ch.to_string().repeat(cell_w), st);
            }
        } else {
            let (ch, st) = cell_of(base..base + cap);
            buf.set_string(sx, sy, ch.to_string(), st);
        }
        x += width;
    }
    if machines.is_empty() {
        0
    } else {
        y + 1
    }
}

/// The columns a GPU's cell takes for the grid to fit `area`, with each
/// machine's width (its GPUs and a gap); 0 (and no widths): a cell per
/// machine.
fn cell_width(c: &ClusterState, machines: &[u32], area: Rect) -> (usize, Vec<usize>) {
    let w = area.width as usize;
    // Two columns per GPU where that fits, else one, else one per machine.
    let fits = |cw: usize| {
        let widths: Vec<usize> = machines
            .iter()
            .map(|&m| c.cap(m) as usize * cw + 1)
            .collect();
        (flow_rows(&widths, w) <= area.height as usize).then_some((cw, widths))
    };
    fits(2).or_else(|| fits(1)).unwrap_or((0, Vec::new()))
}

/// `+N machines` at the bottom right of `area`: the `left` that did not fit.
fn more_machines(app: &App, left: usize, area: Rect, buf: &mut Buffer) {
    let t = app.theme();
    let w = area.width as usize;
    let more = format!("+{left} machines");
    let at = area.bottom() - 1;
    let text = crate::text::fit(&more, w);
    let x0 = area
        .right()
        .saturating_sub(crate::text::width(&text) as u16);
    buf.set_string(x0, at, text, t.dim);
}

/// A cell over GPUs `range`: how full it is (or the mark of a job that
/// runs only on this side, in `only_here`), in the colour of the job
/// holding most of it (free, or over capacity, in their own).
fn cell_look(
    app: &App,
    c: &ClusterState,
    only_here: &[u32],
    range: std::ops::Range<usize>,
) -> (char, Style) {
    let t = app.theme();
    let differ = |j: u32| only_here.binary_search(&j).is_ok();
    let mut used = 0u64;
    let mut top: Option<(u32, u64)> = None;
    let mut any_differ = false;
    for flat in range.clone() {
        used += c.used_milli(flat) as u64;
        for &(j, mi) in c.holders(flat) {
            any_differ |= differ(j);
            if top.is_none_or(|(tj, tm)| {
                (mi as u64, std::cmp::Reverse(j)) > (tm, std::cmp::Reverse(tj))
            }) {
                top = Some((j, mi as u64));
            }
        }
    }
    let capm = range.len() as u64 * 1000;
    let ch = if any_differ {
        differ_glyph(app.view.look.ascii())
    } else {
        shade(glyphs(app.view.look.ascii()), used, capm)
    };
    let style = match top {
        _ if used > capm => t.error,
        None => t.free,
        Some((j, _)) => t.text.fg(t.palette(j as u64)),
    };
    (ch, style)
}

/// Rows a flow of items of `widths` takes in `w` columns.
fn flow_rows(widths: &[usize], w: usize) -> usize {
    let (mut x, mut rows) = (0usize, 1usize);
    for &k in widths {
        if x + k > w && x > 0 {
            x = 0;
            rows += 1;
        }
        x += k;
    }
    rows
}

/// The head of the queue in the side's policy order.
fn queue_head(app: &App, side: &Side, area: Rect, buf: &mut Buffer) {
    if area.height == 0 {
        return;
    }
    let t = app.theme();
    let w = area.width as usize;
    let e = side.here;
    // The column is what the policy orders by, so the order is explained.
    let column = super::queue_column::QueueColumn::ordering(e);
    let key = column.head();
    // The key's name always shows; the words before it in as many as fit.
    let label = e.policy().label();
    let room = w.saturating_sub(key.len() + 1);
    let head = [
        format!("queue head ({label} order)"),
        format!("queue ({label} order)"),
        format!("{label} order"),
        "queue".to_string(),
    ]
    .into_iter()
    .find(|h| crate::text::width(h) <= room)
    .unwrap_or_default();
    let head = format!("{head:<room$} {key:>0$}", key.len());
    buf.set_stringn(area.x, area.y, crate::text::fit(&head, w), w, t.dim);
    let n = area.height.saturating_sub(1) as usize;
    let jobs = e.queue_in_order(n);
    if jobs.is_empty() {
        buf.set_stringn(area.x, area.y + 1, " (empty)", w, t.dim);
    }
    let mark = differ_glyph(app.view.look.ascii());
    let trace = app.trace();
    for (i, &j) in jobs.iter().enumerate() {
        let job = &trace.jobs[j as usize];
        let lead = if differs(j, e, side.there) { mark } else { ' ' };
        let gpus = super::queue::fmt_gpus(job.gpus_display());
        let key = column.value(trace, e, j);
        let right = format!("{gpus:>4} GPU {key:>8}");
        let id_w = w.saturating_sub(crate::text::width(&right) + 3);
        let id = if app.sim.facts.ids_share_prefix() {
            super::queue::clip_left(&job.id, id_w)
        } else {
            super::queue::clip(&job.id, id_w)
        };
        let style = t.text.fg(t.palette(j as u64));
        let line = format!("{lead} {id} {right}");
        buf.set_stringn(area.x, area.y + 1 + i as u16, line, w, style);
    }
}
