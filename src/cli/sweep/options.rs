//! A run's `sim` arguments, typed from its plan settings without a command
//! line. Each setting goes through the value parser `sim` gives that
//! option (a value `sim` refuses, the plan refuses in the same words);
//! options `sim` takes only apart are refused together; every other
//! option takes `sim`'s default. The run's provenance (`meta.knobs`,
//! `meta.command`) is what `tracetui sim` with the same options records:
//! a test holds the two equal.

use super::plan::Run;
use crate::cli::{choices, policy_arg, run_args, SimArgs};
use clap::builder::TypedValueParser;
use clap::error::ErrorKind;
use clap::{Arg, ArgAction, Command, CommandFactory};
use color_eyre::eyre::{eyre, Result};
use std::ffi::OsStr;
use std::path::PathBuf;

/// What turns plan settings into `sim` arguments: `sim`'s options (their
/// ids, long names, defaults, value names and conflicts), read once.
pub(crate) struct Options {
    sim: Command,
    /// Traces read from a pipe, by plan value: the copy each run reads
    /// (`piped.rs`).
    spooled: std::collections::HashMap<String, PathBuf>,
}

impl Options {
    pub(crate) fn new() -> Options {
        let mut cli = crate::cli::Cli::command();
        cli.build();
        let sim = cli
            .find_subcommand("sim")
            .expect("sim is a subcommand")
            .clone();
        Options {
            sim,
            spooled: Default::default(),
        }
    }

    /// These options, each run of a piped trace reading its copy.
    pub(crate) fn reading(self, spooled: std::collections::HashMap<String, PathBuf>) -> Options {
        Options { spooled, ..self }
    }

    /// `run`'s arguments, as `tracetui sim` with its settings would have
    /// them; an error as `sim` says it (its first line).
    pub(crate) fn sim_args(&self, run: &Run) -> Result<SimArgs> {
        let mut args = self.typed(run).map_err(|e| {
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or_default();
            eyre!("{}", first.trim_start_matches("error: "))
        })?;
        if let Some(copy) = self.spooled.get(run.trace()) {
            args.trace.load.path = copy.clone();
        }
        Ok(args)
    }

    fn typed(&self, run: &Run) -> Result<SimArgs, clap::Error> {
        let (format, path) = self.trace(run)?;
        let given = self.given(run)?;
        self.refuse_conflicts(&given)?;
        let mut a = blank(format, path);
        for arg in self.sim.get_arguments().filter(|a| !a.is_positional()) {
            let value = match given.iter().find(|(g, _)| g.get_id() == arg.get_id()) {
                Some((_, v)) => Some(v.to_string()),
                None => arg
                    .get_default_values()
                    .first()
                    .map(|d| d.to_string_lossy().into_owned()),
            };
            if let Some(v) = value {
                self.set(&mut a, arg, &v)?;
            }
        }
        a.trace.command_line = self.run_line(run);
        a.trace.knobs = crate::cli::meta::knobs_of(&self.sim, |id| {
            let raw = |arg: &Arg| {
                let v = given.iter().find(|(g, _)| g.get_id() == arg.get_id());
                match v {
                    Some((_, v)) => Some(vec![v.to_string()]),
                    None => {
                        let d = arg.get_default_values();
                        (!d.is_empty())
                            .then(|| d.iter().map(|d| d.to_string_lossy().into_owned()).collect())
                    }
                }
            };
            match id {
                // As given: a format's alias stays the alias.
                "format" | "path" => run
                    .trace()
                    .split_once(':')
                    .map(|(f, p)| vec![if id == "format" { f } else { p }.to_string()]),
                _ => self
                    .sim
                    .get_arguments()
                    .find(|x| x.get_id() == id)
                    .and_then(raw),
            }
        });
        Ok(a)
    }

    /// Whether the plan key `key` is one of sim's flags (`strict`), which
    /// `true` gives and `false` leaves out.
    fn is_flag_key(&self, key: &str) -> bool {
        self.sim
            .get_arguments()
            .find(|a| !a.is_positional() && a.get_long() == Some(key))
            .is_some_and(is_flag)
    }

    /// `tracetui sim …` for the run, as a user would type it.
    fn run_line(&self, run: &Run) -> Vec<String> {
        run_line_of(run, |k| self.is_flag_key(k))
    }

    /// The run's `trace` setting, `FORMAT:PATH`, typed.
    fn trace(&self, run: &Run) -> Result<(crate::trace::Format, PathBuf), clap::Error> {
        let v = run.trace();
        let Some((format, path)) = v.split_once(':') else {
            return Err(self.sim.clone().error(
                ErrorKind::ValueValidation,
                format!("trace '{v}' is not FORMAT:PATH (itp:cluster01.csv)"),
            ));
        };
        let arg = self.positional("format");
        let format = choices::format().parse_ref(&self.sim, Some(arg), OsStr::new(format))?;
        let arg = self.positional("path");
        let path = clap::builder::PathBufValueParser::new().parse_ref(
            &self.sim,
            Some(arg),
            OsStr::new(path),
        )?;
        Ok((format, path))
    }

