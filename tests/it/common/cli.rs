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

/// `tracetui` with `args`, and its own peak resident set in KiB, read as it
/// is waited for (`wait4`'s rusage): tests running beside it in this
/// process change nothing.
pub fn tracetui_peak_kib(args: &[&str]) -> (Output, i64) {
    use std::os::unix::process::ExitStatusExt;
    let dir = super::scratch_dir("peak");
    let (out, err) = (dir.join("stdout"), dir.join("stderr"));
    // Waited for below through wait4, which std's Child does not offer.
    #[allow(clippy::zombie_processes)]
    let child = Command::new(env!("CARGO_BIN_EXE_tracetui"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(std::process::Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let pid = child.id() as i32;
    let mut status = 0;
    let mut u = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: wait4 on our own child, with valid pointers; zeroed is a valid rusage.
    let rc = unsafe { libc::wait4(pid, &mut status, 0, u.as_mut_ptr()) };
    assert_eq!(rc, pid, "waiting for tracetui {args:?}");
    // SAFETY: wait4 returned the child, so it wrote the struct.
    let peak = unsafe { u.assume_init() }.ru_maxrss;
    let o = Output {
        status: std::process::ExitStatus::from_raw(status),
        stdout: std::fs::read(&out).unwrap(),
        stderr: std::fs::read(&err).unwrap(),
    };
    let _ = std::fs::remove_dir_all(&dir);
    (o, peak)
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

pub const KEYS: [&str; 16] = [
    "meta",
    "policy",
    "placement",
    "gpus",
    "gpus_per_node",
    "offered_load_gpus",
    "jobs",
    "jobs_done",
    "jobs_rejected",
    "jobs_unfinished",
    "makespan_s",
    "jct_s",
    "wait_s",
    "slowdown",
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
