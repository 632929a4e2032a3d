//! Policy schedules: parsing, headless runs, and a live session's switches
//! (`S` in the replay) giving the same metrics headless, byte for byte.

use crate::common;

use common::tiny;
use std::sync::Arc;
use tracetui::sim::{Engine, NoPrograms, Placement, Policy, Schedule, Switch, Tuning};
use tracetui::ui::app::{Action, App};
use tracetui::ui::keymap::{Command, Keymap};

/// The replay of `t` under fifo, with default knobs and `schedule`.
fn app(t: &Arc<tracetui::trace::Trace>, schedule: Option<&Schedule>) -> App {
    let themes =
        vec![
            tracetui::ui::theme::Theme::embedded("mono", tracetui::ui::theme::Depth::None).unwrap(),
        ];
    App::new(
        t.clone(),
        Policy::Fifo,
        Placement::Consolidate,
        "test".into(),
        themes,
        Keymap::defaults(),
    )
    .with_tuning(Arc::new(Tuning::default()), schedule)
}

#[test]
fn parses_every_time_form() {
    let t = Arc::new(tracetui::trace::sample_itp().unwrap().0);
    let first = t.first_submit().unwrap();
    let s = Schedule::parse(&t, "0:fifo, 2d:sjf, day 5 09:00:las, @100:srtf")
        .unwrap_err()
        .to_string();
    assert!(s.contains("before the item ahead of it"), "{s}");
    let s = Schedule::parse(&t, "0:fifo,2d:sjf,day 5 09:00:las").unwrap();
    assert_eq!(s.start, Some(Policy::Fifo));
    assert_eq!(
        s.switches,
        vec![
            (first + 2 * 86_400, Switch::Policy(Policy::Sjf)),
            (4 * 86_400 + 9 * 3600, Switch::Policy(Policy::Las)),
        ]
    );
    // Text round-trips.
    assert_eq!(Schedule::parse(&t, &s.text()).unwrap(), s);
    for (bad, why) in [
        ("fifo", "expected TIME:POLICY"),
        ("1h:lifo", "unknown policy 'lifo'"),
        ("soon:sjf", "try +2h"),
        ("1h:power=turbo", "unknown power policy"),
        ("", "empty policy schedule"),
    ] {
        let e = Schedule::parse(&t, bad).unwrap_err().to_string();
        assert!(e.contains(why), "{bad}: {e}");
    }
}

#[test]
fn a_schedule_switches_at_its_times() {
    // One GPU: three jobs queue behind the first. fifo until 50, then sjf.
    let t = tiny(&[1], &[(0, 100, 1), (1, 50, 1), (2, 30, 1), (3, 10, 1)]);
    let s = Schedule::parse(&t, "start:fifo,@50:sjf").unwrap();
    let r = s.run(
        Engine::new(t.clone(), Policy::Fifo, Placement::Consolidate),
        &NoPrograms,
    );
    assert_eq!(r.policy, "schedule start:fifo,@50:sjf");
    // At 100 sjf picks 10 s, then 30 s, then 50 s.
    let mut e = Engine::new(t.clone(), Policy::Fifo, Placement::Consolidate);
    e.advance_to(50);
    e.set_policy(Policy::Sjf);
    e.run_to_end();
    let mut want = e.report();
    want.policy = r.policy.clone();
    assert_eq!(r, want);
    assert_eq!(e.job_state(3).start, 100);
    assert_eq!(e.job_state(1).start, 140);
}

#[test]
fn the_live_session_replays_headless_byte_for_byte() {
    let t = Arc::new(tracetui::trace::sample_itp().unwrap().0);
    let mut app = app(&t, None);
    app.update(Action::Resize(120, 40));
    let first = t.first_submit().unwrap();
    // A session: play a while, switch to srtf, step back past it, switch to
    // las instead, go on, switch to first-fit, then play to the end.
    app.update(Action::GoTo(first + 86_400));
    let u = app.update(Action::SwitchPolicy(Policy::Srtf));
    assert!(
        u.log_lines()[0].ends_with(" policy fifo → srtf"),
        "{:?}",
        u.log_lines()
    );
    app.update(Action::GoTo(first + 2 * 86_400));
    app.update(Action::GoTo(first + 43_200));
    app.update(Action::SwitchPolicy(Policy::Las));
    app.update(Action::GoTo(first + 20 * 86_400 + 17));
    app.update(Action::SwitchPolicy(Policy::FirstFit));
    let u = app.update(Action::Command(Command::Schedule));
    let text = app.session_schedule();
    assert_eq!(
        text,
        format!(
            "start:fifo,@{}:las,@{}:first-fit",
            first + 43_200,
            first + 20 * 86_400 + 17
        )
    );
    assert!(app.flash().unwrap().contains(&text));
    let logged = format!("this session as a schedule: --policy-schedule '{text}'");
    assert_eq!(u.log_lines(), [logged.as_str()]);
    app.update(Action::GoTo(i64::MAX / 4));
    let mut live = app.engine().report();
    // Headless, as `sim --policy-schedule` runs it.
    let s = Schedule::parse(&t, &text).unwrap();
    let headless = s.run(
        Engine::new(t.clone(), s.start.unwrap(), Placement::Consolidate),
        &NoPrograms,
    );
    live.policy = headless.policy.clone();
    assert_eq!(
        serde_json::to_string(&live).unwrap(),
        serde_json::to_string(&headless).unwrap()
    );
    assert!(live.preemptions > 0, "las preempted");
}

#[test]
fn a_schedule_given_to_the_replay_is_followed() {
    let t = tiny(&[1], &[(0, 100, 1), (1, 50, 1), (2, 30, 1), (3, 10, 1)]);
    let s = Schedule::parse(&t, "start:fifo,@50:sjf").unwrap();
    let mut app = app(&t, Some(&s));
    app.update(Action::GoTo(49));
    assert_eq!(app.engine().policy(), Policy::Fifo);
    app.update(Action::GoTo(60));
    assert_eq!(app.engine().policy(), Policy::Sjf);
    app.update(Action::GoTo(1000));
    assert_eq!(app.engine().job_state(3).start, 100);
    // Stepping back before the switch and forward again keeps it.
    app.update(Action::GoTo(10));
    assert_eq!(app.engine().policy(), Policy::Fifo);
    app.update(Action::GoTo(1000));
    assert_eq!(app.engine().job_state(3).start, 100);
    assert_eq!(app.session_schedule(), "start:fifo,@50:sjf");
}
