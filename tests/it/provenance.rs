//! Results that say where they came from: `meta` in the JSON summary, a
//! `meta` column in the CSV, `<metadata>` in an SVG, `NAME.meta.json`
//! beside the per-job and timeline files, once per run in a sweep's table;
//! and `compare` writing one per-job and one timeline file for every row.

use crate::common;

use common::cli::{stderr, stdout, tracetui, SAMPLE};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

fn sha256_of(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap();
    Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn ok(args: &[&str]) -> String {
    let o = tracetui(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

/// `git` in the repository, its output trimmed (None without git).
fn git(args: &[&str]) -> Option<String> {
    let o = std::process::Command::new("git")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    o.status
        .success()
        .then(|| String::from_utf8_lossy(&o.stdout).trim().to_string())
}

/// A meta's `build` names the commit the binary was built from and
/// whether tracked files differed (checked against git where it is here).
fn assert_build_named(build: &Value) {
    match git(&["rev-parse", "HEAD"]) {
        Some(head) => {
            assert_eq!(build["commit"], head.as_str(), "{build}");
            assert!(build["modified"].is_boolean(), "{build}");
        }
        None => {
            eprintln!("skipped: no git checkout here, so the commit is not checked");
            assert_eq!(build["commit"], "unknown", "{build}");
        }
    }
}

#[test]
fn the_version_names_the_commit() {
    let v = ok(&["--version"]);
    match git(&["rev-parse", "HEAD"]) {
        Some(head) => assert!(
            v.starts_with(&format!(
                "tracetui {} (commit {head}",
                env!("CARGO_PKG_VERSION")
            )),
            "{v}"
        ),
        None => assert!(v.contains("not built from a git checkout"), "{v}"),
    }
}

fn sample_path() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(SAMPLE)
}

#[test]
fn the_json_summary_names_the_version_command_trace_hash_and_every_knob() {
    let args = [
        "sim", "itp", SAMPLE, "--policy", "sjf", "--gpus", "32", "--format", "json",
    ];
    let text = ok(&args);
    assert_eq!(text, ok(&args), "the same inputs give the same bytes");
    let v: Value = serde_json::from_str(&text).unwrap();
    let m = &v["meta"];
    assert_eq!(m["tracetui"], env!("CARGO_PKG_VERSION"));
    assert_build_named(&m["build"]);
    assert_eq!(
        m["command"],
        format!("tracetui sim itp {SAMPLE} --policy sjf --gpus 32 --format json")
    );
    let sha = sha256_of(&sample_path());
    assert_eq!(m["trace"]["sha256"], sha);
    assert_eq!(m["trace"]["files"][0]["sha256"], sha);
    assert_eq!(m["trace"]["files"][0]["name"], "sample.csv");
    let abs = std::fs::canonicalize(sample_path()).unwrap();
    assert_eq!(m["trace"]["path"], abs.to_str().unwrap());
    let k = &m["knobs"];
    assert_eq!(k["trace"], format!("itp:{SAMPLE}"));
    assert_eq!(k["policy"], "sjf");
    assert_eq!(k["gpus"], "32");
    // Defaults are knobs too.
    assert_eq!(k["placement"], "consolidate");
    assert_eq!(k["preempt-cost"], "30");
    assert_eq!(k["load"], Value::Null);
    assert_eq!(m["policies"][0]["name"], "sjf");
    // The report's own fields are where they were.
    assert_eq!(v["policy"], "sjf");
    // A table for people carries none of it.
    let table = ok(&["sim", "itp", SAMPLE]);
    assert!(!table.contains("sha256"), "{table}");
}

/// A trace read from a pipe is not hashed, and its meta claims no hash
/// (not the SHA-256 of nothing).
#[test]
fn a_piped_trace_claims_no_hash() {
    let o = std::process::Command::new("sh")
        .args(["-c", "cat \"$1\" | \"$0\" sim itp /dev/stdin --format json"])
        .args([env!("CARGO_BIN_EXE_tracetui"), SAMPLE])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["meta"]["trace"]["sha256"], "", "{}", v["meta"]["trace"]);
    assert_eq!(v["jobs"], 2000);
}

#[test]
fn the_csv_summary_has_the_same_meta_in_its_last_column() {
    let json: Value =
        serde_json::from_str(&ok(&["sim", "itp", SAMPLE, "--format", "json"])).unwrap();
    let csv = ok(&["sim", "itp", SAMPLE, "--format", "csv"]);
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    let header = r.headers().unwrap().clone();
    assert_eq!(header.iter().next_back(), Some("meta"));
    let row = r.records().next().unwrap().unwrap();
    let meta: Value = serde_json::from_str(row.iter().next_back().unwrap()).unwrap();
    assert_eq!(meta["trace"], json["meta"]["trace"]);
    assert_eq!(meta["policies"], json["meta"]["policies"]);
    assert_eq!(meta["knobs"]["format"], "csv");
    let mut a = meta["knobs"].clone();
    let mut b = json["meta"]["knobs"].clone();
    a["format"] = Value::Null;
    b["format"] = Value::Null;
    assert_eq!(a, b, "every other knob the same");
}

#[test]
fn files_written_carry_the_meta_inside_or_beside() {
    let dir = common::scratch_dir("provenance-files");
    let (jobs, timeline, plot) = (
        dir.join("jobs.csv"),
        dir.join("tl.jsonl"),
        dir.join("fig.svg"),
    );
    let summary: Value = serde_json::from_str(&ok(&[
        "sim",
        "itp",
        SAMPLE,
        "--format",
        "json",
        "--jobs-out",
        jobs.to_str().unwrap(),
        "--timeline-out",
        timeline.to_str().unwrap(),
        "--timeline-tick",
        "1h",
        "--plot",
        plot.to_str().unwrap(),
    ]))
    .unwrap();
    for side in ["jobs.csv.meta.json", "tl.jsonl.meta.json"] {
        let m: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join(side)).unwrap()).unwrap();
        assert_eq!(m, summary["meta"], "{side}");
    }
    // The tables themselves stay tables: every line a row.
    let first = std::fs::read_to_string(&timeline).unwrap();
    let first: Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
    assert!(first.get("time_s").is_some() && first.get("meta").is_none());
    let svg = std::fs::read_to_string(&plot).unwrap();
    let at = svg
        .find("<metadata id=\"tracetui-meta\">")
        .expect("metadata");
    let end = svg.find("</metadata>").unwrap();
    let inner = svg[at + "<metadata id=\"tracetui-meta\">".len()..end]
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    let m: Value = serde_json::from_str(&inner).unwrap();
    assert_eq!(m, summary["meta"]);
}

