//! Philly: the hand-written fixture (see tests/fixtures/philly/README.md)
//! with hand-computed expectations, bad input, the generator, and the
//! released machine list.

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use tracetui::sim::{Engine, Phase, Placement, Policy};
use tracetui::trace::{
    load_philly, parse_local, parse_zoned, philly_job_detail, LoadOptions, PhillyTables, Trace,
};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/philly");

fn load() -> (Arc<Trace>, tracetui::trace::LoadReport) {
    let (t, r) = load_philly(Path::new(DIR), &LoadOptions::default()).unwrap();
    (Arc::new(t), r)
}

fn job(t: &Trace, id: &str) -> u32 {
    t.jobs.iter().position(|j| j.id == id).unwrap() as u32
}

fn at(s: &str) -> i64 {
    parse_local(s).unwrap()
}

#[test]
fn loads_jobs_attempts_and_the_machine_list() {
    let (t, r) = load();
    let ids: Vec<&str> = t.jobs.iter().map(|j| j.id.as_str()).collect();
    assert_eq!(
        ids,
        vec!["p1", "p2", "p4", "p5", "p6", "p7"],
        "p3 has no attempt with GPUs"
    );
    assert_eq!(
        t.excluded,
        tracetui::trace::Excluded::new("jobs with no GPU attempt", 1, false)
    );
    let notes = r.notes.join("\n");
    assert!(notes.contains("1 jobs have no attempts"), "{notes}");
    assert!(
        notes.contains("1 attempts lack a start or end time"),
        "{notes}"
    );
    assert!(notes.contains("1 jobs were still running"), "{notes}");
    assert_eq!(t.cluster.total_gpus(), 18);
    assert_eq!(t.cluster.gpu_types, vec!["24GB GPU", "12GB GPU"]);
    let p2 = &t.jobs[job(&t, "p2") as usize];
    assert_eq!(
        (p2.runtime.get(), p2.demand.total_milli()),
        (Some(2700), 1000)
    );
    assert_eq!(t.sym(p2.group), "vc1");
    let p6 = &t.jobs[job(&t, "p6") as usize];
    assert_eq!(p6.demand.total_milli(), 13_000);
    assert_eq!(t.jobs[job(&t, "p5") as usize].runtime, None);
    assert_eq!(
        t.jobs[job(&t, "p7") as usize].runtime,
        None,
        "its first attempt has no start"
    );
}

#[test]
fn times_cross_the_end_of_daylight_time_in_real_seconds() {
    let (t, _) = load();
    let p4 = &t.jobs[job(&t, "p4") as usize];
    assert_eq!(
        p4.runtime,
        Some(2400),
        "01:30 PDT to 01:10 PST is 40 minutes"
    );
    let Some(n) = t.native_as::<PhillyTables>() else {
        panic!()
    };
    let d = philly_job_detail(n, n.by_id["p4"]);
    assert_eq!(d["attempts"][0]["start_time"], "2017-11-05 01:30:00");
    assert_eq!(d["attempts"][0]["end_time"], "2017-11-05 01:10:00");
    assert_eq!(d["runtime_s"], 2400);
    assert_eq!(d["wait_s"], 2400, "00:50 PDT to 01:30 PDT");
}

