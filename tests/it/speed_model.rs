//! Jobs that run at the speed of their GPUs (`--throughputs`): known
//! answers on 1, 2 and 4 GPUs, across a preemption, on two GPU types;
//! traces without a speed model unchanged; ElasticFlow's own tables.

use crate::common;
use common::cli::{stderr, stdout, tracetui};
use std::collections::BTreeMap;
use std::path::Path;
use tracetui::sim::{Engine, Phase, Placement, Policy};
use tracetui::trace::{attach_speeds_with, parse_throughput_table, ThroughputTables};

const HEADER: &str =
    "job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration\n";

/// A table directory with `m.csv`: batch 32 runs 2, 3, 5 it/s on 1, 2, 4 GPUs.
fn tables(dir: &Path) -> std::path::PathBuf {
    let t = dir.join("tables");
    std::fs::create_dir_all(&t).unwrap();
    std::fs::write(t.join("m.csv"), "global_batch_size,1,2,4\n32,2,3,5\n").unwrap();
    t
}

/// `sim --jobs-out` on `rows`: job id → (start, end, runtime).
fn ends(dir: &Path, rows: &str, extra: &[&str]) -> BTreeMap<String, (i64, i64, i64)> {
    let trace = dir.join("t.csv");
    std::fs::write(&trace, format!("{HEADER}{rows}")).unwrap();
    let out = dir.join("jobs.csv");
    let _ = std::fs::remove_file(&out);
    let mut args = vec![
        "sim",
        "itp",
        trace.to_str().unwrap(),
        "--gpus",
        "4",
        "--gpus-per-node",
        "4",
    ];
    args.extend_from_slice(&["--jobs-out", out.to_str().unwrap()]);
    args.extend_from_slice(extra);
    let o = tracetui(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut r = csv::Reader::from_path(&out).unwrap();
    let h = r.headers().unwrap().clone();
    let col = |n: &str| h.iter().position(|c| c == n).unwrap();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            let n = |c: &str| rec[col(c)].parse::<i64>().unwrap();
            (
                rec[col("id")].to_string(),
                (n("start_s"), n("end_s"), n("runtime_s")),
            )
        })
        .collect()
}

#[test]
fn a_job_runs_its_iterations_at_the_rate_of_its_gpu_count() {
    let d = common::scratch_dir("speed1");
    let t = tables(d.as_path());
    // Recorded durations 999: the tables decide.
    let rows = "a,0,100,m,9999,32,1,999\nb,1000,90,m,9999,32,2,999\nc,2000,101,m,9999,32,4,999\nd,3000,70,m,9999,32,3,999\n";
    let tp = format!("{}", t.display());
    let got = ends(d.as_path(), rows, &["--throughputs", &tp]);
    assert_eq!(got["a"], (0, 50, 50), "100 it at 2 it/s on 1 GPU");
    assert_eq!(got["b"], (1000, 1030, 30), "90 it at 3 it/s on 2 GPUs");
    assert_eq!(
        got["c"],
        (2000, 2021, 21),
        "101 it at 5 it/s on 4 GPUs: 20.2 s, rounded up"
    );
    assert_eq!(
        got["d"],
        (3000, 3018, 18),
        "3 GPUs: 4 it/s between 2 and 4; 70 it, 17.5 s up"
    );
    // Without tables, the recorded durations as before.
    let recorded = ends(d.as_path(), rows, &[]);
    assert!(
        recorded.values().all(|&(s, e, _)| e - s == 999),
        "{recorded:?}"
    );
}

#[test]
fn a_preempted_job_keeps_the_iterations_it_has_done() {
    let d = common::scratch_dir("speed2");
    let t = tables(d.as_path());
    // a: 500 it on 4 GPUs = 100 s; b arrives at 10 with 50 it = 10 s and
    // preempts it under srtf. a has done 10 s × 5 = 50 it; it resumes at
    // 20 paying 7 s, then 450 it = 90 s: it ends at 117.
    let rows = "a,0,500,m,9999,32,4,999\nb,10,50,m,9999,32,4,1\n";
    let tp = format!("{}", t.display());
    let got = ends(
        d.as_path(),
        rows,
        &[
            "--throughputs",
            &tp,
            "--policy",
            "srtf",
            "--preempt-cost",
            "7",
        ],
    );
    assert_eq!(got["b"], (10, 20, 10));
    assert_eq!(got["a"].1, 117, "{got:?}");
}

