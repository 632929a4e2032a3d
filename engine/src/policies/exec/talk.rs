//! An external policy's books talking: one exchange of the dialogue for
//! a message, its answer read and checked against the engine now.

use super::books::ExecBooks;
use super::{wire, wire2};
use crate::ask::answer::Decision;
use crate::ask::dialogue::{self, Lookup, Said};
use crate::ask::{Question, Reply};
use crate::error::ProtocolError;
use crate::view::{Checked, NoAnswer, View};
use std::sync::Arc;
use tracetui_model::text::sanitize;
use tracetui_model::Secs;

/// An answer that passed its checks, and what the books keep of it.
pub(super) struct Decided {
    pub(super) checked: Checked,
    pub(super) wakeup: Option<Secs>,
    /// Its own count of deadlines kept, if it gave one (version 2).
    pub(super) own: Option<(u64, u64)>,
}

/// Why an exchange did not give an answer.
pub(super) enum Talk {
    /// This copy's messages are not the dialogue's: it starts its own.
    Diverged,
    Failed(String),
    /// The program is to answer: the engine stands at this question.
    Ask(Question),
}

impl ExecBooks {
    /// One exchange of the dialogue for the message `build` makes — not
    /// made again for the question just answered.
    fn talk_built(
        &mut self,
        e: &dyn View,
        build: impl FnOnce(&mut ExecBooks) -> Result<Vec<u8>, Talk>,
    ) -> Result<Arc<Said>, Talk> {
        if let Some((pos, key)) = self.answered.take().filter(|a| a.0 == self.pos) {
            if let Lookup::Said(line) =
                dialogue::said(&self.talk, pos, key, e.tuning(), self.spec.name())
            {
                self.pos += 1;
                return Ok(line);
            }
        }
        let msg = build(self)?;
        self.talk(msg, e)
    }

    /// One exchange of the dialogue: the answer it holds for this copy's
    /// message, else a question for the program.
    fn talk(&mut self, msg: Vec<u8>, e: &dyn View) -> Result<Arc<Said>, Talk> {
        let key = tracetui_model::text_key(&msg);
        match self.refused.take() {
            Some(Reply::Failed(why)) => return Err(Talk::Failed(why)),
            Some(Reply::Diverged) => return Err(Talk::Diverged),
            _ => {}
        }
        match dialogue::said(&self.talk, self.pos, key, e.tuning(), self.spec.name()) {
            Lookup::Said(line) => {
                self.pos += 1;
                Ok(line)
            }
            Lookup::Diverged => Err(Talk::Diverged),
            Lookup::Frontier => {
                self.asked = Some((self.pos, key));
                Err(Talk::Ask(Question {
                    program: self.spec.program.clone(),
                    dialogue: self.talk.clone(),
                    pos: self.pos,
                    key,
                    message: msg.into(),
                    timeout: e.tuning().policy_timeout,
                }))
            }
        }
    }

    /// Sends `msg` (built by `build`, after the snapshot if this copy has
    /// not sent it); a copy whose history left the dialogue's starts its
    /// own, from a snapshot of now.
    fn exchange_with(
        &mut self,
        e: &dyn View,
        build: impl Fn(&mut ExecBooks, &dyn View) -> Result<Vec<u8>, ProtocolError>,
    ) -> Result<Decision, NoAnswer> {
        let r = self.exchange_once(e, build);
        self.asking = matches!(r, Err(NoAnswer::Ask(_)));
        r
    }

    fn exchange_once(
        &mut self,
        e: &dyn View,
        build: impl Fn(&mut ExecBooks, &dyn View) -> Result<Vec<u8>, ProtocolError>,
    ) -> Result<Decision, NoAnswer> {
        for _ in 0..2 {
            match self.converse(e, &build) {
                Err(Talk::Diverged) => {
                    self.talk = Arc::default();
                    self.pos = 0;
                    // A snapshot of now comes first: in version 2, what
                    // arrived since the last message still comes after it.
                    if self.v2() {
                        let arrived = std::mem::take(&mut self.arrived);
                        self.early.extend(arrived);
                    }
                }
                Err(Talk::Failed(why)) => return Err(NoAnswer::Failed(why)),
                Err(Talk::Ask(q)) => return Err(NoAnswer::Ask(Box::new(q))),
                Ok(said) => return said.answer().map_err(|x| NoAnswer::Failed(x.to_string())),
            }
        }
        Err(NoAnswer::Failed(
            "could not start a dialogue of its own".into(),
        ))
    }

