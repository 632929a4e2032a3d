//! Which job holds which GPU, and indices over free capacity that make
//! placement queries logarithmic instead of a scan of every machine.

use crate::trace::model::{Cluster, TypeId, MILLI_PER_GPU};
use std::cmp::Reverse;
use std::collections::BTreeSet;

/// One job's share of one GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Grant {
    pub machine: u32,
    pub gpu: u16,
    pub milli: u16,
}

/// Which GPU types a job may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TypeFilter {
    Any,
    Only(TypeId),
}

impl TypeFilter {
    pub fn from(t: Option<TypeId>) -> TypeFilter {
        t.map_or(TypeFilter::Any, TypeFilter::Only)
    }

    pub fn allows(self, t: TypeId) -> bool {
        match self {
            TypeFilter::Any => true,
            TypeFilter::Only(x) => x == t,
        }
    }
}

#[derive(Debug, Clone)]
struct MachineState {
    first_gpu: u32,
    gpus: u32,
    gpu_type: TypeId,
    /// GPUs with nothing on them.
    free: u32,
    /// Offered to placement (machines known only from a record are not).
    indexed: bool,
}

/// Free-capacity indices for the machines of one GPU type.
#[derive(Debug, Clone, Default)]
struct TypeIndex {
    /// `by_free[f]`: machines with exactly `f > 0` free GPUs.
    by_free: Vec<BTreeSet<u32>>,
    /// Machines with every GPU free, largest first, then by order.
    whole: BTreeSet<(Reverse<u32>, u32)>,
    /// GPUs partly in use: (free milli, machine, gpu).
    partial: BTreeSet<(u16, u32, u16)>,
    free_gpus: u64,
    max_gpus: u32,
    total_gpus: u64,
}

/// The live occupancy of every GPU.
#[derive(Debug, Clone)]
pub struct ClusterState {
    machines: Vec<MachineState>,
    /// Milli-GPUs in use per GPU (may exceed 1000 when a recorded replay overflows).
    used: Vec<u32>,
    /// Every holder of each GPU and its share.
    holders: Vec<Vec<(u32, u16)>>,
    types: Vec<TypeIndex>,
    allocated_milli: u64,
}

impl ClusterState {
    pub fn new(cluster: &Cluster) -> ClusterState {
        let ntypes = cluster.gpu_types.len().max(1);
        let mut types = vec![TypeIndex::default(); ntypes];
        let mut machines = Vec::with_capacity(cluster.machines.len());
        let mut first = 0u32;
        for (i, m) in cluster.machines.iter().enumerate() {
            let t = &mut types[m.gpu_type as usize];
            let indexed = !m.recorded_only;
            if indexed {
                if t.by_free.len() <= m.gpus as usize {
                    t.by_free.resize(m.gpus as usize + 1, BTreeSet::new());
                }
                if m.gpus > 0 {
                    t.by_free[m.gpus as usize].insert(i as u32);
                    t.whole.insert((Reverse(m.gpus), i as u32));
                }
                t.free_gpus += m.gpus as u64;
                t.total_gpus += m.gpus as u64;
                t.max_gpus = t.max_gpus.max(m.gpus);
            }
            machines.push(MachineState {
                first_gpu: first,
                gpus: m.gpus,
                gpu_type: m.gpu_type,
                free: m.gpus,
                indexed,
            });
            first += m.gpus;
        }
        ClusterState {
            machines,
            used: vec![0; first as usize],
            holders: vec![Vec::new(); first as usize],
            types,
            allocated_milli: 0,
        }
    }

    pub fn machine_count(&self) -> usize {
        self.machines.len()
    }

    pub fn gpu_count(&self) -> usize {
        self.used.len()
    }

    pub fn cap(&self, m: u32) -> u32 {
        self.machines[m as usize].gpus
    }

    pub fn free(&self, m: u32) -> u32 {
        self.machines[m as usize].free
    }

    pub fn machine_type(&self, m: u32) -> TypeId {
        self.machines[m as usize].gpu_type
    }

    pub fn type_count(&self) -> usize {
        self.types.len()
    }

