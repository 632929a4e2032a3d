//! Placement switched live and compared side by side (issue 33 item 23):
//! `o` changes the rule for the jobs started from now on, kept in the
//! replay's switches (going back and forth replays it; `S` says it);
//! the split's picker takes `o` for B's placement, so fragmentation shows
//! spread beside pack. Schedules take `placement=…` too.

use crate::common;

use common::split::split_with;
use common::ui::cmd;
use std::sync::Arc;
use tracetui::sim::{Placement, Policy, Schedule};
use tracetui::ui::app::{Action, App};
use tracetui::ui::keymap::Command;

/// The fragmentation lesson's trace and schedule, under spread.
fn lesson() -> App {
    let l = tracetui::lesson::find("fragmentation").unwrap();
    let trace = Arc::new(l.trace().0);
    let mut app = tracetui::ui::app::App::new(
        trace,
        Policy::FirstFit,
        Placement::Spread,
        "lesson".into(),
        common::ui::themes(),
        tracetui::ui::keymap::Keymap::defaults(),
    );
    app.update(Action::Resize(100, 30));
    app
}

#[test]
fn o_switches_the_placement_live_and_going_back_replays_it() {
    let mut app = lesson();
    app.update(Action::GoTo(600));
    // From spread, `o` goes through FGD's six sharing placements, then
    // back to consolidate.
    for p in &Placement::ALL[3..] {
        cmd(&mut app, Command::Placement);
        assert_eq!(app.engine().placement(), *p);
    }
    cmd(&mut app, Command::Placement);
    assert_eq!(app.engine().placement(), Placement::Consolidate);
    cmd(&mut app, Command::Placement);
    assert_eq!(app.engine().placement(), Placement::Pack);
    assert!(
        app.flash().unwrap().starts_with("placement pack from "),
        "{:?}",
        app.flash()
    );
    // Every 8-GPU job arriving from now starts on arrival, as under pack.
    app.update(Action::GoTo(3600));
    let e = app.engine();
    let t = app.trace();
    for (j, job) in t.jobs.iter().enumerate() {
        if job.submit > 600 && job.submit <= 3600 && job.demand.total_milli() == 8000 {
            assert_eq!(e.job_state(j as u32).start, job.submit, "8-GPU job {j}");
        }
    }
    // Back before the switch: spread again; forward: pack again.
    app.update(Action::GoTo(300));
    assert_eq!(app.engine().placement(), Placement::Spread);
    app.update(Action::GoTo(3600));
    assert_eq!(app.engine().placement(), Placement::Pack);
    let u = cmd(&mut app, Command::Schedule);
    let said = u.log_lines().join("\n");
    assert!(said.contains(":placement=pack"), "{said}");
}

#[test]
fn a_schedule_switches_placement() {
    let l = tracetui::lesson::find("fragmentation").unwrap();
    let trace = l.trace().0;
    let s = Schedule::parse(&trace, "start:first-fit,10m:placement=pack").unwrap();
    assert!(s.text().contains(":placement=pack"), "{}", s.text());
    assert_eq!(Schedule::parse(&trace, &s.text()).unwrap().text(), s.text());
    let e = Schedule::parse(&trace, "1h:placement=tight")
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown placement 'tight'"), "{e}");
}

#[test]
fn the_split_compares_placements() {
    let mut app = lesson();
    cmd(&mut app, Command::Split);
    // o past the six sharing placements: B places by consolidate, o
    // again: by pack; Enter on first-fit.
    for _ in 0..8 {
        cmd(&mut app, Command::Placement);
    }
    let Some(&tracetui::ui::app::Popup::Picker { at, .. }) = app.popup() else {
        panic!()
    };
    let n = tracetui::sim::Policies::new().all().len();
    let ff = tracetui::sim::Policies::new()
        .all()
        .iter()
        .position(|&p| p == Policy::FirstFit)
        .unwrap();
    for _ in 0..(ff + n - at) % n {
        cmd(&mut app, Command::Down);
    }
    cmd(&mut app, Command::Detail);
    let s = app.split().expect("a split of placements");
    assert_eq!(s.replay().engine().placement(), Placement::Pack);
    assert_eq!(app.engine().placement(), Placement::Spread);
    app.update(Action::GoTo(2400));
    let (a, b) = (app.engine(), app.split().unwrap().replay().engine());
    assert!(a.queue_len() > b.queue_len(), "spread waits, pack does not");
    let screen = common::ui::text(&common::ui::render(&app, 100, 30));
    assert!(screen.contains("A · first-fit · spread (live)"), "{screen}");
    assert!(screen.contains("B · first-fit · pack since"), "{screen}");
    // Without another placement, the live policy is refused for B.
    let mut again = lesson();
    split_with(&mut again, Policy::FirstFit);
    assert!(again.split().is_none());
    assert!(again
        .flash()
        .unwrap()
        .contains("or o for another placement"));
}
