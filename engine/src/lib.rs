#![warn(unreachable_pub)]
#![warn(missing_docs)]
//! tracetui's engine: the cluster, placement, the policies, the replay,
//! metrics and what-if, over the model (`tracetui_model`). Pure: no
//! terminal, no command line, no process, no clock. An engine whose
//! policy is a program stops at a question (`ask`) that whoever drives it
//! answers (`answered`, the driver crate).

pub mod answered;
pub mod ask;
pub(crate) mod backfill;
pub(crate) mod cluster;
pub mod energy;
pub mod engine;
pub mod error;
mod free_index;
mod holders;
pub(crate) mod job;
pub mod metrics;
pub(crate) mod moments;
mod order;
pub(crate) mod placement;
pub(crate) mod policies;
pub mod policy;
pub mod programs;
pub(crate) mod queue;
pub(crate) mod registry;
pub mod replay;
pub(crate) mod rule;
pub(crate) mod running;
pub mod schedule;
mod shape_classes;
mod summarise;
mod summed_bits;
pub(crate) mod switch;
pub mod tuning;
pub mod view;
pub(crate) mod waits;
pub(crate) mod walk;
pub mod whatif;

pub use ask::{Answers, NoPrograms, Question, Reply};
pub use cluster::{ClusterState, Grant, TypeFilter};
pub use engine::{Engine, Event, PolicyFailure};
pub use job::{JobState, Phase, Resume};
pub use metrics::{Report, Summary};
pub use moments::{next_moment, Moment};
pub use placement::{place, Placement};
pub use policies::exec::Params;
pub use policy::{KeyMeaning, Policy};
pub use registry::Policies;
pub use tuning::{FairBy, Tuning};

use std::sync::Arc;
use tracetui_model::Trace;

/// Runs `trace` under a built-in `policy` to the end and reports its
/// metrics (a program's questions fail: see `run_answered`).
pub fn run(trace: Arc<Trace>, policy: Policy, placement: Placement) -> Report {
    run_answered(trace, policy, placement, &NoPrograms)
}

/// `run`, the questions of a policy that is a program answered by `answers`.
pub fn run_answered(
    trace: Arc<Trace>,
    policy: Policy,
    placement: Placement,
    answers: &dyn Answers,
) -> Report {
    run_with(trace, policy, placement, None, answers)
}

/// An energy model and the power-limit policy to start with.
pub type Energy = Option<(Arc<energy::EnergyModel>, energy::PowerPolicy)>;

/// `run`, with an energy model.
pub(crate) fn run_with(
    trace: Arc<Trace>,
    policy: Policy,
    placement: Placement,
    energy: Energy,
    answers: &dyn Answers,
) -> Report {
    let mut e = engine(
        trace,
        policy,
        placement,
        energy,
        &Arc::new(Tuning::default()),
    );
    answered::run_to_end(&mut e, answers);
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
