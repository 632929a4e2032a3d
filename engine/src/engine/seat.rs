//! The policy in force — its handle, its walk, its books, since when, and
//! the one before it (to fall back to) — and the policies that failed.
//! Only `switch.rs` seats a policy.

use super::PolicyFailure;
use crate::policy::Policy;
use crate::rule::{Books, Walk};
use tracetui_model::Secs;

/// The policy the engine runs now.
#[derive(Debug, Clone)]
pub(super) struct Seat {
    pub(super) policy: Policy,
    /// The policy's walk (cached: asked on every arrival and pass).
    pub(super) walk: Walk,
    /// The policy's state and order; out only while a hook runs.
    pub(super) books: Option<Box<dyn Books>>,
    /// The books say they are `passive`: their hooks are not called.
    pub(super) passive: bool,
    /// When it took over.
    pub(super) since: Secs,
    /// The policy in force before it, to fall back to.
    pub(super) before: Option<Policy>,
}

impl Seat {
    /// `policy` from `now`, its books not yet opened.
    pub(super) fn new(policy: Policy, now: Secs) -> Seat {
        Seat {
            policy,
            walk: policy.walk(),
            books: None,
            passive: false,
            since: now,
            before: None,
        }
    }
}

/// Policies that failed, and whether a failure stops the run.
#[derive(Debug, Clone, Default)]
pub(super) struct Failing {
    /// In order; with `halt` the first stops the run.
    pub(super) failures: Vec<PolicyFailure>,
    /// A failure halts the run (headless) instead of falling back.
    pub(super) halt: bool,
    /// A failure halted it.
    pub(super) halted: bool,
}
