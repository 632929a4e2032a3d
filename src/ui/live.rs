//! The live view (`tracetui slurm --live`): the cluster now, replayed
//! under `recorded` from the second Slurm's tools were asked, and built
//! anew (back at the new answer's second) from each newer answer while
//! the view is paused with no popup open; while it plays, or a popup (a
//! what-if, a job's card) is open, the newest answer waits. A what-if
//! (`w`) forks "the queue under another policy from now" from it like
//! from any replay. Read-only: nothing is sent to Slurm.

use super::app::{Action, App};
pub(crate) use super::build::LiveView;
use super::build::{assemble, ViewOptions};
use super::effects::Effects;
use crate::sim::Policy;
use crate::spec::RunSpec;
use std::sync::Arc;

/// One answer of Slurm's tools (the runner asks them: `run.rs`).
#[derive(Debug, Clone)]
pub(crate) struct Answer {
    /// `scontrol show node -o`.
    pub nodes: String,
    /// `squeue --json`.
    pub squeue: Vec<u8>,
    /// When they were asked, Unix seconds.
    pub at: i64,
}

/// The header's label (the clock beside it says when Slurm was asked).
pub(crate) fn label(l: &LiveView) -> String {
    format!("slurm live · every {} s", l.every.as_secs())
}

/// What came from the feed: an answer, or why the tools could not give one.
#[derive(Debug, Clone)]
pub(crate) enum Came {
    Answer(Answer),
    /// The failure, in words (`squeue --json did not answer within 10 s`).
    Failed(String),
}

/// The live view's state in the runner: the answer waiting to be shown,
/// and where the view stood when it last took one.
pub(crate) struct Live {
    pub view: LiveView,
    waiting: Option<Answer>,
    shown_at: i64,
    /// The last summary logged (a new line only when it changes).
    said: String,
}

/// `3 running, 2 waiting`: the jobs of the view now.
fn summary(app: &App) -> String {
    let e = app.engine();
    let (mut running, mut waiting) = (0, 0);
    for j in 0..app.trace().jobs.len() as u32 {
        match e.job_state(j).phase {
            crate::sim::Phase::Running => running += 1,
            crate::sim::Phase::Queued => waiting += 1,
            _ => {}
        }
    }
    format!("{running} running, {waiting} waiting")
}

impl Live {
    pub(crate) fn new(view: LiveView) -> Live {
        let shown_at = view.at;
        Live {
            view,
            waiting: None,
            shown_at,
            said: String::new(),
        }
    }

    /// The view opened at the first answer: where it stands now.
    pub(crate) fn opened(&mut self, app: &App) {
        self.shown_at = app.engine().now();
        self.said = summary(app);
        log::info!(
            "slurm at {}: {}; asked again every {} s (read-only); w forks the queue under another policy from now",
            app.clock(self.shown_at),
            self.said,
            self.view.every.as_secs()
        );
    }

    /// Takes the answers (or the failures, in words) that came, and shows
    /// the newest answer where the view allows: whether the screen changed.
    pub(crate) fn poll(
        &mut self,
        came: Vec<Came>,
        (app, fx): (&mut App, &mut Effects),
        opts: &ViewOptions,
    ) -> bool {
        let mut changed = false;
        for got in came {
            match got {
                Came::Answer(s) => self.waiting = Some(s),
                Came::Failed(e) => {
                    log::warn!("slurm: {e}; the view keeps its last answer and asks again later");
                    app.view.flash = Some(format!("slurm: {e}"));
                    changed = true;
                }
            }
        }
        let here = app.sim.playback.paused() && app.view.popup.is_none();
        if let (true, Some(s)) = (here, self.waiting.take()) {
            changed |= self.show(app, fx, &s, opts);
        }
        changed
    }

    /// The app built anew from `s`, standing at its second.
    fn show(&mut self, app: &mut App, fx: &mut Effects, s: &Answer, opts: &ViewOptions) -> bool {
        let built = crate::trace::slurm_now(&s.nodes, &s.squeue, s.at, self.view.zone, "slurm now");
        let (trace, report) = match built {
            Ok(t) => t,
            Err(e) => {
                log::warn!("slurm: {e}; the view keeps its last answer");
                app.view.flash = Some(format!("slurm: {e}"));
                return true;
            }
        };
        let spec = RunSpec::new(Arc::new(trace), Policy::Recorded)
            .with_placement(app.engine().placement())
            .with_tuning(Arc::new(app.engine().tuning().clone()));
        let look = app.view.look.clone();
        // The notes of each ask are not logged again: a line when the jobs change.
        let _ = report;
        let quiet = crate::trace::LoadReport::default();
        let mut next = assemble(spec, label(&self.view), &quiet, opts, (look, &[]));
        carry_view(app, &mut next);
        let size = app.view.screen.size();
        *app = next;
        *fx = Effects::from_env();
        fx.dispatch(app, Action::Resize(size.0, size.1));
        app.move_quietly_to(s.at);
        self.shown_at = app.engine().now();
        let now = summary(app);
        if now != self.said {
            log::info!("slurm at {}: {now}", app.clock(self.shown_at));
            self.said = now;
        }
        true
    }
}

/// What the user set up stays as the view is built anew: the pane in
/// focus, zoom, colouring, the lists' order and filter, the lecture
/// layout, and the cursors where the machines are the same ones.
fn carry_view(old: &App, next: &mut App) {
    let (o, n) = (&old.view, &mut next.view);
    n.focus = o.focus;
    n.zoom = o.zoom;
    n.color_by = o.color_by;
    n.sort = o.sort;
    n.filter = o.filter.clone();
    if o.lecture.on {
        n.lecture.on = true;
        n.lecture.theme_before = o.lecture.theme_before;
    }
    let names = |a: &App| -> Vec<String> {
        a.trace()
            .cluster
            .machines
            .iter()
            .map(|m| m.name.clone())
            .collect()
    };
    if names(old) == names(next) {
        // The job selected, by its id (the new answer numbers jobs afresh).
        let id = old
            .view
            .selection
            .selected()
            .map(|j| &old.trace().jobs[j as usize].id);
        let now = id.and_then(|id| next.trace().jobs.iter().position(|j| &j.id == id));
        next.view.selection = old.view.selection.carried(now.map(|j| j as u32));
    }
}
