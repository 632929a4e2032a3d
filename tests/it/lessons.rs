//! The lessons show what their captions say.

use std::sync::Arc;
use tracetui::lesson;
use tracetui::sim::{Engine, Placement, Schedule};
use tracetui::trace::Trace;

fn run(name: &str, placement: Option<Placement>) -> (Arc<Trace>, Engine) {
    let l = lesson::find(name).unwrap();
    let t = Arc::new(l.trace().0);
    let s = Schedule::parse(&t, &l.schedule).unwrap();
    let mut e = Engine::new(
        t.clone(),
        s.start.unwrap(),
        placement.unwrap_or(l.placement),
    );
    e.set_record_events(true);
    for (at, w) in s.effective(e.policy(), None) {
        e.advance_to(at);
        e.switch(w);
    }
    e.run_to_end();
    (t, e)
}

/// The submit times of the 8-GPU jobs (the fragmentation lesson's).
fn big_submits(t: &Trace) -> Vec<i64> {
    t.jobs
        .iter()
        .filter(|j| j.demand.total_milli() == 8000)
        .map(|j| j.submit)
        .collect()
}

/// Start times of the jobs submitted at `submit` needing `gpus`.
fn starts_of(t: &Trace, e: &Engine, submit: i64, gpus: u64) -> Vec<i64> {
    (0..t.jobs.len() as u32)
        .filter(|&j| {
            let job = &t.jobs[j as usize];
            job.submit == submit && job.demand.total_milli() == gpus * 1000
        })
        .map(|j| e.job_state(j).start)
        .collect()
}

#[test]
fn head_of_line_blocking_under_fifo_first_fit_and_backfill() {
    let (t, e) = run("hol", None);
    // fifo: the 16-GPU job waits for the long jobs, and the small job
    // behind it waits for the 16-GPU job, though 4 GPUs were free.
    assert_eq!(starts_of(&t, &e, 60, 16), vec![2400]);
    assert_eq!(starts_of(&t, &e, 120, 1), vec![3000]);
    // first-fit: small jobs pass, and keep the GPUs the long jobs free
    // busy: the big one starts only when the hour's stream has stopped.
    assert_eq!(starts_of(&t, &e, 7320, 1), vec![7320]);
    assert_eq!(starts_of(&t, &e, 7260, 16), vec![11_160]);
    // backfill: small jobs that end before the reservation pass; the big
    // job starts exactly at its reservation.
    assert_eq!(starts_of(&t, &e, 14520, 1), vec![14520]);
    assert_eq!(starts_of(&t, &e, 14460, 16), vec![16800]);
}

#[test]
fn starvation_under_sjf_ends_under_las() {
    let (t, e) = run("starvation", None);
    let long = (0..t.jobs.len() as u32)
        .find(|&j| t.jobs[j as usize].runtime == Some(10_800))
        .unwrap();
    // Starved for the sjf hour; las starts it at the next completion.
    assert_eq!(e.job_state(long).start, 4200);
    // Demoted after 3,600 GPU-seconds and preempted, as the caption says.
    assert!(e.preemptions_of(long) >= 1);
    assert!(
        starts_of(&t, &e, 4500, 4) == vec![5100],
        "a short job took its GPUs at 5100"
    );
    let l = lesson::find("starvation").unwrap();
    assert!(l
        .captions
        .iter()
        .any(|c| c.0 == 5100 && c.1.contains("preempts")));
}

#[test]
fn fragmentation_under_spread_not_under_consolidate() {
    let (t, spread) = run("fragmentation", None);
    let (_, packed) = run("fragmentation", Some(Placement::Pack));
    let big = big_submits(&t);
    assert_eq!(big.len(), 12, "six 8-GPU jobs in each of the two parts");
    // Part 1 (before 3h) under the lesson's spread, part 2 after its
    // schedule switched placement to pack.
    let late = |e: &Engine, part2: bool| {
        big.iter()
            .filter(|&&s| (s >= 10_800) == part2)
            .filter(|&&s| starts_of(&t, e, s, 8)[0] > s)
            .count()
    };
    assert_eq!(
        late(&spread, false),
        5,
        "every 8-GPU job but the first waits under spread"
    );
    assert_eq!(late(&spread, true), 0, "switched to pack, none waits");
    assert_eq!(
        late(&packed, false),
        0,
        "none waits when small jobs are packed"
    );
    assert_eq!(late(&packed, true), 0);
}

