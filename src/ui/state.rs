//! What `App` holds, in two parts: the replay (what is simulated and what is
//! derived from it) and the view (how it is shown). Only the `ui` module
//! sees the fields; `update` is the only writer.

use super::figures::Figures;
use super::keymap::Keymap;
use super::popups::Popup;
use super::theme::Theme;
use super::whatif::WhatIf;
use crate::sim::Replay;
use crate::trace::Secs;
use std::sync::Arc;

/// Trace seconds per wall second when playing.
pub const SPEEDS: [f64; 14] = [
    1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0, 7200.0, 21600.0, 86400.0,
];

/// How far one step goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tick {
    Secs(Secs),
    NextEvent,
}

pub const TICKS: [Tick; 9] = [
    Tick::Secs(1),
    Tick::Secs(10),
    Tick::Secs(60),
    Tick::Secs(300),
    Tick::Secs(900),
    Tick::Secs(3600),
    Tick::Secs(21_600),
    Tick::Secs(86_400),
    Tick::NextEvent,
];

impl Tick {
    pub fn label(self) -> String {
        match self {
            Tick::NextEvent => "next event".into(),
            Tick::Secs(s) if s % 86_400 == 0 => format!("{}d", s / 86_400),
            Tick::Secs(s) if s % 3600 == 0 => format!("{}h", s / 3600),
            Tick::Secs(s) if s % 60 == 0 => format!("{}m", s / 60),
            Tick::Secs(s) => format!("{s}s"),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Grid,
    Queue,
    Log,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Zoom {
    /// One cell per GPU.
    Gpus,
    /// One cell per machine, shaded by how much of it is in use.
    Machines,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorBy {
    Job,
    User,
    Util,
    /// Watts per GPU (with an energy model).
    Power,
}

/// A move forward on its way, sampling the timeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Sampling {
    pub(super) next: Secs,
    pub(super) step: Secs,
    pub(super) to: Secs,
}

/// The replay: the simulation, how it is played, and what is derived from it.
pub(super) struct ReplayState {
    pub(super) replay: Replay,
    /// The policies the picker, the split and what-if offer: the built-ins
    /// and the programs registered for this replay.
    pub(super) policies: crate::sim::Policies,
    /// What the header calls the trace: `pai ./data`.
    pub(super) label: String,
    /// The trace's first submission (cached: the trace does not keep it).
    pub(super) first: Secs,
    /// Whether the trace's job ids share a prefix (Philly's
    /// `application_15…`): lists then cut them from the left.
    pub(super) ids_share_prefix: bool,
    /// Whether some job has a deadline (the split then counts them).
    pub(super) has_deadlines: bool,
    /// Machines with GPUs in display order: grouped by GPU type.
    pub(super) machines: Vec<u32>,
    /// (GPU type, range of `machines`)
    pub(super) groups: Vec<(u16, std::ops::Range<usize>)>,
    // Playing.
    pub(super) paused: bool,
    /// Index into `SPEEDS`.
    pub(super) speed: usize,
    /// Index into `TICKS`.
    pub(super) tick: usize,
    /// Trace seconds (or events) owed to playing.
    pub(super) debt: f64,
    /// Wall seconds the replay has waited for an external policy's answer.
    pub(super) waited: f64,
    /// The replay moved while waiting (answers came, the next question
    /// stands): shown on the next frame.
    pub(super) moved_waiting: bool,
    /// Where steps came from, for stepping back in next-event mode.
    pub(super) back: Vec<Secs>,
    /// A move forward still sampling on its way (it waits for an external
    /// policy's answer): the next time to sample, the step, the end.
    pub(super) sampling: Option<Sampling>,
    // Derived from the replay as it moves.
    /// Every step's figures by trace time: the timeline view and the
    /// metrics strip's sparklines read them, so going back forgets the
    /// future in both.
    pub(super) timeline: super::timeline::Samples,
    pub(super) figures: Figures,
    // Arrived from the runner.
    /// Per PAI job-table row: mean GPU utilisation from the sensor table, when indexed.
    pub(super) job_util: Option<Arc<Vec<f32>>>,
    /// Per GPU (flat index): utilisation measured in the minute shown (Philly's
    /// cluster_gpu_util), with that minute; NaN where the file says NA.
    pub(super) gpu_util: Option<(Secs, Arc<Vec<f32>>)>,
    /// The what-if fork's rows, while its table matters.
    pub(super) whatif: Option<WhatIf>,
    /// The A/B split's second replay (`A`), in lockstep with this one.
    pub(super) split: Option<Box<super::split::Split>>,
}

/// The view: how the replay is shown and navigated.
pub(super) struct ViewState {
    pub(super) keymap: Keymap,
    pub(super) themes: Vec<Theme>,
    pub(super) theme: usize,
    pub(super) ascii: bool,
    pub(super) fps: u32,
    pub(super) focus: Focus,
    pub(super) zoom: Zoom,
    pub(super) color_by: ColorBy,
    /// Index into `ReplayState::machines`.
    pub(super) cursor: usize,
    pub(super) grid_scroll: usize,
    pub(super) selected: Option<u32>,
    pub(super) queue_pos: usize,
    pub(super) popup: Option<Popup>,
    pub(super) mouse: bool,
    pub(super) flash: Option<String>,
    /// The last `/` query and which of its matches is shown (`/` with the
    /// same text goes to the next).
    pub(super) found: super::find::Finder,
    /// The lists' order and filter (`s`, `f`).
    pub(super) sort: super::filter::Sort,
    pub(super) filter: Option<super::filter::Filter>,
    pub(super) log_state: tui_logger::TuiWidgetState,
    /// The log pane's lines as wrapped, by message and width.
    pub(super) log_wraps: super::logfmt::Wraps,
    /// The terminal size, for layout-dependent moves (kept in step by `Resize`).
    pub(super) size: (u16, u16),
    pub(super) sized: bool,
    /// The lecture layout (`L`) and a lesson's captions.
    pub(super) lecture: super::lecture::Lecture,
    /// The split picker's placement for B (`o` there), if not A's.
    pub(super) split_placement: Option<crate::sim::Placement>,
    /// The timeline view (`T`) in place of the grid and lists, when open.
    pub(super) timeline: Option<super::timeline::TimelineView>,
}

impl ViewState {
    pub(super) fn new(themes: Vec<Theme>, keymap: Keymap, zoom: Zoom) -> ViewState {
        ViewState {
            keymap,
            themes,
            theme: 0,
            ascii: false,
            fps: 10,
            focus: Focus::Grid,
            zoom,
            color_by: ColorBy::Job,
            cursor: 0,
            grid_scroll: 0,
            selected: None,
            queue_pos: 0,
            popup: None,
            mouse: false,
            flash: None,
            found: super::find::Finder::default(),
            sort: Default::default(),
            filter: None,
            log_wraps: super::logfmt::Wraps::default(),
            log_state: tui_logger::TuiWidgetState::new()
                .set_default_display_level(log::LevelFilter::Info),
            size: (120, 40),
            sized: false,
            lecture: super::lecture::Lecture::default(),
            split_placement: None,
            timeline: None,
        }
    }
}

impl ReplayState {
    /// The replay of `replay`'s trace from its start, with machines in display order.
    pub(super) fn new(replay: Replay, label: String) -> ReplayState {
        let trace = replay.engine().trace().clone();
        let mut machines = Vec::new();
        let mut groups = Vec::new();
        for ty in 0..trace.cluster.gpu_types.len() as u16 {
            let start = machines.len();
            machines.extend(
                trace
                    .cluster
                    .machines
                    .iter()
                    .enumerate()
                    .filter(|(_, m)| m.gpu_type == ty && m.gpus > 0)
                    .map(|(i, _)| i as u32),
            );
            if machines.len() > start {
                groups.push((ty, start..machines.len()));
            }
        }
        ReplayState {
            policies: crate::sim::Policies::new(),
            replay,
            label,
            first: trace.first_submit().unwrap_or(0),
            ids_share_prefix: shared_prefix(trace.jobs.iter().map(|j| j.id.as_str())) >= 4,
            has_deadlines: trace.jobs.iter().any(|j| j.deadline.get().is_some()),
            machines,
            groups,
            paused: true,
            speed: 5,
            tick: 2,
            debt: 0.0,
            waited: 0.0,
            moved_waiting: false,
            back: Vec::new(),
            sampling: None,
            timeline: Default::default(),
            figures: Figures::default(),
            job_util: None,
            gpu_util: None,
            whatif: None,
            split: None,
        }
    }
}

/// The length (in characters) of the prefix every id shares.
fn shared_prefix<'a>(mut ids: impl Iterator<Item = &'a str>) -> usize {
    let Some(first) = ids.next() else { return 0 };
    let mut n = first.chars().count();
    for id in ids {
        n = first
            .chars()
            .zip(id.chars())
            .take(n)
            .take_while(|(a, b)| a == b)
            .count();
        if n == 0 {
            break;
        }
    }
    n
}
