//! The terminal: setup and restore on every exit path (quit, error, panic,
//! SIGTERM, SIGHUP, SIGINT, SIGQUIT), the event loop with a capped frame rate, drawing only
//! when something changed, inside synchronized output.

use super::ansi::buffer_to_ansi;
use super::app::{Action, App, Quit};
pub(crate) use super::build::ViewOptions;
use super::build::{build_app, open_lesson};
use super::effects::Effects;
use super::signals::restore;
use crate::spec::RunSpec;
use crate::trace::LoadReport;
use color_eyre::eyre::{bail, Result};
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{self, Event, MouseButton, MouseEventKind};
use ratatui::crossterm::{cursor, execute, style, terminal};
use std::io::{IsTerminal, Write};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// External policies from config.toml, asked who they are in the
/// background (all at once) while the replay starts, registered in a copy
/// of `known`: the registry comes back on the channel, and the picker
/// offers them by the names given there once the runner hands it in. A
/// silent one is given up after `timeout` (`--policy-timeout`).
fn probe_config_policies(
    known: crate::sim::Policies,
    timeout: std::time::Duration,
) -> Option<mpsc::Receiver<crate::sim::Policies>> {
    let entries = crate::config::user_policies();
    if entries.is_empty() {
        return None;
    }
    let (tx, rx) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("config-policies".into())
        .spawn(move || {
            let mut policies = known;
            let results = crate::driver::register_all_named(&entries, timeout, &mut policies);
            let mut ready = Vec::new();
            for ((name, _), r) in entries.iter().zip(results) {
                let name = crate::text::sanitize(name);
                match r {
                    Ok(_) => ready.push(name),
                    Err(e) => log::warn!("config.toml [policies] {name}: {e}"),
                }
            }
            if !ready.is_empty() {
                log::info!(
                    "config.toml [policies] in the picker (p): {}",
                    ready.join(", ")
                );
            }
            let _ = tx.send(policies);
        });
    match spawned {
        Ok(_) => Some(rx),
        Err(e) => {
            log::warn!("config.toml [policies] not asked: {e}");
            None
        }
    }
}

/// Runs the replay until the user quits.
pub(crate) fn run(
    spec: RunSpec,
    label: String,
    report: &LoadReport,
    opts: &ViewOptions,
) -> Result<()> {
    if !std::io::stdout().is_terminal() {
        bail!(
            "stdout is not a terminal, and the replay needs one; {}",
            opts.no_terminal
        );
    }
    super::logger::init_log_pane();
    // crossterm answers NO_COLOR with a bare reset that also clears reverse
    // video and bold; tracetui reads NO_COLOR itself and draws in mono instead.
    style::force_color_output(true);
    let trace = spec.trace.clone();
    let mut app = build_app(spec, label, report, opts)?;

    // Ctrl-C in raw mode is a key, but `kill -INT` / `kill -QUIT` are signals:
    // each quits through the same path, so the terminal is restored.
    let signals = crate::driver::Signals::watch(restore);
    restore_on_panic();

    let util_rx = index_in_background(&trace)?;
    enter_terminal()?;
    let mut fx = Effects::from_env();
    let timeout = app.engine().tuning().policy_timeout;
    if let Some(rx) = probe_config_policies(app.policies().clone(), timeout) {
        fx.expect_policies(rx);
    }
    let mut live = opts.live.clone().map(|v| {
        let rx = crate::driver::slurm_live::feed(v.every, v.within);
        (super::live::Live::new(v), rx)
    });
    let result = event_loop(&mut app, &mut fx, (&signals, live.as_mut()), util_rx, opts);
    signals.finish();
    let last = fx.quit() == Some(Quit::KeepFrame);
    restore();
    if last {
        print_last_frame(&app);
    }
    if !app.replay().switches().is_empty() {
        // The session's switches, to replay it headless (as `S` logs them).
        let _ = writeln!(
            std::io::stderr(),
            "tracetui: this session as a schedule: --policy-schedule '{}'",
            crate::text::guarded(&app.session_schedule())
        );
    }
    if let Some(sig) = signals.stopped() {
        // Quit by a signal: every policy process ends, then so does this
        // one, of the signal, so a script or a shell sees why.
        drop(app);
        crate::driver::end_all();
        crate::driver::die_of(sig);
    }
    result
}

/// A background index's result: PAI's per-job utilisation (if any), or
/// the side tables damaged.
type Indexed = Result<Option<Arc<Vec<f32>>>, crate::trace::Damaged>;

/// A panic restores the terminal before its report.
fn restore_on_panic() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        if crate::driver::terminal_hung_up() {
            // The report cannot be written (a panic in this hook aborts,
            // skipping the ends of the policy processes): end them first.
            crate::driver::end_all();
        }
        previous(info);
    }));
}

