//! The TUI's state, and the one `update` every change goes through.
//!
//! `App` holds a `ReplayState` and a `ViewState` (see `state.rs`), private
//! to the `ui` module: drawing reads them, `update` alone writes them, and
//! tests, benches and the command line read through the accessors below.

pub use super::action::{Action, Asker, Effect, Exported, Quit, Update, WhatIfStart};
pub use super::figures::Figures;
use super::keymap::Keymap;
pub use super::playback::{Tick, SPEEDS, TICKS};
pub use super::popups::{Popup, PromptKind};
pub use super::state::{ColorBy, Focus, Zoom};
use super::state::{ReplayState, ViewState};
use super::theme::Theme;
use super::whatif::WhatIf;
use crate::sim::{Engine, Placement, Policy, Replay};
use crate::trace::{Secs, Trace};
use std::sync::Arc;

pub struct App {
    /// The replay: the simulation and what is derived from it.
    pub(super) sim: ReplayState,
    /// How it is shown.
    pub(super) view: ViewState,
    /// Effects of the action being handled; `update` hands them out.
    out: Vec<Effect>,
}

impl App {
    pub fn new(
        trace: Arc<Trace>,
        policy: Policy,
        placement: Placement,
        label: String,
        themes: Vec<Theme>,
        keymap: Keymap,
    ) -> App {
        App::with_energy(trace, policy, placement, None, label, themes, keymap)
    }

    /// `new`, with an energy model (Zeus) and its starting power policy.
    pub fn with_energy(
        trace: Arc<Trace>,
        policy: Policy,
        placement: Placement,
        energy: crate::sim::Energy,
        label: String,
        themes: Vec<Theme>,
        keymap: Keymap,
    ) -> App {
        let mut engine = Engine::new(trace.clone(), policy, placement);
        if let Some((m, p)) = energy {
            engine = engine.with_energy(m, p);
        }
        engine.set_record_events(true);
        let zoom = if trace.cluster.total_gpus() > 1024 {
            Zoom::Machines
        } else {
            Zoom::Gpus
        };
        App {
            sim: ReplayState::new(Replay::new(engine), label),
            view: ViewState::new(themes, keymap, zoom),
            out: Vec::new(),
        }
    }

    /// The policies the replay may name (the picker, the split, what-if):
    /// the built-ins, and programs registered for it.
    pub fn with_policies(mut self, policies: crate::sim::Policies) -> App {
        self.sim.policies = policies;
        self
    }

    /// The policies the replay may name.
    pub fn policies(&self) -> &crate::sim::Policies {
        &self.sim.policies
    }

    /// The preemptive policies' knobs, and a policy schedule to follow
    /// (set before the replay starts).
    pub fn with_tuning(
        mut self,
        tuning: Arc<crate::sim::Tuning>,
        schedule: Option<&crate::sim::Schedule>,
    ) -> App {
        let engine = self.sim.replay.start_engine().with_tuning(tuning);
        let mut replay = Replay::new(engine);
        if let Some(s) = schedule {
            let e = replay.engine();
            replay.schedule(s.effective(e.policy(), e.power_policy()));
        }
        self.sim.replay = replay;
        self
    }

    /// A lesson's captions: (from this trace second, text).
    pub fn with_captions(mut self, captions: Vec<(Secs, String)>) -> App {
        self.view.lecture = super::lecture::Lecture::with_captions(captions);
        self
    }

    /// Starts with theme `i` of the list given to `new`.
    pub fn with_theme(mut self, i: usize) -> App {
        self.view.look.wear(i);
        self
    }

    /// ASCII glyphs and borders (`--ascii`).
    pub fn with_ascii(mut self, ascii: bool) -> App {
        self.view.look.set_ascii(ascii);
        self
    }

    /// The one place state changes: whether anything visible changed, and
    /// the effects for the runner (see `action.rs`). It reads no file: what
    /// the trace measured or records beyond the model arrives as actions
    /// (`GpuUtilRead`, `JobDetailRead`, `MachineRead`) answering its effects.
    pub fn update(&mut self, action: Action) -> Update {
        let changed = self.handle(action);
        // Standing at a question: the runner asks the program (again).
        if let Some((asker, q)) = self.question() {
            let question = q.clone();
            self.emit(Effect::Ask { asker, question });
        }
        Update {
            changed,
            effects: std::mem::take(&mut self.out),
        }
    }

