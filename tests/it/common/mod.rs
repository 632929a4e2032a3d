//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::sync::Arc;
use tracetui::sim::{Engine, Phase, Placement, Policy};
use tracetui::trace::{Cluster, Demand, Job, JobStatus, Machine, Symbols, Trace, Zone};

pub mod cli;
pub mod exec;
pub mod reference;
pub mod slurm;
pub mod slurm_acct;
pub mod source;
pub mod split;
pub mod sweep;
pub mod tmux;
pub mod ui;

/// A trace of whole-GPU jobs `(submit, run time, GPUs)` on machines of the given sizes.
pub fn tiny(machines: &[u32], jobs: &[(i64, i64, u32)]) -> Arc<Trace> {
    let cluster = Cluster {
        machines: machines
            .iter()
            .enumerate()
            .map(|(i, &g)| Machine {
                name: format!("m{i}"),
                gpu_type: 0,
                gpus: g,
                cpu_milli: 0,
                mem_mib: 0,
                recorded_only: false,
            })
            .collect(),
        gpu_types: vec!["GPU".into()],
        origin: "test".into(),
        per_node: None,
        switches: 0,
        sized_by: String::new(),
    };
    let jobs = jobs
        .iter()
        .enumerate()
        .map(|(i, &(submit, runtime, gpus))| Job {
            id: format!("j{i}").into(),
            user: None,
            group: None,
            submit,
            runtime: Some(runtime).into(),
            demand: Demand::Gang { gpus },
            gpu_type: None,
            status: JobStatus::Unknown,
            deadline: None.into(),
            model: None,
            segments: 0..0,
            requested: tracetui::trace::MaybeSecs::NONE,
            native_row: i as u32,
            cpu_milli: 0,
            mem_mib: 0,
            any_of_types: 0,
        })
        .collect();
    Arc::new(Trace {
        format: "test",
        source: "test".into(),
        cluster,
        jobs,
        segments: Vec::new(),
        symbols: Symbols::default(),
        zone: Zone::Relative,
        excluded: Vec::new(),
        native: Default::default(),
        speeds: None,
    })
}

/// `tiny`, with users and deadlines for `fair` and `edf`: job i belongs to
/// user `u{i % users}`, and every other job has a deadline of its submit
/// plus `slack` × its run time.
pub fn tiny_rich(
    machines: &[u32],
    jobs: &[(i64, i64, u32)],
    users: usize,
    slack: i64,
) -> Arc<Trace> {
    let mut t = (*tiny(machines, jobs)).clone();
    for (i, j) in t.jobs.iter_mut().enumerate() {
        j.user = Some(t.symbols.intern(&format!("u{}", i % users.max(1))));
        if i % 2 == 0 {
            j.deadline = Some(j.submit + slack * j.runtime.get().unwrap()).into();
        }
    }
    Arc::new(t)
}

/// Start time of every job after a full run (`None`: never started).
pub fn starts(trace: &Arc<Trace>, policy: Policy, placement: Placement) -> Vec<Option<i64>> {
    let mut e = Engine::new(trace.clone(), policy, placement);
    tracetui::driver::run_to_end(&mut e);
    (0..trace.jobs.len() as u32)
        .map(|j| {
            let s = e.job_state(j);
            matches!(s.phase, Phase::Running | Phase::Done).then_some(s.start)
        })
        .collect()
}

/// The directory of real traces, or `None` with the reason printed.
pub fn real_traces() -> Option<std::path::PathBuf> {
    match std::env::var_os("TRACETUI_REAL_TRACES") {
        Some(p) => {
            let p = std::path::PathBuf::from(p);
            assert!(
                p.is_dir(),
                "TRACETUI_REAL_TRACES={} is not a directory",
                p.display()
            );
            Some(p)
        }
        None => {
            eprintln!("skipped: TRACETUI_REAL_TRACES is not set (CI sets it to ../shared/traces)");
            None
        }
    }
}

/// Runs `trace` step by step, checking at every instant that no GPU holds
/// more than one GPU's worth and that the holders add up; then checks that
/// every accepted job started once (plus once per preemption) and finished
/// once, and that useful busy GPU-seconds (busy less restart costs) equal
/// the sum of run time × GPUs: work is conserved under preemption.
/// Returns the final engine.
pub fn run_checked(trace: &Arc<Trace>, policy: Policy, placement: Placement) -> Engine {
    run_checked_with(Engine::new(trace.clone(), policy, placement))
}