#[test]
fn each_gpu_type_runs_at_its_own_table() {
    let mut trace = (*common::tiny(&[4, 4], &[(0, 999, 4), (0, 999, 4)])).clone();
    trace.cluster.gpu_types = vec!["A100".into(), "T4".into()];
    trace.cluster.machines[1].gpu_type = 1;
    let m = trace.symbols.intern("m");
    for j in &mut trace.jobs {
        j.model = Some(m);
    }
    let table = |ty: &str, text: &str| {
        let mut models = BTreeMap::new();
        models.insert(
            "m".to_string(),
            parse_throughput_table(text.as_bytes(), "m.csv").unwrap(),
        );
        ThroughputTables {
            gpu_type: Some(ty.into()),
            dir: ty.into(),
            models,
            derived: None,
        }
    };
    let tables = vec![
        table("a100", "global_batch_size,1,4\n32,4,10\n"),
        table("T4", "global_batch_size,1,4\n32,1,4\n"),
    ];
    let said = attach_speeds_with(&mut trace, tables, &[Some((100, 32)), Some((100, 32))]).unwrap();
    assert!(said[0].contains("2 of 2 jobs"), "{said:?}");
    let mut e = Engine::new(
        std::sync::Arc::new(trace),
        Policy::Fifo,
        Placement::Consolidate,
    );
    e.run_to_end();
    let mut ends: Vec<i64> = (0..2).map(|j| e.job_state(j).end).collect();
    assert!((0..2).all(|j| e.job_state(j).phase == Phase::Done));
    ends.sort();
    assert_eq!(
        ends,
        vec![10, 25],
        "100 it at 10 it/s on 4 A100s, at 4 it/s on 4 T4s"
    );
}

#[test]
fn tables_that_cannot_apply_are_refused_with_the_reason() {
    let d = common::scratch_dir("speed3");
    let t = tables(d.as_path());
    let trace = d.as_path().join("t.csv");
    std::fs::write(&trace, format!("{HEADER}a,0,100,m,9999,32,1,999\n")).unwrap();
    let run = |extra: &[&str]| {
        let mut a = vec!["sim", "itp", trace.to_str().unwrap(), "--gpus", "4"];
        a.extend_from_slice(extra);
        tracetui(&a)
    };
    let typed = format!("A100={}", t.display());
    let o = run(&["--throughputs", &typed]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no GPU of that type (its types: GPU)"),
        "{}",
        stderr(&o)
    );
    let raw = d.as_path().join("raw.csv");
    std::fs::write(&raw, "job_id,submission_time,duration,num_gpu\na,0,10,1\n").unwrap();
    let tp = format!("{}", t.display());
    let o = tracetui(&["sim", "itp", raw.to_str().unwrap(), "--throughputs", &tp]);
    assert!(stderr(&o).contains("carries no work"), "{}", stderr(&o));
    std::fs::write(t.join("m.csv"), "global_batch_size,1,2\n32,2,x\n").unwrap();
    let o = run(&["--throughputs", &tp]);
    assert!(
        stderr(&o).contains("m.csv:2: column 2: 'x'"),
        "{}",
        stderr(&o)
    );
    // A model with no table keeps its recorded duration, and it is said.
    std::fs::write(t.join("m.csv"), "global_batch_size,1\n64,2\n").unwrap();
    let o = run(&["--throughputs", &tp]);
    assert!(o.status.success());
    assert!(
        stderr(&o)
            .contains("1 jobs keep their recorded durations — no table row for m at batch 32 ×1"),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).contains("makespan  999 s"), "{}", stdout(&o));
}

fn real() -> Option<std::path::PathBuf> {
    match std::env::var_os("TRACETUI_REAL_TRACES") {
        Some(p) => Some(std::path::PathBuf::from(p)),
        None => {
            eprintln!("SKIPPED: TRACETUI_REAL_TRACES is not set (ElasticFlow's tables and traces)");
            None
        }
    }
}

