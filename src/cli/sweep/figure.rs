//! `sweep … --plot F.svg` (or `F.pdf`): a metric of results.csv against an
//! axis of the plan (load, cluster size), one panel per value of the
//! other axes (`--plot-facet` says which), one line per policy in each —
//! the same colour and marker in every panel and figure — each point the
//! mean over the seeds with a 95 % interval that keeps to the metric's
//! bounds. Axis titles in words with units, ticks in the unit shown; its
//! numbers in `F.data.csv`, a column for the policy, each axis, and the
//! interval. Failed runs are counted, never drawn.

use super::plan::Plan;
use super::record::Record;
use crate::plot::{facets_figure, point, Axes, Facet, Line};
use color_eyre::eyre::{bail, eyre, Result};
use std::path::Path;

/// What to draw: the figure's file, its axes, how it looks.
pub(super) struct Wanted<'a> {
    pub path: &'a Path,
    pub x: Option<&'a str>,
    pub y: &'a str,
    /// The axes that make panels (none given: every axis but x, seed and
    /// policy).
    pub facet: Option<&'a [String]>,
    pub look: crate::plot::Look,
    /// The title and the axes' titles the user gave.
    pub title: Option<&'a str>,
    pub x_label: Option<&'a str>,
    pub y_label: Option<&'a str>,
    /// The y range the user fixed, in the unit shown.
    pub y_min: Option<f64>,
    pub y_max: Option<f64>,
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

/// The axes that make panels: those named (each an axis of the plan, not
/// x, seed or policy), else every axis but those.
pub(super) fn facet_axes<'a>(
    plan: &'a Plan,
    x: &str,
    named: Option<&[String]>,
) -> Result<Vec<&'a str>> {
    let usable: Vec<&str> = plan
        .axes()
        .map(|k| k.name.as_str())
        .filter(|n| !matches!(*n, "seed" | "policy") && *n != x)
        .collect();
    let Some(named) = named else {
        return Ok(usable);
    };
    named
        .iter()
        .map(|n| {
            let n = n.trim().replace('_', "-");
            usable.iter().copied().find(|u| *u == n).ok_or_else(|| {
                eyre!(
                    "--plot-facet {}: not an axis of the plan other than x, seed and policy (those are: {})",
                    crate::text::sanitize(&n),
                    usable.join(", ")
                )
            })
        })
        .collect()
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

/// A plan value as a panel's caption shows it: a path by its file name.
fn short(value: &str) -> &str {
    let v = value.rsplit_once(':').map_or(value, |(_, p)| p);
    match v.rsplit_once('/') {
        Some((_, name)) if !name.is_empty() => name,
        _ => value,
    }
}

/// One line's points so far: each x with the y of every run there.
type Points = Vec<(f64, Vec<f64>)>;

/// A panel's facet values, and its lines (label, points).
type PanelRuns = (Vec<String>, Vec<(String, Points)>);

/// The runs grouped: panel (its facet values) → line (policy, and the
/// other axes' values) → points; failed runs and those without a number
/// in `y` counted, not drawn.
struct Grouped {
    panels: Vec<PanelRuns>,
    drawn: Vec<String>,
    missing: usize,
}

fn group(plan: &Plan, records: &[Record], x: &str, y: &str, facets: &[&str]) -> Grouped {
    let rest: Vec<&str> = plan
        .axes()
        .map(|k| k.name.as_str())
        .filter(|n| !matches!(*n, "seed" | "policy") && *n != x && !facets.contains(n))
        .collect();
    let mut g = Grouped {
        panels: Vec::new(),
        drawn: Vec::new(),
        missing: 0,
    };
    for r in records.iter().filter(|r| r.error.is_none()) {
        let Some(yv) = column(r, y).and_then(|v| v.parse::<f64>().ok()) else {
            g.missing += 1;
            continue;
        };
        let key: Vec<String> = facets
            .iter()
            .map(|f| setting(r, f).unwrap_or("").to_string())
            .collect();
        let mut label = column(r, "policy").unwrap_or("?").to_string();
        for o in &rest {
            label.push_str(&format!(" · {o}={}", short(setting(r, o).unwrap_or(""))));
        }
        let xv: f64 = setting(r, x)
            .and_then(|v| v.parse().ok())
            .unwrap_or(f64::NAN);
        let at = match g.panels.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                g.panels.push((key, Vec::new()));
                g.panels.len() - 1
            }
        };
        let lines = &mut g.panels[at].1;
        let li = match lines.iter().position(|(l, _)| *l == label) {
            Some(i) => i,
            None => {
                lines.push((label, Vec::new()));
                lines.len() - 1
            }
        };
        let pts = &mut lines[li].1;
        match pts.iter_mut().find(|(v, _)| *v == xv) {
            Some((_, ys)) => ys.push(yv),
            None => pts.push((xv, vec![yv])),
        }
        g.drawn.push(r.id.clone());
    }
    g
}

