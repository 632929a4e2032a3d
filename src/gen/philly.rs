//! Synthetic Philly traces in the released layout: `cluster_job_log` (JSON
//! with attempts and retries, exact GPU ids), `cluster_machine_list` (the
//! released composition: 321 × 2 GPUs of 12 GB, 231 × 8 GPUs of 24 GB), and
//! `cluster_gpu_util` for the first `util_minutes` minutes.
//!
//! Calibrated to the published Philly row of cluster_summary.csv: run time
//! (last attempt end − first attempt start) median 874 s, mean 18,006 s, at
//! most 4,240,676 s; queueing (first attempt start − submit) median 189 s,
//! mean 3,761 s; GPUs per job median 1, mean 1.93, at most 128; 60.4 % Pass,
//! 9 % Killed, 30.5 % Failed. Stratified sampling (see `dist`) makes a
//! trace's statistics hit these values. Submissions run from Monday
//! 2017-08-07 at about 856 a day (the release's 117,325 jobs over 137 days)
//! with a working-hours rhythm in Los Angeles time.

use super::dist::{exact_categorical, lognormal_matching, shuffle};
use crate::sim::{place, ClusterState, Grant, Placement, TypeFilter};
use crate::trace::{format_local, Cluster, Demand, Machine, Rng};
use std::collections::BTreeSet;
use std::io::{self, Write};
use std::path::Path;

/// 2017-08-07 00:00:00 PDT.
pub const START: i64 = 1_502_089_200;
pub const JOBS_PER_DAY: f64 = 117_325.0 / 137.0;
pub const RUNTIME: (f64, f64, f64) = (874.0, 18_006.055, 4_240_676.0);
pub const QUEUE: (f64, f64) = (189.0, 3_760.604);
/// GPUs per job: mean 1.93, median 1, max 128.
pub const GPU_SHARES: [(u32, f64); 8] = [
    (1, 0.78),
    (2, 0.08),
    (4, 0.075),
    (8, 0.055),
    (16, 0.007),
    (32, 0.0025),
    (64, 0.0004),
    (128, 0.0001),
];
pub const STATUS: [(&str, f64); 3] = [("Pass", 0.604), ("Killed", 0.09), ("Failed", 0.305)];
const HOURLY: [f64; 24] = [
    0.6, 0.5, 0.45, 0.4, 0.4, 0.45, 0.55, 0.7, 0.9, 1.2, 1.4, 1.45, 1.3, 1.4, 1.5, 1.5, 1.45, 1.35,
    1.2, 1.1, 1.0, 0.95, 0.85, 0.7,
];

#[derive(Debug, Clone)]
pub struct GenOptions {
    pub jobs: u64,
    pub seed: u64,
    /// Minutes of `cluster_gpu_util` to write from the first submission.
    pub util_minutes: u64,
    /// Write the release's `trace-data.tar.gz` (members `trace-data/NAME`)
    /// in place of the three files.
    pub tar_gz: bool,
}

pub fn cluster() -> Cluster {
    let mut c = Cluster::default();
    let small = c.type_id("12GB GPU");
    let big = c.type_id("24GB GPU");
    for i in 0..552u32 {
        let (ty, gpus) = if i < 321 { (small, 2) } else { (big, 8) };
        c.machines.push(Machine {
            name: format!("m{i}"),
            gpu_type: ty,
            gpus,
            cpu_milli: 0,
            mem_mib: 0,
            recorded_only: false,
        });
    }
    c
}

struct GAttempt {
    start: Option<i64>,
    end: Option<i64>,
    detail: Vec<(u32, u64)>,
}

struct GJob {
    id: String,
    status: &'static str,
    vc: String,
    user: String,
    submit: i64,
    gpus: u32,
    attempts: Vec<GAttempt>,
}

fn submissions(n: usize, rng: &mut Rng) -> Vec<i64> {
    let mean_w = HOURLY.iter().sum::<f64>() / 24.0;
    let peak = HOURLY.iter().cloned().fold(0.0, f64::max) / mean_w;
    let rate = JOBS_PER_DAY / 86_400.0;
    let mut t = 0.0f64;
    (0..n)
        .map(|_| loop {
            t += rng.exponential(rate * peak);
            // Hours in PDT (the trace starts in summer time).
            let hour = ((t as i64).rem_euclid(86_400) / 3600) as usize;
            if rng.uniform() * peak < HOURLY[hour] / mean_w {
                break START + t as i64;
            }
        })
        .collect()
}

