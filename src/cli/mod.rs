//! The command line: arguments, and dispatch to the headless commands or the TUI.

mod bench;
mod choices;
pub(crate) mod columns;
mod compare;
pub mod error;
mod gen;
pub(crate) mod headless;
mod inflate;
mod inspect;
mod load_cache;
pub(crate) mod logger;
mod meta;
mod meta_inputs;
mod meta_interpreter;
mod output;
mod outputs;
pub(crate) mod plotting;
pub mod policy_arg;
mod policy_new;
mod py_imports;
mod read_args;
pub use read_args::ReadArgs;
mod results;
mod run_args;
mod runs;
mod stats_at;
mod sweep;
pub mod tui;

use crate::sim::Placement;
use crate::trace::Format;
use clap::{Args, Parser, Subcommand, ValueEnum};
pub use policy_arg::{PolicyArg, PolicyArgs};
use run_args::parse_policy;
pub use run_args::{CompareArgs, OutputFormat, PolicyList, SimArgs, TraceArgs};
use std::path::PathBuf;
/// The plan reader, for the fuzzer (`examples/fuzz`).
#[doc(hidden)]
pub use sweep::PlanReader;

#[derive(Debug, Parser)]
#[command(
    name = "tracetui",
    version = meta::VERSION,
    about = "Replay public GPU-cluster job traces through a deterministic scheduling simulation",
    long_about = None
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub view: ViewArgs,
}

/// Frames a second when `--fps` is not given.
pub(crate) const DEFAULT_FPS: u32 = 10;

/// How the replay looks (with `tracetui`, a format's replay, `lesson`;
/// given before or after the subcommand).
#[derive(Debug, Args, Clone, Default)]
pub struct ViewArgs {
    /// Theme: dark, light, high-contrast, okabe-ito, mono, a name in
    /// $XDG_CONFIG_HOME/tracetui/themes/ (else ~/.config/…), or a path to a theme file.
    #[arg(long)]
    pub theme: Option<String>,
    /// ASCII glyphs, for terminals without the block characters.
    #[arg(long)]
    pub ascii: bool,
    /// Frames a second at most, 1–60 (the simulation speed is separate) [default: 10].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=60))]
    pub fps: Option<u32>,
}

impl ViewArgs {
    /// These, with what was given before the subcommand where these say nothing.
    pub fn over(&self, top: &ViewArgs) -> ViewArgs {
        ViewArgs {
            theme: self.theme.clone().or_else(|| top.theme.clone()),
            ascii: self.ascii || top.ascii,
            fps: self.fps.or(top.fps),
        }
    }
}

