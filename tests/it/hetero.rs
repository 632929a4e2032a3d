//! Issue 60's third item: heterogeneous clusters on the released data —
//! a type's table derived from another's, notes that name the type
//! lacking a row, `fifo-fastest` (Gavel's heterogeneity-aware FIFO) by
//! hand, a job across types said, `--jobs-out` naming types and machines,
//! `--load` with `--cluster`, and ElasticFlow's policies refusing a mixed
//! cluster by its rule.

use crate::common;

use common::cli::{stderr, stdout, tracetui, SAMPLE};
use std::collections::HashMap;
use std::path::Path;

/// T4 first in the cluster's order, so placing by index picks it.
const MIXED: &str = "gpu_type,machines,gpus_per_machine\nT4,1,2\nA100,1,2\n";

/// A trace, A100 tables and a mixed spec: `m` at batch 32 runs 4, 7, 12
/// it/s on 1, 2, 4 A100s.
fn inputs(dir: &Path, rows: &str) -> (String, String, String) {
    let trace = dir.join("t.csv");
    let head =
        "job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration\n";
    std::fs::write(&trace, format!("{head}{rows}")).unwrap();
    let a100 = dir.join("a100");
    std::fs::create_dir_all(&a100).unwrap();
    std::fs::write(a100.join("m.csv"), "global_batch_size,1,2,4\n32,4,7,12\n").unwrap();
    let spec = dir.join("spec.csv");
    std::fs::write(&spec, MIXED).unwrap();
    let s = |p: &Path| p.display().to_string();
    (s(&trace), s(&a100), s(&spec))
}

/// `sim` on `inputs`' trace and mixed spec, T4's tables derived from the
/// A100's at half the speed, with `more` options.
fn sim_mixed(
    (trace, a100, spec): &(String, String, String),
    more: &[&str],
) -> std::process::Output {
    let a100 = format!("A100={a100}");
    let mut args = vec![
        "sim",
        "itp",
        trace,
        "--cluster",
        spec,
        "--throughputs",
        &a100,
        "--throughputs",
        "T4=A100*0.5",
    ];
    args.extend(more);
    tracetui(&args)
}

