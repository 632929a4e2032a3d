//! `sweep --slurm`: the grid as one `sbatch` job array whose tasks each
//! run a shard of many runs (`sweep … --shard I/N`; a task per run would
//! flood the controller). It waits with progress (read from the run
//! records the tasks leave in DIR) and collects the same `results.csv` a
//! local sweep gives; with `--no-wait`, a later plain `sweep` collects.

use super::plan::Run;
use super::record::Record;
use color_eyre::eyre::{bail, eyre, Result};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What `--slurm` needs from the command line.
pub(super) struct Submit<'a> {
    pub plan: &'a Path,
    pub out: &'a Path,
    /// Array tasks (shards).
    pub tasks: usize,
    /// Passed to `sbatch` as they are (`--partition=gpu`, `--time=1:00:00`).
    pub sbatch: &'a [String],
    pub jobs_out: bool,
    pub timeline_out: bool,
}

/// The array tasks for `runs` runs when `--tasks` is not given: a task per
/// 100 runs, at most 64.
pub(super) fn default_tasks(runs: usize) -> usize {
    runs.div_ceil(100).clamp(1, 64)
}

/// A word as `sh` reads it back: in single quotes, a quote as `'\''`.
fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn absolute(p: &Path) -> Result<PathBuf> {
    std::path::absolute(p).map_err(|e| eyre!("{}: {e}", p.display()))
}

/// `p` as text a script can hold exactly: a path that is not UTF-8
/// would be written with U+FFFD and the tasks would go elsewhere.
fn exact(p: &Path) -> Result<&str> {
    p.to_str().ok_or_else(|| {
        eyre!(
            "{}: not UTF-8, so a Slurm script cannot name it exactly; give a UTF-8 path",
            crate::text::sanitize(&p.display().to_string())
        )
    })
}

/// The batch script: every task runs its shard with the CPUs Slurm gave it.
fn script(s: &Submit, exe: &Path) -> Result<String> {
    let out = absolute(s.out)?;
    let mut run = vec![
        quoted(exact(exe)?),
        "sweep".into(),
        quoted(exact(&absolute(s.plan)?)?),
        "--out".into(),
        quoted(exact(&out)?),
        format!("--shard \"$SLURM_ARRAY_TASK_ID/{}\"", s.tasks),
        "-j \"${SLURM_CPUS_PER_TASK:-${SLURM_CPUS_ON_NODE:-1}}\"".into(),
    ];
    if s.jobs_out {
        run.push("--jobs-out".into());
    }
    if s.timeline_out {
        run.push("--timeline-out".into());
    }
    Ok(format!(
        "#!/bin/sh\n# Written by tracetui sweep --slurm: task I runs shard I of {n}\n\
         # (the array, output and directory are given to sbatch on its command line).\n\
         exec {run}\n",
        n = s.tasks,
        run = run.join(" "),
    ))
}

/// sbatch's own options for the array: its tasks, name, output files
/// (`%` doubled: Slurm reads it as a pattern) and working directory.
fn array_options(s: &Submit, cwd: &Path) -> Result<Vec<String>> {
    let out = absolute(s.out)?;
    for p in [&out, &cwd.to_path_buf()] {
        if p.to_string_lossy().chars().any(char::is_control) {
            bail!(
                "{}: a path with control characters cannot go to sbatch",
                crate::text::sanitize(&p.display().to_string())
            );
        }
    }
    let logs = exact(&out.join("slurm"))?.replace('%', "%%");
    Ok(vec![
        "--job-name=tracetui-sweep".into(),
        format!("--array=0-{}", s.tasks - 1),
        format!("--output={logs}/%A_%a.out"),
        format!("--chdir={}", exact(cwd)?),
    ])
}

