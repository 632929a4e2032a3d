//! FGD's arrival-only experiment ("inflation"): every pod of the trace in a
//! seeded shuffle, then clones drawn from the trace until the arrived GPU
//! request reaches `tune` × the cluster's GPUs (or pods drawn out until it
//! falls to it), placed one by one, never leaving; a pod that fits nowhere
//! is counted as failed and dropped. After each attempt, the arrived and
//! allocated GPU milli and the cluster's fragmentation are recorded.

use super::node::{Ask, Node};
use super::rules::{Scored, SharingRule};
use super::typical::{typical_pods, Typical};
use tracetui_model::{Cluster, Pod, Rng, TypeId};

/// Clones past which tuning stops: a trace of tiny requests on a huge
/// cluster cannot grow the run without bound.
const MAX_CLONES: usize = 10_000_000;

/// Score cache entries past which scores are computed afresh each time.
const MAX_CACHED: usize = 1 << 22;

/// Pods whose typical kinds make 95 % of them.
const TYPICAL_PERCENT: u32 = 95;

/// What every run on one trace shares: its pods by name, their kinds, the
/// typical pods, and the empty cluster.
#[derive(Debug, Clone)]
pub struct Setup {
    /// The trace's pods, sorted by name (byte order).
    pub asks: Vec<Ask>,
    /// Each of `asks`' row in the trace's pods.
    pub rows: Vec<u32>,
    /// Distinct requests among them (`Ask::kind` < this).
    pub kinds: usize,
    /// The typical pods, from every row of the trace.
    pub typical: Vec<Typical>,
    /// Every node, empty, sorted by name.
    pub nodes: Vec<Node>,
    /// The cluster's GPUs.
    pub gpus: u64,
}

impl Setup {
    /// The runs' common ground for `pods` on `cluster`.
    pub fn new(cluster: &Cluster, pods: &[Pod]) -> Setup {
        let typical = typical_pods(pods, TYPICAL_PERCENT);
        let mut rows: Vec<u32> = (0..pods.len() as u32).collect();
        rows.sort_by(|&a, &b| {
            let (a, b) = (&pods[a as usize], &pods[b as usize]);
            a.name.as_bytes().cmp(b.name.as_bytes())
        });
        let by_name: Vec<&Pod> = rows.iter().map(|&r| &pods[r as usize]).collect();
        let mut kinds: std::collections::HashMap<(u32, u32, u32, &[TypeId]), u32> =
            std::collections::HashMap::new();
        let asks = by_name
            .iter()
            .map(|p| {
                let probe = Ask::of(p, 0);
                let key = (probe.cpu_milli, probe.gpus, probe.milli, &*p.models);
                let next = kinds.len() as u32;
                Ask {
                    kind: *kinds.entry(key).or_insert(next),
                    ..probe
                }
            })
            .collect();
        let mut machines: Vec<_> = cluster
            .machines
            .iter()
            .filter(|m| !m.recorded_only)
            .collect();
        machines.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
        Setup {
            asks,
            rows,
            kinds: kinds.len(),
            nodes: machines.iter().map(|m| Node::new(m, &typical)).collect(),
            gpus: machines.iter().map(|m| m.gpus as u64).sum(),
            typical,
        }
    }
}

/// One placement attempt's aftermath.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Attempt {
    /// GPU milli of every pod tried so far, this one and failed ones too.
    pub arrived: u64,
    /// GPU milli allocated.
    pub allocated: u64,
    /// The cluster's fragmentation, milli-GPUs.
    pub frag: f64,
    /// Free GPU milli.
    pub idle: u64,
}

/// A run's attempts, in order.
#[derive(Debug, Clone)]
pub struct Inflation {
    /// After each pod.
    pub attempts: Vec<Attempt>,
    /// Pods that fit nowhere.
    pub failed: u64,
    /// Clones added (negative: pods drawn out) by tuning.
    pub tuned: i64,
    /// The cluster's GPUs.
    pub gpus: u64,
}

fn shuffle<T>(v: &mut [T], rng: &mut Rng) {
    for i in (1..v.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        v.swap(i, j);
    }
}

/// The pods in arrival order: shuffled, then tuned to `tune` × capacity.
fn arrivals(s: &Setup, rng: &mut Rng, tune: f64) -> (Vec<u32>, i64) {
    let mut order: Vec<u32> = (0..s.asks.len() as u32).collect();
    shuffle(&mut order, rng);
    let target = tune * s.gpus as f64 * 1000.0;
    let mut total: u64 = s.asks.iter().map(Ask::total_milli).sum();
    let any_gpu = s.asks.iter().any(|a| a.milli > 0);
    let before = order.len() as i64;
    if (total as f64) < target && any_gpu {
        while order.len() < s.asks.len() + MAX_CLONES {
            let i = rng.below(s.asks.len() as u64) as u32;
            let a = &s.asks[i as usize];
            // FGD's check weighs the clone's milli of one GPU, then adds all.
            if (total + a.milli as u64) as f64 > target {
                break;
            }
            order.push(i);
            total += a.total_milli();
        }
    } else {
        while (total as f64) > target && !order.is_empty() {
            let k = rng.below(order.len() as u64) as usize;
            total -= s.asks[order.remove(k) as usize].total_milli();
        }
    }
    let tuned = order.len() as i64 - before;
    (order, tuned)
}

