//! Driving the replay through `update`, as the keys do: play, pause and
//! step, speed and tick size, the policy picker, find and go to, the
//! selection and its drill-down, focus, quitting; the effects `update`
//! leaves to the runner (the what-if fork, exports).

use crate::common;

use common::ui::{app_for, cmd, pai, render, sample, text, T0};
use tracetui::sim::{Phase, Policy};
use tracetui::ui::app::{
    Action, App, ColorBy, Effect, Exported, Focus, Popup, Quit, SPEEDS, TICKS,
};
use tracetui::ui::effects::Effects;
use tracetui::ui::keymap::Command;

#[test]
fn play_pause_step_and_step_back() {
    let mut app = app_for(sample(), Policy::Fifo, (120, 40));
    let start = app.engine().now();
    assert!(app.paused());
    cmd(&mut app, Command::TogglePlay);
    assert!(!app.paused());
    // x60, 1-minute ticks: one tick per wall second; from the start the
    // first lands on the clock's next minute (:00, not :59).
    app.update(Action::Elapsed(2.5));
    let two = (start.div_euclid(60) + 2) * 60;
    assert_eq!(app.engine().now(), two);
    cmd(&mut app, Command::Step);
    assert!(app.paused(), "stepping pauses");
    assert_eq!(app.engine().now(), two + 60);
    app.update(Action::Elapsed(10.0));
    assert_eq!(app.engine().now(), two + 60, "paused: time stands still");
    cmd(&mut app, Command::StepBack);
    assert_eq!(app.engine().now(), two);
    cmd(&mut app, Command::StepBack);
    cmd(&mut app, Command::StepBack);
    cmd(&mut app, Command::StepBack);
    assert_eq!(app.engine().now(), start, "not before the start");
    assert!(
        app.flash().unwrap_or("").contains("start"),
        "{:?}",
        app.flash()
    );
}

#[test]
fn speed_and_tick_clamp_at_their_ends() {
    let mut app = app_for(sample(), Policy::Fifo, (120, 40));
    for _ in 0..40 {
        cmd(&mut app, Command::Faster);
        cmd(&mut app, Command::TickUp);
    }
    assert_eq!(app.speed_and_tick(), (SPEEDS.len() - 1, TICKS.len() - 1));
    for _ in 0..40 {
        cmd(&mut app, Command::Slower);
        cmd(&mut app, Command::TickDown);
    }
    assert_eq!(app.speed_and_tick(), (0, 0));
    // The last tick is "next event": a step lands on it, a step back returns.
    for _ in 1..TICKS.len() {
        cmd(&mut app, Command::TickUp);
    }
    assert_eq!(app.speed_and_tick().1, TICKS.len() - 1);
    let start = app.engine().now();
    let next = app.engine().next_event_time().unwrap();
    cmd(&mut app, Command::Step);
    assert_eq!(app.engine().now(), next);
    cmd(&mut app, Command::Step);
    assert!(app.engine().now() > next);
    cmd(&mut app, Command::StepBack);
    assert_eq!(app.engine().now(), next);
    cmd(&mut app, Command::StepBack);
    assert_eq!(app.engine().now(), start);
}

#[test]
fn the_policy_picker_switches_live_and_the_header_says_so() {
    let mut app = app_for(sample(), Policy::Fifo, (120, 40));
    app.update(Action::GoTo(app.engine().now() + 86_400 * 3));
    cmd(&mut app, Command::Policy);
    assert_eq!(
        app.popup(),
        Some(&Popup::Picker {
            at: 1,
            split: false
        }),
        "opens on the current policy"
    );
    for _ in 0..3 {
        cmd(&mut app, Command::Down);
    }
    cmd(&mut app, Command::Detail);
    assert_eq!(app.popup(), None);
    assert_eq!(app.engine().policy(), Policy::Sjf);
    assert_eq!(app.replay().switches().len(), 1);
    let t = text(&render(&app, 120, 40));
    assert!(t.contains("SJF since"), "{t}");
    assert!(t.contains("order sjf"), "{t}");
    // recorded is refused on a trace that records no starts.
    cmd(&mut app, Command::Policy);
    cmd(&mut app, Command::Up);
    cmd(&mut app, Command::Up);
    cmd(&mut app, Command::Up);
    cmd(&mut app, Command::Up);
    cmd(&mut app, Command::Detail);
    assert_eq!(app.engine().policy(), Policy::Sjf);
    assert!(app.flash().unwrap().contains("no recorded start times"));
}

