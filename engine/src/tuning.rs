//! Knobs of the preemptive policies: the restart cost, Tiresias's queue
//! thresholds and starvation guard, and what `fair` shares between.

use crate::error::ArgError;
use std::fmt;
use std::str::FromStr;
use std::time::Duration;
use tracetui_model::Secs;

/// Who `fair` shares the GPUs between.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FairBy {
    /// The job's user (a job without one is its own user).
    #[default]
    User,
    /// The job's group: PAI's group, Philly's virtual cluster.
    Group,
}

impl FairBy {
    /// Both, in the order lists show them.
    pub const ALL: [FairBy; 2] = [FairBy::User, FairBy::Group];

    /// One line on what it shares by, for help.
    pub fn about(self) -> &'static str {
        match self {
            FairBy::User => "The job's user (a job without one is its own user)",
            FairBy::Group => "The job's group: PAI's group, Philly's virtual cluster",
        }
    }

    /// Its name, as `--fair-by` takes it.
    pub fn name(self) -> &'static str {
        match self {
            FairBy::User => "user",
            FairBy::Group => "group",
        }
    }
}

/// The knobs of one run's policies, set before the replay starts: costs
/// of preemption and rescaling, `las`'s queues, what `fair` shares
/// between, an external policy's limits, and where warnings go.
#[derive(Debug, Clone, PartialEq)]
pub struct Tuning {
    /// Seconds a preempted job pays again when it resumes (restoring state).
    pub preempt_cost: Secs,
    /// Seconds an elastic job makes no progress after its GPUs change
    /// (grown, shrunk or moved: the gang stops, checkpoints and restarts).
    pub rescale_cost: Secs,
    /// `las` queue boundaries in GPU-seconds of attained service, ascending.
    pub las_thresholds: Vec<u64>,
    /// `las` starvation guard: a preempted job waiting longer than this many
    /// times its run so far goes back to the first queue for good (0 turns
    /// it off).
    pub las_starve: f64,
    /// Who `fair` shares the GPUs between (`--fair-by`).
    pub fair_by: FairBy,
    /// ElasticFlow's scheduling slot (`--rounds`), seconds: the least time
    /// between two rounds of the policies that decide in its rounds
    /// (`Rule::in_rounds`), and the grid their plans' ends fall on (60 in
    /// ElasticFlow's Figure 8, 240 in 9–11).
    pub rounds: Secs,
    /// `--rounds` was given: every other policy, built-in or external,
    /// decides only in those rounds too, paying ElasticFlow's overheads
    /// (`engine/rounds_gate.rs`).
    pub rounds_every: bool,
    /// How long an external policy may take to answer one message
    /// (`--policy-timeout`); each engine has its own.
    pub policy_timeout: Duration,
    /// Bytes of an external policy's answers kept for step back; past it
    /// the oldest go, and a copy that needs one asks the program again.
    pub answer_budget: usize,
    /// What policies are told of run times (`--estimate`).
    pub estimate: crate::estimate::Estimate,
    /// Where the engine's warnings go (a job rejected, a recorded hold
    /// over its machine's GPUs, answers no longer kept): the application's
    /// log; by default nowhere. The engine itself writes nothing.
    pub warn: Warn,
}

/// A sink for the engine's warnings, one line each (made safe already).
#[derive(Clone, Copy)]
pub struct Warn(pub fn(&str));

impl Warn {
    /// Says `line`.
    pub fn say(self, line: &str) {
        (self.0)(line)
    }
}

impl Default for Warn {
    fn default() -> Warn {
        Warn(|_| {})
    }
}

impl fmt::Debug for Warn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Warn")
    }
}

/// Where warnings go changes no result: any two sinks are the same knob.
impl PartialEq for Warn {
    fn eq(&self, _: &Warn) -> bool {
        true
    }
}

/// An external policy's time to answer one message when none is given.
pub const DEFAULT_POLICY_TIMEOUT: Duration = Duration::from_secs(10);

impl Default for Tuning {
    fn default() -> Tuning {
        Tuning {
            preempt_cost: 30,
            rescale_cost: 0,
            las_thresholds: vec![3600],
            las_starve: 2.0,
            fair_by: FairBy::User,
            rounds: 60,
            rounds_every: false,
            policy_timeout: DEFAULT_POLICY_TIMEOUT,
            answer_budget: 64 << 20,
            estimate: crate::estimate::Estimate::Oracle,
            warn: Warn::default(),
        }
    }
}

impl Tuning {
    /// The `las` queue (0 = first) for this much attained service (milli-GPU-seconds).
    pub fn las_queue(&self, attained_milli_s: u128) -> u8 {
        self.las_thresholds
            .iter()
            .take_while(|&&t| attained_milli_s >= t as u128 * 1000)
            .count() as u8
    }

    /// The next boundary above this much attained service, in milli-GPU-seconds.
    pub(crate) fn next_threshold(&self, attained_milli_s: u128) -> Option<u128> {
        self.las_thresholds
            .iter()
            .map(|&t| t as u128 * 1000)
            .find(|&t| t > attained_milli_s)
    }
}

/// `--las-thresholds 3600,36000`: ascending GPU-seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Thresholds(pub Vec<u64>);

impl FromStr for Thresholds {
    type Err = ArgError;
    fn from_str(s: &str) -> Result<Thresholds, ArgError> {
        let v: Result<Vec<u64>, ArgError> = s
            .split(',')
            .map(|x| {
                x.trim()
                    .parse::<u64>()
                    .map_err(|_| ArgError::Threshold(x.trim().to_string()))
            })
            .collect();
        let v = v?;
        if v.is_empty() || v.len() > 8 || v.contains(&0) || v.windows(2).any(|w| w[0] >= w[1]) {
            return Err(ArgError::Thresholds);
        }
        Ok(Thresholds(v))
    }
}

impl fmt::Display for Thresholds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s: Vec<String> = self.0.iter().map(u64::to_string).collect();
        f.write_str(&s.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queues_and_thresholds() {
        let t = Tuning {
            las_thresholds: vec![10, 100],
            ..Tuning::default()
        };
        assert_eq!(t.las_queue(0), 0);
        assert_eq!(t.las_queue(9_999), 0);
        assert_eq!(t.las_queue(10_000), 1);
        assert_eq!(t.las_queue(100_000), 2);
        assert_eq!(t.next_threshold(0), Some(10_000));
        assert_eq!(t.next_threshold(10_000), Some(100_000));
        assert_eq!(t.next_threshold(100_000), None);
        assert_eq!(
            "3600, 36000".parse::<Thresholds>().unwrap().0,
            vec![3600, 36000]
        );
        assert!("36000,3600".parse::<Thresholds>().is_err());
        assert!("x"
            .parse::<Thresholds>()
            .unwrap_err()
            .to_string()
            .contains("'x'"));
    }
}
