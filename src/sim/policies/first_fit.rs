//! `first-fit`: arrival order; every job that fits starts.

use super::Keyed;
use crate::sim::engine::Engine;
use crate::sim::policy::{Books, Rule, Walk};

pub(super) struct FirstFit;

impl Rule for FirstFit {
    fn name(&self) -> &str {
        "first-fit"
    }

    fn describe(&self) -> &str {
        "arrival order; every job that fits starts"
    }

    fn aliases(&self) -> &[&str] {
        &["firstfit"]
    }

    fn walk(&self) -> Walk {
        Walk::Greedy
    }

    fn books(&self, _e: &Engine) -> Box<dyn Books> {
        Box::new(Keyed(|_, _| 0))
    }
}