#[test]
fn an_external_policy_s_command_and_hello_name_are_in_the_meta() {
    if !common::python() {
        eprintln!("SKIPPED: python3 is not installed");
        return;
    }
    let v: Value = serde_json::from_str(&ok(&[
        "sim",
        "itp",
        SAMPLE,
        "--policy",
        "exec:python3 policies/fifo.py",
        "--format",
        "json",
    ]))
    .unwrap();
    let p = &v["meta"]["policies"][0];
    assert_eq!(p["command"], "python3 policies/fifo.py");
    assert_eq!(p["arg"], "exec:python3 policies/fifo.py");
    assert!(p["hello"].as_str().is_some_and(|h| !h.is_empty()), "{p}");
    assert_eq!(p["name"], v["policy"]);
    // The script its command names, hashed, and the module it imports
    // from its folder (the helper).
    let file = |name: &str| {
        let path = std::path::absolute(name).unwrap();
        let f = p["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"] == path.display().to_string())
            .unwrap_or_else(|| panic!("{name} not hashed: {p}"))
            .clone();
        assert_eq!(f["sha256"], sha256_of(&path), "{name}");
    };
    assert_eq!(
        p["files"][0]["path"],
        std::path::absolute("policies/fifo.py")
            .unwrap()
            .display()
            .to_string()
    );
    file("policies/fifo.py");
    file("policies/tracetui_policy.py");
    // Nothing beside it that it does not import (the elasticflow port).
    assert_eq!(p["files"].as_array().unwrap().len(), 2, "{p}");
    // The Python it ran, and what that Python says it is.
    let said = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&said.stdout).trim().to_string();
    assert_eq!(p["interpreter"]["program"], "python3", "{p}");
    assert_eq!(p["interpreter"]["version"], said.as_str(), "{p}");
    assert!(said.starts_with("Python 3"), "{said}");
    // A program that is no Python names no interpreter.
    let v: Value = serde_json::from_str(&ok(&[
        "sim", "itp", SAMPLE, "--policy", "fifo", "--format", "json",
    ]))
    .unwrap();
    assert!(v["meta"]["policies"][0].get("interpreter").is_none(), "{v}");
}

