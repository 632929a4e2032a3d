//! The drill-down starts with an answer (issue 33 items 15 and 11): a
//! summary card — state, submitted, waited, ran, machines, measured GPU
//! utilisation, and for a waiting job its place in the queue and what
//! keeps it waiting — then the raw join; long lines wrap at their value's
//! column; `e` saves the whole drill-down.

use crate::common;

use common::tiny;
use common::ui::{act, app_for, cmd, render, sample, text};
use tracetui::sim::{Blocked, Engine, Placement, Policy};
use tracetui::ui::app::{Action, App, Popup};
use tracetui::ui::keymap::Command;

/// `e` at `t` under `p` with `(submit, run time, GPUs)` jobs on machines.
fn at(machines: &[u32], jobs: &[(i64, i64, u32)], p: Policy, t: i64) -> Engine {
    let mut e = Engine::new(tiny(machines, jobs), p, Placement::Consolidate);
    e.advance_to(t);
    e
}

#[test]
fn why_a_job_waits_in_each_case() {
    // Too few GPUs: 2 of 8 free, it needs 4.
    let e = at(&[8], &[(0, 100, 6), (1, 100, 4)], Policy::Fifo, 10);
    assert_eq!(e.blocked(1), Some(Blocked::Room { needs: 4, free: 2 }));
    // Enough GPUs, none together: 2 + 2 free, it needs 4 on one machine.
    let e = at(
        &[8, 8],
        &[(0, 100, 6), (0, 100, 6), (1, 100, 4)],
        Policy::Fifo,
        10,
    );
    assert_eq!(
        e.blocked(2),
        Some(Blocked::Locality {
            block: 4,
            largest: 2
        })
    );
    // Its turn: FIFO stops at the 8-GPU head; the 1-GPU job behind it fits.
    let e = at(
        &[8],
        &[(0, 100, 4), (1, 100, 8), (2, 100, 1)],
        Policy::Fifo,
        10,
    );
    assert_eq!(e.blocked(2), Some(Blocked::Turn { head: 1 }));
    assert_eq!(e.blocked(1), Some(Blocked::Room { needs: 8, free: 4 }));
    assert_eq!(e.blocked(0), None, "a running job does not wait");
    // The reservation: the head starts at 100; a 4-GPU job of 200 s fits
    // now but would hold its GPUs past then.
    let e = at(
        &[8],
        &[(0, 100, 4), (1, 100, 8), (2, 200, 4)],
        Policy::FifoBackfill,
        10,
    );
    assert_eq!(
        e.blocked(2),
        Some(Blocked::Reservation {
            head: 1,
            shadow: Some(100)
        })
    );
}

/// The sample at day 10 12:00 under FIFO: a waiting job's card says its
/// place, its wait and what it waits for, every duration readable.
#[test]
fn the_card_of_a_waiting_job_answers_first() {
    let mut app = app_for(sample(), Policy::Fifo, (80, 24));
    act(&mut app, Action::GoTo(9 * 86_400 + 12 * 3600));
    let e = app.engine();
    let q = e.queue_in_order(2);
    let head = &app.trace().jobs[q[0] as usize].id;
    let card = app.job_card(q[1]);
    assert!(
        card[0].starts_with("state      waiting 16h51m · 1 GPU"),
        "{card:#?}"
    );
    assert!(card
        .iter()
        .any(|l| l == "queue      2nd of 36 waiting under fifo: 1 job ahead"));
    let waits = card.iter().find(|l| l.starts_with("waits for")).unwrap();
    assert!(
        waits.contains("fits now, but fifo starts jobs in order"),
        "{waits}"
    );
    assert!(
        waits.contains(&format!("the head, {}… (64 GPU)", &head[..12])),
        "{waits}"
    );
    // On screen: the card on top of the drill-down, the raw join below.
    open_detail_of(&mut app, q[1]);
    let s = text(&render(&app, 80, 24));
    assert!(s.contains("│state      waiting 16h51m"), "{s}");
    assert!(
        s.contains("── the replay's and the trace's records ──"),
        "{s}"
    );
    insta::assert_snapshot!("card_waiting_80x24", s);
    app.update(Action::Resize(120, 40));
    insta::assert_snapshot!("card_waiting_120x40", text(&render(&app, 120, 40)));
}

/// The drill-down of `job`, as Enter opens it on the queue.
fn open_detail_of(app: &mut App, job: u32) {
    cmd(app, Command::Focus);
    let pos = app
        .engine()
        .queue_in_order(100)
        .iter()
        .position(|&j| j == job)
        .unwrap();
    for _ in 0..pos {
        cmd(app, Command::Down);
    }
    cmd(app, Command::Detail);
    assert!(
        matches!(app.popup(), Some(Popup::Detail { .. })),
        "{:?}",
        app.popup()
    );
}

