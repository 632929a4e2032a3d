//! FGD's arrival-only experiment as a replay, for a lesson: a trace of
//! pods (openb) in the experiment's seeded shuffle, cloned to `tune` × the
//! cluster's GPUs as `tracetui inflate` clones them, arriving one every
//! `every` seconds and never leaving — so the cluster fills, and the
//! placements' fragmentation shows, in time.

use crate::sim::sharing::{arrival_order, Setup};
use crate::trace::{
    Demand, Format, InputError, Job, JobStatus, LoadOptions, LoadReport, MaybeSecs, Secs, Symbols,
    Trace, Unit, Zone,
};
use std::path::Path;

/// The arrival-only replay of the pods at `path`.
pub(super) fn inflated(
    format: Format,
    path: &Path,
    seed: u64,
    tune: f64,
    every: Secs,
) -> Result<(Trace, LoadReport), InputError> {
    let (orig, mut report) = format.load(path, &LoadOptions::default())?;
    let shown = crate::text::sanitize(&path.display().to_string());
    let pods = orig
        .native
        .as_ref()
        .and_then(|n| n.pods())
        .ok_or_else(|| InputError::file(&shown, "[inflate] needs a trace of pods (openb)"))?;
    let setup = Setup::new(&orig.cluster, pods);
    let (order, tuned) = arrival_order(&setup, seed, tune);
    let mut seen = vec![0u32; pods.len()];
    let jobs: Vec<Job> = order
        .iter()
        .enumerate()
        .map(|(i, &a)| {
            let row = setup.rows[a as usize];
            let p = &pods[row as usize];
            let k = &mut seen[row as usize];
            let id = match *k {
                0 => p.name.to_string(),
                n => format!("{}-tuned-{n}", p.name),
            };
            *k += 1;
            let demand = match p.is_cpu() {
                true => Demand::Gang { gpus: 0 },
                false => Demand::Instances(Box::new([Unit::gpus(1, p.gpus * p.milli)])),
            };
            Job {
                id: id.into(),
                user: None,
                group: None,
                submit: i as Secs * every,
                runtime: MaybeSecs::NONE,
                demand,
                gpu_type: p.one_type(),
                status: JobStatus::Unknown,
                requested: MaybeSecs::NONE,
                deadline: MaybeSecs::NONE,
                model: None,
                segments: 0..0,
                native_row: row,
                cpu_milli: p.cpu_milli,
                mem_mib: p.mem_mib,
                any_of_types: p.type_bits(),
            }
        })
        .collect();
    // The load's own count (pods replayed, left out) is not this replay's.
    report.notes.retain(|n| !n.contains(" replayed"));
    report.note(format!(
        "arrival-only: {} pods in a seeded shuffle (seed {seed}), {tuned:+} to {tune} × the GPUs, one every {every} s, none leaving",
        jobs.len()
    ));
    Ok((
        Trace {
            format: orig.format,
            source: format!("{} (arrival-only)", orig.source),
            cluster: orig.cluster.clone(),
            jobs,
            segments: Vec::new(),
            symbols: Symbols::default(),
            zone: Zone::Relative,
            excluded: Vec::new(),
            native: orig.native.clone(),
            speeds: None,
        },
        report,
    ))
}
