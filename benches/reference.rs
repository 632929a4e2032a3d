//! The speed ratio against a plain Python reference simulator, in one run:
//! the whole `tracetui sim` command (load + simulate + report) and
//! `benches/reference_sim.py` on the same generated 1.26 M-job ITP trace
//! (`gen itp --jobs 1260000 --seed 1 --gpus 6744 --load 0.9`), one pool of
//! 6,744 GPUs (`--placement pack` on 8-GPU machines), fifo and first-fit,
//! alternated, with the mean JCT checked equal. Prints medians, ranges and
//! the ratio of the medians.
//!
//! Run: `cargo bench --bench reference` (RUNS=5 by default).

#[path = "ratio_common.rs"]
mod ratio_common;

use ratio_common::{median_range, runs, timed, trace, tracetui_mean, tracetui_sim, GPUS};
use std::path::Path;
use std::process::Command;

fn python_mean(out: &str) -> f64 {
    out.split("mean JCT ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .unwrap()
}

fn main() {
    let runs = runs();
    let file = trace();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for policy in ["fifo", "first-fit"] {
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            let (s, a) = timed(&mut tracetui_sim(&file, policy), tracetui_mean);
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
