//! Runs that go on through questions: an engine or a replay taken to a
//! time or to the end, each question it stands at answered by `answers`
//! (the driver, for policies that are programs; [`NoPrograms`] where none
//! is).
//!
//! [`NoPrograms`]: super::ask::NoPrograms

use super::ask::{Answers, Question, Reply};
use super::engine::Engine;
use super::replay::Replay;
use tracetui_model::Secs;

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

/// Answers `a`'s questions as they come until it stands at none.
pub(crate) fn settle(a: &mut impl Asks, answers: &dyn Answers) {
    settle_with(a, |q| Some(answers.reply(q)));
}

/// Answers `a`'s questions with `reply` until it stands at none (true) or
/// `reply` gives none (false: the question stays, asked again later).
pub fn settle_with(a: &mut impl Asks, mut reply: impl FnMut(&Question) -> Option<Reply>) -> bool {
    while let Some(q) = a.question() {
        let q = q.clone();
        let Some(r) = reply(&q) else {
            return false;
        };
        // The question's hold on the dialogue goes before the engine goes on.
        drop(q);
        a.answer(r);
    }
    true
}

/// Runs `e` to the end, answering its questions as they come.
pub fn run_to_end(e: &mut Engine, answers: &dyn Answers) {
    loop {
        e.run_to_end();
        if e.question().is_none() {
            return;
        }
        settle(e, answers);
    }
}

/// Processes every instant of `e` up to `t`, answering its questions.
pub fn advance_to(e: &mut Engine, t: Secs, answers: &dyn Answers) {
    loop {
        e.advance_to(t);
        if e.question().is_none() {
            return;
        }
        settle(e, answers);
    }
}

/// Takes `r` to `t`, answering its questions as they come.
pub fn seek(r: &mut Replay, t: Secs, answers: &dyn Answers) {
    r.seek(t);
    settle(r, answers);
}
