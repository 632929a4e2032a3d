//! `tracetui compare`: one row per policy (and a schedule's row), run on
//! every core; with `--from`, each forked from the recorded replay.

use super::headless::{as_outputs, load_run, note_caveats, spec, wants_meta};
use super::meta::{hashed_while, Hashes, Meta};
use super::output::render;
use super::runs::Outputs;
use super::CompareArgs;
use crate::sim::Policy;
use crate::spec::RunSpec;
use color_eyre::eyre::{bail, eyre, Result};

/// The files `compare` writes: one of each for every row.
fn files(a: &CompareArgs) -> Outputs {
    Outputs {
        jobs: a.jobs_out.clone(),
        timeline: a.timeline_out.clone(),
        timeline_tick: a.timeline_tick,
        plot: a.plot.clone(),
        look: a.look.look(),
    }
}

pub(super) fn compare(a: &CompareArgs) -> Result<()> {
    let files = files(a);
    files.check_plot()?;
    let paths = files.paths();
    let outputs = as_outputs(&paths);
    let commands = super::policy_arg::exec_commands(
        &a.policies.0,
        a.trace.policies.policy_schedule.as_deref(),
    );
    super::outputs::check(&a.trace, &commands, &outputs)?;
    // The policies this run may name: the built-ins and the programs it probes.
    let mut registry = crate::sim::Policies::new();
    let named = a.trace.policies.resolve(&a.policies.0, &mut registry)?;
    let hashes = Hashes::default();
    let (trace, hashed) = hashed_while(
        &hashes,
        wants_meta(a.trace.output, &files),
        a.trace.load.format,
        &a.trace.load.path,
        || load_run(&a.trace, &named),
    )?;
    // A policy this trace cannot run (recorded on a trace without starts)
    // is one row dropped, said on stderr; the others still run.
    let mut policies = Vec::new();
    for &p in &named {
        match p.check(&trace) {
            Ok(()) => policies.push(p),
            Err(why) => super::print_err(&format!(
                "tracetui: warning: no row for '{}': {why}",
                p.name()
            )),
        }
    }
    if policies.is_empty() {
        bail!("none of the policies asked for can run on this trace");
    }
    let schedule = a.trace.policies.schedule(&trace, &mut registry)?;
    if let Some(s) = &schedule {
        crate::spec::check_schedule(&trace, s).map_err(|e| eyre!("{e}"))?;
    }
    let meta = hashed.map(|h| Meta::of(&hashes, &a.trace, h, &policies, schedule.as_ref()));
    // A row per policy, and the schedule's (from fifo where it names no start).
    let base = spec(&a.trace, trace, Policy::Fifo, None, registry)?;
    note_caveats(&base.trace, &base.tuning, &policies);
    let mut rows: Vec<RunSpec> = policies.iter().map(|&p| base.under(p)).collect();
    rows.extend(schedule.map(|s| base.clone().with_schedule(Some(s))));
    let fmt = a.trace.output;
    let reports = if let Some(from) = &a.from {
        compare_from(&base, a, &rows, from)?
    } else if files.any() {
        super::runs::compare(&rows, &files, meta.as_ref())?
    } else {
        super::headless::each_run(&rows, |r| Ok(r.run()?))?
    };
    super::output::warn_unfinished(&reports);
    super::outputs::summary(
        &render(&reports, fmt, false, "", meta.as_ref()),
        fmt,
        &outputs,
    );
    Ok(())
}

/// `compare --from TIME`: the recorded replay up to TIME, then each policy
/// from that state (the what-if fork, headless).
fn compare_from(
    base: &RunSpec,
    a: &CompareArgs,
    rows: &[RunSpec],
    from: &str,
) -> Result<Vec<crate::sim::Report>> {
    let trace = &base.trace;
    use crate::sim::{Fork, WhatIfRun};
    if a.trace.seed.is_some() {
        bail!("--from forks the recorded replay, and --seed resamples the arrivals: the two do not go together");
    }
    if !trace.has_recorded() {
        bail!(
            "--from forks a recorded replay, and this {} trace records no starts",
            trace.format
        );
    }
    let t = crate::sim::parse_at(trace, from).map_err(|e| eyre!("--from: {e}"))?;
    let mut recorded = base.under(Policy::Recorded).engine();
    crate::driver::advance_to(&mut recorded, t);
    let runs: Vec<WhatIfRun> = rows
        .iter()
        .map(|r| match &r.schedule {
            None => WhatIfRun::Policy(r.policy),
            Some(s) => WhatIfRun::Schedule(
                s.effective(Policy::Recorded, recorded.power_policy())
                    .into_iter()
                    .filter(|(at, _)| *at > t)
                    .collect(),
            ),
        })
        .collect();
    let workers = crate::trace::cores();
    super::print_err(&format!(
        "tracetui: from {} ({}), {} runs",
        t,
        crate::trace::clock(trace.zone, trace.first_submit().unwrap_or(0), t),
        runs.len()
    ));
    let reports = Fork::start(&recorded, runs, workers, &crate::driver::Driver).wait();
    if let Some(why) = reports.iter().find_map(|r| r.failed.clone()) {
        super::output::warn_unfinished(&reports);
        bail!("{why}");
    }
    Ok(reports)
}
