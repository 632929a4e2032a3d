//! Which job holds which GPU, and indices over free capacity that make
//! placement queries logarithmic instead of a scan of every machine.

use super::free_index::TypeIndex;
use super::holders::Holders;
use super::summed_bits::SummedBits;
use std::cmp::Reverse;
use tracetui_model::{Cluster, TypeId, MILLI_PER_GPU};

pub use super::grant::{Grant, HostUse};
use super::type_filter::Allowed;
pub use super::type_filter::TypeFilter;

#[derive(Debug, Clone)]
struct MachineState {
    first_gpu: u32,
    gpus: u32,
    gpu_type: TypeId,
    /// GPUs with nothing on them.
    free: u32,
    /// Offered to placement (machines known only from a record are not).
    indexed: bool,
    /// CPU (milli-cores) and memory (MiB) it has; 0: the trace does not
    /// say, and nothing is refused for want of it.
    cpu_cap: u32,
    mem_cap: u32,
    /// CPU and memory held on it by grants.
    cpu_used: u32,
    mem_used: u32,
}

/// The live occupancy of every GPU.
#[derive(Debug, Clone)]
pub struct ClusterState {
    machines: Vec<MachineState>,
    /// Milli-GPUs in use per GPU (may exceed 1000 when a recorded replay overflows).
    used: Vec<u32>,
    /// Every holder of each GPU and its share.
    holders: Holders,
    /// Bit `g` set while GPU `g` has nothing on it: a machine's lowest free
    /// GPUs without a scan of all of them (1,024 on a single big node).
    free_bits: SummedBits,
    types: Vec<TypeIndex>,
    allocated_milli: u64,
    /// What the sharing placements' ledger is built from (the engine's trace).
    inputs: Option<std::sync::Arc<super::ledger::Inputs>>,
    /// The machines as the sharing placements read them, from the first
    /// time one runs.
    ledger: Option<Box<super::ledger::Ledger>>,
    /// How the last sharing placement ranked the machines.
    ranking: Option<Box<super::sharing::Ranking>>,
}

impl ClusterState {
    /// `cluster` with every GPU free; machines known only from a record
    /// are kept but never offered to placement.
    pub fn new(cluster: &Cluster) -> ClusterState {
        let ntypes = cluster.gpu_types.len().max(1);
        let mut types = vec![TypeIndex::default(); ntypes];
        let mut machines = Vec::with_capacity(cluster.machines.len());
        let mut first = 0u32;
        for (i, m) in cluster.machines.iter().enumerate() {
            let t = &mut types[m.gpu_type as usize];
            let indexed = !m.recorded_only;
            if indexed {
                t.fit(m.gpus);
                if m.gpus > 0 {
                    t.add(m.gpus, i as u32);
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
                cpu_cap: m.cpu_milli,
                mem_cap: m.mem_mib,
                cpu_used: 0,
                mem_used: 0,
            });
            first += m.gpus;
        }
        ClusterState {
            machines,
            used: vec![0; first as usize],
            holders: Holders::new(first as usize),
            free_bits: SummedBits::new(first as usize, true),
            types,
            allocated_milli: 0,
            inputs: None,
            ledger: None,
            ranking: None,
        }
    }

    /// The same, able to keep the sharing placements' ledger of `inputs`'
    /// jobs.
    pub(crate) fn with_inputs(mut self, inputs: std::sync::Arc<super::ledger::Inputs>) -> Self {
        self.inputs = Some(inputs);
        self
    }

    /// Bytes held: per-GPU use and holders, per-machine state, the indexes.
    pub fn held_bytes(&self) -> usize {
        let holders = self.holders.held_bytes();
        let index: usize = self.types.iter().map(|t| t.held_bytes()).sum();
        self.machines.capacity() * std::mem::size_of::<MachineState>()
            + self.used.capacity() * 4
            + holders
            + self.free_bits.capacity_bytes()
            + index
    }

    pub(crate) fn machine_count(&self) -> usize {
        self.machines.len()
    }

    /// GPUs on every machine (recorded-only ones too): the size of the
    /// flat GPU numbering.
    pub fn gpu_count(&self) -> usize {
        self.used.len()
    }