    fn positional(&self, id: &str) -> &Arg {
        self.sim
            .get_positionals()
            .find(|a| a.get_id() == id)
            .expect("sim's positional")
    }

    /// The options the run's settings give, in the plan's order, with
    /// their values: for a flag, `false` leaves it out and `true` gives it;
    /// any other option takes its value as it is (`policy = "false"` is a
    /// policy named false, `gpus = true` a number it is not). `help` and
    /// `version` are no settings.
    fn given<'a>(&self, run: &'a Run) -> Result<Vec<(&Arg, &'a str)>, clap::Error> {
        let mut given = Vec::new();
        for (k, v) in &run.settings {
            if &**k == "trace" {
                continue;
            }
            let Some(arg) = self.sim.get_arguments().find(|a| {
                !a.is_positional()
                    && a.get_long() == Some(&**k)
                    && !matches!(a.get_id().as_str(), "help" | "version")
            }) else {
                return Err(self.sim.clone().error(
                    ErrorKind::UnknownArgument,
                    format!("unexpected argument '--{k}' found"),
                ));
            };
            if is_flag(arg) && &**v == "false" {
                continue;
            }
            if is_flag(arg) && &**v != "true" {
                return Err(self.sim.clone().error(
                    ErrorKind::TooManyValues,
                    format!("unexpected value '{v}' for '--{k}' found; no more were expected"),
                ));
            }
            given.push((arg, &**v));
        }
        Ok(given)
    }

    /// Refuses two options `sim` does not take together.
    fn refuse_conflicts(&self, given: &[(&Arg, &str)]) -> Result<(), clap::Error> {
        // Either may be the one that names the other.
        let apart = |a: &Arg, b: &Arg| {
            let names = |x: &Arg, y: &Arg| {
                let of_x = self.sim.get_arg_conflicts_with(x);
                of_x.iter().any(|c| c.get_id() == y.get_id())
            };
            names(a, b) || names(b, a)
        };
        for (i, (a, _)) in given.iter().enumerate() {
            if let Some((b, _)) = given[..i].iter().find(|(b, _)| apart(a, b)) {
                return Err(self.sim.clone().error(
                    ErrorKind::ArgumentConflict,
                    format!("the argument '{b}' cannot be used with '{a}'"),
                ));
            }
        }
        Ok(())
    }

    /// Sets the option `arg` of `a` from its text `v`, through the value
    /// parser `sim` gives it.
    fn set(&self, a: &mut SimArgs, arg: &Arg, v: &str) -> Result<(), clap::Error> {
        let (cmd, v) = (&self.sim, OsStr::new(v));
        let id = arg.get_id().as_str();
        let arg = Some(arg);
        let t = &mut a.trace;
        let read = &mut t.load.read;
        let knobs = &mut t.policies;
        let path = clap::builder::PathBufValueParser::new;
        match id {
            "gpus" => read.gpus = Some(choices::gpus().parse_ref(cmd, arg, v)?),
            "gpus_per_node" => {
                read.gpus_per_node = choices::gpus_per_node().parse_ref(cmd, arg, v)?
            }
            "strict" => read.strict = flag().parse_ref(cmd, arg, v)?,
            "include_cpu_jobs" => read.include_cpu_jobs = flag().parse_ref(cmd, arg, v)?,
            "cpu_mem" => read.cpu_mem = flag().parse_ref(cmd, arg, v)?,
            "ties" => read.ties = choices::ties().parse_ref(cmd, arg, v)?,
            "no_cache" => read.no_cache = flag().parse_ref(cmd, arg, v)?,
            "tz" => read.tz = Some(choices::zone().parse_ref(cmd, arg, v)?),
            "nodes" => read.nodes = Some(path().parse_ref(cmd, arg, v)?),
            "throughputs" => {
                read.throughputs =
                    vec![clap::builder::StringValueParser::new().parse_ref(cmd, arg, v)?]
            }
            "gpu_speed" => {
                read.gpu_speed =
                    vec![clap::builder::StringValueParser::new().parse_ref(cmd, arg, v)?]
            }
            "cluster_spec" => read.cluster = Some(path().parse_ref(cmd, arg, v)?),
            "energy" => t.energy.energy = Some(path().parse_ref(cmd, arg, v)?),
            "gpu" => t.energy.gpu = choices::power_gpu().parse_ref(cmd, arg, v)?,
            "eta" => t.energy.eta = f64_parser().parse_ref(cmd, arg, v)?,
            "power" => t.energy.power = choices::power().parse_ref(cmd, arg, v)?,
            "placement" => t.placement = choices::placement().parse_ref(cmd, arg, v)?,
            "preempt_cost" => {
                knobs.preempt_cost = clap::value_parser!(u32).parse_ref(cmd, arg, v)?
            }
            "rescale_cost" => {
                knobs.rescale_cost = clap::value_parser!(u32).parse_ref(cmd, arg, v)?
            }
            "rounds" => {
                knobs.rounds = Some(
                    clap::value_parser!(u32)
                        .range(1..=86_400)
                        .parse_ref(cmd, arg, v)?,
                )
            }
            "las_thresholds" => {
                knobs.las_thresholds = policy_arg::parse_thresholds.parse_ref(cmd, arg, v)?
            }
            "las_starve" => knobs.las_starve = f64_parser().parse_ref(cmd, arg, v)?,
            "fair_by" => knobs.fair_by = choices::fair_by().parse_ref(cmd, arg, v)?,
            "policy_schedule" => {
                knobs.policy_schedule =
                    Some(clap::builder::StringValueParser::new().parse_ref(cmd, arg, v)?)
            }
            "policy_timeout" => knobs.policy_timeout = f64_parser().parse_ref(cmd, arg, v)?,
            "estimate" => knobs.estimate = policy_arg::parse_estimate.parse_ref(cmd, arg, v)?,
            "estimate_seed" => {
                knobs.estimate_seed = clap::value_parser!(u64).parse_ref(cmd, arg, v)?
            }
            "offered_load" => t.offered_load = Some(f64_parser().parse_ref(cmd, arg, v)?),
            "seed" => t.seed = Some(clap::value_parser!(u64).parse_ref(cmd, arg, v)?),
            "output" => {
                t.output = clap::value_parser!(run_args::OutputFormat).parse_ref(cmd, arg, v)?
            }
            "policy" => a.policy = run_args::parse_policy.parse_ref(cmd, arg, v)?,
            "timeline_tick" => a.timeline_tick = run_args::parse_tick.parse_ref(cmd, arg, v)?,
            // The sweep's own (refused in a plan): their defaults stand.
            "jobs_out" | "timeline_out" | "plot" | "plot_size" | "plot_font" | "plot_font_size" => {
            }
            id => {
                return Err(self.sim.clone().error(
                    ErrorKind::UnknownArgument,
                    format!("'{id}' is a sim option a plan cannot set yet (a bug in tracetui)"),
                ))
            }
        }
        Ok(())
    }
}

