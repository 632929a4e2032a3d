//! A change the replay can make at an instant: the policy, the power-limit
//! policy or the placement rule in force (the engine makes them in
//! `engine/switch.rs`; schedules, the replay and what-if rows plan them).

use crate::energy::PowerPolicy;
use crate::placement::Placement;
use crate::policy::Policy;

/// A change the replay can make at an instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Switch {
    /// The scheduling policy: fresh books from then on, the waiting jobs
    /// put in their order.
    Policy(Policy),
    /// The power-limit policy (changes nothing without an energy model).
    Power(PowerPolicy),
    /// The placement rule: jobs started from now on are placed by it
    /// (running ones stay where they are).
    Placement(Placement),
}
