//! The preemptive walk's memory (the walk itself is `preempt.rs`).

/// The preemptive walk's memory: running jobs it may preempt, by priority,
/// and which classes failed to start even by preempting.
#[derive(Debug, Clone, Default)]
pub(super) struct Preemption {
    /// Preemptable running jobs as (key, rank), and each one's key.
    pub by_key: std::collections::BTreeSet<(u64, u32)>,
    pub key_of: rustc_hash::FxHashMap<u32, u64>,
    /// Bumped whenever the set of possible victims may have grown.
    pub vepoch: u64,
    /// class → (epoch, vepoch, key) of its last failure to start even by preempting.
    pub failed: rustc_hash::FxHashMap<u32, (u64, u64, u64)>,
}