#[test]
fn drill_down_has_the_documented_shape() {
    let (t, _) = load();
    let Some(n) = t.native_as::<PhillyTables>() else {
        panic!()
    };
    let d = philly_job_detail(n, n.by_id["p2"]);
    let keys: Vec<&str> = d.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    assert_eq!(keys, vec!["job", "attempts", "wait_s", "runtime_s"]);
    assert_eq!(d["job"]["jobid"], "p2");
    assert_eq!(d["job"]["submitted_time"], "2017-10-07 01:50:00");
    assert_eq!(d["job"]["status"], "Failed");
    let a: Vec<&str> = d["attempts"][0]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    assert_eq!(
        a,
        vec![
            "start_time",
            "end_time",
            "start_time_local",
            "end_time_local",
            "detail"
        ]
    );
    assert_eq!(d["attempts"][1]["detail"][0]["ip"], "m2");
    assert_eq!(
        d["attempts"][1]["detail"][0]["gpus"],
        serde_json::json!(["gpu0"])
    );
    assert_eq!(d["attempts"][0]["start_time_local"], "Sat 02:00:00 day 1");
    assert_eq!(
        (d["wait_s"].as_i64(), d["runtime_s"].as_i64()),
        (Some(600), Some(2700))
    );
    // Jobs outside the replay are found too.
    let (p3, _) = tracetui::trace::detail_by_id(&t, "p3").unwrap().unwrap();
    assert_eq!(p3["attempts"], serde_json::json!([]));
    assert_eq!(p3["wait_s"], serde_json::Value::Null);
}

#[test]
fn recorded_replay_uses_the_exact_gpu_ids_and_retries() {
    let (t, _) = load();
    let mut e = Engine::new(t.clone(), Policy::Recorded, Placement::Consolidate);
    e.advance_to(at("2017-10-07 01:12:30"));
    let c = e.cluster();
    let p1 = job(&t, "p1");
    let m1 = c.first_gpu(0);
    assert_eq!(
        (c.holders(m1), c.holders(m1 + 1)),
        (&[(p1, 1000)][..], &[(p1, 1000)][..])
    );
    assert!(c.holders(m1 + 2).is_empty());
    e.advance_to(at("2017-10-07 02:05:00"));
    let m2 = e.cluster().first_gpu(1);
    assert_eq!(
        e.cluster().holders(m2 + 1),
        &[(job(&t, "p2"), 1000)],
        "first attempt on GPU 1"
    );
    e.advance_to(at("2017-10-07 02:20:00"));
    assert_eq!(
        e.cluster().holders(m2),
        &[(job(&t, "p2"), 1000)],
        "the retry on GPU 0"
    );
    assert!(e.cluster().holders(m2 + 1).is_empty());
    e.advance_to(at("2017-10-07 03:10:00"));
    let p5 = job(&t, "p5");
    let held: Vec<u16> = e.running()[&p5].iter().map(|g| g.gpu).collect();
    assert_eq!(held, vec![2, 3, 4]);
    e.run_to_end();
    assert_eq!(
        e.job_state(p5).phase,
        Phase::Running,
        "no end time: still running"
    );
    assert_eq!(e.job_state(job(&t, "p2")).start, at("2017-10-07 02:00:00"));
    assert_eq!(e.job_state(job(&t, "p2")).end, at("2017-10-07 02:45:00"));
    let r = e.report();
    // p1, p2, p4, p6 and p7 (whose one replayable attempt ends); p5 runs on.
    assert_eq!(r.jobs_done, 5);
    assert_eq!(e.tally().overflow_segments, 0);
}

#[test]
fn utilisation_files_are_indexed_by_minute() {
    let (t, _) = load();
    let Some(n) = t.native_as::<PhillyTables>() else {
        panic!()
    };
    let gpu = n.gpu_util.as_ref().unwrap();
    let idx = gpu.index().as_ref().unwrap();
    assert_eq!(idx.runs.len(), 4, "four distinct minutes");
    assert_eq!(idx.skips.count, 1, "the EST row");
    assert!(
        idx.skips.first[0]
            .contains("cluster_gpu_util:6: column time: time zone 'EST' is not PDT or PST"),
        "{:?}",
        idx.skips.first
    );
    let (when, rows) = gpu.at(at("2017-10-07 01:12:30"), 120).unwrap();
    assert_eq!(when, at("2017-10-07 01:12:00"));
    assert_eq!(rows[&0][..3], [Some(95.5), Some(80.0), Some(0.0)]);
    assert_eq!(rows[&1][..2], [Some(0.0), None], "NA");
    // The PST minute is the second 01:05, an hour after 01:05 PDT.
    let (when, rows) = gpu
        .at(parse_zoned("2017-11-05 01:05:30 PST").unwrap(), 120)
        .unwrap();
    assert_eq!(rows[&2][0], Some(50.0));
    assert_eq!(
        when - at("2017-11-05 01:30:00"),
        35 * 60,
        "01:30 PDT to 01:05 PST"
    );
    assert!(
        gpu.at(at("2017-10-07 00:00:00"), 120).is_none(),
        "before the first minute"
    );
    let cpu = n.cpu_util.as_ref().unwrap();
    let (_, rows) = cpu.at(at("2017-10-07 01:12:10"), 120).unwrap();
    assert_eq!((rows[&0][0], rows[&1][0]), (Some(45.5), None));
    let mem = n.mem_util.as_ref().unwrap();
    assert_eq!(
        mem.at(at("2017-10-07 01:12:10"), 120).unwrap().1[&0],
        vec![Some(256.0), Some(100.0)]
    );
}

