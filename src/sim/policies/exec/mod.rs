//! `exec:CMD`: any program as a policy. The program speaks the policy
//! protocol (docs/policy-protocol.md) on its stdin and stdout; tracetui
//! asks it once who it is when the policy is named (the probe), then runs
//! one process per replay that uses it, started at its first scheduling
//! point with a snapshot of the state, so a live switch, a what-if fork or
//! a copy of an engine each get their own.

mod child;
mod wire;

use super::super::engine::{Checked, Engine};
use super::super::policy::{Books, Policy, Rule, Walk};
use crate::trace::input::sanitize;
use crate::trace::model::Secs;
use child::Child;
use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How long a policy may take to answer one message (`--policy-timeout`).
static TIMEOUT_MS: AtomicU64 = AtomicU64::new(10_000);

pub fn set_timeout(t: Duration) {
    TIMEOUT_MS.store(
        t.as_millis().clamp(1, u64::MAX as u128) as u64,
        Ordering::Relaxed,
    );
}

fn timeout() -> Duration {
    Duration::from_millis(TIMEOUT_MS.load(Ordering::Relaxed))
}

/// What the probe learned: the command, and who the program says it is.
struct Spec {
    /// `exec:CMD`, the policy's name in tracetui.
    name: String,
    cmd: String,
    walk: Walk,
    /// Told right after each pass what it started and preempted.
    notify: bool,
    describe: String,
    /// The name the program gave itself.
    label: String,
}

struct ExecRule(Arc<Spec>);

impl Rule for ExecRule {
    fn name(&self) -> &str {
        &self.0.name
    }

    fn describe(&self) -> &str {
        &self.0.describe
    }

    fn label(&self) -> &str {
        &self.0.label
    }

    fn walk(&self) -> Walk {
        self.0.walk
    }

    fn books(&self, _e: &Engine) -> Box<dyn Books> {
        Box::new(ExecBooks::new(self.0.clone()))
    }
}

/// `exec:CMD` as a policy: registered once per command (probing the
/// program), or the registration it already has.
pub fn register(cmd: &str) -> Result<Policy, String> {
    let cmd = cmd.trim();
    if cmd.is_empty() {
        return Err("exec: needs a command, e.g. --policy 'exec:python3 policies/fifo.py'".into());
    }
    let name = format!("exec:{cmd}");
    if let Some(p) = Policy::all().into_iter().find(|p| p.name() == name) {
        return Ok(p);
    }
    let spec = probe(cmd, &name)?;
    Ok(Policy::register(Box::new(ExecRule(Arc::new(spec)))))
}

fn probe(cmd: &str, name: &str) -> Result<Spec, String> {
    let fail = |why: String| format!("policy '{}': {why}", sanitize(name));
    let mut child = Child::spawn(cmd, name).map_err(fail)?;
    let id = hello(&mut child, cmd).map_err(fail)?;
    Ok(Spec {
        name: name.to_string(),
        cmd: cmd.to_string(),
        walk: id.walk,
        notify: id.notify,
        describe: id.describe,
        label: id.label,
    })
}

/// What a program says of itself in its hello.
struct Hello {
    walk: Walk,
    notify: bool,
    describe: String,
    label: String,
}

fn hello(child: &mut Child, cmd: &str) -> Result<Hello, String> {
    let msg = serde_json::to_vec(&wire::Hello {
        kind: "hello",
        protocol: wire::PROTOCOL,
        command: cmd,
    })
    .map_err(|e| e.to_string())?;
    let line = child.ask(&msg, timeout())?;
    let id: wire::Identity = serde_json::from_str(&line)
        .map_err(|e| format!("malformed answer to hello ({e}): {}", excerpt(&line)))?;
    if id.protocol.is_some_and(|v| v != wire::PROTOCOL) {
        return Err(format!(
            "speaks protocol {}, tracetui speaks {}",
            id.protocol.unwrap_or(0),
            wire::PROTOCOL
        ));
    }
    let walk = match id.walk.as_str() {
        "strict" => Walk::Strict,
        "greedy" => Walk::Greedy,
        "preemptive" => Walk::Preemptive,
        "explicit" => Walk::Explicit,
        w => {
            return Err(format!(
                "walk '{}' in its hello: choose strict, greedy, preemptive or explicit",
                sanitize(w)
            ))
        }
    };
    let about = id.describe.unwrap_or_default();
    Ok(Hello {
        walk,
        notify: id.notify,
        describe: sanitize(&format!(
            "external: {cmd}{}{about}",
            if about.is_empty() { "" } else { " — " }
        )),
        label: sanitize(&id.name).chars().take(24).collect(),
    })
}

/// At most 120 characters of a line, made safe, for an error message.
fn excerpt(line: &str) -> String {
    let cut: String = line.chars().take(120).collect();
    let more = if cut.len() < line.len() { "…" } else { "" };
    format!("{}{more}", sanitize(&cut))
}

/// An answer that passed its checks, and what the books keep of it.
struct Decided {
    checked: Checked,
    wakeup: Option<Secs>,
    keys: Vec<(u32, i64)>,
}

/// One replay's external policy: its process (from its first scheduling
/// point on), the keys it set, and what changed since it last answered.
#[derive(Debug)]
struct ExecBooks {
    spec: Arc<Spec>,
    child: Option<Child>,
    keys: FxHashMap<u32, i64>,
    wakeup: Option<Secs>,
    arrived: Vec<u32>,
    events: Vec<wire::Change>,
    buf: Vec<u8>,
}

impl std::fmt::Debug for Spec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}

impl std::fmt::Debug for Child {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("policy process")
    }
}

