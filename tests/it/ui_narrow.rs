//! 80×24 keeps what matters (issue 33 item 17): the header keeps the
//! trace's name after a policy switch; the metrics' second line shows whole
//! phrases; sorted by user, the lists show the user; `f gpu=V100` takes
//! the grid's cursor to a match; the help wraps instead of cutting.

use crate::common;

use common::ui::{act, app_for, cmd, render, sample, text};
use tracetui::sim::Policy;
use tracetui::ui::app::{Action, App};
use tracetui::ui::keymap::Command;

fn pai(policy: Policy) -> App {
    let mut app = app_for(common::ui::pai_sample(), policy, (80, 24));
    app.update(Action::Resize(80, 24));
    let t = app.engine().now() + 16 * 3600;
    act(&mut app, Action::GoTo(t));
    app
}

fn screen(app: &App) -> String {
    text(&render(app, 80, 24))
}

fn typed(app: &mut App, prompt: Command, input: &str) {
    cmd(app, prompt);
    for ch in input.chars() {
        app.update(Action::Char(ch));
    }
    cmd(app, Command::Detail);
}

#[test]
fn the_header_keeps_the_traces_name_after_a_switch() {
    let mut app = pai(Policy::Recorded);
    app.update(Action::SwitchPolicy(Policy::FifoBackfill));
    let head = screen(&app).lines().next().unwrap().to_string();
    assert!(head.contains("FIFO-BACKFILL · test "), "{head}");
    assert!(!head.contains(" since M"), "no phrase cut: {head}");
    let wide = text(&render(&app, 200, 24));
    assert!(
        wide.lines()
            .next()
            .unwrap()
            .contains("FIFO-BACKFILL since Mon 16:00:13 day 1 · test"),
        "{wide}"
    );
}

#[test]
fn the_metrics_second_line_has_whole_phrases() {
    let app = pai(Policy::Recorded);
    assert!(
        app.engine().tally().overflow_segments > 0,
        "the sample overflows"
    );
    let s = screen(&app);
    let line = s.lines().find(|l| l.starts_with("queue")).unwrap();
    let n = app.engine().tally().overflow_segments;
    assert!(line.contains(&format!("overflow {n}")), "{line}");
    assert!(!line.trim_end().ends_with("recorded"), "{line}");
}

#[test]
fn sorted_by_user_the_lists_show_the_user() {
    let mut app = pai(Policy::Fifo);
    let before = screen(&app);
    assert!(
        !before.contains(" user "),
        "no room for users unsorted:\n{before}"
    );
    for _ in 0..4 {
        cmd(&mut app, Command::Sort);
    }
    let s = screen(&app);
    assert!(s.contains("by user"), "{s}");
    let head = s
        .lines()
        .find(|l| l.contains("GPUs   waited") || l.contains("user"))
        .unwrap();
    assert!(head.contains("user"), "{s}");
    // The first in the list: the least user name among the waiting.
    let e = app.engine();
    let least = e
        .queue_in_order(e.queue_len())
        .iter()
        .map(|&j| {
            app.trace()
                .sym(app.trace().jobs[j as usize].user)
                .to_string()
        })
        .min()
        .unwrap();
    assert!(
        s.lines().any(|l| l.contains(&least[..7])),
        "{least} shows:\n{s}"
    );
}

#[test]
fn a_filter_takes_the_cursor_to_a_match() {
    let mut app = pai(Policy::Recorded);
    assert_eq!(app.cursor(), 0);
    typed(&mut app, Command::Filter, "gpu=V100");
    let trace = app.trace();
    let m = app.grid_machine(app.cursor()).unwrap();
    let ty = &trace.cluster.gpu_types[trace.cluster.machines[m as usize].gpu_type as usize];
    assert!(ty.starts_with("V100"), "{ty}");
    assert!(
        app.flash().unwrap().contains("the first on "),
        "{:?}",
        app.flash()
    );
}

#[test]
fn the_help_wraps_its_long_lines() {
    let mut app = app_for(sample(), Policy::Fifo, (80, 24));
    cmd(&mut app, Command::Help);
    let mut seen = String::new();
    for _ in 0..6 {
        seen.push_str(&screen(&app));
        cmd(&mut app, Command::PageDown);
    }
    let words: String = seen
        .replace('│', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(words.contains("(A again: one)"), "the A line whole");
    assert!(
        words.contains("~/.config/tracetui/config.toml"),
        "the legend whole"
    );
}

/// A GPU type's label gives way in words, not mid-word: 1,350 machines of
/// 8 at 80 columns; whole at 200.
#[test]
fn group_labels_give_way_in_words() {
    let machines = vec![8u32; 1350];
    let app = app_for(
        common::tiny(&machines, &[(0, 100, 8)]),
        Policy::Fifo,
        (80, 24),
    );
    let s = screen(&app);
    let label = s.lines().find(|l| l.contains("GPU ·")).unwrap();
    assert!(label.contains("│GPU · 1350 × 8 · 0/10800 busy "), "{label}");
    let wide = text(&render(&app, 200, 60));
    assert!(
        wide.contains("GPU · 1350 machines × 8 GPUs · 0/10800 busy"),
        "{wide}"
    );
}
