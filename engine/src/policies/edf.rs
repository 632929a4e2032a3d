//! `edf`: earliest deadline first, preemptive, for traces with deadlines.

use super::keyed::Keyed;
use crate::rule::{deadline_key, Books, KeyMeaning, Rule, Unavailable, Walk};
use crate::view::View;
use tracetui_model::Trace;

pub(super) struct Edf;

impl Rule for Edf {
    fn name(&self) -> &str {
        "edf"
    }

    fn describe(&self) -> &str {
        "earliest deadline first, preemptive"
    }

    fn walk(&self) -> Walk {
        Walk::Preemptive
    }

    fn key_meaning(&self) -> KeyMeaning {
        KeyMeaning::Deadline
    }

    fn available(&self, trace: &Trace) -> Result<(), Unavailable> {
        if trace.jobs.iter().any(|j| j.deadline.is_some()) {
            return Ok(());
        }
        Err(Unavailable {
            lacks: "deadlines".into(),
            short: "this trace has no deadlines".into(),
            hint: Some("ITP traces in the ElasticFlow schema have them".into()),
        })
    }

    fn books(&self, _v: &dyn View) -> Box<dyn Books> {
        // Waiting and running jobs alike, by deadline.
        Box::new(Keyed(|v, job| {
            deadline_key(v.trace().jobs[job as usize].deadline.get())
        }))
    }
}
