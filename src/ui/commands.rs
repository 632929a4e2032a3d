//! What each keymap command does (with no popup open, and in each popup);
//! the live switches are in `switches.rs`.

use super::action::Quit;
use super::app::{App, Effect};
use super::keymap::Command;
use super::popups::{Popup, PromptKind};
use super::state::{ColorBy, Focus, Zoom};
use crate::sim::Policy;

impl App {
    pub(super) fn command(&mut self, c: Command) -> bool {
        if self.timeline_command(c) {
            return true;
        }
        match c {
            Command::TogglePlay
            | Command::Step
            | Command::StepBack
            | Command::Faster
            | Command::Slower
            | Command::TickUp
            | Command::TickDown => self.playback(c),
            Command::Goto => self.prompt(PromptKind::Goto),
            Command::Find => self.prompt(PromptKind::Find),
            Command::CommandLine => self.prompt(PromptKind::Command),
            Command::Filter => self.prompt(PromptKind::Filter),
            Command::Sort => self.next_sort(),
            Command::Policy => {
                let at = self
                    .sim
                    .policies
                    .all()
                    .iter()
                    .position(|p| *p == self.engine().policy())
                    .unwrap_or(0);
                self.view.popup = Some(Popup::Picker { at, split: false });
            }
            Command::Split => self.toggle_split(),
            Command::Placement => self.next_placement(),
            Command::NextCaption => self.next_caption(),
            Command::PrevCaption => self.previous_caption(),
            // A presenter's remote sends PageDown/PageUp: in `L`, slides.
            Command::PageDown if self.slides() => self.next_caption(),
            Command::PageUp if self.slides() => self.previous_caption(),
            Command::NextMoment => self.next_moment(),
            Command::Rankings => {
                self.view.popup = Some(Popup::Rankings {
                    by: super::rankings::RankBy::Users,
                    sort: 0,
                    at: 0,
                })
            }
            Command::Detail => self.open_detail(),
            Command::Machine => self.open_machine(),
            Command::Power => self.toggle_power(),
            Command::WhatIf => self.open_what_if(),
            Command::Lecture => self.toggle_lecture(),
            Command::Export => self.emit(Effect::Export),
            Command::Schedule => {
                let s = self.session_schedule();
                self.info(format!(
                    "this session as a schedule: --policy-schedule '{s}'"
                ));
                self.view.flash = Some(format!("--policy-schedule '{s}' (in the log)"));
            }
            Command::Help => self.view.popup = Some(Popup::Help { scroll: 0 }),
            Command::Focus => self.cycle_focus(),
            Command::Theme | Command::ColorBy | Command::Zoom | Command::Mouse => self.look(c),
            Command::Quit => self.emit(Effect::Quit(Quit::Clear)),
            Command::QuitKeep => self.emit(Effect::Quit(Quit::KeepFrame)),
            Command::Up
            | Command::Down
            | Command::Left
            | Command::Right
            | Command::PageUp
            | Command::PageDown
            | Command::Home
            | Command::End => self.navigate(c),
            Command::Timeline => {
                self.view.timeline = Some(Default::default());
            }
            Command::Close => {}
        }
        true
    }

    /// While the timeline shows: `T` or Esc closes it, `z` zooms, ←/→ scroll.
    fn timeline_command(&mut self, c: Command) -> bool {
        let now = self.sim.replay.now();
        let first = self.sim.facts.first();
        let Some(v) = self.view.timeline.as_mut() else {
            return false;
        };
        match c {
            Command::Timeline | Command::Close => self.view.timeline = None,
            Command::Zoom => v.zoom(),
            Command::Left | Command::Right => {
                let (from, to) = v.window(first, now);
                v.scroll(c == Command::Left, to - from);
            }
            _ => return false,
        }
        true
    }

    /// Playing, stepping, speed and tick size.
    fn playback(&mut self, c: Command) {
        let p = &mut self.sim.playback;
        match c {
            Command::TogglePlay => p.toggle(),
            Command::Step => {
                p.pause();
                self.step_forward();
            }
            Command::StepBack => {
                p.pause();
                self.step_back();
            }
            Command::Faster => p.faster(),
            Command::Slower => p.slower(),
            Command::TickUp => p.longer_tick(),
            Command::TickDown => p.shorter_tick(),
            _ => {}
        }
    }

    fn prompt(&mut self, kind: PromptKind) {
        // The filter's prompt starts with the filter in force, to edit.
        let input = match kind {
            PromptKind::Filter => self.view.filter.as_ref().map(|f| f.text.clone()),
            _ => None,
        };
        let input = input.unwrap_or_default();
        self.view.popup = Some(Popup::Prompt {
            kind,
            cursor: input.chars().count(),
            input,
        });
    }