    /// GPUs machine `m` has.
    pub fn cap(&self, m: u32) -> u32 {
        self.machines[m as usize].gpus
    }

    /// GPUs of machine `m` with nothing on them.
    pub fn free(&self, m: u32) -> u32 {
        self.machines[m as usize].free
    }

    pub(crate) fn machine_type(&self, m: u32) -> TypeId {
        self.machines[m as usize].gpu_type
    }

    /// The first GPU of machine `m` in the flat GPU numbering.
    pub fn first_gpu(&self, m: u32) -> usize {
        self.machines[m as usize].first_gpu as usize
    }

    /// Milli-GPUs in use on GPU `flat_gpu` (flat numbering); over 1000 when
    /// a recorded replay overflows it.
    pub fn used_milli(&self, flat_gpu: usize) -> u32 {
        self.used[flat_gpu]
    }

    /// Every job holding GPU `flat_gpu`, with its share in milli-GPUs.
    pub fn holders(&self, flat_gpu: usize) -> &[(u32, u16)] {
        self.holders.of(flat_gpu)
    }

    /// Milli-GPUs held on the whole cluster, every job's shares summed.
    pub fn allocated_milli(&self) -> u64 {
        self.allocated_milli
    }

    /// The indexes of the GPU types `f` allows.
    fn allowed(&self, f: TypeFilter) -> Allowed<'_, TypeIndex> {
        match f {
            TypeFilter::Any => Allowed::All(self.types.iter()),
            TypeFilter::Only(t) => Allowed::All(
                self.types
                    .get(t as usize)
                    .map_or(&[][..], std::slice::from_ref)
                    .iter(),
            ),
            TypeFilter::Among(m) => Allowed::Bits(self.types.iter().enumerate(), m),
        }
    }

    pub(crate) fn max_gpus(&self, f: TypeFilter) -> u32 {
        self.allowed(f).map(|t| t.max_gpus).max().unwrap_or(0)
    }

    /// GPUs of the types `f` allows, on machines offered to placement.
    pub fn total_gpus(&self, f: TypeFilter) -> u64 {
        self.allowed(f).map(|t| t.total_gpus).sum()
    }

    /// GPUs with nothing on them of the types `f` allows, on machines
    /// offered to placement.
    pub fn free_gpus(&self, f: TypeFilter) -> u64 {
        self.allowed(f).map(|t| t.free_gpus).sum()
    }

    /// The machine with the fewest free GPUs that still has `k` (ties: machine
    /// order), skipping `skip`.
    pub(crate) fn best_fit(&self, f: TypeFilter, k: u32, skip: &[u32]) -> Option<u32> {
        // Per type, its fewest free count from `k` with a machine not
        // skipped; then the fewest over types, ties by machine order.
        let mut best: Option<(u32, u32)> = None;
        if skip.is_empty() {
            // Every count a type has holds a machine: its first from `k`.
            for t in self.allowed(f) {
                let Some(free) = t.first_level_from(k.max(1)) else {
                    continue;
                };
                if let Some(m) = t.by_free[free as usize].lowest() {
                    if best.is_none_or(|b| (free, m) < b) {
                        best = Some((free, m));
                    }
                }
            }
            return best.map(|(_, m)| m);
        }
        for t in self.allowed(f) {
            for free in t.levels_from(k.max(1)) {
                if best.is_some_and(|(b, _)| free > b) {
                    break;
                }
                let set = &t.by_free[free as usize];
                let m = if skip.is_empty() {
                    set.lowest()
                } else {
                    set.iter().find(|m| !skip.contains(m))
                };
                if let Some(m) = m {
                    if best.is_none_or(|b| (free, m) < b) {
                        best = Some((free, m));
                    }
                    break;
                }
            }
        }
        best.map(|(_, m)| m)
    }

    /// The machine with the most free GPUs (ties: machine order).
    pub(crate) fn most_free(&self, f: TypeFilter) -> Option<u32> {
        self.allowed(f)
            .filter_map(|t| {
                let free = t.levels_from(1).last()?;
                Some((Reverse(free), t.by_free[free as usize].lowest()?))
            })
            .min()
            .map(|(_, m)| m)
    }

    /// Entirely free machines, largest first, then by machine order
    /// (lazily: a caller that needs two reads two).
    pub(crate) fn whole_free(&self, f: TypeFilter) -> impl Iterator<Item = u32> + '_ {
        let mut sizes: Vec<u32> = self
            .allowed(f)
            .flat_map(|t| t.sizes.iter().copied())
            .collect();
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        sizes.dedup();
        sizes.into_iter().flat_map(move |g| {
            // A whole machine of g GPUs is one with g free; each type's
            // are in order, so merge them.
            let mut heads: Vec<_> = self
                .allowed(f)
                .filter_map(|t| t.by_free.get(g as usize))
                .map(|s| {
                    s.iter()
                        .filter(move |&m| self.machines[m as usize].gpus == g)
                        .peekable()
                })
                .collect();
            std::iter::from_fn(move || {
                let (_, i) = (0..heads.len())
                    .filter_map(|i| heads[i].peek().map(|&m| (m, i)))
                    .min()?;
                heads[i].next()
            })
        })
    }

    /// Machines with free GPUs, fullest (fewest free) first, then by order.
    pub(crate) fn fullest_first(&self, f: TypeFilter) -> impl Iterator<Item = u32> + '_ {
        let mut levels: Vec<u32> = self.allowed(f).flat_map(|t| t.levels_from(1)).collect();
        levels.sort_unstable();
        levels.dedup();
        levels.into_iter().flat_map(move |free| {
            let mut ms: Vec<u32> = self
                .allowed(f)
                .filter_map(|t| t.by_free.get(free as usize))
                .flat_map(|s| s.iter())
                .collect();
            ms.sort_unstable();
            ms
        })
    }

    /// The partly used GPU with the least room that still has `milli`
    /// (ties: machine, then GPU order).
    pub(crate) fn best_partial(&self, f: TypeFilter, milli: u16) -> Option<(u32, u16)> {
        self.allowed(f)
            .filter_map(|t| t.partial.range((milli, 0, 0)..).next())
            .min()
            .map(|&(_, m, g)| (m, g))
    }

    /// Whole grants of the lowest-numbered free GPUs of machine `m`, `k`
    /// of them, added to `out`.
    /// The lowest-numbered free GPUs of machine `m`, `k` of them.
    #[cfg(test)]
    pub(crate) fn free_gpus_of(&self, m: u32, k: u32) -> Vec<u16> {
        let mut out = Vec::new();
        self.each_free_gpu(m, k, |g| out.push(g));
        out
    }

    pub(crate) fn grant_free_gpus(&self, m: u32, k: u32, out: &mut Vec<Grant>) {
        out.reserve(k as usize);
        self.each_free_gpu(m, k, |gpu| {
            out.push(Grant {
                machine: m,
                gpu,
                milli: MILLI_PER_GPU as u16,
                ..Grant::default()
            })
        });
    }

    fn each_free_gpu(&self, m: u32, k: u32, mut each: impl FnMut(u16)) {
        let ms = &self.machines[m as usize];
        let (base, end) = (ms.first_gpu as usize, (ms.first_gpu + ms.gpus) as usize);
        let mut left = k as usize;
        let mut g = base;
        while g < end && left > 0 {
            let span = (64 - g % 64).min(end - g);
            let mut bits = self.free_bits.word(g / 64) >> (g % 64);
            if span < 64 {
                bits &= (1u64 << span) - 1;
            }
            if bits == 0 && end - g > span {
                // Nothing free here: the next word with a free GPU through
                // the summary, past the busy words of a 1,024-GPU machine.
                match self.free_bits.next_word_from(g / 64 + 1) {
                    Some(w) if w * 64 < end => g = w * 64,
                    _ => return,
                }
                continue;
            }
            while bits != 0 && left > 0 {
                each((g + bits.trailing_zeros() as usize - base) as u16);
                left -= 1;
                bits &= bits - 1;
            }
            g += span;
        }
    }

    fn unindex(&mut self, m: u32) {
        let ms = &self.machines[m as usize];
        if !ms.indexed {
            return;
        }
        let t = &mut self.types[ms.gpu_type as usize];
        if ms.free > 0 {
            t.remove(ms.free, m);
        }
        t.free_gpus -= ms.free as u64;
    }

    /// Puts machine `m` back into the indexes, with its `free` count (kept
    /// up to date by `change`, so a 1,024-GPU machine is not recounted).
    fn reindex(&mut self, m: u32) {
        let ms = &self.machines[m as usize];
        if !ms.indexed {
            return;
        }
        let t = &mut self.types[ms.gpu_type as usize];
        if ms.free > 0 {
            t.add(ms.free, m);
        }
        t.free_gpus += ms.free as u64;
    }

    /// Gives `grants` to `job`.
    pub fn acquire(&mut self, job: u32, grants: &[Grant]) {
        self.note_host(grants, 1);
        self.each_machine(grants, |state, g, flat| {
            let before = state.used[flat];
            state.used[flat] = before + g.milli as u32;
            // Holders stay sorted by job, so the order never depends on history.
            state.holders.add(flat, job, g.milli);
            state.allocated_milli += g.milli as u64;
            before
        });
        self.note_ledger(job, grants, 1);
    }

    /// Takes `grants` back from `job`.
    pub fn release(&mut self, job: u32, grants: &[Grant]) {
        self.note_host(grants, -1);
        self.each_machine(grants, |state, g, flat| {
            let before = state.used[flat];
            state.used[flat] = before - g.milli as u32;
            state.holders.remove(flat, job, g.milli);
            state.allocated_milli -= g.milli as u64;
            before
        });
        self.note_ledger(job, grants, -1);
    }

    /// Applies `f` to each grant of a GPU (it returns the GPU's use
    /// before), with each machine out of the indexes while its grants
    /// change, and keeps free counts, free bits and the partly used GPUs up
    /// to date.
    #[inline(always)]
    fn each_machine(
        &mut self,
        grants: &[Grant],
        mut f: impl FnMut(&mut Self, &Grant, usize) -> u32,
    ) {
        let mut i = 0;
        while i < grants.len() {
            let m = grants[i].machine;
            self.unindex(m);
            let first = self.machines[m as usize].first_gpu as usize;
            while i < grants.len() && grants[i].machine == m {
                let g = &grants[i];
                i += 1;
                if !g.has_gpu() {
                    continue;
                }
                let flat = first + g.gpu as usize;
                let before = f(self, g, flat);
                self.note_use(m, g.gpu, flat, before);
            }
            self.reindex(m);
        }
    }

    /// GPU `gpu` of machine `m` (flat `flat`) went from `before` milli in
    /// use to what `used` says now.
    #[inline(always)]
    fn note_use(&mut self, m: u32, gpu: u16, flat: usize, before: u32) {
        let after = self.used[flat];
        if partly_used(before) || partly_used(after) {
            self.note_partial(m, gpu, before, after);
        }
        match (before == 0, after == 0) {
            (true, false) => {
                self.machines[m as usize].free -= 1;
                self.free_bits.clear(flat);
            }
            (false, true) => {
                self.machines[m as usize].free += 1;
                self.free_bits.set(flat);
            }
            _ => {}
        }
    }

    /// Moves GPU `gpu` of machine `m` in the partly used index from its
    /// `before` use to its `after` use (either may be whole or none).
    #[inline(never)]
    fn note_partial(&mut self, m: u32, gpu: u16, before: u32, after: u32) {
        let ms = &self.machines[m as usize];
        if !ms.indexed {
            return;
        }
        let t = &mut self.types[ms.gpu_type as usize];
        let key = |u: u32| ((MILLI_PER_GPU - u) as u16, m, gpu);
        if partly_used(before) {
            t.partial.remove(&key(before));
        }
        if partly_used(after) {
            t.partial.insert(key(after));
        }
    }
}

/// Whether a GPU with `milli` in use is partly used (some room, not none).
#[inline(always)]
fn partly_used(milli: u32) -> bool {
    milli > 0 && milli < MILLI_PER_GPU
}

#[path = "cluster_records.rs"]
mod records;

#[path = "cluster_host.rs"]
mod host;

#[path = "cluster_sharing.rs"]
mod sharing;
pub(crate) use sharing::How;

#[cfg(test)]
#[path = "cluster_tests.rs"]
mod tests;
