//! A Slurm trace's machines: `--nodes FILE` (what `scontrol show node -o`
//! or `sinfo` printed), else the nodes the jobs ran on, each with the most
//! GPUs in use on it at once, else (no node lists) sized to the load.

use super::Built;
use crate::input::InputError;
use crate::model::{Cluster, Machine};
use crate::LoadOptions;
use rustc_hash::FxHashMap;

/// Each node the runs name: the most GPUs held on it at once, and the GPU
/// type Slurm gave there where only one, in order of first use.
fn peaks(b: &Built) -> Vec<(String, u32, Option<String>)> {
    let mut order: Vec<String> = Vec::new();
    let mut events: FxHashMap<&str, Vec<(i64, i64)>> = FxHashMap::default();
    let mut types: FxHashMap<&str, Vec<&str>> = FxHashMap::default();
    for run in b.runs.iter().flatten() {
        for (node, g) in &run.on {
            let e = events.entry(node.as_str()).or_insert_with(|| {
                order.push(node.clone());
                Vec::new()
            });
            e.push((run.start, *g as i64));
            if let Some(end) = run.end {
                e.push((end, -(*g as i64)));
            }
            if let Some(t) = &run.ty {
                types.entry(node.as_str()).or_default().push(t.as_str());
            }
        }
    }
    order
        .into_iter()
        .map(|node| {
            let mut e = events.remove(node.as_str()).unwrap_or_default();
            // Ends before starts at the same second: a GPU freed is free.
            e.sort_unstable();
            let (mut cur, mut peak) = (0i64, 0i64);
            for (_, d) in e {
                cur += d;
                peak = peak.max(cur);
            }
            let mut t = types.remove(node.as_str()).unwrap_or_default();
            t.sort_unstable();
            t.dedup();
            let ty = (t.len() == 1).then(|| t[0].to_string());
            let peak = peak.clamp(0, crate::limits::MAX_MACHINE_GPUS as i64) as u32;
            (node, peak, ty)
        })
        .collect()
}

fn machine(cluster: &mut Cluster, name: &str, gpus: u32, ty: Option<&str>) -> Machine {
    Machine {
        name: name.to_string(),
        gpu_type: cluster.type_id(ty.unwrap_or("GPU")),
        gpus,
        cpu_milli: 0,
        mem_mib: 0,
        recorded_only: false,
    }
}

fn empty(origin: String) -> Cluster {
    Cluster {
        origin,
        ..Cluster::default()
    }
}

/// The cluster for the jobs built (see the module's notes).
pub(super) fn nodes_cluster(
    b: &Built,
    opts: &LoadOptions,
    file: &str,
) -> Result<Cluster, InputError> {
    if opts.gpus.is_some() {
        return crate::sizing::size_cluster(&b.jobs, opts, file);
    }
    let used = peaks(b);
    if let Some(path) = &opts.nodes {
        let listed = super::nodes::read(path)?;
        let mut c = empty(String::new());
        let mut names = std::collections::HashSet::new();
        for n in &listed {
            let mut m = machine(&mut c, &n.name, n.gpus, n.gpu_type.as_deref());
            (m.cpu_milli, m.mem_mib) = (
                n.cpus.saturating_mul(1000),
                n.mem_mb.min(u32::MAX as u64) as u32,
            );
            names.insert(n.name.clone());
            c.machines.push(m);
        }
        let unlisted: Vec<_> = used.iter().filter(|(n, _, _)| !names.contains(n)).collect();
        for (name, peak, ty) in &unlisted {
            let mut m = machine(&mut c, name, *peak, ty.as_deref());
            m.recorded_only = true;
            c.machines.push(m);
        }
        c.origin = format!(
            "cluster: {}, {} GPUs from {}{}",
            crate::fmt::count(listed.len() as u64, "node"),
            listed.iter().map(|n| n.gpus as u64).sum::<u64>(),
            path.display(),
            if unlisted.is_empty() {
                String::new()
            } else {
                format!(
                    "; {} the jobs ran on not in it (replayed as recorded only)",
                    crate::fmt::count(unlisted.len() as u64, "node")
                )
            }
        );
        return Ok(c);
    }
    if used.is_empty() {
        return crate::sizing::size_cluster(&b.jobs, opts, file);
    }
    let mut c = empty(String::new());
    for (name, peak, ty) in &used {
        let m = machine(&mut c, name, *peak, ty.as_deref());
        c.machines.push(m);
    }
    c.origin = format!(
        "cluster: {}, {} GPUs inferred from the jobs' node lists (each node: the most GPUs in use on it at once); give --nodes FILE (scontrol show node -o, or sinfo output) for the real counts",
        crate::fmt::count(c.machines.len() as u64, "node"),
        c.total_gpus()
    );
    c.sized_by = "the jobs' node lists".into();
    Ok(c)
}
