//! Why a waiting job waits, and where it stands in the queue: what the
//! engine's queries (`engine/why.rs`, `engine/queries.rs`) answer.

use tracetui_model::model::Secs;

/// What keeps a waiting job from starting now.
#[derive(Debug, Clone, PartialEq)]
pub enum Blocked {
    /// Fewer GPUs (of its type) are free than it needs.
    Room { needs: u64, free: u64 },
    /// Enough are free, but not where it needs them: `block` GPUs on one
    /// machine (the largest instance, or the gang when it fits one
    /// machine), where the largest free block is `largest`.
    Locality { block: u32, largest: u32 },
    /// It would fit now, but the policy starts jobs in order and `head`
    /// (first in that order) does not fit.
    Turn { head: u32 },
    /// It would fit now, but it would delay the reservation of `head`,
    /// the first in order, due to start at `shadow` (EASY backfill).
    Reservation { head: u32, shadow: Option<Secs> },
    /// A recorded replay: it starts when the trace says it started (none:
    /// the trace never saw it start).
    Record { start: Option<Secs> },
    /// The policy starts jobs itself, at its scheduling points: it has
    /// not started this one (it would fit now).
    Policy,
}

/// EASY backfill's reservation now: the head it is for, when the head is
/// due to start (none: no end in sight), and the machines it plans on.
#[derive(Debug, Clone, PartialEq)]
pub struct Reserved {
    pub head: u32,
    pub from: Option<Secs>,
    pub machines: Vec<u32>,
}

/// Where a waiting job stands: its policy key (the engine's unsigned form,
/// read with [`crate::rule::KeyMeaning`]) and the jobs ahead of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueuePlace {
    pub key: u64,
    /// Waiting jobs before it in the order (0: it is next).
    pub ahead: usize,
    /// Jobs waiting in all.
    pub waiting: usize,
}
