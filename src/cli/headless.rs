//! The headless commands: `sim`, `compare`, and the demo run.

use super::meta::{hashed_while, Meta};
use super::output::render;
use super::{LoadArgs, SimArgs};
use crate::sim::energy::PowerPolicy;
use crate::sim::engine::Switch;
use crate::sim::schedule::Schedule;
use crate::sim::{self, Policy, Report, Tuning};
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

/// Loads the trace of a run (`sim`, `compare`), its arrivals resampled
/// with `--seed` and its cluster sized with `--load`.
pub(super) fn load_run(t: &super::TraceArgs) -> Result<Arc<Trace>> {
    let (trace, mut report) = t.load.read.load(t.load.format, &t.load.path)?;
    if t.offered_load.is_some() {
        // The size `--load` replaces is not worth a line.
        report.notes.retain(|n| *n != trace.cluster.origin);
    }
    announce(&report);
    let (trace, said) = shape(Arc::new(trace), t)?;
    for line in said {
        super::print_err(&format!("tracetui: {line}"));
    }
    Ok(trace)
}

/// `trace` with `--seed`'s resampled arrivals and `--load`'s cluster (a
/// copy where either is given), and the lines that say what was done.
pub(super) fn shape(trace: Arc<Trace>, t: &super::TraceArgs) -> Result<(Arc<Trace>, Vec<String>)> {
    if t.seed.is_none() && t.offered_load.is_none() {
        return Ok((trace, Vec::new()));
    }
    let mut trace = Trace::clone(&trace);
    let mut said = Vec::new();
    if let Some(seed) = t.seed {
        let moved = trace::resample::resample_arrivals(&mut trace, seed);
        said.push(format!(
            "--seed {seed}: arrivals resampled ({moved} of {} jobs moved; same jobs, order and span)",
            trace.jobs.len()
        ));
    }
    if let Some(l) = t.offered_load {
        let line = trace::sizing::size_for_load(&mut trace, l, t.load.read.gpus_per_node)?;
        said.push(line);
    }
    Ok((Arc::new(trace), said))
}

pub(super) fn announce(report: &LoadReport) {
    for n in &report.notes {
        super::print_err(&format!("tracetui: {n}"));
    }
    for l in report.skip_lines() {
        super::print_err(&format!("tracetui: warning: {l}"));
    }
}

/// Refuses a policy the trace cannot support, with the reason.
pub(super) fn check_policy(trace: &Trace, policy: Policy) -> Result<()> {
    policy.check(trace).map_err(color_eyre::eyre::Report::msg)
}

/// What to know about each policy before it runs on `trace`, on stderr.
pub(super) fn note_caveats(trace: &Trace, setup: &Setup, policies: &[Policy]) {
    let mut said = Vec::new();
    for &p in policies {
        if said.contains(&p) {
            continue;
        }
        said.push(p);
        if let Some(c) = p.caveat(trace, &setup.tuning) {
            super::print_err(&format!("tracetui: note: {}: {c}", p.title()));
        }
    }
}

/// Every policy a schedule names, checked against the trace.
pub(super) fn check_schedule(trace: &Trace, s: &Schedule) -> Result<()> {
    for p in schedule_policies(None, Some(s)) {
        check_policy(trace, p)?;
    }
    Ok(())
}

/// `first`, then every policy schedule `s` names, in order.
fn schedule_policies(first: Option<Policy>, s: Option<&Schedule>) -> Vec<Policy> {
    let named = s.into_iter().flat_map(|s| {
        s.start
            .into_iter()
            .chain(s.switches.iter().filter_map(|(_, w)| match w {
                Switch::Policy(p) => Some(*p),
                Switch::Power(_) | Switch::Placement(_) => None,
            }))
    });
    first.into_iter().chain(named).collect()
}

/// What a run needs besides its policy.
#[derive(Clone)]
pub(super) struct Setup {
    pub placement: sim::Placement,
    pub energy: sim::Energy,
    pub tuning: Arc<Tuning>,
}

impl Setup {
    pub(super) fn engine(
        &self,
        trace: &Arc<Trace>,
        policy: Policy,
        power: Option<PowerPolicy>,
    ) -> sim::Engine {
        let energy = self.energy.clone().map(|(m, p)| (m, power.unwrap_or(p)));
        let mut e = sim::engine(trace.clone(), policy, self.placement, energy, &self.tuning);
        // A headless run stops at a policy's first failure (exit 1).
        e.set_halt_on_failure(true);
        e
    }

    fn run(&self, trace: &Arc<Trace>, policy: Policy) -> Result<Report> {
        let mut e = self.engine(trace, policy, None);
        crate::driver::run_to_end(&mut e);
        let report = e.final_report();
        finished(&e, report)
    }

    /// Runs a schedule; `policy` is the start when the schedule sets none.
    fn run_schedule(&self, trace: &Arc<Trace>, s: &Schedule, policy: Policy) -> Result<Report> {
        let mut e = self.engine(trace, s.start.unwrap_or(policy), s.start_power);
        let r = s.run_on(&mut e, &crate::driver::Driver);
        finished(&e, r)
    }
}

