//! The registered policies: the built-ins, one file each, and any added at
//! run time. To add a built-in: write its file (a `Rule` and its `Books`),
//! then add its `mod` line and its entry in `built_in!` below (which
//! gives it a handle, `Policy::Name`, too).

mod edf;
mod edf_elastic;
mod elasticflow;
pub mod exec;
mod fair;
mod fifo;
mod fifo_backfill;
mod first_fit;
mod gandiva;
mod keyed;
mod las;
mod recorded;
mod rounds;
mod sgf;
mod sjf;
mod srtf;

use super::policy::{Policy, Rule};
use std::sync::RwLock;

/// Declares the built-ins' list and, beside it, each one's named handle
/// (`Policy::Fifo`), numbered by its place in the list — written once.
macro_rules! built_in {
    ($($handle:ident => $rule:expr,)*) => {
        /// The built-ins, in the order lists show them.
        static BUILT_IN: &[&dyn Rule] = &[$(&$rule),*];

        #[allow(non_upper_case_globals)]
        impl Policy {
            built_in!(@handles 0u16, $($handle)*);
        }
    };
    (@handles $at:expr, $first:ident $($rest:ident)*) => {
        pub const $first: Policy = Policy::at($at);
        built_in!(@handles $at + 1, $($rest)*);
    };
    (@handles $at:expr,) => {};
}

built_in! {
    Recorded => recorded::Recorded,
    Fifo => fifo::Fifo,
    FirstFit => first_fit::FirstFit,
    FifoBackfill => fifo_backfill::FifoBackfill,
    Sjf => sjf::Sjf,
    Sgf => sgf::Sgf,
    Srtf => srtf::Srtf,
    Las => las::Las,
    Fair => fair::Fair,
    Edf => edf::Edf,
    EdfElastic => edf_elastic::EdfElastic,
    ElasticFlow => elasticflow::ElasticFlow,
    Gandiva => gandiva::Gandiva,
}

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

#[cfg(test)]
mod tests {
    use super::Policy;

    #[test]
    fn each_named_handle_is_the_built_in_of_its_name() {
        let named = [
            (Policy::Recorded, "recorded"),
            (Policy::Fifo, "fifo"),
            (Policy::FirstFit, "first-fit"),
            (Policy::FifoBackfill, "fifo-backfill"),
            (Policy::Sjf, "sjf"),
            (Policy::Sgf, "sgf"),
            (Policy::Srtf, "srtf"),
            (Policy::Las, "las"),
            (Policy::Fair, "fair"),
            (Policy::Edf, "edf"),
            (Policy::EdfElastic, "edf-elastic"),
        ];
        for (p, name) in named {
            assert_eq!(p.name(), name);
        }
        assert!(Policy::all().len() >= named.len());
    }
}
