//! The step maps ElasticFlow plans with: time → a value that holds from
//! that time on (free GPUs of the cluster, or a job's GPUs), kept sorted.

use crate::trace::model::Secs;
use std::collections::BTreeMap;

/// ElasticFlow's scheduling slot, seconds: plans are on a grid of this
/// step from the round's time, and rounds are at least this far apart.
pub(super) const SLOT: Secs = 60;

/// Time → free GPUs from then on (ElasticFlow's `future_free_gpus`).
pub(super) type Free = BTreeMap<Secs, i64>;
/// Time → the GPUs a job holds from then on (its `allocations`).
pub(super) type Alloc = BTreeMap<Secs, u32>;

/// `x` rounded up to the slot grid that starts at `s` (`s + 60k`, the
/// least such time not before `x`; for any sign of `x − s`).
pub(super) fn align(s: Secs, x: Secs) -> Secs {
    let d = x - s;
    let k = d.div_euclid(SLOT) + i64::from(d.rem_euclid(SLOT) > 0);
    s + k * SLOT
}

/// The map with every key whose value repeats the one before dropped
/// (run-length: the same steps).
pub(super) fn merge<V: Copy + PartialEq>(m: &BTreeMap<Secs, V>) -> BTreeMap<Secs, V> {
    let mut out = BTreeMap::new();
    let mut last = None;
    for (&k, &v) in m {
        if last != Some(v) {
            out.insert(k, v);
            last = Some(v);
        }
    }
    out
}

/// The value in force just before `x` (at the last key below it).
pub(super) fn before<V: Copy>(m: &BTreeMap<Secs, V>, x: Secs) -> Option<V> {
    m.range(..x).next_back().map(|(_, &v)| v)
}

/// The value in force at `x` (at the last key not after it).
pub(super) fn at<V: Copy>(m: &BTreeMap<Secs, V>, x: Secs) -> Option<V> {
    m.range(..=x).next_back().map(|(_, &v)| v)
}

/// GPU-seconds of an allocation from its first key to `end` (the last
/// step counted to `end`, negative if it starts after it).
pub(super) fn gpu_secs(a: &Alloc, end: Secs) -> i64 {
    let mut sum = 0i64;
    let mut it = a.iter().peekable();
    while let Some((&k, &g)) = it.next() {
        let to = it.peek().map_or(end, |(&n, _)| n);
        sum = sum.saturating_add((g as i64).saturating_mul(to - k));
    }
    sum
}

/// `ceil(x)` as whole seconds (saturating for a value beyond any time).
pub(super) fn ceil_secs(x: f64) -> Secs {
    let c = x.ceil();
    if c.is_finite() {
        c.clamp(-(i64::MAX as f64) / 4.0, i64::MAX as f64 / 4.0) as Secs
    } else if c > 0.0 {
        i64::MAX / 4
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn align_rounds_up_on_the_grid_from_its_start() {
        assert_eq!(align(100, 100), 100);
        assert_eq!(align(100, 101), 160);
        assert_eq!(align(100, 160), 160);
        assert_eq!(align(100, 70), 100);
        assert_eq!(align(100, 10), 40);
        assert_eq!(align(0, 3368), 3420);
    }

    #[test]
    fn merge_keeps_steps_and_gpu_secs_sums_them() {
        let m: Alloc = [(0, 2), (60, 2), (120, 4), (180, 0), (240, 0)].into();
        let got = merge(&m);
        assert_eq!(got, [(0, 2), (120, 4), (180, 0)].into());
        assert_eq!(gpu_secs(&got, 300), 2 * 120 + 4 * 60);
        assert_eq!(gpu_secs(&[(0, 16)].into(), 480), 16 * 480);
        assert_eq!(before(&got, 120), Some(2));
        assert_eq!(at(&got, 120), Some(4));
        assert_eq!(before(&got, 0), None);
    }
}
