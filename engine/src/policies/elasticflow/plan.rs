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
use super::maps::{align, before, ceil_secs, gpu_secs, Alloc, Free};
use tracetui_model::Secs;

mod fallback;

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
    /// Its GPU-seconds (`gpu_secs` of its alloc to its end).
    pub(super) secs: i128,
}

/// Plans `job` at round time `t` on a cluster of `n` GPUs against the
/// reservations `f` (whose first key is `t`); with `assigned`, from that
/// many GPUs now (a probe). None where ElasticFlow's own planner fails (a
/// plan whose last step holds no GPU: it divides by zero there).
pub(super) fn plan(job: &Job, t: Secs, n: u32, f: &Free, assigned: Option<u32>) -> Option<Plan> {
    let mut p = Planner::new(job, t, n, f, Bufs::default());
    (p.keep, p.track) = (true, true);
    p.run(assigned)
}

/// Buffers a probe plans in, kept from one probe to the next.
#[derive(Debug, Clone, Default)]
pub(super) struct Bufs {
    pub(super) free: Free,
    pub(super) alloc: Alloc,
}

/// `plan` from `q` GPUs now, for its ends and GPU-seconds only: neither
/// its `free` nor (but in debug builds, to check the sum) its alloc is
/// made, unless no level meets the deadline — give both back to `bufs`
/// once read.
pub(super) fn probe(job: &Job, t: Secs, n: u32, f: &Free, q: u32, bufs: &mut Bufs) -> Option<Plan> {
    let mut p = Planner::new(job, t, n, f, std::mem::take(bufs));
    p.track = cfg!(debug_assertions);
    p.run(Some(q))
}

