//! Outputs never clobber an input or each other, `-` is standard output,
//! and a result that cannot be written is an error (the reliability
//! probe's findings 1, 4, 6, 10 and 15).

use crate::common;

use common::cli::{stderr, stdout, tracetui, PAI, SAMPLE};
use common::scratch_dir;
use std::path::Path;
use std::process::{Command, Stdio};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

#[test]
fn an_output_that_is_the_trace_is_refused_before_anything_is_read() {
    let dir = scratch_dir("out-is-trace");
    let trace = dir.join("t.csv");
    std::fs::copy(SAMPLE, &trace).unwrap();
    let before = std::fs::read(&trace).unwrap();
    for option in ["--jobs-out", "--timeline-out", "--plot"] {
        let o = tracetui(&["sim", "itp", s(&trace), "--gpus", "64", option, s(&trace)]);
        assert_eq!(o.status.code(), Some(2), "{option}: {}", stderr(&o));
        assert!(stderr(&o).contains("is an input"), "{}", stderr(&o));
        assert!(stdout(&o).is_empty());
        assert_eq!(
            std::fs::read(&trace).unwrap(),
            before,
            "{option} changed the trace"
        );
    }
    // Through a symlink to it, too.
    #[cfg(unix)]
    {
        let link = dir.join("link.csv");
        std::os::unix::fs::symlink(&trace, &link).unwrap();
        let o = tracetui(&[
            "sim",
            "itp",
            s(&trace),
            "--gpus",
            "64",
            "--jobs-out",
            s(&link),
        ]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert_eq!(std::fs::read(&trace).unwrap(), before);
    }
}

#[test]
fn a_pai_table_is_never_an_output() {
    let dir = scratch_dir("out-is-table");
    copy_dir(Path::new(PAI), &dir);
    let table = dir.join("pai_job_table.csv");
    let before = std::fs::read(&table).unwrap();
    let o = tracetui(&["sim", "pai", s(&dir), "--plot", s(&table)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--plot"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&table).unwrap(), before);
    let o = tracetui(&[
        "compare",
        "pai",
        s(&dir),
        "--policies",
        "fifo",
        "--plot",
        s(&table),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // A new file in the directory is fine.
    let fig = dir.join("fig.svg");
    let o = tracetui(&["sim", "pai", s(&dir), "--plot", s(&fig)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&fig).unwrap().contains("<svg"));
}

#[test]
fn one_path_for_two_outputs_is_a_usage_error() {
    let dir = scratch_dir("out-twice");
    let p = dir.join("out.csv");
    let o = tracetui(&[
        "sim",
        "itp",
        SAMPLE,
        "--jobs-out",
        s(&p),
        "--timeline-out",
        s(&p),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--jobs-out and --timeline-out"),
        "{}",
        stderr(&o)
    );
    assert!(!p.exists(), "written before the check");
}

#[test]
fn dash_is_standard_output_and_the_summary_moves_to_standard_error() {
    let o = tracetui(&["sim", "itp", SAMPLE, "--jobs-out", "-", "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = stdout(&o);
    let mut r = csv::Reader::from_reader(rows.as_bytes());
    assert!(r.headers().unwrap().iter().any(|h| h == "id"), "{rows}");
    assert!(r.records().count() > 100);
    assert!(stderr(&o).contains("\"jobs_done\""), "{}", stderr(&o));
}

#[cfg(target_os = "linux")]
#[test]
fn results_that_cannot_reach_standard_output_are_an_error() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_tracetui"))
        .args(["sim", "itp", SAMPLE, "--format", "json"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::from(full))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("cannot write standard output"),
        "{}",
        stderr(&o)
    );
    // A reader that stops early is no failure.
    let mut child = Command::new(env!("CARGO_BIN_EXE_tracetui"))
        .args(["sim", "itp", SAMPLE, "--jobs-out", "-"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    assert!(child.wait().unwrap().success());
}

#[test]
fn gen_refuses_a_job_count_it_cannot_hold_and_leaves_nothing() {
    let dir = scratch_dir("gen-bound");
    let out = dir.join("t.csv");
    for jobs in ["18446744073709551615", "4294967296"] {
        let o = tracetui(&["gen", "itp", "--jobs", jobs, "--out", s(&out)]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(stderr(&o).contains("at most"), "{}", stderr(&o));
    }
    // The joined formats hold their tables in memory: a lower bound each.
    for (format, jobs) in [("pai", "12600001"), ("philly", "1200001")] {
        let o = tracetui(&["gen", format, "--jobs", jobs, "--out", s(&dir.join(format))]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("more than gen {format} makes"))
                && stderr(&o).contains("bytes a job"),
            "{}",
            stderr(&o)
        );
    }
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    let o = tracetui(&["gen", "pai", "--jobs", "5", "--out", "-"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let o = tracetui(&["gen", "itp", "--jobs", "5", "--out", "-"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().count(), 6);
}

#[test]
fn a_schedules_label_is_one_csv_field() {
    let o = tracetui(&[
        "compare",
        "itp",
        SAMPLE,
        "--policies",
        "fifo",
        "--policy-schedule",
        "0:fifo,2d:sjf",
        "--format",
        "csv",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let width = r.headers().unwrap().len();
    let rows: Vec<_> = r.records().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), 2, "{text}");
    for row in &rows {
        assert_eq!(row.len(), width, "{text}");
    }
}

/// Issue 63, item 1: an output never lands on anything the run reads —
/// the cluster spec, a throughput table, a policy's script — nor in the
/// system's folders (`--plot /dev/null` put its numbers in /dev), nor, for
/// a sweep, among its own records; a trace inside a sweep's `--out` is
/// refused too.
#[test]
fn outputs_never_land_on_what_a_run_reads() {
    let dir = common::scratch_dir("outputs-read");
    let (trace, tables) = common::write_elastic(&dir, "a,0,400,m,9999,32,1,999\n");
    let spec = dir.join("spec.csv");
    let spec_text =
        "num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node\n1,1,4,64,256\n";
    std::fs::write(&spec, spec_text).unwrap();
    let table = tables.join("m.csv");
    let table_text = std::fs::read_to_string(&table).unwrap();
    let script = dir.join("p.py");
    std::fs::write(&script, "print('hi')\n").unwrap();
    let base = [
        "sim",
        "itp",
        s(&trace),
        "--cluster",
        s(&spec),
        "--throughputs",
        s(&tables),
    ];
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--jobs-out", s(&spec)], "is an input"),
        (vec!["--timeline-out", s(&table)], "is an input"),
        (vec!["--plot", s(&table)], "is an input"),
        (
            vec!["--policy", "exec:python3 p.py", "--jobs-out", "p.py"],
            "is an input",
        ),
        (vec!["--plot", "/dev/null"], "would land in /dev"),
        (
            vec!["--jobs-out", "/proc/self/x.csv"],
            "would land in /proc",
        ),
    ];
    for (more, said) in cases {
        let mut args = base.to_vec();
        args.extend(more.iter().copied());
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_tracetui"))
            .args(&args)
            .current_dir(&dir)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{more:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(said), "{more:?}: {}", stderr(&o));
    }
    assert_eq!(std::fs::read_to_string(&spec).unwrap(), spec_text);
    assert_eq!(std::fs::read_to_string(&table).unwrap(), table_text);
    assert_eq!(std::fs::read_to_string(&script).unwrap(), "print('hi')\n");
    assert!(!Path::new("/dev/null.data.csv").exists());
    // A sweep: its figure among its records, a trace inside its --out.
    let out = dir.join("out");
    let plan = dir.join("plan.toml");
    std::fs::write(
        &plan,
        format!("trace = \"itp:{}\"\ngpus = [4, 8]\n", s(&trace)),
    )
    .unwrap();
    let sweep = |plan: &Path, more: &[&str]| {
        let mut args = vec!["sweep", s(plan), "--out", s(&out)];
        args.extend(more);
        tracetui(&args)
    };
    assert!(sweep(&plan, &[]).status.success());
    let record = std::fs::read_dir(out.join("runs"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let before = std::fs::read(&record).unwrap();
    let o = sweep(&plan, &["--plot", s(&out.join("runs/fig.svg"))]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("inside the sweep's own folders"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(&record).unwrap(), before);
    std::os::unix::fs::symlink(out.join("results.csv"), dir.join("linked.csv")).unwrap();
    let inside = dir.join("inside.toml");
    std::fs::write(
        &inside,
        format!("trace = \"itp:{}\"\ngpus = 4\n", s(&dir.join("linked.csv"))),
    )
    .unwrap();
    let table_before = std::fs::read(out.join("results.csv")).unwrap();
    let o = sweep(&inside, &[]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("inside the sweep's --out"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read(out.join("results.csv")).unwrap(),
        table_before
    );
}

/// Test runs leave no pile of directories in /tmp: those of a process
/// that has ended are swept; those of one still running are kept.
#[test]
fn leftovers_of_ended_test_runs_are_swept() {
    let tmp = common::scratch_dir("sweep-root");
    let pid_max: u32 = std::fs::read_to_string("/proc/sys/kernel/pid_max")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(4_194_304);
    let dead = pid_max + 1;
    let me = std::process::id();
    let names = [
        format!("tracetui-test-old-{dead}-3"),
        format!("tracetui-outfile-plain-{dead}"),
        format!("py-imports-{dead}"),
        format!("tracetui-test-mine-{me}-0"),
        format!("someone-else-{dead}"),
        "tracetui-no-number".to_string(),
    ];
    for n in &names {
        std::fs::create_dir_all(tmp.join(n)).unwrap();
    }
    common::sweep_leftovers(&tmp);
    let left: Vec<bool> = names.iter().map(|n| tmp.join(n).exists()).collect();
    assert_eq!(left, [false, false, false, true, true, true]);
}
