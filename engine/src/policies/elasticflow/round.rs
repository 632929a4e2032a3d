//! One elasticflow round, in ElasticFlow's order (`scheduler.py`
//! `ef_sim_jobs_access_control`): progress since the last round; the
//! jobs whose planned end is due end; the arrivals due are admitted all
//! together if every admitted job and every arrival can still be planned
//! to meet its deadline, else all declined; every job is planned again in
//! deadline order; jobs planned to run now start; the GPUs left free now
//! are handed out; the jobs are placed, and each pays this round's
//! overhead, which moves its end; then the next round is set.

use super::maps::ceil_secs;
use super::nodes::overhead;
use super::plan::plan;
use super::state::State;
use crate::view::View;
use rustc_hash::FxHashMap;
use tracetui_model::Secs;

/// What a round asks of the engine.
#[derive(Debug, Default)]
pub(super) struct Outcome {
    /// Arrivals declined.
    pub(super) declined: Vec<u32>,
    /// Jobs to hold GPUs now, in the order to place them, with their ends.
    pub(super) hold: Vec<(u32, u32, Secs)>,
    /// Jobs planned to hold none now.
    pub(super) idle: Vec<u32>,
    /// Jobs holding no GPUs that end all the same, at their old end
    /// (`edf-accessctrl`'s preempted jobs whose end event came).
    pub(super) finished: Vec<(u32, Secs)>,
}

/// Why a round could not be made.
pub(super) struct Failed(pub(super) String);

impl State {
    /// The round at `v.now()` (the books' next round).
    pub(super) fn round(&mut self, v: &dyn View) -> Result<Outcome, Failed> {
        if self.edf {
            return self.edf_round(v);
        }
        let t = v.now();
        let first = self.rounds == 0;
        self.progress(t, t - self.last);
        let mut out = Outcome::default();
        let had = self.events.contains_key(&t);
        let mut due = self.events.remove(&t).unwrap_or_default();
        due.start.extend(self.take_arrivals(v, t));
        let found = had || !due.start.is_empty() || first;
        let idle = self.pending.is_empty() && self.running.is_empty();
        if self.admission && found && !first && idle && due.start.is_empty() && due.end.is_empty() {
            // Nothing to do (`ef-accessctrl` skips such a round uncounted;
            // `ef` holds it, and counts it towards its restart rounds).
            self.advance(v, t);
            self.last = t;
            return Ok(out);
        }
        if found {
            for j in due.end {
                self.complete(j);
            }
            let old: FxHashMap<u32, Secs> = self
                .runnable
                .iter()
                .map(|&j| (j, self.jobs[&j].end))
                .collect();
            self.admit_and_plan(v, t, due.start, &mut out)?;
            let jobs = &self.jobs;
            self.runnable.sort_by_key(|j| jobs[j].ddl);
            for j in self.runnable.clone() {
                let job = self.jobs.get_mut(&j).expect("books");
                job.gpus = job.planned_at(t);
                self.move_end_event(j, old.get(&j).copied().unwrap_or(0));
            }
        }
        // Starts, the hand-out and the placement only while a GPU is free
        // (ElasticFlow's `check_free_gpu() > 0`): in a round with no event
        // nothing was let go, and placing every job again on a full
        // cluster would find no room for the first.
        let mut first_change = None;
        if self.nodes.free_gpus() > 0 {
            self.start_planned(t);
            self.hand_out(t)?;
            first_change = self.place(t)?;
        }
        self.mark_change(v, first_change);
        self.charge_overheads();
        self.advance(v, t);
        self.last = t;
        Ok(self.outcome(t, out))
    }

    /// The round's arrivals: with admission control, admitted together if
    /// every deadline still holds when all are planned, else declined (but
    /// best-effort ones); without (`ef`), all of them. Then every job is
    /// planned in deadline order.
    fn admit_and_plan(
        &mut self,
        v: &dyn View,
        t: Secs,
        arrivals: Vec<u32>,
        out: &mut Outcome,
    ) -> Result<(), Failed> {
        let (admit, cannot): (Vec<u32>, Vec<u32>) =
            arrivals.into_iter().partition(|&j| self.arrive(v, j));
        self.declined += cannot.len() as u64;
        out.declined = cannot;
        let mut admitted = false;
        if !admit.is_empty() {
            let mut all: Vec<u32> = self.runnable.iter().chain(&admit).copied().collect();
            // `ef` plans all of them and takes the plan, deadlines met or not.
            if self.plan_all(&mut all, t)? || !self.admission {
                admitted = true;
                self.pending.extend(&admit);
                self.runnable.extend(&admit);
            } else {
                // Best-effort arrivals stay, to run on what is left.
                for j in admit {
                    if self.jobs[&j].best_effort() {
                        self.pending.push(j);
                        self.runnable.push(j);
                    } else {
                        self.jobs.remove(&j);
                        self.declined += 1;
                        out.declined.push(j);
                    }
                }
            }
        }
        if !admitted {
            let mut all = std::mem::take(&mut self.runnable);
            let planned = self.plan_all(&mut all, t);
            self.runnable = all;
            planned?;
        }
        Ok(())
    }

