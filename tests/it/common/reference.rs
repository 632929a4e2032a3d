//! A deliberately naive reference simulator for whole-GPU jobs: every pass
//! walks the whole queue in order and every placement scans every machine.
//! Written from the rules in the README, independently of the engine's
//! indices and shape classes, so agreement between the two is evidence that
//! the fast engine implements the rules.

use tracetui::sim::{Placement, Policy};
use tracetui::trace::{Demand, Trace};

type Free = Vec<Vec<bool>>; // machine → GPU → free
/// (end, job, GPUs held)
type Running = (i64, usize, Vec<(usize, usize)>);

fn free_count(f: &Free, m: usize) -> u32 {
    f[m].iter().filter(|&&x| x).count() as u32
}

fn lowest(f: &Free, m: usize, k: u32) -> Vec<(usize, usize)> {
    f[m].iter()
        .enumerate()
        .filter(|(_, &x)| x)
        .take(k as usize)
        .map(|(g, _)| (m, g))
        .collect()
}

/// Naive placement of `k` whole GPUs.
pub fn place(f: &Free, rule: Placement, k: u32) -> Option<Vec<(usize, usize)>> {
    let n = f.len();
    let cap = |m: usize| f[m].len() as u32;
    let total: u32 = (0..n).map(|m| free_count(f, m)).sum();
    if k > total {
        return None;
    }
    let max = (0..n).map(cap).max().unwrap_or(0);
    let local = if k <= max {
        let pick = match rule {
            Placement::Spread => (0..n)
                .filter(|&m| free_count(f, m) > 0)
                .max_by_key(|&m| (free_count(f, m), std::cmp::Reverse(m)))
                .filter(|&m| free_count(f, m) >= k),
            _ => (0..n)
                .filter(|&m| free_count(f, m) >= k)
                .min_by_key(|&m| (free_count(f, m), m)),
        };
        pick.map(|m| lowest(f, m, k))
    } else {
        let mut whole: Vec<usize> = (0..n)
            .filter(|&m| cap(m) > 0 && free_count(f, m) == cap(m))
            .collect();
        whole.sort_by_key(|&m| (std::cmp::Reverse(cap(m)), m));
        let mut rem = k;
        let mut taken = Vec::new();
        for m in whole {
            if rem > 0 && cap(m) <= rem {
                taken.push(m);
                rem -= cap(m);
            }
        }
        let mut out: Vec<(usize, usize)> =
            taken.iter().flat_map(|&m| lowest(f, m, cap(m))).collect();
        if rem > 0 {
            let r = (0..n)
                .filter(|m| !taken.contains(m) && free_count(f, *m) >= rem)
                .min_by_key(|&m| (free_count(f, m), m));
            match r {
                Some(r) => out.extend(lowest(f, r, rem)),
                None => return relaxed(f, rule, k),
            }
        }
        Some(out)
    };
    match local {
        Some(v) => Some(v),
        None => relaxed(f, rule, k),
    }
}

fn relaxed(f: &Free, rule: Placement, k: u32) -> Option<Vec<(usize, usize)>> {
    if rule != Placement::Pack {
        return None;
    }
    let mut ms: Vec<usize> = (0..f.len()).filter(|&m| free_count(f, m) > 0).collect();
    ms.sort_by_key(|&m| (free_count(f, m), m));
    let mut rem = k;
    let mut out = Vec::new();
    for m in ms {
        let take = free_count(f, m).min(rem);
        out.extend(lowest(f, m, take));
        rem -= take;
        if rem == 0 {
            return Some(out);
        }
    }
    None
}

struct Res {
    head: usize,
    shadow: i64,
    avail: Vec<(usize, u32)>,
}

/// The naive simulator's state between instants.
struct Naive<'a> {
    trace: &'a Trace,
    policy: Policy,
    rule: Placement,
    /// The cluster with every GPU free (a job that cannot fit it is rejected).
    empty: Free,
    free: Free,
    /// Jobs by (submit, index), and each job's place in that order.
    order: Vec<usize>,
    rank: Vec<usize>,
    next: usize,
    queue: Vec<usize>,
    running: Vec<Running>,
    start: Vec<Option<i64>>,
    res: Option<Res>,
}

