//! The seam between the engine and policy programs: data only. An engine
//! whose policy's answer is a program's to give stops at a [`Question`]
//! (which dialogue, which exchange, the message, who to ask) and is resumed
//! with a [`Reply`]. Whoever answers (the driver, with processes, pipes and
//! a clock) does it through the question's methods; the engine holds no
//! process, pipe or clock. The answers a dialogue got are kept here so an
//! engine's copies replay them ([`dialogue`]); the hello and the fields of
//! an answer are read here too ([`hello`], [`answer`]).

pub(crate) mod answer;
pub(crate) mod dialogue;
pub(crate) mod hello;

pub use dialogue::Said;
use dialogue::{lock, Dialogue, Lookup, Shared};
use hello::Terms;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

/// Who a question is for: a policy program, as the probe heard it.
#[derive(Debug)]
pub(crate) struct Program {
    /// `exec:CMD[k=v,…]`, the policy's name.
    pub(crate) name: String,
    /// The command that starts it.
    pub(crate) cmd: String,
    /// The name it is shown by.
    pub(crate) label: String,
    /// What its hello said; every process of it must say the same.
    pub(crate) terms: Terms,
}

/// What an engine stands waiting for: a message for an external policy's
/// program, exchange `pos` of a dialogue. Data only: the driver answers it.
#[derive(Clone)]
pub struct Question {
    pub(crate) program: Arc<Program>,
    pub(crate) dialogue: Shared,
    pub(crate) pos: usize,
    pub(crate) key: u128,
    pub(crate) message: Arc<[u8]>,
    /// How long the program may take to answer (the engine's tuning).
    pub(crate) timeout: Duration,
}

/// A dialogue's identity while it lives: the driver keeps a process per dialogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DialogueId(usize);

/// A dialogue as the driver watches it: whether some copy of an engine may
/// still ask in it (else its process may end).
#[derive(Debug, Clone)]
pub struct Watch(Weak<Mutex<Dialogue>>);

impl Watch {
    /// Whether `q` is a question of this very dialogue (not of one made
    /// since where it was).
    pub fn is_of(&self, q: &Question) -> bool {
        self.0
            .upgrade()
            .is_some_and(|d| Arc::ptr_eq(&d, &q.dialogue))
    }

    /// Whether an engine may still ask in it.
    pub fn alive(&self) -> bool {
        self.0.strong_count() > 0
    }
}

/// What the dialogue holds for a question's exchange.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Known {
    /// Answered already (by another copy's asking).
    Answered,
    /// Another message was answered there, or the dialogue was given up.
    Diverged,
    /// Nothing yet: the program is to answer it.
    Open,
}

impl Question {
    /// The message, one JSON object without its newline.
    pub fn message(&self) -> &[u8] {
        &self.message
    }

    /// The command that starts the program.
    pub fn command(&self) -> &str {
        &self.program.cmd
    }

    /// The name the program is shown by.
    pub fn label(&self) -> &str {
        &self.program.label
    }

    /// How long the program may take to answer.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The exchange it is (its place in the dialogue, and its message's key).
    pub fn exchange(&self) -> (usize, u128) {
        (self.pos, self.key)
    }

    /// The dialogue it belongs to.
    pub fn dialogue(&self) -> DialogueId {
        DialogueId(Arc::as_ptr(&self.dialogue) as *const () as usize)
    }

    /// Its dialogue, watched without keeping it alive.
    pub fn watch(&self) -> Watch {
        Watch(Arc::downgrade(&self.dialogue))
    }

    /// What its dialogue holds for it now.
    pub fn known(&self) -> Known {
        match lock(&self.dialogue).lookup(self.pos, self.key) {
            Lookup::Said(_) => Known::Answered,
            Lookup::Diverged => Known::Diverged,
            Lookup::Frontier => Known::Open,
        }
    }

    /// Puts the program's answer to exchange `at` of this question's
    /// dialogue (this question's, or one asked before it) in the dialogue.
    pub fn record(&self, at: (usize, u128), said: Arc<Said>) {
        lock(&self.dialogue).record(at.0, at.1, said);
    }

    /// No copy may use the dialogue (or its process) again: its program
    /// failed, and a late answer may still come.
    pub fn give_up(&self) {
        lock(&self.dialogue).give_up();
    }

    /// The hello a new process of the program is sent first.
    pub fn hello(&self) -> Result<Vec<u8>, crate::error::ProtocolError> {
        hello::message(&self.program.cmd)
    }

    /// Checks a new process's answer to the hello: it must say what the
    /// program said when the policy was named.
    pub fn check_hello(&self, line: &str) -> Result<(), crate::error::ProtocolError> {
        hello::check(&self.program.terms, &self.program.cmd, line)
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
        write!(f, "question {} to '{}'", self.pos, self.program.name)
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

/// Whoever answers an engine's questions, waiting as long as it takes (up
/// to each question's timeout): the driver, for runs that go to an end.
pub trait Answers: Sync {
    /// The reply to `q`, waiting for it (a program that does not answer
    /// within the question's timeout has failed).
    fn reply(&self, q: &Question) -> Reply;
}

/// Answers for runs whose policies ask nothing (every built-in): a
/// question, should one come, fails, and the engine falls back.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoPrograms;

impl Answers for NoPrograms {
    fn reply(&self, q: &Question) -> Reply {
        Reply::Failed(format!(
            "'{}' is a program, and nothing here starts programs",
            tracetui_model::text::sanitize(&q.program.name)
        ))
    }
}
