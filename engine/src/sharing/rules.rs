//! The six placements of FGD's paper, each a score of a node for a pod
//! (the highest wins; equal scores go to the node ranked first) and a
//! choice of GPUs on the node chosen. Scores are whole numbers, truncated
//! where FGD's simulator truncates, since ties decide so much.

use super::frag::node_frag;
use super::node::{Ask, Node};
use super::typical::Typical;

/// CPU of the largest node FGD's scores scale by, milli-cores.
const MAX_CPU: f64 = 128_000.0;
/// GPU milli of the largest node (8 GPUs) they scale by.
const MAX_GPU: u32 = 8_000;

/// How a GPU-sharing pod's node is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SharingRule {
    /// Any node it fits, uniformly; a share on any GPU with room.
    Random,
    /// The node whose free CPU and GPU, scaled, align least with the pod's
    /// request (FGD's DotProd, merge, max-normalised).
    DotProduct,
    /// The node whose GPU pods are most of the pod's kind (share, 1-GPU,
    /// 2-GPU …), then the fullest.
    GpuClustering,
    /// A partly used GPU first, then an idle GPU on a busy node, then an
    /// empty node with few GPUs.
    GpuPacking,
    /// The node with the least CPU and GPU left after it, each scaled.
    BestFit,
    /// Fragmentation gradient descent: the node (and GPU) whose
    /// fragmentation, against the trace's typical pods, grows least.
    Fgd,
}

/// Why a job went where it went under a sharing placement: the rule, the
/// machines it fitted, and the best of them with their scores (the first
/// is where it went).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ranking {
    /// The placement's name.
    pub rule: &'static str,
    /// Machines it fitted.
    pub fit: u32,
    /// The best few (machine, score), best first, ties by machine order.
    pub best: Vec<(u32, i32)>,
}

/// Machines a `Ranking` keeps.
pub const RANKED: usize = 5;

/// A node's score for a pod, and the GPU a share would take there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scored {
    /// 0–100; higher is better.
    pub score: i32,
    /// The GPU for a share chosen by the score itself (FGD); none: the
    /// fullest GPU with room.
    pub gpu: Option<u16>,
}

impl SharingRule {
    /// Every rule, in the paper's order.
    pub const ALL: [SharingRule; 6] = [
        SharingRule::Random,
        SharingRule::DotProduct,
        SharingRule::GpuClustering,
        SharingRule::GpuPacking,
        SharingRule::BestFit,
        SharingRule::Fgd,
    ];

    /// Its name, as `--placement` takes it.
    pub fn name(self) -> &'static str {
        match self {
            SharingRule::Random => "random",
            SharingRule::DotProduct => "dot-product",
            SharingRule::GpuClustering => "gpu-clustering",
            SharingRule::GpuPacking => "gpu-packing",
            SharingRule::BestFit => "best-fit",
            SharingRule::Fgd => "fgd",
        }
    }

    /// One line on what it does, for help.
    pub fn about(self) -> &'static str {
        match self {
            SharingRule::Random => "Any node the pod fits, uniformly; a share on any GPU with room",
            SharingRule::DotProduct => {
                "The node whose free CPU and GPU align least with the pod's request (FGD's DotProd)"
            }
            SharingRule::GpuClustering => {
                "The node whose GPU pods are most of the pod's kind (share, 1-GPU, …), then the fullest"
            }
            SharingRule::GpuPacking => {
                "A partly used GPU first, then an idle GPU on a busy node, then an empty small node"
            }
            SharingRule::BestFit => "The node with the least CPU and GPU left after the pod",
            SharingRule::Fgd => {
                "Fragmentation gradient descent: the node and GPU whose fragmentation grows least"
            }
        }
    }

    /// The rule called `name`.
    pub fn from_name(name: &str) -> Option<SharingRule> {
        SharingRule::ALL.into_iter().find(|r| r.name() == name)
    }

    /// Its directory in FGD's results (`sc_policy`: `06-FGD`).
    pub fn peer(self) -> &'static str {
        match self {
            SharingRule::Random => "01-Random",
            SharingRule::DotProduct => "02-DotProd",
            SharingRule::GpuClustering => "03-GpuClustering",
            SharingRule::GpuPacking => "04-GpuPacking",
            SharingRule::BestFit => "05-BestFit",
            SharingRule::Fgd => "06-FGD",
        }
    }

    /// The rule FGD's results call `dir`.
    pub fn from_peer(dir: &str) -> Option<SharingRule> {
        SharingRule::ALL.into_iter().find(|r| r.peer() == dir)
    }

    /// `n`'s score for `a` (`n` fits it). `scratch` is room for a node's
    /// GPUs (FGD tries the pod on each).
    pub fn score(self, n: &Node, a: &Ask, typical: &[Typical], scratch: &mut Vec<u16>) -> Scored {
        let score = match self {
            SharingRule::Random => 0,
            SharingRule::DotProduct => dot_product(n, a),
            SharingRule::GpuClustering => clustering(n, a),
            SharingRule::GpuPacking => packing(n, a),
            SharingRule::BestFit => best_fit(n, a),
            SharingRule::Fgd => return fgd(n, a, typical, scratch),
        };
        Scored { score, gpu: None }
    }
}

