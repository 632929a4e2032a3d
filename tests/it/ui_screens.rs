//! Whole screens through ratatui's TestBackend, snapshotted with insta at
//! 80×24, 120×40 and too small. (Snapshots hold text, not colours; colour
//! is checked on buffers in ui_app.rs.)

use ratatui::backend::TestBackend;
use ratatui::Terminal;
use std::sync::Arc;
use tracetui::sim::{Placement, Policy};
use tracetui::ui::app::{Action, App};
use tracetui::ui::effects::Effects;
use tracetui::ui::keymap::{Command, Keymap};
use tracetui::ui::theme::{Depth, Theme};

fn app(w: u16, h: u16) -> App {
    let trace = Arc::new(tracetui::trace::sample_itp().unwrap().0);
    let themes = tracetui::ui::theme::EMBEDDED
        .iter()
        .map(|(n, _)| Theme::embedded(n, Depth::TrueColor).unwrap())
        .collect();
    let mut app = App::new(
        trace,
        Policy::Fifo,
        Placement::Consolidate,
        "sample itp (2000 jobs)".into(),
        themes,
        Keymap::defaults(),
    );
    app.update(Action::Resize(w, h));
    // Day 9 00:00: a busy cluster with a queue.
    app.update(Action::GoTo(8 * 86_400));
    app
}

fn screen(app: &App, w: u16, h: u16) -> String {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| tracetui::ui::draw::draw(f, app)).unwrap();
    format!("{}", term.backend())
}

fn with(mut app: App, cmds: &[Command], chars: &str) -> App {
    // Through the runner, which reads the drill-down's records.
    let mut fx = Effects::new(std::env::temp_dir());
    for c in cmds {
        fx.dispatch(&mut app, Action::Command(*c));
    }
    for ch in chars.chars() {
        app.update(Action::Char(ch));
    }
    app
}

#[test]
fn main_screen_80x24() {
    insta::assert_snapshot!(screen(&app(80, 24), 80, 24));
}

#[test]
fn main_screen_120x40() {
    insta::assert_snapshot!(screen(&app(120, 40), 120, 40));
}

#[test]
fn too_small() {
    insta::assert_snapshot!(screen(&app(60, 20), 60, 20));
}

#[test]
fn help_80x24() {
    insta::assert_snapshot!(screen(&with(app(80, 24), &[Command::Help], ""), 80, 24));
}

#[test]
fn help_120x40() {
    insta::assert_snapshot!(screen(&with(app(120, 40), &[Command::Help], ""), 120, 40));
}

#[test]
fn drill_down_120x40() {
    insta::assert_snapshot!(screen(
        &with(app(120, 40), &[Command::Right, Command::Detail], ""),
        120,
        40
    ));
}

#[test]
fn drill_down_80x24() {
    insta::assert_snapshot!(screen(
        &with(app(80, 24), &[Command::Right, Command::Detail], ""),
        80,
        24
    ));
}

#[test]
fn policy_picker_80x24() {
    insta::assert_snapshot!(screen(
        &with(app(80, 24), &[Command::Policy, Command::Down], ""),
        80,
        24
    ));
}

#[test]
fn policy_picker_120x40() {
    insta::assert_snapshot!(screen(
        &with(app(120, 40), &[Command::Policy, Command::Down], ""),
        120,
        40
    ));
}

#[test]
fn find_prompt_80x24() {
    insta::assert_snapshot!(screen(
        &with(app(80, 24), &[Command::Find], "n0003"),
        80,
        24
    ));
}

#[test]
fn playing_then_paused_120x40() {
    let mut a = with(app(120, 40), &[Command::TogglePlay], "");
    a.update(Action::Elapsed(3.0));
    let playing = screen(&a, 120, 40);
    assert!(playing.lines().next().unwrap().contains("▶"), "{playing}");
    a.update(Action::Command(Command::TogglePlay));
    insta::assert_snapshot!(screen(&a, 120, 40));
}
