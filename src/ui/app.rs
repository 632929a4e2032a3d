//! The TUI's state, and the one `update` every change goes through.

use super::keymap::{Command, Keymap};
use super::theme::Theme;
use crate::sim::replay::Replay;
use crate::sim::{Engine, Placement, Policy};
use crate::trace::model::{Secs, Trace};
use std::collections::VecDeque;
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    Find,
    Goto,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Popup {
    Help {
        scroll: usize,
    },
    /// The drill-down of a job: its rendered lines, scrolled.
    /// A drill-down (of a job or a machine): a title and rendered lines, scrolled.
    Detail {
        title: String,
        lines: Vec<String>,
        scroll: usize,
    },
    Picker {
        at: usize,
    },
    /// The what-if table, with the chosen row.
    WhatIf {
        at: usize,
    },
    Prompt {
        kind: PromptKind,
        input: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quit {
    Clear,
    KeepFrame,
}

/// Everything that changes the app.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Command(Command),
    /// Wall-clock seconds passed (drives playing).
    Elapsed(f64),
    /// Text typed into a prompt.
    Char(char),
    Backspace,
    /// A click at a screen cell (column, row) with the grid drawn in `area`.
    Click {
        column: u16,
        row: u16,
    },
    Scroll(i32),
    /// The terminal's size changed (also sent once at the start).
    Resize(u16, u16),
    /// A key for the focused log pane.
    Log(tui_logger::TuiWidgetEvent),
    /// A background index finished: PAI's per-job sensor utilisation (if any),
    /// or (None) Philly's utilisation files.
    Indexed(Option<Arc<Vec<f32>>>),
}

pub use super::figures::Figures;

pub struct App {
    pub replay: Replay,
    /// What the header calls the trace: `pai ./data`.
    pub label: String,
    pub keymap: Keymap,
    pub themes: Vec<Theme>,
    pub theme: usize,
    pub ascii: bool,
    pub paused: bool,
    pub speed: usize,
    pub tick: usize,
    pub focus: Focus,
    pub zoom: Zoom,
    pub color_by: ColorBy,
    /// Machines with GPUs in display order: grouped by GPU type.
    pub machines: Vec<u32>,
    /// (GPU type, range of `machines`)
    pub groups: Vec<(u16, std::ops::Range<usize>)>,
    /// Machines without GPUs (not drawn in the grid), for the legend.
    pub cpu_only: usize,
    pub cursor: usize,
    pub grid_scroll: usize,
    pub selected: Option<u32>,
    pub queue_pos: usize,
    pub popup: Option<Popup>,
    pub mouse: bool,
    pub flash: Option<String>,
    pub util_hist: VecDeque<u64>,
    /// Cluster power draw (W) at each step, with an energy model.
    pub power_hist: VecDeque<u64>,
    pub queue_hist: VecDeque<u64>,
    pub figures: Figures,
    pub log_state: tui_logger::TuiWidgetState,
    pub quit: Option<Quit>,
    /// Trace seconds (or events) owed to playing.
    pub(super) debt: f64,
    /// Where steps came from, for stepping back in next-event mode.
    pub(super) back: Vec<Secs>,
    /// Per PAI job-table row: mean GPU utilisation from the sensor table, when indexed.
    pub job_util: Option<Arc<Vec<f32>>>,
    /// Per GPU (flat index): utilisation measured in the minute shown (Philly's
    /// cluster_gpu_util), with that minute; NaN where the file says NA.
    pub gpu_util: Option<(Secs, Arc<Vec<f32>>)>,
    pub fps: u32,
    /// The trace's first submission (cached: the trace does not keep it).
    pub first: Secs,
    /// The terminal size, for layout-dependent moves (kept in step by `Resize`).
    pub size: (u16, u16),
    sized: bool,
    /// The what-if fork, while its table matters.
    pub whatif: Option<super::whatif::WhatIf>,
    /// A lesson's captions: (from this trace second, text), in time order.
    pub captions: Vec<(Secs, String)>,
    /// The lecture layout (`L`), and the theme to go back to.
    pub lecture: bool,
    pub(super) theme_before_lecture: Option<usize>,
}

pub const HISTORY: usize = 240;

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

    /// The preemptive policies' knobs, and a policy schedule to follow
    /// (set before the replay starts).
    pub fn with_tuning(
        mut self,
        tuning: Arc<crate::sim::Tuning>,
        schedule: Option<&crate::sim::schedule::Schedule>,
    ) -> App {
        let engine = self.replay.start_engine().clone().with_tuning(tuning);
        let mut replay = Replay::new(engine);
        if let Some(s) = schedule {
            let e = replay.engine();
            replay.schedule(s.effective(e.policy(), e.power_policy()));
        }
        self.replay = replay;
        self
    }

    /// The schedule that replays this session's switches headless
    /// (`--policy-schedule`), as text.
    pub fn session_schedule(&self) -> String {
        let start = self.replay.start_engine();
        crate::sim::schedule::Schedule {
            start: Some(start.policy()),
            start_power: start.power_policy(),
            switches: self.replay.switches().to_vec(),
        }
        .text()
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
        let cpu_only = trace
            .cluster
            .machines
            .iter()
            .filter(|m| m.gpus == 0)
            .count();
        let gpus = trace.cluster.total_gpus();
        App {
            replay: Replay::new(engine),
            label,
            keymap,
            themes,
            theme: 0,
            ascii: false,
            paused: true,
            speed: 5,
            tick: 2,
            focus: Focus::Grid,
            zoom: if gpus > 1024 {
                Zoom::Machines
            } else {
                Zoom::Gpus
            },
            color_by: ColorBy::Job,
            machines,
            groups,
            cpu_only,
            cursor: 0,
            grid_scroll: 0,
            selected: None,
            queue_pos: 0,
            popup: None,
            mouse: false,
            flash: None,
            util_hist: VecDeque::with_capacity(HISTORY),
            power_hist: VecDeque::with_capacity(HISTORY),
            queue_hist: VecDeque::with_capacity(HISTORY),
            figures: Figures::default(),
            log_state: tui_logger::TuiWidgetState::new()
                .set_default_display_level(log::LevelFilter::Info),
            quit: None,
            debt: 0.0,
            back: Vec::new(),
            job_util: None,
            gpu_util: None,
            fps: 10,
            first: trace.first_submit().unwrap_or(0),
            size: (120, 40),
            sized: false,
            whatif: None,
            captions: Vec::new(),
            lecture: false,
            theme_before_lecture: None,
        }
    }

    pub fn engine(&self) -> &Engine {
        self.replay.engine()
    }

    pub fn trace(&self) -> &Arc<Trace> {
        self.replay.engine().trace()
    }

    pub fn theme(&self) -> &Theme {
        &self.themes[self.theme]
    }

    pub fn tick_size(&self) -> Tick {
        TICKS[self.tick]
    }

    /// The one place state changes. Returns whether anything visible changed.
    pub fn update(&mut self, action: Action) -> bool {
        match action {
            Action::Elapsed(dt) => {
                let polled = self.poll_what_if();
                self.play(dt) || polled
            }
            Action::Command(c) => {
                self.flash = None;
                if self.popup.is_some() {
                    self.popup_command(c)
                } else {
                    self.command(c)
                }
            }
            Action::Char(ch) => self.type_char(ch),
            Action::Backspace => match &mut self.popup {
                Some(Popup::Prompt { input, .. }) => {
                    input.pop();
                    true
                }
                _ => false,
            },
            Action::Click { column, row } => self.click(column, row),
            Action::Scroll(d) => self.scroll(d),
            Action::Resize(w, h) => {
                self.size = (w, h);
                if !self.sized {
                    self.sized = true;
                    self.fit_zoom();
                }
                self.scroll_to_cursor();
                true
            }
            Action::Log(e) => {
                self.log_state.transition(e);
                true
            }
            Action::Indexed(util) => {
                if util.is_some() {
                    self.job_util = util;
                }
                self.refresh_gpu_util();
                true
            }
        }
    }

    fn command(&mut self, c: Command) -> bool {
        match c {
            Command::TogglePlay => {
                self.paused = !self.paused;
                self.debt = 0.0;
            }
            Command::Step => {
                self.paused = true;
                self.step_forward();
            }
            Command::StepBack => {
                self.paused = true;
                self.step_back();
            }
            Command::Faster => self.speed = (self.speed + 1).min(SPEEDS.len() - 1),
            Command::Slower => self.speed = self.speed.saturating_sub(1),
            Command::TickUp => self.tick = (self.tick + 1).min(TICKS.len() - 1),
            Command::TickDown => self.tick = self.tick.saturating_sub(1),
            Command::Goto => {
                self.popup = Some(Popup::Prompt {
                    kind: PromptKind::Goto,
                    input: String::new(),
                })
            }
            Command::Find => {
                self.popup = Some(Popup::Prompt {
                    kind: PromptKind::Find,
                    input: String::new(),
                })
            }
            Command::Policy => {
                let at = Policy::ALL
                    .iter()
                    .position(|p| *p == self.engine().policy())
                    .unwrap_or(0);
                self.popup = Some(Popup::Picker { at });
            }
            Command::Detail => self.open_detail(),
            Command::Machine => self.open_machine(),
            Command::Power => self.toggle_power(),
            Command::WhatIf => self.what_if(),
            Command::Lecture => self.toggle_lecture(),
            Command::Export => self.export(),
            Command::Schedule => {
                let s = self.session_schedule();
                log::info!("this session as a schedule: --policy-schedule '{s}'");
                self.flash = Some(format!("--policy-schedule '{s}' (in the log)"));
            }
            Command::Help => self.popup = Some(Popup::Help { scroll: 0 }),
            Command::Focus => {
                self.focus = match self.focus {
                    Focus::Grid => Focus::Queue,
                    Focus::Queue => Focus::Log,
                    Focus::Log => Focus::Grid,
                };
                match self.focus {
                    Focus::Queue => {
                        let listed = self.listed();
                        self.queue_pos = self.queue_pos.min(listed.len().saturating_sub(1));
                        self.selected = listed.get(self.queue_pos).copied().or(self.selected);
                    }
                    Focus::Grid => self.follow_cursor_job(),
                    Focus::Log => {}
                }
            }
            Command::Theme => {
                self.theme = (self.theme + 1) % self.themes.len();
                self.flash = Some(format!(
                    "theme {}: {}",
                    self.theme().name,
                    self.theme().description
                ));
            }
            Command::ColorBy => {
                let energy = self.engine().power_policy().is_some();
                self.color_by = match self.color_by {
                    ColorBy::Job => ColorBy::User,
                    ColorBy::User => ColorBy::Util,
                    ColorBy::Util if energy => ColorBy::Power,
                    ColorBy::Util | ColorBy::Power => ColorBy::Job,
                };
            }
            Command::Zoom => {
                self.zoom = if self.zoom == Zoom::Gpus {
                    Zoom::Machines
                } else {
                    Zoom::Gpus
                };
                self.grid_scroll = 0;
            }
            Command::Mouse => {
                self.mouse = !self.mouse;
                self.flash = Some(
                    if self.mouse {
                        "mouse on: click a machine, wheel scrolls"
                    } else {
                        "mouse off"
                    }
                    .into(),
                );
            }
            Command::Quit => self.quit = Some(Quit::Clear),
            Command::QuitKeep => self.quit = Some(Quit::KeepFrame),
            Command::Up
            | Command::Down
            | Command::Left
            | Command::Right
            | Command::PageUp
            | Command::PageDown => self.navigate(c),
            Command::Close => {}
        }
        true
    }

    fn popup_command(&mut self, c: Command) -> bool {
        if c == Command::Quit {
            self.quit = Some(Quit::Clear);
            return true;
        }
        let Some(popup) = &mut self.popup else {
            return false;
        };
        match (popup, c) {
            (_, Command::Close) => self.popup = None,
            (Popup::Help { .. }, Command::Help) => self.popup = None,
            (Popup::Help { scroll }, Command::Down | Command::PageDown) => {
                *scroll = (*scroll + 1).min(super::keymap::COMMANDS.len())
            }
            (Popup::Help { scroll }, Command::Up | Command::PageUp) => {
                *scroll = scroll.saturating_sub(1)
            }
            (Popup::Detail { scroll, lines, .. }, Command::Down) => {
                *scroll = (*scroll + 1).min(lines.len().saturating_sub(1))
            }
            (Popup::Detail { scroll, .. }, Command::Up) => *scroll = scroll.saturating_sub(1),
            (Popup::Detail { scroll, lines, .. }, Command::PageDown) => {
                *scroll = (*scroll + 20).min(lines.len().saturating_sub(1))
            }
            (Popup::Detail { scroll, .. }, Command::PageUp) => *scroll = scroll.saturating_sub(20),
            (Popup::Detail { .. }, Command::Detail) => self.popup = None,
            (Popup::Picker { at }, Command::Down) => *at = (*at + 1) % Policy::ALL.len(),
            (Popup::Picker { at }, Command::Up) => {
                *at = (*at + Policy::ALL.len() - 1) % Policy::ALL.len()
            }
            (Popup::WhatIf { at }, Command::Down) => {
                *at = (*at + 1) % self.whatif.as_ref().map_or(1, |w| w.rows.len().max(1))
            }
            (Popup::WhatIf { at }, Command::Up) => {
                let n = self.whatif.as_ref().map_or(1, |w| w.rows.len().max(1));
                *at = (*at + n - 1) % n
            }
            (Popup::WhatIf { at }, Command::Detail) => {
                let at = *at;
                self.what_if_choose(at)
            }
            (Popup::Picker { at }, Command::Detail) => {
                let p = Policy::ALL[*at];
                self.popup = None;
                self.switch_policy(p);
            }
            (Popup::Prompt { .. }, Command::Detail) => self.submit_prompt(),
            _ => return false,
        }
        true
    }

    fn type_char(&mut self, ch: char) -> bool {
        match &mut self.popup {
            Some(Popup::Prompt { input, .. }) if !ch.is_control() && input.chars().count() < 80 => {
                input.push(ch);
                true
            }
            _ => false,
        }
    }

    /// Switches the policy live; logged, and refused where the trace cannot support it.
    pub fn switch_policy(&mut self, p: Policy) {
        if p == Policy::Recorded && !self.trace().has_recorded() {
            self.flash = Some(format!(
                "{} has no recorded start times: choose a simulated policy",
                self.trace().format
            ));
            return;
        }
        if p == Policy::Edf && !self.trace().jobs.iter().any(|j| j.deadline.is_some()) {
            self.flash = Some(format!(
                "{} has no deadlines: edf needs them (ITP ElasticFlow traces have them)",
                self.trace().format
            ));
            return;
        }
        let from = self.engine().policy();
        if from == p {
            return;
        }
        self.replay.set_policy(p);
        let at = self.clock(self.replay.now());
        log::info!("{at} policy {from} → {p}");
        self.flash = Some(format!("policy {p} from {at}"));
        self.after_move();
    }

    /// Switches the power-limit policy (max ↔ zeus) live, when there is an energy model.
    pub fn toggle_power(&mut self) {
        use crate::sim::energy::PowerPolicy;
        let Some(p) = self.engine().power_policy() else {
            self.flash = Some("no energy model: start with --energy DIR --gpu v100".into());
            return;
        };
        let to = if p == PowerPolicy::Max {
            PowerPolicy::Zeus
        } else {
            PowerPolicy::Max
        };
        self.replay.set_power(to);
        let at = self.clock(self.replay.now());
        log::info!("{at} power limits {} → {}", p.name(), to.name());
        self.flash = Some(if self.engine().policy() == crate::sim::Policy::Recorded {
            format!(
                "power limits: {} from {at} (recorded holds keep the highest limit; p picks a simulated policy)",
                to.name()
            )
        } else {
            format!("power limits: {} from {at}", to.name())
        });
        self.after_move();
    }

    /// `day 3 Tue 14:05:33` in the trace's zone.
    pub fn clock(&self, t: Secs) -> String {
        let tr = self.trace();
        crate::trace::clock::clock(tr.zone, self.first, t)
    }

    /// The headline figures, brought up to date with the engine's tally.
    pub(super) fn refresh_figures(&mut self) {
        self.figures.update(self.replay.engine().tally());
    }
}