impl<'a> Planner<'a> {
    fn new(job: &'a Job, t: Secs, n: u32, f: &'a Free, mut bufs: Bufs) -> Self {
        bufs.alloc.reset_to(t, 0);
        let ad = align(job.slot, t, job.ddl);
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
            track: false,
            secs: 0,
            fell: false,
            ad_free: 0,
        }
    }

    fn run(mut self, assigned: Option<u32>) -> Option<Plan> {
        // The reservations with a step at the deadline: made only when
        // tracked; read, untracked, as `f` and `ad_free` (`build`).
        if self.track {
            self.nf.refill_from(self.f);
        }
        self.ad_free = self.f.get(self.ad).unwrap_or(self.n as i64);
        if !self.f.contains_key(self.ad) && self.ad >= self.t {
            self.leg = before(self.f, self.ad);
            self.ad_free = self.leg.unwrap_or(self.n as i64);
            if self.track {
                self.nf.insert(self.ad, self.ad_free);
            }
        }
        if let Some(q) = assigned {
            if let Some(done) = self.probe_now(q) {
                return Some(done);
            }
        }
        match self.quota() {
            Ok(plan) => plan,
            Err(lq) if self.track => Some(self.fallback(lq, assigned)),
            Err(_) => {
                // The fallback reads what it took: plan again, tracked.
                let bufs = Bufs {
                    free: std::mem::take(&mut self.nf),
                    alloc: std::mem::take(&mut self.a),
                };
                let mut again = Planner::new(self.job, self.t, self.n, self.f, bufs);
                (again.keep, again.track) = (self.keep, true);
                again.run(assigned)
            }
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
    /// Whether its alloc and `free` are made (else only its ends and
    /// GPU-seconds: a probe's, which reads no count it took).
    track: bool,
    /// Its GPU-seconds so far, summed as `gpu_secs` would its alloc
    /// (`Plan::secs`).
    secs: i128,
    /// Whether it fell back (then its GPU-seconds are its alloc's: it is
    /// always tracked).
    fell: bool,
    /// The free count at the deadline's step.
    ad_free: i64,
}

impl Planner<'_> {
    fn free_at(&self, k: Secs) -> i64 {
        self.nf.get(k).unwrap_or(0)
    }

    fn take(&mut self, k: Secs, g: u32) {
        if self.track {
            *self.nf.at_or_insert(k, 0) -= g as i64;
        }
    }

    /// `g` GPUs held from `k` to `to`, in its GPU-seconds.
    fn held(&mut self, g: u32, k: Secs, to: Secs) {
        self.secs += g as i128 * (to as i128 - k as i128);
    }

    fn done(&mut self, end: Secs, real_end: Secs, beyond: bool) -> Plan {
        let first = self.f.key_after(self.t);
        let alloc = std::mem::take(&mut self.a);
        let secs = if self.fell {
            gpu_secs(&alloc, end)
        } else {
            debug_assert!(!self.track || gpu_secs(&alloc, end) == self.secs);
            self.secs
        };
        Plan {
            alloc: if self.track { alloc.merged() } else { alloc },
            secs,
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
        if self.track {
            self.a.insert(t, q);
        }
        let tq = job.tp(q);
        let eret = ceil_secs(t as f64 + self.r / tq);
        let eet = align(self.job.slot, t, eret);
        if fet >= eet && job.ddl >= eret {
            self.held(q, t, eet);
            if !self.track {
                return Some(self.done(eet, eret, false));
            }
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
        self.held(q, t, fet);
        if self.track {
            self.a.insert(fet, 0);
        }
        None
    }

    /// The minimum satisfactory share, if some level meets the deadline
    /// (None: its plan failed); else the largest level tried.
    fn quota(&mut self) -> Result<Option<Plan>, u32> {
        let job = self.job;
        let (mut q, mut lq) = (job.next_level(0), 0);
        let mut keyed = false;
        while q <= self.n && q <= job.max_gpu() && q > 0 {
            // The steps before the deadline (the walk reads, never changes
            // them; they are `nf`'s, whose counts it has not taken yet).
            let steps = self.f.range(Secs::MIN, self.ad);
            if !keyed && self.track {
                self.a.fill_keys(steps, 0);
            }
            keyed = true;
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
        // The steps from `ev` to the deadline (`nf`'s), walked by index:
        // taking GPUs at a step only changes that step's count, so each is
        // read as given, before it is taken.
        if self.ad < self.ev {
            return None;
        }
        let head = self.f.range(self.ev, self.ad);
        let tail = (self.ad, self.ad_free);
        let step = |i: usize| head.get(i).copied().unwrap_or(tail);
        let (mut lo, hi) = (0, head.len() + 1);
        if lq == 0 {
            // It holds none before `point`, where its alloc is 0 already.
            lo = head.partition_point(|e| e.0 < point);
        }
        // Where the steps start in `nf` (tracked).
        let at_nf = self.nf.bounds(self.ev, self.ev).0;
        let (mut li, mut lat) = (lo, step(lo).0);
        let (mut la, mut tp) = rule(step(lo).1, lat);
        let mut at_a = 0;
        let mut fin = None;
        // GPU-seconds held up to the step (`held`, summed here).
        let (mut secs, mut r) = (0i128, self.r);
        for i in lo + 1..hi {
            let (e, free) = step(i);
            if self.track {
                self.a.put_from(&mut at_a, lat, la);
                *self.nf.value_mut(at_nf + li) -= la as i64;
            }
            if la == 0 {
                (li, lat) = (i, e);
                (la, tp) = rule(free, e);
                continue;
            }
            let dur = if e == self.ad { job.ddl - lat } else { e - lat };
            let it = dur as f64 * tp;
            if lat < point || it < r {
                r -= it;
                // Its alloc's next key: `e`, a step before the deadline or
                // the deadline, which it holds then (else it failed).
                secs += la as i128 * (e as i128 - lat as i128);
            } else {
                let rtl = ceil_secs(r / tp);
                let eet = lat + align(self.job.slot, 0, rtl);
                // Its alloc's next key: `e` before the deadline, else none.
                self.held(la, lat, if e < self.ad { e } else { eet });
                fin = Some((eet, lat + rtl));
                break;
            }
            (li, lat) = (i, e);
            (la, tp) = rule(free, e);
        }
        (self.secs, self.r) = (self.secs + secs, r);
        let (eet, eret) = match fin {
            Some(f) => f,
            None => self.run_out(la, lat, tp)?,
        };
        Some(self.finish(eet, eret))
    }

    /// The work left past the last step before the deadline: run to its
    /// end there on the `la` GPUs held from `lat` at rate `tp` (none held:
    /// no plan). Its (end aligned to a slot, exact end).
    fn run_out(&mut self, la: u32, lat: Secs, tp: f64) -> Option<(Secs, Secs)> {
        if la == 0 {
            return None;
        }
        if self.track {
            self.a.insert(lat, la);
        }
        self.take(lat, la);
        let rtl = ceil_secs(self.r / tp);
        self.held(la, lat, lat + align(self.job.slot, 0, rtl));
        Some((lat + align(self.job.slot, 0, rtl), lat + rtl))
    }

    /// The plan ending at `eet` (`eret` exact), its step kept in the free
    /// counts where they are kept.
    fn finish(&mut self, eet: Secs, eret: Secs) -> Plan {
        if self.keep && !self.f.contains_key(eet) {
            // The free count of the reservations given, in force before `eet`.
            let lg = self
                .f
                .range(self.ev, eet)
                .last()
                .map_or(self.n as i64, |e| e.1);
            self.nf.insert(eet, lg);
        }
        self.done(eet, eret, false)
    }
}
