//! What the rankings table ranks, and its columns (a leaf: the popup's
//! state names it without the app).

/// What the table ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RankBy {
    Users,
    Groups,
    Machines,
    /// Only the machines in one state (`:idle`, `:full`, `:partly`).
    MachinesIn(crate::sim::MachineUse),
}

impl RankBy {
    pub(crate) fn name(self) -> &'static str {
        match self {
            RankBy::Users => "users",
            RankBy::Groups => "groups",
            RankBy::Machines => "machines",
            RankBy::MachinesIn(u) => match u {
                crate::sim::MachineUse::Idle => "idle machines",
                crate::sim::MachineUse::Partly => "partly used machines",
                crate::sim::MachineUse::Full => "full machines",
            },
        }
    }

    /// Whether it ranks machines (all, or those in one state).
    pub(crate) fn machines(self) -> bool {
        matches!(self, RankBy::Machines | RankBy::MachinesIn(_))
    }

    /// The one state its machines are in, if it picks one.
    pub(crate) fn only(self) -> Option<crate::sim::MachineUse> {
        match self {
            RankBy::MachinesIn(u) => Some(u),
            _ => None,
        }
    }

    pub(crate) fn next(self, back: bool) -> RankBy {
        // Machines in one state: ←→ go through the states.
        if let RankBy::MachinesIn(u) = self {
            use crate::sim::MachineUse as U;
            const STATES: [U; 3] = [U::Idle, U::Partly, U::Full];
            let i = STATES.iter().position(|&s| s == u).unwrap_or(0);
            return RankBy::MachinesIn(STATES[(i + if back { 2 } else { 1 }) % 3]);
        }
        const ALL: [RankBy; 3] = [RankBy::Users, RankBy::Groups, RankBy::Machines];
        let here = if self.machines() {
            RankBy::Machines
        } else {
            self
        };
        let i = ALL.iter().position(|&b| b == here).unwrap_or(0);
        ALL[(i + if back { 2 } else { 1 }) % 3]
    }

    /// The columns after the name: GPUs held, their share of the cluster,
    /// jobs running and queued, GPUs the queued ask for; a machine's GPU
    /// type, GPUs in use and in all, jobs on it, measured utilisation.
    /// The column a sort index sorts by, and whether the other way round
    /// (indexes past the last column: smallest first).
    pub(crate) fn sort_of(self, sort: usize) -> (usize, bool) {
        let n = self.columns().len();
        (sort % n, sort >= n)
    }

    pub fn columns(self) -> &'static [&'static str] {
        match self {
            RankBy::Users | RankBy::Groups => &["GPUs", "share", "running", "queued", "asking"],
            RankBy::Machines | RankBy::MachinesIn(_) => &["type", "used", "GPUs", "jobs", "util %"],
        }
    }
}
