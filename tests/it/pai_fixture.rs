//! The hand-written PAI fixture (tests/fixtures/pai, see its README) with
//! hand-computed expectations for loading, `job`, `stats` and `recorded`.

use std::path::Path;
use std::sync::Arc;
use tracetui::sim::{Engine, Phase, Placement, Policy};
use tracetui::trace::{
    load_pai, pai_job_detail, pai_side_rows, pai_workers_of, LoadOptions, PaiTables, Trace,
};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/pai");
const T0: i64 = 4_550_879;

fn load() -> Arc<Trace> {
    let (t, _) = load_pai(Path::new(DIR), &LoadOptions::default()).unwrap();
    Arc::new(t)
}

fn job(t: &Trace, name: &str) -> u32 {
    t.jobs.iter().position(|j| j.id == name).unwrap() as u32
}

#[test]
fn loads_gpu_jobs_machines_and_the_unknown_machine() {
    let (t, report) = load_pai(Path::new(DIR), &LoadOptions::default()).unwrap();
    assert_eq!(t.jobs.len(), 19, "20 jobs, one CPU job left out");
    assert_eq!(
        t.excluded,
        tracetui::trace::Excluded::new("CPU jobs (no GPU demand)", 1, false)
    );
    let names: Vec<&str> = t.cluster.machines.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, vec!["m1", "m2", "m3", "m4", "mX"]);
    assert_eq!(
        t.cluster.machines[3].gpus, 0,
        "CPU machines are kept with 0 GPUs"
    );
    assert!(t.cluster.machines[4].recorded_only);
    assert_eq!(
        t.cluster.gpu_types[t.cluster.machines[4].gpu_type as usize],
        "unknown"
    );
    assert_eq!(report.total_skipped(), 0);
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.ends_with("pai_instance_table.csv: 22 rows")),
        "{:?}",
        report.notes
    );
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.contains("pai_sensor_table.csv: found")),
        "{:?}",
        report.notes
    );
    let j05 = &t.jobs[job(&t, "j05") as usize];
    assert_eq!(
        j05.demand.total_milli(),
        2000,
        "ps tasks ask for no GPU; 2 workers × 100"
    );
    assert_eq!(
        j05.runtime,
        Some(310),
        "last instance end − first instance start"
    );
    assert_eq!(t.job_segments(j05).len(), 4);
    let j02 = &t.jobs[job(&t, "j02") as usize];
    assert_eq!(j02.demand.total_milli(), 500);
    let j10 = &t.jobs[job(&t, "j10") as usize];
    assert_eq!(t.cluster.gpu_types[j10.gpu_type.unwrap() as usize], "V100");
    assert_eq!(t.sym(j10.model), "bert");
    let j07 = &t.jobs[job(&t, "j07") as usize];
    assert_eq!(
        (j07.runtime.get(), j07.status),
        (None, tracetui::trace::JobStatus::Unfinished)
    );
    let j12 = &t.jobs[job(&t, "j12") as usize];
    assert_eq!((j12.runtime.get(), t.job_segments(j12).len()), (None, 0));
}

#[test]
fn recorded_replay_shares_gpus_and_counts_the_overflow() {
    let t = load();
    let mut e = Engine::new(t.clone(), Policy::Recorded, Placement::Consolidate);
    e.advance_to(T0 + 45);
    let c = e.cluster();
    let m2 = c.first_gpu(1);
    let (j02, j03, j04) = (job(&t, "j02"), job(&t, "j03"), job(&t, "j04"));
    assert_eq!(
        c.holders(m2),
        &[(j02, 500), (j03, 500)],
        "two halves share GPU 0 of m2"
    );
    assert_eq!(
        c.holders(m2 + 1),
        &[(j04, 250)],
        "a quarter goes to the next GPU with room"
    );
    e.advance_to(T0 + 85);
    let m3 = e.cluster().first_gpu(2);
    let (j07, j09) = (job(&t, "j07"), job(&t, "j09"));
    assert_eq!(
        e.cluster().holders(m3),
        &[(j07, 1000), (j09, 1000)],
        "over capacity, replayed anyway"
    );
    assert_eq!(e.cluster().holders(m3 + 1), &[(j09, 1000)]);
    assert_eq!(e.tally().overflow_segments, 1);
    let mx = e.cluster().first_gpu(4);
    assert_eq!(
        e.cluster().holders(mx),
        &[(job(&t, "j08"), 1000)],
        "the unknown machine is replayed"
    );
    e.run_to_end();
    let r = e.report();
    assert_eq!(
        (r.jobs, r.jobs_done),
        (19, 17),
        "j07 never ends, j12 never starts"
    );
    assert_eq!(e.job_state(j07).phase, Phase::Running);
    assert_eq!(e.job_state(job(&t, "j12")).phase, Phase::Queued);
    assert_eq!(
        r.makespan_s,
        Some(28_865),
        "last finish (j20) − first submit"
    );
    // Waits of the 18 jobs that started: 5 × 10 (j01–j05), 20 (j07), 5 (j08),
    // 20 (j09), 0 (j10), 2 (j11), 8 × 5 (j13–j20) = 137.
    assert!((r.wait_s.mean.unwrap() - 137.0 / 18.0).abs() < 1e-9);
    assert_eq!(r.wait_s.p50, Some(5.0));
    // JCTs of the 17 finished: 110, 210, 110, 60, 320, 100, 120, 200, 30, 8 × 65 = 1780.
    assert!((r.jct_s.mean.unwrap() - 1780.0 / 17.0).abs() < 1e-9);
    assert_eq!(r.jct_s.p50, Some(65.0));
    assert_eq!(e.job_state(job(&t, "j05")).start, T0 + 50);
    assert_eq!(e.job_state(job(&t, "j05")).end, T0 + 360);
}

