//! The replay at 80×24, the default SSH window: the hint bar keeps `? help`
//! and `q quit`, the metrics line ends with its last figure, every running
//! job can be reached and the list says when it is cut, messages are
//! readable in full, the log says what happened at the time it happened,
//! and `--ascii` puts nothing but ASCII on the screen.

use crate::common;

use common::ui::{act, app_for, cmd, render, sample, text};
use tracetui::sim::Policy;
use tracetui::ui::action::Action;
use tracetui::ui::app::App;
use tracetui::ui::keymap::Command;

/// The sample at day 9 00:00: 15 running, more than the pane shows.
fn busy(ascii: bool) -> App {
    let mut app = app_for(sample(), Policy::Fifo, (80, 24)).with_ascii(ascii);
    app.update(Action::GoTo(8 * 86_400));
    app
}

fn screen(app: &App) -> String {
    text(&render(app, 80, 24))
}

fn typed(app: &mut App, prompt: Command, input: &str) -> Vec<String> {
    cmd(app, prompt);
    for ch in input.chars() {
        app.update(Action::Char(ch));
    }
    let u = cmd(app, Command::Detail);
    u.log_lines().iter().map(|l| l.to_string()).collect()
}

#[test]
fn the_hint_bar_keeps_help_and_quit_and_the_metrics_line_its_last_figure() {
    let app = busy(false);
    let s = screen(&app);
    let last = s.lines().last().unwrap();
    assert!(last.contains("? help") && last.contains("q quit"), "{last}");
    let metrics = s.lines().find(|l| l.starts_with("util")).unwrap();
    assert!(metrics.contains("p99 wait     0s"), "{metrics}");
}

#[test]
fn every_running_job_is_reachable_and_a_cut_list_says_so() {
    let mut app = busy(false);
    let running = app.engine().running().len();
    let s = screen(&app);
    assert!(s.contains("↓ 7 more"), "{s}");
    cmd(&mut app, Command::Focus);
    assert_eq!(app.focus(), tracetui::ui::app::Focus::Queue);
    // The queue is empty: every position is a running job; go to the last.
    for _ in 0..running + 3 {
        cmd(&mut app, Command::Down);
    }
    let last = app.selected().expect("a job under the cursor");
    let oldest = app
        .engine()
        .running()
        .keys()
        .min_by_key(|&&j| (app.engine().job_state(j).start, std::cmp::Reverse(j)))
        .copied()
        .unwrap();
    assert_eq!(last, oldest, "the last row is the earliest started");
    let s = screen(&app);
    let id: String = app.trace().jobs[last as usize].id.chars().take(7).collect();
    assert!(s.contains(&id), "the last job is on screen: {s}");
    assert!(s.contains("↑ 7 more"), "{s}");
    assert!(!s.contains("↓"), "nothing below the last: {s}");
}

#[test]
fn a_bad_time_or_an_unknown_job_says_why_in_the_hint_bar_and_the_log() {
    let mut app = busy(false);
    let log = typed(&mut app, Command::Goto, "tomorrow");
    assert!(log.iter().any(|l| l.starts_with("go to: ")), "{log:?}");
    let s = screen(&app);
    let last = s.lines().last().unwrap().to_string();
    assert!(last.contains("tomorrow"), "{last}");
    assert!(last.contains("q quit"), "{last}");
    let log = typed(&mut app, Command::Find, "nosuchjob");
    assert!(log
        .iter()
        .any(|l| l.contains("no job, machine, user or group matches 'nosuchjob'")));
    let s = screen(&app);
    assert!(s.lines().last().unwrap().contains("nosuchjob"), "{s}");
}

#[test]
fn log_lines_carry_the_events_own_time_and_stepping_back_logs_one_line() {
    let mut app = app_for(sample(), Policy::Fifo, (80, 24));
    // Day 1: the first job arrives at 00:03:43 and starts at once; one
    // tick (a minute from 00:03:42) reaches past it.
    let u = act(&mut app, Action::Command(Command::Step));
    let lines = u.log_lines();
    let first = &app.trace().jobs[0];
    let start = lines
        .iter()
        .find(|l| l.contains(" started ") && l.contains(first.id.as_str()))
        .unwrap_or_else(|| panic!("{lines:?}"));
    assert!(start.starts_with("day 1 00:03:43 started"), "{start}");
    assert!(
        start.contains("· 1 GPU") && !start.contains("GPUs"),
        "{start}"
    );
    let u = act(&mut app, Action::Command(Command::StepBack));
    let lines = u.log_lines();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].starts_with("back from "), "{lines:?}");
}

