//! The simulation engine: no terminal code here.

pub(crate) mod backfill;
pub(crate) mod cluster;
pub mod drive;
pub mod energy;
pub mod engine;
pub mod error;
mod free_index;
mod holders;
pub(crate) mod job;
pub mod metrics;
pub mod moments;
mod order;
pub(crate) mod placement;
pub(crate) mod policies;
pub mod policy;
pub(crate) mod queue;
pub mod replay;
pub(crate) mod running;
pub mod schedule;
mod shape_classes;
mod summarise;
mod summed_bits;
pub(crate) mod tuning;
pub mod view;
pub mod whatif;

pub use cluster::{ClusterState, Grant, TypeFilter};
pub use engine::{Engine, Event, PolicyFailure};
pub use job::{JobState, Phase, Resume};
pub use metrics::{Report, Summary};
pub use placement::Placement;
pub use policies::exec::{Question, Reply};
pub use policy::{KeyMeaning, Policy};
pub use tuning::{FairBy, Tuning};

use crate::trace::Trace;
use std::sync::Arc;

/// Runs `trace` under `policy` to the end and reports its metrics.
pub fn run(trace: Arc<Trace>, policy: Policy, placement: Placement) -> Report {
    run_with(trace, policy, placement, None)
}

/// An energy model and the power-limit policy to start with.
pub type Energy = Option<(Arc<energy::EnergyModel>, energy::PowerPolicy)>;

/// `run`, with an energy model.
pub(crate) fn run_with(
    trace: Arc<Trace>,
    policy: Policy,
    placement: Placement,
    energy: Energy,
) -> Report {
    let mut e = engine(
        trace,
        policy,
        placement,
        energy,
        &Arc::new(Tuning::default()),
    );
    drive::run_to_end(&mut e);
    e.final_report()
}

/// An engine at the start of `trace`, set up with every option.
pub fn engine(
    trace: Arc<Trace>,
    policy: Policy,
    placement: Placement,
    energy: Energy,
    tuning: &Arc<Tuning>,
) -> Engine {
    let mut e = Engine::new(trace, policy, placement).with_tuning(tuning.clone());
    if let Some((m, p)) = energy {
        e = e.with_energy(m, p);
    }
    e
}
