//! PAI with `--cpu-mem`: each instance asks its task's `plan_cpu` and
//! `plan_mem` of its machine; placement never over-commits `cap_cpu` or
//! `cap_mem`; instances without GPUs (parameter servers) hold a machine
//! too; without the option, nothing changes. On the hand-written fixture
//! and the embedded sample.

use std::path::Path;
use std::sync::Arc;
use tracetui::sim::{Engine, Placement, Policy};
use tracetui::trace::{load_pai, Demand, LoadOptions, Trace, Unit};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/pai");
const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-traces/pai");

fn load(dir: &str, cpu_mem: bool) -> Arc<Trace> {
    let opts = LoadOptions {
        cpu_mem,
        ..LoadOptions::default()
    };
    Arc::new(load_pai(Path::new(dir), &opts).unwrap().0)
}

fn units(t: &Trace, name: &str) -> Vec<Unit> {
    let j = t.jobs.iter().find(|j| j.id == name).unwrap();
    match &j.demand {
        Demand::Instances(u) => u.to_vec(),
        d => panic!("{name}: {d:?}"),
    }
}

#[test]
fn each_instance_asks_its_tasks_plan_cpu_and_plan_mem() {
    let t = load(FIXTURE, true);
    // j05: two parameter servers (800 % CPU, 16 GB, no GPU) and two
    // workers (600 %, 32 GB, one V100 each).
    let ps = Unit {
        count: 2,
        milli: 0,
        cpu_milli: 8000,
        mem_mib: 16 * 1024,
    };
    let worker = Unit {
        count: 2,
        milli: 1000,
        cpu_milli: 6000,
        mem_mib: 32 * 1024,
    };
    assert_eq!(units(&t, "j05"), [ps, worker]);
    // 29.296875 GB is 30,000 MiB.
    assert_eq!(units(&t, "j01")[0].mem_mib, 30_000);
    // j06 asks no GPU at all: still a CPU job, left out.
    assert!(t.jobs.iter().all(|j| j.id != "j06"));
    // Without the option the demands are GPUs alone, as before.
    let plain = load(FIXTURE, false);
    assert_eq!(units(&plain, "j05"), [Unit::gpus(2, 1000)]);
    assert_eq!(plain.jobs.len(), t.jobs.len());
}

#[test]
fn parameter_servers_hold_cpu_on_a_machine_and_no_gpu() {
    let t = load(FIXTURE, true);
    let j05 = t.jobs.iter().position(|j| j.id == "j05").unwrap() as u32;
    let mut e = Engine::new(t.clone(), Policy::Fifo, Placement::Consolidate);
    while e.running().get(&j05).is_none() {
        let next = e.next_event_time().expect("j05 starts");
        e.advance_to(next);
    }
    let start = e.now();
    let g = e.running().get(&j05).unwrap().to_vec();
    let servers: Vec<_> = g.iter().filter(|g| !g.has_gpu()).collect();
    assert_eq!(servers.len(), 2, "{g:?}");
    assert!(servers.iter().all(|g| (g.cpu_milli, g.milli) == (8000, 0)));
    let held: u64 = g.iter().map(|g| g.cpu_milli as u64).sum();
    assert_eq!(held, 2 * 8000 + 2 * 6000);
    // Consolidate keeps the job on one machine where it fits: its GPUs and
    // all 28 cores there.
    let lines = |placement: Placement| {
        let mut app = tracetui::ui::app::App::new(
            t.clone(),
            Policy::Fifo,
            placement,
            "fixture".into(),
            crate::common::ui::themes(),
            tracetui::ui::keymap::Keymap::defaults(),
        );
        app.update(tracetui::ui::app::Action::GoTo(start));
        app.detail_lines(j05, serde_json::Value::Null).join("\n")
    };
    let here = &t.cluster.machines[g[0].machine as usize].name;
    let text = lines(Placement::Consolidate);
    assert!(
        text.contains(&format!("{here}: gpu 0, 1 · 28 cores, 96 GiB")),
        "{text}"
    );
    // Spread puts each server where the most CPU is left: a machine where
    // it holds no GPU, said so.
    let text = lines(Placement::Spread);
    assert!(text.contains(": no GPU · 8 cores, 16 GiB"), "{text}");
}

/// The most CPU and memory any machine held at any instant of a replay,
/// as a share of what it has; fails where one ever held more.
fn peak_host_share(t: &Arc<Trace>, placement: Placement) -> (f64, f64) {
    let mut e = Engine::new(t.clone(), Policy::Fifo, placement);
    let mut peak: (f64, f64) = (0.0, 0.0);
    while let Some(next) = e.next_event_time() {
        e.advance_to(next);
        let c = e.cluster();
        for (m, machine) in t.cluster.machines.iter().enumerate() {
            let u = c.host_use(m as u32);
            assert!(
                u.cpu_used <= u.cpu_cap && u.mem_used <= u.mem_cap,
                "{placement:?} at {next}: {} holds {u:?}",
                machine.name
            );
            peak.0 = peak.0.max(u.cpu_used as f64 / u.cpu_cap.max(1) as f64);
            peak.1 = peak.1.max(u.mem_used as f64 / u.mem_cap.max(1) as f64);
        }
    }
    peak
}

#[test]
fn no_machine_ever_holds_more_cpu_or_memory_than_it_has() {
    let t = load(SAMPLE, true);
    for p in [Placement::Consolidate, Placement::Pack, Placement::Spread] {
        let (cpu, mem) = peak_host_share(&t, p);
        // Not vacuous: machines fill up with CPU.
        assert!(cpu > 0.9, "{p:?}: CPU peaked at {cpu:.2}");
        assert!(mem > 0.0, "{p:?}");
    }
    // Asking CPU changes the schedule; without the option none is held.
    let plain = load(SAMPLE, false);
    let mut a = Engine::new(plain.clone(), Policy::Fifo, Placement::Consolidate);
    let mut b = Engine::new(t, Policy::Fifo, Placement::Consolidate);
    a.run_to_end();
    b.run_to_end();
    assert_ne!(a.report().jct_s.mean, b.report().jct_s.mean);
    assert_eq!(peak_host_share(&plain, Placement::Consolidate), (0.0, 0.0));
}

#[test]
fn a_job_waiting_for_cpu_says_so() {
    // One machine of 2 GPUs and 8 cores; j0 takes a GPU and 6 cores, j1
    // asks a GPU (free) and 4 cores (not).
    let mut t = (*crate::common::tiny(&[2], &[(0, 100, 1), (0, 100, 1)])).clone();
    t.cluster.machines[0].cpu_milli = 8000;
    for (j, cores) in t.jobs.iter_mut().zip([6, 4]) {
        j.demand = Demand::Instances(Box::new([Unit {
            cpu_milli: cores * 1000,
            ..Unit::gpus(1, 1000)
        }]));
    }
    let mut e = Engine::new(Arc::new(t), Policy::Fifo, Placement::Consolidate);
    e.advance_to(0);
    assert!(e.running().get(&0).is_some());
    assert_eq!(e.blocked(1), Some(tracetui::sim::Blocked::Host));
    assert!(e.report().cpu_mem);
    e.run_to_end();
    assert_eq!(
        e.report().jobs_done,
        2,
        "j1 runs once j0 gives its CPU back"
    );
}
