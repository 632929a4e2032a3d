//! The CPU and memory of each machine: what its grants hold, and whether
//! an instance's ask fits beside them.

use super::{ClusterState, Grant, HostUse, MachineState, TypeFilter};
use tracetui_model::{Unit, MILLI_PER_GPU};

/// A machine's CPU and memory, held and had.
pub(super) fn host_of(ms: &MachineState) -> HostUse {
    HostUse {
        cpu_used: ms.cpu_used,
        mem_used: ms.mem_used,
        cpu_cap: ms.cpu_cap,
        mem_cap: ms.mem_cap,
    }
}

impl ClusterState {
    /// CPU (milli-cores) and memory (MiB) held on machine `m`, and what it
    /// has (0: not said).
    pub fn host_use(&self, m: u32) -> HostUse {
        host_of(&self.machines[m as usize])
    }

    /// Whether machine `m` has `cpu_milli` CPU and `mem_mib` memory free (a
    /// capacity the trace does not say refuses nothing).
    pub(crate) fn host_fits(&self, m: u32, cpu_milli: u32, mem_mib: u32) -> bool {
        let ms = &self.machines[m as usize];
        let fits =
            |cap: u32, used: u32, ask: u32| cap == 0 || used as u64 + ask as u64 <= cap as u64;
        fits(ms.cpu_cap, ms.cpu_used, cpu_milli) && fits(ms.mem_cap, ms.mem_used, mem_mib)
    }

    /// Counts the CPU and memory `grants` hold on their machines: taken
    /// (`sign` 1) or given back (−1).
    pub(super) fn note_host(&mut self, grants: &[Grant], sign: i64) {
        for g in grants.iter().filter(|g| g.cpu_milli > 0 || g.mem_mib > 0) {
            let ms = &mut self.machines[g.machine as usize];
            let add = |used: u32, d: u32| {
                (used as i64 + sign * d as i64).clamp(0, u32::MAX as i64) as u32
            };
            ms.cpu_used = add(ms.cpu_used, g.cpu_milli);
            ms.mem_used = add(ms.mem_used, g.mem_mib);
        }
    }
}

/// Where on one machine an instance's GPUs go: its whole GPUs on idle ones,
/// its fraction on a partly used GPU with room (`share`) or one more idle.
struct Spot {
    machine: u32,
    share: Option<u16>,
    /// The machine's idle GPUs, and its CPU left after the instance.
    idle: u32,
    cpu_after: u64,
    /// Room left on the shared GPU before the instance.
    room: u32,
}

impl ClusterState {
    /// One instance of `u` — which asks CPU or memory — on one machine
    /// with its GPUs, CPU and memory all free, as `instance` places one
    /// (a fraction alone on the partly used GPU with the least room that
    /// fits; else the machine with the fewest idle GPUs that has them, or
    /// with `spread` the most), among the machines with the CPU and memory
    /// too; an instance without GPUs goes where the least CPU is left
    /// after it (`spread`: the most). Ties: machine order. Its first grant
    /// (or, without GPUs, a grant of none) holds the CPU and memory.
    pub(crate) fn instance_with_host(
        &self,
        spread: bool,
        u: &Unit,
        f: TypeFilter,
    ) -> Option<Vec<Grant>> {
        let best = match u.milli {
            // Without GPUs: every machine, CPU-only ones too.
            0 => self.scanned_spot(spread, u, f)?,
            _ => self.indexed_spot(spread, u, f)?,
        };
        let mut out = Vec::new();
        let whole = u.milli / MILLI_PER_GPU;
        let frac = (u.milli % MILLI_PER_GPU) as u16;
        match best.share {
            Some(gpu) => out.push(Grant {
                machine: best.machine,
                gpu,
                milli: frac,
                ..Grant::default()
            }),
            None => {
                self.grant_free_gpus(best.machine, whole + u32::from(frac > 0), &mut out);
                if let (true, Some(last)) = (frac > 0, out.last_mut()) {
                    last.milli = frac;
                }
            }
        }
        match out.first_mut() {
            Some(g) => (g.cpu_milli, g.mem_mib) = (u.cpu_milli, u.mem_mib),
            None => out.push(Grant::host(best.machine, u.cpu_milli, u.mem_mib)),
        }
        Some(out)
    }

