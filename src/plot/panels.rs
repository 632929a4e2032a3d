//! The figure's panels: a CDF on a log axis, JCT by job size, and each
//! run's GPU utilisation over time.

use super::data::{Data, Point};
use super::style::{marker_at, Style};
use super::ticks;
use super::{Curves, Look, Panel, PlotError};
use plotters::prelude::*;

/// What a CDF's x axis measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Axis {
    Time,
    Number,
}

pub(super) struct Cdf<'a> {
    pub caption: &'a str,
    pub x_label: &'a str,
    pub axis: Axis,
}

/// At most `n` points of the empirical CDF of `values` (sorted
/// ascending), each value at least `lo` (the axis's start).
pub(super) fn cdf_points(values: &[f64], n: usize, lo: f64) -> Vec<(f64, f64)> {
    let len = values.len();
    if len == 0 {
        return Vec::new();
    }
    let step = len.div_ceil(n).max(1);
    let mut pts: Vec<(f64, f64)> = (0..len)
        .step_by(step)
        .map(|i| (values[i].max(lo), (i + 1) as f64 / len as f64))
        .collect();
    pts.push((values[len - 1].max(lo), 1.0));
    pts
}

/// The x range: from the tick at or under the smallest value above zero
/// to the tick at or over the largest.
fn range(axis: Axis, all: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
    let least = all
        .clone()
        .filter(|v| *v > 0.0)
        .fold(f64::INFINITY, f64::min);
    let most = all.fold(0.0f64, f64::max);
    if !least.is_finite() {
        return (1.0, 10.0);
    }
    match axis {
        Axis::Time => {
            let lo = ticks::time_floor(least.max(1.0));
            (lo, ticks::time_ceil(most).max(lo * 10.0))
        }
        Axis::Number => {
            let lo = 10f64.powi(least.max(1e-3).log10().floor() as i32).max(1.0);
            let hi = ticks::log_numbers(lo, most * 10.0)
                .into_iter()
                .find(|&t| t >= most)
                .unwrap_or(most);
            (lo, hi.max(lo * 10.0))
        }
    }
}

fn label_of(axis: Axis, v: f64) -> String {
    match axis {
        Axis::Time => ticks::time_label(v),
        Axis::Number => format!("{v}"),
    }
}

pub(super) fn cdf(
    area: &Panel,
    cdf: &Cdf,
    curves: &[Curves],
    styles: &[Style],
    look: &Look,
    of: fn(&Curves) -> &Vec<f64>,
    data: &mut Data,
) -> Result<(), PlotError> {
    let all = curves.iter().flat_map(|c| of(c).iter().copied());
    let (lo, hi) = range(cdf.axis, all.clone());
    let under = all.clone().any(|v| v < lo);
    let keys = match cdf.axis {
        Axis::Time => ticks::log_times(lo, hi),
        Axis::Number => ticks::log_numbers(lo, hi),
    };
    let x_desc = if under {
        let lo = label_of(cdf.axis, lo);
        format!("{} (log scale; under {lo} shown at {lo})", cdf.x_label)
    } else {
        format!("{} (log scale)", cdf.x_label)
    };
    let axis = cdf.axis;
    let fs = look.font_size as i32;
    let mut chart = ChartBuilder::on(area)
        .caption(cdf.caption, look.font(2))
        .margin(12)
        .x_label_area_size(fs * 3)
        .y_label_area_size(fs * 3)
        .build_cartesian_2d((lo..hi).log_scale().with_key_points(keys), 0.0f64..1.0)?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc("fraction of jobs")
        .x_label_formatter(&|v| label_of(axis, *v))
        .y_labels(6)
        .y_label_formatter(&|v| format!("{v:.1}"))
        .label_style(look.font(-2))
        .axis_desc_style(look.font(0))
        .light_line_style(WHITE)
        .draw()?;
    let panel = cdf.caption.to_lowercase().replace(' ', "_");
    for (c, s) in curves.iter().zip(styles) {
        let pts = cdf_points(of(c), 400, lo);
        for &(x, y) in &pts {
            data.xy(&panel, &c.label, x, y);
        }
        let line = s.colour.stroke_width(2);
        chart.draw_series(LineSeries::new(pts.clone(), line))?;
        let every = (pts.len() / 8).max(1);
        let marks = pts
            .iter()
            .step_by(every)
            .map(|&p| marker_at(s.marker, p, 9, line));
        chart.draw_series(marks)?;
    }
    Ok(())
}

