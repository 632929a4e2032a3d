//! The headless commands: `sim`, `compare`, and the demo run.

use super::meta::{hashed_while, Hashes, Meta};
use super::output::render;
use super::{LoadArgs, SimArgs};
use crate::sim::{Policies, Policy, Report, Schedule, Tuning};
use crate::spec::RunSpec;
use crate::trace::{self, LoadReport, Trace};
use color_eyre::eyre::{bail, eyre, Result};
use std::path::PathBuf;
use std::sync::Arc;

/// Loads the trace, telling the user on stderr what was found and skipped.
pub(super) fn load(args: &LoadArgs) -> Result<Arc<Trace>> {
    let (trace, report) = args.read.load(args.format, &args.path)?;
    announce(&report);
    Ok(Arc::new(trace))
}

/// Loads the trace of a run (`sim`, `compare`) of `named`, its arrivals
/// resampled with `--seed` and its cluster sized with `--load`.
pub(super) fn load_run(t: &super::TraceArgs, named: &[Policy]) -> Result<Arc<Trace>> {
    let (trace, mut report) = t.load.read.load(t.load.format, &t.load.path)?;
    if t.offered_load.is_some() {
        // The size `--load` replaces is not worth a line.
        report.notes.retain(|n| *n != trace.cluster.origin);
    }
    announce(&report);
    let (trace, said) = shape(Arc::new(trace), t, named)?;
    for line in said {
        super::print_err(&format!("tracetui: {line}"));
    }
    Ok(trace)
}

/// `trace` with `--seed`'s resampled arrivals and `--load`'s cluster (a
/// copy where either is given; in whole machines where `named` or the
/// schedule's policies need them), and the lines that say what was done.
pub(super) fn shape(
    trace: Arc<Trace>,
    t: &super::TraceArgs,
    named: &[Policy],
) -> Result<(Arc<Trace>, Vec<String>)> {
    if t.seed.is_none() && t.offered_load.is_none() {
        return Ok((trace, Vec::new()));
    }
    let mut trace = Trace::clone(&trace);
    let mut said = Vec::new();
    if let Some(seed) = t.seed {
        let moved = trace::resample_arrivals(&mut trace, seed);
        said.push(format!(
            "--seed {seed}: arrivals resampled ({moved} of {} jobs moved; same jobs, order and span)",
            trace.jobs.len()
        ));
    }
    if let Some(l) = t.offered_load {
        let whole = whole_machines(t, named);
        let line = trace::size_for_load(&mut trace, l, t.load.read.gpus_per_node, whole)?;
        said.push(line);
    }
    Ok((Arc::new(trace), said))
}

/// The first policy of a run (`named`, then its schedule's built-ins)
/// whose gangs take whole machines (gandiva), by name.
fn whole_machines(t: &super::TraceArgs, named: &[Policy]) -> Option<&'static str> {
    let scheduled = t
        .policies
        .policy_schedule
        .as_deref()
        .map_or(Vec::new(), |s| {
            crate::sim::policy_words(s)
                .into_iter()
                .filter_map(|w| w.parse::<Policy>().ok())
                .collect()
        });
    named
        .iter()
        .chain(&scheduled)
        .find(|p| p.whole_machines())
        .map(|p| p.name())
}

pub(super) fn announce(report: &LoadReport) {
    for n in &report.notes {
        super::print_err(&format!("tracetui: {n}"));
    }
    for l in report.skip_lines() {
        super::print_err(&format!("tracetui: warning: {l}"));
    }
}

/// What to know about each policy before it runs on `trace`, on stderr.
pub(super) fn note_caveats(trace: &Trace, tuning: &Tuning, policies: &[Policy]) {
    let mut said = Vec::new();
    for &p in policies {
        if said.contains(&p) {
            continue;
        }
        said.push(p);
        if let Some(c) = p.caveat(trace, tuning) {
            super::print_err(&format!("tracetui: note: {}: {c}", p.title()));
        }
    }
}

/// The run `t` asks for of `policy` on `trace` (loaded and shaped from
/// `t`), following `schedule`, naming the policies of `registry`.
pub(super) fn spec(
    t: &super::TraceArgs,
    trace: Arc<Trace>,
    policy: Policy,
    schedule: Option<Schedule>,
    registry: Policies,
) -> Result<RunSpec> {
    Ok(RunSpec::new(trace, policy)
        .with_placement(t.placement)
        .with_energy(t.energy.model_for(Some((t.load.format, &t.load.path)))?)
        .with_tuning(t.policies.tuning()?)
        .with_policies(registry)
        .with_schedule(schedule))
}

