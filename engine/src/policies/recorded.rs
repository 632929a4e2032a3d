//! `recorded`: the trace's own start times and placements.

use super::keyed::Keyed;
use crate::rule::{Books, KeyMeaning, Rule, Unavailable, Walk};
use crate::view::View;
use tracetui_model::Trace;

pub(super) struct Recorded;

impl Rule for Recorded {
    fn name(&self) -> &str {
        "recorded"
    }

    fn describe(&self) -> &str {
        "the trace's own start times and placements"
    }

    fn walk(&self) -> Walk {
        Walk::Recorded
    }

    fn key_meaning(&self) -> KeyMeaning {
        KeyMeaning::Arrival
    }

    fn available(&self, trace: &Trace) -> Result<(), Unavailable> {
        if trace.has_recorded() {
            return Ok(());
        }
        Err(Unavailable {
            lacks: "recorded start times".into(),
            short: "this trace records no starts".into(),
            hint: None,
        })
    }

    fn books(&self, _v: &dyn View) -> Box<dyn Books> {
        // Waiting jobs wait in arrival order for their recorded starts.
        Box::new(Keyed(|_, _| 0))
    }
}