/// Indexes of the big side files, built in the background while the
/// replay runs: the result comes on the channel (none where there are none).
fn index_in_background(trace: &crate::trace::Trace) -> Result<mpsc::Receiver<Indexed>> {
    let (util_tx, util_rx) = mpsc::channel();
    match trace
        .native
        .clone()
        .and_then(|n| Some((n.background_index()?, n)))
    {
        Some((name, t)) => {
            std::thread::Builder::new()
                .name(name.into())
                .spawn(move || {
                    let _ = util_tx.send(t.build_indexes().map(|u| u.map(Arc::new)));
                })?;
        }
        None => drop(util_tx),
    }
    Ok(util_rx)
}

/// Raw mode, the alternate screen, no cursor; keys typed before dropped.
fn enter_terminal() -> Result<()> {
    terminal::enable_raw_mode()?;
    execute!(
        std::io::stdout(),
        terminal::EnterAlternateScreen,
        cursor::Hide
    )?;
    // Keys typed while the trace loaded are not for the replay: dropped.
    while event::poll(std::time::Duration::ZERO).unwrap_or(false) {
        if event::read().is_err() {
            break;
        }
    }
    Ok(())
}

/// The last frame, kept on the restored terminal (the quit that keeps it).
fn print_last_frame(app: &App) {
    let size = app.view.screen.size();
    let mut buf = Buffer::empty(ratatui::layout::Rect::new(0, 0, size.0, size.1));
    super::draw::render(app, buf.area, &mut buf);
    let _ = write!(std::io::stdout(), "{}", buffer_to_ansi(&buf));
    let _ = std::io::stdout().flush();
}

/// The action a terminal event asks for; a resize also resizes the viewport.
fn event_action(app: &App, term: &mut Term, ev: Event) -> Result<Option<Action>> {
    Ok(match ev {
        Event::Key(k) => super::key_input::key_action(app, &k),
        Event::Mouse(m) if app.view.mouse => match m.kind {
            MouseEventKind::Down(MouseButton::Left) => Some(Action::Click {
                column: m.column,
                row: m.row,
            }),
            MouseEventKind::ScrollUp => Some(Action::Scroll {
                column: m.column,
                row: m.row,
                lines: -3,
            }),
            MouseEventKind::ScrollDown => Some(Action::Scroll {
                column: m.column,
                row: m.row,
                lines: 3,
            }),
            _ => None,
        },
        Event::Resize(w, h) => {
            term.resize(ratatui::layout::Rect::new(0, 0, w, h))?;
            Some(Action::Resize(w, h))
        }
        _ => None,
    })
}

/// The replay on the terminal: drawn when something changed, keys and
/// resizes as actions, time passing, until a quit or a signal.
fn event_loop(
    app: &mut App,
    fx: &mut Effects,
    (signals, mut live): (&crate::driver::Signals, Option<&mut LiveFeed>),
    mut util_rx: mpsc::Receiver<Indexed>,
    opts: &ViewOptions,
) -> Result<()> {
    let ((w, h), mut term) = fixed_terminal()?;
    let frame = Duration::from_secs_f64(1.0 / app.view.fps as f64);
    answer_by_next_frame(fx, frame);
    fx.dispatch(app, Action::Resize(w, h));
    if let Some((l, _)) = live.as_deref_mut() {
        // The live view opens at the second Slurm was asked.
        app.move_quietly_to(l.view.at);
        l.opened(app);
    }
    let mut last_tick = Instant::now();
    let mut last_draw = Instant::now() - frame;
    let mut dirty = true;
    let mut mouse_on = false;
    loop {
        if signals.stopped().is_some() {
            log::warn!("signal received: quitting");
            return Ok(());
        }
        dirty |= suspend_or_resume(signals, &mut term, mouse_on)?;
        // Redrawn a few times a second even when nothing was done, so lines
        // logged by other threads (a policy's stderr) show without a key;
        // an unchanged screen sends no bytes.
        let stale = last_draw.elapsed() >= Duration::from_millis(250);
        if (dirty || stale) && last_draw.elapsed() >= frame {
            draw_frame(&mut term, app)?;
            last_draw = Instant::now();
            dirty = false;
        }
        let wait = if app.sim.playback.paused() && !app.waiting() {
            Duration::from_millis(200)
        } else {
            frame
                .saturating_sub(last_draw.elapsed())
                .max(Duration::from_millis(5))
        };
        if event::poll(wait)? {
            answer_by_next_frame(fx, frame);
            dirty |= read_events(app, fx, signals, &mut term)?;
        }
        let dt = last_tick.elapsed().as_secs_f64();
        last_tick = Instant::now();
        answer_by_next_frame(fx, frame);
        dirty |= fx.poll(app);
        dirty |= fx.dispatch(app, Action::Elapsed(dt));
        if let Ok(u) = util_rx.try_recv() {
            dirty |= fx.dispatch(app, Action::Indexed(u));
        }
        if let Some((l, rx)) = live.as_deref_mut() {
            dirty |= l.poll(answers(rx), (app, fx), opts);
        }
        if let Some(name) = fx.take_lesson() {
            // The old trace's index and what-if fork go with it.
            util_rx = mpsc::channel().1;
            open_lesson(app, fx, &name, opts);
            dirty = true;
        }
        if fx.mouse() != mouse_on {
            mouse_on = fx.mouse();
            capture_mouse(&mut term, mouse_on)?;
        }
        if fx.quit().is_some() {
            return Ok(());
        }
    }
}