/// Each run of `specs`, in parallel, keeping their order; a run that
/// panicked an error naming it.
pub(super) fn each_run<R: Send>(
    specs: &[RunSpec],
    run: impl Fn(&RunSpec) -> Result<R> + Sync,
) -> Result<Vec<R>> {
    let done = crate::trace::pool(specs, crate::trace::cores(), &run);
    specs
        .iter()
        .zip(done)
        .map(|(s, r)| r.unwrap_or_else(|_| Err(eyre!("the run of {} panicked", run_name(s)))))
        .collect()
}

/// A run of `compare` named in a message: its policy, or the schedule.
fn run_name(s: &RunSpec) -> String {
    match s.schedule {
        Some(_) => "the schedule".to_string(),
        None => s.policy.name().to_string(),
    }
}

/// The files `sim` writes.
fn sim_files(a: &SimArgs) -> super::runs::Outputs {
    super::runs::Outputs {
        jobs: a.jobs_out.clone(),
        timeline: a.timeline_out.clone(),
        timeline_tick: a.timeline_tick,
        plot: a.plot.clone(),
        look: a.look.look(),
    }
}

/// Whether a run's results carry their provenance: a summary for
/// scripts (JSON, CSV) or a file written.
pub(super) fn wants_meta(format: super::OutputFormat, files: &super::runs::Outputs) -> bool {
    format != super::OutputFormat::Table || files.any()
}

/// The outputs of `paths` as the clash check takes them.
pub(super) fn as_outputs<'a>(
    paths: &'a [(&'static str, PathBuf)],
) -> Vec<super::outputs::Output<'a>> {
    paths.iter().map(|(o, p)| (*o, Some(p))).collect()
}

pub(super) fn sim(a: &SimArgs) -> Result<()> {
    let files = sim_files(a);
    files.check_plot()?;
    let paths = files.paths();
    let outputs = as_outputs(&paths);
    let commands =
        super::policy_arg::exec_commands([&a.policy], a.trace.policies.policy_schedule.as_deref());
    super::outputs::check(&a.trace, &commands, &outputs)?;
    // The policies this run may name: the built-ins and the programs it probes.
    let mut registry = crate::sim::Policies::new();
    let policy = super::policy_arg::resolve(&a.policy, a.trace.policies.timeout()?, &mut registry)?;
    // The trace hashed while it loads.
    let hashes = Hashes::default();
    let (trace, hashed) = hashed_while(
        &hashes,
        wants_meta(a.trace.output, &files),
        a.trace.load.format,
        &a.trace.load.path,
        || load_run(&a.trace, &[policy]),
    )?;
    let schedule = a.trace.policies.schedule(&trace, &mut registry)?;
    let meta = hashed.map(|h| Meta::of(&hashes, &a.trace, h, &[policy], schedule.as_ref()));
    let run = spec(&a.trace, trace, policy, schedule, registry)?;
    let report = sim_on(a, &run, false, meta.as_ref())?;
    super::output::warn_unfinished(std::slice::from_ref(&report));
    let about = if a.trace.policies.policy_schedule.is_some() {
        "policies switched on schedule"
    } else {
        &policy.describe_under(&run.tuning)
    };
    super::outputs::summary(
        &render(&[report], a.trace.output, true, about, meta.as_ref()),
        a.trace.output,
        &outputs,
    );
    Ok(())
}

/// One `sim` run, `run`, as `a` asks for it, writing `a`'s per-job,
/// timeline and plot files with `meta`; `quiet` keeps the notes about the
/// policies off standard error (a sweep's runs).
pub(super) fn sim_on(
    a: &SimArgs,
    run: &RunSpec,
    quiet: bool,
    meta: Option<&Meta>,
) -> Result<Report> {
    if a.trace.seed.is_some() && run.policy == Policy::Recorded {
        bail!("--seed resamples the arrivals, and the recorded starts belong to the recorded arrivals: the recorded policy cannot replay them");
    }
    run.check()?;
    if !quiet {
        note_caveats(&run.trace, &run.tuning, &run.named_policies());
    }
    let files = sim_files(a);
    if files.any() {
        let (e, report, rows) = super::runs::run(run, &files)?;
        super::runs::write_one(&files, &e, &report, &rows, run, meta)?;
        Ok(report)
    } else {
        Ok(run.run()?)
    }
}
