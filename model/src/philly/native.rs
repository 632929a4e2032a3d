//! The Philly tables behind `NativeTables`: attempts for the drill-down, and
//! the per-minute utilisation files, indexed in the background and read a
//! minute at a time.

use super::util::UtilFile;
use super::{job_detail, PhillyTables, CPU_UTIL, MEM_UTIL};
use crate::input::{Damaged, InputError};
use crate::model::{Job, Secs, Trace};
use crate::native::{BenchProbe, Indexing, MachineSample, MachineValues, NativeTables};
use serde_json::Value;
use std::any::Any;
use std::collections::BTreeMap;
use std::time::Instant;

impl PhillyTables {
    fn util_files(&self) -> impl Iterator<Item = &UtilFile> {
        [&self.gpu_util, &self.cpu_util, &self.mem_util]
            .into_iter()
            .flatten()
    }
}

/// One machine's row of `f` at `t`, for the machine drill-down.
fn machine_sample(f: &UtilFile, machine: u32, t: Secs, max_age: Secs) -> MachineSample {
    if !f.ready() {
        return MachineSample::Indexing(f.progress());
    }
    let row = f
        .at(t, max_age)
        .and_then(|(when, rows)| rows.get(&machine).map(|r| (when, r.clone())));
    let cols = f
        .index()
        .as_ref()
        .map(|i| i.columns.clone())
        .unwrap_or_default();
    match row {
        Some((when, vals)) => MachineSample::At {
            when,
            values: cols.into_iter().zip(vals).collect(),
        },
        None => MachineSample::Missing,
    }
}

impl NativeTables for PhillyTables {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn job_detail(&self, _trace: &Trace, job: &Job, _side: bool) -> Value {
        job_detail(self, job.native_row)
    }

    fn job_by_id(
        &self,
        _trace: &Trace,
        id: &str,
    ) -> Result<Option<(Value, Vec<String>)>, InputError> {
        Ok(self
            .by_id
            .get(id)
            .map(|&r| (job_detail(self, r), Vec::new())))
    }

    fn status_counts(&self, _trace: &Trace) -> Option<BTreeMap<String, u64>> {
        let mut by_status = BTreeMap::new();
        for j in &self.jobs {
            *by_status.entry(j.status.clone()).or_insert(0) += 1;
        }
        Some(by_status)
    }

    fn background_index(&self) -> Option<&'static str> {
        Some("util index")
    }

    /// Indexes every utilisation file; none gives a per-job figure.
    fn build_indexes(&self) -> Result<Option<Vec<f32>>, Damaged> {
        let mut damaged = Vec::new();
        for f in self.util_files() {
            if let Err(e) = f.index() {
                damaged.push(e.clone());
            }
        }
        if damaged.is_empty() {
            Ok(None)
        } else {
            Err(Damaged(damaged))
        }
    }

    fn indexing(&self) -> Option<Indexing> {
        let f = self.gpu_util.as_ref().filter(|f| !f.ready())?;
        Some(Indexing {
            what: "cluster_gpu_util",
            progress: Some(f.progress()),
        })
    }

    fn gpu_util_ready(&self) -> bool {
        self.gpu_util.as_ref().is_some_and(|f| f.ready())
    }

    fn gpu_util_at(&self, t: Secs, max_age: Secs) -> Option<(Secs, MachineValues)> {
        self.gpu_util.as_ref()?.at(t, max_age)
    }

    fn machine_samples(
        &self,
        machine: u32,
        t: Secs,
        max_age: Secs,
    ) -> Vec<(&'static str, MachineSample)> {
        [(CPU_UTIL, &self.cpu_util), (MEM_UTIL, &self.mem_util)]
            .into_iter()
            .filter_map(|(name, file)| {
                let file = file.as_ref().filter(|f| !f.absent())?;
                Some((name, machine_sample(file, machine, t, max_age)))
            })
            .collect()
    }

    /// The GPU utilisation file's index, then minutes read through it.
    fn bench(&self, _trace: &Trace, probe: &mut BenchProbe) -> Result<(), InputError> {
        let Some(f) = &self.gpu_util else {
            return Ok(());
        };
        let s = Instant::now();
        let idx = match f.index() {
            Ok(idx) => idx,
            Err(e) => {
                (probe.out)(format!("util index     failed: {e}"));
                return Ok(());
            }
        };
        (probe.out)(format!(
            "util index     {:.2} s for {:.2} GB{} ({} minutes; the file is read once, not held); peak RSS {}",
            s.elapsed().as_secs_f64(),
            f.size as f64 / 1e9,
            match f.source {
                super::util::UtilSource::Archive(..) => " gzipped (the whole archive)",
                super::util::UtilSource::File(_) => "",
            },
            idx.runs.len(),
            (probe.rss)()
        ));
        let n = idx.runs.len();
        let mut times: Vec<f64> = Vec::new();
        for k in (0..n)
            .step_by((n / probe.samples.max(1)).max(1))
            .take(probe.samples)
        {
            let s = Instant::now();
            std::hint::black_box(f.at(idx.runs[k].0, 120));
            times.push(s.elapsed().as_secs_f64() * 1000.0);
        }
        probe.timings("util minute", "lookups", times);
        Ok(())
    }
}
