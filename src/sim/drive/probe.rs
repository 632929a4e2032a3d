//! Naming an external policy: the program is started once and asked who
//! it is (the probe), and registered as a policy.

use super::child::Child;
use super::error::PolicyError;
use crate::sim::error::ArgError;
use crate::sim::policies::exec::{self, Spec};
use crate::sim::Policy;
use crate::text::sanitize;
use std::time::Duration;

/// How long the program may take to answer the hello when the policy is
/// named (an engine's own messages wait up to its `Tuning::policy_timeout`).
const PROBE_TIMEOUT: Duration = crate::sim::tuning::DEFAULT_POLICY_TIMEOUT;

/// `exec:CMD` as a policy, shown as `label` (a name from config.toml)
/// rather than the name the program gives.
pub fn register_named(cmd: &str, label: &str) -> Result<Policy, ArgError> {
    register_as(cmd, Some(label))
}

/// `exec:CMD` as a policy: registered once per command (probing the
/// program), or the registration it already has.
pub fn register(cmd: &str) -> Result<Policy, ArgError> {
    register_as(cmd, None)
}

/// Each (label, command) registered as `register_named` would, the
/// programs probed at once (a silent one costs its timeout once, not once
/// per entry) and registered in the order given, so the picker's order is
/// the config file's.
pub fn register_all_named(entries: &[(String, String)]) -> Vec<Result<Policy, ArgError>> {
    let probed = crate::par::pool(entries, entries.len().min(16), |(label, cmd)| {
        probed_as(cmd, Some(label))
    });
    probed
        .into_iter()
        .map(|r| match r {
            Ok(Ok(Probed::Known(p))) => Ok(p),
            Ok(Ok(Probed::New(spec))) => Ok(exec::register(spec)),
            Ok(Err(e)) => Err(e),
            Err(crate::par::Panicked) => Err(ArgError::Probe(PolicyError::ProbePanicked)),
        })
        .collect()
}

/// A command's policy: registered already, or probed and ready to register.
enum Probed {
    Known(Policy),
    New(Spec),
}

fn register_as(cmd: &str, label: Option<&str>) -> Result<Policy, ArgError> {
    match probed_as(cmd, label)? {
        Probed::Known(p) => Ok(p),
        Probed::New(spec) => Ok(exec::register(spec)),
    }
}

fn probed_as(cmd: &str, label: Option<&str>) -> Result<Probed, ArgError> {
    let cmd = cmd.trim();
    if cmd.is_empty() {
        return Err(ArgError::NoCommand);
    }
    let name = format!("exec:{cmd}");
    if let Some(p) = exec::registered(&name) {
        return Ok(Probed::Known(p));
    }
    let mut spec = probe(cmd, &name)?;
    if let Some(l) = label.map(sanitize).filter(|l| !l.is_empty()) {
        spec.label = crate::text::take_cols(&l, 24).to_string();
    }
    Ok(Probed::New(spec))
}

fn probe(cmd: &str, name: &str) -> Result<Spec, PolicyError> {
    let hello = || -> Result<Spec, PolicyError> {
        let mut child = Child::spawn(cmd, &sanitize(name))?;
        let hello = exec::hello_message(cmd)?;
        let line = child.ask(&hello, PROBE_TIMEOUT)?;
        Ok(Spec::new(cmd, exec::read_hello(&line, cmd)?))
    };
    hello().map_err(|e| e.named(name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn a_program_that_ends_says_how_and_keeps_the_cause() {
        let e = register("exit 3").unwrap_err();
        assert_eq!(
            e.to_string(),
            "policy 'exec:exit 3': closed its output without answering (exit status: 3)"
        );
        let cause = e.source().expect("the policy's own error is the cause");
        assert_eq!(
            cause.to_string(),
            "closed its output without answering (exit status: 3)"
        );
        assert!(matches!(register("  "), Err(ArgError::NoCommand)));
    }
}
