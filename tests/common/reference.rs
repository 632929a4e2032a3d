//! A deliberately naive reference simulator for whole-GPU jobs: every pass
//! walks the whole queue in order and every placement scans every machine.
//! Written from the rules in the README, independently of the engine's
//! indices and shape classes, so agreement between the two is evidence that
//! the fast engine implements the rules.

use tracetui::sim::{Placement, Policy};
use tracetui::trace::model::{Demand, Trace};

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

/// Start times by the naive rules.
pub fn simulate(trace: &Trace, policy: Policy, rule: Placement) -> Vec<Option<i64>> {
    let n = trace.jobs.len();
    let gpus = |j: usize| match trace.jobs[j].demand {
        Demand::Gang { gpus } => gpus,
        _ => panic!("reference handles whole-GPU jobs only"),
    };
    let rt = |j: usize| trace.jobs[j].runtime.unwrap();
    let empty: Free = trace
        .cluster
        .machines
        .iter()
        .map(|m| vec![true; m.gpus as usize])
        .collect();
    let mut free = empty.clone();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&j| (trace.jobs[j].submit, j));
    let mut rank = vec![0; n];
    for (r, &j) in order.iter().enumerate() {
        rank[j] = r;
    }
    let mut next = 0;
    let mut queue: Vec<usize> = Vec::new();
    let mut running: Vec<Running> = Vec::new();
    let mut start = vec![None; n];
    let mut res: Option<Res> = None;
    let key = |j: usize| -> (u64, usize) {
        let r = rt(j) as u64;
        let k = match policy {
            Policy::Sjf => r,
            Policy::Sgf => r * gpus(j) as u64 * 1000,
            _ => 0,
        };
        (k, rank[j])
    };
    loop {
        let ta = order.get(next).map(|&j| trace.jobs[j].submit);
        let tc = running.iter().map(|r| r.0).min();
        let t = match (ta, tc) {
            (Some(a), Some(c)) => a.min(c),
            (a, c) => match a.or(c) {
                Some(t) => t,
                None => break,
            },
        };
        running.sort_by_key(|r| (r.0, r.1));
        while running.first().is_some_and(|r| r.0 == t) {
            let (_, _, g) = running.remove(0);
            for (m, x) in g {
                free[m][x] = true;
            }
        }
        while next < n && trace.jobs[order[next]].submit == t {
            let j = order[next];
            next += 1;
            if place(&empty, rule, gpus(j)).is_some() {
                queue.push(j);
            }
        }
        queue.sort_by_key(|&j| key(j));
        let mut begin =
            |j: usize, g: Vec<(usize, usize)>, free: &mut Free, running: &mut Vec<_>| {
                for &(m, x) in &g {
                    free[m][x] = false;
                }
                start[j] = Some(t);
                running.push((t + rt(j), j, g));
            };
        match policy {
            Policy::Fifo | Policy::FifoBackfill => {
                while let Some(&h) = queue.first() {
                    match place(&free, rule, gpus(h)) {
                        Some(g) => {
                            queue.remove(0);
                            begin(h, g, &mut free, &mut running);
                        }
                        None => break,
                    }
                }
                if policy == Policy::FifoBackfill && !queue.is_empty() {
                    let h = queue[0];
                    if res.as_ref().is_none_or(|r| r.head != h) {
                        res = Some(reserve(h, gpus(h), rule, &free, &running));
                    }
                    let r = res.as_mut().unwrap();
                    let mut i = 1;
                    while i < queue.len() {
                        let j = queue[i];
                        if let Some(g) = place(&free, rule, gpus(j)) {
                            let short = t + rt(j) <= r.shadow;
                            let uses = per_machine(&g);
                            let fits_plan = uses.iter().all(|&(m, u)| {
                                r.avail.iter().find(|a| a.0 == m).is_none_or(|a| u <= a.1)
                            });
                            if short || fits_plan {
                                if !short {
                                    for (m, u) in uses {
                                        if let Some(a) = r.avail.iter_mut().find(|a| a.0 == m) {
                                            a.1 = a.1.saturating_sub(u);
                                        }
                                    }
                                }
                                queue.remove(i);
                                begin(j, g, &mut free, &mut running);
                                continue;
                            }
                        }
                        i += 1;
                    }
                }
            }
            _ => {
                let mut i = 0;
                while i < queue.len() {
                    let j = queue[i];
                    if let Some(g) = place(&free, rule, gpus(j)) {
                        queue.remove(i);
                        begin(j, g, &mut free, &mut running);
                    } else {
                        i += 1;
                    }
                }
            }
        }
    }
    start
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
