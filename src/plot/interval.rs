//! A point's 95 % interval that keeps to its metric's bounds: a share
//! (deadlines met, utilisation) by a percentile bootstrap of the mean,
//! which never leaves [0, 1]; any other metric by Student's t over the
//! sample standard deviation, floored at 0 where the metric cannot be
//! negative (times, counts).

use super::lines::LinePoint;

/// What values a metric may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bounds {
    /// A share, 0 to 1.
    Share,
    /// 0 or more (times, counts).
    NonNegative,
}

/// Student's t at 97.5 % for 1–30 degrees of freedom (beyond: 1.96).
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

/// Resamples of a bootstrap.
const RESAMPLES: usize = 4000;

/// The mean of `values` at `x` and its 95 % interval for a metric of
/// `bounds` (none from one value).
pub(crate) fn point(x: f64, values: &[f64], bounds: Bounds) -> LinePoint {
    let n = values.len();
    let mean = values.iter().sum::<f64>() / n.max(1) as f64;
    let (lo, hi, interval) = match (n, bounds) {
        (0 | 1, _) => (None, None, ""),
        (_, Bounds::Share) => {
            let (lo, hi) = bootstrap(values);
            (Some(lo), Some(hi), "bootstrap 95 %")
        }
        _ => {
            let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
            let t = T975.get(n - 2).copied().unwrap_or(1.96);
            let half = t * (var / n as f64).sqrt();
            let floored = bounds == Bounds::NonNegative && mean - half < 0.0;
            match floored {
                true => (
                    Some(0.0),
                    Some(mean + half),
                    "Student's t 95 %, floored at 0",
                ),
                false => (Some(mean - half), Some(mean + half), "Student's t 95 %"),
            }
        }
    };
    LinePoint {
        x,
        mean,
        lo,
        hi,
        n,
        interval,
    }
}

/// The 2.5th and 97.5th percentiles of the means of `RESAMPLES`
/// resamples of `values` (with replacement, from a fixed seed: the same
/// values give the same interval).
fn bootstrap(values: &[f64]) -> (f64, f64) {
    let mut rng = crate::trace::Rng::new(0x5eed);
    let n = values.len();
    let mut means: Vec<f64> = (0..RESAMPLES)
        .map(|_| {
            let sum: f64 = (0..n).map(|_| values[rng.below(n as u64) as usize]).sum();
            sum / n as f64
        })
        .collect();
    means.sort_by(f64::total_cmp);
    let at = |q: f64| means[((q * (RESAMPLES - 1) as f64).round() as usize).min(RESAMPLES - 1)];
    (at(0.025), at(0.975))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_share_s_interval_stays_in_its_bounds() {
        // Student's t would reach below 0 here: 0.02 ± 4.303 × 0.0173.
        let p = point(1.0, &[0.0, 0.0, 0.06], Bounds::Share);
        let (lo, hi) = (p.lo.unwrap(), p.hi.unwrap());
        assert!(
            (0.0..=p.mean).contains(&lo) && (p.mean..=0.06).contains(&hi),
            "{lo} {hi}"
        );
        assert_eq!(p.interval, "bootstrap 95 %");
        assert_eq!(point(1.0, &[0.0, 0.0, 0.06], Bounds::Share), p, "seeded");
        let t = point(1.0, &[1.0, 1.0, 10.0], Bounds::NonNegative);
        assert_eq!(t.lo, Some(0.0));
        assert_eq!(t.interval, "Student's t 95 %, floored at 0");
    }
}
