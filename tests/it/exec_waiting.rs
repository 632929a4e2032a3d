//! A slow external policy never stalls the replay: the engine stops at the
//! scheduling point whose answer is the program's (a question, as data),
//! the driver asks the program by the frame's deadline, the replay stands
//! there meanwhile (drawn, answering keys) and is asked again on the next
//! frame — ending exactly where waiting as long as it takes ends. A switch
//! made meanwhile is made once the answer is in (as a schedule would), a
//! step back leaves it, a what-if forks from it, and a policy that never
//! answers times out while frames go on.

use crate::common;

use common::python;

use common::ui::{app_for, render, text};
use common::{scratch_dir, tiny};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tracetui::driver;
use tracetui::sim::{
    self, Engine, Fork, JobState, Placement, Policy, Replay, Report, Switch, WhatIfRun,
};
use tracetui::trace::{Secs, Trace};
use tracetui::ui::action::{Action, Asker, Effect};
use tracetui::ui::effects::Effects;
use tracetui::ui::keymap::Command;

/// A greedy policy that sleeps `delay` seconds before each answer (and
/// hangs for a minute when `delay` is negative). Its answers are empty:
/// the engine's own order decides, so the schedule is deterministic.
fn slow(name: &str, delay: f64) -> Policy {
    slow_asking(name, delay, "always").0
}

