//! Preemption, for `srtf`, `las`, `fair` and `edf`.
//!
//! A pass walks the queue in the policy's order. A job that fits starts; one
//! that does not may take the GPUs of running jobs of strictly lower
//! priority: their GPUs are freed lowest first until a placement exists (or
//! none are taken, if even all of them would not do), and only the jobs
//! whose GPUs the placement uses are preempted. Then every waiting job that
//! still fits starts. A preempted job goes back to the queue keeping the
//! work it has done and pays `preempt_cost` seconds when it resumes.
//!
//! Victims are strictly lower in priority than the job that preempts them
//! and go back to the queue behind it, so a pass never preempts a job it
//! started and always ends.

use super::{Engine, Event, Phase};
use crate::sim::cluster::Grant;
use crate::sim::placement::place;
use crate::sim::policy::{deadline_key, Policy};
use crate::sim::tuning::FairBy;
use crate::trace::model::Secs;
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;

/// What a preempted job carries back to the queue.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Resume {
    /// Seconds of useful work done before the current run.
    pub done: Secs,
    /// Seconds held before the current run (useful or not), for the starvation guard.
    pub held: Secs,
    /// Attained service before the current run, milli-GPU-seconds.
    pub attained: u128,
    /// Promoted by `las`'s starvation guard: in the first queue to the end.
    pub promoted: bool,
    /// When the current run began, and the restart cost it pays first.
    pub run_from: Secs,
    pub overhead: Secs,
    /// When it was last preempted.
    pub since: Secs,
    pub preemptions: u32,
}

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

/// Where preempting could make room for a one-machine gang.
enum Freed {
    /// On this machine, with this many of the victims (lowest first).
    On(u32, usize),
    Never,
    Unsure,
}

