//! Keys typed while a trace loads (before the replay takes the terminal)
//! are not echoed over the loading line: the terminal's echo is off until
//! the guard goes, and on every way out — the guard dropped on an error or
//! a panic, or INT, TERM, HUP or QUIT arriving during the load (the
//! setting put back in the handler, `signals::on_ending`, then the
//! signal's own action). The
//! keys themselves are dropped when the replay starts (`ui/run.rs`).
//! Here, with the signals, because the terminal's settings are put back
//! from inside a signal handler.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// The terminal's settings before the echo went off. A static because the
/// signal handler that puts them back can reach nothing else.
static SAVED: OnceLock<libc::termios> = OnceLock::new();
/// Whether the saved settings are to be put back: a static for the same
/// handler, an atomic so the handler and the guard never both do it.
static QUIET: AtomicBool = AtomicBool::new(false);

/// While held, what is typed is not echoed (nothing when stdin is not a
/// terminal).
pub struct QuietTyping {
    _on_ending: crate::signals::OnEnding,
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
pub fn quiet_typing() -> Option<QuietTyping> {
    // SAFETY: isatty and tcgetattr read the descriptor's state into `t`.
    let mut t: libc::termios = unsafe { std::mem::zeroed() };
    if unsafe { libc::isatty(libc::STDIN_FILENO) } != 1
        || unsafe { libc::tcgetattr(libc::STDIN_FILENO, &mut t) } != 0
    {
        return None;
    }
    let saved = *SAVED.get_or_init(|| t);
    // SAFETY: `put_back` is signal-safe: an atomic and tcsetattr.
    let on_ending = unsafe { crate::signals::on_ending(put_back) };
    let mut quiet = saved;
    quiet.c_lflag &= !(libc::ECHO | libc::ECHONL);
    QUIET.store(true, Ordering::SeqCst);
    // SAFETY: settings derived from the ones just read.
    if unsafe { libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, &quiet) } != 0 {
        QUIET.store(false, Ordering::SeqCst);
    }
    Some(QuietTyping {
        _on_ending: on_ending,
    })
}

impl Drop for QuietTyping {
    /// The echo back; then the guard's field drops, and with it the handlers.
    fn drop(&mut self) {
        put_back();
    }
}
