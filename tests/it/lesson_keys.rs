//! A lesson's keys (issue 33 item 22): `>` goes to the next caption (the
//! next part); `.` to the next moment worth a look — a preemption burst, a
//! starving job, else the queue's peak — found ahead on a copy, the lesson's
//! schedule applied on the way.

use crate::common;

use common::ui::cmd;
use tracetui::sim::{next_moment, Engine, Moment, Placement, Policy};
use tracetui::ui::app::{Action, App};
use tracetui::ui::keymap::Command;

/// A lesson as `tracetui lesson NAME` plays it, at 100×30.
fn lesson(name: &str) -> App {
    common::ui::lesson_app(name, (100, 30))
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
    let found = next_moment(fresh.engine(), fresh.replay().switches(), 60, 1440);
    let Some(Moment::Starving { at, job, .. }) = found else {
        panic!("hol's big job starves under first-fit: {found:?}")
    };
    assert_eq!(app.engine().now(), at);
    let big = &app.trace().jobs[job as usize];
    assert_eq!(big.demand.total_milli(), 16_000, "{}", big.id);
    let id = &big.id;
    assert!(
        app.flash().unwrap().contains(&format!("{id} starving")),
        "{:?}",
        app.flash()
    );
}

/// The captions of a built-in lesson: (time, text).
fn captions(name: &str) -> Vec<(i64, String)> {
    tracetui::lesson::find(name).unwrap().captions
}

#[test]
fn less_than_after_two_greater_thans_restores_the_first_caption_s_moment() {
    let mut app = lesson("hol");
    let c = captions("hol");
    cmd(&mut app, Command::NextCaption);
    cmd(&mut app, Command::NextCaption);
    assert_eq!(app.engine().now(), c[1].0);
    let second_state = app.engine().queue_len();
    cmd(&mut app, Command::PrevCaption);
    assert_eq!(app.engine().now(), c[0].0);
    assert_eq!(app.caption(), Some(c[0].1.as_str()));
    assert!(app.paused());
    assert_eq!(
        app.flash().map(|f| f.starts_with("caption 1 of 12")),
        Some(true)
    );
    // And forward again: the same moment, the same state.
    cmd(&mut app, Command::NextCaption);
    assert_eq!(
        (app.engine().now(), app.engine().queue_len()),
        (c[1].0, second_state)
    );
    // Back from between two captions: first to the one due.
    app.update(Action::GoTo(c[1].0 + 30));
    cmd(&mut app, Command::PrevCaption);
    assert_eq!(app.engine().now(), c[1].0);
    cmd(&mut app, Command::PrevCaption);
    cmd(&mut app, Command::PrevCaption);
    assert_eq!(app.flash(), Some("that is the first caption"));
}

#[test]
fn no_caption_shows_before_its_moment() {
    let mut app = lesson("hol");
    let c = captions("hol");
    assert!(app.engine().now() < c[0].0);
    assert_eq!(app.caption(), None);
    let s = common::ui::text(&common::ui::render(&app, 100, 30));
    // Outside `L` PageDown scrolls lists, so the hint names `>` only;
    // in `L` both.
    assert!(s.contains("12 captions · >: the first"), "{s}");
    assert!(!s.contains(&c[0].1[..20]), "{s}");
    let mut lecture = lesson("hol");
    cmd(&mut lecture, Command::Lecture);
    let l = common::ui::text(&common::ui::render(&lecture, 100, 30));
    assert!(l.contains("12 captions · > or PageDown: the first"), "{l}");
    for w in c.windows(2) {
        app.update(Action::GoTo(w[1].0 - 1));
        assert_eq!(app.caption(), Some(w[0].1.as_str()), "before {}", w[1].0);
    }
}

#[test]
fn playing_stops_at_each_caption_paused() {
    let mut app = lesson("hol");
    let c = captions("hol");
    for (t, text) in &c {
        cmd(&mut app, Command::TogglePlay);
        assert!(!app.paused());
        // Long enough to pass the caption many times over.
        for _ in 0..50 {
            app.update(Action::Elapsed(30.0));
            if app.paused() {
                break;
            }
        }
        assert!(app.paused(), "did not stop at {t}");
        assert_eq!(app.engine().now(), *t);
        assert_eq!(app.caption(), Some(text.as_str()));
    }
}

#[test]
fn page_down_and_page_up_are_slides_in_the_lecture_layout() {
    let mut app = lesson("starvation");
    let c = captions("starvation");
    cmd(&mut app, Command::Lecture);
    cmd(&mut app, Command::PageDown);
    cmd(&mut app, Command::PageDown);
    assert_eq!(app.engine().now(), c[1].0);
    cmd(&mut app, Command::PageUp);
    assert_eq!(app.engine().now(), c[0].0);
    // Out of `L`, PageDown pages the lists as before.
    cmd(&mut app, Command::Lecture);
    cmd(&mut app, Command::PageDown);
    assert_eq!(app.engine().now(), c[0].0);
}

#[test]
fn a_click_on_any_line_of_a_taller_row_in_the_lecture_layout_picks_its_machine() {
    let mut app = lesson("hol");
    app.update(Action::GoTo(400));
    cmd(&mut app, Command::Lecture);
    cmd(&mut app, Command::Mouse);
    let s = common::ui::text(&common::ui::render(&app, 100, 30));
    // The second machine's cells (jobs 09–12), drawn on several lines.
    let lines: Vec<usize> = s
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("09·") && l.contains("10·"))
        .map(|(i, _)| i)
        .collect();
    assert!(lines.len() >= 2, "rows not taller:\n{s}");
    let row = *lines.last().unwrap() as u16;
    let column = s
        .lines()
        .nth(row as usize)
        .unwrap()
        .chars()
        .position(|c| c == '1')
        .unwrap() as u16;
    app.update(Action::Click { column, row });
    assert_eq!(app.cursor(), 1, "{s}");
}

#[test]
fn go_to_day_0_is_the_lesson_s_start_which_the_clock_shows_at_00_00() {
    let mut app = lesson("hol");
    let start = app.engine().now();
    app.update(Action::GoTo(3600));
    cmd(&mut app, Command::Goto);
    for ch in "day 0".chars() {
        app.update(Action::Char(ch));
    }
    cmd(&mut app, Command::Detail);
    assert_eq!(app.engine().now(), start);
    assert_eq!(app.flash(), Some("the trace begins at day 1 00:00:00"));
}

/// A preempted job's wait in the queue leaves out the time it ran, and
/// once it runs again its "started" counts from the resumption.
#[test]
fn a_preempted_job_waits_and_starts_as_it_did() {
    let mut app = lesson("starvation");
    // 01:25: job 03 (submitted at 2m) ran 15 minutes from 01:10, then
    // was preempted at 01:25… it has waited 1h08m, not 1h23m.
    app.update(Action::GoTo(5_100));
    let s = common::ui::text(&common::ui::render(&app, 100, 30));
    let row = s.lines().find(|l| l.contains("03·4g·3h")).unwrap_or("");
    assert!(row.contains("1h08m"), "{row}\n{s}");
    // 01:56: running again since 01:55.
    app.update(Action::GoTo(6_960));
    let s = common::ui::text(&common::ui::render(&app, 100, 30));
    let row = s.lines().find(|l| l.contains("03·4g·3h")).unwrap_or("");
    assert!(
        row.contains("1m00s") && !row.contains("46m00s"),
        "{row}\n{s}"
    );
}