/// A job-size class: by the GPUs a job asks for.
const CLASSES: [(&str, f64, f64); 6] = [
    ("<1", 0.0, 1.0),
    ("1", 1.0, 1.0),
    ("2–4", 2.0, 4.0),
    ("5–8", 5.0, 8.0),
    ("9–32", 9.0, 32.0),
    ("33+", 33.0, f64::INFINITY),
];

fn class_of(gpus: f64) -> usize {
    if gpus < 1.0 {
        return 0;
    }
    let g = gpus.ceil();
    CLASSES
        .iter()
        .position(|&(_, a, b)| g >= a && g <= b && a >= 1.0)
        .unwrap_or(CLASSES.len() - 1)
}

/// The `q` quantile of `sorted` (not empty), as the summaries have it.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    crate::sim::percentile_sorted(sorted, q * 100.0).unwrap_or(f64::NAN)
}

/// Each curve's finished JCTs by class, sorted.
fn by_class(c: &Curves) -> Vec<Vec<f64>> {
    let mut out = vec![Vec::new(); CLASSES.len()];
    for &(g, t) in &c.sized_jct {
        out[class_of(g)].push(t);
    }
    for v in &mut out {
        v.sort_by(f64::total_cmp);
    }
    out
}

pub(super) fn by_size(
    area: &Panel,
    curves: &[Curves],
    styles: &[Style],
    look: &Look,
    data: &mut Data,
) -> Result<(), PlotError> {
    let grouped: Vec<Vec<Vec<f64>>> = curves.iter().map(by_class).collect();
    let shown: Vec<usize> = (0..CLASSES.len())
        .filter(|&k| grouped.iter().any(|g| !g[k].is_empty()))
        .collect();
    let all = grouped.iter().flatten().flatten().copied();
    let (lo, hi) = range(Axis::Time, all);
    let k = shown.len().max(1) as f64;
    let fs = look.font_size as i32;
    let names: Vec<&str> = shown.iter().map(|&i| CLASSES[i].0).collect();
    let mut chart = ChartBuilder::on(area)
        .caption("JCT by job size (median, bar: 25–75 %)", look.font(2))
        .margin(12)
        .x_label_area_size(fs * 3)
        .y_label_area_size(fs * 4)
        .build_cartesian_2d(
            ticks::Ticked::new(-0.5..k - 0.5, (0..shown.len()).map(|i| i as f64).collect()),
            (lo..hi)
                .log_scale()
                .with_key_points(ticks::log_times(lo, hi)),
        )?;
    chart
        .configure_mesh()
        .x_desc("GPUs a job asks for")
        .y_desc("job completion time (log scale)")
        .x_label_formatter(&|v| {
            names
                .get(v.round() as usize)
                .map_or(String::new(), |n| n.to_string())
        })
        .y_label_formatter(&|v| ticks::time_label(*v))
        .label_style(look.font(-2))
        .axis_desc_style(look.font(0))
        .light_line_style(WHITE)
        .draw()?;
    let n = curves.len().max(1) as f64;
    for (p, ((c, s), g)) in curves.iter().zip(styles).zip(&grouped).enumerate() {
        let dx = (p as f64 - (n - 1.0) / 2.0) * 0.7 / n;
        let line = s.colour.stroke_width(2);
        for (x, &class) in shown.iter().enumerate() {
            let v = &g[class];
            if v.is_empty() {
                continue;
            }
            let (q1, m, q3) = (quantile(v, 0.25), quantile(v, 0.5), quantile(v, 0.75));
            let at = x as f64 + dx;
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(at, q1.max(lo)), (at, q3.max(lo))],
                line,
            )))?;
            chart.draw_series(std::iter::once(marker_at(
                s.marker,
                (at, m.max(lo)),
                10,
                line,
            )))?;
            data.push(Point {
                panel: "jct_by_size",
                policy: &c.label,
                x: CLASSES[class].0.to_string(),
                y: m,
                lo: Some(q1),
                hi: Some(q3),
                n: Some(v.len()),
            });
        }
    }
    Ok(())
}

/// `util` smoothed: each point the mean of the `w` points around it.
fn smoothed(util: &[(f64, f64)], w: usize) -> Vec<(f64, f64)> {
    let h = w / 2;
    (0..util.len())
        .map(|i| {
            let (a, b) = (i.saturating_sub(h), (i + h + 1).min(util.len()));
            let mean = util[a..b].iter().map(|p| p.1).sum::<f64>() / (b - a) as f64;
            (util[i].0, mean)
        })
        .collect()
}

