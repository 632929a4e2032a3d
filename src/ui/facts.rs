//! What the replay knows of its trace from the start and never changes:
//! the first submission, how job ids read, whether deadlines matter, and
//! the machines with GPUs in the grid's order.

use crate::trace::{Secs, Trace};
use std::ops::Range;

/// The trace's facts, fixed at start.
pub(super) struct Facts {
    /// The trace's first submission (cached: the trace does not keep it).
    first: Secs,
    /// Its last submission.
    last: Secs,
    /// Whether the trace's job ids share a prefix (Philly's
    /// `application_15…`): lists then cut them from the left.
    ids_share_prefix: bool,
    /// Whether some job has a deadline (the split then counts them).
    has_deadlines: bool,
    /// Machines with GPUs in display order: grouped by GPU type.
    machines: Vec<u32>,
    /// (GPU type, range of `machines`)
    groups: Vec<(u16, Range<usize>)>,
    /// The users and groups the trace names, each sorted (for `:`'s
    /// completion): found when first asked, not at every start.
    owners: [std::sync::OnceLock<Vec<String>>; 2],
}

impl Facts {
    /// The facts of `trace`, its machines in display order.
    pub(super) fn of(trace: &Trace) -> Facts {
        let mut machines = Vec::new();
        let mut groups = Vec::new();
        for ty in 0..trace.cluster.gpu_types.len() as u16 {
            let start = machines.len();
            machines.extend(
                trace
                    .cluster
                    .machines
                    .iter()
                    .enumerate()
                    .filter(|(_, m)| m.gpu_type == ty && m.gpus > 0)
                    .map(|(i, _)| i as u32),
            );
            if machines.len() > start {
                groups.push((ty, start..machines.len()));
            }
        }
        Facts {
            first: trace.first_submit().unwrap_or(0),
            last: trace.last_submit().unwrap_or(0),
            ids_share_prefix: shared_prefix(trace.jobs.iter().map(|j| j.id.as_str())) >= 4,
            has_deadlines: trace.jobs.iter().any(|j| j.deadline.get().is_some()),
            machines,
            groups,
            owners: Default::default(),
        }
    }

    /// The users (`groups`: the groups) the trace names, sorted.
    pub(super) fn owners(&self, trace: &Trace, groups: bool) -> &[String] {
        self.owners[usize::from(groups)].get_or_init(|| match groups {
            false => owners(trace, |j| j.user),
            true => owners(trace, |j| j.group),
        })
    }

    /// The trace's first submission (0 with no jobs).
    pub(super) fn first(&self) -> Secs {
        self.first
    }

    /// The trace's last submission (0 with no jobs).
    pub(super) fn last_submit(&self) -> Secs {
        self.last
    }

    /// Whether the job ids share a prefix of four characters or more.
    pub(super) fn ids_share_prefix(&self) -> bool {
        self.ids_share_prefix
    }

    /// Whether some job has a deadline.
    pub(super) fn has_deadlines(&self) -> bool {
        self.has_deadlines
    }

    /// Machines with GPUs in display order (grouped by GPU type).
    pub(super) fn machines(&self) -> &[u32] {
        &self.machines
    }

    /// The machine at place `pos` of the grid's order.
    pub(super) fn machine(&self, pos: usize) -> Option<u32> {
        self.machines.get(pos).copied()
    }

    /// Where machine `m` is in the grid's order (None: it has no GPUs).
    pub(super) fn place_of(&self, m: u32) -> Option<usize> {
        self.machines.iter().position(|&x| x == m)
    }

    /// The grid's groups: (GPU type, range of `machines`).
    pub(super) fn groups(&self) -> &[(u16, Range<usize>)] {
        &self.groups
    }
}

/// The length (in characters) of the prefix every id shares.
fn shared_prefix<'a>(mut ids: impl Iterator<Item = &'a str>) -> usize {
    let Some(first) = ids.next() else { return 0 };
    let mut n = first.chars().count();
    for id in ids {
        n = first
            .chars()
            .zip(id.chars())
            .take(n)
            .take_while(|(a, b)| a == b)
            .count();
        if n == 0 {
            break;
        }
    }
    n
}

/// The names `of` gives the trace's jobs, each once, sorted.
fn owners(
    trace: &Trace,
    of: impl Fn(&crate::trace::Job) -> Option<crate::trace::Sym>,
) -> Vec<String> {
    let mut syms: Vec<crate::trace::Sym> = trace.jobs.iter().filter_map(of).collect();
    syms.sort_unstable();
    syms.dedup();
    let mut names: Vec<String> = syms
        .into_iter()
        .map(|s| trace.symbols.get(s).to_string())
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}
