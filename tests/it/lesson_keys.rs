//! A lesson's keys (issue 33 item 22): `>` goes to the next caption (the
//! next part); `.` to the next moment worth a look — a preemption burst, a
//! starving job, else the queue's peak — found ahead on a copy, the lesson's
//! schedule applied on the way.

use crate::common;

use common::ui::cmd;
use std::sync::Arc;
use tracetui::sim::{next_moment, Engine, Moment, Placement, Policy, Schedule};
use tracetui::ui::app::{Action, App};
use tracetui::ui::keymap::Command;

/// A lesson as `tracetui lesson NAME` plays it.
fn lesson(name: &str) -> App {
    let l = tracetui::lesson::find(name).unwrap();
    let trace = Arc::new(l.trace().0);
    let s = Schedule::parse(&trace, &l.schedule).unwrap();
    let mut app = App::new(
        trace,
        s.start.unwrap(),
        l.placement,
        "lesson".into(),
        common::ui::themes(),
        tracetui::ui::keymap::Keymap::defaults(),
    )
    .with_tuning(Default::default(), Some(&s))
    .with_captions(l.captions.clone());
    app.update(Action::Resize(100, 30));
    app
}

#[test]
fn greater_than_steps_through_the_captions() {
    let mut app = lesson("hol");
    let times: Vec<i64> = tracetui::lesson::find("hol")
        .unwrap()
        .captions
        .iter()
        .map(|c| c.0)
        .collect();
    // The replay begins just before the first submission: the first `>` is to 0.
    for &t in &times {
        cmd(&mut app, Command::NextCaption);
        assert_eq!(app.engine().now(), t);
        assert_eq!(
            app.caption(),
            tracetui::lesson::find("hol")
                .unwrap()
                .captions
                .iter()
                .find(|c| c.0 == t)
                .map(|c| c.1.as_str())
        );
    }
    cmd(&mut app, Command::NextCaption);
    assert_eq!(app.flash(), Some("that was the last caption"));
}

#[test]
fn dot_finds_the_starvation_guard_s_preemptions_and_the_queue_peak() {
    // Starvation under the lesson's schedule (sjf, then las at 1h).
    let app = lesson("starvation");
    let plan = app.replay().switches().to_vec();
    let m = next_moment(app.engine(), &plan, 60, 1440).expect("a moment");
    // Checked against the replay itself at that time.
    let mut e = Engine::new(app.trace().clone(), Policy::Sjf, Placement::Consolidate);
    let mut at = 0;
    for (t, s) in &plan {
        if *t <= m.at() {
            e.advance_to(*t);
            e.switch(*s);
            at = *t;
        }
    }
    assert!(at <= m.at());
    e.advance_to(m.at());
    match m {
        Moment::Starving { job, waited, .. } => {
            let j = &app.trace().jobs[job as usize];
            assert!(
                waited > 3600 && waited > 3 * j.runtime.get().unwrap(),
                "{waited}"
            );
            assert_eq!(e.job_state(job).phase, tracetui::sim::Phase::Queued);
        }
        Moment::Preemptions { n, at } => {
            assert!(n >= 3, "{n} at {at}");
            assert!(e.tally().preemptions >= n);
        }
        Moment::QueuePeak { len, at } => assert_eq!(e.queue_len(), len, "at {at}"),
    }
    // `.` goes there and says what it found.
    let mut app = lesson("hol");
    cmd(&mut app, Command::NextMoment);
    let fresh = lesson("hol");
    let Some(Moment::QueuePeak { at, len }) =
        next_moment(fresh.engine(), fresh.replay().switches(), 60, 1440)
    else {
        panic!("hol's queue peaks")
    };
    assert_eq!(app.engine().now(), at);
    assert_eq!(app.engine().queue_len(), len);
    assert!(
        app.flash()
            .unwrap()
            .contains(&format!("the queue's peak in the next day: {len} waiting")),
        "{:?}",
        app.flash()
    );
}
