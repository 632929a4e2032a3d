//! `fair`: equal GPU shares per owner (user or group). The books of who
//! holds what and who waits, the queue keys that follow allocations, and
//! the victims a job under its share may take.

use crate::rule::{Books, KeyMeaning, Rule, Walk};
use crate::tuning::{FairBy, Tuning};
use crate::view::{Acts, View};
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;
use tracetui_model::Trace;

pub(super) struct Fair;

impl Rule for Fair {
    fn name(&self) -> &str {
        "fair"
    }

    fn describe(&self) -> &str {
        "equal GPU shares per user (or group); preempts the most over-share"
    }

    fn walk(&self) -> Walk {
        Walk::Preemptive
    }

    fn key_meaning(&self) -> KeyMeaning {
        KeyMeaning::OwnerShare
    }

    fn caveat(&self, trace: &Trace, tuning: &Tuning) -> Option<String> {
        let (has, owners) = match tuning.fair_by {
            FairBy::User => (trace.jobs.iter().any(|j| j.user.is_some()), "users"),
            FairBy::Group => (trace.jobs.iter().any(|j| j.group.is_some()), "groups"),
        };
        (!has && !trace.jobs.is_empty())
            .then(|| format!("no {owners} here: each job is its own owner"))
    }

    fn books(&self, v: &dyn View) -> Box<dyn Books> {
        Box::new(FairBooks {
            by: v.tuning().fair_by,
            ..FairBooks::default()
        })
    }
}

/// GPUs held and jobs waiting, per owner (user or group).
#[derive(Debug, Clone, Default)]
struct FairBooks {
    /// Who shares: users or groups (the run's `--fair-by`).
    by: FairBy,
    /// owner → milli-GPUs held by its simulated running jobs.
    alloc: FxHashMap<u64, u64>,
    /// owner → its waiting jobs.
    waiting: FxHashMap<u64, BTreeSet<u32>>,
    /// owner → ranks of its preemptable running jobs.
    running: FxHashMap<u64, BTreeSet<u32>>,
    /// owner → jobs waiting or running (an owner with any is active).
    active: FxHashMap<u64, u32>,
    /// (allocation, owner) of owners running two jobs or more: the only
    /// ones that can lose one (an owner's last job would leave it with
    /// nothing, less than the job that would take its place).
    by_alloc: BTreeSet<(u64, u64)>,
}

/// The owner a job is booked under, sharing `by` users or groups; a job
/// without one is its own owner.
fn owner(v: &dyn View, by: FairBy, job: u32) -> u64 {
    let j = &v.trace().jobs[job as usize];
    let who = match by {
        FairBy::User => j.user,
        FairBy::Group => j.group,
    };
    who.map_or(1 << 32 | job as u64, |s| s.index() as u64)
}

impl FairBooks {
    /// An owner's allocation changes: its waiting jobs move in the queue.
    fn change(&mut self, acts: &mut Acts<'_>, owner: u64, delta: i64) {
        acts.victims_may_grow();
        let old = self.alloc.get(&owner).copied().unwrap_or(0);
        let new = (old as i64 + delta).max(0) as u64;
        if new == 0 {
            self.alloc.remove(&owner);
        } else {
            self.alloc.insert(owner, new);
        }
        self.by_alloc.remove(&(old, owner));
        if self.running.get(&owner).is_some_and(|r| r.len() >= 2) {
            self.by_alloc.insert((new, owner));
        }
        for &j in self.waiting.get(&owner).into_iter().flatten() {
            acts.requeue(j, old, new);
        }
    }

    /// An owner becomes active with its first job and inactive after its last.
    fn active(&mut self, v: &dyn View, acts: &mut Acts<'_>, job: u32, delta: i32) {
        acts.victims_may_grow();
        let n = self.active.entry(owner(v, self.by, job)).or_insert(0);
        *n = (*n as i32 + delta).max(0) as u32;
        if *n == 0 {
            self.active.remove(&owner(v, self.by, job));
        }
    }
}

impl Books for FairBooks {
    fn clone_box(&self) -> Box<dyn Books> {
        Box::new(self.clone())
    }

    fn queued_key(&self, v: &dyn View, job: u32) -> u64 {
        self.alloc
            .get(&owner(v, self.by, job))
            .copied()
            .unwrap_or(0)
    }

    fn ranks_running(&self) -> bool {
        false
    }

    /// Jobs of owners over their share, most over first (ties by owner id),
    /// newest first.
    fn victims(&self, v: &dyn View, job: u32) -> Vec<u32> {
        let me = owner(v, self.by, job);
        let active = self.active.len().max(1) as u64;
        let share = v.trace().cluster.total_gpus() * 1000 / active;
        let mine = self.alloc.get(&me).copied().unwrap_or(0);
        let demand = v.trace().jobs[job as usize].demand.total_milli();
        if mine >= share {
            return Vec::new();
        }
        let mut out = Vec::new();
        for &(a, o) in self.by_alloc.iter().rev() {
            if a <= share || a <= mine + demand {
                break;
            }
            if o == me {
                continue;
            }
            let mut a = a;
            for &r in self.running.get(&o).into_iter().flatten().rev() {
                let victim = v.job_at_rank(r);
                let g: u64 = v
                    .held(victim)
                    .unwrap_or_default()
                    .iter()
                    .map(|g| g.milli as u64)
                    .sum();
                // The swap must leave the victim's owner holding at least what
                // the job's owner will: shares move towards equal, never back.
                if a > share && a - g.min(a) >= mine + demand {
                    out.push(victim);
                    a -= g;
                }
            }
        }
        out
    }

    fn joined(&mut self, v: &dyn View, acts: &mut Acts<'_>, job: u32) {
        self.active(v, acts, job, 1);
    }

    fn left(&mut self, v: &dyn View, acts: &mut Acts<'_>, job: u32) {
        self.active(v, acts, job, -1);
    }

    fn waiting(&mut self, v: &dyn View, job: u32, joins: bool) {
        let o = owner(v, self.by, job);
        if joins {
            self.waiting.entry(o).or_default().insert(job);
        } else if let Some(s) = self.waiting.get_mut(&o) {
            s.remove(&job);
            if s.is_empty() {
                self.waiting.remove(&o);
            }
        }
    }

    fn started(&mut self, v: &dyn View, acts: &mut Acts<'_>, job: u32, milli: u64) {
        let o = owner(v, self.by, job);
        self.running.entry(o).or_default().insert(v.rank(job));
        self.change(acts, o, milli as i64);
    }

    fn stopped(&mut self, v: &dyn View, acts: &mut Acts<'_>, job: u32, milli: u64) {
        let o = owner(v, self.by, job);
        let rank = v.rank(job);
        let had = self.running.get_mut(&o).is_some_and(|s| s.remove(&rank));
        if self.running.get(&o).is_some_and(|s| s.is_empty()) {
            self.running.remove(&o);
        }
        if had {
            self.change(acts, o, -(milli as i64));
        }
    }
}
