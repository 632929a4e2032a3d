//! `tracetui sweep PLAN.toml --out DIR`: a grid of `sim` runs on every
//! core (or a shard of it, as a Slurm array task runs), each run's row
//! recorded as it ends, `DIR/results.csv` made from the records. Started
//! again, a sweep skips the runs recorded as done from the inputs there
//! are now (`reuse`).

mod args;
mod figure;
mod fuzz;
mod options;
mod out_dir;
mod piped;
mod plan;
mod progress;
mod record;
mod reuse;
mod slurm;
mod traces;
mod words;

use super::meta::{Hashes, Meta};
use super::{headless, SimArgs};
pub(super) use args::SweepArgs;
use color_eyre::eyre::{bail, eyre, Result};
pub use fuzz::PlanReader;
use plan::{Plan, Run};
use record::Record;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub(super) fn run(a: &SweepArgs) -> Result<()> {
    let shown = crate::text::sanitize(&a.plan.display().to_string());
    let text = crate::config::read_bounded(&a.plan).map_err(|e| eyre!("{shown}: {e}"))?;
    let plan = Plan::parse(&text, &shown)?;
    let runs = plan.runs().map_err(|e| eyre!("{shown}: {e}"))?;
    let options = options::Options::new();
    let (covered, reps) = check_values(&plan, &runs, &options, &shown)?;
    if let Some(p) = &a.plot {
        let x = figure::x_axis(&plan, a.plot_x.as_deref())?;
        figure::facet_axes(&plan, x, a.plot_facet.as_deref())?;
        check_figure(p, a, &reps)?;
    }
    let out = &a.out;
    out_dir::claim(out)?;
    out_dir::refuse_inside(
        out,
        reps.iter()
            .map(|(v, a)| (v.as_str(), a.trace.load.path.as_path())),
        a.plot.as_deref(),
    )?;
    let traces = reps.iter().map(|(v, a)| (v, a.trace.load.path.as_path()));
    let options = options.reading(piped::spool(traces, out, a.slurm)?);
    let mine: Vec<&Run> = runs
        .iter()
        .filter(|r| a.shard.is_none_or(|(i, n)| r.index % n == i))
        .collect();
    // What the sweep hashes (traces, tables, scripts), hashed once.
    let hashes = Hashes::default();
    let shared = Shared {
        options: &options,
        hashes: &hashes,
        outputs: a.per_run_files(),
        out,
    };
    let (todo, again) = not_done(&mine, &shared);
    let what = match a.shard {
        Some((i, n)) => format!("shard {i}/{n}"),
        None => "sweep".to_string(),
    };
    let counts = Counts {
        plan: runs.len(),
        here: mine.len(),
        todo: todo.len(),
    };
    say_how_far(&plan, &what, counts, &again);
    if a.slurm {
        return on_slurm(a, &plan, &text, &runs, todo.len(), &shared);
    }
    let workers = workers(a.jobs);
    let todo = largest_first(todo, &reps);
    execute(&todo, a, workers, &what, &covered, &shared)?;
    collect(
        &plan,
        &runs,
        &shared,
        a.shard.is_some(),
        a.figure().as_ref(),
    )
}

/// The arguments of runs that between them give every value of every key,
/// parsed (and checked) before any run; each run parses its own when it
/// runs (a grid of a million runs holds no million of them). Of those, one
/// per policy is kept (to ask each policy who it is: a list of 150,000
/// values is checked without holding 150,000 runs' arguments), and one per
/// trace.
fn check_values(
    plan: &Plan,
    runs: &[Run],
    options: &options::Options,
    shown: &str,
) -> Result<(Vec<SimArgs>, Reps)> {
    let mut covered: Vec<SimArgs> = Vec::new();
    let mut policies_seen = std::collections::HashSet::new();
    let mut reps: Reps = HashMap::new();
    for i in plan.covering() {
        let r = &runs[i];
        let args = options.sim_args(r).map_err(|e| {
            eyre!(
                "{shown}: run {} ({}): {e}",
                r.index + 1,
                plan::shown(&r.settings)
            )
        })?;
        reps.entry(r.trace().to_string())
            .or_insert_with(|| args.clone());
        let timeout = args.trace.policies.timeout().unwrap_or_default();
        if policies_seen.insert(traces::key(&args.policy, timeout)) {
            covered.push(args);
        }
    }
    Ok((covered, reps))
}