/// The report of a run, or the failure of its policy.
pub(super) fn finished(e: &sim::Engine, report: Report) -> Result<Report> {
    match e.failures().first() {
        Some(f) => Err(eyre!("{}", f.why)),
        None => Ok(report),
    }
}

/// Runs each policy (and the schedule, if any, last) to the end, in
/// parallel, keeping the given order.
pub(super) fn run_policies(
    trace: &Arc<Trace>,
    policies: &[Policy],
    setup: &Setup,
    schedule: Option<&Schedule>,
) -> Result<Vec<Report>> {
    each_run(policies, schedule, |p| match (p, schedule) {
        (Some(p), _) => setup.run(trace, p),
        (None, Some(sch)) => setup.run_schedule(trace, sch, Policy::Fifo),
        (None, None) => unreachable!("a schedule row needs a schedule"),
    })
}

/// `run` for each policy (`Some`) and, with a schedule, the schedule
/// (`None`) last, on every core; the results in that order, a run that
/// panicked an error naming it.
pub(super) fn each_run<R: Send>(
    policies: &[Policy],
    schedule: Option<&Schedule>,
    run: impl Fn(Option<Policy>) -> Result<R> + Sync,
) -> Result<Vec<R>> {
    let mut runs: Vec<Option<Policy>> = policies.iter().map(|&p| Some(p)).collect();
    if schedule.is_some() {
        runs.push(None);
    }
    let done = crate::par::pool(&runs, crate::par::cores(), |&p| run(p));
    runs.iter()
        .zip(done)
        .map(|(p, r)| r.unwrap_or_else(|_| Err(eyre!("the run of {} panicked", run_name(*p)))))
        .collect()
}

/// A run of `compare` named in a message: its policy, or the schedule.
fn run_name(p: Option<Policy>) -> String {
    p.map_or_else(|| "the schedule".to_string(), |p| p.name().to_string())
}

pub(super) fn setup(t: &super::TraceArgs) -> Result<Setup> {
    Ok(Setup {
        placement: t.placement,
        energy: t.energy.model_for(Some((t.load.format, &t.load.path)))?,
        tuning: t.policies.tuning()?,
    })
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
    super::outputs::check(&a.trace.load, a.trace.energy.energy.as_deref(), &outputs)?;
    // The policies this run may name: the built-ins and the programs it probes.
    let mut registry = crate::sim::Policies::new();
    let policy = super::policy_arg::resolve(&a.policy, a.trace.policies.timeout()?, &mut registry)?;
    // The trace hashed while it loads.
    let (trace, hashed) = hashed_while(
        wants_meta(a.trace.output, &files),
        a.trace.load.format,
        &a.trace.load.path,
        || load_run(&a.trace),
    )?;
    let schedule = a.trace.policies.schedule(&trace, &mut registry)?;
    let meta = hashed.map(|h| Meta::of(&a.trace, h, &[policy], schedule.as_ref()));
    let report = sim_on(a, &trace, policy, schedule.as_ref(), false, meta.as_ref())?;
    super::output::warn_unfinished(std::slice::from_ref(&report));
    let about = if a.trace.policies.policy_schedule.is_some() {
        "policies switched on schedule"
    } else {
        policy.describe()
    };
    super::outputs::summary(
        &render(&[report], a.trace.output, true, about, meta.as_ref()),
        a.trace.output,
        &outputs,
    );
    Ok(())
}

/// One `sim` run of `policy` on `trace` (loaded and shaped from `a`; its
/// `--policy-schedule` parsed already as `schedule`), writing `a`'s
/// per-job, timeline and plot files with `meta`; `quiet`
/// keeps the notes about the policies off standard error (a sweep's runs).
pub(super) fn sim_on(
    a: &SimArgs,
    trace: &Arc<Trace>,
    policy: Policy,
    schedule: Option<&Schedule>,
    quiet: bool,
    meta: Option<&Meta>,
) -> Result<Report> {
    let setup = setup(&a.trace)?;
    if let Some(s) = schedule {
        check_schedule(trace, s)?;
    }
    let start = schedule.and_then(|s| s.start).unwrap_or(policy);
    if a.trace.seed.is_some() && start == Policy::Recorded {
        bail!("--seed resamples the arrivals, and the recorded starts belong to the recorded arrivals: the recorded policy cannot replay them");
    }
    check_policy(trace, start)?;
    if !quiet {
        note_caveats(trace, &setup, &schedule_policies(Some(start), schedule));
    }
    let files = sim_files(a);
    if files.any() {
        let (e, report, rows) = super::runs::run(trace, &setup, start, schedule, &files)?;
        super::runs::write_one(&files, &e, &report, &rows, &setup, meta)?;
        Ok(report)
    } else {
        match schedule {
            Some(s) => setup.run_schedule(trace, s, policy),
            None => setup.run(trace, policy),
        }
    }
}
