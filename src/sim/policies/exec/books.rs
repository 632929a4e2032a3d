//! One replay's external policy: `ExecBooks`, its place in the dialogue
//! with its program that an engine's copies share. It builds messages and
//! reads answers; it never talks to the program itself: at the frontier
//! it asks a `Question` and the engine stops until resumed with the reply.

use super::dialogue::{self, Lookup, Question, Reply, Said, Shared};
use super::{wire, wire2, Spec};
use crate::sim::error::ProtocolError;
use crate::sim::policy::Books;
use crate::sim::view::{Acts, Checked, NoAnswer, View};
use crate::text::sanitize;
use crate::trace::model::Secs;
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// An answer that passed its checks, and what the books keep of it.
struct Decided {
    checked: Checked,
    wakeup: Option<Secs>,
    keys: Vec<(u32, i64)>,
    /// Its own count of deadlines kept, if it gave one (version 2).
    own: Option<(u64, u64)>,
}

/// Why an exchange did not give an answer.
enum Talk {
    /// This copy's messages are not the dialogue's: it starts its own.
    Diverged,
    Failed(String),
    /// The program is to answer: the engine stands at this question.
    Ask(Question),
}

/// One replay's external policy: its place in a dialogue (exchanges had,
/// the snapshot first), the keys it set, and what changed since it last
/// answered.
#[derive(Debug)]
pub(super) struct ExecBooks {
    spec: Arc<Spec>,
    talk: Shared,
    /// Exchanges this copy has had (0: the snapshot is not sent yet).
    pos: usize,
    /// Events already there when the current pass began (a `passed`
    /// message goes out only if the pass itself added some).
    pass_mark: usize,
    keys: FxHashMap<u32, i64>,
    wakeup: Option<Secs>,
    /// Its own count of deadlines kept, as it last gave it (version 2).
    own: Option<(u64, u64)>,
    /// The books were made: a job joining from now on arrives.
    made: bool,
    /// Version 2: jobs that arrived after the books were made and before
    /// the snapshot went out: they come as arrivals, not in the snapshot.
    early: Vec<u32>,
    arrived: Vec<u32>,
    events: Vec<wire::Change>,
    /// A hook asked and waits for its answer: asked again, it decides as
    /// it did then (whatever it would skip now), so the message is the same.
    asking: bool,
    /// The exchange and message key of the question out.
    asked: Option<(usize, u128)>,
    /// The answer to it, if it was not a line: the next exchange says so.
    refused: Option<Reply>,
    /// The exchange and key of the question just answered with a line:
    /// the hook asked again builds the same message (the engine stood
    /// still), so it is not built and serialised a second time.
    answered: Option<(usize, u128)>,
}

impl std::fmt::Debug for Spec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}

impl ExecBooks {
    pub(super) fn new(spec: Arc<Spec>) -> ExecBooks {
        ExecBooks {
            spec,
            talk: Arc::default(),
            pos: 0,
            pass_mark: 0,
            keys: FxHashMap::default(),
            wakeup: None,
            own: None,
            made: false,
            early: Vec::new(),
            arrived: Vec::new(),
            events: Vec::new(),
            asking: false,
            asked: None,
            refused: None,
            answered: None,
        }
    }

    /// The key the policy gave `job` (0 if none), as the protocol has it.
    fn key(&self, job: u32) -> i64 {
        self.keys.get(&job).copied().unwrap_or(0)
    }

    /// `job` is gone for good (`change` says how): told at the next
    /// message, and its key forgotten.
    fn gone(&mut self, job: u32, change: wire::Change) {
        if self.live() {
            self.events.push(change);
        }
        self.keys.remove(&job);
    }

    /// Whether it speaks version 2.
    fn v2(&self) -> bool {
        self.spec.protocol >= 2
    }

    /// A job's work left now, for version 2's events (absent in version 1).
    fn work_left(&self, e: &dyn View, job: u32) -> Option<Option<f64>> {
        self.v2().then(|| e.work_left(job))
    }

    /// Whether this copy has sent its snapshot (hooks record changes from then on).
    fn live(&self) -> bool {
        self.pos > 0
    }

