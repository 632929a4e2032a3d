//! The headless commands: `sim`, `compare`, and the demo run.

use super::output::render;
use super::{CompareArgs, LoadArgs, SimArgs};
use crate::sim::{self, Policy, Report};
use crate::trace::{self, LoadReport, Trace};
use color_eyre::eyre::{bail, Result};
use std::sync::Arc;

/// Loads the trace, telling the user on stderr what was found and skipped.
pub fn load(args: &LoadArgs) -> Result<Arc<Trace>> {
    let (trace, report) = trace::load(args.format, &args.path, &args.options())?;
    announce(&report);
    Ok(Arc::new(trace))
}

pub fn announce(report: &LoadReport) {
    for n in &report.notes {
        eprintln!("tracetui: {n}");
    }
    for l in report.skip_lines() {
        eprintln!("tracetui: warning: {l}");
    }
}

/// Refuses a policy the trace cannot support, with the reason.
pub fn check_policy(trace: &Trace, policy: Policy) -> Result<()> {
    if policy == Policy::Recorded && !trace.has_recorded() {
        bail!(
            "policy 'recorded' needs recorded start times, and this {} trace has none; \
             choose a simulated policy ({})",
            trace.format,
            Policy::simulated()
                .map(|p| p.name())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(())
}

/// Runs each policy to the end, in parallel, keeping the given order.
pub fn run_policies(
    trace: &Arc<Trace>,
    policies: &[Policy],
    placement: sim::Placement,
    energy: &sim::Energy,
) -> Vec<Report> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .max(1);
    let mut out = Vec::with_capacity(policies.len());
    for chunk in policies.chunks(workers) {
        std::thread::scope(|s| {
            let handles: Vec<_> = chunk
                .iter()
                .map(|&p| {
                    let energy = energy.clone();
                    s.spawn(move || sim::run_with(trace.clone(), p, placement, energy))
                })
                .collect();
            for h in handles {
                out.push(h.join().expect("simulation thread"));
            }
        });
    }
    out
}

pub fn sim(a: &SimArgs) -> Result<()> {
    let trace = load(&a.trace.load)?;
    check_policy(&trace, a.policy)?;
    let energy = a
        .trace
        .energy
        .model_for(Some((a.trace.load.format, &a.trace.load.path)))?;
    let report = sim::run_with(trace, a.policy, a.trace.placement, energy);
    print!(
        "{}",
        render(&[report], a.trace.output, true, a.policy.describe())
    );
    Ok(())
}

pub fn compare(a: &CompareArgs) -> Result<()> {
    let trace = load(&a.trace.load)?;
    for &p in &a.policies.0 {
        check_policy(&trace, p)?;
    }
    let energy = a
        .trace
        .energy
        .model_for(Some((a.trace.load.format, &a.trace.load.path)))?;
    let reports = run_policies(&trace, &a.policies.0, a.trace.placement, &energy);
    print!("{}", render(&reports, a.trace.output, false, ""));
    Ok(())
}
