//! `sim --plot FILE.svg` and `compare --plot FILE.svg`: each run sampled as
//! it goes, then one figure (`crate::plot`) written atomically.

use super::headless::Setup;
use super::results::TimelineRow;
use crate::plot::Curves;
use crate::sim::Engine;
use crate::trace::model::{Secs, Trace};
use color_eyre::eyre::{eyre, Result};
use std::path::Path;

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

/// The figure for `curves`, titled with the trace, written atomically.
pub(super) fn write(
    path: &Path,
    trace: &Trace,
    setup: &Setup,
    curves: &[Curves],
    meta: Option<&super::meta::Meta>,
) -> Result<()> {
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
    let mut svg = crate::plot::svg(&title, curves).map_err(|e| eyre!("{shown}: {e}"))?;
    if let Some(m) = meta {
        svg = super::meta::into_svg(&svg, m);
    }
    crate::outfile::write_atomic(path, |w| std::io::Write::write_all(w, svg.as_bytes()))
        .map_err(|e| eyre!("{shown}: {e}"))?;
    super::print_err(&format!("tracetui: wrote {shown}"));
    Ok(())
}
