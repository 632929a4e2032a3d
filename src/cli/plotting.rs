//! `sim --plot FILE.svg` and `compare --plot FILE.svg`: each run sampled as
//! it goes, then one figure (`crate::plot`) written atomically.

use super::headless::{finished, Setup};
use super::results::{run_sampled, TimelineRow};
use crate::plot::Curves;
use crate::sim::schedule::Schedule;
use crate::sim::{Engine, Policy, Report};
use crate::trace::model::{Secs, Trace};
use color_eyre::eyre::{eyre, Result};
use std::path::Path;
use std::sync::Arc;

/// The utilisation sampling tick for a figure: about 500 samples over the
/// submissions, never under a minute.
pub(super) fn tick(trace: &Trace) -> Secs {
    let first = trace.first_submit().unwrap_or(0);
    let last = trace.jobs.iter().map(|j| j.submit).max().unwrap_or(first);
    ((last - first) / 500).max(60)
}

pub(super) fn curves(e: &Engine, label: String, rows: &[TimelineRow]) -> Curves {
    let samples: Vec<(Secs, f64)> = rows.iter().map(|r| (r.time_s, r.util)).collect();
    Curves::of(e, label, &samples)
}

/// One run (a policy, or the schedule with `None`) sampled for the figure.
fn run_one(
    trace: &Arc<Trace>,
    setup: &Setup,
    policy: Option<Policy>,
    schedule: Option<&Schedule>,
) -> Result<(Report, Curves)> {
    let (start, s) = match (policy, schedule) {
        (Some(p), _) => (p, None),
        (None, Some(s)) => (s.start.unwrap_or(Policy::Fifo), Some(s)),
        (None, None) => return Err(eyre!("a schedule row needs a schedule")),
    };
    let mut e = setup.engine(trace, start, s.and_then(|s| s.start_power));
    let switches = s
        .map(|s| s.effective(e.policy(), e.power_policy()))
        .unwrap_or_default();
    let rows = run_sampled(&mut e, switches, Some(tick(trace)))?;
    let mut report = finished(&e, e.report())?;
    if let Some(s) = s {
        report.policy = s.label();
    }
    let c = curves(&e, report.policy.clone(), &rows);
    Ok((report, c))
}

/// Every policy (and the schedule) run on all cores, the figure written;
/// the reports in order.
pub(super) fn compare(
    trace: &Arc<Trace>,
    policies: &[Policy],
    setup: &Setup,
    schedule: Option<&Schedule>,
    path: &Path,
) -> Result<Vec<Report>> {
    let done: Vec<(Report, Curves)> =
        super::headless::each_run(policies, schedule, |p| run_one(trace, setup, p, schedule))?;
    let curves: Vec<Curves> = done.iter().map(|d| d.1.clone()).collect();
    write(path, trace, setup, &curves)?;
    Ok(done.into_iter().map(|d| d.0).collect())
}

/// The figure for `curves`, titled with the trace, written atomically.
pub(super) fn write(path: &Path, trace: &Trace, setup: &Setup, curves: &[Curves]) -> Result<()> {
    let shown = crate::text::sanitize(&path.display().to_string());
    let name = Path::new(&trace.source)
        .file_name()
        .map_or(trace.source.clone(), |n| n.to_string_lossy().into_owned());
    let title = format!(
        "{} {} · {} GPUs · placement {}",
        trace.format,
        crate::text::sanitize(&name),
        trace.cluster.total_gpus(),
        setup.placement.name()
    );
    let svg = crate::plot::svg(&title, curves).map_err(|e| eyre!("{shown}: {e}"))?;
    crate::outfile::write_atomic(path, |w| std::io::Write::write_all(w, svg.as_bytes()))
        .map_err(|e| eyre!("{shown}: {e}"))?;
    super::print_err(&format!("tracetui: wrote {shown}"));
    Ok(())
}
