//! The command line's policies and energy: the energy model in sim,
//! compare and stats, preemptive policies and schedules, EDF on deadlines,
//! and compare --from.

use crate::common;

use common::cli::{stderr, stdout, tracetui, without_meta, PAI, SAMPLE};
use std::process::Output;

#[test]
fn energy_adds_kwh_and_power_to_sim_compare_and_a_mapping_table_to_stats() {
    let z = "tests/fixtures/zeus";
    let max = tracetui(&["sim", "itp", SAMPLE, "--energy", z, "--format", "json"]);
    assert!(max.status.success(), "{}", stderr(&max));
    let zeus = tracetui(&[
        "sim", "itp", SAMPLE, "--energy", z, "--power", "zeus", "--format", "json",
    ]);
    let kwh = |o: &Output| -> f64 {
        let v: serde_json::Value = serde_json::from_str(&stdout(o)).unwrap();
        assert!(v["avg_power_w"].as_f64().unwrap() > 0.0);
        v["energy_kwh"].as_f64().unwrap()
    };
    // In the fixture zeus only lowers cifar100's limit (80 W instead of 150 W, 1.2× longer).
    assert!(kwh(&zeus) < kwh(&max), "{} vs {}", kwh(&zeus), kwh(&max));
    let plain = tracetui(&["sim", "itp", SAMPLE, "--format", "json"]);
    assert!(!stdout(&plain).contains("energy_kwh"));

    let c = tracetui(&[
        "compare",
        "itp",
        SAMPLE,
        "--policies",
        "fifo,sjf",
        "--energy",
        z,
        "--format",
        "csv",
    ]);
    assert!(c.status.success(), "{}", stderr(&c));
    let out = stdout(&c);
    let header = out.lines().next().unwrap();
    assert!(header.ends_with(",energy_kwh,avg_power_w,meta"), "{header}");
    assert_eq!(out.lines().count(), 3);

    let s = tracetui(&["stats", "itp", SAMPLE, "--energy", z, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&s)).unwrap();
    let rows = v["energy_workloads"].as_array().unwrap();
    assert_eq!(rows.len(), 6);
    let jobs: u64 = rows
        .iter()
        .map(|r| r["jobs_by_name"].as_u64().unwrap() + r["jobs_by_gpu_time"].as_u64().unwrap())
        .sum();
    assert_eq!(jobs, v["jobs"]["all"].as_u64().unwrap());
    assert_eq!(rows[0]["zeus_limit_w"], 100);

    let bad = tracetui(&["sim", "itp", SAMPLE, "--energy", "tests/fixtures/pai"]);
    assert!(!bad.status.success());
    assert!(
        stderr(&bad).contains("summary_train.csv"),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn a_zeus_directory_brings_its_own_energy_model() {
    let o = tracetui(&[
        "sim",
        "zeus",
        "tests/fixtures/zeus",
        "--policy",
        "recorded",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    // 150 W × 10 500 GPU-seconds.
    let kwh = v["energy_kwh"].as_f64().unwrap();
    assert!((kwh - 150.0 * 10_500.0 / 3.6e6).abs() < 1e-9, "{kwh}");
    let j = tracetui(&["job", "zeus", "tests/fixtures/zeus", "g-cifar#2"]);
    assert!(stdout(&j).contains("start_time     1500"), "{}", stdout(&j));
}

#[test]
fn preemptive_policies_schedules_and_their_errors() {
    let o = tracetui(&[
        "compare",
        "itp",
        SAMPLE,
        "--policies",
        "srtf,las",
        "--policy-schedule",
        "0:fifo,2d:las",
        "--format",
        "json",
        "--las-thresholds",
        "1800,7200",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let names: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["policy"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        vec!["srtf", "las", "schedule start:fifo,@173023:las"]
    );
    assert!(v[0]["preemptions"].as_u64().unwrap() > 0);
    // Table: a preemption column, and the schedule's row is not cut.
    let o = tracetui(&[
        "compare",
        "itp",
        SAMPLE,
        "--policies",
        "fifo",
        "--policy-schedule",
        "0:fifo,2d:las",
    ]);
    let out = stdout(&o);
    assert!(out.contains("preempt"), "{out}");
    assert!(out.contains("schedule start:fifo,@173023:las "), "{out}");
    // The same schedule through sim gives the same numbers as its compare row.
    let o = tracetui(&[
        "sim",
        "itp",
        SAMPLE,
        "--policy-schedule",
        "0:fifo,2d:las",
        "--format",
        "json",
        "--las-thresholds",
        "1800,7200",
    ]);
    let one: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(without_meta(one), without_meta(v[2].clone()));
    for (args, msg) in [
        (vec!["--policy", "edf"], "policy 'edf' needs deadlines"),
        (
            vec!["--policy-schedule", "0:fifo,1d:edf"],
            "policy 'edf' needs deadlines",
        ),
        (
            vec!["--policy-schedule", "1d:sjf,0:fifo"],
            "list switches in time order",
        ),
        (vec!["--las-thresholds", "100,10"], "ascending"),
        (
            vec!["--las-starve=-1"],
            "--las-starve must be between 0 and 1000, not -1.0",
        ),
        // Issue 63 item 4: absurd numbers are refused by their range (a
        // starve factor of 1e300 overflowed a time and panicked; a restart
        // cost of 136 years ran jobs 3,676 years past the time bound).
        (
            vec!["--policy", "las", "--las-starve", "1e300"],
            "--las-starve must be between 0 and 1000, not 1e300",
        ),
        (
            vec!["--policy", "las", "--preempt-cost", "4294967295"],
            "4294967295 is not in 0..=86400",
        ),
        (vec!["--rescale-cost", "86401"], "86401 is not in 0..=86400"),
    ] {
        let mut a = vec!["sim", "itp", SAMPLE];
        a.extend(args.iter());
        let o = tracetui(&a);
        assert!(!o.status.success());
        assert!(stderr(&o).contains(msg), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn edf_on_elasticflow_deadlines_reports_deadline_met() {
    let dir = common::scratch_dir("edf");
    let f = dir.join("ef.csv");
    let o = tracetui(&[
        "gen",
        "itp",
        "--jobs",
        "300",
        "--seed",
        "3",
        "--schema",
        "elasticflow",
        "--out",
        f.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = tracetui(&[
        "compare",
        "itp",
        f.to_str().unwrap(),
        "--policies",
        "fifo,edf",
        "--format",
        "csv",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].ends_with(",gpu_util,preemptions,offered_load_gpus,deadline_met,meta"),
        "{out}"
    );
    let mut rows = csv::Reader::from_reader(out.as_bytes());
    let at = rows
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "deadline_met");
    let met: Vec<f64> = rows
        .records()
        .map(|r| r.unwrap()[at.unwrap()].parse().unwrap())
        .collect();
    assert!(
        met[1] >= met[0],
        "edf meets at least fifo's deadlines: {out}"
    );
}

#[test]
fn compare_from_forks_the_recorded_replay() {
    let pai = "sample-traces/pai";
    let o = tracetui(&[
        "compare",
        "pai",
        pai,
        "--from",
        "day 3 12:00",
        "--policies",
        "fifo,srtf",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("from 4766400 (Wed 12:00:00 day 3), 2 runs"),
        "{}",
        stderr(&o)
    );
    let forked: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    // The same as replaying as recorded and switching at that time.
    let o = tracetui(&[
        "sim",
        "pai",
        pai,
        "--policy-schedule",
        "start:recorded,@4766400:srtf",
        "--format",
        "json",
    ]);
    let mut scheduled: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    scheduled["policy"] = "srtf".into();
    assert_eq!(without_meta(forked[1].clone()), without_meta(scheduled));
    let o = tracetui(&["compare", "itp", SAMPLE, "--from", "2d"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("records no starts"), "{}", stderr(&o));
}

#[test]
fn fair_on_a_trace_without_users_runs_with_a_note_saying_so() {
    let o = tracetui(&["sim", "itp", SAMPLE, "--policy", "fair"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let note = "tracetui: note: fair: no users here: each job is its own owner";
    assert!(stderr(&o).contains(note), "{}", stderr(&o));
    // By group on a trace without groups, and once per compare.
    let o = tracetui(&[
        "compare",
        "itp",
        SAMPLE,
        "--policies",
        "fifo,fair,fair",
        "--fair-by",
        "group",
    ]);
    let err = stderr(&o);
    assert_eq!(err.matches("no groups here").count(), 1, "{err}");
    // PAI records users: no note.
    let o = tracetui(&["sim", "pai", PAI, "--policy", "fair"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("note: fair"), "{}", stderr(&o));
}

#[test]
fn a_policy_that_needs_whole_machines_refuses_a_part_one_before_the_run() {
    // 108 GPUs in machines of 8 leave a machine of 4, where gandiva's gang
    // of whole machines failed mid-run; refused first, a usage error.
    for policy in ["gandiva", "edf"] {
        let o = tracetui(&["sim", "itp", SAMPLE, "--policy", policy, "--gpus", "108"]);
        if policy == "edf" {
            // edf needs no machine alike: refused for the deadlines the
            // sample lacks, not for the cluster.
            assert!(
                !stderr(&o).contains("cannot run on this cluster"),
                "{}",
                stderr(&o)
            );
            continue;
        }
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert_eq!(
            stderr(&o).lines().last().unwrap(),
            "tracetui: error: policy 'gandiva' cannot run on this cluster: it needs every \
             machine alike, and 108 GPUs in machines of 8 leave n0013 with 4; give --gpus a \
             multiple of 8: 104 or 112"
        );
        assert!(stdout(&o).is_empty());
    }
    // A schedule that switches to it is refused the same way.
    let o = tracetui(&[
        "sim",
        "itp",
        SAMPLE,
        "--gpus",
        "108",
        "--policy-schedule",
        "0:fifo,1d:gandiva",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("cannot run on this cluster"),
        "{}",
        stderr(&o)
    );
    let o = tracetui(&[
        "sim", "itp", SAMPLE, "--policy", "gandiva", "--gpus", "104", "--format", "csv",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // `--load` sizes whole machines for it (138 GPUs for fifo, 144 for
    // gandiva, alone or in a schedule), and says so.
    let gpus = |args: &[&str]| {
        let mut all = vec!["sim", "itp", SAMPLE, "--load", "0.8", "--format", "json"];
        all.extend(args);
        let o = tracetui(&all);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        (v["gpus"].as_u64().unwrap(), stderr(&o))
    };
    assert_eq!(gpus(&["--policy", "fifo"]).0, 138);
    let (n, err) = gpus(&["--policy", "gandiva"]);
    assert_eq!(n, 144);
    assert!(
        err.contains("138 rounded up to whole machines of 8 for gandiva"),
        "{err}"
    );
    assert_eq!(gpus(&["--policy-schedule", "0:fifo,1d:gandiva"]).0, 144);
    // Where it is one of several (compare), its row says why.
    let o = tracetui(&[
        "compare",
        "itp",
        SAMPLE,
        "--policies",
        "fifo,gandiva",
        "--gpus",
        "108",
        "--format",
        "csv",
    ]);
    assert!(
        stderr(&o).contains("cannot run on this cluster"),
        "{}",
        stderr(&o)
    );
}
