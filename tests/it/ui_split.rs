//! The A/B split (`A`): snapshots at 80×24 and 120×40 in colour and mono;
//! B in lockstep with A through stepping, stepping back, going to a time,
//! playing and the lecture layout; B equal to a replay of the same trace
//! under its schedule; the marks of jobs whose state differs; the export.

use crate::common;

use common::split::split_with;
use common::ui::{act, app_for, cmd, render, sample, text, theme_index};
use tracetui::sim::{Engine, Placement, Policy, Replay, Switch};
use tracetui::ui::app::{Action, App};
use tracetui::ui::keymap::Command;

/// Day 12 09:30 of the sample (its clock's day 1 is the first submission's day).
const DAY12: i64 = 11 * 86_400 + 9 * 3600 + 30 * 60;

/// FIFO beside SJF from the start, gone to day 12 09:30.
fn fifo_sjf(size: (u16, u16), theme: &str) -> App {
    let mut app = app_for(sample(), Policy::Fifo, size).with_theme(theme_index(theme));
    split_with(&mut app, Policy::Sjf);
    app.update(Action::GoTo(DAY12));
    app
}

/// B as a replay of its own: the trace under FIFO, switched to `p` at `since`, at `t`.
fn reference_b(since: i64, p: Policy, t: i64) -> Engine {
    let mut r = Replay::new(Engine::new(sample(), Policy::Fifo, Placement::Consolidate));
    r.schedule(vec![(since, Switch::Policy(p))]);
    r.seek(t);
    r.engine().clone()
}

fn same_state(a: &Engine, b: &Engine) {
    assert_eq!(a.now(), b.now());
    assert_eq!(a.tally().jct, b.tally().jct);
    assert_eq!(a.queue_in_order(100), b.queue_in_order(100));
    let running = |e: &Engine| {
        let mut r = e.running().keys().copied().collect::<Vec<_>>();
        r.sort_unstable();
        r
    };
    assert_eq!(running(a), running(b));
}

#[test]
fn split_snapshots_in_colour_and_mono() {
    for (w, h) in [(80u16, 24u16), (120, 40)] {
        let colour = text(&render(&fifo_sjf((w, h), "dark"), w, h));
        let mono = text(&render(&fifo_sjf((w, h), "mono"), w, h));
        assert_eq!(colour, mono, "mono shows everything colour does");
        insta::assert_snapshot!(format!("split_{w}x{h}"), colour);
        assert!(colour.contains("A · fifo (live)"), "{colour}");
        assert!(colour.contains("B · sjf since"), "{colour}");
        assert!(colour.contains("queue head (sjf order)"), "{colour}");
        assert!(colour.contains("◆"), "jobs that differ are marked");
    }
}

#[test]
fn b_moves_in_lockstep_and_is_its_own_replay() {
    let mut app = fifo_sjf((100, 30), "dark");
    let since = app.split().unwrap().since();
    let check = |app: &App| {
        let b = app.split().unwrap().replay().engine();
        assert_eq!(b.now(), app.engine().now(), "one clock");
        same_state(b, &reference_b(since, Policy::Sjf, app.engine().now()));
    };
    check(&app);
    // The two differ at day 12: FIFO's head blocks, SJF runs the short jobs.
    let b = app.split().unwrap();
    assert_ne!(
        b.replay().engine().tally().jct,
        app.engine().tally().jct,
        "the policies give different runs"
    );
    assert_ne!(b.figures(), app.figures(), "and different headline figures");
    for c in [Command::Step, Command::Step, Command::StepBack] {
        cmd(&mut app, c);
        check(&app);
    }
    // Bigger ticks, and back over a checkpoint.
    cmd(&mut app, Command::TickUp);
    cmd(&mut app, Command::TickUp);
    cmd(&mut app, Command::TickUp);
    for _ in 0..5 {
        cmd(&mut app, Command::StepBack);
    }
    check(&app);
    // Playing at a higher speed.
    cmd(&mut app, Command::Faster);
    cmd(&mut app, Command::TogglePlay);
    for _ in 0..20 {
        act(&mut app, Action::Elapsed(0.1));
    }
    cmd(&mut app, Command::TogglePlay);
    check(&app);
    // Going back before the split: B is A there (same switches so far).
    app.update(Action::GoTo(since - 3600));
    check(&app);
    same_state(app.split().unwrap().replay().engine(), app.engine());
    // Next-event ticks.
    for _ in 0..20 {
        cmd(&mut app, Command::TickUp);
    }
    cmd(&mut app, Command::Step);
    check(&app);
    // The lecture layout keeps both sides.
    cmd(&mut app, Command::Lecture);
    let s = text(&render(&app, 100, 30));
    assert!(s.contains("A · fifo") && s.contains("B · sjf"), "{s}");
}

