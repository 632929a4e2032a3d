//! sacct's own lines behind `NativeTables`: a job's allocation line with
//! its fields named, its steps, its other components and earlier runs,
//! and the jobs by the state sacct gives them.

use super::fold::Folded;
use super::Read;
use crate::input::InputError;
use crate::model::{Job, Trace};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The lines read, and the jobs they fold into.
#[derive(Debug)]
pub(crate) struct SlurmTables {
    /// The header's field names.
    names: Vec<String>,
    delimiter: char,
    /// Each record's line as written (sanitised), and its line number.
    rows: Vec<Box<str>>,
    lines: Vec<u64>,
    /// Every job, replayed or not (`Job::native_row` indexes them).
    jobs: Vec<Folded>,
    /// Jobs by the state of their last run (`COMPLETED`, `CANCELLED`, …).
    states: BTreeMap<String, u64>,
}

impl SlurmTables {
    pub(super) fn new(read: Read, jobs: Vec<Folded>) -> SlurmTables {
        let mut states = BTreeMap::new();
        for f in &jobs {
            if let Some(m) = f.main() {
                *states.entry(read.records[m].state.to_string()).or_insert(0) += 1;
            }
        }
        SlurmTables {
            names: read.header.names,
            delimiter: read.header.delimiter,
            lines: read.records.iter().map(|r| r.line).collect(),
            rows: read.rows,
            jobs,
            states,
        }
    }

    /// Record `r`'s fields by the header's names.
    fn fields(&self, r: usize) -> Value {
        let mut m = Map::new();
        for (name, v) in self.names.iter().zip(self.rows[r].split(self.delimiter)) {
            m.insert(name.clone(), v.trim().into());
        }
        m.insert("line".into(), self.lines[r].into());
        Value::Object(m)
    }

    /// Job `k`'s detail.
    fn detail(&self, k: usize) -> Value {
        let Some(f) = self.jobs.get(k) else {
            return Value::Null;
        };
        let Some(main) = f.main() else {
            return Value::Null;
        };
        let list = |rs: &mut dyn Iterator<Item = usize>| -> Vec<Value> {
            rs.map(|r| self.fields(r)).collect()
        };
        let mut d = json!({ "job": self.fields(main) });
        let others: Vec<usize> = f
            .parts
            .iter()
            .map(|&(_, r)| r)
            .filter(|&r| r != main)
            .collect();
        if !others.is_empty() {
            d["components"] = list(&mut others.into_iter()).into();
        }
        if !f.earlier.is_empty() {
            d["earlier_runs"] = list(&mut f.earlier.iter().copied()).into();
        }
        if !f.steps.is_empty() {
            d["steps"] = list(&mut f.steps.iter().copied()).into();
        }
        d
    }
}

impl crate::native::NativeTables for SlurmTables {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn job_detail(&self, _trace: &Trace, job: &Job, _side: bool) -> Value {
        self.detail(job.native_row as usize)
    }

    fn job_by_id(
        &self,
        _trace: &Trace,
        id: &str,
    ) -> Result<Option<(Value, Vec<String>)>, InputError> {
        Ok(self
            .jobs
            .iter()
            .position(|f| f.key == id)
            .map(|k| (self.detail(k), Vec::new())))
    }

    fn status_counts(&self, _trace: &Trace) -> Option<BTreeMap<String, u64>> {
        Some(self.states.clone())
    }

    fn held_bytes(&self) -> Vec<(&'static str, usize)> {
        let text: usize = self.rows.iter().map(|r| r.len() + 16).sum();
        vec![("sacct lines", text + self.lines.len() * 8)]
    }
}
