//! Distributions for the generators. Marginals are matched by stratified
//! sampling: n draws are the n mid-point quantiles of the distribution,
//! shuffled. The sample's median and mean then equal the targets by
//! construction instead of only in expectation (a heavy-tailed log-normal
//! with a mean/median ratio of 45, as PAI's queueing delay has, would
//! otherwise miss its mean by tens of percent at 100,000 jobs).

use super::rng::Rng;

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
    let values = |sigma: f64| {
        z.iter()
            .map(move |z| (median * (sigma * z).exp()).clamp(min, max).round())
    };
    let mean_of = |sigma: f64| values(sigma).sum::<f64>() / n.max(1) as f64;
    let (mut lo, mut hi) = (0.0f64, 8.0f64);
    for _ in 0..60 {
        let mid = (lo + hi) / 2.0;
        if mean_of(mid) < mean {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let mut v: Vec<i64> = values((lo + hi) / 2.0).map(|x| x as i64).collect();
    shuffle(&mut v, rng);
    v
}

/// `n` picks from `weights` in exact proportions (largest remainders), shuffled.
pub(crate) fn exact_categorical(n: usize, weights: &[f64], rng: &mut Rng) -> Vec<usize> {
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
    let mut v: Vec<usize> = counts
        .iter()
        .enumerate()
        .flat_map(|(i, &c)| std::iter::repeat_n(i, c))
        .collect();
    shuffle(&mut v, rng);
    v
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