/// A trace to replay full screen (the format is the subcommand).
#[derive(Debug, Args, Clone)]
pub struct TuiArgs {
    /// The trace: a file (itp, acme) or a directory (pai, philly).
    pub path: PathBuf,
    #[command(flatten)]
    pub energy: EnergyArgs,
    #[command(flatten)]
    pub read: ReadArgs,
    /// The policy to start with (default: recorded where the trace has it, else fifo).
    #[arg(long, value_parser = parse_policy)]
    pub policy: Option<PolicyArg>,
    /// How a job's GPUs are chosen.
    #[arg(long, value_parser = choices::placement(), default_value = "consolidate")]
    pub placement: Placement,
    #[command(flatten)]
    pub policies: PolicyArgs,
    #[command(flatten)]
    pub view: ViewArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// `tracetui FORMAT PATH`: one subcommand per format of `trace::FORMATS`.
    #[command(flatten)]
    Replay(tui::Replay),
    /// Teaching scenarios: `tracetui lesson` lists them, `tracetui lesson NAME` plays one.
    Lesson(LessonArgs),
    /// List the effective keymap (defaults plus config.toml in $XDG_CONFIG_HOME/tracetui, else ~/.config/tracetui).
    Keys,
    /// Simulate a trace under one policy and print its metrics.
    Sim(SimArgs),
    /// Simulate a trace under several policies, one row per policy.
    Compare(CompareArgs),
    /// Run a grid of simulations from a TOML plan on every core (or a
    /// shard of it): DIR/results.csv, one row per run; resumes when started again.
    Sweep(sweep::SweepArgs),
    /// Write a synthetic trace in a format's native schema.
    Gen(gen::GenArgs),
    /// FGD's arrival-only experiment on openb pod lists, every placement and
    /// seed on every core: GPU allocation and fragmentation per % arrived.
    Inflate(inflate::InflateArgs),
    /// Characterise a trace: jobs, machines, run times, queueing, diurnal rhythm.
    Stats(StatsArgs),
    /// Everything the trace records about one job, joined across its tables.
    Job(JobArgs),
    /// Time loading, replaying and drilling into a trace (for BENCHMARKS.md).
    Bench(bench::BenchArgs),
    /// Your own scheduling policy: `policy new NAME` writes one to start from.
    #[command(subcommand)]
    Policy(policy_new::PolicyCommand),
    /// Print the completion script for a shell: bash, zsh, fish (also
    /// elvish, powershell). E.g. `tracetui completions bash > ~/.local/share/bash-completion/completions/tracetui`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print tracetui's man page (roff), generated from its command line:
    /// `tracetui man > tracetui.1`, or `tracetui man | man -l -`; with a
    /// subcommand, its own page (`tracetui man sim`).
    Man {
        /// The subcommand whose page to print (none: tracetui's).
        subcommand: Option<String>,
    },
}

#[derive(Debug, Args)]
pub struct LessonArgs {
    /// The lesson (none: list them).
    pub name: Option<String>,
    /// Override the lesson's placement (e.g. consolidate vs spread).
    #[arg(long, value_parser = choices::placement())]
    pub placement: Option<Placement>,
    /// Play the lesson under this policy from the start instead of its own
    /// schedule (a built-in, or your own: 'exec:python3 my_policy.py').
    #[arg(long, value_name = "POLICY", conflicts_with = "policy_schedule")]
    pub policy: Option<String>,
    /// The preemptive policies' knobs, the policy timeout, and a schedule
    /// of your own in place of the lesson's (it may name exec: policies).
    #[command(flatten)]
    pub policies: PolicyArgs,
    /// Let a lesson file's schedule run the programs it names (exec:CMD);
    /// without it such a lesson is refused, naming what it would run.
    #[arg(long)]
    pub allow_exec: bool,
    /// Start in the lecture layout (`L`), for a projector: large grid and
    /// captions, high contrast; PageDown/PageUp go through the captions.
    #[arg(long)]
    pub projector: bool,
    #[command(flatten)]
    pub view: ViewArgs,
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    #[command(flatten)]
    pub load: LoadArgs,
    #[command(flatten)]
    pub energy: EnergyArgs,
    /// Also count the machines idle, partly used and full at this moment
    /// of the replay (+2h, day 3 14:00, Fri 03:00, seconds), as `:idle` shows.
    #[arg(long, value_name = "WHEN")]
    pub at: Option<String>,
    /// The built-in policy replayed to `--at` (default: recorded where the
    /// trace has it, else fifo, as the replay starts).
    #[arg(long, value_name = "NAME", requires = "at")]
    pub policy: Option<String>,
    /// Output format.
    #[arg(long = "format", id = "output", value_enum, default_value_t = TextFormat::Text)]
    pub output: TextFormat,
}

