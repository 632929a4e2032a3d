"""ElasticFlow's plan for one job (its `ef_sim_allocation`; the built-in's
`plan.rs`): against the reservations of the jobs planned before it, the
least GPUs from which it meets its deadline ("minimum satisfactory
share"), taken as late as possible; or, where no level meets it, all it
can get until the deadline and then what is free. A probe plans it from a
given level now (to weigh growing it, `grow.py`).

The rules, in ElasticFlow's order (times on the slot grid from the round's
time `t`; `ad` the deadline rounded up to it):
- Quota: for each level `q` from the smallest, walk the reservation steps
  back from `ad`, giving each `q` GPUs (or the largest level that is free
  there), until the iterations add up; the step where they do is `P`. The
  first `q` that works is the plan: the level before `q` before `P`, `q`
  from `P` on, finishing inside the step where the work runs out (its end
  rounded up to the grid).
- Fallback: the largest level (capped by what is free) until `ad`, then at
  each later step what is free, then past the last step as if the whole
  cluster were free.
"""

from bisect import bisect_left

from .maps import SECS_MAX, SECS_MIN, Steps, align, ceil_secs, fdiv


class Plan:
    __slots__ = ("alloc", "free", "end", "real_end", "beyond")

    def __init__(self, alloc, free, end, real_end, beyond):
        self.alloc = alloc
        self.free = free
        self.end = end
        self.real_end = real_end
        self.beyond = beyond


def plan(job, t, n, f, assigned):
    """ElasticFlow's plan for `job` at `t` against reservations `f`; with
    `assigned`, a probe from that many GPUs now. None where it fails."""
    p = Planner(job, t, n, f)
    if not p.nf.contains(p.ad) and p.ad >= t:
        lb = p.nf.last_before(p.ad)
        p.leg = lb[1] if lb is not None else None
        p.nf.insert(p.ad, p.leg if p.leg is not None else n)
    if assigned is not None:
        done = p.probe_now(assigned)
        if done is not None:
            return done
    ok, res = p.quota()
    if ok:
        return res
    return p.fallback(res, assigned)