/// How many runs a sweep (or shard) has: in the plan, here, to run.
#[derive(Clone, Copy)]
struct Counts {
    plan: usize,
    here: usize,
    todo: usize,
}

/// The sweep's first line: the plan's size and grid, what is done and
/// what is to run, and why runs recorded before run again.
fn say_how_far(plan: &Plan, what: &str, n: Counts, again: &[String]) {
    let grid: Vec<String> = plan
        .axes()
        .map(|k| format!("{} {}", k.name, k.values.len()))
        .collect();
    let grid = if grid.is_empty() {
        "one setting each".to_string()
    } else {
        grid.join(" × ")
    };
    let why = if again.is_empty() {
        String::new()
    } else {
        format!(" ({})", reuse::said(again))
    };
    super::print_err(&format!(
        "tracetui: {what}: {} runs in the plan ({grid}), {} here, {} done before, {} to run{why}",
        n.plan,
        n.here,
        n.here - n.todo,
        n.todo,
    ));
}

/// Runs at once: `-j N`, at most 4 per core of this machine (each run may
/// start a policy's process), said where that cuts `N`; every core by
/// default.
fn workers(asked: Option<u16>) -> usize {
    let cores = crate::trace::cores();
    let Some(n) = asked.map(usize::from) else {
        return cores;
    };
    let most = cores.saturating_mul(4).max(1);
    if n > most {
        super::print_err(&format!(
            "tracetui: -j {n}: {most} runs at once, 4 per core of this machine's {cores}"
        ));
    }
    n.min(most)
}

/// The runs of `mine` with no good record: none, a failed one, or one
/// made from inputs that have changed since; and why each of the last two
/// runs again.
fn not_done<'a>(mine: &[&'a Run], shared: &Shared) -> (Vec<&'a Run>, Vec<String>) {
    let mut again = Vec::new();
    let todo: Vec<&Run> = mine
        .iter()
        .copied()
        .filter(|r| {
            let Some(d) = Record::read(shared.out, r) else {
                return true;
            };
            let why = match d.error {
                Some(_) => Some("it failed before".to_string()),
                None => shared.stale(&d, r),
            };
            again.extend(why.clone());
            why.is_some()
        })
        .collect();
    (todo, again)
}

/// `--slurm`: the runs not done as one job array, waited for (unless
/// `--no-wait`) and collected.
fn on_slurm(
    a: &SweepArgs,
    plan: &Plan,
    text: &str,
    runs: &[Run],
    todo: usize,
    shared: &Shared,
) -> Result<()> {
    if todo == 0 {
        return collect(plan, runs, shared, false, a.figure().as_ref());
    }
    // The tasks read a copy: editing the plan after submitting moves nothing.
    let copy = a.out.join("plan.toml");
    crate::outfile::write_atomic(&copy, |w| std::io::Write::write_all(w, text.as_bytes()))?;
    let tasks = a
        .tasks
        .map_or_else(|| slurm::default_tasks(runs.len()), usize::from)
        .min(runs.len());
    let id = slurm::submit(&slurm::Submit {
        plan: &copy,
        out: &a.out,
        tasks,
        sbatch: &a.sbatch,
        jobs_out: a.jobs_out,
        timeline_out: a.timeline_out,
    })?;
    let shown = crate::text::sanitize(&a.out.display().to_string());
    super::print_err(&format!(
        "tracetui: submitted job array {id} ({tasks} tasks, {todo} runs to do); the tasks' output in {shown}/slurm/"
    ));
    if a.no_wait {
        super::print_err(&format!(
            "tracetui: not waiting: when it ends, run the sweep again (without --slurm) on {shown} to collect results.csv"
        ));
        return Ok(());
    }
    slurm::wait(
        &id,
        runs,
        &a.out,
        slurm::Patience {
            at_most: a.wait_at_most.map(std::time::Duration::from_secs),
            stuck_for: std::time::Duration::from_secs(a.stuck_for),
        },
    )?;
    collect(plan, runs, shared, false, a.figure().as_ref())
        .map_err(|e| eyre!("{e} (the array's tasks wrote their output in {shown}/slurm/)"))
}

