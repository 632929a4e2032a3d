//! One dialogue with one policy program, as data: the answers it gave
//! (each with a key of the message it answered), shared by an engine's
//! copies (checkpoints), and the question an engine stands at when the
//! next answer is the program's to give.
//!
//! While a copy's messages are the ones answered it replays the answers,
//! so stepping back re-simulates exactly what happened whether or not the
//! program is deterministic. At the frontier the books ask a
//! [`Question`](super::Question) and the engine stops; the driver (the one
//! place that starts processes, writes pipes and reads the clock) answers
//! it and the engine is resumed with the [`Reply`](super::Reply). The
//! driver keeps the dialogue's process itself, by the dialogue's id.

use super::answer::Decision;
use crate::error::ProtocolError;
use crate::tuning::{Tuning, Warn};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use tracetui_model::text::sanitize;

/// Answers an engine's copies share.
#[derive(Default)]
pub(crate) struct Dialogue {
    /// Answers from exchange `base` on (older ones no copy can still need).
    said: VecDeque<(u128, Arc<Said>)>,
    said_bytes: usize,
    base: usize,
    /// Whether the budget dropped answers (said once in the log).
    forgot: bool,
}

impl std::fmt::Debug for Dialogue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "policy dialogue ({} answers kept)", self.said.len())
    }
}

/// An answer as the dialogue keeps it: the line (shared, never copied),
/// and the line read as an answer — once, on whichever thread reads it
/// first (the driver reads a large one on a thread of its own, so the
/// replay draws meanwhile), taken by the copy that uses it.
pub struct Said {
    pub(crate) line: String,
    read: Mutex<Option<Result<Decision, ProtocolError>>>,
}

impl Said {
    /// A program's answer line as it came, not read yet (it is read once,
    /// by `read_now` or on first use).
    pub fn new(line: String) -> Arc<Said> {
        Arc::new(Said {
            line,
            read: Mutex::new(None),
        })
    }

    fn parse(&self) -> Result<Decision, ProtocolError> {
        serde_json::from_str(&self.line).map_err(|x| ProtocolError::Answer {
            why: x.to_string(),
            line: self.line.chars().take(200).collect(),
        })
    }

    /// The length of the line in bytes.
    pub fn bytes(&self) -> usize {
        self.line.len()
    }

    /// Reads the line now, so using it later costs nothing.
    pub fn read_now(&self) {
        let mut r = self.read.lock().unwrap_or_else(|p| p.into_inner());
        if r.is_none() {
            *r = Some(self.parse());
        }
    }

    /// Whether the line has been read.
    pub fn is_read(&self) -> bool {
        self.read.lock().map(|r| r.is_some()).unwrap_or(false)
    }

    /// The answer: as read already, else read now (a copy using it again,
    /// after a step back, reads it again).
    pub(crate) fn answer(&self) -> Result<Decision, ProtocolError> {
        let taken = self.read.lock().ok().and_then(|mut r| r.take());
        taken.unwrap_or_else(|| self.parse())
    }
}

/// What the dialogue holds for exchange `pos` with a message of key `key`.
pub(crate) enum Lookup {
    /// The answer given there.
    Said(Arc<Said>),
    /// Another message was answered there (or the dialogue was given up):
    /// the copy asking starts a dialogue of its own.
    Diverged,
    /// Nothing yet: the program is to answer it.
    Frontier,
}

impl Dialogue {
    pub(crate) fn lookup(&self, pos: usize, key: u128) -> Lookup {
        if pos < self.base {
            return Lookup::Diverged;
        }
        match self.said.get(pos - self.base) {
            Some((k, line)) if *k == key => Lookup::Said(line.clone()),
            Some(_) => Lookup::Diverged,
            None if pos == self.frontier() => Lookup::Frontier,
            None => Lookup::Diverged,
        }
    }

    /// The exchange the program answers next.
    fn frontier(&self) -> usize {
        self.base.saturating_add(self.said.len())
    }

    /// The program's answer to exchange `pos` (kept once, whoever tells it).
    pub(crate) fn record(&mut self, pos: usize, key: u128, said: Arc<Said>) {
        if pos == self.frontier() {
            self.said_bytes += said.line.len() + 64;
            self.said.push_back((key, said));
        }
    }

    /// No copy may use this dialogue (or its process) again: its program
    /// failed, and a late answer may still come.
    pub(crate) fn give_up(&mut self) {
        *self = Dialogue {
            base: usize::MAX,
            ..Dialogue::default()
        };
    }

    /// A copy (one of `sharers`) used the answer to exchange `pos`: with no
    /// other copy nothing is kept; else the oldest go past `budget` bytes.
    fn used(&mut self, pos: usize, sharers: usize, (budget, warn): (usize, Warn), name: &str) {
        if sharers <= 1 {
            let upto = (pos + 1).saturating_sub(self.base).min(self.said.len());
            for (_, old) in self.said.drain(..upto) {
                self.said_bytes -= old.line.len() + 64;
            }
            self.base += upto;
            return;
        }
        while self.said_bytes > budget {
            let Some((_, old)) = self.said.pop_front() else {
                break;
            };
            self.said_bytes -= old.line.len() + 64;
            self.base += 1;
            if !self.forgot {
                self.forgot = true;
                warn.say(&format!(
                    "policy '{}': its oldest answers are no longer kept ({} KiB of answers); \
                     stepping back before them asks the program again",
                    sanitize(name),
                    budget >> 10
                ));
            }
        }
    }
}

/// A dialogue as the books hold it (its copies share it).
pub(crate) type Shared = Arc<Mutex<Dialogue>>;

/// The dialogue, locked (a panic elsewhere leaves its data usable).
pub(crate) fn lock(d: &Shared) -> std::sync::MutexGuard<'_, Dialogue> {
    d.lock().unwrap_or_else(|p| p.into_inner())
}

/// The answer to exchange `pos` if the dialogue has it, `used` by a copy
/// (one of `sharers`).
pub(crate) fn said(d: &Shared, pos: usize, key: u128, tuning: &Tuning, name: &str) -> Lookup {
    let sharers = Arc::strong_count(d);
    let mut g = lock(d);
    let found = g.lookup(pos, key);
    if matches!(found, Lookup::Said(_)) {
        g.used(pos, sharers, (tuning.answer_budget, tuning.warn), name);
    }
    found
}
