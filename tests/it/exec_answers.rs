//! What an external policy's answer may ask, and how the engine's one check
//! refuses the impossible by name: start a job that does not exist, twice,
//! before it arrives, on GPUs that are taken, that does not fit; and the
//! `start_if_fits` list, which starts what fits where the placement rule
//! puts it and skips the rest, so a policy never re-implements placement.

use crate::common;

use common::exec::{failure, figures, run_placed, scripted};
use common::{python, tiny};
use std::sync::Arc;
use tracetui::sim::{Engine, Phase, Placement, Policy, Report};
use tracetui::trace::Trace;

#[test]
fn impossible_answers_are_refused_by_name() {
    if !python() {
        return;
    }
    let cases = [
        ("unknown", "answer = {'start': [99]}", "job 99 is not in the trace"),
        ("double", "answer = {'start': [0, 0]}", "twice"),
        (
            "future",
            "answer = {'start': [2]} if msg['time'] == 0 else {}",
            "not waiting",
        ),
        (
            "overalloc",
            "answer = {'start': [{'job': j['job'], 'gpus': [[0, g, 1000] for g in range(j['gpus'])]} for j in msg['arrived']]}",
            "over-allocation",
        ),
        (
            "toobig",
            "answer = {'start': [j['job'] for j in msg['arrived']]}",
            "does not fit",
        ),
        ("past", "answer = {'wakeup': msg['time']}", "not after now"),
        ("typo", "answer = {'starts': []}", "malformed answer"),
        (
            "chatty",
            "print('debug', msg['time'])",
            "malformed answer (expected value at line 1 column 1): debug 0 (stdout is the protocol, \
             one JSON line per message: write diagnostics to stderr, in Python print(..., file=sys.stderr))",
        ),
    ];
    for (name, code, expect) in cases {
        let why = failure(scripted(name, "explicit", code));
        assert!(why.contains(expect), "{name}: {why}");
        if name == "typo" {
            assert!(
                !why.contains("stdout is the protocol"),
                "JSON, not a print: {why}"
            );
        }
    }
}

#[test]
fn more_impossible_answers_are_refused() {
    if !python() {
        return;
    }
    let cases = [
        ("far", "explicit", "answer = {'wakeup': 2**62}", "beyond any trace's time"),
        (
            // Job 0 finished at 100; the next point is at 110.
            "oldkey",
            "greedy",
            "answer = {'priority': [[0, 0]]} if msg['time'] >= 105 else {}",
            "not waiting or running",
        ),
        (
            "halves",
            "explicit",
            "answer = {'start': [{'job': j['job'], 'gpus': [[0, 0, 500], [0, 1, 500], [0, 2, 500], [0, 3, 500]]} for j in msg['arrived']][:1]}",
            "whole GPUs",
        ),
        (
            // More keys than jobs: refused before it is turned into the
            // engine's terms (a 250 MB answer took 9× its size in memory).
            "toomany",
            "greedy",
            "answer = {'priority': [[0, k] for k in range(5000)]}",
            "priority names 5000 jobs; the trace has",
        ),
    ];
    for (name, walk, code, expect) in cases {
        let why = failure(scripted(name, walk, code));
        assert!(why.contains(expect), "{name}: {why}");
    }
}

#[test]
fn start_if_fits_starts_what_fits_and_skips_the_rest() {
    if !python() {
        return;
    }
    // One machine of 4 GPUs; at 5 jobs of 3, 2 and 1 GPUs arrive. Asked to
    // start all three if they fit, the engine starts the first and third.
    // (Jobs of the policy's first point come in its snapshot, `start`.)
    let p = common::exec::script(
        "fits",
        r#"import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    answer = {}
    if msg["type"] == "hello":
        answer = {"name": "fits", "walk": "explicit"}
    elif msg["type"] == "start":
        waiting = [j["job"] for j in msg["queue"]]
    elif msg["type"] == "schedule":
        answer = {"start_if_fits": waiting + [j["job"] for j in msg["arrived"]]}
        waiting = []
    print(json.dumps(answer), flush=True)
"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let t = tiny(&[4], &[(5, 100, 3), (5, 100, 2), (5, 100, 1)]);
    let mut e = Engine::new(t, p, Placement::Consolidate);
    e.set_halt_on_failure(true);
    tracetui::driver::advance_to(&mut e, 6);
    assert!(e.failures().is_empty(), "{:?}", e.failures());
    let phases: Vec<Phase> = (0..3).map(|j| e.job_state(j).phase).collect();
    assert_eq!(
        phases,
        [Phase::Running, Phase::Queued, Phase::Running],
        "2 GPUs do not fit beside 3: skipped, not refused"
    );
}

#[test]
fn start_if_fits_still_refuses_a_job_that_is_not_waiting() {
    if !python() {
        return;
    }
    let cases = [
        (
            "fitsnone",
            "answer = {'start_if_fits': [99]}",
            "job 99 is not in the trace",
        ),
        (
            "fitstwice",
            "answer = {'start': [0], 'start_if_fits': [0]}",
            "twice",
        ),
        (
            "fitsfuture",
            "answer = {'start_if_fits': [2]} if msg['time'] == 0 else {}",
            "not waiting",
        ),
    ];
    for (name, code, expect) in cases {
        let why = failure(scripted(name, "explicit", code));
        assert!(why.contains(expect), "{name}: {why}");
    }
}

fn run(trace: &Arc<Trace>, p: Policy) -> Report {
    run_placed(trace, p, Placement::Pack)
}

#[test]
fn start_if_fits_over_the_queue_in_arrival_order_is_first_fit() {
    if !python() {
        return;
    }
    // Placement is the engine's own: an explicit policy that only ever asks
    // to start every waiting job if it fits, oldest first, is first-fit —
    // under `pack`, whose choice of GPUs a policy would otherwise mirror.
    let p = common::exec::script(
        "fits-ff",
        r#"import json, sys
queue = {}
for line in sys.stdin:
    msg = json.loads(line)
    answer = {}
    if msg["type"] == "hello":
        answer = {"name": "fits-ff", "walk": "explicit"}
    elif msg["type"] == "start":
        queue = {j["job"]: j["submit"] for j in msg["queue"]}
    elif msg["type"] == "schedule":
        for ev in msg["events"]:
            if ev["event"] == "started":
                queue.pop(ev["job"], None)
            elif ev["event"] == "preempted":
                raise SystemExit("nothing is preempted here")
        for j in msg["arrived"]:
            queue[j["job"]] = j["submit"]
        order = sorted(queue, key=lambda j: (queue[j], j))
        answer = {"start_if_fits": order}
    print(json.dumps(answer), flush=True)
"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut jobs = Vec::new();
    let mut x: u64 = 11;
    for i in 0..120i64 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let gpus = [1, 1, 2, 3, 4, 8][(x >> 33) as usize % 6];
        jobs.push(((i / 2) * 61, 40 + ((x >> 40) % 3000) as i64, gpus));
    }
    let t = tiny(&[8, 4, 4, 2], &jobs);
    let theirs = run(&t, p);
    let ours = figures(run(&t, Policy::FirstFit));
    assert_eq!(figures(theirs), ours);
    assert_ne!(
        figures(run(&t, Policy::Fifo)),
        ours,
        "contended enough for the walk to matter"
    );
}
