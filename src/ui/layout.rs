//! Where each part of the screen goes: one pure function of the terminal
//! size and what the app shows, shared by drawing and by mouse hit-testing.

use ratatui::layout::Rect;

pub const MIN_WIDTH: u16 = 80;
pub const MIN_HEIGHT: u16 = 24;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Areas {
    pub header: Rect,
    /// A lesson's caption (zero height without one).
    pub caption: Rect,
    pub grid: Rect,
    pub side: Rect,
    pub metrics: Rect,
    pub log: Rect,
    pub hints: Rect,
}

pub fn too_small(area: Rect) -> bool {
    area.width < MIN_WIDTH || area.height < MIN_HEIGHT
}

/// Header and hint bar one line each, a two-line metrics strip, a log pane
/// of a sixth of the height (3 to 10 lines); the rest split between the GPU
/// grid (left) and the queue (right, at least 36 columns).
pub fn areas(area: Rect) -> Areas {
    areas_for(area, 2)
}

/// `areas`, with a metrics strip of `metrics_h` lines (3 with an energy model).
pub(crate) fn areas_for(area: Rect, metrics_h: u16) -> Areas {
    areas_full(area, metrics_h, 0, None)
}

/// `areas_for`, with a caption of `caption_h` lines under the header; the
/// lecture layout drops the metrics strip, the log and the hint bar so the
/// grid and the queue get the screen.
/// `lecture`: the lecture layout, and whether it has a message to show
/// (a line of its own under the panes; none otherwise).
pub(crate) fn areas_full(
    area: Rect,
    metrics_h: u16,
    caption_h: u16,
    lecture: Option<bool>,
) -> Areas {
    // The lecture layout keeps one line of headline figures, large.
    let (metrics_h, log_h, hints_h) = match lecture {
        Some(message) => (1, 0, u16::from(message)),
        None => (metrics_h, (area.height / 6).clamp(3, 10), 1),
    };
    let body_h = area
        .height
        .saturating_sub(1 + caption_h + hints_h + metrics_h + log_h);
    let side_w = (area.width * 38 / 100)
        .max(36)
        .min(area.width.saturating_sub(20));
    let grid_w = area.width.saturating_sub(side_w);
    let y0 = area.y;
    let y1 = y0 + 1 + caption_h;
    Areas {
        header: Rect::new(area.x, y0, area.width, 1),
        caption: Rect::new(area.x, y0 + 1, area.width, caption_h),
        grid: Rect::new(area.x, y1, grid_w, body_h),
        side: Rect::new(area.x + grid_w, y1, side_w, body_h),
        metrics: Rect::new(area.x, y1 + body_h, area.width, metrics_h),
        log: Rect::new(area.x, y1 + metrics_h + body_h, area.width, log_h),
        hints: Rect::new(
            area.x,
            y0 + area.height.saturating_sub(hints_h),
            area.width,
            hints_h,
        ),
    }
}

/// The inside of a bordered block.
pub fn inner(r: Rect) -> Rect {
    Rect::new(
        r.x + 1,
        r.y + 1,
        r.width.saturating_sub(2),
        r.height.saturating_sub(2),
    )
}

/// A rectangle of `w` × `h` centred in `r` (clamped to it).
pub(crate) fn centered(r: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(r.width);
    let h = h.min(r.height);
    Rect::new(r.x + (r.width - w) / 2, r.y + (r.height - h) / 2, w, h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn areas_tile_the_screen() {
        for (w, h) in [(80, 24), (120, 40), (200, 60)] {
            let a = areas(Rect::new(0, 0, w, h));
            assert_eq!(a.grid.width + a.side.width, w);
            assert_eq!(
                a.header.height + a.grid.height + a.metrics.height + a.log.height + a.hints.height,
                h
            );
            assert_eq!(a.hints.y, h - 1);
            assert!(a.side.width >= 36);
            let b = areas_for(Rect::new(0, 0, w, h), 3);
            assert_eq!(b.metrics.height, 3);
            assert_eq!(b.grid.height + 1, a.grid.height);
            assert_eq!(b.log, a.log);
        }
    }
}
