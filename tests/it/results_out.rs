//! `sim --jobs-out` and `--timeline-out`: results as data. The summary is
//! derivable from the per-job rows (mean JCT and wait equal the means over
//! the file), writing them changes no figure, and the timeline adds up.

use crate::common;

use common::cli::{stderr, stdout, tracetui, PAI, SAMPLE};
use common::scratch_dir;

fn json(o: &std::process::Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", stderr(o));
    // The figures: the meta names the outputs, which differ.
    common::cli::without_meta(serde_json::from_str(&stdout(o)).unwrap())
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// Rows of a CSV file as (header → value) maps.
fn csv_rows(path: &std::path::Path) -> Vec<std::collections::HashMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let head: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            head.iter()
                .cloned()
                .zip(rec.iter().map(String::from))
                .collect()
        })
        .collect()
}

#[test]
fn the_summary_is_the_mean_over_the_per_job_rows() {
    let dir = scratch_dir("jobs");
    let jobs = dir.join("jobs.csv");
    for policy in ["fifo", "las"] {
        let plain = json(&tracetui(&[
            "sim", "itp", SAMPLE, "--policy", policy, "--format", "json",
        ]));
        let with = tracetui(&[
            "sim",
            "itp",
            SAMPLE,
            "--policy",
            policy,
            "--format",
            "json",
            "--jobs-out",
            jobs.to_str().unwrap(),
        ]);
        assert_eq!(
            json(&with),
            plain,
            "{policy}: writing rows changed the figures"
        );
        let rows = csv_rows(&jobs);
        assert_eq!(rows.len() as u64, plain["jobs"].as_u64().unwrap());
        let done: Vec<_> = rows.iter().filter(|r| r["state"] == "done").collect();
        assert_eq!(done.len() as u64, plain["jobs_done"].as_u64().unwrap());
        let jct: Vec<f64> = done.iter().map(|r| r["jct_s"].parse().unwrap()).collect();
        let wait: Vec<f64> = done.iter().map(|r| r["wait_s"].parse().unwrap()).collect();
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
        assert!(
            close(mean(&jct), plain["jct_s"]["mean"].as_f64().unwrap()),
            "{policy} JCT"
        );
        assert!(
            close(mean(&wait), plain["wait_s"]["mean"].as_f64().unwrap()),
            "{policy} wait"
        );
        let preempted: u64 = rows
            .iter()
            .map(|r| r["preemptions"].parse::<u64>().unwrap())
            .sum();
        assert_eq!(
            preempted,
            plain["preemptions"].as_u64().unwrap(),
            "{policy}"
        );
        for r in &done {
            let (s, e, sub): (i64, i64, i64) = (
                r["start_s"].parse().unwrap(),
                r["end_s"].parse().unwrap(),
                r["submit_s"].parse().unwrap(),
            );
            assert_eq!(r["jct_s"].parse::<i64>().unwrap(), e - sub);
            assert_eq!(r["wait_s"].parse::<i64>().unwrap(), s - sub);
            assert!(r["machines"].parse::<u32>().unwrap() >= 1);
        }
    }
}

#[test]
fn json_lines_rows_and_a_timeline_that_adds_up() {
    let dir = scratch_dir("timeline");
    let (jobs, tl) = (dir.join("jobs.jsonl"), dir.join("timeline.csv"));
    let o = tracetui(&[
        "sim",
        "pai",
        PAI,
        "--policy",
        "recorded",
        "--format",
        "json",
        "--jobs-out",
        jobs.to_str().unwrap(),
        "--timeline-out",
        tl.to_str().unwrap(),
        "--timeline-tick",
        "10m",
    ]);
    let summary = json(&o);
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&jobs)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len() as u64, summary["jobs"].as_u64().unwrap());
    assert!(lines
        .iter()
        .all(|l| l["id"].is_string() && l["gpus"].is_number()));
    let rows = csv_rows(&tl);
    assert!(rows.len() > 10);
    let times: Vec<i64> = rows.iter().map(|r| r["time_s"].parse().unwrap()).collect();
    for w in times.windows(2).take(rows.len() - 2) {
        assert_eq!(w[1] - w[0], 600, "one row every 10 minutes");
    }
    let last = rows.last().unwrap();
    assert_eq!(
        last["done"].parse::<u64>().unwrap(),
        summary["jobs_done"].as_u64().unwrap()
    );
    for r in &rows {
        let u: f64 = r["util"].parse().unwrap();
        assert!(
            (0.0..=1.0 + 1e-9).contains(&u) || summary["overflow_segments"].as_u64().unwrap() > 0
        );
        assert!(r["local"].contains(':'), "local time: {}", r["local"]);
    }
}

#[test]
fn a_schedule_with_outputs_gives_the_same_figures() {
    let dir = scratch_dir("sched");
    let tl = dir.join("t.csv");
    let args = [
        "sim",
        "itp",
        SAMPLE,
        "--format",
        "json",
        "--policy-schedule",
        "0:fifo,2d:sjf,5d:las",
    ];
    let plain = json(&tracetui(&args));
    let mut with: Vec<&str> = args.to_vec();
    with.extend([
        "--timeline-out",
        tl.to_str().unwrap(),
        "--timeline-tick",
        "1h",
    ]);
    assert_eq!(json(&tracetui(&with)), plain);
}

#[test]
fn a_bad_tick_is_a_usage_error() {
    for tick in ["0", "1y", "-5m", "400d", "m"] {
        let o = tracetui(&[
            "sim",
            "itp",
            SAMPLE,
            "--timeline-out",
            "/tmp/x.csv",
            "--timeline-tick",
            tick,
        ]);
        assert_eq!(o.status.code(), Some(2), "{tick}: {}", stderr(&o));
    }
}