    /// The best spot for `u` of every machine's (`rank` decides).
    fn scanned_spot(&self, spread: bool, u: &Unit, f: TypeFilter) -> Option<Spot> {
        (0..self.machines.len() as u32)
            .filter_map(|m| self.spot(m, u, f))
            .min_by_key(|s| rank(s, spread, u))
    }

    /// The same spot for an instance with GPUs as `scanned_spot` finds,
    /// through the free-GPU indexes: the partly used GPUs by room, then the
    /// machines by idle GPUs (fewest first, or with `spread` most), the
    /// first with the CPU and memory free at each step.
    fn indexed_spot(&self, spread: bool, u: &Unit, f: TypeFilter) -> Option<Spot> {
        let (whole, frac) = (u.milli / MILLI_PER_GPU, u.milli % MILLI_PER_GPU);
        if whole == 0 {
            let shared = self
                .allowed(f)
                .filter_map(|t| {
                    t.partial
                        .range((frac as u16, 0, 0)..)
                        .find(|&&(_, m, _)| self.host_fits(m, u.cpu_milli, u.mem_mib))
                })
                .min();
            if let Some(&(_, m, _)) = shared {
                return self.spot(m, u, f);
            }
        }
        let need = whole + u32::from(frac > 0);
        let mut levels: Vec<u32> = self
            .allowed(f)
            .flat_map(|t| t.levels_from(need.max(1)))
            .collect();
        levels.sort_unstable();
        levels.dedup();
        if spread {
            levels.reverse();
        }
        levels.into_iter().find_map(|free| {
            let m = self
                .allowed(f)
                .filter_map(|t| t.by_free.get(free as usize))
                .filter_map(|set| {
                    set.iter()
                        .find(|&m| self.host_fits(m, u.cpu_milli, u.mem_mib))
                })
                .min()?;
            self.spot(m, u, f)
        })
    }

    /// Where on machine `m` an instance of `u` would go, if it fits there.
    fn spot(&self, m: u32, u: &Unit, f: TypeFilter) -> Option<Spot> {
        let ms = &self.machines[m as usize];
        if !ms.indexed || !self.host_fits(m, u.cpu_milli, u.mem_mib) {
            return None;
        }
        let cpu_after = match ms.cpu_cap {
            0 => u64::MAX,
            cap => cap.saturating_sub(ms.cpu_used).saturating_sub(u.cpu_milli) as u64,
        };
        let mut s = Spot {
            machine: m,
            share: None,
            idle: ms.free,
            cpu_after,
            room: 0,
        };
        if u.milli == 0 {
            return Some(s);
        }
        if !f.allows(ms.gpu_type) {
            return None;
        }
        let (whole, frac) = (u.milli / 1000, u.milli % 1000);
        let used = &self.used[ms.first_gpu as usize..(ms.first_gpu + ms.gpus) as usize];
        if whole == 0 {
            let room = |x: u32| 1000u32.saturating_sub(x);
            s.share = (0..used.len())
                .filter(|&g| used[g] > 0 && room(used[g]) >= frac)
                .min_by_key(|&g| room(used[g]))
                .map(|g| g as u16);
            s.room = s.share.map_or(0, |g| room(used[g as usize]));
        }
        let idle_needed = whole + u32::from(frac > 0 && s.share.is_none());
        (ms.free >= idle_needed).then_some(s)
    }
}

