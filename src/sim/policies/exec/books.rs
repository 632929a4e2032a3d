//! One replay's external policy: `ExecBooks` and the conversation with
//! its program that an engine's copies share.

use super::child::Child;
use super::{excerpt, hello, timeout, wire, Spec};
use crate::sim::engine::{Checked, Engine};
use crate::sim::policy::Books;
use crate::trace::input::sanitize;
use crate::trace::model::Secs;
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// An answer that passed its checks, and what the books keep of it.
struct Decided {
    checked: Checked,
    wakeup: Option<Secs>,
    keys: Vec<(u32, i64)>,
}

/// One conversation with one process: the process (started at the first
/// message that needs it) and the answers it gave, each with a key of the
/// message it answered. An engine's copies (checkpoints, forks) share it:
/// while their messages are the ones already answered they replay the
/// answers, so stepping back re-simulates exactly what happened whether or
/// not the program is deterministic; at the frontier they ask the process.
#[derive(Default)]
struct Conversation {
    child: Option<Child>,
    /// Answers from exchange `base` on (older ones no copy can still need).
    said: std::collections::VecDeque<(u128, String)>,
    base: usize,
}

/// Why an exchange did not give an answer.
enum Talk {
    /// This copy's messages are not the conversation's: it starts its own.
    Diverged,
    Failed(String),
}

/// One replay's external policy: its place in a conversation (exchanges
/// had, the snapshot first), the keys it set, and what changed since it
/// last answered.
#[derive(Debug)]
pub(super) struct ExecBooks {
    spec: Arc<Spec>,
    talk: Arc<std::sync::Mutex<Conversation>>,
    /// Exchanges this copy has had (0: the snapshot is not sent yet).
    pos: usize,
    /// Events already there when the current pass began (a `passed`
    /// message goes out only if the pass itself added some).
    pass_mark: usize,
    keys: FxHashMap<u32, i64>,
    wakeup: Option<Secs>,
    arrived: Vec<u32>,
    events: Vec<wire::Change>,
}

impl std::fmt::Debug for Spec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}