fn jobs(opts: &GenOptions, cluster: &Cluster) -> (Vec<GJob>, u64) {
    let n = opts.jobs as usize;
    let mut rng = Rng::new(opts.seed.wrapping_mul(0x9E37_79B9) ^ 0x0009_4111);
    let submits = submissions(n, &mut rng);
    let runtimes = lognormal_matching(n, RUNTIME.0, RUNTIME.1, 1.0, RUNTIME.2, &mut rng);
    let queues = lognormal_matching(n, QUEUE.0, QUEUE.1, 0.0, 60.0 * 86_400.0, &mut rng);
    let gpus = exact_categorical(n, &GPU_SHARES.map(|g| g.1), &mut rng);
    let status = exact_categorical(n, &STATUS.map(|s| s.1), &mut rng);
    let vcs: Vec<String> = (0..14)
        .map(|i| format!("{:06x}", (i as u64 * 0x9E3779B1 + opts.seed) & 0xFF_FFFF))
        .collect();
    let users = (n / 40).clamp(8, 320) as u64;
    let mut out: Vec<GJob> = Vec::with_capacity(n);
    for i in 0..n {
        let g = GPU_SHARES[gpus[i]].0;
        let st = STATUS[status[i]].0;
        let attempts = attempts(st, submits[i] + queues[i], runtimes[i], &mut rng);
        out.push(GJob {
            id: format!(
                "application_{}_{}",
                1_502_000_000_000u64 + opts.seed % 1000,
                i + 1
            ),
            status: st,
            vc: vcs[rng.below(vcs.len() as u64) as usize].clone(),
            user: format!(
                "{:06x}",
                (rng.uniform().powi(3) * users as f64) as u64 * 2_654_435_761 % 0xFF_FFFF
            ),
            submit: submits[i],
            gpus: g,
            attempts,
        });
    }
    quirks(&mut out, &submits, &mut rng);
    let overflow = placements(&mut out, cluster);
    (out, overflow)
}

/// A job's attempts from `start`, `total` seconds of run in all: Failed
/// and Killed jobs are retried sometimes, the run split over the attempts.
fn attempts(st: &str, start: i64, total: i64, rng: &mut Rng) -> Vec<GAttempt> {
    let tries = if st != "Pass" && rng.chance(0.3) {
        2 + rng.below(2) as usize
    } else {
        1
    };
    let mut attempts = Vec::with_capacity(tries);
    let mut t = start;
    for k in 0..tries {
        let left = start + total - t;
        let len = if k + 1 == tries {
            left
        } else {
            (left as f64 * rng.range(0.1, 0.5)) as i64
        };
        attempts.push(GAttempt {
            start: Some(t),
            end: Some(t + len),
            detail: Vec::new(),
        });
        t += len
            + if k + 1 == tries {
                0
            } else {
                (left - len).min(60 + rng.below(600) as i64)
            };
    }
    // Keep the span exactly the drawn run time.
    if let Some(last) = attempts.last_mut() {
        last.end = Some(start + total);
    }
    attempts
}

/// The release's quirks, in small numbers: jobs that never got an attempt,
/// attempts whose start was not logged, and jobs cut while running.
fn quirks(out: &mut [GJob], submits: &[i64], rng: &mut Rng) {
    let n = out.len();
    let mut idx: Vec<usize> = (0..n).collect();
    shuffle(&mut idx, rng);
    let none = (n as f64 * 0.004).round() as usize;
    let broken = (n as f64 * 0.002).round() as usize;
    for &i in idx.iter().take(none) {
        out[i].attempts.clear();
    }
    for &i in idx.iter().skip(none).take(broken) {
        if let Some(a) = out[i].attempts.first_mut() {
            a.start = None;
        }
    }
    // A few jobs running at the trace's end have no end time yet: chosen
    // among the last two hours' submissions that span it (choosing among all
    // that span it would take away the longest jobs, which carry the mean).
    let last_submit = submits.last().copied().unwrap_or(START);
    let cut = last_submit + 3600;
    let mut spanning: Vec<usize> = (0..n)
        .filter(|&i| {
            out[i].submit >= last_submit - 7200
                && out[i].attempts.last().is_some_and(|a| {
                    a.end.is_some_and(|e| e > cut) && a.start.is_some_and(|s| s <= cut)
                })
        })
        .collect();
    shuffle(&mut spanning, rng);
    for &i in spanning.iter().take((n as f64 * 0.001).round() as usize) {
        if let Some(a) = out[i].attempts.last_mut() {
            a.end = None;
        }
    }
}

