//! `tracetui slurm`: sacct output as a trace, end to end — the fixture,
//! and what a real Slurm 22.05 printed (`../shared/slurm/slurm-examples.txt`,
//! read in place), checked against a script's count over the same lines.

use crate::common;

use common::cli::{stderr, stdout, tracetui};
use std::collections::BTreeMap;
use std::path::PathBuf;

const FIXTURE: &str = "tests/fixtures/slurm/sacct.txt";
const NODES: &str = "tests/fixtures/slurm/nodes.txt";

fn json(args: &[&str]) -> serde_json::Value {
    let o = tracetui(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

/// Section `name` (`4a`, `4b`, `4k`) of the real Slurm's captures: the
/// sacct lines between the command and its exit status, in a scratch
/// file; `None`, saying so, where ../shared is not beside the repository.
pub(crate) fn captured(name: &str) -> Option<PathBuf> {
    let real = common::real_traces()?;
    let text = std::fs::read_to_string(real.join("../slurm/slurm-examples.txt")).ok()?;
    // At a line's start: the scripts quoted above the captures name them too.
    let from = text.find(&format!("\n===== {name}. "))? + 1;
    let body: Vec<&str> = text[from..]
        .lines()
        .skip(2)
        .take_while(|l| !l.starts_with("(exit"))
        .collect();
    let p = common::scratch_dir(&format!("sacct-{name}")).join("sacct.txt");
    std::fs::write(&p, body.join("\n") + "\n").unwrap();
    Some(p)
}

/// A CSV tracetui wrote (`--jobs-out`, a sweep's results; no field with
/// a comma before the last), each row by its header's names.
pub(crate) fn csv_rows(path: &std::path::Path) -> Vec<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    lines
        .map(|l| {
            head.iter()
                .zip(l.split(','))
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// What a script over `sacct -X --parsable2` output says: jobs by state
/// (its first word), and each user's GPU-hours (`gres/gpu=N` of AllocTRES
/// × Elapsed), as an operator's awk would.
pub(crate) fn script(allocations: &str) -> (u64, BTreeMap<String, u64>, BTreeMap<String, f64>) {
    let mut lines = allocations.lines();
    let head: Vec<&str> = lines.next().unwrap().split('|').collect();
    let col = |n: &str| head.iter().position(|h| *h == n).unwrap();
    let (mut jobs, mut states, mut hours) = (0, BTreeMap::new(), BTreeMap::new());
    for l in lines.filter(|l| !l.is_empty()) {
        let f: Vec<&str> = l.split('|').collect();
        jobs += 1;
        let state = f[col("State")].split(' ').next().unwrap().to_string();
        *states.entry(state).or_insert(0) += 1;
        let gpus: f64 = f[col("AllocTRES")]
            .split(',')
            .find_map(|kv| kv.strip_prefix("gres/gpu="))
            .map_or(0.0, |v| v.parse().unwrap());
        let e: Vec<f64> = f[col("Elapsed")]
            .split(':')
            .map(|x| x.parse().unwrap())
            .collect();
        let secs = e[0] * 3600.0 + e[1] * 60.0 + e[2];
        if gpus > 0.0 {
            *hours.entry(f[col("User")].to_string()).or_insert(0.0) += gpus * secs / 3600.0;
        }
    }
    (jobs, states, hours)
}

#[test]
fn a_real_slurm_s_sacct_gives_the_script_s_counts() {
    let (Some(steps), Some(alloc)) = (captured("4a"), captured("4b")) else {
        return;
    };
    let (jobs, states, hours) = script(&std::fs::read_to_string(&alloc).unwrap());
    assert_eq!(jobs, 22, "the captures' 22 allocations");
    // With steps or without (-X), the same jobs.
    for p in [&steps, &alloc] {
        let s = json(&[
            "stats",
            "slurm",
            p.to_str().unwrap(),
            "--tz",
            "UTC",
            "--format",
            "json",
        ]);
        assert_eq!(s["jobs"]["all"], jobs);
        let by: BTreeMap<String, u64> =
            serde_json::from_value(s["jobs"]["by_status"].clone()).unwrap();
        assert_eq!(by, states);
        for h in s["gpu_hours_by_user"].as_array().unwrap() {
            let want = hours[h["name"].as_str().unwrap()];
            assert!(
                (h["gpu_hours"].as_f64().unwrap() - want).abs() < 1e-9,
                "{h} vs {want}"
            );
        }
        assert_eq!(
            s["gpu_hours_by_user"].as_array().unwrap().len(),
            hours.len()
        );
    }
}

#[test]
fn every_field_in_sacct_s_own_order_reads_the_same() {
    let (Some(all), Some(usual)) = (captured("4k"), captured("4a")) else {
        return;
    };
    let head = std::fs::read_to_string(&all).unwrap();
    assert_eq!(
        head.lines().next().unwrap().split('|').count(),
        109,
        "--format=ALL"
    );
    let recorded = |p: &PathBuf| {
        let p = p.to_str().unwrap();
        json(&[
            "sim", "slurm", p, "--tz", "UTC", "--policy", "recorded", "--format", "json",
        ])
    };
    let (a, b) = (recorded(&all), recorded(&usual));
    for k in ["jobs", "jobs_done", "jct_s", "wait_s", "bounded_slowdown"] {
        assert_eq!(a[k], b[k], "{k}");
    }
    assert_eq!(a["jobs_done"], 19);
    assert_eq!(
        a["overflow_segments"].as_u64().unwrap_or(0),
        0,
        "one node, never over its 8 GPUs"
    );
}

#[test]
fn recorded_starts_each_job_when_slurm_did_on_its_nodes() {
    let d = common::scratch_dir("slurm-recorded");
    let out = d.join("jobs.csv");
    let o = tracetui(&[
        "sim",
        "slurm",
        FIXTURE,
        "--tz",
        "UTC",
        "--nodes",
        NODES,
        "--policy",
        "recorded",
        "--jobs-out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = csv_rows(&out);
    let pairs = |k: &str| -> Vec<(String, String)> {
        rows.iter()
            .map(|r| (r["id"].clone(), r[k].clone()))
            .collect()
    };
    let (starts, nodes) = (pairs("start_s"), pairs("machine_names"));
    // Each run on the nodes sacct names (15 ran on g1, then on g2 after its requeue).
    let want_nodes = [
        ("10", "g1"),
        ("11_0", "g1"),
        ("15", "g1;g2"),
        ("16", "g1;g2"),
        ("17", "g1;g2"),
    ];
    for (id, on) in want_nodes {
        assert!(
            nodes.contains(&(id.to_string(), on.to_string())),
            "{id} on {on}: {nodes:?}"
        );
    }
    // 2026-11-28T10:00:00 UTC is 1795860000; 15's last run began at 10:02:30.
    let at = |s: i64| (1_795_860_000 + s).to_string();
    let want = [
        ("10", 1),
        ("11_0", 16),
        ("11_1", 16),
        ("15", 19),
        ("16", 30),
        ("17", 60),
    ];
    for (id, s) in want {
        assert!(
            starts.contains(&(id.to_string(), at(s))),
            "{id} at {s}: {starts:?}"
        );
    }
    let err = stderr(&o);
    assert!(
        err.contains("cluster: 2 nodes, 12 GPUs from tests/fixtures/slurm/nodes.txt"),
        "{err}"
    );
}

#[test]
fn every_policy_and_the_holders_work_on_it() {
    let r = json(&[
        "compare",
        "slurm",
        FIXTURE,
        "--tz",
        "UTC",
        "--nodes",
        NODES,
        "--policies",
        "fifo,sjf,las,fifo-backfill",
        "--format",
        "json",
    ]);
    for run in r.as_array().unwrap() {
        assert_eq!(
            run["jobs_done"].as_u64().unwrap() + run["jobs_unfinished"].as_u64().unwrap(),
            6,
            "{run}"
        );
    }
    let o = tracetui(&["stats", "slurm", FIXTURE, "--tz", "UTC"]);
    let out = stdout(&o);
    assert!(out.contains("GPU-hours by user (recorded):"), "{out}");
    assert!(out.contains("GPU-hours by group (recorded):"), "{out}");
}

#[test]
fn flags_and_files_that_do_not_fit_are_said() {
    let o = tracetui(&["stats", "slurm", FIXTURE, "--tz", "Mars/Olympus"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("not a time zone name"),
        "{}",
        stderr(&o)
    );
    let o = tracetui(&[
        "stats",
        "itp",
        "sample-traces/itp/sample.csv",
        "--tz",
        "UTC",
        "--gpus",
        "64",
    ]);
    assert!(o.status.success());
    assert!(stderr(&o).contains("--tz UTC is ignored"), "{}", stderr(&o));
    let d = common::scratch_dir("slurm-bad");
    let fixed = d.join("fixed.txt");
    std::fs::write(
        &fixed,
        "JobID    JobName  State\n------ ------- ------\n49   train-big COMPLETED\n",
    )
    .unwrap();
    let o = tracetui(&["stats", "slurm", fixed.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("fixed.txt:1: sacct's fixed-width output"),
        "{}",
        stderr(&o)
    );
    let o = tracetui(&["stats", "slurm", FIXTURE, "--nodes", FIXTURE]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("NODELIST and GRES"), "{}", stderr(&o));
}

#[test]
fn a_sweep_runs_over_slurm_and_swf_traces() {
    let d = common::scratch_dir("slurm-sweep");
    let plan = d.join("plan.toml");
    std::fs::write(
        &plan,
        format!(
            "trace = [\"slurm:{FIXTURE}\", \"swf:tests/fixtures/swf/log.swf\"]\npolicy = [\"fifo\", \"sjf\"]\ntz = \"UTC\"\nnodes = \"{NODES}\"\n"
        ),
    )
    .unwrap();
    let out = d.join("out");
    sweep(&plan, &out);
    let runs = csv_rows(&out.join("results.csv"));
    assert_eq!(runs.len(), 4, "{runs:?}");
    assert!(runs.iter().all(|r| r["error"].is_empty()), "{runs:?}");
    assert!(runs[0].contains_key("bounded_slowdown_mean"), "{runs:?}");
}

/// `tracetui sweep PLAN --out OUT`, which must succeed: what it said.
fn sweep(plan: &std::path::Path, out: &std::path::Path) -> String {
    let o = tracetui(&[
        "sweep",
        plan.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    stderr(&o)
}

#[test]
fn a_changed_nodes_file_runs_a_sweep_again_and_is_named_in_the_meta() {
    let d = common::scratch_dir("slurm-nodes-stale");
    let nodes = d.join("nodes.txt");
    std::fs::copy(NODES, &nodes).unwrap();
    let plan = d.join("plan.toml");
    let text = format!(
        "trace = \"slurm:{FIXTURE}\"\npolicy = [\"fifo\", \"sjf\"]\ntz = \"UTC\"\nnodes = \"{}\"\n",
        nodes.display()
    );
    std::fs::write(&plan, text).unwrap();
    let out = d.join("out");
    let sweep = || sweep(&plan, &out);
    assert!(sweep().contains("0 done before, 2 to run"));
    assert!(sweep().contains("2 done before, 0 to run"));
    let fewer = std::fs::read_to_string(&nodes)
        .unwrap()
        .replace("gpu:a100:4", "gpu:a100:2");
    std::fs::write(
        &nodes,
        fewer.replace("gres/gpu=4,gres/gpu:a100=4", "gres/gpu=2,gres/gpu:a100=2"),
    )
    .unwrap();
    let again = sweep();
    assert!(again.contains("0 done before, 2 to run"), "{again}");
    let r = json(&[
        "sim",
        "slurm",
        FIXTURE,
        "--tz",
        "UTC",
        "--nodes",
        nodes.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let inputs = r["meta"]["inputs"].to_string();
    assert!(inputs.contains("\"nodes\""), "{}", r["meta"]);
}
