//! The arguments of the commands that run a trace: `sim`, `compare`
//! (and each run of a `sweep`, parsed as `sim`).

use super::error::CliError;
use super::policy_arg;
use super::{EnergyArgs, LoadArgs, PolicyArg, PolicyArgs};
use crate::sim::{ArgError, Placement, Policy};
use clap::{Args, ValueEnum};

/// A trace to simulate, and how to print the result.
#[derive(Debug, Args, Clone)]
pub struct TraceArgs {
    #[command(flatten)]
    pub load: LoadArgs,
    #[command(flatten)]
    pub energy: EnergyArgs,
    /// How a job's GPUs are chosen.
    #[arg(long, value_parser = super::choices::placement(), default_value = "consolidate")]
    pub placement: Placement,
    #[command(flatten)]
    pub policies: PolicyArgs,
    /// Size the cluster for this offered load, for traces without a machine
    /// list: GPUs = the jobs' average GPU demand ÷ LOAD (0.8: the jobs ask
    /// for 80 % of the GPUs on average), at least the largest job; with
    /// --cluster, the spec's machines scaled type by type to that size.
    #[arg(long = "load", value_name = "LOAD", conflicts_with_all = ["gpus"])]
    pub offered_load: Option<f64>,
    /// Resample the arrivals with this seed: the same jobs in the same order
    /// over the same span, the gaps between submissions shuffled (deadlines
    /// keep their slack). For a seeds axis over a real trace; a trace made
    /// by `gen` takes its own --seed there.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Output format.
    #[arg(long = "format", id = "output", value_enum, default_value_t = OutputFormat::Table)]
    pub output: OutputFormat,
    /// The command line the run was given, and every option's value (its
    /// results' provenance; `meta::parse` fills them).
    #[arg(skip)]
    pub command_line: Vec<String>,
    #[arg(skip)]
    pub knobs: serde_json::Map<String, serde_json::Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Table,
    Json,
    Csv,
}

#[derive(Debug, Args, Clone)]
pub struct SimArgs {
    #[command(flatten)]
    pub trace: TraceArgs,
    #[arg(long, default_value = "fifo", value_parser = parse_policy, help = policy_help())]
    pub policy: PolicyArg,
    /// Write one row per job (id, user, group, GPUs, submit, start, end,
    /// wait, JCT, preemptions, machines, energy): CSV, or JSON Lines for a .jsonl name.
    #[arg(long, value_name = "FILE")]
    pub jobs_out: Option<std::path::PathBuf>,
    /// Write utilisation, queue length and running jobs at every tick: CSV, or JSON Lines for .jsonl.
    #[arg(long, value_name = "FILE")]
    pub timeline_out: Option<std::path::PathBuf>,
    /// The timeline's tick: 30s, 5m, 1h, 1d or seconds.
    #[arg(long, value_name = "TICK", default_value = "1m", value_parser = parse_tick)]
    pub timeline_tick: i64,
    /// Write the JCT, wait and slowdown CDFs, JCT by job size and the
    /// utilisation as one SVG (its numbers in FILE.data.csv beside it).
    #[arg(long, value_name = "FILE.svg|FILE.pdf")]
    pub plot: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub look: PlotLook,
}