    /// `s`: the lists' next order.
    fn next_sort(&mut self) {
        self.view.sort = self.view.sort.next();
        self.view.selection.lists_to_top();
        self.view.flash = Some(format!("lists sorted by {}", self.view.sort.name()));
    }

    fn cycle_focus(&mut self) {
        self.view.focus = match self.view.focus {
            Focus::Grid => Focus::Queue,
            Focus::Queue => Focus::Log,
            Focus::Log => Focus::Grid,
        };
        match self.view.focus {
            Focus::Queue => {
                let n = self.listed_len();
                let pos = self.view.selection.queue_pos().min(n.saturating_sub(1));
                let job = self.listed_at(pos).or(self.view.selection.selected());
                self.view.selection.list_to(pos, job);
            }
            Focus::Grid => {
                // Leaving the log: out of its page mode, so it follows new lines again.
                self.view.log.follow();
                self.follow_cursor_job()
            }
            Focus::Log => {}
        }
    }

    /// Theme, colour, zoom and mouse.
    fn look(&mut self, c: Command) {
        match c {
            Command::Theme => {
                self.view.look.next_theme();
                self.view.flash = Some(format!(
                    "theme {}: {}",
                    self.theme().name,
                    self.theme().description
                ));
            }
            Command::ColorBy => {
                let energy = self.engine().power_policy().is_some();
                self.view.color_by = match self.view.color_by {
                    ColorBy::Job => ColorBy::User,
                    ColorBy::User => ColorBy::Util,
                    ColorBy::Util if energy => ColorBy::Power,
                    ColorBy::Util | ColorBy::Power => ColorBy::Job,
                };
            }
            Command::Zoom => {
                self.view.zoom = if self.view.zoom == Zoom::Gpus {
                    Zoom::Machines
                } else {
                    Zoom::Gpus
                };
                self.view.selection.grid_to_top();
            }
            Command::Mouse => {
                self.view.mouse = !self.view.mouse;
                self.emit(Effect::CaptureMouse(self.view.mouse));
                self.view.flash = Some(
                    if self.view.mouse {
                        "mouse on: click a machine, wheel scrolls"
                    } else {
                        "mouse off"
                    }
                    .into(),
                );
            }
            _ => {}
        }
    }

    /// A command with a popup open: quit, save a drill-down, close it, or
    /// what the popup open does with it (whether it did anything).
    pub(super) fn popup_command(&mut self, c: Command) -> bool {
        if c == Command::Quit {
            self.emit(Effect::Quit(Quit::Clear));
            return true;
        }
        // The screen with the popup open is saved (`e`), and a drill-down,
        // the what-if's results and the rankings whole beside it.
        if c == Command::Export && self.view.popup.is_some() {
            self.emit(Effect::Export);
            return true;
        }
        if self.view.popup.is_none() {
            return false;
        }
        if c == Command::Close {
            self.view.popup = None;
            return true;
        }
        // `:` from a table or a drill-down: the next question at once.
        let prompting = matches!(self.view.popup, Some(Popup::Prompt { .. }));
        if c == Command::CommandLine && !prompting {
            self.prompt(PromptKind::Command);
            return true;
        }
        match &self.view.popup {
            Some(Popup::Help { .. }) => self.help_popup_command(c),
            Some(Popup::Detail { .. }) => self.detail_popup_command(c),
            Some(Popup::Picker { .. }) => self.picker_popup_command(c),
            Some(Popup::WhatIf { .. }) => self.whatif_popup_command(c),
            Some(Popup::Rankings { .. }) if c == Command::Rankings => {
                self.view.popup = None;
                true
            }
            Some(Popup::Rankings { by, sort, at }) => {
                let (b, s, a) = (*by, *sort, *at);
                self.rank_command(b, s, a, c);
                true
            }
            Some(Popup::Prompt { .. }) if c == Command::Detail => {
                self.submit_prompt();
                true
            }
            Some(Popup::Prompt { .. }) | None => false,
        }
    }

    /// In the help: its key closes it, the scroll keys scroll it.
    fn help_popup_command(&mut self, c: Command) -> bool {
        let cols = super::popups::view::help_cols(self, self.view.screen.size().0);
        let help_len = super::popups::view::help_lines(self, cols).len();
        let size = self.view.screen.size();
        let Some(Popup::Help { scroll }) = &mut self.view.popup else {
            return false;
        };
        match c {
            Command::Help => self.view.popup = None,
            _ if super::popups::is_scroll(c) => {
                let (page, max) = super::popups::help_pages(size, help_len);
                *scroll = super::popups::scrolled(*scroll, c, page, max)
            }
            _ => return false,
        }
        true
    }

