//! The energy books of a replay with an energy model: the watts drawn now,
//! the joules of ended holds, each hold's and each job's draw.

use crate::energy::{EnergyModel, PowerPolicy};
use rustc_hash::FxHashMap;
use std::sync::Arc;
use tracetui_model::Secs;

#[derive(Debug, Clone)]
pub(super) struct Power {
    pub(super) model: Arc<EnergyModel>,
    pub(super) workload: Arc<Vec<u8>>,
    pub(super) policy: PowerPolicy,
    /// Watts drawn now, and Σ watts × start over the holds drawing them.
    pub(super) draw: f64,
    pub(super) draw_start: f64,
    /// Joules of holds that have ended.
    pub(super) joules: f64,
    /// hold → (watts, start, job); a job's key is its index, a recorded
    /// segment's `1 << 32 | segment`.
    pub(super) held: FxHashMap<u64, (f64, Secs, u32)>,
    /// job → (power limit W of its last hold, joules of its ended holds).
    pub(super) per_job: FxHashMap<u32, (u32, f64)>,
}

impl Power {
    /// Bytes held.
    pub(super) fn held_bytes(&self) -> usize {
        self.held.capacity() * 40 + self.per_job.capacity() * 24
    }
}

/// A job's power in the replay so far.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JobPower {
    /// The power limit of its current (or last) hold, W per GPU.
    pub limit: u32,
    /// Watts it draws now (0 when not running).
    pub watts: f64,
    /// Joules it has drawn so far.
    pub joules: f64,
}
