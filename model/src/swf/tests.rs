use super::*;
use crate::model::Zone;

/// A log in the shape the archive's definition describes: a header with
/// the machine and the calendar, then jobs with unknown (-1) fields, each
/// status, and one job run in two partial executions.
const LOG: &str = "\
; Version: 2.2
; Computer: a test machine
; UnixStartTime: 1000000000
; TimeZoneString: Europe/Stockholm
; MaxNodes: 4
; MaxProcs: 8
;
1 0 10 100 4 -1 -1 4 200 -1 1 3 1 -1 1 -1 -1 -1
2 5 -1 50 -1 -1 -1 2 -1 -1 0 3 1 -1 1 -1 -1 -1
3 7.4 0 20.6 8 -1 -1 8 60 -1 5 7 2 -1 1 -1 -1 -1
4 9 3 -1 2 -1 -1 2 60 -1 5 7 2 -1 1 -1 -1 -1
5 11 2 0 1 -1 -1 1 60 -1 5 7 2 -1 1 -1 -1 -1
6 12 -1 30 -1 -1 -1 -1 60 -1 -1 7 2 -1 1 -1 -1 -1
7 20 1 40 2 -1 -1 2 90 -1 1 8 -1 -1 1 -1 -1 -1
7 20 1 15 2 -1 -1 2 90 -1 2 8 -1 -1 1 -1 -1 -1
7 20 30 25 2 -1 -1 2 90 -1 3 8 -1 -1 1 -1 -1 -1
";

fn load(text: &str, strict: bool) -> Result<(Trace, LoadReport), InputError> {
    let opts = LoadOptions {
        strict,
        ..LoadOptions::default()
    };
    load_text(text.as_bytes(), "t.swf", &opts)
}

#[test]
fn jobs_fields_and_header_are_read_as_the_definition_says() {
    let (t, report) = load(LOG, true).unwrap();
    let ids: Vec<&str> = t.jobs.iter().map(|j| &*j.id).collect();
    assert_eq!(ids, ["1", "2", "3", "7"]);
    let j = &t.jobs[0];
    assert_eq!(j.submit, 1_000_000_000);
    assert_eq!(j.runtime, Some(100));
    assert_eq!(j.requested, Some(200));
    assert_eq!(j.demand, Demand::Gang { gpus: 4 });
    assert_eq!(j.status, JobStatus::Completed);
    assert_eq!((t.sym(j.user), t.sym(j.group)), ("3", "1"));
    let seg = t.job_segments(j);
    assert_eq!(
        (seg[0].start, seg[0].end),
        (1_000_000_010, Some(1_000_000_110).into())
    );
    // Unknown allocated processors: the requested ones; unknown wait: no record.
    let j = &t.jobs[1];
    assert_eq!(
        (j.demand.clone(), j.status),
        (Demand::Gang { gpus: 2 }, JobStatus::Failed)
    );
    assert!(t.job_segments(j).is_empty() && j.requested.is_none());
    // Decimal times rounded; a cancelled job that ran is replayed.
    let j = &t.jobs[2];
    assert_eq!(
        (j.submit, j.runtime, j.status),
        (1_000_000_007, Some(21).into(), JobStatus::Killed)
    );
    // A job with partial executions: its summary line, once; no group.
    let j = &t.jobs[3];
    assert_eq!((j.runtime, j.group), (Some(40).into(), None));
    assert_eq!(t.zone, Zone::Tz(chrono_tz::Europe::Stockholm));
    assert_eq!(t.cluster.machines.len(), 4);
    assert_eq!(t.cluster.total_gpus(), 8);
    let notes = report.notes.join("\n");
    assert!(notes.contains("4 jobs replayed"), "{notes}");
    assert!(notes.contains("2 partial-execution lines"), "{notes}");
    let left: Vec<(&str, u64)> = t.excluded.iter().map(|e| (&*e.reason, e.jobs)).collect();
    assert_eq!(
        left,
        [
            ("run time unknown (-1)", 1),
            ("processors unknown (-1) or 0", 1),
            ("cancelled before it ran (status 5, run time 0)", 1),
        ]
    );
}

