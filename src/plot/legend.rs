//! The figure's one legend, under the panels (never over the data): each
//! policy's line sample with its marker, and its name, in rows.

use super::style::{marker_at, Style};
use super::{Look, Panel, PlotError};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// An entry's width in pixels: the sample, the name (its characters at
/// about 0.6 of the font size), and a gap.
fn entry_width(label: &str, look: &Look) -> i32 {
    let chars = label.chars().count() as f64;
    (56.0 + chars * 0.6 * f64::from(look.font_size) + 28.0) as i32
}

fn row_height(look: &Look) -> i32 {
    (f64::from(look.font_size) * 1.9) as i32
}

/// Where each entry goes: (x, row) in a strip `width` pixels wide.
fn layout(labels: &[&str], look: &Look, width: i32) -> Vec<(i32, i32)> {
    let (mut x, mut row) = (16, 0);
    labels
        .iter()
        .map(|l| {
            let w = entry_width(l, look);
            if x > 16 && x + w > width - 16 {
                x = 16;
                row += 1;
            }
            let at = (x, row);
            x += w;
            at
        })
        .collect()
}

/// The strip's height for `labels` across the figure.
pub(super) fn height(labels: &[&str], look: &Look) -> u32 {
    let rows = layout(labels, look, look.width as i32)
        .last()
        .map_or(1, |&(_, r)| r + 1);
    (rows * row_height(look) + 16) as u32
}

pub(super) fn draw(
    area: &Panel,
    labels: &[&str],
    styles: &[Style],
    look: &Look,
) -> Result<(), PlotError> {
    let width = area.dim_in_pixel().0 as i32;
    let font = look
        .font(0)
        .pos(Pos::new(HPos::Left, VPos::Center))
        .color(&BLACK);
    for ((label, s), (x, row)) in labels.iter().zip(styles).zip(layout(labels, look, width)) {
        let y = 8 + row * row_height(look) + row_height(look) / 2;
        let line = s.colour.stroke_width(2);
        area.draw(&PathElement::new(vec![(x, y), (x + 40, y)], line))?;
        area.draw(&marker_at(s.marker, (x + 20, y), 10, line))?;
        area.draw(&Text::new(label.to_string(), (x + 50, y), font.clone()))?;
    }
    Ok(())
}