impl Naive<'_> {
    fn gpus(&self, j: usize) -> u32 {
        match self.trace.jobs[j].demand {
            Demand::Gang { gpus } => gpus,
            _ => panic!("reference handles whole-GPU jobs only"),
        }
    }

    fn rt(&self, j: usize) -> i64 {
        self.trace.jobs[j].runtime.get().unwrap()
    }

    /// Queue order: the policy's key, then arrival.
    fn key(&self, j: usize) -> (u64, usize) {
        let r = self.rt(j) as u64;
        let k = match self.policy {
            p if p == Policy::Sjf => r,
            p if p == Policy::Sgf => r * self.gpus(j) as u64 * 1000,
            _ => 0,
        };
        (k, self.rank[j])
    }

    /// The next instant: an arrival or a completion; `None` when done.
    fn next_time(&self) -> Option<i64> {
        let ta = self
            .order
            .get(self.next)
            .map(|&j| self.trace.jobs[j].submit);
        let tc = self.running.iter().map(|r| r.0).min();
        match (ta, tc) {
            (Some(a), Some(c)) => Some(a.min(c)),
            (a, c) => a.or(c),
        }
    }

    /// Completions at `t` free their GPUs.
    fn complete(&mut self, t: i64) {
        self.running.sort_by_key(|r| (r.0, r.1));
        while self.running.first().is_some_and(|r| r.0 == t) {
            let (_, _, g) = self.running.remove(0);
            for (m, x) in g {
                self.free[m][x] = true;
            }
        }
    }

    /// Arrivals at `t` join the queue (unless the whole cluster could not hold them).
    fn arrive(&mut self, t: i64) {
        let n = self.order.len();
        while self.next < n && self.trace.jobs[self.order[self.next]].submit == t {
            let j = self.order[self.next];
            self.next += 1;
            if place(&self.empty, self.rule, self.gpus(j)).is_some() {
                self.queue.push(j);
            }
        }
    }

    fn begin(&mut self, t: i64, j: usize, g: Vec<(usize, usize)>) {
        for &(m, x) in &g {
            self.free[m][x] = false;
        }
        self.start[j] = Some(t);
        self.running.push((t + self.rt(j), j, g));
    }

    /// Strict order: the head starts or blocks the queue.
    fn fifo(&mut self, t: i64) {
        while let Some(&h) = self.queue.first() {
            match place(&self.free, self.rule, self.gpus(h)) {
                Some(g) => {
                    self.queue.remove(0);
                    self.begin(t, h, g);
                }
                None => break,
            }
        }
    }

    /// EASY: later jobs start if they end before the head's shadow time or
    /// use only GPUs its reservation leaves.
    fn backfill(&mut self, t: i64) {
        let h = self.queue[0];
        if self.res.as_ref().is_none_or(|r| r.head != h) {
            self.res = Some(reserve(
                h,
                self.gpus(h),
                self.rule,
                &self.free,
                &self.running,
            ));
        }
        let mut i = 1;
        while i < self.queue.len() {
            let j = self.queue[i];
            if let Some(g) = place(&self.free, self.rule, self.gpus(j)) {
                let r = self.res.as_mut().unwrap();
                let short = t + self.trace.jobs[j].runtime.get().unwrap() <= r.shadow;
                let uses = per_machine(&g);
                let fits_plan = uses
                    .iter()
                    .all(|&(m, u)| r.avail.iter().find(|a| a.0 == m).is_none_or(|a| u <= a.1));
                if short || fits_plan {
                    if !short {
                        for (m, u) in uses {
                            if let Some(a) = r.avail.iter_mut().find(|a| a.0 == m) {
                                a.1 = a.1.saturating_sub(u);
                            }
                        }
                    }
                    self.queue.remove(i);
                    self.begin(t, j, g);
                    continue;
                }
            }
            i += 1;
        }
    }

    /// Every job that fits starts, in queue order.
    fn greedy(&mut self, t: i64) {
        let mut i = 0;
        while i < self.queue.len() {
            let j = self.queue[i];
            if let Some(g) = place(&self.free, self.rule, self.gpus(j)) {
                self.queue.remove(i);
                self.begin(t, j, g);
            } else {
                i += 1;
            }
        }
    }
}

/// Start times by the naive rules.
pub fn simulate(trace: &Trace, policy: Policy, rule: Placement) -> Vec<Option<i64>> {
    let n = trace.jobs.len();
    let empty: Free = trace
        .cluster
        .machines
        .iter()
        .map(|m| vec![true; m.gpus as usize])
        .collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&j| (trace.jobs[j].submit, j));
    let mut rank = vec![0; n];
    for (r, &j) in order.iter().enumerate() {
        rank[j] = r;
    }
    let mut s = Naive {
        trace,
        policy,
        rule,
        free: empty.clone(),
        empty,
        order,
        rank,
        next: 0,
        queue: Vec::new(),
        running: Vec::new(),
        start: vec![None; n],
        res: None,
    };
    while let Some(t) = s.next_time() {
        s.complete(t);
        s.arrive(t);
        let mut queue = std::mem::take(&mut s.queue);
        queue.sort_by_key(|&j| s.key(j));
        s.queue = queue;
        match policy {
            p if p == Policy::Fifo || p == Policy::FifoBackfill => {
                s.fifo(t);
                if policy == Policy::FifoBackfill && !s.queue.is_empty() {
                    s.backfill(t);
                }
            }
            _ => s.greedy(t),
        }
    }
    s.start
}

fn per_machine(g: &[(usize, usize)]) -> Vec<(usize, u32)> {
    let mut v: Vec<(usize, u32)> = Vec::new();
    for &(m, _) in g {
        match v.iter_mut().find(|x| x.0 == m) {
            Some(x) => x.1 += 1,
            None => v.push((m, 1)),
        }
    }
    v
}

fn reserve(head: usize, k: u32, rule: Placement, free: &Free, running: &[Running]) -> Res {
    let mut f = free.clone();
    let mut rs: Vec<_> = running.to_vec();
    rs.sort_by_key(|r| (r.0, r.1));
    let mut i = 0;
    while i < rs.len() {
        let t = rs[i].0;
        while i < rs.len() && rs[i].0 == t {
            for &(m, x) in &rs[i].2 {
                f[m][x] = true;
            }
            i += 1;
        }
        if let Some(plan) = place(&f, rule, k) {
            let avail = per_machine(&plan)
                .into_iter()
                .map(|(m, u)| (m, free_count(&f, m) - u))
                .collect();
            return Res {
                head,
                shadow: t,
                avail,
            };
        }
    }
    Res {
        head,
        shadow: i64::MAX,
        avail: Vec::new(),
    }
}
