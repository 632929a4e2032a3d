//! What a figure is drawn from: one run's job completion times, waits,
//! slowdowns and job sizes, and its utilisation over time.

use crate::sim::{Engine, Phase};
use crate::trace::Secs;

/// One run, ready to draw.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Curves {
    pub label: String,
    /// Finished jobs' completion times, seconds, ascending.
    pub jct_s: Vec<f64>,
    /// Started jobs' waits to their first start, seconds, ascending.
    pub wait_s: Vec<f64>,
    /// Finished jobs' slowdowns (JCT ÷ run time), ascending.
    pub slowdown: Vec<f64>,
    /// Finished jobs' (GPUs asked for, JCT seconds), in trace order.
    pub sized_jct: Vec<(f64, f64)>,
    /// (seconds from the first submission, allocated fraction of the
    /// GPUs), at most `MAX_POINTS` of them.
    pub util: Vec<(f64, f64)>,
}

/// Points a utilisation line keeps (every k-th sample beyond that).
pub(super) const MAX_POINTS: usize = 2000;

impl Curves {
    /// The curves of the run `e` (at its end), with its utilisation samples
    /// `(time, allocated fraction)`.
    pub(crate) fn of(e: &Engine, label: String, samples: &[(Secs, f64)]) -> Curves {
        let trace = e.trace();
        let (mut jct, mut wait, mut sized) = (Vec::new(), Vec::new(), Vec::new());
        // The summary's own slowdowns (its run times: power caps, restarts).
        let mut slowdown = e.tally().slowdown.clone();
        for (i, j) in trace.jobs.iter().enumerate() {
            let st = e.job_state(i as u32);
            if matches!(st.phase, Phase::Running | Phase::Done) {
                wait.push((st.start - j.submit) as f64);
            }
            if st.phase == Phase::Done {
                let t = (st.end - j.submit) as f64;
                jct.push(t);
                sized.push((j.gpus_display(), t));
            }
        }
        for v in [&mut jct, &mut wait, &mut slowdown] {
            v.sort_by(f64::total_cmp);
        }
        let first = trace.first_submit().unwrap_or(0);
        let step = samples.len().div_ceil(MAX_POINTS).max(1);
        let util = samples
            .iter()
            .step_by(step)
            .map(|&(t, u)| ((t - first) as f64, u))
            .collect();
        Curves {
            label,
            jct_s: jct,
            wait_s: wait,
            slowdown,
            sized_jct: sized,
            util,
        }
    }
}
