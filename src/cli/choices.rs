//! Command-line values for the model's and the engine's own types, which
//! know nothing of clap: each a parser over the type's names (and
//! aliases), listing each value with its help as clap's own enums do.

use crate::sim::{FairBy, Placement, PowerPolicy};
use crate::trace::{Format, Ties, FORMATS};
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};

/// A value of `all`, named by `name` (or one of `aliases`), with `help`.
fn choice<T: Copy + Send + Sync + 'static>(
    all: &'static [T],
    name: fn(T) -> &'static str,
    help: fn(T) -> &'static str,
    aliases: fn(T) -> &'static [&'static str],
) -> impl TypedValueParser<Value = T> {
    let values = all.iter().map(move |&v| {
        PossibleValue::new(name(v))
            .help(help(v))
            .aliases(aliases(v).iter().copied())
    });
    PossibleValuesParser::new(values).map(move |typed: String| {
        *all.iter()
            .find(|&&v| name(v) == typed || aliases(v).contains(&typed.as_str()))
            .expect("the parser took one of the values")
    })
}

fn none<T>(_: T) -> &'static [&'static str] {
    &[]
}

/// A trace format: `itp`, `pai`, … (`trace::FORMATS`).
pub(crate) fn format() -> impl TypedValueParser<Value = Format> {
    choice(
        &FORMATS,
        Format::name,
        |f| f.spec().help,
        |f| f.spec().aliases,
    )
}

/// `--ties`.
pub(crate) fn ties() -> impl TypedValueParser<Value = Ties> {
    choice(&Ties::ALL, Ties::name, Ties::about, none)
}

/// `--placement`.
pub(crate) fn placement() -> impl TypedValueParser<Value = Placement> {
    choice(&Placement::ALL, Placement::name, Placement::about, none)
}

/// `inflate --placement`: the GPU-sharing placements.
pub(crate) fn sharing() -> impl TypedValueParser<Value = crate::sim::sharing::SharingRule> {
    use crate::sim::sharing::SharingRule;
    choice(
        &SharingRule::ALL,
        SharingRule::name,
        SharingRule::about,
        none,
    )
}

/// `--fair-by`.
pub(crate) fn fair_by() -> impl TypedValueParser<Value = FairBy> {
    choice(&FairBy::ALL, FairBy::name, FairBy::about, none)
}

/// `--power`.
pub(crate) fn power() -> impl TypedValueParser<Value = PowerPolicy> {
    choice(
        &PowerPolicy::ALL,
        PowerPolicy::name,
        PowerPolicy::about,
        none,
    )
}

/// `--tz`: an IANA time zone name.
pub(crate) fn zone() -> impl clap::builder::TypedValueParser<Value = chrono_tz::Tz> {
    use clap::builder::TypedValueParser;
    clap::builder::StringValueParser::new().try_map(|s| {
        s.parse::<chrono_tz::Tz>()
            .map_err(|_| format!("'{s}' is not a time zone name (IANA, e.g. Europe/Berlin or UTC)"))
    })
}

/// `--gpus`: 1 to `limits::MAX_GPUS`.
pub(crate) fn gpus() -> clap::builder::RangedI64ValueParser<u32> {
    clap::value_parser!(u32).range(1..=crate::trace::MAX_GPUS as i64)
}

/// `--gpus-per-node`: 1 to 1024.
pub(crate) fn gpus_per_node() -> clap::builder::RangedI64ValueParser<u32> {
    clap::value_parser!(u32).range(1..=1024)
}

/// `--gpu`: the GPUs Zeus released power traces of.
pub(crate) fn power_gpu() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(["a40", "p100", "rtx6000", "v100"])
}
