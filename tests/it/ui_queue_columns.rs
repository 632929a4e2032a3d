//! What the lists and drill-downs say beyond ids and times: an `edf`
//! queue's deadlines, a `fair` queue's shares, and the other jobs on a
//! machine that several share.

use crate::common;

use common::ui::{app_for, cmd, render, text};
use tracetui::sim::Policy;
use tracetui::ui::action::Action;
use tracetui::ui::app::App;
use tracetui::ui::keymap::Command;

#[test]
fn an_edf_queue_shows_deadlines_and_a_fair_queue_each_owners_share() {
    // One 4-GPU machine: u0's 4-GPU job holds it; the rest wait.
    let jobs = [(0, 1000, 4), (10, 500, 2), (20, 500, 1), (30, 500, 1)];
    let t = common::tiny_rich(&[4], &jobs, 2, 3);
    let mut app = app_for(t.clone(), Policy::Edf, (120, 40));
    app.update(Action::GoTo(100));
    let s = text(&render(&app, 120, 40));
    assert!(s.contains("due in"), "{s}");
    // edf preempted job 0 (due at 3 × 1000 s) for the sooner ones: it
    // waits, due 2,900 s from now.
    // (Marked ↺: preempted before.)
    let row = s.lines().find(|l| l.contains("↺j0 ")).unwrap();
    assert!(row.contains("48m20s"), "{row}");
    let mut app = app_for(t, Policy::Fair, (120, 40));
    app.update(Action::GoTo(100));
    let s = text(&render(&app, 120, 40));
    assert!(s.contains("share"), "{s}");
    // u0 holds all 4 GPUs: its waiting job 2 shows 100 %; u1's job 1, 0 %.
    let row = |id: &str| s.lines().find(|l| l.contains(id)).unwrap().to_string();
    assert!(row(" j2 ").contains("100.0%"), "{}", row(" j2 "));
    assert!(row(" j1 ").contains("0.0%"), "{}", row(" j1 "));
}

#[test]
fn a_drill_down_from_a_shared_machine_goes_to_the_other_jobs_on_it() {
    use common::ui::{pai, T0};
    use tracetui::ui::app::Popup;
    let mut app = app_for(pai(), Policy::Recorded, (120, 40));
    // At T0 + 85 PAI's m3 (machine 2) is shared by several jobs.
    app.update(Action::GoTo(T0 + 85));
    let pos = app.machines().iter().position(|&m| m == 2).unwrap();
    while app.cursor() < pos {
        cmd(&mut app, Command::Right);
    }
    let title = |app: &App| match app.popup() {
        Some(Popup::Detail { title, .. }) => title.clone(),
        other => panic!("{other:?}"),
    };
    cmd(&mut app, Command::Detail);
    let first = title(&app);
    assert!(first.contains("1 of ") && first.contains("here"), "{first}");
    let n: usize = first
        .split(" of ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(n >= 2);
    cmd(&mut app, Command::Right);
    let second = title(&app);
    assert!(second.contains(&format!("2 of {n} here")), "{second}");
    assert_ne!(
        first.split(" · ").next(),
        second.split(" · ").next(),
        "another job"
    );
    cmd(&mut app, Command::Left);
    assert_eq!(title(&app), first);
}
