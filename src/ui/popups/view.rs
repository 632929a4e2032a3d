//! The overlays drawn: help (from the keymap), the drill-down, the policy
//! picker; the what-if table is its own feature's view.

use super::{detail_box, Popup};
use crate::sim::Policy;
use crate::ui::app::App;
use crate::ui::grid::glyphs;
use crate::ui::keymap::COMMANDS;
use crate::ui::layout::centered;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

pub(crate) fn draw(app: &App, area: Rect, buf: &mut Buffer) {
    match &app.view.popup {
        Some(Popup::Help { scroll }) => help(app, area, buf, *scroll),
        Some(Popup::Detail {
            title,
            lines,
            scroll,
            picks,
            pick,
            ..
        }) => {
            let picked = picks.get(*pick).map(|p| p.0);
            detail(app, area, buf, title, lines, *scroll, picked)
        }
        Some(Popup::Picker { at, split }) => picker(app, area, buf, *at, *split),
        Some(Popup::Rankings { by, sort, at }) => {
            crate::ui::rankings::view::draw(app, area, buf, *by, *sort, *at)
        }
        Some(Popup::WhatIf { at, charts }) => {
            crate::ui::whatif::view::draw(app, area, buf, *at, *charts)
        }
        Some(Popup::Prompt { .. }) | None => {}
    }
}

/// The help text: every command with its configured keys, and the glyph legend.
/// The help's text: each command's keys and what it does, then the
/// legend; wrapped to fit `cols` columns (a description goes on under
/// itself, never cut).
pub(crate) fn help_lines(app: &App, cols: usize) -> Vec<Line<'static>> {
    let t = app.theme();
    let mut out = Vec::new();
    let room = cols.saturating_sub(14).max(10);
    let mut entry = |keys: String, desc: &str| {
        for (i, piece) in crate::text::wrap_words(desc, room, 0)
            .into_iter()
            .enumerate()
        {
            let lead = if i == 0 {
                format!("{keys:>12}  ")
            } else {
                " ".repeat(14)
            };
            out.push(Line::from(vec![
                Span::styled(lead, t.accent.add_modifier(Modifier::BOLD)),
                Span::styled(piece, t.text),
            ]));
        }
    };
    for (cmd, _, desc, _, _) in COMMANDS {
        entry(app.view.keymap.keys_of(cmd).join(", "), desc);
    }
    entry(String::new(), "");
    entry(
        "commands".into(),
        "typed after : (tab completes; the start of a name will do)",
    );
    for v in crate::ui::command_line::VERBS {
        entry(format!(":{}", v.name), v.what);
    }
    out.push(Line::from(""));
    for text in legend(app) {
        for piece in crate::text::wrap_words(&text, cols.max(10), 0) {
            out.push(Line::from(Span::styled(piece, t.dim)));
        }
    }
    out
}

/// The help's legend: what the grid's cells mean, and where keys rebind.
fn legend(app: &App) -> [String; 2] {
    let g = glyphs(app.view.look.ascii());
    [
        format!(
            "cells: {} free  {} ≤¼  {} ≤½  {} partly  {} whole GPU  {} over capacity  {} cursor",
            g.free, g.shades[0], g.shades[1], g.shades[2], g.shades[3], g.over, g.marker
        ),
        "the selected job's GPUs are bold and underlined; keys rebind in ~/.config/tracetui/config.toml".into(),
    ]
}

/// The columns the help's text takes on a screen `width` wide: its widest
/// line, or the screen less the box's borders.
pub(crate) fn help_cols(app: &App, width: u16) -> usize {
    let widest = COMMANDS
        .iter()
        .map(|c| 14 + crate::text::width(c.2))
        .chain(legend(app).iter().map(|l| crate::text::width(l)))
        .max()
        .unwrap_or(40);
    widest.min((width as usize).saturating_sub(2)).max(20)
}

fn help(app: &App, area: Rect, buf: &mut Buffer, scroll: usize) {
    let cols = help_cols(app, area.width);
    let lines = help_lines(app, cols);
    let width = cols as u16 + 2;
    let r = centered(area, width.max(50), lines.len() as u16 + 2);
    let title = if lines.len() as u16 + 2 > r.height {
        "help · ↑↓ PgUp PgDn Home End · esc or ? closes"
    } else {
        "help · esc or ? closes"
    };
    let inner = app.chrome().popup(r, buf, title);
    let scroll = scroll.min(lines.len().saturating_sub(inner.height as usize));
    Paragraph::new(lines)
        .scroll((scroll as u16, 0))
        .render(inner, buf);
}

