//! What the lessons talk about, on screen (issue 33 item 20): EASY
//! backfill's reservation (its head marked `R` in the queue, its machines
//! `R` in the grid, "R: head reserved from …" under the lists); `las`'s
//! queue and attained service per waiting job; a job preempted before
//! marked `↺`.

use crate::common;

use common::tiny;
use common::ui::{app_for, render, text};
use tracetui::sim::Policy;
use tracetui::ui::app::Action;

#[test]
fn the_backfill_reservation_is_marked() {
    // 8 GPUs: a 4-GPU job until 100; the 8-GPU head waits for it; a 4-GPU
    // job of 200 s fits now but would delay the head: it waits too.
    let trace = tiny(&[8], &[(0, 100, 4), (1, 100, 8), (2, 200, 4)]);
    let mut app = app_for(trace, Policy::FifoBackfill, (100, 30));
    app.update(Action::GoTo(10));
    let r = app.engine().reserved().expect("a reservation for the head");
    assert_eq!(
        (r.head, r.from, r.machines.clone()),
        (1, Some(100), vec![0])
    );
    let s = text(&render(&app, 100, 30));
    assert!(
        s.lines().any(|l| l.contains("│Rj1 ")),
        "the head marked:\n{s}"
    );
    assert!(s.contains("R: reserved from day 1 00:01:40"), "{s}");
    let wide = text(&render(&app, 200, 30));
    assert!(
        wide.contains("R: head reserved from day 1 00:01:40"),
        "{wide}"
    );
    // Its machine is marked in the grid (where the cursor is not): two
    // machines of 8, each with a 6-GPU job; the 8-GPU head waits for the
    // first to end (machine 0, at 100).
    let jobs = [(0, 100, 6), (0, 200, 6), (1, 100, 8)];
    let mut two = app_for(tiny(&[8, 8], &jobs), Policy::FifoBackfill, (100, 30));
    two.update(Action::GoTo(10));
    assert_eq!(two.engine().reserved().unwrap().machines, vec![0]);
    common::ui::cmd(&mut two, tracetui::ui::keymap::Command::Right);
    let g = text(&render(&two, 100, 30));
    assert!(
        g.lines().any(|l| l.starts_with("│R████████████····▸")),
        "{g}"
    );
    // Once the head starts, the reservation is the next head's: the 4-GPU
    // job waits for it to end.
    app.update(Action::GoTo(150));
    let r = app.engine().reserved().unwrap();
    assert_eq!((r.head, r.from), (2, Some(200)));
    // With nothing waiting, none.
    app.update(Action::GoTo(250));
    assert!(app.engine().reserved().is_none());
    assert!(!text(&render(&app, 100, 30)).contains("reserved from"));
}

#[test]
fn las_shows_queue_and_service_and_preempted_jobs_are_marked() {
    // One GPU: a long job runs; a short one arrives and, having had no
    // service, preempts it once the long one has had more than the first
    // queue's share.
    let trace = tiny(&[1], &[(0, 100_000, 1), (7200, 600, 1)]);
    let mut app = app_for(trace, Policy::Las, (100, 30));
    app.update(Action::GoTo(7300));
    let e = app.engine();
    assert_eq!(e.tally().preemptions, 1, "the long job was preempted");
    assert_eq!(e.queue_in_order(5), vec![0]);
    let s = text(&render(&app, 100, 30));
    assert!(s.contains("queue"), "the column's head:\n{s}");
    let row = s
        .lines()
        .find(|l| l.contains("│↺j0 "))
        .unwrap_or_else(|| panic!("j0 marked:\n{s}"));
    assert!(
        row.contains(" Q1 2h00m"),
        "queue 1, two hours of GPU service: {row}"
    );
}
