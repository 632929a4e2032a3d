//! Naming an external policy: the program is started once and asked who
//! it is (the probe), and registered as a policy.

use super::child::Child;
use crate::sim::policies::exec::{self, Spec};
use crate::sim::Policy;
use crate::text::sanitize;
use std::time::Duration;

/// How long the program may take to answer the hello when the policy is
/// named (an engine's own messages wait up to its `Tuning::policy_timeout`).
const PROBE_TIMEOUT: Duration = crate::sim::tuning::DEFAULT_POLICY_TIMEOUT;

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
    if let Some(p) = exec::registered(&name) {
        return Ok(p);
    }
    let mut spec = probe(cmd, &name)?;
    if let Some(l) = label.map(sanitize).filter(|l| !l.is_empty()) {
        spec.label = crate::text::take_cols(&l, 24).to_string();
    }
    Ok(exec::register(spec))
}

fn probe(cmd: &str, name: &str) -> Result<Spec, String> {
    let fail = |why: String| format!("policy '{}': {why}", sanitize(name));
    let mut child = Child::spawn(cmd, name).map_err(fail)?;
    let hello = exec::hello_message(cmd).map_err(fail)?;
    let line = child.ask(&hello, PROBE_TIMEOUT).map_err(fail)?;
    let said = exec::read_hello(&line, cmd).map_err(fail)?;
    Ok(Spec::new(cmd, said))
}