#[derive(Debug, Args)]
pub struct JobArgs {
    #[command(flatten)]
    pub load: LoadArgs,
    /// The job: PAI job_name, ITP job_id, … (or the start of one).
    pub job: String,
    /// Output format.
    #[arg(long = "format", id = "output", value_enum, default_value_t = TextFormat::Text)]
    pub output: TextFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TextFormat {
    Text,
    Json,
}

/// Which trace, and how to read it and build its cluster.
#[derive(Debug, Args, Clone)]
pub struct LoadArgs {
    /// The trace format.
    #[arg(value_parser = choices::format())]
    pub format: Format,
    /// The trace: a file (itp) or a directory (pai).
    pub path: PathBuf,
    #[command(flatten)]
    pub read: ReadArgs,
}

/// An energy model for the replay (Zeus traces).
#[derive(Debug, Args, Clone, Default)]
pub struct EnergyArgs {
    /// A directory with Zeus's summary_train.csv and summary_power_<gpu>.csv.
    #[arg(long, value_name = "DIR")]
    pub energy: Option<PathBuf>,
    /// The GPU whose power trace to use.
    #[arg(long, value_parser = choices::power_gpu(), default_value = "v100")]
    pub gpu: String,
    /// Zeus's trade-off: η·energy + (1−η)·max_power·time.
    #[arg(long, default_value_t = 0.5)]
    pub eta: f64,
    /// The power-limit policy to start with.
    #[arg(long, value_parser = choices::power(), default_value = "max")]
    pub power: crate::sim::PowerPolicy,
}

impl EnergyArgs {
    pub fn model(&self) -> color_eyre::eyre::Result<crate::sim::Energy> {
        self.model_for(None)
    }

    /// `model`; a format that releases power traces beside its jobs (Zeus)
    /// defaults to them.
    pub(crate) fn model_for(
        &self,
        source: Option<(crate::trace::Format, &std::path::Path)>,
    ) -> color_eyre::eyre::Result<crate::sim::Energy> {
        let beside = match source {
            Some((format, p)) if self.energy.is_none() => format.energy_beside(p),
            _ => None,
        };
        let Some(dir) = self.energy.as_ref().or(beside.as_ref()) else {
            return Ok(None);
        };
        if !(0.0..=1.0).contains(&self.eta) {
            color_eyre::eyre::bail!("--eta must be between 0 and 1, not {}", self.eta);
        }
        let m = crate::sim::EnergyModel::load(dir, &self.gpu, self.eta)?;
        Ok(Some((std::sync::Arc::new(m), self.power)))
    }
}

/// Writes a text document (a table, CSV, a listing) to standard output,
/// guarded for a terminal: its fields were escaped where they were put in
/// (`text::sanitize`), and no control, escape or invisible character
/// reaches the terminal raw. A reader that went away (`tracetui sim … |
/// head`) ends the command quietly.
pub(crate) fn print_out(s: &str) {
    write_out(&crate::text::guarded_lines(s));
}

/// `tracetui man [SUBCOMMAND]`: the page, generated from the definitions.
fn man(subcommand: Option<&str>) -> color_eyre::Result<()> {
    let top = <Cli as clap::CommandFactory>::command();
    // The footer names the version only (the build's commit is long).
    let source = format!("tracetui {}", env!("CARGO_PKG_VERSION"));
    let page = match subcommand {
        None => clap_mangen::Man::new(top).source(source),
        Some(name) => {
            let Some(sub) = top.find_subcommand(name) else {
                color_eyre::eyre::bail!(
                    "no subcommand '{}' (tracetui --help lists them)",
                    crate::text::sanitize(name)
                );
            };
            // Named as man names it (`tracetui-sim`): clap keeps a command's
            // name as a static string, and this one process prints one page.
            let title: &'static str = Box::leak(format!("tracetui-{}", sub.get_name()).into());
            let bin = format!("tracetui {}", sub.get_name());
            clap_mangen::Man::new(sub.clone().name(title).bin_name(bin))
                .title(title)
                .source(source)
        }
    };
    let mut out = Vec::new();
    page.render(&mut out)?;
    print_out(&String::from_utf8_lossy(&out));
    Ok(())
}

/// Writes a JSON document to standard output: every unsafe character as
/// a JSON escape, so a JSON reader gets the exact ids back.
pub(crate) fn print_json(s: &str) {
    write_out(&crate::text::guarded_json(s));
}

/// A results document in its format.
pub(crate) fn print_doc(s: &str, format: OutputFormat) {
    match format {
        OutputFormat::Json => print_json(s),
        OutputFormat::Table | OutputFormat::Csv => print_out(s),
    }
}

fn write_out(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => {}
        // A reader that stopped early (`| head`) wanted no more: not a failure.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            // A load cache being written is finished, not left half.
            let _ = crate::driver::cache_writes::finish();
            std::process::exit(0)
        }
        // Anything else (a full disk, `> /dev/full`) lost the results.
        Err(e) => {
            print_err(&format!(
                "tracetui: error: cannot write standard output: {e}"
            ));
            let _ = crate::driver::cache_writes::finish();
            std::process::exit(1);
        }
    }
}

