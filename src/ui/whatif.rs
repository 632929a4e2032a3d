//! `w`: the what-if fork in the replay. Every policy runs from the current
//! state to the end on background threads; the table fills in as results
//! arrive while the replay stays interactive; Enter on a row switches the
//! live replay to that policy.

use super::app::{App, Effect, Popup, WhatIfStart};
use super::layout::centered;
use crate::fmt::human_secs;
use crate::sim::metrics::Report;
use crate::sim::whatif::Run;
use crate::trace::model::Secs;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Modifier;

/// The fork's rows as they arrive (the runner holds the fork itself).
pub struct WhatIf {
    /// Where the fork started.
    pub(super) at: Secs,
    pub(super) runs: Vec<Run>,
    /// Per row: progress (0–1) and the result once it is in.
    pub(super) rows: Vec<(f64, Option<Report>)>,
}

impl WhatIf {
    pub fn done(&self) -> bool {
        self.rows.iter().all(|r| r.1.is_some())
    }

    /// How many runs it has (a row each).
    pub fn rows(&self) -> usize {
        self.rows.len()
    }
}

impl App {
    /// `w`: opens the table, starting a fork from now unless one from now exists.
    pub(super) fn open_what_if(&mut self) {
        let now = self.sim.replay.now();
        if self.sim.whatif.as_ref().is_none_or(|w| w.at != now) {
            let e = self.sim.replay.engine();
            let runs = crate::sim::whatif::runs_for(e, self.sim.replay.ahead());
            let base = Box::new(e.clone());
            self.sim.whatif = Some(WhatIf {
                at: now,
                rows: vec![(0.0, None); runs.len()],
                runs: runs.clone(),
            });
            self.emit(Effect::StartWhatIf(WhatIfStart { base, runs }));
        }
        self.view.popup = Some(Popup::WhatIf { at: 0 });
    }

    /// A row's progress arrived; whether it is shown.
    pub(super) fn what_if_progress(&mut self, row: usize, progress: f64) -> bool {
        match self.sim.whatif.as_mut().and_then(|w| w.rows.get_mut(row)) {
            Some(r) => {
                r.0 = progress;
                true
            }
            None => false,
        }
    }

    /// A row's result arrived, `secs` after the fork started; logged when it is the last.
    pub(super) fn what_if_done(&mut self, row: usize, report: Report, secs: f64) -> bool {
        let Some(w) = self.sim.whatif.as_mut().filter(|w| row < w.rows.len()) else {
            return false;
        };
        let was_done = w.done();
        let failed = report.failed.clone();
        w.rows[row] = (1.0, Some(report));
        if let Some(why) = failed {
            self.warn(format!("what-if row {}: {why}", row + 1));
        }
        let Some(w) = self.sim.whatif.as_mut() else {
            return true;
        };
        if w.done() && !was_done {
            let text = format!("what-if: all {} runs done in {secs:.1} s", w.rows.len());
            self.info(text);
        }
        true
    }

    /// Enter on a row: switch the live replay to its policy.
    pub(super) fn what_if_choose(&mut self, at: usize) {
        let Some(run) = self
            .sim
            .whatif
            .as_ref()
            .and_then(|w| w.runs.get(at).cloned())
        else {
            return;
        };
        self.view.popup = None;
        match run {
            Run::Policy(p) => self.switch_policy(p),
            Run::Schedule(_) => self.view.flash = Some("already following the schedule".into()),
        }
    }
}

/// Which optional columns the table shows: those some result has.
#[derive(Clone, Copy)]
struct Columns {
    deadlines: bool,
    energy: bool,
}

