//! The machines as the GPU-sharing placements read them — CPU and memory
//! left, each GPU's free milli, the pods on each by kind, and each one's
//! fragmentation against the trace's typical pods — kept as grants come and
//! go, from the first time a sharing placement runs (built then from the
//! holders; a replay that never uses one pays nothing).

use crate::cluster::HostUse;
use crate::sharing::{node_frag, tag, typical_pods, Node, Typical};
use std::sync::{Arc, OnceLock};
use tracetui_model::{Demand, Machine, Pod, Trace, MILLI_PER_GPU};

/// CPU taken as a machine's when its trace does not say (the scale FGD's
/// scores use), milli-cores; memory likewise unbounded.
const UNSAID_CPU: u32 = 128_000;

/// What a ledger is built from: the trace (its jobs' requests) and its
/// typical pods, found the first time they are needed.
#[derive(Debug)]
pub(crate) struct Inputs {
    trace: Arc<Trace>,
    typical: OnceLock<Vec<Typical>>,
}

impl Inputs {
    pub(crate) fn new(trace: Arc<Trace>) -> Inputs {
        Inputs {
            trace,
            typical: OnceLock::new(),
        }
    }

    /// The typical pods: of every row where the format keeps them (openb),
    /// else of the jobs.
    pub(crate) fn typical(&self) -> &[Typical] {
        self.typical.get_or_init(|| {
            let t = &self.trace;
            match t.native.as_ref().and_then(|n| n.pods()) {
                Some(pods) => typical_pods(pods, 95),
                None => {
                    let pods: Vec<Pod> = t.jobs.iter().filter_map(pod_of).collect();
                    typical_pods(&pods, 95)
                }
            }
        })
    }

    /// The machines.
    pub(crate) fn machines(&self) -> &[Machine] {
        &self.trace.cluster.machines
    }

    /// What job `job` is on each machine it runs on, as a pod: its kind
    /// for GPU clustering (none for a tentative holder, or a job of
    /// several instances).
    pub(crate) fn held(&self, job: u32) -> Option<Held> {
        let j = self.trace.jobs.get(job as usize)?;
        let (gpus, milli) = split(&j.demand)?;
        Some(Held {
            tag: tag(gpus, milli),
        })
    }
}

/// A pod on a machine, as the ledger counts it: its kind for GPU
/// clustering. (Its CPU and memory are the cluster's to count, with the
/// grants that hold them.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Held {
    tag: Option<u32>,
}

/// `job` as one pod on one machine, where its demand is one: a share of one
/// GPU, whole GPUs, or none.
pub(crate) fn pod_of(job: &tracetui_model::Job) -> Option<Pod> {
    let (gpus, milli) = split(&job.demand)?;
    Some(Pod {
        name: "".into(),
        cpu_milli: job.cpu_milli,
        mem_mib: job.mem_mib,
        gpus,
        milli,
        spec: "".into(),
        models: crate::cluster::TypeFilter::of_job(job).types(64).into(),
    })
}

/// A demand as GPUs × milli each on one machine, where it is one.
pub(crate) fn split(d: &Demand) -> Option<(u32, u32)> {
    match d {
        Demand::Gang { gpus } => Some((*gpus, if *gpus == 0 { 0 } else { MILLI_PER_GPU })),
        Demand::Instances(units) => match &units[..] {
            [u] if u.count == 1 && u.milli < MILLI_PER_GPU => Some((1, u.milli)),
            [u] if u.count == 1 && u.milli % MILLI_PER_GPU == 0 => {
                Some((u.milli / MILLI_PER_GPU, MILLI_PER_GPU))
            }
            _ => None,
        },
    }
}

/// Every machine's state for the sharing placements.
#[derive(Debug, Clone)]
pub(crate) struct Ledger {
    pub(crate) nodes: Vec<Node>,
    /// Draws made by `random` so far (its choices are seeded by the count).
    pub(crate) draws: u64,
    /// Every node's fragmentation summed, kept as they change (milli-GPUs).
    pub(crate) frag_total: f64,
}

/// A machine as the ledger holds it: unsaid CPU and memory unbounded.
fn capped(m: &Machine) -> Machine {
    let mut m = m.clone();
    if m.cpu_milli == 0 {
        m.cpu_milli = UNSAID_CPU;
    }
    if m.mem_mib == 0 {
        m.mem_mib = u32::MAX;
    }
    m
}

impl Ledger {
    /// The machines with nothing on them.
    pub(crate) fn new(machines: &[Machine], typical: &[Typical]) -> Ledger {
        let capped: Vec<Machine> = machines.iter().map(capped).collect();
        Ledger {
            nodes: capped.iter().map(|m| Node::new(m, typical)).collect(),
            draws: 0,
            frag_total: 0.0,
        }
        .summed()
    }

    /// With `frag_total` summed afresh.
    fn summed(mut self) -> Ledger {
        self.frag_total = self.nodes.iter().map(|n| n.frag).sum();
        self
    }

    /// Machine `m`'s GPUs now have `used` milli in use each and `host` of
    /// its CPU and memory; `held` (a pod, none for a tentative holder) came
    /// (`sign` 1) or went (−1).
    pub(crate) fn note(
        &mut self,
        m: u32,
        (used, host): (&[u32], HostUse),
        held: Option<Held>,
        sign: i64,
        typical: &[Typical],
    ) {
        let n = &mut self.nodes[m as usize];
        for (f, &u) in n.free.iter_mut().zip(used) {
            *f = MILLI_PER_GPU.saturating_sub(u) as u16;
        }
        // Capacities the trace does not say, as `capped` takes them.
        let left = |cap: u32, unsaid: u32, used: u32| {
            if cap == 0 { unsaid } else { cap }.saturating_sub(used)
        };
        n.cpu_left = left(host.cpu_cap, UNSAID_CPU, host.cpu_used);
        n.mem_left = left(host.mem_cap, u32::MAX, host.mem_used);
        if let Some(a) = held {
            n.pods = (n.pods as i64 + sign).max(0) as u32;
            if let Some(t) = a.tag {
                match n.tags.iter().position(|&(k, _)| k == t) {
                    Some(i) if sign < 0 && n.tags[i].1 <= 1 => {
                        n.tags.remove(i);
                    }
                    Some(i) => n.tags[i].1 = (n.tags[i].1 as i64 + sign).max(0) as u32,
                    None if sign > 0 => n.tags.push((t, 1)),
                    None => {}
                }
            }
        }
        let before = n.frag;
        n.frag = node_frag(typical, n.model, n.cpu_left, &n.free);
        self.frag_total += n.frag - before;
        n.version += 1;
    }
}