#[test]
fn b_forks_from_now_after_live_switches() {
    let mut app = app_for(sample(), Policy::Fifo, (100, 30));
    app.update(Action::GoTo(5 * 86_400));
    app.update(Action::SwitchPolicy(Policy::FifoBackfill));
    app.update(Action::GoTo(DAY12));
    split_with(&mut app, Policy::Las);
    let b = app.split().unwrap();
    assert_eq!(b.since(), DAY12);
    assert_eq!(b.policy(), Policy::Las);
    // B took A's switch and then its own.
    let mut r = Replay::new(Engine::new(sample(), Policy::Fifo, Placement::Consolidate));
    r.schedule(vec![
        (5 * 86_400, Switch::Policy(Policy::FifoBackfill)),
        (DAY12, Switch::Policy(Policy::Las)),
    ]);
    r.seek(DAY12 + 86_400);
    // Ticks: 1 s, 10 s, 1 m (the start), 5 m, 15 m, 1 h, 6 h, 1 d.
    for _ in 0..5 {
        cmd(&mut app, Command::TickUp);
    }
    cmd(&mut app, Command::Step);
    assert_eq!(app.engine().now(), DAY12 + 86_400);
    same_state(app.split().unwrap().replay().engine(), r.engine());
    // A switches live; B keeps its own policy.
    app.update(Action::SwitchPolicy(Policy::Sjf));
    assert_eq!(app.engine().policy(), Policy::Sjf);
    assert_eq!(app.split().unwrap().replay().engine().policy(), Policy::Las);
}

#[test]
fn the_live_policy_is_refused_esc_cancels_and_a_closes() {
    let mut app = app_for(sample(), Policy::Fifo, (100, 30));
    split_with(&mut app, Policy::Fifo);
    assert!(app.split().is_none());
    assert!(app.flash().unwrap().contains("is the live policy"));
    cmd(&mut app, Command::Split);
    cmd(&mut app, Command::Close);
    assert!(app.split().is_none() && app.popup().is_none());
    split_with(&mut app, Policy::Sjf);
    assert!(app.split().is_some());
    cmd(&mut app, Command::Split);
    assert!(app.split().is_none(), "A again: one replay");
    let s = text(&render(&app, 100, 30));
    assert!(s.contains("GPUs · one cell per GPU"), "{s}");
}

#[test]
fn the_marks_name_the_jobs_whose_state_differs() {
    let app = fifo_sjf((120, 40), "mono");
    let a = app.engine();
    let b = app.split().unwrap().replay().engine();
    let only_a = tracetui::ui::split::running_only_here(a, b);
    let only_b = tracetui::ui::split::running_only_here(b, a);
    assert!(!only_a.is_empty() && !only_b.is_empty());
    let s = text(&render(&app, 120, 40));
    let line = format!("◆ differs there · {} run only here", only_a.len());
    assert!(s.contains(&line), "{line}\n{s}");
    // The first FIFO job in A's queue that SJF has started is marked.
    let j = a
        .queue_in_order(10)
        .into_iter()
        .find(|&j| tracetui::ui::split::differs(j, a, b))
        .expect("SJF started one of FIFO's first ten waiting jobs");
    let id = &app.trace().jobs[j as usize].id[..8];
    assert!(
        s.lines().any(|l| l.contains(&format!("│◆ {id}"))),
        "{id} marked\n{s}"
    );
}

#[test]
fn export_writes_the_split_screen() {
    let app = fifo_sjf((120, 40), "dark");
    let dir = common::scratch_dir("split-export");
    let (txt, svg, _) = tracetui::ui::effects::export_to(&app, &dir).unwrap();
    let txt = std::fs::read_to_string(txt).unwrap();
    assert!(txt.contains("A · fifo (live)") && txt.contains("B · sjf since"));
    // The SVG draws a text element per character (spaces left out).
    let svg = std::fs::read_to_string(svg).unwrap();
    let chars: String = svg
        .split("</text>")
        .filter_map(|t| t.rsplit('>').next())
        .collect();
    assert!(chars.contains("B·sjfsince"), "{chars}");
    assert!(chars.contains("queuehead(sjforder)"));
}

