//! Keys typed while a trace loads (before the replay takes the terminal)
//! are not echoed over the loading line: the terminal's echo is off until
//! the guard goes, and on every way out — the guard dropped on an error or
//! a panic, or INT, TERM, HUP or QUIT arriving during the load (the
//! setting put back in the handler, then the signal's own action). The
//! keys themselves are dropped when the replay starts (`run.rs`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// The terminal's settings before the echo went off.
static SAVED: OnceLock<libc::termios> = OnceLock::new();
/// Whether the saved settings are to be put back.
static QUIET: AtomicBool = AtomicBool::new(false);

/// While held, what is typed is not echoed (nothing when stdin is not a
/// terminal).
pub(crate) struct QuietTyping {
    hooks: Vec<signal_hook::SigId>,
}

/// Puts the saved settings back; async-signal-safe (`tcsetattr` only).
fn put_back() {
    if QUIET.swap(false, Ordering::SeqCst) {
        if let Some(t) = SAVED.get() {
            // SAFETY: a valid termios read from this descriptor.
            unsafe { libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, t) };
        }
    }
}

/// Echo off on a terminal stdin, until the guard is dropped.
pub(crate) fn quiet_typing() -> Option<QuietTyping> {
    // SAFETY: isatty and tcgetattr read the descriptor's state into `t`.
    let mut t: libc::termios = unsafe { std::mem::zeroed() };
    if unsafe { libc::isatty(libc::STDIN_FILENO) } != 1
        || unsafe { libc::tcgetattr(libc::STDIN_FILENO, &mut t) } != 0
    {
        return None;
    }
    let saved = *SAVED.get_or_init(|| t);
    let mut hooks = Vec::new();
    for sig in crate::driver::procs::ENDING {
        // SAFETY: the handler only calls `put_back` (an atomic and
        // tcsetattr) and the signal's default action, both signal-safe.
        let id = unsafe {
            signal_hook::low_level::register(sig, move || {
                put_back();
                let _ = signal_hook::low_level::emulate_default_handler(sig);
            })
        };
        if let Ok(id) = id {
            hooks.push(id);
        }
    }
    let mut quiet = saved;
    quiet.c_lflag &= !(libc::ECHO | libc::ECHONL);
    QUIET.store(true, Ordering::SeqCst);
    // SAFETY: settings derived from the ones just read.
    if unsafe { libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, &quiet) } != 0 {
        QUIET.store(false, Ordering::SeqCst);
    }
    Some(QuietTyping { hooks })
}

impl Drop for QuietTyping {
    fn drop(&mut self) {
        put_back();
        for id in self.hooks.drain(..) {
            signal_hook::low_level::unregister(id);
        }
    }
}
