//! The runner's side of `update`: performing the effects it returns. The
//! event loop (`run.rs`) and tests drive the app through `Effects::dispatch`,
//! which sends an action through `update`, performs its effects and feeds
//! the actions they answer with back in. This is where exports are written,
//! the what-if fork runs, the trace's files are read (measured utilisation,
//! drill-downs: through `NativeTables`), an external policy's program is
//! asked (through `sim::drive`, by the runner's deadline) and log lines
//! are logged.

use super::app::{Action, App, Effect, Exported, Quit, WhatIfStart};
use crate::sim::{Fork, WhatIfMsg};
use crate::trace::Secs;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Measured rows older than this (seconds) do not describe the time asked.
const RECENT: Secs = 120;

/// What the effects have left behind: the what-if fork, a quit, the mouse.
pub struct Effects {
    export_dir: PathBuf,
    workers: usize,
    /// The what-if fork and when it started.
    fork: Option<(Fork, Instant)>,
    quit: Option<Quit>,
    mouse: bool,
    /// How long an external policy's answer is waited for (None: up to
    /// its timeout, as in tests and headless runs).
    answer_by: Option<Instant>,
    /// Policies being registered in the background (config.toml's).
    policies: Option<std::sync::mpsc::Receiver<crate::sim::Policies>>,
    /// A lesson to open in place of the replay (the runner does).
    lesson: Option<String>,
}

impl Effects {
    /// Exports go to `export_dir`; the fork uses every core.
    pub fn new(export_dir: PathBuf) -> Effects {
        Effects {
            export_dir,
            workers: crate::trace::cores(),
            fork: None,
            quit: None,
            mouse: false,
            answer_by: None,
            policies: None,
            lesson: None,
        }
    }

    /// Policies registered in the background arrive on `rx`; `poll` hands
    /// them to the app.
    pub(crate) fn expect_policies(&mut self, rx: std::sync::mpsc::Receiver<crate::sim::Policies>) {
        self.policies = Some(rx);
    }

    /// Answers an external policy gives after `by` wait for the next ask:
    /// the replay stands at its question, drawn and answering keys (the
    /// event loop gives each frame until shortly before the next is due;
    /// None waits up to the policy's timeout).
    pub fn answer_by(&mut self, by: Option<Instant>) {
        self.answer_by = by;
    }