/// `slow`, asked at every point (`always`) or only where jobs arrive
/// (`arrivals`); every message's type and time go to the file returned.
fn slow_asking(name: &str, delay: f64, ask: &str) -> (Policy, PathBuf) {
    let dir = scratch_dir("waiting");
    let log = dir.join(format!("{name}.log"));
    let body = format!(
        r#"import json, sys, time
out = open({log:?}, "a")
for line in sys.stdin:
    msg = json.loads(line)
    out.write("%s %s\n" % (msg["type"], msg.get("time")))
    out.flush()
    answer = {{}}
    if msg["type"] == "hello":
        answer = {{"name": "{name}", "walk": "greedy", "ask": "{ask}"}}
    elif msg["type"] == "schedule":
        time.sleep(60 if {delay} < 0 else {delay})
    print(json.dumps(answer), flush=True)
"#
    );
    let path = dir.join(format!("{name}.py"));
    std::fs::write(&path, body).unwrap();
    let p = tracetui::driver::resolve(
        &format!("exec:python3 {}", path.display()),
        &mut tracetui::sim::Policies::new(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    (p, log)
}

/// An engine on `t` under `p` whose external policies may take 2 s an answer.
fn engine(t: &Arc<Trace>, p: Policy) -> Engine {
    let tuning = sim::Tuning {
        policy_timeout: Duration::from_secs(2),
        ..sim::Tuning::default()
    };
    Engine::new(t.clone(), p, Placement::Consolidate).with_tuning(Arc::new(tuning))
}

fn trace() -> Arc<Trace> {
    tiny(
        &[4],
        &[
            (0, 100, 2),
            (10, 100, 2),
            (20, 100, 4),
            (30, 50, 1),
            (40, 60, 3),
            (300, 10, 4),
        ],
    )
}

fn states(e: &Engine) -> Vec<JobState> {
    (0..e.trace().jobs.len() as u32)
        .map(|j| e.job_state(j))
        .collect()
}

fn figures(mut r: Report) -> String {
    r.policy.clear();
    format!("{r:?}")
}

const END: Secs = 1000;

/// The replay waiting as long as answers take, at `END`.
fn blocking(t: &Arc<Trace>, p: Policy, switches: Vec<(Secs, Switch)>) -> (Vec<JobState>, String) {
    let mut r = Replay::new(engine(t, p));
    r.schedule(switches);
    driver::seek(&mut r, END);
    assert!(!r.waiting());
    (states(r.engine()), figures(r.engine().report()))
}

/// The replay standing at the first arrival after `at` that asks the
/// policy (nobody answered: the engine never waits itself).
fn waiting_after(t: &Arc<Trace>, p: Policy, at: Secs) -> Replay {
    let mut r = Replay::new(engine(t, p));
    driver::seek(&mut r, at);
    r.seek(END);
    assert!(r.waiting(), "an engine stands at its question");
    assert!(r.now() > at && r.now() < END, "stands at {}", r.now());
    r
}

/// Frames until the replay stops waiting: each gives the policy 5 ms.
fn frames_until_answered(r: &mut Replay) -> usize {
    let mut frames = 0;
    while r.waiting() {
        frames += 1;
        assert!(frames < 100_000, "the replay never stopped waiting");
        driver::settle(r, Some(Instant::now() + Duration::from_millis(5)));
    }
    frames
}

#[test]
fn a_slow_policy_leaves_the_replay_standing_and_it_ends_where_waiting_ends() {
    if !python() {
        return;
    }
    let t = trace();
    let p = slow("slow", 0.05);
    let (want, report) = blocking(&t, p, Vec::new());
    let mut r = Replay::new(engine(&t, p));
    r.seek(END);
    driver::settle(&mut r, Some(Instant::now() + Duration::from_millis(5)));
    assert!(r.waiting(), "a 50 ms answer cannot come within 5 ms");
    assert!(r.now() < END);
    assert_eq!(r.target(), END);
    let frames = frames_until_answered(&mut r);
    assert!(frames > 1, "answered over several frames ({frames})");
    assert_eq!(r.now(), END);
    assert_eq!(states(r.engine()), want);
    assert_eq!(figures(r.engine().report()), report);
}

/// The messages a `slow_asking` policy received, in order.
fn received(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn a_policy_asked_only_at_arrivals_keeps_one_conversation_while_waited_for() {
    if !python() {
        return;
    }
    let t = trace();
    let (p, log) = slow_asking("slow_arrivals", 0.05, "arrivals");
    let (want, report) = blocking(&t, p, Vec::new());
    let before = received(&log).len();
    let mut r = Replay::new(engine(&t, p));
    r.seek(END);
    assert!(r.waiting());
    frames_until_answered(&mut r);
    assert_eq!(states(r.engine()), want);
    assert_eq!(figures(r.engine().report()), report);
    // One process, greeted once, one snapshot: each retry asked the very
    // message already sent, never a new conversation.
    let msgs = &received(&log)[before..];
    let kinds = |k: &str| msgs.iter().filter(|m| m.starts_with(k)).count();
    assert_eq!((kinds("hello"), kinds("start")), (1, 1), "{msgs:?}");
    // Arrivals at 0, 10, 20, 30, 40 and 300: one schedule message each.
    assert_eq!(kinds("schedule"), 6, "{msgs:?}");
}

#[test]
fn a_switch_while_waiting_is_made_once_the_answer_is_in_as_a_schedule_would() {
    if !python() {
        return;
    }
    let t = trace();
    let p = slow("slow_switch", 0.05);
    let mut r = waiting_after(&t, p, 10);
    let at = r.now();
    r.set_policy(Policy::Fifo);
    assert!(r.waiting());
    assert_eq!(r.engine().policy(), p, "not before the answer");
    assert_eq!(r.policy_to_be(), Policy::Fifo);
    r.set_policy(Policy::Sjf);
    assert_eq!(r.policy_to_be(), Policy::Sjf);
    frames_until_answered(&mut r);
    assert_eq!(r.engine().policy(), Policy::Sjf);
    driver::seek(&mut r, END);
    let switches = vec![
        (at, Switch::Policy(Policy::Fifo)),
        (at, Switch::Policy(Policy::Sjf)),
    ];
    assert_eq!(r.switches(), &switches[..]);
    let (want, report) = blocking(&t, p, switches);
    assert_eq!(states(r.engine()), want);
    assert_eq!(figures(r.engine().report()), report);
}

#[test]
fn stepping_back_while_waiting_leaves_the_point_and_forward_again_ends_the_same() {
    if !python() {
        return;
    }
    let t = trace();
    let p = slow("slow_back", 0.05);
    let (want, _) = blocking(&t, p, Vec::new());
    let mut r = waiting_after(&t, p, 10);
    r.seek(5);
    assert!(!r.waiting(), "earlier points replay the recorded answers");
    assert_eq!(r.now(), 5);
    driver::seek(&mut r, END);
    assert_eq!(states(r.engine()), want);
}

#[test]
fn a_what_if_forks_from_a_waiting_replay() {
    if !python() {
        return;
    }
    let t = trace();
    let p = slow("slow_fork", 0.02);
    let r = waiting_after(&t, p, 10);
    let at = r.now();
    let rows = Fork::start(
        r.engine(),
        vec![WhatIfRun::Policy(Policy::Fifo), WhatIfRun::Policy(p)],
        2,
        &tracetui::driver::Driver,
    )
    .wait();
    assert_eq!(rows.len(), 2);
    let to_end = |switch: bool| {
        let mut e = engine(&t, p);
        e.set_halt_on_failure(true);
        driver::advance_to(&mut e, at);
        if switch {
            e.switch(Switch::Policy(Policy::Fifo));
        }
        driver::run_to_end(&mut e);
        assert_eq!(e.failures(), &[]);
        figures(e.report())
    };
    assert_eq!(figures(rows[0].clone()), to_end(true));
    assert_eq!(figures(rows[1].clone()), to_end(false));
    assert!(r.waiting(), "the fork leaves the replay as it was");
}

#[test]
fn a_policy_that_never_answers_times_out_while_frames_go_on() {
    if !python() {
        return;
    }
    let t = trace();
    let hang = slow("hang_waiting", -1.0);
    let mut r = Replay::new(engine(&t, Policy::Fifo));
    r.seek(5);
    r.set_policy(hang);
    r.seek(END);
    let frames = frames_until_answered(&mut r);
    assert!(frames >= 3, "frames went on while it hung ({frames})");
    let f = &r.engine().failures()[0];
    assert_eq!(f.policy, hang);
    assert_eq!(f.fell_back_to, Some(Policy::Fifo));
    assert!(f.why.contains("did not answer within 2.0 s"), "{}", f.why);
    assert_eq!(r.engine().policy(), Policy::Fifo);
}

#[test]
fn the_app_draws_and_answers_keys_while_a_policy_decides() {
    if !python() {
        return;
    }
    let t = trace();
    let p = slow("slow_app", 0.1);
    let mut app = app_for(t, p, (80, 24));
    let mut fx = Effects::new(scratch_dir("waiting_app"));
    let mut send = |app: &mut tracetui::ui::app::App, a: Action| {
        // The runner's deadline: shortly before the next frame.
        fx.answer_by(Some(Instant::now() + Duration::from_millis(5)));
        fx.dispatch(app, a)
    };
    // The first step reaches the first arrival, which asks the policy.
    let u = app.update(Action::Command(Command::Step));
    assert!(
        u.effects.iter().any(|e| matches!(e, Effect::Ask { .. })),
        "update asks through an effect: {:?}",
        u.effects
    );
    assert!(app.waiting(), "update never answers itself");
    let at = app.engine().now();
    // Frames go on: the header says so once half a second has passed.
    let mut shown = false;
    for _ in 0..5000 {
        send(&mut app, Action::Elapsed(0.1));
        if !app.waiting() {
            break;
        }
        let screen = text(&render(&app, 80, 24));
        shown |= screen.contains("WAIT");
        // Keys work meanwhile: help opens and closes.
        send(&mut app, Action::Command(Command::Help));
        assert!(app.popup().is_some());
        send(&mut app, Action::Command(Command::Close));
    }
    assert!(!app.waiting(), "the answer came");
    assert!(shown, "the header said the replay waits");
    assert!(app.engine().now() >= at);
}

#[test]
fn a_schedule_goes_on_after_a_policy_failed_and_the_replay_fell_back() {
    if !python() {
        return;
    }
    let t = trace();
    // Fails at its first scheduling point (it exits).
    let dir = scratch_dir("waiting");
    let path = dir.join("quits.py");
    std::fs::write(
        &path,
        "import json, sys\nline = sys.stdin.readline()\n\
         print(json.dumps({\"name\": \"quits\", \"walk\": \"greedy\"}), flush=True)\n",
    )
    .unwrap();
    let quits: Policy = tracetui::driver::resolve(
        &format!("exec:python3 {}", path.display()),
        &mut tracetui::sim::Policies::new(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut r = Replay::new(engine(&t, Policy::Fifo));
    r.schedule(vec![
        (5, Switch::Policy(quits)),
        (25, Switch::Policy(Policy::Sjf)),
    ]);
    driver::seek(&mut r, END);
    let f = r.engine().failures();
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(
        (f[0].policy, f[0].fell_back_to),
        (quits, Some(Policy::Fifo))
    );
    assert_eq!(
        r.engine().policy(),
        Policy::Sjf,
        "the switch at 25 was made"
    );
    assert!(r.ahead().is_empty());
}

#[test]
fn the_split_s_b_side_waits_for_its_own_policy_and_is_answered_through_effects() {
    if !python() {
        return;
    }
    let t = trace();
    let p = slow("slow_split", 0.05);
    let mut known = tracetui::sim::Policies::new();
    known.add(p);
    let mut app = app_for(t.clone(), Policy::Fifo, (120, 40)).with_policies(known);
    let mut fx = Effects::new(scratch_dir("waiting_split"));
    fx.answer_by(Some(Instant::now()));
    fx.dispatch(&mut app, Action::GoTo(5));
    common::split::split_with(&mut app, p);
    let u = app.update(Action::GoTo(END));
    let asked: Vec<_> = u
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::Ask { asker, .. } => Some(*asker),
            _ => None,
        })
        .collect();
    assert_eq!(
        asked,
        vec![Asker::Split],
        "B stands at its policy's question"
    );
    for _ in 0..100_000 {
        if !app.waiting() {
            break;
        }
        fx.answer_by(Some(Instant::now() + Duration::from_millis(5)));
        fx.dispatch(&mut app, Action::Elapsed(0.05));
    }
    assert!(!app.waiting(), "B's answers came");
    let b = app.split().expect("split open").replay();
    assert_eq!(b.now(), END);
    // B ends where a schedule of the same switch, waited for, ends.
    let (want, report) = blocking(&t, Policy::Fifo, vec![(5, Switch::Policy(p))]);
    assert_eq!(states(b.engine()), want);
    assert_eq!(figures(b.engine().report()), report);
}