fn with_log(log: &str) -> PathBuf {
    let d = common::scratch_dir("philly");
    std::fs::copy(
        Path::new(DIR).join("cluster_machine_list"),
        d.join("cluster_machine_list"),
    )
    .unwrap();
    std::fs::write(d.join("cluster_job_log"), log).unwrap();
    d
}

const OK: &str = r#"{"status": "Pass", "vc": "v", "jobid": "ok", "submitted_time": "2017-10-07 01:00:00", "user": "u", "attempts": [{"start_time": "2017-10-07 01:00:10", "end_time": "2017-10-07 01:01:00", "detail": [{"ip": "m1", "gpus": ["gpu0"]}]}]}"#;

fn lenient(log: &str) -> (usize, Vec<String>) {
    let (t, r) = load_philly(&with_log(log), &LoadOptions::default()).unwrap();
    (t.jobs.len(), r.skip_lines())
}

fn strict(log: &str) -> String {
    load_philly(
        &with_log(log),
        &LoadOptions {
            strict: true,
            ..LoadOptions::default()
        },
    )
    .unwrap_err()
    .to_string()
}

#[test]
fn malformed_json_names_the_byte() {
    let e = strict(&format!("[{OK},\n{{\"status\": \"Pass\", \"vc\": }}]"));
    assert!(e.contains("cluster_job_log: byte "), "{e}");
    assert!(e.contains("malformed JSON"), "{e}");
    let e = load_philly(&with_log("[{\"status\": \"Pass\""), &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("malformed JSON"), "lenient too: {e}");
}

#[test]
fn wrong_types_unknown_machines_and_gpu_ids_are_bad_rows() {
    let bad = [
        (
            r#"{"status": "Pass", "vc": "v", "jobid": "x", "submitted_time": "2017-10-07 01:00:00", "user": "u", "attempts": [{"start_time": "2017-10-07 01:00:10", "end_time": "None", "detail": [{"ip": "m1", "gpus": 5}]}]}"#,
            "not a Philly job",
        ),
        (
            r#"{"status": "Pass", "vc": "v", "jobid": "x", "submitted_time": "2017-10-07 01:00:00", "user": "u", "attempts": [{"start_time": "2017-10-07 01:00:10", "end_time": "None", "detail": [{"ip": "m9", "gpus": ["gpu0"]}]}]}"#,
            "machine 'm9' is not in cluster_machine_list",
        ),
        (
            r#"{"status": "Pass", "vc": "v", "jobid": "x", "submitted_time": "2017-10-07 01:00:00", "user": "u", "attempts": [{"start_time": "2017-10-07 01:00:10", "end_time": "None", "detail": [{"ip": "m2", "gpus": ["gpu64"]}]}]}"#,
            "gpu64 on m2 is past the 64 GPUs a machine may have",
        ),
        (
            r#"{"status": "Pass", "vc": "v", "jobid": "x", "submitted_time": "yesterday", "user": "u", "attempts": []}"#,
            "submitted_time: 'yesterday' is not a time",
        ),
        (
            r#"{"status": "Pass", "vc": "v", "jobid": "ok", "submitted_time": "2017-10-07 01:00:00", "user": "u", "attempts": []}"#,
            "jobid: duplicate 'ok'",
        ),
    ];
    for (row, msg) in bad {
        let log = format!("[{OK},\n{row}]");
        let e = strict(&log);
        assert!(e.contains(msg), "{e}");
        assert!(e.contains("cluster_job_log: byte "), "{e}");
        let (n, lines) = lenient(&log);
        assert_eq!(n, 1, "{msg}");
        assert!(lines[0].contains("skipped 1 bad row"), "{lines:?}");
    }
}