/// The comparison table, one row per run.
pub fn draw(app: &App, area: Rect, buf: &mut Buffer, at: usize) {
    let Some(w) = &app.sim.whatif else { return };
    let t = app.theme();
    let any = |f: fn(&Report) -> bool| w.rows.iter().any(|r| r.1.as_ref().is_some_and(f));
    let cols = Columns {
        deadlines: any(|r| r.deadline_met.is_some()),
        energy: any(|r| r.energy_kwh.is_some()),
    };
    let width = 98 + if cols.deadlines { 8 } else { 0 } + if cols.energy { 9 } else { 0 };
    let r = centered(
        area,
        area.width.saturating_sub(4).min(width),
        w.rows.len() as u16 + 6,
    );
    let title = format!(
        "what if, from {} · ↑↓ choose · enter switches to it · esc closes (runs go on)",
        app.clock(w.at)
    );
    let inner = super::popups::frame(app, r, buf, &title);
    buf.set_stringn(inner.x, inner.y, head(cols), inner.width as usize, t.dim);
    let best_jct = w
        .rows
        .iter()
        .filter_map(|r| r.1.as_ref().and_then(|r| r.jct_s.mean))
        .fold(None, |b: Option<f64>, x| Some(b.map_or(x, |b| b.min(x))));
    let current = app.engine().policy();
    let marker = super::grid::glyphs(app.view.ascii).marker;
    for (i, (run, (progress, rep))) in w.runs.iter().zip(&w.rows).enumerate() {
        // A policy by its short label (an external one by the name it gave).
        let mut label = match run {
            crate::sim::whatif::Run::Policy(p) => p.label().to_string(),
            other => other.label(),
        };
        if rep.as_ref().is_some_and(|r| r.failed.is_some()) {
            // Its figures are the fallback's from where it failed (logged).
            label.push_str(" (failed)");
        }
        let lead = if i == at { marker } else { ' ' };
        let live = matches!(run, crate::sim::whatif::Run::Policy(p) if *p == current);
        let now = if live { "●" } else { " " };
        let name = format!("{lead}{now}{label:<14}");
        let text = match rep {
            None => progress_text(&name, *progress, app.view.ascii),
            Some(r) => result_text(&name, r, cols),
        };
        let mut style = t.text;
        if rep
            .as_ref()
            .is_some_and(|r| r.jct_s.mean.is_some() && r.jct_s.mean == best_jct)
        {
            style = style.add_modifier(Modifier::BOLD);
        }
        if i == at {
            style = style.patch(t.cursor);
        }
        buf.set_stringn(
            inner.x,
            inner.y + 1 + i as u16,
            text,
            inner.width as usize,
            style,
        );
    }
    let done = w.rows.iter().filter(|r| r.1.is_some()).count();
    let foot = format!(
        "{done} of {} done · bold: lowest mean JCT · ● the live policy · each row runs from this state to the end",
        w.rows.len()
    );
    buf.set_stringn(
        inner.x,
        inner.y + w.rows.len() as u16 + 2,
        foot,
        inner.width as usize,
        t.dim,
    );
}

/// The header line.
fn head(cols: Columns) -> String {
    let mut head = format!(
        "  {:<14}{:>9}{:>9}{:>9}{:>10}{:>9}{:>10}{:>7}{:>8}",
        "policy", "JCT mean", "p50", "p99", "wait mean", "p99", "makespan", "util", "preempt"
    );
    if cols.deadlines {
        head.push_str(&format!("{:>8}", "dl met"));
    }
    if cols.energy {
        head.push_str(&format!("{:>9}", "kWh"));
    }
    head
}

/// A row still running: a progress bar.
fn progress_text(name: &str, progress: f64, ascii: bool) -> String {
    let n = 30usize;
    let done = (progress * n as f64).round() as usize;
    let (full, empty) = if ascii { ('#', '.') } else { ('█', '·') };
    format!(
        "{name} {}{} {:>3.0} %",
        full.to_string().repeat(done),
        empty.to_string().repeat(n - done),
        progress * 100.0
    )
}

/// A finished row: its figures.
fn result_text(name: &str, r: &Report, cols: Columns) -> String {
    let h = |v: Option<f64>| v.map_or("-".to_string(), human_secs);
    let mut s = format!(
        "{name}{:>9}{:>9}{:>9}{:>10}{:>9}{:>10}{:>7}{:>8}",
        h(r.jct_s.mean),
        h(r.jct_s.p50),
        h(r.jct_s.p99),
        h(r.wait_s.mean),
        h(r.wait_s.p99),
        r.makespan_s.map_or("-".into(), |m| human_secs(m as f64)),
        r.gpu_util
            .map_or("-".into(), |u| format!("{:.1}%", u * 100.0)),
        r.preemptions
    );
    if cols.deadlines {
        s.push_str(
            &r.deadline_met
                .map_or(format!("{:>8}", "-"), |d| format!("{:>7.1}%", d * 100.0)),
        );
    }
    if cols.energy {
        s.push_str(
            &r.energy_kwh
                .map_or(format!("{:>9}", "-"), |e| format!("{e:>9.1}")),
        );
    }
    s
}
