//! Distributions for the generators. Marginals are matched by stratified
//! sampling: n draws are the n mid-point quantiles of the distribution,
//! shuffled. The sample's median and mean then equal the targets by
//! construction instead of only in expectation (a heavy-tailed log-normal
//! with a mean/median ratio of 45, as PAI's queueing delay has, would
//! otherwise miss its mean by tens of percent at 100,000 jobs).

use crate::trace::Rng;

/// The standard normal quantile (Acklam's rational approximation, relative error < 1.2e-9).
pub(crate) fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    let p = p.clamp(1e-300, 1.0 - 1e-16);
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < 0.02425 {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - 0.02425 {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

/// Fisher–Yates.
pub(crate) fn shuffle<T>(v: &mut [T], rng: &mut Rng) {
    for i in (1..v.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        v.swap(i, j);
    }
}

/// The log-space spread for which the mean of the `n` stratified values
/// (normal quantiles `z(i)`, scaled by the median, clipped, rounded) is
/// `mean`, by bisection.
fn spread(
    n: usize,
    (median, mean): (f64, f64),
    (min, max): (f64, f64),
    z: impl Fn(usize) -> f64,
) -> f64 {
    let mean_of = |sigma: f64| {
        (0..n)
            .map(|i| (median * (sigma * z(i)).exp()).clamp(min, max).round())
            .sum::<f64>()
            / n.max(1) as f64
    };
    let (mut lo, mut hi) = (0.0f64, 8.0f64);
    for _ in 0..60 {
        let mid = (lo + hi) / 2.0;
        if mean_of(mid) < mean {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

/// `n` whole-second values of a log-normal with this median, clipped to
/// `[min, max]`, whose spread is chosen so that the values' mean is `mean`;
/// stratified, in random order.
pub(crate) fn lognormal_matching(
    n: usize,
    median: f64,
    mean: f64,
    min: f64,
    max: f64,
    rng: &mut Rng,
) -> Vec<i64> {
    let z: Vec<f64> = (0..n)
        .map(|i| normal_quantile((i as f64 + 0.5) / n as f64))
        .collect();
    let sigma = spread(n, (median, mean), (min, max), |i| z[i]);
    let mut v: Vec<i64> = z
        .iter()
        .map(|z| (median * (sigma * z).exp()).clamp(min, max).round() as i64)
        .collect();
    shuffle(&mut v, rng);
    v
}

/// How many of `n` picks fall to each of `weights`, in exact proportions
/// (largest remainders).
fn exact_counts(n: usize, weights: &[f64]) -> Vec<usize> {
    let total: f64 = weights.iter().sum();
    let raw: Vec<f64> = weights.iter().map(|w| w / total * n as f64).collect();
    let mut counts: Vec<usize> = raw.iter().map(|x| x.floor() as usize).collect();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by(|&a, &b| {
        (raw[b] - raw[b].floor())
            .total_cmp(&(raw[a] - raw[a].floor()))
            .then(a.cmp(&b))
    });
    let mut left = n - counts.iter().sum::<usize>();
    for &i in order.iter().cycle().take(left.min(weights.len() * 2)) {
        if left == 0 {
            break;
        }
        counts[i] += 1;
        left -= 1;
    }
    counts
}

/// `n` picks from `weights` in exact proportions (largest remainders), shuffled.
pub(crate) fn exact_categorical(n: usize, weights: &[f64], rng: &mut Rng) -> Vec<usize> {
    let counts = exact_counts(n, weights);
    let mut v: Vec<usize> = counts
        .iter()
        .enumerate()
        .flat_map(|(i, &c)| std::iter::repeat_n(i, c))
        .collect();
    shuffle(&mut v, rng);
    v
}

/// A pseudo-random order of `0..n` that takes no memory: a four-round
/// Feistel network on the smallest even number of bits that holds `n`,
/// walked along its cycle until it lands below `n` (under 4 steps on
/// average, as the domain is under 4 n).
pub(crate) struct Permutation {
    n: u64,
    half: u32,
    keys: [u64; 4],
}

impl Permutation {
    pub(crate) fn new(n: usize, rng: &mut Rng) -> Permutation {
        let bits = u64::BITS - (n.max(2) as u64 - 1).leading_zeros();
        Permutation {
            n: n as u64,
            half: bits.div_ceil(2),
            keys: [
                rng.next_u64(),
                rng.next_u64(),
                rng.next_u64(),
                rng.next_u64(),
            ],
        }
    }

    /// Where `i` (below n) goes.
    pub(crate) fn at(&self, i: usize) -> usize {
        let mut x = i as u64;
        loop {
            x = self.round(x);
            if x < self.n {
                return x as usize;
            }
        }
    }

    fn round(&self, x: u64) -> u64 {
        let mask = (1u64 << self.half) - 1;
        let (mut l, mut r) = (x >> self.half, x & mask);
        for k in self.keys {
            let mut z = (r ^ k).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z ^= z >> 29;
            (l, r) = (r, l ^ ((z.wrapping_mul(0x94D0_49BB_1331_11EB) >> 7) & mask));
        }
        (l << self.half) | r
    }
}

/// `lognormal_matching` drawn one value at a time, in an order set by a
/// `Permutation`, so memory does not grow with `n`: the same values (the
/// spread is found over the quantiles computed again each time).
pub(crate) struct StreamedLognormal {
    n: usize,
    median: f64,
    sigma: f64,
    min: f64,
    max: f64,
    order: Permutation,
    taken: usize,
}

impl StreamedLognormal {
    pub(crate) fn new(
        n: usize,
        (median, mean): (f64, f64),
        (min, max): (f64, f64),
        rng: &mut Rng,
    ) -> StreamedLognormal {
        let sigma = spread(n, (median, mean), (min, max), |i| {
            normal_quantile((i as f64 + 0.5) / n as f64)
        });
        StreamedLognormal {
            n,
            median,
            sigma,
            min,
            max,
            order: Permutation::new(n, rng),
            taken: 0,
        }
    }

    /// The next value; after n values, the order starts again.
    pub(crate) fn next_value(&mut self) -> i64 {
        let i = self.order.at(self.taken % self.n.max(1));
        self.taken += 1;
        let z = normal_quantile((i as f64 + 0.5) / self.n as f64);
        (self.median * (self.sigma * z).exp())
            .clamp(self.min, self.max)
            .round() as i64
    }
}

/// `exact_categorical` drawn one pick at a time (sampling without
/// replacement from the exact counts: every order of the picks is equally
/// likely, as after a shuffle), in memory of the number of categories.
pub(crate) struct StreamedCategorical {
    counts: Vec<usize>,
    left: usize,
}

impl StreamedCategorical {
    pub(crate) fn new(n: usize, weights: &[f64]) -> StreamedCategorical {
        let counts = exact_counts(n, weights);
        StreamedCategorical { counts, left: n }
    }

    /// How many picks of each category there are in all.
    pub(crate) fn count(&self, category: usize) -> usize {
        self.counts.get(category).copied().unwrap_or(0)
    }

    /// The next pick (category 0 once all n are taken).
    pub(crate) fn next_pick(&mut self, rng: &mut Rng) -> usize {
        if self.left == 0 {
            return 0;
        }
        let mut r = rng.below(self.left as u64) as usize;
        self.left -= 1;
        for (i, c) in self.counts.iter_mut().enumerate() {
            if r < *c {
                *c -= 1;
                return i;
            }
            r -= *c;
        }
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_quantile_is_accurate() {
        assert!(normal_quantile(0.5).abs() < 1e-12);
        assert!((normal_quantile(0.975) - 1.959_963_984_540_054).abs() < 1e-8);
        assert!((normal_quantile(0.001) + 3.090_232_306_167_813_5).abs() < 1e-8);
    }

    #[test]
    fn lognormal_hits_median_and_mean() {
        let mut rng = Rng::new(3);
        let mut v = lognormal_matching(10_001, 9.0, 402.0, 0.0, 604_800.0, &mut rng);
        let mean = v.iter().sum::<i64>() as f64 / v.len() as f64;
        assert!((mean - 402.0).abs() / 402.0 < 0.005, "{mean}");
        v.sort_unstable();
        assert_eq!(v[5000], 9);
    }

    #[test]
    fn categorical_counts_are_exact() {
        let mut rng = Rng::new(1);
        let v = exact_categorical(1000, &[0.5, 0.3, 0.2], &mut rng);
        let c = |k| v.iter().filter(|&&x| x == k).count();
        assert_eq!((c(0), c(1), c(2)), (500, 300, 200));
    }
}
#[cfg(test)]
mod streamed_tests {
    use super::*;

    #[test]
    fn a_permutation_visits_every_index_once() {
        for n in [1usize, 2, 3, 5, 64, 65, 1000, 4097] {
            let p = Permutation::new(n, &mut Rng::new(n as u64));
            let mut seen: Vec<usize> = (0..n).map(|i| p.at(i)).collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..n).collect::<Vec<_>>(), "n = {n}");
        }
    }

    #[test]
    fn streamed_draws_are_the_stored_ones_in_another_order() {
        let n = 10_001;
        let mut stored = lognormal_matching(n, 9.0, 402.0, 0.0, 604_800.0, &mut Rng::new(3));
        let mut s = StreamedLognormal::new(n, (9.0, 402.0), (0.0, 604_800.0), &mut Rng::new(3));
        let mut streamed: Vec<i64> = (0..n).map(|_| s.next_value()).collect();
        assert_ne!(stored, streamed, "a new order");
        stored.sort_unstable();
        streamed.sort_unstable();
        assert_eq!(stored, streamed);
        let mut c = StreamedCategorical::new(1000, &[0.5, 0.3, 0.2]);
        let mut rng = Rng::new(1);
        let picks: Vec<usize> = (0..1000).map(|_| c.next_pick(&mut rng)).collect();
        let count = |k| picks.iter().filter(|&&x| x == k).count();
        assert_eq!((count(0), count(1), count(2)), (500, 300, 200));
        assert!(picks[..500].contains(&2), "mixed, not in blocks");
    }
}
