//! `sweep … --plot F.svg`: a metric of results.csv against an axis of the
//! plan (load, cluster size), one line per policy (and per value of any
//! other axis), each point the mean over the seeds with its 95 %
//! confidence interval; its numbers in `F.data.csv`.

use super::plan::Plan;
use super::record::Record;
use crate::plot::{lines_figure, point, Axes, Line};
use color_eyre::eyre::{bail, eyre, Result};
use std::path::Path;

/// What to draw: the figure's file, its axes, how it looks.
pub(super) struct Wanted<'a> {
    pub path: &'a Path,
    pub x: Option<&'a str>,
    pub y: &'a str,
    pub look: crate::plot::Look,
    /// The sweep's command line, for the figure's provenance.
    pub command: String,
}

/// The plan axis to plot against: the one named, else `load`, `gpus`, or
/// the first other axis whose values are all numbers (never `seed`).
pub(super) fn x_axis<'a>(plan: &'a Plan, named: Option<&str>) -> Result<&'a str> {
    let numeric = |name: &str| {
        plan.axes()
            .find(|k| k.name == name)
            .is_some_and(|k| k.values.iter().all(|v| v.parse::<f64>().is_ok()))
    };
    if let Some(n) = named {
        let n = n.replace('_', "-");
        return match plan.axes().find(|k| k.name == n) {
            Some(k) if numeric(&k.name) => Ok(&k.name),
            Some(_) => bail!(
                "--plot-x {}: its values are not all numbers",
                crate::text::sanitize(&n)
            ),
            None => bail!(
                "--plot-x {}: not an axis of the plan (a key with a list)",
                crate::text::sanitize(&n)
            ),
        };
    }
    let names: Vec<&str> = plan.axes().map(|k| k.name.as_str()).collect();
    ["load", "gpus"]
        .into_iter()
        .chain(names.iter().copied())
        .filter(|n| !matches!(*n, "seed" | "policy" | "trace"))
        .find(|n| names.contains(n) && numeric(n))
        .map(|n| plan.keys.iter().find(|k| k.name == n).map_or(n, |k| k.name.as_str()))
        .ok_or_else(|| eyre!("--plot: the plan has no axis of numbers to plot against (a list of loads, sizes …); name one with --plot-x"))
}

fn setting<'a>(r: &'a Record, key: &str) -> Option<&'a str> {
    r.settings
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

fn column<'a>(r: &'a Record, name: &str) -> Option<&'a str> {
    r.columns
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// A line's values so far: each x with the y of every run there.
type Points = Vec<(f64, Vec<f64>)>;

/// The lines: one per policy label and value of every other axis but x
/// and seed, in the order they first appear; failed runs left out.
fn lines(
    plan: &Plan,
    records: &[Record],
    x: &str,
    y: &str,
    missing: &mut usize,
) -> Result<Vec<Line>> {
    let others: Vec<&str> = plan
        .axes()
        .map(|k| k.name.as_str())
        .filter(|n| !matches!(*n, "seed" | "policy") && *n != x)
        .collect();
    let mut groups: Vec<(String, Points)> = Vec::new();
    for r in records.iter().filter(|r| r.error.is_none()) {
        let mut label = column(r, "policy").unwrap_or("?").to_string();
        for o in &others {
            label.push_str(&format!(" · {o}={}", setting(r, o).unwrap_or("")));
        }
        let xv: f64 = setting(r, x)
            .and_then(|v| v.parse().ok())
            .unwrap_or(f64::NAN);
        // A run without a number there (no job finished; a column only
        // some runs have) is left out, and counted.
        let Some(yv) = column(r, y).and_then(|v| v.parse::<f64>().ok()) else {
            *missing += 1;
            continue;
        };
        let at = match groups.iter().position(|(l, _)| *l == label) {
            Some(i) => i,
            None => {
                groups.push((label, Vec::new()));
                groups.len() - 1
            }
        };
        let pts = &mut groups[at].1;
        match pts.iter_mut().find(|(v, _)| *v == xv) {
            Some((_, ys)) => ys.push(yv),
            None => pts.push((xv, vec![yv])),
        }
    }
    Ok(groups
        .into_iter()
        .map(|(label, mut pts)| {
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            Line {
                label,
                points: pts.iter().map(|(x, ys)| point(*x, ys)).collect(),
            }
        })
        .collect())
}

/// Draws the figure of `records` and writes it with its numbers.
pub(super) fn draw(plan: &Plan, records: &[Record], w: &Wanted) -> Result<()> {
    let x = x_axis(plan, w.x)?;
    let mut missing = 0;
    let lines = lines(plan, records, x, w.y, &mut missing)?;
    let y_shown = crate::text::sanitize(w.y);
    if lines.is_empty() {
        bail!("--plot-y {y_shown}: no run has a number in that column of results.csv");
    }
    if missing > 0 {
        crate::cli::print_err(&format!(
            "tracetui: the figure leaves out {missing} runs with no number in {y_shown}"
        ));
    }
    let failed = records.iter().filter(|r| r.error.is_some()).count();
    if failed > 0 {
        crate::cli::print_err(&format!(
            "tracetui: the figure leaves out the {failed} failed runs"
        ));
    }
    let seeds = plan.axes().any(|k| k.name == "seed");
    let y_label = if seeds {
        format!("{} (mean over the seeds, 95 % CI)", w.y)
    } else {
        w.y.to_string()
    };
    let axes = Axes {
        x,
        y: &y_label,
        y_time: w.y.ends_with("_s"),
    };
    let title = format!("{} against {x}", w.y);
    let shown = crate::text::sanitize(&w.path.display().to_string());
    let fig = lines_figure(&title, &axes, &lines, &w.look).map_err(|e| eyre!("{shown}: {e}"))?;
    let meta = serde_json::json!({
        "tracetui": env!("CARGO_PKG_VERSION"),
        "build": crate::cli::meta::Build::this(),
        "command": w.command,
        "runs": records.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
    });
    crate::cli::plotting::save_with(w.path, fig, Some(&meta))
}
