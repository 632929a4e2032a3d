//! An elastic replay at 80×24: a job shrinking shows in the grid, the
//! running list (GPUs it holds now, not what it asked for) and the log.

use crate::common;
use common::ui::{act, app_for, render, text};
use std::sync::Arc;
use tracetui::sim::Policy;
use tracetui::trace::{load_itp, LoadOptions, ThroughputTables};
use tracetui::ui::action::Action;
use tracetui::ui::keymap::Command;

/// The two-job elastic trace below, under edf-elastic at 80×24.
fn elastic_app() -> tracetui::ui::app::App {
    // a asks for 1 GPU but gets all 4; b (due first, at most 2) arrives at 10.
    let (trace, tables) = common::two_elastic_jobs("ui-elastic");
    let opts = LoadOptions {
        gpus: Some(4),
        gpus_per_node: 4,
        ..LoadOptions::default()
    };
    let (mut t, _) = load_itp(&trace, &opts).unwrap();
    let tables = ThroughputTables::load(&tables, None).unwrap();
    tracetui::trace::attach_speeds(&mut t, vec![tables]).unwrap();
    app_for(Arc::new(t), Policy::EdfElastic, (80, 24))
}

#[test]
fn a_resize_shows_in_the_grid_the_running_list_and_the_log() {
    let mut app = elastic_app();
    app.update(Action::GoTo(5));
    let before = text(&render(&app, 80, 24));
    assert!(before.contains("4/4 busy"), "{before}");
    assert!(
        before
            .lines()
            .any(|l| l.contains("│▸a ") && l.contains(" 4 ")),
        "a holds 4 GPUs though it asked for 1:\n{before}"
    );
    // One tick (a minute): b arrives at 10 and waits for the round at 60
    // (ElasticFlow's slot), where a shrinks; logged one line each.
    let u = act(&mut app, Action::Command(Command::Step));
    let lines = u.log_lines();
    let after = text(&render(&app, 80, 24));
    let logged = |what: &str| lines.iter().any(|l| l.ends_with(what));
    assert!(logged("00:01:00 shrank a · 4→2 GPUs"), "{lines:?}");
    assert!(logged("00:01:00 started b · 2 GPUs"), "{lines:?}");
    assert!(
        after.lines().any(|l| l.contains("a ") && l.contains(" 2 ")),
        "{after}"
    );
}

#[test]
fn the_drill_down_shows_work_speed_deadline_and_slack_and_the_queue_deadlines() {
    let mut app = elastic_app();
    app.update(Action::GoTo(30));
    // b arrived at 10 and waits for the round at 60: the queue orders by
    // deadline and says when it is due (5000 − 30 s).
    let screen = text(&render(&app, 80, 24));
    assert!(screen.contains("due in"), "{screen}");
    assert!(
        screen
            .lines()
            .any(|l| l.contains("b ") && l.contains("1h22m")),
        "{screen}"
    );
    // a runs on 4 GPUs at 5 it/s from 0: 150 of its 1000 iterations done,
    // ends at 200; its deadline is 9999, so 9999 − 30 − 170 s to spare.
    let a = app.detail_lines(0, serde_json::json!({})).join("\n");
    for want in [
        "150 done of 1000 (850 left)",
        "5.000 iterations/s on 4 GPUs",
        "(9799 s) at its speed now",
        "deadline",
    ] {
        assert!(a.contains(want), "{want}: {a}");
    }
    // b, waiting: 3000 iterations at 1 it/s on the 1 GPU it asks for.
    let b = app.detail_lines(1, serde_json::json!({})).join("\n");
    for want in [
        "0 done of 3000 (3000 left)",
        "+32m50s (1970 s) if it started now on the GPUs it asks for",
    ] {
        assert!(b.contains(want), "{want}: {b}");
    }
    assert!(!b.contains("speed_now"), "{b}");
    // Once a is done, whether it met its deadline.
    app.update(Action::GoTo(3600));
    let a = app.detail_lines(0, serde_json::json!({})).join("\n");
    assert!(a.contains("met: +"), "{a}");
}

#[test]
fn the_ab_split_runs_edf_elastic_against_edf_and_each_side_is_a_fresh_run() {
    let mut app = elastic_app();
    app.update(Action::GoTo(5));
    common::split::split_with(&mut app, Policy::Edf);
    app.update(Action::GoTo(20_000));
    let a = app.engine();
    let b = app.split().expect("split open").replay().engine();
    let fresh = |p: Policy| {
        let mut e = tracetui::sim::Engine::new(
            a.trace().clone(),
            Policy::EdfElastic,
            tracetui::sim::Placement::Consolidate,
        );
        e.advance_to(5);
        if p != Policy::EdfElastic {
            e.switch(tracetui::sim::Switch::Policy(p));
        }
        e.advance_to(20_000);
        serde_json::to_string(&e.report()).unwrap()
    };
    let (ra, rb) = (a.report(), b.report());
    assert_eq!(
        serde_json::to_string(&ra).unwrap(),
        fresh(Policy::EdfElastic)
    );
    assert_eq!(serde_json::to_string(&rb).unwrap(), fresh(Policy::Edf));
    // The elastic side resized a; rigid edf ran each job on what it asked.
    assert!(
        ra.resizes > 0 && rb.resizes == 0,
        "{} {}",
        ra.resizes,
        rb.resizes
    );
    assert_ne!(a.job_state(1).end, b.job_state(1).end);
    let screen = text(&render(&app, 80, 24));
    assert!(
        screen.contains("EDF-ELASTIC") || screen.contains("edf-elastic"),
        "{screen}"
    );
}

/// The what-if table counts the jobs a policy dropped: elasticflow
/// declines b (its deadline, a second after it arrives, cannot be met).
#[test]
fn the_what_if_table_counts_dropped_jobs() {
    let (trace, tables) = common::elastic_jobs(
        "ui-elastic-drop",
        "a,0,1000,m,9999,32,1,999\nb,100,3000,m,101,2,1,999\n",
    );
    let opts = LoadOptions {
        gpus: Some(4),
        gpus_per_node: 4,
        ..LoadOptions::default()
    };
    let (mut t, _) = load_itp(&trace, &opts).unwrap();
    tracetui::trace::attach_speeds(&mut t, vec![ThroughputTables::load(&tables, None).unwrap()])
        .unwrap();
    let mut app = app_for(Arc::new(t), Policy::ElasticFlow, (120, 40));
    let mut fx = tracetui::ui::effects::Effects::new(std::env::temp_dir());
    fx.dispatch(&mut app, Action::Command(Command::WhatIf));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !app.what_if().unwrap().done() {
        assert!(std::time::Instant::now() < deadline, "what-if runs finish");
        fx.poll(&mut app);
        fx.dispatch(&mut app, Action::Elapsed(0.0));
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let screen = text(&render(&app, 120, 40));
    let head = screen.lines().find(|l| l.contains("JCT mean")).unwrap();
    assert!(head.contains("drop"), "{screen}");
    let row = |name: &str| {
        screen
            .lines()
            .find(|l| l.contains(&format!("{name} ")) && l.contains('%'))
            .unwrap_or_else(|| panic!("no {name} row:\n{screen}"))
            .to_string()
    };
    let cell = |line: &str| {
        let at = head.find("drop").unwrap();
        line[..]
            .chars()
            .skip(head[..at].chars().count())
            .take(4)
            .collect::<String>()
    };
    assert_eq!(cell(&row("elasticflow")).trim(), "1", "{screen}");
    assert_eq!(cell(&row("edf-elastic")).trim(), "0", "{screen}");
}
