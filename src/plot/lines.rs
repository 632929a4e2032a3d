//! A sweep's figure: a metric against a plan axis (load, cluster size),
//! one line per policy, each point the mean over the seeds with its 95 %
//! confidence interval as a bar.

use super::data::{Data, Point};
use super::style::{marker_at, styles, Style};
use super::{frame, legend, ticks, Figure, Look, PlotError};
use plotters::prelude::*;

/// One point of a line: the mean of `n` values at `x`, and its interval
/// (none from a single value).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LinePoint {
    pub x: f64,
    pub mean: f64,
    pub lo: Option<f64>,
    pub hi: Option<f64>,
    pub n: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Line {
    pub label: String,
    pub points: Vec<LinePoint>,
}

/// What the axes say: their labels, and whether y is a time in seconds.
pub(crate) struct Axes<'a> {
    pub x: &'a str,
    pub y: &'a str,
    pub y_time: bool,
}

fn padded(lo: f64, hi: f64) -> (f64, f64) {
    let pad = ((hi - lo) * 0.05).max(hi.abs() * 1e-3).max(1e-9);
    (lo - pad, hi + pad)
}

/// The x values the lines have: where the x axis ticks.
fn xs_at(lines: &[Line]) -> Vec<f64> {
    let mut xs: Vec<f64> = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.x))
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    if xs.len() > 12 {
        let (lo, hi) = (xs[0], xs[xs.len() - 1]);
        return ticks::linear_nice(lo, hi, 1.0);
    }
    xs
}

fn y_unit(axes: &Axes, hi: f64) -> f64 {
    if axes.y_time {
        ticks::time_unit(hi)
    } else {
        1.0
    }
}

/// The figure of `lines` under `title`.
pub(crate) fn lines_figure(
    title: &str,
    axes: &Axes,
    lines: &[Line],
    look: &Look,
) -> Result<Figure, PlotError> {
    let labels: Vec<&str> = lines.iter().map(|l| l.label.as_str()).collect();
    let styles = styles(&labels);
    let (x0, x1, y0, y1) = bounds(lines);
    let mut data = Data::default();
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (look.width, look.height)).into_drawing_area();
        let (body, foot) = frame(&root, title, &labels, look)?;
        let fs = look.font_size as i32;
        let mut chart = ChartBuilder::on(&body)
            .margin(16)
            .x_label_area_size(fs * 3)
            .y_label_area_size(fs * 5)
            .build_cartesian_2d(
                ticks::Ticked::new(x0..x1, xs_at(lines)),
                ticks::Ticked::new(y0..y1, ticks::linear_nice(y0, y1, y_unit(axes, y1))),
            )?;
        let y_time = axes.y_time;
        chart
            .configure_mesh()
            .x_desc(axes.x)
            .y_desc(axes.y)
            .x_label_formatter(&|v| format!("{v}"))
            .y_label_formatter(&|v| {
                if y_time {
                    ticks::time_label(*v)
                } else {
                    format!("{}", (v * 1e6).round() / 1e6)
                }
            })
            .label_style(look.font(-2))
            .axis_desc_style(look.font(0))
            .light_line_style(WHITE)
            .draw()?;
        for (l, s) in lines.iter().zip(&styles) {
            draw_line(&mut chart, l, s, &mut data)?;
        }
        legend::draw(&foot, &labels, &styles, look)?;
        root.present()?;
    }
    Ok(Figure {
        svg: out,
        data: data.into_csv(),
    })
}

/// The axes' ranges (x0, x1, y0, y1) over every point and interval, padded.
fn bounds(lines: &[Line]) -> (f64, f64, f64, f64) {
    let pts = lines.iter().flat_map(|l| l.points.iter());
    let xs = pts.clone().map(|p| p.x);
    let ys = pts.flat_map(|p| [Some(p.mean), p.lo, p.hi]).flatten();
    let (x0, x1) = padded(
        xs.clone().fold(f64::INFINITY, f64::min),
        xs.fold(f64::NEG_INFINITY, f64::max),
    );
    let (y0, y1) = padded(
        ys.clone().fold(f64::INFINITY, f64::min),
        ys.fold(f64::NEG_INFINITY, f64::max),
    );
    if x0.is_finite() && y0.is_finite() {
        (x0, x1, y0, y1)
    } else {
        (0.0, 1.0, 0.0, 1.0)
    }
}

/// One policy's line: means joined and marked, intervals as bars, into `data`.
fn draw_line(
    chart: &mut ChartContext<SVGBackend, Cartesian2d<ticks::Ticked, ticks::Ticked>>,
    l: &Line,
    style: &Style,
    data: &mut Data,
) -> Result<(), PlotError> {
    let line = style.colour.stroke_width(2);
    let mid: Vec<(f64, f64)> = l.points.iter().map(|p| (p.x, p.mean)).collect();
    chart.draw_series(LineSeries::new(mid.clone(), line))?;
    chart.draw_series(mid.iter().map(|&p| marker_at(style.marker, p, 10, line)))?;
    for p in &l.points {
        if let (Some(lo), Some(hi)) = (p.lo, p.hi) {
            // The interval as a bar with caps 10 pixels wide.
            let bar = PathElement::new(vec![(p.x, lo), (p.x, hi)], line);
            let cap =
                |y: f64| EmptyElement::at((p.x, y)) + PathElement::new(vec![(-5, 0), (5, 0)], line);
            chart.draw_series(std::iter::once(bar))?;
            chart.draw_series([cap(lo), cap(hi)])?;
        }
        data.push(Point {
            panel: "sweep",
            policy: &l.label,
            x: format!("{}", p.x),
            y: p.mean,
            lo: p.lo,
            hi: p.hi,
            n: Some(p.n),
        });
    }
    Ok(())
}

/// Student's t at 97.5 % for 1–30 degrees of freedom (beyond: 1.96).
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

/// The mean of `values` at `x` and its 95 % confidence interval
/// (Student's t over the sample standard deviation; none from one value).
pub(crate) fn point(x: f64, values: &[f64]) -> LinePoint {
    let n = values.len();
    let mean = values.iter().sum::<f64>() / n.max(1) as f64;
    if n < 2 {
        return LinePoint {
            x,
            mean,
            lo: None,
            hi: None,
            n,
        };
    }
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let t = T975.get(n - 2).copied().unwrap_or(1.96);
    let half = t * (var / n as f64).sqrt();
    LinePoint {
        x,
        mean,
        lo: Some(mean - half),
        hi: Some(mean + half),
        n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_point_s_interval_is_student_s_t() {
        let p = point(1.0, &[1.0, 2.0, 3.0]);
        assert_eq!(p.mean, 2.0);
        // sd 1, n 3: half-width 4.303 / √3.
        let half = 4.303 / 3f64.sqrt();
        assert!((p.hi.unwrap() - (2.0 + half)).abs() < 1e-12);
        assert!((p.lo.unwrap() - (2.0 - half)).abs() < 1e-12);
        assert_eq!(point(1.0, &[5.0]).lo, None);
    }
}
