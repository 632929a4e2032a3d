//! FGD's fragmentation of a node: the free GPU milli that the typical pods,
//! weighed by their shares, could not use there.

use super::typical::Typical;
use tracetui_model::TypeId;

/// The fragmentation of a node of GPU model `model` with `cpu_left`
/// milli-cores free and `free` milli free on each GPU, in milli-GPUs.
///
/// For each typical pod (share p): where it fits (enough GPUs with room for
/// its milli, and CPU), the free milli of GPUs too full for it is
/// fragment; where it does not fit, or asks no GPU, or may not use the
/// model, all free milli is. Memory is not weighed (as in FGD).
pub fn node_frag(typical: &[Typical], model: TypeId, cpu_left: u32, free: &[u16]) -> f64 {
    let total: u32 = free.iter().map(|&l| l as u32).sum();
    if total == 0 {
        return 0.0;
    }
    let mut f = 0.0;
    for t in typical {
        let stranded = if t.milli == 0 || !t.allows(model) {
            total
        } else {
            let (mut fit, mut short) = (0u32, 0u32);
            for &l in free {
                if l as u32 >= t.milli {
                    fit += 1;
                } else {
                    short += l as u32;
                }
            }
            if fit >= t.gpus && cpu_left >= t.cpu_milli {
                short
            } else {
                total
            }
        };
        f += t.p * stranded as f64;
    }
    f
}

/// A cluster's fragmentation at one moment, in milli-GPUs.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Fragmentation {
    /// Free GPU milli the typical pods could not use.
    pub frag_milli: f64,
    /// Free GPU milli.
    pub free_milli: u64,
    /// Every GPU's milli.
    pub capacity_milli: u64,
}

impl Fragmentation {
    /// Fragmentation in % of the cluster's GPUs (FGD's "frag amount").
    pub fn percent(&self) -> f64 {
        100.0 * self.frag_milli / self.capacity_milli.max(1) as f64
    }

    /// Fragmentation in % of the free GPU milli (FGD's "frag ratio").
    pub fn of_free(&self) -> f64 {
        100.0 * self.frag_milli / self.free_milli.max(1) as f64
    }

    /// Whole GPUs' worth of free milli nobody holds ("unallocated GPUs").
    pub fn free_gpus(&self) -> f64 {
        self.free_milli as f64 / 1000.0
    }
}