#[test]
fn ascii_screens_are_pure_ascii() {
    let mut app = busy(true);
    let mut screens = vec![screen(&app)];
    cmd(&mut app, Command::Help);
    screens.push(screen(&app));
    cmd(&mut app, Command::Close);
    cmd(&mut app, Command::Policy);
    screens.push(screen(&app));
    cmd(&mut app, Command::Close);
    cmd(&mut app, Command::Detail);
    screens.push(screen(&app));
    cmd(&mut app, Command::Close);
    cmd(&mut app, Command::Find);
    screens.push(screen(&app));
    for s in screens {
        let bad: Vec<char> = s.chars().filter(|c| !c.is_ascii()).collect();
        assert!(bad.is_empty(), "non-ASCII {bad:?} in\n{s}");
    }
}

#[test]
fn a_wide_character_from_a_trace_keeps_the_columns_in_ascii() {
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    let mut buf = Buffer::empty(Rect::new(0, 0, 10, 1));
    buf.set_string(0, 0, "a界b·c", ratatui::style::Style::default());
    let area = buf.area;
    tracetui::ui::ascii::make_ascii(&mut buf, area);
    let line: String = (0..10).map(|x| buf[(x, 0)].symbol().to_string()).collect();
    assert_eq!(line, "a? b.c    ");
}

#[test]
fn find_takes_users_too_and_the_same_text_again_goes_to_the_next_match() {
    use common::ui::{pai, T0};
    let mut app = app_for(pai(), Policy::Recorded, (80, 24));
    app.update(Action::GoTo(T0 + 15));
    // u1's jobs j01 and j02 both run at T0 + 15.
    typed(&mut app, Command::Find, "u1");
    let first = app.selected().expect("one of u1's jobs");
    let flash = app.flash().unwrap_or_default().to_string();
    assert!(
        flash.contains("of u1") && flash.contains("(1 of 2"),
        "{flash}"
    );
    typed(&mut app, Command::Find, "u1");
    let second = app.selected().unwrap();
    assert_ne!(first, second);
    assert!(app.flash().unwrap_or_default().contains("(2 of 2"));
    typed(&mut app, Command::Find, "u1");
    assert_eq!(app.selected(), Some(first), "round again");
    let ids: Vec<&str> = [first, second]
        .iter()
        .map(|&j| app.trace().jobs[j as usize].id.as_str())
        .collect();
    assert_eq!(ids, ["j01", "j02"]);
}

/// A user is found by the start of their name too (operators type the
/// first characters of PAI's hex ids), after any exact match.
#[test]
fn find_takes_the_start_of_a_user_s_name() {
    use common::ui::{pai, T0};
    let mut app = app_for(pai(), Policy::Recorded, (80, 24));
    app.update(Action::GoTo(T0 + 15));
    typed(&mut app, Command::Find, "u");
    let flash = app.flash().unwrap_or_default().to_string();
    assert!(flash.contains("of u"), "{flash}");
    assert!(!flash.contains("no job"), "{flash}");
    // Exact names first: `u1` finds only u1's two.
    typed(&mut app, Command::Find, "u1");
    assert!(app.flash().unwrap_or_default().contains("(1 of 2"));
    typed(&mut app, Command::Find, "zz");
    assert!(app
        .flash()
        .unwrap_or_default()
        .contains("no job, machine, user or group"));
}

#[test]
fn ids_that_share_a_prefix_are_cut_from_the_left() {
    use std::sync::Arc;
    let base = common::tiny(&[8], &[(0, 1000, 1), (10, 1000, 1), (20, 1000, 1)]);
    let mut t = (*base).clone();
    for (i, j) in t.jobs.iter_mut().enumerate() {
        j.id = format!("application_1506638472019_1023{i}").into();
    }
    let mut app = app_for(Arc::new(t), Policy::Fifo, (80, 24));
    app.update(Action::GoTo(100));
    let s = screen(&app);
    for i in 0..3 {
        assert!(s.contains(&format!("…9_1023{i}")), "{s}");
    }
    assert!(!s.contains("applica…"), "{s}");
}

#[test]
fn the_focused_pane_is_marked_in_text() {
    let mut app = busy(false);
    assert!(screen(&app).contains("┌▶ GPUs"));
    cmd(&mut app, Command::Focus);
    let s = screen(&app);
    assert!(s.contains("┌▶ Queue") && !s.contains("┌▶ GPUs"), "{s}");
    cmd(&mut app, Command::Focus);
    assert!(screen(&app).contains("┌▶ Log"));
}

