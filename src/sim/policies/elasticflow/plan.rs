//! ElasticFlow's plan for one job (its `ef_sim_allocation`): against the
//! reservations of the jobs planned before it, the least GPUs from which
//! it meets its deadline ("minimum satisfactory share"), taken as late as
//! possible; or, where no level meets it, all it can get until the
//! deadline and then what is free. A probe plans it from a given level
//! now (to weigh growing it, `grow.rs`).
//!
//! The rules, in ElasticFlow's order (times on the slot grid from the
//! round's time `t`; `ad` the deadline rounded up to it):
//! - Quota: for each level `q` from the smallest, walk the reservation
//!   steps back from `ad`, giving each `q` GPUs (or the largest level that
//!   is free there), until the iterations add up; the step where they do
//!   is `P`. The first `q` that works is the plan: the level before `q`
//!   before `P`, `q` from `P` on, finishing inside the step where the work
//!   runs out (its end rounded up to the grid).
//! - Fallback: the largest level (capped by what is free) until `ad`, then
//!   at each later step what is free, then past the last step as if the
//!   whole cluster were free.

use super::job::Job;
use super::maps::{align, before, ceil_secs, Alloc, Free};
use crate::trace::model::Secs;

/// A job's plan, and the reservations with it.
#[derive(Debug, Clone)]
pub(super) struct Plan {
    pub(super) alloc: Alloc,
    pub(super) free: Free,
    /// Its finish on the grid (the end of its last step).
    pub(super) end: Secs,
    /// Its finish to the second.
    pub(super) real_end: Secs,
    /// Planned past the last step, on a whole free cluster.
    pub(super) beyond: bool,
    /// How far its plan read the reservations: its alloc and ends are the
    /// same on any reservations with the same steps after `t` up to here
    /// (`Secs::MAX`: all of them). Their count at `t` it never reads.
    pub(super) reach: Secs,
    /// The reservations' first step after `t` (None: there is none).
    pub(super) first: Option<Secs>,
    /// The first step it read after `first`: it read neither the counts
    /// nor the steps between the two (its share starts at `from`, and it
    /// holds nothing before it; else `from` is `first`).
    pub(super) from: Option<Secs>,
}

/// Plans `job` at round time `t` on a cluster of `n` GPUs against the
/// reservations `f` (whose first key is `t`); with `assigned`, from that
/// many GPUs now (a probe). None where ElasticFlow's own planner fails (a
/// plan whose last step holds no GPU: it divides by zero there).
pub(super) fn plan(job: &Job, t: Secs, n: u32, f: &Free, assigned: Option<u32>) -> Option<Plan> {
    let mut p = Planner::new(job, t, n, f, Bufs::default());
    p.keep = true;
    p.run(assigned)
}

/// Buffers a probe plans in, kept from one probe to the next.
#[derive(Debug, Clone, Default)]
pub(super) struct Bufs {
    pub(super) free: Free,
    pub(super) alloc: Alloc,
}

/// `plan` from `q` GPUs now, for its alloc and ends only: its `free` is
/// left as planned, not merged — give it back to `bufs` with its alloc
/// once read.
pub(super) fn probe(job: &Job, t: Secs, n: u32, f: &Free, q: u32, bufs: &mut Bufs) -> Option<Plan> {
    Planner::new(job, t, n, f, std::mem::take(bufs)).run(Some(q))
}

impl<'a> Planner<'a> {
    fn new(job: &'a Job, t: Secs, n: u32, f: &'a Free, mut bufs: Bufs) -> Self {
        bufs.free.refill_from(f);
        bufs.alloc.reset_to(t, 0);
        let ad = align(t, job.ddl);
        Planner {
            job,
            t,
            n,
            f,
            ev: t,
            r: job.iter_left,
            a: bufs.alloc,
            nf: bufs.free,
            ad,
            leg: None,
            reach: ad.max(t),
            from: None,
            keep: false,
        }
    }

    fn run(mut self, assigned: Option<u32>) -> Option<Plan> {
        if !self.nf.contains_key(self.ad) && self.ad >= self.t {
            self.leg = before(&self.nf, self.ad);
            self.nf.insert(self.ad, self.leg.unwrap_or(self.n as i64));
        }
        if let Some(q) = assigned {
            if let Some(done) = self.probe_now(q) {
                return Some(done);
            }
        }
        match self.quota() {
            Ok(plan) => plan,
            Err(lq) => Some(self.fallback(lq, assigned)),
        }
    }
}

struct Planner<'a> {
    job: &'a Job,
    t: Secs,
    n: u32,
    f: &'a Free,
    /// Where the plan still to make starts.
    ev: Secs,
    /// Iterations still to plan.
    r: f64,
    a: Alloc,
    nf: Free,
    ad: Secs,
    /// The free count last read (ElasticFlow's `last_event_gpu`).
    leg: Option<i64>,
    /// The latest step read so far (see `Plan::reach`).
    reach: Secs,
    /// Where its share starts, if it holds nothing before (see `Plan::from`).
    from: Option<Secs>,
    /// Whether its `free` is wanted (merged), or only its alloc and ends.
    keep: bool,
}