/// A drill-down: its lines wrapped to the box from `scroll`, the
/// `picked` line (a machine's GPU row) marked.
fn detail(
    app: &App,
    area: Rect,
    buf: &mut Buffer,
    title: &str,
    lines: &[String],
    scroll: usize,
    picked: Option<usize>,
) {
    let t = app.theme();
    let r = detail_box(area);
    // The keys in as many words as fit beside the title.
    let room = r.width.saturating_sub(4) as usize;
    let full = match picked {
        // A machine's: ↑↓ pick a GPU row.
        Some(_) => [
            format!("{title} · ↑↓ a GPU · enter its job · PgUp PgDn · e saves · esc closes"),
            format!("{title} · ↑↓ a GPU · enter its job · esc"),
            format!("{title} · esc closes"),
        ],
        None => [
            format!("{title} · ↑↓ PgUp PgDn Home End · e saves · esc closes"),
            format!("{title} · ↑↓ PgDn End · e saves · esc"),
            format!("{title} · esc closes"),
        ],
    }
    .into_iter()
    .find(|t| crate::text::width(t) <= room)
    .unwrap_or_else(|| title.to_string());
    let inner = app.chrome().popup(r, buf, &full);
    let (lines, first) = super::wrap_detail_rows(lines, inner.width as usize);
    let lines = &lines;
    let mark = picked.and_then(|p| first.get(p).copied());
    let marker = super::super::grid::glyphs(app.view.look.ascii()).marker;
    let shown: Vec<Line> = lines
        .iter()
        .enumerate()
        .skip(scroll)
        .take(inner.height as usize)
        .map(|(i, l)| match mark == Some(i) {
            // The picked row: reversed, and a glyph where the leading space was.
            true => Line::from(Span::styled(
                format!("{marker}{}", l.get(1..).unwrap_or("")),
                t.cursor,
            )),
            false => Line::from(Span::styled(l.clone(), t.text)),
        })
        .collect();
    Paragraph::new(shown).render(inner, buf);
    if lines.len() > inner.height as usize {
        let pos = format!(
            " {}/{} ",
            (scroll + inner.height as usize).min(lines.len()),
            lines.len()
        );
        buf.set_string(
            r.x + r.width.saturating_sub(pos.len() as u16 + 2),
            r.y + r.height - 1,
            pos,
            t.dim,
        );
    }
}

/// The policy picker: the policies, the chosen one's whole text, and what
/// a switch (or the split) does. Where the screen is short, the foot goes
/// first, then the list scrolls to keep the chosen row in view (its
/// position in the border); the chosen row's text stays.
fn picker(app: &App, area: Rect, buf: &mut Buffer, at: usize, split: bool) {
    let t = app.theme();
    let count = app.sim.policies.all().len();
    let box_w = area.width.saturating_sub(4).min(120);
    let text_w = box_w.saturating_sub(2) as usize;
    let about = picker_about(app, at, text_w);
    let foot = picker_foot(app, split, text_w);
    let fit = PickerFit::new(count, about.len(), foot.len(), area.height as usize);
    let r = centered(area, box_w, fit.rows as u16 + 2);
    let split_title = split_title(app, r.width as usize);
    let inner = app.chrome().popup(
        r,
        buf,
        if split {
            &split_title
        } else {
            "scheduling policy · ↑↓ choose · enter switches now · esc cancels"
        },
    );
    let first = at
        .saturating_sub(fit.list - 1)
        .min(count.saturating_sub(fit.list));
    picker_rows(app, inner, buf, at, text_w, first..first + fit.list);
    if fit.list < count {
        let pos = format!(" {}/{count} ", at + 1);
        buf.set_string(
            r.x + r.width.saturating_sub(crate::text::width(&pos) as u16 + 2),
            r.y + r.height - 1,
            pos,
            t.dim,
        );
    }
    let mut y = inner.y + fit.list as u16 + 1;
    if fit.about {
        for line in &about {
            buf.set_stringn(inner.x, y, line, text_w, t.text);
            y += 1;
        }
        y += 1;
    }
    if fit.foot {
        for line in &foot {
            buf.set_stringn(inner.x, y, line, text_w, t.dim);
            y += 1;
        }
    }
}

/// What of the picker a screen `height` rows high shows: its rows inside
/// the border, the policies listed, and whether the chosen row's text and
/// the foot are shown.
#[derive(Debug, PartialEq, Eq)]
struct PickerFit {
    rows: usize,
    list: usize,
    about: bool,
    foot: bool,
}

impl PickerFit {
    fn new(count: usize, about: usize, foot: usize, height: usize) -> PickerFit {
        let room = height.saturating_sub(2);
        let whole = count + 1 + about + 1 + foot;
        if whole <= room {
            return PickerFit {
                rows: whole,
                list: count,
                about: true,
                foot: true,
            };
        }
        // Without the foot; then the list scrolled (at least 3 rows).
        let list = count.min(room.saturating_sub(1 + about)).max(count.min(3));
        let about_fits = list + 1 + about <= room;
        PickerFit {
            rows: if about_fits { list + 1 + about } else { list },
            list,
            about: about_fits,
            foot: false,
        }
    }
}

