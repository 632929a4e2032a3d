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

/// Traces by what reads them (format, path, read options), each with the
/// runs still to use it: a trace is let go after its last run.
#[derive(Default)]
pub(crate) struct Traces {
    loaded: Mutex<HashMap<String, (Loaded, usize)>>,
}

/// What reads a trace: runs with the same key share its load.
fn trace_key(t: &TraceArgs) -> String {
    format!(
        "{:?}\n{:?}\n{:?}",
        t.load.format.name(),
        t.load.path,
        t.load.read
    )
}

impl Traces {
    /// The traces of `runs`, none loaded yet.
    pub(crate) fn for_runs<'a>(runs: impl Iterator<Item = &'a TraceArgs>) -> Traces {
        let mut map: HashMap<String, (Loaded, usize)> = HashMap::new();
        for t in runs {
            map.entry(trace_key(t)).or_default().1 += 1;
        }
        Traces {
            loaded: Mutex::new(map),
        }
    }

    /// A run of `t` has ended: after the last, the trace is let go.
    pub(crate) fn done(&self, t: &TraceArgs) {
        let mut map = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
        let key = trace_key(t);
        if let Some(e) = map.get_mut(&key) {
            e.1 = e.1.saturating_sub(1);
            if e.1 == 0 {
                map.remove(&key);
            }
        }
    }

    /// How many traces are held now.
    #[cfg(test)]
    fn held(&self) -> usize {
        let map = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
        map.values().filter(|(l, _)| l.get().is_some()).count()
    }

    /// The run's trace, as `sim` with these arguments would have it.
    pub(crate) fn get(&self, t: &TraceArgs) -> Result<Arc<Trace>> {
        let slot = {
            let mut map = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
            map.entry(trace_key(t)).or_default().0.clone()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trace_is_let_go_after_its_last_run() {
        let argv = ["tracetui", "sim", "itp", "sample-traces/itp/sample.csv"].map(Into::into);
        let Some(crate::cli::Command::Sim(a)) = crate::cli::meta::parse(&argv).unwrap().command
        else {
            panic!("sim")
        };
        let traces = Traces::for_runs([&a.trace, &a.trace].into_iter());
        assert_eq!(traces.held(), 0);
        let first = traces.get(&a.trace).unwrap();
        assert_eq!(traces.held(), 1);
        traces.done(&a.trace);
        let second = traces.get(&a.trace).unwrap();
        assert!(Arc::ptr_eq(&first, &second), "loaded once");
        traces.done(&a.trace);
        assert_eq!(traces.held(), 0, "let go after the last run");
        drop(second);
        assert_eq!(Arc::strong_count(&first), 1, "no other holder");
    }
}
