//! Helpers of the sweep tests: a plan written, a sweep run, its
//! results.csv read, rows checked against `sim` run alone.

use super::cli::{stderr, tracetui};
use std::path::{Path, PathBuf};

pub fn write_plan(dir: &Path, text: &str) -> PathBuf {
    let p = dir.join("plan.toml");
    std::fs::write(&p, text).unwrap();
    p
}

pub fn sweep(plan: &Path, out: &Path, more: &[&str]) -> std::process::Output {
    let mut args = vec![
        "sweep",
        plan.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(more);
    tracetui(&args)
}

pub fn results(out: &Path) -> String {
    std::fs::read_to_string(out.join("results.csv")).unwrap()
}

/// results.csv's rows as maps from column to value.
pub fn rows(out: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let mut r = csv::Reader::from_path(out.join("results.csv")).unwrap();
    let h = r.headers().unwrap().clone();
    r.records()
        .map(|row| {
            let row = row.unwrap();
            h.iter()
                .zip(row.iter())
                .map(|(k, v)| (k.into(), v.into()))
                .collect()
        })
        .collect()
}

/// `sim --format csv`'s one row, as a map.
pub fn sim_row(args: &[&str]) -> std::collections::HashMap<String, String> {
    let mut all = vec!["sim"];
    all.extend(args);
    all.extend(["--format", "csv"]);
    let o = tracetui(&all);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut r = csv::Reader::from_reader(o.stdout.as_slice());
    let h = r.headers().unwrap().clone();
    let row = r.records().next().unwrap().unwrap();
    h.iter()
        .zip(row.iter())
        .map(|(k, v)| (k.into(), v.into()))
        .collect()
}

/// Every `sim` column of a sweep row equals the row of `sim` run alone.
pub fn assert_rows_equal_sim(out: &Path, trace_of: impl Fn(&str) -> (String, String)) {
    for row in rows(out) {
        assert_eq!(row["error"], "", "{row:?}");
        let (format, path) = trace_of(&row["plan_trace"]);
        let mut args = vec![format.as_str(), path.as_str()];
        let flags: Vec<String> = row
            .iter()
            .filter(|(k, v)| k.starts_with("plan_") && *k != "plan_trace" && !v.is_empty())
            .map(|(k, v)| format!("--{}={v}", k["plan_".len()..].replace('_', "-")))
            .collect();
        args.extend(flags.iter().map(String::as_str));
        let alone = sim_row(&args);
        for (k, v) in alone.iter().filter(|(k, _)| *k != "meta") {
            assert_eq!(&row[k], v, "column {k} of run {} ({args:?})", row["run"]);
        }
        // The meta: this run's, the same trace and knobs as sim's.
        let meta: serde_json::Value = serde_json::from_str(&row["meta"]).unwrap();
        let mut alone_meta: serde_json::Value = serde_json::from_str(&alone["meta"]).unwrap();
        assert_eq!(meta["run"], row["run"].as_str());
        assert_eq!(meta["trace"], alone_meta["trace"]);
        alone_meta["knobs"]["format"] = "table".into();
        assert_eq!(meta["knobs"], alone_meta["knobs"], "run {}", row["run"]);
    }
}

/// The command in a row's meta, run with `--format csv`, gives that row.
pub fn assert_command_reproduces(out: &Path) {
    let row = rows(out).swap_remove(0);
    let meta: serde_json::Value = serde_json::from_str(&row["meta"]).unwrap();
    let command = meta["command"].as_str().unwrap();
    let rest = command.strip_prefix("tracetui ").unwrap();
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("\"$0\" {rest} --format csv"))
        .arg(env!("CARGO_BIN_EXE_tracetui"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{command}: {}", stderr(&o));
    let mut r = csv::Reader::from_reader(o.stdout.as_slice());
    let h = r.headers().unwrap().clone();
    let again = r.records().next().unwrap().unwrap();
    for (k, v) in h.iter().zip(again.iter()).filter(|(k, _)| *k != "meta") {
        assert_eq!(row[k], v, "column {k} of `{command}`");
    }
}

pub const SMALL: &str = r#"
trace = "itp:sample-traces/itp/sample.csv"
policy = ["fifo", "sjf", "las"]
gpus = [16, 32]
placement = ["consolidate", "spread"]
preempt_cost = 0
"#;

pub fn split(t: &str) -> (String, String) {
    let (f, p) = t.split_once(':').unwrap();
    (f.into(), p.into())
}