const DEMOTE: u8 = 0;
const PROMOTE: u8 = 1;

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

    fn resume(&self, job: u32) -> Resume {
        self.resumes.get(&job).copied().unwrap_or(Resume {
            run_from: self.jobs[job as usize].start,
            ..Resume::default()
        })
    }

    /// Seconds the job still needs if it (re)starts now: its run time less
    /// the work done, plus the restart cost if it was preempted.
    pub(super) fn time_left(&self, job: u32) -> Option<Secs> {
        let rt = self.runtime_of(job)?;
        Some(match self.resumes.get(&job) {
            Some(r) => (rt - r.done).max(0) + self.tuning.preempt_cost,
            None => rt,
        })
    }

    /// Attained service now, milli-GPU-seconds (running jobs included).
    fn attained(&self, job: u32) -> u128 {
        let r = self.resume(job);
        match (self.jobs[job as usize].phase, self.running.get(&job)) {
            (Phase::Running, Some(g)) => {
                let milli: u128 = g.iter().map(|g| g.milli as u128).sum();
                r.attained + milli * (self.now - r.run_from).max(0) as u128
            }
            _ => r.attained,
        }
    }

    /// A job's `las` queue: by attained service (counting the current run
    /// when `running`), or the first queue once promoted.
    fn las_queue_of(&self, job: u32, running: bool) -> u8 {
        let r = self.resume(job);
        if r.promoted {
            return 0;
        }
        let att = if running {
            self.attained(job)
        } else {
            r.attained
        };
        self.tuning.las_queue(att)
    }

    /// A waiting job's key under a preemptive policy.
    pub(super) fn preemptive_key(&self, job: u32) -> u64 {
        match self.policy {
            Policy::Srtf => self.time_left(job).map_or(u64::MAX, |r| r.max(0) as u64),
            Policy::Las => self.las_queue_of(job, false) as u64,
            Policy::Fair => self
                .fair
                .as_ref()
                .and_then(|f| f.alloc.get(&self.owner(job)).copied())
                .unwrap_or(0),
            _ => deadline_key(self.trace.jobs[job as usize].deadline),
        }
    }

    /// A running job's priority key (lower runs first). `srtf` keys running
    /// jobs by end time: remaining time is end − now, the same order.
    fn running_key(&self, job: u32) -> u64 {
        match self.policy {
            Policy::Srtf => self.jobs[job as usize].end as u64 ^ (1 << 63),
            Policy::Las => self.las_queue_of(job, true) as u64,
            _ => deadline_key(self.trace.jobs[job as usize].deadline),
        }
    }

    /// Book-keeping when a job starts under a preemptive policy (or any
    /// policy, for a resumed job).
    pub(super) fn on_preemptive_start(&mut self, job: u32, milli: u64) {
        if let Some(r) = self.resumes.get_mut(&job) {
            r.run_from = self.now;
            r.overhead = self.tuning.preempt_cost;
        }
        if !self.policy.preempts() {
            return;
        }
        self.track_running(job, milli);
    }

    fn track_running(&mut self, job: u32, milli: u64) {
        self.vepoch += 1;
        let rank = self.shapes.rank[job as usize];
        if self.policy == Policy::Fair {
            let o = self.owner(job);
            let f = self.fair.as_mut().expect("fair books");
            f.running.entry(o).or_default().insert(rank);
            self.fair_change(o, milli as i64);
            return;
        }
        let k = self.running_key(job);
        self.prio.insert((k, rank));
        self.prio_key.insert(job, k);
        if self.policy == Policy::Las {
            self.schedule_demotion(job, milli);
        }
    }

    /// A running job stops (finishes or is preempted): forget its priority.
    pub(super) fn untrack_running(&mut self, job: u32, milli: u64) {
        let rank = self.shapes.rank[job as usize];
        if let Some(k) = self.prio_key.remove(&job) {
            self.prio.remove(&(k, rank));
        }
        if self.policy == Policy::Fair {
            let o = self.owner(job);
            let f = self.fair.as_mut().expect("fair books");
            let had = f.running.get_mut(&o).is_some_and(|s| s.remove(&rank));
            if f.running.get(&o).is_some_and(|s| s.is_empty()) {
                f.running.remove(&o);
            }
            if had {
                self.fair_change(o, -(milli as i64));
            }
        }
    }

    /// An owner's allocation changes: its waiting jobs move in the queue.
    fn fair_change(&mut self, owner: u64, delta: i64) {
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

    /// Rebuilds the preemptive policy's books from the running and waiting
    /// jobs (on a switch; called before the queue is rebuilt).
    pub(super) fn enter_preemptive(&mut self) {
        self.preempt_failed.clear();
        self.vepoch += 1;
        self.prio.clear();
        self.prio_key.clear();
        self.wakeups.clear();
        self.fair = None;
        if !self.policy.preempts() {
            return;
        }
        if self.policy == Policy::Fair {
            self.fair = Some(FairBooks::default());
            let waiting: Vec<u32> = self
                .queue
                .entries()
                .map(|(_, _, r)| self.shapes.arrival[r as usize])
                .collect();
            for j in waiting {
                self.fair_active(j, 1);
            }
        }
        // Jobs this engine started (not recorded holds) can be preempted.
        let running: Vec<(u32, u64)> = self
            .running
            .iter()
            .filter(|(j, _)| {
                self.completions
                    .contains(&(self.jobs[**j as usize].end, **j))
            })
            .map(|(&j, g)| (j, g.iter().map(|g| g.milli as u64).sum()))
            .collect();
        for (j, milli) in running {
            self.fair_active(j, 1);
            self.track_running(j, milli);
        }
    }

    fn schedule_demotion(&mut self, job: u32, milli: u64) {
        if milli == 0 || self.resume(job).promoted {
            return;
        }
        let att = self.attained(job);
        if let Some(t) = self.tuning.next_threshold(att) {
            let dt = (t - att).div_ceil(milli as u128);
            let at = self.now + (dt.min(i64::MAX as u128 / 4) as Secs).max(1);
            self.wakeups.insert((at, job, DEMOTE));
        }
    }

    /// Timed changes of priority (`las`): demotions when a running job's
    /// service crosses a threshold, promotions of starved jobs. Whether any happened.
    pub(super) fn wake(&mut self, t: Secs) -> bool {
        let mut woke = false;
        while let Some(&(at, job, kind)) = self.wakeups.first() {
            if at != t {
                break;
            }
            self.wakeups.pop_first();
            if self.policy != Policy::Las {
                continue;
            }
            let st = self.jobs[job as usize];
            if kind == DEMOTE && st.phase == Phase::Running {
                let Some(&old) = self.prio_key.get(&job) else {
                    continue;
                };
                let new = self.running_key(job);
                let rank = self.shapes.rank[job as usize];
                self.prio.remove(&(old, rank));
                self.prio.insert((new, rank));
                self.prio_key.insert(job, new);
                self.vepoch += 1;
                let milli = self.running[&job].iter().map(|g| g.milli as u64).sum();
                self.schedule_demotion(job, milli);
                woke |= new != old;
            } else if kind == PROMOTE && st.phase == Phase::Queued {
                let Some(r) = self.resumes.get(&job).copied() else {
                    continue;
                };
                if self.starve_time(&r) != Some(t) || r.promoted {
                    continue;
                }
                self.dequeue(job);
                // Back to the first queue, and kept there to the end: a job
                // demoted again after each promotion would be preempted over
                // and over (each time paying the restart) on a busy cluster.
                self.resumes.get_mut(&job).expect("checked").promoted = true;
                self.enqueue(job);
                woke = true;
            }
        }
        woke
    }

    fn starve_time(&self, r: &Resume) -> Option<Secs> {
        let s = self.tuning.las_starve;
        (s > 0.0 && r.held > 0).then(|| r.since + ((r.held as f64 * s).ceil() as Secs).max(1))
    }

    /// The preemptive walk (see the module notes).
    pub(super) fn walk_preemptive(&mut self) {
        let mut cursor: Option<(u64, u32)> = None;
        // Classes whose member could not start even by preempting, in this
        // pass and capacity epoch: later members (walked in key order) have
        // fewer possible victims, so they cannot either. Jobs arriving later
        // may rank earlier, so this never outlives the pass.
        let mut failed: rustc_hash::FxHashSet<u32> = Default::default();
        let mut failed_epoch = self.epoch;
        loop {
            if failed_epoch != self.epoch {
                failed.clear();
                failed_epoch = self.epoch;
            }
            let next = self
                .queue
                .active
                .iter()
                .filter(|&&c| !failed.contains(&c))
                .filter_map(|&c| {
                    let order = &self.queue.classes[c as usize].order;
                    let e = match cursor {
                        None => order.first(),
                        Some(cur) => order
                            .range((std::ops::Bound::Excluded(cur), std::ops::Bound::Unbounded))
                            .next(),
                    };
                    e.map(|&(k, r)| (k, r, c))
                })
                // A class that failed at this key or lower, with neither
                // capacity released nor new victims since, fails again.
                .filter(|&(k, _, c)| {
                    self.preempt_failed
                        .get(&c)
                        .is_none_or(|&(e, v, fk)| e != self.epoch || v != self.vepoch || k < fk)
                })
                .min();
            let Some((key, rank, class)) = next else {
                break;
            };
            cursor = Some((key, rank));
            let job = self.shapes.arrival[rank as usize];
            if let Some(g) = self.try_class(class) {
                self.start(job, g);
            } else if let Some(g) = self.preempt_for(job, class, key) {
                self.start(job, g);
            } else {
                failed.insert(class);
                self.preempt_failed
                    .insert(class, (self.epoch, self.vepoch, key));
            }
        }
        self.walk_greedy();
    }

    /// Running jobs `job` may preempt, lowest priority first.
    fn victims(&self, job: u32, key: u64) -> Vec<u32> {
        if self.policy != Policy::Fair {
            let mut out = Vec::new();
            for &(k, r) in self.prio.iter().rev() {
                let v = self.shapes.arrival[r as usize];
                let lower = match self.policy {
                    // Remaining time end − now against the waiting job's time left.
                    Policy::Srtf => (self.jobs[v as usize].end - self.now).max(0) as u64 > key,
                    _ => k > key,
                };
                if !lower {
                    break;
                }
                out.push(v);
            }
            return out;
        }
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

    /// Frees the GPUs of lower-priority jobs until `job` fits; the placement, or
    /// None (and nothing preempted) if no set of victims makes room.
    fn preempt_for(&mut self, job: u32, class: u32, key: u64) -> Option<Vec<Grant>> {
        let mut victims = self.victims(job, key);
        if victims.is_empty() {
            return None;
        }
        let (demand, filter) = self.shapes.shapes[class as usize].clone();
        if let crate::trace::model::Demand::Gang { gpus } = demand {
            if gpus <= self.cluster.max_gpus(filter) {
                // It goes on one machine: walk the victims lowest first until
                // some machine's free GPUs plus those its victims so far hold
                // alone make `gpus`; only those victims there matter.
                match self.first_machine_freed(&victims, gpus, filter) {
                    Freed::On(m, upto) => {
                        victims.truncate(upto);
                        victims.retain(|v| self.running[v].iter().any(|g| g.machine == m));
                    }
                    Freed::Never => return None,
                    Freed::Unsure => {}
                }
            } else {
                // Not even every victim's GPUs plus the free ones would do.
                let theirs: u64 = victims.iter().map(|v| self.running[v].len() as u64).sum();
                if self.cluster.free_gpus(filter) + theirs < gpus as u64 {
                    return None;
                }
                // Which machines could hold part of it once victims leave:
                // only victims there need be considered.
                let machines = self.machines_freeable(&victims, gpus, filter);
                if machines.is_empty() {
                    return None;
                }
                victims.retain(|v| self.running[v].iter().any(|g| machines[g.machine as usize]));
            }
        }
        let mut taken = Vec::new();
        for v in victims {
            let grants = self.running[&v].clone();
            self.cluster.release(v, &grants);
            taken.push(v);
            if let Some(g) = place(&mut self.cluster, self.placement, &demand, filter) {
                // Only the victims whose GPUs the placement uses lose them;
                // the others get theirs back (they do not overlap it).
                let used: rustc_hash::FxHashSet<(u32, u16)> =
                    g.iter().map(|x| (x.machine, x.gpu)).collect();
                for &v in &taken {
                    let hit = self.running[&v]
                        .iter()
                        .any(|x| used.contains(&(x.machine, x.gpu)));
                    if hit {
                        self.preempt(v);
                    } else {
                        let grants = self.running[&v].clone();
                        self.cluster.acquire(v, &grants);
                    }
                }
                // Capacity moved: cached "does not fit" answers are stale.
                self.epoch += 1;
                return Some(g);
            }
        }
        for &v in taken.iter().rev() {
            let grants = self.running[&v].clone();
            self.cluster.acquire(v, &grants);
        }
        None
    }

    /// For a gang that fits one machine: the first machine (and how many of
    /// `victims`, lowest first, it takes) whose free GPUs plus those held by
    /// these victims alone make `gpus`. `Never` when no prefix does;
    /// `Unsure` when a shared (fractional) GPU makes the count unreliable.
    fn first_machine_freed(
        &self,
        victims: &[u32],
        gpus: u32,
        filter: crate::sim::cluster::TypeFilter,
    ) -> Freed {
        let c = &self.cluster;
        let mut per: FxHashMap<u32, u32> = FxHashMap::default();
        for (i, v) in victims.iter().enumerate() {
            for g in &self.running[v] {
                if !filter.allows(c.machine_type(g.machine)) {
                    continue;
                }
                let flat = c.first_gpu(g.machine) + g.gpu as usize;
                if c.holders(flat).len() != 1 {
                    return Freed::Unsure;
                }
                let n = per.entry(g.machine).or_insert(0);
                *n += 1;
                if c.free(g.machine) + *n >= gpus {
                    return Freed::On(g.machine, i + 1);
                }
            }
        }
        Freed::Never
    }

    /// For a gang larger than a machine: a mask of the machines the victims
    /// touch (of an allowed type), or empty if the machines that would be
    /// wholly free plus the best remainder could not make `gpus` (not
    /// checked under `pack`, which may use any free GPUs).
    fn machines_freeable(
        &self,
        victims: &[u32],
        gpus: u32,
        filter: crate::sim::cluster::TypeFilter,
    ) -> Vec<bool> {
        let c = &self.cluster;
        let n = self.trace.cluster.machines.len();
        // machine → GPUs that would be free once the victims leave.
        let mut per = vec![0u32; n];
        let mut touched = vec![false; n];
        let mut shared: Vec<(u32, u16)> = Vec::new();
        for v in victims {
            for g in &self.running[v] {
                if !filter.allows(c.machine_type(g.machine)) {
                    continue;
                }
                let flat = c.first_gpu(g.machine) + g.gpu as usize;
                touched[g.machine as usize] = true;
                if c.holders(flat).len() == 1 {
                    per[g.machine as usize] += 1;
                } else {
                    shared.push((g.machine, g.gpu));
                }
            }
        }
        if !shared.is_empty() {
            // A shared GPU frees only if every holder is a victim.
            let who: rustc_hash::FxHashSet<u32> = victims.iter().copied().collect();
            shared.sort_unstable();
            shared.dedup();
            for (m, g) in shared {
                let flat = c.first_gpu(m) + g as usize;
                if c.holders(flat).iter().all(|h| who.contains(&h.0)) {
                    per[m as usize] += 1;
                }
            }
        }
        let room = |m: usize| c.free(m as u32) + per[m];
        if self.placement != crate::sim::Placement::Pack {
            // Whole machines (free already, or freed by victims) and the
            // largest other remainder must make it. (All free GPUs bound the
            // wholly free machines: a cheap upper bound.)
            let mut whole = c.free_gpus(filter);
            let mut best_part = 0u64;
            for m in (0..n).filter(|&m| touched[m]) {
                if room(m) == c.cap(m as u32) {
                    whole += c.cap(m as u32) as u64;
                } else {
                    best_part = best_part.max(room(m) as u64);
                }
            }
            if whole + best_part < gpus as u64 {
                return Vec::new();
            }
        }
        touched
    }

    /// Takes a running job's GPUs (already released from the cluster) and
    /// puts it back in the queue with the work it has done.
    fn preempt(&mut self, job: u32) {
        let grants = self.running.remove(&job).expect("running victim");
        let milli: u64 = grants.iter().map(|g| g.milli as u64).sum();
        self.untrack_running(job, milli);
        let now = self.now;
        let mut r = self.resume(job);
        let held = (now - r.run_from).max(0);
        let overhead = held.min(r.overhead);
        self.tally.busy_finished += milli as u128 * held as u128;
        self.tally.overhead_busy += milli as u128 * overhead as u128;
        r.done += held - overhead;
        r.held += held;
        r.attained += milli as u128 * held as u128;
        r.since = now;
        r.preemptions += 1;
        r.overhead = 0;
        self.resumes.insert(job, r);
        let end = self.jobs[job as usize].end;
        self.completions.remove(&(end, job));
        self.power_off(job as u64);
        self.jobs[job as usize].phase = Phase::Queued;
        self.tally.preemptions += 1;
        self.emit(Event::Preempted { job, at: now });
        self.enqueue(job);
        if self.policy == Policy::Las {
            if let Some(t) = self.starve_time(&r) {
                self.wakeups.insert((t.max(now + 1), job, PROMOTE));
            }
        }
    }

    /// How many times a job has been preempted so far.
    pub fn preemptions_of(&self, job: u32) -> u32 {
        self.resumes.get(&job).map_or(0, |r| r.preemptions)
    }

    /// Useful seconds a preempted job has done before its current run.
    pub(super) fn done_before(&self, job: u32) -> Option<(Secs, Secs, Secs)> {
        self.resumes
            .get(&job)
            .map(|r| (r.done, r.run_from, r.overhead))
    }
}
