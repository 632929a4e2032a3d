//! Summaries at the end of a run without sorting a million figures: whole
//! seconds are summed as integers and their percentiles selected, and the
//! three figures are summarised on both cores. The results equal `Summary::of`
//! on the same values bit for bit (tests below).

use super::metrics::{Summary, Tally};

/// Figures from which the slowdowns are summarised on a second thread.
const TWO_THREADS_FROM: usize = 100_000;

/// The largest sum an f64 holds exactly (2^53).
const EXACT: u64 = 1 << 53;

impl Summary {
    /// As `Summary::of`, reordering `values` in place instead of copying
    /// them. Values that are all whole, not negative and sum to at most
    /// 2^53 (seconds) are summed as integers, which is what the sorted sum
    /// is then exactly, and their percentiles are selected in linear time;
    /// any others are sorted.
    pub(crate) fn of_reordering(values: &mut [f64]) -> Summary {
        if values.is_empty() {
            return Summary::default();
        }
        let Some(sum) = whole_sum(values) else {
            values.sort_unstable_by(f64::total_cmp);
            return Summary::of(values);
        };
        let [p50, p95, p99] = select_percentiles(values, [50.0, 95.0, 99.0]);
        Summary {
            mean: Some(sum as f64 / values.len() as f64),
            p50: Some(p50),
            p95: Some(p95),
            p99: Some(p99),
        }
    }
}

/// The exact sum of `values` if each is a whole number with its sign bit
/// clear and the sum is at most 2^53.
fn whole_sum(values: &[f64]) -> Option<u64> {
    let mut sum: u64 = 0;
    for &x in values {
        // NaN and anything above 2^53 fail the bound; -0.0 the sign test.
        let whole = x.is_sign_positive() && x <= EXACT as f64 && (x as u64) as f64 == x;
        if !whole {
            return None;
        }
        sum += x as u64;
        if sum > EXACT {
            return None;
        }
    }
    Some(sum)
}

/// Percentiles (ascending `qs`, 0–100) as `percentile_sorted` takes them
/// from the sorted values, by selecting ranks instead of sorting.
fn select_percentiles<const N: usize>(values: &mut [f64], qs: [f64; N]) -> [f64; N] {
    let last = values.len() - 1;
    let mut from = 0;
    qs.map(|q| {
        let pos = last as f64 * q / 100.0;
        let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
        // Everything before `from` is at most values[from] (an earlier
        // selection), and lo >= from: select within the rest.
        let (_, &mut at_lo, above) =
            values[from..].select_nth_unstable_by(lo - from, f64::total_cmp);
        let at_hi = if hi > lo {
            above
                .iter()
                .copied()
                .min_by(f64::total_cmp)
                .unwrap_or(at_lo)
        } else {
            at_lo
        };
        from = lo;
        at_lo + (at_hi - at_lo) * (pos - lo as f64)
    })
}

impl Tally {
    /// [JCT, wait, slowdown, bounded slowdown] summarised, the figures
    /// reordered in place; for the end of a run (see `Summary::of_reordering`).
    pub(crate) fn summarise_reordering(&mut self) -> [Summary; 4] {
        let Tally {
            jct,
            wait,
            slowdown,
            bounded_slowdown,
            ..
        } = self;
        if slowdown.len() < TWO_THREADS_FROM {
            return [jct, wait, slowdown, bounded_slowdown].map(|v| Summary::of_reordering(v));
        }
        let (s, (j, w)) = tracetui_model::both(
            || {
                (
                    Summary::of_reordering(slowdown),
                    Summary::of_reordering(bounded_slowdown),
                )
            },
            || (Summary::of_reordering(jct), Summary::of_reordering(wait)),
        );
        // Summarised here if the other thread panicked (a bug: it panics
        // again, to the caller).
        let (s, b) = s.unwrap_or_else(|_| {
            (
                Summary::of_reordering(&mut self.slowdown),
                Summary::of_reordering(&mut self.bounded_slowdown),
            )
        });
        [j, w, s, b]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Bit for bit what `Summary::of` gives, whole seconds or not, for
    /// every length (the percentiles' ranks coincide for short lists).
    fn same_as_sorted(values: Vec<f64>) {
        let want = Summary::of(&values);
        let mut v = values.clone();
        let got = Summary::of_reordering(&mut v);
        let bits = |s: Summary| [s.mean, s.p50, s.p95, s.p99].map(|x| x.map(f64::to_bits));
        assert_eq!(bits(got), bits(want), "{values:?}");
        v.sort_unstable_by(f64::total_cmp);
        let mut sorted = values;
        sorted.sort_unstable_by(f64::total_cmp);
        assert_eq!(
            v.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            sorted.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            "a value lost or changed"
        );
    }

    proptest! {
        #[test]
        fn whole_seconds_summarise_as_sorted(v in proptest::collection::vec(0u64..5_000, 0..300)) {
            same_as_sorted(v.into_iter().map(|x| x as f64).collect());
        }

        #[test]
        fn any_figures_summarise_as_sorted(v in proptest::collection::vec(
            prop_oneof![Just(-0.0), Just(0.0), Just(f64::INFINITY), Just(f64::NAN),
                Just(EXACT as f64), (0u64..100).prop_map(|x| x as f64),
                -1e3f64..1e3, 0f64..1e17], 0..200)) {
            same_as_sorted(v);
        }
    }

    #[test]
    fn a_sum_past_two_to_the_53_is_sorted_instead() {
        let v = vec![EXACT as f64, 1.0, 1.0, 3.0];
        assert_eq!(whole_sum(&v), None);
        same_as_sorted(v);
        assert_eq!(whole_sum(&[3.0, 4.0]), Some(7));
        assert_eq!(whole_sum(&[3.0, -0.0]), None);
        assert_eq!(whole_sum(&[0.5]), None);
    }

    /// The two-thread path gives what one thread gives.
    #[test]
    fn a_large_tally_summarises_on_two_threads_as_on_one() {
        let n = TWO_THREADS_FROM + 17;
        let mut x: u64 = 99;
        let mut next = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            x >> 44
        };
        let jct: Vec<f64> = (0..n).map(|_| next() as f64).collect();
        let wait: Vec<f64> = (0..n).map(|_| (next() % 1000) as f64).collect();
        let slowdown: Vec<f64> = jct.iter().map(|j| j / 7.0 + 1.0).collect();
        let bounded_slowdown: Vec<f64> = jct.iter().map(|j| (j / 10.0).max(1.0)).collect();
        let mut t = Tally {
            jct,
            wait,
            slowdown,
            bounded_slowdown,
            ..Tally::default()
        };
        let want = [&t.jct, &t.wait, &t.slowdown, &t.bounded_slowdown].map(|v| Summary::of(v));
        assert_eq!(t.summarise_reordering(), want);
    }
}