/// One message line to standard error, made safe the same way.
pub(crate) fn print_err(s: &str) {
    use std::io::Write;
    let text = crate::text::guarded_lines(s);
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

pub(crate) fn main_with(args: impl IntoIterator<Item = std::ffi::OsString>) -> i32 {
    let args: Vec<std::ffi::OsString> = args.into_iter().collect();
    let cli = match meta::parse(&args) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            if e.use_stderr() {
                // A user's argument is quoted back: made safe like any other text.
                print_err(e.render().to_string().trim_end());
            } else {
                let _ = e.print();
            }
            return code;
        }
    };
    let tui = matches!(
        cli.command,
        None | Some(Command::Replay(_) | Command::Lesson(LessonArgs { name: Some(_), .. }))
    );
    if !tui {
        logger::init_stderr();
        // A signal ends the policy processes and temporary outputs too.
        crate::driver::end_on_signals();
    }
    let result = match cli.command {
        Some(Command::Replay(r)) => tui::replay(&r, &r.args.view.over(&cli.view)),
        Some(Command::Lesson(a)) => tui::lesson(&a, &a.view.over(&cli.view)),
        Some(Command::Keys) => {
            print_out(&crate::ui::keymap::Keymap::load_user().listing());
            Ok(())
        }
        Some(Command::Sim(a)) => headless::sim(&a),
        Some(Command::Compare(a)) => compare::compare(&a),
        Some(Command::Sweep(a)) => sweep::run(&a),
        Some(Command::Gen(a)) => gen::run(&a),
        Some(Command::Stats(a)) => inspect::stats(&a),
        Some(Command::Inflate(a)) => inflate::run(&a),
        Some(Command::Job(a)) => inspect::job(&a),
        Some(Command::Bench(a)) => bench::run(&a),
        Some(Command::Policy(c)) => policy_new::run(&c),
        Some(Command::Completions { shell }) => {
            let mut out = Vec::new();
            let mut cmd = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut cmd, "tracetui", &mut out);
            print_out(&String::from_utf8_lossy(&out));
            Ok(())
        }
        Some(Command::Man { subcommand }) => man(subcommand.as_deref()),
        None => tui::demo(&cli.view),
    };
    crate::driver::die_if_signalled();
    match result {
        Ok(()) => 0,
        Err(e) => {
            print_err(&format!("tracetui: error: {}", with_causes(&e)));
            // Outputs that clash, or a cluster the policy cannot run on,
            // are usage errors, found before any work.
            let part_machine = e.chain().any(|c| {
                matches!(
                    c.downcast_ref(),
                    Some(crate::sim::ArgError::PartMachine { .. })
                )
            });
            if e.downcast_ref::<crate::outfile::Clash>().is_some() || part_machine {
                2
            } else {
                1
            }
        }
    }
}

/// An error and every cause under it, `what: why: the OS's reason`; a
/// cause its message already quotes is not said twice.
pub(crate) fn with_causes(e: &color_eyre::eyre::Report) -> String {
    causes_of(e.as_ref())
}

/// `error` and every cause under it, as `with_causes` tells them.
pub(crate) fn causes_of(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = String::new();
    let chain = std::iter::successors(Some(error), |e| e.source());
    for cause in chain {
        let said = cause.to_string();
        if text.is_empty() {
            text = said;
        } else if !text.contains(&said) {
            text = format!("{text}: {said}");
        }
    }
    text
}

#[cfg(test)]
mod tests;
