//! `tracetui bench`: timing the load, the replay and the drill-down on a
//! trace, with peak memory, as BENCHMARKS.md records them.

use super::LoadArgs;
use crate::sim::{self, Placement};
use crate::trace::model::Native;
use crate::trace::pai::detail;
use clap::Args;
use color_eyre::eyre::Result;
use std::sync::Arc;
use std::time::Instant;

#[derive(Debug, Args)]
pub struct BenchArgs {
    #[command(flatten)]
    pub load: LoadArgs,
    /// Policies to run to the end, comma-separated.
    #[arg(long, default_value = "recorded")]
    pub policies: String,
    /// How many jobs to drill into (PAI), spread evenly over the trace.
    #[arg(long, default_value_t = 200)]
    pub drill: usize,
}

/// Peak resident memory so far, in MB (Linux; `None` elsewhere).
pub fn peak_rss_mb() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn rss() -> String {
    peak_rss_mb().map_or("n/a".into(), |m| format!("{m:.0} MB"))
}

pub fn run(a: &BenchArgs) -> Result<()> {
    let t0 = Instant::now();
    let (trace, report) = crate::trace::load(a.load.format, &a.load.path, &a.load.options())?;
    let load_s = t0.elapsed().as_secs_f64();
    println!(
        "trace          {} {} ({} jobs, {} GPUs)",
        trace.format,
        trace.source,
        trace.jobs.len(),
        trace.cluster.total_gpus()
    );
    println!(
        "load           {load_s:.2} s to ready-to-replay; peak RSS {}",
        rss()
    );
    for (phase, at) in &report.timings {
        println!("  {phase:<22} done at {at:.2} s");
    }
    let trace = Arc::new(trace);
    for p in crate::sim::policy::parse_list(&a.policies).map_err(color_eyre::eyre::Report::msg)? {
        if p.available(&trace).is_err() {
            continue;
        }
        let t = Instant::now();
        let r = sim::run(trace.clone(), p, Placement::Consolidate);
        println!(
            "{:<14} {:.2} s to the end ({} jobs done)",
            p.name(),
            t.elapsed().as_secs_f64(),
            r.jobs_done
        );
    }
    if let Native::Pai(t) = &trace.native {
        let s = Instant::now();
        if let Err(e) = t.side_index() {
            println!("side index     failed: {e}");
        }
        println!(
            "side index     {:.2} s (sensor + machine metric); peak RSS {}",
            s.elapsed().as_secs_f64(),
            rss()
        );
        let n = t.jobs.len();
        let step = (n / a.drill.max(1)).max(1);
        let mut times: Vec<f64> = Vec::new();
        for row in (0..n).step_by(step).take(a.drill) {
            let s = Instant::now();
            let side = detail::side_rows(t, &detail::workers_of(t, row as u32))?;
            let v = detail::job_detail(t, &trace.symbols, row as u32, &side);
            std::hint::black_box(v);
            times.push(s.elapsed().as_secs_f64() * 1000.0);
        }
        times.sort_by(f64::total_cmp);
        if let (Some(med), Some(max)) = (times.get(times.len() / 2), times.last()) {
            println!(
                "drill-down     {} jobs: median {med:.2} ms, max {max:.2} ms",
                times.len()
            );
        }
    }
    if let Native::Philly(p) = &trace.native {
        if let Some(f) = &p.gpu_util {
            let s = Instant::now();
            match f.index() {
                Ok(idx) => {
                    println!(
                        "util index     {:.2} s for {:.2} GB ({} minutes; the file is read once, not held); peak RSS {}",
                        s.elapsed().as_secs_f64(),
                        f.size as f64 / 1e9,
                        idx.runs.len(),
                        rss()
                    );
                    let n = idx.runs.len();
                    let mut times: Vec<f64> = Vec::new();
                    for k in (0..n).step_by((n / a.drill.max(1)).max(1)).take(a.drill) {
                        let s = Instant::now();
                        std::hint::black_box(f.at(idx.runs[k].0, 120));
                        times.push(s.elapsed().as_secs_f64() * 1000.0);
                    }
                    times.sort_by(f64::total_cmp);
                    if let (Some(med), Some(max)) = (times.get(times.len() / 2), times.last()) {
                        println!(
                            "util minute    {} lookups: median {med:.2} ms, max {max:.2} ms",
                            times.len()
                        );
                    }
                }
                Err(e) => println!("util index     failed: {e}"),
            }
        }
    }
    println!("peak RSS       {}", rss());
    Ok(())
}
