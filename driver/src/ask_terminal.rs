//! Asking the terminal a question and reading its answer before the
//! replay takes the screen: the query written to `/dev/tty` with the
//! terminal in raw mode (no echo, no line buffering), then Device
//! Attributes (DA1) as a sentinel — every terminal answers it, in order,
//! so one that ignores the query is known at once instead of after the
//! whole wait. The terminal's settings are put back before returning.

use std::fs::OpenOptions;
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

/// The most bytes read (an answer is a few dozen).
const MOST: usize = 1024;

/// What the terminal sent after `query` until its DA1 answer, or until
/// `wait` passed (None: no terminal to ask, or nothing came).
pub fn ask_terminal(query: &[u8], wait: Duration) -> Option<Vec<u8>> {
    let tty = OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .ok()?;
    let fd = tty.as_raw_fd();
    // SAFETY: tcgetattr fills `saved` for an open descriptor.
    let mut saved: libc::termios = unsafe { std::mem::zeroed() };
    if unsafe { libc::tcgetattr(fd, &mut saved) } != 0 {
        return None;
    }
    let mut raw = saved;
    raw.c_lflag &= !(libc::ICANON | libc::ECHO | libc::ECHONL);
    raw.c_cc[libc::VMIN] = 0;
    raw.c_cc[libc::VTIME] = 0;
    // SAFETY: settings derived from the ones just read.
    if unsafe { libc::tcsetattr(fd, libc::TCSANOW, &raw) } != 0 {
        return None;
    }
    let got = exchange(&tty, query, wait);
    // SAFETY: the settings read above, put back.
    unsafe { libc::tcsetattr(fd, libc::TCSANOW, &saved) };
    got.filter(|b| !b.is_empty())
}

/// Writes `query` and DA1, then reads until DA1's answer or the deadline.
fn exchange(mut tty: &std::fs::File, query: &[u8], wait: Duration) -> Option<Vec<u8>> {
    tty.write_all(query).ok()?;
    tty.write_all(b"\x1b[c").ok()?;
    tty.flush().ok()?;
    let deadline = Instant::now() + wait;
    let mut got = Vec::new();
    let mut chunk = [0u8; 256];
    while got.len() < MOST && !has_device_attributes(&got) {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        let mut pfd = libc::pollfd {
            fd: tty.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one pollfd, for an open descriptor.
        let n = unsafe { libc::poll(&mut pfd, 1, left.as_millis().max(1) as libc::c_int) };
        if n <= 0 {
            break;
        }
        match tty.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(k) => got.extend_from_slice(&chunk[..k]),
        }
    }
    Some(got)
}

/// Whether `b` holds a DA1 answer: `ESC [ ? … c`.
fn has_device_attributes(b: &[u8]) -> bool {
    b.windows(3)
        .enumerate()
        .any(|(i, w)| w == b"\x1b[?" && b[i + 3..].contains(&b'c'))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_sentinel_is_device_attributes() {
        assert!(super::has_device_attributes(
            b"\x1b]11;rgb:0/0/0\x07\x1b[?62;22c"
        ));
        assert!(!super::has_device_attributes(
            b"\x1b]11;rgb:0/0/0\x07\x1b[?62"
        ));
    }
}