/// Writes the script, submits it, and returns the array's job id.
pub(super) fn submit(s: &Submit) -> Result<JobId> {
    let exe = std::env::current_exe().map_err(|e| eyre!("where tracetui is: {e}"))?;
    let cwd = std::env::current_dir()?;
    std::fs::create_dir_all(s.out.join("slurm"))?;
    let path = s.out.join("sweep.sbatch");
    let text = script(s, &exe)?;
    crate::outfile::write_atomic(&path, |w| std::io::Write::write_all(w, text.as_bytes()))?;
    let mut args: Vec<OsString> = vec!["--parsable".into()];
    args.extend(array_options(s, &cwd)?.into_iter().map(OsString::from));
    args.extend(s.sbatch.iter().map(OsString::from));
    args.push(path.clone().into());
    let o = crate::driver::tool_output("sbatch", &args)
        .map_err(|e| eyre!("sbatch: {e} (is Slurm installed here?)"))?;
    if !o.status.success() {
        bail!(
            "sbatch refused the job array: {}",
            crate::text::sanitize(String::from_utf8_lossy(&o.stderr).trim())
        );
    }
    let said = String::from_utf8_lossy(&o.stdout);
    // `--parsable` prints `ID` or `ID;CLUSTER`.
    let (id, cluster) = match said.trim().split_once(';') {
        Some((id, c)) => (id.to_string(), Some(c.to_string())),
        None => (said.trim().to_string(), None),
    };
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
        bail!("sbatch gave no job id: {}", crate::text::sanitize(&id));
    }
    if let Some(c) = &cluster {
        let ok = |b: u8| b.is_ascii_alphanumeric() || b"-_.".contains(&b);
        if c.is_empty() || !c.bytes().all(ok) {
            bail!(
                "sbatch named no cluster one can ask: {}",
                crate::text::sanitize(c)
            );
        }
    }
    Ok(JobId { id, cluster })
}

/// A submitted array: its id, and the cluster it went to when sbatch
/// names one (a federation, or `--clusters`).
pub(super) struct JobId {
    pub id: String,
    pub cluster: Option<String>,
}

impl std::fmt::Display for JobId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.cluster {
            Some(c) => write!(f, "{} on cluster {c}", self.id),
            None => write!(f, "{}", self.id),
        }
    }
}

/// Pending reasons that do not clear by themselves: someone must release,
/// change or cancel the job (Slurm's squeue(1), JOB REASON CODES).
const STUCK: [&str; 10] = [
    "JobHeldUser",
    "JobHeldAdmin",
    "DependencyNeverSatisfied",
    "PartitionConfig",
    "PartitionDown",
    "PartitionInactive",
    "BadConstraints",
    "InvalidAccount",
    "InvalidQOS",
    "PartitionNodeLimit",
];

/// How long a wait for an array goes on.
pub(super) struct Patience {
    /// Stop after this long whatever the tasks do (`--wait-at-most`).
    pub at_most: Option<Duration>,
    /// Stop once every task left has waited this long for a reason in
    /// `STUCK` (`--stuck-for`).
    pub stuck_for: Duration,
}

/// The tasks of a job still pending or running (`squeue`), and the
/// pending reason of those that wait for one that does not clear by
/// itself; `None` when `squeue` cannot be asked.
fn tasks_left(job: &JobId) -> Option<(usize, Vec<String>)> {
    let mut args: Vec<&str> = Vec::new();
    if let Some(c) = &job.cluster {
        args.extend(["-M", c]);
    }
    args.extend(["-h", "-r", "-j", &job.id, "-o", "%i %t %r"]);
    let o = crate::driver::tool_output("squeue", &args).ok()?;
    if !o.status.success() {
        // A job the controller has forgotten: finished long enough ago.
        let err = String::from_utf8_lossy(&o.stderr);
        return err.contains("Invalid job id").then_some((0, Vec::new()));
    }
    let text = String::from_utf8_lossy(&o.stdout);
    // With -M, squeue heads its rows with `CLUSTER: name`.
    let rows: Vec<Vec<&str>> = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.len() >= 2 && w[0] != "CLUSTER:")
        .collect();
    let stuck = rows
        .iter()
        .filter(|w| w[1] == "PD")
        .filter_map(|w| w.get(2))
        .filter(|r| STUCK.iter().any(|s| r.starts_with(s)))
        .map(|r| r.to_string())
        .collect();
    Some((rows.len(), stuck))
}