/// The node ranks that break ties: a seeded permutation of the nodes by
/// name; nodes in rank order.
fn ranked(n: usize, rng: &mut Rng) -> Vec<u32> {
    let mut perm: Vec<u32> = (0..n as u32).collect();
    shuffle(&mut perm, rng);
    let mut order = vec![0u32; n];
    for (node, &rank) in perm.iter().enumerate() {
        order[rank as usize] = node as u32;
    }
    order
}

/// One run's placer: the rule, the node ranks, scores kept per (kind,
/// node) until the node changes, and the run's random draws.
struct Placer<'a> {
    rule: SharingRule,
    typical: &'a [Typical],
    /// Nodes in rank order (ties go to the first).
    order: Vec<u32>,
    /// Nodes: a kind's scores are a row of this many.
    width: usize,
    cache: Vec<(u32, Scored)>,
    rng: Rng,
    scratch: Vec<u16>,
}

impl Placer<'_> {
    fn new(s: &Setup, rule: SharingRule, mut rng: Rng) -> Placer<'_> {
        let order = ranked(s.nodes.len(), &mut rng);
        let n = s.nodes.len();
        let size = if s.kinds * n <= MAX_CACHED {
            s.kinds * n
        } else {
            0
        };
        let empty = Scored {
            score: 0,
            gpu: None,
        };
        Placer {
            rule,
            typical: &s.typical,
            order,
            width: n,
            cache: vec![(0, empty); size],
            rng,
            scratch: Vec::new(),
        }
    }

    /// Node `k`'s score for `a`, kept until the node changes.
    fn score(&mut self, nodes: &[Node], k: usize, a: &Ask) -> Scored {
        let n = &nodes[k];
        let Some(e) = self.cache.get_mut(a.kind as usize * self.width + k) else {
            return self.rule.score(n, a, self.typical, &mut self.scratch);
        };
        if e.0 != n.version + 1 {
            *e = (
                n.version + 1,
                self.rule.score(n, a, self.typical, &mut self.scratch),
            );
        }
        e.1
    }

    /// Any node `a` fits, uniformly; a share on any GPU with room.
    fn random(&mut self, nodes: &[Node], a: &Ask) -> Option<(usize, Option<u16>)> {
        let fit: Vec<u32> = self
            .order
            .iter()
            .copied()
            .filter(|&k| nodes[k as usize].fits(a))
            .collect();
        if fit.is_empty() {
            return None;
        }
        let k = fit[self.rng.below(fit.len() as u64) as usize] as usize;
        let gpu = a.is_share().then(|| {
            let room: Vec<u16> = (0..nodes[k].free.len() as u16)
                .filter(|&g| nodes[k].free[g as usize] as u32 >= a.milli)
                .collect();
            room[self.rng.below(room.len() as u64) as usize]
        });
        Some((k, gpu))
    }

    /// The node and share GPU `a` goes to, if any fits: the best score, the
    /// first in rank order among equals.
    fn choose(&mut self, nodes: &[Node], a: &Ask) -> Option<(usize, Option<u16>)> {
        if self.rule == SharingRule::Random {
            return self.random(nodes, a);
        }
        let mut best: Option<(i32, usize, Option<u16>)> = None;
        for i in 0..self.order.len() {
            let k = self.order[i] as usize;
            if !nodes[k].fits(a) {
                continue;
            }
            let sc = self.score(nodes, k, a);
            if best.is_none_or(|(b, _, _)| sc.score > b) {
                best = Some((sc.score, k, sc.gpu));
            }
        }
        best.map(|(_, k, g)| (k, g))
    }
}

/// The pods of a run seeded with `seed` and tuned to `tune` × the
/// cluster's GPUs, in arrival order (indices into `Setup::asks`; a clone
/// repeats its original's), and the clones added (negative: drawn out).
pub fn arrival_order(s: &Setup, seed: u64, tune: f64) -> (Vec<u32>, i64) {
    arrivals(s, &mut Rng::new(seed), tune)
}

/// One run of FGD's experiment under `rule`, seeded with `seed`, tuned to
/// `tune` × the cluster's GPUs.
pub fn inflate(s: &Setup, rule: SharingRule, seed: u64, tune: f64) -> Inflation {
    let mut rng = Rng::new(seed);
    let (arrivals, tuned) = arrivals(s, &mut rng, tune);
    let mut placer = Placer::new(s, rule, rng);
    let mut nodes = s.nodes.clone();
    let mut frag: f64 = nodes.iter().map(|n| n.frag).sum();
    let (mut arrived, mut allocated, mut failed) = (0u64, 0u64, 0u64);
    let capacity = s.gpus * 1000;
    let mut attempts = Vec::with_capacity(arrivals.len());
    for &i in &arrivals {
        let a = &s.asks[i as usize];
        arrived += a.total_milli();
        match placer.choose(&nodes, a) {
            Some((k, gpu)) => {
                let n = &mut nodes[k];
                let gpus = match gpu {
                    Some(g) => vec![g],
                    None => n.tightest(a.gpus, a.milli),
                };
                let before = n.frag;
                n.take(a, &gpus, &s.typical);
                frag += n.frag - before;
                allocated += a.total_milli();
            }
            None => failed += 1,
        }
        attempts.push(Attempt {
            arrived,
            allocated,
            frag,
            idle: capacity - allocated,
        });
    }
    Inflation {
        attempts,
        failed,
        tuned,
        gpus: s.gpus,
    }
}
