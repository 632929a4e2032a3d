//! `fifo`: strict arrival order; the head blocks the queue.

use super::Keyed;
use crate::sim::engine::Engine;
use crate::sim::policy::{Books, Rule, Walk};

pub(super) struct Fifo;

impl Rule for Fifo {
    fn name(&self) -> &str {
        "fifo"
    }

    fn describe(&self) -> &str {
        "strict arrival order; the head blocks the queue"
    }

    fn walk(&self) -> Walk {
        Walk::Strict
    }

    fn books(&self, _e: &Engine) -> Box<dyn Books> {
        Box::new(Keyed(|_, _| 0))
    }
}
