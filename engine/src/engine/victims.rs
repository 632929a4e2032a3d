//! Choosing victims: which running jobs a waiting job may preempt, and
//! freeing only as many of their GPUs as a placement needs.

use super::Engine;
use crate::cluster::Grant;
use crate::placement::place_asking;
use rustc_hash::FxHashMap;

/// Where preempting could make room for a one-machine gang.
enum Freed {
    /// On this machine, with the victims walked so far.
    On(u32),
    Never,
    Unsure,
}

impl Engine {
    /// Running jobs `job` may preempt, lowest priority first, found as
    /// they are asked for (a one-machine gang usually needs only the first few).
    fn victims(&self, job: u32, key: u64) -> Box<dyn Iterator<Item = u32> + '_> {
        let books = self.books();
        if !books.ranks_running() {
            return Box::new(books.victims(self, job).into_iter());
        }
        Box::new(self.pre.by_key.iter().rev().map_while(move |&(k, r)| {
            let v = self.shapes.arrival[r as usize];
            books.below(self, v, k, key).then_some(v)
        }))
    }

    /// Frees the GPUs of lower-priority jobs until `job` fits; the placement, or
    /// None (and nothing preempted) if no set of victims makes room.
    pub(super) fn preempt_for(&mut self, job: u32, class: u32, key: u64) -> Option<Vec<Grant>> {
        let (demand, filter) = self.shapes.shapes[class as usize].clone();
        let mut victims = Vec::new();
        if let tracetui_model::Demand::Gang { gpus } = demand {
            if gpus <= self.cluster.max_gpus(filter) {
                // It goes on one machine: walk the victims lowest first until
                // some machine's free GPUs plus those its victims so far hold
                // alone make `gpus`; only those victims there matter.
                let found = self.victims(job, key).inspect(|&v| victims.push(v));
                match self.first_machine_freed(found, gpus, filter) {
                    Freed::On(m) => {
                        victims.retain(|v| self.running[v].iter().any(|g| g.machine == m));
                    }
                    Freed::Never => return None,
                    Freed::Unsure => victims = self.victims(job, key).collect(),
                }
            } else {
                victims = self.victims(job, key).collect();
                // Not even every victim's GPUs plus the free ones would do.
                let theirs: u64 = victims.iter().map(|v| self.running[v].len() as u64).sum();
                if self.cluster.free_gpus(filter) + theirs < gpus as u64 {
                    return None;
                }
                // Whether the machines victims leave could hold it at all;
                // only victims on a machine of an allowed type matter.
                if !self.may_free_enough(&victims, gpus, filter) {
                    return None;
                }
                let c = &self.cluster;
                victims.retain(|v| {
                    self.running[v]
                        .iter()
                        .any(|g| filter.allows(c.machine_type(g.machine)))
                });
            }
        } else {
            victims = self.victims(job, key).collect();
        }
        if victims.is_empty() {
            return None;
        }
        let mut taken = Vec::new();
        for v in victims {
            let grants = self.running[&v].to_vec();
            self.cluster.release(v, &grants);
            taken.push(v);
            let asks = self.shapes.asks[class as usize];
            if let Some(g) = place_asking(&mut self.cluster, self.placement, &demand, filter, asks)
            {
                // Only the victims whose GPUs the placement uses lose them
                // (or whose CPU or memory, on a machine where it takes
                // some); the others get theirs back (they do not overlap it).
                let placed = Footprint::of(&g);
                for &v in &taken {
                    let hit = placed.overlaps(&self.running[&v]);
                    if hit {
                        self.preempt(v);
                    } else {
                        let grants = self.running[&v].to_vec();
                        self.cluster.acquire(v, &grants);
                    }
                }
                // Capacity moved: cached "does not fit" answers are stale.
                self.epoch += 1;
                return Some(g);
            }
        }
        for &v in taken.iter().rev() {
            let grants = self.running[&v].to_vec();
            self.cluster.acquire(v, &grants);
        }
        None
    }

    /// For a gang that fits one machine: the first machine whose free GPUs
    /// plus those held by `victims` alone (walked lowest first, and no
    /// further than that machine) make `gpus`. `Never` when no prefix does;
    /// `Unsure` when a shared (fractional) GPU makes the count unreliable.
    fn first_machine_freed(
        &self,
        victims: impl Iterator<Item = u32>,
        gpus: u32,
        filter: crate::cluster::TypeFilter,
    ) -> Freed {
        let c = &self.cluster;
        let mut per: FxHashMap<u32, u32> = FxHashMap::default();
        for v in victims {
            for g in self.running[&v].iter().filter(|g| g.has_gpu()) {
                if !filter.allows(c.machine_type(g.machine)) {
                    continue;
                }
                let flat = c.first_gpu(g.machine) + g.gpu as usize;
                if c.holders(flat).len() != 1 {
                    return Freed::Unsure;
                }
                let n = per.entry(g.machine).or_insert(0);
                *n += 1;
                if c.free(g.machine) + *n >= gpus {
                    return Freed::On(g.machine);
                }
            }
        }
        Freed::Never
    }

    /// For a gang larger than a machine: whether the machines that would be
    /// wholly free, plus the best remainder, could make `gpus` once some
    /// prefix of `victims` (lowest first) leaves (always, under `pack`, which
    /// may use any free GPUs). The bound only grows as victims are added, so
    /// it is checked after 1, 2, 4, … victims and the walk stops once it holds:
    /// the same answer as over all of them, without touching every victim's
    /// GPUs when the first few free enough.
    fn may_free_enough(
        &self,
        victims: &[u32],
        gpus: u32,
        filter: crate::cluster::TypeFilter,
    ) -> bool {
        if self.placement == crate::placement::Placement::Pack {
            return true;
        }
        let c = &self.cluster;
        // machine → GPUs that would be free once the victims so far leave.
        let mut per: FxHashMap<u32, u32> = FxHashMap::default();
        let mut shared: Vec<(u32, u16)> = Vec::new();
        let mut check_at = 1;
        for (i, v) in victims.iter().enumerate() {
            for g in self.running[v].iter().filter(|g| g.has_gpu()) {
                if !filter.allows(c.machine_type(g.machine)) {
                    continue;
                }
                let flat = c.first_gpu(g.machine) + g.gpu as usize;
                let n = per.entry(g.machine).or_insert(0);
                if c.holders(flat).len() == 1 {
                    *n += 1;
                } else {
                    shared.push((g.machine, g.gpu));
                }
            }
            if i + 1 == check_at || i + 1 == victims.len() {
                check_at *= 2;
                if self.bound_holds(&per, &shared, &victims[..=i], gpus, filter) {
                    return true;
                }
            }
        }
        false
    }

    /// Whole machines (free already, or freed by `victims`) and the largest
    /// other remainder make `gpus`. (All free GPUs bound the wholly free
    /// machines: a cheap upper bound.)
    fn bound_holds(
        &self,
        per: &FxHashMap<u32, u32>,
        shared: &[(u32, u16)],
        victims: &[u32],
        gpus: u32,
        filter: crate::cluster::TypeFilter,
    ) -> bool {
        let c = &self.cluster;
        let mut per = per.clone();
        if !shared.is_empty() {
            // A shared GPU frees only if every holder is a victim.
            let who: rustc_hash::FxHashSet<u32> = victims.iter().copied().collect();
            let mut shared = shared.to_vec();
            shared.sort_unstable();
            shared.dedup();
            for (m, g) in shared {
                let flat = c.first_gpu(m) + g as usize;
                if c.holders(flat).iter().all(|h| who.contains(&h.0)) {
                    *per.entry(m).or_insert(0) += 1;
                }
            }
        }
        let mut whole = c.free_gpus(filter);
        let mut best_part = 0u64;
        for (&m, &freed) in &per {
            let room = c.free(m) + freed;
            if room == c.cap(m) {
                whole += c.cap(m) as u64;
            } else {
                best_part = best_part.max(room as u64);
            }
        }
        whole + best_part >= gpus as u64
    }
}

/// What a placement takes: its GPUs, and the machines where it takes CPU
/// or memory.
struct Footprint {
    gpus: rustc_hash::FxHashSet<(u32, u16)>,
    hosts: rustc_hash::FxHashSet<u32>,
}

impl Footprint {
    fn of(placed: &[Grant]) -> Footprint {
        Footprint {
            gpus: placed
                .iter()
                .filter(|g| g.has_gpu())
                .map(|g| (g.machine, g.gpu))
                .collect(),
            hosts: placed
                .iter()
                .filter(|g| host(g))
                .map(|g| g.machine)
                .collect(),
        }
    }

    /// Whether `held` overlaps it: a GPU of both, or CPU or memory on a
    /// machine where it takes some.
    fn overlaps(&self, held: &[Grant]) -> bool {
        held.iter().any(|x| {
            (x.has_gpu() && self.gpus.contains(&(x.machine, x.gpu)))
                || (host(x) && self.hosts.contains(&x.machine))
        })
    }
}

/// Whether `g` holds CPU or memory of its machine.
fn host(g: &Grant) -> bool {
    g.cpu_milli > 0 || g.mem_mib > 0
}
