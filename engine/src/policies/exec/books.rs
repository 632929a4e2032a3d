//! One replay's external policy: `ExecBooks`, its place in the dialogue
//! with its program that an engine's copies share. It builds messages and
//! reads answers; it never talks to the program itself: at the frontier
//! it asks a `Question` and the engine stops until resumed with the reply.

use super::spec::Spec;
use super::talk::Decided;
use super::wire;
use crate::ask::dialogue::{self, Said, Shared};
use crate::ask::Reply;
use crate::rule::Books;
use crate::view::{Acts, Checked, NoAnswer, View};
use rustc_hash::FxHashMap;
use std::sync::Arc;
use tracetui_model::Secs;

/// One replay's external policy: its place in a dialogue (exchanges had,
/// the snapshot first), the keys it set, and what changed since it last
/// answered.
#[derive(Debug)]
pub(super) struct ExecBooks {
    pub(super) spec: Arc<Spec>,
    pub(super) talk: Shared,
    /// Exchanges this copy has had (0: the snapshot is not sent yet).
    pub(super) pos: usize,
    /// Events already there when the current pass began (a `passed`
    /// message goes out only if the pass itself added some).
    pub(super) pass_mark: usize,
    pub(super) keys: FxHashMap<u32, i64>,
    pub(super) wakeup: Option<Secs>,
    /// Its own count of deadlines kept, as it last gave it (version 2).
    pub(super) own: Option<(u64, u64)>,
    /// The books were made: a job joining from now on arrives.
    pub(super) made: bool,
    /// Version 2: jobs that arrived after the books were made and before
    /// the snapshot went out: they come as arrivals, not in the snapshot.
    pub(super) early: Vec<u32>,
    pub(super) arrived: Vec<u32>,
    pub(super) events: Vec<wire::Change>,
    /// A hook asked and waits for its answer: asked again, it decides as
    /// it did then (whatever it would skip now), so the message is the same.
    pub(super) asking: bool,
    /// The exchange and message key of the question out.
    pub(super) asked: Option<(usize, u128)>,
    /// The answer to it, if it was not a line: the next exchange says so.
    pub(super) refused: Option<Reply>,
    /// The exchange and key of the question just answered with a line:
    /// the hook asked again builds the same message (the engine stood
    /// still), so it is not built and serialised a second time.
    pub(super) answered: Option<(usize, u128)>,
}

impl std::fmt::Debug for Spec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
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
    pub(super) fn key(&self, job: u32) -> i64 {
        self.keys.get(&job).copied().unwrap_or(0)
    }

    /// The keys an accepted answer changed, kept as the protocol has them
    /// (read back from the engine's keys: the answer's own list is not
    /// copied — a policy may key millions of jobs).
    fn keep_keys(&mut self, checked: &Checked) {
        for &(j, _, k) in &checked.rekey {
            self.keys.insert(j, super::wire::protocol_key(k));
        }
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
    pub(super) fn v2(&self) -> bool {
        self.spec.terms().protocol >= 2
    }

    /// A job's work left now, for version 2's events (absent in version 1).
    pub(super) fn work_left(&self, e: &dyn View, job: u32) -> Option<Option<f64>> {
        self.v2().then(|| e.work_left(job))
    }

    /// Whether this copy has sent its snapshot (hooks record changes from then on).
    pub(super) fn live(&self) -> bool {
        self.pos > 0
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
            && (!self.spec.terms().notify || self.events.len() == self.pass_mark || !self.live())
        {
            return Ok(None);
        }
        let r = self.passed(e).map_err(|n| self.named(n, e))?;
        self.keep_keys(&r.checked);
        self.wakeup = r.wakeup;
        self.own = r.own.or(self.own);
        self.events.clear();
        Ok(Some(r.checked))
    }

    fn decide(&mut self, e: &dyn View) -> Result<Option<Checked>, NoAnswer> {
        if self.spec.terms().arrivals_only
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
            own,
        } = self.exchange(e).map_err(|n| self.named(n, e))?;
        self.keep_keys(&checked);
        self.wakeup = wakeup;
        self.own = own.or(self.own);
        self.arrived.clear();
        self.events.clear();
        self.pass_mark = 0;
        Ok(Some(checked))
    }
}
