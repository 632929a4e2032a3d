//! GPU-type speeds without throughput tables (`--gpu-speed V100=1,T4=0.5`):
//! each GPU type of the cluster runs jobs at a relative speed (types not
//! named: 1). A job that may run on any type, and whose recorded run is
//! known to have been on some type (the machines of its recorded holds,
//! the slowest of them for a gang across types), takes
//! `ceil(recorded run time × factor of that type ÷ factor of the type it
//! runs on)` seconds; on the type it ran on, exactly its recorded time. A
//! job that asks for one type runs only there, at its recorded speed, and
//! a job with no recorded machine keeps its recorded duration: the trace
//! does not say how fast the GPUs it ran on were. Jobs stay rigid.

use super::input::InputError;
use super::model::{Trace, TypeId};
use super::speed::Speeds;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The relative speeds `--gpu-speed` takes.
const MIN_FACTOR: f64 = 0.001;
const MAX_FACTOR: f64 = 1000.0;

/// Reads `--gpu-speed` values: `TYPE=FACTOR`, several per value
/// separated by commas, values repeatable; a type named twice is an error.
pub fn parse_factors(specs: &[String]) -> Result<Vec<(String, f64)>, InputError> {
    let mut out: Vec<(String, f64)> = Vec::new();
    for part in specs.iter().flat_map(|s| s.split(',')) {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let bad = |why: &str| {
            InputError::file(
                "--gpu-speed",
                format!("{}: {why}", crate::text::sanitize(part)),
            )
        };
        let (ty, f) = part
            .split_once('=')
            .ok_or_else(|| bad("expected TYPE=FACTOR, as V100=1"))?;
        let ty = ty.trim();
        let f: f64 = f
            .trim()
            .parse()
            .map_err(|_| bad("the factor is not a number"))?;
        if !(f.is_finite() && f > 0.0) {
            return Err(bad("the factor must be a positive number"));
        }
        if !(MIN_FACTOR..=MAX_FACTOR).contains(&f) {
            return Err(bad(&format!(
                "a factor from {MIN_FACTOR} to {MAX_FACTOR} (relative speeds; 1e-6 would run a job past the year 2100)"
            )));
        }
        if ty.is_empty() {
            return Err(bad("no GPU type before '='"));
        }
        if out.iter().any(|(t, _)| t.eq_ignore_ascii_case(ty)) {
            return Err(bad("this GPU type is named twice"));
        }
        out.push((ty.to_string(), f));
    }
    if out.is_empty() {
        return Err(InputError::file(
            "--gpu-speed",
            "no TYPE=FACTOR given, as V100=1,T4=0.5",
        ));
    }
    Ok(out)
}

/// Gives `trace`'s jobs their GPU types' speeds; the lines that say what
/// was done.
pub fn attach_factors(
    trace: &mut Trace,
    factors: Vec<(String, f64)>,
) -> Result<Vec<String>, InputError> {
    if trace.speeds.is_some() {
        return Err(InputError::file(
            "--gpu-speed",
            "the jobs already run from throughput tables: give tables per GPU type (--throughputs TYPE=DIR) instead",
        ));
    }
    let types = &trace.cluster.gpu_types;
    let mut per_type = vec![1.0; types.len()];
    for (name, f) in &factors {
        let at = types
            .iter()
            .position(|t| t.eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                InputError::file(
                    "--gpu-speed",
                    format!(
                        "this cluster has no GPU of type {} (its types: {})",
                        crate::text::sanitize(name),
                        crate::text::sanitize(&types.join(", "))
                    ),
                )
            })?;
        per_type[at] = *f;
    }
    let n = trace.jobs.len();
    let (mut work, mut curve) = (vec![0.0; n], vec![None; n]);
    let mut counts = Counts::default();
    for (i, job) in trace.jobs.iter().enumerate() {
        if job.demand.is_zero() {
            continue;
        }
        let Some(runtime) = job.runtime.get() else {
            counts.no_runtime += 1;
            continue;
        };
        if job.gpu_type.is_some() {
            counts.typed += 1;
            continue;
        }
        match recorded_type(trace, i, &per_type) {
            Some(ty) => {
                work[i] = runtime as f64;
                curve[i] = Some(ty as u32);
                counts.scaled += 1;
            }
            None => counts.no_machine += 1,
        }
    }
    // One curve per recorded type: its rate on each type is the ratio of
    // their factors (exactly 1 on its own type).
    let rates: Vec<Vec<f64>> = per_type
        .iter()
        .map(|&own| per_type.iter().map(|&f| f / own).collect())
        .collect();
    let said = counts.said(trace, &per_type);
    trace.speeds = Some(Arc::new(Speeds::from_factors(factors, work, curve, rates)));
    Ok(said)
}

/// The type job `i`'s recorded run was on: the slowest type among the
/// machines of its recorded holds (None: no hold names a machine).
fn recorded_type(trace: &Trace, i: usize, per_type: &[f64]) -> Option<TypeId> {
    let job = &trace.jobs[i];
    let segs = trace
        .segments
        .get(job.segments.start as usize..job.segments.end as usize)?;
    segs.iter()
        .filter_map(|s| s.machine.get())
        .filter_map(|m| trace.cluster.machines.get(m as usize))
        .filter(|m| !m.recorded_only)
        .map(|m| m.gpu_type)
        .min_by(|&a, &b| {
            per_type[a as usize]
                .total_cmp(&per_type[b as usize])
                .then(a.cmp(&b))
        })
}

/// How many jobs each rule took.
#[derive(Default)]
struct Counts {
    scaled: u64,
    typed: u64,
    no_machine: u64,
    no_runtime: u64,
}

impl Counts {
    fn said(&self, trace: &Trace, per_type: &[f64]) -> Vec<String> {
        // The types that have GPUs, by name.
        let c = &trace.cluster;
        let named: BTreeMap<&str, f64> = c
            .machines
            .iter()
            .filter(|m| m.gpus > 0)
            .filter_map(|m| {
                Some((
                    c.gpu_types.get(m.gpu_type as usize)?.as_str(),
                    per_type.get(m.gpu_type as usize)?,
                ))
            })
            .map(|(t, &f)| (t, f))
            .collect();
        let list = named
            .iter()
            .map(|(t, f)| format!("{} {f}", crate::text::sanitize(t)))
            .collect::<Vec<_>>()
            .join(", ");
        let mut said = vec![format!(
            "speed model: {} GPU jobs run at their GPU type's speed ({list}): recorded run time × the factor of the type it ran on ÷ the factor of the type it runs on",
            self.scaled
        )];
        let mut keep = Vec::new();
        if self.typed > 0 {
            keep.push(format!("{} ask for one GPU type", self.typed));
        }
        if self.no_machine > 0 {
            keep.push(format!(
                "{} have no recorded machine to say how fast their GPUs were",
                self.no_machine
            ));
        }
        if self.no_runtime > 0 {
            keep.push(format!("{} never ended in the trace", self.no_runtime));
        }
        if !keep.is_empty() {
            said.push(format!(
                "speed model: jobs that keep their recorded durations: {}",
                keep.join("; ")
            ));
        }
        said
    }
}
