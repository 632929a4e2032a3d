//! A grant: what a job holds of one machine — a share of one of its GPUs,
//! and with an instance's first, the CPU and memory the instance asks.

/// One job's share of one GPU — and, on an instance's first grant, the CPU
/// and memory of the machine the instance holds; an instance without GPUs
/// holds them by a grant of no GPU (`Grant::NO_GPU`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Grant {
    /// The machine, by index in the cluster.
    pub machine: u32,
    /// The GPU, by index on its machine (`NO_GPU`: none).
    pub gpu: u16,
    /// The share, milli-GPUs (1000: the whole GPU; 0 with no GPU).
    pub milli: u16,
    /// CPU of the machine held with it, milli-cores.
    pub cpu_milli: u32,
    /// Memory of the machine held with it, MiB.
    pub mem_mib: u32,
}

impl Grant {
    /// The `gpu` of a grant that holds only CPU and memory.
    pub const NO_GPU: u16 = u16::MAX;

    /// Whether it holds a GPU (a share of one).
    pub fn has_gpu(&self) -> bool {
        self.gpu != Grant::NO_GPU
    }

    /// CPU and memory of machine `m` alone.
    pub fn host(m: u32, cpu_milli: u32, mem_mib: u32) -> Grant {
        Grant {
            machine: m,
            gpu: Grant::NO_GPU,
            milli: 0,
            cpu_milli,
            mem_mib,
        }
    }
}

/// CPU (milli-cores) and memory (MiB) of one machine: held, and what it
/// has (0: the trace does not say).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostUse {
    /// CPU held.
    pub cpu_used: u32,
    /// Memory held.
    pub mem_used: u32,
    /// CPU it has.
    pub cpu_cap: u32,
    /// Memory it has.
    pub mem_cap: u32,
}
