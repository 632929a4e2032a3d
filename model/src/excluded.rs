//! Jobs a load leaves out of the replay on purpose, by reason.

/// Jobs of the trace left out of the replay, with the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Excluded {
    /// Why they are left out, in a few words for the report
    /// (`CPU jobs (gpu_num 0)`).
    pub reason: String,
    /// How many jobs.
    pub jobs: u64,
    /// Whether they ask for GPUs (counted among the trace's GPU jobs).
    pub gpu: bool,
}

impl Excluded {
    /// Each of `reasons` (its words, whether its jobs ask for GPUs) with
    /// its count in `counts`, those that left any out.
    pub(crate) fn counted(reasons: &[(&str, bool)], counts: &[u64]) -> Vec<Excluded> {
        reasons
            .iter()
            .zip(counts)
            .flat_map(|(&(why, gpu), &n)| Excluded::new(why, n, gpu))
            .collect()
    }

    /// `; left out, REASON: N` for each of `list`, for a load's note.
    pub(crate) fn words(list: &[Excluded]) -> String {
        list.iter()
            .map(|e| format!("; left out, {}: {}", e.reason, e.jobs))
            .collect()
    }

    /// `jobs` jobs left out for `reason`, as a list to extend; empty when there
    /// are none.
    pub fn new(reason: &str, jobs: u64, gpu: bool) -> Vec<Excluded> {
        if jobs == 0 {
            return Vec::new();
        }
        vec![Excluded {
            reason: reason.to_string(),
            jobs,
            gpu,
        }]
    }
}
