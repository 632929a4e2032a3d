//! The pod list's rows behind `NativeTables`: each pod's row with its
//! columns named, pods by phase, and every row as a `Pod` for the
//! arrival-only experiments.

use super::rows::{PodRow, POD_COLUMNS};
use crate::input::InputError;
use crate::model::{Job, Trace};
use crate::pod::Pod;
use rustc_hash::FxHashMap;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Every row of a pod list, replayed or not.
#[derive(Debug)]
pub(crate) struct OpenbTables {
    rows: Vec<PodRow>,
    pods: Vec<Pod>,
    /// Whether the list has phases and times (not a `multigpu*` file).
    timed: bool,
    /// The node list read.
    nodes: PathBuf,
    by_name: FxHashMap<Box<str>, u32>,
}

impl OpenbTables {
    pub(super) fn new(rows: Vec<PodRow>, pods: Vec<Pod>, timed: bool, nodes: PathBuf) -> Self {
        let by_name = rows
            .iter()
            .enumerate()
            .map(|(i, r)| (r.name.clone(), i as u32))
            .collect();
        OpenbTables {
            rows,
            pods,
            timed,
            nodes,
            by_name,
        }
    }

    /// Row `i` with its columns named, as released.
    fn detail(&self, i: usize) -> Value {
        let Some(r) = self.rows.get(i) else {
            return Value::Null;
        };
        let t = |v: Option<i64>| v.map_or(Value::from(""), Value::from);
        let mut m = Map::new();
        let values: [Value; 11] = [
            crate::text::sanitize(&r.name).into(),
            r.cpu_milli.into(),
            r.mem_mib.into(),
            r.gpus.into(),
            r.milli.into(),
            crate::text::sanitize(&r.spec).into(),
            crate::text::sanitize(&r.qos).into(),
            r.phase.name().into(),
            t(r.creation),
            t(r.deletion),
            t(r.scheduled),
        ];
        let shown = if self.timed { 11 } else { 5 };
        for (name, v) in POD_COLUMNS.iter().zip(values).take(shown) {
            m.insert(name.to_string(), v);
        }
        m.insert("row".into(), (i + 2).into());
        serde_json::json!({
            "pod": Value::Object(m),
            "nodes": crate::text::sanitize(&self.nodes.display().to_string()),
        })
    }
}

impl crate::native::NativeTables for OpenbTables {
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
            .by_name
            .get(id)
            .map(|&i| (self.detail(i as usize), Vec::new())))
    }

    fn status_counts(&self, _trace: &Trace) -> Option<BTreeMap<String, u64>> {
        if !self.timed {
            return None;
        }
        let mut by = BTreeMap::new();
        for r in &self.rows {
            *by.entry(r.phase.name().to_string()).or_insert(0) += 1;
        }
        Some(by)
    }

    fn pods(&self) -> Option<&[Pod]> {
        Some(&self.pods)
    }

    fn held_bytes(&self) -> Vec<(&'static str, usize)> {
        let text: usize = self
            .rows
            .iter()
            .map(|r| r.name.len() * 2 + r.spec.len() * 2 + r.qos.len())
            .sum();
        let fixed = self.rows.len()
            * (std::mem::size_of::<PodRow>() + std::mem::size_of::<Pod>() + 24)
            + self.pods.iter().map(|p| p.models.len() * 2).sum::<usize>();
        vec![("pod rows", text + fixed)]
    }
}
