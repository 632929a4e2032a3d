//! The engine's side of the policy interface: what a policy's books may
//! read and change, and how the engine lends them itself while they do.

use super::preempt::Resume;
use super::{Engine, Event, Phase, PolicyFailure};
use crate::sim::cluster::{ClusterState, Grant, TypeFilter};
use crate::sim::placement::place;
use crate::sim::policy::{Books, Policy};
use crate::trace::model::{Demand, Secs};
use rustc_hash::FxHashSet;

/// What a deciding policy does at a scheduling point, checked whole
/// against the engine's state before any of it is applied.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Answer {
    /// Key changes: (job, old key, new key), for waiting or running jobs.
    pub rekey: Vec<(u32, u64, u64)>,
    /// Running jobs to preempt (back to the queue with their work).
    pub preempt: Vec<u32>,
    /// Waiting jobs to start, in order, on the GPUs given (checked) or,
    /// without any, where the placement rule puts them.
    pub start: Vec<(u32, Option<Vec<Grant>>)>,
}

/// Why a deciding policy gave nothing to apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoAnswer {
    /// It failed (the reason, naming the policy and the time): the engine
    /// falls back to the policy before, or halts.
    Failed(String),
    /// No answer yet by `Engine::policy_answer_by`: the pass is owed and
    /// asked again, unchanged, by `Engine::settle`.
    Later,
}

impl From<String> for NoAnswer {
    fn from(why: String) -> NoAnswer {
        NoAnswer::Failed(why)
    }
}

/// An answer that passed its check: every start with its GPUs.
#[derive(Debug, Clone, Default)]
pub struct Checked {
    rekey: Vec<(u32, u64, u64)>,
    preempt: Vec<u32>,
    start: Vec<(u32, Vec<Grant>)>,
}

impl Engine {
    /// The job's run time under the current power policy (oracle policies
    /// may know it).
    pub(crate) fn policy_runtime(&self, job: u32) -> Option<Secs> {
        self.runtime_of(job)
    }

    /// Seconds the job still needs if it (re)starts now, restart cost included.
    pub(crate) fn policy_time_left(&self, job: u32) -> Option<Secs> {
        self.time_left(job)
    }

    /// GPU-service attained so far, milli-GPU-seconds (the current run included).
    pub(crate) fn policy_attained(&self, job: u32) -> u128 {
        self.attained(job)
    }

    /// When a deciding policy must have answered by for the engine to go
    /// on now (None: wait as long as the policy's timeout allows).
    pub(crate) fn policy_answer_by(&self) -> Option<std::time::Instant> {
        self.answer_by
    }

    /// The work a job carries (default for a job never preempted).
    pub(crate) fn policy_resume(&self, job: u32) -> Resume {
        self.resume(job)
    }

    /// The work a job carries, if it was ever preempted.
    pub(crate) fn policy_preempted_before(&self, job: u32) -> Option<Resume> {
        self.resumes.get(&job).copied()
    }

    /// A running job's priority as indexed for victim search.
    pub(crate) fn policy_priority(&self, job: u32) -> Option<u64> {
        self.pre.key_of.get(&job).copied()
    }

    /// The job's place in arrival order (submit, then trace order).
    pub(crate) fn policy_rank(&self, job: u32) -> u32 {
        self.shapes.rank[job as usize]
    }

    pub(crate) fn policy_job_at_rank(&self, rank: u32) -> u32 {
        self.shapes.arrival[rank as usize]
    }

    /// A waiting job's key changed from `old` to `new`.
    pub(crate) fn policy_requeue(&mut self, job: u32, old: u64, new: u64) {
        let class = self.shapes.class_of[job as usize];
        let rank = self.shapes.rank[job as usize];
        self.queue.remove(class, old, rank);
        self.queue.insert(class, new, rank);
    }

    /// A running job's priority changed from `old` to `new`.
    pub(crate) fn policy_reprioritize(&mut self, job: u32, old: u64, new: u64) {
        let rank = self.shapes.rank[job as usize];
        self.pre.by_key.remove(&(old, rank));
        self.pre.by_key.insert((new, rank));
        self.pre.key_of.insert(job, new);
        self.pre.vepoch += 1;
    }

    /// Jobs that could not preempt before may be able to now.
    pub(crate) fn policy_victims_may_grow(&mut self) {
        self.pre.vepoch += 1;
    }

    /// The job keeps the first priority to the end (`las`'s starvation guard);
    /// carried across policy switches like the rest of its work.
    pub(crate) fn policy_promote(&mut self, job: u32) {
        if let Some(r) = self.resumes.get_mut(&job) {
            r.promoted = true;
        }
    }