/// A running job: since when, on which machines, when it ends.
#[test]
fn the_card_of_a_running_job() {
    let mut app = app_for(sample(), Policy::Fifo, (80, 24));
    act(&mut app, Action::GoTo(9 * 86_400 + 12 * 3600));
    let &j = app.engine().running().keys().next().unwrap();
    let st = app.engine().job_state(j);
    let card = app.job_card(j);
    assert!(card[0].starts_with("state      running "), "{card:#?}");
    let waited = card.iter().find(|l| l.starts_with("waited")).unwrap();
    let submit = app.trace().jobs[j as usize].submit;
    assert!(st.start >= submit);
    assert!(waited.len() > "waited     ".len(), "{waited}");
    assert!(card
        .iter()
        .any(|l| l.starts_with("ran        ") && l.contains("so far · ends in")));
    assert!(
        card.iter()
            .any(|l| l.starts_with("machines   2 (n0002, n0003)")),
        "{card:#?}"
    );
    assert!(!card.iter().any(|l| l.starts_with("waits for")));
}

/// A PAI job in the recorded replay: its measured utilisation (once the
/// sensor table is indexed) and its recorded start.
#[test]
fn a_recorded_pai_job_says_its_wait_is_the_record() {
    let trace = common::ui::pai_sample();
    let mut app = app_for(trace, Policy::Recorded, (100, 30));
    let day2 = app.engine().now() + 86_400;
    act(&mut app, Action::GoTo(day2));
    let q = app.engine().queue_in_order(1);
    let &j = q.first().expect("a job waits for its recorded start");
    match app.engine().blocked(j) {
        Some(Blocked::Record { start: Some(s) }) => assert!(s > app.engine().now()),
        other => panic!("{other:?}"),
    }
    let card = app.job_card(j);
    let waits = card.iter().find(|l| l.starts_with("waits for")).unwrap();
    assert!(
        waits.contains("in a recorded replay the wait is the record"),
        "{waits}"
    );
}

/// A long line wraps at its value's column: nothing is cut, the label
/// column stays clear.
#[test]
fn long_lines_wrap_under_their_value() {
    let mut app = app_for(sample(), Policy::Fifo, (80, 24));
    act(&mut app, Action::GoTo(9 * 86_400 + 12 * 3600));
    let q = app.engine().queue_in_order(2);
    open_detail_of(&mut app, q[1]);
    let s = text(&render(&app, 80, 24));
    let rows: Vec<&str> = s.lines().collect();
    let at = rows
        .iter()
        .position(|l| l.contains("│waits for  its turn"))
        .unwrap();
    let next = rows[at + 1];
    let inner = next.split('│').nth(2).unwrap();
    assert!(inner.starts_with("           the head"), "{next}");
}

/// `e` with a drill-down open saves every line of it, not only those shown.
#[test]
fn e_saves_the_whole_drill_down() {
    let mut app = app_for(sample(), Policy::Fifo, (80, 24));
    act(&mut app, Action::GoTo(9 * 86_400 + 12 * 3600));
    let q = app.engine().queue_in_order(2);
    open_detail_of(&mut app, q[1]);
    let u = cmd(&mut app, Command::Export);
    assert!(
        u.effects.contains(&tracetui::ui::app::Effect::Export),
        "{:?}",
        u.effects
    );
    let dir = common::scratch_dir("card-export");
    let (_, _, detail) = tracetui::ui::effects::export_to(&app, &dir).unwrap();
    let saved = std::fs::read_to_string(detail.expect("the drill-down saved")).unwrap();
    let Some(Popup::Detail { lines, .. }) = app.popup() else {
        panic!()
    };
    assert!(lines.len() > 20, "more lines than the box shows");
    for l in lines {
        assert!(saved.contains(l.as_str()), "{l}");
    }
    assert!(saved.starts_with("job "), "{saved}");
}

/// A PAI drill-down opened while the side tables are indexed says so, with
/// how far it has got, and is read again when they are (issue 33 item 9:
/// it showed `sensor -` and never refreshed).
#[test]
fn a_drill_down_opened_while_indexing_refreshes_when_done() {
    let trace = common::ui::pai_sample();
    let mut app = app_for(trace.clone(), Policy::Fifo, (100, 30));
    let noon = app.engine().now() + 12 * 3600;
    act(&mut app, Action::GoTo(noon));
    let &j = app.engine().running().keys().next().unwrap();
    let card = app.job_card(j);
    let measured = card
        .iter()
        .find(|l| l.starts_with("measured"))
        .expect("{card:#?}");
    assert!(
        measured.contains("indexing sensor and metric tables… 0 %: this drill-down refreshes"),
        "{measured}"
    );
    // Opened on the grid's machine of that job, then the index arrives.
    let at = app.engine().now();
    app.update(Action::JobDetailRead {
        job: j,
        at,
        record: serde_json::json!({}),
    });
    assert!(matches!(app.popup(), Some(Popup::Detail { job: Some(x), .. }) if *x == j));
    let util = trace.native.as_ref().unwrap().build_indexes().unwrap();
    let u = act(&mut app, Action::Indexed(Ok(util.map(std::sync::Arc::new))));
    assert!(u.effects.iter().any(|e| matches!(e,
        tracetui::ui::app::Effect::ReadJobDetail { job, .. } if *job == j)));
    let Some(Popup::Detail {
        lines,
        job: Some(x),
        ..
    }) = app.popup()
    else {
        panic!("read again: {:?}", app.popup())
    };
    assert_eq!(*x, j);
    assert!(
        lines.iter().any(|l| l.starts_with("GPU util   ")),
        "{lines:#?}"
    );
    assert!(!lines.iter().any(|l| l.starts_with("measured")));
    assert!(
        !lines.iter().any(|l| l.contains("still being indexed")),
        "{lines:#?}"
    );
}