/// The lecture of the deadlines lesson: elasticflow beside edf-elastic
/// over the lesson's jobs. Each side counts the deadlines met and missed
/// (a dropped job missed its deadline): elasticflow declines both E jobs
/// and meets the other eight; edf-elastic meets none.
#[test]
fn the_split_counts_deadlines_elasticflow_beside_edf() {
    let l = tracetui::lesson::find("deadlines").unwrap();
    let trace = std::sync::Arc::new(l.trace().0);
    let p = |name: &str| {
        tracetui::sim::Policies::new()
            .all()
            .into_iter()
            .find(|p| p.name() == name)
            .unwrap()
    };
    let mut app = app_for(trace, p("elasticflow"), (80, 24));
    split_with(&mut app, p("edf-elastic"));
    app.update(Action::GoTo(6 * 3600));
    let screen = text(&render(&app, 80, 24));
    assert!(screen.contains("A · elasticflow (live)"), "{screen}");
    assert!(screen.contains("B · edf-elastic since"), "{screen}");
    assert!(screen.contains("│deadlines 8 met · 2 missed"), "{screen}");
    assert!(screen.contains("│deadlines 0 met · 10 missed"), "{screen}");
}

/// Every arrived job's wait from the engine's job states: a started
/// job's (none is preempted under FIFO or SJF), an unstarted one's so far.
fn all_waits(e: &Engine) -> Vec<f64> {
    use tracetui::sim::Phase;
    let (mut w, now) = (Vec::new(), e.now());
    for (j, job) in e.trace().jobs.iter().enumerate() {
        let st = e.job_state(j as u32);
        match st.phase {
            Phase::Future | Phase::Rejected => {}
            Phase::Queued | Phase::Dropped => w.push((now - job.submit) as f64),
            Phase::Running | Phase::Done => w.push((st.start - job.submit) as f64),
        }
    }
    w.sort_by(f64::total_cmp);
    w
}

/// numpy's linear percentile of sorted values.
fn p99(v: &[f64]) -> f64 {
    let pos = (v.len() - 1) as f64 * 0.99;
    let lo = pos.floor() as usize;
    let hi = (lo + 1).min(v.len() - 1);
    v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
}

/// Issue 33 item 3, as it was seen: A/B from day 10 06:00, FIFO beside
/// SJF, at day 10 12:00. FIFO's 36 waiting jobs have waited hours, so its
/// p99 wait is the larger; both sides count the same jobs (every one
/// arrived), and the label says so.
#[test]
fn the_split_counts_the_waiting_jobs_waits_on_both_sides() {
    let mut app = app_for(sample(), Policy::Fifo, (80, 24));
    app.update(Action::GoTo(9 * 86_400 + 6 * 3600));
    split_with(&mut app, Policy::Sjf);
    app.update(Action::GoTo(9 * 86_400 + 12 * 3600));
    let (a, b) = (
        app.figures().clone(),
        app.split().unwrap().figures().clone(),
    );
    let (ea, eb) = (app.engine(), app.split().unwrap().replay().engine());
    assert_eq!(ea.queue_len(), 36, "FIFO's queue as the issue saw it");
    let (wa, wb) = (all_waits(ea), all_waits(eb));
    assert_eq!(a.jobs, wa.len() as u64);
    assert_eq!(b.jobs, a.jobs, "both sides count the same jobs");
    assert_eq!(a.p99_wait, Some(p99(&wa)));
    assert_eq!(b.p99_wait, Some(p99(&wb)));
    assert!(a.p99_wait > b.p99_wait, "head of line: {a:?} {b:?}");
    // The mean time in the system: finished jobs' JCTs, the others' so far.
    let in_system = |e: &Engine| {
        let now = e.now();
        let mut sum = 0i64;
        for (j, job) in e.trace().jobs.iter().enumerate() {
            let st = e.job_state(j as u32);
            use tracetui::sim::Phase::*;
            match st.phase {
                Future | Rejected => {}
                Done => sum += st.end - job.submit,
                _ => sum += now - job.submit,
            }
        }
        sum as f64 / a.jobs as f64
    };
    assert!((a.mean_jct.unwrap() - in_system(ea)).abs() < 1e-6);
    assert!((b.mean_jct.unwrap() - in_system(eb)).abs() < 1e-6);
    let s = text(&render(&app, 80, 24));
    let n = a.jobs;
    assert!(s.contains(&format!("│all {n}: p99 wait ")), "{s}");
    assert!(s.contains(&format!("over all {n} arrived")), "{s}");
}

/// At 80×24 a long policy name gives way in the queue's head, never the
/// name of the key it orders by; B's title keeps the time it forked at.
#[test]
fn a_long_policy_name_keeps_the_key_and_the_fork_time_at_80x24() {
    let mut app = app_for(common::ui::pai_sample(), Policy::Recorded, (80, 24));
    app.update(Action::GoTo(app.engine().now() + 12 * 3600));
    split_with(&mut app, Policy::FifoBackfill);
    let s = text(&render(&app, 80, 24));
    let head = s
        .lines()
        .find(|l| l.contains("fifo-backfill order"))
        .unwrap_or("");
    assert!(
        head.trim_end_matches('│').trim_end().ends_with("waited"),
        "{s}"
    );
    assert!(s.contains("B · fifo-backfill since 12:00:13"), "{s}");
}
