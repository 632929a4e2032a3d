//! `tracetui sweep`: a grid of `sim` runs whose rows are the rows `sim`
//! gives, resumable, sharded, with failed runs as rows.

mod common;

use common::cli::{stderr, tracetui, SAMPLE};
use std::path::{Path, PathBuf};

fn write_plan(dir: &Path, text: &str) -> PathBuf {
    let p = dir.join("plan.toml");
    std::fs::write(&p, text).unwrap();
    p
}

fn sweep(plan: &Path, out: &Path, more: &[&str]) -> std::process::Output {
    let mut args = vec![
        "sweep",
        plan.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(more);
    tracetui(&args)
}

fn results(out: &Path) -> String {
    std::fs::read_to_string(out.join("results.csv")).unwrap()
}

/// results.csv's rows as maps from column to value.
fn rows(out: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let mut r = csv::Reader::from_path(out.join("results.csv")).unwrap();
    let h = r.headers().unwrap().clone();
    r.records()
        .map(|row| {
            let row = row.unwrap();
            h.iter()
                .zip(row.iter())
                .map(|(k, v)| (k.into(), v.into()))
                .collect()
        })
        .collect()
}

/// `sim --format csv`'s one row, as a map.
fn sim_row(args: &[&str]) -> std::collections::HashMap<String, String> {
    let mut all = vec!["sim"];
    all.extend(args);
    all.extend(["--format", "csv"]);
    let o = tracetui(&all);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut r = csv::Reader::from_reader(o.stdout.as_slice());
    let h = r.headers().unwrap().clone();
    let row = r.records().next().unwrap().unwrap();
    h.iter()
        .zip(row.iter())
        .map(|(k, v)| (k.into(), v.into()))
        .collect()
}

/// Every `sim` column of a sweep row equals the row of `sim` run alone.
fn assert_rows_equal_sim(out: &Path, trace_of: impl Fn(&str) -> (String, String)) {
    for row in rows(out) {
        assert_eq!(row["error"], "", "{row:?}");
        let (format, path) = trace_of(&row["plan_trace"]);
        let mut args = vec![format.as_str(), path.as_str()];
        let flags: Vec<String> = row
            .iter()
            .filter(|(k, v)| k.starts_with("plan_") && *k != "plan_trace" && !v.is_empty())
            .map(|(k, v)| format!("--{}={v}", k["plan_".len()..].replace('_', "-")))
            .collect();
        args.extend(flags.iter().map(String::as_str));
        let alone = sim_row(&args);
        for (k, v) in alone.iter().filter(|(k, _)| *k != "meta") {
            assert_eq!(&row[k], v, "column {k} of run {} ({args:?})", row["run"]);
        }
        // The meta: this run's, the same trace and knobs as sim's.
        let meta: serde_json::Value = serde_json::from_str(&row["meta"]).unwrap();
        let mut alone_meta: serde_json::Value = serde_json::from_str(&alone["meta"]).unwrap();
        assert_eq!(meta["run"], row["run"].as_str());
        assert_eq!(meta["trace"], alone_meta["trace"]);
        alone_meta["knobs"]["format"] = "table".into();
        assert_eq!(meta["knobs"], alone_meta["knobs"], "run {}", row["run"]);
    }
}

/// The command in a row's meta, run with `--format csv`, gives that row.
fn assert_command_reproduces(out: &Path) {
    let row = rows(out).swap_remove(0);
    let meta: serde_json::Value = serde_json::from_str(&row["meta"]).unwrap();
    let command = meta["command"].as_str().unwrap();
    let rest = command.strip_prefix("tracetui ").unwrap();
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("\"$0\" {rest} --format csv"))
        .arg(env!("CARGO_BIN_EXE_tracetui"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{command}: {}", stderr(&o));
    let mut r = csv::Reader::from_reader(o.stdout.as_slice());
    let h = r.headers().unwrap().clone();
    let again = r.records().next().unwrap().unwrap();
    for (k, v) in h.iter().zip(again.iter()).filter(|(k, _)| *k != "meta") {
        assert_eq!(row[k], v, "column {k} of `{command}`");
    }
}

const SMALL: &str = r#"
trace = "itp:sample-traces/itp/sample.csv"
policy = ["fifo", "sjf", "las"]
gpus = [16, 32]
placement = ["consolidate", "spread"]
preempt_cost = 0
"#;

fn split(t: &str) -> (String, String) {
    let (f, p) = t.split_once(':').unwrap();
    (f.into(), p.into())
}

#[test]
fn a_grid_on_the_sample_gives_sims_rows_and_resumes_to_the_same_table() {
    let dir = common::scratch_dir("sweep-small");
    let plan = write_plan(&dir, SMALL);
    let out = dir.join("out");
    let o = sweep(&plan, &out, &["-j", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("12 runs in the plan (policy 3 × gpus 2 × placement 2)"),
        "{}",
        stderr(&o)
    );
    let clean = results(&out);
    assert_eq!(clean.lines().count(), 13);
    assert!(clean.starts_with(
        "run,plan_trace,plan_policy,plan_gpus,plan_placement,plan_preempt_cost,error,policy,"
    ));
    assert_rows_equal_sim(&out, split);
    assert_command_reproduces(&out);

    // Started again: nothing to run, the same table.
    let again = sweep(&plan, &out, &[]);
    assert!(again.status.success());
    assert!(
        stderr(&again).contains("12 done before, 0 to run"),
        "{}",
        stderr(&again)
    );
    assert_eq!(results(&out), clean);

    // Records lost (a sweep killed before they were written): only those
    // run again, and the table is the clean one, byte for byte.
    let runs: Vec<PathBuf> = std::fs::read_dir(out.join("runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    for p in runs.iter().take(5) {
        std::fs::remove_file(p).unwrap();
    }
    std::fs::remove_file(out.join("results.csv")).unwrap();
    let resumed = sweep(&plan, &out, &["-j", "1"]);
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    assert!(
        stderr(&resumed).contains("7 done before, 5 to run"),
        "{}",
        stderr(&resumed)
    );
    assert_eq!(results(&out), clean);

    // Another directory, one worker: the same table.
    let out1 = dir.join("out1");
    assert!(sweep(&plan, &out1, &["-j", "1"]).status.success());
    assert_eq!(results(&out1), clean);
}

#[test]
fn shards_run_their_share_and_the_collect_gives_the_whole_table() {
    let dir = common::scratch_dir("sweep-shards");
    let plan = write_plan(&dir, SMALL);
    let whole = dir.join("whole");
    assert!(sweep(&plan, &whole, &[]).status.success());
    let out = dir.join("sharded");
    let first = sweep(&plan, &out, &["--shard", "0/3"]);
    assert!(first.status.success(), "{}", stderr(&first));
    assert!(
        stderr(&first).contains("12 runs in the plan"),
        "{}",
        stderr(&first)
    );
    assert!(stderr(&first).contains(", 4 here,"), "{}", stderr(&first));
    assert!(
        stderr(&first).contains("4 of 12 runs recorded"),
        "{}",
        stderr(&first)
    );
    assert!(!out.join("results.csv").exists());
    for s in ["1/3", "2/3"] {
        assert!(sweep(&plan, &out, &["--shard", s]).status.success());
    }
    assert!(
        !out.join("results.csv").exists(),
        "a shard never writes the table"
    );
    let collect = sweep(&plan, &out, &[]);
    assert!(collect.status.success(), "{}", stderr(&collect));
    assert!(
        stderr(&collect).contains("12 done before, 0 to run"),
        "{}",
        stderr(&collect)
    );
    assert_eq!(results(&out), results(&whole));
    for bad in ["3/3", "1", "a/b", "0/0"] {
        let o = sweep(&plan, &out, &["--shard", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
    }
}

#[test]
fn a_failed_run_is_a_row_with_its_error_and_is_retried() {
    let dir = common::scratch_dir("sweep-fail");
    let missing = dir.join("later.csv");
    let plan = write_plan(
        &dir,
        &format!(
            "trace = [\"itp:{SAMPLE}\", \"itp:{}\"]\npolicy = \"fifo\"\n",
            missing.display()
        ),
    );
    let out = dir.join("out");
    let o = sweep(&plan, &out, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("1 of 2 runs failed"), "{}", stderr(&o));
    let r = rows(&out);
    assert_eq!(r.len(), 2);
    assert_eq!(r[0]["error"], "");
    assert!(r[1]["error"].contains("later.csv"), "{:?}", r[1]);
    assert_eq!(r[1]["jobs"], "");
    // The file appears: started again, the failed run runs, the good one does not.
    std::fs::copy(SAMPLE, &missing).unwrap();
    let o = sweep(&plan, &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("1 done before, 1 to run"),
        "{}",
        stderr(&o)
    );
    let r = rows(&out);
    assert_eq!(r[1]["error"], "");
    assert_eq!(r[1]["jobs"], r[0]["jobs"]);
}

#[test]
fn a_plan_with_a_mistake_is_refused_before_any_run() {
    let dir = common::scratch_dir("sweep-bad");
    let out = dir.join("out");
    for (text, says) in [
        ("policy = \"fifo\"\n", "no 'trace'"),
        (
            "trace = \"itp:x.csv\"\npolicy = [\"fifo\", \"nonesuch\"]\n",
            "run 2 (trace=itp:x.csv policy=nonesuch)",
        ),
        (
            "trace = \"itp:x.csv\"\njobs_out = \"a.csv\"\n",
            "--jobs-out",
        ),
        ("trace = \"x.csv\"\n", "FORMAT:PATH"),
        ("trace = \"itp:x.csv\"\ngpus = [8, 8]\n", "twice"),
    ] {
        let plan = write_plan(&dir, text);
        let o = sweep(&plan, &out, &[]);
        assert_eq!(o.status.code(), Some(1), "{text}");
        assert!(stderr(&o).contains(says), "{text}: {}", stderr(&o));
        assert!(!out.join("runs").exists(), "{text}: nothing is written");
    }
}

#[test]
fn load_and_seed_axes_size_the_cluster_and_resample_arrivals_as_sim_does() {
    let dir = common::scratch_dir("sweep-load");
    let plan = write_plan(
        &dir,
        &format!("trace = \"itp:{SAMPLE}\"\npolicy = \"fifo\"\nload = [0.5, 0.9]\nseed = [1, 2]\n"),
    );
    let out = dir.join("out");
    let o = sweep(&plan, &out, &["--jobs-out", "--timeline-out"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_rows_equal_sim(&out, split);
    let r = rows(&out);
    let gpus: Vec<u64> = r.iter().map(|r| r["gpus"].parse().unwrap()).collect();
    assert!(
        gpus[0] > gpus[2],
        "load 0.5 sizes a larger cluster than 0.9: {gpus:?}"
    );
    assert_ne!(
        r[0]["jct_mean_s"], r[1]["jct_mean_s"],
        "seeds 1 and 2 differ"
    );
    for row in &r {
        let jobs =
            std::fs::read_to_string(out.join("runs").join(format!("{}.jobs.csv", row["run"])));
        assert!(jobs.unwrap().lines().count() > 1);
        assert!(out
            .join("runs")
            .join(format!("{}.timeline.csv", row["run"]))
            .exists());
    }
}

/// The issue's plan: 2 ITP clusters × 4 policies (one external) × 2
/// sizes × 2 placements = 32 runs, on both cores, each row equal to `sim`
/// run alone; killed midway and started again, the same table.
#[test]
fn the_32_run_plan_on_real_clusters_equals_sim_and_survives_a_kill() {
    let Some(real) = common::real_traces() else {
        return;
    };
    if !common::python() {
        return;
    }
    let c = |n: u8| format!("itp:{}/itp/elasticflow/cluster0{n}.csv", real.display());
    let dir = common::scratch_dir("sweep-32");
    let plan = write_plan(
        &dir,
        &format!(
            "trace = [\"{}\", \"{}\"]\npolicy = [\"fifo\", \"sjf\", \"las\", \"exec:python3 policies/fifo.py\"]\n\
             gpus = [64, 128]\nplacement = [\"consolidate\", \"spread\"]\n",
            c(1),
            c(2)
        ),
    );
    let out = dir.join("out");
    let o = sweep(&plan, &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let clean = results(&out);
    assert_eq!(clean.lines().count(), 33);
    assert_rows_equal_sim(&out, split);

    // Killed midway (SIGKILL: no chance to tidy up), then started again.
    let killed = dir.join("killed");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tracetui"))
        .args([
            "sweep",
            plan.to_str().unwrap(),
            "--out",
            killed.to_str().unwrap(),
            "-j",
            "1",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let runs = killed.join("runs");
    let some = common::eventually(120, || {
        let n = std::fs::read_dir(&runs)
            .ok()?
            .filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "json"))
            })
            .count();
        (n >= 3).then_some(n)
    });
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(some.is_some(), "the sweep recorded runs");
    assert!(
        !killed.join("results.csv").exists(),
        "killed before the end"
    );
    let o = sweep(&plan, &killed, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains(" 0 done before"), "{}", stderr(&o));
    assert_eq!(results(&killed), clean);
}

#[test]
fn sim_load_sizes_the_cluster_for_the_offered_load() {
    let o = tracetui(&["sim", "itp", SAMPLE, "--load", "0.5", "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let gpus = v["gpus"].as_f64().unwrap();
    let offered = v["offered_load_gpus"].as_f64().unwrap();
    assert_eq!(gpus, (offered / 0.5).ceil(), "{v}");
    assert!(
        stderr(&o).contains("(--load 0.5: offered load"),
        "{}",
        stderr(&o)
    );
    assert!(
        !stderr(&o).contains("auto:"),
        "the replaced size is not said: {}",
        stderr(&o)
    );
    for (args, says) in [
        (
            vec!["sim", "pai", common::cli::PAI, "--load", "0.8"],
            "lists its machines",
        ),
        (vec!["sim", "itp", SAMPLE, "--load", "0"], "positive"),
        (
            vec![
                "sim",
                "pai",
                common::cli::PAI,
                "--seed",
                "1",
                "--policy",
                "recorded",
            ],
            "recorded",
        ),
    ] {
        let o = tracetui(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
    let o = tracetui(&["sim", "itp", SAMPLE, "--load", "0.5", "--gpus", "8"]);
    assert_eq!(o.status.code(), Some(2));
}

/// Issue 34's parameters in plan files: one program with two parameter
/// values is an axis of two policies, each labelled by its parameters and
/// each the row `sim --policy` gives.
#[test]
fn parameters_in_a_plan_are_an_axis() {
    if !common::python() {
        return;
    }
    let dir = common::scratch_dir("sweep-params");
    let plan = write_plan(
        &dir,
        "trace = \"itp:sample-traces/itp/sample.csv\"\n\
         policy = [\"exec:python3 policies/sjf.py[age=1]\", \"exec:python3 policies/sjf.py[age=2]\"]\n\
         gpus = 32\n",
    );
    let out = dir.join("out");
    let o = sweep(&plan, &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = rows(&out);
    let labels: Vec<&str> = r.iter().map(|r| r["policy"].as_str()).collect();
    assert_eq!(labels, ["sjf[age=1]", "sjf[age=2]"]);
    assert_ne!(r[0]["run"], r[1]["run"]);
    assert_rows_equal_sim(&out, split);
}

#[test]
fn a_run_recorded_from_a_trace_that_changed_since_runs_again() {
    let dir = common::scratch_dir("sweep-stale");
    let trace = dir.join("t.csv");
    std::fs::copy(SAMPLE, &trace).unwrap();
    let plan = write_plan(
        &dir,
        &format!(
            "trace = \"itp:{}\"\npolicy = [\"fifo\", \"sjf\"]\n",
            trace.display()
        ),
    );
    let out = dir.join("out");
    assert!(sweep(&plan, &out, &[]).status.success());
    let before = rows(&out);
    let sha = |r: &std::collections::HashMap<String, String>| {
        let m: serde_json::Value = serde_json::from_str(&r["meta"]).unwrap();
        m["trace"]["sha256"].as_str().unwrap().to_string()
    };
    // The trace's last job dropped: the records no longer describe it.
    let text = std::fs::read_to_string(&trace).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.pop();
    std::fs::write(&trace, lines.join("\n") + "\n").unwrap();
    let o = sweep(&plan, &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "2 runs recorded before were made from trace or policy files that have changed"
        ),
        "{}",
        stderr(&o)
    );
    let after = rows(&out);
    assert_ne!(sha(&before[0]), sha(&after[0]));
    assert_eq!(
        after[0]["jobs"].parse::<u64>().unwrap() + 1,
        before[0]["jobs"].parse::<u64>().unwrap()
    );
}

/// The script an external policy's command names is hashed with the run:
/// edited, the runs that used it run again; the others are kept.
#[test]
fn a_run_whose_policy_script_changed_since_runs_again() {
    if !common::python() {
        return;
    }
    let dir = common::scratch_dir("sweep-stale-policy");
    let here = std::env::current_dir().unwrap();
    let script = dir.join("mine.py");
    let body = |describe: &str| {
        format!(
            "import sys\nsys.path.insert(0, {:?})\nfrom tracetui_policy import Policy, run\n\
             class P(Policy):\n    name, walk, describe = 'mine', 'strict', {describe:?}\nrun(P())\n",
            here.join("policies").display().to_string()
        )
    };
    std::fs::write(&script, body("one")).unwrap();
    let plan = write_plan(
        &dir,
        &format!(
            "trace = \"itp:{}\"\npolicy = [\"fifo\", \"exec:python3 {}\"]\n",
            here.join(SAMPLE).display(),
            script.display()
        ),
    );
    let out = dir.join("out");
    let o = sweep(&plan, &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = sweep(&plan, &out, &[]);
    assert!(stderr(&o).contains("0 to run"), "{}", stderr(&o));
    std::fs::write(&script, body("two")).unwrap();
    let o = sweep(&plan, &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains(
            "1 runs recorded before were made from trace or policy files that have changed"
        ),
        "{err}"
    );
    assert!(err.contains("1 to run"), "{err}");
}

#[test]
fn a_sweep_figure_is_the_mean_over_the_seeds_with_its_interval() {
    let dir = common::scratch_dir("sweep-plot");
    let plan = write_plan(
        &dir,
        "trace = \"itp:sample-traces/itp/sample.csv\"\npolicy = [\"fifo\", \"sjf\"]\ngpus = [16, 32]\nseed = [1, 2, 3]\n",
    );
    let out = dir.join("out");
    let svg = dir.join("fig.svg");
    let o = sweep(&plan, &out, &["--plot", svg.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("jct_mean_s against gpus"), "the title");
    assert!(text.contains("<metadata"));
    // Each point: the mean of its seeds' rows, with a t interval.
    let table = rows(&out);
    let mut r = csv::Reader::from_path(dir.join("fig.data.csv")).unwrap();
    let points: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
    assert_eq!(points.len(), 4, "2 policies × 2 sizes");
    for p in &points {
        let ys: Vec<f64> = table
            .iter()
            .filter(|t| t["policy"] == p[1] && t["plan_gpus"] == p[2])
            .map(|t| t["jct_mean_s"].parse().unwrap())
            .collect();
        assert_eq!(ys.len(), 3);
        let mean = ys.iter().sum::<f64>() / 3.0;
        let y: f64 = p[3].parse().unwrap();
        assert!((y - mean).abs() < 1e-6 * mean.max(1.0), "{y} vs {mean}");
        let sd = (ys.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 2.0).sqrt();
        let hi: f64 = p[5].parse().unwrap();
        assert!((hi - (mean + 4.303 * sd / 3f64.sqrt())).abs() < 1e-6 * mean.max(1.0));
        assert_eq!(&p[6], "3");
    }
    // An axis that is not one, or not numbers, is refused by name.
    let o = sweep(
        &plan,
        &out,
        &["--plot", svg.to_str().unwrap(), "--plot-x", "placement"],
    );
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--plot-x placement"), "{}", stderr(&o));
    // The figure may not overwrite the plan.
    let before = std::fs::read(&plan).unwrap();
    let o = sweep(&plan, &out, &["--plot", plan.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(std::fs::read(&plan).unwrap(), before);
    // Nor the sweep's own table.
    let table = std::fs::read(out.join("results.csv")).unwrap();
    let o = sweep(
        &plan,
        &out,
        &["--plot", out.join("results.csv").to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(std::fs::read(out.join("results.csv")).unwrap(), table);
}

#[test]
fn what_a_trace_skipped_is_said_once_in_a_sweep() {
    let dir = common::scratch_dir("sweep-skips");
    let mut body = std::fs::read_to_string(common::cli::SAMPLE).unwrap();
    body.push_str("not,a,row\n");
    let trace = dir.join("t.csv");
    std::fs::write(&trace, body).unwrap();
    let plan = write_plan(
        &dir,
        &format!(
            "trace = \"itp:{}\"\npolicy = [\"fifo\", \"sjf\", \"las\"]\n",
            trace.display()
        ),
    );
    let out = dir.join("out");
    let o = sweep(&plan, &out, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    // Said once for the three runs of the trace, with the line it skipped.
    assert_eq!(err.matches("t.csv: skipped 1 bad row").count(), 1, "{err}");
    assert_eq!(
        err.matches("t.csv:2002: 3 columns, expected 4").count(),
        1,
        "{err}"
    );
}
