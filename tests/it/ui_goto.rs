//! `g` takes the times the screen shows (issue 33 item 16): the header's
//! own words typed back, a weekday and a time, a real date on Philly; past
//! the end it says where the trace ends instead of jumping into nothing.

use crate::common;

use common::ui::{act, app_for, cmd, render, sample, text};
use std::path::Path;
use tracetui::sim::Policy;
use tracetui::ui::app::{Action, App};
use tracetui::ui::keymap::Command;

/// `g`, `input`, Enter.
fn go(app: &mut App, input: &str) {
    cmd(app, Command::Goto);
    for ch in input.chars() {
        app.update(Action::Char(ch));
    }
    cmd(app, Command::Detail);
}

#[test]
fn past_the_end_it_says_where_the_trace_ends() {
    let mut app = app_for(sample(), Policy::Fifo, (80, 24));
    go(&mut app, "day 99");
    let e = app.engine();
    assert!(e.next_event_time().is_none(), "at the end");
    let end = e.tally().last_finish.unwrap();
    assert_eq!(e.now(), end, "not day 99");
    let said = app.flash().unwrap().to_string();
    assert_eq!(
        said,
        format!(
            "the trace ends at {}: nothing happens after",
            app.clock(end)
        )
    );
    go(&mut app, "day 2 -1");
    assert!(
        app.flash().unwrap().starts_with("'day 2 -1': try +2h"),
        "{:?}",
        app.flash()
    );
}

#[test]
fn the_headers_time_typed_back_goes_there_and_so_does_a_weekday() {
    let mut app = app_for(common::ui::pai_sample(), Policy::Recorded, (100, 30));
    let t0 = app.engine().now();
    act(&mut app, Action::GoTo(t0 + 86_400 + 5 * 3600 + 17));
    let (now, shown) = (app.engine().now(), app.clock(app.engine().now()));
    let header = text(&render(&app, 100, 30));
    assert!(
        header.lines().next().unwrap().contains(&shown),
        "{shown}\n{header}"
    );
    act(&mut app, Action::GoTo(t0));
    go(&mut app, &shown);
    assert_eq!(app.engine().now(), now, "{shown}");
    // A weekday and a time: the next such from now.
    let wd = &shown[..3];
    go(&mut app, &format!("{wd} 23:00"));
    let there = app.clock(app.engine().now());
    assert!(there.starts_with(&format!("{wd} 23:00:00 day ")), "{there}");
}

#[test]
fn philly_shows_real_dates_and_takes_them() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-traces/philly");
    let (trace, _) = tracetui::trace::load_philly(&dir, &Default::default()).unwrap();
    let mut app = app_for(std::sync::Arc::new(trace), Policy::Recorded, (100, 24));
    let head = text(&render(&app, 100, 24));
    assert!(
        head.lines()
            .next()
            .unwrap()
            .contains("Mon 2017-08-07 00:00:10 UTC-7"),
        "{head}"
    );
    go(&mut app, "2017-08-09 09:00");
    assert_eq!(app.clock(app.engine().now()), "Wed 2017-08-09 09:00:00");
    go(&mut app, "Thu 10:30");
    assert_eq!(app.clock(app.engine().now()), "Thu 2017-08-10 10:30:00");
}
