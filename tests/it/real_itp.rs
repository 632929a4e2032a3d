//! Every released ITP cluster (raw and ElasticFlow schema) under every policy,
//! with the engine's invariants checked. Needs TRACETUI_REAL_TRACES.

use crate::common;

use common::{real_traces, run_checked};
use std::sync::Arc;
use tracetui::sim::{Placement, Policy};
use tracetui::trace::{load_itp, LoadOptions};

fn files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "csv"))
        .collect();
    v.sort();
    v
}

#[test]
#[cfg_attr(
    not(real_traces),
    ignore = "needs the released traces: TRACETUI_REAL_TRACES=../shared/traces"
)]
fn every_released_itp_trace_under_every_policy() {
    let Some(root) = real_traces() else { return };
    let mut checked = 0;
    for schema in ["raw", "elasticflow"] {
        for path in files(&root.join("itp").join(schema)) {
            let opts = LoadOptions {
                strict: true,
                ..LoadOptions::default()
            };
            let (trace, report) = load_itp(&path, &opts).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(report.total_skipped(), 0);
            let trace = Arc::new(trace);
            // The policies offered on each trace (edf needs deadlines;
            // edf-elastic and elasticflow, throughput tables).
            for p in tracetui::sim::Policies::new()
                .simulated()
                .filter(|p| p.rule().available(&trace).is_ok())
            {
                // gandiva and dlas-gpu hold their own ends (ElasticFlow's
                // overheads): a job does not run its bare run time, which
                // run_checked asserts; their ends are checked against
                // ElasticFlow's in tests/elasticflow_{fidelity,baselines}.rs.
                let e = if p == Policy::Gandiva || p == Policy::DlasGpu {
                    let mut e =
                        tracetui::sim::Engine::new(trace.clone(), p, Placement::Consolidate);
                    e.run_to_end();
                    e
                } else {
                    run_checked(&trace, p, Placement::Consolidate)
                };
                let r = e.report();
                assert_eq!(
                    r.jobs_done + r.jobs_rejected,
                    trace.jobs.len() as u64,
                    "{} {p}",
                    path.display()
                );
                let deadlines = trace.jobs.iter().any(|j| j.deadline.is_some());
                assert_eq!(
                    r.deadline_met.is_some(),
                    deadlines,
                    "{} {p}",
                    path.display()
                );
                let u = r.gpu_util.unwrap();
                assert!(u > 0.0 && u <= 1.0, "{} {p}: util {u}", path.display());
                checked += 1;
            }
        }
    }
    assert_eq!(
        checked,
        5 * 10 + 6 * 11,
        "5 raw files under 10 policies (not edf: no deadlines), 6 ElasticFlow files under 11 (not edf-elastic, elasticflow nor ef: no tables)"
    );
}

#[test]
#[cfg_attr(
    not(real_traces),
    ignore = "needs the released traces: TRACETUI_REAL_TRACES=../shared/traces"
)]
fn released_cluster04_sizes_as_documented() {
    let Some(root) = real_traces() else { return };
    let (trace, report) =
        load_itp(&root.join("itp/raw/cluster04.csv"), &LoadOptions::default()).unwrap();
    assert_eq!(trace.jobs.len(), 15_802);
    // Offered load 494.6 GPUs → at most 80 % busy needs 619 → 78 nodes of 8.
    assert_eq!(trace.cluster.total_gpus(), 624);
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.contains("offered load 494.6 GPUs")),
        "{:?}",
        report.notes
    );
}

#[test]
#[cfg_attr(
    not(real_traces),
    ignore = "needs the released traces: TRACETUI_REAL_TRACES=../shared/traces"
)]
fn other_placements_on_a_released_trace() {
    let Some(root) = real_traces() else { return };
    let (trace, _) =
        load_itp(&root.join("itp/raw/cluster02.csv"), &LoadOptions::default()).unwrap();
    let trace = Arc::new(trace);
    for rule in [Placement::Pack, Placement::Spread] {
        for p in [Policy::FirstFit, Policy::FifoBackfill] {
            run_checked(&trace, p, rule);
        }
    }
}

#[test]
#[cfg_attr(
    not(real_traces),
    ignore = "needs the released traces: TRACETUI_REAL_TRACES=../shared/traces"
)]
fn engine_agrees_with_the_naive_reference_on_released_traces() {
    let Some(root) = real_traces() else { return };
    for file in ["itp/raw/cluster01.csv", "itp/elasticflow/195job.csv"] {
        // A small cluster makes queues long, where the engine's shortcuts matter.
        let opts = LoadOptions {
            gpus: Some(96),
            ..LoadOptions::default()
        };
        let (trace, _) = load_itp(&root.join(file), &opts).unwrap();
        let trace = Arc::new(trace);
        let walked = tracetui::sim::Policies::new()
            .non_preemptive()
            .filter(|p| p.walk() != tracetui::sim::Walk::Explicit)
            .collect::<Vec<_>>();
        for p in walked {
            for rule in [Placement::Consolidate, Placement::Pack, Placement::Spread] {
                let fast = common::starts(&trace, p, rule);
                assert_eq!(
                    fast,
                    common::reference::simulate(&trace, p, rule),
                    "{file} {p} {}",
                    rule.name()
                );
            }
        }
    }
}
