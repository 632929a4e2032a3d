//! `w`: the what-if fork in the replay. Every policy runs from the current
//! state to the end on background threads; the table fills in as results
//! arrive while the replay stays interactive; Enter on a row switches the
//! live replay to that policy.

//!
//! The feature in three parts: its state here (`WhatIf`, the rows as they
//! arrive), what its actions do to the app (`actions.rs`), and the table
//! and its charts (`view.rs`).

mod actions;
pub(crate) mod view;

use crate::sim::{Dists, Report, WhatIfRun};
use crate::trace::Secs;

/// The fork's rows as they arrive (the runner holds the fork itself).
pub struct WhatIf {
    /// Where the fork started.
    pub(in crate::ui) at: Secs,
    pub(in crate::ui) runs: Vec<WhatIfRun>,
    /// Per row: progress (0–1) and the result once it is in.
    pub(in crate::ui) rows: Vec<(f64, Option<Report>)>,
    /// Per row: its JCT and wait distributions once it is in.
    pub(in crate::ui) dists: Vec<Option<Dists>>,
}

impl WhatIf {
    pub fn done(&self) -> bool {
        self.rows.iter().all(|r| r.1.is_some())
    }

    /// How many runs it has (a row each).
    pub fn rows(&self) -> usize {
        self.rows.len()
    }

    /// Row `row`'s JCT and wait distributions, once it is in.
    pub fn dists(&self, row: usize) -> Option<&Dists> {
        self.dists.get(row)?.as_ref()
    }

    /// The first earlier row whose results are `row`'s exactly (every job's
    /// completion time and wait the same): said as such, drawn once.
    pub fn same_as(&self, row: usize) -> Option<usize> {
        let mine = self.dists.get(row)?.as_ref()?;
        (0..row).find(|&k| {
            self.dists
                .get(k)
                .and_then(|d| d.as_ref())
                .is_some_and(|d| d.jct_s == mine.jct_s && d.wait_s == mine.wait_s)
                && self.rows[k]
                    .1
                    .as_ref()
                    .map(|r| (r.jobs_unfinished, r.jobs_dropped, r.preemptions))
                    == self.rows[row]
                        .1
                        .as_ref()
                        .map(|r| (r.jobs_unfinished, r.jobs_dropped, r.preemptions))
        })
    }

    /// Row `row`'s run.
    pub fn run(&self, row: usize) -> Option<&WhatIfRun> {
        self.runs.get(row)
    }
}