/// ElasticFlow generated `num_iteration = floor(duration × T[num_gpu])`:
/// run from its own tables, each job takes its recorded duration again.
#[test]
fn elasticflow_traces_run_their_recorded_durations_from_its_tables() {
    let Some(root) = real() else { return };
    let d = common::scratch_dir("speed4");
    for (trace, tables, gpus) in [
        ("itp/elasticflow/195job.csv", "throughputs_A100", "128"),
        (
            "elasticflow-artifact/elasticVpollux_e.csv",
            "throughputs_T4",
            "64",
        ),
    ] {
        let trace = root.join(trace);
        let tables = root.join("elasticflow-artifact").join(tables);
        let out = |name: &str, extra: &[&str]| {
            let f = d.as_path().join(name);
            let mut a = vec!["sim", "itp", trace.to_str().unwrap(), "--gpus", gpus];
            a.extend_from_slice(&["--jobs-out", f.to_str().unwrap()]);
            a.extend_from_slice(extra);
            let o = tracetui(&a);
            assert!(o.status.success(), "{}", stderr(&o));
            (std::fs::read_to_string(f).unwrap(), stderr(&o))
        };
        let (plain, _) = out("plain.csv", &[]);
        let (fast, said) = out("tables.csv", &["--throughputs", tables.to_str().unwrap()]);
        assert!(
            said.contains("195 of 195 jobs run from throughput tables"),
            "{said}"
        );
        let runtimes = |s: &str| -> Vec<i64> {
            let at = s
                .lines()
                .next()
                .unwrap()
                .split(',')
                .position(|c| c == "runtime_s")
                .unwrap();
            s.lines()
                .skip(1)
                .map(|l| l.split(',').nth(at).unwrap().parse().unwrap())
                .collect()
        };
        let (a, b) = (runtimes(&plain), runtimes(&fast));
        assert_eq!((a.len(), b.len()), (195, 195));
        let off: Vec<i64> = a.iter().zip(&b).map(|(x, y)| y - x).collect();
        if gpus == "128" {
            // 195job.csv's iterations were made from these very tables.
            assert!(off.iter().all(|&o| o == 0), "{off:?}");
        } else {
            // The artifact's T4 iterations came from slightly faster
            // numbers (num_iteration/(duration·T) up to 1.031): its jobs
            // take their recorded seconds or one more, never less.
            assert!(off.iter().all(|&o| o == 0 || o == 1), "{off:?}");
            assert!(off.iter().filter(|&&o| o == 1).count() > 100, "{off:?}");
        }
    }
}

