//! The command line as a script sees it: output shapes (JSON, CSV, table),
//! determinism, exit codes, bad rows on stderr, and what needs a terminal.

use crate::common;

use common::cli::{keys, stderr, stdout, tracetui, KEYS, PAI, SAMPLE};
use std::process::Command;

#[test]
fn sim_json_is_one_object_with_the_documented_keys() {
    let o = tracetui(&[
        "sim", "itp", SAMPLE, "--policy", "sjf", "--gpus", "128", "--format", "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let mut want: Vec<String> = KEYS.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(keys(&v), want);
    for k in ["jct_s", "wait_s", "slowdown", "bounded_slowdown"] {
        assert_eq!(keys(&v[k]), vec!["mean", "p50", "p95", "p99"]);
    }
    assert_eq!(v["policy"], "sjf");
    assert_eq!(v["gpus"], 128);
    assert_eq!(v["gpus_per_node"], 8);
    assert_eq!(v["jobs"], 2000);
    assert_eq!(v["jobs_done"], 2000);
}

#[test]
fn compare_json_is_an_array_in_the_given_order() {
    let o = tracetui(&[
        "compare",
        "itp",
        SAMPLE,
        "--policies",
        "sgf,fifo,first-fit",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let names: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["policy"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["sgf", "fifo", "first-fit"]);
}

#[test]
fn compare_csv_has_a_header_and_a_row_per_policy() {
    let o = tracetui(&[
        "compare",
        "itp",
        SAMPLE,
        "--policies",
        "fifo,sjf",
        "--format",
        "csv",
    ]);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3);
    assert!(lines[0].starts_with("policy,placement,gpus,"));
    assert!(lines[1].starts_with("fifo,consolidate,"));
    assert!(lines[2].starts_with("sjf,consolidate,"));
}

#[test]
fn table_names_the_rules() {
    let o = tracetui(&["sim", "itp", SAMPLE, "--policy", "fifo-backfill"]);
    let out = stdout(&o);
    assert!(
        out.contains("policy    fifo-backfill — EASY backfill"),
        "{out}"
    );
    assert!(
        out.contains("rules: JCT = finish − submit; wait = first start − submit"),
        "{out}"
    );
    assert!(
        stderr(&o).contains("cluster: 144 GPUs = 18 nodes × 8 (auto"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn same_command_same_bytes() {
    let args = [
        "compare",
        "itp",
        SAMPLE,
        "--format",
        "json",
        "--placement",
        "pack",
    ];
    assert_eq!(stdout(&tracetui(&args)), stdout(&tracetui(&args)));
}

#[test]
fn every_file_the_program_cannot_read_or_write_says_why() {
    let missing = "/no/such/dir/x.csv";
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["gen", "itp", "--jobs", "5", "--out", missing],
            "cannot write /no/such/dir/x.csv: ",
        ),
        (
            vec!["sim", "itp", SAMPLE, "--jobs-out", missing],
            "/no/such/dir/x.csv: ",
        ),
        (
            vec!["sim", "itp", SAMPLE, "--timeline-out", missing],
            "/no/such/dir/x.csv: ",
        ),
        (
            vec!["sim", "itp", SAMPLE, "--plot", missing],
            "/no/such/dir/x.csv: ",
        ),
        (
            vec!["sim", "itp", missing],
            "/no/such/dir/x.csv: cannot open: ",
        ),
        (
            vec!["sim", "acme", missing],
            "/no/such/dir/x.csv: cannot open: ",
        ),
        (
            vec!["sim", "pai", "/no/such/dir"],
            "/no/such/dir: cannot open the directory of ",
        ),
        (
            vec!["sim", "philly", "/no/such/dir"],
            "/no/such/dir: cannot open the directory of ",
        ),
        (
            vec!["sim", "zeus", "/no/such/dir"],
            "/no/such/dir: cannot open: ",
        ),
        (
            vec!["sim", "itp", SAMPLE, "--energy", "/no/such/dir"],
            "/no/such/dir/summary_train.csv: cannot open: ",
        ),
    ];
    for (args, says) in cases {
        let out = tracetui(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = stderr(&out);
        let line = err
            .lines()
            .find(|l| l.starts_with("tracetui: error:"))
            .unwrap_or("");
        assert!(
            line.contains(says) && line.ends_with("No such file or directory (os error 2)"),
            "{args:?} should say why:\n{err}"
        );
    }
}

#[test]
fn exit_codes() {
    let usage = tracetui(&["sim", "itp", SAMPLE, "--policy", "lifo"]);
    assert_eq!(usage.status.code(), Some(2));
    assert!(
        stderr(&usage).contains("unknown policy 'lifo'"),
        "{}",
        stderr(&usage)
    );
    let missing = tracetui(&["sim", "itp", "no/such.csv"]);
    assert_eq!(missing.status.code(), Some(1));
    assert_eq!(
        stderr(&missing).trim(),
        "tracetui: error: no/such.csv: cannot open: No such file or directory (os error 2)"
    );
    let recorded = tracetui(&["sim", "itp", SAMPLE, "--policy", "recorded"]);
    assert_eq!(recorded.status.code(), Some(1));
    assert!(
        stderr(&recorded).contains("needs recorded start times"),
        "{}",
        stderr(&recorded)
    );
    assert_eq!(tracetui(&["--version"]).status.code(), Some(0));
}

#[test]
fn bad_rows_are_reported_on_stderr_and_strict_stops() {
    let p = common::write_file(
        "bad.csv",
        b"job_id,submission_time,duration,num_gpu\na,1,10,1\nb,2,x,1\n",
    );
    let p = p.to_str().unwrap();
    let lenient = tracetui(&["sim", "itp", p]);
    assert!(lenient.status.success());
    assert!(
        stderr(&lenient).contains("skipped 1 bad row"),
        "{}",
        stderr(&lenient)
    );
    assert!(stderr(&lenient).contains("bad.csv:3: column duration: not a whole number: 'x'"));
    let strict = tracetui(&["sim", "itp", p, "--strict"]);
    assert_eq!(strict.status.code(), Some(1));
    assert!(stderr(&strict).contains("bad.csv:3: column duration: not a whole number: 'x'"));
}

#[test]
fn the_replay_needs_a_terminal_and_says_what_to_use_instead() {
    let o = tracetui(&[]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("stdout is not a terminal"), "{e}");
    assert!(e.contains("tracetui sim itp"), "{e}");
    let o = tracetui(&["pai", PAI]);
    assert!(
        stderr(&o).contains("tracetui sim pai sample-traces/pai --policy recorded"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn keys_lists_the_effective_keymap() {
    let o = Command::new(env!("CARGO_BIN_EXE_tracetui"))
        .arg("keys")
        .env("XDG_CONFIG_HOME", common::scratch_dir("nokeys"))
        .output()
        .unwrap();
    let out = stdout(&o);
    let row = |name: &str| {
        out.lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .map(|l| l.split_whitespace().nth(1).unwrap_or("").to_string())
    };
    assert_eq!(row("play").as_deref(), Some("space"), "{out}");
    assert_eq!(row("quit_keep").as_deref(), Some("Q"), "{out}");
}

#[test]
fn the_offered_load_is_in_the_text_json_and_csv_not_only_on_stderr() {
    let o = tracetui(&["sim", "itp", SAMPLE, "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let load = v["offered_load_gpus"].as_f64().expect("a number");
    // The same figure the automatic sizing names on stderr.
    let note = format!("offered load {load:.1} GPUs");
    assert!(stderr(&o).contains(&note), "{note}: {}", stderr(&o));
    let share = load / v["gpus"].as_f64().unwrap() * 100.0;
    let text = stdout(&tracetui(&["sim", "itp", SAMPLE]));
    let line = format!("load      {load:.1} GPUs offered on average ({share:.1} % of the cluster)");
    assert!(text.contains(&line), "{line}\n{text}");
    let stats = stdout(&tracetui(&["stats", "itp", SAMPLE]));
    assert!(
        stats.contains(&format!("load       {load:.1} GPUs offered")),
        "{stats}"
    );
    let csv = stdout(&tracetui(&["sim", "itp", SAMPLE, "--format", "csv"]));
    let mut rows = csv.lines();
    let head: Vec<&str> = rows.next().unwrap().split(',').collect();
    let row: Vec<&str> = rows.next().unwrap().split(',').collect();
    let i = head.iter().position(|&h| h == "offered_load_gpus").unwrap();
    // (serde_json's default float parsing may miss the last bit.)
    assert!(
        (row[i].parse::<f64>().unwrap() - load).abs() < 1e-9,
        "{csv}"
    );
}