    /// Progress since the last round, `td` seconds ago, at the GPUs held
    /// since, less the overhead charged then, up to the planned finish; a
    /// job whose work ran out before its end has its end moved here.
    pub(super) fn progress(&mut self, t: Secs, td: Secs) {
        let edf = self.edf;
        for j in self.runnable.clone() {
            let job = self.jobs.get_mut(&j).expect("books");
            let mut early = None;
            if job.gpus > 0 {
                let tp = job.tp(job.gpus);
                let mut it = ran(td, t, job.finish(edf), job.overhead) as f64 * tp;
                if job.iter_left <= it && job.end > t {
                    early = Some((job.end, (t - td) + ceil_secs(job.iter_left / tp)));
                    it = (job.end - t + td) as f64 * tp;
                }
                job.iter_left -= it;
            }
            job.overhead = 0;
            // Its end event joins this round's; its end is when it ran out.
            if let Some((old, ran_out)) = early {
                job.end = t;
                self.move_end_event(j, old);
                self.jobs.get_mut(&j).expect("books").end = ran_out;
            }
        }
    }

    /// A job whose end is due: it ends if it held GPUs last round.
    fn complete(&mut self, j: u32) {
        let Some(job) = self.jobs.get(&j) else {
            return;
        };
        let Some(id) = job.node_set else {
            return;
        };
        // `ef` judges a job by its end (on the slot grid, with its
        // overheads), `ef-accessctrl` by its planned finish.
        let finish = if self.admission {
            job.real_end
        } else {
            job.end
        };
        let (g, late) = (job.gpus, finish > job.ddl);
        self.nodes.release(id, j, g);
        self.running.retain(|&x| x != j);
        self.runnable.retain(|&x| x != j);
        self.jobs.remove(&j);
        if late {
            self.declined += 1;
            self.accepted -= 1;
        }
    }

    /// An arrival's books; false if it cannot be planned.
    pub(super) fn arrive(&mut self, v: &dyn View, j: u32) -> bool {
        match super::admit::job_of(v, j, self.edf) {
            Some(job) => {
                self.jobs.insert(j, job);
                true
            }
            None => false,
        }
    }

    /// Plans every job of `list` in deadline order on an empty
    /// reservation map (their GPUs let go first); whether each meets
    /// its deadline.
    fn plan_all(&mut self, list: &mut [u32], t: Secs) -> Result<bool, Failed> {
        self.free = [(t, self.n as i64)].into();
        let jobs = &self.jobs;
        list.sort_by_key(|j| jobs[j].ddl);
        for j in list.iter() {
            let job = self.jobs.get_mut(j).expect("books");
            if let Some(id) = job.node_set.take() {
                let g = job.gpus;
                self.nodes.release(id, *j, g);
            }
        }
        let mut ok = true;
        for j in list.iter() {
            let job = &self.jobs[j];
            let p = plan(job, t, self.n, &self.free, None).ok_or_else(|| no_plan(*j, t))?;
            ok &= p.real_end <= job.ddl;
            let job = self.jobs.get_mut(j).expect("books");
            job.alloc = p.alloc;
            job.end = p.end;
            job.real_end = p.real_end;
            self.free = p.free;
        }
        Ok(ok)
    }

    /// Pending jobs whose plan gives them GPUs now start.
    fn start_planned(&mut self, t: Secs) {
        let mut starts = Vec::new();
        for &p in &self.pending {
            let job = self.jobs.get_mut(&p).expect("books");
            let first = job.alloc.iter().find(|&(_, g)| g != 0).map(|(k, _)| k);
            let later = first.is_some_and(|k| k > t);
            job.gpus = job.planned_at(t);
            if job.gpus <= self.n && !later {
                starts.push(p);
            }
            // `ef`: a round when a waiting job's plan first gives it GPUs.
            if let (false, Some(k)) = (self.admission, first.filter(|_| later)) {
                self.events.entry(k).or_default();
            }
        }
        for j in starts {
            self.start_job(j);
            self.add_end_event(j);
        }
    }

