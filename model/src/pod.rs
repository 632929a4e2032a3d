//! A pod as a GPU-sharing scheduler sees it: what it asks of one machine.
//! Formats whose every row is such a request (openb) hand them out whole,
//! those not replayed included, for the arrival-only experiments of
//! `tracetui_engine::sharing`.

use crate::model::{Milli, TypeId};

/// One request for room on a single machine: CPU, memory, and GPUs (whole,
/// or a share of one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pod {
    /// As released (`openb-pod-0001`).
    pub name: Box<str>,
    /// CPU asked for, milli-cores.
    pub cpu_milli: u32,
    /// Memory asked for, MiB.
    pub mem_mib: u32,
    /// GPUs asked for (0: a CPU pod).
    pub gpus: u32,
    /// Milli-GPUs asked of each of those GPUs: 1000 for whole GPUs, less for
    /// a share of one (only when `gpus` is 1); 0 for a CPU pod.
    pub milli: Milli,
    /// The GPU models it may run on, as written (`V100M16|V100M32`); empty:
    /// any. Kept as written: the typical pods group by it.
    pub spec: Box<str>,
    /// The same models as indices into the cluster's GPU types (empty: any).
    pub models: Box<[TypeId]>,
}

impl Pod {
    /// Whether it asks for no GPU.
    pub fn is_cpu(&self) -> bool {
        self.gpus == 0 || self.milli == 0
    }

    /// Milli-GPUs it asks for in all (`gpus` × `milli`).
    pub fn total_milli(&self) -> u64 {
        self.gpus as u64 * self.milli as u64
    }

    /// The one GPU model it must run on, where it names one.
    pub fn one_type(&self) -> Option<TypeId> {
        (self.models.len() == 1).then(|| self.models[0])
    }

    /// The models it may run on as bits (bit t: type t, past 63 not held)
    /// where it names several (`Job::any_of_types`); 0 otherwise.
    pub fn type_bits(&self) -> u64 {
        if self.models.len() < 2 {
            return 0;
        }
        self.models
            .iter()
            .filter(|&&t| t < 64)
            .fold(0, |m, &t| m | 1 << t)
    }

    /// Whether it may run on GPUs of model `t`.
    pub fn allows(&self, t: TypeId) -> bool {
        self.models.is_empty() || self.models.contains(&t)
    }
}