    /// In a drill-down: a machine's GPU rows picked and opened, the text
    /// scrolled, a job's neighbours on its machine stepped through.
    fn detail_popup_command(&mut self, c: Command) -> bool {
        let size = self.view.screen.size();
        let Some(Popup::Detail {
            title,
            lines,
            scroll,
            picks,
            pick,
            ..
        }) = &mut self.view.popup
        else {
            return false;
        };
        match c {
            // A machine's GPU rows: ↑↓ pick one (the box follows), Enter opens its job.
            Command::Up | Command::Down if !picks.is_empty() => {
                *pick = match c {
                    Command::Up => pick.saturating_sub(1),
                    _ => (*pick + 1).min(picks.len() - 1),
                };
                let cols = super::popups::detail_width(size);
                let (rows, first) = super::popups::wrap_detail_rows(lines, cols);
                let (page, max) = super::popups::detail_pages(size, rows.len());
                let row = first[picks[*pick].0];
                if row < *scroll {
                    *scroll = row;
                } else if row >= *scroll + page {
                    *scroll = (row + 1 - page).min(max);
                }
            }
            Command::Detail if !picks.is_empty() => {
                let (job, gpu) = (picks[*pick].1, *pick);
                self.open_picked(job, gpu)
            }
            _ if super::popups::is_scroll(c) => {
                let cols = super::popups::detail_width(size);
                let rows = super::popups::wrap_detail(lines, cols).len();
                let (page, max) = super::popups::detail_pages(size, rows);
                *scroll = super::popups::scrolled(*scroll, c, page, max)
            }
            Command::Detail => self.view.popup = None,
            Command::Left | Command::Right if title.starts_with("job ") => {
                self.other_job_here(if c == Command::Right { 1 } else { -1 })
            }
            _ => return false,
        }
        true
    }

    /// In the policy picker: ↑↓ choose, Enter switches (or splits), `o`
    /// picks the B side's placement.
    fn picker_popup_command(&mut self, c: Command) -> bool {
        let n = self.sim.policies.all().len();
        let Some(Popup::Picker { at, split }) = &mut self.view.popup else {
            return false;
        };
        match c {
            Command::Placement if *split => self.next_split_placement(),
            Command::Down => *at = (*at + 1) % n,
            Command::Up => *at = (*at + n - 1) % n,
            Command::Detail => {
                let (p, split) = (self.sim.policies.all()[*at], *split);
                self.view.popup = None;
                if split {
                    self.open_split(p)
                } else {
                    self.switch_policy(p)
                }
            }
            _ => return false,
        }
        true
    }

    /// In the what-if table: ↑↓ choose a row, `c` the CDFs or the table,
    /// Enter switches to the chosen run.
    fn whatif_popup_command(&mut self, c: Command) -> bool {
        let rows = self.sim.whatif.as_ref().map_or(1, |w| w.rows.len().max(1));
        let Some(Popup::WhatIf { at, charts }) = &mut self.view.popup else {
            return false;
        };
        match c {
            Command::Down => *at = (*at + 1) % rows,
            Command::Up => *at = (*at + rows - 1) % rows,
            Command::ColorBy => *charts = !*charts,
            Command::Detail => {
                let at = *at;
                self.what_if_choose(at)
            }
            _ => return false,
        }
        true
    }

    pub(super) fn type_char(&mut self, ch: char) -> bool {
        match &mut self.view.popup {
            Some(Popup::Prompt { input, cursor, .. }) => {
                super::line_edit::insert(input, cursor, ch, 80)
            }
            // A picker jumps to the next policy whose name starts so.
            Some(Popup::Picker { at, .. }) => {
                let all = self.sim.policies.all();
                let starts = |p: &Policy| {
                    [p.label(), p.name()].iter().any(|n| {
                        n.chars()
                            .next()
                            .is_some_and(|c| c.eq_ignore_ascii_case(&ch))
                    })
                };
                let next = (1..=all.len())
                    .map(|k| (*at + k) % all.len())
                    .find(|&i| starts(&all[i]));
                if let Some(i) = next {
                    *at = i;
                }
                next.is_some()
            }
            _ => false,
        }
    }

    /// An edit of the prompt's line (none open: nothing).
    pub(super) fn edit_prompt(&mut self, e: super::line_edit::Edit) -> bool {
        match &mut self.view.popup {
            Some(Popup::Prompt { input, cursor, .. }) => {
                super::line_edit::apply(input, cursor, e);
                true
            }
            _ => false,
        }
    }
}