    /// An action, to what handles it: whether anything visible changed.
    fn handle(&mut self, action: Action) -> bool {
        match action {
            Action::Elapsed(dt) => self.play(dt),
            Action::Command(c) => self.keyed(c),
            Action::Char(ch) => self.type_char(ch),
            Action::Backspace => self.edit_prompt(super::line_edit::Edit::DeleteBack),
            Action::Edit(e) => self.edit_prompt(e),
            Action::Complete => self.complete_command_line(),
            Action::Click { column, row } => self.click(column, row),
            Action::Scroll { column, row, lines } => self.scroll(column, row, lines),
            Action::Resize(w, h) => self.resized(w, h),
            Action::Log(e) => {
                self.view.log.key(e);
                true
            }
            Action::GoTo(t) => {
                self.move_to(t);
                true
            }
            Action::SwitchPolicy(p) => {
                self.switch_policy(p);
                true
            }
            Action::Indexed(result) => self.indexed(result),
            Action::WhatIfProgress { row, progress } => self.what_if_progress(row, progress),
            Action::PoliciesKnown(p) => {
                self.sim.policies.merge(&p);
                true
            }
            Action::WhatIfDone {
                row,
                report,
                dists,
                secs,
            } => self.what_if_done(row, *report, *dists, secs),
            Action::Exported(e) => {
                self.exported(e);
                true
            }
            Action::GpuUtilRead { at, minute } => self.gpu_util_read(at, minute),
            Action::JobDetailRead { job, at, record } => self.job_detail_read(job, at, record),
            Action::MachineRead {
                machine,
                at,
                samples,
            } => self.machine_read(machine, at, samples),
            Action::Answered {
                asker,
                question,
                reply,
            } => self.answered(asker, question, reply),
        }
    }

    /// A command: the flash goes; the popup open (if any) has it first.
    fn keyed(&mut self, c: super::keymap::Command) -> bool {
        self.view.flash = None;
        if self.view.popup.is_some() {
            self.popup_command(c)
        } else {
            self.command(c)
        }
    }

    /// The terminal is `w`×`h` now: the first size fits the zoom, and the
    /// cursor stays in view.
    fn resized(&mut self, w: u16, h: u16) -> bool {
        if self.view.screen.resize(w, h) {
            self.fit_zoom();
        }
        self.scroll_to_cursor();
        true
    }

    /// A background index finished (or found the side tables damaged):
    /// drill-downs and colour by utilisation use what it found.
    fn indexed(&mut self, result: Result<Option<Arc<Vec<f32>>>, crate::trace::Damaged>) -> bool {
        let util = match result {
            Err(e) => {
                self.warn(format!(
                    "side tables damaged, drill-downs show no sensor or metric rows: {e}"
                ));
                return true;
            }
            Ok(util) => util,
        };
        self.info(
            "side tables indexed: drill-downs show them; colour by utilisation (c) uses them"
                .into(),
        );
        if let Some(util) = util {
            self.sim.measured.set_job_util(util);
        }
        self.refresh_gpu_util();
        // An open job drill-down read before: read again, with them.
        if let Some(Popup::Detail { job: Some(job), .. }) = self.view.popup {
            self.view.popup = None;
            let at = self.sim.replay.now();
            self.emit(Effect::ReadJobDetail { job, at });
        }
        true
    }

    /// An effect for the runner.
    pub(super) fn emit(&mut self, e: Effect) {
        self.out.push(e);
    }

    /// A log line (info), performed by the runner.
    pub(super) fn info(&mut self, text: String) {
        self.emit(Effect::Log(log::Level::Info, text));
    }

    /// A log line (warning), performed by the runner.
    pub(super) fn warn(&mut self, text: String) {
        self.emit(Effect::Log(log::Level::Warn, text));
    }

    /// The headline figures, brought up to date with the engine's tally.
    pub(super) fn refresh_figures(&mut self) {
        self.sim.figures.update(self.sim.replay.engine());
    }
}

/// Read-only access, for drawing, tests, benches and the command line.
impl App {
    /// The question the replay (else the split's B side) stands at: an
    /// external policy's program is to answer before it goes on.
    pub fn question(&self) -> Option<(Asker, &crate::sim::Question)> {
        let b = self.sim.split.as_ref().and_then(|s| s.replay.question());
        match self.sim.replay.question() {
            Some(q) => Some((Asker::Replay, q)),
            None => b.map(|q| (Asker::Split, q)),
        }
    }

    /// Whether the replay (or the split's B side) waits for an external
    /// policy's answer.
    pub fn waiting(&self) -> bool {
        self.sim.replay.waiting() || self.split_waiting()
    }

    pub fn engine(&self) -> &Engine {
        self.sim.replay.engine()
    }

    pub fn replay(&self) -> &Replay {
        &self.sim.replay
    }

    pub fn trace(&self) -> &Arc<Trace> {
        self.sim.replay.engine().trace()
    }

    pub fn theme(&self) -> &Theme {
        self.view.look.theme()
    }

    pub(crate) fn tick_size(&self) -> Tick {
        self.sim.playback.tick()
    }

    /// Indexes into `SPEEDS` and `TICKS`.
    pub fn speed_and_tick(&self) -> (usize, usize) {
        self.sim.playback.indexes()
    }

    /// The timeline view's samples: (time, allocated GPUs in percent).
    pub fn timeline_util(&self) -> Vec<(Secs, f64)> {
        self.sim.timeline.util_at().collect()
    }

    /// The headline figures (jobs done, mean JCT, p99 wait).
    pub fn figures(&self) -> &Figures {
        &self.sim.figures
    }

