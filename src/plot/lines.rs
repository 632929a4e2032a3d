//! A sweep's figure: a metric against a plan axis (load, cluster size),
//! one panel per value of the other axes, one line per policy in each
//! (the same colour and marker in every panel), each point the mean over
//! the seeds with its 95 % interval as a bar.

use super::style::{marker_at, styles, Style};
use super::{frame, legend, ticks, Figure, Look, PlotError};
use plotters::prelude::*;

/// One point of a line: the mean of `n` values at `x`, and its interval
/// (none from a single value) and how it was made.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LinePoint {
    pub x: f64,
    pub mean: f64,
    pub lo: Option<f64>,
    pub hi: Option<f64>,
    pub n: usize,
    pub interval: &'static str,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Line {
    pub label: String,
    pub points: Vec<LinePoint>,
}

/// What the axes say: their titles (words and units), and the y range
/// where the user fixed it.
pub(crate) struct Axes<'a> {
    pub x: &'a str,
    pub y: &'a str,
    pub y_min: Option<f64>,
    pub y_max: Option<f64>,
}

/// One panel of a faceted figure: its caption (the facet's values), and
/// its lines.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Facet {
    pub caption: String,
    pub lines: Vec<Line>,
}

fn padded(lo: f64, hi: f64) -> (f64, f64) {
    let pad = ((hi - lo) * 0.05).max(hi.abs() * 1e-3).max(1e-9);
    (lo - pad, hi + pad)
}

/// The x values the lines have: where the x axis ticks.
fn xs_at(lines: &[&Line]) -> Vec<f64> {
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

/// Rows and columns for `n` panels: as square as fits, wider than tall.
fn grid(n: usize) -> (usize, usize) {
    let cols = (n as f64).sqrt().ceil().max(1.0) as usize;
    (n.div_ceil(cols).max(1), cols)
}

/// The figure of `facets` (one panel each, the same axes' ranges in
/// all, one style per line label in all) under `title`.
pub(crate) fn facets_figure(
    title: &str,
    axes: &Axes,
    facets: &[Facet],
    look: &Look,
) -> Result<Figure, PlotError> {
    let mut labels: Vec<&str> = Vec::new();
    for l in facets.iter().flat_map(|f| &f.lines) {
        if !labels.contains(&l.label.as_str()) {
            labels.push(&l.label);
        }
    }
    let styles = styles(&labels);
    let all: Vec<&Line> = facets.iter().flat_map(|f| &f.lines).collect();
    let (x0, x1, y0, y1) = bounds(&all, axes);
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (look.width, look.height)).into_drawing_area();
        let (body, foot) = frame(&root, title, &labels, look)?;
        let (rows, cols) = grid(facets.len());
        let areas = body.split_evenly((rows, cols));
        let range = Range { x0, x1, y0, y1 };
        for (area, f) in areas.iter().zip(facets) {
            let style_of =
                |l: &Line| styles[labels.iter().position(|x| *x == l.label).unwrap_or(0)];
            panel(area, f, axes, &range, look, &xs_at(&all), &style_of)?;
        }
        legend::draw(&foot, &labels, &styles, look)?;
        root.present()?;
    }
    Ok(Figure {
        svg: out,
        data: String::new(),
    })
}

/// The axes' ranges every panel shares.
struct Range {
    x0: f64,
    x1: f64,
    y0: f64,
    y1: f64,
}

/// One panel: its caption, axes, and lines.
fn panel(
    area: &super::Panel,
    f: &Facet,
    axes: &Axes,
    r: &Range,
    look: &Look,
    xs: &[f64],
    style_of: &dyn Fn(&Line) -> Style,
) -> Result<(), PlotError> {
    let fs = look.font_size as i32;
    let mut b = ChartBuilder::on(area);
    b.margin(16)
        .x_label_area_size(fs * 3)
        .y_label_area_size(fs * 5);
    if !f.caption.is_empty() {
        b.caption(&f.caption, look.font(2));
    }
    let mut chart = b.build_cartesian_2d(
        ticks::Ticked::new(r.x0..r.x1, xs.to_vec()),
        ticks::Ticked::new(r.y0..r.y1, ticks::linear_nice(r.y0, r.y1, 1.0)),
    )?;
    chart
        .configure_mesh()
        .x_desc(axes.x)
        .y_desc(axes.y)
        .x_label_formatter(&|v| format!("{v}"))
        .y_label_formatter(&|v| format!("{}", (v * 1e6).round() / 1e6))
        .label_style(look.font(-2))
        .axis_desc_style(look.font(0))
        .light_line_style(WHITE)
        .draw()?;
    for l in &f.lines {
        draw_line(&mut chart, l, &style_of(l))?;
    }
    Ok(())
}

/// The axes' ranges (x0, x1, y0, y1) over every point and interval,
/// padded; y as the user fixed it where they did.
fn bounds(lines: &[&Line], axes: &Axes) -> (f64, f64, f64, f64) {
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
    let (y0, y1) = (axes.y_min.unwrap_or(y0), axes.y_max.unwrap_or(y1));
    if x0.is_finite() && y0.is_finite() && y1 > y0 {
        (x0, x1, y0, y1)
    } else {
        (0.0, 1.0, 0.0, 1.0)
    }
}

/// One line: means joined and marked, intervals as bars.
fn draw_line(
    chart: &mut ChartContext<SVGBackend, Cartesian2d<ticks::Ticked, ticks::Ticked>>,
    l: &Line,
    style: &Style,
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
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::interval::{point, Bounds};

    #[test]
    fn a_point_s_interval_is_student_s_t() {
        let p = point(1.0, &[10.0, 11.0, 12.0], Bounds::NonNegative);
        assert_eq!(p.mean, 11.0);
        // sd 1, n 3: half-width 4.303 / √3.
        let half = 4.303 / 3f64.sqrt();
        assert!((p.hi.unwrap() - (11.0 + half)).abs() < 1e-12);
        assert!((p.lo.unwrap() - (11.0 - half)).abs() < 1e-12);
        assert_eq!(p.interval, "Student's t 95 %");
        assert_eq!(point(1.0, &[5.0], Bounds::NonNegative).lo, None);
    }
}
