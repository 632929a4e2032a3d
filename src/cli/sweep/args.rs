//! The command line of `tracetui sweep`: the plan, the out dir, the
//! shard, Slurm's array and its wait, the figure.

use super::figure;
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct SweepArgs {
    /// The plan: a TOML file of `sim`'s long options (trace = "FORMAT:PATH";
    /// a list is an axis of the grid). See docs/sweep.md.
    pub plan: PathBuf,
    /// The directory for results.csv and a record per run (made if
    /// missing); a sweep started again on it skips the runs done.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Runs at once [default: every core].
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Only shard I of N (0 ≤ I < N): runs I, I+N, I+2N, … of the grid.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    pub shard: Option<(usize, usize)>,
    /// Also write each run's per-job rows: DIR/runs/ID.jobs.csv.
    #[arg(long)]
    pub jobs_out: bool,
    /// Also write each run's timeline: DIR/runs/ID.timeline.csv (its tick:
    /// the plan's timeline-tick).
    #[arg(long)]
    pub timeline_out: bool,
    /// Submit the grid to Slurm as one sbatch job array (each task a
    /// shard), wait for it with progress, and collect results.csv.
    #[arg(long, conflicts_with = "shard")]
    pub slurm: bool,
    /// The array's tasks [default: a task per 100 runs, at most 64].
    #[arg(long, value_name = "N", requires = "slurm", value_parser = clap::value_parser!(u16).range(1..))]
    pub tasks: Option<u16>,
    /// Submit and return; a later `tracetui sweep PLAN --out DIR` collects.
    #[arg(long, requires = "slurm")]
    pub no_wait: bool,
    /// Stop waiting for the array after this long (as 90m, 12h, 2d; the
    /// array runs on; run the sweep again to collect) [default: as long as
    /// it runs].
    #[arg(long, value_name = "DURATION", requires = "slurm", conflicts_with = "no_wait", value_parser = parse_wait)]
    pub wait_at_most: Option<u64>,
    /// Stop waiting once every task left has waited this long for a reason
    /// that does not clear by itself (JobHeldUser, PartitionDown, …; the
    /// array stays queued to release or cancel).
    #[arg(long, value_name = "DURATION", requires = "slurm", conflicts_with = "no_wait", value_parser = parse_wait, default_value = "30s")]
    pub stuck_for: u64,
    /// After `--`: options for sbatch as they are (--partition=gpu
    /// --time=2:00:00 --cpus-per-task=8; a task runs -j its CPUs).
    #[arg(last = true, value_name = "SBATCH_OPTION", requires = "slurm")]
    pub sbatch: Vec<String>,
    /// Draw a column of results.csv against an axis of the plan: a panel
    /// per value of the other axes, a line per policy, the mean over the
    /// seeds with its 95 % interval (its numbers in FILE.data.csv beside
    /// it); SVG, or PDF for a .pdf name.
    #[arg(long, value_name = "FILE.svg|FILE.pdf")]
    pub plot: Option<PathBuf>,
    /// The plan axis for the figure's x [default: load, else gpus, else the
    /// first axis of numbers].
    #[arg(long, value_name = "KEY", requires = "plot")]
    pub plot_x: Option<String>,
    /// The results.csv column for its y.
    #[arg(
        long,
        value_name = "COLUMN",
        default_value = "jct_mean_s",
        requires = "plot"
    )]
    pub plot_y: String,
    /// The plan axes that make the figure's panels, one per value (or
    /// combination) [default: every axis but x, seed and policy].
    #[arg(
        long,
        value_name = "KEY[,KEY]",
        value_delimiter = ',',
        requires = "plot"
    )]
    pub plot_facet: Option<Vec<String>>,
    /// The figure's title [default: the metric by the x axis, in words].
    #[arg(long, value_name = "TEXT", requires = "plot")]
    pub plot_title: Option<String>,
    /// The x axis's title [default: the axis in words, with its unit].
    #[arg(long, value_name = "TEXT", requires = "plot")]
    pub plot_x_label: Option<String>,
    /// The y axis's title [default: the metric in words, with its unit].
    #[arg(long, value_name = "TEXT", requires = "plot")]
    pub plot_y_label: Option<String>,
    /// The y axis's lower end, in the unit shown.
    #[arg(long, value_name = "Y", requires = "plot")]
    pub plot_y_min: Option<f64>,
    /// The y axis's upper end, in the unit shown.
    #[arg(long, value_name = "Y", requires = "plot")]
    pub plot_y_max: Option<f64>,
    #[command(flatten)]
    pub look: crate::cli::run_args::PlotLook,
    /// The command line the sweep was given (its figure's provenance).
    #[arg(skip)]
    pub command_line: Vec<String>,
}

impl SweepArgs {
    /// The per-run files asked for, as a record names them.
    pub(super) fn per_run_files(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        if self.jobs_out {
            out.push("jobs");
        }
        if self.timeline_out {
            out.push("timeline");
        }
        out
    }

    pub(super) fn figure(&self) -> Option<figure::Wanted<'_>> {
        Some(figure::Wanted {
            path: self.plot.as_deref()?,
            x: self.plot_x.as_deref(),
            y: &self.plot_y,
            facet: self.plot_facet.as_deref(),
            look: self.look.look(),
            title: self.plot_title.as_deref(),
            x_label: self.plot_x_label.as_deref(),
            y_label: self.plot_y_label.as_deref(),
            y_min: self.plot_y_min,
            y_max: self.plot_y_max,
            command: crate::cli::meta::shell_line(&self.command_line),
        })
    }
}

fn parse_shard(s: &str) -> Result<(usize, usize), crate::cli::error::CliError> {
    let bad = || crate::cli::error::CliError::Shard(s.to_string());
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

/// `--wait-at-most`, `--stuck-for`: a duration (`90m`, `12h`, `2d`), at least a second.
fn parse_wait(s: &str) -> std::result::Result<u64, crate::cli::error::CliError> {
    crate::trace::parse_duration(s.trim())
        .filter(|&d| d >= 1)
        .map(|d| d as u64)
        .ok_or_else(|| crate::cli::error::CliError::NotADuration(s.to_string()))
}
