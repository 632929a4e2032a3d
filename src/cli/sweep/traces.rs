//! What a sweep's runs share: each trace loaded once (then resampled or
//! resized per run, as `sim` does), and each external policy asked who it
//! is once (a program that fails to start fails its runs, each a row with
//! the reason, without being started again for every run).

use crate::cli::headless;
use crate::cli::{PolicyArg, SimArgs, TraceArgs};
use crate::sim::error::ArgError;
use crate::sim::Policy;
use crate::trace::input::InputError;
use crate::trace::Trace;
use color_eyre::eyre::{eyre, Result};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

type Loaded = Arc<OnceLock<Result<Arc<Trace>, Arc<InputError>>>>;

/// Traces by what reads them (format, path, read options).
#[derive(Default)]
pub(crate) struct Traces {
    loaded: Mutex<HashMap<String, Loaded>>,
}

impl Traces {
    /// The run's trace, as `sim` with these arguments would have it.
    pub(crate) fn get(&self, t: &TraceArgs) -> Result<Arc<Trace>> {
        let key = format!(
            "{:?}\n{:?}\n{:?}",
            t.load.format.name(),
            t.load.path,
            t.load.read
        );
        let slot = {
            let mut map = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
            map.entry(key).or_default().clone()
        };
        // Runs of one trace wait for its one load.
        let base = slot.get_or_init(|| {
            t.load
                .read
                .load(t.load.format, &t.load.path)
                .map(|(trace, report)| {
                    // What was skipped, once per trace (its notes are
                    // each run's meta: not repeated here).
                    for l in report.skip_lines() {
                        crate::cli::print_err(&format!("tracetui: warning: {l}"));
                    }
                    Arc::new(trace)
                })
                .map_err(Arc::new)
        });
        let base = base.clone().map_err(|e| eyre!("{e}"))?;
        Ok(headless::shape(base, t)?.0)
    }
}

/// Each run's policy, resolved once per (policy, timeout).
pub(crate) struct Policies {
    named: HashMap<String, Result<Policy, Arc<ArgError>>>,
}

fn key(policy: &PolicyArg, timeout: std::time::Duration) -> String {
    format!("{policy:?}\n{timeout:?}")
}

impl Policies {
    /// Asks every external policy of `runs` who it is, all at once.
    pub(crate) fn resolve<'a>(runs: impl Iterator<Item = &'a SimArgs>) -> Result<Policies> {
        let mut asks: Vec<(String, PolicyArg, std::time::Duration)> = Vec::new();
        for a in runs {
            let timeout = a.trace.policies.timeout()?;
            let k = key(&a.policy, timeout);
            if !asks.iter().any(|(seen, _, _)| *seen == k) {
                asks.push((k, a.policy.clone(), timeout));
            }
        }
        let answers = crate::par::pool(&asks, asks.len().clamp(1, 16), |(_, p, t)| {
            crate::cli::policy_arg::resolve(p, *t).map_err(Arc::new)
        });
        let named = asks
            .into_iter()
            .zip(answers)
            .map(|((k, _, _), r)| {
                let r = r.unwrap_or_else(|_| {
                    Err(Arc::new(ArgError::Probe(
                        crate::sim::drive::PolicyError::ProbePanicked,
                    )))
                });
                (k, r)
            })
            .collect();
        Ok(Policies { named })
    }

    pub(crate) fn get(&self, a: &SimArgs) -> Result<Policy> {
        let k = key(&a.policy, a.trace.policies.timeout()?);
        match self.named.get(&k) {
            Some(Ok(p)) => Ok(*p),
            Some(Err(e)) => Err(eyre!("{e}")),
            None => Err(eyre!(
                "a policy was not asked who it is (a bug in tracetui)"
            )),
        }
    }
}