#[test]
fn leaving_recorded_lets_running_work_finish_and_queues_the_rest() {
    let t = load();
    let mut e = Engine::new(t.clone(), Policy::Recorded, Placement::Consolidate);
    e.advance_to(T0 + 75);
    // j09 (recorded start T0+80) and j12 (never started) are waiting.
    e.set_policy(Policy::Sjf);
    let (j09, j12) = (job(&t, "j09"), job(&t, "j12"));
    // m3 has one free GPU: j12 (1 GPU) starts at once; j09 (2 GPUs, run time 100 s)
    // waits until m1 frees two GPUs when j01 ends at T0+110 (j11 ended at T0+100).
    assert_eq!(e.job_state(j12).phase, Phase::Running);
    assert_eq!(e.job_state(j12).start, T0 + 75);
    let held: Vec<u32> = e.running()[&j12].iter().map(|g| g.machine).collect();
    assert_eq!(held, vec![2]);
    e.advance_to(T0 + 120);
    assert_eq!(e.job_state(j09).start, T0 + 110);
    assert_eq!(
        e.running()[&j09]
            .iter()
            .map(|g| g.machine)
            .collect::<Vec<_>>(),
        vec![0, 0]
    );
    // Running recorded work finished in place.
    assert_eq!(e.job_state(job(&t, "j01")).end, T0 + 110);
    assert_eq!(e.job_state(job(&t, "j05")).phase, Phase::Running);
    e.advance_to(T0 + 400);
    assert_eq!(e.job_state(job(&t, "j05")).end, T0 + 360);
}

fn detail(name: &str) -> serde_json::Value {
    let t = load();
    let Some(p) = t.native_as::<PaiTables>() else {
        panic!()
    };
    let row = p.job_by_name(name).unwrap();
    let side = pai_side_rows(p, &pai_workers_of(p, row).unwrap()).unwrap();
    pai_job_detail(p, &t.symbols, row, &side).unwrap()
}

#[test]
fn drill_down_joins_every_table() {
    let d = detail("j01");
    assert_eq!(d["job"]["job_name"], "j01");
    assert_eq!(d["job"]["start_time"], T0);
    assert_eq!(d["job"]["start_time_local"], "Mon 00:07:59 day 1");
    assert_eq!(d["wait_s"], 10);
    assert_eq!(d["runtime_s"], 100);
    let inst = &d["instances"][0];
    assert_eq!(inst["worker_name"], "w01");
    assert_eq!(inst["start_time_local"], "Mon 00:08:09 day 1");
    assert_eq!(inst["sensor"]["gpu_wrk_util"], 16.0625);
    assert_eq!(inst["sensor"]["gpu_name"], "/dev/nvidia0");
    assert_eq!(inst["machine_spec"]["gpu_type"], "V100");
    assert_eq!(inst["machine_metric"]["machine_gpu"], 87.8);
    assert_eq!(
        inst["machine_metric"]["start_time_local"],
        "Mon 00:08:09 day 1"
    );
    assert_eq!(d["group_tag"], serde_json::Value::Null);
    let keys: Vec<&str> = d.as_object().unwrap().keys().map(|k| k.as_str()).collect();
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
    let task_keys: Vec<&str> = d["tasks"][0]
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    assert_eq!(
        task_keys,
        vec![
            "job_name",
            "task_name",
            "inst_num",
            "status",
            "start_time",
            "start_time_local",
            "end_time",
            "end_time_local",
            "plan_cpu",
            "plan_mem",
            "plan_gpu",
            "gpu_type"
        ]
    );
}

