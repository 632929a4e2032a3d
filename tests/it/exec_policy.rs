//! External policies (`exec:CMD`): the Python ports of fifo, sjf and las
//! reproduce the built-ins to the last digit (on hand-made traces always,
//! on every released ITP cluster with TRACETUI_REAL_TRACES); a policy that
//! crashes, hangs, prints garbage or asks for the impossible gets a clear
//! error naming it and the time, and never leaves a half-applied answer.

use crate::common;

use common::exec::{failure, figures, quick, run_placed, script, scripted};
use common::python;

use common::{real_traces, scratch_dir, tiny};
use std::sync::Arc;
use std::time::Duration;
use tracetui::sim::{self, Engine, Placement, Policy, Report};
use tracetui::trace::Trace;

fn port(name: &str) -> Policy {
    tracetui::driver::resolve(
        &format!("exec:python3 policies/{name}.py"),
        &mut tracetui::sim::Policies::new(),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn run(trace: &Arc<Trace>, p: Policy) -> Report {
    run_placed(trace, p, Placement::Consolidate)
}

/// A busy little cluster: gangs of 1–16 GPUs on 4 × 8 GPUs, long and short
/// jobs, bursts of equal submit times — queues, preemption, demotion and
/// starvation all happen.
fn contended() -> Arc<Trace> {
    let mut jobs = Vec::new();
    let mut x: u64 = 7;
    for i in 0..160i64 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let gpus = [1, 1, 2, 4, 8, 16][(x >> 33) as usize % 6];
        let run = 30 + ((x >> 40) % 5000) as i64;
        jobs.push(((i / 3) * 97, run, gpus));
    }
    tiny(&[8, 8, 8, 8], &jobs)
}

#[test]
fn python_ports_equal_the_built_ins_on_a_contended_trace() {
    if !python() {
        return;
    }
    let t = contended();
    for (name, built_in) in [
        ("fifo", Policy::Fifo),
        ("sjf", Policy::Sjf),
        ("las", Policy::Las),
    ] {
        let theirs = run(&t, port(name));
        let ours = run(&t, built_in);
        assert_eq!(figures(theirs), figures(ours), "{name}");
    }
    // The trace is contended enough for the policies to differ.
    assert_ne!(
        figures(run(&t, Policy::Fifo)),
        figures(run(&t, Policy::Sjf))
    );
    assert!(run(&t, Policy::Las).preemptions > 0);
}

#[test]
#[cfg_attr(
    not(real_traces),
    ignore = "needs the released traces: TRACETUI_REAL_TRACES=../shared/traces"
)]
fn python_ports_equal_the_built_ins_on_every_released_itp_cluster() {
    let Some(root) = real_traces() else { return };
    if !python() {
        return;
    }
    let opts = tracetui::trace::LoadOptions::default();
    let mut runs = Vec::new();
    for i in 1..=5 {
        let path = root.join(format!("itp/raw/cluster0{i}.csv"));
        let (trace, _) = tracetui::trace::load_itp(&path, &opts).unwrap();
        runs.push((path, Arc::new(trace)));
    }
    std::thread::scope(|s| {
        for (path, trace) in &runs {
            s.spawn(move || {
                for (name, built_in) in [
                    ("fifo", Policy::Fifo),
                    ("sjf", Policy::Sjf),
                    ("las", Policy::Las),
                ] {
                    assert_eq!(
                        figures(run(trace, port(name))),
                        figures(run(trace, built_in)),
                        "{name} on {}",
                        path.display()
                    );
                }
            });
        }
    });
}

/// Writes a policy script and returns it as a policy (probed on the way).
#[test]
fn a_policy_that_crashes_gets_a_clear_error() {
    if !python() {
        return;
    }
    let p = scripted("crash", "greedy", "if msg[\"time\"] >= 10: sys.exit(3)");
    let why = failure(p);
    assert!(why.contains("crash.py"), "{why}");
    assert!(why.contains("at 10 s"), "{why}");
    assert!(
        why.contains("closed its output") && why.contains("3"),
        "{why}"
    );
}