/// Draws the figure of `records` and writes it with its numbers.
pub(super) fn draw(plan: &Plan, records: &[Record], w: &Wanted) -> Result<()> {
    let x = x_axis(plan, w.x)?;
    let facets = facet_axes(plan, x, w.facet)?;
    let g = group(plan, records, x, w.y, &facets);
    let y_shown = crate::text::sanitize(w.y);
    if g.panels.is_empty() {
        bail!("--plot-y {y_shown}: no run has a number in that column of results.csv");
    }
    if g.missing > 0 {
        crate::cli::print_err(&format!(
            "tracetui: the figure leaves out {} runs with no number in {y_shown}",
            g.missing
        ));
    }
    let failed: Vec<&str> = records
        .iter()
        .filter(|r| r.error.is_some())
        .map(|r| r.id.as_str())
        .collect();
    if !failed.is_empty() {
        crate::cli::print_err(&format!(
            "tracetui: the figure leaves out the {} failed runs",
            failed.len()
        ));
    }
    let metric = super::words::metric(w.y);
    let unit = metric.unit(ys(&g));
    let panels = panels(&g, &facets, metric.bounds, unit.1);
    let seeds = plan
        .axes()
        .find(|k| k.name == "seed")
        .map_or(0, |k| k.values.len());
    let y_title = w
        .y_label
        .map_or_else(|| metric.title(unit.0), str::to_string);
    let x_title = w
        .x_label
        .map_or_else(|| super::words::axis(x), str::to_string);
    let over = match seeds {
        0 => String::new(),
        n => format!(" (mean over {n} seeds, 95 % interval)"),
    };
    let title = w.title.map_or_else(
        || format!("{} by {}{over}", metric.words, super::words::axis_short(x)),
        str::to_string,
    );
    // A share's axis runs 0 to 1 unless the user fixes it otherwise.
    let share = metric.is_share();
    let axes = Axes {
        x: &x_title,
        y: &y_title,
        y_min: w.y_min.or(share.then_some(0.0)),
        y_max: w.y_max.or(share.then_some(1.0)),
    };
    let shown = crate::text::sanitize(&w.path.display().to_string());
    let mut fig =
        facets_figure(&title, &axes, &panels, &w.look).map_err(|e| eyre!("{shown}: {e}"))?;
    fig.data = data_csv(&panels, &facets, &g, x)?;
    let meta = serde_json::json!({
        "tracetui": env!("CARGO_PKG_VERSION"),
        "build": crate::cli::meta::Build::this(),
        "command": w.command,
        "runs": g.drawn,
        "failed": failed,
    });
    crate::cli::plotting::save_with(w.path, fig, Some(&meta))
}

/// The panels to draw: each line's points as means with intervals, y in
/// the unit shown (÷ `per`).
fn panels(g: &Grouped, facets: &[&str], bounds: crate::plot::Bounds, per: f64) -> Vec<Facet> {
    g.panels
        .iter()
        .map(|(key, lines)| Facet {
            caption: facets
                .iter()
                .zip(key)
                .map(|(f, v)| format!("{f} = {}", short(v)))
                .collect::<Vec<_>>()
                .join(" · "),
            lines: lines
                .iter()
                .map(|(label, pts)| {
                    let mut pts = pts.clone();
                    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                    Line {
                        label: label.clone(),
                        points: pts
                            .iter()
                            .map(|(x, ys)| {
                                let ys: Vec<f64> = ys.iter().map(|y| y / per).collect();
                                point(*x, &ys, bounds)
                            })
                            .collect(),
                    }
                })
                .collect(),
        })
        .collect()
}

/// The plotted numbers: the line's label (the policy), each facet axis,
/// the x axis, y (the mean, in the unit shown), the interval and how it
/// was made, and how many runs each point is of.
fn data_csv(panels: &[Facet], facets: &[&str], g: &Grouped, x: &str) -> Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["policy".to_string()];
    header.extend(facets.iter().map(|f| f.to_string()));
    header.extend([x, "y", "lo", "hi", "interval", "n"].map(str::to_string));
    w.write_record(&header)?;
    let num = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v}"));
    for (p, (key, _)) in panels.iter().zip(&g.panels) {
        for l in &p.lines {
            for pt in &l.points {
                let mut row = vec![l.label.clone()];
                row.extend(key.iter().cloned());
                row.extend([
                    format!("{}", pt.x),
                    format!("{}", pt.mean),
                    num(pt.lo),
                    num(pt.hi),
                    pt.interval.to_string(),
                    pt.n.to_string(),
                ]);
                w.write_record(&row)?;
            }
        }
    }
    let bytes = w.into_inner().map_err(|e| eyre!("{e}"))?;
    Ok(String::from_utf8(bytes)?)
}

/// The y values drawn, for the unit to show them in.
fn ys(g: &Grouped) -> impl Iterator<Item = f64> + '_ {
    g.panels.iter().flat_map(|(_, lines)| {
        lines
            .iter()
            .flat_map(|(_, pts)| pts.iter().flat_map(|(_, ys)| ys.iter().copied()))
    })
}
