//! A run's fragmentation over time: FGD's measure of the cluster after
//! each instant, integrated to the next, for the run's summary.

use serde::Serialize;
use tracetui_model::Secs;

/// The cluster's fragmentation (FGD's measure) and its free GPUs over time,
/// integrated from each instant to the next.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FragTally {
    /// When it was first measured, trace seconds.
    pub since: Secs,
    /// The last instant measured, and the values from it on.
    pub last: Secs,
    /// Fragmentation then, % of the cluster's GPUs.
    pub pct: f64,
    /// Free GPUs then.
    pub free: f64,
    /// ∫ fragmentation % dt and ∫ free GPUs dt so far.
    pub pct_secs: f64,
    /// See `pct_secs`.
    pub free_secs: f64,
    /// The most it has been, %.
    pub max_pct: f64,
}

/// A run's fragmentation, in its summary (traces of pods; FGD's measure).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Fragmented {
    /// Time-weighted mean, % of the cluster's GPUs.
    pub mean_pct: f64,
    /// The highest it reached, %.
    pub max_pct: f64,
    /// Free GPUs on average over the same time (FGD's unallocated GPUs).
    pub unallocated_gpus_mean: f64,
}

impl super::metrics::Tally {
    /// The cluster at `t` (after the instant's changes): `pct` % of its GPUs
    /// fragmented, `free` GPUs free.
    pub(crate) fn note_frag(&mut self, t: Secs, pct: f64, free: f64) {
        let f = self.frag.get_or_insert(FragTally {
            since: t,
            last: t,
            ..FragTally::default()
        });
        let dt = (t - f.last).max(0) as f64;
        f.pct_secs += f.pct * dt;
        f.free_secs += f.free * dt;
        (f.last, f.pct, f.free) = (t, pct, free);
        f.max_pct = f.max_pct.max(pct);
    }

    /// The fragmentation's summary, where it was measured.
    pub fn fragmented(&self) -> Option<Fragmented> {
        let f = self.frag?;
        let span = (f.last - f.since) as f64;
        let (mean, free) = if span > 0.0 {
            (f.pct_secs / span, f.free_secs / span)
        } else {
            (f.pct, f.free)
        };
        Some(Fragmented {
            mean_pct: mean,
            max_pct: f.max_pct,
            unallocated_gpus_mean: free,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::metrics::Tally;

    #[test]
    fn fragmentation_is_weighted_by_the_time_it_lasted() {
        let mut t = Tally::default();
        assert!(t.fragmented().is_none(), "not measured, not said");
        t.note_frag(100, 10.0, 5.0);
        assert_eq!(
            t.fragmented().unwrap().mean_pct,
            10.0,
            "one instant: its value"
        );
        t.note_frag(110, 20.0, 3.0);
        t.note_frag(130, 0.0, 0.0);
        let f = t.fragmented().unwrap();
        // 10 % for 10 s, 20 % for 20 s.
        assert!((f.mean_pct - 500.0 / 30.0).abs() < 1e-12, "{f:?}");
        assert!((f.unallocated_gpus_mean - 110.0 / 30.0).abs() < 1e-12);
        assert_eq!(f.max_pct, 20.0);
    }
}
