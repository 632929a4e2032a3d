//! One run of `sim`, or one row of `compare`, with what its output files
//! need: per-job rows (the GPU-seconds each job held), timeline samples,
//! a figure's curves. `sim` writes its files from the engine; `compare`
//! keeps each row's rows as bytes and writes one file of every row.

use super::meta::Meta;
use super::results::{self, TimelineRow};
use crate::plot::Curves;
use crate::sim::{Engine, Report};
use crate::spec::{finished, RunSpec};
use crate::trace::{Secs, Trace};
use color_eyre::eyre::{eyre, Result};
use std::path::{Path, PathBuf};

/// The files a run (or each row of a comparison) writes.
#[derive(Debug, Clone, Default)]
pub(super) struct Outputs {
    pub jobs: Option<PathBuf>,
    pub timeline: Option<PathBuf>,
    pub timeline_tick: Secs,
    pub plot: Option<PathBuf>,
    pub look: crate::plot::Look,
}

impl Outputs {
    pub(super) fn any(&self) -> bool {
        self.jobs.is_some() || self.timeline.is_some() || self.plot.is_some()
    }

    /// The sampling tick: the timeline's, else the figure's, else none.
    fn tick(&self, trace: &Trace) -> Option<Secs> {
        match (&self.timeline, &self.plot) {
            (Some(_), _) => Some(self.timeline_tick),
            (None, Some(_)) => Some(super::plotting::tick(trace)),
            (None, None) => None,
        }
    }

    /// A figure is written with its numbers beside it: never to standard
    /// output.
    pub(super) fn check_plot(&self) -> Result<()> {
        if self.plot.as_ref().is_some_and(|p| p.as_os_str() == "-") {
            return Err(eyre!(
                "--plot -: a figure is a file with its numbers beside it, not standard output"
            ));
        }
        if self.plot.is_some() {
            self.look.fits()?;
        }
        Ok(())
    }

    /// Each output and the meta file beside it, by option, for the
    /// clash check before anything is read.
    pub(super) fn paths(&self) -> Vec<(&'static str, PathBuf)> {
        let mut out = Vec::new();
        for (option, p) in [
            ("--jobs-out", &self.jobs),
            ("--timeline-out", &self.timeline),
        ] {
            if let Some(p) = p {
                out.push((option, p.clone()));
                out.extend(super::meta::beside(p).map(|m| (option, m)));
            }
        }
        if let Some(p) = &self.plot {
            out.push(("--plot", p.clone()));
            let data = super::plotting::data_path(p);
            out.extend(super::meta::beside(&data).map(|m| ("--plot", m)));
            out.push(("--plot", data));
        }
        out
    }
}

/// One run to its end, switching as its schedule says (labelled with
/// it); its engine at the end, its report, and its timeline samples when
/// `outputs` want them.
pub(super) fn run(spec: &RunSpec, outputs: &Outputs) -> Result<(Engine, Report, Vec<TimelineRow>)> {
    let mut e = spec.engine();
    if outputs.jobs.is_some() {
        e.track_held();
        e.track_placed();
    }
    let switches = spec
        .schedule
        .as_ref()
        .map(|s| s.effective(e.policy(), e.power_policy()))
        .unwrap_or_default();
    let rows = results::run_sampled(&mut e, switches, outputs.tick(&spec.trace))?;
    let report = e.final_report();
    let mut report = finished(&e, report)?;
    if let Some(s) = &spec.schedule {
        report.policy = s.label();
    }
    Ok((e, report, rows))
}

/// `sim`'s files, written from the run's engine.
pub(super) fn write_one(
    outputs: &Outputs,
    e: &Engine,
    report: &Report,
    rows: &[TimelineRow],
    spec: &RunSpec,
    meta: Option<&Meta>,
) -> Result<()> {
    if let Some(p) = &outputs.plot {
        let curves = super::plotting::curves(e, report.policy.clone(), rows);
        super::plotting::write(p, e.trace(), spec.placement, &[curves], &outputs.look, meta)?;
    }
    if let Some(p) = &outputs.jobs {
        results::write_jobs(p, e, &report.policy)?;
        beside(p, meta)?;
    }
    if let Some(p) = &outputs.timeline {
        results::write_timeline(p, &[(&report.policy, rows)])?;
        beside(p, meta)?;
    }
    Ok(())
}

fn beside(p: &Path, meta: Option<&Meta>) -> Result<()> {
    match meta {
        Some(m) => super::meta::write_beside(p, m),
        None => Ok(()),
    }
}

/// One row of a comparison, ready for its files.
struct Row {
    report: Report,
    curves: Option<Curves>,
    jobs: Option<Vec<u8>>,
    timeline: Option<Vec<u8>>,
}

/// Every run of a comparison on all cores (the rows in order), each
/// row's files kept; one file of every row for each output (told apart by
/// their `policy` column), written with the meta. The reports in order.
pub(super) fn compare(
    specs: &[RunSpec],
    outputs: &Outputs,
    meta: Option<&Meta>,
) -> Result<Vec<Report>> {
    let rows: Vec<Row> = super::headless::each_run(specs, |spec| {
        let (e, report, samples) = run(spec, outputs)?;
        let curves = outputs
            .plot
            .as_ref()
            .map(|_| super::plotting::curves(&e, report.policy.clone(), &samples));
        let jobs = match &outputs.jobs {
            Some(path) => Some(results::jobs_bytes(path, &e, &report.policy)?),
            None => None,
        };
        let timeline = match &outputs.timeline {
            Some(path) => Some(results::timeline_bytes(path, &report.policy, &samples)?),
            None => None,
        };
        Ok(Row {
            report,
            curves,
            jobs,
            timeline,
        })
    })?;
    let Some(first) = specs.first() else {
        return Ok(Vec::new());
    };
    if let Some(p) = &outputs.plot {
        let curves: Vec<Curves> = rows.iter().filter_map(|r| r.curves.clone()).collect();
        super::plotting::write(
            p,
            &first.trace,
            first.placement,
            &curves,
            &outputs.look,
            meta,
        )?;
    }
    if let Some(p) = &outputs.jobs {
        let chunks: Vec<&[u8]> = rows.iter().filter_map(|r| r.jobs.as_deref()).collect();
        results::write_chunks(p, &chunks)?;
        beside(p, meta)?;
    }
    if let Some(p) = &outputs.timeline {
        let chunks: Vec<&[u8]> = rows.iter().filter_map(|r| r.timeline.as_deref()).collect();
        results::write_chunks(p, &chunks)?;
        beside(p, meta)?;
    }
    Ok(rows.into_iter().map(|r| r.report).collect())
}