impl Planner<'_> {
    fn free_at(&self, k: Secs) -> i64 {
        self.nf.get(k).unwrap_or(0)
    }

    fn take(&mut self, k: Secs, g: u32) {
        *self.nf.at_or_insert(k, 0) -= g as i64;
    }

    fn done(&mut self, end: Secs, real_end: Secs, beyond: bool) -> Plan {
        let first = self.f.key_after(self.t);
        Plan {
            alloc: std::mem::take(&mut self.a).merged(),
            free: if self.keep {
                std::mem::take(&mut self.nf).merged()
            } else {
                std::mem::take(&mut self.nf)
            },
            end,
            real_end,
            beyond,
            reach: self.reach.max(end),
            first,
            from: self.from.or(first),
        }
    }

    /// A probe at `q` GPUs now: the plan, if it finishes on time before
    /// the next reservation step; else the work done until then is
    /// counted and planning goes on from that step.
    fn probe_now(&mut self, q: u32) -> Option<Plan> {
        let (t, job) = (self.t, self.job);
        let first = self.f.key_after(t);
        let fet = first.unwrap_or(self.ad);
        self.reach = self.reach.max(first.unwrap_or(Secs::MAX));
        self.a.insert(t, q);
        let tq = job.tp(q);
        let eret = ceil_secs(t as f64 + self.r / tq);
        let eet = align(t, eret);
        if fet >= eet && job.ddl >= eret {
            for k in self.f.keys_in(t, eet) {
                self.leg = Some(self.free_at(k));
                self.take(k, q);
            }
            if t != eet {
                let avail = self.f.get(t).unwrap_or(self.n as i64);
                self.nf.insert(t, avail - q as i64);
            }
            if !self.f.contains_key(eet) {
                self.nf.insert(eet, self.leg.unwrap_or(self.n as i64));
            }
            return Some(self.done(eet, eret, false));
        }
        let dur = if fet == self.ad { job.ddl - t } else { fet - t };
        self.r -= dur as f64 * tq;
        self.take(t, q);
        self.ev = fet;
        self.a.insert(fet, 0);
        None
    }

    /// The minimum satisfactory share, if some level meets the deadline
    /// (None: its plan failed); else the largest level tried.
    fn quota(&mut self) -> Result<Option<Plan>, u32> {
        let job = self.job;
        let (mut q, mut lq) = (job.next_level(0), 0);
        let mut keyed = false;
        while q <= self.n && q <= job.max_gpu() && q > 0 {
            // The steps before the deadline (the walk reads, never changes them).
            let steps = self.nf.range(Secs::MIN, self.ad);
            if !keyed {
                self.a.fill_keys(steps, 0);
                keyed = true;
            }
            // A level too slow to do the work from `ev` to the deadline
            // even with every GPU it asks for is not walked: with a
            // margin far above the sum's rounding, its walk would fail.
            let point = if job.most_in(q, self.ad - self.ev) * (1.0 + 1e-9) >= self.r {
                self.walk(steps, q)
            } else {
                debug_assert_eq!(self.walk(steps, q), None, "a level skipped would do");
                None
            };
            if let Some(p) = point {
                if lq == 0 {
                    self.from = Some(p);
                }
                return Ok(self.build(q, lq, p));
            }
            lq = q;
            q = job.next_level(q);
            if q == lq {
                break;
            }
        }
        Err(lq)
    }

    /// The walk of the quota at level `q` over `steps` (the reservations
    /// before the deadline), back from the deadline to `ev`: the step
    /// where the iterations it could do add up to the work left (`P`).
    fn walk(&self, steps: &[(Secs, i64)], q: u32) -> Option<Secs> {
        let job = self.job;
        let (mut pend, mut acc) = (self.ad, 0.0f64);
        for &(p, free) in steps.iter().rev() {
            if p < self.ev {
                break;
            }
            let (a, tp) = job.share(q, free);
            if a == 0 {
                pend = p;
                continue;
            }
            let dur = if pend == self.ad {
                job.ddl - p
            } else {
                pend - p
            };
            acc += dur as f64 * tp;
            if acc >= self.r {
                return Some(p);
            }
            pend = p;
        }
        None
    }

    /// The plan from `ev`: `lq` GPUs (or fewer, where fewer are free)
    /// before `point`, `q` from it on, up to the step where the work runs out.
    fn build(&mut self, q: u32, lq: u32, point: Secs) -> Option<Plan> {
        let job = self.job;
        // What it holds at a step with `free` GPUs free, and its rate there.
        let rule = |free: i64, e: Secs| job.share(if e >= point { q } else { lq }, free);
        // The steps from `ev` to the deadline, walked by index: taking
        // GPUs at a step only changes that step's count.
        let (mut lo, hi) = self.nf.bounds(self.ev, self.ad + 1);
        if lo >= hi {
            return None;
        }
        if lq == 0 {
            // It holds none before `point`, where its alloc is 0 already.
            lo = self.nf.bounds(point, point).0;
        }
        let (mut li, mut lat) = (lo, self.nf.key(lo));
        let (mut la, mut tp) = rule(self.nf.value(lo), lat);
        let mut at_a = 0;
        let mut fin = None;
        for i in lo + 1..hi {
            let e = self.nf.key(i);
            self.a.put_from(&mut at_a, lat, la);
            *self.nf.value_mut(li) -= la as i64;
            if la == 0 {
                (li, lat) = (i, e);
                (la, tp) = rule(self.nf.value(i), e);
                continue;
            }
            let dur = if e == self.ad { job.ddl - lat } else { e - lat };
            let it = dur as f64 * tp;
            if lat < point || it < self.r {
                self.r -= it;
            } else {
                let rtl = ceil_secs(self.r / tp);
                fin = Some((lat + align(0, rtl), lat + rtl));
                break;
            }
            (li, lat) = (i, e);
            (la, tp) = rule(self.nf.value(i), e);
        }
        let (eet, eret) = match fin {
            Some(f) => f,
            None => {
                if la == 0 {
                    return None;
                }
                self.a.insert(lat, la);
                self.take(lat, la);
                let rtl = ceil_secs(self.r / tp);
                (lat + align(0, rtl), lat + rtl)
            }
        };
        // The free count of the reservations given, in force before `eet`.
        let lg = self
            .f
            .range(self.ev, eet)
            .last()
            .map_or(self.n as i64, |e| e.1);
        if self.keep && !self.f.contains_key(eet) {
            self.nf.insert(eet, lg);
        }
        Some(self.done(eet, eret, false))
    }

    /// No level meets the deadline: see the module notes.
    fn fallback(&mut self, lq: u32, assigned: Option<u32>) -> Plan {
        // It may read every step: it is never taken as unchanged.
        self.reach = Secs::MAX;
        let job = self.job;
        let (t, ad) = (self.t, self.ad);
        // Until the deadline: the largest level, capped by what is free;
        // the last step (at `ad`) is left to what follows.
        let keys = self.nf.keys_in(self.ev, ad + 1);
        if let Some(&first) = keys.first() {
            let cap = |pl: &Planner, e: Secs| lq.min(job.last_level(pl.free_at(e) + 1));
            let (mut lat, mut la) = (first, cap(self, first));
            for &e in &keys[1..] {
                self.a.insert(lat, la);
                self.take(lat, la);
                if la != 0 {
                    let dur = if e == ad { job.ddl - lat } else { e - lat };
                    self.r -= dur as f64 * job.tp(la);
                }
                lat = e;
                la = cap(self, e);
            }
        }
        // After it: what is free at each step.
        let mut lat = ad.max(self.ev);
        let later = self.nf.keys_in(ad + 1, Secs::MAX);
        for e in later {
            let q2 = job.last_level(self.free_at(lat) + 1).min(job.max_gpu());
            if q2 == 0 {
                self.a.insert(lat, 0);
                lat = e;
                continue;
            }
            self.a.insert(lat, q2);
            let tp = job.tp(q2);
            let it = (e - lat) as f64 * tp;
            if it >= self.r {
                let eret = ceil_secs(lat as f64 + self.r / tp);
                let eet = align(t, eret);
                let keys = self.nf.keys_in(ad, Secs::MAX);
                for e1 in keys {
                    if e1 < eet {
                        if let Some(v) = self.f.get(e1) {
                            self.leg = Some(v);
                        }
                    }
                    if lat <= e1 && e1 < eet {
                        self.take(e1, q2);
                    }
                }
                let leg = self.leg.unwrap_or(self.n as i64);
                if lat != eet {
                    self.nf.insert(lat, leg - q2 as i64);
                }
                if !self.f.contains_key(eet) {
                    self.nf.insert(eet, leg);
                }
                return self.done(eet, eret, false);
            }
            self.r -= it;
            if let Some((k, _)) = self.f.last_before(lat) {
                self.leg = Some(self.free_at(k));
            }
            for k in self.nf.keys_in(lat, e) {
                self.take(k, q2);
            }
            lat = e;
        }
        // Past the last step, as if the whole cluster were free.
        let q3 = assigned.unwrap_or_else(|| self.n.min(job.max_gpu()));
        self.a.insert(lat, q3);
        let eret = ceil_secs(lat as f64 + self.r / job.tp(q3));
        let eet = align(t, eret);
        self.nf.insert(lat, self.n as i64 - q3 as i64);
        self.nf.insert(eet, self.n as i64);
        self.done(eet, eret, true)
    }
}
