//! The step maps ElasticFlow plans with: time → a value that holds from
//! that time on (free GPUs of the cluster, or a job's GPUs), kept sorted.

use crate::trace::model::Secs;

/// ElasticFlow's scheduling slot, seconds: plans are on a grid of this
/// step from the round's time, and rounds are at least this far apart.
pub(super) const SLOT: Secs = 60;

/// Time → free GPUs from then on (ElasticFlow's `future_free_gpus`).
pub(super) type Free = Steps<i64>;
/// Time → the GPUs a job holds from then on (its `allocations`).
pub(super) type Alloc = Steps<u32>;

/// A step map: (time, value) pairs sorted by time, each time once. A
/// sorted vector rather than a tree: plans clone and scan whole maps
/// thousands of times a round, and a vector clones with one copy.
#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct Steps<V>(Vec<(Secs, V)>);

impl<V: Copy + PartialEq, const N: usize> From<[(Secs, V); N]> for Steps<V> {
    fn from(pairs: [(Secs, V); N]) -> Self {
        let mut s = Steps(Vec::with_capacity(N));
        for (k, v) in pairs {
            s.insert(k, v);
        }
        s
    }
}

impl<V: Copy + PartialEq> Steps<V> {
    pub(super) fn new() -> Self {
        Steps(Vec::new())
    }

    /// Where `k` is, or would go.
    fn find(&self, k: Secs) -> Result<usize, usize> {
        self.0.binary_search_by_key(&k, |e| e.0)
    }

    /// The index of the first key not before `k`.
    fn lower(&self, k: Secs) -> usize {
        self.0.partition_point(|e| e.0 < k)
    }

    pub(super) fn get(&self, k: Secs) -> Option<V> {
        self.find(k).ok().map(|i| self.0[i].1)
    }

    pub(super) fn contains_key(&self, k: Secs) -> bool {
        self.find(k).is_ok()
    }

    pub(super) fn insert(&mut self, k: Secs, v: V) {
        match self.find(k) {
            Ok(i) => self.0[i].1 = v,
            Err(i) => self.0.insert(i, (k, v)),
        }
    }

    /// A copy with room for a few more steps (a plan adds some).
    pub(super) fn roomy_clone(&self) -> Self {
        let mut v = Vec::with_capacity(self.0.len() + 16);
        v.extend_from_slice(&self.0);
        Steps(v)
    }

    /// Every key of `keys` (ascending) not yet a key gets the value `v`.
    pub(super) fn fill_keys(&mut self, keys: &[(Secs, impl Copy)], v: V) {
        let old = std::mem::take(&mut self.0);
        let mut out = Vec::with_capacity(old.len() + keys.len());
        let mut i = 0;
        for (k, x) in old {
            while i < keys.len() && keys[i].0 < k {
                out.push((keys[i].0, v));
                i += 1;
            }
            if i < keys.len() && keys[i].0 == k {
                i += 1;
            }
            out.push((k, x));
        }
        out.extend(keys[i..].iter().map(|e| (e.0, v)));
        self.0 = out;
    }

    /// The value at `k`, set to `v` first if `k` is not a key.
    pub(super) fn at_or_insert(&mut self, k: Secs, v: V) -> &mut V {
        let i = match self.find(k) {
            Ok(i) => i,
            Err(i) => {
                self.0.insert(i, (k, v));
                i
            }
        };
        &mut self.0[i].1
    }

    /// The steps whose keys are in `lo..hi` (none if `hi` is not after `lo`).
    pub(super) fn range(&self, lo: Secs, hi: Secs) -> &[(Secs, V)] {
        let (a, b) = (self.lower(lo), self.lower(hi));
        &self.0[a..b.max(a)]
    }

    #[cfg(test)]
    pub(super) fn range_mut(&mut self, lo: Secs, hi: Secs) -> &mut [(Secs, V)] {
        let (a, b) = (self.lower(lo), self.lower(hi));
        &mut self.0[a..b.max(a)]
    }

    /// The indices of the steps whose keys are in `lo..hi`.
    pub(super) fn bounds(&self, lo: Secs, hi: Secs) -> (usize, usize) {
        (self.lower(lo), self.lower(hi))
    }

    pub(super) fn key(&self, i: usize) -> Secs {
        self.0[i].0
    }

    pub(super) fn value(&self, i: usize) -> V {
        self.0[i].1
    }

    pub(super) fn value_mut(&mut self, i: usize) -> &mut V {
        &mut self.0[i].1
    }

    /// `insert` for keys given in ascending order: the search starts at
    /// `*from`, which is left at the key.
    pub(super) fn put_from(&mut self, from: &mut usize, k: Secs, v: V) {
        let mut i = *from;
        while i < self.0.len() && self.0[i].0 < k {
            i += 1;
        }
        match self.0.get_mut(i) {
            Some(e) if e.0 == k => e.1 = v,
            _ => self.0.insert(i, (k, v)),
        }
        *from = i;
    }

    /// The keys in `lo..hi`.
    pub(super) fn keys_in(&self, lo: Secs, hi: Secs) -> Vec<Secs> {
        self.range(lo, hi).iter().map(|e| e.0).collect()
    }

    /// The steps with keys from `lo` on.
    pub(super) fn since(&self, lo: Secs) -> &[(Secs, V)] {
        &self.0[self.lower(lo)..]
    }

