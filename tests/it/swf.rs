//! The Standard Workload Format end to end: the fixture's counts and
//! recorded replay, bounded slowdown in every summary, and the Lublin
//! model log RLScheduler ships (read from outside the repository).

use crate::common;

use common::cli::{stderr, stdout, tracetui};
use std::path::PathBuf;

const FIXTURE: &str = "tests/fixtures/swf/log.swf";

fn json(args: &[&str]) -> serde_json::Value {
    let o = tracetui(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

#[test]
fn stats_counts_the_log_as_the_archive_does() {
    let o = tracetui(&["stats", "swf", FIXTURE]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("jobs       7 "), "{out}");
    assert!(out.contains("completed    5"), "{out}");
    assert!(out.contains("failed       1"), "{out}");
    assert!(
        out.contains("not replayed, cancelled before it ran (status 5, run time 0): 1"),
        "{out}"
    );
    assert!(out.contains("machines   4"), "{out}");
    let err = stderr(&o);
    assert!(err.contains("8 processors on 4 nodes"), "{err}");
}

#[test]
fn recorded_replays_the_log_s_own_waits_with_bounded_slowdown() {
    let r = json(&[
        "sim", "swf", FIXTURE, "--policy", "recorded", "--format", "json",
    ]);
    assert_eq!(r["jobs_done"], 6);
    assert_eq!(r["overflow_segments"].as_u64().unwrap_or(0), 0);
    // JCT = wait + run: 605/600, 895/300, 685/100, 605/30, 2055/1200, 1745/10.
    let bsld = [
        605.0 / 600.0,
        895.0 / 300.0,
        6.85,
        605.0 / 30.0,
        2055.0 / 1200.0,
        174.5,
    ];
    let mean = bsld.iter().sum::<f64>() / 6.0;
    let got = r["bounded_slowdown"]["mean"].as_f64().unwrap();
    assert!((got - mean).abs() < 1e-9, "{got} vs {mean}");
    // The 5-second job's plain slowdown is 349, bounded 174.5: p99 lies
    // 95 % of the way from the next largest (605/30) to each.
    let p99 = |top: f64| 605.0 / 30.0 + (top - 605.0 / 30.0) * 0.95;
    let got = |k: &str| r[k]["p99"].as_f64().unwrap();
    assert!(
        (got("slowdown") - p99(349.0)).abs() < 1e-9,
        "{}",
        got("slowdown")
    );
    assert!((got("bounded_slowdown") - p99(174.5)).abs() < 1e-9);
    let o = tracetui(&["sim", "swf", FIXTURE, "--policy", "recorded"]);
    let out = stdout(&o);
    assert!(out.contains("bsld"), "{out}");
    assert!(
        out.contains("bsld (bounded slowdown) = max(1, JCT / max(run time, 10 s))"),
        "{out}"
    );
}

#[test]
fn csv_and_compare_carry_bounded_slowdown() {
    let o = tracetui(&[
        "compare",
        "swf",
        FIXTURE,
        "--policies",
        "fifo,sjf",
        "--format",
        "csv",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let header = out.lines().find(|l| l.starts_with("policy")).unwrap();
    for c in [
        "bounded_slowdown_mean",
        "bounded_slowdown_p50",
        "bounded_slowdown_p95",
        "bounded_slowdown_p99",
    ] {
        assert!(header.split(',').any(|h| h == c), "{c} in {header}");
    }
    let o = tracetui(&["compare", "swf", FIXTURE, "--policies", "fifo,sjf"]);
    let table = stdout(&o);
    assert!(table.lines().next().unwrap().contains(" bsld "), "{table}");
}

#[test]
fn the_drill_down_shows_the_line_as_written() {
    let d = json(&["job", "swf", FIXTURE, "7", "--format", "json"]);
    assert_eq!(
        (d["line"].as_u64(), d["job"]["wait_time"].as_u64()),
        (Some(14), Some(1740))
    );
    assert_eq!(
        d["job"]["partition_number"],
        serde_json::Value::Null,
        "-1 is unknown"
    );
    assert_eq!(d["status"], "1: completed");
    // UnixStartTime 1600000000 is 2020-09-13 12:26:40 UTC; submitted 60 s later.
    assert_eq!(d["submitted"], "2020-09-13 12:27:40 UTC");
    assert_eq!(d["started"], "2020-09-13 12:56:40 UTC");
    let o = tracetui(&["job", "swf", FIXTURE, "7"]);
    let out = stdout(&o);
    assert!(
        out.lines()
            .any(|l| l.starts_with("status") && l.ends_with(" 1: completed")),
        "{out}"
    );
}

#[test]
fn a_bad_line_is_refused_with_its_place() {
    let d = common::scratch_dir("swf-bad");
    let p = d.join("bad.swf");
    let mut text = std::fs::read_to_string(FIXTURE).unwrap();
    text.push_str("8 70 -1 10 2 -1 -1 -1 -1 -1 1 -1\n");
    std::fs::write(&p, text).unwrap();
    let o = tracetui(&["stats", "swf", p.to_str().unwrap(), "--strict"]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("bad.swf:15: 12 fields, expected the 18 of the Standard Workload Format"),
        "{err}"
    );
    let o = tracetui(&["stats", "swf", p.to_str().unwrap()]);
    assert!(
        o.status.success(),
        "lenient: skipped and counted: {}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("skipped 1 bad row"), "{}", stderr(&o));
}

/// `lublin_256.swf` from DIR-LAB/deep-batch-scheduler (RLScheduler's
/// data): `$TRACETUI_SWF_DIR/lublin_256.swf`, else the fetched snapshot
/// of that repository; `None` with the reason printed where neither is.
fn lublin_256() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("TRACETUI_SWF_DIR") {
        let p = PathBuf::from(d).join("lublin_256.swf");
        assert!(
            p.is_file(),
            "TRACETUI_SWF_DIR has no lublin_256.swf: {}",
            p.display()
        );
        return Some(p);
    }
    let git = PathBuf::from("/work/.mirror/DIR-LAB+deep-batch-scheduler/repo");
    if git.is_dir() {
        let o = std::process::Command::new("git")
            .arg("--git-dir")
            .arg(&git)
            .args(["show", "HEAD:data/lublin_256.swf"])
            .output()
            .unwrap();
        if o.status.success() {
            let p = common::scratch_dir("swf-lublin").join("lublin_256.swf");
            std::fs::write(&p, o.stdout).unwrap();
            return Some(p);
        }
    }
    eprintln!(
        "skipped: lublin_256.swf not found (set TRACETUI_SWF_DIR to a directory holding it, from DIR-LAB/deep-batch-scheduler's data/)"
    );
    None
}

#[test]
fn lublin_256_reads_as_the_archive_counts_it_and_backfilling_orders_first() {
    let Some(p) = lublin_256() else { return };
    let p = p.to_str().unwrap();
    let o = tracetui(&["stats", "swf", p]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    // The header's MaxJobs: 10000, MaxNodes: 256; every job completed.
    assert!(out.contains("jobs       10000 "), "{out}");
    assert!(out.contains("completed    10000"), "{out}");
    assert!(out.contains("machines   256"), "{out}");
    let r = json(&[
        "compare",
        "swf",
        p,
        "--policies",
        "fifo,fifo-backfill",
        "--format",
        "json",
    ]);
    let runs = r.as_array().unwrap_or_else(|| panic!("{r}"));
    let bsld = |i: usize| runs[i]["bounded_slowdown"]["mean"].as_f64().unwrap();
    assert_eq!(runs[0]["jobs_done"], 10000);
    assert!(
        bsld(1) < bsld(0),
        "EASY-style backfilling beats FCFS on bounded slowdown: {} vs {}",
        bsld(1),
        bsld(0)
    );
}