impl std::fmt::Debug for Conversation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "policy conversation ({} answers kept)", self.said.len())
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
            arrived: Vec::new(),
            events: Vec::new(),
        }
    }

    /// The key the policy gave `job` (0 if none), as the protocol has it.
    fn key(&self, job: u32) -> i64 {
        self.keys.get(&job).copied().unwrap_or(0)
    }

    /// Whether this copy has sent its snapshot (hooks record changes from then on).
    fn live(&self) -> bool {
        self.pos > 0
    }

    /// One exchange of the conversation: the recorded answer if this copy's
    /// message is the one answered there, else the process's.
    fn talk(&mut self, msg: &[u8]) -> Result<String, Talk> {
        let key = crate::trace::texts::key(msg);
        let sharers = Arc::strong_count(&self.talk);
        let mut c = self.talk.lock().unwrap_or_else(|p| p.into_inner());
        if self.pos < c.base {
            return Err(Talk::Diverged);
        }
        if let Some((k, line)) = c.said.get(self.pos - c.base) {
            if *k != key {
                return Err(Talk::Diverged);
            }
            let line = line.clone();
            drop(c);
            self.pos += 1;
            return Ok(line);
        }
        if self.pos != c.base + c.said.len() {
            return Err(Talk::Diverged);
        }
        if c.child.is_none() {
            c.child = Some(self.spawn().map_err(Talk::Failed)?);
        }
        let child = c.child.as_mut().expect("started above");
        let line = match child.ask(msg, timeout()) {
            Ok(line) => line,
            Err(why) => {
                // The process is out of step (a late answer may still come):
                // no copy may use it or its answers again.
                c.child = None;
                c.said.clear();
                c.base = usize::MAX;
                return Err(Talk::Failed(why));
            }
        };
        if sharers > 1 {
            c.said.push_back((key, line.clone()));
        } else {
            // No copy could replay it: keep nothing.
            c.base += c.said.len() + 1;
            c.said.clear();
        }
        drop(c);
        self.pos += 1;
        Ok(line)
    }

    /// The program, started and greeted, saying what it said when probed.
    fn spawn(&self) -> Result<Child, String> {
        let mut c = Child::spawn(&self.spec.cmd, &self.spec.name)?;
        let h = hello(&mut c, &self.spec.cmd)?;
        if (h.walk, h.notify, h.arrivals_only)
            != (self.spec.walk, self.spec.notify, self.spec.arrivals_only)
        {
            return Err(format!(
                "said walk {} (notify {}) when first asked and {} (notify {}) now",
                self.spec.walk.name(),
                self.spec.notify,
                h.walk.name(),
                h.notify
            ));
        }
        Ok(c)
    }

    /// Sends `msg` (built by `build`, after the snapshot if this copy has
    /// not sent it); a copy whose history left the conversation's starts
    /// its own, from a snapshot of now.
    fn exchange_with(
        &mut self,
        e: &Engine,
        build: impl Fn(&mut ExecBooks, &Engine) -> Result<Vec<u8>, String>,
    ) -> Result<wire::Reply, String> {
        for _ in 0..2 {
            match self.converse(e, &build) {
                Err(Talk::Diverged) => {
                    self.talk = Arc::default();
                    self.pos = 0;
                }
                Err(Talk::Failed(why)) => return Err(why),
                Ok(line) => {
                    return serde_json::from_str(&line)
                        .map_err(|x| format!("malformed answer ({x}): {}", excerpt(&line)))
                }
            }
        }
        Err("could not start a conversation of its own".into())
    }

    fn converse(
        &mut self,
        e: &Engine,
        build: &impl Fn(&mut ExecBooks, &Engine) -> Result<Vec<u8>, String>,
    ) -> Result<String, Talk> {
        if !self.live() {
            let keys = &self.keys;
            let start = wire::start(e, |j| keys.get(&j).copied().unwrap_or(0));
            let msg = serde_json::to_vec(&start).map_err(|x| Talk::Failed(x.to_string()))?;
            let line = self.talk(&msg)?;
            if serde_json::from_str::<serde::de::IgnoredAny>(&line).is_err() {
                return Err(Talk::Failed(format!(
                    "malformed answer to start: {}",
                    excerpt(&line)
                )));
            }
            // What happened before the snapshot is in it.
            self.arrived.clear();
            self.events.clear();
        }
        let msg = build(self, e).map_err(Talk::Failed)?;
        self.talk(&msg)
    }

    /// One scheduling point's exchange: the changes out, the answer back, checked.
    fn exchange(&mut self, e: &Engine) -> Result<Decided, String> {
        let reply = self.exchange_with(e, |b, e| {
            let msg = wire::Schedule {
                kind: "schedule",
                time: e.now(),
                arrived: b
                    .arrived
                    .iter()
                    .map(|&j| wire::job_info(e, j, None, false))
                    .collect(),
                events: &b.events,
                wakeup: b.wakeup == Some(e.now()),
            };
            serde_json::to_vec(&msg).map_err(|x| x.to_string())
        })?;
        self.checked(e, reply)
    }

    /// Tells the policy what the pass just did; it may change keys and its wake-up.
    fn passed(&mut self, e: &Engine) -> Result<Decided, String> {
        let reply = self.exchange_with(e, |b, e| {
            let msg = wire::Passed {
                kind: "passed",
                time: e.now(),
                events: &b.events,
            };
            serde_json::to_vec(&msg).map_err(|x| x.to_string())
        })?;
        if !reply.start.is_empty() || !reply.preempt.is_empty() {
            return Err("answered 'passed' with starts or preemptions: only priority and wakeup may follow a pass".into());
        }
        self.checked(e, reply)
    }

    /// A reply checked against the engine now: keys (each job once), a
    /// later wake-up, actions that apply.
    fn checked(&self, e: &Engine, reply: wire::Reply) -> Result<Decided, String> {
        if let Some(w) = reply.wakeup.filter(|&w| w <= e.now()) {
            return Err(format!("asked to wake up at {w}, not after now"));
        }
        // Far enough for any trace; later would overflow the clock.
        if let Some(w) = reply.wakeup.filter(|&w| w > Secs::MAX / 4) {
            return Err(format!("asked to wake up at {w}, beyond any trace's time"));
        }
        let wakeup = reply.wakeup;
        let mut seen = rustc_hash::FxHashSet::default();
        if let Some(&(j, _)) = reply.priority.iter().find(|(j, _)| !seen.insert(*j)) {
            return Err(format!("priority for job {j} twice"));
        }
        // Every key names a job waiting or running, changed or not.
        let n = e.trace().jobs.len() as u32;
        for &(j, _) in &reply.priority {
            if j >= n {
                return Err(format!(
                    "priority for job {j}, which is not in the trace ({n} jobs)"
                ));
            }
            let p = e.job_state(j).phase;
            if p != crate::sim::Phase::Queued && p != crate::sim::Phase::Running {
                return Err(format!(
                    "priority for job {j}, which is {p:?}, not waiting or running"
                ));
            }
        }
        let keys = reply.priority.clone();
        let answer = reply.answer(|j| self.key(j));
        Ok(Decided {
            checked: e.policy_check(&answer)?,
            wakeup,
            keys,
        })
    }
}

