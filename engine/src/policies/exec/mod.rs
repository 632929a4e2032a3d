//! `exec:CMD`: any program as a policy. The program speaks the policy
//! protocol (docs/policy-protocol.md) on its stdin and stdout. Here are
//! the protocol's messages and the books that talk it, as data: the
//! program is asked who it is when the policy is named (the probe, in the
//! driver; `sim::programs` registers what it said), and the questions an
//! engine stands at (`sim::ask`) are answered by the driver, one process
//! per dialogue, started at its first scheduling point with a snapshot of
//! the state, so a live switch, a what-if fork or a copy of an engine each
//! get their own.

mod books;
mod spec;
mod talk;
mod wire;
mod wire2;

use crate::rule::{Books, KeyMeaning, Rule, Walk};
use crate::view::View;
use books::ExecBooks;
pub use spec::Params;
pub(crate) use spec::{exec_name, params_suffix, Spec};
use std::sync::Arc;

/// An external policy as a rule: what the probe learned.
pub(crate) struct ExecRule(pub(crate) Arc<Spec>);

impl Rule for ExecRule {
    fn name(&self) -> &str {
        &self.0.program.name
    }

    fn describe(&self) -> &str {
        &self.0.describe
    }

    fn label(&self) -> &str {
        &self.0.program.label
    }

    fn walk(&self) -> Walk {
        self.0.terms().walk
    }

    fn key_meaning(&self) -> KeyMeaning {
        KeyMeaning::Signed
    }

    /// It keeps ElasticFlow's rounds itself (`"rounds": true` in its hello).
    fn in_rounds(&self) -> bool {
        self.0.terms().own_rounds
    }

    /// It is told each job's `runtime`: the estimate.
    fn orders_by_runtime(&self) -> bool {
        true
    }

    fn command(&self) -> Option<&str> {
        Some(&self.0.program.cmd)
    }

    fn hello_name(&self) -> Option<&str> {
        Some(&self.0.hello_name)
    }

    fn books(&self, _v: &dyn View) -> Box<dyn Books> {
        Box::new(ExecBooks::new(self.0.clone()))
    }
}