/// A flag: given, it is on.
fn is_flag(arg: &Arg) -> bool {
    matches!(arg.get_action(), ArgAction::SetTrue)
}

/// A flag's value (`true` given, `false` its default), as clap reads one.
fn flag() -> clap::builder::BoolValueParser {
    clap::builder::BoolValueParser::new()
}

/// A number with a point, as clap reads one.
fn f64_parser() -> impl TypedValueParser<Value = f64> {
    clap::builder::StringValueParser::new().try_map(|s| s.parse::<f64>())
}

/// `tracetui sim …` for the run, as a user would type it (its provenance).
fn run_line_of(run: &Run, flag: impl Fn(&str) -> bool) -> Vec<String> {
    run.argv_with(flag)
        .map(|argv| {
            argv.iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// `sim`'s arguments before any option is read: each option's default is
/// then set through its parser, as clap does.
fn blank(format: crate::trace::Format, path: PathBuf) -> SimArgs {
    use crate::cli::{EnergyArgs, LoadArgs, PolicyArgs, ReadArgs, TraceArgs};
    SimArgs {
        trace: TraceArgs {
            load: LoadArgs {
                format,
                path,
                read: ReadArgs {
                    gpus: None,
                    gpus_per_node: 0,
                    strict: false,
                    include_cpu_jobs: false,
                    cpu_mem: false,
                    ties: crate::trace::Ties::File,
                    throughputs: Vec::new(),
                    gpu_speed: Vec::new(),
                    cluster: None,
                    no_cache: false,
                    tz: None,
                    nodes: None,
                },
            },
            energy: EnergyArgs::default(),
            placement: crate::sim::Placement::Consolidate,
            policies: PolicyArgs {
                preempt_cost: 0,
                rescale_cost: 0,
                rounds: None,
                las_thresholds: crate::sim::Thresholds(Vec::new()),
                las_starve: 0.0,
                fair_by: crate::sim::FairBy::User,
                policy_schedule: None,
                policy_timeout: 0.0,
                estimate: crate::sim::Estimate::Oracle,
                estimate_seed: 0,
            },
            offered_load: None,
            seed: None,
            output: run_args::OutputFormat::Table,
            command_line: Vec::new(),
            knobs: serde_json::Map::new(),
        },
        policy: crate::cli::PolicyArg::Known(crate::sim::Policy::Fifo),
        jobs_out: None,
        timeline_out: None,
        timeline_tick: 0,
        plot: None,
        look: run_args::PlotLook::default(),
    }
}

#[cfg(test)]
#[path = "options_tests.rs"]
mod tests;
