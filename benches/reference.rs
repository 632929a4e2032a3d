//! The speed ratio against a plain Python reference simulator, in one run:
//! the whole `tracetui sim` command (load + simulate + report) and
//! `benches/reference_sim.py` on the same generated 1.26 M-job ITP trace
//! (`gen itp --jobs 1260000 --seed 1 --gpus 6744 --load 0.9`), one pool of
//! 6,744 GPUs (`--placement pack` on 8-GPU machines), fifo and first-fit,
//! alternated, with the mean JCT checked equal. Prints medians, ranges and
//! the ratio of the medians.
//!
//! Run: `cargo bench --bench reference` (RUNS=5 by default).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const GPUS: &str = "6744";

fn trace() -> PathBuf {
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
fn timed(cmd: &mut Command, mean_of: fn(&str) -> f64) -> (f64, f64) {
    let t = Instant::now();
    let o = cmd.output().unwrap();
    let secs = t.elapsed().as_secs_f64();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (secs, mean_of(&String::from_utf8_lossy(&o.stdout)))
}

fn tracetui_mean(out: &str) -> f64 {
    let v: serde_json::Value = serde_json::from_str(out).unwrap();
    v["jct_s"]["mean"].as_f64().unwrap()
}

fn python_mean(out: &str) -> f64 {
    out.split("mean JCT ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .unwrap()
}

fn median_range(v: &mut [f64]) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[0], v[v.len() - 1])
}

fn main() {
    let runs: usize = std::env::var("RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let file = trace();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for policy in ["fifo", "first-fit"] {
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            let (s, a) = timed(
                Command::new(env!("CARGO_BIN_EXE_tracetui"))
                    .args(["sim", "itp"])
                    .arg(&file)
                    .args(["--gpus", GPUS, "--placement", "pack", "--policy", policy])
                    .args(["--format", "json"]),
                tracetui_mean,
            );
            ours.push(s);
            let (p, b) = timed(
                Command::new("python3")
                    .arg(root.join("benches/reference_sim.py"))
                    .arg(&file)
                    .args([GPUS, policy]),
                python_mean,
            );
            theirs.push(p);
            assert!((a - b).abs() < 1e-3, "{policy}: mean JCT {a} vs {b}");
        }
        let (m, lo, hi) = median_range(&mut ours);
        let (pm, plo, phi) = median_range(&mut theirs);
        println!(
            "{policy:<10} tracetui sim {m:.2} s ({lo:.2}–{hi:.2})  python reference {pm:.2} s ({plo:.2}–{phi:.2})  ratio {:.1}×  ({runs} runs each, alternated)",
            pm / m
        );
    }
}