fn jobs(path: &Path) -> Vec<HashMap<String, String>> {
    csv::Reader::from_path(path)
        .unwrap()
        .deserialize()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn fifo_fastest_puts_each_job_on_its_fastest_type_and_never_across() {
    let dir = common::scratch_dir("hetero-fastest");
    // a: 1 GPU, 400 iterations at 0; b: 4 GPUs (both machines), 1200 at 500.
    let made = inputs(
        &dir,
        "a,0,400,m,9999,32,1,999\nb,500,1200,m,9999,32,4,999\n",
    );
    let run = |policy: &str| {
        let out = dir.join(format!("{policy}.csv"));
        let o = sim_mixed(
            &made,
            &[
                "--policy",
                policy,
                "--jobs-out",
                out.to_str().unwrap(),
                "--format",
                "json",
            ],
        );
        assert!(o.status.success(), "{policy}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        (v, jobs(&out), stderr(&o))
    };
    let (fifo, rows, err) = run("fifo");
    assert!(
        err.contains("2 of 2 jobs run from throughput tables (A100 on")
            && err.contains("T4 = A100 × 0.5 (derived, not profiled)"),
        "{err}"
    );
    // fifo places by index: a on the T4 (2 it/s: 0–200); b on both
    // machines at the slower type's 4-GPU rate (6 it/s: 500–700).
    let cols = |r: &HashMap<String, String>| {
        (
            r["end_s"].clone(),
            r["gpu_types"].clone(),
            r["machine_names"].clone(),
        )
    };
    assert_eq!(cols(&rows[0]), ("200".into(), "T4".into(), "n0000".into()));
    assert_eq!(
        cols(&rows[1]),
        ("700".into(), "T4+A100".into(), "n0000;n0001".into())
    );
    assert_eq!(fifo["jobs_across_types"], 1);
    // fifo-fastest: a on the A100 (4 it/s: 0–100); b fits on no one type
    // (2 GPUs each): declined, never run across types.
    let (fastest, rows, _) = run("fifo-fastest");
    assert_eq!(
        cols(&rows[0]),
        ("100".into(), "A100".into(), "n0001".into())
    );
    assert_eq!(rows[1]["state"], "dropped");
    assert_eq!(fastest["jobs_dropped"], 1);
    assert_eq!(fastest["jobs_across_types"], 0);
}

#[test]
fn a_type_without_a_row_is_named_and_a_derived_type_needs_its_base() {
    let dir = common::scratch_dir("hetero-rows");
    let (trace, a100, spec) = inputs(&dir, "a,0,400,m,9999,32,1,999\n");
    let t4 = dir.join("t4");
    std::fs::create_dir_all(&t4).unwrap();
    std::fs::write(t4.join("m.csv"), "global_batch_size,1,2\n64,1,2\n").unwrap();
    let o = tracetui(&[
        "sim",
        "itp",
        &trace,
        "--cluster",
        &spec,
        "--throughputs",
        &format!("A100={a100}"),
        "--throughputs",
        &format!("T4={}", t4.display()),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "1 jobs keep their recorded durations — no table row for m at batch 32 on T4 ×1"
        ),
        "{}",
        stderr(&o)
    );
    let o = tracetui(&[
        "sim",
        "itp",
        &trace,
        "--cluster",
        &spec,
        "--throughputs",
        &format!("A100={a100}"),
        "--throughputs",
        "T4=V100*0.5",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o)
            .contains("--throughputs T4=V100*0.5: no --throughputs V100=DIR to derive it from"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn elasticflow_refuses_a_mixed_cluster_by_its_rule() {
    let dir = common::scratch_dir("hetero-ef");
    let made = inputs(&dir, "a,0,400,m,9999,32,1,999\n");
    for policy in ["elasticflow", "gandiva"] {
        let o = sim_mixed(&made, &["--policy", policy]);
        assert_eq!(o.status.code(), Some(2), "{policy}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!(
                "policy '{policy}' cannot run on this cluster: it needs one GPU type, as ElasticFlow's simulator runs one type per run, and this one has T4, A100"
            )),
            "{}",
            stderr(&o)
        );
    }
    // edf-elastic plans at the slowest type and runs.
    let o = sim_mixed(&made, &["--policy", "edf-elastic"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn load_scales_a_specs_machines_type_by_type() {
    let dir = common::scratch_dir("hetero-load");
    let spec = dir.join("spec.csv");
    std::fs::write(
        &spec,
        "gpu_type,machines,gpus_per_machine\nA100,4,8\nT4,4,8\n",
    )
    .unwrap();
    let o = tracetui(&[
        "sim",
        "itp",
        SAMPLE,
        "--cluster",
        spec.to_str().unwrap(),
        "--load",
        "0.5",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // 110.1 GPUs offered ÷ 0.5 = 221: 4 of 64 GPUs each, × 221/64, up: 14.
    assert!(
        stderr(&o).contains("cluster: 224 GPUs = 14 × 8 A100 + 14 × 8 T4 (--cluster's machines scaled to hold 221 GPUs for --load 0.5)"),
        "{}",
        stderr(&o)
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["gpus"], 224);
}

/// The released data: ElasticFlow's A100 and T4 tables share no (model,
/// batch size) row, so a mixed cluster with both runs nothing from
/// tables; a T4 table derived from the A100's runs every job from them.
#[test]
fn the_released_tables_run_a_mixed_cluster_with_a_derived_type() {
    let Some(shared) = common::real_traces() else {
        return;
    };
    let a = shared.join("elasticflow-artifact");
    let dir = common::scratch_dir("hetero-released");
    let spec = dir.join("spec.csv");
    std::fs::write(
        &spec,
        "gpu_type,machines,gpus_per_machine\nA100,4,8\nT4,4,8\n",
    )
    .unwrap();
    let trace = shared.join("itp/elasticflow/cluster01.csv");
    let out = dir.join("jobs.csv");
    let base = |t4: &str, more: &[&str]| {
        let mut args = vec![
            "sim".to_string(),
            "itp".into(),
            trace.display().to_string(),
            "--cluster".into(),
            spec.display().to_string(),
            "--throughputs".into(),
            format!("A100={}", a.join("throughputs_A100").display()),
            "--throughputs".into(),
            t4.to_string(),
        ];
        args.extend(more.iter().map(|s| s.to_string()));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        tracetui(&refs)
    };
    let o = base(&format!("T4={}", a.join("throughputs_T4").display()), &[]);
    assert!(
        stderr(&o).contains("0 of 1595 jobs run from throughput tables"),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("at batch 128 on T4"), "{}", stderr(&o));
    let o = base(
        "T4=A100*0.32",
        &[
            "--policy",
            "fifo-fastest",
            "--jobs-out",
            out.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("1595 of 1595 jobs run from throughput tables"),
        "{}",
        stderr(&o)
    );
    let rows = jobs(&out);
    let on = |ty: &str| rows.iter().filter(|r| r["gpu_types"] == ty).count();
    assert!(on("A100") > 0 && on("T4") > 0, "both types used");
    assert_eq!(on("A100+T4") + on("T4+A100"), 0, "none across types");
    assert!(rows
        .iter()
        .filter(|r| r["state"] == "done")
        .all(|r| r["machine_names"].starts_with('n')));
}
