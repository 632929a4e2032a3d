//! Released ITP data as the peers read it: ties in submission broken by
//! file order (the default) or by job id like the Alibaba PAI simulator
//! (`--ties id`); ElasticFlow's own columns in `job`; a comparison that
//! names a policy the trace cannot run drops that row, not the run.

use crate::common;

use common::cli::{stderr, stdout, tracetui};
use tracetui::trace::{Format, LoadOptions, Ties};

const TIED: &str =
    "job_id,submission_time,duration,num_gpu\n10,0,100,8\n9,0,50,8\nb,5,10,1\na,5,10,1\n7,1,10,1\n";

fn load(body: &str, ties: Ties) -> tracetui::trace::Trace {
    let p = common::write_file("tied.csv", body.as_bytes());
    let opts = LoadOptions {
        ties,
        gpus: Some(8),
        ..Default::default()
    };
    tracetui::trace::load(Format::find("itp").unwrap(), &p, &opts)
        .unwrap()
        .0
}

fn ids(t: &tracetui::trace::Trace) -> Vec<&str> {
    t.jobs.iter().map(|j| j.id.as_str()).collect()
}

#[test]
fn ties_keep_file_order_by_default_and_follow_ids_on_request() {
    assert_eq!(ids(&load(TIED, Ties::File)), ["10", "9", "b", "a", "7"]);
    // Numeric ids in numeric order (9 before 10), others as text.
    let by_id = load(TIED, Ties::Id);
    assert_eq!(ids(&by_id), ["9", "10", "7", "a", "b"]);
    // The order is the arrival order every policy sees: on one 8-GPU
    // machine, job 9 runs first under --ties id, job 10 by file order.
    let starts = |t: tracetui::trace::Trace| {
        let t = std::sync::Arc::new(t);
        let s = common::starts(
            &t,
            tracetui::sim::Policy::Fifo,
            tracetui::sim::Placement::Consolidate,
        );
        t.jobs
            .iter()
            .map(|j| j.id.clone())
            .zip(s)
            .collect::<Vec<_>>()
    };
    let file = starts(load(TIED, Ties::File));
    let id = starts(load(TIED, Ties::Id));
    assert_eq!(file.iter().find(|(j, _)| j == "9").unwrap().1, Some(100));
    assert_eq!(id.iter().find(|(j, _)| j == "10").unwrap().1, Some(50));
}

#[test]
#[cfg_attr(
    not(real_traces),
    ignore = "needs the released traces: TRACETUI_REAL_TRACES=../shared/traces"
)]
fn ties_by_id_reproduce_a_file_sorted_the_pai_simulators_way() {
    let dir = common::real_traces().unwrap();
    let c04 = dir.join("itp/raw/cluster04.csv");
    // The PAI simulator sorts (submit_time, job_id) before it runs.
    let text = std::fs::read_to_string(&c04).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let header = lines.remove(0);
    lines.sort_by_key(|l| {
        let f: Vec<&str> = l.split(',').collect();
        (f[1].parse::<i64>().unwrap(), f[0].to_string())
    });
    let sorted = common::write_file(
        "cluster04.csv",
        format!("{header}\n{}\n", lines.join("\n")).as_bytes(),
    );
    let jct = |args: &[&str]| {
        let o = tracetui(args);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        v["jct_s"]["mean"].as_f64().unwrap()
    };
    let common_args = [
        "--policy",
        "first-fit",
        "--placement",
        "pack",
        "--format",
        "json",
    ];
    let c04 = c04.to_str().unwrap();
    let by_id = jct(&[&["sim", "itp", c04, "--ties", "id"][..], &common_args].concat());
    let peer = jct(&[&["sim", "itp", sorted.to_str().unwrap()][..], &common_args].concat());
    let file = jct(&[&["sim", "itp", c04][..], &common_args].concat());
    assert_eq!(
        by_id.to_bits(),
        peer.to_bits(),
        "--ties id reproduces the peer's order exactly"
    );
    assert_ne!(
        file.to_bits(),
        peer.to_bits(),
        "the two orders differ on cluster04"
    );
}

#[test]
fn job_shows_every_elasticflow_column() {
    let p = common::write_file(
        "ef.csv",
        b"job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration\nj1,10,3249,deepspeech2,700,32,1,1075\n",
    );
    let o = tracetui(&["job", "itp", p.to_str().unwrap(), "j1", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let keys: Vec<&String> = v["job"].as_object().unwrap().keys().collect();
    for column in [
        "job_id",
        "submission_time",
        "num_iteration",
        "model_name",
        "deadline",
        "batch_size",
        "num_gpu",
        "duration",
    ] {
        assert!(
            keys.iter().any(|k| *k == column),
            "{column} missing from {keys:?}"
        );
    }
    assert_eq!(
        (
            v["job"]["num_iteration"].as_i64(),
            v["job"]["batch_size"].as_i64()
        ),
        (Some(3249), Some(32))
    );
}

#[test]
fn compare_drops_a_policy_the_trace_cannot_run_and_runs_the_rest() {
    let o = tracetui(&[
        "compare",
        "itp",
        common::cli::SAMPLE,
        "--policies",
        "recorded,fifo,sjf",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no row for 'recorded': policy 'recorded' needs recorded start times"),
        "{}",
        stderr(&o)
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let names: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["policy"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["fifo", "sjf"]);
    let none = tracetui(&[
        "compare",
        "itp",
        common::cli::SAMPLE,
        "--policies",
        "recorded",
    ]);
    assert_eq!(none.status.code(), Some(1));
    assert!(stderr(&none).contains("none of the policies asked for can run on this trace"));
}
