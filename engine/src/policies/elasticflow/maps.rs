//! The step maps ElasticFlow plans with: time → a value that holds from
//! that time on (free GPUs of the cluster, or a job's GPUs), kept sorted.

use tracetui_model::Secs;

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

    /// Becomes a copy of `other` (in the room it has: a plan adds steps).
    pub(super) fn refill_from(&mut self, other: &Self) {
        self.0.clear();
        self.0.reserve(other.0.len() + 16);
        self.0.extend_from_slice(&other.0);
    }

    /// Becomes the one step `(k, v)`.
    pub(super) fn reset_to(&mut self, k: Secs, v: V) {
        self.0.clear();
        self.0.push((k, v));
    }

    /// Every key of `keys` (ascending) not yet a key gets the value `v`:
    /// merged from the back, in place.
    pub(super) fn fill_keys(&mut self, keys: &[(Secs, impl Copy)], v: V) {
        let m = self.0.len();
        let (mut i, mut c) = (0, 0);
        for k in keys {
            while i < m && self.0[i].0 < k.0 {
                i += 1;
            }
            if i == m || self.0[i].0 != k.0 {
                c += 1;
            }
        }
        if c == 0 {
            return;
        }
        let fill = self.0.first().map_or((0, v), |&e| e);
        self.0.resize(m + c, fill);
        let (mut a, mut b, mut w) = (m, keys.len(), m + c);
        while b > 0 {
            let k = keys[b - 1].0;
            w -= 1;
            if a > 0 && self.0[a - 1].0 > k {
                self.0[w] = self.0[a - 1];
                a -= 1;
            } else if a > 0 && self.0[a - 1].0 == k {
                self.0[w] = self.0[a - 1];
                a -= 1;
                b -= 1;
            } else {
                self.0[w] = (k, v);
                b -= 1;
            }
        }
    }

    /// Drops every step before `k`.
    pub(super) fn drop_before(&mut self, k: Secs) {
        let i = self.lower(k);
        self.0.drain(..i);
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

    /// Where the values of `self` and `other`, both starting at `t`,
    /// differ after their first steps: spans `[a, b)` from the first key
    /// after `t` in either on, into `out`; everything if either does not
    /// start at `t`. (Their values at `t` may differ besides.)
    pub(super) fn changes_after(&self, other: &Self, t: Secs, out: &mut Vec<(Secs, Secs)>) {
        out.clear();
        let (a, b) = (&self.0, &other.0);
        let (Some(a0), Some(b0)) = (a.first(), b.first()) else {
            out.push((Secs::MIN, Secs::MAX));
            return;
        };
        if a0.0 != t || b0.0 != t {
            out.push((Secs::MIN, Secs::MAX));
            return;
        }
        let (mut i, mut j, mut va, mut vb) = (1, 1, a0.1, b0.1);
        let mut open = None;
        loop {
            let ka = a.get(i).map_or(Secs::MAX, |e| e.0);
            let kb = b.get(j).map_or(Secs::MAX, |e| e.0);
            let k = ka.min(kb);
            if k == Secs::MAX {
                break;
            }
            if ka == k {
                va = a[i].1;
                i += 1;
            }
            if kb == k {
                vb = b[j].1;
                j += 1;
            }
            match (open, va != vb) {
                (None, true) => open = Some(k),
                (Some(s), false) => {
                    out.push((s, k));
                    open = None;
                }
                _ => {}
            }
        }
        if let Some(s) = open {
            out.push((s, Secs::MAX));
        }
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
    let mut out = Free::new();
    given_back_into(free, alloc, end, n, &mut out);
    out
}

/// `given_back` into `out`, in the room it has. The reservations are
/// copied in runs between the plan's keys (and `end`), each run raised by
/// what the plan holds there; `free` is merged already, so a repeat can
/// only come where a run starts.
pub(super) fn given_back_into(free: &Free, alloc: &Alloc, end: Secs, n: i64, out: &mut Free) {
    let (f, a) = (&free.0, &alloc.0);
    debug_assert!(
        f.windows(2).all(|w| w[0].1 != w[1].1),
        "reservations merged"
    );
    let out = &mut out.0;
    out.clear();
    out.reserve(f.len() + a.len() + 1);
    let push = |out: &mut Vec<(Secs, i64)>, k: Secs, v: i64| {
        if out.last().is_none_or(|l| l.1 != v) {
            out.push((k, v));
        }
    };
    // The free entries before `upto`, raised by `add`.
    let run = |out: &mut Vec<(Secs, i64)>, i: &mut usize, upto: Secs, add: i64| {
        let from = *i;
        while *i < f.len() && f[*i].0 < upto {
            *i += 1;
        }
        if let Some((&(k, v), rest)) = f[from..*i].split_first() {
            push(out, k, v + add);
            out.extend(rest.iter().map(|&(k, v)| (k, v + add)));
        }
    };
    let (mut i, mut j, mut add, mut av, mut ended) = (0, 0, 0i64, 0i64, false);
    while j < a.len() || !ended {
        let ak = a.get(j).map_or(Secs::MAX, |e| e.0);
        let b = if ended { ak } else { ak.min(end) };
        run(out, &mut i, b, add);
        if ak == b {
            av = a[j].1 as i64;
            j += 1;
        }
        ended |= b == end;
        add = if b < end { av } else { 0 };
        let fv = if i < f.len() && f[i].0 == b {
            f[i].1
        } else {
            i.checked_sub(1).map_or(n, |p| f[p].1)
        };
        push(out, b, fv + add);
        if i < f.len() && f[i].0 == b {
            i += 1;
        }
    }
    run(out, &mut i, Secs::MAX, add);
}

/// `x` rounded up to the grid of `slot` seconds that starts at `s` (`s +
/// slot·k`, the least such time not before `x`; for any sign of `x − s`).
pub(super) fn align(slot: Secs, s: Secs, x: Secs) -> Secs {
    let d = x - s;
    let k = d.div_euclid(slot) + i64::from(d.rem_euclid(slot) > 0);
    s + k * slot
}

/// The value in force just before `x` (at the last key below it).
pub(super) fn before<V: Copy + PartialEq>(m: &Steps<V>, x: Secs) -> Option<V> {
    m.last_before(x).map(|e| e.1)
}

/// The value in force at `x` (at the last key not after it).
pub(super) fn at<V: Copy + PartialEq>(m: &Steps<V>, x: Secs) -> Option<V> {
    m.last_before(x.saturating_add(1)).map(|e| e.1)
}

/// GPU-seconds of an allocation from its first key to `end` (the last
/// step counted to `end`, negative if it starts after it); exact, as
/// ElasticFlow's integers are, for any times.
pub(super) fn gpu_secs(a: &Alloc, end: Secs) -> i128 {
    let mut sum = 0i128;
    let mut it = a.iter().peekable();
    while let Some((k, g)) = it.next() {
        let to = it.peek().map_or(end, |&(n, _)| n);
        sum += g as i128 * (to as i128 - k as i128);
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
mod tests;