    /// The first GPU of machine `m` in the flat GPU numbering.
    pub fn first_gpu(&self, m: u32) -> usize {
        self.machines[m as usize].first_gpu as usize
    }

    pub fn used_milli(&self, flat_gpu: usize) -> u32 {
        self.used[flat_gpu]
    }

    /// Every job holding GPU `flat_gpu`, with its share in milli-GPUs.
    pub fn holders(&self, flat_gpu: usize) -> &[(u32, u16)] {
        &self.holders[flat_gpu]
    }

    pub fn allocated_milli(&self) -> u64 {
        self.allocated_milli
    }

    fn allowed(&self, f: TypeFilter) -> impl Iterator<Item = &TypeIndex> + '_ {
        self.types
            .iter()
            .enumerate()
            .filter(move |(t, _)| f.allows(*t as TypeId))
            .map(|(_, ix)| ix)
    }

    pub fn max_gpus(&self, f: TypeFilter) -> u32 {
        self.allowed(f).map(|t| t.max_gpus).max().unwrap_or(0)
    }

    pub fn total_gpus(&self, f: TypeFilter) -> u64 {
        self.allowed(f).map(|t| t.total_gpus).sum()
    }

    pub fn free_gpus(&self, f: TypeFilter) -> u64 {
        self.allowed(f).map(|t| t.free_gpus).sum()
    }

    /// The machine with the fewest free GPUs that still has `k` (ties: machine
    /// order), skipping `skip`.
    pub fn best_fit(&self, f: TypeFilter, k: u32, skip: &[u32]) -> Option<u32> {
        let k = k.max(1) as usize;
        let top = self.max_gpus(f) as usize;
        for free in k..=top {
            let best = self
                .allowed(f)
                .filter_map(|t| t.by_free.get(free))
                .filter_map(|set| set.iter().find(|m| !skip.contains(m)))
                .min();
            if best.is_some() {
                return best.copied();
            }
        }
        None
    }

    /// The machine with the most free GPUs (ties: machine order).
    pub fn most_free(&self, f: TypeFilter) -> Option<u32> {
        let top = self.max_gpus(f) as usize;
        (1..=top).rev().find_map(|free| {
            self.allowed(f)
                .filter_map(|t| t.by_free.get(free).and_then(|s| s.first()))
                .min()
                .copied()
        })
    }

    /// Entirely free machines, largest first, then by machine order.
    pub fn whole_free(&self, f: TypeFilter) -> Vec<u32> {
        let mut v: Vec<(Reverse<u32>, u32)> = self
            .allowed(f)
            .flat_map(|t| t.whole.iter().copied())
            .collect();
        v.sort_unstable();
        v.into_iter().map(|(_, m)| m).collect()
    }

    /// Machines with free GPUs, fullest (fewest free) first, then by order.
    pub fn fullest_first(&self, f: TypeFilter) -> impl Iterator<Item = u32> + '_ {
        let top = self.max_gpus(f) as usize;
        (1..=top).flat_map(move |free| {
            let mut ms: Vec<u32> = self
                .allowed(f)
                .filter_map(|t| t.by_free.get(free))
                .flat_map(|s| s.iter().copied())
                .collect();
            ms.sort_unstable();
            ms
        })
    }

    /// The partly used GPU with the least room that still has `milli`
    /// (ties: machine, then GPU order).
    pub fn best_partial(&self, f: TypeFilter, milli: u16) -> Option<(u32, u16)> {
        self.allowed(f)
            .filter_map(|t| t.partial.range((milli, 0, 0)..).next())
            .min()
            .map(|&(_, m, g)| (m, g))
    }

    /// The lowest-numbered free GPUs of machine `m`, `k` of them.
    pub fn free_gpus_of(&self, m: u32, k: u32) -> Vec<u16> {
        let ms = &self.machines[m as usize];
        let base = ms.first_gpu as usize;
        (0..ms.gpus as usize)
            .filter(|&g| self.used[base + g] == 0)
            .take(k as usize)
            .map(|g| g as u16)
            .collect()
    }

    /// The GPU of machine `m` with the least room left that still takes
    /// `milli` (lowest index among equals), counting free GPUs as full room.
    pub fn gpu_with_room(&self, m: u32, milli: u32) -> Option<u16> {
        let ms = &self.machines[m as usize];
        let base = ms.first_gpu as usize;
        (0..ms.gpus as usize)
            .filter(|&g| self.used[base + g] + milli <= MILLI_PER_GPU)
            .min_by_key(|&g| (MILLI_PER_GPU - self.used[base + g], g))
            .map(|g| g as u16)
    }

    /// The least used GPU of machine `m` (for replaying a record that overflows it).
    pub fn least_used_gpu(&self, m: u32) -> Option<u16> {
        let ms = &self.machines[m as usize];
        let base = ms.first_gpu as usize;
        (0..ms.gpus as usize)
            .min_by_key(|&g| (self.used[base + g], g))
            .map(|g| g as u16)
    }

    /// GPUs for `milli` on machine `m` as a record puts it there: whole GPUs
    /// on the lowest-numbered free GPUs, a fraction on the lowest-numbered GPU
    /// with room. `true` when it does not fit and was put over capacity on
    /// the least used GPUs (a recorded replay keeps what was recorded).
    pub fn grants_on(&self, m: u32, milli: u32) -> (Vec<Grant>, bool) {
        let cap = self.cap(m);
        if cap == 0 || milli == 0 {
            return (Vec::new(), milli > 0);
        }
        let base = self.first_gpu(m);
        let mut taken: Vec<u16> = Vec::new();
        let mut over = false;
        let mut pick = |need: u32, taken: &mut Vec<u16>| -> u16 {
            let free = (0..cap as u16).find(|g| {
                !taken.contains(g) && self.used[base + *g as usize] + need <= MILLI_PER_GPU
            });
            let gpu = free.unwrap_or_else(|| {
                over = true;
                (0..cap as u16)
                    .filter(|g| !taken.contains(g))
                    .min_by_key(|g| (self.used[base + *g as usize], *g))
                    .unwrap_or(0)
            });
            taken.push(gpu);
            gpu
        };
        let mut grants = Vec::new();
        for _ in 0..milli / MILLI_PER_GPU {
            let gpu = pick(MILLI_PER_GPU, &mut taken);
            grants.push(Grant {
                machine: m,
                gpu,
                milli: MILLI_PER_GPU as u16,
            });
        }
        let frac = milli % MILLI_PER_GPU;
        if frac > 0 {
            let gpu = pick(frac, &mut taken);
            grants.push(Grant {
                machine: m,
                gpu,
                milli: frac as u16,
            });
        }
        grants.sort_unstable();
        (grants, over)
    }

    fn unindex(&mut self, m: u32) {
        let ms = &self.machines[m as usize];
        if !ms.indexed {
            return;
        }
        let t = &mut self.types[ms.gpu_type as usize];
        if ms.free > 0 {
            t.by_free[ms.free as usize].remove(&m);
        }
        if ms.free == ms.gpus && ms.gpus > 0 {
            t.whole.remove(&(Reverse(ms.gpus), m));
        }
        t.free_gpus -= ms.free as u64;
    }

    fn reindex(&mut self, m: u32) {
        let ms = &mut self.machines[m as usize];
        let base = ms.first_gpu as usize;
        ms.free = (0..ms.gpus as usize)
            .filter(|&g| self.used[base + g] == 0)
            .count() as u32;
        let ms = &self.machines[m as usize];
        if !ms.indexed {
            return;
        }
        let t = &mut self.types[ms.gpu_type as usize];
        if ms.free > 0 {
            t.by_free[ms.free as usize].insert(m);
        }
        if ms.free == ms.gpus && ms.gpus > 0 {
            t.whole.insert((Reverse(ms.gpus), m));
        }
        t.free_gpus += ms.free as u64;
    }

    fn set_partial(&mut self, m: u32, gpu: u16, add: bool) {
        let flat = self.machines[m as usize].first_gpu as usize + gpu as usize;
        let used = self.used[flat];
        if used > 0 && used < MILLI_PER_GPU && self.machines[m as usize].indexed {
            let key = ((MILLI_PER_GPU - used) as u16, m, gpu);
            let t = &mut self.types[self.machines[m as usize].gpu_type as usize];
            if add {
                t.partial.insert(key);
            } else {
                t.partial.remove(&key);
            }
        }
    }

    /// Gives `grants` to `job`.
    pub fn acquire(&mut self, job: u32, grants: &[Grant]) {
        self.change(grants, |state, flat, g| {
            state.used[flat] += g.milli as u32;
            // Holders stay sorted by job, so the order never depends on history.
            let h = &mut state.holders[flat];
            let at = h.partition_point(|&(j, _)| j < job);
            h.insert(at, (job, g.milli));
            state.allocated_milli += g.milli as u64;
        });
    }

    /// Takes `grants` back from `job`.
    pub fn release(&mut self, job: u32, grants: &[Grant]) {
        self.change(grants, |state, flat, g| {
            state.used[flat] -= g.milli as u32;
            let h = &mut state.holders[flat];
            if let Some(i) = h.iter().position(|&(j, mi)| j == job && mi == g.milli) {
                h.remove(i);
            }
            state.allocated_milli -= g.milli as u64;
        });
    }

    fn change(&mut self, grants: &[Grant], mut f: impl FnMut(&mut Self, usize, &Grant)) {
        let mut i = 0;
        while i < grants.len() {
            let m = grants[i].machine;
            self.unindex(m);
            while i < grants.len() && grants[i].machine == m {
                let g = &grants[i];
                self.set_partial(m, g.gpu, false);
                let flat = self.machines[m as usize].first_gpu as usize + g.gpu as usize;
                f(self, flat, g);
                self.set_partial(m, g.gpu, true);
                i += 1;
            }
            self.reindex(m);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cluster(sizes: &[u32]) -> ClusterState {
        let mut c = Cluster::uniform(0, 8, String::new());
        for (i, &g) in sizes.iter().enumerate() {
            c.machines.push(crate::trace::Machine {
                name: format!("m{i}"),
                gpu_type: 0,
                gpus: g,
                cpus: 0,
                mem_gb: 0,
                recorded_only: false,
            });
        }
        ClusterState::new(&c)
    }

    fn whole(m: u32, gpus: &[u16]) -> Vec<Grant> {
        gpus.iter()
            .map(|&gpu| Grant {
                machine: m,
                gpu,
                milli: 1000,
            })
            .collect()
    }

    #[test]
    fn indices_follow_acquire_and_release() {
        let mut c = cluster(&[8, 8, 4]);
        assert_eq!(c.best_fit(TypeFilter::Any, 3, &[]), Some(2));
        assert_eq!(c.whole_free(TypeFilter::Any), vec![0, 1, 2]);
        c.acquire(7, &whole(1, &[0, 1, 2, 3, 4, 5]));
        assert_eq!(c.free(1), 2);
        assert_eq!(c.best_fit(TypeFilter::Any, 2, &[]), Some(1));
        assert_eq!(c.most_free(TypeFilter::Any), Some(0));
        assert_eq!(c.whole_free(TypeFilter::Any), vec![0, 2]);
        assert_eq!(c.free_gpus(TypeFilter::Any), 14);
        assert_eq!(c.holders(8), &[(7, 1000)]);
        c.release(7, &whole(1, &[0, 1, 2, 3, 4, 5]));
        assert_eq!(c.free(1), 8);
        assert_eq!(c.free_gpus(TypeFilter::Any), 20);
        assert_eq!(c.allocated_milli(), 0);
    }

    #[test]
    fn partial_gpus_are_indexed_by_room() {
        let mut c = cluster(&[2]);
        c.acquire(
            1,
            &[Grant {
                machine: 0,
                gpu: 1,
                milli: 600,
            }],
        );
        assert_eq!(c.free(0), 1);
        assert_eq!(c.best_partial(TypeFilter::Any, 400), Some((0, 1)));
        assert_eq!(c.best_partial(TypeFilter::Any, 500), None);
        c.acquire(
            2,
            &[Grant {
                machine: 0,
                gpu: 1,
                milli: 400,
            }],
        );
        assert_eq!(c.best_partial(TypeFilter::Any, 1), None);
        assert_eq!(c.holders(1), &[(1, 600), (2, 400)]);
    }
}
