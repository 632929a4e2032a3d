//! A policy's stderr: logged line by line (each made safe and cut short),
//! and its last lines kept, so a policy that fails while it is being named
//! (a Python traceback, `No such file`) is told with what it said.

use std::collections::VecDeque;
use std::io::Read;
use std::process::ChildStderr;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};
use tracetui_model::text::sanitize;

/// The log target of a policy's stderr lines: its own output (shown as
/// `NAME: line`), not tracetui's warnings.
pub const POLICY_OUTPUT: &str = "policy";

/// The longest stderr line kept; the rest of the line is dropped.
const MAX_LINE: usize = 400;
/// The lines kept for an error: a Python traceback's last frames and its error.
pub(super) const TAIL: usize = 12;

#[derive(Default)]
struct Lines {
    /// The last `TAIL` lines, made safe.
    tail: VecDeque<String>,
    /// Lines not logged yet: the probe logs them only if the policy is named.
    held: bool,
    /// Held lines that fell out of the tail.
    dropped: u64,
    /// The stream has ended.
    closed: bool,
}

/// The reader of one policy's stderr, shared with its `Child`.
#[derive(Clone)]
pub(super) struct Stderr {
    shared: Arc<(Mutex<Lines>, Condvar)>,
    label: Arc<str>,
}

impl Stderr {
    /// Reads `stream` on a thread of its own; `label` (safe to show)
    /// prefixes each logged line. Held, lines are kept but not logged
    /// until `release`.
    pub(super) fn start(stream: ChildStderr, label: &str, held: bool) -> std::io::Result<Stderr> {
        let s = Stderr {
            shared: Arc::new((
                Mutex::new(Lines {
                    held,
                    ..Lines::default()
                }),
                Condvar::new(),
            )),
            label: label.into(),
        };
        let reader = s.clone();
        std::thread::Builder::new()
            .name("policy-stderr".into())
            .spawn(move || reader.read(stream))?;
        Ok(s)
    }

    fn read(&self, mut stream: ChildStderr) {
        let mut line: Vec<u8> = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            let n = match stream.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            for &b in &buf[..n] {
                if b == b'\n' {
                    self.line(&mut line);
                } else if line.len() < MAX_LINE {
                    line.push(b);
                }
            }
        }
        self.line(&mut line);
        let (lock, woken) = &*self.shared;
        lock_lines(lock).closed = true;
        woken.notify_all();
    }

    fn line(&self, line: &mut Vec<u8>) {
        if line.is_empty() {
            return;
        }
        let text = sanitize(String::from_utf8_lossy(line).trim_end_matches('\r'));
        line.clear();
        let mut lines = lock_lines(&self.shared.0);
        if !lines.held {
            log::info!(target: POLICY_OUTPUT, "{}: {text}", self.label);
        }
        if lines.tail.len() == TAIL {
            lines.tail.pop_front();
            if lines.held {
                lines.dropped += 1;
            }
        }
        lines.tail.push_back(text);
    }

    /// Logs what was held, and every later line as it comes.
    pub(super) fn release(&self) {
        let mut lines = lock_lines(&self.shared.0);
        if !lines.held {
            return;
        }
        lines.held = false;
        if lines.dropped > 0 {
            log::info!(target: POLICY_OUTPUT, "{}: ({} earlier lines)", self.label, lines.dropped);
        }
        for l in &lines.tail {
            log::info!(target: POLICY_OUTPUT, "{}: {l}", self.label);
        }
    }

    /// Its last lines, once the stream has ended or `wait` has passed (a
    /// program that failed is usually still writing its traceback).
    pub(super) fn tail(&self, wait: Duration) -> Vec<String> {
        let until = Instant::now() + wait;
        let (lock, woken) = &*self.shared;
        let mut lines = lock_lines(lock);
        while !lines.closed {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            lines = match woken.wait_timeout(lines, left) {
                Ok((l, _)) => l,
                Err(p) => p.into_inner().0,
            };
        }
        lines.tail.iter().cloned().collect()
    }
}

fn lock_lines(m: &Mutex<Lines>) -> std::sync::MutexGuard<'_, Lines> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
