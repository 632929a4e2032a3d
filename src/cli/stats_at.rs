//! `stats --at WHEN`: the machines by state (idle, partly used, full) at
//! one moment of the replay, under the policy the replay starts with (or
//! `--policy`): the count `:idle` shows, for a script.

use crate::sim::{MachineUses, Policies, Policy};
use crate::spec::RunSpec;
use crate::trace::{Secs, Trace};
use color_eyre::eyre::{bail, eyre, Result};
use serde::Serialize;
use std::sync::Arc;

/// The machines with GPUs by state at one moment.
#[derive(Debug, Serialize)]
pub(super) struct MachinesAt {
    /// The moment, in trace seconds, and as the replay shows it.
    pub at: Secs,
    pub clock: String,
    pub policy: String,
    pub idle: usize,
    pub partly_used: usize,
    pub full: usize,
    pub machines: usize,
}

/// The replay of `trace` under `policy` (none: recorded where the trace
/// has it, else fifo, as the replay starts) taken to `when`.
pub(super) fn machines_at(
    trace: Arc<Trace>,
    when: &str,
    policy: Option<&str>,
) -> Result<MachinesAt> {
    let first = trace.first_submit().unwrap_or(0);
    let at = crate::trace::parse_when(trace.zone, first, first - 1, when)
        .map_err(|e| eyre!("--at: {e}"))?;
    let policy = match policy {
        None if trace.has_recorded() => Policy::Recorded,
        None => Policy::Fifo,
        Some(name) => Policies::new().find(name).ok_or_else(|| {
            eyre!(
                "--policy: '{}' is not a built-in policy (the replay runs your own)",
                crate::text::sanitize(name)
            )
        })?,
    };
    if let Err(e) = policy.check(&trace) {
        bail!("{e}");
    }
    let mut engine = RunSpec::new(trace.clone(), policy).engine();
    engine.advance_to(at);
    let n: MachineUses = engine.cluster().machine_uses();
    Ok(MachinesAt {
        at,
        clock: crate::trace::clock_shown(trace.zone, first, at),
        policy: policy.name().to_string(),
        idle: n.idle,
        partly_used: n.partly,
        full: n.full,
        machines: n.total(),
    })
}

/// The line `stats` prints for it.
pub(super) fn text(m: &MachinesAt) -> String {
    format!(
        "machines at {} under {}: {} idle, {} partly used, {} full (of {} with GPUs)\n",
        m.clock, m.policy, m.idle, m.partly_used, m.full, m.machines
    )
}
