//! One conversation with one policy process, shared by an engine's copies
//! (checkpoints): the process, the message it is answering, and the
//! answers it gave, each with a key of the message it answered. While a
//! copy's messages are the ones answered it replays the answers, so
//! stepping back re-simulates exactly what happened whether or not the
//! program is deterministic; at the frontier it asks the process, and may
//! leave without an answer (`Talk::Later`) to come back for it.

use super::child::Child;
use super::{hello_message, read_hello, Spec};
use crate::text::sanitize;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// The limits an engine gives its conversation: how long one answer may
/// take, and how many bytes of answers (estimated) are kept for copies to
/// replay — past it the oldest go, and a copy that needs one starts a
/// conversation of its own.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    pub timeout: Duration,
    pub budget: usize,
}

#[derive(Default)]
pub(super) struct Conversation {
    child: Option<Child>,
    /// Sent and not answered yet: the message's key (None: the hello), and when it went.
    asked: Option<(Option<u128>, Instant)>,
    /// Answers from exchange `base` on (older ones no copy can still need).
    said: VecDeque<(u128, String)>,
    said_bytes: usize,
    base: usize,
    /// Whether the budget dropped answers (said once in the log).
    forgot: bool,
}

/// Why an exchange did not give an answer.
pub(super) enum Talk {
    /// This copy's messages are not the conversation's: it starts its own.
    Diverged,
    Failed(String),
    /// Not answered by the time the engine gave (asked again later).
    Later,
}

impl std::fmt::Debug for Conversation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "policy conversation ({} answers kept)", self.said.len())
    }
}

impl Conversation {
    /// Exchange number `pos` of a copy (one of `sharers`), message `msg`:
    /// the recorded answer if `msg` is the one answered there, else the
    /// process's, waited for until `by` (None: up to the timeout).
    pub fn talk(
        &mut self,
        spec: &Spec,
        pos: usize,
        msg: &[u8],
        sharers: usize,
        (by, limits): (Option<Instant>, Limits),
    ) -> Result<String, Talk> {
        let key = crate::trace::texts::key(msg);
        if pos < self.base {
            return Err(Talk::Diverged);
        }
        if let Some((k, line)) = self.said.get(pos - self.base) {
            return if *k == key {
                Ok(line.clone())
            } else {
                Err(Talk::Diverged)
            };
        }
        if pos != self.base + self.said.len() {
            return Err(Talk::Diverged);
        }
        match self.frontier(spec, key, msg, (by, limits.timeout)) {
            Ok(line) => {
                self.keep(spec, key, &line, (sharers, limits.budget));
                Ok(line)
            }
            Err(Talk::Failed(why)) => {
                // The process is out of step (a late answer may still come):
                // no copy may use it or its answers again.
                *self = Conversation {
                    base: usize::MAX,
                    ..Conversation::default()
                };
                Err(Talk::Failed(why))
            }
            Err(other) => Err(other),
        }
    }

    /// The process's answer to `msg`: started and greeted first if it is
    /// not yet, `msg` sent unless it is the message already out.
    fn frontier(
        &mut self,
        spec: &Spec,
        key: u128,
        msg: &[u8],
        (by, timeout): (Option<Instant>, Duration),
    ) -> Result<String, Talk> {
        if self.child.is_none() {
            let mut c = Child::spawn(&spec.cmd, &spec.label).map_err(Talk::Failed)?;
            let hello = hello_message(&spec.cmd).map_err(Talk::Failed)?;
            c.send(&hello, Instant::now() + timeout)
                .map_err(Talk::Failed)?;
            self.child = Some(c);
            self.asked = Some((None, Instant::now()));
        }
        if let Some((None, since)) = self.asked {
            let line = self.reply(since, (by, timeout))?;
            self.asked = None;
            check_hello(spec, &line).map_err(Talk::Failed)?;
        }
        let since = match self.asked {
            Some((Some(k), _)) if k != key => return Err(Talk::Diverged),
            Some((_, since)) => since,
            None => {
                let child = self.child.as_mut().expect("started above");
                child
                    .send(msg, Instant::now() + timeout)
                    .map_err(Talk::Failed)?;
                let now = Instant::now();
                self.asked = Some((Some(key), now));
                now
            }
        };
        let line = self.reply(since, (by, timeout))?;
        self.asked = None;
        Ok(line)
    }

    /// The reply to what went at `since`, if it comes by `by` and within the timeout.
    fn reply(
        &mut self,
        since: Instant,
        (by, timeout): (Option<Instant>, Duration),
    ) -> Result<String, Talk> {
        let limit = since + timeout;
        let until = by.map_or(limit, |b| b.min(limit));
        let child = self.child.as_mut().expect("asked a process");
        match child.reply_by(until) {
            Ok(Some(line)) => Ok(line),
            Ok(None) if Instant::now() >= limit => Err(Talk::Failed(format!(
                "did not answer within {:.1} s",
                timeout.as_secs_f64()
            ))),
            Ok(None) => Err(Talk::Later),
            Err(why) => Err(Talk::Failed(why)),
        }
    }

    /// Keeps an answer for the other copies (none: nothing is kept), the
    /// oldest dropped past the budget.
    fn keep(&mut self, spec: &Spec, key: u128, line: &str, (sharers, budget): (usize, usize)) {
        if sharers <= 1 {
            self.base += self.said.len() + 1;
            self.said.clear();
            self.said_bytes = 0;
            return;
        }
        self.said_bytes += line.len() + 64;
        self.said.push_back((key, line.to_string()));
        while self.said_bytes > budget {
            let Some((_, old)) = self.said.pop_front() else {
                break;
            };
            self.said_bytes -= old.len() + 64;
            self.base += 1;
            if !self.forgot {
                self.forgot = true;
                log::warn!(
                    "policy '{}': its oldest answers are no longer kept ({} KiB of answers); \
                     stepping back before them asks the program again",
                    sanitize(&spec.name),
                    budget >> 10
                );
            }
        }
    }
}

/// The program's hello, as the probe heard it when the policy was named.
fn check_hello(spec: &Spec, line: &str) -> Result<(), String> {
    let h = read_hello(line, &spec.cmd)?;
    if (h.walk, h.notify, h.arrivals_only) != (spec.walk, spec.notify, spec.arrivals_only) {
        return Err(format!(
            "said walk {} (notify {}) when first asked and {} (notify {}) now",
            spec.walk.name(),
            spec.notify,
            h.walk.name(),
            h.notify
        ));
    }
    Ok(())
}