    /// A copy that goes its own way (a what-if row on another thread): its
    /// policy shares nothing with this engine's (an external policy starts
    /// its own process), and it waits for answers as long as they take.
    pub fn fork(&self) -> Engine {
        self.clone().forked()
    }

    /// This engine made a fork (see `fork`), without a copy.
    pub fn forked(mut self) -> Engine {
        self.books = Some(self.books().fork_box());
        self.answer_by = None;
        self
    }

    pub(super) fn books(&self) -> &dyn Books {
        self.books
            .as_deref()
            .expect("books are lent out only inside a hook")
    }

    /// Lends the engine to its policy's books for a hook. Inside it the
    /// books are out: a hook changes keys through `policy_requeue` and
    /// `policy_reprioritize`, never through `enqueue`.
    pub(super) fn with_books<R>(&mut self, f: impl FnOnce(&mut dyn Books, &mut Engine) -> R) -> R {
        let mut b = self.books.take().expect("books are not lent twice");
        let r = f(&mut *b, self);
        self.books = Some(b);
        r
    }

    /// A job's demand and the GPU types it may use.
    pub(crate) fn policy_shape(&self, job: u32) -> &(Demand, TypeFilter) {
        &self.shapes.shapes[self.shapes.class_of[job as usize] as usize]
    }

    /// Whether the engine may preempt `job`: running on GPUs this engine
    /// gave it (a recorded hold keeps its recorded end).
    pub(crate) fn policy_preemptable(&self, job: u32) -> bool {
        let st = self.jobs[job as usize];
        st.phase == Phase::Running && self.completions.has(job)
    }

    /// Checks `a` against the state now: jobs exist and are in the state
    /// each action needs, none is started twice, and every start fits —
    /// on the GPUs it names (after this answer's preemptions and earlier
    /// starts) or where the placement rule puts it.
    pub fn policy_check(&self, a: &Answer) -> Result<Checked, String> {
        let n = self.jobs.len() as u32;
        let known = |j: u32| {
            if j < n {
                Ok(j)
            } else {
                Err(format!("job {j} is not in the trace ({n} jobs)"))
            }
        };
        let mut keyed = FxHashSet::default();
        for &(j, _, _) in &a.rekey {
            if !keyed.insert(j) {
                return Err(format!("priority for job {j} twice"));
            }
            let p = self.jobs[known(j)? as usize].phase;
            if p != Phase::Queued && p != Phase::Running {
                return Err(format!(
                    "priority for job {j}, which is {p:?}, not waiting or running"
                ));
            }
        }
        let mut scratch: Option<ClusterState> = None;
        let mut out = Checked {
            rekey: a.rekey.clone(),
            ..Checked::default()
        };
        let mut seen = FxHashSet::default();
        for &v in &a.preempt {
            if !self.policy_preemptable(known(v)?) || !seen.insert(v) {
                return Err(format!(
                    "preempt job {v}, which is not running here (or named twice)"
                ));
            }
            let s = scratch.get_or_insert_with(|| self.cluster.clone());
            s.release(v, &self.running[&v]);
            out.preempt.push(v);
        }
        let mut started = FxHashSet::default();
        for (j, gpus) in &a.start {
            let j = known(*j)?;
            if self.jobs[j as usize].phase != Phase::Queued {
                return Err(format!("start job {j}, which is not waiting"));
            }
            if !started.insert(j) {
                return Err(format!("start job {j} twice"));
            }
            let s = scratch.get_or_insert_with(|| self.cluster.clone());
            let g = match gpus {
                Some(g) => self.check_grants(s, j, g.clone())?,
                None => {
                    let (d, f) = self.policy_shape(j);
                    place(s, self.placement, d, *f).ok_or_else(|| {
                        format!(
                            "start job {j}: it does not fit now ({} placement)",
                            self.placement.name()
                        )
                    })?
                }
            };
            s.acquire(j, &g);
            out.start.push((j, g));
        }
        Ok(out)
    }

