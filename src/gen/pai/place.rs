//! Recording where each generated instance ran: at its start, on a machine
//! of its type, best fit, using the engine's own cluster indices; GPUs come
//! back at its end. CPU instances go to any machine.

use super::jobs::Generated;
use crate::sim::{place as place_demand, ClusterState, Grant, Placement, TypeFilter};
use crate::trace::{Cluster, Demand, Machine, Rng, Unit};
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;

/// The generated machines as a cluster the engine's indices can hold.
fn cluster_of(g: &Generated) -> Cluster {
    Cluster {
        machines: g
            .cluster
            .machines
            .iter()
            .enumerate()
            .map(|(i, &(t, cpus, mem, gpus))| Machine {
                name: format!("m{i}"),
                gpu_type: t as u16,
                gpus,
                cpu_milli: cpus.saturating_mul(1000),
                mem_mib: mem.saturating_mul(1024),
                recorded_only: false,
            })
            .collect(),
        gpu_types: g.cluster.types.clone(),
        origin: String::new(),
        per_node: None,
        switches: 0,
        sized_by: String::new(),
    }
}

/// No room at its start: an instance is recorded anyway, on a random
/// machine that could hold it (of its type).
fn overflow_machine(g: &Generated, pct: u32, filter: TypeFilter, rng: &mut Rng) -> u32 {
    let fits =
        |&(t, _, _, gpus): &(u8, u32, u32, u32)| gpus * 100 >= pct && filter.allows(t as u16);
    let options: Vec<u32> = (0..g.cluster.machines.len() as u32)
        .filter(|&m| fits(&g.cluster.machines[m as usize]))
        .collect();
    if options.is_empty() {
        0
    } else {
        options[rng.below(options.len() as u64) as usize]
    }
}

pub(super) fn place(g: &mut Generated, rng: &mut Rng) {
    let cluster = cluster_of(g);
    let mut state = ClusterState::new(&cluster);
    // GPU instances by start time (then index, for determinism).
    let mut starts: Vec<(i64, u32)> = Vec::new();
    for (i, inst) in g.insts.iter().enumerate() {
        let task = &g.tasks[inst.task as usize];
        let job = &g.jobs[task.job as usize];
        match (job.start, task.plan_gpu) {
            (Some(s), Some(_)) => starts.push((s, i as u32)),
            (Some(_), None) => {}
            (None, _) => {}
        }
    }
    starts.sort_unstable();
    let mut ends: BTreeSet<(i64, u32)> = BTreeSet::new();
    let mut held: FxHashMap<u32, Vec<Grant>> = FxHashMap::default();
    for (start, i) in starts {
        while let Some(&(e, k)) = ends.first() {
            if e > start {
                break;
            }
            ends.pop_first();
            if let Some(gr) = held.remove(&k) {
                state.release(k, &gr);
            }
        }
        let ti = g.insts[i as usize].task as usize;
        let (pct, job) = (g.tasks[ti].plan_gpu.unwrap_or(0), g.tasks[ti].job as usize);
        let filter = match g.jobs[job].type_spec.or(g.tasks[ti].gpu_type) {
            Some(t) => TypeFilter::Only(t as u16),
            None => TypeFilter::Any,
        };
        let demand = Demand::Instances(vec![Unit::gpus(1, pct * 10)].into_boxed_slice());
        let machine = match place_demand(&mut state, Placement::Consolidate, &demand, filter) {
            Some(chosen) => {
                // The machine is the placement's; the GPUs on it are chosen the
                // way a recorded replay chooses them, so the replay matches.
                let m = chosen.first().map_or(0, |x| x.machine);
                let (gr, _) = state.grants_on(m, pct * 10);
                state.acquire(i, &gr);
                if let Some(e) = g.jobs[job].end {
                    ends.insert((e, i));
                }
                held.insert(i, gr);
                m
            }
            None => {
                g.overflow += 1;
                overflow_machine(g, pct, filter, rng)
            }
        };
        g.insts[i as usize].machine = Some(machine);
        if g.tasks[ti].gpu_type.is_none() {
            g.tasks[ti].gpu_type = Some(g.cluster.machines[machine as usize].0);
        }
    }
    // CPU instances: any machine.
    let n = g.cluster.machines.len() as u64;
    for inst in g.insts.iter_mut() {
        let task = &g.tasks[inst.task as usize];
        if task.plan_gpu.is_none() && g.jobs[task.job as usize].start.is_some() {
            inst.machine = Some(rng.below(n) as u32);
        }
    }
}
