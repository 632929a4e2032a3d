//! Scheduling policies: the order the queue is walked in, and how the walk goes.

use crate::trace::model::Job;
use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Policy {
    /// The trace's own start times and placements.
    Recorded,
    /// Strict arrival order: the head blocks everything behind it.
    Fifo,
    /// Arrival order; every job that fits starts.
    FirstFit,
    /// EASY backfilling: later jobs may start if they do not delay the head's reservation.
    FifoBackfill,
    /// Shortest run time first (oracle run times).
    Sjf,
    /// Shortest GPU-time (run time × GPUs) first.
    Sgf,
    /// Preemptive shortest remaining time first.
    Srtf,
    /// Tiresias-style discretised least attained service (preemptive).
    Las,
    /// Equal shares of the GPUs per user (or group), preempting the most over-share.
    Fair,
    /// Earliest deadline first (preemptive), for traces with deadlines.
    Edf,
}

/// How a scheduling pass walks the queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Walk {
    /// Stop at the first job that does not fit.
    Strict,
    /// Start every job that fits, in order.
    Greedy,
    /// Strict for the head, then EASY backfill behind it.
    Backfill,
    /// No walk: jobs start at their recorded times.
    Recorded,
    /// Every job that fits starts, in order; one that does not may preempt
    /// running jobs of strictly lower priority.
    Preemptive,
}

impl Policy {
    pub const ALL: [Policy; 10] = [
        Policy::Recorded,
        Policy::Fifo,
        Policy::FirstFit,
        Policy::FifoBackfill,
        Policy::Sjf,
        Policy::Sgf,
        Policy::Srtf,
        Policy::Las,
        Policy::Fair,
        Policy::Edf,
    ];

    /// Every policy that simulates (all but `recorded`).
    pub fn simulated() -> impl Iterator<Item = Policy> {
        Policy::ALL.into_iter().filter(|p| *p != Policy::Recorded)
    }

    /// The simulated policies that never preempt.
    pub fn non_preemptive() -> impl Iterator<Item = Policy> {
        Policy::simulated().filter(|p| !p.preempts())
    }

    pub fn preempts(self) -> bool {
        self.walk() == Walk::Preemptive
    }

    pub fn name(self) -> &'static str {
        match self {
            Policy::Recorded => "recorded",
            Policy::Fifo => "fifo",
            Policy::FirstFit => "first-fit",
            Policy::FifoBackfill => "fifo-backfill",
            Policy::Sjf => "sjf",
            Policy::Sgf => "sgf",
            Policy::Srtf => "srtf",
            Policy::Las => "las",
            Policy::Fair => "fair",
            Policy::Edf => "edf",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Policy::Recorded => "the trace's own start times and placements",
            Policy::Fifo => "strict arrival order; the head blocks the queue",
            Policy::FirstFit => "arrival order; every job that fits starts",
            Policy::FifoBackfill => {
                "EASY backfill: later jobs start if they do not delay the head (oracle run times)"
            }
            Policy::Sjf => "shortest run time first (oracle)",
            Policy::Sgf => "shortest GPU-time (run time × GPUs) first (oracle)",
            Policy::Srtf => "preemptive shortest remaining time first (oracle)",
            Policy::Las => {
                "Tiresias 2D-LAS: least attained GPU-service first, discretised queues, preemptive"
            }
            Policy::Fair => "equal GPU shares per user (or group); preempts the most over-share",
            Policy::Edf => "earliest deadline first, preemptive",
        }
    }

    pub fn walk(self) -> Walk {
        match self {
            Policy::Recorded => Walk::Recorded,
            Policy::Fifo => Walk::Strict,
            Policy::FirstFit | Policy::Sjf | Policy::Sgf => Walk::Greedy,
            Policy::FifoBackfill => Walk::Backfill,
            Policy::Srtf | Policy::Las | Policy::Fair | Policy::Edf => Walk::Preemptive,
        }
    }

    /// The job's place in this policy's order, before the tie-break (submit, then trace order).
    /// `runtime` is the run time the job will have (it may differ from the
    /// trace's under a power-limit policy). The preemptive policies' keys
    /// depend on the replay's state; the engine computes those.
    pub fn key(self, job: &Job, runtime: Option<crate::trace::model::Secs>) -> u64 {
        let runtime = runtime.map_or(u64::MAX, |r| r.max(0) as u64);
        match self {
            Policy::Recorded | Policy::Fifo | Policy::FirstFit | Policy::FifoBackfill => 0,
            Policy::Sjf | Policy::Srtf => runtime,
            Policy::Sgf => runtime.saturating_mul(job.demand.total_milli()),
            Policy::Las | Policy::Fair => 0,
            Policy::Edf => deadline_key(job.deadline),
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Policy {
    type Err = String;

    fn from_str(s: &str) -> Result<Policy, String> {
        let s = s.trim().to_ascii_lowercase();
        Policy::ALL
            .into_iter()
            .find(|p| {
                p.name() == s
                    || (s == "backfill" && *p == Policy::FifoBackfill)
                    || (s == "firstfit" && *p == Policy::FirstFit)
            })
            .ok_or_else(|| {
                format!(
                    "unknown policy '{}'; choose from {}",
                    crate::trace::input::sanitize(&s),
                    Policy::ALL.map(|p| p.name()).join(", ")
                )
            })
    }
}

/// Deadlines in key order; a job without one comes after every job with one.
pub fn deadline_key(d: Option<crate::trace::model::Secs>) -> u64 {
    d.map_or(u64::MAX, |d| (d as u64) ^ (1 << 63))
}

/// A comma-separated list of policies, for `compare --policies`.
pub fn parse_list(s: &str) -> Result<Vec<Policy>, String> {
    let v: Result<Vec<Policy>, String> = s
        .split(',')
        .filter(|p| !p.trim().is_empty())
        .map(str::parse)
        .collect();
    let v = v?;
    if v.is_empty() {
        return Err("no policies given".into());
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in Policy::ALL {
            assert_eq!(p.name().parse::<Policy>().unwrap(), p);
        }
        assert_eq!("backfill".parse::<Policy>().unwrap(), Policy::FifoBackfill);
        assert!("lifo"
            .parse::<Policy>()
            .unwrap_err()
            .contains("choose from"));
        assert_eq!(
            parse_list("fifo, sjf").unwrap(),
            vec![Policy::Fifo, Policy::Sjf]
        );
        assert!(parse_list(",").is_err());
    }
}
