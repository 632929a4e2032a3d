//! The driver: the one place an engine's external policies are talked to.
//! An engine never waits: at a scheduling point whose answer is an external
//! program's, it stops at a [`Question`] (data) and is resumed with the
//! [`Reply`]. Here are the processes, pipes, deadlines and the wall clock:
//! the probe when a policy is named, the answer to a question (by a
//! deadline, or up to the policy's timeout), and the loops that run an
//! engine or a replay answering as they go — used by `sim`, `compare`,
//! schedules and what-if rows, and by the replay's runner (`ui::effects`),
//! which gives each answer until shortly before the next frame.

mod child;
mod error;
mod link;
mod probe;
mod stderr;

use crate::sim::policies::exec::{Question, Reply};
use crate::sim::replay::Replay;
use crate::sim::Engine;
use crate::trace::model::Secs;
use std::time::Instant;

pub use error::PolicyError;
pub use probe::{register, register_all, register_all_named, register_spec, ExecSpec};

/// The answer to `q`, if it comes by `by` (None: up to its timeout; a
/// program that does not answer within it has failed). Not answered by
/// `by`, the message stays out: asked again, the same question waits on.
pub fn ask(q: &Question, by: Option<Instant>) -> Option<Reply> {
    link::ask(q, by)
}

/// Something that may stand waiting for an external policy's answer.
pub trait Asks {
    /// The question it stands at, if any.
    fn question(&self) -> Option<&Question>;
    /// Resumes it with the reply to its question.
    fn answer(&mut self, reply: Reply);
}

impl Asks for Engine {
    fn question(&self) -> Option<&Question> {
        Engine::question(self)
    }

    fn answer(&mut self, reply: Reply) {
        Engine::answer(self, reply)
    }
}

impl Asks for Replay {
    fn question(&self) -> Option<&Question> {
        Replay::question(self)
    }

    fn answer(&mut self, reply: Reply) {
        Replay::answer(self, reply)
    }
}

/// Answers `a`'s questions as they come until it stands at none (true) or
/// one is not answered by `by` (false; None waits up to each timeout).
pub fn settle(a: &mut impl Asks, by: Option<Instant>) -> bool {
    while let Some(q) = a.question() {
        let q = q.clone();
        let Some(reply) = ask(&q, by) else {
            return false;
        };
        // The question's hold on the dialogue goes before the engine goes on.
        drop(q);
        a.answer(reply);
    }
    true
}

/// Runs `e` to the end, answering its questions as they come.
pub fn run_to_end(e: &mut Engine) {
    loop {
        e.run_to_end();
        if e.question().is_none() {
            return;
        }
        settle(e, None);
    }
}

/// Processes every instant of `e` up to `t`, answering its questions.
pub fn advance_to(e: &mut Engine, t: Secs) {
    loop {
        e.advance_to(t);
        if e.question().is_none() {
            return;
        }
        settle(e, None);
    }
}

/// Takes `r` to `t`, answering its questions as they come.
pub fn seek(r: &mut Replay, t: Secs) {
    r.seek(t);
    settle(r, None);
}
