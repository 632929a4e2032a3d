//! Drill-down, whatever the format: everything the trace records about a job.

use super::model::{Job, Native, Trace};
use super::InputError;
use serde_json::Value;

/// The released detail of a job in the replay. For PAI the sensor and
/// metric rows come from the side index when `side` allows building or
/// using it (the TUI passes `false` until a background thread has built it).
pub fn of_job(trace: &Trace, job: &Job, side: bool) -> Value {
    match &trace.native {
        Native::Pai(t) => {
            let row = job.native_row;
            let rows = if side || t.side_ready() {
                super::pai::detail::side_rows(t, &super::pai::detail::workers_of(t, row))
                    .unwrap_or_default()
            } else {
                super::pai::detail::SideRows::default()
            };
            let mut v = super::pai::detail::job_detail(t, &trace.symbols, row, &rows);
            if !side && !t.side_ready() {
                v["note"] = Value::from(
                    "sensor and machine-metric rows: still being indexed in the background",
                );
            }
            v
        }
        Native::Philly(t) => super::philly::job_detail(t, job.native_row),
        Native::Acme(t) => super::acme::job_detail(t, job.native_row).unwrap_or(Value::Null),
        Native::Zeus(t) => super::zeus::job_detail(t, job.native_row),
        Native::None => super::itp::job_detail(trace, job),
    }
}

/// `tracetui job FORMAT PATH ID`: the job by its released id, also when it
/// is not in the replay (a CPU job, a Philly job without GPUs). The
/// warnings are the side tables' skipped rows (PAI).
pub fn by_id(trace: &Trace, id: &str) -> Result<Option<(Value, Vec<String>)>, InputError> {
    match &trace.native {
        Native::Pai(t) => {
            let Some(row) = t.job_by_name(id) else {
                return Ok(None);
            };
            let side = super::pai::detail::side_rows(t, &super::pai::detail::workers_of(t, row))?;
            let mut warnings = Vec::new();
            for s in side.skips.iter().filter(|s| s.count > 0) {
                warnings.push(format!("{}: skipped {} bad rows", s.file, s.count));
                warnings.extend(s.first.iter().map(|r| format!("  {r}")));
            }
            Ok(Some((
                super::pai::detail::job_detail(t, &trace.symbols, row, &side),
                warnings,
            )))
        }
        Native::Philly(t) => Ok(t
            .by_id
            .get(id)
            .map(|&r| (super::philly::job_detail(t, r), Vec::new()))),
        Native::Zeus(t) => Ok(t
            .by_id
            .get(id)
            .map(|&r| (super::zeus::job_detail(t, r), Vec::new()))),
        Native::Acme(t) => match t.by_id.get(id) {
            Some(&r) => super::acme::job_detail(t, r)
                .map(|v| Some((v, Vec::new())))
                .ok_or_else(|| {
                    InputError::file(
                        &t.path.display().to_string(),
                        "cannot read the job's row again",
                    )
                }),
            None => Ok(None),
        },
        Native::None => Ok(trace
            .jobs
            .iter()
            .find(|j| j.id == id)
            .map(|j| (super::itp::job_detail(trace, j), Vec::new()))),
    }
}