class Planner:
    __slots__ = ("job", "t", "n", "f", "ev", "r", "a", "nf", "ad", "leg")

    def __init__(self, job, t, n, f):
        self.job = job
        self.t = t
        self.n = n
        self.f = f
        self.ev = t
        self.r = job.iter_left
        self.a = Steps([t], [0])
        self.nf = f.clone()
        self.ad = align(t, job.ddl)
        self.leg = None

    def free_at(self, k):
        g = self.nf.get(k)
        return 0 if g is None else g

    def take(self, k, g):
        i = self.nf.at_or_insert(k, 0)
        self.nf.v[i] -= g

    def done(self, end, real_end, beyond):
        a, nf = self.a, self.nf
        self.a, self.nf = Steps([], []), Steps([], [])
        return Plan(a.merged(), nf.merged(), end, real_end, beyond)

    def probe_now(self, q):
        t, job = self.t, self.job
        fet = self.f.key_after(t)
        if fet is None:
            fet = self.ad
        self.a.insert(t, q)
        tq = job.tp(q)
        eret = ceil_secs(float(t) + fdiv(self.r, tq))
        eet = align(t, eret)
        if fet >= eet and job.ddl >= eret:
            for k in self.f.keys_in(t, eet):
                self.leg = self.free_at(k)
                self.take(k, q)
            if t != eet:
                avail = self.f.get(t)
                if avail is None:
                    avail = self.n
                self.nf.insert(t, avail - q)
            if not self.f.contains(eet):
                self.nf.insert(eet, self.leg if self.leg is not None else self.n)
            return self.done(eet, eret, False)
        dur = job.ddl - t if fet == self.ad else fet - t
        self.r -= float(dur) * tq
        self.take(t, q)
        self.ev = fet
        self.a.insert(fet, 0)
        return None

    def quota(self):
        """(True, plan or None) for the minimum satisfactory share; else
        (False, the largest level tried)."""
        job = self.job
        q, lq = job.next_level(0), 0
        keyed = False
        maxg = job.max_gpu()
        while q <= self.n and q <= maxg and q > 0:
            a0, b0 = self.nf.range_idx(SECS_MIN, self.ad)
            if not keyed:
                self.a.fill_keys(self.nf.k[a0:b0], 0)
                keyed = True
            pend, acc, point = self.ad, 0.0, None
            ks, vs = self.nf.k, self.nf.v
            ev, ad, ddl, r = self.ev, self.ad, job.ddl, self.r
            counts, tp, rate_by = job.counts, job.tp, job.rate_by
            for i in range(b0 - 1, a0 - 1, -1):
                p = ks[i]
                if p < ev:
                    break
                c = bisect_left(counts, vs[i] + 1)
                a = counts[c - 1] if c else 0     # last_level(free + 1)
                if a > q:
                    a = q
                if a == 0:
                    pend = p
                    continue
                dur = ddl - p if pend == ad else pend - p
                rate = rate_by.get(a)
                acc += float(dur) * (tp(a) if rate is None else rate)
                if acc >= r:
                    point = p
                    break
                pend = p
            if point is not None:
                return True, self.build(q, lq, point)
            lq = q
            q = job.next_level(q)
            if q == lq:
                break
        return False, lq

    def build(self, q, lq, point):
        job = self.job
        nf = self.nf

        def rule(free, e):
            want = q if e >= point else lq
            return min(want, job.last_level(free + 1))

        lo, hi = nf.bounds(self.ev, self.ad + 1)
        if lo >= hi:
            return None
        ks, vs = nf.k, nf.v
        li, lat = lo, ks[lo]
        la = rule(vs[lo], lat)
        at_a = 0
        fin = None
        a_k, a_v = self.a.k, self.a.v
        ad, ddl, tp = self.ad, job.ddl, job.tp
        counts, rate_by = job.counts, job.rate_by
        r = self.r
        for i in range(lo + 1, hi):
            e = ks[i]
            # put lat -> la into the plan, searching from at_a (keys ascending)
            na = len(a_k)
            while at_a < na and a_k[at_a] < lat:
                at_a += 1
            if at_a < na and a_k[at_a] == lat:
                a_v[at_a] = la
            else:
                a_k.insert(at_a, lat)
                a_v.insert(at_a, la)
            vs[li] -= la
            if la != 0:
                dur = ddl - lat if e == ad else e - lat
                rate = rate_by.get(la)
                if rate is None:
                    rate = tp(la)
                it = float(dur) * rate
                if lat < point or it < r:
                    r -= it
                else:
                    rtl = ceil_secs(fdiv(r, rate))
                    fin = (lat + align(0, rtl), lat + rtl)
                    break
            li, lat = i, e
            # la = rule(vs[i], e), inline
            c = bisect_left(counts, vs[i] + 1)
            x = counts[c - 1] if c else 0
            want = q if e >= point else lq
            la = want if want < x else x
        self.r = r
        if fin is None:
            if la == 0:
                return None
            self.a.insert(lat, la)
            self.take(lat, la)
            rtl = ceil_secs(fdiv(self.r, job.tp(la)))
            fin = (lat + align(0, rtl), lat + rtl)
        eet, eret = fin
        a0, b0 = self.f.range_idx(self.ev, eet)
        lg = self.f.v[b0 - 1] if b0 > a0 else self.n
        if not self.f.contains(eet):
            self.nf.insert(eet, lg)
        return self.done(eet, eret, False)

    def fallback(self, lq, assigned):
        job = self.job
        t, ad = self.t, self.ad
        keys = self.nf.keys_in(self.ev, ad + 1)
        if keys:
            def cap(e):
                return min(lq, job.last_level(self.free_at(e) + 1))
            lat = keys[0]
            la = cap(lat)
            for e in keys[1:]:
                self.a.insert(lat, la)
                self.take(lat, la)
                if la != 0:
                    dur = job.ddl - lat if e == ad else e - lat
                    self.r -= float(dur) * job.tp(la)
                lat = e
                la = cap(e)
        lat = max(ad, self.ev)
        later = self.nf.keys_in(ad + 1, SECS_MAX)
        for e in later:
            q2 = min(job.last_level(self.free_at(lat) + 1), job.max_gpu())
            if q2 == 0:
                self.a.insert(lat, 0)
                lat = e
                continue
            self.a.insert(lat, q2)
            tp = job.tp(q2)
            it = float(e - lat) * tp
            if it >= self.r:
                eret = ceil_secs(float(lat) + fdiv(self.r, tp))
                eet = align(t, eret)
                for e1 in self.nf.keys_in(ad, SECS_MAX):
                    if e1 < eet:
                        v = self.f.get(e1)
                        if v is not None:
                            self.leg = v
                    if lat <= e1 < eet:
                        self.take(e1, q2)
                leg = self.leg if self.leg is not None else self.n
                if lat != eet:
                    self.nf.insert(lat, leg - q2)
                if not self.f.contains(eet):
                    self.nf.insert(eet, leg)
                return self.done(eet, eret, False)
            self.r -= it
            lb = self.f.last_before(lat)
            if lb is not None:
                self.leg = self.free_at(lb[0])
            for k in self.nf.keys_in(lat, e):
                self.take(k, q2)
            lat = e
        q3 = assigned if assigned is not None else min(self.n, job.max_gpu())
        self.a.insert(lat, q3)
        eret = ceil_secs(float(lat) + fdiv(self.r, job.tp(q3)))
        eet = align(t, eret)
        self.nf.insert(lat, self.n - q3)
        self.nf.insert(eet, self.n)
        return self.done(eet, eret, True)