#[test]
fn find_a_job_or_a_machine_and_go_to_a_time() {
    let mut app = app_for(pai(), Policy::Recorded, (120, 40));
    app.update(Action::GoTo(T0 + 100));
    cmd(&mut app, Command::Find);
    for ch in "j10".chars() {
        app.update(Action::Char(ch));
    }
    cmd(&mut app, Command::Detail);
    let j10 = app.trace().jobs.iter().position(|j| j.id == "j10").unwrap() as u32;
    assert_eq!(app.selected(), Some(j10));
    assert_eq!(
        app.machines()[app.cursor()],
        0,
        "cursor on j10's machine m1"
    );
    cmd(&mut app, Command::Find);
    for ch in "m3".chars() {
        app.update(Action::Char(ch));
    }
    cmd(&mut app, Command::Detail);
    assert_eq!(app.machines()[app.cursor()], 2);
    cmd(&mut app, Command::Find);
    app.update(Action::Char('z'));
    app.update(Action::Backspace);
    app.update(Action::Char('q'));
    cmd(&mut app, Command::Detail);
    assert!(app
        .flash()
        .unwrap()
        .contains("no job, machine, user or group matches 'q'"));
    cmd(&mut app, Command::Goto);
    for ch in "day 1 02:00".chars() {
        app.update(Action::Char(ch));
    }
    cmd(&mut app, Command::Detail);
    assert_eq!(app.engine().now(), T0 - 479 + 7200);
    cmd(&mut app, Command::Goto);
    for ch in "-1h".chars() {
        app.update(Action::Char(ch));
    }
    cmd(&mut app, Command::Detail);
    assert_eq!(app.engine().now(), T0 - 479 + 3600);
    cmd(&mut app, Command::Goto);
    for ch in "whenever".chars() {
        app.update(Action::Char(ch));
    }
    cmd(&mut app, Command::Detail);
    assert!(app.flash().unwrap().contains("try +2h"));
}

#[test]
fn selection_follows_the_cursor_and_the_drill_down_opens() {
    let mut app = app_for(pai(), Policy::Recorded, (120, 40));
    app.update(Action::GoTo(T0 + 45));
    cmd(&mut app, Command::Right); // m2 (T4): j02 and j03 share GPU 0
    let id = |a: &App| a.selected().map(|j| a.trace().jobs[j as usize].id.clone());
    assert_eq!(
        id(&app).as_deref(),
        Some("j02"),
        "largest holder, then the lower job index"
    );
    cmd(&mut app, Command::Detail);
    let Some(Popup::Detail { lines, .. }) = app.popup() else {
        panic!("{:?}", app.popup())
    };
    let all = lines.join("\n");
    assert!(
        all.lines()
            .any(|l| l.trim_start().starts_with("phase") && l.ends_with(" running")),
        "{all}"
    );
    assert!(all.contains("job_name          j02"), "{all}");
    assert!(
        all.contains("start_time_local  Mon 00:08:19 day 1"),
        "{all}"
    );
    cmd(&mut app, Command::Close);
    assert_eq!(app.popup(), None);
    cmd(&mut app, Command::Left);
    assert_eq!(app.machines()[app.cursor()], 0);
}

#[test]
fn focus_cycles_and_the_queue_selects_jobs() {
    let mut app = app_for(sample(), Policy::Fifo, (120, 40));
    app.update(Action::GoTo(app.engine().now() + 86_400 * 10));
    assert!(
        app.engine().queue_len() > 0,
        "the fifo sample has a queue by day 11"
    );
    cmd(&mut app, Command::Focus);
    assert_eq!(app.focus(), Focus::Queue);
    cmd(&mut app, Command::Down);
    let queued = app.engine().queue_in_order(2);
    assert_eq!(app.selected(), Some(queued[1]));
    assert_eq!(app.engine().job_state(queued[1]).phase, Phase::Queued);
    cmd(&mut app, Command::Focus);
    assert_eq!(app.focus(), Focus::Log);
    cmd(&mut app, Command::Focus);
    assert_eq!(app.focus(), Focus::Grid);
    cmd(&mut app, Command::ColorBy);
    assert_eq!(app.color_by(), ColorBy::User);
    cmd(&mut app, Command::Theme);
    assert_eq!(app.theme().name, "light");
}

#[test]
fn quitting() {
    let mut app = app_for(sample(), Policy::Fifo, (120, 40));
    let u = cmd(&mut app, Command::QuitKeep);
    assert_eq!(u.quit(), Some(Quit::KeepFrame));
    let mut app = app_for(sample(), Policy::Fifo, (120, 40));
    cmd(&mut app, Command::Help);
    let u = cmd(&mut app, Command::Quit);
    assert_eq!(u.quit(), Some(Quit::Clear), "q quits from a popup too");
}

