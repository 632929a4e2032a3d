//! What policies are told of a job's run time (`--estimate`). The engine
//! runs every job for its true run time; a policy that orders by run time
//! (`sjf`, `srtf`, `sgf`, EASY backfill's reservation, an external
//! policy's `runtime`) sees an estimate of it:
//! - `oracle`: the true run time (the default, and what every simulator of
//!   this line of work assumes);
//! - `requested`: the run time the job's submitter asked for, where the
//!   trace records one (a batch system's time limit);
//! - `lognormal:σ`: the true run time times e^(σ·Z), Z a standard normal
//!   drawn for each job from `--estimate-seed` (σ = 0.5: half the jobs
//!   within ×0.71–×1.40 of the truth).
//!
//! An estimate's error is carried as seconds against the truth: a job
//! estimated at 90 s that runs 100 s is told it has 90 − (work done) left,
//! and while it runs past its estimate it is expected to end now.

use crate::error::ArgError;
use std::fmt;
use std::str::FromStr;
use tracetui_model::{Rng, Secs, Trace};

/// How run times are estimated.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Estimate {
    /// The true run time.
    #[default]
    Oracle,
    /// The run time the trace records its submitter asked for.
    Requested,
    /// The true run time times e^(σ·Z), Z drawn per job from `seed`.
    LogNormal {
        /// The log-space standard deviation.
        sigma: f64,
        /// The seed of every job's draw.
        seed: u64,
    },
}

/// The largest σ taken: e^(5·3) is a 3-million-fold error already.
const MOST_SIGMA: f64 = 5.0;

impl Estimate {
    /// The estimate of a job whose true run time is `truth` (job `job`
    /// of `trace`); none where there is none to give.
    pub fn of(self, trace: &Trace, job: u32, truth: Option<Secs>) -> Option<Secs> {
        match self {
            Estimate::Oracle => truth,
            Estimate::Requested => trace.jobs[job as usize].requested.get(),
            Estimate::LogNormal { sigma, seed } => {
                let f = factor(sigma, seed, job);
                truth.map(|t| (t as f64 * f).round().clamp(0.0, Secs::MAX as f64 / 4.0) as Secs)
            }
        }
    }

    /// Whether policies see the truth.
    pub fn is_oracle(self) -> bool {
        self == Estimate::Oracle
    }

    /// With `seed` for a noisy estimate (`--estimate-seed`).
    pub fn seeded(self, seed: u64) -> Estimate {
        match self {
            Estimate::LogNormal { sigma, .. } => Estimate::LogNormal { sigma, seed },
            e => e,
        }
    }

    /// Refuses `requested` on a trace that records no requested time for
    /// some job.
    pub fn check(self, trace: &Trace) -> Result<(), ArgError> {
        if self != Estimate::Requested {
            return Ok(());
        }
        match trace.jobs.iter().find(|j| j.requested.get().is_none()) {
            None => Ok(()),
            Some(j) => Err(ArgError::NoRequested {
                format: trace.format.to_string(),
                job: tracetui_model::text::sanitize(j.id.as_str()),
            }),
        }
    }
}

/// Job `job`'s error factor: e^(σ·Z), Z from its own stream of `seed` (so
/// a job's estimate does not depend on which others are in the trace).
fn factor(sigma: f64, seed: u64, job: u32) -> f64 {
    let mut rng = Rng::new(seed ^ (job as u64 + 1).wrapping_mul(0xD1B5_4A32_D192_ED03));
    (sigma * rng.normal()).exp()
}

impl FromStr for Estimate {
    type Err = ArgError;

    fn from_str(s: &str) -> Result<Estimate, ArgError> {
        let s = s.trim();
        match s {
            "oracle" => return Ok(Estimate::Oracle),
            "requested" => return Ok(Estimate::Requested),
            _ => {}
        }
        let sigma = s
            .strip_prefix("lognormal:")
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|v| v.is_finite() && *v > 0.0 && *v <= MOST_SIGMA);
        match sigma {
            Some(sigma) => Ok(Estimate::LogNormal { sigma, seed: 0 }),
            None => Err(ArgError::Estimate(s.to_string())),
        }
    }
}

impl fmt::Display for Estimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Estimate::Oracle => f.write_str("oracle"),
            Estimate::Requested => f.write_str("requested"),
            Estimate::LogNormal { sigma, seed } => write!(f, "lognormal:{sigma} (seed {seed})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_names_parse_and_bad_ones_are_refused() {
        assert_eq!("oracle".parse::<Estimate>().unwrap(), Estimate::Oracle);
        assert_eq!(
            " requested".parse::<Estimate>().unwrap(),
            Estimate::Requested
        );
        assert_eq!(
            "lognormal:0.5".parse::<Estimate>().unwrap().seeded(3),
            Estimate::LogNormal {
                sigma: 0.5,
                seed: 3
            }
        );
        for bad in [
            "",
            "lognormal",
            "lognormal:0",
            "lognormal:-1",
            "lognormal:9",
            "lognormal:nan",
            "best",
        ] {
            assert!(bad.parse::<Estimate>().is_err(), "{bad}");
        }
    }

    #[test]
    fn a_noisy_estimate_is_seeded_per_job_and_log_normal() {
        let (sigma, n) = (0.5, 20_000u32);
        let logs: Vec<f64> = (0..n).map(|j| factor(sigma, 7, j).ln()).collect();
        let mean = logs.iter().sum::<f64>() / n as f64;
        let sd = (logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / n as f64).sqrt();
        assert!(mean.abs() < 0.02, "{mean}");
        assert!((sd - sigma).abs() < 0.02, "{sd}");
        assert_eq!(factor(sigma, 7, 11), factor(sigma, 7, 11));
        assert_ne!(factor(sigma, 7, 11), factor(sigma, 8, 11));
        assert_ne!(factor(sigma, 7, 11), factor(sigma, 7, 12));
    }
}