/// Places every attempt at its start (consolidate, else any free GPUs) and
/// records the exact GPUs; returns how many found no room.
fn placements(jobs: &mut [GJob], cluster: &Cluster) -> u64 {
    let mut state = ClusterState::new(cluster);
    let mut starts: Vec<(i64, usize, usize)> = Vec::new();
    for (j, job) in jobs.iter().enumerate() {
        for (k, a) in job.attempts.iter().enumerate() {
            if let Some(s) = a.start {
                starts.push((s, j, k));
            }
        }
    }
    starts.sort_unstable();
    let mut ends: BTreeSet<(i64, usize, usize)> = BTreeSet::new();
    let mut held: rustc_hash::FxHashMap<(usize, usize), Vec<Grant>> = Default::default();
    let mut overflow = 0;
    for (s, j, k) in starts {
        while let Some(&(e, jj, kk)) = ends.first() {
            if e > s {
                break;
            }
            ends.pop_first();
            if let Some(g) = held.remove(&(jj, kk)) {
                state.release(jj as u32, &g);
            }
        }
        let d = Demand::Gang { gpus: jobs[j].gpus };
        let grants = place(&mut state, Placement::Consolidate, &d, TypeFilter::Any)
            .or_else(|| place(&mut state, Placement::Pack, &d, TypeFilter::Any));
        let Some(grants) = grants else {
            overflow += 1;
            continue;
        };
        state.acquire(j as u32, &grants);
        let mut detail: Vec<(u32, u64)> = Vec::new();
        for g in &grants {
            match detail.last_mut() {
                Some((m, mask)) if *m == g.machine => *mask |= 1 << g.gpu,
                _ => detail.push((g.machine, 1 << g.gpu)),
            }
        }
        jobs[j].attempts[k].detail = detail;
        if let Some(e) = jobs[j].attempts[k].end {
            ends.insert((e, j, k));
        }
        held.insert((j, k), grants);
    }
    overflow
}

fn time_json(t: Option<i64>) -> String {
    t.map_or("\"None\"".to_string(), |x| {
        format!("\"{}\"", format_local(x))
    })
}

fn write_log(jobs: &[GJob], cluster: &Cluster, w: &mut impl Write) -> io::Result<()> {
    writeln!(w, "[")?;
    for (i, j) in jobs.iter().enumerate() {
        let attempts: Vec<String> = j
            .attempts
            .iter()
            .map(|a| {
                let detail: Vec<String> = a
                    .detail
                    .iter()
                    .map(|&(m, mask)| {
                        let gpus: Vec<String> = (0..64)
                            .filter(|g| mask & (1u64 << g) != 0)
                            .map(|g| format!("\"gpu{g}\""))
                            .collect();
                        format!(
                            "{{\"ip\": \"{}\", \"gpus\": [{}]}}",
                            cluster.machines[m as usize].name,
                            gpus.join(", ")
                        )
                    })
                    .collect();
                format!(
                    "{{\"start_time\": {}, \"end_time\": {}, \"detail\": [{}]}}",
                    time_json(a.start),
                    time_json(a.end),
                    detail.join(", ")
                )
            })
            .collect();
        let sep = if i + 1 == jobs.len() { "" } else { "," };
        writeln!(
            w,
            "{{\"status\": \"{}\", \"vc\": \"{}\", \"jobid\": \"{}\", \"submitted_time\": \"{}\", \"user\": \"{}\", \"attempts\": [{}]}}{sep}",
            j.status,
            j.vc,
            j.id,
            format_local(j.submit),
            j.user,
            attempts.join(", ")
        )?;
    }
    writeln!(w, "]")
}

fn write_machines(cluster: &Cluster, w: &mut impl Write) -> io::Result<()> {
    writeln!(w, "machineId, number of GPUs, single GPU mem")?;
    for m in &cluster.machines {
        let mem = if m.gpus == 2 { "12GB" } else { "24GB" };
        writeln!(w, "{},{}, {mem}", m.name, m.gpus)?;
    }
    Ok(())
}

