//! The signals tracetui answers, heard here and nowhere else. INT, TERM,
//! HUP and QUIT end a run (the replay quits through the same path as `q`,
//! every policy process ended, then the process dies of the signal:
//! status 128+N); TSTP asks to stop (the replay gives its terminal back
//! first) and CONT says it was continued. A watchdog ends the process if
//! its terminal went away and the event loop did not notice within a
//! second. What to do about the terminal is the caller's: it hands in
//! how to restore it.

use crate::procs::{die_of, end_all, ENDING};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What the signals asked, as flags the event loop reads.
pub struct Signals {
    /// The ending signal received (0: none).
    stop: Arc<AtomicUsize>,
    suspend: Arc<AtomicBool>,
    resumed: Arc<AtomicBool>,
    done: Arc<AtomicBool>,
}

impl Signals {
    /// Registers the handlers and starts the watchdog, which calls
    /// `restore` (the terminal) before it ends the process.
    pub fn watch(restore: fn()) -> Signals {
        let s = Signals {
            stop: Arc::new(AtomicUsize::new(0)),
            suspend: Arc::new(AtomicBool::new(false)),
            resumed: Arc::new(AtomicBool::new(false)),
            done: Arc::new(AtomicBool::new(false)),
        };
        for sig in ENDING {
            let _ = signal_hook::flag::register_usize(sig, s.stop.clone(), sig as usize);
        }
        let _ = signal_hook::flag::register(libc::SIGTSTP, s.suspend.clone());
        let _ = signal_hook::flag::register(libc::SIGCONT, s.resumed.clone());
        watchdog(s.stop.clone(), s.done.clone(), restore);
        s
    }

    /// The ending signal received, if one was.
    pub fn stopped(&self) -> Option<i32> {
        match self.stop.load(Ordering::SeqCst) {
            0 => None,
            n => Some(n as i32),
        }
    }

    /// Asks to stop, as TSTP does (Ctrl-Z read as a key in raw mode).
    pub fn ask_suspend(&self) {
        self.suspend.store(true, Ordering::SeqCst);
    }

    /// Whether a stop was asked since the last call.
    pub fn take_suspend(&self) -> bool {
        self.suspend.swap(false, Ordering::SeqCst)
    }

    /// Whether the process was continued since the last call.
    pub fn take_resumed(&self) -> bool {
        self.resumed.swap(false, Ordering::SeqCst)
    }

    /// The event loop is over: the watchdog stands down.
    pub fn finish(&self) {
        self.done.store(true, Ordering::SeqCst);
    }
}

/// Stops the process here until it is continued (`fg`).
pub fn stop_here() {
    // SAFETY: raise sends a signal to this process; SIGSTOP cannot be
    // caught, so it stops here until SIGCONT.
    unsafe {
        libc::raise(libc::SIGSTOP);
    }
}

/// Quits when the terminal goes away. A hang-up or an ending signal sets
/// `stop`, which the event loop checks; but with the terminal gone
/// crossterm can spin inside its read loop and never return, so if the
/// loop has not finished a second later the process restores what it
/// can, ends every process it started and dies of the signal from here.
fn watchdog(stop: Arc<AtomicUsize>, done: Arc<AtomicBool>, restore: fn()) {
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
                        end_all();
                        die_of(sig as i32);
                    }
                }
            }
        });
}

/// Whether the terminal on stdout has hung up (its window or SSH session closed).
pub fn terminal_hung_up() -> bool {
    let mut p = libc::pollfd {
        fd: 1,
        events: 0,
        revents: 0,
    };
    // SAFETY: one valid pollfd, no timeout; poll only reads fd 1's state.
    let n = unsafe { libc::poll(&mut p, 1, 0) };
    n == 1 && p.revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0
}

/// While held, an ending signal first runs an action of the caller's (the
/// replay's loading screen puts the terminal's echo back), then the
/// signal's own default action.
pub(crate) struct OnEnding {
    hooks: Vec<signal_hook::SigId>,
}

/// Runs `action` on INT, TERM, HUP or QUIT, then the signal's default
/// action, until the guard is dropped.
///
/// # Safety
/// `action` runs inside a signal handler: it must be async-signal-safe
/// (atomics and system calls such as `tcsetattr`; no allocation, no lock).
pub(crate) unsafe fn on_ending(action: fn()) -> OnEnding {
    let mut hooks = Vec::new();
    for sig in ENDING {
        // SAFETY: the handler runs `action` (signal-safe, as the caller
        // promised) and the signal's default action, which is too.
        let id = unsafe {
            signal_hook::low_level::register(sig, move || {
                action();
                let _ = signal_hook::low_level::emulate_default_handler(sig);
            })
        };
        if let Ok(id) = id {
            hooks.push(id);
        }
    }
    OnEnding { hooks }
}

impl Drop for OnEnding {
    fn drop(&mut self) {
        for id in self.hooks.drain(..) {
            signal_hook::low_level::unregister(id);
        }
    }
}