/// `run_checked` on an engine set up by the caller.
pub fn run_checked_with(mut e: Engine) -> Engine {
    use tracetui::sim::Event;
    let trace = e.trace().clone();
    e.set_record_events(true);
    let n = trace.jobs.len();
    let mut started = vec![0u32; n];
    let mut finished = vec![0u32; n];
    let mut preempted = vec![0u32; n];
    let mut steps = 0u64;
    while let Some(t) = e.next_event_time() {
        tracetui::driver::advance_to(&mut e, t);
        steps += 1;
        let c = e.cluster();
        // Checking every GPU at every instant is quadratic; sample on big traces.
        if n < 5_000 || steps.is_multiple_of(97) {
            for g in 0..c.gpu_count() {
                let sum: u32 = c.holders(g).iter().map(|h| h.1 as u32).sum();
                assert_eq!(sum, c.used_milli(g), "holders add up on GPU {g} at {t}");
                assert!(c.used_milli(g) <= 1000, "GPU {g} over-allocated at {t}");
            }
        }
        for ev in e.take_events() {
            match ev {
                Event::Started { job, .. } => started[job as usize] += 1,
                Event::Finished { job, .. } => finished[job as usize] += 1,
                Event::Preempted { job, .. } => preempted[job as usize] += 1,
                _ => {}
            }
        }
    }
    let mut busy: u128 = 0;
    for j in 0..n {
        let s = e.job_state(j as u32);
        let job = &trace.jobs[j];
        if s.phase == Phase::Rejected {
            assert_eq!((started[j], finished[j]), (0, 0));
            continue;
        }
        assert_eq!(s.phase, Phase::Done, "job {j} finished");
        assert_eq!(preempted[j], e.preemptions_of(j as u32));
        assert_eq!(
            (started[j], finished[j]),
            (1 + preempted[j], 1),
            "job {j} started once (plus once per preemption) and finished once"
        );
        assert!(s.start >= job.submit);
        if preempted[j] == 0 {
            assert_eq!(s.end - s.start, job.runtime.get().unwrap());
        } else {
            assert!(s.end - s.start >= job.runtime.get().unwrap());
        }
        busy += job.runtime.get().unwrap() as u128 * job.demand.total_milli() as u128;
    }
    assert_eq!(
        e.tally().busy_finished - e.tally().overhead_busy,
        busy,
        "useful busy GPU-seconds = Σ run time × GPUs"
    );
    assert_eq!(
        e.tally().preemptions,
        preempted.iter().map(|&p| p as u64).sum::<u64>()
    );
    assert_eq!(
        e.cluster().allocated_milli(),
        0,
        "everything released at the end"
    );
    e
}

/// Whether python3 (with its json module) is here; the test says it is
/// skipped where not.
pub fn python() -> bool {
    let ok = std::process::Command::new("python3")
        .arg("-c")
        .arg("import json")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped: python3 is not on PATH");
    }
    ok
}

/// A fresh empty directory under the system temp dir, unique per call.
/// Whether `pid` is a live process (not gone, not a zombie).
pub fn alive(pid: i32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let state = stat[stat.rfind(')').unwrap() + 1..]
        .split_whitespace()
        .next();
    !matches!(state, Some("Z" | "X"))
}

