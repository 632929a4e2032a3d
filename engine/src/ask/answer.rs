//! A policy program's answer to a scheduling point, as its line reads
//! (docs/policy-protocol.md): the keys, starts, preemptions, resizes and
//! drops it asks for, not yet checked against the engine.

use serde::Deserialize;
use tracetui_model::Secs;

/// The answer to a scheduling point.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct Decision {
    /// (job, key): lower keys go first; ties by submit time, then trace order.
    #[serde(default)]
    pub priority: Vec<(u32, i64)>,
    #[serde(default)]
    pub start: Vec<StartItem>,
    /// Jobs to start after `start`, in order, each only if it fits then.
    #[serde(default)]
    pub start_if_fits: Vec<u32>,
    #[serde(default)]
    pub preempt: Vec<u32>,
    #[serde(default)]
    pub wakeup: Option<Secs>,
    /// Version 2: (job, GPUs): resize a running job, start a waiting one on that many.
    #[serde(default)]
    pub resize: Vec<(u32, u32)>,
    /// Version 2: a resize that does not fit takes a smaller level that does.
    #[serde(default)]
    pub shrink_to_fit: bool,
    /// Version 2: waiting jobs declined.
    #[serde(default)]
    pub drop: Vec<u32>,
    /// Version 2: (job, time): the ends the policy holds.
    #[serde(default)]
    pub ends: Vec<(u32, Secs)>,
    /// Version 2: the policy's own count of deadlines kept, (on time, of).
    #[serde(default)]
    pub deadline_admitted: Option<(u64, u64)>,
}

#[derive(Deserialize)]
#[serde(untagged)]
pub(crate) enum StartItem {
    Job(u32),
    Placed(Placed),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Placed {
    pub job: u32,
    pub gpus: Vec<(u32, u16, u16)>,
}

impl Decision {
    /// The first field of version 2 the answer uses, if any.
    pub(crate) fn v2_field(&self) -> Option<&'static str> {
        [
            (!self.resize.is_empty(), "resize"),
            (self.shrink_to_fit, "shrink_to_fit"),
            (!self.drop.is_empty(), "drop"),
            (!self.ends.is_empty(), "ends"),
            (self.deadline_admitted.is_some(), "deadline_admitted"),
        ]
        .into_iter()
        .find_map(|(used, name)| used.then_some(name))
    }

    /// Its longest list of jobs: the field, and how many it names.
    pub(crate) fn longest_list(&self) -> Option<(&'static str, usize)> {
        [
            ("priority", self.priority.len()),
            ("start", self.start.len()),
            ("start_if_fits", self.start_if_fits.len()),
            ("preempt", self.preempt.len()),
            ("resize", self.resize.len()),
            ("drop", self.drop.len()),
            ("ends", self.ends.len()),
        ]
        .into_iter()
        .max_by_key(|&(_, n)| n)
    }

    /// Whether it acts on jobs beyond keys (not allowed after a pass).
    pub(crate) fn acts(&self) -> bool {
        !self.start.is_empty()
            || !self.start_if_fits.is_empty()
            || !self.preempt.is_empty()
            || !self.resize.is_empty()
            || !self.drop.is_empty()
            || !self.ends.is_empty()
    }
}
