//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::sync::Arc;
use tracetui::sim::{Engine, Phase, Placement, Policy};
use tracetui::trace::model::{Cluster, Demand, Job, JobStatus, Machine, Symbols, Trace, Zone};

pub mod reference;

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
                cpus: 0,
                mem_gb: 0,
            })
            .collect(),
        gpu_types: vec!["GPU".into()],
        origin: "test".into(),
        per_node: None,
    };
    let jobs = jobs
        .iter()
        .enumerate()
        .map(|(i, &(submit, runtime, gpus))| Job {
            id: format!("j{i}"),
            user: None,
            group: None,
            submit,
            runtime: Some(runtime),
            demand: Demand::Gang { gpus },
            gpu_type: None,
            status: JobStatus::Unknown,
            deadline: None,
            model: None,
            segments: 0..0,
            native_row: i as u32,
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
    })
}

/// Start time of every job after a full run (`None`: never started).
pub fn starts(trace: &Arc<Trace>, policy: Policy, placement: Placement) -> Vec<Option<i64>> {
    let mut e = Engine::new(trace.clone(), policy, placement);
    e.run_to_end();
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
