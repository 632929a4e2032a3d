//! sacct's records folded into jobs: a job's steps (`49.batch`,
//! `49.extern`, `55.0`) into it, a heterogeneous job's components
//! (`60+0`, `60+1`) into one job, and a requeued job's earlier runs
//! (`sacct -D` lists them, `REQUEUED`) into its last run. An array's tasks
//! (`56_0` … `56_3`) are jobs of their own, as Slurm runs them.

use super::sacct::Record;
use rustc_hash::FxHashMap;

/// One job's records, by index into the records read.
#[derive(Debug, Default, Clone)]
pub(crate) struct Folded {
    /// Its id: the records' job part (`56_2`, `60`).
    pub key: String,
    /// The last run of each component, by component (none: a plain job).
    pub parts: Vec<(Option<u32>, usize)>,
    /// Runs before the last (requeued), any component.
    pub earlier: Vec<usize>,
    /// Its steps.
    pub steps: Vec<usize>,
}

impl Folded {
    /// The record that speaks for the job: its first component's last run.
    pub(crate) fn main(&self) -> Option<usize> {
        self.parts.iter().min_by_key(|(c, _)| *c).map(|&(_, r)| r)
    }
}

/// Whether record `b` is a later run than record `a` of the same job: a
/// run sacct calls REQUEUED came before, else the later submission.
fn later(a: &Record, b: &Record) -> bool {
    match (a.state == "REQUEUED", b.state == "REQUEUED") {
        (true, false) => true,
        (false, true) => false,
        _ => b.submit >= a.submit,
    }
}

/// The records folded into jobs, in the order each job first appears.
pub(crate) fn fold(records: &[Record]) -> Vec<Folded> {
    let mut jobs: Vec<Folded> = Vec::new();
    let mut index: FxHashMap<&str, usize> = FxHashMap::default();
    for (i, r) in records.iter().enumerate() {
        let k = *index.entry(r.id.job.as_str()).or_insert_with(|| {
            jobs.push(Folded {
                key: r.id.job.clone(),
                ..Folded::default()
            });
            jobs.len() - 1
        });
        let job = &mut jobs[k];
        if r.id.step.is_some() {
            job.steps.push(i);
            continue;
        }
        match job.parts.iter_mut().find(|(c, _)| *c == r.id.component) {
            None => job.parts.push((r.id.component, i)),
            Some((_, last)) => {
                if later(&records[*last], r) {
                    job.earlier.push(*last);
                    *last = i;
                } else {
                    job.earlier.push(i);
                }
            }
        }
    }
    jobs
}
