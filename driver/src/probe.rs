//! Naming an external policy: the program is started once and asked who
//! it is (the probe), and registered as a policy.

use super::child::Child;
use super::error::PolicyError;
use std::time::Duration;
use tracetui_engine::{
    hear_program, hello_message, program_name, register_program, registered_program, ArgError,
    Heard, Params, Policies, Policy,
};
use tracetui_model::text::sanitize;

/// An external policy to name: its command, the name to show it by (from
/// config.toml; else the name its hello gives) and its parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecSpec {
    /// The command (`exec:` without the prefix), run by `sh -c`.
    pub cmd: String,
    /// The name to show it by, from config.toml (None: its hello's).
    pub label: Option<String>,
    /// Its `key=value` parameters, sent in `start`.
    pub params: Params,
}

impl ExecSpec {
    /// `cmd` with no label and no parameters.
    pub fn command(cmd: &str) -> ExecSpec {
        ExecSpec {
            cmd: cmd.to_string(),
            label: None,
            params: Params::new(),
        }
    }
}

/// A policy by name: `exec:CMD` registered in `policies` through the
/// probe (the program asked who it is), anything else as
/// `Policies::parse` takes it (a built-in, or one registered there).
pub fn resolve(name: &str, policies: &mut Policies) -> Result<Policy, ArgError> {
    match name.trim().strip_prefix("exec:") {
        Some(cmd) if policies.find(name.trim()).is_none() => register(cmd, policies),
        _ => policies.parse(name),
    }
}

/// `exec:CMD` as a policy: registered once per command in `policies`
/// (probing the program), or the registration it already has there.
pub fn register(cmd: &str, policies: &mut Policies) -> Result<Policy, ArgError> {
    register_spec(
        &ExecSpec::command(cmd),
        tracetui_engine::DEFAULT_POLICY_TIMEOUT,
        policies,
    )
}

/// One external policy, its hello given up to `timeout`.
pub fn register_spec(
    spec: &ExecSpec,
    timeout: Duration,
    policies: &mut Policies,
) -> Result<Policy, ArgError> {
    match probed(spec, timeout, policies)? {
        Probed::Known(p) => Ok(p),
        Probed::New(heard) => Ok(register_program(heard, policies)),
    }
}

/// Each (label, command): `cmd` shown as `label` (a name from config.toml),
/// its hello given up to `timeout` (the run's `--policy-timeout`).
pub fn register_all_named(
    entries: &[(String, String)],
    timeout: Duration,
    policies: &mut Policies,
) -> Vec<Result<Policy, ArgError>> {
    let specs: Vec<ExecSpec> = entries
        .iter()
        .map(|(label, cmd)| ExecSpec {
            label: Some(label.clone()),
            ..ExecSpec::command(cmd)
        })
        .collect();
    register_all(&specs, timeout, policies)
}

/// Each policy of `specs`, the programs probed at once (a silent one
/// costs `timeout` once, not once per entry) and registered in the order
/// given, so the picker's order is the config file's and labels made
/// unique are numbered in that order.
pub fn register_all(
    specs: &[ExecSpec],
    timeout: Duration,
    policies: &mut Policies,
) -> Vec<Result<Policy, ArgError>> {
    let known: &Policies = policies;
    let probed = tracetui_model::pool(specs, specs.len().clamp(1, 16), |s| {
        probed(s, timeout, known)
    });
    probed
        .into_iter()
        .map(|r| match r {
            Ok(Ok(Probed::Known(p))) => Ok(p),
            Ok(Ok(Probed::New(heard))) => Ok(register_program(heard, policies)),
            Ok(Err(e)) => Err(e),
            Err(tracetui_model::Panicked) => Err(PolicyError::ProbePanicked.into()),
        })
        .collect()
}

/// A command's policy: registered already, or probed and ready to register.
pub enum Probed {
    /// Registered already.
    Known(Policy),
    /// Asked who it is: to register.
    New(Heard),
}

/// Asks the program of `spec` who it is (unless `policies` has it already),
/// registering nothing: probes can run side by side, and their programs
/// be registered after, in an order of the caller's (`register_probed`).
pub fn probe_spec(
    spec: &ExecSpec,
    timeout: Duration,
    policies: &Policies,
) -> Result<Probed, ArgError> {
    probed(spec, timeout, policies)
}

/// A probed program registered in `policies` (or the policy it was already).
pub fn register_probed(p: Probed, policies: &mut Policies) -> Policy {
    match p {
        Probed::Known(p) => p,
        Probed::New(heard) => register_program(heard, policies),
    }
}

fn probed(s: &ExecSpec, timeout: Duration, policies: &Policies) -> Result<Probed, ArgError> {
    let cmd = s.cmd.trim();
    if cmd.is_empty() {
        return Err(ArgError::NoCommand);
    }
    let name = program_name(cmd, &s.params);
    if let Some(p) = registered_program(policies, &name) {
        return Ok(Probed::Known(p));
    }
    let mut heard = probe(cmd, &s.params, &name, timeout)?;
    if let Some(l) = &s.label {
        heard.relabel(l);
    }
    Ok(Probed::New(heard))
}

/// Asks the program who it is. What it writes on stderr meanwhile is held:
/// logged once it has answered, or told with the error if it fails (a
/// Python traceback).
fn probe(cmd: &str, params: &Params, name: &str, timeout: Duration) -> Result<Heard, PolicyError> {
    let mut child = Child::spawn(cmd, &sanitize(name), true).map_err(|e| e.named(name))?;
    let asked = (|| -> Result<Heard, PolicyError> {
        let hello = hello_message(cmd)?;
        let line = child.ask(&hello, timeout)?;
        Ok(hear_program(cmd, params, &line)?)
    })();
    match asked {
        Ok(heard) => {
            child.release_stderr();
            Ok(heard)
        }
        Err(e) => {
            // A program that ended has its last words written in a moment;
            // a silent one is not waited for again.
            let wait = match e {
                PolicyError::Timeout(_) => Duration::from_millis(20),
                _ => Duration::from_millis(300),
            };
            let tail = child.stderr_tail(wait);
            Err(e.with_stderr(tail).named(name))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn a_program_that_ends_says_how_and_keeps_the_cause() {
        let e = register("exit 3", &mut Policies::new()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "policy 'exec:exit 3': closed its output without answering (exit status: 3) \
             (it wrote nothing on stderr)"
        );
        let cause = e.source().expect("the policy's own error is the cause");
        let cause = cause.source().expect("under what it wrote on stderr");
        assert_eq!(
            cause.to_string(),
            "closed its output without answering (exit status: 3)"
        );
        assert!(matches!(
            register("  ", &mut Policies::new()),
            Err(ArgError::NoCommand)
        ));
    }

    #[test]
    fn a_program_that_fails_when_named_is_told_with_its_last_stderr_lines() {
        let cmd = "for i in $(seq 1 20); do echo \"line $i\" >&2; done; \
                   printf 'bad\\033[31m\\n' >&2; exit 1";
        let e = register(cmd, &mut Policies::new()).unwrap_err().to_string();
        assert!(
            e.contains("(exit status: 1); the last lines it wrote on stderr:"),
            "{e}"
        );
        // The last lines only, each made safe.
        assert!(!e.contains("line 9\n"), "{e}");
        assert!(e.contains("\n    line 20\n    bad"), "{e}");
        assert!(!e.contains('\u{1b}'), "{e}");
        assert_eq!(e.lines().count(), 1 + super::super::stderr::TAIL, "{e}");
    }
}