/// Under the list: what the chosen row (`at`) does, whole (rows are cut
/// to fit), wrapped to `text_w`.
fn picker_about(app: &App, at: usize, text_w: usize) -> Vec<String> {
    let tuning = app.engine().tuning();
    let chosen = app
        .sim
        .policies
        .all()
        .get(at)
        .map(|&p| match p.available(app.trace()) {
            Ok(()) => match p.caveat(app.trace(), tuning) {
                Some(c) => format!("{}: {} · note: {c}", p.label(), p.describe_under(tuning)),
                None => format!("{}: {}", p.label(), p.describe_under(tuning)),
            },
            Err(u) => format!("{}: not here: {}", p.label(), u.short),
        });
    crate::text::wrap_words(&chosen.unwrap_or_default(), text_w, 0)
}

/// The picker's foot, wrapped to `text_w`: what the split's B side
/// replays, or what a switch does at once.
fn picker_foot(app: &App, split: bool, text_w: usize) -> Vec<String> {
    let policies = app.sim.policies.all();
    let foot = if split {
        "B replays the trace as the live replay did up to now, then under this policy; both move together".to_string()
    } else {
        format!(
            "at once: the queue is reordered; {} may preempt; logged",
            and_list(policies.iter().filter(|p| p.preempts()).map(|p| p.name()))
        )
    };
    crate::text::wrap_words(&foot, text_w, 0)
}

/// The split picker's title in the fewest words a box `box_w` wide needs.
fn split_title(app: &App, box_w: usize) -> String {
    // B's placement, when the split is to compare placements (`o`).
    let b_place = app
        .view
        .split_placement
        .map_or("A's".to_string(), |p| p.name().to_string());
    [
        format!("split: the B side's policy · ↑↓ choose · o: B places by {b_place} · enter splits · esc"),
        format!("split: B's policy · o: B places by {b_place} · enter · esc"),
    ]
    .into_iter()
    .find(|t| crate::text::width(t) + 4 <= box_w)
    .unwrap_or_else(|| format!("B's policy · o: {b_place}"))
}

/// A row per policy from the top of `inner`: the chosen one (`at`)
/// marked, the live one dotted, one not available here dim and why.
fn picker_rows(
    app: &App,
    inner: Rect,
    buf: &mut Buffer,
    at: usize,
    text_w: usize,
    shown: std::ops::Range<usize>,
) {
    let t = app.theme();
    let current = app.engine().policy();
    let tuning = app.engine().tuning();
    let marker = glyphs(app.view.look.ascii()).marker;
    let policies = app.sim.policies.all();
    for (row, i) in shown.enumerate() {
        let Some(&p) = policies.get(i) else { break };
        let mut style = t.text;
        let why = p.available(app.trace()).err().map(|u| u.short);
        if why.is_some() {
            style = t.dim;
        }
        if i == at {
            style = style.patch(t.cursor);
        }
        let lead = if i == at { marker } else { ' ' };
        let now = if p == current { "●" } else { " " };
        let text = match (why, p.caveat(app.trace(), tuning)) {
            (Some(why), _) => format!("{lead} {now} {} not here: {why}", label14(p)),
            (None, Some(c)) => format!("{lead} {now} {} note: {c}", label14(p)),
            (None, None) => format!("{lead} {now} {} {}", label14(p), p.describe_under(tuning)),
        };
        let text = crate::text::fit(&text, text_w);
        buf.set_stringn(inner.x, inner.y + row as u16, text, text_w, style);
    }
}

/// A policy's label in a column of 14 display columns (a CJK name
/// takes two a character).
fn label14(p: Policy) -> String {
    crate::text::padded(p.label().to_string(), 14)
}

/// `a, b and c`.
fn and_list<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.collect();
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::PickerFit;

    #[test]
    fn a_short_screen_drops_the_foot_then_scrolls_the_list_and_keeps_the_chosen_text() {
        // Room for everything.
        let f = PickerFit::new(16, 2, 2, 60);
        assert_eq!((f.rows, f.list, f.about, f.foot), (22, 16, true, true));
        // 80×24 with an external policy too: the foot goes.
        let f = PickerFit::new(17, 2, 2, 24);
        assert_eq!((f.rows, f.list, f.about, f.foot), (20, 17, true, false));
        // Twenty policies on 24 rows: the list scrolls, the text stays.
        let f = PickerFit::new(20, 3, 2, 24);
        assert_eq!((f.rows, f.list, f.about, f.foot), (22, 18, true, false));
        // A tiny screen: three rows of list at least.
        let f = PickerFit::new(20, 3, 2, 6);
        assert_eq!((f.list, f.about), (3, false));
    }
}