#[test]
fn the_drill_down_names_each_field_and_shows_the_partial_executions() {
    let (t, _) = load(LOG, true).unwrap();
    let d = crate::detail::of_job(&t, &t.jobs[3], false);
    assert_eq!(d["line"], 14);
    assert_eq!(d["job"]["run_time"], 40);
    assert_eq!(d["job"]["group_id"], serde_json::Value::Null);
    assert_eq!(d["status"], "1: completed");
    assert_eq!(d["partial_executions"].as_array().unwrap().len(), 2);
    assert_eq!(d["partial_executions"][1]["fields"]["status"], 3);
    let counts = t.native.as_ref().unwrap().status_counts(&t).unwrap();
    assert_eq!(counts["completed"], 2);
    assert_eq!(counts["killed"], 3);
}

#[test]
fn without_a_header_the_clock_is_relative_and_the_cluster_sized() {
    let (t, report) = load("1 0 -1 10 4 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n", true).unwrap();
    assert_eq!(t.zone, Zone::Relative);
    assert!(!t.cluster.sized_by.is_empty());
    assert!(
        report.notes.iter().any(|n| n.contains("auto")),
        "{:?}",
        report.notes
    );
}

#[test]
fn max_nodes_alone_is_one_processor_a_node() {
    let (t, _) = load(
        "; MaxNodes: 16\n1 0 -1 10 4 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n",
        true,
    )
    .unwrap();
    assert_eq!(t.cluster.machines.len(), 16);
    assert!(t.cluster.machines.iter().all(|m| m.gpus == 1));
    assert_eq!(t.cluster.machines[0].name, "node00");
}

#[test]
fn bad_lines_name_the_file_line_and_field() {
    let head = "; MaxNodes: 4\n";
    let cases = [
        ("1 0 -1 10 4\n", "t.swf:2: 5 fields, expected the 18 of the Standard Workload Format"),
        (
            "1 0 -1 ten 4 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n",
            "t.swf:2: column run_time: not a number: 'ten'",
        ),
        (
            "1 0 -1 10 4 -1 -1 -1 -1 -1 9 -1 -1 -1 -1 -1 -1 -1\n",
            "t.swf:2: column status: 9 is not an SWF status (-1, 0, 1, 2, 3, 4 or 5)",
        ),
        (
            "-1 0 -1 10 4 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n",
            "t.swf:2: column job_number: unknown (-1): every job needs its number",
        ),
        (
            "1 0 -1 10 4 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n1 3 -1 10 4 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n",
            "t.swf:3: column job_number: job 1 again (first on line 2); only partial executions (status 2, 3, 4) repeat a job",
        ),
        (
            "1 0 -1 10 99999999 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n",
            "t.swf:2: column allocated_processors: 99999999 GPUs is more than the 1048576 a cluster may have",
        ),
        (
            "1 99999999999 -1 10 4 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n",
            "t.swf:2: column submit_time: 99999999999 is out of range (0 to 4102444800 s, the year 2100)",
        ),
    ];
    for (body, want) in cases {
        let e = load(&format!("{head}{body}"), true).unwrap_err();
        assert_eq!(e.to_string(), want);
    }
    let e = load(
        "; MaxProcs: 2\n; MaxNodes: 4\n1 0 -1 10 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n",
        true,
    )
    .unwrap_err();
    assert!(e.to_string().contains("MaxProcs 2 over MaxNodes 4"), "{e}");
}

#[test]
fn lenient_mode_counts_and_skips_bad_lines() {
    let text = format!("{LOG}junk line\n8 30 -1 10 1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n");
    assert!(load(&text, true).is_err());
    let (t, report) = load(&text, false).unwrap();
    assert_eq!(t.jobs.len(), 5);
    assert_eq!(report.total_skipped(), 1);
    assert!(
        report.skips[0].first[0].starts_with("t.swf:17:"),
        "{:?}",
        report.skips
    );
}

#[test]
fn nothing_to_replay_is_an_error() {
    let e = load("; MaxNodes: 4\n", true).unwrap_err();
    assert!(e.to_string().contains("no jobs to replay"), "{e}");
    let e = load("1 0 -1 -1 4 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n", true).unwrap_err();
    assert!(e.to_string().contains("every job left out"), "{e}");
}

#[test]
fn a_gzipped_log_reads_as_the_plain_one() {
    use std::io::Write;
    let dir = std::env::temp_dir().join(format!("tracetui-test-swf-gz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.swf.gz");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(LOG.as_bytes()).unwrap();
    std::fs::write(&path, gz.finish().unwrap()).unwrap();
    let (t, _) = super::load(&path, &LoadOptions::default()).unwrap();
    let (plain, _) = load(LOG, false).unwrap();
    assert_eq!(t.jobs, plain.jobs);
    std::fs::remove_dir_all(&dir).unwrap();
}
