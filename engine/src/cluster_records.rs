//! Placing what a record says: a job's GPUs on the machine its record
//! names, kept even when the record overflows the machine.

use super::{ClusterState, Grant};
use tracetui_model::MILLI_PER_GPU;

impl ClusterState {
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
                ..Grant::default()
            });
        }
        let frac = milli % MILLI_PER_GPU;
        if frac > 0 {
            let gpu = pick(frac, &mut taken);
            grants.push(Grant {
                machine: m,
                gpu,
                milli: frac as u16,
                ..Grant::default()
            });
        }
        grants.sort_unstable();
        (grants, over)
    }
}
