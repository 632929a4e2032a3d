use super::*;
use std::path::PathBuf;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/openb")
}

fn opts(strict: bool) -> LoadOptions {
    LoadOptions {
        strict,
        ..LoadOptions::default()
    }
}

/// A pod list written to a fresh directory beside a copy of the fixture's
/// node list.
fn written(label: &str, pods: &str) -> (tempdir::Dir, PathBuf) {
    let d = tempdir::Dir::new(label);
    std::fs::copy(fixtures().join(NODE_FILE), d.0.join(NODE_FILE)).unwrap();
    let p = d.0.join("pods.csv");
    std::fs::write(&p, pods).unwrap();
    (d, p)
}

mod tempdir {
    /// A directory removed when dropped.
    pub(super) struct Dir(pub(super) std::path::PathBuf);

    impl Dir {
        /// Named by `label`, unique to this process and test thread.
        pub(super) fn new(label: &str) -> Dir {
            let p = std::env::temp_dir().join(format!(
                "tracetui-test-openb-{}-{:?}-{label}",
                std::process::id(),
                std::thread::current().id()
            ));
            std::fs::create_dir_all(&p).unwrap();
            Dir(p)
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

const HEADER: &str = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";

#[test]
fn pods_nodes_and_the_replays_jobs_are_read_as_released() {
    let (t, report) = load(&fixtures().join("openb_pod_list_default.csv"), &opts(true)).unwrap();
    let c = &t.cluster;
    assert_eq!(c.machines.len(), 4);
    assert_eq!(c.total_gpus(), 13);
    let m = &c.machines[0];
    assert_eq!(
        (m.name.as_str(), m.gpus, m.cpu_milli, m.mem_mib),
        ("openb-node-0000", 8, 96_000, 393_216)
    );
    assert_eq!(c.gpu_types[m.gpu_type as usize], "G2");
    // The Pending pod and the CPU pod are left out, counted.
    let ids: Vec<&str> = t.jobs.iter().map(|j| j.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "openb-pod-0000",
            "openb-pod-0001",
            "openb-pod-0002",
            "openb-pod-0004",
            "openb-pod-0006"
        ]
    );
    let why: Vec<(&str, u64)> = t
        .excluded
        .iter()
        .map(|e| (e.reason.as_str(), e.jobs))
        .collect();
    assert_eq!(
        why,
        [
            ("Pending pods (never scheduled)", 1),
            ("CPU pods (num_gpu 0)", 1)
        ]
    );
    let share = &t.jobs[1];
    assert_eq!(share.demand.total_milli(), 460);
    assert_eq!(
        (share.submit, share.runtime.get()),
        (427_061, Some(12_902_960 - 427_061))
    );
    assert_eq!(
        share.status,
        JobStatus::Unfinished,
        "Running when the trace was cut"
    );
    assert_eq!((share.cpu_milli, share.mem_mib), (6000, 12_288));
    let whole8 = &t.jobs[3];
    assert_eq!(
        whole8.demand,
        Demand::Instances(Box::new([Unit::gpus(1, 8000)]))
    );
    assert_eq!(c.gpu_types[whole8.gpu_type.unwrap() as usize], "G2");
    assert_eq!(whole8.status, JobStatus::Failed);
    let seg = t.job_segments(whole8);
    assert_eq!((seg[0].start, seg[0].end.get()), (700_100, Some(707_200)));
    // Two models: no single type, both as bits.
    assert_eq!(t.jobs[4].gpu_type, None);
    let ty = |n: &str| c.gpu_types.iter().position(|x| x == n).unwrap();
    assert_eq!(t.jobs[4].any_of_types, 1 << ty("T4") | 1 << ty("P100"));
    assert_eq!(t.jobs[0].any_of_types, 0);
    assert!(
        report.notes[0].contains("7 pods, 5 replayed"),
        "{:?}",
        report.notes
    );
}

#[test]
fn every_row_is_a_pod_with_its_models_and_phases_are_counted() {
    let (t, _) = load(&fixtures().join("openb_pod_list_default.csv"), &opts(true)).unwrap();
    let native = t.native.as_ref().unwrap();
    let pods = native.pods().unwrap();
    assert_eq!(pods.len(), 7);
    let p = &pods[5];
    assert_eq!(&*p.spec, "V100M16|V100M32");
    let names: Vec<&str> = p
        .models
        .iter()
        .map(|&m| t.cluster.gpu_types[m as usize].as_str())
        .collect();
    assert_eq!(
        names,
        ["V100M16", "V100M32"],
        "a model no node has is a type of none"
    );
    assert!(pods[3].is_cpu());
    let counts = native.status_counts(&t).unwrap();
    let got: Vec<(&str, u64)> = counts.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(
        got,
        [
            ("Failed", 2),
            ("Pending", 1),
            ("Running", 2),
            ("Succeeded", 2)
        ]
    );
    let d = native.job_by_id(&t, "openb-pod-0005").unwrap().unwrap().0;
    assert_eq!(d["pod"]["scheduled_time"], "");
    assert_eq!(d["pod"]["qos"], "Burstable");
    assert_eq!(d["pod"]["row"], 7);
}

#[test]
fn a_multigpu_list_has_five_columns_and_no_times() {
    let (t, report) = load(
        &fixtures().join("openb_pod_list_multigpu20.csv"),
        &opts(true),
    )
    .unwrap();
    assert_eq!(t.jobs.len(), 3);
    assert!(t
        .jobs
        .iter()
        .all(|j| j.runtime.is_none() && j.segments.is_empty()));
    assert!(report.notes[0].contains("only `tracetui inflate` runs it"));
    assert!(t.native.as_ref().unwrap().status_counts(&t).is_none());
}

#[test]
fn bad_rows_are_named_by_line_and_column_and_skipped_when_lenient() {
    let cases = [
        (
            "p,1000,10,1,1500,,LS,Running,0,5,0\n",
            "gpu_milli",
            "more than one GPU",
        ),
        (
            "p,1000,10,2,500,,LS,Running,0,5,0\n",
            "gpu_milli",
            "takes them whole",
        ),
        (
            "p,1000,10,0,300,,LS,Running,0,5,0\n",
            "gpu_milli",
            "with num_gpu 0",
        ),
        (
            "p,1000,10,1,0,,LS,Running,0,5,0\n",
            "gpu_milli",
            "0 with num_gpu 1",
        ),
        (
            "p,1000,10,1,500,,LS,Sleeping,0,5,0\n",
            "pod_phase",
            "'Sleeping'",
        ),
        ("p,-3,10,1,500,,LS,Running,0,5,0\n", "cpu_milli", "below"),
        (
            "p,1000,10,1,500,,LS,Running,x,5,0\n",
            "creation_time",
            "not a whole number",
        ),
        ("p,1000,10,1,500,,LS\n", "", "7 columns, the header has 11"),
    ];
    for (row, column, words) in cases {
        let text = format!("{HEADER}good,1000,10,1,500,,LS,Running,0,5,0\n{row}");
        let (_d, p) = written("bad", &text);
        let e = load(&p, &opts(true)).unwrap_err().to_string();
        assert!(
            e.contains(":3") && e.contains(column) && e.contains(words),
            "{row}: {e}"
        );
        let (t, report) = load(&p, &opts(false)).unwrap();
        assert_eq!((t.jobs.len(), report.total_skipped()), (1, 1), "{row}");
    }
}

#[test]
fn a_wrong_header_or_a_missing_node_list_says_what_was_expected() {
    let (_d, p) = written("header", "job,start\n1,2\n");
    let e = load(&p, &opts(false)).unwrap_err().to_string();
    assert!(
        e.contains("unknown header") && e.contains("cpu_milli"),
        "{e}"
    );
    let d = tempdir::Dir::new("lone");
    let lone = d.0.join("pods.csv");
    std::fs::write(&lone, format!("{HEADER}p,1,1,1,500,,LS,Running,0,5,0\n")).unwrap();
    let e = load(&lone, &opts(false)).unwrap_err().to_string();
    assert!(e.contains("no node list") && e.contains("--nodes"), "{e}");
    let o = LoadOptions {
        nodes: Some(fixtures().join(NODE_FILE)),
        ..opts(true)
    };
    assert_eq!(
        load(&lone, &o).unwrap().0.jobs.len(),
        1,
        "--nodes names the list"
    );
    let (_d2, p) = written("model", &format!("{HEADER}p,1,1,1,500,,LS,Running,0,5,0\n"));
    std::fs::write(
        p.with_file_name(NODE_FILE),
        "sn,cpu_milli,memory_mib,gpu,model\nn,1,1,2,\n",
    )
    .unwrap();
    let e = load(&p, &opts(true)).unwrap_err().to_string();
    assert!(
        e.contains("model") && e.contains("empty on a node with GPUs"),
        "{e}"
    );
}
