//! The AcmeTrace file behind `NativeTables`: the released row, read again.

use super::{parse_time, AcmeTables};
use crate::input::InputError;
use crate::model::{Job, Trace};
use std::io::{BufReader, Seek, SeekFrom};

impl crate::native::NativeTables for AcmeTables {
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
        // A one-off lookup: a scan of the ids costs less than a map held
        // all session.
        match self.ids.iter().position(|x| *x == id).map(|r| r as u32) {
            Some(r) => job_detail(self, r)
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

/// `tracetui job acme FILE JOBID`: the released row, as written.
pub(super) fn job_detail(t: &AcmeTables, row: u32) -> Option<serde_json::Value> {
    let mut f = std::fs::File::open(&t.path).ok()?;
    f.seek(SeekFrom::Start(*t.offsets.get(row as usize)?))
        .ok()?;
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(BufReader::new(f));
    let mut rec = csv::StringRecord::new();
    rdr.read_record(&mut rec).ok()?;
    let mut job = serde_json::Map::new();
    for (h, v) in t.header.iter().zip(rec.iter()) {
        let v = v.trim();
        let value = if v.is_empty() {
            serde_json::Value::Null
        } else if let Ok(i) = v.parse::<i64>() {
            i.into()
        } else {
            v.into()
        };
        job.insert(h.clone(), value);
    }
    let get = |k: &str| {
        job.get(k)
            .and_then(|v| v.as_str())
            .and_then(parse_time)
            .map(|x| x.0)
    };
    let (submit, start, end) = (get("submit_time"), get("start_time"), get("end_time"));
    Some(serde_json::json!({
        "job": job,
        "wait_s": start.zip(submit).map(|(s, q)| s - q),
        "runtime_s": end.zip(start).map(|(e, s)| e - s),
    }))
}
