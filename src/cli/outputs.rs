//! Outputs checked before anything is read: none may be anything the run
//! reads (the trace's files, power traces, throughput tables, the cluster
//! spec, a policy's files), no two may share a path, none lands in the
//! system's folders, and `-` (standard output) moves the run's own summary
//! to standard error.

use super::TraceArgs;
use color_eyre::eyre::Result;
use std::path::{Path, PathBuf};

/// An output option and the path given to it.
pub(super) type Output<'a> = (&'static str, Option<&'a PathBuf>);

/// Refuses `outputs` that would overwrite anything the run reads (`t`'s
/// inputs, the files of the external policies' `commands`), each other,
/// or land in the system's folders: a `Clash`, which exits 2 as a usage
/// error.
pub(super) fn check(t: &TraceArgs, commands: &[String], outputs: &[Output]) -> Result<()> {
    let inputs = read_by(t, commands);
    let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    let given: Vec<(&str, &Path)> = outputs
        .iter()
        .filter_map(|&(option, p)| Some((option, p?.as_path())))
        .collect();
    crate::outfile::check(&inputs, &given)?;
    Ok(())
}

/// Everything a run of `t` reads: the trace's files, the power traces, the
/// throughput tables' folders, the cluster spec, and the files the
/// policies' `commands` name (a Python script with the modules it
/// imports from its folder).
fn read_by(t: &TraceArgs, commands: &[String]) -> Vec<PathBuf> {
    let mut inputs = t.load.format.reads(&t.load.path);
    inputs.extend(t.energy.energy.clone());
    let read = &t.load.read;
    let tables = read
        .throughputs
        .iter()
        .filter(|s| crate::trace::derived_throughput_spec(s).is_none())
        .map(|s| crate::trace::parse_throughput_spec(s).1);
    inputs.extend(tables);
    inputs.extend(read.cluster.clone());
    inputs.extend(read.nodes.clone());
    for c in commands {
        inputs.extend(super::meta_inputs::policy_paths(c));
    }
    inputs
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
