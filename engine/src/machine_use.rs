//! Machines by how much of them is in use — idle, partly used, full — the
//! count an operator asks for first. One definition, used by the replay's
//! `:idle`, the rankings and `stats --at`.
//!
//! No trace tracetui reads records a machine going down, so there is no
//! "down" state yet; a machine known only from a record (never offered to
//! placement) is counted by what is on it, like any other.

use crate::cluster::ClusterState;
use tracetui_model::MILLI_PER_GPU;

/// How much of a machine with GPUs is in use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MachineUse {
    /// Nothing on any of its GPUs.
    Idle,
    /// Something on some GPU, but not every GPU wholly used.
    Partly,
    /// Every GPU wholly used (a recorded replay may overfill one).
    Full,
}

impl MachineUse {
    /// All of them, in order.
    pub const ALL: [MachineUse; 3] = [MachineUse::Idle, MachineUse::Partly, MachineUse::Full];

    /// The word shown and typed (`:idle`, `state=partly`).
    pub fn word(self) -> &'static str {
        match self {
            MachineUse::Idle => "idle",
            MachineUse::Partly => "partly",
            MachineUse::Full => "full",
        }
    }

    /// The state a word names: its word, or `busy` / `partly-used` for partly.
    pub fn parse(s: &str) -> Option<MachineUse> {
        match s.to_ascii_lowercase().as_str() {
            "idle" | "free" => Some(MachineUse::Idle),
            "partly" | "partly-used" | "partial" | "busy" => Some(MachineUse::Partly),
            "full" => Some(MachineUse::Full),
            _ => None,
        }
    }

    /// A machine's state from the milli-GPUs used on it and its GPUs.
    pub fn of(used_milli: u64, gpus: u32) -> MachineUse {
        match used_milli {
            0 => MachineUse::Idle,
            u if u < gpus as u64 * MILLI_PER_GPU as u64 => MachineUse::Partly,
            _ => MachineUse::Full,
        }
    }
}

/// How many machines with GPUs are in each state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MachineUses {
    /// Nothing on them.
    pub idle: usize,
    /// Something on them, not all.
    pub partly: usize,
    /// Every GPU wholly used.
    pub full: usize,
}

impl MachineUses {
    /// Machines counted (those with GPUs).
    pub fn total(&self) -> usize {
        self.idle + self.partly + self.full
    }

    /// The count in state `u`.
    pub fn of(&self, u: MachineUse) -> usize {
        match u {
            MachineUse::Idle => self.idle,
            MachineUse::Partly => self.partly,
            MachineUse::Full => self.full,
        }
    }
}

impl ClusterState {
    /// Milli-GPUs used on machine `m`, its GPUs' shares summed.
    pub fn machine_used_milli(&self, m: u32) -> u64 {
        let first = self.first_gpu(m);
        (first..first + self.cap(m) as usize)
            .map(|g| self.used_milli(g) as u64)
            .sum()
    }

    /// The state of machine `m` (None: it has no GPUs).
    pub fn machine_use(&self, m: u32) -> Option<MachineUse> {
        let gpus = self.cap(m);
        (gpus > 0).then(|| MachineUse::of(self.machine_used_milli(m), gpus))
    }

    /// Machines with GPUs by state.
    pub fn machine_uses(&self) -> MachineUses {
        let mut n = MachineUses::default();
        for m in 0..self.machine_count() as u32 {
            match self.machine_use(m) {
                Some(MachineUse::Idle) => n.idle += 1,
                Some(MachineUse::Partly) => n.partly += 1,
                Some(MachineUse::Full) => n.full += 1,
                None => {}
            }
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_machine_is_idle_partly_or_full_by_its_milli_gpus() {
        assert_eq!(MachineUse::of(0, 8), MachineUse::Idle);
        assert_eq!(MachineUse::of(1, 8), MachineUse::Partly);
        assert_eq!(MachineUse::of(7_999, 8), MachineUse::Partly);
        assert_eq!(MachineUse::of(8_000, 8), MachineUse::Full);
        assert_eq!(MachineUse::of(9_000, 8), MachineUse::Full);
        for u in MachineUse::ALL {
            assert_eq!(MachineUse::parse(u.word()), Some(u));
        }
        assert_eq!(MachineUse::parse("BUSY"), Some(MachineUse::Partly));
        assert_eq!(MachineUse::parse("down"), None);
    }
}
