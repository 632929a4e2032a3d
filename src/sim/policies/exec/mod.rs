//! `exec:CMD`: any program as a policy. The program speaks the policy
//! protocol (docs/policy-protocol.md) on its stdin and stdout; tracetui
//! asks it once who it is when the policy is named (the probe), then runs
//! one process per replay that uses it, started at its first scheduling
//! point with a snapshot of the state, so a live switch, a what-if fork or
//! a copy of an engine each get their own.

mod books;
mod child;
mod conversation;

mod wire;

use super::super::policy::{Books, Policy, Rule, Walk};
use super::super::view::View;
use crate::text::sanitize;
use books::ExecBooks;
use child::Child;
use std::sync::Arc;
use std::time::Duration;

/// How long the program may take to answer the hello when the policy is
/// named (an engine's own messages wait up to its `Tuning::policy_timeout`).
const PROBE_TIMEOUT: Duration = crate::sim::tuning::DEFAULT_POLICY_TIMEOUT;

/// What the probe learned: the command, and who the program says it is.
struct Spec {
    /// `exec:CMD`, the policy's name in tracetui.
    name: String,
    cmd: String,
    walk: Walk,
    /// Told right after each pass what it started and preempted.
    notify: bool,
    /// Asked only at points where jobs arrived (and at its wake-ups).
    arrivals_only: bool,
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

    fn books(&self, _v: &dyn View) -> Box<dyn Books> {
        Box::new(ExecBooks::new(self.0.clone()))
    }
}

/// `exec:CMD` as a policy, shown as `label` (a name from config.toml)
/// rather than the name the program gives.
pub fn register_named(cmd: &str, label: &str) -> Result<Policy, String> {
    register_as(cmd, Some(label))
}

/// `exec:CMD` as a policy: registered once per command (probing the
/// program), or the registration it already has.
pub fn register(cmd: &str) -> Result<Policy, String> {
    register_as(cmd, None)
}

fn register_as(cmd: &str, label: Option<&str>) -> Result<Policy, String> {
    let cmd = cmd.trim();
    if cmd.is_empty() {
        return Err("exec: needs a command, e.g. --policy 'exec:python3 policies/fifo.py'".into());
    }
    let name = format!("exec:{cmd}");
    if let Some(p) = Policy::all().into_iter().find(|p| p.name() == name) {
        return Ok(p);
    }
    let mut spec = probe(cmd, &name)?;
    if let Some(l) = label.map(sanitize).filter(|l| !l.is_empty()) {
        spec.label = crate::text::take_cols(&l, 24).to_string();
    }
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
        arrivals_only: id.arrivals_only,
        describe: id.describe,
        label: id.label,
    })
}

/// What a program says of itself in its hello.
struct Hello {
    walk: Walk,
    notify: bool,
    arrivals_only: bool,
    describe: String,
    label: String,
}

fn hello(child: &mut Child, cmd: &str) -> Result<Hello, String> {
    let line = child.ask(&hello_message(cmd)?, PROBE_TIMEOUT)?;
    read_hello(&line, cmd)
}

/// The hello tracetui sends first.
fn hello_message(cmd: &str) -> Result<Vec<u8>, String> {
    serde_json::to_vec(&wire::Hello {
        kind: "hello",
        protocol: wire::PROTOCOL,
        command: cmd,
    })
    .map_err(|e| e.to_string())
}

/// What the program's answer to the hello says of it, checked.
fn read_hello(line: &str, cmd: &str) -> Result<Hello, String> {
    let id: wire::Identity = serde_json::from_str(line)
        .map_err(|e| format!("malformed answer to hello ({e}): {}", excerpt(line)))?;
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
    let arrivals_only = match id.ask.as_deref() {
        None | Some("always") => false,
        Some("arrivals") => true,
        Some(a) => {
            return Err(format!(
                "ask '{}' in its hello: choose always or arrivals",
                sanitize(a)
            ))
        }
    };
    let about = id.describe.unwrap_or_default();
    Ok(Hello {
        walk,
        notify: id.notify,
        arrivals_only,
        describe: sanitize(&format!(
            "external: {cmd}{}{about}",
            if about.is_empty() { "" } else { " — " }
        )),
        label: crate::text::take_cols(&sanitize(&id.name), 24).to_string(),
    })
}

/// At most 120 characters of a line, made safe, for an error message.
fn excerpt(line: &str) -> String {
    let cut: String = line.chars().take(120).collect();
    let more = if cut.len() < line.len() { "…" } else { "" };
    format!("{}{more}", sanitize(&cut))
}
