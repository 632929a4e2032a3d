//! The policies a run may name: the built-ins, then any registered since
//! (a program the driver probed, a rule of the caller's), in order. A
//! value the application keeps and passes where policies are listed (the
//! picker, what-if rows) or named (`--policy NAME`), not a global: two
//! registries in one process (two tests, say) know nothing of each other.

use super::error::ArgError;
use super::policy::{Policy, Rule, Walk};
use tracetui_model::Trace;

/// The policies a run may name: the built-ins, then any registered
/// since, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policies {
    /// Registered after the built-ins, in order.
    added: Vec<Policy>,
}

impl Policies {
    /// The built-ins alone.
    pub fn new() -> Policies {
        Policies::default()
    }

    /// Every policy: the built-ins in their order, then any registered since.
    pub fn all(&self) -> Vec<Policy> {
        self.iter().collect()
    }

    /// `all`, without collecting them.
    pub fn iter(&self) -> impl Iterator<Item = Policy> + '_ {
        Policy::built_in().iter().chain(&self.added).copied()
    }

    /// Every policy that simulates (all but `recorded`).
    pub fn simulated(&self) -> impl Iterator<Item = Policy> + '_ {
        self.iter().filter(|p| p.walk() != Walk::Recorded)
    }

    /// The simulated policies that never preempt.
    pub fn non_preemptive(&self) -> impl Iterator<Item = Policy> + '_ {
        self.simulated().filter(|p| !p.preempts())
    }

    /// The policies `trace` supports, in order.
    pub fn available_on(&self, trace: &Trace) -> Vec<Policy> {
        self.iter().filter(|p| p.available(trace).is_ok()).collect()
    }

    /// The policy called `name` exactly, if any.
    pub fn find(&self, name: &str) -> Option<Policy> {
        self.iter().find(|p| p.name() == name)
    }

    /// Adds `rule` (e.g. one defined outside the program); a rule with a
    /// name already here gets that policy back.
    pub fn register(&mut self, rule: Box<dyn Rule>) -> Policy {
        if let Some(p) = self.find(rule.name()) {
            return p;
        }
        let p = Policy::of(Box::leak(rule));
        self.added.push(p);
        p
    }

    /// Adds the policies of `other` this registry lacks, in `other`'s order.
    pub fn merge(&mut self, other: &Policies) {
        for &p in &other.added {
            self.add(p);
        }
    }

    /// Knows `p` too (registered in another registry), unless a policy of
    /// its name is here already.
    pub fn add(&mut self, p: Policy) {
        if self.find(p.name()).is_none() {
            self.added.push(p);
        }
    }

    /// A policy by name or alias (`Policy::from_str` for the built-ins),
    /// or one registered here by its name; parsing starts nothing.
    pub fn parse(&self, s: &str) -> Result<Policy, ArgError> {
        super::policy::named(&self.all(), s)
    }
}
