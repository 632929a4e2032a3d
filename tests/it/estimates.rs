//! Issue 60's fourth item: policies that order by run time are told an
//! estimate (`--estimate oracle|requested|lognormal:σ`), jobs still run
//! their true run times; hand-computed orders under each, the result and
//! the provenance of a noisy run, and `requested` refused where a trace
//! records none.

use crate::common;

use common::cli::{stderr, stdout, tracetui, SAMPLE};
use std::sync::Arc;
use tracetui::sim::{Engine, Estimate, Phase, Placement, Policy, Tuning};
use tracetui::trace::Trace;

/// `tiny`, each job with the run time it asked for.
fn with_requested(trace: Arc<Trace>, requested: &[i64]) -> Arc<Trace> {
    let mut t = Trace::clone(&trace);
    for (j, &r) in t.jobs.iter_mut().zip(requested) {
        j.requested = Some(r).into();
    }
    Arc::new(t)
}

/// (start, end) of every job after a run of `policy` told `estimate`.
fn run(trace: &Arc<Trace>, policy: Policy, estimate: Estimate) -> Vec<(i64, i64)> {
    let tuning = Tuning {
        estimate,
        preempt_cost: 0,
        ..Tuning::default()
    };
    let mut e =
        Engine::new(trace.clone(), policy, Placement::Consolidate).with_tuning(Arc::new(tuning));
    tracetui::driver::run_to_end(&mut e);
    (0..trace.jobs.len() as u32)
        .map(|j| {
            let s = e.job_state(j);
            assert_eq!(s.phase, Phase::Done, "job {j}");
            (s.start, s.end)
        })
        .collect()
}

#[test]
fn sjf_orders_by_what_it_is_told_and_jobs_run_their_true_time() {
    // One GPU, held by j0 until 10; j1 (truly 100 s, asked 10) and j2
    // (truly 10 s, asked 100) wait.
    let t = with_requested(
        common::tiny(&[1], &[(0, 10, 1), (1, 100, 1), (2, 10, 1)]),
        &[10, 10, 100],
    );
    // Told the truth, j2 first: 10–20, then j1 20–120.
    assert_eq!(
        run(&t, Policy::Sjf, Estimate::Oracle),
        [(0, 10), (20, 120), (10, 20)]
    );
    // Told what they asked for, j1 first: 10–110 (its true 100 s), j2 110–120.
    assert_eq!(
        run(&t, Policy::Sjf, Estimate::Requested),
        [(0, 10), (10, 110), (110, 120)]
    );
}

#[test]
fn easy_backfill_reserves_by_estimated_ends() {
    // Two GPUs. j0 (1 GPU) truly runs 0–100 but asked for 50; the head j1
    // (2 GPUs) waits from 1; j2 (1 GPU, truly 80 s) arrives at 2.
    let jobs = [(0, 100, 1), (1, 10, 2), (2, 80, 1)];
    let t = common::tiny(&[2], &jobs);
    // Oracle: the head's shadow is 100; j2 ends by 82, so it backfills at 2.
    assert_eq!(
        run(&t, Policy::FifoBackfill, Estimate::Oracle),
        [(0, 100), (100, 110), (2, 82)]
    );
    // Asked 40: expected by 42, before j0's expected end at 50: backfilled.
    let told = |asked: i64| with_requested(t.clone(), &[50, 10, asked]);
    assert_eq!(
        run(&told(40), Policy::FifoBackfill, Estimate::Requested),
        [(0, 100), (100, 110), (2, 82)]
    );
    // Asked 60: it would end after the shadow (50) on the head's GPU, so it
    // waits behind the head, as told, although it truly would fit.
    assert_eq!(
        run(&told(60), Policy::FifoBackfill, Estimate::Requested),
        [(0, 100), (100, 110), (110, 190)]
    );
}

