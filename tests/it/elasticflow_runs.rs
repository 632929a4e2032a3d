//! The runs of ElasticFlow's simulator the fidelity tests compare with
//! (`tests/fixtures/elasticflow/runs.csv`), and tracetui's run of each.

use crate::common;
use common::cli::{stderr, tracetui};
use std::collections::HashMap;
use std::path::Path;

pub(crate) const FIXTURES: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/elasticflow");

/// One row of `runs.csv`.
#[derive(serde::Deserialize)]
pub(crate) struct Run {
    pub(crate) run: String,
    trace: String,
    cluster_spec: String,
    gpu_type: String,
    pub(crate) schedule: String,
    pub(crate) jobs: usize,
    pub(crate) rows: usize,
    /// The simulator's `accepted jobs:` (for `ef-accessctrl`: admitted
    /// and on time by the planned finish).
    pub(crate) accepted: Option<usize>,
    /// Jobs whose `job.csv` end is by their deadline, over a whole run.
    met: Option<usize>,
    /// Its `--scheduling_slot` (our `--rounds`): 60 for Figure 8, 240 for
    /// Figures 9–11.
    pub(crate) slot: u32,
    /// The jobs in ElasticFlow's ratio (accepted + declined), where that is
    /// not every job: best-effort jobs are in neither (Figure 11).
    pub(crate) of: Option<usize>,
}

pub(crate) fn runs() -> Vec<Run> {
    let mut r = csv::Reader::from_path(format!("{FIXTURES}/runs.csv")).unwrap();
    r.deserialize().map(|r| r.unwrap()).collect()
}

/// Every job's row → (end, met) from a `--jobs-out` file.
pub(crate) fn ours(path: &Path) -> HashMap<usize, (String, String)> {
    let mut r = csv::Reader::from_path(path).unwrap();
    r.deserialize::<HashMap<String, String>>()
        .map(|row| {
            let row = row.unwrap();
            (
                row["job"].parse().unwrap(),
                (row["end_s"].clone(), row["met"].clone()),
            )
        })
        .collect()
}

/// Runs `run` as tracetui: the per-job file it wrote and its JSON report.
pub(crate) fn run_ours(dir: &Path, run: &Run) -> (std::path::PathBuf, serde_json::Value) {
    let a = dir.join("elasticflow-artifact");
    let out = common::scratch_dir(&format!("ef-{}", run.run)).join("jobs.csv");
    let o = tracetui(&[
        "sim",
        "itp",
        dir.join(&run.trace).to_str().unwrap(),
        "--cluster",
        a.join(format!("cluster_specs/{}.csv", run.cluster_spec))
            .to_str()
            .unwrap(),
        "--throughputs",
        a.join(format!("throughputs_{}", run.gpu_type))
            .to_str()
            .unwrap(),
        "--policy",
        match run.schedule.as_str() {
            "edf" => "edf-elastic",
            "ef" => "ef",
            other => other,
        },
        "--rounds",
        &run.slot.to_string(),
        "--jobs-out",
        out.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}: {}", run.run, stderr(&o));
    (out, serde_json::from_slice(&o.stdout).unwrap())
}

/// Runs `run` and checks it; the per-job file it wrote.
pub(crate) fn check(dir: &Path, run: &Run) -> std::path::PathBuf {
    let (out, report) = run_ours(dir, run);
    // ElasticFlow's own ratio (accepted ÷ all jobs), beside ours.
    let admitted = report["deadline_admitted"].as_f64();
    match (run.schedule.as_str(), run.accepted) {
        ("elasticflow" | "ef" | "edf-accessctrl", Some(a)) => {
            // (The JSON's last digit may round either way.)
            let want = a as f64 / run.of.unwrap_or(run.jobs) as f64;
            let got = admitted.unwrap_or(f64::NAN);
            assert!(
                (got - want).abs() < 1e-12,
                "{}: ElasticFlow's ratio {want}, ours {got}",
                run.run
            )
        }
        ("elasticflow" | "ef" | "edf-accessctrl", None) => {
            assert!(admitted.is_some(), "{}", run.run)
        }
        _ => assert_eq!(
            admitted, None,
            "{}: only elasticflow, ef and edf-accessctrl keep a ratio of their own",
            run.run
        ),
    }
    let ours = ours(&out);
    assert_eq!(ours.len(), run.jobs, "{}", run.run);
    let (rows, differ) = differing(run, &ours);
    // Over a whole run, a job the simulator never ended (declined at
    // arrival) never ends here either.
    if run.accepted.is_some() {
        let ended = ours.values().filter(|(e, _)| !e.is_empty()).count();
        assert_eq!(ended, rows, "{}: jobs ended", run.run);
    }
    none_differ(run, rows, &differ);
    if let Some(want) = run.met {
        let met = ours.values().filter(|(_, m)| m == "true").count();
        assert_eq!(met, want, "{}: jobs ended by the deadline", run.run);
    }
    eprintln!(
        "{} {}: {rows} of {} jobs end as in ElasticFlow's simulator",
        run.schedule, run.run, run.jobs
    );
    out
}

/// The rows of `run`'s fixture (`row,end_s`), and those whose end is not
/// the one tracetui's run gave (`ours`).
pub(crate) fn differing(
    run: &Run,
    ours: &HashMap<usize, (String, String)>,
) -> (usize, Vec<String>) {
    let file = format!("{FIXTURES}/{}-{}.csv", run.schedule, run.run);
    let mut r = csv::Reader::from_path(&file).unwrap();
    let mut differ = Vec::new();
    let mut rows = 0;
    for row in r.deserialize::<(usize, i64)>() {
        let (job, end) = row.unwrap();
        rows += 1;
        let got = ours.get(&job).map(|(e, _)| e.as_str());
        if got != Some(end.to_string().as_str()) {
            differ.push(format!("row {job}: peer {end}, ours {got:?}"));
        }
    }
    assert_eq!(rows, run.rows, "{file}");
    (rows, differ)
}

/// Every fixture row's end is tracetui's (`differing`'s list is empty).
pub(crate) fn none_differ(run: &Run, rows: usize, differ: &[String]) {
    assert!(
        differ.is_empty(),
        "{}: {} of {rows} jobs end elsewhere than in ElasticFlow's simulator, e.g. {:?}",
        run.run,
        differ.len(),
        &differ[..differ.len().min(5)]
    );
}
