//! One dialogue with one policy program, as data: the answers it gave
//! (each with a key of the message it answered), shared by an engine's
//! copies (checkpoints), and the question an engine stands at when the
//! next answer is the program's to give.
//!
//! While a copy's messages are the ones answered it replays the answers,
//! so stepping back re-simulates exactly what happened whether or not the
//! program is deterministic. At the frontier the books ask a [`Question`]
//! and the engine stops; the driver (`sim::drive`, the one place that
//! starts processes, writes pipes and reads the clock) answers it and the
//! engine is resumed with the [`Reply`]. The driver keeps its end of the
//! dialogue (the process) in `link`, opaque here.

use super::{wire, Spec};
use crate::sim::error::ProtocolError;
use crate::text::sanitize;
use std::any::Any;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Answers an engine's copies share, and the driver's end of the dialogue.
#[derive(Default)]
pub(crate) struct Dialogue {
    /// The driver's state for this dialogue (its process), dropped with it.
    pub(crate) link: Option<Box<dyn Any + Send>>,
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
pub(crate) struct Said {
    pub(crate) line: String,
    read: Mutex<Option<Result<wire::Reply, ProtocolError>>>,
}

impl Said {
    pub(crate) fn new(line: String) -> Arc<Said> {
        Arc::new(Said {
            line,
            read: Mutex::new(None),
        })
    }

    fn parse(&self) -> Result<wire::Reply, ProtocolError> {
        serde_json::from_str(&self.line).map_err(|x| ProtocolError::Answer {
            why: x.to_string(),
            line: self.line.chars().take(200).collect(),
        })
    }

    /// Reads the line now, so using it later costs nothing.
    pub(crate) fn read_now(&self) {
        let mut r = self.read.lock().unwrap_or_else(|p| p.into_inner());
        if r.is_none() {
            *r = Some(self.parse());
        }
    }

    /// Whether the line has been read.
    pub(crate) fn is_read(&self) -> bool {
        self.read.lock().map(|r| r.is_some()).unwrap_or(false)
    }

    /// The answer: as read already, else read now (a copy using it again,
    /// after a step back, reads it again).
    pub(super) fn answer(&self) -> Result<wire::Reply, ProtocolError> {
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
    fn used(&mut self, pos: usize, sharers: usize, budget: usize, name: &str) {
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
                log::warn!(
                    "policy '{}': its oldest answers are no longer kept ({} KiB of answers); \
                     stepping back before them asks the program again",
                    sanitize(name),
                    budget >> 10
                );
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
pub(crate) fn said(d: &Shared, pos: usize, key: u128, budget: usize, name: &str) -> Lookup {
    let sharers = Arc::strong_count(d);
    let mut g = lock(d);
    let found = g.lookup(pos, key);
    if matches!(found, Lookup::Said(_)) {
        g.used(pos, sharers, budget, name);
    }
    found
}

/// What an engine stands waiting for: a message for an external policy's
/// program, exchange `pos` of a dialogue. Data only: the driver answers it.
#[derive(Clone)]
pub struct Question {
    pub(crate) spec: Arc<Spec>,
    pub(crate) dialogue: Shared,
    pub(crate) pos: usize,
    pub(crate) key: u128,
    pub(crate) message: Arc<[u8]>,
    /// How long the program may take to answer (the engine's tuning).
    pub(crate) timeout: Duration,
}

impl Question {
    /// The message, one JSON object without its newline.
    pub fn message(&self) -> &[u8] {
        &self.message
    }
}

/// The same question: the same exchange of the same dialogue, the same message.
impl PartialEq for Question {
    fn eq(&self, other: &Question) -> bool {
        Arc::ptr_eq(&self.dialogue, &other.dialogue)
            && (self.pos, self.key) == (other.pos, other.key)
    }
}

impl std::fmt::Debug for Question {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "question {} to '{}'", self.pos, self.spec.name)
    }
}

/// How a question was answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// The program's answer line.
    Line(String),
    /// The program's answer, put in the dialogue already (by the driver).
    Recorded,
    /// The program failed (why); the dialogue is given up.
    Failed(String),
    /// The dialogue went another way meanwhile (another copy's message is
    /// the one out): the asking copy starts a dialogue of its own.
    Diverged,
}
