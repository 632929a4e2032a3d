//! The what-if fork: each row equals a fresh replay switched at the fork's
//! time; the replay's table fills in and Enter switches live; `compare
//! --from` is the same fork, headless.

use crate::common;

use common::tiny_rich;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tracetui::sim::{runs_for, Engine, Fork, Placement, Policy, WhatIfRun};
use tracetui::ui::app::{Action, App, Popup};
use tracetui::ui::effects::Effects;
use tracetui::ui::keymap::{Command, Keymap};

fn trace() -> Arc<tracetui::trace::Trace> {
    let jobs: Vec<(i64, i64, u32)> = (0..60)
        .map(|i| (i * 7 % 200, 20 + (i * 37 % 300), 1 + (i % 5) as u32))
        .collect();
    tiny_rich(&[8, 8], &jobs, 3, 4)
}

#[test]
fn every_row_equals_a_fresh_run_switched_at_the_fork() {
    let t = trace();
    let mut base = Engine::new(t.clone(), Policy::Fifo, Placement::Consolidate);
    base.advance_to(100);
    let runs = runs_for(&base, &[], &tracetui::sim::Policies::new());
    let names: Vec<String> = runs.iter().map(WhatIfRun::label).collect();
    assert_eq!(
        names,
        [
            "fifo",
            "first-fit",
            "fifo-backfill",
            "sjf",
            "sgf",
            "srtf",
            "las",
            "fair",
            "edf"
        ],
        "no recorded row: the trace records no starts"
    );
    let got = Fork::start(&base, runs.clone(), 2, &tracetui::sim::NoPrograms).wait();
    assert_eq!(got.len(), runs.len());
    for (run, r) in runs.iter().zip(&got) {
        let WhatIfRun::Policy(p) = run else {
            unreachable!()
        };
        let mut e = Engine::new(t.clone(), Policy::Fifo, Placement::Consolidate);
        e.advance_to(100);
        e.set_policy(*p);
        e.run_to_end();
        assert_eq!(&e.report(), r, "{p}");
    }
    assert!(got.iter().any(|r| r.preemptions > 0));
}

#[test]
fn the_table_fills_in_and_enter_switches_live() {
    let t = trace();
    let themes =
        vec![
            tracetui::ui::theme::Theme::embedded("mono", tracetui::ui::theme::Depth::None).unwrap(),
        ];
    let mut app = App::new(
        t,
        Policy::Fifo,
        Placement::Consolidate,
        "test".into(),
        themes,
        Keymap::defaults(),
    );
    app.update(Action::Resize(120, 40));
    app.update(Action::GoTo(100));
    // Through the runner's side, as in the replay: it starts the fork and
    // sends the rows back in as they arrive.
    let mut fx = Effects::new(std::env::temp_dir());
    fx.dispatch(&mut app, Action::Command(Command::WhatIf));
    assert_eq!(
        app.popup(),
        Some(&Popup::WhatIf {
            at: 0,
            charts: false
        })
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    while !app.what_if().unwrap().done() {
        assert!(Instant::now() < deadline, "what-if runs finish");
        fx.poll(&mut app);
        fx.dispatch(&mut app, Action::Elapsed(0.0));
        std::thread::sleep(Duration::from_millis(5));
    }
    let mut buf = ratatui::buffer::Buffer::empty(ratatui::layout::Rect::new(0, 0, 120, 40));
    tracetui::ui::draw::render(&app, buf.area, &mut buf);
    let text: String = (0..40)
        .map(|y| {
            (0..120)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
                + "\n"
        })
        .collect();
    insta::assert_snapshot!("what_if_table_120x40", text);
    assert!(text.contains("what if from"), "{text}");
    assert!(text.contains("9 of 9 done"), "{text}");
    assert!(text.contains("srtf") && text.contains("preempt"), "{text}");
    // The replay did not move while the fork ran.
    assert_eq!(app.replay().now(), 100);
    // Down to srtf (row 5) and Enter: the live replay switches.
    for _ in 0..5 {
        app.update(Action::Command(Command::Down));
    }
    app.update(Action::Command(Command::Detail));
    assert_eq!(app.popup(), None);
    assert_eq!(app.engine().policy(), Policy::Srtf);
    // `w` again at the same time reopens the same results.
    let u = fx.dispatch(&mut app, Action::Command(Command::WhatIf));
    assert!(u);
    assert!(app.what_if().unwrap().done());
}

/// Rows run one a core, but no more than fit in the memory given, and at
/// least one: a row is the engine's measured bytes plus three figures for
/// each job still to finish.
#[test]
fn rows_at_once_fit_the_room_given() {
    use tracetui::sim::rows_at_once;
    let t = trace();
    let mut base = Engine::new(t.clone(), Policy::Fifo, Placement::Consolidate);
    base.advance_to(100);
    let left = t.jobs.len() - base.jobs_done() as usize;
    let row = (base.held_bytes() + left * 24) as u64;
    assert_eq!(rows_at_once(8, &base, None), 8);
    assert_eq!(rows_at_once(8, &base, Some(u64::MAX)), 8);
    assert_eq!(rows_at_once(8, &base, Some(0)), 1);
    assert_eq!(rows_at_once(8, &base, Some(3 * row)), 3);
    assert_eq!(rows_at_once(8, &base, Some(3 * row - 1)), 2);
    assert_eq!(rows_at_once(2, &base, Some(3 * row)), 2);
}
