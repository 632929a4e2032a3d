//! `tracetui sweep`: a grid of `sim` runs whose rows are the rows `sim`
//! gives, resumable, sharded, with failed runs as rows.

use crate::common;

use common::cli::{stderr, tracetui, SAMPLE};
use common::sweep::*;
use std::path::PathBuf;

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

/// The plan: 2 ITP clusters × 4 policies (one external) × 2
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

/// Two commands of one program, both calling themselves `sjf`: probed side
/// by side, registered in the plan's order, so the first is `sjf-ext` and
/// the second `sjf-ext#2` on every run of the plan.
#[test]
fn programs_of_one_name_are_labelled_in_the_plans_order() {
    if !common::python() {
        return;
    }
    let dir = common::scratch_dir("sweep-labels");
    let plan = write_plan(
        &dir,
        &format!(
            "trace = \"itp:{SAMPLE}\"\npolicy = [\"exec:python3 policies/sjf.py\", \"exec:python3 ./policies/sjf.py\"]\n"
        ),
    );
    for round in 0..2 {
        let out = dir.join(format!("out{round}"));
        let o = sweep(&plan, &out, &["-j", "2"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let labels: Vec<String> = rows(&out).iter().map(|r| r["policy"].clone()).collect();
        assert_eq!(labels, ["sjf-ext", "sjf-ext#2"], "round {round}");
    }
}

/// Issue 60's second item: a sweep's `--load` sizes whole machines for
/// gandiva (at 0.8 the sample asks 138 GPUs, a machine of 2 at the end),
/// so no row fails mid-run; the others keep the size the load gives.
#[test]
fn gandiva_rows_at_a_load_run_on_whole_machines() {
    let dir = common::scratch_dir("sweep-gandiva-load");
    let plan = write_plan(
        &dir,
        "trace = \"itp:sample-traces/itp/sample.csv\"\npolicy = [\"fifo\", \"gandiva\"]\nload = [0.8, 0.7]\n",
    );
    let out = dir.join("out");
    let o = sweep(&plan, &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let gpus: Vec<(String, String, String)> = rows(&out)
        .into_iter()
        .map(|r| {
            (
                r["policy"].clone(),
                r["plan_load"].clone(),
                r["gpus"].clone(),
            )
        })
        .collect();
    let want = [
        ("fifo", "0.8", "138"),
        ("fifo", "0.7", "158"),
        ("gandiva", "0.8", "144"),
        ("gandiva", "0.7", "160"),
    ];
    for (got, want) in gpus.iter().zip(want) {
        assert_eq!((got.0.as_str(), got.1.as_str(), got.2.as_str()), want);
    }
    assert_rows_equal_sim(&out, split);
}

/// Issue 63, item 6: `-j 1000` where the system gives fewer threads (a
/// pid limit: `prlimit --nproc`, as an unprivileged user) runs on the
/// threads it can make instead of panicking ("failed to spawn thread").
#[test]
fn a_sweep_with_more_jobs_than_threads_it_may_make_runs_on_fewer() {
    let tools = ["setpriv", "prlimit"].iter().all(|t| {
        std::process::Command::new(t)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    // Only root can become another user; a pid limit does not bind root.
    let root = std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout == b"0\n");
    if !tools || !root {
        eprintln!("skipped: needs root, setpriv and prlimit to run under a pid limit");
        return;
    }
    let dir = common::scratch_dir("sweep-threads");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let bin = dir.join("tracetui");
    std::fs::copy(env!("CARGO_BIN_EXE_tracetui"), &bin).unwrap();
    let text = std::fs::read_to_string(SAMPLE).unwrap();
    let tiny: Vec<&str> = text.lines().take(21).collect();
    std::fs::write(dir.join("tiny.csv"), tiny.join("\n") + "\n").unwrap();
    let seeds: Vec<String> = (1..=300).map(|s| s.to_string()).collect();
    std::fs::write(
        dir.join("plan.toml"),
        format!(
            "trace = \"itp:tiny.csv\"\ngpus = 16\nseed = [{}]\n",
            seeds.join(", ")
        ),
    )
    .unwrap();
    for f in ["tracetui", "tiny.csv", "plan.toml"] {
        std::fs::set_permissions(dir.join(f), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let o = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .args(["prlimit", "--nproc=4:4", "./tracetui", "sweep", "plan.toml"])
        .args(["--out", "out", "-j", "1000"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("300 runs, 0 failed"), "{}", stderr(&o));
    assert!(stderr(&o).contains("-j 1000: "), "capped: {}", stderr(&o));
}

/// Issue 63 item 8: a plan's values are held once — a list of 50,000
/// values is checked value by value before any run without holding 50,000
/// runs' arguments (one shard of two runs peaked at ~500 MB; 150,000
/// values at 1.47 GB), its peak measured from a small Python parent.
#[test]
fn a_long_list_in_a_plan_is_checked_without_holding_every_run() {
    let dir = common::scratch_dir("sweep-long-list");
    let values: Vec<String> = (0..50_000).map(|i| (8 + i).to_string()).collect();
    let plan = write_plan(
        &dir,
        &format!(
            "trace = \"itp:{}\"\npolicy = \"fifo\"\ngpus = [{}]\n",
            std::path::absolute(SAMPLE).unwrap().display(),
            values.join(",")
        ),
    );
    // Its peak memory, measured from a small Python parent: a child of
    // this test binary would count the test binary's own memory as its
    // own (Linux keeps the peak across fork and exec).
    if !common::python() {
        eprintln!("SKIPPED: python3 measures the peak; it is not installed");
        return;
    }
    let measure = "import resource, subprocess, sys\n\
                   r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n\
                   print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)";
    let out = std::process::Command::new("python3")
        .args(["-c", measure, env!("CARGO_BIN_EXE_tracetui"), "sweep"])
        .arg(&plan)
        .arg("--out")
        .arg(dir.join("out"))
        .args(["--shard", "1/40000"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    let mut words = said.split_whitespace();
    assert_eq!(words.next(), Some("0"), "{said}");
    let peak_mb = words.next().and_then(|w| w.parse::<i64>().ok()).unwrap() / 1024;
    assert!(peak_mb < 200, "peak {peak_mb} MB for a 50,000-value list");
}
