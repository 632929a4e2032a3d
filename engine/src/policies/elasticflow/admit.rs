//! Which jobs elasticflow can plan, and the GPU counts each may hold:
//! its throughput table's columns (on the cluster's one GPU type) up to
//! the cap ElasticFlow sets per model and batch size (`models.py`
//! `get_max_gpu`; T4 caps when the tables are T4's, else A100's, as
//! ElasticFlow treats every type but T4), and at most its batch size.

use super::job::Job;
use crate::view::View;
use std::sync::Arc;

/// The job as elasticflow plans it (best-effort without a deadline);
/// None when it cannot be planned (no work or table row). `edf`: as
/// `edf-accessctrl` caps it, by its table alone (its largest column, at
/// most 64 and its batch size: `jobs.py` 296-302), not by ElasticFlow's
/// per-model caps.
pub(super) fn job_of(v: &dyn View, j: u32, edf: bool) -> Option<Job> {
    let trace = v.trace();
    let tj = &trace.jobs[j as usize];
    let ddl = tj.deadline.get().unwrap_or(super::job::BEST_EFFORT);
    let speeds = trace.speeds.as_deref()?;
    speeds.work(j)?;
    let iters = v.work_left(j)?;
    let (row, batch) = speeds.row(j, 0)?;
    let model = tj.model.map(|m| trace.symbols.get(m)).unwrap_or("");
    let table_cap = speeds.max_gpus(j).unwrap_or(0);
    let cap = match edf {
        true => table_cap.min(64),
        false => max_gpu(model, batch, is_t4(v)).min(table_cap),
    };
    let levels: Arc<[(u32, f64)]> = row.iter().copied().filter(|l| l.0 <= cap).collect();
    if levels.is_empty() {
        return None;
    }
    Some(Job::new(ddl, iters, levels, v.tuning().rounds))
}

/// Whether the cluster's tables are T4's: named so, or in a directory
/// whose name ends so (ElasticFlow's `throughputs_T4`).
fn is_t4(v: &dyn View) -> bool {
    let Some(t) = v.trace().speeds.as_deref().and_then(|s| s.table_of(0)) else {
        return false;
    };
    let named = t
        .gpu_type
        .clone()
        .or_else(|| t.dir.file_name().map(|n| n.to_string_lossy().into_owned()));
    named.is_some_and(|n| n.to_ascii_uppercase().ends_with("T4"))
}

/// ElasticFlow's most GPUs for a model at a batch size.
fn max_gpu(model: &str, batch: u32, t4: bool) -> u32 {
    if t4 {
        return match model {
            "bert" | "cifar10" => 16,
            "deepspeech2" if batch == 320 => 32,
            "yolov3" => 4,
            "ncf" => 1,
            _ => 64,
        };
    }
    let b = batch.min(64);
    match (model, batch) {
        ("deepspeech2", _) => batch,
        ("gpt2", 128) => 16,
        ("gpt2", 256) => 32,
        ("bert", 64) => 8,
        ("bert", _) => 16,
        ("inception3", 64) => 16,
        ("inception3", 128) => 32,
        ("resnet50", 64) => 32,
        ("vgg16", 64) => 32,
        _ => b,
    }
}

#[cfg(test)]
mod tests {
    use super::max_gpu;

    #[test]
    fn caps_are_elasticflows() {
        assert_eq!(max_gpu("ncf", 128, true), 1);
        assert_eq!(max_gpu("deepspeech2", 320, true), 32);
        assert_eq!(max_gpu("deepspeech2", 640, true), 64);
        assert_eq!(max_gpu("resnet50", 8, true), 64);
        assert_eq!(max_gpu("gpt2", 128, false), 16);
        assert_eq!(max_gpu("resnet50", 128, false), 64);
        assert_eq!(max_gpu("resnet50", 64, false), 32);
        assert_eq!(max_gpu("bert", 32, false), 16);
        assert_eq!(max_gpu("imagenet", 16, false), 16);
    }
}
