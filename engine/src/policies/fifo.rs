//! `fifo`: strict arrival order; the head blocks the queue.

use super::keyed::Keyed;
use crate::rule::{Books, KeyMeaning, Rule, Walk};
use crate::view::View;

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

    fn key_meaning(&self) -> KeyMeaning {
        KeyMeaning::Arrival
    }

    fn books(&self, _v: &dyn View) -> Box<dyn Books> {
        Box::new(Keyed(|_, _| 0))
    }
}
