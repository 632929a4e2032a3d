//! `--seed N`: resampled arrivals of a trace, for a seeds axis over a real
//! trace. The same jobs arrive in the same order over the same span; the
//! gaps between consecutive submissions are shuffled (a seeded
//! Fisher–Yates permutation), so the offered load, the first and last
//! submission and every job's size and run time stay exactly as recorded,
//! while bursts move. A deadline moves with its job's submission (its
//! slack is kept). Recorded holds belong to the recorded arrivals and are
//! dropped: the `recorded` policy cannot replay a resampled trace.

use super::model::{MaybeSecs, Trace};
use crate::rng::Rng;

/// Resamples `trace`'s arrivals with `seed` (see the module); returns how
/// many jobs moved.
pub fn resample_arrivals(trace: &mut Trace, seed: u64) -> usize {
    let jobs = &mut trace.jobs;
    // Jobs are held in submission order; a stable sort keeps ties in file order.
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| jobs[i].submit);
    let mut gaps: Vec<i64> = order
        .windows(2)
        .map(|w| jobs[w[1]].submit - jobs[w[0]].submit)
        .collect();
    let mut rng = Rng::new(seed);
    for i in (1..gaps.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        gaps.swap(i, j);
    }
    let mut at = order.first().map_or(0, |&i| jobs[i].submit);
    let mut moved = 0;
    for (k, &i) in order.iter().enumerate() {
        if k > 0 {
            at += gaps[k - 1];
        }
        let job = &mut jobs[i];
        let shift = at - job.submit;
        if shift != 0 {
            moved += 1;
            job.submit = at;
            job.deadline = MaybeSecs::from(job.deadline.get().map(|d| d.saturating_add(shift)));
        }
        job.segments = 0..0;
    }
    trace.segments.clear();
    moved
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::*;

    fn trace(submits: &[i64]) -> Trace {
        let mut t = crate::sample::itp().expect("the sample loads").0;
        let proto = t.jobs[0].clone();
        t.jobs = submits
            .iter()
            .enumerate()
            .map(|(i, &s)| Job {
                submit: s,
                deadline: Some(s + 100 + i as i64).into(),
                ..proto.clone()
            })
            .collect();
        t
    }

    #[test]
    fn the_span_the_order_and_the_slack_are_kept() {
        let submits = [0, 5, 5, 40, 41, 100, 300, 301];
        let mut t = trace(&submits);
        let moved = resample_arrivals(&mut t, 7);
        assert!(moved > 0);
        let new: Vec<i64> = t.jobs.iter().map(|j| j.submit).collect();
        assert_eq!(new.first(), Some(&0));
        assert_eq!(new.last(), Some(&301));
        assert!(new.windows(2).all(|w| w[0] <= w[1]), "{new:?}");
        let mut gaps: Vec<i64> = new.windows(2).map(|w| w[1] - w[0]).collect();
        let mut was: Vec<i64> = submits.windows(2).map(|w| w[1] - w[0]).collect();
        gaps.sort();
        was.sort();
        assert_eq!(gaps, was);
        for (i, j) in t.jobs.iter().enumerate() {
            assert_eq!(j.deadline.get(), Some(j.submit + 100 + i as i64));
        }
        assert!(t.segments.is_empty());
    }

    #[test]
    fn the_same_seed_gives_the_same_arrivals_and_another_seed_others() {
        let submits: Vec<i64> = (0..50).map(|i| i * i).collect();
        let at = |seed| {
            let mut t = trace(&submits);
            resample_arrivals(&mut t, seed);
            t.jobs.iter().map(|j| j.submit).collect::<Vec<_>>()
        };
        assert_eq!(at(1), at(1));
        assert_ne!(at(1), at(2));
    }
}
