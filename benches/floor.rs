//! The floor: what the plain Python reference's computation costs when
//! written as directly as Rust allows, with nothing else, on this machine.
//! One thread reads the three numbers the reference reads from each line
//! (no ids, no checks, no model, no per-job figures), sorts by submit time,
//! and runs the reference's loop (an event heap and a deque over one pool
//! of GPUs). Beside it, in the same run, the whole `tracetui sim` command
//! on the same trace, and the mean JCTs checked equal. This is not a
//! simulator to use: it shows how far the whole command is from the
//! cheapest program that gives the same answer, and so what a ratio to the
//! Python reference can be at all here.
//!
//! Run: `cargo bench --bench floor` (RUNS=5 by default; the trace is made
//! by `cargo bench --bench reference`).

use std::collections::{BinaryHeap, VecDeque};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

const GPUS: i64 = 6744;

/// (submit, duration, gpus) of every line, in file order.
fn parse(bytes: &[u8]) -> Vec<(i64, i64, i64)> {
    let body = &bytes[bytes.iter().position(|&b| b == b'\n').unwrap() + 1..];
    let mut jobs = Vec::with_capacity(body.len() / 50);
    for line in body.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let mut f = line.split(|&b| b == b',').skip(1).map(|x| {
            x.iter()
                .filter(|b| b.is_ascii_digit())
                .fold(0i64, |n, &b| n * 10 + (b - b'0') as i64)
        });
        let (s, d, g) = (f.next().unwrap(), f.next().unwrap(), f.next().unwrap());
        jobs.push((s, d, g));
    }
    jobs.sort_by_key(|j| j.0);
    jobs
}

/// The reference's loop: completions, arrivals, one pass; the mean JCT.
fn simulate(jobs: &[(i64, i64, i64)], first_fit: bool) -> f64 {
    let (mut free, mut i, mut done, mut jct) = (GPUS, 0, 0u64, 0i128);
    let mut queue: VecDeque<(i64, i64, i64)> = VecDeque::new();
    let mut running: BinaryHeap<std::cmp::Reverse<(i64, i64)>> = BinaryHeap::new();
    loop {
        let next_end = running.peek().map_or(i64::MAX, |r| r.0 .0);
        let now = next_end.min(jobs.get(i).map_or(i64::MAX, |j| j.0));
        if now == i64::MAX {
            break;
        }
        while running.peek().is_some_and(|r| r.0 .0 == now) {
            free += running.pop().unwrap().0 .1;
        }
        while i < jobs.len() && jobs[i].0 == now {
            if jobs[i].2 <= GPUS {
                queue.push_back(jobs[i]);
            }
            i += 1;
        }
        let mut start = |(s, d, g): (i64, i64, i64), free: &mut i64| {
            *free -= g;
            running.push(std::cmp::Reverse((now + d, g)));
            jct += (now + d - s) as i128;
            done += 1;
        };
        if first_fit {
            queue.retain(|&j| {
                let fits = j.2 <= free;
                if fits {
                    start(j, &mut free);
                }
                !fits
            });
        } else {
            while queue.front().is_some_and(|j| j.2 <= free) {
                start(queue.pop_front().unwrap(), &mut free);
            }
        }
    }
    jct as f64 / done.max(1) as f64
}

fn median_range(mut v: Vec<f64>) -> String {
    v.sort_by(f64::total_cmp);
    format!(
        "{:.3} s ({:.3} – {:.3})",
        v[v.len() / 2],
        v[0],
        v[v.len() - 1]
    )
}

fn main() {
    let runs: usize = std::env::var("RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let file = root.join("target/bench-data/itp-1260000-seed1-6744-0.9.csv");
    assert!(
        file.exists(),
        "run `cargo bench --bench reference` first to make {file:?}"
    );
    for (policy, first_fit) in [("fifo", false), ("first-fit", true)] {
        let (mut read, mut sim, mut whole, mut ours) = (vec![], vec![], vec![], vec![]);
        for _ in 0..runs {
            let t = Instant::now();
            let jobs = parse(&std::fs::read(&file).unwrap());
            let parsed = t.elapsed().as_secs_f64();
            let mean = simulate(&jobs, first_fit);
            let all = t.elapsed().as_secs_f64();
            println!("floor {policy}: {} jobs, mean JCT {mean:.6} s", jobs.len());
            let t = Instant::now();
            let o = Command::new(env!("CARGO_BIN_EXE_tracetui"))
                .args(["sim", "itp"])
                .arg(&file)
                .args(["--gpus", "6744", "--placement", "pack", "--policy", policy])
                .args(["--format", "json"])
                .output()
                .unwrap();
            ours.push(t.elapsed().as_secs_f64());
            let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            let theirs = v["jct_s"]["mean"].as_f64().unwrap();
            assert!(
                (theirs - mean).abs() < 1e-6,
                "mean JCT {theirs} vs the floor's {mean}"
            );
            read.push(parsed);
            sim.push(all - parsed);
            whole.push(all);
        }
        println!("{policy}: floor read+parse+sort {}", median_range(read));
        println!("{policy}: floor simulate        {}", median_range(sim));
        println!(
            "{policy}: floor whole           {}",
            median_range(whole.clone())
        );
        println!("{policy}: tracetui sim whole    {}", median_range(ours));
    }
}
