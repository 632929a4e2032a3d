//! The what-if table's CDFs: snapshots at 80×24 (`c`: the charts alone)
//! and 120×40 (under the table), colour equal to mono; each row's
//! distributions equal a run of its policy to the end; only finished rows
//! are drawn; each has its glyph in the legend, the live one bold; the
//! time axis is logarithmic.

use crate::common;

use common::ui::{app_for, cmd, render, sample, text, theme_index, what_if_done};
use ratatui::style::Modifier;
use tracetui::sim::{Dists, Placement, Policy, Tally, WhatIfRun};
use tracetui::ui::app::{Action, App, Popup};
use tracetui::ui::keymap::Command;

/// The sample at day 9 00:00 under FIFO, the what-if table in, at `size`.
fn with_what_if(size: (u16, u16), theme: &str) -> App {
    let mut app = app_for(sample(), Policy::Fifo, size).with_theme(theme_index(theme));
    app.update(Action::GoTo(8 * 86_400));
    what_if_done(&mut app);
    app
}

/// The screen without the log line that names the wall time taken.
fn screen(app: &App, (w, h): (u16, u16)) -> String {
    text(&render(app, w, h))
        .lines()
        .map(|l| {
            if l.contains("runs done in") {
                "(log line)"
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn cdf_snapshots_in_colour_and_mono() {
    // 80×24: the table has no room for them; `c` shows them alone.
    let size = (80, 24);
    let shots: Vec<String> = ["dark", "mono"]
        .iter()
        .map(|theme| {
            let mut app = with_what_if(size, theme);
            let table = screen(&app, size);
            assert!(table.contains("c: the JCT and wait CDFs"), "{table}");
            assert!(!table.contains("JCT CDF"), "{table}");
            cmd(&mut app, Command::ColorBy);
            assert_eq!(
                app.popup(),
                Some(&Popup::WhatIf {
                    at: 0,
                    charts: true
                })
            );
            screen(&app, size)
        })
        .collect();
    // Mono shows everything colour does (and marks where jobs end: `▌`).
    let same = |s: &str| s.replace('▌', "█");
    assert_eq!(
        same(&shots[0]),
        same(&shots[1]),
        "mono shows everything colour does"
    );
    insta::assert_snapshot!("cdf_80x24", shots[0]);
    assert!(shots[0].contains("JCT CDF") && shots[0].contains("wait CDF"));
    // 120×40: under the table.
    let size = (120, 40);
    let colour = screen(&with_what_if(size, "dark"), size);
    let mono = screen(&with_what_if(size, "mono"), size);
    assert_eq!(same(&colour), same(&mono));
    insta::assert_snapshot!("cdf_120x40", colour);
    assert!(colour.contains("JCT mean") && colour.contains("JCT CDF"));
}

#[test]
fn each_rows_distributions_are_its_run_to_the_end() {
    let app = with_what_if((120, 40), "dark");
    let w = app.what_if().unwrap();
    for row in 0..w.rows() {
        let Some(WhatIfRun::Policy(p)) = w.run(row) else {
            continue;
        };
        let mut e = app.engine().clone();
        e.set_policy(*p);
        e.run_to_end();
        assert_eq!(
            w.dists(row),
            Some(&Dists::of(e.tally())),
            "{p}: the CDF is its run's"
        );
    }
}

#[test]
fn legend_glyphs_the_live_one_bold_and_only_finished_rows() {
    let size = (120, 40);
    let mut app = with_what_if(size, "dark");
    cmd(&mut app, Command::ColorBy);
    let buf = render(&app, size.0, size.1);
    let s = text(&buf);
    // The legend: from the line with the live row, and the line under it
    // where it wraps.
    let lines: Vec<&str> = s.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("(live)"))
        .expect("a legend");
    let legend = lines[at..(at + 2).min(lines.len())].join(" ");
    let w = app.what_if().unwrap();
    let glyphs = ['■', '▲', '◆', '○', '□', '△', '◇', '×', '+', '▼'];
    for (row, glyph) in glyphs.iter().enumerate().take(w.rows()) {
        let label = w.run(row).unwrap().label();
        // A row with another's very results: that one's glyph, said equal.
        let want = match w.same_as(row) {
            Some(k) => format!("{} {label} = {}", glyphs[k], w.run(k).unwrap().label()),
            None => format!("{glyph} {label}"),
        };
        assert!(legend.contains(&want), "{want}: {legend}");
    }
    assert!(legend.contains("■ fifo (live)"), "{legend}");
    // The live policy's curve is bold; another's is not.
    let cells: Vec<_> = buf.content().iter().collect();
    let live = cells
        .iter()
        .filter(|c| c.symbol() == "■")
        .collect::<Vec<_>>();
    assert!(live.len() > 20 && live.iter().all(|c| c.modifier.contains(Modifier::BOLD)));
    assert!(cells
        .iter()
        .filter(|c| c.symbol() == "▲")
        .all(|c| !c.modifier.contains(Modifier::BOLD)));
    // Esc closes; `c` again: the table.
    cmd(&mut app, Command::ColorBy);
    assert!(matches!(
        app.popup(),
        Some(Popup::WhatIf { charts: false, .. })
    ));
}

/// A table with one row in, whose jobs all took one hour: the other rows
/// are not drawn, and its curve rises at the axis's `1h`.
#[test]
fn a_curve_rises_at_its_time_on_the_log_axis() {
    let size = (120, 40);
    let mut app = app_for(sample(), Policy::Fifo, size);
    app.update(Action::GoTo(8 * 86_400));
    cmd(&mut app, Command::WhatIf); // the fork is not started: no runner
    cmd(&mut app, Command::ColorBy);
    let report = tracetui::sim::run(sample(), Policy::Sjf, Placement::Consolidate);
    let tally = Tally {
        jct: vec![3600.0; 50]
            .into_iter()
            .chain([60.0, 86_400.0])
            .collect(),
        wait: vec![0.0, 10.0],
        ..Tally::default()
    };
    app.update(Action::WhatIfDone {
        row: 3,
        report: Box::new(report),
        dists: Box::new(Dists::of(&tally)),
        secs: 0.1,
    });
    let s = screen(&app, size);
    let lines: Vec<&str> = s.lines().collect();
    let legend = lines.iter().find(|l| l.contains("○ sjf")).unwrap();
    assert!(!legend.contains("■ fifo"), "only finished rows: {legend}");
    // The JCT chart's axis labels, and the column where the curve stands
    // between 10 % and 90 %: under `1h`.
    let axis = lines
        .iter()
        .find(|l| l.contains("10m") && l.contains("1h ") && l.contains("10h"))
        .unwrap();
    let col = |line: &str, pat: &str| line.find(pat).map(|b| line[..b].chars().count());
    let h = col(axis, "1h").unwrap();
    let mid = lines
        .iter()
        .find(|l| l.contains("50%"))
        .and_then(|l| col(l, "○"))
        .unwrap();
    assert!(
        mid.abs_diff(h) <= 1,
        "the rise at column {mid}, 1h at {h}\n{s}"
    );
}

/// Issue 33 item 21: rows with the very same results are said to be the
/// same (in the table and the legend) and drawn once; `fair` on a trace
/// without users says what it does there.
#[test]
fn identical_rows_are_said_identical_and_fair_without_users_says_so() {
    let mut app = with_what_if((120, 40), "dark");
    cmd(&mut app, Command::WhatIf);
    let w = app.what_if().unwrap();
    let same: Vec<(usize, usize)> = (0..w.rows())
        .filter_map(|i| w.same_as(i).map(|k| (i, k)))
        .collect();
    assert!(
        !same.is_empty(),
        "the sample has policies that agree job for job"
    );
    for &(i, k) in &same {
        let (a, b) = (w.dists(i).unwrap(), w.dists(k).unwrap());
        assert_eq!((&a.jct_s, &a.wait_s), (&b.jct_s, &b.wait_s));
        assert!(k < i);
    }
    let label = |r: &WhatIfRun| match r {
        WhatIfRun::Policy(p) => p.label().to_string(),
        other => other.label(),
    };
    let s = screen(&app, (120, 40));
    for &(i, k) in &same {
        let (li, lk) = (label(w.run(i).unwrap()), label(w.run(k).unwrap()));
        assert!(
            s.lines()
                .any(|l| l.contains(&li) && l.contains(&format!("= {lk}: the same results"))),
            "{li} = {lk}\n{s}"
        );
        assert!(
            s.contains(&format!("{li} = {lk}")) || s.contains(&format!("{li} (live) = {lk}")),
            "legend: {li} = {lk}\n{s}"
        );
    }
    // The what-if box's inside only (panes beside it interleave).
    let rows: Vec<Vec<char>> = s.lines().map(|l| l.chars().collect()).collect();
    let (y0, x0) = rows
        .iter()
        .enumerate()
        .find_map(|(y, r)| {
            let l: String = r.iter().collect();
            l.find("┌ what if").map(|b| (y, l[..b].chars().count()))
        })
        .expect("the what-if box");
    let x1 = x0 + 1 + rows[y0][x0 + 1..].iter().position(|&c| c == '┐').unwrap();
    let inside: Vec<String> = rows[y0 + 1..]
        .iter()
        .map(|r| {
            r.get(x0 + 1..x1.min(r.len()))
                .unwrap_or(&[])
                .iter()
                .collect()
        })
        .collect();
    let all: String = inside
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    // (The note wraps in the table's foot.)
    assert!(
        all.contains("fair: no users") && all.contains("each job is its own owner"),
        "{s}"
    );
}

/// The chosen row's curve is drawn over the others (issue 33 item 21: a
/// curve could hide under another): ↑↓ bring any curve to the top.
#[test]
fn the_chosen_rows_curve_is_drawn_on_top() {
    let size = (120, 40);
    let mut app = with_what_if(size, "dark");
    cmd(&mut app, Command::WhatIf);
    cmd(&mut app, Command::ColorBy);
    let glyphs = ['■', '▲', '◆', '○', '□', '△', '◇', '×', '+', '▼'];
    let count = |app: &App, g: char| text(&render(app, size.0, size.1)).matches(g).count();
    let w = app.what_if().unwrap();
    let rows: Vec<usize> = (1..w.rows().min(10))
        .filter(|&i| w.same_as(i).is_none())
        .collect();
    let mut gained = 0;
    for &i in &rows {
        let g = glyphs[i];
        let before = count(&app, g);
        // Down to row i (the table's chosen row), then back up to the top.
        for _ in 0..i {
            cmd(&mut app, Command::Down);
        }
        let on_top = count(&app, g);
        assert!(on_top >= before, "row {i}: {on_top} < {before}");
        gained += usize::from(on_top > before);
        for _ in 0..i {
            cmd(&mut app, Command::Up);
        }
    }
    assert!(gained > 0, "some curve was hidden and now shows");
}
