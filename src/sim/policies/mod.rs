//! The registered policies: the built-ins, one file each, and any added at
//! run time. To add a built-in: write its file (a `Rule` and its `Books`),
//! then add its `mod` line and its entry in `BUILT_IN` below.

mod edf;
pub mod exec;
mod fair;
mod fifo;
mod fifo_backfill;
mod first_fit;
mod las;
mod recorded;
mod sgf;
mod sjf;
mod srtf;

use super::policy::Rule;
use std::sync::RwLock;

/// The built-ins, in the order lists show them. The handles
/// `Policy::Recorded` … `Policy::Edf` are indices into this list.
static BUILT_IN: &[&dyn Rule] = &[
    &recorded::Recorded,
    &fifo::Fifo,
    &first_fit::FirstFit,
    &fifo_backfill::FifoBackfill,
    &sjf::Sjf,
    &sgf::Sgf,
    &srtf::Srtf,
    &las::Las,
    &fair::Fair,
    &edf::Edf,
];

/// Policies registered at run time (after the built-ins). They live for the
/// rest of the process, as a handle may name them any time.
static ADDED: RwLock<Vec<&'static dyn Rule>> = RwLock::new(Vec::new());

pub(super) fn rule(index: u16) -> &'static dyn Rule {
    let i = index as usize;
    if i < BUILT_IN.len() {
        return BUILT_IN[i];
    }
    ADDED.read().unwrap_or_else(|e| e.into_inner())[i - BUILT_IN.len()]
}

pub(super) fn count() -> u16 {
    (BUILT_IN.len() + ADDED.read().unwrap_or_else(|e| e.into_inner()).len()) as u16
}

pub(super) fn register(rule: Box<dyn Rule>) -> u16 {
    let mut added = ADDED.write().unwrap_or_else(|e| e.into_inner());
    let known = BUILT_IN.iter().chain(added.iter());
    if let Some(i) = known.clone().position(|r| r.name() == rule.name()) {
        return i as u16;
    }
    added.push(Box::leak(rule));
    (BUILT_IN.len() + added.len() - 1) as u16
}

/// The order key of the policies that keep no state: one function of the
/// engine and the job.
#[derive(Debug, Clone, Copy)]
pub(super) struct Keyed(pub fn(&super::Engine, u32) -> u64);

impl super::policy::Books for Keyed {
    fn clone_box(&self) -> Box<dyn super::policy::Books> {
        Box::new(*self)
    }

    fn queued_key(&self, e: &super::Engine, job: u32) -> u64 {
        (self.0)(e, job)
    }

    fn passive(&self) -> bool {
        true
    }
}
