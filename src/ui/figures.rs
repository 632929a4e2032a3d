//! The headline figures (jobs done, mean JCT, p99 wait), kept up to date
//! incrementally: a played tick adds only the jobs it started or finished,
//! so the cost per tick does not grow with the million jobs before it.
//! Going back in time rebuilds them from the engine's tally.

use crate::sim::metrics::Tally;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Figures {
    pub done: u64,
    pub started: u64,
    pub mean_jct: Option<f64>,
    pub p99_wait: Option<f64>,
    jct_seen: usize,
    jct_sum: f64,
    wait_seen: usize,
    /// wait (whole seconds) → how many jobs waited that long.
    waits: BTreeMap<i64, u64>,
}

impl Figures {
    pub fn update(&mut self, tally: &Tally) {
        if tally.jct.len() < self.jct_seen || tally.wait.len() < self.wait_seen {
            *self = Figures::default(); // the replay went back
        }
        for &j in &tally.jct[self.jct_seen..] {
            self.jct_sum += j;
        }
        self.jct_seen = tally.jct.len();
        for &w in &tally.wait[self.wait_seen..] {
            *self.waits.entry(w as i64).or_insert(0) += 1;
        }
        self.wait_seen = tally.wait.len();
        self.done = tally.jct.len() as u64;
        self.started = tally.started;
        self.mean_jct = (self.jct_seen > 0).then(|| self.jct_sum / self.jct_seen as f64);
        self.p99_wait = self.percentile(99.0);
    }

    /// A percentile of the waits, numpy's linear rule, walking from the top.
    fn percentile(&self, q: f64) -> Option<f64> {
        let n = self.wait_seen as u64;
        if n == 0 {
            return None;
        }
        let pos = (n - 1) as f64 * q / 100.0;
        let lo = pos.floor() as u64;
        let hi = (lo + 1).min(n - 1);
        // k-th smallest (0-based) is the (n-1-k)-th largest.
        let (mut a, mut b) = (None, None);
        let mut above = 0u64; // values strictly larger than the current key
        for (&v, &c) in self.waits.iter().rev() {
            let (first, last) = (n - above - c, n - above - 1); // ranks this value covers
            if (first..=last).contains(&hi) && b.is_none() {
                b = Some(v as f64);
            }
            if (first..=last).contains(&lo) {
                a = Some(v as f64);
                break;
            }
            above += c;
        }
        let (a, b) = (a?, b?);
        Some(a + (b - a) * (pos - lo as f64))
    }
}

/// The same percentile computed the slow way, for tests.
#[cfg(test)]
fn reference_p99(waits: &[f64]) -> Option<f64> {
    let mut v = waits.to_vec();
    v.sort_by(f64::total_cmp);
    crate::sim::metrics::percentile_sorted(&v, 99.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn incremental_figures_match_a_full_recomputation() {
        let mut t = Tally::default();
        let mut f = Figures::default();
        let mut x = 7u64;
        for i in 0..5000u32 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let w = if x.is_multiple_of(3) {
                0.0
            } else {
                ((x >> 33) % 5000) as f64
            };
            t.wait.push(w);
            t.started += 1;
            if i.is_multiple_of(2) {
                t.jct.push(w + 100.0);
            }
            if i.is_multiple_of(97) || i < 10 {
                f.update(&t);
                assert_eq!(
                    f.p99_wait,
                    reference_p99(&t.wait),
                    "after {} waits",
                    t.wait.len()
                );
                let mean = t.jct.iter().sum::<f64>() / t.jct.len().max(1) as f64;
                assert!(t.jct.is_empty() || (f.mean_jct.unwrap() - mean).abs() < 1e-6);
            }
        }
        // Going back: shorter tallies rebuild.
        t.wait.truncate(100);
        t.jct.truncate(50);
        f.update(&t);
        assert_eq!(f.p99_wait, reference_p99(&t.wait));
        assert_eq!(f.done, 50);
    }
}