/// One row per machine per minute: held GPUs busy (30–100 %), free ones
/// idle, GPUs the machine lacks `NA`, a trailing comma as released.
fn write_util(
    jobs: &[GJob],
    cluster: &Cluster,
    first: i64,
    minutes: u64,
    seed: u64,
    w: &mut impl Write,
) -> io::Result<()> {
    let mut r = Rng::new(seed ^ 0x07_11);
    write!(w, "time,machineId")?;
    for g in 0..8 {
        write!(w, ",gpu{g}_util")?;
    }
    writeln!(w)?;
    // (start, end, machine, mask) of every placed attempt, by start.
    let mut holds: Vec<(i64, i64, u32, u64)> = Vec::new();
    for j in jobs {
        for a in &j.attempts {
            if let Some(s) = a.start {
                for &(m, mask) in &a.detail {
                    holds.push((s, a.end.unwrap_or(i64::MAX), m, mask));
                }
            }
        }
    }
    holds.sort_unstable();
    let base = first - first.rem_euclid(60);
    let mut next = 0;
    let mut active: Vec<(i64, u32, u64)> = Vec::new();
    let mut busy = vec![0u64; cluster.machines.len()];
    for k in 0..minutes as i64 {
        let t = base + k * 60;
        while next < holds.len() && holds[next].0 <= t {
            active.push((holds[next].1, holds[next].2, holds[next].3));
            next += 1;
        }
        active.retain(|a| a.0 > t);
        busy.iter_mut().for_each(|b| *b = 0);
        for &(_, m, mask) in &active {
            busy[m as usize] |= mask;
        }
        let stamp = chrono::DateTime::from_timestamp(t, 0)
            .map(|d| {
                d.with_timezone(&chrono_tz::America::Los_Angeles)
                    .format("%Y-%m-%d %H:%M:%S %Z")
                    .to_string()
            })
            .unwrap_or_default();
        for (m, mach) in cluster.machines.iter().enumerate() {
            write!(w, "{stamp},{}", mach.name)?;
            for g in 0..8u32 {
                if g >= mach.gpus {
                    write!(w, ",NA")?;
                } else if busy[m] & (1 << g) != 0 {
                    write!(w, ",{:.2}", r.range(30.0, 100.0))?;
                } else {
                    write!(w, ",0")?;
                }
            }
            writeln!(w, ",")?;
        }
    }
    Ok(())
}

/// The files, in the order they are written (and packed).
const FILES: [&str; 3] = [
    "cluster_job_log",
    "cluster_machine_list",
    "cluster_gpu_util",
];

/// Writes the three files into `dir` (or `trace-data.tar.gz` holding them);
/// returns (jobs, attempts, overflow).
pub fn write(opts: &GenOptions, dir: &Path) -> io::Result<(usize, usize, u64)> {
    std::fs::create_dir_all(dir)?;
    let cluster = cluster();
    let (jobs, overflow) = jobs(opts, &cluster);
    let at = |name: &str| match opts.tar_gz {
        true => dir.join(format!(".{name}.part")),
        false => dir.join(name),
    };
    let written = (|| -> io::Result<()> {
        crate::outfile::write_atomic(&at(FILES[0]), |w| write_log(&jobs, &cluster, w))?;
        crate::outfile::write_atomic(&at(FILES[1]), |w| write_machines(&cluster, w))?;
        let first = jobs.iter().map(|j| j.submit).min().unwrap_or(START);
        crate::outfile::write_atomic(&at(FILES[2]), |w| {
            write_util(&jobs, &cluster, first, opts.util_minutes, opts.seed, w)
        })?;
        if opts.tar_gz {
            let parts = FILES.map(|f| (at(f), format!("trace-data/{f}")));
            let members: Vec<(&Path, &str)> = parts
                .iter()
                .map(|(p, m)| (p.as_path(), m.as_str()))
                .collect();
            crate::gen::pack(&members, &dir.join("trace-data.tar.gz"))?;
        }
        Ok(())
    })();
    if opts.tar_gz {
        for f in FILES {
            let _ = std::fs::remove_file(at(f));
        }
    }
    written?;
    Ok((
        jobs.len(),
        jobs.iter().map(|j| j.attempts.len()).sum(),
        overflow,
    ))
}