#[test]
fn srtf_preempts_by_the_time_left_it_is_told() {
    // One GPU: j0 truly 100 s from 0 (asked 30); j1 truly 50 s at 10
    // (asked 50). Told the truth, j1 (50 left) preempts j0 (90 left);
    // j0 (first started at 0) ends at 150.
    let t = with_requested(common::tiny(&[1], &[(0, 100, 1), (10, 50, 1)]), &[30, 50]);
    assert_eq!(
        run(&t, Policy::Srtf, Estimate::Oracle),
        [(0, 150), (10, 60)]
    );
    // Told j0 has 20 s left (30 − 10 done): j1 waits until j0 truly ends.
    assert_eq!(
        run(&t, Policy::Srtf, Estimate::Requested),
        [(0, 100), (100, 150)]
    );
}

fn sim_json(extra: &[&str]) -> (serde_json::Value, String) {
    let mut args = vec![
        "sim", "itp", SAMPLE, "--gpus", "64", "--policy", "sjf", "--format", "json",
    ];
    args.extend(extra);
    let o = tracetui(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    (serde_json::from_str(&stdout(&o)).unwrap(), stdout(&o))
}

#[test]
fn a_noisy_estimate_changes_sjf_is_seeded_and_is_in_the_meta() {
    let (oracle, _) = sim_json(&[]);
    let (noisy, text) = sim_json(&["--estimate", "lognormal:0.5", "--estimate-seed", "1"]);
    assert!(oracle.get("estimate").is_none(), "{oracle}");
    assert_eq!(noisy["estimate"], "lognormal:0.5 (seed 1)");
    assert_ne!(noisy["jct_s"]["mean"], oracle["jct_s"]["mean"]);
    // Every job still done, on the same cluster.
    assert_eq!(noisy["jobs_done"], oracle["jobs_done"]);
    let knobs = &noisy["meta"]["knobs"];
    assert_eq!(knobs["estimate"], "lognormal:0.5");
    assert_eq!(knobs["estimate-seed"], "1");
    assert_eq!(oracle["meta"]["knobs"]["estimate"], "oracle");
    // The same seed, the same bytes; another seed, another result.
    assert_eq!(
        sim_json(&["--estimate", "lognormal:0.5", "--estimate-seed", "1"]).1,
        text
    );
    let (other, _) = sim_json(&["--estimate", "lognormal:0.5", "--estimate-seed", "2"]);
    assert_ne!(other["jct_s"]["mean"], noisy["jct_s"]["mean"]);
    // The table names it in the policy's line and the rules.
    let o = tracetui(&[
        "sim",
        "itp",
        SAMPLE,
        "--gpus",
        "64",
        "--policy",
        "sjf",
        "--estimate",
        "lognormal:0.5",
    ]);
    let table = stdout(&o);
    assert!(
        table.contains("sjf — shortest run time first (run times: lognormal:0.5 (seed 0))"),
        "{table}"
    );
    assert!(
        table.contains("are told run times as --estimate lognormal:0.5 (seed 0) gives them"),
        "{table}"
    );
    // And the CSV has a column for it.
    let o = tracetui(&[
        "sim",
        "itp",
        SAMPLE,
        "--gpus",
        "64",
        "--policy",
        "sjf",
        "--estimate",
        "lognormal:0.5",
        "--format",
        "csv",
    ]);
    let csv = stdout(&o);
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let row: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
    let at = header.iter().position(|h| *h == "estimate").unwrap();
    assert_eq!(row[at], "lognormal:0.5 (seed 0)");
}

#[test]
fn requested_is_refused_where_the_trace_records_none_and_bad_names_too() {
    let o = tracetui(&[
        "sim",
        "itp",
        SAMPLE,
        "--policy",
        "sjf",
        "--estimate",
        "requested",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--estimate requested: this itp trace records no requested run time"),
        "{}",
        stderr(&o)
    );
    for bad in ["lognormal:0", "lognormal:x", "guess"] {
        let o = tracetui(&["sim", "itp", SAMPLE, "--estimate", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", stderr(&o));
        assert!(stderr(&o).contains("is no estimate"), "{}", stderr(&o));
    }
}