#[test]
fn the_drill_down_scrolls_to_its_last_line_and_no_further() {
    let mut app = busy(false);
    cmd(&mut app, Command::Detail);
    for _ in 0..10 {
        cmd(&mut app, Command::PageDown);
    }
    let s = screen(&app);
    let Some(tracetui::ui::app::Popup::Detail { lines, .. }) = app.popup() else {
        panic!("no drill-down")
    };
    let last = lines.last().unwrap().trim().to_string();
    let rows: Vec<&str> = s.lines().collect();
    // The box's last inner row (above its bottom border) holds the last line.
    let bottom = rows
        .iter()
        .rposition(|l| l.contains("└───") && l.contains('┘'))
        .unwrap();
    let above = rows[..bottom]
        .iter()
        .rev()
        .find(|l| l.contains(&last))
        .is_some();
    assert!(above, "{last:?} not shown:\n{s}");
}

#[test]
fn the_header_keeps_the_file_name_when_the_path_is_long() {
    use tracetui::ui::draw::fit_label;
    let label = "itp · 1024 GPUs (--gpus) · /very/long/path/to/the/released/cluster04.csv";
    assert_eq!(fit_label(label, 200), label);
    assert_eq!(
        fit_label(label, 42),
        "itp · 1024 GPUs (--gpus) · …/cluster04.csv"
    );
    assert_eq!(fit_label(label, 25), "itp · …/cluster04.csv");
    assert_eq!(fit_label(label, 12).chars().count(), 12);
}

#[test]
fn the_mouse_clicks_list_rows_and_the_wheel_scrolls_the_pane_under_it() {
    let mut app = busy(false);
    cmd(&mut app, Command::Mouse);
    // The third running job's row: click it.
    let third = {
        let e = app.engine();
        let mut r: Vec<(i64, u32)> = e
            .running()
            .keys()
            .map(|&j| (e.job_state(j).start, j))
            .collect();
        r.sort_unstable_by(|a, b| b.cmp(a));
        r[2].1
    };
    let short: String = app.trace().jobs[third as usize]
        .id
        .chars()
        .take(7)
        .collect();
    let s = screen(&app);
    let y = s.lines().position(|l| l.contains(&short)).unwrap() as u16;
    app.update(Action::Click { column: 50, row: y });
    assert_eq!(app.selected(), Some(third));
    assert_eq!(app.focus(), tracetui::ui::app::Focus::Queue);
    // The wheel over the lists moves down them, not the grid.
    app.update(Action::Scroll {
        column: 50,
        row: 10,
        lines: 3,
    });
    let s = screen(&app);
    assert_ne!(app.selected(), Some(third));
    assert!(s.contains("▸"), "{s}");
    // Over the grid: all its rows fit, so it does not scroll at all.
    let before = screen(&app);
    app.update(Action::Scroll {
        column: 5,
        row: 6,
        lines: 3,
    });
    let after = screen(&app);
    let grid_rows = |s: &str| -> Vec<String> {
        s.lines()
            .take(16)
            .map(|l| l.chars().take(43).collect())
            .collect()
    };
    assert_eq!(grid_rows(&before), grid_rows(&after));
}

/// The GPUs column of the running rows shown, top to bottom.
fn running_gpus(s: &str) -> Vec<u32> {
    let lines: Vec<&str> = s.lines().collect();
    let from = lines
        .iter()
        .position(|l| l.contains("running    GPUs"))
        .unwrap()
        + 1;
    lines[from..]
        .iter()
        .take_while(|l| l.starts_with('│') && !l.contains("more"))
        .filter_map(|l| {
            let side = l.split("││").nth(1)?;
            side.split_whitespace().nth(1).and_then(|g| g.parse().ok())
        })
        .collect()
}

#[test]
fn s_sorts_the_lists_and_says_so_in_the_title() {
    let mut app = busy(false);
    let policy_order = running_gpus(&screen(&app));
    cmd(&mut app, Command::Sort); // wait
    cmd(&mut app, Command::Sort); // GPUs
    let s = screen(&app);
    assert!(s.contains("by GPUs"), "{s}");
    let gpus = running_gpus(&s);
    assert!(gpus.len() >= 5, "{s}");
    assert!(gpus.windows(2).all(|w| w[0] >= w[1]), "{gpus:?}");
    assert_ne!(gpus, policy_order);
    for _ in 0..3 {
        cmd(&mut app, Command::Sort);
    }
    assert!(
        screen(&app).contains("order fifo"),
        "back to the policy's order"
    );
}