/// Refuses a figure (or its numbers, or their meta) that would overwrite
/// the plan or a trace.
fn check_figure(svg: &Path, a: &SweepArgs, reps: &Reps) -> Result<()> {
    if svg.as_os_str() == "-" {
        bail!("--plot -: a figure is a file with its numbers beside it, not standard output");
    }
    a.look.look().fits()?;
    // The plan, the traces, and what the sweep writes itself.
    let mut inputs: Vec<PathBuf> = vec![
        a.plan.clone(),
        a.out.join("results.csv"),
        a.out.join("plan.toml"),
        a.out.join("sweep.sbatch"),
    ];
    for a in reps.values() {
        for f in a.trace.load.format.reads(&a.trace.load.path) {
            if !inputs.contains(&f) {
                inputs.push(f);
            }
        }
    }
    let data = super::plotting::data_path(svg);
    let meta = super::meta::beside(&data).unwrap_or_default();
    let outputs = [
        ("--plot", svg),
        ("--plot", data.as_path()),
        ("--plot", meta.as_path()),
    ];
    let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    crate::outfile::check(&inputs, &outputs)?;
    Ok(())
}

/// The arguments of one run of each trace value (`FORMAT:PATH`): what a
/// run's trace files are, without parsing every run's arguments.
type Reps = HashMap<String, SimArgs>;

/// The runs in the order to start them: those of the largest trace files
/// first (stable otherwise), so the longest runs do not start last and
/// leave cores idle at the end. The table keeps the plan's order.
fn largest_first<'a>(mut todo: Vec<&'a Run>, reps: &Reps) -> Vec<&'a Run> {
    let sizes: HashMap<&str, u64> = reps
        .iter()
        .map(|(t, a)| {
            let size = std::fs::metadata(&a.trace.load.path).map_or(0, |m| m.len());
            (t.as_str(), size)
        })
        .collect();
    todo.sort_by_key(|r| std::cmp::Reverse(sizes.get(r.trace()).copied().unwrap_or(0)));
    todo
}

/// Runs `todo` on `workers` threads, each run's record saved as it ends;
/// `covered` are arguments that name every policy of the plan (asked who
/// they are at once).
fn execute(
    todo: &[&Run],
    a: &SweepArgs,
    workers: usize,
    what: &str,
    covered: &[SimArgs],
    shared: &Shared,
) -> Result<()> {
    if todo.is_empty() {
        return Ok(());
    }
    let traces = traces::Traces::for_runs(todo.iter().map(|r| r.trace()));
    let policies = traces::Policies::resolve(covered.iter())?;
    let progress = progress::Progress::new(todo.len(), what.to_string());
    // A record that cannot be saved (a full disk) stops the runs not yet
    // started: their records could not be saved either.
    let stopped = std::sync::atomic::AtomicBool::new(false);
    let saved = crate::trace::pool(todo, workers, |&r| {
        if stopped.load(std::sync::atomic::Ordering::Relaxed) {
            traces.done(r.trace());
            return None;
        }
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_one(r, a, &traces, &policies, shared)
        }));
        traces.done(r.trace());
        let record = match ran {
            Ok(Ok(record)) => record,
            Ok(Err(e)) => Record::failed(r, super::with_causes(&e)),
            Err(_) => Record::failed(r, "the run panicked (a bug in tracetui)".into()),
        };
        let saved = record.save(&a.out);
        match &saved {
            // Only a run whose record is saved counts as done.
            Ok(()) => progress.tick(record.error.is_none()),
            Err(_) => stopped.store(true, std::sync::atomic::Ordering::Relaxed),
        }
        Some(saved)
    });
    let not_started = saved.iter().filter(|s| matches!(s, Ok(None))).count();
    for (r, s) in todo.iter().zip(saved) {
        match s {
            Ok(Some(Ok(()))) | Ok(None) => {}
            Ok(Some(Err(e))) => {
                return Err(e.wrap_err(format!(
                    "a run's record could not be saved; {not_started} runs not started (run the sweep again to go on)"
                )))
            }
            Err(_) => bail!(
                "run {} ({}) panicked",
                r.index + 1,
                plan::shown(&r.settings)
            ),
        }
    }
    Ok(())
}

/// What every run of the sweep shares, and its records are checked
/// against: how settings become arguments, the hashes of the inputs, the
/// per-run files asked for, and where the records are.
struct Shared<'a> {
    options: &'a options::Options,
    hashes: &'a Hashes,
    outputs: Vec<&'static str>,
    out: &'a Path,
}