/// The order spots are chosen in (least first).
fn rank(s: &Spot, spread: bool, u: &Unit) -> (u8, i64, u32) {
    let m = s.machine;
    if u.milli == 0 {
        let left = s.cpu_after.min(i64::MAX as u64) as i64;
        return (0, if spread { -left } else { left }, m);
    }
    match s.share {
        // A share on a partly used GPU first, the least room that fits.
        Some(_) => (0, s.room as i64, m),
        None if spread => (1, -(s.idle as i64), m),
        None => (1, s.idle as i64, m),
    }
}

#[cfg(test)]
mod tests {
    use crate::cluster::{ClusterState, Grant, TypeFilter};
    use crate::placement::{place, Placement};
    use tracetui_model::{Cluster, Demand, Machine, Unit};

    /// Machines of (GPUs, cores), 64 GiB each.
    fn hosts(machines: &[(u32, u32)]) -> ClusterState {
        let mut c = Cluster::uniform(0, 8, String::new());
        c.gpu_types = vec!["T".into()];
        for (i, &(gpus, cores)) in machines.iter().enumerate() {
            c.machines.push(Machine {
                name: format!("m{i}"),
                gpu_type: 0,
                gpus,
                cpu_milli: cores * 1000,
                mem_mib: 64 * 1024,
                recorded_only: false,
            });
        }
        ClusterState::new(&c)
    }

    /// Instances of (count, milli, cores, GiB).
    fn asking(units: &[(u32, u32, u32, u32)]) -> Demand {
        let units = units.iter().map(|&(count, milli, cores, gib)| Unit {
            count,
            milli,
            cpu_milli: cores * 1000,
            mem_mib: gib * 1024,
        });
        Demand::Instances(units.collect())
    }

    fn machines(g: &[Grant]) -> Vec<u32> {
        g.iter().map(|g| g.machine).collect()
    }

    #[test]
    fn an_instance_goes_only_where_its_cpu_and_memory_are_free() {
        // Both machines have two idle GPUs; m0 comes first among equals,
        // but after one 6-core instance it has 2 cores left.
        let mut s = hosts(&[(2, 8), (2, 32)]);
        let d = asking(&[(2, 1000, 6, 1)]);
        for rule in [Placement::Consolidate, Placement::Pack, Placement::Spread] {
            let g = place(&mut s, rule, &d, TypeFilter::Any).unwrap();
            assert_eq!(machines(&g), [0, 1], "{rule:?}");
            assert!(g.iter().all(|g| (g.cpu_milli, g.mem_mib) == (6000, 1024)));
        }
        // Memory binds as CPU does: 40 GiB twice on 64 GiB machines.
        let d = asking(&[(2, 500, 1, 40)]);
        let g = place(&mut s, Placement::Consolidate, &d, TypeFilter::Any).unwrap();
        assert_eq!(machines(&g), [0, 1]);
        // More CPU than any machine has: it never fits.
        let d = asking(&[(1, 1000, 33, 1)]);
        assert!(place(&mut s, Placement::Consolidate, &d, TypeFilter::Any).is_none());
    }

    #[test]
    fn an_instance_without_gpus_holds_cpu_on_any_machine_and_gives_it_back() {
        // m0 a CPU machine of 16 cores, m1 two GPUs and 32 cores.
        let mut s = hosts(&[(0, 16), (2, 32)]);
        let d = asking(&[(1, 0, 4, 2), (1, 1000, 8, 2)]);
        let g = place(&mut s, Placement::Consolidate, &d, TypeFilter::Any).unwrap();
        // The server where the least CPU is left after it: the CPU machine.
        let ps = g.iter().find(|g| !g.has_gpu()).unwrap();
        assert_eq!(
            (ps.machine, ps.cpu_milli, ps.mem_mib, ps.milli),
            (0, 4000, 2048, 0)
        );
        s.acquire(7, &g);
        assert_eq!(s.host_use(0).cpu_used, 4000);
        assert_eq!(s.host_use(1).cpu_used, 8000);
        assert_eq!(s.free_gpus(TypeFilter::Any), 1, "the server takes no GPU");
        // Under spread, the most CPU left: the GPU machine (24 of 32 free).
        let g2 = place(
            &mut s,
            Placement::Spread,
            &asking(&[(1, 0, 1, 1)]),
            TypeFilter::Any,
        );
        assert_eq!(machines(&g2.unwrap()), [1]);
        s.release(7, &g);
        for m in 0..2 {
            assert_eq!((s.host_use(m).cpu_used, s.host_use(m).mem_used), (0, 0));
        }
        assert_eq!(s.free_gpus(TypeFilter::Any), 2);
    }

