//! Where jobs ran: the machines of each job's runs (for per-job results,
//! when asked), and the jobs that ran across GPU types — at the slowest
//! of them, as a gang moves as one (`speed.rs`), said in the report.

use super::Engine;
use crate::cluster::Grant;
use rustc_hash::{FxHashMap, FxHashSet};

/// The machines each job ran on (when tracked), and the jobs whose GPUs
/// spanned types.
#[derive(Debug, Clone, Default)]
pub(super) struct Placed {
    /// Job → the machines of all its runs, ascending; only while tracked.
    machines: Option<FxHashMap<u32, Vec<u32>>>,
    /// Jobs that held GPUs of two types or more at once.
    across: FxHashSet<u32>,
}

impl Engine {
    /// Keeps the machines each job runs on from now on (`machines_of`).
    pub fn track_placed(&mut self) {
        self.placed_on.machines = Some(FxHashMap::default());
    }

    /// The machines `job` ran on, ascending (see `track_placed`).
    pub fn machines_of(&self, job: u32) -> Option<&[u32]> {
        self.placed_on
            .machines
            .as_ref()?
            .get(&job)
            .map(Vec::as_slice)
    }

    /// Notes that `job` runs on `grants` from now.
    pub(super) fn note_placed(&mut self, job: u32, grants: &[Grant]) {
        let machines = &self.trace.cluster.machines;
        if self.trace.cluster.gpu_types.len() > 1 {
            let ty = |g: &Grant| machines.get(g.machine as usize).map(|m| m.gpu_type);
            let mut gpus = grants.iter().filter(|g| g.has_gpu());
            let first = gpus.clone().next().and_then(ty);
            if gpus.any(|g| ty(g) != first) {
                self.placed_on.across.insert(job);
            }
        }
        self.note_machines(job, grants);
    }

    /// Notes the machines of `grants` as `job`'s, where tracked (a
    /// recorded hold's too: it ran where the trace says, at its own pace).
    pub(super) fn note_machines(&mut self, job: u32, grants: &[Grant]) {
        if let Some(all) = self.placed_on.machines.as_mut() {
            let ran = all.entry(job).or_default();
            ran.extend(grants.iter().map(|g| g.machine));
            ran.sort_unstable();
            ran.dedup();
        }
    }

    /// How many jobs ran across GPU types, on a cluster of several.
    pub(super) fn jobs_across_types(&self) -> Option<u64> {
        (self.trace.cluster.gpu_types.len() > 1).then_some(self.placed_on.across.len() as u64)
    }
}

impl Engine {
    /// `grants` with the CPU and memory `job` asks of each machine held on
    /// its first grant there, where a policy named GPUs alone for a job
    /// that asks them (placement puts them there itself): what it holds
    /// is counted, though such a policy does not look whether it is free.
    pub(super) fn carrying_asks(&self, job: u32, grants: &[Grant]) -> Option<Vec<Grant>> {
        let asks = self.asks_of(job);
        let none = crate::shape_classes::Asks::default();
        if asks == none || grants.iter().any(|g| g.cpu_milli > 0 || g.mem_mib > 0) {
            return None;
        }
        let mut out = grants.to_vec();
        for i in 0..out.len() {
            if i == 0 || out[i - 1].machine != out[i].machine {
                (out[i].cpu_milli, out[i].mem_mib) = (asks.cpu_milli, asks.mem_mib);
            }
        }
        Some(out)
    }
}