/// Waits for the array to leave the queue, saying how many runs are
/// recorded as it goes; stops, leaving it queued, when every task left
/// has waited `stuck_for` for a reason that does not clear by itself, or
/// after `at_most`.
pub(super) fn wait(job: &JobId, runs: &[Run], out: &Path, patience: Patience) -> Result<()> {
    let Patience { at_most, stuck_for } = patience;
    let started = Instant::now();
    let mut said = (usize::MAX, usize::MAX);
    let (mut unanswered, mut stuck_since) = (0, None::<Instant>);
    let again = "run the sweep again (without --slurm) to collect";
    loop {
        let left = tasks_left(job);
        // Records present (not parsed: the collect reads them once at the end).
        let done = runs.iter().filter(|r| Record::exists(out, r)).count();
        match left {
            Some((left, stuck)) => {
                unanswered = 0;
                if (left, done) != said {
                    said = (left, done);
                    crate::cli::print_err(&format!(
                        "tracetui: slurm job {job}: {left} tasks queued or running · {done}/{} runs recorded · {:.0} s",
                        runs.len(),
                        started.elapsed().as_secs_f64()
                    ));
                }
                if left == 0 {
                    return Ok(());
                }
                if stuck.len() < left {
                    stuck_since = None;
                } else if stuck_since.get_or_insert_with(Instant::now).elapsed() >= stuck_for {
                    let mut why = stuck;
                    why.sort();
                    why.dedup();
                    bail!(
                        "slurm job {job}: its tasks wait for {}, which does not clear by itself: release, change or cancel it (scontrol release {id}, scancel {id}), then {again}",
                        crate::text::sanitize(&why.join(", ")),
                        id = job.id
                    );
                }
            }
            None => {
                unanswered += 1;
                if unanswered >= 30 {
                    bail!("squeue has not answered for a minute; the job may still run: {again}");
                }
            }
        }
        if at_most.is_some_and(|m| started.elapsed() >= m) {
            bail!(
                "slurm job {job}: stopped waiting after {:.0} s (--wait-at-most); it runs on: when it ends, {again}",
                started.elapsed().as_secs_f64()
            );
        }
        std::thread::sleep(Duration::from_secs(2));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_runs_each_shard_with_its_cpus_and_quotes_paths() {
        let s = Submit {
            plan: Path::new("/p/it's plan.toml"),
            out: Path::new("/o/d"),
            tasks: 4,
            sbatch: &[],
            jobs_out: true,
            timeline_out: false,
        };
        let t = script(&s, Path::new("/bin/tracetui")).unwrap();
        assert!(t.contains("'/p/it'\\''s plan.toml'"), "{t}");
        assert!(t.contains("--shard \"$SLURM_ARRAY_TASK_ID/4\" -j \"${SLURM_CPUS_PER_TASK:-${SLURM_CPUS_ON_NODE:-1}}\" --jobs-out\n"), "{t}");
        let o = array_options(&s, Path::new("/w 1")).unwrap();
        assert!(o.contains(&"--array=0-3".to_string()), "{o:?}");
        assert!(
            o.contains(&"--output=/o/d/slurm/%A_%a.out".to_string()),
            "{o:?}"
        );
        assert!(o.contains(&"--chdir=/w 1".to_string()), "{o:?}");
        let pct = Submit {
            out: Path::new("/o/100%"),
            ..s
        };
        let o = array_options(&pct, Path::new("/w")).unwrap();
        assert!(
            o.contains(&"--output=/o/100%%/slurm/%A_%a.out".to_string()),
            "{o:?}"
        );
        let bad = Submit {
            out: Path::new("/o/a\nb"),
            ..pct
        };
        assert!(array_options(&bad, Path::new("/w")).is_err());
        // Not UTF-8: refused, never written with U+FFFD (issue 63, item 14).
        use std::os::unix::ffi::OsStrExt;
        let odd = Path::new(std::ffi::OsStr::from_bytes(b"/o/caf\xe9"));
        let latin = Submit { out: odd, ..bad };
        let e = script(&latin, Path::new("/bin/tracetui"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("not UTF-8, so a Slurm script cannot name it"),
            "{e}"
        );
        assert!(array_options(&latin, Path::new("/w")).is_err());
        assert!(
            array_options(&s, Path::new(odd)).is_err(),
            "the working directory too"
        );
        assert_eq!(default_tasks(32), 1);
        assert_eq!(default_tasks(1000), 10);
        assert_eq!(default_tasks(1_000_000), 64);
    }
}