#[test]
fn f_filters_the_lists_and_dims_the_grid() {
    use common::ui::{pai, T0};
    let mut app = app_for(pai(), Policy::Recorded, (80, 24));
    app.update(Action::GoTo(T0 + 15));
    let all = app.engine().running().len();
    typed(&mut app, Command::Filter, "user=u1");
    let s = screen(&app);
    assert!(s.contains("user=u1"), "{s}");
    let flash = app.flash().unwrap_or_default().to_string();
    assert!(flash.contains("1 waiting, 1 running"), "{flash}");
    assert!(s.contains(&format!("1/{all} run")), "{s}");
    let wide = text(&render(&app, 200, 60));
    assert!(wide.contains("filter user=u1"), "{wide}");
    // Only u1's jobs are reachable in the lists.
    cmd(&mut app, Command::Focus);
    for _ in 0..5 {
        let j = app.selected().unwrap();
        let user = app.trace().sym(app.trace().jobs[j as usize].user);
        assert_eq!(user, "u1");
        cmd(&mut app, Command::Down);
    }
    // A word that is no key is refused, and says which keys there are
    // (the prompt opens on the filter in force: "user=u1" to erase first).
    let log = common::ui::filter_log(&mut app, "user=u1".len(), "colour=red");
    assert!(
        log.iter()
            .any(|l| l.contains("user=, group=, gpu=, state=")),
        "{log:?}"
    );
    // Empty clears.
    cmd(&mut app, Command::Filter);
    for _ in 0.."user=u1".len() {
        app.update(Action::Backspace);
    }
    cmd(&mut app, Command::Detail);
    assert!(!screen(&app).contains("user=u1"), "cleared");
    // The grid dims what the filter leaves out: j01 (u1) under user=u2.
    let busy_fg = |app: &App| -> Vec<Option<ratatui::style::Color>> {
        let buf = render(app, 80, 24);
        // The grid's rows (not the sparklines below it).
        (1..16u16)
            .flat_map(|y| (1..42u16).map(move |x| (x, y)))
            .filter(|&(x, y)| buf[(x, y)].symbol() == "█")
            .map(|(x, y)| Some(buf[(x, y)].fg))
            .collect()
    };
    let dim = Some(app.theme().dim.fg.unwrap_or_default());
    // The grid's cursor off j01's machine (its own style would cover the cells).
    cmd(&mut app, Command::Focus);
    cmd(&mut app, Command::Focus);
    assert_eq!(app.focus(), tracetui::ui::app::Focus::Grid);
    cmd(&mut app, Command::Right);
    let before = busy_fg(&app);
    assert!(!before.is_empty() && before.iter().all(|c| *c != dim));
    typed(&mut app, Command::Filter, "u2");
    let after = busy_fg(&app);
    assert!(
        !after.is_empty() && after.iter().all(|c| *c == dim),
        "{after:?}"
    );
}

#[test]
fn the_lecture_layout_widens_the_cells_and_shows_what_e_wrote() {
    use tracetui::ui::action::Exported;
    let mut app = busy(false);
    // The widest run of busy cells in a grid row, at 200×60: whole-GPU
    // blocks, and the lecture layout's job labels over them (reversed).
    let run = |app: &App| {
        let buf = render(app, 200, 60);
        let busy = |x: u16, y: u16| {
            let c = &buf[(x, y)];
            c.symbol() == "█" || c.modifier.contains(ratatui::style::Modifier::REVERSED)
        };
        let mut longest = 0;
        for y in 0..60u16 {
            let mut n = 0;
            for x in 0..120u16 {
                n = if busy(x, y) { n + 1 } else { 0 };
                longest = longest.max(n);
            }
        }
        (longest, text(&buf))
    };
    app.update(Action::Resize(200, 60));
    let (normal, _) = run(&app);
    cmd(&mut app, Command::Lecture);
    let (lecture, wide) = run(&app);
    // A machine of 8 busy GPUs: 16 columns normally; in the lecture
    // layout the cells scale up to fill the pane (3 columns or more each).
    assert_eq!(normal, 16);
    assert!(lecture >= 24 && lecture % 8 == 0, "{lecture}\n{wide}");
    app.update(Action::Exported(Exported::Files {
        txt: "/tmp/x/tracetui-1.txt".into(),
        svg: "/tmp/x/tracetui-1.svg".into(),
        detail: None,
    }));
    let s = text(&render(&app, 200, 60));
    assert!(
        s.lines()
            .last()
            .unwrap()
            .contains("exported /tmp/x/tracetui-1.svg"),
        "{s}"
    );
}
