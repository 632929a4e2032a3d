//! `first-fit`: arrival order; every job that fits starts.

use super::keyed::Keyed;
use crate::rule::{Books, KeyMeaning, Rule, Walk};
use crate::view::View;

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

    fn key_meaning(&self) -> KeyMeaning {
        KeyMeaning::Arrival
    }

    fn books(&self, _v: &dyn View) -> Box<dyn Books> {
        Box::new(Keyed(|_, _| 0))
    }
}
