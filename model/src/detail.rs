//! Drill-down, whatever the format: everything the trace records about a job.

use super::model::{Job, Trace};
use super::InputError;
use serde_json::Value;

/// The released detail of a job in the replay: the format's own tables
/// where it keeps them (`side`: see `NativeTables::job_detail`), else the
/// model's fields under their ITP names.
pub fn of_job(trace: &Trace, job: &Job, side: bool) -> Value {
    match &trace.native {
        Some(n) => n.job_detail(trace, job, side),
        None => super::itp::job_detail(trace, job),
    }
}

/// `tracetui job FORMAT PATH ID`: the job by its released id, also when it
/// is not in the replay (a CPU job, a Philly job without GPUs). The
/// warnings are the side tables' skipped rows (PAI).
pub fn by_id(trace: &Trace, id: &str) -> Result<Option<(Value, Vec<String>)>, InputError> {
    match &trace.native {
        Some(n) => n.job_by_id(trace, id),
        None => Ok(trace
            .jobs
            .iter()
            .find(|j| j.id == id)
            .map(|j| (super::itp::job_detail(trace, j), Vec::new()))),
    }
}
