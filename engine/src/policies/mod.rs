//! The built-in policies, one file each. To add one: write its file (a
//! `Rule` and its `Books`), then add its `mod` line and its entry in
//! `built_in!` below (which gives it a handle, `Policy::Name`, too).

mod dlas_gpu;
mod edf;
mod edf_elastic;
mod elasticflow;
pub(crate) mod exec;
mod fair;
mod fifo;
mod fifo_backfill;
mod fifo_fastest;
mod first_fit;
mod gandiva;
mod keyed;
mod las;
mod recorded;
pub(crate) mod rounds;
mod sgf;
mod sjf;
mod srtf;
mod themis;

use super::policy::Policy;

/// Declares the built-ins' list and, beside it, each one's named handle
/// (`Policy::Fifo`) — written once.
macro_rules! built_in {
    ($($handle:ident => $rule:expr,)*) => {
        /// The built-ins, in the order lists show them.
        pub(crate) static BUILT_IN: &[Policy] = &[$(Policy::of(&$rule)),*];

        #[allow(non_upper_case_globals)]
        impl Policy {
            $(
                /// A built-in policy's named handle (its rule is in its file here).
                pub const $handle: Policy = Policy::of(&$rule);
            )*
        }
    };
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
    ElasticFlow => elasticflow::ElasticFlow::ACCESS_CTRL,
    Ef => elasticflow::ElasticFlow::EF,
    EdfAccessCtrl => elasticflow::ElasticFlow::EDF_ACCESS_CTRL,
    Themis => themis::Themis,
    Gandiva => gandiva::Gandiva,
    DlasGpu => dlas_gpu::DlasGpu,
    FifoFastest => fifo_fastest::FifoFastest,
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
        assert_eq!(Policy::built_in().len(), named.len() + 7);
    }
}