    /// Places every job holding GPUs, largest first (`ef`: the jobs of a
    /// machine or more in the order they started); the earliest change any
    /// plan makes after `t` (`ef`: a round at each running job's next
    /// change instead).
    fn place(&mut self, t: Secs) -> Result<Option<Secs>, Failed> {
        let order = if self.admission {
            let jobs = &self.jobs;
            self.runnable
                .sort_by_key(|j| std::cmp::Reverse(jobs[j].gpus));
            self.runnable.clone()
        } else {
            self.running.clone()
        };
        let mut change: Option<Secs> = None;
        let mut small = Vec::new();
        for j in order {
            let job = &self.jobs[&j];
            if let Some(k) = job.alloc.key_after(t) {
                match self.admission {
                    true => change = Some(change.map_or(k, |c| c.min(k))),
                    false => {
                        self.events.entry(k).or_default();
                    }
                }
            }
            if job.gpus >= self.gpn {
                self.put(j)?;
            } else if job.gpus > 0 {
                small.push(j);
            }
        }
        // Smaller jobs by size, largest first, each size in list order.
        let mut sizes: Vec<u32> = small.iter().map(|j| self.jobs[j].gpus).collect();
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        sizes.dedup();
        for g in sizes {
            for &j in &small {
                if self.jobs[&j].gpus == g {
                    self.put(j)?;
                }
            }
        }
        for (j, hit) in self.nodes.cache_hits() {
            if let Some(job) = self.jobs.get_mut(&j) {
                job.in_cache = hit;
            }
        }
        Ok(change)
    }

    pub(super) fn put(&mut self, j: u32) -> Result<(), Failed> {
        let g = self.jobs[&j].gpus;
        let id = self
            .nodes
            .place(j, g)
            .ok_or_else(|| Failed(format!("no node set holds job {j} on {g} GPUs")))?;
        self.jobs.get_mut(&j).expect("books").node_set = Some(id);
        Ok(())
    }

    /// A round at the earliest plan change, when nothing else is due by then.
    fn mark_change(&mut self, v: &dyn View, change: Option<Secs>) {
        let Some(c) = change else { return };
        let first = [self.events.keys().next().copied(), self.next_arrival(v)]
            .into_iter()
            .flatten()
            .min();
        if first.is_none_or(|f| c < f) {
            self.events.entry(c).or_default();
        }
    }

    /// Every job holding GPUs pays this round's overhead: its end moves.
    pub(super) fn charge_overheads(&mut self) {
        let restart = self.rounds > 0 && self.rounds.is_multiple_of(self.slot as u64);
        self.rounds += 1;
        if restart {
            self.nodes.clear_cache();
        }
        // In the order they started (ElasticFlow's `running_jobs`): the
        // order their end events take where several move to one time.
        for j in self.running.clone() {
            let job = self.jobs.get_mut(&j).expect("books");
            if job.gpus == 0 {
                job.overhead = 0;
                continue;
            }
            job.overhead = overhead(self.n, job.gpus, restart, job.in_cache);
            let old = job.end;
            job.end += job.overhead;
            self.move_end_event(j, old);
        }
    }

    /// What the engine is to do; a job whose work will have run out by
    /// the next round, before its end, ends when it runs out.
    pub(super) fn outcome(&self, t: Secs, mut out: Outcome) -> Outcome {
        for &j in &self.runnable {
            let job = &self.jobs[&j];
            if job.gpus == 0 {
                out.idle.push(j);
                continue;
            }
            let mut end = job.end;
            if let Some(next) = self.next {
                let tp = job.tp(job.gpus);
                let it = ran(next - t, next, job.finish(self.edf), job.overhead) as f64 * tp;
                if job.iter_left <= it && job.end > next {
                    end = (t + ceil_secs(job.iter_left / tp)).max(t + 1);
                }
            }
            out.hold.push((j, job.gpus, end));
        }
        // The largest first, so whole machines go before parts of one (the
        // runnable list is in that order already but under `ef`).
        out.hold.sort_by_key(|h| std::cmp::Reverse(h.1));
        out
    }
}

/// Seconds of progress in the `td` seconds to round `t`: up to the
/// planned finish, less the overhead charged.
fn ran(td: Secs, t: Secs, real_end: Secs, overhead: Secs) -> Secs {
    let mut run = td;
    if t > real_end {
        run -= t - real_end;
    }
    if run < overhead {
        0
    } else {
        run - overhead
    }
}

/// ElasticFlow's planner failed for job `j` at `t`.
pub(super) fn no_plan(j: u32, t: Secs) -> Failed {
    Failed(format!(
        "no plan for job {j} at {t}: its last planned step holds no GPU (ElasticFlow's own simulator stops there)"
    ))
}