    /// The first key after `x`.
    pub(super) fn key_after(&self, x: Secs) -> Option<Secs> {
        self.since(x.saturating_add(1)).first().map(|e| e.0)
    }

    /// The last step with a key before `x`.
    pub(super) fn last_before(&self, x: Secs) -> Option<(Secs, V)> {
        self.0[..self.lower(x)].last().copied()
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = (Secs, V)> + '_ {
        self.0.iter().copied()
    }

    /// Every step whose value repeats the one before dropped
    /// (run-length: the same steps).
    pub(super) fn merged(mut self) -> Self {
        self.0.dedup_by(|b, a| a.1 == b.1);
        self
    }
}

/// The reservations `free` with a job's plan `alloc` given back until
/// its `end` (ElasticFlow's copy of `future_free_gpus` in `get_marginal`):
/// on every key of either and at `end`, the free count plus the GPUs the
/// plan holds there before `end` (a map with no key yet at a time counts
/// `n` free there, a plan 0), merged. One pass over the three.
pub(super) fn given_back(free: &Free, alloc: &Alloc, end: Secs, n: i64) -> Free {
    let (f, a) = (&free.0, &alloc.0);
    let mut out = Vec::with_capacity(f.len() + a.len() + 1);
    let (mut i, mut j, mut e) = (0, 0, false);
    let (mut fv, mut av) = (n, 0i64);
    const NONE: Secs = Secs::MAX;
    loop {
        let fk = if i < f.len() { f[i].0 } else { NONE };
        let ak = if j < a.len() { a[j].0 } else { NONE };
        let ek = if e { NONE } else { end };
        let k = fk.min(ak).min(ek);
        if k == NONE && i >= f.len() && j >= a.len() && e {
            break;
        }
        if fk == k && i < f.len() {
            fv = f[i].1;
            i += 1;
        }
        if ak == k && j < a.len() {
            av = a[j].1 as i64;
            j += 1;
        }
        e |= ek == k;
        out.push((k, if k < end { fv + av } else { fv }));
    }
    Steps(out).merged()
}

/// `x` rounded up to the slot grid that starts at `s` (`s + 60k`, the
/// least such time not before `x`; for any sign of `x − s`).
pub(super) fn align(s: Secs, x: Secs) -> Secs {
    let d = x - s;
    let k = d.div_euclid(SLOT) + i64::from(d.rem_euclid(SLOT) > 0);
    s + k * SLOT
}

/// The value in force just before `x` (at the last key below it).
pub(super) fn before<V: Copy + PartialEq>(m: &Steps<V>, x: Secs) -> Option<V> {
    m.last_before(x).map(|e| e.1)
}

/// The value in force at `x` (at the last key not after it).
#[cfg(test)]
pub(super) fn at<V: Copy + PartialEq>(m: &Steps<V>, x: Secs) -> Option<V> {
    m.last_before(x.saturating_add(1)).map(|e| e.1)
}

/// GPU-seconds of an allocation from its first key to `end` (the last
/// step counted to `end`, negative if it starts after it).
pub(super) fn gpu_secs(a: &Alloc, end: Secs) -> i64 {
    let mut sum = 0i64;
    let mut it = a.iter().peekable();
    while let Some((k, g)) = it.next() {
        let to = it.peek().map_or(end, |&(n, _)| n);
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

    /// `given_back` against the insert-by-insert construction it replaces.
    #[test]
    fn given_back_adds_the_plan_until_its_end() {
        let slow = |f: &Free, a: &Alloc, end: Secs, n: i64| {
            let mut tmp = f.clone();
            if !tmp.contains_key(end) {
                tmp.insert(end, before(&tmp, end).unwrap_or(n));
            }
            let mut last = 0i64;
            for (k, g) in a.iter() {
                if !tmp.contains_key(k) {
                    tmp.insert(k, at(&tmp, k).unwrap_or(n));
                }
                if k < end {
                    for (_, v) in tmp.range_mut(k, end) {
                        *v += g as i64 - last;
                    }
                }
                last = g as i64;
            }
            tmp.merged()
        };
        let f: Free = [(0, 10), (60, 4), (180, 8), (300, 16)].into();
        let cases: [(Alloc, Secs); 6] = [
            ([(0, 2), (120, 4), (240, 0)].into(), 240),
            ([(0, 2), (120, 4)].into(), 200),
            ([(30, 1), (400, 2)].into(), 500),
            ([(-60, 8)].into(), 60),
            ([(0, 6)].into(), 1000),
            (Alloc::new(), 90),
        ];
        for (a, end) in cases {
            assert_eq!(
                given_back(&f, &a, end, 16),
                slow(&f, &a, end, 16),
                "{a:?} {end}"
            );
        }
        assert_eq!(
            given_back(&Free::new(), &[(0, 2)].into(), 60, 8),
            slow(&Free::new(), &[(0, 2)].into(), 60, 8)
        );
    }

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
        let got = m.merged();
        assert_eq!(got, [(0, 2), (120, 4), (180, 0)].into());
        assert_eq!(gpu_secs(&got, 300), 2 * 120 + 4 * 60);
        assert_eq!(gpu_secs(&Alloc::from([(0, 16)]), 480), 16 * 480);
        assert_eq!(before(&got, 120), Some(2));
        assert_eq!(at(&got, 120), Some(4));
        assert_eq!(before(&got, 0), None);
    }
}
