//! A sweep's progress on standard error: one line redrawn in place with a
//! bar and an ETA on a terminal; plain lines (about every 5 %, and at the
//! end) for a log file or a Slurm output.

use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub(crate) struct Progress {
    total: usize,
    what: String,
    tty: bool,
    started: Instant,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    done: usize,
    failed: usize,
    /// The last plain line, by runs done.
    said: usize,
    drawn: Option<Instant>,
}

impl Progress {
    /// Progress over `total` runs; `what` begins every line (`sweep`,
    /// `shard 2/8`).
    pub(crate) fn new(total: usize, what: String) -> Progress {
        Progress {
            total,
            what,
            tty: std::io::stderr().is_terminal(),
            started: Instant::now(),
            state: Mutex::new(State::default()),
        }
    }

    /// One run ended (`ok` false: with an error).
    pub(crate) fn tick(&self, ok: bool) {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        s.done += 1;
        if !ok {
            s.failed += 1;
        }
        let last = s.done == self.total;
        if self.tty {
            let due = s
                .drawn
                .is_none_or(|t| t.elapsed() >= Duration::from_millis(100));
            if due || last {
                s.drawn = Some(Instant::now());
                let line = self.line(&s, true);
                let end = if last { "\n" } else { "" };
                let _ = write!(std::io::stderr().lock(), "\r\x1b[2K{line}{end}");
            }
        } else {
            // About every 5 %, and not more than a line a second.
            let step = (self.total / 20).max(1);
            let due = s
                .drawn
                .is_none_or(|t| t.elapsed() >= Duration::from_secs(1));
            if last || (s.done >= s.said + step && due) {
                s.drawn = Some(Instant::now());
                s.said = s.done;
                crate::cli::print_err(&self.line(&s, false));
            }
        }
    }

    fn line(&self, s: &State, bar: bool) -> String {
        let elapsed = self.started.elapsed().as_secs_f64();
        let eta = if s.done > 0 && s.done < self.total {
            let left = elapsed / s.done as f64 * (self.total - s.done) as f64;
            format!(" · ETA {}", crate::trace::human_secs(left.ceil()))
        } else {
            String::new()
        };
        let failed = if s.failed > 0 {
            format!(" · {} failed", s.failed)
        } else {
            String::new()
        };
        let bar = if bar {
            let width = 24;
            let full = (s.done * width).checked_div(self.total).unwrap_or(width);
            format!("[{}{}] ", "#".repeat(full), "-".repeat(width - full))
        } else {
            String::new()
        };
        format!(
            "tracetui: {}: {bar}{}/{} runs{failed} · {:.1} s{eta}",
            self.what, s.done, self.total, elapsed
        )
    }
}