impl Shared<'_> {
    /// Why the good record `rec` cannot stand for `run` now (none: it can).
    fn stale(&self, rec: &Record, run: &Run) -> Option<String> {
        let Ok(args) = self.options.sim_args(run) else {
            return Some("its settings are refused now".into());
        };
        let now = reuse::Read::of(&args, self.hashes, &self.outputs);
        reuse::why_stale(rec.read.as_ref(), &now, |o| {
            reuse::written(self.out, &run.id, o)
        })
    }
}

/// One run, as `tracetui sim … --format csv` would do it.
fn run_one(
    r: &Run,
    a: &SweepArgs,
    traces: &traces::Traces,
    policies: &traces::Policies,
    shared: &Shared,
) -> Result<Record> {
    let hashes = shared.hashes;
    let mut args = shared.options.sim_args(r)?;
    if a.jobs_out {
        args.jobs_out = Some(record::run_file(&a.out, &r.id, "jobs"));
    }
    if a.timeline_out {
        args.timeline_out = Some(record::run_file(&a.out, &r.id, "timeline"));
    }
    let outputs = [
        ("--jobs-out", args.jobs_out.as_ref()),
        ("--timeline-out", args.timeline_out.as_ref()),
    ];
    let commands = super::policy_arg::exec_commands(
        [&args.policy],
        args.trace.policies.policy_schedule.as_deref(),
    );
    super::outputs::check(&args.trace, &commands, &outputs)?;
    let policy = policies.get(&args)?;
    let trace = traces.get(&args.trace, policy, r.trace())?;
    let hashed = super::meta::trace_meta(hashes, args.trace.load.format, &args.trace.load.path)
        .map_err(|e| eyre!("hashing the trace: {e}"))?;
    let schedule = policies.schedule(&args, &trace)?;
    let read = reuse::Read::of(&args, hashes, &shared.outputs);
    let mut meta = Meta::of(hashes, &args.trace, hashed, &[policy], schedule.as_ref());
    meta.run = Some(r.id.clone());
    let run = headless::spec(&args.trace, trace, policy, schedule, policies.registry())?;
    let report = headless::sim_on(&args, &run, true, Some(&meta))?;
    Record::ok(r, &report, &meta, read)
}

/// Writes `results.csv` when every run of the plan has a record; says how
/// far the sweep is otherwise. Failed runs are rows with their error, and
/// make the sweep's exit status 1.
fn collect(
    plan: &Plan,
    runs: &[Run],
    shared: &Shared,
    shard: bool,
    figure: Option<&figure::Wanted>,
) -> Result<()> {
    let out = shared.out;
    let records: Vec<Option<Record>> = runs
        .iter()
        .map(|r| Record::read(out, r).filter(|d| d.error.is_some() || shared.stale(d, r).is_none()))
        .collect();
    let have = records.iter().flatten().count();
    let shown = crate::text::sanitize(&out.display().to_string());
    if have < runs.len() || shard {
        // A table of another plan (or an older pass) must not pass for this one.
        let _ = std::fs::remove_file(out.join("results.csv"));
        if shard {
            super::print_err(&format!(
                "tracetui: {have} of {} runs recorded in {shown}; a sweep without --shard writes results.csv once all are",
                runs.len()
            ));
            return Ok(());
        }
        bail!(
            "{have} of {} runs recorded in {shown}: a run left no record",
            runs.len()
        );
    }
    let records: Vec<Record> = records.into_iter().flatten().collect();
    let table = record::results_csv(plan, &records)?;
    let path = out.join("results.csv");
    crate::outfile::write_atomic(&path, |w| std::io::Write::write_all(w, &table))
        .map_err(|e| eyre!("{shown}/results.csv: {e}"))?;
    if let Some(f) = figure {
        figure::draw(plan, &records, f)?;
    }
    let failed = records.iter().filter(|r| r.error.is_some()).count();
    super::print_err(&format!(
        "tracetui: {} runs, {} failed: {shown}/results.csv",
        runs.len(),
        failed
    ));
    if failed > 0 {
        let first = records
            .iter()
            .find_map(|r| r.error.as_deref())
            .unwrap_or_default();
        bail!("{failed} of {} runs failed (their rows in results.csv say why; the first: {first}); run the sweep again to retry them", runs.len());
    }
    Ok(())
}
