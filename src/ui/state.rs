//! What `App` holds, in two parts: the replay (what is simulated and what is
//! derived from it) and the view (how it is shown), each made of types
//! that own their data and what is done with it (`Facts`, `Playback`,
//! `Measured`; `Look`, `Selection`, `Screen`, `LogView`; the features'
//! own state).
//! Only the `ui` module sees the fields; `update` is the only writer.

use super::facts::Facts;
use super::figures::Figures;
use super::keymap::Keymap;
use super::log_view::LogView;
use super::look::Look;
use super::measured::Measured;
use super::playback::Playback;
use super::popups::Popup;
use super::screen::Screen;
use super::selection::Selection;
use super::theme::Theme;
use super::whatif::WhatIf;
use crate::sim::Replay;

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

/// The replay: the simulation, how it is played, and what is derived from it.
pub(super) struct ReplayState {
    pub(super) replay: Replay,
    /// The policies the picker, the split and what-if offer: the built-ins
    /// and the programs registered for this replay.
    pub(super) policies: crate::sim::Policies,
    /// What the header calls the trace: `pai ./data`.
    pub(super) label: String,
    /// What the trace is, fixed at start: its first submission, how its
    /// ids read, its machines in the grid's order.
    pub(super) facts: Facts,
    /// How it is played: paused or playing, speed, tick, moves under way.
    pub(super) playback: Playback,
    // Derived from the replay as it moves.
    /// Every step's figures by trace time: the timeline view and the
    /// metrics strip's sparklines read them, so going back forgets the
    /// future in both.
    pub(super) timeline: super::timeline::Samples,
    pub(super) figures: Figures,
    // Arrived from the runner.
    /// Utilisation the trace measured, per job and per GPU.
    pub(super) measured: Measured,
    /// The what-if fork's rows, while its table matters.
    pub(super) whatif: Option<WhatIf>,
    /// The A/B split's second replay (`A`), in lockstep with this one.
    pub(super) split: Option<Box<super::split::Split>>,
}

/// The view: how the replay is shown and navigated.
pub(super) struct ViewState {
    pub(super) keymap: Keymap,
    /// The themes, the one worn, ASCII or not.
    pub(super) look: Look,
    pub(super) fps: u32,
    pub(super) focus: Focus,
    pub(super) zoom: Zoom,
    pub(super) color_by: ColorBy,
    /// The grid's and the lists' cursors, and the job selected.
    pub(super) selection: Selection,
    pub(super) popup: Option<Popup>,
    pub(super) mouse: bool,
    pub(super) flash: Option<String>,
    /// The last `/` query and which of its matches is shown (`/` with the
    /// same text goes to the next).
    pub(super) found: super::find::Finder,
    /// The lists' order and filter (`s`, `f`).
    pub(super) sort: super::filter::Sort,
    pub(super) filter: Option<super::filter::Filter>,
    /// The log pane's state: where it stands, what it wrapped.
    pub(super) log: LogView,
    /// The terminal size, for layout-dependent moves (kept in step by `Resize`).
    pub(super) screen: Screen,
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
            look: Look::new(themes),
            fps: 10,
            focus: Focus::Grid,
            zoom,
            color_by: ColorBy::Job,
            selection: Selection::new(),
            popup: None,
            mouse: false,
            flash: None,
            found: super::find::Finder::default(),
            sort: Default::default(),
            filter: None,
            log: LogView::new(),
            screen: Screen::new(),
            lecture: super::lecture::Lecture::default(),
            split_placement: None,
            timeline: None,
        }
    }
}

impl ReplayState {
    /// The replay of `replay`'s trace from its start, with machines in display order.
    pub(super) fn new(replay: Replay, label: String) -> ReplayState {
        let facts = Facts::of(replay.engine().trace());
        ReplayState {
            policies: crate::sim::Policies::new(),
            replay,
            label,
            facts,
            playback: Playback::new(),
            timeline: Default::default(),
            figures: Figures::default(),
            measured: Measured::default(),
            whatif: None,
            split: None,
        }
    }
}
