//! Outputs checked before anything is read: none may be an input (the
//! trace's files, the power traces), no two may share a path, and `-`
//! (standard output) moves the run's own summary to standard error.

use super::LoadArgs;
use color_eyre::eyre::Result;
use std::path::{Path, PathBuf};

/// An output option and the path given to it.
pub(super) type Output<'a> = (&'static str, Option<&'a PathBuf>);

/// Refuses `outputs` that would overwrite one of `load`'s inputs (or the
/// energy directory) or each other: a `Clash`, which exits 2 as a usage
/// error.
pub(super) fn check(load: &LoadArgs, energy: Option<&Path>, outputs: &[Output]) -> Result<()> {
    let mut inputs = load.format.reads(&load.path);
    inputs.extend(energy.map(Path::to_path_buf));
    let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    let given: Vec<(&str, &Path)> = outputs
        .iter()
        .filter_map(|&(option, p)| Some((option, p?.as_path())))
        .collect();
    crate::outfile::check(&inputs, &given)?;
    Ok(())
}

/// Whether one of `outputs` is standard output (`-`): the summary then
/// goes to standard error.
pub(super) fn stdout_taken(outputs: &[Output]) -> bool {
    outputs
        .iter()
        .any(|(_, p)| p.is_some_and(|p| p.as_os_str() == "-"))
}

/// The run's summary: to standard output, or to standard error when an
/// output took standard output.
pub(super) fn summary(text: &str, format: super::OutputFormat, outputs: &[Output]) {
    if stdout_taken(outputs) {
        super::print_err(text.trim_end());
    } else {
        super::print_doc(text, format);
    }
}
