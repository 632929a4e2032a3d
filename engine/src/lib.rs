#![warn(unreachable_pub)]
#![warn(missing_docs)]
//! tracetui's engine: the cluster, placement, the policies, the replay,
//! metrics and what-if, over the model (`tracetui_model`). Pure: no
//! terminal, no command line, no process, no clock. An engine whose
//! policy is a program stops at a [`Question`] that whoever drives it
//! answers ([`Answers`]: the driver crate). Everything other crates use is
//! re-exported here, by subject.

mod answered;
mod ask;
pub(crate) mod backfill;
pub(crate) mod cluster;
mod energy;
mod engine;
mod error;
mod estimate;
mod frag_tally;
mod free_index;
mod grant;
mod holders;
pub(crate) mod job;
mod ledger;
mod machine_use;
mod metrics;
pub(crate) mod moments;
mod order;
pub(crate) mod placement;
pub(crate) mod policies;
mod policy;
mod programs;
pub(crate) mod queue;
pub(crate) mod registry;
mod replay;
pub(crate) mod rule;
pub(crate) mod running;
mod schedule;
mod shape_classes;
pub mod sharing;
mod summarise;
mod summed_bits;
pub(crate) mod switch;
mod tuning;
mod type_filter;
mod view;
pub(crate) mod waits;
pub(crate) mod walk;
mod whatif;

// The engine: a simulation, its events, and a replay of one.
pub use engine::{Blocked, Engine, Event, PolicyFailure, QueuePlace, Switch};
pub use job::{JobState, Phase, Resume};
pub use moments::{next_moment, Moment};
pub use replay::Replay;

// The cluster and placement.
pub use cluster::{ClusterState, Grant, HostUse, TypeFilter};
pub use machine_use::{MachineUse, MachineUses};
pub use placement::{place, Placement};

// Policies: the built-in ones, a rule's interface, and what one sees.
/// Renamed from `policy::parse_list`: a list of policies, parsed.
pub use policy::parse_list as parse_policy_list;
pub use policy::{Books, KeyMeaning, Policy, Rule, Unavailable, Walk};
pub use registry::Policies;
pub use view::{Acts, Answer, Checked, NoAnswer, View};

// Settings: the engine's tuning.
pub use estimate::Estimate;
pub use tuning::{FairBy, Thresholds, Tuning, Warn, DEFAULT_POLICY_TIMEOUT};

// Metrics: a run's report and its distributions.
pub use frag_tally::{FragTally, Fragmented};
pub use metrics::{percentile_sorted, Dists, Report, Summary, Tally};

// Schedules: policy switches at trace times.
/// Renamed from `schedule::drive`: an engine run with a schedule's switches.
pub use schedule::drive as drive_schedule;
pub use schedule::{parse_at, policy_words, Schedule};

// What-if: every policy run from the replay's moment.
/// Renamed from `whatif::Msg`: a what-if worker's message.
pub use whatif::Msg as WhatIfMsg;
/// Renamed from `whatif::Run`: one row of the what-if fork.
pub use whatif::Run as WhatIfRun;
pub use whatif::{rows_at_once, runs_for, Fork};

// Energy: the power model and each job's workload.
pub use energy::{kwh, workload_of, workload_table, EnergyModel, Mapped, PowerPolicy, WorkloadRow};

// Errors: arguments refused, and programs that break the protocol.
pub use error::{ArgError, ProtocolError};

// Questions a program's policy asks, and who answers them.
/// Renamed from `answered::advance_to`: the driver's `advance_to` is its own.
pub use answered::advance_to as advance_to_answered;
/// Renamed from `answered::run_to_end`: the driver's `run_to_end` is its own.
pub use answered::run_to_end as run_to_end_answered;
/// Renamed from `answered::seek`: the driver's `seek` is its own.
pub use answered::seek as seek_answered;
pub use answered::{settle_with, Asks};
pub use ask::{Answers, DialogueId, Known, NoPrograms, Question, Reply, Said, Watch};

// Policies that are programs: their hello, their parameters, registering one.
/// Renamed from `programs::hear`: a program's hello, heard.
pub use programs::hear as hear_program;
/// Renamed from `programs::name`: a program's policy name.
pub use programs::name as program_name;
/// Renamed from `programs::register`: a program's policy, registered.
pub use programs::register as register_program;
/// Renamed from `programs::registered`: a program's policy, if registered.
pub use programs::registered as registered_program;
pub use programs::{hello_message, Heard, Params};

use std::sync::Arc;
use tracetui_model::Trace;

/// Runs `trace` under a built-in `policy` to the end and reports its
/// metrics (a program's questions fail: the driver answers them).
pub fn run(trace: Arc<Trace>, policy: Policy, placement: Placement) -> Report {
    run_with(trace, policy, placement, None, &NoPrograms)
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
