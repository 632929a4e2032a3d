//! Why a waiting job waits, and where it stands in the queue: what the
//! engine's queries (`engine/why.rs`, `engine/queries.rs`) answer.

use tracetui_model::Secs;

/// What keeps a waiting job from starting now.
#[derive(Debug, Clone, PartialEq)]
pub enum Blocked {
    /// Fewer GPUs (of its type) are free than it needs.
    Room {
        /// Whole GPUs it needs (fractions of a GPU left out).
        needs: u64,
        /// Whole GPUs free of the types it may use.
        free: u64,
    },
    /// Enough are free, but not where it needs them: `block` GPUs on one
    /// machine (the largest instance, or the gang when it fits one
    /// machine), where the largest free block is `largest`.
    Locality {
        /// GPUs it needs on one machine.
        block: u32,
        /// The most whole GPUs free on one machine of a type it may use.
        largest: u32,
    },
    /// Its GPUs are free where it needs them, but no machine that has
    /// them has the CPU and memory it asks free too.
    Host,
    /// It would fit now, but the policy starts jobs in order and `head`
    /// (first in that order) does not fit.
    Turn {
        /// The job first in the policy's order, by index in the trace.
        head: u32,
    },
    /// It would fit now, but it would delay the reservation of `head`,
    /// the first in order, due to start at `shadow` (EASY backfill).
    Reservation {
        /// The job first in the policy's order, by index in the trace.
        head: u32,
        /// When the head is due to start, trace seconds (none: no
        /// reservation for it yet, or no end in sight).
        shadow: Option<Secs>,
    },
    /// A recorded replay: it starts when the trace says it started (none:
    /// the trace never saw it start).
    Record {
        /// Its recorded start, trace seconds: the earliest of its recorded holds.
        start: Option<Secs>,
    },
    /// The policy starts jobs itself, at its scheduling points: it has
    /// not started this one (it would fit now).
    Policy,
    /// It would fit now, but `--rounds` holds the policy in ElasticFlow's
    /// rounds: it decides next at `next` (none: when something is due).
    Round {
        /// The next round, trace seconds.
        next: Option<Secs>,
    },
}

/// EASY backfill's reservation now: the head it is for, when the head is
/// due to start (none: no end in sight), and the machines it plans on.
#[derive(Debug, Clone, PartialEq)]
pub struct Reserved {
    /// The job it is for, by index in the trace.
    pub head: u32,
    /// When the head is due to start, trace seconds (none: no end in sight).
    pub from: Option<Secs>,
    /// The machines it plans the head on, by index in the cluster.
    pub machines: Vec<u32>,
}

/// Where a waiting job stands: its policy key (the engine's unsigned form,
/// read with [`crate::rule::KeyMeaning`]) and the jobs ahead of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueuePlace {
    /// Its key in the policy's order (lower goes first).
    pub key: u64,
    /// Waiting jobs before it in the order (0: it is next).
    pub ahead: usize,
    /// Jobs waiting in all.
    pub waiting: usize,
}