/// The live view and the feed of Slurm's answers (`slurm --live`).
type LiveFeed = (
    super::live::Live,
    mpsc::Receiver<
        Result<crate::driver::slurm_live::Snapshot, crate::driver::slurm_live::LiveError>,
    >,
);

/// The answers the feed sent since last asked (failures in words).
fn answers(
    rx: &mpsc::Receiver<
        Result<crate::driver::slurm_live::Snapshot, crate::driver::slurm_live::LiveError>,
    >,
) -> Vec<super::live::Came> {
    use super::live::{Answer, Came};
    rx.try_iter()
        .map(|r| match r {
            Ok(s) => Came::Answer(Answer {
                nodes: s.nodes,
                squeue: s.squeue,
                at: s.at,
            }),
            Err(e) => Came::Failed(e.to_string()),
        })
        .collect()
}

/// The terminal the replay draws on.
type Term = ratatui::Terminal<ratatui::backend::CrosstermBackend<std::io::Stdout>>;

/// The terminal's size and a fixed viewport of it, resized on the
/// terminal's resize events.
fn fixed_terminal() -> Result<((u16, u16), Term)> {
    let backend = ratatui::backend::CrosstermBackend::new(std::io::stdout());
    let (w, h) = terminal::size()?;
    // A fixed viewport, resized on the terminal's resize events: a full-screen
    // one asks the terminal's size before every frame, and crossterm opens
    // /dev/tty to answer (6 % of the replay's CPU at 30 frames a second).
    let term = ratatui::Terminal::with_options(
        backend,
        ratatui::TerminalOptions {
            viewport: ratatui::Viewport::Fixed(ratatui::layout::Rect::new(0, 0, w, h)),
        },
    )?;
    Ok(((w, h), term))
}

/// A suspend asked for (the terminal handed back), or a continue after a
/// stop (taken again): whether the screen must be drawn whole.
fn suspend_or_resume(
    signals: &crate::driver::Signals,
    term: &mut Term,
    mouse_on: bool,
) -> Result<bool> {
    let mut redraw = false;
    if signals.take_suspend() {
        super::signals::suspend(mouse_on)?;
        term.clear()?;
        redraw = true;
    }
    if signals.take_resumed() {
        // Stopped by a signal that cannot be caught, then continued.
        super::signals::take_terminal(mouse_on)?;
        term.clear()?;
        redraw = true;
    }
    Ok(redraw)
}

/// A frame, with what has been logged so far, inside synchronized output.
fn draw_frame(term: &mut Term, app: &App) -> Result<()> {
    // What has been logged so far, into the log pane now.
    tui_logger::move_events();
    execute!(term.backend_mut(), terminal::BeginSynchronizedUpdate)?;
    term.draw(|f| super::draw::draw(f, app))?;
    execute!(term.backend_mut(), terminal::EndSynchronizedUpdate)?;
    Ok(())
}

/// Every terminal event queued, dispatched (a suspend key stops the
/// reading): whether anything visible changed.
fn read_events(
    app: &mut App,
    fx: &mut Effects,
    signals: &crate::driver::Signals,
    term: &mut Term,
) -> Result<bool> {
    let mut dirty = false;
    // Drain everything queued, then draw once.
    loop {
        let ev = event::read()?;
        if super::signals::is_suspend_key(&ev) {
            signals.ask_suspend();
            break;
        }
        let action = event_action(app, term, ev)?;
        if let Some(a) = action {
            dirty |= fx.dispatch(app, a);
        }
        if fx.quit().is_some() || !event::poll(Duration::ZERO)? {
            break;
        }
    }
    Ok(dirty)
}

/// Mouse capture on or off, as the app asked.
fn capture_mouse(term: &mut Term, on: bool) -> Result<()> {
    if on {
        execute!(term.backend_mut(), event::EnableMouseCapture)?;
    } else {
        execute!(term.backend_mut(), event::DisableMouseCapture)?;
    }
    Ok(())
}

/// An external policy's answer is waited for until shortly before the
/// next frame is due; the replay then stands at that scheduling point,
/// drawn and answering keys, and asks again on the next one.
fn answer_by_next_frame(fx: &mut Effects, frame: Duration) {
    fx.answer_by(Some(Instant::now() + frame.mul_f64(0.6)));
}
