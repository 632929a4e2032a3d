//! What a format keeps beside the model, behind one trait: the drill-down,
//! lookups by released id, status counts, background indexes of big side
//! files, measured utilisation, and what `tracetui bench` times. Each format
//! implements it in its own module; nothing outside `src/trace` names one.

use super::input::{Damaged, InputError};
use super::model::{Job, Secs, Trace};
use rustc_hash::FxHashMap;
use serde_json::Value;
use std::any::Any;
use std::collections::BTreeMap;

/// Values measured on machines in one minute: machine index → one value
/// per GPU or per column (`None` where the file says NA).
pub type MachineValues = FxHashMap<u32, Vec<Option<f32>>>;

/// A background index while it builds: what it indexes, and how far it has
/// got (0–1) where that is known.
#[derive(Debug, Clone, PartialEq)]
pub struct Indexing {
    /// What is being indexed, for the screen (`cluster_gpu_util`,
    /// `sensor and metric tables`).
    pub what: &'static str,
    /// How far it has got, 0–1; `None` where that cannot be known (an archive
    /// read as a stream).
    pub progress: Option<f64>,
}

/// One measurement of a machine for the machine drill-down.
#[derive(Debug, Clone, PartialEq)]
pub enum MachineSample {
    /// Its file is still being indexed, this far (0–1).
    Indexing(f64),
    /// The latest row at or before the time asked: when, and column → value.
    At {
        /// The row's time, in trace seconds.
        when: Secs,
        /// Column → value, in file order (`None` where the file says NA).
        values: Vec<(String, Option<f32>)>,
    },
    /// No row recent enough.
    Missing,
}

/// What `tracetui bench` hands a format's own timings.
pub struct BenchProbe<'a> {
    /// How many lookups (drill-downs, minutes) to time, spread evenly.
    pub samples: usize,
    /// Peak memory so far, as printed.
    pub rss: &'a dyn Fn() -> String,
    /// Where each printed line goes, as soon as it is known.
    pub out: &'a mut dyn FnMut(String),
}

impl BenchProbe<'_> {
    /// `label  N what: median M ms, max X ms` over `times` (milliseconds).
    pub(crate) fn timings(&mut self, label: &str, what: &str, mut times: Vec<f64>) {
        times.sort_by(f64::total_cmp);
        if let (Some(med), Some(max)) = (times.get(times.len() / 2), times.last()) {
            (self.out)(format!(
                "{label:<14} {} {what}: median {med:.2} ms, max {max:.2} ms",
                times.len()
            ));
        }
    }
}

/// A format's own tables, kept beside the model for drill-down and the
/// measurements the model does not carry.
pub trait NativeTables: Send + Sync + std::fmt::Debug + Any {
    /// The concrete tables (for the format's own tests and tools).
    fn as_any(&self) -> &dyn Any;

    /// Everything the trace records about `job` (by its `native_row`).
    /// `side`: whether slow side files may be read now; the TUI passes
    /// `false` until their background index is built.
    fn job_detail(&self, trace: &Trace, job: &Job, side: bool) -> Value;

    /// The job with released id `id`, also when it is not in the replay
    /// (a CPU job), with warnings about the rows read for it.
    fn job_by_id(
        &self,
        trace: &Trace,
        id: &str,
    ) -> Result<Option<(Value, Vec<String>)>, InputError>;

    /// The work `job` carries, for a speed model: its iterations and its
    /// global batch size (ElasticFlow's `num_iteration`, `batch_size`).
    fn work(&self, _job: &Job) -> Option<(u64, u32)> {
        None
    }

    /// Why the cluster itself says a waiting job waits (Slurm's pending
    /// reason, in a live view), where it says.
    fn waiting_reason(&self, _job: &Job) -> Option<String> {
        None
    }

    /// Every row as a pod asking one machine for CPU, memory and GPUs,
    /// those not replayed too, in file order (openb): what the arrival-only
    /// experiments place; `None` for a format of jobs.
    fn pods(&self) -> Option<&[crate::pod::Pod]> {
        None
    }

    /// Jobs by status as the trace writes it, over every row (CPU jobs
    /// too); `None` where the model's statuses are all there is.
    fn status_counts(&self, _trace: &Trace) -> Option<BTreeMap<String, u64>> {
        None
    }

    /// The bytes these tables hold, by part (measured from what is
    /// allocated: lengths of arenas and tables, not an estimate per row).
    fn held_bytes(&self) -> Vec<(&'static str, usize)> {
        Vec::new()
    }

    /// A name for the thread that builds the background indexes, or `None`
    /// when the format has none.
    fn background_index(&self) -> Option<&'static str> {
        None
    }

    /// Builds the background indexes (blocking: call from that thread).
    /// Returns the mean measured GPU utilisation per native job row (NaN
    /// where none) where the indexes give one.
    /// An error says which table is damaged and where.
    fn build_indexes(&self) -> Result<Option<Vec<f32>>, Damaged> {
        Ok(None)
    }

    /// The index still being built that the screen reports, if any.
    fn indexing(&self) -> Option<Indexing> {
        None
    }

    /// Whether per-GPU utilisation measured at a time can be read now.
    fn gpu_util_ready(&self) -> bool {
        false
    }

    /// Per-GPU utilisation (machine → one value per GPU) of the latest
    /// minute at or before `t` and no older than `max_age`, with its time.
    fn gpu_util_at(&self, _t: Secs, _max_age: Secs) -> Option<(Secs, MachineValues)> {
        None
    }

    /// Further measurements of machine `machine` at `t` for its drill-down,
    /// by the name of the file they come from.
    fn machine_samples(
        &self,
        _machine: u32,
        _t: Secs,
        _max_age: Secs,
    ) -> Vec<(&'static str, MachineSample)> {
        Vec::new()
    }

    /// `tracetui bench`: times the format's own indexes and lookups.
    fn bench(&self, _trace: &Trace, _probe: &mut BenchProbe) -> Result<(), InputError> {
        Ok(())
    }
}