    fn converse(
        &mut self,
        e: &dyn View,
        build: &impl Fn(&mut ExecBooks, &dyn View) -> Result<Vec<u8>, ProtocolError>,
    ) -> Result<Arc<Said>, Talk> {
        if !self.live() {
            let line = self.talk_built(e, |b| {
                let keys = &b.keys;
                let key = |j| keys.get(&j).copied().unwrap_or(0);
                let early: rustc_hash::FxHashSet<u32> = b.early.iter().copied().collect();
                let start = wire::start(e, &b.spec.params, key, b.v2(), |j| early.contains(&j));
                serde_json::to_vec(&start).map_err(|x| Talk::Failed(x.to_string()))
            })?;
            if serde_json::from_str::<serde::de::IgnoredAny>(&line.line).is_err() {
                return Err(Talk::Failed(
                    ProtocolError::Start(line.line.clone()).to_string(),
                ));
            }
            // What happened before the snapshot is in it, but for the
            // jobs that arrived since the books were made (version 2).
            self.arrived.clear();
            self.events.clear();
            for j in std::mem::take(&mut self.early) {
                if e.job(j).phase == crate::job::Phase::Queued {
                    self.arrived.push(j);
                }
            }
        }
        self.talk_built(e, |b| build(b, e).map_err(|x| Talk::Failed(x.to_string())))
    }

    /// One scheduling point's exchange: the changes out, the answer back, checked.
    pub(super) fn exchange(&mut self, e: &dyn View) -> Result<Decided, NoAnswer> {
        let reply = self.exchange_with(e, |b, e| {
            let msg = wire::Schedule {
                kind: "schedule",
                time: e.now(),
                arrived: b
                    .arrived
                    .iter()
                    .map(|&j| wire::job_info(e, j, None, false, b.v2()))
                    .collect(),
                events: &b.events,
                wakeup: b.wakeup == Some(e.now()),
                coming: (b.spec.terms().lookahead > 0)
                    .then(|| wire2::coming(e, b.spec.terms().lookahead)),
            };
            serde_json::to_vec(&msg).map_err(|x| ProtocolError::Message(x.to_string()))
        })?;
        Ok(self.checked(e, reply)?)
    }

    /// Tells the policy what the pass just did; it may change keys and its wake-up.
    pub(super) fn passed(&mut self, e: &dyn View) -> Result<Decided, NoAnswer> {
        let reply = self.exchange_with(e, |b, e| {
            let msg = wire::Passed {
                kind: "passed",
                time: e.now(),
                events: &b.events,
            };
            serde_json::to_vec(&msg).map_err(|x| ProtocolError::Message(x.to_string()))
        })?;
        if reply.acts() {
            return Err(NoAnswer::Failed(ProtocolError::StartAfterPass.to_string()));
        }
        Ok(self.checked(e, reply)?)
    }

    /// A failure's reason, naming the policy and the scheduling point's time.
    pub(super) fn named(&self, n: NoAnswer, e: &dyn View) -> NoAnswer {
        match n {
            NoAnswer::Failed(why) => NoAnswer::Failed(format!(
                "policy '{}' at {} s: {why}",
                sanitize(self.spec.name()),
                e.now()
            )),
            later => later,
        }
    }

    /// A reply checked: a later wake-up (the protocol's own), then the
    /// answer against the engine now (`View::check`, the one check of keys,
    /// preemptions and starts).
    fn checked(&self, e: &dyn View, reply: Decision) -> Result<Decided, ProtocolError> {
        if let Some(field) = reply.v2_field().filter(|_| !self.v2()) {
            return Err(ProtocolError::NeedsV2(field));
        }
        // Held in --rounds' rounds, it is asked only at them: a wake-up it
        // planned for between them has passed, and is let go.
        let held = e.tuning().rounds_every && !self.spec.terms().own_rounds;
        if let Some(w) = reply.wakeup.filter(|&w| w <= e.now() && !held) {
            return Err(ProtocolError::WakeupPast(w));
        }
        // Far enough for any trace; later would overflow the clock.
        if let Some(w) = reply.wakeup.filter(|&w| w > Secs::MAX / 4) {
            return Err(ProtocolError::WakeupFar(w));
        }
        // A list naming far more jobs than the trace has names some twice
        // (or some that are not there): refused before it is turned into
        // the engine's terms, which would take as much memory again (a
        // short one is refused by the engine's check, naming the job).
        let jobs = e.trace().jobs.len();
        let far_more = |&(_, n): &(&str, usize)| n > jobs.saturating_add(1024);
        if let Some((field, n)) = reply.longest_list().filter(far_more) {
            return Err(ProtocolError::TooMany(field, n, jobs));
        }
        let wakeup = reply.wakeup.filter(|&w| w > e.now());
        let own = reply.deadline_admitted;
        let jobs = e.trace().jobs.len() as u64;
        if let Some((on_time, of)) = own.filter(|&(t, n)| t > n || n > jobs) {
            return Err(ProtocolError::OwnCount(on_time, of, jobs));
        }
        let answer = wire::answer(reply, |j| self.key(j));
        Ok(Decided {
            checked: e.check(&answer)?,
            wakeup,
            own,
        })
    }
}
