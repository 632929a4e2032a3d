//! A run's attempts binned as FGD's analysis scripts bin them: by the
//! arrived GPU request in whole percent of the cluster's GPUs (0 … 130),
//! each bin the mean over its attempts.

use super::inflate::Attempt;

/// Bins: 0 … 130 % of arrived workload.
pub const BINS: usize = 131;

/// A run's curves, one value per bin (none: no attempt near it).
#[derive(Debug, Clone, PartialEq)]
pub struct Discrete {
    /// GPU allocation ratio, % of the cluster's GPUs.
    pub alloc: Vec<Option<f64>>,
    /// Fragmentation, % of the cluster's GPUs.
    pub frag: Vec<Option<f64>>,
}

/// `x` rounded to 2 decimals as Python's `round(x, 2)` rounds it (the
/// value's exact decimal expansion, correctly rounded).
pub fn round2(x: f64) -> f64 {
    format!("{x:.2}").parse().unwrap_or(x)
}

/// `attempts` binned: an attempt falls in the bin of its arrived percent
/// (rounded half to even); a bin with none takes those within one percent.
/// Allocation is each attempt's ratio rounded to 2 decimals, then their
/// mean rounded; fragmentation the mean, then its ratio rounded.
pub fn discrete(attempts: &[Attempt], gpus: u64) -> Discrete {
    let k = gpus.max(1) as f64;
    let bin: Vec<i64> = attempts
        .iter()
        .map(|a| (a.arrived as f64 / k / 10.0).round_ties_even() as i64)
        .collect();
    let mean = |x: i64, f: &dyn Fn(&Attempt) -> f64| -> Option<f64> {
        let pick = |near: i64| {
            let v: Vec<f64> = attempts
                .iter()
                .zip(&bin)
                .filter(|(_, &b)| (b - x).abs() <= near)
                .map(|(a, _)| f(a))
                .collect();
            (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
        };
        pick(0).or_else(|| pick(1))
    };
    let mut d = Discrete {
        alloc: Vec::with_capacity(BINS),
        frag: Vec::with_capacity(BINS),
    };
    for x in 0..BINS as i64 {
        d.alloc
            .push(mean(x, &|a| round2(a.allocated as f64 / k / 10.0)).map(round2));
        d.frag
            .push(mean(x, &|a| a.frag).map(|m| round2(100.0 * m / 1000.0 / k)));
    }
    d
}
