//! Running the binary as a user or script would, for the command-line tests.

use std::process::{Command, Output};

/// The committed ITP sample.
pub const SAMPLE: &str = "sample-traces/itp/sample.csv";
/// The committed PAI sample directory.
pub const PAI: &str = "sample-traces/pai";

pub fn tracetui(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tracetui"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

/// `tracetui` with `args`, and its own peak resident set in KiB: the
/// largest `VmHWM` its `/proc` status gave, read every 2 ms while it ran.
/// Not the rusage of a wait: a child started from this process counts this
/// process's resident set too (the address space it was started from), and
/// this binary runs every test.
pub fn tracetui_peak_kib(args: &[&str]) -> (Output, i64) {
    let dir = super::scratch_dir("peak");
    let (out, err) = (dir.join("stdout"), dir.join("stderr"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_tracetui"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(std::process::Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        let hwm = std::fs::read_to_string(&status_file)
            .ok()
            .and_then(|t| {
                let line = t.lines().find(|l| l.starts_with("VmHWM:"))?;
                line.split_whitespace().nth(1)?.parse::<i64>().ok()
            })
            .unwrap_or(0);
        peak = peak.max(hwm);
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    let o = Output {
        status,
        stdout: std::fs::read(&out).unwrap(),
        stderr: std::fs::read(&err).unwrap(),
    };
    let _ = std::fs::remove_dir_all(&dir);
    assert!(peak > 0, "no VmHWM read for tracetui {args:?}");
    (o, peak)
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

pub const KEYS: [&str; 18] = [
    "meta",
    "policy",
    "placement",
    "gpus",
    "gpus_per_node",
    "offered_load_gpus",
    "jobs",
    "jobs_done",
    "jobs_rejected",
    "jobs_dropped",
    "jobs_unfinished",
    "makespan_s",
    "jct_s",
    "wait_s",
    "slowdown",
    "bounded_slowdown",
    "gpu_util",
    "preemptions",
];

pub fn keys(v: &serde_json::Value) -> Vec<String> {
    let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
    k.sort();
    k
}

/// A summary (an object, or an array of them) without its `meta`, which
/// names the command line: two commands that give the same figures differ
/// only there.
pub fn without_meta(mut v: serde_json::Value) -> serde_json::Value {
    match &mut v {
        serde_json::Value::Object(o) => {
            o.remove("meta");
        }
        serde_json::Value::Array(a) => {
            for x in a {
                if let Some(o) = x.as_object_mut() {
                    o.remove("meta");
                }
            }
        }
        _ => {}
    }
    v
}

/// `without_meta` of a JSON summary's text, as text again.
pub fn json_without_meta(text: &str) -> String {
    match serde_json::from_str(text) {
        Ok(v) => serde_json::to_string_pretty(&without_meta(v)).unwrap(),
        Err(_) => text.to_string(),
    }
}

/// `stats pai sample-traces/pai --at WHEN` (with `--policy` where given):
/// the machines (idle, partly used, full) it counts.
pub fn machines_at(when: &str, policy: Option<&str>) -> (usize, usize, usize) {
    let mut args = vec!["stats", "pai", PAI, "--at", when, "--format", "json"];
    if let Some(p) = policy {
        args.extend(["--policy", p]);
    }
    let o = tracetui(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let n = |k: &str| v["machines_at"][k].as_u64().unwrap() as usize;
    (n("idle"), n("partly_used"), n("full"))
}
