//! What a sweep keeps on disk: one record per finished run
//! (`DIR/runs/ID.json`, written atomically when the run ends, so a sweep
//! killed midway keeps every run it finished), and `DIR/results.csv`,
//! made from the records in plan order once every run has one.

use super::plan::{Plan, Run};
use crate::outfile::write_atomic;
use color_eyre::eyre::{eyre, Result};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A finished run: its settings, and its summary's columns or
/// the error it ended with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Record {
    pub id: String,
    pub settings: Vec<(String, String)>,
    /// (column, value) as `sim --format csv` writes them.
    #[serde(default)]
    pub columns: Vec<(String, String)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Where the row came from (`sim --format json`'s `meta`): a run that
    /// got as far as hashing its trace has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<serde_json::Value>,
    /// Everything the run read, and the per-run files it wrote: the
    /// record stands for its run while they are the same (`reuse`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<super::reuse::Read>,
}

/// The directory of run records (and per-run files) under a sweep's `--out`.
pub(crate) fn runs_dir(out: &Path) -> PathBuf {
    out.join("runs")
}

fn record_path(out: &Path, id: &str) -> PathBuf {
    runs_dir(out).join(format!("{id}.json"))
}

/// A per-run file under `DIR/runs`: `ID.jobs.csv`, `ID.timeline.csv`.
pub(crate) fn run_file(out: &Path, id: &str, what: &str) -> PathBuf {
    runs_dir(out).join(format!("{id}.{what}.csv"))
}

impl Record {
    /// The record `run` left in `out`, whatever its inputs.
    pub(crate) fn read(out: &Path, run: &Run) -> Option<Record> {
        let text = std::fs::read_to_string(record_path(out, &run.id)).ok()?;
        let r: Record = serde_json::from_str(&text).ok()?;
        let same = r.settings.len() == run.settings.len()
            && r.settings
                .iter()
                .zip(&run.settings)
                .all(|((k, v), (rk, rv))| *k == **rk && *v == **rv);
        (r.id == run.id && same).then_some(r)
    }

    /// Whether `run` has left a record (for progress; `done` reads it).
    pub(crate) fn exists(out: &Path, run: &Run) -> bool {
        record_path(out, &run.id).is_file()
    }

    pub(crate) fn save(&self, out: &Path) -> Result<()> {
        let path = record_path(out, &self.id);
        let text = serde_json::to_string_pretty(self)? + "\n";
        write_atomic(&path, |w| w.write_all(text.as_bytes())).map_err(|e| {
            eyre!(
                "{}: {e}",
                crate::text::sanitize(&path.display().to_string())
            )
        })
    }

    /// A run that ended well: its row as `sim --format csv` has it.
    pub(crate) fn ok(
        run: &Run,
        report: &crate::sim::Report,
        meta: &crate::cli::meta::Meta,
        read: super::reuse::Read,
    ) -> Result<Record> {
        Ok(Record {
            id: run.id.clone(),
            settings: owned(&run.settings),
            columns: crate::cli::columns::row(report),
            error: None,
            meta: Some(serde_json::to_value(meta)?),
            read: Some(read),
        })
    }

    pub(crate) fn failed(run: &Run, error: String) -> Record {
        Record {
            id: run.id.clone(),
            settings: owned(&run.settings),
            columns: Vec::new(),
            error: Some(error),
            meta: None,
            read: None,
        }
    }
}

/// A plan key's column: `plan_` and the key with `_` for `-`
/// (`plan_preempt_cost`), apart from `sim`'s own columns of the same name
/// (`policy` there is the policy's label, `gpus` the cluster's size).
pub(crate) fn plan_column(key: &str) -> String {
    format!("plan_{}", key.replace('-', "_"))
}

/// `results.csv`: `run`, the plan's keys, `error`, then every column any
/// run has, in `sim --format csv`'s order (columns only some runs have,
/// such as `deadline_met`, `command`, in the order they first appear),
/// and last each run's `meta` (compact JSON, as `sim --format csv` has it).
pub(crate) fn results_csv(plan: &Plan, records: &[Record]) -> Result<Vec<u8>> {
    let mut columns: Vec<&str> = Vec::new();
    for r in records {
        for (c, _) in &r.columns {
            if !columns.contains(&c.as_str()) {
                columns.push(c);
            }
        }
    }
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["run".to_string()];
    header.extend(plan.keys.iter().map(|k| plan_column(&k.name)));
    header.push("error".into());
    header.extend(columns.iter().map(|c| c.to_string()));
    header.push("meta".into());
    w.write_record(&header)?;
    for r in records {
        let mut row: Vec<&str> = vec![&r.id];
        row.extend(r.settings.iter().map(|(_, v)| v.as_str()));
        row.push(r.error.as_deref().unwrap_or_default());
        for c in &columns {
            let v = r
                .columns
                .iter()
                .find(|(k, _)| k == c)
                .map(|(_, v)| v.as_str());
            row.push(v.unwrap_or_default());
        }
        let meta = r.meta.as_ref().map(|m| m.to_string()).unwrap_or_default();
        row.push(&meta);
        w.write_record(&row)?;
    }
    w.into_inner().map_err(|e| eyre!("{e}"))
}

/// A run's settings as a record keeps them.
fn owned(settings: &[super::plan::Setting]) -> Vec<(String, String)> {
    settings
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}
