//! The app's inputs and outputs: every change is an `Action` through
//! `App::update`, which returns whether anything visible changed and the
//! `Effect`s for the runner to perform. `update` itself does no I/O, reads
//! no environment or clock, spawns nothing and logs nothing: exports, the
//! what-if fork, reads of the trace's files (measured utilisation,
//! drill-downs), an external policy's answers, log lines, the mouse
//! capture and quitting are effects, performed by
//! `effects::Effects` (the event loop in `run.rs`, and tests), whose
//! results come back as actions.

use super::keymap::Command;
use crate::sim::{Engine, Policy, Question, Reply, Report, WhatIfRun};
use crate::trace::{MachineSample, MachineValues, Secs};
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;

/// Everything that changes the app.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Command(Command),
    /// Wall-clock seconds passed (drives playing).
    Elapsed(f64),
    /// Text typed into a prompt.
    Char(char),
    Backspace,
    /// Tab in a prompt: the `:` line completed.
    Complete,
    /// A prompt's line edited (cursor moves, cuts).
    Edit(super::line_edit::Edit),
    /// A click at a screen cell (column, row).
    Click {
        column: u16,
        row: u16,
    },
    /// The mouse wheel at a screen cell: `lines` down (negative: up), in
    /// the pane under the pointer.
    Scroll {
        column: u16,
        row: u16,
        lines: i32,
    },
    /// The terminal's size changed (also sent once at the start).
    Resize(u16, u16),
    /// A key for the focused log pane.
    Log(tui_logger::TuiWidgetEvent),
    /// Go to a trace time (forward or back).
    GoTo(Secs),
    /// Switch the scheduling policy live (refused where the trace cannot support it).
    SwitchPolicy(Policy),
    /// A background index finished: PAI's per-job sensor utilisation (if any),
    /// or (None) Philly's utilisation files.
    Indexed(Result<Option<Arc<Vec<f32>>>, crate::trace::Damaged>),
    /// Policies registered in the background (config.toml's programs,
    /// asked who they are while the replay starts): the picker offers them.
    PoliciesKnown(Box<crate::sim::Policies>),
    /// A what-if row's progress (0–1).
    WhatIfProgress {
        row: usize,
        progress: f64,
    },
    /// A what-if row's result and its JCT and wait distributions, `secs`
    /// (wall time) after the fork started.
    WhatIfDone {
        row: usize,
        report: Box<Report>,
        dists: Box<crate::sim::Dists>,
        secs: f64,
    },
    /// What became of an `Effect::Export`.
    Exported(Exported),
    /// The answer to `Effect::ReadGpuUtil { at }`: the latest minute at or
    /// before `at` (its time; machine → one value per GPU), or `None` when
    /// none is recent enough. Ignored once the replay is no longer at `at`.
    GpuUtilRead {
        at: Secs,
        minute: Option<(Secs, MachineValues)>,
    },
    /// The answer to `Effect::ReadJobDetail`: everything the trace records
    /// about `job`. Opens its drill-down, unless the replay moved or another
    /// popup opened meanwhile.
    JobDetailRead {
        job: u32,
        at: Secs,
        record: Value,
    },
    /// The answer to `Effect::ReadMachine`: the machine's measurements by
    /// the file they come from. Opens its drill-down (stale as above).
    MachineRead {
        machine: u32,
        at: Secs,
        samples: Vec<(&'static str, MachineSample)>,
    },
    /// The reply to `Effect::Ask`: the replay that asked goes on (ignored
    /// if it no longer stands at that question).
    Answered {
        asker: Asker,
        question: Question,
        reply: Reply,
    },
}

/// Which replay stands at a question: the live one, or the split's B side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asker {
    Replay,
    Split,
}

/// The files an export wrote, or why it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exported {
    /// The screen as text and SVG, and an open drill-down's whole text.
    Files {
        txt: PathBuf,
        svg: PathBuf,
        detail: Option<PathBuf>,
    },
    Failed {
        dir: PathBuf,
        error: String,
    },
}

/// What the runner does for `update`.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Render the screen as it is now and write it as `.txt` and `.svg`
    /// (in `$TRACETUI_EXPORT_DIR`, else the current directory); answered
    /// with `Action::Exported`.
    Export,
    /// Start the what-if fork; answered with `WhatIfProgress`/`WhatIfDone`.
    /// A new fork replaces (and stops) the one before.
    StartWhatIf(WhatIfStart),
    /// Read the measured per-GPU utilisation of the minute shown at `at`
    /// (Philly's utilisation file); answered with `GpuUtilRead` once the
    /// file is indexed, not at all before.
    ReadGpuUtil {
        at: Secs,
    },
    /// Read what the trace records about `job` for its drill-down (PAI's
    /// sensor and metric rows too, once indexed); answered with `JobDetailRead`.
    ReadJobDetail {
        job: u32,
        at: Secs,
    },
    /// Read what the trace measured on `machine` at `at` for its
    /// drill-down; answered with `MachineRead`.
    ReadMachine {
        machine: u32,
        at: Secs,
    },
    /// An external policy's program is to answer `question`, which the
    /// replay (or the split's B side) stands at: answered with `Answered`
    /// if the answer comes by the runner's deadline (shortly before the
    /// next frame), else not at all (`update` asks again while it waits).
    Ask {
        asker: Asker,
        question: Question,
    },
    /// A line for the log pane.
    Log(log::Level, String),
    /// Capture the mouse (or stop).
    CaptureMouse(bool),
    /// Open the built-in lesson of this name in place of the replay
    /// (`:lesson NAME`), the screen's look kept.
    OpenLesson(String),
    Quit(Quit),
}

/// The fork to start: runs from a copy of the engine as it is now.
#[derive(Debug, Clone)]
pub struct WhatIfStart {
    pub base: Box<Engine>,
    pub runs: Vec<WhatIfRun>,
}

impl PartialEq for WhatIfStart {
    /// The same runs from the same time.
    fn eq(&self, other: &Self) -> bool {
        self.base.now() == other.base.now() && self.runs == other.runs
    }
}

/// What `update` returns.
#[derive(Debug, Default, PartialEq)]
pub struct Update {
    /// Whether anything visible changed (the runner redraws).
    pub changed: bool,
    /// For the runner to perform, in order.
    pub effects: Vec<Effect>,
}

impl Update {
    /// The log lines among the effects, as text.
    pub fn log_lines(&self) -> Vec<&str> {
        self.effects
            .iter()
            .filter_map(|e| match e {
                Effect::Log(_, t) => Some(t.as_str()),
                _ => None,
            })
            .collect()
    }

    /// The quit among the effects, if any.
    pub fn quit(&self) -> Option<Quit> {
        self.effects.iter().find_map(|e| match e {
            Effect::Quit(q) => Some(*q),
            _ => None,
        })
    }
}

/// How the replay ends: the screen cleared, or the last frame kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quit {
    Clear,
    KeepFrame,
}
