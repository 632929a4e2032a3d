//! The policy protocol's cost: the released cluster04 under `fifo`, as the
//! built-in, as a compiled external policy that answers without parsing
//! (examples/trivial_policy.rs, asked at every point: the protocol's own
//! overhead, tracetui's side plus the pipe round trip) and as
//! policies/fifo.py (what a Python user pays; it asks only at arrivals). Prints the overhead per scheduling point. Needs
//! TRACETUI_REAL_TRACES; builds the example first:
//!
//!     cargo build --release --example trivial_policy
//!     TRACETUI_REAL_TRACES=../shared/traces cargo bench --bench protocol

use std::sync::{Arc, OnceLock};
use std::time::Instant;
use tracetui::sim::{Engine, Placement, Policy};
use tracetui::trace::{load_itp, LoadOptions, Trace};

fn main() {
    let Some(trace) = cluster04() else {
        eprintln!("skipped: TRACETUI_REAL_TRACES is not set");
        return;
    };
    let trivial = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/target/x86_64-unknown-linux-gnu/release/examples/trivial_policy"
    );
    if !std::path::Path::new(trivial).exists() {
        eprintln!("skipped: build it first: cargo build --release --example trivial_policy");
        return;
    }
    let count = std::env::temp_dir().join(format!("tracetui-points-{}", std::process::id()));
    std::env::set_var("TRIVIAL_POLICY_COUNT", &count);
    let compiled: Policy = format!("exec:{trivial}").parse().unwrap();
    let python: Policy = "exec:python3 policies/fifo.py".parse().unwrap();
    let runs = 7;
    let time = |p: Policy| -> Vec<f64> {
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                let mut e = Engine::new(trace.clone(), p, Placement::Consolidate);
                e.set_halt_on_failure(true);
                tracetui::driver::run_to_end(&mut e);
                assert!(e.failures().is_empty(), "{:?}", e.failures());
                t.elapsed().as_secs_f64()
            })
            .collect()
    };
    // Interleaved, so drift in the machine's speed hits all three alike;
    // tracetui's own CPU time (this process, not the policy's) per run too.
    let (mut b, mut c, mut y) = (Vec::new(), Vec::new(), Vec::new());
    let (mut cpu_b, mut cpu_c) = (0.0, 0.0);
    for _ in 0..3 {
        let t0 = cpu_seconds();
        b.extend(time(Policy::Fifo));
        let t1 = cpu_seconds();
        c.extend(time(compiled));
        let t2 = cpu_seconds();
        cpu_b += t1 - t0;
        cpu_c += t2 - t1;
        y.extend(time(python));
    }
    let points: f64 = std::fs::read_to_string(&count)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let _ = std::fs::remove_file(&count);
    std::env::remove_var("TRIVIAL_POLICY_COUNT");
    let f0 = cpu_seconds();
    let floor = pipe_round_trip(trivial, 20_000);
    let floor_cpu = (cpu_seconds() - f0) / 20_000.0;
    let (mb, mc, my) = (median(&mut b), median(&mut c), median(&mut y));
    println!(
        "cluster04 (15,802 jobs) under fifo, {} runs each, {points} scheduling points",
        3 * runs
    );
    println!(
        "  built-in              median {:8.1} ms  range {:.1} – {:.1}",
        mb * 1e3,
        min(&b) * 1e3,
        max(&b) * 1e3
    );
    println!(
        "  exec: compiled        median {:8.1} ms  range {:.1} – {:.1}",
        mc * 1e3,
        min(&c) * 1e3,
        max(&c) * 1e3
    );
    println!(
        "  exec: policies/fifo.py median {:8.1} ms  range {:.1} – {:.1}",
        my * 1e3,
        min(&y) * 1e3,
        max(&y) * 1e3
    );
    let protocol = (mc - mb) / points;
    println!(
        "  per scheduling point: protocol {:.1} µs (policies/fifo.py asks only at arrivals)",
        protocol * 1e6
    );
    println!(
        "  a bare pipe round trip to the same program (no tracetui): {:.1} µs",
        floor * 1e6
    );
    println!(
        "  tracetui's side per scheduling point: {:.1} µs (wall clock, protocol − floor)",
        (protocol - floor) * 1e6
    );
    let runs = 3.0 * runs as f64;
    println!(
        "  tracetui's CPU time per scheduling point (user + system, this process): {:.1} µs; \
         the bare round trip's: {:.1} µs",
        (cpu_c - cpu_b) / runs / points * 1e6,
        floor_cpu * 1e6
    );
}

/// Seconds per round trip of one short line to `program` and its answer
/// back, over pipes, with nothing else: the machine's floor.
fn pipe_round_trip(program: &str, n: u32) -> f64 {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    let mut child = Command::new(program)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let msg = br#"{"type":"schedule","time":1,"events":[],"arrived":[],"wakeup":false}
"#;
    let t = Instant::now();
    for _ in 0..n {
        input.write_all(msg).unwrap();
        input.flush().unwrap();
        line.clear();
        output.read_line(&mut line).unwrap();
    }
    let per = t.elapsed().as_secs_f64() / n as f64;
    drop(input);
    let _ = child.wait();
    per
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn min(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

fn max(v: &[f64]) -> f64 {
    v.iter().copied().fold(0.0, f64::max)
}

fn cluster04() -> Option<Arc<Trace>> {
    static T: OnceLock<Option<Arc<Trace>>> = OnceLock::new();
    T.get_or_init(|| {
        let root = std::env::var_os("TRACETUI_REAL_TRACES")?;
        let path = std::path::Path::new(&root).join("itp/raw/cluster04.csv");
        let (t, _) = load_itp(&path, &LoadOptions::default()).ok()?;
        Some(Arc::new(t))
    })
    .clone()
}

/// User + system CPU seconds this process (all its threads) has used.
fn cpu_seconds() -> f64 {
    // SAFETY: getrusage fills the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 / 1e6;
    t(u.ru_utime) + t(u.ru_stime)
}