#[test]
fn the_what_if_fork_and_exports_are_effects_for_the_runner() {
    let mut app = app_for(sample(), Policy::Fifo, (120, 40));
    app.update(Action::GoTo(app.engine().now() + 86_400));
    // `w` asks the runner to start the fork from this state, once per time.
    let u = cmd(&mut app, Command::WhatIf);
    let [Effect::StartWhatIf(start)] = &u.effects[..] else {
        panic!("{:?}", u.effects)
    };
    assert_eq!(start.base.now(), app.replay().now());
    assert_eq!(start.runs.len(), app.what_if().unwrap().rows());
    assert_eq!(
        app.popup(),
        Some(&Popup::WhatIf {
            at: 0,
            charts: false
        })
    );
    cmd(&mut app, Command::Close);
    assert!(cmd(&mut app, Command::WhatIf).effects.is_empty());
    // `e` asks it to write the screen; a failed write comes back to the flash and the log.
    cmd(&mut app, Command::Close);
    let mut fx = Effects::new("/nonexistent/tracetui".into());
    let u = cmd(&mut app, Command::Export);
    assert_eq!(u.effects, [Effect::Export]);
    fx.perform(&mut app, u.effects);
    assert!(
        app.flash().unwrap().starts_with("export failed: "),
        "{:?}",
        app.flash()
    );
    let u = app.update(Action::Exported(Exported::Failed {
        dir: "/d".into(),
        error: "no".into(),
    }));
    assert_eq!(u.log_lines(), ["export failed in /d: no"]);
}

/// Pickers: a letter jumps to the next policy whose name starts with it
/// (again: the one after); the A/B picker opens on the first policy after
/// the live one that the trace supports.
#[test]
fn pickers_jump_by_letter_and_the_split_s_opens_after_the_live_policy() {
    let at = |app: &App| match app.popup() {
        Some(&Popup::Picker { at, .. }) => {
            tracetui::sim::Policies::new().all()[at].name().to_string()
        }
        p => panic!("no picker: {p:?}"),
    };
    let mut app = app_for(sample(), Policy::Fifo, (120, 40));
    cmd(&mut app, Command::Policy);
    assert_eq!(at(&app), "fifo");
    app.update(Action::Char('l'));
    assert_eq!(at(&app), "las");
    app.update(Action::Char('s'));
    assert_eq!(at(&app), "sjf");
    app.update(Action::Char('S'));
    assert_eq!(at(&app), "sgf");
    app.update(Action::Char('f'));
    assert_eq!(at(&app), "fair");
    app.update(Action::Char('f'));
    assert_eq!(at(&app), "fifo-fastest");
    app.update(Action::Char('f'));
    assert_eq!(at(&app), "fifo");
    app.update(Action::Char('%'));
    assert_eq!(at(&app), "fifo", "no policy starts so: it stays");
    cmd(&mut app, Command::Detail);
    let mut app = app_for(sample(), Policy::Las, (120, 40));
    cmd(&mut app, Command::Split);
    assert_eq!(at(&app), "fair");
}

/// Issue 63's lows: an export before the trace's zero is named
/// `tracetui-before-1`, not `tracetui--1`.
#[test]
fn an_export_before_the_traces_zero_is_named_so() {
    let app = app_for(common::tiny(&[4], &[(0, 10, 1)]), Policy::Fifo, (80, 24));
    assert!(app.replay().now() < 0, "{}", app.replay().now());
    let dir = common::scratch_dir("export-before");
    let (txt, svg, _) = tracetui::ui::effects::export_to(&app, &dir).unwrap();
    let name = |p: &std::path::Path| p.file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(
        name(&txt),
        format!("tracetui-before-{}.txt", -app.replay().now())
    );
    assert_eq!(
        name(&svg),
        format!("tracetui-before-{}.svg", -app.replay().now())
    );
}

/// Playing at x600 with 1-day ticks owes seconds towards the next day;
/// switching to next-event mode does not turn them into events owed (the
/// clock leapt hours, hundreds of jobs done at once).
#[test]
fn a_tick_change_while_playing_does_not_leap() {
    let mut app = app_for(sample(), Policy::Fifo, (120, 40));
    app.update(Action::GoTo(2 * 86_400));
    // x60 → x600; 1 m → 1 d.
    for _ in 0..3 {
        cmd(&mut app, Command::Faster);
    }
    for _ in 0..5 {
        cmd(&mut app, Command::TickUp);
    }
    assert_eq!(app.speed_and_tick().1, TICKS.len() - 2, "1-day ticks");
    cmd(&mut app, Command::TogglePlay);
    let at = app.engine().now();
    // 100 wall seconds at x600: 60,000 trace seconds owed, under a day.
    app.update(Action::Elapsed(100.0));
    assert_eq!(app.engine().now(), at);
    cmd(&mut app, Command::TickUp);
    assert_eq!(app.speed_and_tick().1, TICKS.len() - 1, "next event");
    let done = app.figures().done;
    app.update(Action::Elapsed(0.1));
    assert!(
        app.figures().done <= done + 2,
        "{} jobs done at once",
        app.figures().done - done
    );
}
