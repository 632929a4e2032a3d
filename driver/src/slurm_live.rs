//! A Slurm cluster's state now, asked of its own tools, read-only:
//! `scontrol show node -o` and `squeue --json`, each given up after a
//! timeout (the program killed and reaped), and, for the live view, asked
//! again every so often on a thread of its own — never more often than
//! `MIN_EVERY`, and less often after a failure (doubling, up to
//! `MAX_BACKOFF`), so a slow or failing controller is never hammered.
//! Nothing here submits, cancels or changes anything.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime};

/// The least time between two asks.
pub const MIN_EVERY: Duration = Duration::from_secs(2);
/// The longest wait between asks after failures.
pub const MAX_BACKOFF: Duration = Duration::from_secs(120);

/// What the tools printed, and when (Unix seconds).
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// `scontrol show node -o`.
    pub nodes: String,
    /// `squeue --json`.
    pub squeue: Vec<u8>,
    /// When they were asked, Unix seconds.
    pub at: i64,
}

/// Why the cluster could not be asked.
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    /// The program could not be started (not installed?).
    #[error("{command}: {source}")]
    Start {
        /// The command, as typed.
        command: String,
        /// The OS's error.
        source: std::io::Error,
    },
    /// It ended with a failure.
    #[error("{command} failed ({status}): {stderr}")]
    Failed {
        /// The command, as typed.
        command: String,
        /// How it ended.
        status: String,
        /// The last line it wrote to stderr.
        stderr: String,
    },
    /// It did not end in time, and was killed.
    #[error("{command} did not answer within {secs} s (killed)")]
    TimedOut {
        /// The command, as typed.
        command: String,
        /// The time it was given, in seconds.
        secs: f64,
    },
}

/// A scratch file for a program's output (a pipe would fill and stall a
/// large `squeue --json` until the timeout), removed with the process.
fn scratch(tag: &str) -> PathBuf {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let p = std::env::temp_dir().join(format!("tracetui-live-{}-{tag}-{n}", std::process::id()));
    super::procs::temp_file(&p);
    p
}

/// Runs `program args` (a Slurm tool), its output — however large: it
/// goes to a file, not a pipe — read once it ends; given up after `within`.
pub fn run(program: &str, args: &[&str], within: Duration) -> Result<Vec<u8>, LiveError> {
    let command = std::iter::once(program)
        .chain(args.iter().copied())
        .collect::<Vec<_>>()
        .join(" ");
    let start = |source| LiveError::Start {
        command: command.clone(),
        source,
    };
    let (out, err) = (scratch("out"), scratch("err"));
    let files = std::fs::File::create(&out).and_then(|o| Ok((o, std::fs::File::create(&err)?)));
    let (o, e) = files.map_err(start)?;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::from(o))
        .stderr(Stdio::from(e))
        .spawn()
        .map_err(start)?;
    let until = Instant::now() + within;
    let status = loop {
        if let Some(s) = child.try_wait().map_err(start)? {
            break s;
        }
        if Instant::now() >= until {
            let _ = child.kill();
            let _ = child.wait();
            let _ = (std::fs::remove_file(&out), std::fs::remove_file(&err));
            return Err(LiveError::TimedOut {
                command,
                secs: within.as_secs_f64(),
            });
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let read = |p: &PathBuf| {
        let mut b = Vec::new();
        let _ = std::fs::File::open(p).and_then(|mut f| f.read_to_end(&mut b));
        let _ = std::fs::remove_file(p);
        b
    };
    let (stdout, stderr) = (read(&out), read(&err));
    if !status.success() {
        let text = String::from_utf8_lossy(&stderr);
        let last = text
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return Err(LiveError::Failed {
            command,
            status: status.to_string(),
            stderr: tracetui_model::text::sanitize(last),
        });
    }
    Ok(stdout)
}

/// The cluster now: its nodes and its jobs, each command given `within`.
pub fn ask(within: Duration) -> Result<Snapshot, LiveError> {
    let at = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let nodes = run("scontrol", &["show", "node", "-o"], within)?;
    let squeue = run("squeue", &["--json"], within)?;
    Ok(Snapshot {
        nodes: String::from_utf8_lossy(&nodes).into_owned(),
        squeue,
        at,
    })
}

/// Asks every `every` (at least `MIN_EVERY`) on a thread of its own until
/// the receiver is dropped; after a failure, waits twice as long as the
/// last wait (up to `MAX_BACKOFF`) before asking again.
pub fn feed(every: Duration, within: Duration) -> mpsc::Receiver<Result<Snapshot, LiveError>> {
    let (tx, rx) = mpsc::channel();
    let every = every.max(MIN_EVERY);
    let spawned = std::thread::Builder::new()
        .name("slurm-live".into())
        .spawn(move || {
            let mut wait = every;
            loop {
                std::thread::sleep(wait);
                let got = ask(within);
                wait = if got.is_ok() {
                    every
                } else {
                    (wait * 2).min(MAX_BACKOFF.max(every))
                };
                if tx.send(got).is_err() {
                    return;
                }
            }
        });
    if let Err(e) = spawned {
        log::warn!("the live view will not refresh: {e}");
    }
    rx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_that_does_not_answer_is_killed_in_time() {
        let t = Instant::now();
        let e = run("sleep", &["30"], Duration::from_millis(300)).unwrap_err();
        assert!(matches!(e, LiveError::TimedOut { .. }), "{e}");
        assert!(t.elapsed() < Duration::from_secs(10), "never a hang");
        assert_eq!(
            e.to_string(),
            "sleep 30 did not answer within 0.3 s (killed)"
        );
    }

    #[test]
    fn a_failure_says_its_last_line_and_a_large_output_is_read_whole() {
        let e = run(
            "sh",
            &["-c", "echo first >&2; echo 'the reason' >&2; exit 3"],
            Duration::from_secs(10),
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "sh -c echo first >&2; echo 'the reason' >&2; exit 3 failed (exit status: 3): the reason");
        // Far more than a pipe holds: a file, not a stall until the timeout.
        let big = run(
            "sh",
            &["-c", "head -c 1000000 /dev/zero"],
            Duration::from_secs(10),
        )
        .unwrap();
        assert_eq!(big.len(), 1_000_000);
        let e = run("no-such-program-here", &[], Duration::from_secs(1)).unwrap_err();
        assert!(matches!(e, LiveError::Start { .. }), "{e}");
    }
}
