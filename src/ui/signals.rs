//! The signals the replay answers: INT, TERM, HUP and QUIT quit through the
//! same path as `q` (the terminal restored, every policy process ended) and
//! the process then dies of the signal (status 128+N); TSTP (or Ctrl-Z,
//! which raw mode delivers as a key) gives the terminal back before
//! stopping, and CONT takes it again and redraws everything. A watchdog
//! quits when the terminal goes away.

use ratatui::crossterm::event::{self, Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::crossterm::{cursor, execute, style, terminal};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Leaves the alternate screen and raw mode, shows the cursor; safe to call twice.
pub(crate) fn restore() {
    let mut out = std::io::stdout();
    let _ = execute!(
        out,
        event::DisableMouseCapture,
        terminal::LeaveAlternateScreen,
        cursor::Show,
        style::ResetColor
    );
    let _ = terminal::disable_raw_mode();
}

/// What the signals asked, as flags the event loop reads.
pub(crate) struct Signals {
    /// The ending signal received (0: none).
    stop: Arc<AtomicUsize>,
    suspend: Arc<AtomicBool>,
    resumed: Arc<AtomicBool>,
    done: Arc<AtomicBool>,
}

impl Signals {
    /// Registers the handlers and starts the watchdog.
    pub(crate) fn watch() -> Signals {
        let s = Signals {
            stop: Arc::new(AtomicUsize::new(0)),
            suspend: Arc::new(AtomicBool::new(false)),
            resumed: Arc::new(AtomicBool::new(false)),
            done: Arc::new(AtomicBool::new(false)),
        };
        for sig in crate::driver::procs::ENDING {
            let _ = signal_hook::flag::register_usize(sig, s.stop.clone(), sig as usize);
        }
        let _ = signal_hook::flag::register(libc::SIGTSTP, s.suspend.clone());
        let _ = signal_hook::flag::register(libc::SIGCONT, s.resumed.clone());
        watchdog(s.stop.clone(), s.done.clone());
        s
    }

    /// The ending signal received, if one was.
    pub(crate) fn stopped(&self) -> Option<i32> {
        match self.stop.load(Ordering::SeqCst) {
            0 => None,
            n => Some(n as i32),
        }
    }

    /// Asks to give the terminal back and stop (Ctrl-Z as a key).
    pub(crate) fn ask_suspend(&self) {
        self.suspend.store(true, Ordering::SeqCst);
    }

    /// Whether a stop was asked since the last call.
    pub(crate) fn take_suspend(&self) -> bool {
        self.suspend.swap(false, Ordering::SeqCst)
    }

    /// Whether the process was continued since the last call.
    pub(crate) fn take_resumed(&self) -> bool {
        self.resumed.swap(false, Ordering::SeqCst)
    }

    /// The event loop is over: the watchdog stands down.
    pub(crate) fn finish(&self) {
        self.done.store(true, Ordering::SeqCst);
    }
}

/// Whether `ev` is Ctrl-Z (raw mode turns the terminal's suspend key into a key).
pub(crate) fn is_suspend_key(ev: &Event) -> bool {
    matches!(
        ev,
        Event::Key(KeyEvent { code: KeyCode::Char('z'), modifiers, .. })
            if modifiers.contains(KeyModifiers::CONTROL)
    )
}

/// Gives the terminal back, stops until continued (`fg`), then takes it
/// again; the caller redraws the whole screen.
pub(crate) fn suspend(mouse: bool) -> std::io::Result<()> {
    restore();
    // SAFETY: raise sends a signal to this process; SIGSTOP cannot be
    // caught, so it stops here until SIGCONT.
    unsafe {
        libc::raise(libc::SIGSTOP);
    }
    take_terminal(mouse)
}

/// Raw mode, the alternate screen, no cursor (and the mouse if it was on).
pub(crate) fn take_terminal(mouse: bool) -> std::io::Result<()> {
    terminal::enable_raw_mode()?;
    let mut out = std::io::stdout();
    execute!(out, terminal::EnterAlternateScreen, cursor::Hide)?;
    if mouse {
        execute!(out, event::EnableMouseCapture)?;
    }
    Ok(())
}

/// Quits when the terminal goes away. A hang-up or an ending signal sets
/// `stop`, which the event loop checks; but with the terminal gone
/// crossterm can spin inside its read loop and never return, so if the
/// loop has not finished a second later the process restores what it
/// can, ends every process it started and dies of the signal from here.
fn watchdog(stop: Arc<AtomicUsize>, done: Arc<AtomicBool>) {
    let _ = std::thread::Builder::new()
        .name("watchdog".into())
        .spawn(move || {
            let mut since: Option<Instant> = None;
            while !done.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(200));
                if terminal_hung_up() {
                    let _ = stop.compare_exchange(
                        0,
                        libc::SIGHUP as usize,
                        Ordering::SeqCst,
                        Ordering::SeqCst,
                    );
                }
                let sig = stop.load(Ordering::SeqCst);
                if sig != 0 {
                    let at = *since.get_or_insert_with(Instant::now);
                    if at.elapsed() > Duration::from_secs(1) && !done.load(Ordering::SeqCst) {
                        restore();
                        crate::driver::procs::end_all();
                        crate::driver::procs::die_of(sig as i32);
                    }
                }
            }
        });
}

/// Whether the terminal on stdout has hung up (its window or SSH session closed).
pub(super) fn terminal_hung_up() -> bool {
    let mut p = libc::pollfd {
        fd: 1,
        events: 0,
        revents: 0,
    };
    // SAFETY: one valid pollfd, no timeout; poll only reads fd 1's state.
    let n = unsafe { libc::poll(&mut p, 1, 0) };
    n == 1 && p.revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0
}