    /// Exports go to `$TRACETUI_EXPORT_DIR`, else the current directory.
    pub(crate) fn from_env() -> Effects {
        Effects::new(
            std::env::var_os("TRACETUI_EXPORT_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(".")),
        )
    }

    /// `action` through `update`, its effects performed and their answers
    /// sent in turn; whether anything visible changed.
    pub fn dispatch(&mut self, app: &mut App, action: Action) -> bool {
        let u = app.update(action);
        u.changed | self.perform(app, u.effects)
    }

    /// Performs `effects` (returned by `app.update`), sending their answers
    /// through `update` in turn; whether those changed anything visible.
    pub fn perform(&mut self, app: &mut App, effects: Vec<Effect>) -> bool {
        let mut answers: VecDeque<Action> = VecDeque::new();
        for e in effects {
            answers.extend(self.perform_one(app, e));
        }
        let mut changed = false;
        while let Some(a) = answers.pop_front() {
            let u = app.update(a);
            changed |= u.changed;
            for e in u.effects {
                answers.extend(self.perform_one(app, e));
            }
        }
        changed
    }

    /// What the what-if workers have sent since last asked, dispatched;
    /// the processes of policy dialogues no engine can ask in any more
    /// (a finished row's, a dropped copy's) are ended meanwhile.
    pub fn poll(&mut self, app: &mut App) -> bool {
        crate::driver::reap();
        let mut changed = false;
        if let Some(p) = self.policies.as_ref().and_then(|rx| rx.try_recv().ok()) {
            self.policies = None;
            changed |= self.dispatch(app, Action::PoliciesKnown(Box::new(p)));
        }
        let Some((fork, started)) = &self.fork else {
            return changed;
        };
        let (msgs, secs) = (fork.poll(), started.elapsed().as_secs_f64());
        for m in msgs {
            let a = match m {
                WhatIfMsg::Progress(row, progress) => Action::WhatIfProgress { row, progress },
                WhatIfMsg::Done(row, report, dists) => Action::WhatIfDone {
                    row,
                    report,
                    dists,
                    secs,
                },
            };
            changed |= self.dispatch(app, a);
        }
        changed
    }

    /// The quit asked for, if any.
    pub fn quit(&self) -> Option<Quit> {
        self.quit
    }

    /// The lesson asked for (`:lesson NAME`), once.
    pub(crate) fn take_lesson(&mut self) -> Option<String> {
        self.lesson.take()
    }

    /// Whether the mouse should be captured.
    pub(crate) fn mouse(&self) -> bool {
        self.mouse
    }

    fn perform_one(&mut self, app: &App, e: Effect) -> Option<Action> {
        match e {
            Effect::Export => Some(Action::Exported(match export_to(app, &self.export_dir) {
                Ok((txt, svg, detail)) => Exported::Files { txt, svg, detail },
                Err(e) => Exported::Failed {
                    dir: self.export_dir.clone(),
                    error: e.to_string(),
                },
            })),
            Effect::StartWhatIf(WhatIfStart { base, runs }) => {
                // The fork before (if any) stops when dropped: its rows'
                // memory is back before the new ones are counted.
                self.fork = None;
                let at_once = crate::sim::rows_at_once(self.workers, &base, room());
                log::info!(
                    "{} what-if: {} runs to the end on {} threads",
                    app.clock(base.now()),
                    runs.len(),
                    at_once
                );
                self.fork = Some((
                    Fork::start_from(*base, runs, at_once, &crate::driver::Driver),
                    Instant::now(),
                ));
                None
            }
            Effect::Ask { asker, question } => {
                let reply = crate::driver::ask(&question, self.answer_by)?;
                Some(Action::Answered {
                    asker,
                    question,
                    reply,
                })
            }
            Effect::Log(level, text) => {
                log::log!(level, "{text}");
                None
            }
            Effect::CaptureMouse(on) => {
                self.mouse = on;
                None
            }
            Effect::Quit(q) => {
                self.quit = Some(q);
                None
            }
            Effect::OpenLesson(name) => {
                self.lesson = Some(name);
                None
            }
            e @ (Effect::ReadGpuUtil { .. }
            | Effect::ReadJobDetail { .. }
            | Effect::ReadMachine { .. }) => read(app, e),
        }
    }
}

/// The trace reads `update` asks for, performed now; their answers.
fn read(app: &App, e: Effect) -> Option<Action> {
    let trace = app.trace();
    let native = trace.native.as_ref();
    match e {
        Effect::ReadGpuUtil { at } => {
            let file = native.filter(|n| n.gpu_util_ready())?;
            Some(Action::GpuUtilRead {
                at,
                minute: file.gpu_util_at(at, RECENT),
            })
        }
        Effect::ReadJobDetail { job, at } => Some(Action::JobDetailRead {
            job,
            at,
            record: crate::trace::detail_of_job(trace, &trace.jobs[job as usize], false),
        }),
        Effect::ReadMachine { machine, at } => Some(Action::MachineRead {
            machine,
            at,
            samples: native.map_or_else(Vec::new, |n| n.machine_samples(machine, at, RECENT)),
        }),
        _ => None,
    }
}

/// Renders the app at its size and writes `tracetui-<time>.txt` and `.svg`
/// in `dir` (never over an earlier export); their paths.
/// The files written: the screen as text and SVG, and, with a drill-down
/// open, its whole text (every line, not only those on screen).
pub fn export_to(app: &App, dir: &Path) -> std::io::Result<(PathBuf, PathBuf, Option<PathBuf>)> {
    let (w, h) = match app.view.screen.size() {
        (0, _) | (_, 0) => (120, 40),
        s => s,
    };
    let mut buf = Buffer::empty(Rect::new(0, 0, w, h));
    super::draw::render(app, buf.area, &mut buf);
    // Trace seconds; before the trace's zero, said so (not `tracetui--1`).
    let now = app.replay().now();
    let stem = match now {
        t if t < 0 => format!("tracetui-before-{}", t.unsigned_abs()),
        t => format!("tracetui-{t}"),
    };
    let mut n = 0;
    let (txt, svg, job) = loop {
        let suffix = if n == 0 {
            String::new()
        } else {
            format!("-{n}")
        };
        let txt = dir.join(format!("{stem}{suffix}.txt"));
        let svg = dir.join(format!("{stem}{suffix}.svg"));
        let job = dir.join(format!("{stem}{suffix}-{}", popup_file(app)));
        if !txt.exists() && !svg.exists() && !job.exists() {
            break (txt, svg, job);
        }
        n += 1;
    };
    let text = super::export::buffer_text(&buf);
    crate::outfile::write_atomic(&txt, |f| std::io::Write::write_all(f, text.as_bytes()))?;
    let image = super::export::buffer_svg(&buf, &app.theme().paper);
    crate::outfile::write_atomic(&svg, |f| std::io::Write::write_all(f, image.as_bytes()))?;
    let detail = match popup_text(app) {
        Some(text) => {
            crate::outfile::write_atomic(&job, |f| std::io::Write::write_all(f, text.as_bytes()))?;
            Some(job)
        }
        None => None,
    };
    Ok((txt, svg, detail))
}

/// The name of the file the open popup is saved in beside the screen.
fn popup_file(app: &App) -> &'static str {
    match app.popup() {
        Some(super::app::Popup::WhatIf { .. }) => "what-if.csv",
        Some(super::app::Popup::Rankings { .. }) => "rankings.csv",
        _ => "drill-down.txt",
    }
}

/// What the open popup holds, whole (not only what its box shows): a
/// drill-down's lines; the what-if's results as `compare --format csv`
/// writes them (rows still running left out); the rankings' table.
fn popup_text(app: &App) -> Option<String> {
    use super::app::Popup;
    match app.popup()? {
        Popup::Detail { title, lines, .. } => {
            let mut text = format!("{title}\n\n");
            for l in lines {
                text.push_str(l);
                text.push('\n');
            }
            Some(text)
        }
        Popup::WhatIf { .. } => {
            let w = app.what_if()?;
            let done: Vec<_> = w.rows.iter().filter_map(|r| r.1.clone()).collect();
            Some(crate::cli::columns::csv(&done, None))
        }
        Popup::Rankings { by, sort, .. } => {
            let mut out = csv::Writer::from_writer(Vec::new());
            let mut head = vec![by.name()];
            head.extend(by.columns());
            let _ = out.write_record(&head);
            for r in app.rank_rows(*by, *sort) {
                let mut row = vec![r.name.clone()];
                row.extend(r.cells.iter().map(|c| c.trim().to_string()));
                let _ = out.write_record(&row);
            }
            String::from_utf8(out.into_inner().ok()?).ok()
        }
        _ => None,
    }
}

/// The memory the what-if's rows may take: half of what the system has
/// available now (Linux `MemAvailable`; unknown elsewhere), so a head node
/// with many cores and little free memory runs fewer rows at once.
fn room() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024 / 2)
}