pub fn scratch_dir(tag: &str) -> std::path::PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    static SWEPT: std::sync::Once = std::sync::Once::new();
    SWEPT.call_once(|| sweep_leftovers(&std::env::temp_dir()));
    let d = std::env::temp_dir().join(format!(
        "tracetui-test-{}-{}-{}",
        tag,
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Directories earlier test runs left in `tmp` — named by the tests
/// `tracetui-…-PID`, `tracetui-…-PID-N`, `py-imports-PID`, `gzseek-PID`
/// — whose process has ended: removed once a run, so runs do not pile up
/// thousands of them. A directory of a process still running is kept.
pub fn sweep_leftovers(tmp: &std::path::Path) {
    let Ok(entries) = std::fs::read_dir(tmp) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let ours = ["tracetui-", "py-imports-", "gzseek-"]
            .iter()
            .any(|p| name.starts_with(p));
        if !ours || !e.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let mut nums = name.rsplit('-').map(|s| s.parse::<u32>().ok());
        let pid = match (nums.next().flatten(), nums.next().flatten()) {
            (Some(_), Some(pid)) => pid,
            (Some(pid), None) => pid,
            _ => continue,
        };
        let alive =
            pid == std::process::id() || std::path::Path::new(&format!("/proc/{pid}")).exists();
        if !alive {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// Writes `bytes` to a file in a scratch directory and returns its path.
pub fn write_file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let p = scratch_dir("f").join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// `bytes` as one `.xz` stream with one block, as `xz` writes a file.
pub fn xz(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let opts = lzma_rust2::XzOptions::with_preset(1);
    let mut w = lzma_rust2::XzWriter::new(Vec::new(), opts).unwrap();
    w.write_all(bytes).unwrap();
    w.finish().unwrap()
}

/// `f`'s first `Some`, asked every 20 ms for up to `secs` seconds (None
/// if it never gave one): for what another process does in its own time.
pub fn eventually<T>(secs: u64, mut f: impl FnMut() -> Option<T>) -> Option<T> {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    loop {
        if let Some(v) = f() {
            return Some(v);
        }
        if std::time::Instant::now() > until {
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// A scratch copy of the Zeus fixture without its groups file, for a test
/// to put one of its own (compressed, damaged, a bomb).
pub fn zeus_without_groups(tag: &str) -> std::path::PathBuf {
    let d = scratch_dir(tag);
    for e in std::fs::read_dir("tests/fixtures/zeus").unwrap() {
        let p = e.unwrap().path();
        if p.file_name().unwrap() != "alibaba_groups.csv" {
            std::fs::copy(&p, d.join(p.file_name().unwrap())).unwrap();
        }
    }
    d
}

/// A fresh engine under `first`, consolidating, advanced to `t` with the
/// `switches` up to then applied at their times (what a replay stepped
/// back and forth must equal).
pub fn fresh_run(
    trace: &std::sync::Arc<tracetui::trace::Trace>,
    first: tracetui::sim::Policy,
    switches: &[(i64, tracetui::sim::Switch)],
    t: i64,
) -> tracetui::sim::Engine {
    let mut e =
        tracetui::sim::Engine::new(trace.clone(), first, tracetui::sim::Placement::Consolidate);
    for &(s, p) in switches.iter().filter(|(s, _)| *s <= t) {
        e.advance_to(s);
        e.switch(p);
    }
    e.advance_to(t);
    e
}

/// What a replay's state is, to compare two engines: the time, policy,
/// every job's state (and the work it has left under a speed model), the
/// queue, the running set, every GPU's holders and the report.
pub fn fingerprint(e: &tracetui::sim::Engine) -> String {
    let states: Vec<_> = (0..e.trace().jobs.len() as u32)
        .map(|j| (e.job_state(j), e.progress(j).map(|p| p.left.to_bits())))
        .collect();
    let holders: Vec<_> = (0..e.cluster().gpu_count())
        .map(|g| e.cluster().holders(g).to_vec())
        .collect();
    format!(
        "{} {} {:?} {:?} {:?} {:?} {}",
        e.now(),
        e.policy(),
        states,
        e.queue_in_order(usize::MAX),
        e.running(),
        holders,
        serde_json::to_string(&e.report()).unwrap()
    )
}

/// A step of a replay walk in the step-back tests.
#[derive(Debug, Clone)]
pub enum Step {
    Forward(i64),
    Back(i64),
    Switch(usize),
}

/// A two-job elastic trace and its throughput tables, written to a scratch
/// directory named for `tag`: a (asks for 1 GPU, may take 4, deadline
/// 9999) arrives at 0; b (due first, at 5000; at most 2 GPUs) at 10. On 4
/// GPUs under edf-elastic, a holds all four, then shrinks to two for b at
/// the round at 60 s. Returns (trace file, tables directory).
pub fn two_elastic_jobs(tag: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    elastic_jobs(tag, "a,0,1000,m,9999,32,1,999\nb,10,3000,m,5000,2,1,999\n")
}

/// `rows` (ElasticFlow-schema job rows of model `m`, batch 32 or 2) and
/// the tables of `two_elastic_jobs`, written to a scratch directory named
/// for `tag`: (trace file, tables directory).
pub fn elastic_jobs(tag: &str, rows: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    write_elastic(&scratch_dir(tag), rows)
}

/// `elastic_jobs`, written into `d`.
pub fn write_elastic(d: &std::path::Path, rows: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let tables = d.join("tables");
    std::fs::create_dir_all(&tables).unwrap();
    std::fs::write(
        tables.join("m.csv"),
        "global_batch_size,1,2,4\n32,2,3,5\n2,1,1.5,2\n",
    )
    .unwrap();
    let trace = d.join("t.csv");
    let head =
        "job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration\n";
    std::fs::write(&trace, format!("{head}{rows}")).unwrap();
    (trace, tables)
}
