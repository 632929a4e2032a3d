//! The AcmeTrace file behind `NativeTables`: the released row, read again.

use super::{job_detail, AcmeTables};
use crate::trace::input::InputError;
use crate::trace::model::{Job, Trace};

impl crate::trace::native::NativeTables for AcmeTables {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn job_detail(&self, _trace: &Trace, job: &Job, _side: bool) -> serde_json::Value {
        job_detail(self, job.native_row).unwrap_or(serde_json::Value::Null)
    }

    fn job_by_id(
        &self,
        _trace: &Trace,
        id: &str,
    ) -> Result<Option<(serde_json::Value, Vec<String>)>, InputError> {
        match self.by_id.get(id) {
            Some(&r) => job_detail(self, r)
                .map(|v| Some((v, Vec::new())))
                .ok_or_else(|| {
                    InputError::file(
                        &self.path.display().to_string(),
                        "cannot read the job's row again",
                    )
                }),
            None => Ok(None),
        }
    }

    fn status_counts(&self, _trace: &Trace) -> Option<std::collections::BTreeMap<String, u64>> {
        Some(self.states.clone())
    }
}