#[test]
fn a_policy_that_hangs_times_out() {
    if !python() {
        return;
    }
    let p = scripted("hang", "greedy", "import time\ntime.sleep(60)");
    let t0 = std::time::Instant::now();
    let why = failure(p);
    assert!(why.contains("did not answer within 1.5 s"), "{why}");
    assert!(t0.elapsed() < Duration::from_secs(20));
}

#[test]
fn a_policy_that_prints_garbage_is_refused() {
    if !python() {
        return;
    }
    let p = scripted(
        "garbage",
        "greedy",
        "print('\\x1b]0;owned\\x07 not json', flush=True)\ncontinue",
    );
    let why = failure(p);
    assert!(why.contains("malformed answer"), "{why}");
    // The escape sequence never reaches the terminal.
    assert!(!why.chars().any(char::is_control), "{why:?}");
    assert!(why.contains("\\x1b]0;owned\\x07 not json"), "{why}");
}

#[test]
fn a_policy_that_writes_a_line_too_many_is_caught_out_of_step() {
    if !python() {
        return;
    }
    // One extra line per answer: every later answer would be applied to
    // the wrong message. Written in the same write as the answer (one
    // call, whether or not Python buffers its output): a line too many
    // that comes later than the next message is taken for its answer, and
    // a pipe cannot tell it from one.
    let p = script(
        "chatty",
        r#"import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"name": "chatty", "walk": "greedy"}), flush=True)
    else:
        sys.stdout.write("{}\n{}\n")
        sys.stdout.flush()
"#,
    )
    .unwrap();
    let why = failure(p);
    assert!(why.contains("out of step"), "{why}");
    assert!(why.contains("one line per message"), "{why}");
}

#[test]
fn a_failing_policy_falls_back_without_a_half_applied_answer() {
    if !python() {
        return;
    }
    // At its first point the policy re-keys two waiting jobs and starts one,
    // then names a job that does not exist: nothing of that answer may
    // happen, and the replay goes back to fifo.
    let p = script(
        "half",
        r#"import json, sys
queue = []
for line in sys.stdin:
    msg = json.loads(line)
    answer = {}
    if msg["type"] == "hello":
        answer = {"name": "half", "walk": "explicit"}
    elif msg["type"] == "start":
        queue = [j["job"] for j in msg["queue"]]
    elif msg["type"] == "schedule":
        answer = {"priority": [[q, 9] for q in queue[:2]], "start": queue[:1] + [99999]}
    print(json.dumps(answer), flush=True)
"#,
    )
    .unwrap();
    let t = contended();
    let mut e = Engine::new(t.clone(), Policy::Fifo, Placement::Consolidate);
    tracetui::driver::advance_to(&mut e, 500);
    assert!(e.queue_len() >= 2, "the test needs jobs waiting at 500");
    e.set_policy(p);
    tracetui::driver::settle(&mut e, None);
    assert_eq!(e.policy(), Policy::Fifo, "fell back at once");
    let f = &e.failures()[0];
    assert_eq!((f.at, f.fell_back_to), (500, Some(Policy::Fifo)));
    tracetui::driver::run_to_end(&mut e);
    // As if the switch had never happened (fifo switching to fifo).
    let plain = run(&t, Policy::Fifo);
    assert_eq!(figures(e.report()), figures(plain));
}

#[test]
fn a_program_that_is_no_policy_is_refused_when_named() {
    let err = tracetui::driver::resolve(
        "exec:sh -c 'echo hello'",
        &mut tracetui::sim::Policies::new(),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("malformed answer to hello"), "{err}");
    let err = tracetui::driver::resolve("exec:", &mut tracetui::sim::Policies::new())
        .unwrap_err()
        .to_string();
    assert!(err.contains("needs a command"), "{err}");
}

