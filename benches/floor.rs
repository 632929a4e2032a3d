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
//! on first use, as for `cargo bench --bench reference`).

#[path = "ratio_common.rs"]
mod ratio_common;

use ratio_common::{median_range, runs, timed, trace, tracetui_mean, tracetui_sim};
use std::collections::{BinaryHeap, VecDeque};
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

/// "median s (low – high)" of `v`.
fn spread(mut v: Vec<f64>) -> String {
    let (m, lo, hi) = median_range(&mut v);
    format!("{m:.3} s ({lo:.3} – {hi:.3})")
}

fn main() {
    let file = trace();
    for (policy, first_fit) in [("fifo", false), ("first-fit", true)] {
        let (mut read, mut sim, mut whole, mut ours) = (vec![], vec![], vec![], vec![]);
        for _ in 0..runs() {
            let t = Instant::now();
            let jobs = parse(&std::fs::read(&file).unwrap());
            let parsed = t.elapsed().as_secs_f64();
            let mean = simulate(&jobs, first_fit);
            let all = t.elapsed().as_secs_f64();
            println!("floor {policy}: {} jobs, mean JCT {mean:.6} s", jobs.len());
            let (secs, theirs) = timed(&mut tracetui_sim(&file, policy), tracetui_mean);
            ours.push(secs);
            assert!(
                (theirs - mean).abs() < 1e-6,
                "mean JCT {theirs} vs the floor's {mean}"
            );
            read.push(parsed);
            sim.push(all - parsed);
            whole.push(all);
        }
        println!("{policy}: floor read+parse+sort {}", spread(read));
        println!("{policy}: floor simulate        {}", spread(sim));
        println!("{policy}: floor whole           {}", spread(whole));
        println!("{policy}: tracetui sim whole    {}", spread(ours));
    }
}