    pub fn paused(&self) -> bool {
        self.sim.playback.paused()
    }

    pub fn focus(&self) -> Focus {
        self.view.focus
    }

    pub fn zoom(&self) -> Zoom {
        self.view.zoom
    }

    pub fn color_by(&self) -> ColorBy {
        self.view.color_by
    }

    pub fn popup(&self) -> Option<&Popup> {
        self.view.popup.as_ref()
    }

    /// The rows an open drill-down takes once its long lines are wrapped
    /// to the box (what paging moves over).
    pub fn detail_rows(&self) -> Option<usize> {
        match &self.view.popup {
            Some(Popup::Detail { lines, .. }) => {
                let cols = super::popups::detail_width(self.view.screen.size());
                Some(super::popups::wrap_detail(lines, cols).len())
            }
            _ => None,
        }
    }

    pub fn flash(&self) -> Option<&str> {
        self.view.flash.as_deref()
    }

    pub fn lecture(&self) -> bool {
        self.view.lecture.on
    }

    pub fn selected(&self) -> Option<u32> {
        self.view.selection.selected()
    }

    /// Machines with GPUs in display order (grouped by GPU type).
    pub fn machines(&self) -> &[u32] {
        self.sim.facts.machines()
    }

    /// The machine under the cursor (an index into `machines`).
    /// The machine at place `pos` of the grid's order.
    pub fn grid_machine(&self, pos: usize) -> Option<u32> {
        self.sim.facts.machine(pos)
    }

    pub fn cursor(&self) -> usize {
        self.view.selection.cursor()
    }

    /// Measured utilisation per GPU in the minute shown, with that minute (Philly).
    pub fn gpu_util(&self) -> Option<&(Secs, Arc<Vec<f32>>)> {
        self.sim.measured.gpu_util()
    }

    /// The what-if fork's rows, once `w` started one.
    pub fn what_if(&self) -> Option<&WhatIf> {
        self.sim.whatif.as_ref()
    }

    /// The schedule that replays this session's switches headless
    /// (`--policy-schedule`), as text.
    pub fn session_schedule(&self) -> String {
        let (policy, power) = self.sim.replay.start_policies();
        crate::sim::Schedule {
            start: Some(policy),
            start_power: power,
            switches: self.sim.replay.switches().to_vec(),
        }
        .text()
    }

    /// `day 3 Tue 14:05:33` in the trace's zone.
    pub fn clock(&self, t: Secs) -> String {
        let tr = self.trace();
        crate::trace::clock_shown(tr.zone, self.sim.facts.first(), t)
    }
}

/// The app's screen: what shows decides the parts' sizes.
impl App {
    fn screen(&self) -> ratatui::layout::Rect {
        self.view.screen.area()
    }

    /// The side pane's lists as shown (sorted, filtered), at most `limit` of each.
    pub(crate) fn lists(&self, limit: usize) -> super::filter::Lists {
        super::filter::lists(
            (self.trace(), self.engine()),
            self.view.sort,
            self.view.filter.as_ref(),
            limit,
        )
    }

    /// How its panels' frames are drawn (theme, ASCII).
    pub(crate) fn chrome(&self) -> super::chrome::Chrome<'_> {
        super::chrome::Chrome {
            theme: self.theme(),
            ascii: self.view.look.ascii(),
        }
    }

    /// The screen's parts at the current size (the metrics strip grows a
    /// power row with an energy model).
    pub fn areas(&self) -> super::layout::Areas {
        self.areas_in(self.screen())
    }

    /// The screen's parts in `area`: metrics strip, caption, lecture layout.
    pub(crate) fn areas_in(&self, area: ratatui::layout::Rect) -> super::layout::Areas {
        let rows = if self.engine().power_policy().is_some() {
            3
        } else {
            2
        };
        let caption = match (self.view.lecture.captions.is_empty(), self.view.lecture.on) {
            (true, _) => 0,
            // As many lines as the caption needs, up to three: never cut.
            (false, false) => self.caption_shown().map_or(1, |c| {
                let w = area.width.saturating_sub(3) as usize;
                crate::text::wrap_words(&c, w, 0).len().clamp(1, 3) as u16
            }),
            // In `L`, a box as tall as the whole caption needs (up to half
            // the screen): never cut.
            (false, true) => self.caption_shown().map_or(3, |c| {
                let w = area.width.saturating_sub(2) as usize;
                let lines = crate::text::wrap_words(&c, w, 0).len() as u16;
                (lines + 2).clamp(3, (area.height / 2).max(3))
            }),
        };
        // The lecture layout's bottom line only while it has something to
        // say: a message, or a prompt being typed.
        let says = self.view.flash.is_some()
            || matches!(self.view.popup, Some(super::popups::Popup::Prompt { .. }));
        let lecture = self.view.lecture.on.then_some(says);
        super::layout::areas_full(area, rows, caption, lecture)
    }
}