#[test]
fn parsing_a_policy_name_starts_no_program() {
    let dir = std::env::temp_dir().join(format!("tracetui-parse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mark = dir.join("started");
    let name = format!("exec:touch {}", mark.display());
    let err = name.parse::<Policy>().unwrap_err().to_string();
    assert!(err.contains("is a program"), "{err}");
    std::thread::sleep(std::time::Duration::from_millis(100));
    assert!(!mark.exists(), "parsing '{name}' ran it");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn negative_keys_order_the_queue() {
    if !python() {
        return;
    }
    // The README's example: the biggest job first, by a negative key.
    let body = format!(
        "import sys\nsys.path.insert(0, {:?})\nfrom tracetui_policy import Policy, run\n\n\
         class BiggestFirst(Policy):\n    name, walk = 'biggest-first', 'greedy'\n    \
         def priority(self, job):\n        return -job.milli\n\nrun(BiggestFirst())\n",
        concat!(env!("CARGO_MANIFEST_DIR"), "/policies")
    );
    let p = script("biggest", &body).unwrap();
    // Two GPUs: a holds both until 10; then c (2 GPUs) goes before b (1).
    let t = tiny(&[2], &[(0, 10, 2), (1, 10, 1), (2, 10, 2)]);
    assert_eq!(
        common::starts(&t, p, Placement::Consolidate),
        vec![Some(0), Some(20), Some(10)]
    );
    assert_eq!(
        common::starts(&t, Policy::FirstFit, Placement::Consolidate),
        vec![Some(0), Some(10), Some(20)]
    );
}

#[test]
fn timeslice_preempts_only_after_a_quantum_and_for_a_job_waiting_longer() {
    if !python() {
        return;
    }
    use tracetui::sim::Event;
    let p = port("timeslice");
    assert!(p.preempts());
    let t = contended();
    let mut e = Engine::new(t.clone(), p, Placement::Consolidate);
    e.set_halt_on_failure(true);
    e.set_record_events(true);
    let mut last_start = std::collections::HashMap::new();
    let mut preempted = 0;
    while let Some(next) = e.next_event_time() {
        tracetui::driver::advance_to(&mut e, next);
        for ev in e.take_events() {
            match ev {
                Event::Started { job, at, .. } => {
                    last_start.insert(job, at);
                }
                Event::Preempted { job, at } => {
                    let ran = at - last_start[&job];
                    assert!(
                        ran >= 3600,
                        "job {job} preempted after {ran} s, within its quantum"
                    );
                    preempted += 1;
                }
                _ => {}
            }
        }
    }
    assert_eq!(e.failures(), &[]);
    assert!(preempted > 0, "the contended trace should see time slicing");
    let r = e.report();
    assert_eq!(r.jobs_done, t.jobs.len() as u64);
    assert_eq!(r.preemptions, preempted);
}

#[test]
fn a_schedule_switches_to_an_external_policy_and_round_trips() {
    if !python() {
        return;
    }
    use tracetui::sim::Schedule;
    let t = contended();
    let text = "start:fifo,@3000:exec:python3 policies/sjf.py,day 1 02:00:las";
    let mut registry = tracetui::sim::Policies::new();
    let s = Schedule::parse_with(&t, text, &mut |n| {
        tracetui::driver::resolve(n, &mut registry)
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let again = Schedule::parse_with(&t, &s.text(), &mut |n| registry.parse(n)).unwrap();
    assert_eq!(again.text(), s.text(), "the text round-trips");
    let driver = &tracetui::driver::Driver;
    let theirs = s.run(
        Engine::new(t.clone(), Policy::Fifo, Placement::Consolidate),
        driver,
    );
    let built_in = Schedule::parse(&t, "start:fifo,@3000:sjf,day 1 02:00:las").unwrap();
    let ours = built_in.run(
        Engine::new(t.clone(), Policy::Fifo, Placement::Consolidate),
        driver,
    );
    assert_eq!(figures(theirs), figures(ours));
}

#[test]
fn stepping_back_replays_the_answers_of_a_policy_that_is_not_deterministic() {
    if !python() {
        return;
    }
    use tracetui::sim::Replay;
    // Random keys: a second run of the program would not answer the same.
    let p = script(
        "random",
        r#"import json, os, sys
for line in sys.stdin:
    msg = json.loads(line)
    answer = {}
    if msg["type"] == "hello":
        answer = {"name": "random", "walk": "greedy"}
    elif msg["type"] == "schedule":
        answer = {"priority": [[j["job"], int.from_bytes(os.urandom(2), "big")] for j in msg["arrived"]]}
    print(json.dumps(answer), flush=True)
"#,
    )
    .unwrap();
    let t = contended();
    let states =
        |e: &Engine| -> Vec<_> { (0..t.jobs.len() as u32).map(|j| e.job_state(j)).collect() };
    // Two fresh runs differ: the test is not vacuous.
    let runs: Vec<String> = (0..2).map(|_| figures(run(&t, p))).collect();
    assert_ne!(runs[0], runs[1], "random keys should change the schedule");

    let mut r = Replay::new(Engine::new(t.clone(), p, Placement::Consolidate));
    tracetui::driver::seek(&mut r, 6000);
    let (at_6000, report) = (states(r.engine()), figures(r.engine().report()));
    tracetui::driver::seek(&mut r, 1500);
    tracetui::driver::seek(&mut r, 6000);
    assert_eq!(
        states(r.engine()),
        at_6000,
        "stepping back and forward again"
    );
    assert_eq!(figures(r.engine().report()), report);
    // Forward past where it had been: the program answers again.
    tracetui::driver::seek(&mut r, 20_000);
    assert!(r.engine().failures().is_empty());
    assert!(r.engine().jobs_done() > 0);
}

#[test]
fn two_failing_policies_fall_back_to_fifo_not_to_each_other() {
    if !python() {
        return;
    }
    let a = scripted("fails-a", "greedy", "answer = {'start': [99999]}");
    let b = scripted("fails-b", "greedy", "answer = {'start': [99998]}");
    let t = contended();
    let mut e = quick(Engine::new(t.clone(), Policy::Fifo, Placement::Consolidate));
    tracetui::driver::advance_to(&mut e, 500);
    e.set_policy(a);
    tracetui::driver::settle(&mut e, None);
    assert_eq!(e.policy(), Policy::Fifo);
    e.set_policy(b);
    tracetui::driver::settle(&mut e, None);
    // b fails and would go back to a, which failed at this instant: fifo.
    assert_eq!(e.policy(), Policy::Fifo);
    let fell: Vec<_> = e.failures().iter().map(|f| f.fell_back_to).collect();
    assert_eq!(fell, vec![Some(Policy::Fifo), Some(Policy::Fifo)]);
}

#[test]
fn compare_from_with_a_failing_policy_exits_1() {
    if !python() {
        return;
    }
    let dir = scratch_dir("from");
    let p = dir.join("bad.py");
    std::fs::write(
        &p,
        "import json, sys\nfor l in sys.stdin:\n    m = json.loads(l)\n    \
         print(json.dumps({'name': 'bad', 'walk': 'greedy'} if m['type'] == 'hello' \
         else ({} if m['type'] == 'start' else {'start': [123456789]})), flush=True)\n",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tracetui"))
        .args([
            "compare",
            "pai",
            "sample-traces/pai",
            "--from",
            "1d",
            "--policies",
        ])
        .arg(format!("fifo,exec:python3 {}", p.display()))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("is not in the trace"), "{err}");
}

#[test]
fn two_engines_with_different_timeouts_run_side_by_side_in_one_process() {
    if !python() {
        return;
    }
    // Each answer takes 0.6 s: within 5 s, not within 0.2 s.
    let p = scripted("sleepy", "greedy", "import time\ntime.sleep(0.6)");
    let t = tiny(&[4], &[(0, 100, 2), (10, 100, 2)]);
    let with_timeout = |secs: f64| {
        let tuning = sim::Tuning {
            policy_timeout: Duration::from_secs_f64(secs),
            ..sim::Tuning::default()
        };
        let mut e = Engine::new(t.clone(), p, Placement::Consolidate).with_tuning(Arc::new(tuning));
        e.set_halt_on_failure(true);
        e
    };
    let (mut short, mut long) = (with_timeout(0.2), with_timeout(5.0));
    std::thread::scope(|s| {
        s.spawn(|| tracetui::driver::run_to_end(&mut short));
        s.spawn(|| tracetui::driver::run_to_end(&mut long));
    });
    assert!(short.halted(), "0.2 s is too short for a 0.6 s answer");
    let why = &short.failures()[0].why;
    assert!(why.contains("did not answer within 0.2 s"), "{why}");
    assert!(long.failures().is_empty(), "{:?}", long.failures());
    assert!(!long.halted());
    assert_eq!(long.jobs_done(), 2);
}