    /// GPUs a policy named for `job`: on real machines and GPUs of a type
    /// it may use, with room, adding up to its demand. Sorted by machine.
    fn check_grants(
        &self,
        s: &ClusterState,
        job: u32,
        mut g: Vec<Grant>,
    ) -> Result<Vec<Grant>, String> {
        let (demand, filter) = self.policy_shape(job);
        g.sort_by_key(|x| (x.machine, x.gpu));
        let mut total = 0u64;
        let machines = &self.trace.cluster.machines;
        // Whole GPUs for a gang; each instance's own size for instances.
        let mut sizes: Vec<u16> = g.iter().map(|x| x.milli).collect();
        let mut wanted: Vec<u16> = match demand {
            Demand::Gang { gpus } => vec![1000; *gpus as usize],
            Demand::Instances(units) => units
                .iter()
                .flat_map(|u| {
                    std::iter::repeat_n(u.milli.min(u16::MAX as u32) as u16, u.count as usize)
                })
                .collect(),
        };
        sizes.sort_unstable();
        wanted.sort_unstable();
        if sizes != wanted && matches!(demand, Demand::Gang { .. }) {
            return Err(format!(
                "start job {job}: a gang of {} GPUs takes {} whole GPUs",
                wanted.len(),
                wanted.len()
            ));
        }
        for (i, x) in g.iter().enumerate() {
            if machines
                .get(x.machine as usize)
                .is_some_and(|m| m.recorded_only)
            {
                return Err(format!(
                    "start job {job}: machine {} is known only from the trace's record",
                    x.machine
                ));
            }
            if x.machine as usize >= s.machine_count() || x.gpu as u32 >= s.cap(x.machine) {
                return Err(format!(
                    "start job {job}: machine {} has no GPU {}",
                    x.machine, x.gpu
                ));
            }
            if !filter.allows(s.machine_type(x.machine)) {
                return Err(format!(
                    "start job {job}: machine {} has the wrong GPU type",
                    x.machine
                ));
            }
            if x.milli == 0
                || x.milli > 1000
                || g[..i]
                    .iter()
                    .any(|y| (y.machine, y.gpu) == (x.machine, x.gpu))
            {
                return Err(format!(
                    "start job {job}: GPU {}/{} named twice or with {} milli-GPUs",
                    x.machine, x.gpu, x.milli
                ));
            }
            let used = s.used_milli(s.first_gpu(x.machine) + x.gpu as usize);
            if used + x.milli as u32 > 1000 {
                return Err(format!(
                    "start job {job}: over-allocation: GPU {}/{} has {} milli-GPUs free, {} asked",
                    x.machine,
                    x.gpu,
                    1000 - used.min(1000),
                    x.milli
                ));
            }
            total += x.milli as u64;
        }
        if total != demand.total_milli() {
            return Err(format!(
                "start job {job}: the GPUs named add up to {total} milli-GPUs; it needs {}",
                demand.total_milli()
            ));
        }
        Ok(g)
    }

    /// Applies a checked answer: keys, then preemptions, then starts.
    pub(super) fn policy_apply(&mut self, c: Checked) {
        for (j, old, new) in c.rekey {
            match self.jobs[j as usize].phase {
                Phase::Queued => self.policy_requeue(j, old, new),
                Phase::Running if self.pre.key_of.contains_key(&j) => {
                    self.policy_reprioritize(j, old, new)
                }
                _ => {}
            }
        }
        if !c.preempt.is_empty() {
            for v in c.preempt {
                let g = self.running[&v].to_vec();
                self.cluster.release(v, &g);
                self.preempt(v);
            }
            self.epoch += 1;
        }
        for (j, g) in c.start {
            self.start(j, &g);
        }
    }

    /// The policy failed at this scheduling point: recorded, and the engine
    /// falls back to the policy before (or `fifo`), or halts.
    pub(super) fn policy_failed(&mut self, why: String) {
        let failed = self.policy;
        // Never back to a policy that failed at this instant (two failing
        // external policies would hand the replay to each other for ever).
        let now = self.now;
        let failed_now =
            |p: Policy| p == failed || self.failures.iter().any(|f| f.at == now && f.policy == p);
        let back = (!self.halt_on_failure).then(|| {
            self.policy_before
                .filter(|&p| !failed_now(p))
                .unwrap_or(Policy::Fifo)
        });
        self.failures.push(PolicyFailure {
            at: self.now,
            policy: failed,
            why,
            fell_back_to: back,
        });
        self.emit(Event::PolicyFailed {
            at: self.now,
            policy: failed,
        });
        match back {
            Some(p) => self.set_policy(p),
            None => self.halted = true,
        }
    }

    /// Policies that failed so far.
    pub fn failures(&self) -> &[PolicyFailure] {
        &self.failures
    }

    /// Whether a failing policy stops the run (headless) rather than falling back.
    pub fn set_halt_on_failure(&mut self, on: bool) {
        self.halt_on_failure = on;
    }

    pub fn halted(&self) -> bool {
        self.halted
    }
}
