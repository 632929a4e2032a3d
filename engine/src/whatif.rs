//! The what-if fork: from the replay's current state, run every policy to
//! the end on background threads and report as results arrive.
//!
//! Each run is a copy of the engine at the fork (running jobs keep their
//! GPUs; the queue is reordered by the run's policy, as a live switch does),
//! so the rows differ only in what happens from the fork on.

use super::ask::Answers;
use super::engine::{Engine, Switch};
use super::metrics::{Dists, Report};
use super::policy::Policy;
use super::registry::Policies;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use tracetui_model::Secs;

/// One row of the fork: a policy from the fork on, or the replay's own
/// scheduled switches.
#[derive(Debug, Clone, PartialEq)]
pub enum Run {
    /// One policy, switched to at the fork, to the end.
    Policy(Policy),
    /// The replay's switches still ahead, as scheduled: (trace second,
    /// switch).
    Schedule(Vec<(Secs, Switch)>),
}

impl Run {
    /// The row's name in the results: the policy's name, or `as scheduled`.
    pub fn label(&self) -> String {
        match self {
            Run::Policy(p) => p.name().to_string(),
            Run::Schedule(_) => "as scheduled".to_string(),
        }
    }
}

/// What a worker reports: progress (0–1) of a row, or its result.
#[derive(Debug, Clone)]
pub enum Msg {
    /// How far a row (by its index in `runs`) has got: a share of the time
    /// from the fork to the trace's last end (never 1: `Done` says that).
    Progress(usize, f64),
    /// A row's figures and its JCT and wait distributions.
    Done(usize, Box<Report>, Box<Dists>),
}

/// A fork under way (or finished); dropping it stops the workers.
pub struct Fork {
    /// When the fork was made, in trace seconds.
    pub at: Secs,
    /// The rows, in the order messages number them.
    pub runs: Vec<Run>,
    rx: Receiver<Msg>,
    cancel: Arc<AtomicBool>,
}

impl Drop for Fork {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

impl Fork {
    /// Starts `runs` from `base` on `workers` threads (at least one).
    pub fn start(
        base: &Engine,
        runs: Vec<Run>,
        workers: usize,
        answers: &'static dyn Answers,
    ) -> Fork {
        Fork::start_from(base.clone(), runs, workers, answers)
    }

    /// `start`, from an engine given up for it (no copy of it is made).
    pub fn start_from(
        base: Engine,
        runs: Vec<Run>,
        workers: usize,
        answers: &'static dyn Answers,
    ) -> Fork {
        let (tx, rx) = channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let next = Arc::new(AtomicUsize::new(0));
        let runs_shared = Arc::new(runs.clone());
        let mut base = base.forked();
        base.set_record_events(false);
        base.take_events();
        let base = Arc::new(base);
        let warn = base.tuning().warn;
        for _ in 0..workers.max(1).min(runs.len().max(1)) {
            let (tx, cancel, next, runs, base) = (
                tx.clone(),
                cancel.clone(),
                next.clone(),
                runs_shared.clone(),
                base.clone(),
            );
            let spawned = std::thread::Builder::new()
                .name("what-if".into())
                .spawn(move || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= runs.len() || cancel.load(Ordering::Relaxed) {
                        return;
                    }
                    if let Some((r, d)) = run_one(&base, &runs[i], (i, &tx, &cancel), answers) {
                        if tx.send(Msg::Done(i, Box::new(r), Box::new(d))).is_err() {
                            return;
                        }
                    }
                });
            if let Err(e) = spawned {
                warn.say(&format!("what-if: cannot start a worker thread: {e}"));
            }
        }
        Fork {
            at: base.now(),
            runs,
            rx,
            cancel,
        }
    }

    /// Messages that have arrived, without waiting.
    pub fn poll(&self) -> Vec<Msg> {
        self.rx.try_iter().collect()
    }

    /// Blocks until every run has reported (headless `compare --from`).
    pub fn wait(self) -> Vec<Report> {
        let mut out: Vec<Option<Report>> = vec![None; self.runs.len()];
        while out.iter().any(Option::is_none) {
            match self.rx.recv() {
                Ok(Msg::Done(i, r, _)) => out[i] = Some(*r),
                Ok(Msg::Progress(..)) => {}
                Err(_) => break,
            }
        }
        out.into_iter().flatten().collect()
    }
}

/// Runs one row to the end, reporting progress now and then: its figures
/// and distributions, or None if cancelled.
fn run_one(
    base: &Engine,
    run: &Run,
    (i, tx, cancel): (usize, &Sender<Msg>, &AtomicBool),
    answers: &dyn Answers,
) -> Option<(Report, Dists)> {
    let mut e = base.fork();
    // The question the replay stood at, asked of the fork's own program.
    super::answered::settle(&mut e, answers);
    // A row is a plan: one switch now, or a schedule's.
    let switches = match run {
        Run::Policy(p) => vec![(e.now(), super::engine::Switch::Policy(*p))],
        Run::Schedule(s) => s.clone(),
    };
    let from = e.now();
    let last = e
        .trace()
        .jobs
        .iter()
        .map(|j| j.submit + j.runtime.get().unwrap_or(0))
        .max()
        .unwrap_or(from)
        .max(from + 1);
    let mut steps = 0u64;
    let flow = super::schedule::drive(&mut e, &switches, None, answers, |e, _| {
        steps += 1;
        if steps.is_multiple_of(8192) {
            if cancel.load(Ordering::Relaxed) {
                return std::ops::ControlFlow::Break(());
            }
            let frac = (e.now() - from) as f64 / (last - from) as f64;
            let _ = tx.send(Msg::Progress(i, frac.clamp(0.0, 0.99)));
        }
        std::ops::ControlFlow::Continue(None)
    });
    if flow.is_break() {
        return None;
    }
    // Sorted in place: no copies of a million figures at the end.
    let mut r = e.final_report_sorted();
    r.policy = run.label();
    Some((r, Dists::of(e.tally())))
}

/// How many rows run at once: one per core, but no more than fit in
/// `room` bytes (when known) at `row` bytes a row, and at least one. A row
/// is a copy of the engine, measured (`Engine::held_bytes`), that grows by
/// three figures for each job still to finish.
pub fn rows_at_once(cores: usize, base: &Engine, room: Option<u64>) -> usize {
    let left = base
        .trace()
        .jobs
        .len()
        .saturating_sub(base.jobs_done() as usize);
    let row = (base.held_bytes() + left * 3 * 8).max(1) as u64;
    let fit = room.map_or(usize::MAX, |r| (r / row) as usize);
    cores.min(fit).max(1)
}

/// The rows a fork runs on this engine's trace: every policy it supports,
/// and the replay's scheduled switches if any are still ahead.
pub fn runs_for(e: &Engine, ahead: &[(Secs, Switch)], policies: &Policies) -> Vec<Run> {
    let t = e.trace();
    let mut runs: Vec<Run> = policies
        .available_on(t)
        .into_iter()
        .map(Run::Policy)
        .collect();
    if !ahead.is_empty() {
        runs.push(Run::Schedule(ahead.to_vec()));
    }
    runs
}
