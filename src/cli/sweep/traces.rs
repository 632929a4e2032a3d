//! What a sweep's runs share: each trace loaded once (then resampled or
//! resized per run, as `sim` does), and each external policy asked who it
//! is once (a program that fails to start fails its runs, each a row with
//! the reason, without being started again for every run).

use crate::cli::headless;
use crate::cli::{PolicyArg, SimArgs, TraceArgs};
use crate::sim::{ArgError, Policy};
use crate::trace::{InputError, Trace};
use color_eyre::eyre::{eyre, Result};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

type Loaded = Arc<OnceLock<Result<Arc<Trace>, Arc<InputError>>>>;

/// Traces by what reads them (format, path, read options), each under
/// its plan value (`FORMAT:PATH`), with the runs of each value still to
/// come: its traces are let go after its last run.
#[derive(Default)]
pub(crate) struct Traces {
    loaded: Mutex<Held>,
}

#[derive(Default)]
struct Held {
    /// What reads a trace → the trace, and the plan value it is under.
    traces: HashMap<String, (Loaded, String)>,
    /// Plan value → runs still to come.
    left: HashMap<String, usize>,
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
    /// The traces of the runs of these plan values (`FORMAT:PATH`, one
    /// per run), none loaded yet.
    pub(crate) fn for_runs<'a>(runs: impl Iterator<Item = &'a str>) -> Traces {
        let mut held = Held::default();
        for v in runs {
            *held.left.entry(v.to_string()).or_default() += 1;
        }
        Traces {
            loaded: Mutex::new(held),
        }
    }

    /// A run of plan value `value` has ended: after its last, its traces
    /// are let go.
    pub(crate) fn done(&self, value: &str) {
        let mut held = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = held.left.get_mut(value) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                held.left.remove(value);
                held.traces.retain(|_, (_, v)| v != value);
            }
        }
    }

    /// How many traces are held now.
    #[cfg(test)]
    fn held(&self) -> usize {
        let held = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
        held.traces
            .values()
            .filter(|(l, _)| l.get().is_some())
            .count()
    }

    /// The trace of a run of `policy` of plan value `value`, as `sim` with
    /// these arguments would have it.
    pub(crate) fn get(&self, t: &TraceArgs, policy: Policy, value: &str) -> Result<Arc<Trace>> {
        let slot = {
            let mut held = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
            let e = held
                .traces
                .entry(trace_key(t))
                .or_insert_with(|| (Loaded::default(), value.to_string()));
            e.0.clone()
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
        Ok(headless::shape(base, t, &[policy])?.0)
    }
}

type Resolved = Arc<OnceLock<Result<Policy, Arc<ArgError>>>>;

/// Each run's policy, resolved once per (policy, timeout).
pub(crate) struct Policies {
    named: Mutex<HashMap<String, Resolved>>,
    /// The programs registered for the plan's runs.
    registry: Mutex<crate::sim::Policies>,
}

pub(crate) fn key(policy: &PolicyArg, timeout: std::time::Duration) -> String {
    format!("{policy:?}\n{timeout:?}")
}

impl Policies {
    /// Asks every external policy of `runs` who it is, all at once (a
    /// run's policy not among them is asked when the run needs it).
    pub(crate) fn resolve<'a>(runs: impl Iterator<Item = &'a SimArgs>) -> Result<Policies> {
        let mut asks: Vec<(String, PolicyArg, std::time::Duration)> = Vec::new();
        for a in runs {
            let timeout = a.trace.policies.timeout()?;
            let k = key(&a.policy, timeout);
            if !asks.iter().any(|(seen, _, _)| *seen == k) {
                asks.push((k, a.policy.clone(), timeout));
            }
        }
        // Probed side by side, registered after in the plan's order (so
        // labels made unique are numbered the same on every run).
        let mut registry = crate::sim::Policies::new();
        let known = registry.clone();
        let answers = crate::trace::pool(&asks, asks.len().clamp(1, 16), |(_, p, t)| match p {
            PolicyArg::Known(p) => Ok(crate::driver::Probed::Known(*p)),
            PolicyArg::Exec(spec) => crate::driver::probe_spec(spec, *t, &known),
        });
        let named = asks
            .into_iter()
            .zip(answers)
            .map(|((k, _, _), r)| {
                let r = r
                    .unwrap_or_else(|_| Err(crate::driver::PolicyError::ProbePanicked.into()))
                    .map(|p| crate::driver::register_probed(p, &mut registry))
                    .map_err(Arc::new);
                (k, Arc::new(OnceLock::from(r)))
            })
            .collect();
        Ok(Policies {
            named: Mutex::new(named),
            registry: Mutex::new(registry),
        })
    }

    /// A run's `--policy-schedule`, its programs registered with the plan's.
    pub(crate) fn schedule(
        &self,
        a: &SimArgs,
        trace: &Trace,
    ) -> Result<Option<crate::sim::Schedule>> {
        let mut registry = self.registry.lock().unwrap_or_else(|p| p.into_inner());
        a.trace.policies.schedule(trace, &mut registry)
    }

    /// The policies the plan's runs may name so far.
    pub(crate) fn registry(&self) -> crate::sim::Policies {
        let registry = self.registry.lock().unwrap_or_else(|p| p.into_inner());
        registry.clone()
    }

    pub(crate) fn get(&self, a: &SimArgs) -> Result<Policy> {
        let timeout = a.trace.policies.timeout()?;
        let k = key(&a.policy, timeout);
        let slot = {
            let mut named = self.named.lock().unwrap_or_else(|p| p.into_inner());
            named.entry(k).or_default().clone()
        };
        // The runs of a policy wait for its one answer; the others go on.
        let r = slot.get_or_init(|| {
            let mut registry = self.registry.lock().unwrap_or_else(|p| p.into_inner());
            crate::cli::policy_arg::resolve(&a.policy, timeout, &mut registry).map_err(Arc::new)
        });
        match r {
            Ok(p) => Ok(*p),
            Err(e) => Err(eyre!("{e}")),
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
        let v = "itp:sample-traces/itp/sample.csv";
        let traces = Traces::for_runs([v, v].into_iter());
        assert_eq!(traces.held(), 0);
        let first = traces.get(&a.trace, Policy::Fifo, v).unwrap();
        assert_eq!(traces.held(), 1);
        traces.done(v);
        let second = traces.get(&a.trace, Policy::Fifo, v).unwrap();
        assert!(Arc::ptr_eq(&first, &second), "loaded once");
        traces.done(v);
        assert_eq!(traces.held(), 0, "let go after the last run");
        drop(second);
        assert_eq!(Arc::strong_count(&first), 1, "no other holder");
    }
}
