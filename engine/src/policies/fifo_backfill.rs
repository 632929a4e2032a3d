//! `fifo-backfill`: EASY backfill: later jobs start if they do not delay the head (oracle run times).

use super::keyed::Keyed;
use crate::rule::{Books, KeyMeaning, Rule, Walk};
use crate::view::View;

pub(super) struct FifoBackfill;

impl Rule for FifoBackfill {
    fn name(&self) -> &str {
        "fifo-backfill"
    }

    fn describe(&self) -> &str {
        "EASY backfill: later jobs start if they do not delay the head (oracle run times)"
    }

    fn aliases(&self) -> &[&str] {
        &["backfill"]
    }

    fn orders_by_runtime(&self) -> bool {
        true
    }

    fn walk(&self) -> Walk {
        Walk::Backfill
    }

    fn key_meaning(&self) -> KeyMeaning {
        KeyMeaning::Arrival
    }

    fn books(&self, _v: &dyn View) -> Box<dyn Books> {
        Box::new(Keyed(|_, _| 0))
    }
}
