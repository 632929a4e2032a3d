//! The headline figures, over every job arrived so that two policies
//! are compared on the same jobs: jobs done; the mean time in the system
//! so far (a finished job's JCT, any other's time since it was submitted);
//! the p99 wait (a job not started yet counts its wait so far). Kept up to
//! date incrementally: a played tick adds only the waits of the jobs it
//! started, so the cost per tick does not grow with the million jobs
//! before it (the jobs still waiting are read afresh). Going back in time
//! rebuilds them from the engine's tally.

use crate::sim::{Engine, Tally};
use crate::trace::Secs;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Figures {
    pub done: u64,
    pub started: u64,
    /// The jobs counted: arrived and not rejected.
    pub jobs: u64,
    /// Of them, those that have not started (waiting, or dropped).
    pub unserved: u64,
    /// The mean time in the system so far of every job counted (its JCT
    /// once it is done).
    pub mean_jct: Option<f64>,
    /// The p99 of every counted job's wait, so far for those not started.
    pub p99_wait: Option<f64>,
    /// The mean of those waits.
    pub mean_wait: Option<f64>,
    wait_sum: f64,
    wait_seen: usize,
    /// wait (whole seconds) → how many started jobs waited that long.
    waits: BTreeMap<i64, u64>,
}

impl Figures {
    pub fn update(&mut self, e: &Engine) {
        self.update_from(e.tally(), e.now(), e.unserved_waits());
    }

    /// From a tally at `now`, with the waits so far of the jobs not started.
    fn update_from(&mut self, tally: &Tally, now: Secs, mut unserved: Vec<Secs>) {
        if tally.wait.len() < self.wait_seen {
            *self = Figures::default(); // the replay went back
        }
        for &w in &tally.wait[self.wait_seen..] {
            *self.waits.entry(w as i64).or_insert(0) += 1;
            self.wait_sum += w;
        }
        self.wait_seen = tally.wait.len();
        self.done = tally.jct.len() as u64;
        self.started = tally.started;
        let (jobs, in_system) = tally.in_system(now);
        self.jobs = jobs;
        self.mean_jct = (jobs > 0).then(|| in_system as f64 / jobs as f64);
        self.unserved = unserved.len() as u64;
        let n = self.wait_seen + unserved.len();
        let sum = self.wait_sum + unserved.iter().map(|&w| w as f64).sum::<f64>();
        self.mean_wait = (n > 0).then(|| sum / n as f64);
        self.p99_wait = self.percentile(&mut unserved, 99.0);
    }

    /// A percentile of the started jobs' waits with `more` waits added,
    /// numpy's linear rule, walking from the top (only the top of `more`
    /// is sorted).
    fn percentile(&self, more: &mut Vec<i64>, q: f64) -> Option<f64> {
        let n = (self.wait_seen + more.len()) as u64;
        if n == 0 {
            return None;
        }
        let pos = (n - 1) as f64 * q / 100.0;
        let lo = pos.floor() as u64;
        let hi = (lo + 1).min(n - 1);
        // The largest `n - lo` values reach down to rank `lo`.
        let need = (n - lo) as usize;
        if need < more.len() {
            more.select_nth_unstable_by(need, |a, b| b.cmp(a));
            more.truncate(need);
        }
        more.sort_unstable_by(|a, b| b.cmp(a));
        let mut top = self.waits.iter().rev().map(|(&v, &c)| (v, c)).peekable();
        let mut extra = more.iter().map(|&v| (v, 1u64)).peekable();
        // k-th smallest (0-based) is the (n-1-k)-th largest.
        let (mut a, mut b) = (None, None);
        let mut above = 0u64; // values before the current run
        loop {
            let take_top = match (top.peek(), extra.peek()) {
                (Some(t), Some(x)) => t.0 >= x.0,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            let (v, c) = if take_top { top.next() } else { extra.next() }?;
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
    crate::sim::percentile_sorted(&v, 99.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn incremental_figures_match_a_full_recomputation() {
        let mut t = Tally::default();
        let mut f = Figures::default();
        let mut x = 7u64;
        let mut next = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            x >> 33
        };
        for i in 0..5000u32 {
            let r = next();
            let w = if r.is_multiple_of(3) {
                0.0
            } else {
                (r % 5000) as f64
            };
            t.wait.push(w);
            t.started += 1;
            if i.is_multiple_of(97) || i < 10 {
                // Some jobs not started, with waits so far among the others.
                let more: Vec<i64> = (0..(next() % 40)).map(|_| (next() % 6000) as i64).collect();
                f.update_from(&t, 0, more.clone());
                let mut all = t.wait.clone();
                all.extend(more.iter().map(|&m| m as f64));
                assert_eq!(
                    f.p99_wait,
                    reference_p99(&all),
                    "after {} waits",
                    t.wait.len()
                );
                assert_eq!(f.unserved, more.len() as u64);
            }
        }
        // Going back: shorter tallies rebuild.
        t.wait.truncate(100);
        f.update_from(&t, 0, vec![9000]);
        let mut all = t.wait.clone();
        all.push(9000.0);
        assert_eq!(f.p99_wait, reference_p99(&all));
        f.update_from(&t, 0, vec![]);
        assert_eq!(f.p99_wait, reference_p99(&t.wait));
    }

    /// Every arrived job's time in the system: the done ones' JCTs, the
    /// others' time since they were submitted; the rejected left out.
    #[test]
    fn time_in_system_counts_every_job_arrived() {
        let mut t = Tally::default();
        for s in [0, 10, 20, 30] {
            t.on_arrival(s);
        }
        t.on_reject(30);
        t.on_finish(0, 50, 50);
        t.on_drop(20);
        let mut f = Figures::default();
        f.update_from(&t, 100, vec![80, 90]);
        // Jobs 0 (done: 50), 10 (waiting: 90), 20 (dropped: 80).
        assert_eq!(f.jobs, 3);
        assert_eq!(f.mean_jct, Some((50.0 + 90.0 + 80.0) / 3.0));
        assert_eq!(f.done, 1);
    }
}
