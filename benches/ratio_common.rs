//! What the ratio benches (`reference`, `floor`) share: the generated
//! 1.26 M-job ITP trace (made on first use), the whole `tracetui sim`
//! command on it, its mean JCT, the rounds to run and their median.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

pub const GPUS: &str = "6744";

/// Rounds to run: `RUNS`, or 5.
pub fn runs() -> usize {
    std::env::var("RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5)
}

/// The whole `tracetui sim` of `file` under `policy`: one pool of GPUs
/// (`--placement pack` on 8-GPU machines), the report as JSON.
pub fn tracetui_sim(file: &Path, policy: &str) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tracetui"));
    c.args(["sim", "itp"])
        .arg(file)
        .args(["--gpus", GPUS, "--placement", "pack", "--policy", policy])
        .args(["--format", "json"]);
    c
}

pub fn trace() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("itp-1260000-seed1-6744-0.9.csv");
    if !p.exists() {
        let o = Command::new(env!("CARGO_BIN_EXE_tracetui"))
            .args([
                "gen", "itp", "--jobs", "1260000", "--seed", "1", "--gpus", GPUS, "--load", "0.9",
            ])
            .arg("--out")
            .arg(&p)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    p
}

/// Seconds the command took, and its mean JCT.
pub fn timed(cmd: &mut Command, mean_of: fn(&str) -> f64) -> (f64, f64) {
    let t = Instant::now();
    let o = cmd.output().unwrap();
    let secs = t.elapsed().as_secs_f64();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (secs, mean_of(&String::from_utf8_lossy(&o.stdout)))
}

pub fn tracetui_mean(out: &str) -> f64 {
    let v: serde_json::Value = serde_json::from_str(out).unwrap();
    v["jct_s"]["mean"].as_f64().unwrap()
}

pub fn median_range(v: &mut [f64]) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[0], v[v.len() - 1])
}
