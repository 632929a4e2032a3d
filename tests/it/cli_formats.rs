//! The command line per trace format: the committed samples regenerating
//! byte for byte, each sample through the headless commands, and `job`
//! drill-downs in their documented shape.

use crate::common;

use common::cli::{stderr, stdout, tracetui, PAI, SAMPLE};

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
    let (a, _) = tracetui::trace::load_itp(&raw, &opts).unwrap();
    let (b, _) = tracetui::trace::load_itp(&ef, &opts).unwrap();
    assert_eq!(a.jobs.len(), 300);
    for (x, y) in a.jobs.iter().zip(&b.jobs) {
        assert_eq!(
            (&x.id, x.submit, x.runtime, &x.demand),
            (&y.id, y.submit, y.runtime, &y.demand)
        );
        assert!(y.deadline.get().unwrap() > y.submit);
    }
}

#[test]
fn pai_sample_through_every_headless_command() {
    let sim = tracetui(&[
        "sim", "pai", PAI, "--policy", "recorded", "--format", "json",
    ]);
    assert!(sim.status.success(), "{}", stderr(&sim));
    let v: serde_json::Value = serde_json::from_str(&stdout(&sim)).unwrap();
    assert_eq!(v["policy"], "recorded");
    // The released mix of machines, scaled to 56 GPUs (`--gpus 56`).
    assert_eq!(v["gpus"], 62);
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
        stdout(&text)
            .contains("jobs       2000 (2000 GPU jobs)\n  (the trace records no job status)\n"),
        "ITP has no status column: none, not 2000 'unknown': {}",
        stdout(&text)
    );
    let json = tracetui(&["stats", "itp", SAMPLE, "--format", "json"]);
    let s: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    assert_eq!(s["jobs"]["by_status"], serde_json::json!({}));
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
    // A prefix of one id is that job, as the replay's `/` finds it.
    let short = &name[..name.len() - 3];
    let by_prefix = tracetui(&["job", "pai", PAI, short, "--format", "json"]);
    assert!(by_prefix.status.success(), "{}", stderr(&by_prefix));
    assert_eq!(stdout(&by_prefix), stdout(&o), "the same drill-down");
    let missing = tracetui(&["job", "pai", PAI, "nope"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        stderr(&missing).contains("job 'nope' is not in sample-traces/pai"),
        "{}",
        stderr(&missing)
    );
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
        "--gpus",
        "400",
        "--days",
        "1",
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

/// The committed samples teach: on their day of submissions the policies
/// differ visibly (head-of-line blocking under fifo).
#[test]
fn fifo_sjf_and_las_differ_on_the_committed_pai_and_acme_samples() {
    let acme = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/sample-traces/acme/trace_seren.csv"
    );
    for (format, path) in [("pai", PAI), ("acme", acme)] {
        fifo_sjf_las_differ(format, path);
    }
}

fn fifo_sjf_las_differ(format: &str, path: &str) {
    let cmp = tracetui(&[
        "compare",
        format,
        path,
        "--policies",
        "fifo,sjf,las",
        "--format",
        "json",
    ]);
    assert!(cmp.status.success(), "{}", stderr(&cmp));
    let v: serde_json::Value = serde_json::from_str(&stdout(&cmp)).unwrap();
    let jct: Vec<f64> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["jct_s"]["mean"].as_f64().unwrap())
        .collect();
    assert!(jct[0] > 2.0 * jct[1] && jct[0] > 2.0 * jct[2], "{jct:?}");
    assert_ne!(jct[1], jct[2]);
}

#[test]
fn gen_refuses_options_that_do_not_go_together() {
    let out = common::scratch_dir("genflags").join("x");
    let out = out.to_str().unwrap();
    for (args, says) in [
        (vec!["itp", "--gpus", "64"], "--gpus and --load go together"),
        (
            vec!["pai", "--gpus", "56", "--load", "0.5"],
            "--load is for itp",
        ),
        (vec!["itp", "--days", "2"], "--days is for pai and acme"),
        (vec!["pai", "--days", "0"], "--days is for pai and acme"),
    ] {
        let mut all = vec!["gen"];
        all.extend(args.iter().copied());
        all.extend(["--jobs", "10", "--out", out]);
        let o = tracetui(&all);
        assert!(!o.status.success(), "{all:?}");
        assert!(stderr(&o).contains(says), "{all:?}: {}", stderr(&o));
    }
}

#[test]
fn job_takes_an_id_prefix_and_lists_the_ids_a_short_one_could_mean() {
    let ids: Vec<String> = std::fs::read_to_string(SAMPLE)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().to_string())
        .collect();
    // The shortest prefix of the first id that no other id shares.
    let first = &ids[0];
    let n = (1..first.len())
        .find(|&n| ids.iter().filter(|i| i.starts_with(&first[..n])).count() == 1)
        .unwrap();
    let o = tracetui(&["job", "itp", SAMPLE, &first[..n]]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains(first.as_str()), "{}", stdout(&o));
    // One character shorter, it could mean several: they are listed.
    let o = tracetui(&["job", "itp", SAMPLE, &first[..n - 1]]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    let sharing = ids
        .iter()
        .filter(|i| i.starts_with(&first[..n - 1]))
        .count();
    assert!(
        err.contains("ids begin with it") && err.contains(first.as_str()),
        "{err}"
    );
    assert!(err.contains("(give more of it)") && sharing >= 2, "{err}");
}

/// Issue 61 item 11: `--gpus` on a trace that lists its machines (PAI's
/// machine spec) was dropped silently; it is said, and the trace's own
/// machines are used. On a trace without a list it sizes the cluster and
/// says nothing of the kind.
#[test]
fn gpus_on_a_trace_that_lists_its_machines_is_said_to_be_ignored() {
    let o = tracetui(&["sim", "pai", PAI, "--gpus", "64", "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("warning: --gpus 64 is ignored: this pai trace lists its machines (17 machines, 62 GPUs from pai_machine_spec)"),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["gpus"], 62);
    let o = tracetui(&["sim", "itp", SAMPLE, "--gpus", "64", "--format", "json"]);
    assert!(!stderr(&o).contains("is ignored"), "{}", stderr(&o));
}