/// `30s`, `5m`, `1h`, `1d`, `1h30m` or seconds: from 1 s to 366 days.
pub(super) fn parse_tick(s: &str) -> Result<i64, CliError> {
    let s = s.trim();
    let secs = crate::trace::parse_duration(s).ok_or_else(|| CliError::NotATick(s.into()))?;
    if !(1..=366 * 86_400).contains(&secs) {
        return Err(CliError::TickRange(s.into()));
    }
    Ok(secs)
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    #[command(flatten)]
    pub trace: TraceArgs,
    /// Comma-separated policies, e.g. fifo,first-fit,sjf (with
    /// --policy-schedule, the schedule is one more row).
    #[arg(long, default_value = "fifo,first-fit,fifo-backfill,sjf,sgf", value_parser = parse_policies)]
    pub policies: PolicyList,
    /// Replay the trace as recorded up to TIME (2d, day 5 09:00, trace
    /// seconds), then run each policy from that state to the end.
    #[arg(long, value_name = "TIME")]
    pub from: Option<String>,
    /// Write every row's JCT, wait and slowdown CDFs, JCT by job size and
    /// utilisation as one SVG (its numbers in FILE.data.csv beside it).
    #[arg(long, value_name = "FILE.svg|FILE.pdf", conflicts_with = "from")]
    pub plot: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub look: PlotLook,
    /// Write one row per job of every policy, one file (its `policy`
    /// column tells the runs apart): CSV, or JSON Lines for a .jsonl name.
    #[arg(long, value_name = "FILE", conflicts_with = "from")]
    pub jobs_out: Option<std::path::PathBuf>,
    /// Write every policy's timeline at every tick, one file with a
    /// `policy` column: CSV, or JSON Lines for .jsonl.
    #[arg(long, value_name = "FILE", conflicts_with = "from")]
    pub timeline_out: Option<std::path::PathBuf>,
    /// The timeline's tick: 30s, 5m, 1h, 1d or seconds.
    #[arg(long, value_name = "TICK", default_value = "1m", value_parser = parse_tick)]
    pub timeline_tick: i64,
}

#[derive(Debug, Clone)]
pub struct PolicyList(pub Vec<PolicyArg>);

pub(super) fn parse_policy(s: &str) -> Result<PolicyArg, ArgError> {
    s.parse()
}

/// `--policy`'s help: every registered policy, and `exec:CMD`.
fn policy_help() -> String {
    let names: Vec<&str> = Policy::built_in().iter().map(|p| p.name()).collect();
    format!(
        "The scheduling policy: {}, a name from config.toml's [policies], or exec:CMD \
         (a program speaking docs/policy-protocol.md); NAME[key=value,…] passes parameters",
        names.join(", ")
    )
}

fn parse_policies(s: &str) -> Result<PolicyList, ArgError> {
    policy_arg::parse_list(s).map(PolicyList)
}

/// How a `--plot` figure looks.
#[derive(Debug, Args, Clone, Default)]
pub struct PlotLook {
    /// The figure's size in SVG pixels, WIDTHxHEIGHT [default: 1500x1000].
    #[arg(long, value_name = "WxH", value_parser = parse_size)]
    pub plot_size: Option<(u32, u32)>,
    /// The figure's font family (as SVG names it: serif, sans-serif,
    /// "Times New Roman") [default: sans-serif].
    #[arg(long, value_name = "FAMILY")]
    pub plot_font: Option<String>,
    /// The axis labels' font size in pixels; titles are larger, tick
    /// labels smaller [default: 16].
    #[arg(long, value_name = "PX", value_parser = clap::value_parser!(u32).range(6..=72))]
    pub plot_font_size: Option<u32>,
}

impl PlotLook {
    pub(crate) fn look(&self) -> crate::plot::Look {
        let d = crate::plot::Look::default();
        let (width, height) = self.plot_size.unwrap_or((d.width, d.height));
        crate::plot::Look {
            width,
            height,
            font: self.plot_font.clone().unwrap_or(d.font),
            font_size: self.plot_font_size.unwrap_or(d.font_size),
        }
    }
}

/// `1500x1000`: each side 300 to 8000 pixels.
fn parse_size(s: &str) -> Result<(u32, u32), CliError> {
    let bad = || CliError::PlotSize(s.to_string());
    let (w, h) = s.trim().split_once(['x', 'X']).ok_or_else(bad)?;
    let (w, h): (u32, u32) = (
        w.trim().parse().map_err(|_| bad())?,
        h.trim().parse().map_err(|_| bad())?,
    );
    if !(300..=8000).contains(&w) || !(300..=8000).contains(&h) {
        return Err(bad());
    }
    Ok((w, h))
}
