//! Figures for a paper, headless: the JCT, wait and slowdown CDFs, JCT by
//! job size, and each run's GPU utilisation, as one SVG (plotters' SVG
//! backend: no system libraries), with the plotted numbers as CSV beside
//! it. Time axes tick at 1 min, 1 h, 1 d, 1 w and start where the data
//! does; a policy keeps its colour and marker in every figure (`style`);
//! the legend sits under the panels, off the data. The same runs give the
//! same bytes.

mod curves;
mod data;
mod interval;
mod legend;
mod lines;
mod panels;
pub(crate) mod pdf;
mod style;
mod ticks;

pub(crate) use curves::Curves;
pub(crate) use interval::{point, Bounds};
pub(crate) use lines::{facets_figure, Axes, Facet, Line};

use plotters::prelude::*;

/// How a figure looks: its size in SVG pixels and its font.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Look {
    pub width: u32,
    pub height: u32,
    pub font: String,
    /// The axis labels' size; titles are larger, tick labels smaller.
    pub font_size: u32,
}

impl Default for Look {
    fn default() -> Look {
        Look {
            width: 1500,
            height: 1000,
            font: "sans-serif".into(),
            font_size: 16,
        }
    }
}

impl Look {
    fn font(&self, delta: i32) -> TextStyle<'_> {
        let size = (self.font_size as i32 + delta).max(6);
        (self.font.as_str(), size).into_font().into()
    }
}

/// A figure: the SVG, and the numbers it plots as CSV.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Figure {
    pub svg: String,
    pub data: String,
}

/// Which values of a run a panel draws.
type Of = fn(&Curves) -> &Vec<f64>;

type Panel<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// A figure plotters could not draw, with its reason.
#[derive(Debug, thiserror::Error)]
#[error("could not draw the figure: {0}")]
pub(crate) struct PlotError(#[from] DrawingAreaErrorKind<std::io::Error>);

/// A figure's frame on `root`: white, `title` on top, and the strip for
/// the legend of `labels` at the bottom; the body and that strip.
fn frame<'a>(
    root: &Panel<'a>,
    title: &str,
    labels: &[&str],
    look: &Look,
) -> Result<(Panel<'a>, Panel<'a>), PlotError> {
    root.fill(&WHITE)?;
    // Room on the right for the last tick label of the rightmost panels.
    let right = 2 * look.font_size as i32;
    let root = root.titled(title, look.font(6))?.margin(0, 0, 0, right);
    let legend_h = legend::height(labels, look);
    Ok(root.split_vertically(root.dim_in_pixel().1.saturating_sub(legend_h)))
}

/// The figure for `curves` (one per policy) under `title`.
pub(crate) fn figure(title: &str, curves: &[Curves], look: &Look) -> Result<Figure, PlotError> {
    let labels: Vec<&str> = curves.iter().map(|c| c.label.as_str()).collect();
    let styles = style::styles(&labels);
    let mut data = data::Data::default();
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (look.width, look.height)).into_drawing_area();
        let (body, foot) = frame(&root, title, &labels, look)?;
        let (top, bottom) = body.split_vertically(body.dim_in_pixel().1 / 2);
        let row = top.split_evenly((1, 3));
        let cdfs: [(&str, &str, panels::Axis, Of); 3] = [
            ("JCT CDF", "job completion time", panels::Axis::Time, |c| {
                &c.jct_s
            }),
            (
                "Wait CDF",
                "wait before the first start",
                panels::Axis::Time,
                |c| &c.wait_s,
            ),
            (
                "Slowdown CDF",
                "slowdown (JCT ÷ run time)",
                panels::Axis::Number,
                |c| &c.slowdown,
            ),
        ];
        for (area, (caption, x, axis, of)) in row.iter().zip(cdfs) {
            let cdf = panels::Cdf {
                caption,
                x_label: x,
                axis,
            };
            panels::cdf(area, &cdf, curves, &styles, look, of, &mut data)?;
        }
        let (left, right) = bottom.split_horizontally(bottom.dim_in_pixel().0 / 3);
        panels::by_size(&left, curves, &styles, look, &mut data)?;
        panels::utilisation(&right, curves, &styles, look, &mut data)?;
        legend::draw(&foot, &labels, &styles, look)?;
        root.present()?;
    }
    Ok(Figure {
        svg: out,
        data: data.into_csv(),
    })
}

/// Pixels of figure per pixel of `--plot-font-size` below which its
/// labels overlap (width, height): 1500x1000 holds 16 px text; 900x600, 10 px.
const PX_PER_FONT_PX: (u32, u32) = (90, 60);

impl Look {
    /// Refuses a figure too small for its text (labels would overlap).
    pub(crate) fn fits(&self) -> Result<(), crate::cli::error::CliError> {
        let l = self;
        let (w, h) = PX_PER_FONT_PX;
        if l.width >= w * l.font_size && l.height >= h * l.font_size {
            return Ok(());
        }
        let font = (l.width / w).min(l.height / h);
        let smaller = match font >= 6 {
            true => format!(", or --plot-font-size {font} or less"),
            false => String::new(),
        };
        Err(crate::cli::error::CliError::PlotTooSmall(format!(
            "a {}x{} figure is too small for {} px text: its labels would overlap; give --plot-size {}x{} or more{smaller}",
            l.width,
            l.height,
            l.font_size,
            w * l.font_size,
            h * l.font_size,
        )))
    }
}
