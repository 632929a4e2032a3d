//! A plan where no level meets the deadline (ElasticFlow's fallback in
//! `ef_sim_allocation`): the largest level it may hold, capped by what is
//! free, until the deadline; then at each later step what is free; past
//! the last step as if the whole cluster were free. It reads what it took
//! and every step, so it is planned tracked (`Planner::track`).

use super::super::maps::{align, ceil_secs};
use super::{Plan, Planner};
use tracetui_model::Secs;

impl Planner<'_> {
    /// No level meets the deadline: see the module notes.
    pub(super) fn fallback(&mut self, lq: u32, assigned: Option<u32>) -> Plan {
        // It may read every step: it is never taken as unchanged.
        self.reach = Secs::MAX;
        self.fell = true;
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
                let eet = align(self.job.slot, t, eret);
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
        let eet = align(self.job.slot, t, eret);
        self.nf.insert(lat, self.n as i64 - q3 as i64);
        self.nf.insert(eet, self.n as i64);
        self.done(eet, eret, true)
    }
}