#[test]
fn machine_list_problems() {
    let d = common::scratch_dir("philly-ml");
    std::fs::write(d.join("cluster_job_log"), format!("[{OK}]")).unwrap();
    std::fs::write(d.join("cluster_machine_list"), "id,gpus\nm1,8\n").unwrap();
    let e = load_philly(&d, &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("cluster_machine_list:1: unknown header"), "{e}");
    std::fs::write(
        d.join("cluster_machine_list"),
        "machineId, number of GPUs, single GPU mem\nm1,eight, 24GB\nm1,8, 24GB\n",
    )
    .unwrap();
    let e = load_philly(
        &d,
        &LoadOptions {
            strict: true,
            ..Default::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.ends_with("cluster_machine_list:2: column number of GPUs: not a whole number: 'eight'"),
        "{e}"
    );
    std::fs::remove_file(d.join("cluster_machine_list")).unwrap();
    assert!(load_philly(&d, &LoadOptions::default())
        .unwrap_err()
        .to_string()
        .contains("missing cluster_machine_list"));
}

#[test]
#[cfg_attr(
    not(real_traces),
    ignore = "needs the released traces: TRACETUI_REAL_TRACES=../shared/traces"
)]
fn the_released_machine_list_is_the_cluster() {
    let Some(root) = common::real_traces() else {
        return;
    };
    let d = common::scratch_dir("philly-real");
    tracetui::gen::philly::write(
        &tracetui::gen::philly::GenOptions {
            jobs: 2000,
            seed: 4,
            util_minutes: 2,
            tar_gz: false,
        },
        &d,
    )
    .unwrap();
    std::fs::copy(
        root.join("philly/cluster_machine_list"),
        d.join("cluster_machine_list"),
    )
    .unwrap();
    // The released list names machines m0…m9xx; keep the generated jobs on names it has.
    // The generated jobs use 8 GPUs on machines the released list gives 2,
    // as the released job log does: the list is corrected, no job is lost.
    let (t, r) = load_philly(&d, &LoadOptions::default()).unwrap();
    assert_eq!(t.cluster.machines.len(), 552);
    assert_eq!(r.total_skipped(), 0, "{:?}", r.skip_lines());
    let listed = std::fs::read_to_string(root.join("philly/cluster_machine_list")).unwrap();
    let mut raised = 0;
    for (line, m) in listed.lines().skip(1).zip(&t.cluster.machines) {
        let gpus: u32 = line.split(',').nth(1).unwrap().trim().parse().unwrap();
        assert!(
            m.gpus >= gpus && m.gpus <= 8,
            "{} {gpus} → {}",
            m.name,
            m.gpus
        );
        raised += (m.gpus > gpus) as usize;
    }
    assert!(raised > 0);
    let said = format!(
        "cluster_machine_list corrected from the job log and cluster_gpu_util: {raised} machines ("
    );
    assert!(
        r.notes.iter().any(|n| n.starts_with(&said)),
        "{:?}",
        r.notes
    );
    let rep = tracetui::sim::run(Arc::new(t), Policy::FirstFit, Placement::Consolidate);
    assert!(rep.jobs_done > 0);
}

