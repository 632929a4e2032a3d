//! Metrics that can't be gamed: jobs a policy never finished are counted
//! and missed their deadlines, and every figure of the summary recomputes
//! from the per-job file, also under preemption.

use crate::common;

use common::cli::{stderr, tracetui, SAMPLE};
use std::collections::HashMap;
use std::path::Path;

/// A policy that starts nothing (the explicit walk, never answering with a start).
fn never_policy(dir: &Path) -> String {
    let p = dir.join("never.py");
    let helper = Path::new(env!("CARGO_MANIFEST_DIR")).join("policies");
    std::fs::write(
        &p,
        format!(
            "import sys\nsys.path.insert(0, {:?})\nfrom tracetui_policy import Policy, run\n\
             class Never(Policy):\n    name = \"never\"\n    walk = \"explicit\"\n\
             if __name__ == \"__main__\":\n    run(Never())\n",
            helper.display().to_string()
        ),
    )
    .unwrap();
    format!("exec:python3 {}", p.display())
}

fn json(args: &[&str]) -> serde_json::Value {
    let o = tracetui(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn jobs_file(p: &Path) -> Vec<HashMap<String, String>> {
    let mut r = csv::Reader::from_path(p).unwrap();
    let h = r.headers().unwrap().clone();
    r.records()
        .map(|row| {
            h.iter()
                .zip(row.unwrap().iter())
                .map(|(k, v)| (k.into(), v.into()))
                .collect()
        })
        .collect()
}

/// Utilisation and deadline met recomputed from `--jobs-out` equal the summary's.
fn recomputes(trace: &str, policy: &str, dir: &Path) {
    let jobs = dir.join(format!("{policy}.csv"));
    let v = json(&[
        "sim",
        "itp",
        trace,
        "--policy",
        policy,
        "--format",
        "json",
        "--jobs-out",
        jobs.to_str().unwrap(),
    ]);
    let rows = jobs_file(&jobs);
    assert!(rows
        .iter()
        .all(|r| r["policy"] == v["policy"].as_str().unwrap()));
    let held: f64 = rows
        .iter()
        .map(|r| r["gpu_seconds"].parse::<f64>().unwrap())
        .sum();
    let makespan = v["makespan_s"].as_f64().unwrap();
    let util = held / (v["gpus"].as_f64().unwrap() * makespan);
    let want = v["gpu_util"].as_f64().unwrap();
    assert!(
        (util - want).abs() < 1e-12,
        "{policy}: util {util} from the file, {want} in the summary"
    );
    let first = rows
        .iter()
        .map(|r| r["submit_s"].parse::<i64>().unwrap())
        .min()
        .unwrap();
    let last = rows
        .iter()
        .filter_map(|r| r["end_s"].parse::<i64>().ok())
        .max()
        .unwrap();
    assert_eq!((last - first) as f64, makespan, "{policy}: makespan");
    if let Some(d) = v["deadline_met"].as_f64() {
        let with: Vec<_> = rows
            .iter()
            .filter(|r| !r["deadline_s"].is_empty())
            .collect();
        let met = with.iter().filter(|r| r["met"] == "true").count();
        assert_eq!(met as f64 / with.len() as f64, d, "{policy}: deadline met");
    }
    // Whole amounts are whole numbers.
    assert!(
        rows.iter().all(|r| !r["gpus"].ends_with(".0")),
        "{policy}: gpus written as 1.0"
    );
    if policy == "las" {
        assert!(
            rows.iter().any(|r| r["preemptions"] != "0"),
            "las preempted nothing here"
        );
    }
}

#[test]
fn utilisation_recomputes_from_the_per_job_file_also_under_preemption() {
    let dir = common::scratch_dir("honest-sample");
    for policy in ["fifo", "las", "srtf", "sjf"] {
        recomputes(SAMPLE, policy, &dir);
    }
}

#[test]
fn on_the_testbed_trace_deadlines_and_utilisation_recompute_and_a_policy_that_starts_nothing_is_caught(
) {
    let Some(real) = common::real_traces() else {
        return;
    };
    let trace = real.join("itp/elasticflow/195job.csv");
    let trace = trace.to_str().unwrap();
    let dir = common::scratch_dir("honest-195");
    for policy in ["fifo", "las", "edf"] {
        recomputes(trace, policy, &dir);
    }
    if !common::python() {
        return;
    }
    let never = never_policy(&dir);
    let o = tracetui(&["sim", "itp", trace, "--policy", &never, "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["jobs_unfinished"], 195);
    assert_eq!(v["jobs_done"], 0);
    assert_eq!(v["deadline_met"], 0.0);
    assert!(
        stderr(&o).contains("195 of 195 jobs never finished"),
        "{}",
        stderr(&o)
    );
    let table = common::cli::stdout(&tracetui(&["sim", "itp", trace, "--policy", &never]));
    assert!(table.contains("unfinished 195"), "{table}");
    assert!(table.contains("deadlines 0.0 % met"), "{table}");
    let csv = tracetui(&[
        "compare",
        "itp",
        trace,
        "--policies",
        &format!("fifo,{never}"),
        "--format",
        "csv",
    ]);
    let text = common::cli::stdout(&csv);
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let h = r.headers().unwrap().clone();
    let col = h.iter().position(|c| c == "jobs_unfinished").unwrap();
    let unfinished: Vec<String> = r.records().map(|x| x.unwrap()[col].to_string()).collect();
    assert_eq!(unfinished, ["0", "195"]);
}

/// Issue 63, item 2: drops are never hidden. An external policy that
/// declines the long jobs on a trace without throughput tables: every
/// summary has `jobs_dropped`, and done, rejected, dropped and unfinished
/// add up to the jobs — in `compare`'s CSV and JSON and a sweep's row.
#[test]
fn dropped_jobs_are_counted_in_every_summary_without_tables() {
    if !common::python() {
        return;
    }
    let dir = common::scratch_dir("drops-counted");
    let here = std::env::current_dir().unwrap();
    let script = dir.join("droplong.py");
    std::fs::write(
        &script,
        format!(
            "import sys\nsys.path.insert(0, {:?})\nfrom tracetui_policy import Policy, run\n\
             class P(Policy):\n    name, walk, protocol = 'droplong', 'greedy', 2\n\
             \x20   def schedule(self, view):\n\
             \x20       return {{'drop': [j.job for j in view.queue.values() if (j.runtime or 0) > 100000]}}\n\
             run(P())\n",
            here.join("policies").display().to_string()
        ),
    )
    .unwrap();
    let policies = format!("fifo,exec:python3 {}", script.display());
    let o = common::cli::tracetui(&[
        "compare",
        "itp",
        common::cli::SAMPLE,
        "--policies",
        &policies,
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", common::cli::stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&common::cli::stdout(&o)).unwrap();
    for r in v.as_array().unwrap() {
        let n = |k: &str| r[k].as_u64().unwrap();
        assert_eq!(
            n("jobs_done") + n("jobs_rejected") + n("jobs_dropped") + n("jobs_unfinished"),
            n("jobs"),
            "{r}"
        );
    }
    assert_eq!(v[0]["jobs_dropped"], 0);
    let dropped = v[1]["jobs_dropped"].as_u64().unwrap();
    assert!(dropped > 0, "{}", v[1]);
    let o = common::cli::tracetui(&[
        "compare",
        "itp",
        common::cli::SAMPLE,
        "--policies",
        &policies,
        "--format",
        "csv",
    ]);
    let text = common::cli::stdout(&o);
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let rows: Vec<std::collections::HashMap<String, String>> =
        r.deserialize().map(Result::unwrap).collect();
    assert_eq!(rows[1]["jobs_dropped"], dropped.to_string());
    assert_eq!(rows[0]["jobs_dropped"], "0");
}
