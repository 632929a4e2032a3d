//! One resolved run: the trace (its cluster, tables and speeds attached,
//! its arrivals resampled and its cluster sized as asked), the policy it
//! starts with, a schedule of switches, the placement, the energy model
//! with the power policy it starts with, the knobs, and the policies it
//! may name. `sim`, each row of `compare`, a sweep's run, a lesson and the
//! replay's start each build one; headless runs end in [`RunSpec::run`],
//! the replay starts from its fields.

use crate::sim::{self, Energy, Engine, Placement, Policies, Policy, Report, Schedule, Tuning};
use crate::trace::Trace;
use std::sync::Arc;

/// A run, every choice made.
#[derive(Clone)]
pub struct RunSpec {
    pub trace: Arc<Trace>,
    /// The policy from the start: the schedule's start where it sets one.
    pub policy: Policy,
    /// Switches to make as the run reaches them.
    pub schedule: Option<Schedule>,
    pub placement: Placement,
    /// The energy model and the power policy from the start (the
    /// schedule's where it sets one).
    pub energy: Energy,
    pub tuning: Arc<Tuning>,
    /// The policies the run may name: the built-ins and the programs probed.
    pub policies: Policies,
}

impl RunSpec {
    /// `policy` on `trace` with no schedule, consolidated, no energy
    /// model, the default knobs; the `with_` methods change the rest.
    pub fn new(trace: Arc<Trace>, policy: Policy) -> RunSpec {
        RunSpec {
            trace,
            policy,
            schedule: None,
            placement: Placement::Consolidate,
            energy: None,
            tuning: Arc::new(Tuning::default()),
            policies: Policies::new(),
        }
    }

    pub fn with_placement(mut self, placement: Placement) -> RunSpec {
        self.placement = placement;
        self
    }

    pub fn with_energy(mut self, energy: Energy) -> RunSpec {
        self.energy = energy;
        self
    }

    pub fn with_tuning(mut self, tuning: Arc<Tuning>) -> RunSpec {
        self.tuning = tuning;
        self
    }

    pub fn with_policies(mut self, policies: Policies) -> RunSpec {
        self.policies = policies;
        self
    }

    /// Follows `schedule`: its start policy and power policy, where it sets
    /// them, are the run's from the start.
    pub fn with_schedule(mut self, schedule: Option<Schedule>) -> RunSpec {
        if let Some(s) = &schedule {
            self.policy = s.start.unwrap_or(self.policy);
            if let (Some((_, p)), Some(start)) = (self.energy.as_mut(), s.start_power) {
                *p = start;
            }
        }
        self.schedule = schedule;
        self
    }

    /// The same run under `policy` from the start, with no schedule (a
    /// row of a comparison).
    pub fn under(&self, policy: Policy) -> RunSpec {
        RunSpec {
            policy,
            schedule: None,
            ..self.clone()
        }
    }

    /// Every policy the run starts with or switches to, the start first.
    pub fn named_policies(&self) -> Vec<Policy> {
        let switched = self.schedule.iter().flat_map(switched_to);
        std::iter::once(self.policy).chain(switched).collect()
    }

    /// Refuses a run whose policies cannot run on its trace, saying why:
    /// the schedule's first, then the one it starts with.
    pub fn check(&self) -> Result<(), sim::ArgError> {
        self.check_schedule()?;
        self.tuning.estimate.check(&self.trace)?;
        self.policy.check(&self.trace)
    }

    /// Refuses a schedule naming a policy the trace cannot run.
    pub fn check_schedule(&self) -> Result<(), sim::ArgError> {
        match &self.schedule {
            Some(s) => check_schedule(&self.trace, s),
            None => Ok(()),
        }
    }

    /// The engine at the start of the run; a headless one stops at a
    /// policy's first failure.
    pub fn engine(&self) -> Engine {
        let mut e = sim::engine(
            self.trace.clone(),
            self.policy,
            self.placement,
            self.energy.clone(),
            &self.tuning,
        );
        e.set_halt_on_failure(true);
        e
    }

    /// The run to its end, headless: its report (labelled with the
    /// schedule where there is one), or its policy's failure.
    pub fn run(&self) -> Result<Report, RunFailed> {
        let mut e = self.engine();
        let report = match &self.schedule {
            Some(s) => s.run_on(&mut e, &crate::driver::Driver),
            None => {
                crate::driver::run_to_end(&mut e);
                e.final_report()
            }
        };
        finished(&e, report)
    }
}

/// The policies `s` switches to, in order.
fn switched_to(s: &Schedule) -> impl Iterator<Item = Policy> + '_ {
    s.switches.iter().filter_map(|(_, w)| match w {
        sim::Switch::Policy(p) => Some(*p),
        sim::Switch::Power(_) | sim::Switch::Placement(_) => None,
    })
}

/// Refuses a schedule naming a policy `trace` cannot run, in the order
/// the schedule names them.
pub fn check_schedule(trace: &Trace, s: &Schedule) -> Result<(), sim::ArgError> {
    for p in s.start.into_iter().chain(switched_to(s)) {
        p.check(trace)?;
    }
    Ok(())
}

/// A run that stopped at its policy's failure.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}", .0.why)]
pub struct RunFailed(pub sim::PolicyFailure);

/// The report of a run, or the failure of its policy.
pub fn finished(e: &Engine, report: Report) -> Result<Report, RunFailed> {
    match e.failures().first() {
        Some(f) => Err(RunFailed(f.clone())),
        None => Ok(report),
    }
}
