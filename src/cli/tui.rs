//! Opening the full-screen replay from the command line.

use super::{TuiArgs, ViewArgs};
use crate::sim::Policy;
use crate::spec::RunSpec;
use crate::trace::{self, Format, FORMATS};
use crate::ui::run::{run, ViewOptions};
use clap::error::ErrorKind;
use clap::{ArgMatches, Args};
use color_eyre::eyre::Result;
use std::sync::Arc;

fn view(v: &ViewArgs) -> ViewOptions {
    ViewOptions {
        theme: v.theme.clone(),
        ascii: v.ascii,
        fps: v.fps.unwrap_or(super::DEFAULT_FPS),
        captions: Vec::new(),
        no_terminal: "it plays in a terminal".into(),
        projector: false,
        live: None,
    }
}

/// A word for a shell command line, quoted where it must be.
pub(super) fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=,@+%".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// `tracetui lesson [NAME]`: the list, or one lesson full screen.
pub fn lesson(a: &super::LessonArgs, v: &ViewArgs) -> Result<()> {
    use crate::lesson;
    let Some(name) = &a.name else {
        super::print_out(&lesson::listing());
        return Ok(());
    };
    // A lesson file (a path, or a name ending in .toml), else a built-in.
    let path = std::path::Path::new(name);
    let l: lesson::Lesson = if name.ends_with(".toml") || path.is_file() {
        lesson::Lesson::from_file(path)?
    } else {
        match lesson::find(name) {
            Some(l) => l,
            None => color_eyre::eyre::bail!(
                "no lesson '{}'; there are: {} (or give a lesson file: FILE.toml)",
                crate::text::sanitize(name),
                lesson::builtins()
                    .iter()
                    .map(|l| l.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    };
    if a.policy.is_none() && a.policies.policy_schedule.is_none() {
        lesson_commands(a, &l)?;
    }
    let (trace, report) = l.load_trace()?;
    let tuning = a.policies.tuning()?;
    let mut registry = crate::sim::Policies::new();
    let (schedule, yours) = lesson_schedule(a, &l, &trace, &mut registry)?;
    let policy = schedule.start.unwrap_or(Policy::Fifo);
    if let Err(u) = policy.available(&trace) {
        color_eyre::eyre::bail!("lesson {}: {policy} needs {}", l.name, u.lacks);
    }
    let placement = a.placement.unwrap_or(l.placement);
    let spec = RunSpec::new(Arc::new(trace), policy)
        .with_placement(placement)
        .with_tuning(tuning)
        .with_policies(registry)
        .with_schedule(Some(schedule));
    let mut opts = view(v);
    opts.no_terminal = "a lesson plays in a terminal (`tracetui lesson` lists them)".into();
    opts.projector = a.projector;
    // The lesson's captions tell of its own schedule and of the placements
    // it has captions for: under another, one caption says so.
    // A note on the captions shows from the start.
    let start = spec.trace.first_submit().unwrap_or(0) - 1;
    opts.captions = match (yours, l.captions_for(placement)) {
        (true, _) => vec![(
            start,
            "Under your schedule: the lesson's captions follow its own (S shows yours)."
                .to_string(),
        )],
        (false, None) => vec![(
            start,
            format!(
                "Under --placement {}: the lesson's captions tell of its own run ({}).",
                placement.name(),
                l.placement.name()
            ),
        )],
        (false, Some(c)) => c.clone(),
    };
    let label = l.label(yours);
    run(spec, label, &report, &opts)
}

/// A lesson is data: the programs its own schedule names (`exec:CMD`) run
/// only with `--allow-exec`, and are said before they do.
fn lesson_commands(a: &super::LessonArgs, l: &crate::lesson::Lesson) -> Result<()> {
    let commands: Vec<String> = crate::sim::policy_words(&l.schedule)
        .into_iter()
        .filter_map(|w| w.trim().strip_prefix("exec:"))
        .map(|c| format!("`{}`", crate::text::sanitize(c.trim())))
        .collect();
    if commands.is_empty() {
        return Ok(());
    }
    let cmds = commands.join(", ");
    if !a.allow_exec {
        color_eyre::eyre::bail!(
            "lesson {} would run {cmds}: a lesson file runs no program unless you give --allow-exec (read the file first)",
            crate::text::sanitize(&l.name)
        );
    }
    super::print_err(&format!(
        "tracetui: lesson {} runs {cmds} (--allow-exec)",
        crate::text::sanitize(&l.name)
    ));
    Ok(())
}

/// The lesson's schedule, or the one given (`--policy`, `--policy-schedule`)
/// (true).
fn lesson_schedule(
    a: &super::LessonArgs,
    l: &crate::lesson::Lesson,
    trace: &trace::Trace,
    registry: &mut crate::sim::Policies,
) -> Result<(crate::sim::Schedule, bool)> {
    use crate::sim::Schedule;
    if let Some(p) = &a.policy {
        let text = format!("start:{p}");
        let s = a
            .policies
            .parse_schedule(trace, &text, registry)
            .map_err(|e| color_eyre::eyre::eyre!("--policy: {e}"))?;
        return Ok((s, true));
    }
    if let Some(s) = a.policies.schedule(trace, registry)? {
        return Ok((s, true));
    }
    let s = Schedule::parse_with(trace, &l.schedule, &mut |n| {
        crate::driver::resolve(n, registry)
    })
    .map_err(color_eyre::eyre::Report::msg)?;
    Ok((s, false))
}

/// `tracetui FORMAT PATH`: a trace full screen. Each format of
/// `trace::FORMATS` is a subcommand of its own (`tracetui pai DIR`).
#[derive(Debug, Clone)]
pub struct Replay {
    pub format: Format,
    pub args: TuiArgs,
    /// `slurm --live [--every SECS]`: the cluster now, asked again every SECS.
    pub live: Option<std::time::Duration>,
    /// `slurm --since TIME [--until TIME]`: sacct run for that range.
    pub sacct: Option<(String, String)>,
}

impl clap::FromArgMatches for Replay {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        Self::from_arg_matches_mut(&mut m.clone())
    }

    fn from_arg_matches_mut(m: &mut ArgMatches) -> Result<Self, clap::Error> {
        let Some((name, mut sub)) = m.remove_subcommand() else {
            return Err(clap::Error::new(ErrorKind::MissingSubcommand));
        };
        let format =
            Format::find(&name).ok_or_else(|| clap::Error::new(ErrorKind::InvalidSubcommand))?;
        let live = match sub.try_remove_one::<bool>("live") {
            Ok(Some(true)) => sub.try_remove_one::<u64>("every").ok().flatten(),
            _ => None,
        }
        .map(std::time::Duration::from_secs);
        let since = sub.try_remove_one::<String>("since").ok().flatten();
        let until = sub.try_remove_one::<String>("until").ok().flatten();
        let sacct = since.map(|s| (s, until.unwrap_or_else(|| "now".into())));
        let args = TuiArgs::from_arg_matches_mut(&mut sub)?;
        Ok(Replay {
            format,
            args,
            live,
            sacct,
        })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Subcommand for Replay {
    fn augment_subcommands(cmd: clap::Command) -> clap::Command {
        FORMATS.iter().fold(cmd, |cmd, f| {
            let spec = f.spec();
            let sub = TuiArgs::augment_args(clap::Command::new(spec.name))
                .mut_arg("path", |a| a.help(spec.path_help))
                .about(spec.replay_about)
                .long_about(None::<&str>)
                .aliases(spec.aliases.iter().copied());
            let sub = if spec.name == "slurm" {
                live_args(sub)
            } else {
                sub
            };
            cmd.subcommand(sub)
        })
    }

    fn augment_subcommands_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_subcommands(cmd)
    }

    fn has_subcommand(name: &str) -> bool {
        Format::find(name).is_some()
    }
}

/// `tracetui FORMAT PATH`, or for Slurm `--live` or `--since`.
pub fn replay(r: &Replay, v: &ViewArgs) -> Result<()> {
    match r.live {
        Some(every) => live(every, &r.args, v),
        None => {
            let sacct = r.sacct.as_ref().map(|(s, u)| (s.as_str(), u.as_str()));
            open(r.format, &r.args, v, sacct)
        }
    }
}

/// `slurm --live [--every SECS]`: no PATH then (the cluster is asked).
fn live_args(sub: clap::Command) -> clap::Command {
    use clap::builder::ArgPredicate;
    use clap::{Arg, ArgAction};
    sub.arg(
        Arg::new("live")
            .long("live")
            .action(ArgAction::SetTrue)
            .help("The cluster now, from scontrol and squeue (read-only), asked again every --every seconds; w forks the queue under another policy from now"),
    )
    .arg(
        Arg::new("every")
            .long("every")
            .value_name("SECS")
            .value_parser(clap::value_parser!(u64).range(2..=3600))
            .default_value("10")
            .help("With --live: seconds between asks (2 at least: the controller is never hammered)"),
    )
    .arg(
        Arg::new("since")
            .long("since")
            .value_name("TIME")
            .conflicts_with("live")
            .help("Instead of a file: run sacct for the jobs from TIME (as sacct -S takes it: 2026-11-01, now-7days) with the fields tracetui reads"),
    )
    .arg(
        Arg::new("until")
            .long("until")
            .value_name("TIME")
            .requires("since")
            .help("With --since: to TIME (sacct -E; now by default)"),
    )
    .mut_arg("path", |a| {
        a.required(false)
            .required_unless_present_any(["live", "since"])
            .default_value_ifs([
                ("live", ArgPredicate::IsPresent, Some("-")),
                ("since", ArgPredicate::IsPresent, Some("-")),
            ])
    })
}

/// `tracetui slurm --live`: the cluster now, full screen, asked again
/// every `every`; each of Slurm's commands given 10 s.
pub fn live(every: std::time::Duration, a: &TuiArgs, v: &ViewArgs) -> Result<()> {
    let within = std::time::Duration::from_secs(10);
    let snap = first_answer(within)?;
    let zone = a
        .read
        .tz
        .unwrap_or_else(|| super::read_args::local_zone().0);
    let (trace, report) =
        crate::trace::slurm_now(&snap.nodes, &snap.squeue, snap.at, zone, "slurm now")?;
    let spec = RunSpec::new(Arc::new(trace), Policy::Recorded)
        .with_placement(a.placement)
        .with_tuning(a.policies.tuning()?);
    let mut opts = view(v);
    opts.no_terminal =
        "the live view plays in a terminal; for scripts: tracetui slurm on sacct output".into();
    let l = crate::ui::live::LiveView {
        every,
        within,
        zone,
        at: snap.at,
    };
    let label = crate::ui::live::label(&l);
    opts.live = Some(l);
    run(spec, label, &report, &opts)
}

/// Slurm's first answer, asked up to three times, 2 s apart, each
/// failure said; the last one the error.
fn first_answer(within: std::time::Duration) -> Result<crate::driver::slurm_live::Snapshot> {
    let mut tries = 0;
    loop {
        super::print_err("tracetui: asking Slurm (scontrol show node -o, squeue --json) …");
        match crate::driver::slurm_live::ask(within) {
            Ok(s) => return Ok(s),
            Err(e) if tries < 2 => {
                super::print_err(&format!("tracetui: {e}; asking again in 2 s"));
                tries += 1;
                std::thread::sleep(std::time::Duration::from_secs(2));
            }
            Err(e) => color_eyre::eyre::bail!("the live view asks Slurm's own tools: {e}"),
        }
    }
}

/// The fields `tracetui slurm --since` asks sacct for.
pub(crate) const SACCT_FIELDS: &str = "JobID,JobIDRaw,JobName,User,Account,Partition,QOS,State,ExitCode,Submit,Eligible,Start,End,Elapsed,Timelimit,NNodes,NCPUS,ReqTRES,AllocTRES,NodeList";

/// Runs sacct for every user's jobs from `since` to `until` (given 5
/// minutes), its output in a temporary file removed at exit: the file.
fn run_sacct(since: &str, until: &str) -> Result<std::path::PathBuf> {
    let args = [
        "--allusers",
        "--parsable2",
        "--duplicates",
        "-S",
        since,
        "-E",
        until,
        &format!("--format={SACCT_FIELDS}"),
    ];
    super::print_err(&format!("tracetui: sacct {} …", args.join(" ")));
    let out = crate::driver::slurm_live::run("sacct", &args, std::time::Duration::from_secs(300))?;
    let path = std::env::temp_dir().join(format!("tracetui-sacct-{}.txt", std::process::id()));
    crate::driver::temp_file(&path);
    std::fs::write(&path, &out)?;
    Ok(path)
}

/// `tracetui itp FILE`, `tracetui pai DIR`; for Slurm, `sacct` may be
/// `--since`'s range instead of a file.
pub fn open(format: Format, a: &TuiArgs, v: &ViewArgs, sacct: Option<(&str, &str)>) -> Result<()> {
    // The policies the replay may name: the built-ins and the programs it probes.
    let mut registry = crate::sim::Policies::new();
    let chosen = match &a.policy {
        Some(p) => Some(super::policy_arg::resolve(
            p,
            a.policies.timeout()?,
            &mut registry,
        )?),
        None => None,
    };
    let energy = a.energy.model_for(Some((format, &a.path)))?;
    super::print_err(&format!(
        "tracetui: loading {} {} …",
        format.name(),
        a.path.display()
    ));
    // Keys typed meanwhile are not echoed over that line.
    let quiet = crate::driver::quiet_typing();
    let (trace, report) = match sacct {
        Some((since, until)) => a.read.load(format, &run_sacct(since, until)?)?,
        None => a.read.load(format, &a.path)?,
    };
    drop(quiet);
    let schedule = a.policies.schedule(&trace, &mut registry)?;
    let policy = schedule
        .as_ref()
        .and_then(|s| s.start)
        .or(chosen)
        .unwrap_or(if trace.has_recorded() {
            Policy::Recorded
        } else {
            Policy::Fifo
        });
    let label = match sacct {
        Some((since, until)) => format!("slurm · sacct -S {since} -E {until}"),
        None => label_for(format, &a.path, &trace),
    };
    let spec = RunSpec::new(Arc::new(trace), policy)
        .with_placement(a.placement)
        .with_energy(energy)
        .with_policies(registry)
        .with_schedule(schedule);
    let refused = |e: crate::sim::ArgError| color_eyre::eyre::eyre!("{e}");
    spec.policy.check(&spec.trace).map_err(refused)?;
    spec.check_schedule().map_err(refused)?;
    let spec = spec.with_tuning(a.policies.tuning()?);
    let mut opts = view(v);
    let gpus = a
        .read
        .gpus
        .map(|g| format!(" --gpus {g}"))
        .unwrap_or_default();
    opts.no_terminal = format!(
        "for scripts use `tracetui sim {} {}{gpus} --policy {}` (or compare, stats)",
        format.name(),
        shell_word(&a.path.display().to_string()),
        shell_word(spec.policy.name())
    );
    run(spec, label, &report, &opts)
}

/// `tracetui` alone: the embedded sample.
pub(crate) fn demo(v: &ViewArgs) -> Result<()> {
    let (trace, report) = crate::trace::sample_itp()?;
    // Sized as it was generated (the file alone would be sized for its load).
    let (jobs, gpus) = (trace.jobs.len(), crate::trace::SAMPLE_ITP_GPUS);
    let label = format!("sample itp ({jobs} jobs) · {gpus} GPUs (--gpus {gpus})");
    let spec = RunSpec::new(Arc::new(trace), Policy::Fifo)
        .with_tuning(Arc::new(super::logger::logged_tuning()));
    let mut opts = view(v);
    // A binary ships no sample-traces/: the command makes a trace itself.
    opts.no_terminal = format!(
        "for scripts use `tracetui gen itp --jobs 2000 --seed 1 --out - | tracetui sim itp /dev/stdin --gpus {}` \
         (or `tracetui sim FORMAT PATH` on any trace; compare, stats)",
        crate::trace::SAMPLE_ITP_GPUS
    );
    run(spec, label, &report, &opts)
}

/// The header's trace label: format and path, and for a cluster the trace
/// does not list, its size and the rule that chose it (before the path,
/// which is what gives way on a narrow screen).
pub fn label_for(format: Format, path: &std::path::Path, trace: &crate::trace::Trace) -> String {
    let c = &trace.cluster;
    if c.sized_by.is_empty() {
        format!("{} {}", format.name(), path.display())
    } else {
        format!(
            "{} · {} GPUs ({}) · {}",
            format.name(),
            c.total_gpus(),
            c.sized_by,
            path.display()
        )
    }
}
