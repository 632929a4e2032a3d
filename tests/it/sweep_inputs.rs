//! `tracetui sweep`'s inputs: parameters as an axis, a run recorded from
//! a trace or a policy script that changed since runs again, a figure over
//! seeds, what a trace skipped said once.

use crate::common;

use common::cli::{stderr, SAMPLE};
use common::sweep::*;

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
        stderr(&o).contains("0 done before, 2 to run (2 re-run: trace changed)"),
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
        err.contains("1 done before, 1 to run (1 re-run: policy files changed)"),
        "{err}"
    );
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
    assert!(text.contains("mean JCT by cluster size"), "the title");
    assert!(text.contains("cluster size (GPUs)"), "the x axis in words");
    assert!(text.contains("<metadata"));
    // Each point: the mean of its seeds' rows, with a t interval.
    let table = rows(&out);
    let mut r = csv::Reader::from_path(dir.join("fig.data.csv")).unwrap();
    let points: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
    assert_eq!(points.len(), 4, "2 policies × 2 sizes");
    // Shown in the unit its values read best in (the title says which).
    let per = [
        ("(d)", 86_400.0),
        ("(h)", 3600.0),
        ("(min)", 60.0),
        ("(s)", 1.0),
    ]
    .into_iter()
    .find(|(u, _)| text.contains(&format!("mean JCT {u}")))
    .map(|(_, s)| s)
    .expect("a time unit in the y title");
    for p in &points {
        let ys: Vec<f64> = table
            .iter()
            .filter(|t| t["policy"] == p[0] && t["plan_gpus"] == p[1])
            .map(|t| t["jct_mean_s"].parse::<f64>().unwrap() / per)
            .collect();
        assert_eq!(ys.len(), 3);
        let mean = ys.iter().sum::<f64>() / 3.0;
        let y: f64 = p[2].parse().unwrap();
        assert!((y - mean).abs() < 1e-9 * mean.max(1.0), "{y} vs {mean}");
        let sd = (ys.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 2.0).sqrt();
        let hi: f64 = p[4].parse().unwrap();
        assert!((hi - (mean + 4.303 * sd / 3f64.sqrt())).abs() < 1e-9 * mean.max(1.0));
        assert!(p[5].starts_with("Student's t 95 %"), "{:?}", &p[5]);
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

/// Issue 63's lows: `help = true` is no setting (it printed sim's
/// description as the error), `policy = "false"` is a policy named false
/// (it ran fifo: `false` leaves out flags only), and a grid past a machine
/// word is counted as it is (it said 18446744073709551615 runs).
#[test]
fn plan_values_mean_what_they_say() {
    let dir = common::scratch_dir("sweep-plan-values");
    let out = dir.join("out");
    let run = |body: &str| {
        let plan = write_plan(
            &dir,
            &format!("trace = \"itp:sample-traces/itp/sample.csv\"\n{body}"),
        );
        sweep(&plan, &out, &[])
    };
    let o = run("help = true\n");
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("unexpected argument '--help' found"),
        "{}",
        stderr(&o)
    );
    let o = run("policy = \"false\"\n");
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("unknown policy 'false'"),
        "{}",
        stderr(&o)
    );
    let o = run("strict = false\ngpus = 32\n");
    assert!(
        o.status.success(),
        "a flag's false leaves it out: {}",
        stderr(&o)
    );
    let list: Vec<String> = (1..=1000).map(|i| i.to_string()).collect();
    let list = list.join(",");
    let body: String = [
        "seed",
        "gpus",
        "preempt_cost",
        "rescale_cost",
        "policy_timeout",
        "las_starve",
        "timeline_tick",
    ]
    .iter()
    .map(|k| format!("{k} = [{list}]\n"))
    .collect();
    let o = run(&body);
    assert!(
        stderr(&o).contains("the plan makes 1000000000000000000000 runs, more than the 1000000"),
        "{}",
        stderr(&o)
    );
}

/// Issue 63, item 16: on a full disk (a 48 KiB tmpfs) a sweep stops
/// starting runs once a record cannot be saved, says how many it did not
/// start, and its progress never counts a run whose record was lost.
#[test]
fn a_full_disk_stops_the_sweep_and_says_so() {
    let dir = common::scratch_dir("sweep-full");
    let disk = dir.join("disk");
    std::fs::create_dir_all(&disk).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=48k", "tmpfs"])
        .arg(&disk)
        .output()
        .is_ok_and(|o| o.status.success());
    if !mounted {
        eprintln!("skipped: cannot mount a small tmpfs here (needs root)");
        return;
    }
    let text = std::fs::read_to_string(SAMPLE).unwrap();
    let tiny: Vec<&str> = text.lines().take(21).collect();
    std::fs::write(dir.join("tiny.csv"), tiny.join("\n") + "\n").unwrap();
    let seeds: Vec<String> = (1..=60).map(|s| s.to_string()).collect();
    let plan = write_plan(
        &dir,
        &format!(
            "trace = \"itp:{}\"\ngpus = 16\nseed = [{}]\n",
            dir.join("tiny.csv").display(),
            seeds.join(", ")
        ),
    );
    let o = sweep(&plan, &disk.join("out"), &[]);
    let saved = std::fs::read_dir(disk.join("out/runs"))
        .map(|d| {
            d.filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".json"))
            })
            .count()
        })
        .unwrap_or(0);
    let _ = std::process::Command::new("umount").arg(&disk).status();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
    assert!(
        err.contains("runs not started (run the sweep again to go on)"),
        "{err}"
    );
    assert!(saved < 60, "{saved} saved");
    assert!(!err.contains("60/60"), "never counted as done: {err}");
}
