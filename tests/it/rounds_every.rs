//! `--rounds SECS` given puts every policy without rounds of its own,
//! built-in or external, in ElasticFlow's round model: decisions only at
//! rounds spaced as its simulator spaces them, and its overheads on each
//! start and in every slot-th round (`engine/src/engine/rounds_gate.rs`).

use crate::common;
use common::cli::{stderr, tracetui};
use std::collections::HashMap;
use std::path::Path;

/// Each job's (start, end) from a `--jobs-out` file.
fn starts_ends(path: &Path) -> HashMap<usize, (i64, i64)> {
    let mut r = csv::Reader::from_path(path).unwrap();
    r.deserialize::<HashMap<String, String>>()
        .map(|row| {
            let row = row.unwrap();
            let n = |k: &str| row[k].parse::<i64>().unwrap();
            (row["job"].parse().unwrap(), (n("start_s"), n("end_s")))
        })
        .collect()
}

fn trace(dir: &Path, rows: &str) -> std::path::PathBuf {
    let t = dir.join("t.csv");
    std::fs::write(
        &t,
        format!("job_id,submit_time,iteration,model_name,ddl,batch_size,num_gpu,duration\n{rows}"),
    )
    .unwrap();
    t
}

/// The ITP sample on 64 GPUs of 8 under `policy`, with `extra` options:
/// its JSON summary.
fn sample(policy: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "sim",
        "itp",
        common::cli::SAMPLE,
        "--gpus",
        "64",
        "--gpus-per-node",
        "8",
        "--policy",
        policy,
        "--format",
        "json",
    ];
    args.extend(extra);
    let o = tracetui(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// fifo on three jobs, 8 GPUs: without `--rounds` each starts at its
/// arrival and runs its duration; with `--rounds 60` the second arrival
/// (10 s) waits for the round a slot after the first (60), the third
/// (100 s) for the one a slot after that (120), and each start pays
/// ElasticFlow's overhead (4 s on 1 GPU, 6 s on 2).
#[test]
fn fifo_starts_only_at_rounds_and_pays_the_overhead() {
    let dir = common::scratch_dir("rounds-fifo");
    let t = trace(
        &dir,
        "0,0,1,resnet50,100000,64,1,1000\n1,10,1,resnet50,100000,64,1,500\n2,100,1,resnet50,100000,64,2,300\n",
    );
    // fifo on the trace, with `extra` options.
    let sim = |extra: &[&str]| {
        let mut args = vec![
            "sim",
            "itp",
            t.to_str().unwrap(),
            "--gpus",
            "8",
            "--gpus-per-node",
            "8",
            "--policy",
            "fifo",
        ];
        args.extend(extra);
        let o = tracetui(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        o
    };
    // Its summary and each job's (start, end), with `rounds` options.
    let run = |rounds: &[&str], out: &str| {
        let jobs = dir.join(out);
        let mut extra = vec!["--format", "json", "--jobs-out", jobs.to_str().unwrap()];
        extra.extend(rounds);
        let o = sim(&extra);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        (v, starts_ends(&jobs))
    };
    let (plain, free) = run(&[], "plain.csv");
    assert_eq!(free[&0], (0, 1000));
    assert_eq!(free[&1], (10, 510));
    assert_eq!(free[&2], (100, 400));
    assert_eq!(plain["rounds_s"], serde_json::Value::Null);
    let (held, rounds) = run(&["--rounds", "60"], "rounds.csv");
    assert_eq!(rounds[&0], (0, 1004));
    assert_eq!(rounds[&1], (60, 564));
    assert_eq!(rounds[&2], (120, 426));
    assert_eq!(held["rounds_s"], 60);
    // The table's rules say so.
    let o = sim(&["--rounds", "60"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("fifo decides in ElasticFlow's rounds, at least 60 s apart (--rounds); fifo only at those rounds, each start paying ElasticFlow's overhead"),
        "{text}"
    );
}

/// In every slot-th round every running job pays ElasticFlow's restart
/// overhead: a long job running through 70 rounds (one a short job's
/// arrival every 100 s) ends later than its start's 4 s alone by a whole
/// number of restart charges (31 s on 1 GPU of 8), at least one.
#[test]
fn every_slot_th_round_charges_every_running_job() {
    let dir = common::scratch_dir("rounds-restart");
    let mut rows = String::from("0,0,1,resnet50,9000000,64,1,100000\n");
    for k in 1..=70 {
        rows += &format!("{k},{},1,resnet50,9000000,64,1,10\n", 100 * k);
    }
    let t = trace(&dir, &rows);
    let jobs = dir.join("jobs.csv");
    let o = tracetui(&[
        "sim",
        "itp",
        t.to_str().unwrap(),
        "--gpus",
        "8",
        "--gpus-per-node",
        "8",
        "--policy",
        "fifo",
        "--rounds",
        "60",
        "--jobs-out",
        jobs.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (start, end) = starts_ends(&jobs)[&0];
    let extra = end - start - 100_000 - 4;
    assert!(extra >= 31 && extra % 31 == 0, "extra {extra}");
}

/// An external policy is held in the same rounds: `policies/sjf.py` under
/// `--rounds 60` equals the built-in `sjf` under it, job by job, on the
/// ITP sample — and differs from sjf without rounds.
#[test]
fn an_external_policy_decides_in_the_same_rounds_as_a_built_in() {
    if !common::python() {
        return;
    }
    let same = crate::elasticflow_port::same;
    let args = [
        "sim",
        "itp",
        common::cli::SAMPLE,
        "--gpus",
        "64",
        "--gpus-per-node",
        "8",
        "--rounds",
        "60",
    ];
    let held = same(
        "rounds-exec",
        &args,
        &["--policy", "sjf"],
        &["--policy", "exec:python3 policies/sjf.py"],
    );
    let free = sample("sjf", &[]);
    assert_ne!(held["jct_s"], free["jct_s"]);
}

/// A policy's wake-ups wait for the rounds: `policies/las.py` (which asks
/// to be woken when a job would change queue) runs to the end under
/// `--rounds 60`, every job done — it once stood at a wake-up in the past
/// and asked again for ever.
#[test]
fn an_external_policys_wake_ups_wait_for_the_rounds() {
    if !common::python() {
        return;
    }
    let v = sample("exec:python3 policies/las.py", &["--rounds", "60"]);
    assert_eq!(v["jobs_done"], v["jobs"], "{v}");
    assert_eq!(v["rounds_s"], 60);
}

/// The researcher's comparison (docs/fidelity.md, "Comparing on equal
/// terms"): the elastic EDF `tracetui policy new --elastic` writes, over
/// the protocol, is held in ElasticFlow's rounds by `--rounds 60` on its
/// Figure 8a trace — named so in the report, with other results than
/// deciding at every event.
#[test]
fn an_elastic_policy_of_ones_own_is_held_in_rounds_beside_elasticflow() {
    if !common::python() {
        return;
    }
    let Some(dir) = common::real_traces() else {
        return;
    };
    let scratch = common::scratch_dir("rounds-elastic");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_tracetui"))
        .args(["policy", "new", "--elastic", "mine"])
        .current_dir(&scratch)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let a = dir.join("elasticflow-artifact");
    let mine = format!("exec:python3 {}", scratch.join("mine.py").display());
    let run = |policy: &str, rounds: &[&str]| {
        let mut args = vec![
            "sim".to_string(),
            "itp".into(),
            a.join("elasticVpollux_e.csv").display().to_string(),
            "--cluster".into(),
            a.join("cluster_specs/n16g4.csv").display().to_string(),
            "--throughputs".into(),
            a.join("throughputs_T4").display().to_string(),
            "--policy".into(),
            policy.into(),
            "--format".into(),
            "json".into(),
        ];
        args.extend(rounds.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = tracetui(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()
    };
    let free = run(&mine, &[]);
    let held = run(&mine, &["--rounds", "60"]);
    assert_eq!(free["rounds_s"], serde_json::Value::Null);
    assert_eq!(held["rounds_s"], 60);
    assert_ne!(free["deadline_met"], held["deadline_met"]);
    // elasticflow keeps its own rounds either way.
    assert_eq!(
        run("elasticflow", &[])["deadline_met"],
        run("elasticflow", &["--rounds", "60"])["deadline_met"]
    );
}

/// `las` held in rounds still demotes: its wake-ups (a job crossing a
/// queue's threshold) fall between rounds, and are taken at the next
/// instant it sees — so it preempts, and is not first-fit in disguise.
#[test]
fn las_held_in_rounds_still_demotes_and_preempts() {
    let run = |policy: &str| sample(policy, &["--rounds", "60"]);
    let (las, first_fit) = (run("las"), run("first-fit"));
    assert!(las["preemptions"].as_u64().unwrap() > 0, "{las}");
    assert_ne!(las["jct_s"], first_fit["jct_s"]);
}

/// Why a job waits under `--rounds`: it fits now, and the policy decides
/// only at the next round (the drill-down says when); without `--rounds`
/// fifo would have started it at its arrival.
#[test]
fn a_job_that_fits_between_rounds_waits_for_the_next() {
    use std::sync::Arc;
    use tracetui::sim::{Blocked, Engine, Placement, Policy, Tuning};
    let trace = common::tiny(&[8], &[(0, 1000, 1), (10, 500, 1)]);
    let tuning = Tuning {
        rounds: 60,
        rounds_every: true,
        ..Tuning::default()
    };
    let mut e =
        Engine::new(trace, Policy::Fifo, Placement::Consolidate).with_tuning(Arc::new(tuning));
    e.advance_to(10);
    assert_eq!(e.blocked(1), Some(Blocked::Round { next: Some(60) }));
    e.advance_to(60);
    assert_eq!(e.blocked(1), None, "started at the round");
}
