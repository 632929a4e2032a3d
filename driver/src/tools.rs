//! Programs the application asks and waits for (Slurm's `sbatch` and
//! `squeue`): run to their end, their output captured. Started here, like
//! every process tracetui starts.

use std::ffi::OsStr;
use std::process::{Command, Output};

/// Runs `program` with `args` to its end, its stdout and stderr captured.
pub fn output<S: AsRef<OsStr>>(program: &str, args: &[S]) -> std::io::Result<Output> {
    Command::new(program).args(args).output()
}

/// `output`, given up after `within` (the program killed and reaped): for
/// a question any program should answer at once (`python3 --version`),
/// where a shim that never returns must not hold a run.
pub fn output_within<S: AsRef<OsStr>>(
    program: &str,
    args: &[S],
    within: std::time::Duration,
) -> std::io::Result<Output> {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let until = std::time::Instant::now() + within;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if std::time::Instant::now() >= until {
            let _ = child.kill();
            let _ = child.wait();
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("{program} did not answer within {} s", within.as_secs_f64()),
            ));
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    // What it wrote (a version line) fits the pipes; read after it ended.
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    if let Some(mut o) = child.stdout.take() {
        o.read_to_end(&mut stdout)?;
    }
    if let Some(mut e) = child.stderr.take() {
        e.read_to_end(&mut stderr)?;
    }
    Ok(Output {
        status,
        stdout,
        stderr,
    })
}
