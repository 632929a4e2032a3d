//! An engine does no I/O: at a scheduling point that is an external
//! program's to decide it stands at a question (data), and goes on with
//! whatever reply it is given. Here the replies are given by hand; the
//! program, probed once when the policy is named, hears nothing else.

use crate::common;

use common::{scratch_dir, tiny};
use serde_json::Value;
use tracetui::sim::{Engine, Phase, Placement, Policy, Reply};

/// A policy program that answers its hello and writes down every other
/// message it is sent (none, if the engine never talks to it).
fn listener(tag: &str) -> (Policy, std::path::PathBuf) {
    let dir = scratch_dir(tag);
    let heard = dir.join("heard.log");
    let script = dir.join("policy.sh");
    std::fs::write(
        &script,
        format!(
            "read hello\necho '{{\"name\": \"{tag}\", \"walk\": \"explicit\"}}'\n\
             while read line; do echo \"$line\" >> '{}'; echo '{{}}'; done\n",
            heard.display()
        ),
    )
    .unwrap();
    let p = tracetui::driver::resolve(
        &format!("exec:sh {}", script.display()),
        &mut tracetui::sim::Policies::new(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    (p, heard)
}

/// The question's message type and time.
fn asked(e: &Engine) -> (String, i64) {
    let q = e.question().expect("the engine stands at a question");
    let v: Value = serde_json::from_slice(q.message()).unwrap();
    (
        v["type"].as_str().unwrap().to_string(),
        v["time"].as_i64().unwrap_or(-1),
    )
}

#[test]
fn an_engine_stands_at_questions_and_goes_on_with_the_replies_it_is_given() {
    let (p, heard) = listener("by-hand");
    let t = tiny(&[4], &[(0, 100, 2), (10, 100, 2)]);
    let mut e = Engine::new(t, p, Placement::Consolidate);
    e.run_to_end();
    assert_eq!(e.now(), 0, "it stops at the first arrival");
    assert_eq!(asked(&e).0, "start", "a snapshot first");
    e.run_to_end();
    assert_eq!(e.now(), 0, "and stays there until answered");
    e.answer(Reply::Line("{}".into()));
    assert_eq!(asked(&e), ("schedule".into(), 0));
    e.answer(Reply::Line(r#"{"start": [0]}"#.into()));
    assert!(e.question().is_none());
    assert_eq!(e.job_state(0).phase, Phase::Running);
    e.run_to_end();
    assert_eq!(asked(&e), ("schedule".into(), 10));
    e.answer(Reply::Line(r#"{"start": [1]}"#.into()));
    assert_eq!(e.job_state(1).start, 10);
    // Every later point answered with nothing to do: both run to the end.
    let mut points = 0;
    loop {
        e.run_to_end();
        if e.question().is_none() {
            break;
        }
        points += 1;
        e.answer(Reply::Line("{}".into()));
    }
    assert_eq!(points, 2, "asked when each job ended");
    assert_eq!(e.jobs_done(), 2);
    assert!(e.failures().is_empty(), "{:?}", e.failures());
    assert!(
        !heard.exists(),
        "the program heard only its probe: {:?}",
        std::fs::read_to_string(&heard)
    );
}

#[test]
fn a_failure_given_as_the_reply_falls_back_like_a_failing_program() {
    let (p, heard) = listener("by-hand-fails");
    let t = tiny(&[4], &[(0, 100, 2), (10, 100, 2)]);
    let mut e = Engine::new(t, Policy::Fifo, Placement::Consolidate);
    e.advance_to(5);
    e.set_policy(p);
    assert_eq!(asked(&e).0, "start");
    e.answer(Reply::Failed("went away".into()));
    assert!(e.question().is_none());
    assert_eq!(e.policy(), Policy::Fifo, "fell back");
    let why = &e.failures()[0].why;
    assert!(why.contains("went away") && why.contains("at 5 s"), "{why}");
    e.run_to_end();
    assert_eq!(e.jobs_done(), 2);
    assert!(!heard.exists());
}

#[test]
fn a_bad_answer_given_by_hand_is_refused_by_the_engine_s_one_check() {
    let (p, _) = listener("by-hand-bad");
    let t = tiny(&[4], &[(0, 100, 2)]);
    let mut e = Engine::new(t, Policy::Fifo, Placement::Consolidate);
    e.advance_to(0);
    e.set_policy(p);
    e.answer(Reply::Line("{}".into()));
    e.answer(Reply::Line(r#"{"priority": [[0, 1], [0, 2]]}"#.into()));
    let why = &e.failures()[0].why;
    assert!(why.contains("priority for job 0 twice"), "{why}");
    let mut e = Engine::new(
        tiny(&[4], &[(0, 100, 2)]),
        Policy::Fifo,
        Placement::Consolidate,
    );
    e.advance_to(0);
    e.set_policy(p);
    e.answer(Reply::Line("{}".into()));
    e.answer(Reply::Line(r#"{"priority": [[7, 1]]}"#.into()));
    let why = &e.failures()[0].why;
    assert!(
        why.contains("priority for job 7, which is not in the trace (1 jobs)"),
        "{why}"
    );
}

#[test]
fn a_fallback_is_no_switch_the_replay_keeps_the_one_history_and_remakes_it() {
    use tracetui::sim::Replay;
    use tracetui::sim::Switch;
    let (p, heard) = listener("by-hand-history");
    let t = tiny(&[4], &[(0, 100, 2), (10, 100, 2), (20, 50, 4)]);
    let mut r = Replay::new(Engine::new(t, Policy::Fifo, Placement::Consolidate));
    r.seek(5);
    r.set_policy(p);
    assert!(r.waiting(), "the new policy's first question");
    r.answer(Reply::Failed("went away".into()));
    assert!(!r.waiting());
    assert_eq!(r.engine().policy(), Policy::Fifo, "fell back");
    assert_eq!(r.engine().policy_since(), 5);
    assert_eq!(
        r.switches(),
        &[(5, Switch::Policy(p))][..],
        "the switch made, not the fallback"
    );
    assert!(r.ahead().is_empty());
    r.seek(300);
    let end = format!("{:?}", r.engine().report());
    // Back before the switch and forward again: the switch is made again
    // (the policy asked again, from a dialogue of its own), and fails again.
    r.seek(2);
    assert_eq!(r.ahead(), &[(5, Switch::Policy(p))][..]);
    r.seek(300);
    assert!(r.waiting(), "asked again at 5");
    assert_eq!(r.now(), 5);
    r.answer(Reply::Failed("went away".into()));
    assert_eq!(r.now(), 300);
    assert_eq!(format!("{:?}", r.engine().report()), end);
    assert_eq!(
        r.engine().failures().len(),
        1,
        "the failure of this history"
    );
    assert!(!heard.exists());
}

/// A policy whose every answer is 8 MB: `{"priority":[]` and spaces.
fn wordy(tag: &str) -> Policy {
    let dir = scratch_dir(tag);
    let script = dir.join("policy.sh");
    std::fs::write(
        &script,
        format!(
            "read hello\necho '{{\"name\": \"{tag}\", \"walk\": \"greedy\"}}'\n\
             while read line; do printf '{{\"priority\":[]%8000000s}}\\n' ''; done\n"
        ),
    )
    .unwrap();
    tracetui::driver::resolve(
        &format!("exec:sh {}", script.display()),
        &mut tracetui::sim::Policies::new(),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_huge_answer_is_read_apart_while_the_replay_draws() {
    use std::time::{Duration, Instant};
    use tracetui::driver;
    let t = tiny(&[4], &[(0, 100, 2), (10, 100, 2)]);
    let mut e = Engine::new(t.clone(), wordy("wordy"), Placement::Consolidate);
    e.run_to_end();
    let mut first_answers = 0;
    while let Some(q) = e.question() {
        // As the replay asks: by the next frame. The line comes well within
        // five seconds, but being 8 MB it is read on a thread of its own and
        // the replay is told "not yet" instead of waiting for it.
        let mut reply = driver::ask(q, Some(Instant::now() + Duration::from_secs(5)));
        if reply.is_some() {
            first_answers += 1;
        }
        while reply.is_none() {
            reply = driver::ask(q, Some(Instant::now() + Duration::from_millis(20)));
        }
        assert_eq!(reply, Some(Reply::Recorded));
        e.answer(reply.unwrap());
        e.run_to_end();
    }
    assert_eq!(
        first_answers, 0,
        "a huge answer was read on the replay's thread"
    );
    // The same run as answered headless, where nothing draws meanwhile.
    let mut h = Engine::new(t, wordy("wordy-headless"), Placement::Consolidate);
    driver::run_to_end(&mut h);
    assert_eq!(e.now(), h.now());
    assert_eq!(e.tally().jct, h.tally().jct);
}