#[test]
fn drill_down_edge_cases() {
    let j05 = detail("j05");
    assert_eq!(
        (
            j05["tasks"].as_array().unwrap().len(),
            j05["instances"].as_array().unwrap().len()
        ),
        (2, 4)
    );
    assert_eq!(
        j05["tasks"][0]["plan_gpu"],
        serde_json::Value::Null,
        "ps asks for no GPU"
    );
    assert_eq!(
        (j05["wait_s"].as_i64(), j05["runtime_s"].as_i64()),
        (Some(10), Some(310))
    );
    assert_eq!(j05["instances"][2]["sensor"]["cpu_usage"], 300.0);
    let j10 = detail("j10");
    assert_eq!(j10["group_tag"]["gpu_type_spec"], "V100");
    assert_eq!(j10["group_tag"]["workload"], "bert");
    let j07 = detail("j07");
    assert_eq!(j07["runtime_s"], serde_json::Value::Null);
    assert_eq!(j07["job"]["end_time"], serde_json::Value::Null);
    assert_eq!(j07["job"]["end_time_local"], serde_json::Value::Null);
    let j08 = detail("j08");
    assert_eq!(j08["instances"][0]["machine"], "mX");
    assert_eq!(j08["instances"][0]["machine_spec"], serde_json::Value::Null);
    let j12 = detail("j12");
    assert_eq!(j12["wait_s"], serde_json::Value::Null);
    assert_eq!(j12["instances"].as_array().unwrap().len(), 0);
    let j06 = detail("j06");
    assert_eq!(j06["runtime_s"], 54, "CPU jobs are drilled into too");
}

#[test]
fn stats_match_the_hand_computed_values() {
    let s = tracetui::stats::stats(&load());
    assert_eq!((s.jobs.all, s.jobs.gpu), (20, 19));
    let status: Vec<(&str, u64)> = s
        .jobs
        .by_status
        .iter()
        .map(|(k, v)| (k.as_str(), *v))
        .collect();
    assert_eq!(
        status,
        vec![
            ("Failed", 1),
            ("Running", 1),
            ("Terminated", 17),
            ("Waiting", 1)
        ]
    );
    let types: Vec<(&str, u64, u64)> = s
        .machines
        .iter()
        .map(|m| (m.gpu_type.as_str(), m.machines, m.gpus))
        .collect();
    assert_eq!(
        types,
        vec![
            ("CPU", 1, 0),
            ("P100", 1, 2),
            ("T4", 1, 2),
            ("V100", 1, 8),
            ("unknown", 1, 8)
        ]
    );
    // Run times of the 17 GPU jobs that ended: 100, 200, 100, 50, 310, 95, 100, 200, 28, 8 × 60 = 1663.
    assert!((s.runtime_s.mean.unwrap() - 1663.0 / 17.0).abs() < 1e-9);
    assert_eq!(s.runtime_s.median, Some(60.0));
    assert!((s.queue_s.mean.unwrap() - 137.0 / 18.0).abs() < 1e-9);
    assert_eq!(s.queue_s.median, Some(5.0));
    // GPUs: 1, .5, .5, .25, 2, 1, 1, 2, 4, 1, 1, 8 × 1 = 22.25 over 19 jobs.
    assert!((s.gpus_per_job.mean.unwrap() - 22.25 / 19.0).abs() < 1e-9);
    assert_eq!(s.gpus_per_job.median, Some(1.0));
    let mut hours = [0u64; 24];
    hours[0] = 11;
    for h in hours.iter_mut().take(9).skip(1) {
        *h = 1;
    }
    assert_eq!(s.submissions_by_hour, hours);
    assert_eq!(s.zone, "Asia/Shanghai");
}

#[test]
fn cpu_jobs_can_be_included() {
    let (t, _) = load_pai(
        Path::new(DIR),
        &LoadOptions {
            include_cpu_jobs: true,
            ..LoadOptions::default()
        },
    )
    .unwrap();
    assert_eq!(t.jobs.len(), 20);
    assert!(t.excluded.is_empty());
}