#[test]
fn the_artifacts_own_column_names_load_and_are_named_in_errors() {
    let d = common::scratch_dir("speed-artifact");
    let f = d.join("e.csv");
    let head = "job_id,submit_time,iteration,model_name,ddl,batch_size,num_gpu,duration\n";
    std::fs::write(
        &f,
        format!("{head}0,10,100,m,99,32,1,50\n1,x,100,m,99,32,1,50\n"),
    )
    .unwrap();
    let o = tracetui(&["sim", "itp", f.to_str().unwrap(), "--gpus", "4", "--strict"]);
    assert!(stderr(&o).contains("submit_time"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("submission_time"), "{}", stderr(&o));
    std::fs::write(&f, format!("{head}0,10,100,m,99,32,1,50\n")).unwrap();
    let t = tables(&d);
    let tp = format!("{}", t.display());
    let o = tracetui(&[
        "sim",
        "itp",
        f.to_str().unwrap(),
        "--gpus",
        "4",
        "--throughputs",
        &tp,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the artifact's column names"),
        "{}",
        stderr(&o)
    );
    assert!(
        stdout(&o).contains("makespan  50 s"),
        "100 it at 2 it/s: {}",
        stdout(&o)
    );
}

#[test]
fn a_cluster_of_two_gpu_types_from_a_spec_runs_each_at_its_tables() {
    let d = common::scratch_dir("speed-het");
    for (ty, rates) in [("a100", "4,10"), ("t4", "1,4")] {
        let t = d.join(ty);
        std::fs::create_dir_all(&t).unwrap();
        std::fs::write(
            t.join("m.csv"),
            format!("global_batch_size,1,4\n32,{rates}\n"),
        )
        .unwrap();
    }
    let spec = d.join("cluster.csv");
    std::fs::write(
        &spec,
        "gpu_type,machines,gpus_per_machine\nA100,1,4\nT4,1,4\n",
    )
    .unwrap();
    let trace = d.join("t.csv");
    std::fs::write(
        &trace,
        format!("{HEADER}a,0,100,m,9999,32,4,999\nb,0,100,m,9999,32,4,999\n"),
    )
    .unwrap();
    let out = d.join("jobs.csv");
    let a100 = format!("A100={}", d.join("a100").display());
    let t4 = format!("t4={}", d.join("t4").display());
    let o = tracetui(&[
        "sim",
        "itp",
        trace.to_str().unwrap(),
        "--cluster",
        spec.to_str().unwrap(),
        "--throughputs",
        &a100,
        "--throughputs",
        &t4,
        "--jobs-out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("cluster: 8 GPUs = 1 × 4 A100 + 1 × 4 T4"),
        "{}",
        stderr(&o)
    );
    let text = std::fs::read_to_string(&out).unwrap();
    let mut ends: Vec<i64> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(9).unwrap().parse().unwrap())
        .collect();
    ends.sort();
    assert_eq!(
        ends,
        vec![10, 25],
        "100 it at 10 it/s on the A100s, at 4 it/s on the T4s"
    );
    // A spec is for traces without a machine list, and --gpus conflicts.
    let o = tracetui(&[
        "sim",
        "itp",
        trace.to_str().unwrap(),
        "--cluster",
        spec.to_str().unwrap(),
        "--gpus",
        "8",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let (t, s) = (trace.to_str().unwrap(), spec.to_str().unwrap());
    // --load scales the spec's machines, type by type (issue 60).
    let o = tracetui(&["sim", "itp", t, "--cluster", s, "--load", "0.8"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("× 4 A100 + ") && stderr(&o).contains("--cluster's machines scaled"),
        "{}",
        stderr(&o)
    );
    let pai = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-traces/pai");
    let o = tracetui(&["sim", "pai", pai, "--cluster", s]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let said = stderr(&o);
    assert!(
        said.contains("--cluster is for traces without a machine list"),
        "{said}"
    );
}

#[test]
fn stats_says_how_many_deadlines_no_policy_can_meet() {
    let d = common::scratch_dir("speed-stats");
    let t = tables(&d);
    let trace = d.join("t.csv");
    // a: 999 s recorded, deadline 40 s after submit; 100 it at 5 it/s on
    // 4 GPUs = 20 s. b: deadline 10 s after: missed either way. c: 30 s
    // recorded, deadline 60 s after: met either way.
    let rows = "a,0,100,m,40,32,1,999\nb,5,100,m,15,32,1,999\nc,9,10,m,69,32,1,30\n";
    std::fs::write(&trace, format!("{HEADER}{rows}")).unwrap();
    let tp = format!("{}", t.display());
    let run = |extra: &[&str]| {
        let mut a = vec![
            "stats",
            "itp",
            trace.to_str().unwrap(),
            "--gpus",
            "4",
            "--format",
            "json",
        ];
        a.extend_from_slice(extra);
        let o = tracetui(&a);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_str::<serde_json::Value>(&stdout(&o)).unwrap()["deadlines"].clone()
    };
    let plain = run(&[]);
    assert_eq!(plain["jobs"], 3);
    assert_eq!(plain["infeasible_at_recorded_speed"], 2);
    assert!(plain["infeasible_at_full_scale_out"].is_null());
    let scaled = run(&["--throughputs", &tp]);
    assert_eq!(
        scaled["infeasible_at_recorded_speed"], 2,
        "the recorded speed is the record's"
    );
    assert_eq!(scaled["infeasible_at_full_scale_out"], 1, "{scaled}");
    let o = tracetui(&[
        "stats",
        "itp",
        trace.to_str().unwrap(),
        "--gpus",
        "4",
        "--throughputs",
        &tp,
    ]);
    assert!(
        stdout(&o).contains("2 (66.7 %) infeasible at the recorded speed"),
        "{}",
        stdout(&o)
    );
    assert!(
        stdout(&o).contains("1 (33.3 %) infeasible even started on arrival at full scale-out"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn results_name_and_hash_the_tables_and_cluster_they_ran_on() {
    use sha2::Digest;
    let d = common::scratch_dir("speed-meta");
    let t = tables(&d);
    let spec = d.join("cluster.csv");
    std::fs::write(&spec, "gpu_type,machines,gpus_per_machine\nA100,1,4\n").unwrap();
    let trace = d.join("t.csv");
    std::fs::write(&trace, format!("{HEADER}a,0,100,m,9999,32,1,999\n")).unwrap();
    let tp = format!("A100={}", t.display());
    let o = tracetui(&[
        "sim",
        "itp",
        trace.to_str().unwrap(),
        "--cluster",
        spec.to_str().unwrap(),
        "--throughputs",
        &tp,
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let inputs = &v["meta"]["inputs"];
    let hex = |p: &Path| {
        let d = sha2::Sha256::digest(std::fs::read(p).unwrap());
        d.iter().map(|b| format!("{b:02x}")).collect::<String>()
    };
    assert_eq!(inputs[0]["what"], "throughputs A100", "{inputs}");
    assert_eq!(inputs[0]["files"][0]["name"], "m.csv");
    assert_eq!(inputs[0]["files"][0]["sha256"], hex(&t.join("m.csv")));
    assert_eq!(inputs[1]["what"], "cluster");
    assert_eq!(inputs[1]["files"][0]["sha256"], hex(&spec));
    // Without them, no inputs key: earlier results keep their bytes.
    let o = tracetui(&[
        "sim",
        "itp",
        trace.to_str().unwrap(),
        "--gpus",
        "4",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(v["meta"].get("inputs").is_none(), "{}", v["meta"]);
}