impl Books for ExecBooks {
    /// A copy (a checkpoint, a fork) shares the conversation: it replays the
    /// answers while its messages are the ones answered, asks the process at
    /// the frontier, and starts its own conversation if its history leaves
    /// this one.
    fn clone_box(&self) -> Box<dyn Books> {
        Box::new(ExecBooks {
            spec: self.spec.clone(),
            talk: self.talk.clone(),
            pos: self.pos,
            pass_mark: self.pass_mark,
            keys: self.keys.clone(),
            wakeup: self.wakeup,
            arrived: self.arrived.clone(),
            events: self.events.clone(),
        })
    }

    fn queued_key(&self, _e: &Engine, job: u32) -> u64 {
        wire::engine_key(self.key(job))
    }

    fn joined(&mut self, _e: &mut Engine, job: u32) {
        if self.live() {
            self.arrived.push(job);
        }
    }

    fn left(&mut self, e: &mut Engine, job: u32) {
        if self.live() {
            self.events
                .push(wire::Change::Finished { job, at: e.now() });
        }
        self.keys.remove(&job);
    }

    fn started(&mut self, e: &mut Engine, job: u32, _milli: u64) {
        if self.live() {
            let g = e
                .running()
                .get(&job)
                .map(|g| wire::gpus(g))
                .unwrap_or_default();
            self.events.push(wire::Change::Started {
                job,
                at: e.now(),
                gpus: g,
            });
        }
    }

    fn hold_ended(&mut self, e: &Engine, job: u32) {
        if self.live() {
            self.events
                .push(wire::Change::Finished { job, at: e.now() });
        }
        self.keys.remove(&job);
    }

    fn preempted(&mut self, e: &Engine, job: u32) {
        if self.live() {
            self.events
                .push(wire::Change::Preempted { job, at: e.now() });
        }
    }

    fn next_wakeup(&self) -> Option<Secs> {
        self.wakeup
    }

    fn wake(&mut self, _e: &mut Engine, t: Secs) -> bool {
        self.wakeup == Some(t)
    }

    fn after_pass(&mut self, e: &Engine) -> Result<Option<Checked>, String> {
        if !self.spec.notify || self.events.len() == self.pass_mark || !self.live() {
            return Ok(None);
        }
        let r = self.passed(e).map_err(|why| {
            format!(
                "policy '{}' at {} s: {why}",
                sanitize(&self.spec.name),
                e.now()
            )
        })?;
        for (j, k) in r.keys {
            self.keys.insert(j, k);
        }
        self.wakeup = r.wakeup;
        self.events.clear();
        Ok(Some(r.checked))
    }

    fn decide(&mut self, e: &Engine) -> Result<Option<Checked>, String> {
        if self.spec.arrivals_only
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
        } = self.exchange(e).map_err(|why| {
            format!(
                "policy '{}' at {} s: {why}",
                sanitize(&self.spec.name),
                e.now()
            )
        })?;
        for (j, k) in keys {
            self.keys.insert(j, k);
        }
        self.wakeup = wakeup;
        self.arrived.clear();
        self.events.clear();
        self.pass_mark = 0;
        Ok(Some(checked))
    }
}