    /// One exchange of the dialogue for the message `build` makes — not
    /// made again for the question just answered.
    fn talk_built(
        &mut self,
        e: &dyn View,
        build: impl FnOnce(&mut ExecBooks) -> Result<Vec<u8>, Talk>,
    ) -> Result<Arc<Said>, Talk> {
        if let Some((pos, key)) = self.answered.take().filter(|a| a.0 == self.pos) {
            if let Lookup::Said(line) = dialogue::said(
                &self.talk,
                pos,
                key,
                e.tuning().answer_budget,
                &self.spec.name,
            ) {
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
        let key = crate::trace::texts::key(&msg);
        match self.refused.take() {
            Some(Reply::Failed(why)) => return Err(Talk::Failed(why)),
            Some(Reply::Diverged) => return Err(Talk::Diverged),
            _ => {}
        }
        let budget = e.tuning().answer_budget;
        match dialogue::said(&self.talk, self.pos, key, budget, &self.spec.name) {
            Lookup::Said(line) => {
                self.pos += 1;
                Ok(line)
            }
            Lookup::Diverged => Err(Talk::Diverged),
            Lookup::Frontier => {
                self.asked = Some((self.pos, key));
                Err(Talk::Ask(Question {
                    spec: self.spec.clone(),
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
    ) -> Result<wire::Reply, NoAnswer> {
        let r = self.exchange_once(e, build);
        self.asking = matches!(r, Err(NoAnswer::Ask(_)));
        r
    }

    fn exchange_once(
        &mut self,
        e: &dyn View,
        build: impl Fn(&mut ExecBooks, &dyn View) -> Result<Vec<u8>, ProtocolError>,
    ) -> Result<wire::Reply, NoAnswer> {
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
                if e.job(j).phase == crate::sim::Phase::Queued {
                    self.arrived.push(j);
                }
            }
        }
        self.talk_built(e, |b| build(b, e).map_err(|x| Talk::Failed(x.to_string())))
    }

    /// One scheduling point's exchange: the changes out, the answer back, checked.
    fn exchange(&mut self, e: &dyn View) -> Result<Decided, NoAnswer> {
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
                coming: (b.spec.lookahead > 0).then(|| wire2::coming(e, b.spec.lookahead)),
            };
            serde_json::to_vec(&msg).map_err(|x| ProtocolError::Message(x.to_string()))
        })?;
        Ok(self.checked(e, reply)?)
    }

    /// Tells the policy what the pass just did; it may change keys and its wake-up.
    fn passed(&mut self, e: &dyn View) -> Result<Decided, NoAnswer> {
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
    fn named(&self, n: NoAnswer, e: &dyn View) -> NoAnswer {
        match n {
            NoAnswer::Failed(why) => NoAnswer::Failed(format!(
                "policy '{}' at {} s: {why}",
                sanitize(&self.spec.name),
                e.now()
            )),
            later => later,
        }
    }

    /// A reply checked: a later wake-up (the protocol's own), then the
    /// answer against the engine now (`View::check`, the one check of keys,
    /// preemptions and starts).
    fn checked(&self, e: &dyn View, reply: wire::Reply) -> Result<Decided, ProtocolError> {
        if let Some(field) = reply.v2_field().filter(|_| !self.v2()) {
            return Err(ProtocolError::NeedsV2(field));
        }
        if let Some(w) = reply.wakeup.filter(|&w| w <= e.now()) {
            return Err(ProtocolError::WakeupPast(w));
        }
        // Far enough for any trace; later would overflow the clock.
        if let Some(w) = reply.wakeup.filter(|&w| w > Secs::MAX / 4) {
            return Err(ProtocolError::WakeupFar(w));
        }
        let wakeup = reply.wakeup;
        let keys = reply.priority.clone();
        let own = reply.deadline_admitted;
        let answer = reply.answer(|j| self.key(j));
        Ok(Decided {
            checked: e.check(&answer)?,
            wakeup,
            keys,
            own,
        })
    }
}

impl Books for ExecBooks {
    /// A copy going its own way (a what-if row): a dialogue of its own,
    /// with a process of its own, from a snapshot of its state.
    fn fork_box(&self) -> Box<dyn Books> {
        let mut b = ExecBooks::new(self.spec.clone());
        b.keys = self.keys.clone();
        b.wakeup = self.wakeup;
        b.own = self.own;
        b.made = self.made;
        // Its own snapshot is of now: in version 2, what arrived since the
        // last message comes as arrivals after it, as here.
        b.early = match self.live() {
            true if self.v2() => self.arrived.clone(),
            true => Vec::new(),
            false => self.early.clone(),
        };
        Box::new(b)
    }

    /// A copy (a checkpoint) shares the dialogue: it replays the answers
    /// while its messages are the ones answered, asks the program at the
    /// frontier, and starts its own dialogue if its history leaves this one.
    fn clone_box(&self) -> Box<dyn Books> {
        Box::new(ExecBooks {
            spec: self.spec.clone(),
            talk: self.talk.clone(),
            pos: self.pos,
            pass_mark: self.pass_mark,
            keys: self.keys.clone(),
            wakeup: self.wakeup,
            own: self.own,
            made: self.made,
            early: self.early.clone(),
            arrived: self.arrived.clone(),
            events: self.events.clone(),
            asking: self.asking,
            asked: self.asked,
            refused: self.refused.clone(),
            // A copy builds its own messages.
            answered: None,
        })
    }

    /// The reply to the question out: a line goes into the dialogue (where
    /// the asking hook, asked again, finds it); a failure or a dialogue
    /// gone its own way is what that hook's exchange then says.
    fn answered(&mut self, reply: Reply) {
        let Some((pos, key)) = self.asked.take() else {
            return;
        };
        match reply {
            Reply::Line(line) => {
                dialogue::lock(&self.talk).record(pos, key, Said::new(line));
                self.answered = Some((pos, key));
            }
            // The driver put it in the dialogue.
            Reply::Recorded => self.answered = Some((pos, key)),
            other => self.refused = Some(other),
        }
    }

    fn queued_key(&self, _e: &dyn View, job: u32) -> u64 {
        wire::engine_key(self.key(job))
    }

    fn made(&mut self) {
        self.made = true;
    }

    fn joined(&mut self, _e: &dyn View, _acts: &mut Acts<'_>, job: u32) {
        if self.live() {
            self.arrived.push(job);
        } else if self.made && self.v2() {
            self.early.push(job);
        }
    }

    fn left(&mut self, e: &dyn View, _acts: &mut Acts<'_>, job: u32) {
        self.gone(job, wire::Change::Finished { job, at: e.now() });
    }

    fn started(&mut self, e: &dyn View, _acts: &mut Acts<'_>, job: u32, _milli: u64) {
        if self.live() {
            let g = e.held(job).map(wire::gpus).unwrap_or_default();
            self.events.push(wire::Change::Started {
                job,
                at: e.now(),
                gpus: g,
                work_left: self.work_left(e, job),
                overhead: self.v2().then(|| e.resume(job).overhead),
            });
        }
    }

    fn resized(&mut self, e: &dyn View, acts: &mut Acts<'_>, job: u32, from: u32, milli: u64) {
        if !self.v2() {
            return self.started(e, acts, job, milli);
        }
        if self.live() {
            self.events.push(wire::Change::Resized {
                job,
                at: e.now(),
                from,
                gpus: e.held(job).map(wire::gpus).unwrap_or_default(),
                work_left: e.work_left(job),
                overhead: e.resume(job).overhead,
            });
        }
    }

    fn dropped(&mut self, e: &dyn View, acts: &mut Acts<'_>, job: u32) {
        if !self.v2() {
            return self.left(e, acts, job);
        }
        self.gone(job, wire::Change::Dropped { job, at: e.now() });
    }

    fn hold_ended(&mut self, e: &dyn View, job: u32) {
        self.gone(job, wire::Change::Finished { job, at: e.now() });
    }

    fn preempted(&mut self, e: &dyn View, job: u32) {
        if self.live() {
            let work_left = self.work_left(e, job);
            self.events.push(wire::Change::Preempted {
                job,
                at: e.now(),
                work_left,
            });
        }
    }

    fn next_wakeup(&self) -> Option<Secs> {
        self.wakeup
    }

    fn own_deadline_count(&self) -> Option<(u64, u64)> {
        self.own
    }

    fn wake(&mut self, _e: &dyn View, _acts: &mut Acts<'_>, t: Secs) -> bool {
        self.wakeup == Some(t)
    }

    fn after_pass(&mut self, e: &dyn View) -> Result<Option<Checked>, NoAnswer> {
        if !self.asking
            && (!self.spec.notify || self.events.len() == self.pass_mark || !self.live())
        {
            return Ok(None);
        }
        let r = self.passed(e).map_err(|n| self.named(n, e))?;
        for (j, k) in r.keys {
            self.keys.insert(j, k);
        }
        self.wakeup = r.wakeup;
        self.own = r.own.or(self.own);
        self.events.clear();
        Ok(Some(r.checked))
    }

    fn decide(&mut self, e: &dyn View) -> Result<Option<Checked>, NoAnswer> {
        if self.spec.arrivals_only
            && !self.asking
            && self.live()
            && self.arrived.is_empty()
            && self.wakeup != Some(e.now())
        {
            // Not a point it asked for: its events go with the next message.
            self.pass_mark = self.events.len();
            return Ok(None);
        }
        let Decided {
            checked,
            wakeup,
            keys,
            own,
        } = self.exchange(e).map_err(|n| self.named(n, e))?;
        for (j, k) in keys {
            self.keys.insert(j, k);
        }
        self.wakeup = wakeup;
        self.own = own.or(self.own);
        self.arrived.clear();
        self.events.clear();
        self.pass_mark = 0;
        Ok(Some(checked))
    }
}
