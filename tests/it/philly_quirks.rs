//! The released Philly files as they are: `cluster_machine_list` says m29,
//! m47 and m412 have 2 GPUs while the job log runs 8-GPU attempts on them
//! (philly-traces issue 8), and `cluster_gpu_util` reports GPUs the list
//! leaves out. Every job is kept; the cluster is corrected from the evidence.

use crate::common;

use common::cli::{stdout, tracetui};
use tracetui::trace::{load_philly, LoadOptions};

const LIST: &str = "machineId, number of GPUs, single GPU mem\nm1,8, 24GB\nm29,2, 24GB\nm47,2, 24GB\nm412,2, 24GB\nm5,2, 12GB\n";

fn job(id: &str, machine: &str, gpus: u32) -> String {
    let ids: Vec<String> = (0..gpus).map(|g| format!("\"gpu{g}\"")).collect();
    format!(
        r#"{{"status": "Pass", "vc": "v", "jobid": "{id}", "submitted_time": "2017-10-07 01:00:00", "user": "u", "attempts": [{{"start_time": "2017-10-07 01:00:10", "end_time": "2017-10-07 02:00:10", "detail": [{{"ip": "{machine}", "gpus": [{}]}}]}}]}}"#,
        ids.join(", ")
    )
}

/// The release's shape: three machines listed at 2 GPUs running 8-GPU
/// attempts, one of them twice; m5 listed at 2 with 4 GPUs in the util file.
fn release() -> std::path::PathBuf {
    let d = common::scratch_dir("philly-quirks");
    std::fs::write(d.join("cluster_machine_list"), LIST).unwrap();
    let jobs = [
        job("a", "m1", 8),
        job("b", "m29", 8),
        job("c", "m47", 8),
        job("d", "m412", 8),
        job("e", "m412", 4),
        job("f", "m5", 1),
    ];
    std::fs::write(d.join("cluster_job_log"), format!("[{}]", jobs.join(",\n"))).unwrap();
    std::fs::write(
        d.join("cluster_gpu_util"),
        "time,machineId,gpu0_util,gpu1_util,gpu2_util,gpu3_util,gpu4_util,gpu5_util,gpu6_util,gpu7_util\n\
         2017-10-07 01:01:00 PDT,m1,1,2,3,4,5,6,7,8,\n\
         2017-10-07 01:01:00 PDT,m5,10,20,30,40,NA,NA,NA,NA,\n",
    )
    .unwrap();
    d
}

#[test]
fn every_job_is_kept_and_the_machines_are_corrected_from_the_evidence() {
    let (t, r) = load_philly(&release(), &LoadOptions::default()).unwrap();
    assert_eq!(t.jobs.len(), 6, "no job lost to the list");
    assert_eq!(r.total_skipped(), 0);
    let gpus: Vec<(&str, u32)> = t
        .cluster
        .machines
        .iter()
        .map(|m| (m.name.as_str(), m.gpus))
        .collect();
    assert_eq!(
        gpus,
        [("m1", 8), ("m29", 8), ("m47", 8), ("m412", 8), ("m5", 4)]
    );
    let said: Vec<&String> = r.notes.iter().filter(|n| n.contains("corrected")).collect();
    assert_eq!(
        said[0],
        "cluster_machine_list corrected from the job log and cluster_gpu_util: 4 machines (m29 2→8, m47 2→8, m412 2→8, m5 2→4); 4 jobs kept that ran on GPUs the list leaves out"
    );
    assert_eq!(t.cluster.total_gpus(), 36);
}

#[test]
fn the_recorded_replay_runs_every_job_on_the_corrected_cluster() {
    let (t, _) = load_philly(&release(), &LoadOptions::default()).unwrap();
    let r = tracetui::sim::run(
        std::sync::Arc::new(t),
        tracetui::sim::Policy::Recorded,
        tracetui::sim::Placement::Consolidate,
    );
    assert_eq!((r.jobs, r.jobs_done, r.jobs_rejected), (6, 6, 0));
}

#[test]
fn stats_and_the_header_show_the_corrected_cluster() {
    let d = release();
    let o = tracetui(&["stats", "philly", d.to_str().unwrap()]);
    let text = stdout(&o);
    assert!(
        text.contains("machines   5 (4 machines corrected)"),
        "{text}"
    );
    assert!(
        text.contains("  24GB GPU          4 machines      32 GPUs"),
        "{text}"
    );
    assert!(
        text.contains("  12GB GPU          1 machine        4 GPUs"),
        "{text}"
    );
    let (t, _) = load_philly(&d, &LoadOptions::default()).unwrap();
    let label =
        tracetui::cli::tui::label_for(tracetui::trace::Format::find("philly").unwrap(), &d, &t);
    assert!(
        label.starts_with("philly · 36 GPUs (4 machines corrected) · "),
        "{label}"
    );
}
