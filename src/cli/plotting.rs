//! `sim --plot FILE.svg` and `compare --plot FILE.svg`: each run sampled as
//! it goes, then one figure (`crate::plot`) written atomically.

use super::results::TimelineRow;
use crate::plot::Curves;
use crate::sim::Engine;
use crate::trace::{Secs, Trace};
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

/// Whether a figure goes to a PDF (`F.pdf`), not an SVG.
fn is_pdf(path: &Path) -> bool {
    path.extension()
        .is_some_and(|x| x.eq_ignore_ascii_case("pdf"))
}

/// Where a figure's numbers go: `FILE.data.csv` for `FILE.svg` (or `FILE.pdf`).
pub(super) fn data_path(svg: &Path) -> std::path::PathBuf {
    svg.with_extension("data.csv")
}

/// The figure for `curves`, titled with the trace, written atomically with
/// its numbers beside it (`data_path`), each with `meta`.
pub(super) fn write(
    path: &Path,
    trace: &Trace,
    placement: crate::sim::Placement,
    curves: &[Curves],
    look: &crate::plot::Look,
    meta: Option<&super::meta::Meta>,
) -> Result<()> {
    let name = Path::new(&trace.source)
        .file_name()
        .map_or(trace.source.clone(), |n| n.to_string_lossy().into_owned());
    let title = format!(
        "{} {} · {} GPUs · placement {}",
        trace.format,
        crate::text::sanitize(&name),
        trace.cluster.total_gpus(),
        placement.name()
    );
    let shown = crate::text::sanitize(&path.display().to_string());
    let fig = crate::plot::figure(&title, curves, look).map_err(|e| eyre!("{shown}: {e}"))?;
    save(path, fig, meta)
}

/// A figure's SVG (with `meta` inside) and its numbers (with `meta`
/// beside them), each written atomically.
pub(super) fn save(
    path: &Path,
    fig: crate::plot::Figure,
    meta: Option<&super::meta::Meta>,
) -> Result<()> {
    save_with(path, fig, meta)
}

/// `save` with any meta that serialises (a sweep's figure has its own).
pub(crate) fn save_with<M: serde::Serialize>(
    path: &Path,
    fig: crate::plot::Figure,
    meta: Option<&M>,
) -> Result<()> {
    let shown = crate::text::sanitize(&path.display().to_string());
    let bytes = if is_pdf(path) {
        let json = meta.map(|m| serde_json::to_string(m).expect("meta serialises"));
        crate::plot::pdf::from_svg(&fig.svg, json.as_deref())
    } else {
        match meta {
            Some(m) => super::meta::into_svg(&fig.svg, m),
            None => fig.svg,
        }
        .into_bytes()
    };
    crate::outfile::write_atomic(path, |w| std::io::Write::write_all(w, &bytes))
        .map_err(|e| eyre!("{shown}: {e}"))?;
    let data = data_path(path);
    let data_shown = crate::text::sanitize(&data.display().to_string());
    crate::outfile::write_atomic(&data, |w| std::io::Write::write_all(w, fig.data.as_bytes()))
        .map_err(|e| eyre!("{data_shown}: {e}"))?;
    if let Some(m) = meta {
        super::meta::write_beside(&data, m)?;
    }
    super::print_err(&format!("tracetui: wrote {shown} and {data_shown}"));
    Ok(())
}