    #[test]
    fn a_share_takes_the_tightest_gpu_among_machines_with_the_cpu() {
        // m0's GPU has 600 in use and 1 core left; a share asking 2 cores
        // goes to m1.
        let mut s = hosts(&[(1, 8), (1, 8)]);
        let first = place(
            &mut s,
            Placement::Consolidate,
            &asking(&[(1, 600, 7, 1)]),
            TypeFilter::Any,
        );
        s.acquire(1, &first.unwrap());
        let second = place(
            &mut s,
            Placement::Consolidate,
            &asking(&[(1, 300, 2, 1)]),
            TypeFilter::Any,
        );
        let second = second.unwrap();
        assert_eq!(machines(&second), [1]);
        s.acquire(2, &second);
        // A 300 share with 1 core fits on m0's GPU (400 room, 1 core left).
        let g = place(
            &mut s,
            Placement::Consolidate,
            &asking(&[(1, 300, 1, 1)]),
            TypeFilter::Any,
        );
        assert_eq!(g.unwrap()[0].machine, 0);
        // With 2 cores it goes beside the other share on m1.
        let g = place(
            &mut s,
            Placement::Consolidate,
            &asking(&[(1, 300, 2, 1)]),
            TypeFilter::Any,
        );
        assert_eq!(g.unwrap()[0].machine, 1);
    }

    #[test]
    fn the_indexes_find_the_spot_a_scan_of_every_machine_finds() {
        // Machines of 1–8 GPUs and 4–32 cores, two types; instances land
        // and leave at random; every query answered both ways.
        let sizes: Vec<(u32, u32)> = (0..24).map(|i| (1 + i % 8, 4 + (i * 7) % 29)).collect();
        let mut s = hosts(&sizes);
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut held: Vec<(u32, Vec<Grant>)> = Vec::new();
        let (mut placed, mut shared) = (0, 0);
        for step in 0..3000u32 {
            let r = next();
            let milli = [250, 500, 700, 1000, 1500, 2000, 4000][(r % 7) as usize];
            let u = Unit {
                count: 1,
                milli,
                cpu_milli: ((r >> 8) % 12) as u32 * 1000,
                mem_mib: ((r >> 16) % 20) as u32 * 1024,
            };
            for spread in [false, true] {
                let a = s.indexed_spot(spread, &u, TypeFilter::Any);
                let b = s.scanned_spot(spread, &u, TypeFilter::Any);
                let key = |p: &Option<super::Spot>| p.as_ref().map(|p| (p.machine, p.share));
                assert_eq!(key(&a), key(&b), "step {step}, spread {spread}: {u:?}");
                shared += usize::from(a.is_some_and(|a| a.share.is_some()));
            }
            if (r >> 24) % 3 > 0 {
                if let Some(g) = s.instance_with_host(false, &u, TypeFilter::Any) {
                    s.acquire(step, &g);
                    held.push((step, g));
                    placed += 1;
                }
            } else if !held.is_empty() {
                let (j, g) = held.swap_remove(((r >> 32) % held.len() as u64) as usize);
                s.release(j, &g);
            }
        }
        // Not vacuous: instances landed, beside others on shared GPUs.
        assert!(
            placed > 500 && shared > 100,
            "{placed} placed, {shared} shared"
        );
    }
}