#[test]
fn a_meta_file_that_would_overwrite_an_input_is_refused() {
    let dir = common::scratch_dir("provenance-clash");
    let trace = dir.join("out.csv.meta.json");
    std::fs::copy(sample_path(), &trace).unwrap();
    let before = std::fs::read(&trace).unwrap();
    let o = tracetui(&[
        "sim",
        "itp",
        trace.to_str().unwrap(),
        "--jobs-out",
        dir.join("out.csv").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--jobs-out"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&trace).unwrap(), before);
    assert!(!dir.join("out.csv").exists());
}

/// The lines of a file after its header.
fn body(p: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(p).unwrap();
    text.lines().skip(1).map(str::to_string).collect()
}

#[test]
fn compare_writes_one_jobs_and_one_timeline_file_equal_to_each_sim() {
    let dir = common::scratch_dir("compare-outputs");
    let (jobs, tl) = (dir.join("jobs.csv"), dir.join("tl.csv"));
    let v: Value = serde_json::from_str(&ok(&[
        "compare",
        "itp",
        SAMPLE,
        "--policies",
        "fifo,las,sjf",
        "--format",
        "json",
        "--jobs-out",
        jobs.to_str().unwrap(),
        "--timeline-out",
        tl.to_str().unwrap(),
        "--timeline-tick",
        "30m",
    ]))
    .unwrap();
    assert_eq!(v.as_array().unwrap().len(), 3);
    let (mut all_jobs, mut all_tl) = (Vec::new(), Vec::new());
    for policy in ["fifo", "las", "sjf"] {
        let (j1, t1) = sim_outputs(&dir, policy);
        assert_eq!(head(&j1), head(&jobs));
        assert_eq!(head(&t1), head(&tl));
        all_jobs.extend(body(&j1));
        all_tl.extend(body(&t1));
    }
    assert_eq!(
        body(&jobs),
        all_jobs,
        "each policy's rows, in order, as sim writes them"
    );
    assert_eq!(body(&tl), all_tl);
    assert!(head(&tl).starts_with("policy,time_s,"), "{}", head(&tl));
    let m: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("jobs.csv.meta.json")).unwrap())
            .unwrap();
    assert_eq!(m, v[0]["meta"]);
    let names: Vec<&str> = m["policies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["fifo", "las", "sjf"]);
}

/// `sim` of the sample under `policy`, its jobs and timeline (at 30 m)
/// written in `dir`: their paths.
fn sim_outputs(dir: &Path, policy: &str) -> (PathBuf, PathBuf) {
    let (jobs, tl) = (
        dir.join(format!("{policy}.jobs.csv")),
        dir.join(format!("{policy}.tl.csv")),
    );
    ok(&[
        "sim",
        "itp",
        SAMPLE,
        "--policy",
        policy,
        "--jobs-out",
        jobs.to_str().unwrap(),
        "--timeline-out",
        tl.to_str().unwrap(),
        "--timeline-tick",
        "30m",
    ]);
    (jobs, tl)
}

/// A file's header line.
fn head(p: &Path) -> String {
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string()
}

#[test]
fn compare_from_a_time_writes_no_per_job_files() {
    // --from forks the recorded replay: no per-job files there.
    let o = tracetui(&[
        "compare",
        "itp",
        SAMPLE,
        "--from",
        "1d",
        "--jobs-out",
        "x.csv",
    ]);
    assert_eq!(o.status.code(), Some(2));
}

/// Issue 63 item 10: a large file a policy's command names is hashed once
/// per command, whatever the runs, and said to be (it cost 40 s a process,
/// silently); its hash is in every run's meta.
#[test]
fn a_large_policy_file_is_hashed_once_and_said_to_be() {
    if !common::python() {
        eprintln!("SKIPPED: python3 is not installed");
        return;
    }
    let dir = common::scratch_dir("big-policy-file");
    let big = dir.join("weights.bin");
    // Sparse: 80 MiB of zeros that take no room.
    std::fs::File::create(&big)
        .unwrap()
        .set_len(80 << 20)
        .unwrap();
    let fifo = std::path::absolute("policies/fifo.py").unwrap();
    let plan = dir.join("plan.toml");
    std::fs::write(
        &plan,
        format!(
            "trace = \"itp:{}\"\npolicy = \"exec:python3 {} {}\"\ngpus = [96, 128, 160]\n",
            std::path::absolute(SAMPLE).unwrap().display(),
            fifo.display(),
            big.display()
        ),
    )
    .unwrap();
    let out = dir.join("out");
    let o = common::sweep::sweep(&plan, &out, &["-j", "1"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let said = err
        .matches("weights.bin (80 MiB) for the results' provenance")
        .count();
    assert_eq!(said, 1, "{err}");
    let results = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let want = sha256_of(&big);
    assert_eq!(results.matches(&want).count(), 3, "{results}");
}
