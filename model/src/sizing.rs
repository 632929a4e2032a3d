//! Sizing a cluster for a trace that has no machine list.

use super::input::InputError;
use super::model::{Cluster, Job, Secs};
use super::LoadOptions;

/// The cluster for a trace without a machine list: `--gpus`, or the smallest
/// multiple of the node size that keeps offered load at most 80 % of
/// capacity and fits the largest job.
pub(crate) fn size_cluster(
    jobs: &[Job],
    opts: &LoadOptions,
    file: &str,
) -> Result<Cluster, InputError> {
    let g = opts.gpus_per_node.clamp(1, super::limits::MAX_MACHINE_GPUS);
    if let Some(n) = opts.gpus {
        let n = checked_size(n as u64, file, "--gpus")?;
        return Ok(Cluster::uniform(
            n,
            g.min(n.max(1)),
            format!("cluster: {n} GPUs, {g} per node (--gpus)"),
        )
        .sized_by("--gpus"));
    }
    let largest = jobs.iter().map(|j| j.demand.gpus_ceil()).max().unwrap_or(1);
    let offered = offered_load_gpus(jobs).unwrap_or(0.0);
    let need = (offered / 0.8).ceil().max(largest as f64).max(1.0) as u64;
    let n = need.div_ceil(g as u64).saturating_mul(g as u64);
    let n = checked_size(
        n,
        file,
        &format!("the offered load ({offered:.0} GPUs on average, largest job {largest})"),
    )?;
    Ok(Cluster::uniform(
        n,
        g,
        format!(
            "cluster: {n} GPUs = {} nodes × {g} (auto: offered load {offered:.1} GPUs ≤ 80 % of capacity, largest job {largest} GPUs; set --gpus to choose)",
            n / g
        ),
    )
    .sized_by("auto, load ≤ 80 %"))
}

/// The offered load: the GPU-time the jobs ask for (run time × GPUs, jobs
/// whose run time is known) over the span of their submissions (at least
/// a second), in GPUs on average; `None` for no jobs.
pub fn offered_load_gpus(jobs: &[Job]) -> Option<f64> {
    let first: Secs = jobs.iter().map(|j| j.submit).min()?;
    let last: Secs = jobs.iter().map(|j| j.submit).max()?;
    let gpu_seconds: f64 = jobs
        .iter()
        .map(|j| j.runtime.get().unwrap_or(0) as f64 * j.demand.total_milli() as f64 / 1000.0)
        .sum();
    Some(gpu_seconds / (last - first).max(1) as f64)
}

/// A cluster size, refused past `limits::MAX_GPUS` with a message naming the
/// file and what asked for it.
pub(crate) fn checked_size(n: u64, file: &str, why: &str) -> Result<u32, InputError> {
    let max = super::limits::MAX_GPUS;
    if n > max as u64 {
        return Err(InputError::file(
            file,
            format!("{why} needs a cluster of {n} GPUs, more than the {max} supported; set --gpus to choose a size"),
        ));
    }
    Ok(n as u32)
}

/// `peak` GPUs rounded up to whole nodes of `--gpus-per-node` (at least
/// one), checked like any size: (GPUs, GPUs per node).
pub(crate) fn whole_nodes(
    peak: u64,
    opts: &LoadOptions,
    file: &str,
    why: &str,
) -> Result<(u32, u32), InputError> {
    let g = opts.gpus_per_node.clamp(1, super::limits::MAX_MACHINE_GPUS) as u64;
    let n = peak.div_ceil(g).saturating_mul(g).max(g);
    Ok((checked_size(n, file, why)?, g as u32))
}

/// `--load` on a cluster from `--cluster`: its machines scaled, type by
/// type in the spec's proportions, to hold at least `n` GPUs (`wanted`
/// says what they are).
fn scale_spec(
    trace: &mut super::Trace,
    load: f64,
    offered: f64,
    (n, wanted): (u32, &str),
) -> Result<String, InputError> {
    let why = format!("--cluster's machines scaled to hold {wanted} for --load {load}");
    let c = super::cluster_spec::scaled(&trace.cluster, n as u64, &why)?;
    let got = c.total_gpus().max(1);
    let line = format!(
        "{}: offered load {offered:.1} GPUs is {:.1} % of it",
        c.origin,
        offered / got as f64 * 100.0
    );
    trace.cluster = Cluster {
        origin: line.clone(),
        ..c
    };
    super::speed::rebind(trace)?;
    Ok(line)
}

/// `--load L`: the cluster of a trace without a machine list resized so
/// that the jobs offer `load` of it on average (GPUs = offered load ÷ L,
/// rounded up, at least the largest job), in machines of `per_node`; with
/// `whole`, rounded up to whole machines (for a policy whose gangs take
/// whole machines); a cluster from `--cluster` keeps its types, each
/// type's machines scaled in proportion. Returns the line that says so; a
/// trace that lists its machines is refused.
pub fn size_for_load(
    trace: &mut super::Trace,
    load: f64,
    per_node: u32,
    whole: Option<&str>,
) -> Result<String, InputError> {
    if !(load.is_finite() && load > 0.0) {
        return Err(InputError::file(
            &trace.source,
            format!("--load must be a positive number, not {load}"),
        ));
    }
    if trace.cluster.sized_by.is_empty() {
        return Err(InputError::file(
            &trace.source,
            format!(
                "--load sizes a cluster built from the jobs, and this {} trace lists its machines",
                trace.format
            ),
        ));
    }
    let offered = offered_load_gpus(&trace.jobs).unwrap_or(0.0);
    let largest = trace
        .jobs
        .iter()
        .map(|j| j.demand.gpus_ceil())
        .max()
        .unwrap_or(1);
    let n = ((offered / load).ceil().max(largest as f64).max(1.0)).min(u64::MAX as f64) as u64;
    let n = checked_size(n, &trace.source, &format!("--load {load}"))?;
    let raised = largest == n as u64 && offered / load < largest as f64;
    if trace.cluster.sized_by == "--cluster" {
        let wanted = if raised {
            format!("the largest job's {largest} GPUs")
        } else {
            format!("{n} GPUs")
        };
        return scale_spec(trace, load, offered, (n, &wanted));
    }
    let g = per_node.clamp(1, super::limits::MAX_MACHINE_GPUS);
    let unrounded = n;
    let n = match whole {
        Some(_) if n > g => {
            let up = (n as u64).div_ceil(g as u64) * g as u64;
            checked_size(up, &trace.source, &format!("--load {load}"))?
        }
        _ => n,
    };
    let line = format!(
        "cluster: {n} GPUs, {} per node (--load {load}: offered load {offered:.1} GPUs is {:.1} % of it{}{})",
        g.min(n),
        offered / n as f64 * 100.0,
        if raised {
            format!(", raised to the largest job's {largest} GPUs")
        } else {
            String::new()
        },
        match whole {
            Some(why) if n != unrounded => {
                format!(", {unrounded} rounded up to whole machines of {g} for {why}")
            }
            _ => String::new(),
        }
    );
    trace.cluster = Cluster::uniform(n, g.min(n.max(1)), line.clone()).sized_by("--load");
    super::speed::rebind(trace)?;
    Ok(line)
}
