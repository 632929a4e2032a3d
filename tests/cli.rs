//! The command line as a user or script sees it: output shapes, exit codes,
//! determinism, and the committed sample regenerating byte for byte.

mod common;

use std::process::{Command, Output};

const SAMPLE: &str = "sample-traces/itp/sample.csv";

fn tracetui(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracetui"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

const KEYS: [&str; 13] = [
    "policy",
    "placement",
    "gpus",
    "gpus_per_node",
    "jobs",
    "jobs_done",
    "jobs_rejected",
    "makespan_s",
    "jct_s",
    "wait_s",
    "slowdown",
    "gpu_util",
    "preemptions",
];

fn keys(v: &serde_json::Value) -> Vec<String> {
    let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
    k.sort();
    k
}

#[test]
fn sim_json_is_one_object_with_the_documented_keys() {
    let o = tracetui(&[
        "sim", "itp", SAMPLE, "--policy", "sjf", "--gpus", "128", "--format", "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let mut want: Vec<String> = KEYS.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(keys(&v), want);
    for k in ["jct_s", "wait_s", "slowdown"] {
        assert_eq!(keys(&v[k]), vec!["mean", "p50", "p95", "p99"]);
    }
    assert_eq!(v["policy"], "sjf");
    assert_eq!(v["gpus"], 128);
    assert_eq!(v["gpus_per_node"], 8);
    assert_eq!(v["jobs"], 2000);
    assert_eq!(v["jobs_done"], 2000);
}

#[test]
fn compare_json_is_an_array_in_the_given_order() {
    let o = tracetui(&[
        "compare",
        "itp",
        SAMPLE,
        "--policies",
        "sgf,fifo,first-fit",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let names: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["policy"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["sgf", "fifo", "first-fit"]);
}

#[test]
fn compare_csv_has_a_header_and_a_row_per_policy() {
    let o = tracetui(&[
        "compare",
        "itp",
        SAMPLE,
        "--policies",
        "fifo,sjf",
        "--format",
        "csv",
    ]);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3);
    assert!(lines[0].starts_with("policy,placement,gpus,"));
    assert!(lines[1].starts_with("fifo,consolidate,"));
    assert!(lines[2].starts_with("sjf,consolidate,"));
}

#[test]
fn table_names_the_rules() {
    let o = tracetui(&["sim", "itp", SAMPLE, "--policy", "fifo-backfill"]);
    let out = stdout(&o);
    assert!(
        out.contains("policy    fifo-backfill — EASY backfill"),
        "{out}"
    );
    assert!(
        out.contains("rules: JCT = finish − submit; wait = first start − submit"),
        "{out}"
    );
    assert!(
        stderr(&o).contains("cluster: 144 GPUs = 18 nodes × 8 (auto"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn same_command_same_bytes() {
    let args = [
        "compare",
        "itp",
        SAMPLE,
        "--format",
        "json",
        "--placement",
        "pack",
    ];
    assert_eq!(stdout(&tracetui(&args)), stdout(&tracetui(&args)));
}

#[test]
fn exit_codes() {
    let usage = tracetui(&["sim", "itp", SAMPLE, "--policy", "lifo"]);
    assert_eq!(usage.status.code(), Some(2));
    assert!(
        stderr(&usage).contains("unknown policy 'lifo'"),
        "{}",
        stderr(&usage)
    );
    let missing = tracetui(&["sim", "itp", "no/such.csv"]);
    assert_eq!(missing.status.code(), Some(1));
    assert_eq!(
        stderr(&missing).trim(),
        "tracetui: error: no/such.csv: cannot open: No such file or directory (os error 2)"
    );
    let recorded = tracetui(&["sim", "itp", SAMPLE, "--policy", "recorded"]);
    assert_eq!(recorded.status.code(), Some(1));
    assert!(
        stderr(&recorded).contains("needs recorded start times"),
        "{}",
        stderr(&recorded)
    );
    assert_eq!(tracetui(&["--version"]).status.code(), Some(0));
}

#[test]
fn bad_rows_are_reported_on_stderr_and_strict_stops() {
    let p = common::write_file(
        "bad.csv",
        b"job_id,submission_time,duration,num_gpu\na,1,10,1\nb,2,x,1\n",
    );
    let p = p.to_str().unwrap();
    let lenient = tracetui(&["sim", "itp", p]);
    assert!(lenient.status.success());
    assert!(
        stderr(&lenient).contains("skipped 1 bad row"),
        "{}",
        stderr(&lenient)
    );
    assert!(stderr(&lenient).contains("bad.csv:3: column duration: not a whole number: 'x'"));
    let strict = tracetui(&["sim", "itp", p, "--strict"]);
    assert_eq!(strict.status.code(), Some(1));
    assert!(stderr(&strict).contains("bad.csv:3: column duration: not a whole number: 'x'"));
}

#[test]
fn committed_sample_regenerates_byte_for_byte() {
    let out = common::scratch_dir("gen").join("sample.csv");
    let o = tracetui(&[
        "gen",
        "itp",
        "--jobs",
        "2000",
        "--seed",
        "42",
        "--gpus",
        "128",
        "--load",
        "0.85",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let committed = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/sample-traces/itp/sample.csv"
    ))
    .unwrap();
    assert!(
        std::fs::read(&out).unwrap() == committed,
        "sample-traces/itp/sample.csv differs from `gen` output"
    );
}

#[test]
fn gen_elasticflow_loads_back_with_the_same_raw_columns() {
    let dir = common::scratch_dir("gen2");
    let raw = dir.join("raw.csv");
    let ef = dir.join("ef.csv");
    for (schema, path) in [("raw", &raw), ("elasticflow", &ef)] {
        let o = tracetui(&[
            "gen",
            "itp",
            "--jobs",
            "300",
            "--seed",
            "9",
            "--schema",
            schema,
            "--out",
            path.to_str().unwrap(),
        ]);
        assert!(o.status.success());
    }
    let opts = tracetui::trace::LoadOptions {
        strict: true,
        ..Default::default()
    };
    let (a, _) = tracetui::trace::itp::load(&raw, &opts).unwrap();
    let (b, _) = tracetui::trace::itp::load(&ef, &opts).unwrap();
    assert_eq!(a.jobs.len(), 300);
    for (x, y) in a.jobs.iter().zip(&b.jobs) {
        assert_eq!(
            (&x.id, x.submit, x.runtime, &x.demand),
            (&y.id, y.submit, y.runtime, &y.demand)
        );
        assert!(y.deadline.unwrap() > y.submit);
    }
}

const PAI: &str = "sample-traces/pai";

#[test]
fn pai_sample_through_every_headless_command() {
    let sim = tracetui(&[
        "sim", "pai", PAI, "--policy", "recorded", "--format", "json",
    ]);
    assert!(sim.status.success(), "{}", stderr(&sim));
    let v: serde_json::Value = serde_json::from_str(&stdout(&sim)).unwrap();
    assert_eq!(v["policy"], "recorded");
    assert_eq!(v["gpus"], 6742);
    assert_eq!(v["gpus_per_node"], serde_json::Value::Null);
    assert!(
        stderr(&sim).contains("pai_job_table.csv: 2000 rows"),
        "{}",
        stderr(&sim)
    );
    let cmp = tracetui(&[
        "compare",
        "pai",
        PAI,
        "--policies",
        "recorded,sjf",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&cmp)).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 2);
    let stats = tracetui(&["stats", "pai", PAI, "--format", "json"]);
    let s: serde_json::Value = serde_json::from_str(&stdout(&stats)).unwrap();
    assert_eq!(s["jobs"]["all"], 2000);
    assert_eq!(s["submissions_by_hour"].as_array().unwrap().len(), 24);
    let text = tracetui(&["stats", "itp", SAMPLE]);
    assert!(
        stdout(&text).contains("jobs       2000 (2000 GPU jobs)"),
        "{}",
        stdout(&text)
    );
}

#[test]
fn job_drill_down_json_has_the_documented_shape() {
    let first = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/sample-traces/pai/pai_job_table.csv"
    ))
    .unwrap();
    let name = first.split(',').next().unwrap().to_string();
    let o = tracetui(&["job", "pai", PAI, &name, "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    assert_eq!(
        keys,
        vec![
            "job",
            "tasks",
            "instances",
            "group_tag",
            "wait_s",
            "runtime_s"
        ]
    );
    assert_eq!(v["job"]["job_name"], name.as_str());
    let inst = &v["instances"][0];
    for k in [
        "sensor",
        "machine_spec",
        "machine_metric",
        "start_time_local",
    ] {
        assert!(inst.get(k).is_some(), "instance lacks {k}: {inst}");
    }
    let text = tracetui(&["job", "pai", PAI, &name]);
    assert!(
        stdout(&text).starts_with("job:\n  job_name"),
        "{}",
        stdout(&text)
    );
    let missing = tracetui(&["job", "pai", PAI, "nope"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        stderr(&missing).contains("job 'nope' is not in sample-traces/pai"),
        "{}",
        stderr(&missing)
    );
}

#[test]
fn the_replay_needs_a_terminal_and_says_what_to_use_instead() {
    let o = tracetui(&[]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("stdout is not a terminal"), "{e}");
    assert!(e.contains("tracetui sim itp"), "{e}");
    let o = tracetui(&["pai", PAI]);
    assert!(
        stderr(&o).contains("tracetui sim pai sample-traces/pai --policy recorded"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn keys_lists_the_effective_keymap() {
    let o = Command::new(env!("CARGO_BIN_EXE_tracetui"))
        .arg("keys")
        .env("XDG_CONFIG_HOME", common::scratch_dir("nokeys"))
        .output()
        .unwrap();
    let out = stdout(&o);
    assert!(out.contains("play       space"), "{out}");
    assert!(out.contains("quit_keep  Q"), "{out}");
}

#[test]
fn philly_and_acme_samples_regenerate_byte_for_byte() {
    let dir = common::scratch_dir("regen");
    let o = tracetui(&[
        "gen",
        "philly",
        "--jobs",
        "2000",
        "--seed",
        "42",
        "--util-minutes",
        "30",
        "--out",
        dir.join("philly").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for f in [
        "cluster_job_log",
        "cluster_machine_list",
        "cluster_gpu_util",
    ] {
        let a = std::fs::read(dir.join("philly").join(f)).unwrap();
        let b = std::fs::read(format!(
            "{}/sample-traces/philly/{f}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        assert!(a == b, "sample-traces/philly/{f} differs from gen");
    }
    let acme = dir.join("trace_seren.csv");
    let o = tracetui(&[
        "gen",
        "acme",
        "--jobs",
        "2000",
        "--seed",
        "42",
        "--out",
        acme.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let committed = std::fs::read(format!(
        "{}/sample-traces/acme/trace_seren.csv",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    assert!(
        std::fs::read(&acme).unwrap() == committed,
        "sample-traces/acme/trace_seren.csv differs from gen"
    );
}

#[test]
fn job_drill_down_for_philly_and_acme() {
    let o = tracetui(&[
        "job",
        "philly",
        "sample-traces/philly",
        "application_1502000000042_7",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    assert_eq!(keys, vec!["job", "attempts", "wait_s", "runtime_s"]);
    assert_eq!(v["job"]["jobid"], "application_1502000000042_7");
    let first = std::fs::read_to_string(format!(
        "{}/sample-traces/acme/trace_seren.csv",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let id = first
        .lines()
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .to_string();
    let o = tracetui(&[
        "job",
        "acme",
        "sample-traces/acme/trace_seren.csv",
        &id,
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["job"]["job_id"], id.as_str());
    assert!(v.get("wait_s").is_some() && v.get("runtime_s").is_some());
    for (fmt, path) in [
        ("philly", "sample-traces/philly"),
        ("acme", "sample-traces/acme/trace_seren.csv"),
    ] {
        let o = tracetui(&["sim", fmt, path, "--policy", "recorded", "--format", "json"]);
        assert!(o.status.success(), "{fmt}: {}", stderr(&o));
        let o = tracetui(&["stats", fmt, path, "--format", "json"]);
        assert!(o.status.success(), "{fmt}: {}", stderr(&o));
    }
}

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
    assert!(header.ends_with(",energy_kwh,avg_power_w"), "{header}");
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
    assert_eq!(one, v[2]);
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
        (vec!["--las-starve=-1"], "--las-starve must be 0 or more"),
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
        lines[0].ends_with(",gpu_util,preemptions,deadline_met"),
        "{out}"
    );
    let met = |l: &str| l.rsplit(',').next().unwrap().parse::<f64>().unwrap();
    assert!(
        met(lines[2]) >= met(lines[1]),
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
    assert_eq!(forked[1], scheduled);
    let o = tracetui(&["compare", "itp", SAMPLE, "--from", "2d"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("records no starts"), "{}", stderr(&o));
}
