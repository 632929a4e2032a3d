//! What the command line refuses that is its own (a shard, a figure's
//! size, a tick, a duration): the engine's `ArgError` is for policies,
//! schedules and knobs the engine takes.

use crate::text::sanitize;

#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("'{}' is not a tick such as 1m, 30s or 1h (units s, m, h, d, w)", sanitize(.0))]
    NotATick(String),
    #[error("'{}': a tick is from 1 s to 366 days", sanitize(.0))]
    TickRange(String),
    #[error("'{}' is not a shard I/N with 0 ≤ I < N, e.g. 0/4", sanitize(.0))]
    Shard(String),
    #[error("'{}' is not a figure size WIDTHxHEIGHT of 300 to 8000 pixels each, e.g. 1500x1000", sanitize(.0))]
    PlotSize(String),
    #[error("{0}")]
    PlotTooSmall(String),
    #[error("'{}' is not a duration of a second or more, such as 90m, 12h or 2d (units s, m, h, d, w)", sanitize(.0))]
    NotADuration(String),
    #[error("'{}' is not seeds: a range low-high of at most 10000 (42-51) or a list (42,43)", sanitize(.0))]
    NotSeeds(String),
    #[error("'{}': --tune is a number above 0, at most 10", sanitize(.0))]
    TuneRange(String),
}