#[test]
fn generated_philly_lands_within_5_percent_of_the_published_row() {
    let d = common::scratch_dir("philly100k");
    tracetui::gen::philly::write(
        &tracetui::gen::philly::GenOptions {
            jobs: 100_000,
            seed: 1,
            util_minutes: 1,
            tar_gz: false,
        },
        &d,
    )
    .unwrap();
    let (t, _) = load_philly(&d, &LoadOptions::default()).unwrap();
    let s = tracetui::stats::stats(&t);
    // Published Philly row (AcmeTrace cluster_summary.csv): run time mean 18,006 /
    // median 874 s, queueing mean 3,761 / median 189 s, GPUs mean 1.928 / median 1.
    let within = |label: &str, got: f64, want: f64| {
        assert!(
            (got - want).abs() / want <= 0.05,
            "{label}: {got} vs {want}"
        );
    };
    within("run time mean", s.runtime_s.mean.unwrap(), 18_006.055);
    within("run time median", s.runtime_s.median.unwrap(), 874.0);
    within("queueing mean", s.queue_s.mean.unwrap(), 3_760.604);
    within("queueing median", s.queue_s.median.unwrap(), 189.0);
    within("GPUs mean", s.gpus_per_job.mean.unwrap(), 1.928);
    within("GPUs median", s.gpus_per_job.median.unwrap(), 1.0);
    let pass = s.jobs.by_status["Pass"] as f64 / s.jobs.all as f64;
    within("complete rate", pass, 0.604);
    // The job log's local times cannot say which 01:xx of Nov 5 they mean, so
    // a few attempts in that hour replay an hour off and meet another job.
    let attempts = t.segments.len() as u64;
    let r = tracetui::sim::run(Arc::new(t), Policy::Recorded, Placement::Consolidate);
    assert!(
        r.overflow_segments * 2000 < attempts,
        "{} of {attempts} holds overflow",
        r.overflow_segments
    );
}

#[test]
fn the_util_index_matches_a_line_by_line_reading_across_block_edges() {
    use tracetui::trace::PhillyUtilFile;
    // ~9 MB (two 4 MB blocks and a bit), CRLF in places, blank lines, no final newline.
    let mut text = String::from("time,machineId,gpu0_util,gpu1_util\n");
    let mut want: Vec<(i64, u64)> = Vec::new();
    let mut minute = 0;
    while text.len() < 9_000_000 {
        let when = format!(
            "2017-10-{:02} {:02}:{:02}:00 PDT",
            3 + minute / 1440,
            minute / 60 % 24,
            minute % 60
        );
        want.push((parse_zoned(&when).unwrap(), text.len() as u64));
        for m in 0..(40 + minute % 7) {
            text.push_str(&format!("{when},m{m},{}.5,NA", minute % 100));
            text.push_str(if (minute + m) % 13 == 0 { "\r\n" } else { "\n" });
            if (minute * 7 + m) % 101 == 0 {
                text.push('\n');
            }
        }
        minute += 1;
    }
    text.pop();
    let dir = std::env::temp_dir().join(format!("tracetui-util-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("cluster_gpu_util");
    std::fs::write(&path, &text).unwrap();
    let names: Vec<String> = (0..50).map(|m| format!("m{m}")).collect();
    let f = PhillyUtilFile::new(path, &names, true);
    let idx = f.index().as_ref().unwrap();
    assert_eq!(idx.runs, want);
    assert_eq!(idx.columns, ["gpu0_util", "gpu1_util"]);
    // The last minute (whose last row has no newline) reads whole.
    let (t, rows) = f.at(want.last().unwrap().0, 60).unwrap();
    assert_eq!(t, want.last().unwrap().0);
    assert_eq!(rows.len() as i64, 40 + (minute - 1) % 7);
    assert!((f.progress() - 1.0).abs() < 1e-9);
    let _ = std::fs::remove_dir_all(&dir);
}