/// Each run in a small panel of its own (one over another when there are
/// more than eight), the samples faint and their moving mean over a
/// fiftieth of the span bold.
pub(super) fn utilisation(
    area: &Panel,
    curves: &[Curves],
    styles: &[Style],
    look: &Look,
    data: &mut Data,
) -> Result<(), PlotError> {
    let area = area.titled(
        "GPU utilisation: GPUs allocated, % (faint: samples; bold: their moving mean)",
        look.font(2),
    )?;
    let span = curves
        .iter()
        .filter_map(|c| c.util.last().map(|p| p.0))
        .fold(1.0f64, f64::max);
    let (unit, per, keys) = ticks::linear_time(span);
    let apart = curves.len() <= 8;
    let rows = if apart { curves.len().max(1) } else { 1 };
    let fs = look.font_size as i32;
    // Equal plots: the last panel is taller by its x axis's labels.
    let each = (area.dim_in_pixel().1 as i32 - fs * 3) / rows as i32;
    let cuts: Vec<i32> = (1..rows as i32).map(|i| i * each).collect();
    let panels = area.split_by_breakpoints([] as [i32; 0], cuts);
    for (i, (c, s)) in curves.iter().zip(styles).enumerate() {
        let last = !apart || i + 1 == curves.len();
        let panel = &panels[if apart { i } else { 0 }];
        let mut chart = ChartBuilder::on(panel)
            .margin_left(12)
            .margin_right(12)
            .margin_top(fs / 2 + 4)
            .margin_bottom(fs / 2)
            .x_label_area_size(if last { fs * 3 } else { 0 })
            .y_label_area_size(fs * 3)
            .build_cartesian_2d(
                ticks::Ticked::new(0.0..span / per, keys.clone()),
                ticks::Ticked::new(0.0..100.0, vec![0.0, 50.0, 100.0]),
            )?;
        let mut mesh = chart.configure_mesh();
        mesh.label_style(look.font(-2))
            .axis_desc_style(look.font(0))
            .light_line_style(WHITE)
            .y_label_formatter(&|v| format!("{v:.0}"));
        if last {
            mesh.x_desc(format!("{unit} from the first submission"));
        }
        mesh.x_label_formatter(&|v| format!("{v:.0}")).draw()?;
        let raw: Vec<(f64, f64)> = c.util.iter().map(|&(t, u)| (t / per, u * 100.0)).collect();
        let mean = smoothed(&raw, (raw.len() / 50).max(1));
        if apart {
            chart.draw_series(LineSeries::new(
                raw.clone(),
                s.colour.mix(0.3).stroke_width(1),
            ))?;
        }
        chart.draw_series(LineSeries::new(mean.clone(), s.colour.stroke_width(2)))?;
        if apart {
            let name = look.font(-1).color(&BLACK);
            chart.plotting_area().draw(&Text::new(
                c.label.clone(),
                (span / per * 0.01, 96.0),
                name,
            ))?;
        }
        for (&(x, y), &(_, m)) in raw.iter().zip(&mean) {
            data.xy("utilisation", &c.label, x * per, y / 100.0);
            data.xy("utilisation_mean", &c.label, x * per, m / 100.0);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cdf_points_end_at_one_and_start_at_the_axis() {
        let v = [0.0, 2.0, 3.0, 10.0];
        let p = cdf_points(&v, 400, 1.0);
        assert_eq!(p.first(), Some(&(1.0, 0.25)));
        assert_eq!(p.last(), Some(&(10.0, 1.0)));
        assert!(cdf_points(&[], 10, 1.0).is_empty());
        let many: Vec<f64> = (0..10_000).map(f64::from).collect();
        assert!(cdf_points(&many, 400, 1.0).len() <= 402);
    }

    #[test]
    fn axes_start_where_the_data_does() {
        let jcts = [400.0, 5000.0, 90_000.0];
        assert_eq!(range(Axis::Time, jcts.into_iter()), (300.0, 172_800.0));
        assert_eq!(range(Axis::Number, [1.0, 37.0].into_iter()), (1.0, 50.0));
    }

    #[test]
    fn classes_and_quantiles() {
        assert_eq!(class_of(0.5), 0);
        assert_eq!(class_of(1.0), 1);
        assert_eq!(class_of(3.0), 2);
        assert_eq!(class_of(8.0), 3);
        assert_eq!(class_of(64.0), 5);
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0], 0.5), 2.5);
        assert_eq!(
            smoothed(&[(0.0, 0.0), (1.0, 3.0), (2.0, 0.0)], 3)[1],
            (1.0, 1.0)
        );
    }
}
