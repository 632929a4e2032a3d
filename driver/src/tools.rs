//! Programs the application asks and waits for (Slurm's `sbatch` and
//! `squeue`): run to their end, their output captured. Started here, like
//! every process tracetui starts.

use std::ffi::OsStr;
use std::process::{Command, Output};

/// Runs `program` with `args` to its end, its stdout and stderr captured.
pub fn output<S: AsRef<OsStr>>(program: &str, args: &[S]) -> std::io::Result<Output> {
    Command::new(program).args(args).output()
}