#[test]
fn every_lesson_loads_and_its_schedule_parses() {
    for l in lesson::builtins() {
        let (t, r) = l.trace();
        assert_eq!(r.total_skipped(), 0);
        assert!(Schedule::parse(&t, &l.schedule).is_ok(), "{}", l.name);
        assert!(l.captions.windows(2).all(|w| w[0].0 < w[1].0), "{}", l.name);
    }
    assert!(lesson::listing().contains("fragmentation"));
}

#[test]
fn lecture_layout_renders() {
    use tracetui::ui::app::{Action, App, Effect};
    use tracetui::ui::effects::Effects;
    use tracetui::ui::keymap::{Command, Keymap};
    let l = lesson::find("hol").unwrap();
    let t = Arc::new(l.trace().0);
    let themes = tracetui::ui::theme::EMBEDDED
        .iter()
        .map(|(n, _)| {
            tracetui::ui::theme::Theme::embedded(n, tracetui::ui::theme::Depth::TrueColor).unwrap()
        })
        .collect();
    let mut app = App::new(
        t,
        tracetui::sim::Policy::Fifo,
        Placement::Consolidate,
        "lesson".into(),
        themes,
        Keymap::defaults(),
    )
    .with_captions(l.captions.clone());
    app.update(Action::Resize(100, 30));
    app.update(Action::GoTo(400));
    app.update(Action::Command(Command::Lecture));
    assert_eq!(app.theme().name, "high-contrast");
    let mut buf = ratatui::buffer::Buffer::empty(ratatui::layout::Rect::new(0, 0, 100, 30));
    tracetui::ui::draw::render(&app, buf.area, &mut buf);
    let text = tracetui::ui::export::buffer_text(&buf);
    insta::assert_snapshot!("lecture_layout_100x30", text);
    // Its message has a line of its own, under the headline figures: the
    // grid keeps its bottom border.
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[lines.len() - 1].contains("lecture layout: L goes back"));
    assert!(lines[lines.len() - 2].contains("QUEUE "), "{text}");
    assert!(lines[lines.len() - 3].starts_with('└'), "{text}");
    // The screen as files, for slides: text and SVG with the colours.
    let dir = std::env::temp_dir().join(format!("tracetui-export-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // `e`: an effect the runner performs, writing into its export directory.
    let u = app.update(Action::Command(Command::Export));
    assert_eq!(u.effects, [Effect::Export]);
    // The screen as `e` found it (the key cleared the last message).
    let mut buf = ratatui::buffer::Buffer::empty(ratatui::layout::Rect::new(0, 0, 100, 30));
    tracetui::ui::draw::render(&app, buf.area, &mut buf);
    let text = tracetui::ui::export::buffer_text(&buf);
    let mut fx = Effects::new(dir.clone());
    fx.perform(&mut app, u.effects);
    let (txt, svg) = (dir.join("tracetui-400.txt"), dir.join("tracetui-400.svg"));
    assert_eq!(
        app.flash(),
        Some(format!("exported {}", svg.display()).as_str())
    );
    assert_eq!(std::fs::read_to_string(&txt).unwrap(), text);
    let image = std::fs::read_to_string(&svg).unwrap();
    assert!(
        image.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"900\" height=\"540\"")
    );
    assert!(image.contains(">▸</text>") && image.contains("font-weight=\"bold\""));
    // A second export does not overwrite the first.
    fx.dispatch(&mut app, Action::Command(Command::Export));
    assert!(dir.join("tracetui-400-1.txt").exists());
    // L again: the layout and the theme come back.
    app.update(Action::Command(Command::Lecture));
    assert!(!app.lecture());
    assert_eq!(app.theme().name, "dark");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The deadlines lesson: under edf-elastic each more urgent arrival takes
/// all 8 GPUs, E (which cannot meet its deadline) runs anyway, and no
/// deadline is met; under elasticflow the same jobs share the GPUs, E is
/// declined on arrival and the four admitted meet their deadlines.
#[test]
fn deadlines_edf_misses_every_one_elasticflow_declines_e_and_meets_the_rest() {
    use tracetui::sim::{Event, Phase};
    let (t, mut e) = run("deadlines", None);
    let id = |j: u32| t.jobs[j as usize].id.to_string();
    let events = e.take_events();
    let said = |want: &str| {
        let seen: Vec<String> = events
            .iter()
            .filter_map(|ev| match *ev {
                Event::Started { job, at, milli, .. } => {
                    Some(format!("{at} start {} on {}", id(job), milli / 1000))
                }
                Event::Preempted { job, at } => Some(format!("{at} preempt {}", id(job))),
                Event::Resized { job, at, from, to } => {
                    Some(format!("{at} resize {} {from}→{to}", id(job)))
                }
                Event::Dropped { job, at } => Some(format!("{at} drop {}", id(job))),
                Event::Finished { job, at } => Some(format!("{at} end {}", id(job))),
                _ => None,
            })
            .collect();
        assert!(seen.iter().any(|s| s == want), "{want} not in {seen:#?}");
    };
    // Part 1: each more urgent arrival takes every GPU; E runs anyway.
    said("0 start B1·due40m on 8");
    said("60 preempt B1·due40m");
    said("60 start C1·due31m on 8");
    said("120 start D1·due27m on 8");
    said("180 start E1·due23m on 8");
    said("2430 end E1·due23m");
    // Part 2: A and B share; B shrinks for C, A for D; E is declined;
    // A grows as jobs end.
    said("10800 start A2·due1h on 4");
    said("10800 start B2·due40m on 4");
    said("10860 resize B2·due40m 4→2");
    said("10860 start C2·due31m on 2");
    said("10920 resize A2·due1h 4→2");
    said("10980 drop E2·due23m");
    said("12062 resize A2·due1h 2→4");
    said("13096 end A2·due1h");
    let part2 = lesson::DEADLINES_PART2;
    let met = |part: std::ops::Range<i64>| {
        (0..t.jobs.len() as u32)
            .filter(|&j| part.contains(&t.jobs[j as usize].submit))
            .filter(|&j| {
                let s = e.job_state(j);
                s.phase == Phase::Done && s.end <= t.jobs[j as usize].deadline.get().unwrap()
            })
            .count()
    };
    assert_eq!(met(0..part2), 0);
    assert_eq!(met(part2..i64::MAX), 4);
}

/// The fragmentation lesson under `--placement pack` has captions of its
/// own; each fact they state holds in that run.
#[test]
fn fragmentation_packed_captions_tell_of_the_packed_run() {
    let l = lesson::find("fragmentation").unwrap();
    let packed = l.captions_for(Placement::Pack).unwrap();
    assert_ne!(packed, &l.captions);
    assert_eq!(l.captions_for(l.placement), Some(&l.captions));
    assert_eq!(l.captions_for(Placement::Consolidate), None);
    let (t, _) = run("fragmentation", Some(Placement::Pack));
    let s = Schedule::parse(&t, &l.schedule).unwrap();
    let mut e = Engine::new(t.clone(), s.start.unwrap(), Placement::Pack);
    let big = big_submits(&t);
    // 300: the first 8-GPU job starts on arrival.
    assert_eq!(big[0], 300);
    // 1200: before the next arrives, the small jobs sit on two machines, the
    // first 8-GPU job holds a third, the fourth is empty.
    assert_eq!(big[1], 1200);
    e.advance_to(1199);
    let c = e.cluster();
    let (mut small, mut big8, mut empty) = (0, 0, 0);
    for m in 0..4u32 {
        let holders: std::collections::BTreeSet<u32> = (0..8)
            .flat_map(|g| c.holders(c.first_gpu(m) + g).iter().map(|h| h.0))
            .collect();
        let small_here = holders
            .iter()
            .any(|&j| t.jobs[j as usize].demand.total_milli() == 1000);
        small += small_here as u32;
        big8 += holders
            .iter()
            .any(|&j| t.jobs[j as usize].demand.total_milli() == 8000) as u32;
        empty += holders.is_empty() as u32;
    }
    assert_eq!(
        (small, big8, empty),
        (2, 1, 1),
        "machines with small jobs, with the first 8-GPU job, empty"
    );
    // Every 8-GPU job starts on arrival; under spread 5 of 6 waited.
    e.run_to_end();
    for &b in &big {
        assert_eq!(starts_of(&t, &e, b, 8), vec![b], "the 8-GPU job of {b}");
    }
    let text: String = packed.iter().map(|c| c.1.as_str()).collect();
    assert!(text.contains("5 of 6 waited") && text.contains("the small jobs sit on two machines"));
}

/// The lesson's own run does what its part-2 captions say: at 3h nothing
/// of part 1 runs and its schedule has switched to pack; before the
/// second 8-GPU job arrives (3h20m) the small jobs sit on two machines,
/// the first 8-GPU job holds a third, the fourth is empty.
#[test]
fn fragmentation_part_two_switches_to_pack_as_its_captions_say() {
    let l = lesson::find("fragmentation").unwrap();
    let t = Arc::new(l.trace().0);
    let s = Schedule::parse(&t, &l.schedule).unwrap();
    let mut e = Engine::new(t.clone(), s.start.unwrap(), l.placement);
    for (at, w) in s.effective(e.policy(), None) {
        e.advance_to(at);
        e.switch(w);
    }
    assert_eq!(e.now(), 10_800);
    assert_eq!(e.placement(), Placement::Pack);
    assert!(e
        .running()
        .keys()
        .all(|&j| t.jobs[j as usize].submit >= 10_800));
    let captions: Vec<i64> = l.captions.iter().map(|c| c.0).collect();
    assert!(captions.contains(&10_800) && captions.contains(&12_000));
    e.advance_to(11_999);
    let c = e.cluster();
    let kinds: Vec<(bool, bool, bool)> = (0..4u32)
        .map(|m| {
            let holders: std::collections::BTreeSet<u32> = (0..8)
                .flat_map(|g| c.holders(c.first_gpu(m) + g).iter().map(|h| h.0))
                .collect();
            let of = |milli| {
                holders
                    .iter()
                    .any(|&j| t.jobs[j as usize].demand.total_milli() == milli)
            };
            (of(1000), of(8000), holders.is_empty())
        })
        .collect();
    let count = |f: fn(&(bool, bool, bool)) -> bool| kinds.iter().filter(|k| f(k)).count();
    assert_eq!(
        (count(|k| k.0), count(|k| k.1), count(|k| k.2)),
        (2, 1, 1),
        "{kinds:?}"
    );
}

/// A lesson's cluster is said as the lesson's: `lesson` has no `--gpus`.
#[test]
fn a_lesson_s_cluster_is_said_as_its_own() {
    let l = lesson::find("hol").unwrap();
    let (t, r) = l.trace();
    assert_eq!(
        t.cluster.origin,
        "cluster: 16 GPUs, 8 per machine (the lesson's)"
    );
    assert!(
        r.notes.iter().any(|n| n == &t.cluster.origin),
        "{:?}",
        r.notes
    );
    assert!(
        !r.notes.iter().any(|n| n.contains("--gpus")),
        "{:?}",
        r.notes
    );
}
