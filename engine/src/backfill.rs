//! EASY backfilling's reservation for the head of the queue.
//!
//! The head gets a reservation at the earliest time it fits, found by
//! releasing running jobs in order of their (oracle) end times. A later job
//! may start now if it ends by then, or if it leaves the head's planned GPUs
//! free at that time. Only machines in the head's plan can be in the way:
//! capacity elsewhere is not needed by the head.

use super::cluster::{ClusterState, Grant, TypeFilter};
use super::placement::Placement;
use std::collections::BTreeSet;
use tracetui_model::{Demand, Secs};

#[derive(Debug, Clone)]
pub(crate) struct Reservation {
    pub head: u32,
    /// When the head will start; `Secs::MAX` when it cannot be foreseen
    /// (it needs GPUs held by jobs with no known end), which reserves nothing.
    pub shadow: Secs,
    /// Per machine of the head's plan: whole GPUs free at the shadow time
    /// beyond what the head takes.
    avail: Vec<(u32, u32)>,
}

/// Whole GPUs `grants` would take from the free pool, per machine.
fn whole_use(grants: &[Grant], cluster: &ClusterState) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for g in grants.iter().filter(|g| g.has_gpu()) {
        let flat = cluster.first_gpu(g.machine) + g.gpu as usize;
        if cluster.used_milli(flat) == 0 {
            match out.last_mut() {
                Some((m, n)) if *m == g.machine => *n += 1,
                _ => out.push((g.machine, 1)),
            }
        }
    }
    out
}

impl Reservation {
    /// The machines of the head's plan.
    pub(crate) fn machines(&self) -> impl Iterator<Item = u32> + '_ {
        self.avail.iter().map(|a| a.0)
    }

    pub(crate) fn compute(
        head: u32,
        demand: &Demand,
        (filter, asks): (TypeFilter, crate::shape_classes::Asks),
        rule: Placement,
        cluster: &mut ClusterState,
        completions: &BTreeSet<(Secs, u32)>,
        running: &crate::running::Running,
    ) -> Reservation {
        let mut released: Vec<u32> = Vec::new();
        let mut found = None;
        let mut it = completions.iter().peekable();
        while let Some(&&(t, _)) = it.peek() {
            while let Some(&&(t2, job)) = it.peek() {
                if t2 != t {
                    break;
                }
                it.next();
                if let Some(g) = running.get(&job) {
                    cluster.release(job, g);
                    released.push(job);
                }
            }
            if let Some(plan) = crate::placement::place_asking(cluster, rule, demand, filter, asks)
            {
                let avail = whole_use(&plan, cluster)
                    .into_iter()
                    .map(|(m, n)| (m, cluster.free(m).saturating_sub(n)))
                    .collect();
                found = Some((t, avail));
                break;
            }
        }
        for job in released.iter().rev() {
            cluster.acquire(*job, &running[job]);
        }
        match found {
            Some((shadow, avail)) => Reservation {
                head,
                shadow,
                avail,
            },
            None => Reservation {
                head,
                shadow: Secs::MAX,
                avail: Vec::new(),
            },
        }
    }

    /// Whether a job given `grants` now and still running at the shadow time
    /// leaves the head's plan intact.
    pub(crate) fn admits(&self, grants: &[Grant], cluster: &ClusterState) -> bool {
        whole_use(grants, cluster).iter().all(|&(m, n)| {
            self.avail
                .iter()
                .find(|(am, _)| *am == m)
                .is_none_or(|&(_, a)| n <= a)
        })
    }

    /// Records that such a job started.
    pub(crate) fn consume(&mut self, grants: &[Grant], cluster: &ClusterState) {
        for (m, n) in whole_use(grants, cluster) {
            if let Some((_, a)) = self.avail.iter_mut().find(|(am, _)| *am == m) {
                *a = a.saturating_sub(n);
            }
        }
    }
}
