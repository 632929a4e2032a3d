//! AcmeTrace: the fixture (tests/fixtures/acme/README.md) with hand-computed
//! expectations, bad input, and the generator against the published rows.

use crate::common;

use std::path::Path;
use std::sync::Arc;
use tracetui::sim::{Engine, Placement, Policy};
use tracetui::trace::{load_acme, LoadOptions, Zone, SEREN};

const FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/acme/trace_seren.csv"
);

#[test]
fn loads_seren_with_the_peak_demand_as_the_cluster() {
    let (t, r) = load_acme(Path::new(FILE), &LoadOptions::default()).unwrap();
    let ids: Vec<&str> = t.jobs.iter().map(|j| j.id.as_str()).collect();
    assert_eq!(
        ids,
        vec!["a1", "a2", "a5", "a6"],
        "a3 is a CPU job, a4 never started"
    );
    assert_eq!(t.zone, Zone::Fixed(8 * 3600));
    // a1 (8) and a2 (16) overlap until 00:31, when a2 ends as a5 (4) starts.
    assert_eq!(
        t.cluster.total_gpus(),
        24,
        "peak 24 GPUs, in whole 8-GPU nodes"
    );
    // The replay's header says how the cluster was sized, before the path.
    assert_eq!(
        tracetui::cli::tui::label_for(
            tracetui::trace::Format::find("acme").unwrap(),
            Path::new("x.csv"),
            &t
        ),
        "acme · 24 GPUs (peak recorded demand) · x.csv"
    );
    let (given, _) = load_acme(
        Path::new(FILE),
        &LoadOptions {
            gpus: Some(32),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(
        tracetui::cli::tui::label_for(
            tracetui::trace::Format::find("acme").unwrap(),
            Path::new("x.csv"),
            &given
        ),
        "acme · 32 GPUs (--gpus) · x.csv"
    );
    let notes = r.notes.join("\n");
    assert!(
        notes.contains("peak concurrent GPU demand of the recorded start and end times, 24 GPUs"),
        "{notes}"
    );
    assert!(
        notes.contains("AcmeTrace seren, 6 jobs (5 with GPUs, 4 replayed)"),
        "{notes}"
    );
    assert!(notes.contains("1 CPU job (gpu_num 0) left out"), "{notes}");
    assert!(
        notes.contains("1 job has a duration that disagrees"),
        "{notes}"
    );
    assert!(notes.contains("1 GPU job never started"), "{notes}");
    let a5 = &t.jobs[2];
    assert_eq!(a5.runtime, Some(600), "times win over the duration column");
    assert_eq!(t.sym(t.jobs[0].model), "Pretrain");
    let (t, _) = load_acme(
        Path::new(FILE),
        &LoadOptions {
            gpus: Some(64),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(t.cluster.total_gpus(), 64);
}

#[test]
fn recorded_waits_equal_the_queue_column() {
    let (t, _) = load_acme(Path::new(FILE), &LoadOptions::default()).unwrap();
    let t = Arc::new(t);
    let mut e = Engine::new(t.clone(), Policy::Recorded, Placement::Consolidate);
    e.run_to_end();
    // queue column: a1 10, a2 0, a5 60, a6 5.
    let waits: Vec<Option<i64>> = (0..t.jobs.len() as u32)
        .map(|j| {
            let s = e.job_state(j);
            matches!(
                s.phase,
                tracetui::sim::Phase::Done | tracetui::sim::Phase::Running
            )
            .then(|| s.start - t.jobs[j as usize].submit)
        })
        .collect();
    assert_eq!(waits, vec![Some(10), Some(0), Some(60), Some(5)]);
    assert_eq!(
        e.tally().overflow_segments,
        0,
        "pack placement always fits the peak-sized cluster"
    );
    let r = e.report();
    assert_eq!(r.jobs_done, 4);
}

#[test]
fn drill_down_gives_the_released_columns() {
    let (t, _) = load_acme(Path::new(FILE), &LoadOptions::default()).unwrap();
    let (v, _) = tracetui::trace::detail_by_id(&t, "a5").unwrap().unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    assert_eq!(keys, vec!["job", "wait_s", "runtime_s"]);
    let cols: Vec<&str> = v["job"]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    assert_eq!(cols, SEREN.to_vec());
    assert_eq!(v["job"]["duration"], 999);
    assert_eq!(v["job"]["start_time"], "2023-03-01 00:31:00+08:00");
    assert_eq!(
        (v["wait_s"].as_i64(), v["runtime_s"].as_i64()),
        (Some(60), Some(600))
    );
    let (cpu, _) = tracetui::trace::detail_by_id(&t, "a3").unwrap().unwrap();
    assert_eq!(cpu["job"]["gpu_num"], 0, "CPU jobs are drilled into too");
    let (a4, _) = tracetui::trace::detail_by_id(&t, "a4").unwrap().unwrap();
    assert_eq!(a4["job"]["start_time"], serde_json::Value::Null);
}

fn with_row(row: &str) -> std::path::PathBuf {
    let mut body = std::fs::read_to_string(FILE).unwrap();
    body.push_str(row);
    common::write_file("trace_seren.csv", body.as_bytes())
}

#[test]
fn bad_timestamps_and_offsets() {
    for (row, msg) in [
        ("b1,u,1,1,1,SFT,COMPLETED,2023-03-01 00:00:00,2023-03-01 00:00:00+08:00,2023-03-01 00:01:00+08:00,60,0,60\n", "column submit_time: '2023-03-01 00:00:00' is not a time"),
        ("b1,u,1,1,1,SFT,COMPLETED,2023-03-01 00:00:00+08:00,2023-03-01 00:00:00+25:00,2023-03-01 00:01:00+08:00,60,0,60\n", "column start_time"),
        ("b1,u,1,x,1,SFT,COMPLETED,2023-03-01 00:00:00+08:00,,,,,\n", "column gpu_num: not a whole number: 'x'"),
        ("b1,u,1,1,1,SFT,COMPLETED,2023-03-01 00:00:00+08:00,2023-03-01 00:05:00+08:00,2023-03-01 00:01:00+08:00,60,0,60\n", "column end_time: before start_time"),
        ("a1,u,1,1,1,SFT,COMPLETED,2023-03-01 00:00:00+08:00,,,,,\n", "column job_id: duplicate job 'a1' (first on line 2)"),
    ] {
        let p = with_row(row);
        let e = load_acme(&p, &LoadOptions { strict: true, ..Default::default() }).unwrap_err().to_string();
        assert!(e.contains("trace_seren.csv:8: ") && e.contains(msg), "{e}");
        let (t, r) = load_acme(&p, &LoadOptions::default()).unwrap();
        assert_eq!(t.jobs.len(), 4);
        assert_eq!(r.total_skipped(), 1);
    }
    let e = load_acme(
        &common::write_file("x.csv", b"job_id,when\n1,2\n"),
        &LoadOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("x.csv:1: unknown header 'job_id,when'"), "{e}");
}

/// The published row's values (from the real traces' cluster_summary.csv
/// when available, else the same numbers as the generator's profile holds).
fn published(name: &str) -> [f64; 7] {
    let p = if name == "Seren" {
        &tracetui::gen::acme::SEREN_PROFILE
    } else {
        &tracetui::gen::acme::KALOS_PROFILE
    };
    let mean_gpus = if name == "Seren" { 5.68 } else { 26.77 };
    let known = [
        p.gpu_share,
        p.runtime.1,
        p.runtime.0,
        p.queue.1,
        p.queue.0,
        mean_gpus,
        1.0,
    ];
    let Some(root) = common::real_traces() else {
        return known;
    };
    let text = std::fs::read_to_string(root.join("published/cluster_summary.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let row: Vec<&str> = lines
        .find(|l| l.starts_with(&format!("{name},")))
        .unwrap()
        .split(',')
        .collect();
    let get = |k: &str| {
        row[header.iter().position(|h| *h == k).unwrap()]
            .parse::<f64>()
            .unwrap()
    };
    [
        get("gpu_job_num") / get("job_num"),
        get("avg_run_time_gpu"),
        get("med_run_time_gpu"),
        get("avg_que_time_gpu"),
        get("med_que_time_gpu"),
        get("avg_gpu_num"),
        get("med_gpu_num"),
    ]
}

#[test]
fn generated_seren_and_kalos_land_within_5_percent_of_the_published_rows() {
    use tracetui::gen::acme::AcmeCluster;
    for (cluster, name) in [(AcmeCluster::Seren, "Seren"), (AcmeCluster::Kalos, "Kalos")] {
        let mut v = Vec::new();
        tracetui::gen::acme::write(
            &tracetui::gen::acme::GenOptions {
                jobs: 100_000,
                seed: 1,
                cluster,
                gpus: None,
                days: None,
            },
            &mut v,
        )
        .unwrap();
        let path = common::write_file(&format!("trace_{}.csv", name.to_lowercase()), &v);
        let (t, _) = load_acme(&path, &LoadOptions::default()).unwrap();
        let s = tracetui::stats::stats(&t);
        let want = published(name);
        let got = [
            s.jobs.gpu as f64 / s.jobs.all as f64,
            s.runtime_s.mean.unwrap(),
            s.runtime_s.median.unwrap(),
            s.queue_s.mean.unwrap(),
            s.queue_s.median.unwrap(),
            s.gpus_per_job.mean.unwrap(),
            s.gpus_per_job.median.unwrap(),
        ];
        let labels = [
            "GPU job share",
            "run time mean",
            "run time median",
            "queueing mean",
            "queueing median",
            "GPUs mean",
            "GPUs median",
        ];
        for ((g, w), l) in got.iter().zip(want).zip(labels) {
            assert!(
                (g - w).abs() / w <= 0.05,
                "{name} {l}: {g} vs published {w}"
            );
        }
    }
}