fn dot_product(n: &Node, a: &Ask) -> i32 {
    let cpu = (n.cpu_left as f64 / MAX_CPU) * (a.cpu_milli as f64 / MAX_CPU);
    let gpu = (n.free_milli() as f64 / MAX_GPU as f64) * (a.total_milli() as f64 / MAX_GPU as f64);
    (100.0 * (1.0 - (cpu + gpu) / 2.0)).max(0.0) as i32
}

fn clustering(n: &Node, a: &Ask) -> i32 {
    let Some(tag) = a.tag() else {
        return 0;
    };
    let base = (25 * MAX_GPU.saturating_sub(n.free_milli()) / MAX_GPU) as i32;
    let has = n.tags.iter().any(|&(t, _)| t == tag);
    base + match (has, n.tags.len()) {
        (true, 1) => 75,
        (true, _) => 50,
        (false, 0) => 25,
        (false, _) => 0,
    }
}

fn packing(n: &Node, a: &Ask) -> i32 {
    if a.tag().is_none() {
        return 0;
    }
    let idle = n.fitting(1000) as i32;
    if idle as usize == n.free.len() {
        return (33 - idle).max(idle);
    }
    let taken = n.tightest(a.gpus, a.milli);
    let k = taken
        .iter()
        .filter(|&&g| n.free[g as usize] == 1000)
        .count() as i32;
    if k > 0 {
        return (50 - k).max(33);
    }
    let tenths: u32 = taken
        .iter()
        .map(|&g| n.free[g as usize] as u32 * 100 / 1000)
        .sum();
    (100 - (tenths / 10) as i32).max(50)
}

fn best_fit(n: &Node, a: &Ask) -> i32 {
    let cpu = (n.cpu_left - a.cpu_milli) as f64 / MAX_CPU;
    let gpu = (n.free_milli() as f64 - a.total_milli() as f64) / MAX_GPU as f64;
    (100.0 * (1.0 - (0.5 * cpu + 0.5 * gpu))).max(0.0) as i32
}

/// ⌊100·σ(Δ/1000)⌋ for a fall `delta` in fragmentation.
fn fgd_score(delta: f64) -> i32 {
    (100.0 / (1.0 + (-delta / 1000.0).exp())) as i32
}

fn fgd(n: &Node, a: &Ask, typical: &[Typical], scratch: &mut Vec<u16>) -> Scored {
    let cpu = n.cpu_left - a.cpu_milli;
    scratch.clear();
    scratch.extend_from_slice(&n.free);
    if !a.is_share() {
        for g in n.tightest(a.gpus, a.milli) {
            scratch[g as usize] -= a.milli as u16;
        }
        let score = fgd_score(n.frag - node_frag(typical, n.model, cpu, scratch));
        return Scored { score, gpu: None };
    }
    let mut best: Option<(i32, u16)> = None;
    let mut tried: Vec<(u16, i32)> = Vec::new();
    for g in 0..n.free.len() {
        let l = n.free[g];
        if (l as u32) < a.milli {
            continue;
        }
        let s = match tried.iter().find(|&&(v, _)| v == l) {
            Some(&(_, s)) => s,
            None => {
                scratch[g] = l - a.milli as u16;
                let s = fgd_score(n.frag - node_frag(typical, n.model, cpu, scratch));
                scratch[g] = l;
                tried.push((l, s));
                s
            }
        };
        if best.is_none_or(|(b, _)| s > b) {
            best = Some((s, g as u16));
        }
    }
    let (score, g) = best.unwrap_or((0, 0));
    Scored {
        score,
        gpu: Some(g),
    }
}
