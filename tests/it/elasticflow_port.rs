//! `policies/elasticflow.py`, the built-in `elasticflow` written as an
//! external policy in protocol version 2, equals the built-in to the
//! digit: every job's start and end, every summary figure (its own
//! deadline ratio included), from the start of a run and when it takes
//! over mid-run. Also runs the Python helper's own unit tests.

use crate::common;
use common::cli::{stderr, tracetui};
use serde_json::Value;
use std::path::Path;

const PORT: &str = "exec:python3 policies/elasticflow.py";

/// The summary without what names the policy (and its rounds), and the per-job rows
/// without their policy column.
fn run(args: &[&str], policy_args: &[&str], jobs: &Path) -> (Value, Vec<Vec<String>>) {
    let mut all: Vec<&str> = args.to_vec();
    all.extend_from_slice(policy_args);
    all.extend(["--format", "json", "--jobs-out", jobs.to_str().unwrap()]);
    let o = tracetui(&all);
    assert!(o.status.success(), "{policy_args:?}: {}", stderr(&o));
    let mut v: Value = serde_json::from_slice(&o.stdout).unwrap();
    // `rounds_s`: the built-in names its rounds; the port holds its own
    // 60-s slot (ElasticFlow's, as the built-in's default).
    for k in ["policy", "command", "meta", "rounds_s"] {
        v.as_object_mut().unwrap().remove(k);
    }
    let mut r = csv::Reader::from_path(jobs).unwrap();
    let h = r.headers().unwrap().clone();
    let skip = h.iter().position(|c| c == "policy").unwrap();
    let rows = r
        .records()
        .map(|x| {
            let x = x.unwrap();
            x.iter()
                .enumerate()
                .filter(|(i, _)| *i != skip)
                .map(|(_, c)| c.to_string())
                .collect()
        })
        .collect();
    (v, rows)
}

/// The built-in and the port under `args`, each with its own policy
/// arguments: equal summaries and rows. Returns the built-in's summary.
pub(crate) fn same(tag: &str, args: &[&str], builtin: &[&str], port: &[&str]) -> Value {
    let d = common::scratch_dir(tag);
    let (a, rows_a) = run(args, builtin, &d.join("builtin.csv"));
    let (b, rows_b) = run(args, port, &d.join("port.csv"));
    assert_eq!(a, b, "{tag}: the summaries differ");
    assert_eq!(rows_a.len(), rows_b.len());
    for (x, y) in rows_a.iter().zip(&rows_b) {
        assert_eq!(x, y, "{tag}: a job differs");
    }
    a
}

#[test]
fn the_python_helper_s_own_tests_pass() {
    if !common::python() {
        return;
    }
    let o = std::process::Command::new("python3")
        .args([
            "-m",
            "unittest",
            "discover",
            "-s",
            "policies",
            "-p",
            "test_*.py",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// 24 jobs on 8 GPUs with deadlines from tight to loose, on the test
/// tables: the built-in declines some, resizes others — the port too.
#[test]
fn the_port_equals_the_built_in_on_a_small_elastic_trace() {
    if !common::python() {
        return;
    }
    let mut rows = String::new();
    for i in 0..24i64 {
        let (submit, iters) = (i * 53, 300 + (i * 379) % 1700);
        let batch = if i % 3 == 0 { 2 } else { 32 };
        let slack = [0.8, 1.5, 3.0, 6.0][(i % 4) as usize];
        let deadline = submit + (iters as f64 / 2.0 * slack) as i64;
        rows += &format!("j{i},{submit},{iters},m,{deadline},{batch},1,{iters}\n");
    }
    let (trace, tables) = common::elastic_jobs("port-small", &rows);
    let args = [
        "sim",
        "itp",
        trace.to_str().unwrap(),
        "--gpus",
        "8",
        "--gpus-per-node",
        "4",
        "--throughputs",
        tables.to_str().unwrap(),
    ];
    let r = same(
        "port-small",
        &args,
        &["--policy", "elasticflow"],
        &["--policy", PORT],
    );
    assert!(r["jobs_dropped"].as_u64().unwrap() > 0, "{r}");
    assert!(r["resizes"].as_u64().unwrap() > 0, "{r}");
    assert!(r["deadline_admitted"].as_f64().is_some(), "{r}");
}

/// ElasticFlow's Figure 8a trace (n16g4, T4 tables): the port gives the
/// paper's 0.728 as the built-in does, every job at the same second; and
/// taking over from sjf mid-run, it plans the jobs already waiting and
/// running as the built-in's books do.
#[test]
fn the_port_equals_the_built_in_on_figure_8a_and_when_it_takes_over() {
    if !common::python() {
        return;
    }
    let Some(dir) = common::real_traces() else {
        return;
    };
    let a = dir.join("elasticflow-artifact");
    let trace = a.join("elasticVpollux_e.csv");
    let spec = a.join("cluster_specs/n16g4.csv");
    let tables = a.join("throughputs_T4");
    let args = [
        "sim",
        "itp",
        trace.to_str().unwrap(),
        "--cluster",
        spec.to_str().unwrap(),
        "--throughputs",
        tables.to_str().unwrap(),
    ];
    let r = same(
        "port-fig8a",
        &args,
        &["--policy", "elasticflow"],
        &["--policy", PORT],
    );
    assert_eq!(r["deadline_admitted"].as_f64(), Some(142.0 / 195.0));
    let builtin = "start:sjf,@3800000:elasticflow";
    let port = format!("start:sjf,@3800000:{PORT}");
    let mut switched: Vec<&str> = args.to_vec();
    switched.extend(["--rescale-cost", "10"]);
    same(
        "port-fig8a-switch",
        &switched,
        &["--policy-schedule", builtin],
        &["--policy-schedule", &port],
    );
}
