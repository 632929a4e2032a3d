//! `fair`: equal GPU shares per owner (user or group). The books of who
//! holds what and who waits, the queue keys that follow allocations, and
//! the victims a job under its share may take.

use super::Engine;
use crate::sim::policy::Policy;
use crate::sim::tuning::FairBy;
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;

/// `fair`'s books: GPUs held and jobs waiting, per owner (user or group).
#[derive(Debug, Clone, Default)]
pub(super) struct FairBooks {
    /// owner → milli-GPUs held by its simulated running jobs.
    pub alloc: FxHashMap<u64, u64>,
    /// owner → its waiting jobs.
    pub waiting: FxHashMap<u64, BTreeSet<u32>>,
    /// owner → ranks of its preemptable running jobs.
    pub running: FxHashMap<u64, BTreeSet<u32>>,
    /// owner → jobs waiting or running (an owner with any is active).
    pub active: FxHashMap<u64, u32>,
    /// (allocation, owner) of owners running two jobs or more: the only
    /// ones that can lose one (an owner's last job would leave it with
    /// nothing, less than the job that would take its place).
    pub by_alloc: BTreeSet<(u64, u64)>,
}

impl Engine {
    /// The owner `fair` books a job under.
    pub(super) fn owner(&self, job: u32) -> u64 {
        let j = &self.trace.jobs[job as usize];
        let who = match self.tuning.fair_by {
            FairBy::User => j.user,
            FairBy::Group => j.group,
        };
        who.map_or(1 << 32 | job as u64, |s| s.0 as u64)
    }

    /// An owner's allocation changes: its waiting jobs move in the queue.
    pub(super) fn fair_change(&mut self, owner: u64, delta: i64) {
        self.vepoch += 1;
        let waiting: Vec<u32> = self
            .fair
            .as_ref()
            .and_then(|f| f.waiting.get(&owner))
            .map(|s| s.iter().copied().collect())
            .unwrap_or_default();
        let old = self
            .fair
            .as_ref()
            .expect("fair books")
            .alloc
            .get(&owner)
            .copied()
            .unwrap_or(0);
        let new = (old as i64 + delta).max(0) as u64;
        for &j in &waiting {
            let (c, r) = (
                self.shapes.class_of[j as usize],
                self.shapes.rank[j as usize],
            );
            self.queue.remove(c, old, r);
        }
        let f = self.fair.as_mut().expect("fair books");
        if new == 0 {
            f.alloc.remove(&owner);
        } else {
            f.alloc.insert(owner, new);
        }
        f.by_alloc.remove(&(old, owner));
        if f.running.get(&owner).is_some_and(|r| r.len() >= 2) {
            f.by_alloc.insert((new, owner));
        }
        for &j in &waiting {
            let (c, r) = (
                self.shapes.class_of[j as usize],
                self.shapes.rank[j as usize],
            );
            self.queue.insert(c, new, r);
        }
    }

    /// `fair` counts who is active as jobs join and leave the queue.
    pub(super) fn fair_waiting(&mut self, job: u32, joins: bool) {
        if self.policy != Policy::Fair {
            return;
        }
        let o = self.owner(job);
        let f = self.fair.as_mut().expect("fair books");
        if joins {
            f.waiting.entry(o).or_default().insert(job);
        } else if let Some(s) = f.waiting.get_mut(&o) {
            s.remove(&job);
            if s.is_empty() {
                f.waiting.remove(&o);
            }
        }
    }

    /// `fair`: an owner becomes active with its first job and inactive after its last.
    pub(super) fn fair_active(&mut self, job: u32, delta: i32) {
        if self.policy != Policy::Fair {
            return;
        }
        self.vepoch += 1;
        let o = self.owner(job);
        let f = self.fair.as_mut().expect("fair books");
        let n = f.active.entry(o).or_insert(0);
        *n = (*n as i32 + delta).max(0) as u32;
        if *n == 0 {
            f.active.remove(&o);
        }
    }

    /// `fair`'s victims for `job`: jobs of owners over their share, most
    /// over first (ties by owner id), newest first.
    pub(super) fn fair_victims(&self, job: u32) -> Vec<u32> {
        let f = self.fair.as_ref().expect("fair books");
        let me = self.owner(job);
        let active = f.active.len().max(1) as u64;
        let share = self.trace.cluster.total_gpus() * 1000 / active;
        let mine = f.alloc.get(&me).copied().unwrap_or(0);
        let demand = self.trace.jobs[job as usize].demand.total_milli();
        if mine >= share {
            return Vec::new();
        }
        // Owners over their share, most over first (ties by owner id).
        let mut out = Vec::new();
        for &(a, o) in f.by_alloc.iter().rev() {
            if a <= share || a <= mine + demand {
                break;
            }
            if o == me {
                continue;
            }
            let mut a = a;
            for &r in f.running.get(&o).into_iter().flatten().rev() {
                let v = self.shapes.arrival[r as usize];
                let g: u64 = self.running[&v].iter().map(|g| g.milli as u64).sum();
                // The swap must leave the victim's owner holding at least what
                // the job's owner will: shares move towards equal, never back.
                if a > share && a - g.min(a) >= mine + demand {
                    out.push(v);
                    a -= g;
                }
            }
        }
        out
    }
}