impl ExecBooks {
    fn new(spec: Arc<Spec>) -> ExecBooks {
        ExecBooks {
            spec,
            child: None,
            keys: FxHashMap::default(),
            wakeup: None,
            arrived: Vec::new(),
            events: Vec::new(),
            buf: Vec::new(),
        }
    }

    /// The key the policy gave `job` (0 if none), as the protocol has it.
    fn key(&self, job: u32) -> i64 {
        self.keys.get(&job).copied().unwrap_or(0)
    }

    /// The process, started with the state now if it is not running yet.
    fn session(&mut self, e: &Engine) -> Result<&mut Child, String> {
        if self.child.is_none() {
            let mut c = Child::spawn(&self.spec.cmd, &self.spec.name)?;
            let h = hello(&mut c, &self.spec.cmd)?;
            if (h.walk, h.notify) != (self.spec.walk, self.spec.notify) {
                return Err(format!(
                    "said walk {} (notify {}) when first asked and {} (notify {}) now",
                    self.spec.walk.name(),
                    self.spec.notify,
                    h.walk.name(),
                    h.notify
                ));
            }
            let keys = &self.keys;
            let start = wire::start(e, |j| keys.get(&j).copied().unwrap_or(0));
            let msg = serde_json::to_vec(&start).map_err(|x| x.to_string())?;
            let line = c.ask(&msg, timeout())?;
            if serde_json::from_str::<serde::de::IgnoredAny>(&line).is_err() {
                return Err(format!("malformed answer to start: {}", excerpt(&line)));
            }
            // What happened before the snapshot is in it.
            self.arrived.clear();
            self.events.clear();
            self.child = Some(c);
        }
        Ok(self.child.as_mut().expect("started above"))
    }

    /// One scheduling point's exchange: the changes out, the answer back, checked.
    fn exchange(&mut self, e: &Engine) -> Result<Decided, String> {
        let woke = self.wakeup == Some(e.now());
        self.session(e)?;
        let msg = wire::Schedule {
            kind: "schedule",
            time: e.now(),
            arrived: self
                .arrived
                .iter()
                .map(|&j| wire::job_info(e, j, None, false))
                .collect(),
            events: &self.events,
            wakeup: woke,
        };
        self.buf.clear();
        serde_json::to_writer(&mut self.buf, &msg).map_err(|x| x.to_string())?;
        let buf = std::mem::take(&mut self.buf);
        let reply = self.ask(&buf);
        self.buf = buf;
        self.checked(e, reply?)
    }

    /// Tells the policy what the pass just did; it may change keys and its wake-up.
    fn passed(&mut self, e: &Engine) -> Result<Decided, String> {
        let msg = wire::Passed {
            kind: "passed",
            time: e.now(),
            events: &self.events,
        };
        self.buf.clear();
        serde_json::to_writer(&mut self.buf, &msg).map_err(|x| x.to_string())?;
        let buf = std::mem::take(&mut self.buf);
        let reply = self.ask(&buf);
        self.buf = buf;
        let reply = reply?;
        if !reply.start.is_empty() || !reply.preempt.is_empty() {
            return Err("answered 'passed' with starts or preemptions: only priority and wakeup may follow a pass".into());
        }
        self.checked(e, reply)
    }

    fn ask(&mut self, msg: &[u8]) -> Result<wire::Reply, String> {
        let line = self
            .child
            .as_mut()
            .expect("in session")
            .ask(msg, timeout())?;
        serde_json::from_str(&line)
            .map_err(|x| format!("malformed answer ({x}): {}", excerpt(&line)))
    }

    /// A reply checked against the engine now: keys (each job once), a
    /// later wake-up, actions that apply.
    fn checked(&self, e: &Engine, reply: wire::Reply) -> Result<Decided, String> {
        if let Some(w) = reply.wakeup.filter(|&w| w <= e.now()) {
            return Err(format!("asked to wake up at {w}, not after now"));
        }
        let wakeup = reply.wakeup;
        let mut seen = rustc_hash::FxHashSet::default();
        if let Some(&(j, _)) = reply.priority.iter().find(|(j, _)| !seen.insert(*j)) {
            return Err(format!("priority for job {j} twice"));
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
    /// A copy starts its own process at its next scheduling point, with a
    /// snapshot; it keeps the keys set so far (the queue is ordered by them).
    fn clone_box(&self) -> Box<dyn Books> {
        let mut b = ExecBooks::new(self.spec.clone());
        b.keys = self.keys.clone();
        b.wakeup = self.wakeup;
        Box::new(b)
    }

    fn queued_key(&self, _e: &Engine, job: u32) -> u64 {
        wire::engine_key(self.key(job))
    }

    fn joined(&mut self, _e: &mut Engine, job: u32) {
        if self.child.is_some() {
            self.arrived.push(job);
        }
    }

    fn left(&mut self, e: &mut Engine, job: u32) {
        if self.child.is_some() {
            self.events
                .push(wire::Change::Finished { job, at: e.now() });
        }
        self.keys.remove(&job);
    }

    fn started(&mut self, e: &mut Engine, job: u32, _milli: u64) {
        if self.child.is_some() {
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

    fn preempted(&mut self, e: &Engine, job: u32) {
        if self.child.is_some() {
            self.events
                .push(wire::Change::Preempted { job, at: e.now() });
        }
    }

    fn next_wakeup(&self) -> Option<Secs> {
        self.wakeup
    }

    fn wake(&mut self, e: &mut Engine, t: Secs) -> bool {
        self.wakeup == Some(t) && e.now() == t
    }

    fn after_pass(&mut self, e: &Engine) -> Result<Option<Checked>, String> {
        if !self.spec.notify || self.events.is_empty() || self.child.is_none() {
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
        Ok(Some(checked))
    }
}
