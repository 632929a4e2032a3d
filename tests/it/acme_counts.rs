//! AcmeTrace counts add up the way the release's published summary counts
//! them (`job_num = cpu_job_num + gpu_job_num`, cancelled-while-queued GPU
//! jobs included), and the rows that disagree with themselves say which
//! figure each number uses.

use crate::common;

use common::cli::{stderr, stdout, tracetui};

const FILE: &str = "tests/fixtures/acme/trace_seren.csv";

/// (rows, rows with gpu_num > 0) read straight from the file.
fn counted_by_hand() -> (u64, u64) {
    let text = std::fs::read_to_string(FILE).unwrap();
    let rows: Vec<&str> = text.lines().skip(1).filter(|l| !l.is_empty()).collect();
    let gpu = rows
        .iter()
        .filter(|r| r.split(',').nth(3).unwrap().parse::<u64>().unwrap() > 0)
        .count();
    (rows.len() as u64, gpu as u64)
}

fn stats(extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["stats", "acme", FILE, "--format", "json"];
    args.extend_from_slice(extra);
    let o = tracetui(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

#[test]
fn every_count_adds_up_like_the_published_summary() {
    let (rows, gpu_rows) = counted_by_hand();
    for extra in [&[][..], &["--include-cpu-jobs"][..]] {
        let v = stats(extra);
        let jobs = &v["jobs"];
        assert_eq!(jobs["all"], rows, "{extra:?}: job_num");
        assert_eq!(
            jobs["gpu"], gpu_rows,
            "{extra:?}: gpu_job_num, the never-started one included"
        );
        let by_status: u64 = jobs["by_status"]
            .as_object()
            .unwrap()
            .values()
            .map(|n| n.as_u64().unwrap())
            .sum();
        assert_eq!(by_status, rows, "{extra:?}: the statuses sum to the jobs");
    }
    let v = stats(&[]);
    assert_eq!(
        v["jobs"]["left_out"]["GPU jobs that never started (cancelled while queued)"],
        1
    );
    assert_eq!(v["jobs"]["left_out"]["CPU jobs (gpu_num 0)"], 1);
    // Replayed + left out = all.
    let (t, _) = tracetui::trace::load_acme(FILE.as_ref(), &Default::default()).unwrap();
    let left: u64 = t.excluded.iter().map(|e| e.jobs).sum();
    assert_eq!(t.jobs.len() as u64 + left, rows);
}

#[test]
fn the_text_says_what_was_left_out_and_which_times_each_figure_uses() {
    let o = tracetui(&["stats", "acme", FILE]);
    let text = stdout(&o);
    assert!(text.contains("jobs       6 (5 GPU jobs)"), "{text}");
    assert!(
        text.contains("  not replayed, GPU jobs that never started (cancelled while queued): 1"),
        "{text}"
    );
    let err = stderr(&o);
    assert!(
        err.contains("1 job has a duration that disagrees with end_time − start_time: the replay, stats and the per-job files use end_time − start_time"),
        "{err}"
    );
    // a5's duration column says 999 s; its times say 600 s, which is what stats uses.
    let v = stats(&[]);
    let runtimes = [3600.0, 1800.0, 600.0, 3600.0];
    let mean = runtimes.iter().sum::<f64>() / runtimes.len() as f64;
    assert_eq!(v["runtime_s"]["mean"].as_f64().unwrap(), mean);
    // The drill-down shows both.
    let o = tracetui(&["job", "acme", FILE, "a5", "--format", "json"]);
    let d: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        (d["job"]["duration"].as_i64(), d["runtime_s"].as_i64()),
        (Some(999), Some(600))
    );
}
