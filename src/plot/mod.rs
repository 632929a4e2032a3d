//! Figures for a paper, headless: the JCT and wait CDFs and the GPU
//! utilisation timeline of one or more runs, as one SVG (plotters' SVG
//! backend: no system libraries). The same runs give the same bytes.

mod curves;

pub(crate) use curves::Curves;

use plotters::prelude::*;

/// Okabe–Ito: told apart by people with any common colour-vision deficiency.
pub(crate) const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),   // blue
    RGBColor(230, 159, 0),   // orange
    RGBColor(0, 158, 115),   // bluish green
    RGBColor(213, 94, 0),    // vermillion
    RGBColor(204, 121, 167), // reddish purple
    RGBColor(86, 180, 233),  // sky blue
    RGBColor(0, 0, 0),       // black
    RGBColor(240, 228, 66),  // yellow
];

/// Width and height of the figure in SVG pixels.
pub(crate) const SIZE: (u32, u32) = (1500, 480);

type Panel<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// A figure plotters could not draw, with its reason.
#[derive(Debug, thiserror::Error)]
#[error("could not draw the figure: {0}")]
pub(crate) struct PlotError(#[from] DrawingAreaErrorKind<std::io::Error>);

/// The figure for `curves` (one per policy) under `title`.
pub(crate) fn svg(title: &str, curves: &[Curves]) -> Result<String, PlotError> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let root = root.titled(title, ("sans-serif", 22))?;
        let panels = root.split_evenly((1, 3));
        cdf(
            &panels[0],
            "JCT CDF",
            "job completion time (log scale)",
            curves,
            |c| &c.jct_s,
        )?;
        cdf(
            &panels[1],
            "Wait CDF",
            "wait before the first start (log scale; under 1 s drawn at 1 s)",
            curves,
            |c| &c.wait_s,
        )?;
        utilisation(&panels[2], curves)?;
        root.present()?;
    }
    Ok(out)
}

/// At most `n` points of the empirical CDF of `values` (sorted ascending),
/// each value at least 1 (a log axis).
fn cdf_points(values: &[f64], n: usize) -> Vec<(f64, f64)> {
    let len = values.len();
    if len == 0 {
        return Vec::new();
    }
    let step = len.div_ceil(n).max(1);
    let mut pts: Vec<(f64, f64)> = (0..len)
        .step_by(step)
        .map(|i| (values[i].max(1.0), (i + 1) as f64 / len as f64))
        .collect();
    pts.push((values[len - 1].max(1.0), 1.0));
    pts
}

fn cdf(
    area: &Panel,
    caption: &str,
    x_label: &str,
    curves: &[Curves],
    of: impl Fn(&Curves) -> &Vec<f64>,
) -> Result<(), PlotError> {
    let hi = curves
        .iter()
        .filter_map(|c| of(c).last().copied())
        .fold(10.0f64, f64::max)
        .max(10.0);
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(56)
        .build_cartesian_2d((1.0f64..hi * 1.2).log_scale(), 0.0f64..1.0)?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc("fraction of jobs")
        .x_label_formatter(&|v| crate::fmt::human_secs(*v))
        .y_label_formatter(&|v| format!("{v:.1}"))
        .draw()?;
    for (k, c) in curves.iter().enumerate() {
        let color = PALETTE[k % PALETTE.len()];
        let pts = cdf_points(of(c), 400);
        let marks: Vec<(f64, f64)> = pts
            .iter()
            .step_by((pts.len() / 8).max(1))
            .copied()
            .collect();
        chart
            .draw_series(LineSeries::new(pts, color.stroke_width(2)))?
            .label(c.label.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        // Each policy its own marker too, for print and colour-blind readers.
        let style = color.stroke_width(2);
        let drawn = match k % 4 {
            0 => chart
                .draw_series(marks.iter().map(|&p| Circle::new(p, 4, style)))
                .map(|_| ()),
            1 => chart
                .draw_series(marks.iter().map(|&p| TriangleMarker::new(p, 5, style)))
                .map(|_| ()),
            2 => chart
                .draw_series(marks.iter().map(|&p| Cross::new(p, 4, style)))
                .map(|_| ()),
            _ => chart
                .draw_series(
                    marks
                        .iter()
                        .map(|&p| EmptyElement::at(p) + Rectangle::new([(-4, -4), (4, 4)], style)),
                )
                .map(|_| ()),
        };
        drawn?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}

fn utilisation(area: &Panel, curves: &[Curves]) -> Result<(), PlotError> {
    let end = curves
        .iter()
        .filter_map(|c| c.util.last().map(|p| p.0))
        .fold(1.0f64, f64::max);
    let mut chart = ChartBuilder::on(area)
        .caption("GPU utilisation", ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(56)
        .build_cartesian_2d(0.0f64..end, 0.0f64..100.0)?;
    chart
        .configure_mesh()
        .x_desc("hours from the first submission")
        .y_desc("GPUs allocated (%)")
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .draw()?;
    for (k, c) in curves.iter().enumerate() {
        let color = PALETTE[k % PALETTE.len()];
        let pts: Vec<(f64, f64)> = c.util.iter().map(|&(h, u)| (h, u * 100.0)).collect();
        chart
            .draw_series(LineSeries::new(pts, color.stroke_width(1)))?
            .label(c.label.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cdf_points_end_at_one_and_clamp_to_one_second() {
        let v = [0.0, 2.0, 3.0, 10.0];
        let p = cdf_points(&v, 400);
        assert_eq!(p.first(), Some(&(1.0, 0.25)));
        assert_eq!(p.last(), Some(&(10.0, 1.0)));
        assert!(cdf_points(&[], 10).is_empty());
        let many: Vec<f64> = (0..10_000).map(f64::from).collect();
        assert!(cdf_points(&many, 400).len() <= 402);
    }
}
